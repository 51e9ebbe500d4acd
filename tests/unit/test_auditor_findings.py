"""Regression tests for the auditor review's findings, one test (or more) per finding."""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit import InvalidArgument, MechanismError
from dpaudit.auditor import runner
from dpaudit.auditor.ranking import event_counts, rank_candidates
from dpaudit.auditor.score import Score
from dpaudit.auditor.stats import clopper_pearson_lower, clopper_pearson_upper
from dpaudit.guarantees import GDP, ApproxDP
from dpaudit.mechanisms import LaplaceMechanism, RandomizedResponse
from dpaudit.neighbors.relations import QueryDistance


def test_layout_is_read_from_selection_rows_only():
    """With a 5% selection split the old probe read the first 10% of rows, estimation rows included.

    The callable returns continuous values on its first 50 rows and atoms after them (one call
    draws every row: ``block_size=trials``), so only a layout read from the 50 selection rows is
    "continuous".
    """

    def shifting(data, rng, size=None):
        out = data + rng.normal(size=size)
        out[50:] = np.round(out[50:])
        return out

    res = dpaudit.audit(shifting, 0.0, 1.0, epsilon=1.0, trials=1000, seed=0, selection_fraction=0.05, block_size=1000)
    assert res.selection_trials == 50
    assert res.output_kind == "continuous, 1 column(s)"


def test_bonferroni_divides_by_the_events_actually_evaluated():
    """Binary outputs have few distinct events; asking for 50 candidates evaluates fewer, paid at alpha / (number evaluated)."""
    rr = RandomizedResponse(1.0, 2)
    res = dpaudit.audit(rr, [0], [1], trials=4000, seed=1, candidates=50)
    m = res.candidates_evaluated
    assert 1 <= m < 50
    ev = res.evidence
    per_limit = 0.05 / m / 2
    assert ev.p_numerator_interval[0] == pytest.approx(float(clopper_pearson_lower(ev.count_numerator, ev.n, per_limit)), rel=1e-12)
    assert ev.p_denominator_interval[1] == pytest.approx(float(clopper_pearson_upper(ev.count_denominator, ev.n, per_limit)), rel=1e-12)


def test_nan_scores_belong_to_no_event_in_ranking_and_in_evaluation():
    x = np.array([[0.0], [1.0], [np.nan], [2.0], [np.nan], [3.0]])
    score = Score("identity", lambda v: v[:, 0])
    below, above = event_counts(np.sort(score(x)), np.array([1.5]))
    assert (int(below[0]), int(above[0])) == (2, 2)  # the two NaN rows are in neither count
    b0 = np.array([[0.0], [np.nan], [5.0], [6.0], [np.nan], [7.0]] * 50)
    b1 = np.array([[0.0], [1.0], [np.nan], [2.0], [np.nan], [0.5]] * 50)
    by_eps, _ = rank_candidates([score], b0, b1, n_est=300, delta=0.0, z=1.96)
    for cand in by_eps:
        counts = [int(np.count_nonzero(cand.event(cand.score(b)))) for b in (b0, b1)]
        k_num, k_den = (counts[0], counts[1]) if cand.numerator == 0 else (counts[1], counts[0])
        assert cand.selection_counts == (k_num, k_den), cand


def test_infinite_outputs_give_nan_sums_without_breaking_the_audit():
    def signs(data, rng, size=None):
        u = rng.random((size, 2))
        return np.where(u < (0.7 if data else 0.3), np.inf, -np.inf)  # sum of +inf and -inf is NaN

    res = dpaudit.audit(signs, 0, 1, epsilon=0.1, trials=4000, seed=2)
    assert res.violation  # true epsilon ln(0.7 / 0.3) per coordinate


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_integer_outputs_at_the_limits_are_audited(dtype):
    info = np.iinfo(dtype)

    def extremes(data, rng, size=None):
        return np.where(rng.random(size) < (0.6 if data else 0.4), info.max, info.min).astype(dtype)

    res = dpaudit.audit(extremes, 0, 1, epsilon=0.1, trials=20_000, seed=3)
    assert res.output_kind == "discrete, 1 column(s)"
    assert res.violation and res.epsilon_lower_bound < np.log(1.5)  # true epsilon ln(0.6/0.4)


def test_outputs_of_width_zero_are_a_mechanism_error():
    def empty(data, rng, size=None):
        return np.zeros((size, 0))

    with pytest.raises(MechanismError, match=re.escape("the mechanism returned outputs with no entries (shape (1000, 0))")):
        dpaudit.audit(empty, 0.0, 1.0, epsilon=1.0, trials=1000, seed=0)


class _Claiming:
    """A callable mechanism with a fixed claim, to audit claims without a matching sampler."""

    def __init__(self, claim):
        self.claim = claim

    def sample(self, data, size, *, rng):
        return data + rng.normal(size=size)

    def claimed_guarantee(self):
        return self.claim


def test_gdp_claim_without_delta_says_what_is_missing():
    mech = _Claiming(GDP(1.0, QueryDistance(1.0, "l2")))
    message = "`audit`: `delta` must be in (0, 1) to audit the 1-GDP claim (a GDP claim promises no finite epsilon at delta = 0); got delta=0.0."
    with pytest.raises(InvalidArgument, match=re.escape(message)):
        dpaudit.audit(mech, 0.0, 1.0, trials=1000, seed=0)
    res = dpaudit.audit(mech, 0.0, 1.0, trials=1000, seed=0, delta=1e-5)  # with a delta it audits the GDP epsilon
    assert res.claimed_epsilon == pytest.approx(GDP(1.0).epsilon_at(1e-5))


def test_approx_claim_below_its_own_delta_says_so():
    mech = _Claiming(ApproxDP(1.0, 1e-5, QueryDistance(1.0, "l2")))
    message = "`audit`: `delta` must be at least the claim's own delta 1e-05 (the (1, 1e-05)-DP claim promises nothing at a smaller delta); got delta=1e-06."
    with pytest.raises(InvalidArgument, match=re.escape(message)):
        dpaudit.audit(mech, 0.0, 1.0, trials=1000, seed=0, delta=1e-6)


def _shared_noise(data, rng, size=None):
    """NOT a valid sampler: one noise draw for every row of a call."""
    return np.full(size, data + rng.laplace(scale=1.0))


def test_the_row_independence_precondition_is_stated():
    for needle in ("Precondition", "independent draws", "spot_check"):
        assert needle in runner.audit.__doc__


def test_spot_check_catches_shared_randomness_and_passes_a_correct_sampler():
    with pytest.raises(MechanismError, match="independent draws failed"):
        dpaudit.audit(_shared_noise, 0.0, 1.0, epsilon=1.0, trials=20_000, seed=4, block_size=20_000, spot_check=200)
    res = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, trials=20_000, seed=4, spot_check=200)
    assert any(note.startswith("spot check on d0") for note in res.notes)


def test_without_the_spot_check_shared_randomness_gives_false_alarms():
    """Why the precondition matters: the same sampler, audited without the check, is flagged most of the time."""
    alarms = sum(
        dpaudit.audit(_shared_noise, 0.0, 1.0, epsilon=1.0, trials=2000, seed=s, block_size=2000, spot_check=0).violation
        for s in range(20)
    )
    # each audit compares two single draws: a large separation is a likely outcome
    assert alarms > stats.binom.ppf(1 - 1e-6, 20, 0.05)


def test_rare_infinite_outputs_among_continuous_ones_are_audited():
    def rare_inf(data, rng, size=None):
        out = data + rng.laplace(size=(size, 3))
        out[rng.random(size) < 0.001, 0] = np.inf
        return out

    res = dpaudit.audit(rare_inf, 0.0, 1.0, epsilon=1.0, trials=20_000, seed=5, check_neighbors=False)
    assert res.epsilon_lower_bound < 3.0  # 3 coordinates of Laplace(1): true epsilon 3
