"""Algorithm 5's worst pair built: the canary at the first stage's stability boundary.

:func:`~dpaudit.userlevel.ghazi2023.worst_pairs.alg5_first_stage_pair` puts ``kappa + 1`` unstable
users in ``d0`` and ``kappa`` in ``d1`` (``kappa`` of the first stage); its records must be
non-adaptive (every phase deletes the outliers on both sides and both branches of the first stage
run the phases on ``K``), so the transcript's certified epsilon is the flags' exact composition.
The parameter margins behind it are checked without data; the records on the data in the slow suite.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.userlevel.ghazi2023.audit_cases import golden_problem
from dpaudit.userlevel.ghazi2023.strongly_convex import StronglyConvexERM
from dpaudit.userlevel.ghazi2023.worst_pairs import (
    _ALG5_FIRST_STAGE_BETA,
    _ERM_M_ITEMS,
    _quiet,
    alg5_first_stage_pair,
    boundary_margins,
    transcript_steps,
)
from dpaudit.userlevel.transcript_profile import tdlap_flag_profile, transcript_profile


def _mech(beta: float) -> StronglyConvexERM:
    return _quiet(StronglyConvexERM, golden_problem(), 1.0, 1e-2, beta=beta, threshold="printed", engine="translate")


def test_the_pairs_parameters_put_every_search_past_its_delta_and_k_prime_over_k():
    """beta = 0.01, m = 10^4: every phase and the first stage delete the 28 outliers; R' >= 2R."""
    mech = _mech(_ALG5_FIRST_STAGE_BETA)
    n = mech.min_users(_ERM_M_ITEMS)
    kappa = mech.first_stage(n, _ERM_M_ITEMS).parameters(n, _ERM_M_ITEMS, 1).alg1.kappa
    assert (n, kappa) == (5370, 27)
    margins = boundary_margins(mech, n, _ERM_M_ITEMS, kappa + 1)
    assert margins["first stage"] > 1.5 and margins["phases"] > 1.2 and margins["radius"] > 1.1, margins


@pytest.mark.parametrize(("beta", "m_items", "short"), [(0.3, _ERM_M_ITEMS, "radius"), (0.01, 5000, "phases")])
def test_the_margins_fail_where_the_construction_does(beta, m_items, short):
    """beta = 0.3 (the other ERM pairs'): R' = 0.72 < 2R; m = 5000: the phases' Delta exceeds one outlier's move."""
    mech = _mech(beta)
    n = mech.min_users(m_items)
    margins = boundary_margins(mech, n, m_items, 28)
    assert margins[short] < 1.0, margins
    # the phases' boundary pair (672 outliers) is past the first stage's reach: its search cannot delete them all
    assert boundary_margins(mech, n, m_items, 672)["first stage"] == 0.0


@pytest.mark.slow
def test_the_first_stage_pairs_records_are_its_exact_law():
    """First flag 28 vs 27 at kappa 27; every phase 28 vs 27, non-adaptive, equal centres; bracket [0.2323, 0.2369]."""
    wp = alg5_first_stage_pair()
    steps = transcript_steps(wp.mechanism, wp.d0, wp.d1)
    flags = [s for s in steps if s.law == "truncated discrete laplace test"]
    assert len(flags) == 19  # the first stage and T = 18 phases
    first = flags[0]
    assert first.parameters["kappa"] == 27 and first.parameters["eps_bar"] == 0.25
    for flag in flags:
        assert not flag.adaptive
        assert (flag.on_d0["k"], flag.on_d1["k"]) == (28, 27), flag
    assert all(s.on_d0["centre"] == s.on_d1["centre"] and not s.adaptive for s in steps if s.law == "gaussian")
    profile = transcript_profile(steps)
    bracket = profile.epsilon(wp.delta)
    assert 0.232 < float(bracket.lower) <= float(bracket.upper) < 0.237, bracket  # 4.2x below the claim's 1
    alone = tdlap_flag_profile(28, 27, 0.25, 27).epsilon(wp.delta)  # the first flag carries nearly all of it
    assert float(alone.lower) > 0.23
    # the mechanism's own first flag: P[⊥] = P[R1 < 28] on d0, P[R1 < 27] on d1
    law = np.exp(-0.25 * np.abs(np.arange(55) - 27))
    law /= law.sum()
    mech = wp.observed("transcript")
    for data, k in ((wp.d0, 28), (wp.d1, 27)):
        rows = mech.sample(data, 20_000, rng=np.random.default_rng(k))
        want = float(law[:k].sum())
        got = float(rows[:, 0].mean())
        assert abs(got - want) < 4 * np.sqrt(want * (1 - want) / 20_000), (k, got, want)


def test_boundary_margins_refuses_bad_sizes():
    """Non-integers, negative counts and too few users for the searches are refused, naming the parameter."""
    from dpaudit.errors import InvalidArgument
    from dpaudit.userlevel.ghazi2023.worst_pairs import alg5_first_stage_pair, boundary_margins

    mech = alg5_first_stage_pair().mechanism
    for kwargs, name in (({"n": 5370.5}, "n"), ({"m": 0}, "m"), ({"outliers": -1}, "outliers"), ({"n": 100}, "n")):
        args = {"n": 5370, "m": 10_000, "outliers": 28, **kwargs}
        with pytest.raises(InvalidArgument, match=name):
            boundary_margins(mech, **args)
