"""Shared helpers for the Lowy et al. 2024 tests: a loss that counts the item gradients it computes."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

from dpaudit.userlevel.losses import AbsoluteLoss, SquaredLoss


@dataclass(frozen=True)
class CountingSquaredLoss(SquaredLoss):
    """SquaredLoss that counts every per-item slope it evaluates (the gradient is slope * x)."""

    calls: list[int] = field(default_factory=lambda: [0], compare=False, hash=False)

    def _slope(self, margin, y):  # type: ignore[override]
        self.calls[0] += int(np.broadcast(margin, y).size)
        return super()._slope(margin, y)


@dataclass(frozen=True)
class CountingAbsoluteLoss(AbsoluteLoss):
    """AbsoluteLoss that counts every per-item slope it evaluates."""

    calls: list[int] = field(default_factory=lambda: [0], compare=False, hash=False)

    def _slope(self, margin, y):  # type: ignore[override]
        self.calls[0] += int(np.broadcast(margin, y).size)
        return super()._slope(margin, y)


@pytest.fixture
def counting_squared() -> CountingSquaredLoss:
    return CountingSquaredLoss()


@pytest.fixture
def counting_absolute() -> CountingAbsoluteLoss:
    return CountingAbsoluteLoss()
