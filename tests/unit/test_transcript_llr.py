"""The transcript likelihood-ratio family (:mod:`dpaudit.auditor.transcript_llr`): fit, registration, selection only.

What it must do: estimate each column's log-likelihood ratio (atoms and continuous values) well
enough that the sum tracks the true log-ratio of a transcript; be offered for vector and mixed
outputs; be fitted on the selection split's training rows only (never an estimation row); and keep
the flat parts of its clipped-linear scores exactly constant (a score whose plateau carried
rounding noise would read the low-order bits of the outputs: a floating-point attack the default
audit does not make, and a false alarm on a correct mechanism).
"""

from __future__ import annotations

import numpy as np
import pytest

import dpaudit
import dpaudit.auditor.runner as runner
from dpaudit.auditor import attacks
from dpaudit.auditor.features import OutputLayout, detect_layout
from dpaudit.auditor.stats import epsilon_lower_bound_from_counts
from dpaudit.auditor.transcript_llr import fit_column_models, transcript_scores

T, SHIFT = 12, 0.1


def _laplace_transcript(shift: float, n: int, rng: np.random.Generator) -> np.ndarray:
    return shift + rng.laplace(size=(n, T))


def test_the_summed_score_tracks_the_true_log_ratio(rng):
    """On a transcript of T Laplace releases the fitted score is the true log-ratio up to its fit noise."""
    a0, a1 = _laplace_transcript(0.0, 20_000, rng), _laplace_transcript(SHIFT, 20_000, rng)
    layout = detect_layout(a0[:10_000], a1[:10_000])
    models = fit_column_models(layout, a0, a1)
    assert [m.law for m in models] == ["laplace"] * T  # the likelihood picks the right law for every column
    score = transcript_scores(layout, a0, a1)[0]
    fresh = _laplace_transcript(0.0, 50_000, rng)
    truth = (np.abs(fresh - SHIFT) - np.abs(fresh)).sum(axis=1)
    corr = float(np.corrcoef(score(fresh), truth)[0, 1])
    assert corr > 0.98, corr


def test_atoms_and_values_are_both_read(rng):
    """A mixed column (a halt code 0 or a noisy value) contributes its atom's log-ratio and its value's."""
    n = 40_000
    halt0, halt1 = rng.random(n) < 0.3, rng.random(n) < 0.6
    a0 = np.where(halt0, 0.0, 1.0 + rng.normal(size=n))[:, None]
    a1 = np.where(halt1, 0.0, 1.5 + rng.normal(size=n))[:, None]
    layout = detect_layout(a0[:10_000], a1[:10_000])
    assert layout.kind == "mixed"
    (model,) = fit_column_models(layout, a0, a1)
    assert model.category_llr[0] == pytest.approx(np.log(0.3 / 0.6), abs=0.05)  # the atom 0
    assert model.continuous_llr == pytest.approx(np.log(0.7 / 0.4), abs=0.05)  # "not an atom"
    assert model.law == "gaussian" and model.weight > 0.9


def test_columns_without_signal_are_shrunk_away(rng):
    a0, a1 = rng.normal(size=(20_000, 4)), rng.normal(size=(20_000, 4))
    layout = detect_layout(a0[:10_000], a1[:10_000])
    weights = [m.weight for m in fit_column_models(layout, a0, a1)]
    assert np.mean(weights) < 0.5, weights  # positive-part James-Stein zeroes most noise-only columns


def test_plateaus_are_exact_constants_whatever_the_low_order_bits():
    """Rows on a clipped-linear score's flat part score exactly the same (regression: the Lowy Alg 1 false alarm).

    The values below all lie left of both fitted locations; computed as ``|x - l1| - |x - l0|`` they
    would differ by rounding in the last bits, and a threshold on the plateau would split them by
    those bits.
    """
    layout = OutputLayout("continuous", 1, (np.empty(0),))
    rng = np.random.default_rng(3)
    a0 = -0.00166 + 0.0056 * rng.laplace(size=(5_000, 1))
    a1 = -0.00270 + 0.0056 * rng.laplace(size=(5_000, 1))
    score = next(s for s in transcript_scores(layout, a0, a1) if "laplace" in s.name)
    left = rng.uniform(-0.05, -0.003, size=(20_000, 1))  # left of both locations (over several binades): the plateau
    assert np.unique(score(left)).size == 1


def test_offered_for_vectors_and_mixed_outputs_only():
    vec = OutputLayout("continuous", 3, (np.empty(0),) * 3)
    mixed = OutputLayout("mixed", 1, (np.array([0.0]),))
    scalar = OutputLayout("continuous", 1, (np.empty(0),))
    assert "transcript llr" in attacks.score_families(vec)
    assert "transcript llr" in attacks.score_families(mixed)
    assert "transcript llr" not in attacks.score_families(scalar)


def _release(data, rng, size=None):
    """A transcript: a unique random id (column 0, uninformative), then T Laplace releases of the data."""
    ids = rng.random((size, 1))
    return np.hstack([ids, float(data) * SHIFT * 5 + rng.laplace(size=(size, T))])


def test_fitted_on_training_rows_of_the_selection_split_only(monkeypatch):
    """Every row the family sees is a selection row (matched by its random id); none is an estimation row.

    The selection rows are those the streaming runner hands over as the split (``read_selection``);
    every other row the mechanism produced is an estimation row.
    """
    seen: list[np.ndarray] = []
    produced: list[np.ndarray] = []
    selection: list[np.ndarray] = []
    real_fit = attacks.transcript_scores
    real_read = runner.read_selection

    def spy_fit(layout, a0, a1):
        seen.extend([np.asarray(a0)[:, 0], np.asarray(a1)[:, 0]])
        return real_fit(layout, a0, a1)

    def spy_read(*args, **kwargs):
        split = real_read(*args, **kwargs)
        selection.extend(np.asarray(rows)[:, 0].copy() for rows in split.rows)
        return split

    def logged(data, rng, size=None):
        out = _release(data, rng, size)
        produced.append(out[:, 0].copy())
        return out

    monkeypatch.setattr(attacks, "transcript_scores", spy_fit)
    monkeypatch.setattr(runner, "read_selection", spy_read)
    res = dpaudit.audit(logged, 0.0, 1.0, epsilon=10.0, delta=0.0, trials=4_000, seed=1)
    assert seen, "the family was never fitted"
    selection_ids = set(np.concatenate(selection))
    assert len(selection_ids) == 2 * res.selection_trials
    estimation_ids = set(np.concatenate(produced)) - selection_ids
    assert len(estimation_ids) >= 2 * (4_000 - res.selection_trials)
    used = set(np.concatenate(seen))
    assert used <= selection_ids
    assert not used & estimation_ids


def test_its_events_are_paid_for_like_every_other(monkeypatch):
    """With only this family offered and three candidates, the bound is Bonferroni-corrected over the three."""
    real = attacks.score_families
    monkeypatch.setattr(attacks, "score_families",
                        lambda layout, float_bits=False: {k: v for k, v in real(layout, float_bits=float_bits).items()
                                                          if k == "transcript llr"})
    res = dpaudit.audit(_release, 0.0, 1.0, epsilon=10.0, delta=0.0, trials=6_000, seed=2, candidates=3)
    assert res.evidence.attack.startswith("transcript llr")
    assert res.candidates_evaluated == 3
    ev = res.evidence
    again = epsilon_lower_bound_from_counts(ev.count_numerator, ev.count_denominator, ev.n, 0.0, (1 - res.confidence) / 3)
    assert res.epsilon_lower_bound == pytest.approx(again, rel=0, abs=1e-12)
    assert res.epsilon_lower_bound > 0.5  # the family finds the transcript's shift (5 * 0.1 per column)
