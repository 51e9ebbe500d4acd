"""Algorithm 1's parameters against the ``docs/papers/ghazi2023.md`` table (computed there independently), the presets'
differences (errata E1, E2, E5) and the refusal of inputs outside the paper's assumptions."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument, UnsoundMechanismWarning
from dpaudit.userlevel.ghazi2023 import (
    DelOutputPert,
    ERMProblem,
    SCOutputPert,
    UserMean,
    alg1_parameters,
)
from dpaudit.userlevel.ghazi2023.parameters import deletion_threshold
from dpaudit.userlevel.losses import SquaredLoss

# concrete parameter values from Alg 1 line 3 (docs/papers/ghazi2023.md, ALG-1): (eps, delta) -> (kappa, sigma/Delta, n >= 8 kappa + 2, P[R1 = 0])
NOTE_TABLE = [
    (1.0, 1e-5, 27, 3175, 218, "3.36e-7"),
    (1.0, 1e-6, 32, 4071, 258, "2.76e-8"),
    (0.5, 1e-5, 52, 1.218e4, 418, "2.81e-7"),
    (0.1, 1e-5, 254, 2.967e5, 2034, "7.6e-8"),
    (1.0, 1e-2, 13, 1068, 106, "3.7e-4"),
    (1.0, 0.1, 9, 596.5, 74, "2.7e-3"),
    (1.0, 0.5, 5, 262, 42, "2.1e-2"),
]


def _half_unit(printed: str) -> float:
    """Half a unit in the last printed digit of ``printed`` (how far the rounded table value can be off)."""
    mantissa, exponent = printed.split("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 0.5 * 10.0 ** (int(exponent) - decimals)


@pytest.mark.parametrize(("eps", "delta", "kappa", "ratio", "n_min", "edge"), NOTE_TABLE)
def test_alg1_parameters_match_the_notes_table(eps, delta, kappa, ratio, n_min, edge):
    p = alg1_parameters(eps, delta, 1.0)
    assert p.kappa == kappa
    assert p.sigma == pytest.approx(ratio, rel=2e-3)  # sigma / Delta, the table rounds to 4 digits
    assert 8 * p.kappa + 2 == n_min
    assert p.edge_mass == pytest.approx(float(edge), abs=_half_unit(edge))
    # (T1): the end-point mass is at most delta_bar e^{-eps_bar}, and the three delta_bar terms add to delta
    assert p.edge_mass <= p.delta_bar * math.exp(-p.eps_bar)
    assert (math.exp(p.eps_bar) + 2) * p.delta_bar == pytest.approx(delta, rel=1e-14)


def test_corrected_sigma_is_linear_in_delta_and_the_printed_one_is_not():
    """E2: the Gaussian mechanism's sigma is proportional to the sensitivity; the typeset one is not."""
    for preset in ("corrected", "paper"):
        a = alg1_parameters(1.0, 1e-5, 1.0, preset=preset)
        b = alg1_parameters(1.0, 1e-5, 4.0, preset=preset)
        ratio = b.sigma / a.sigma
        assert ratio == pytest.approx(4.0 if preset == "corrected" else 2.0, rel=1e-12)
    # the printed sigma equals the corrected one exactly where 8 kappa Delta = 1, and is smaller beyond
    p = alg1_parameters(1.0, 1e-5, 1.0)
    at_one = 1.0 / (8 * p.kappa)
    lit = alg1_parameters(1.0, 1e-5, at_one, preset="paper")
    assert lit.delta_bar < p.delta_bar  # E1: delta / e^{eps_bar + 2} is the smaller (also private) reading
    big = 1e6
    assert alg1_parameters(1.0, 1e-5, big, preset="paper").sigma < alg1_parameters(1.0, 1e-5, big).sigma / 100


def test_thresholds_scale_like_one_over_n_sqrt_m_and_use_10g_when_corrected():
    common = dict(lipschitz=3.0, strong_convexity=1.0, beta=0.1, kappa=5)
    printed = [deletion_threshold("printed", n_users=n, m_items=m, preset="corrected", **common)
               for n, m in ((100, 4), (200, 4), (100, 16))]
    assert printed[0] / printed[1] == pytest.approx(2.0) and printed[0] / printed[2] == pytest.approx(2.0)
    # 10 G sqrt(ln(1/beta)) / (mu n sqrt(m)) at G = 3, mu = 1, beta = 0.1, n = 100, m = 4 [Alg 2, line 3]
    assert printed[0] == pytest.approx(10 * 3 * math.sqrt(math.log(10)) / (100 * 2))
    for kind in ("union_bound", "certified"):
        c = deletion_threshold(kind, n_users=100, m_items=4, preset="corrected", **common)
        p = deletion_threshold(kind, n_users=100, m_items=4, preset="paper", **common)
        assert c == pytest.approx(2 * p)  # E5: 10 G instead of Thm 3.6's 5 G
    with pytest.raises(InvalidArgument, match="at least 4 kappa \\+ 2 = 22"):
        deletion_threshold("certified", n_users=21, m_items=4, preset="corrected", **common)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"epsilon": 1.5}, "`epsilon` must be in (0, 1]"),
    ({"delta": 0.6}, "`delta` must be in (0, 0.5]"),
    ({"threshold": 0.0}, "`threshold` must be in (0, inf)"),
    ({"threshold": 1e286}, "`threshold` must be small enough that sigma"),
])
def test_alg1_refuses_parameters_outside_the_papers_assumptions(kwargs, message):
    args = {"epsilon": 1.0, "delta": 1e-5, "threshold": 1.0, **kwargs}
    with pytest.raises(InvalidArgument, match=re.escape(message)):
        DelOutputPert(UserMean(), **args)


def test_paper_preset_warns_and_the_minimum_number_of_users_is_refused_with_a_clear_error(rng):
    with pytest.warns(UnsoundMechanismWarning, match="preset='paper'"):
        SCOutputPert(ERMProblem(SquaredLoss(), l2=1.0), 1.0, 1e-5, preset="paper")
    mech = SCOutputPert(ERMProblem(SquaredLoss(), l2=1.0), 1.0, 1e-5)
    assert mech.min_users() == 218
    data = np.zeros((217, 3, 2))
    with pytest.raises(InvalidArgument, match=re.escape("at least 8 kappa + 2 = 218 users for SCOutputPert")):
        mech.sample(data, 10, rng=rng)
    alg1 = DelOutputPert(UserMean(), 1.0, 1e-5, 1.0)
    assert alg1.min_users() == 110
    with pytest.raises(InvalidArgument, match=re.escape("at least 4 kappa + 2 = 110 users")):
        alg1.sample(np.zeros((109, 1)), 10, rng=rng)


def test_sc_output_pert_refuses_a_problem_without_strong_convexity():
    with pytest.raises(InvalidArgument, match="l2 > 0"):
        SCOutputPert(ERMProblem(SquaredLoss()), 1.0, 1e-5)


def test_kappa_override_raises_the_claimed_delta_by_the_proofs_own_accounting():
    """With kappa overridden the end-point mass replaces delta_bar: delta = 2 P[R1 = 0] + e^{eps_bar} delta_bar."""
    p = alg1_parameters(1.0, 0.5, 1.0, kappa=1)
    pmf = np.exp(-0.5 * np.abs(np.arange(3) - 1.0))
    pmf /= pmf.sum()
    assert p.edge_mass == pytest.approx(pmf[0])
    assert p.claimed_delta == pytest.approx(2 * pmf[0] + math.exp(0.5) * 0.5 / (math.exp(0.5) + 2))
    assert DelOutputPert(UserMean(), 1.0, 0.5, 1.0, kappa=1).claimed_guarantee().delta == pytest.approx(p.claimed_delta)
