"""One-run audits from scores, and of a user-level algorithm of the papers on canary users."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument, UnsoundMechanismWarning
from dpaudit.one_run import (
    audit_canaries,
    audit_canary_users,
    default_plans,
    draw_inclusion,
    guess_outcome,
    linear_canary_users,
    steinke_epsilon,
)
from dpaudit.userlevel import SquaredLoss, WinsorizedFirstOrder
from dpaudit.userlevel.levy2021.faulty import LevyNonPrivateStart


def test_default_plans_halve_the_guesses_and_pay_for_each():
    plans = default_plans(1000)
    assert plans[0] == (500, 500)
    assert (500, 0) in plans and (1000, 0) not in plans
    assert all(k_plus + k_minus <= 1000 for k_plus, k_minus in plans)
    assert min(k_plus + k_minus for k_plus, k_minus in plans) >= 8
    assert len(plans) == len(set(plans))


def test_guess_outcome_counts_top_in_and_bottom_out():
    included = np.array([True, False, True, False, True])
    order = np.array([0, 2, 4, 1, 3])  # a perfect ranking
    assert guess_outcome(order, included, (2, 2)) == (4, 4)
    assert guess_outcome(order[::-1], included, (2, 2)) == (4, 0)


def test_perfect_scores_are_flagged_and_pure_noise_is_not(rng):
    inc = draw_inclusion(1000, rng)
    perfect = audit_canaries(np.where(inc, 1.0, 0.0), inc, epsilon=2.0, seed=0)
    assert perfect.violation and perfect.epsilon_lower_bound > 4.0
    assert perfect.best.correct == perfect.best.guesses
    noise = audit_canaries(rng.normal(size=1000), inc, epsilon=0.1, seed=0)
    assert not noise.violation


def test_the_result_reports_the_plan_and_renders(rng):
    inc = draw_inclusion(200, rng)
    res = audit_canaries(inc + rng.normal(size=200), inc, epsilon=1.0, delta=1e-5, seed=1, guesses=[(50, 50), (20, 0)])
    assert len(res.plans) == 2
    level = 1 - 0.05 / 2
    assert res.epsilon_lower_bound == max(steinke_epsilon(200, p.guesses, p.correct, delta=1e-5, confidence=level) for p in res.plans)
    text = res.to_text()
    assert "Steinke" in text and "plans paid for    : 2" in text
    back = json.loads(res.to_json())
    assert back["best"]["k_plus"] == res.best.k_plus and back["schema_version"] == 1


def test_same_seed_same_result_and_ties_broken_without_the_coins(rng):
    inc = draw_inclusion(300, rng)
    scores = np.round(inc + rng.normal(size=300))  # many ties
    a = audit_canaries(scores, inc, seed=5)
    b = audit_canaries(scores, inc, seed=5)
    assert a == b


@pytest.mark.parametrize(("kwargs", "name"), [
    (dict(scores=[1.0, np.nan], included=[True, False]), "scores"),
    (dict(scores=[1.0, 2.0], included=[True]), "included"),
    (dict(scores=[1.0, 2.0], included=[0.5, 1.0]), "included"),
    (dict(scores=[1.0, 2.0], included=[True, False], guesses=[(2, 1)]), "guesses"),
    (dict(scores=[1.0, 2.0], included=[True, False], guesses=[]), "guesses"),
    (dict(scores=[1.0, 2.0], included=[True, False], confidence=1.0), "confidence"),
    (dict(scores=[1.0, 2.0], included=[True, False], epsilon=-1.0), "epsilon"),
])
def test_bad_arguments_are_named(kwargs, name):
    with pytest.raises(InvalidArgument, match=f"`{name}`"):
        audit_canaries(**kwargs)


def _levy(cls):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        return cls(SquaredLoss(), epsilon=1.0, delta=1e-5, radius=1.0, feature_bound=1.0, steps=10, aggregate="last", step_size=1e-6)


def test_user_level_sgd_with_canary_users_flags_the_leaky_start_in_one_run():
    """Levy et al.'s Algorithm 3 is not flagged; its B10 variant (non-private start) is, from one run."""
    can, rep = linear_canary_users(256, 8, 256)
    correct = audit_canary_users(_levy(WinsorizedFirstOrder), can, rep, seed=3)
    leaky = audit_canary_users(_levy(LevyNonPrivateStart), can, rep, seed=3)
    assert not correct.violation
    assert leaky.violation and leaky.epsilon_lower_bound > 3.0, leaky
    assert leaky.claimed_epsilon == 1.0 and leaky.delta == 1e-5
    assert "256 canary users" in leaky.notes[-1]


def test_canary_users_lie_in_the_declared_domain_and_differ_in_one_user():
    can, rep = linear_canary_users(4, 3, 6, feature_bound=2.0, label_bound=0.5)
    assert can.shape == rep.shape == (4, 3, 7)
    assert np.allclose(np.linalg.norm(can[..., :6], axis=-1), 2.0)
    assert np.all(can[..., 6] == 0.5) and np.all(rep[..., 6] == -0.5)
    assert np.array_equal(can[..., :6], rep[..., :6])


def test_population_users_and_a_custom_score(rng):
    can, rep = linear_canary_users(16, 2, 16)
    population = np.zeros((10, 2, 17))
    seen = {}

    def score(release, canaries, replacements):
        seen["shape"] = release.shape
        return release[:16]

    res = audit_canary_users(_levy(WinsorizedFirstOrder), can, rep, population=population, score=score, seed=1, guesses=[(8, 8)])
    assert seen["shape"] == (16,)
    assert "26 users" in res.notes[-1]


def test_canary_user_arguments_are_checked():
    can, rep = linear_canary_users(8, 2, 8)
    mech = _levy(WinsorizedFirstOrder)
    with pytest.raises(InvalidArgument, match="`replacements`"):
        audit_canary_users(mech, can, rep[:4])
    with pytest.raises(InvalidArgument, match="`population`"):
        audit_canary_users(mech, can, rep, population=np.zeros((3, 5, 9)))
    with pytest.raises(InvalidArgument, match="`score`"):
        audit_canary_users(mech, can, rep, score=lambda r, c, p: r[:3])
    with pytest.raises(InvalidArgument, match="`k`"):
        linear_canary_users(9, 2, 8)


@pytest.mark.parametrize(
    ("count", "m"), [(1000, 1000), (0, 1000), (900, 1000), (600, 1000), (400, 1000), (21, 21)]
)
def test_implausible_inclusion_counts_are_refused(count, m):
    # a red team's case: scores that ignore the coins, every canary "included", read as epsilon >= 4.49
    scores = np.random.default_rng(1).normal(size=m)
    included = np.zeros(m, dtype=bool)
    included[np.random.default_rng(2).permutation(m)[:count]] = True
    with pytest.raises(InvalidArgument, match=r"included.*binomial"):
        audit_canaries(scores, included, epsilon=1.0, seed=0)


@pytest.mark.parametrize(("count", "m"), [(550, 1000), (450, 1000), (20, 20), (500, 1000)])
def test_plausible_inclusion_counts_are_accepted(count, m):
    scores = np.random.default_rng(1).normal(size=m)
    included = np.zeros(m, dtype=bool)
    included[:count] = True
    res = audit_canaries(scores, included, epsilon=1.0, seed=0)
    assert res.included == count


def test_inclusion_test_level_is_the_documented_one():
    from scipy.stats import binomtest

    from dpaudit.one_run import INCLUSION_TEST_LEVEL

    assert INCLUSION_TEST_LEVEL == 1e-6
    # the boundary: 2 * 2**-20 < 1e-6 < 2 * 2**-19, so 21 of 21 is refused and 20 of 20 is not
    assert binomtest(21, 21, 0.5).pvalue < INCLUSION_TEST_LEVEL < binomtest(20, 20, 0.5).pvalue
    scores = np.zeros(21)
    audit_canaries(scores, np.ones(21, dtype=bool), epsilon=1.0, seed=0, check_inclusion=False)
