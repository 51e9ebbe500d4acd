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
  The families of ``WHOLE_SPLIT_FAMILIES`` are finalists whenever they are fitted, and are
  **cross-fitted** on the *whole* selection split: fitted once on each half, each half's rows scored
  by the fit on the other half, thresholds ranked on all those out-of-fold scores, and the event
  evaluated with the score refitted on both halves together. Halving the rows costs these
  families' noisy fits and their threshold choice the most; ranking them on the rows they were fitted on
  would favour their overfitted extremes (a pattern of a few hundred rows), which out-of-fold
  scores do not repeat.

Whatever happens here depends on selection rows only (in-sample counts can mislead the choice, never
the bound), so the events handed to the estimation
split are fixed before it is read: the validity argument of :mod:`~dpaudit.auditor.runner` is untouched.

References
----------
.. [NP33] J. Neyman and E. S. Pearson. On the problem of the most efficient tests of statistical
   hypotheses. Phil. Trans. R. Soc. A 231, 1933 (the likelihood ratio's level sets are the most
   powerful events).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.auditor.attacks import fit_scores
from dpaudit.auditor.features import OutputLayout
from dpaudit.auditor.ranking import Candidate, rank_candidates
from dpaudit.auditor.score import Score

__all__ = ["LEARNED_FRACTION", "SCALAR_FRACTION", "choose_candidates", "default_selection_fraction"]

SCALAR_FRACTION = 0.1
LEARNED_FRACTION = 0.3
SCREEN_ROWS = 25_000
FINALISTS = 4
#: Families refitted and ranked on the whole selection split in the final round (see above).
WHOLE_SPLIT_FAMILIES = frozenset({"pattern value llr"})


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
    # the whole-split families estimate the joint likelihood ratio, the most powerful score [NP33]
    # once well fitted, which the screen's few rows cannot show: they are finalists whenever fitted
    finalists: set[str] = {s.family for s in screen} & WHOLE_SPLIT_FAMILIES
    for cand in by_eps:
        finalists.add(cand.score.family)
        if len(finalists - WHOLE_SPLIT_FAMILIES) == FINALISTS:
            break
    # final round: the finalists refitted on all training rows, ranked on all ranking rows; those of
    # WHOLE_SPLIT_FAMILIES cross-fitted on the whole split
    halves = fit_scores(layout, t0, t1, float_bits=float_bits, only=finalists - WHOLE_SPLIT_FAMILIES)
    crossed = _cross_fitted(layout, sel0, sel1, half, float_bits, finalists & WHOLE_SPLIT_FAMILIES)
    compared = len(halves) + len(crossed)  # one shrink for every score compared, whichever rows rank it
    by_eps, by_gdp = rank_candidates(halves, r0, r1, n_est=n_est, delta=delta, z=z, tail_fit=True, compared=compared)
    for out_of_fold, refitted in crossed:
        more_eps, more_gdp = rank_candidates([out_of_fold], sel0, sel1, n_est=n_est, delta=delta, z=z, tail_fit=True,
                                             compared=compared)
        by_eps += [replace(c, score=refitted) for c in more_eps]
        by_gdp += [replace(c, score=refitted) for c in more_gdp]
    by_eps.sort(key=lambda c: -c.predicted)
    by_gdp.sort(key=lambda c: -c.predicted)
    return by_eps, by_gdp


def _cross_fitted(layout: OutputLayout, sel0: NDArray[Any], sel1: NDArray[Any], half: int, float_bits: bool,
                  families: set[str]) -> list[tuple[Score, Score]]:
    """``(out-of-fold score, refitted score)`` of each of ``families`` on the selection split ``sel0``, ``sel1``.

    The out-of-fold score reads *rows of the selection split by position*: the first ``half`` rows
    through the fit on the others, the others through the fit on the first ``half``; it is only ever
    called on ``sel0`` and ``sel1`` themselves, to rank thresholds. The refitted score (fitted on both
    halves) is the one the chosen events use.
    """
    out: list[tuple[Score, Score]] = []
    for family in sorted(families):
        first = fit_scores(layout, sel0[:half], sel1[:half], float_bits=float_bits, only={family})
        second = fit_scores(layout, sel0[half:], sel1[half:], float_bits=float_bits, only={family})
        both = fit_scores(layout, sel0, sel1, float_bits=float_bits, only={family})
        if not (len(first) == len(second) == len(both)):
            continue  # some fit found nothing to fit (too few rows of a pattern): its scores do not pair up
        for a, b, whole in zip(first, second, both, strict=True):
            def out_of_fold(x: NDArray[Any], a: Score = a, b: Score = b) -> NDArray[np.float64]:
                return np.concatenate([b(x[:half]), a(x[half:])])

            out.append((replace(whole, fn=out_of_fold), whole))
    return out
