"""Algorithms 3-6: budgets, batches, ⊥ handling, projections (E6, E7, E8), minimum users, and the audit of
Phased-SCO on the user its printed batches share."""

from __future__ import annotations

import itertools
import math
import re
import warnings

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument, UnsoundMechanismWarning
from dpaudit.userlevel.ghazi2023 import (
    ERMProblem,
    PhasedERM,
    PhasedSCO,
    StronglyConvexERM,
    StronglyConvexSCO,
)
from dpaudit.userlevel.ghazi2023.audit_cases import outlier_users, shared_endpoint_case
from dpaudit.userlevel.ghazi2023.utility import MeanProblem
from dpaudit.userlevel.losses import SquaredLoss

SEED = 0
CONVEX = ERMProblem(SquaredLoss(), radius=1.0, feature_bound=1.0, label_bound=1.0, l2=0.0)


def _paper(cls, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        return cls(*args, preset="paper", **kw)


def test_phased_erm_spends_eps_over_t_per_phase_on_all_users():
    mech = PhasedERM(CONVEX, 1.0, 0.5)
    n, m = mech.min_users(50), 50
    calls = mech.calls(n, m, 1)
    assert len(calls) == math.ceil(math.log(n * m))  # Alg 3, line 3 (natural log)
    assert sum(c.spec.alg1.epsilon for c in calls) == pytest.approx(1.0)  # basic composition
    assert sum(c.spec.alg1.delta for c in calls) == pytest.approx(0.5)
    assert all(c.users == (0, n) for c in calls)
    lams = [c.reg for c in calls]
    assert all(b / a == pytest.approx(4.0) for a, b in itertools.pairwise(lams))  # lambda_i = lambda 4^i
    with pytest.raises(InvalidArgument, match=re.escape("at least 8 kappa' + 2")):
        mech.calls(n - 1, m, 1)


def test_phased_sco_batches_are_disjoint_when_corrected_and_share_end_points_as_printed():
    n0 = PhasedSCO(CONVEX, 1.0, 0.5).batch_zero()
    n = 4 * _paper(PhasedSCO, CONVEX, 1.0, 0.5).batch_zero()  # the printed N_0 (E1's smaller delta_bar: larger kappa)
    corrected = PhasedSCO(CONVEX, 1.0, 0.5).batches(n)
    flat = np.concatenate(corrected)
    assert flat.size == np.unique(flat).size  # each user read by at most one phase: parallel composition
    assert len(corrected) == math.floor(math.log2(n / n0)) and min(b.size for b in corrected) >= n0
    printed = _paper(PhasedSCO, CONVEX, 1.0, 0.5).batches(n)
    shared = np.intersect1d(printed[0], printed[1])
    assert shared.tolist() == [n // 2 - 1]  # 1-based user n/2 ends batch 2 and starts batch 1 (E7, P15)


@pytest.mark.parametrize("preset", ["paper", "corrected"])
def test_shared_end_point_user_is_flagged_only_under_the_printed_batches(preset):
    case = shared_endpoint_case(preset)
    res = case.audit(seed=SEED)
    assert res.violation == case.broken, f"{case.name}: eps >= {res.epsilon_lower_bound:.3f}, seed={SEED}\n{res.to_text()}"


def test_a_bottom_phase_keeps_the_previous_iterate_and_never_the_minimiser():
    """Every phase unstable (2 kappa + 1 outliers, printed threshold): the output is theta_hat_0 = 0 exactly."""
    mech = PhasedSCO(CONVEX, 1.0, 0.5, beta=0.3, regulariser=4.0, threshold="printed")
    n, m = 4 * mech.batch_zero(), 4000
    data = np.array(outlier_users(0, n_users=n, m_items=m))
    for call in mech.calls(n, m, 1):
        data[call.users[: 2 * call.spec.alg1.kappa + 1], :, 1] = 1.0
    out, records = mech.sample_with_record(data, 200, rng=np.random.default_rng(SEED))
    assert all(rate == 1.0 for rate in records[0].bottom_rate)
    assert np.all(out == 0.0)


def test_the_printed_phases_leave_k_and_the_corrected_ones_project(rng):
    problem = MeanProblem(l2=0.0)
    n = 4 * PhasedSCO(problem.erm(), 1.0, 0.5).batch_zero()
    data = problem.sample(n, 20, rng)
    corrected = PhasedSCO(problem.erm(), 1.0, 0.5).sample(data, 300, rng=rng)
    printed = _paper(PhasedSCO, problem.erm(), 1.0, 0.5).sample(data, 300, rng=rng)
    assert np.all(np.abs(corrected) <= problem.radius)
    assert np.mean(np.abs(printed) > problem.radius) > 0.5  # E6: theta_hat_i + noise is never projected


def test_phased_sco_lambda_follows_e8b_unless_printed():
    problem = MeanProblem(l2=0.0).erm()
    n, m = 400, 1000
    corrected, printed = PhasedSCO(problem, 1.0, 0.5), _paper(PhasedSCO, problem, 1.0, 0.5)
    g_over_r = problem.lipschitz() / (2 * problem.unit_radius)
    assert corrected._unit_lambda(n, m, 1) == pytest.approx(g_over_r / math.sqrt(n * m))  # 1/sqrt(nm) > 1/(n sqrt m)
    assert printed._unit_lambda(n, m, 1) == pytest.approx(g_over_r / (n * math.sqrt(m)))


@pytest.mark.parametrize("cls", [StronglyConvexERM, StronglyConvexSCO])
def test_strongly_convex_algorithms_refuse_too_few_users_and_run_vectorised(cls, rng):
    problem = MeanProblem(l2=1.0)
    mech = cls(problem.erm(), 1.0, 0.5)
    n = mech.min_users(20)
    with pytest.raises(InvalidArgument, match=re.escape(f"at least {n} users for both stages")):
        mech.sample(problem.sample(n - 1, 20, rng), 4, rng=rng)
    data = problem.sample(n, 20, rng)
    a = mech.sample(data, 64, rng=np.random.default_rng(SEED))
    b = mech.sample(data, 64, rng=np.random.default_rng(SEED))
    assert a.shape == (64, 1) and np.array_equal(a, b) and np.all(np.abs(a) <= problem.radius)
    assert np.unique(a).size > 1  # trials are independent draws


def test_claims_are_replace_one_user_level():
    for mech in (PhasedERM(CONVEX, 1.0, 0.5), PhasedSCO(CONVEX, 1.0, 0.5),
                 StronglyConvexERM(MeanProblem().erm(), 1.0, 0.5)):
        claim = mech.claimed_guarantee()
        assert (claim.epsilon, claim.delta, str(claim.relation)) == (1.0, 0.5, "user replace")
