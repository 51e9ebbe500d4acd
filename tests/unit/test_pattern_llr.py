"""The pattern-value likelihood-ratio family estimates the joint log-ratio of (atom pattern, released values)."""

from __future__ import annotations

import numpy as np
from scipy import stats

from dpaudit.auditor.attacks import _fit_logistic, fit_scores
from dpaudit.auditor.features import detect_layout
from dpaudit.auditor.pattern_llr import pattern_value_scores

N = 20_000
P_ATOM = (0.5, 0.3)  # probability of the atom -1 in the first column, on d0 and on d1


def _draw(side: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """First column: the atom -1, else N(0, 1) on d0 and N(1, 2^2) on d1 (a log-ratio quadratic in the
    value, not a shift); second column: an atom 5 or 7 with probabilities that differ between the sides."""
    value = rng.normal(0.0, 1.0, n) if side == 0 else rng.normal(1.0, 2.0, n)
    first = np.where(rng.random(n) < P_ATOM[side], -1.0, value)
    second = np.where(rng.random(n) < (0.5 if side == 0 else 0.6), 5.0, 7.0)
    return np.column_stack([first, second])


def _true_llr(x: np.ndarray) -> np.ndarray:
    atom = x[:, 0] == -1.0
    with np.errstate(divide="ignore"):
        value = np.log(1 - P_ATOM[0]) + stats.norm.logpdf(x[:, 0]) - np.log(1 - P_ATOM[1]) - stats.norm.logpdf(x[:, 0], 1.0, 2.0)
    first = np.where(atom, np.log(P_ATOM[0] / P_ATOM[1]), value)
    second = np.where(x[:, 1] == 5.0, np.log(0.5 / 0.6), np.log(0.5 / 0.4))
    return first + second


def test_the_fitted_score_follows_the_joint_log_ratio() -> None:
    rng = np.random.default_rng(0)
    a0, a1 = _draw(0, N, rng), _draw(1, N, rng)
    layout = detect_layout(a0, a1)
    assert layout.kind == "mixed"
    (score,) = pattern_value_scores(layout, a0, a1, _fit_logistic)
    assert "discrete columns" in score.name  # the all-atom column's log-ratio is added
    test = np.concatenate([_draw(0, 5000, rng), _draw(1, 5000, rng)])
    fitted, truth = score(test), _true_llr(test)
    # the value part is quadratic in the value: a fit linear in it (or ignoring it) falls far below
    inside = np.abs(test[:, 0]) < 3
    assert np.corrcoef(fitted[inside], truth[inside])[0, 1] > 0.98
    assert np.median(np.abs(fitted - truth)[inside]) < 0.1


def test_unseen_patterns_are_neutral_and_other_layouts_get_nothing() -> None:
    rng = np.random.default_rng(1)
    a0, a1 = _draw(0, N, rng), _draw(1, N, rng)
    layout = detect_layout(a0, a1)
    (score,) = pattern_value_scores(layout, a0, a1, _fit_logistic)
    # the second column's value 6 is no atom: a pattern never seen in training, read as neutral (0)
    # there, plus the first column's fitted part
    unseen = np.array([[-1.0, 6.0]])
    assert np.isfinite(score(unseen)).all()
    continuous = detect_layout(rng.normal(size=(N, 2)), rng.normal(0.2, 1.0, size=(N, 2)))
    assert pattern_value_scores(continuous, rng.normal(size=(N, 2)), rng.normal(size=(N, 2)), _fit_logistic) == []
    assert any(s.family == "pattern value llr" for s in fit_scores(layout, a0, a1))
