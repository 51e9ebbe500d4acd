"""The two selection rounds: which rows each family is refitted and ranked on in the final round."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.auditor import ranking, selection
from dpaudit.auditor.features import detect_layout

N_SEL = 12_000
SCREEN = 1_000  # below half the selection rows: the two-round path runs


def _mixed(side: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """A censored Laplace release (the atom -1 below 0.5) of ``side``, beside a flag that does not depend on it."""
    x = side + rng.laplace(size=n)
    return np.column_stack([np.where(x > 0.5, x, -1.0), np.where(rng.random(n) < 0.5, -1.0, 1.0)])


@pytest.fixture
def rounds(monkeypatch):
    """Spies on the final round's fits and rankings: (families fitted, training rows) and (rows ranked, compared)."""
    fits: list[tuple[frozenset[str] | None, int]] = []
    ranks: list[tuple[int, int | None, int]] = []
    fit, rank = selection.fit_scores, selection.rank_candidates

    def spy_fit(layout, a0, a1, *, float_bits=False, only=None):
        fits.append((None if only is None else frozenset(only), len(a0)))
        return fit(layout, a0, a1, float_bits=float_bits, only=only)

    def spy_rank(scores, b0, b1, **kwargs):
        ranks.append((len(b0), kwargs.get("compared"), len(scores)))
        return rank(scores, b0, b1, **kwargs)

    monkeypatch.setattr(selection, "SCREEN_ROWS", SCREEN)
    monkeypatch.setattr(selection, "fit_scores", spy_fit)
    monkeypatch.setattr(selection, "rank_candidates", spy_rank)
    return fits, ranks


def test_whole_split_families_are_refitted_and_ranked_on_every_selection_row(rounds) -> None:
    fits, ranks = rounds
    rng = np.random.default_rng(3)
    s0, s1 = _mixed(0, N_SEL, rng), _mixed(1, N_SEL, rng)
    layout = detect_layout(s0, s1)
    assert layout.kind == "mixed"
    by_eps, _ = selection.choose_candidates(layout, s0, s1, n_est=3 * N_SEL, delta=0.0, z=2.0)
    screen, halves, first, second, whole = fits
    assert screen == (None, SCREEN)  # every family screened on a small slice
    assert "pattern value llr" not in halves[0] and halves[1] == N_SEL // 2
    # the joint log-ratio goes to the final round, cross-fitted: on each half, then on every selection row
    assert {first[0], second[0], whole[0]} == {selection.WHOLE_SPLIT_FAMILIES}
    assert (first[1], second[1], whole[1]) == (N_SEL // 2, N_SEL - N_SEL // 2, N_SEL)
    (_, _, _), (n_half, compared_half, k_half), (n_whole, compared_whole, k_whole) = ranks
    assert (n_half, n_whole) == (N_SEL // 2, N_SEL)  # out-of-fold scores ranked on every selection row
    # one shrink for all the scores compared, whichever rows ranked them
    assert compared_half == compared_whole == k_half + k_whole
    crossed = [c for c in by_eps if c.score.family == "pattern value llr"]
    assert crossed
    # the events use the score refitted on every row: it reads rows by content, not by position
    probe = np.concatenate([s0[:5], s1[:5]])
    assert np.array_equal(crossed[0].score(probe)[::-1], crossed[0].score(probe[::-1]))
    assert [c.predicted for c in by_eps] == sorted((c.predicted for c in by_eps), reverse=True)


def test_compared_sets_the_shrink_of_the_predictions() -> None:
    rng = np.random.default_rng(4)
    s0, s1 = _mixed(0, N_SEL, rng), _mixed(1, N_SEL, rng)
    layout = detect_layout(s0, s1)
    scores = selection.fit_scores(layout, s0[:2000], s1[:2000], only={"value"})
    alone, _ = ranking.rank_candidates(scores, s0, s1, n_est=N_SEL, delta=0.0, z=2.0)
    among, _ = ranking.rank_candidates(scores, s0, s1, n_est=N_SEL, delta=0.0, z=2.0, compared=1000)
    # compared against 1000 scores, each frequency is moved more errors: every prediction is lower
    assert len(alone) == len(among) > 0
    assert all(b.predicted < a.predicted for a, b in zip(alone, among, strict=True) if np.isfinite(a.predicted))
