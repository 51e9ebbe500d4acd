"""``dpaudit.audit_scores``: scores in, bound out, and its command line."""

from __future__ import annotations

import json

import numpy as np
import pytest

import dpaudit
from dpaudit.auditor.stats import clopper_pearson_lower, clopper_pearson_upper
from dpaudit.cli import main
from dpaudit.errors import InvalidArgument


def _laplace_scores(rng, n0=100_000, n1=100_000, eps=1.0):
    return rng.laplace(0.0, 1.0 / eps, n0), rng.laplace(1.0, 1.0 / eps, n1)


def test_a_broken_claim_is_flagged_and_the_bound_is_below_the_truth(rng):
    s0, s1 = _laplace_scores(rng)
    res = dpaudit.audit_scores(s0, s1, epsilon=0.5, seed=1)
    assert res.violation and 0.9 < res.epsilon_lower_bound <= 1.0
    assert not dpaudit.audit_scores(s0, s1, epsilon=1.0, seed=1).violation


def test_the_bound_is_recomputed_from_the_reported_counts(rng):
    s0, s1 = _laplace_scores(rng, 60_000, 40_000)
    res = dpaudit.audit_scores(s0, s1, epsilon=0.5, delta=1e-3, seed=2)
    lo = clopper_pearson_lower(res.count_numerator, res.n_numerator, 0.025)
    hi = clopper_pearson_upper(res.count_denominator, res.n_denominator, 0.025)
    assert res.epsilon_lower_bound == pytest.approx(np.log(lo - 1e-3) - np.log(hi))
    # unequal samples: each probability is bounded on its own sample's estimation rows
    assert {res.n_numerator, res.n_denominator} == {60_000 - res.selection_scores, 40_000 - res.selection_scores}
    assert res.selection_scores == 4_000  # 10% of the smaller sample


def test_sorted_input_splits_like_a_fresh_sample(rng):
    s0, s1 = _laplace_scores(rng, 50_000, 50_000)
    shuffled = dpaudit.audit_scores(s0, s1, seed=3).epsilon_lower_bound
    ordered = dpaudit.audit_scores(np.sort(s0), np.sort(s1)[::-1], seed=3).epsilon_lower_bound
    assert 0.8 < ordered <= 1.0 and abs(ordered - shuffled) < 0.1


def test_same_seed_same_result_and_text_json(rng):
    s0, s1 = _laplace_scores(rng, 5_000, 5_000)
    a = dpaudit.audit_scores(s0, s1, epsilon=1.0, delta=1e-5, seed=4)
    b = dpaudit.audit_scores(s0, s1, epsilon=1.0, delta=1e-5, seed=4)
    assert a.epsilon_lower_bound == b.epsilon_lower_bound and a.event == b.event
    assert "fresh scores" in a.to_text()
    back = json.loads(a.to_json())
    assert back["schema_version"] == 1 and back["numerator"] in ("d0", "d1")


def test_vector_and_discrete_scores(rng):
    v = dpaudit.audit_scores(rng.normal(size=(5_000, 3)), rng.normal(size=(5_000, 3)) + 0.5, seed=0)
    assert v.epsilon_lower_bound > 0.3
    d = dpaudit.audit_scores(rng.integers(0, 3, 2_000), rng.integers(0, 3, 2_000), seed=0)
    assert d.epsilon_lower_bound < 0.3


def test_identical_distributions_learn_nothing_on_most_seeds(rng):
    zeros = sum(dpaudit.audit_scores(rng.normal(size=2_000), rng.normal(size=2_000), seed=s).epsilon_lower_bound == 0.0 for s in range(20))
    assert zeros >= 15  # each is 0 with probability >= 0.95 (the validity counts are in tests/statistical)


@pytest.mark.parametrize(("args", "name"), [
    (([1.0] * 5, [1.0] * 30), "scores_d0"),
    (([1.0] * 30, [np.nan] * 30), "scores_d1"),
    ((np.ones((30, 2)), np.ones((30, 3))), "scores_d1"),
    ((np.ones((30, 2, 2)), np.ones((30, 2, 2))), "scores_d0"),
])
def test_bad_scores_are_named(args, name):
    with pytest.raises(InvalidArgument, match=f"`{name}`"):
        dpaudit.audit_scores(*args)


@pytest.mark.parametrize(("kwargs", "name"), [(dict(delta=1.0), "delta"), (dict(confidence=0.0), "confidence"),
                                              (dict(candidates=0), "candidates"), (dict(epsilon=-1), "epsilon"),
                                              (dict(selection_fraction=1.0), "selection_fraction")])
def test_bad_options_are_named(kwargs, name, rng):
    with pytest.raises(InvalidArgument, match=f"`{name}`"):
        dpaudit.audit_scores(rng.normal(size=100), rng.normal(size=100), **kwargs)


def test_command_line(tmp_path, capsys, rng):
    s0, s1 = _laplace_scores(rng, 20_000, 20_000)
    np.save(tmp_path / "s0.npy", s0)
    np.savetxt(tmp_path / "s1.csv", s1)
    assert main(["audit-scores", str(tmp_path / "s0.npy"), str(tmp_path / "s1.csv"), "--epsilon", "0.5"]) == 1
    assert "VIOLATION" in capsys.readouterr().out
    assert main(["audit-scores", str(tmp_path / "s0.npy"), str(tmp_path / "s1.csv"), "--epsilon", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["violation"] is False
    assert main(["audit-scores", str(tmp_path / "s0.npy"), str(tmp_path / "nope.csv")]) == 2
    assert "no such file" in capsys.readouterr().err
