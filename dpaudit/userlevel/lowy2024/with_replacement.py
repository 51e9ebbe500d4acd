"""Algorithm 2 with its minibatch drawn with replacement (pitfall P7): the law of one step on a pair, and its profile.

Lowy, Liu and Asi (2024)'s Algorithm 2 box draws the ``K`` users of each step "uniformly with
replacement" (line 3); dpaudit's Algorithm 2 draws them without replacement (``docs/papers/lowy2024.md``,
finding F5) and :class:`~dpaudit.userlevel.lowy2024.faulty.WithReplacementMinibatchSGD` keeps the box's
reading as a broken variant. What one step releases on a pair ``(d0, d1)`` then:

* **The batch.** ``K`` independent uniform draws among the ``n`` users: the multiplicities
  ``c ~ Multinomial(K; 1/n, ..., 1/n)``, drawn afresh at every step, independent of the noise and of
  the data (the same law on both datasets). Users with the same gradient on both sides are
  interchangeable, so only the multiplicities of the *types* (distinct ``(q_u on d0, q_u on d1)``)
  matter: ``w ~ Multinomial(K; n_1/n, ..., n_r/n)``; the canary is a type of its own (count 1), its
  multiplicity ``k ~ Binomial(K, 1/n)``, about ``Poisson(1)`` at ``K = n``.
* **The score** [LLA24, Alg 2 line 6]: ``s = (1/K) sum_{i,j} w_i w_j 1(||q_i - q_j|| <= 2 tau)``, a
  function of ``w``; the canary's ``k`` copies move it by up to ``2 k (K - k)/K`` (sensitivity 2 without
  replacement), and the other types' random multiplicities move it too.
* **The kept set** [Alg 2 lines 8-11]: type ``i``'s rank is ``h_i = sum_j w_j 1(||q_i - q_j|| <= 2 tau)``;
  every copy is kept with the ramp's probability ``p(h_i)``. When every present type's ``p`` is 0 or 1
  and some type is kept (a *regular* composition) the kept set and the robust mean ``sum_kept w_i q_i
  / sum_kept w_i`` are fixed by ``w``; otherwise (an *irregular* composition) the coins are random or
  the kept set is empty (a halt).

**The profile of the transcript** (:func:`replacement_transcript_steps`, a dominating pair, so an
upper bound on the pair's epsilon):

1. Reveal to the adversary the event ``B`` "some step's composition is irregular or was pruned" (its
   probability is the same on both datasets, as the multiplicities' law is): ``H(P || Q) <= (1 -
   pi_B) H(P_{not B} || Q_{not B}) + pi_B``, the composition with the ``(0, pi_B)`` dominating pair
   [KOV15, Thm 2.1] (:class:`~dpaudit.exact.DPStep`).
2. Given ``not B`` the AboveThreshold answers are one call on random scores, i.i.d. across steps from
   the regular compositions' law: their joint law is computed exactly
   (:func:`dpaudit.exact.random_threshold.random_query_threshold_profile`).
3. Given the answers, the released gradients are a mixture over the compositions of Gaussians
   ``N(m(w), sigma^2 I)``; the hockey-stick divergence is jointly convex, so the mixture pair is
   dominated by the Gaussian pair of the largest distance ``D`` between a location on ``d0`` and one
   on ``d1`` (over regular compositions), ``sqrt(T) D / sigma`` over the ``T`` steps; composing it
   after the answers is an adaptive composition of dominating pairs [ZDW22, Thm 10].

This bounds the pair's epsilon from above; it says nothing about other pairs.

References
----------
.. [LLA24] A. Lowy, D. Liu and H. Asi. Faster algorithms for user-level private stochastic convex
   optimization. NeurIPS 2024, Algorithm 2 lines 3-14.
.. [KOV15] P. Kairouz, S. Oh and P. Viswanath. The composition theorem for differential privacy.
   ICML 2015, Theorem 2.1.
.. [ZDW22] Y. Zhu, J. Dong and Y.-X. Wang. Optimal accounting of differential privacy via
   characteristic function. AISTATS 2022, Theorem 10.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.exact import Adaptive, DPStep, GaussianStep, ProfileStep, ProfileUnavailable, Step
from dpaudit.exact.random_threshold import random_query_threshold_profile
from dpaudit.userlevel.lowy2024.outlier_removal import inclusion_probability, pairwise_sq_distances

__all__ = ["MAX_COMPOSITIONS", "PRUNED_MASS", "ReplacementStepLaw", "replacement_step_law", "replacement_transcript_steps"]

#: Largest number of type compositions enumerated (``C(K + r - 1, r - 1)`` for ``r`` types).
MAX_COMPOSITIONS = 200_000
#: The least likely compositions, up to this total probability, are put in the event ``B`` (see the module docstring).
PRUNED_MASS = Fraction(1, 10**15)


@dataclass(frozen=True)
class ReplacementStepLaw:
    """One step of Algorithm 2 with replacement on a pair, given that its composition is regular.

    Attributes
    ----------
    scores0, scores1 : tuple of (float, Fraction)
        The score's law on each dataset, conditioned on a regular composition (exact rationals).
    irregular : Fraction
        The probability of an irregular (or pruned) composition, the same on both datasets.
    max_shift : float
        An upper bound on ``||m0(w) - m1(w')||`` over regular compositions ``w, w'`` (units of ``L``).
    compositions : int
        How many compositions were enumerated.
    """

    scores0: tuple[tuple[float, Fraction], ...]
    scores1: tuple[tuple[float, Fraction], ...]
    irregular: Fraction
    max_shift: float
    compositions: int


def _compositions(total: int, parts: int) -> NDArray[np.int64]:
    """Every vector of ``parts`` non-negative integers summing to ``total``, one per row."""
    if parts == 1:
        return np.array([[total]], dtype=np.int64)
    rows = [np.hstack([np.full((sub.shape[0], 1), first), sub])
            for first in range(total + 1) for sub in (_compositions(total - first, parts - 1),)]
    return np.vstack(rows)


def _multinomial(w: Sequence[int], counts: Sequence[int], n: int) -> Fraction:
    """``P(w)`` for ``K = sum(w)`` uniform draws among ``n`` users in types of ``counts`` users: exact."""
    ways, left = 1, sum(w)
    for x in w:
        ways *= math.comb(left, x)
        left -= x
    return Fraction(ways * math.prod(c**x for c, x in zip(counts, w, strict=True)), n ** sum(w))


def replacement_step_law(types0: NDArray[np.float64], types1: NDArray[np.float64], counts: Sequence[int], draws: int,
                         radius: float) -> ReplacementStepLaw:
    """The law of one step's score and robust mean under ``draws`` draws with replacement (see the module docstring).

    Parameters
    ----------
    types0, types1 : ndarray, shape (r, d)
        The types' mean gradients on ``d0`` and on ``d1`` (units of ``L``); type ``i`` holds ``counts[i]`` users.
    counts : sequence of int
        Users per type (``n = sum(counts)``).
    draws : int
        ``K``.
    radius : float
        ``2 tau`` in units of ``L`` (the score's and the ramp's radius).
    """
    counts = [int(c) for c in counts]
    n, r = sum(counts), len(counts)
    if math.comb(draws + r - 1, r - 1) > MAX_COMPOSITIONS:
        raise ProfileUnavailable(f"{r} user types and K = {draws} draws: more than {MAX_COMPOSITIONS} compositions")
    comps = _compositions(draws, r)
    probs = [_multinomial(row, counts, n) for row in comps.tolist()]
    sides = []
    regular = np.ones(len(comps), dtype=bool)
    for types in (types0, types1):
        adjacency = (pairwise_sq_distances(np.asarray(types, dtype=float)) <= radius * radius).astype(np.int64)
        h = comps @ adjacency.T  # (compositions, r): each type's rank (its copies included)
        scores = (comps * h).sum(axis=1) / draws  # [LLA24, Alg 2 line 6], the float the algorithm computes
        p = inclusion_probability(h, draws)  # [Alg 2 line 11]
        present = comps > 0
        kept = present & (p == 1.0)
        regular &= np.all(~present | (p == 0.0) | (p == 1.0), axis=1) & kept.any(axis=1)
        weights = np.where(kept, comps, 0)
        locations = (weights @ np.asarray(types, dtype=float)) / np.maximum(weights.sum(axis=1, keepdims=True), 1)
        sides.append((scores, locations))
    # prune the least likely regular compositions into the irregular event, up to PRUNED_MASS in total
    order = sorted(np.flatnonzero(regular).tolist(), key=lambda i: probs[i])
    pruned = Fraction(0)
    for i in order:
        if pruned + probs[i] > PRUNED_MASS:
            break
        pruned += probs[i]
        regular[i] = False
    mass = sum((probs[i] for i in np.flatnonzero(regular).tolist()), Fraction(0))
    if mass == 0:
        raise ProfileUnavailable("no regular composition: every step's kept set is random or empty")
    laws = []
    for scores, _ in sides:
        law: dict[float, Fraction] = {}
        for i in np.flatnonzero(regular).tolist():
            law[float(scores[i])] = law.get(float(scores[i]), Fraction(0)) + probs[i] / mass
        laws.append(tuple(sorted(law.items())))
    loc0 = np.unique(sides[0][1][regular], axis=0)
    loc1 = np.unique(sides[1][1][regular], axis=0)
    dist = np.sqrt(((loc0[:, None, :] - loc1[None, :, :]) ** 2).sum(axis=-1)).max()
    # the locations are float means of at most K unit-norm points: a relative 1e-12 covers their rounding
    shift = float(dist) * (1.0 + 1e-12) + 1e-12
    return ReplacementStepLaw(laws[0], laws[1], 1 - mass, shift, len(comps))


def _types(records: Sequence[Any]) -> tuple[NDArray[np.float64], NDArray[np.float64], list[int], int, float]:
    p = records[0].parameters
    t0 = np.asarray(records[0].on_d0["user types"], dtype=float)
    t1 = np.asarray(records[0].on_d1["user types"], dtype=float)
    return t0, t1, [int(c) for c in p["type counts"]], int(p["draws"]), float(p["score radius"])


def replacement_transcript_steps(tests: Sequence[Any], gaussians: Sequence[Any]) -> list[Step]:
    """The dominating steps of one call of Algorithm 2 with replacement (see the module docstring).

    ``tests`` are the call's AboveThreshold records (one per step), ``gaussians`` the Gaussian records
    after them (:func:`dpaudit.userlevel.lowy2024.worst_pairs.alg2_transcript_steps`).
    """
    if not tests:
        raise ProfileUnavailable("a minibatch drawn with replacement without its AboveThreshold records")
    law = replacement_step_law(*_types(tests))
    p = tests[0].parameters
    steps = len(tests)
    negated = [[(-v, w) for v, w in law.scores0]] * steps, [[(-v, w) for v, w in law.scores1]] * steps
    out: list[Step] = [ProfileStep(random_query_threshold_profile(
        -float(p["threshold"]), float(p["threshold scale"]), float(p["query scale"]), negated[0], negated[1],
        description=f"AboveThreshold on {steps} steps' scores, minibatches drawn with replacement (regular compositions)"))]
    if gaussians and law.max_shift > 0:
        sigma = float(gaussians[0].parameters["sigma"])
        if any(float(g.parameters["sigma"]) != sigma for g in gaussians):
            raise ProfileUnavailable("Gaussian records of different sigmas in one call")
        out.append(Adaptive((GaussianStep(tuple([law.max_shift] * len(gaussians)), sigma),)))
    blocked = 1 - (1 - law.irregular) ** steps  # P(B): some step irregular or pruned
    if blocked > 0:
        out.append(DPStep(0.0, math.nextafter(float(blocked), 1.0)))
    return out
