"""A mechanism may declare the block size its audits use by default (``audit_block_size``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pytest

import dpaudit
from dpaudit.mechanisms import LaplaceMechanism
from dpaudit.userlevel import (
    OutlierRemovalPhasedSGD,
    RobustStatsLocalization,
    RobustStatsSGD,
    WinsorizedFirstOrder,
)
from dpaudit.userlevel.levy2021 import PhasedERM
from dpaudit.userlevel.lowy2024 import AcceleratedPhasedERM


@dataclass(frozen=True)
class _SmallBlocks(LaplaceMechanism):
    audit_block_size: ClassVar[int] = 300


def test_a_declared_block_size_is_used_and_splits_the_audit_into_blocks():
    res = dpaudit.audit(_SmallBlocks(1.0), 0.0, 1.0, trials=1000, seed=0)
    assert res.block_size == 300
    plain = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, trials=1000, seed=0)
    assert plain.block_size >= 1 << 12  # chosen from the output size


def test_an_explicit_block_size_wins_over_the_declared_one():
    assert dpaudit.audit(_SmallBlocks(1.0), 0.0, 1.0, trials=1000, seed=0, block_size=128).block_size == 128


@pytest.mark.parametrize("cls", [RobustStatsSGD, RobustStatsLocalization, WinsorizedFirstOrder, PhasedERM,
                                 OutlierRemovalPhasedSGD, AcceleratedPhasedERM])
def test_user_level_sgd_algorithms_declare_small_blocks(cls: Any):
    # every trial runs a whole SGD loop: blocks of 2^12+ trials would leave one block per dataset
    assert cls.audit_block_size is not None and cls.audit_block_size <= 4096


def test_plain_callables_keep_the_output_size_rule():
    def fn(data: Any, rng: np.random.Generator, size: int | None = None) -> Any:
        return data + rng.laplace(size=size)

    assert dpaudit.audit(fn, 0.0, 1.0, epsilon=1.0, trials=1000, seed=0).block_size >= 1 << 12
