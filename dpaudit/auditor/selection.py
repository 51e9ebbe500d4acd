"""Choosing the events to evaluate, on the selection split only, in two rounds.

How the selection split is spent:

* **scalar continuous outputs** (nothing to fit): the whole split ranks thresholds of the output
  itself, by selection counts and by smooth tail fits (:mod:`.ranking`). The split is
  ``SCALAR_FRACTION`` of the trials by default: the tail fits need few rows, and every row not
  spent here is an estimation row;
* **scalar discrete outputs**: ``SCALAR_FRACTION`` too, halved into *training* rows (each
  category's frequency ratio is estimated there) and *ranking* rows;
* **everything else**: ``LEARNED_FRACTION`` of the trials, halved into *training* rows (score
  functions are fitted there) and *ranking* rows (thresholds are chosen there), in two rounds.
  A **screening** round fits every family on at most ``SCREEN_ROWS`` training rows and ranks
  it on at most as many ranking rows; only the ``FINALISTS`` families with the best predicted
  bounds go to the **final** round, which refits them on all training rows and ranks them on
  all ranking rows. The budget of fitting and ranking thus goes to the families that pay;
  the cheap screen keeps many families affordable (a logistic fit on 10^5 rows costs seconds).

Whatever happens here depends on selection rows only, so the events handed to the estimation
split are fixed before it is read: the validity argument of :mod:`~dpaudit.auditor.runner` is untouched.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from numpy.typing import NDArray

from dpaudit.auditor.attacks import fit_scores
from dpaudit.auditor.features import OutputLayout
from dpaudit.auditor.ranking import Candidate, rank_candidates

__all__ = ["LEARNED_FRACTION", "SCALAR_FRACTION", "choose_candidates", "default_selection_fraction"]

SCALAR_FRACTION = 0.1
LEARNED_FRACTION = 0.3
SCREEN_ROWS = 25_000
FINALISTS = 4


def _fits_nothing(layout: OutputLayout, float_bits: bool) -> bool:
    return layout.kind == "continuous" and layout.n_columns == 1 and not float_bits


def default_selection_fraction(layout: OutputLayout, float_bits: bool) -> float:
    """``SCALAR_FRACTION`` for scalar continuous or discrete outputs, else ``LEARNED_FRACTION``.

    A discrete scalar needs only its categories' frequencies (few, and well estimated from few
    rows); vectors and mixed outputs have fitted families that need the larger split.
    """
    scalar = layout.n_columns == 1 and layout.kind in ("continuous", "discrete")
    return SCALAR_FRACTION if scalar and (layout.kind == "discrete" or not float_bits) else LEARNED_FRACTION


def choose_candidates(
    layout: OutputLayout,
    sel0: NDArray[Any],
    sel1: NDArray[Any],
    *,
    n_est: int,
    delta: float,
    z: float,
    float_bits: bool = False,
) -> tuple[list[Candidate], list[Candidate]]:
    """Candidates ranked by predicted epsilon bound and by predicted GDP mu, best first."""
    if _fits_nothing(layout, float_bits):
        scores = [replace(score, smooth=True) for score in fit_scores(layout, sel0, sel1)]
        return rank_candidates(scores, sel0, sel1, n_est=n_est, delta=delta, z=z, tail_fit=True)
    half = len(sel0) // 2
    t0, t1, r0, r1 = sel0[:half], sel1[:half], sel0[half:], sel1[half:]
    if half <= SCREEN_ROWS:
        scores = fit_scores(layout, t0, t1, float_bits=float_bits)
        return rank_candidates(scores, r0, r1, n_est=n_est, delta=delta, z=z, tail_fit=True)
    # screening round: every family on a small slice of the training and ranking rows
    screen = fit_scores(layout, t0[:SCREEN_ROWS], t1[:SCREEN_ROWS], float_bits=float_bits)
    by_eps, _ = rank_candidates(screen, r0[:SCREEN_ROWS], r1[:SCREEN_ROWS], n_est=n_est, delta=delta, z=z)
    finalists: set[str] = set()
    for cand in by_eps:
        finalists.add(cand.score.family)
        if len(finalists) == FINALISTS:
            break
    # final round: the finalists refitted on all training rows, ranked on all ranking rows
    scores = fit_scores(layout, t0, t1, float_bits=float_bits, only=finalists)
    return rank_candidates(scores, r0, r1, n_est=n_est, delta=delta, z=z, tail_fit=True)
