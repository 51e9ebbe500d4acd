"""The contract's checks fail on mechanisms that break it, and pass a correct one (the base, used as a user would)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from dpaudit._validation import argument_error, check_finite_array
from dpaudit.guarantees import PureDP
from dpaudit.mechanisms.base import MechanismBase
from dpaudit.neighbors.relations import QueryDistance
from dpaudit.testing import (
    ContractCase,
    MechanismContract,
    check_claim,
    check_extreme_inputs,
    check_fresh_outputs,
    check_refuses_out_of_domain,
    check_same_seed_same_output,
)

_BUFFER = np.empty(64)


@dataclass(frozen=True)
class Noisy(MechanismBase):
    """Laplace noise of scale ``scale`` on a scalar query, claimed ``claim``-DP; ``flaw`` breaks one promise."""

    scale: float = 1.0
    claim: float = 1.0
    flaw: str = ""

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> Any:
        if self.flaw == "draws first":
            noise = rng.laplace(0.0, self.scale, size)
            x = check_finite_array("Noisy", "data", data)
        else:
            x = check_finite_array("Noisy", "data", data)
            if self.flaw == "refuses huge" and np.any(np.abs(x) > 1e300):
                raise argument_error("Noisy", "data", "at most 1e300 in magnitude", data)
            noise = rng.laplace(0.0, self.scale, size)
        if self.flaw == "overflows":
            return x * 10.0 + noise  # 1e308 * 10 = inf
        if self.flaw == "global state":
            return x + noise + random.random()  # deliberately not the given rng
        if self.flaw == "reused buffer":
            out = _BUFFER[:size]
            out[:] = x + noise
            return out
        return x + noise

    def claimed_guarantee(self) -> PureDP:
        return PureDP(self.claim, QueryDistance(1.0, "l1"))


def case(**kwargs: Any) -> ContractCase:
    return ContractCase("noisy", Noisy(**kwargs), 0.0, neighbour=1.0, trials=20_000)


@pytest.mark.parametrize(("check", "flaw", "message"), [
    (check_refuses_out_of_domain, "draws first", "only after drawing randomness"),
    (check_extreme_inputs, "overflows", "near the float limits"),
    (check_same_seed_same_output, "global state", "the same seed gave different outputs"),
    (check_fresh_outputs, "reused buffer", "sharing memory"),
])
def test_each_check_fails_on_the_flaw_it_is_for(check, flaw, message):
    with pytest.raises(AssertionError, match=message):
        check(case(flaw=flaw))
    check(case())  # and passes without it


def test_a_claim_too_small_is_refuted_and_a_refusal_inside_the_declared_domain_is_caught():
    with pytest.raises(AssertionError, match="an audit refutes the claim"):
        check_claim(case(scale=0.5))  # 2-DP claimed 1-DP
    check_claim(case())
    declared_all_finite = ContractCase("noisy", Noisy(flaw="refuses huge"), 0.0, extreme=[1e308])
    with pytest.raises(AssertionError, match="extreme data inside the domain"):
        check_extreme_inputs(declared_all_finite)
    check_extreme_inputs(ContractCase("noisy", Noisy(flaw="refuses huge"), 0.0))  # refusing up front is allowed


class TestTheBaseAsAUserWouldUseIt(MechanismContract):
    def contract_cases(self):
        return [case(), ContractCase("noisy, scale 2", Noisy(scale=2.0), 0.0, neighbour=1.0, extreme=[1e308, -1e308])]
