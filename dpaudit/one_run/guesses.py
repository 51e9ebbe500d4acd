"""Guesses from canary scores, and the one-run bound paid for over every guess plan evaluated.

A *guess plan* ``(k_plus, k_minus)`` guesses "included" for the ``k_plus`` highest scores and
"excluded" for the ``k_minus`` lowest, and abstains on the rest [SNJ23, Sec. 2 "abstention"]. The
number of guesses ``r = k_plus + k_minus`` is fixed by the plan before the scores are seen, as the
tail bounds of :mod:`.tail_bounds` require. Trying several plans and keeping the best is a choice
made after seeing the outcome, so it is paid for: with ``G`` plans each is evaluated at level
``(1 - confidence) / G`` (a union bound over the plans actually evaluated, fixed in advance).

The default plans (:func:`default_plans`) guess ``r = m, m/2, m/4, ...`` canaries (down to
``MIN_GUESSES``), split evenly between the top and the bottom of the scores, and, for ``r <= m/2``,
also all at the top (membership scores often separate only there): about ``2 log2(m / 8)`` plans.
jax_privacy's ``epsilon_one_run`` instead guesses above every threshold of the empirical ROC's
convex hull (one-sided) and divides the significance by the number of hull vertices.

Ties between scores are broken by a random permutation drawn from the audit's seed, which does not
look at the inclusion bits.

References
----------
.. [SNJ23] T. Steinke, M. Nasr and M. Jagielski. Privacy auditing with one (1) training run.
   NeurIPS 2023, arXiv:2305.08846.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.stats import binomtest

from dpaudit._rng import as_generator
from dpaudit._validation import (
    argument_error,
    check_finite_array,
    check_in_range,
    check_int,
    check_nonnegative,
    check_probability,
)
from dpaudit.accounting.conversions import gdp_epsilon
from dpaudit.one_run.result import GuessOutcome, OneRunResult
from dpaudit.one_run.tail_bounds import fdp_mu, steinke_epsilon

__all__ = ["INCLUSION_TEST_LEVEL", "MIN_GUESSES", "audit_canaries", "default_plans", "draw_inclusion", "guess_outcome"]

MIN_GUESSES = 8
OWNER = "audit_canaries"
#: Level of the two-sided exact binomial test that refuses an inclusion vector whose count of
#: included canaries is implausible for independent fair coins; fair coins are refused with
#: probability at most this (the exact test is conservative).
INCLUSION_TEST_LEVEL = 1e-6


def _check_fair_coin_count(included: NDArray[np.bool_]) -> None:
    """Refuse ``included`` when its count is implausible under ``m`` independent fair coins.

    The tail bounds of [SNJ23, Thm 3.1] hold only when each canary is included independently with
    probability 1/2: an all-included vector makes "guess included" always right and reports a
    large epsilon for a mechanism that ignores its data. A two-sided exact binomial test on the
    count at level :data:`INCLUSION_TEST_LEVEL` catches such gross departures (for example 0%,
    60% or 100% included of 1000); it cannot see dependence between the coins or a count only
    mildly off (55% of 1000 passes), so drawing the coins with an rng (:func:`draw_inclusion`)
    stays the caller's duty.
    """
    m, count = int(included.size), int(np.count_nonzero(included))
    p_value = float(binomtest(count, m, 0.5, alternative="two-sided").pvalue)
    if p_value < INCLUSION_TEST_LEVEL:
        raise argument_error(
            OWNER, "included",
            f"independent fair coins (draw them with draw_inclusion(m, rng)); {count} of {m} included has "
            f"two-sided binomial p-value {p_value:.3g} < {INCLUSION_TEST_LEVEL:g}, so the bound's premise "
            "fails", f"{count} of {m} True")


def draw_inclusion(k: int, rng: Any) -> NDArray[np.bool_]:
    """``k`` independent fair coins: which canaries the run includes [SNJ23, Sec. 2].

    The bounds need exactly this law (each canary in with probability 1/2, independently of
    everything else); pass the result to the mechanism's dataset builder and to
    :func:`audit_canaries`.
    """
    k = check_int("draw_inclusion", "k", k, minimum=1)
    return as_generator(rng, "draw_inclusion", "rng").random(k) < 0.5


def default_plans(m: int) -> list[tuple[int, int]]:
    """Guess plans ``(k_plus, k_minus)`` for ``m`` canaries (see the module docstring)."""
    m = check_int("default_plans", "m", m, minimum=1)
    plans: list[tuple[int, int]] = []
    r = m
    while True:
        plans.append(((r + 1) // 2, r // 2))
        if r <= m // 2:
            plans.append((r, 0))
        if r // 2 < MIN_GUESSES:
            break
        r //= 2
    return list(dict.fromkeys(plans))


def _ranking(scores: NDArray[np.float64], rng: np.random.Generator) -> NDArray[np.int64]:
    """Canary indices from the highest score to the lowest, ties in a random order."""
    tiebreak = rng.permutation(len(scores))
    return np.lexsort((tiebreak, -scores))


def guess_outcome(order: NDArray[np.int64], included: NDArray[np.bool_], plan: tuple[int, int]) -> tuple[int, int]:
    """``(r, v)``: guesses made and correct ones for ``plan`` on canaries ranked by ``order``."""
    k_plus, k_minus = plan
    top = order[:k_plus]
    bottom = order[len(order) - k_minus:] if k_minus else order[:0]
    correct = int(np.count_nonzero(included[top])) + int(np.count_nonzero(~included[bottom]))
    return k_plus + k_minus, correct


def _check_plans(plans: Any, m: int) -> list[tuple[int, int]]:
    if plans is None:
        return default_plans(m)
    out = []
    try:
        items = [tuple(int(k) for k in p) for p in plans]
    except (TypeError, ValueError) as exc:
        raise argument_error(OWNER, "guesses", "a sequence of (k_plus, k_minus) pairs of ints", plans) from exc
    for k_plus, k_minus in items:
        if k_plus < 0 or k_minus < 0 or k_plus + k_minus < 1 or k_plus + k_minus > m:
            raise argument_error(OWNER, "guesses", f"pairs (k_plus, k_minus) >= 0 with 1 <= k_plus + k_minus <= m = {m}", plans)
        out.append((k_plus, k_minus))
    if not out:
        raise argument_error(OWNER, "guesses", "a non-empty sequence of (k_plus, k_minus) pairs", plans)
    return list(dict.fromkeys(out))


def audit_canaries(
    scores: Any,
    included: Any,
    *,
    epsilon: float | None = None,
    delta: float = 0.0,
    confidence: float = 0.95,
    guesses: Sequence[tuple[int, int]] | None = None,
    seed: Any = None,
    mechanism: str = "canary scores",
    check_inclusion: bool = True,
) -> OneRunResult:
    """One-run lower bound on epsilon from one score per canary [SNJ23], with the f-DP estimate [MMC24].

    **Precondition:** canary ``i`` was included with probability 1/2 independently of the others
    (:func:`draw_inclusion`), the mechanism ran once, and ``scores`` were computed from its output
    (and public information) without looking at ``included``. A higher score means "more likely
    included". Draw the inclusions with an rng (:func:`draw_inclusion`); an inclusion vector whose
    count is implausible for fair coins (two-sided exact binomial test, level
    :data:`INCLUSION_TEST_LEVEL` = 1e-6, so fair coins are refused at most once in a million
    audits) is refused with :class:`~dpaudit.errors.InvalidArgument`. That test catches gross
    misuse only (all or none included, 60% of 1000); the precondition is the caller's to keep.

    Parameters
    ----------
    scores : array_like
        One real score per canary, shape ``(m,)``, finite.
    included : array_like of bool
        Whether each canary was in the run, shape ``(m,)``.
    epsilon : float, optional
        The claimed epsilon; ``violation`` is ``epsilon_lower_bound > epsilon``.
    delta : float
        The claimed delta, in ``[0, 1)``.
    confidence : float
        In ``(0, 1)``; ``epsilon_lower_bound`` holds with at least this probability. So does
        ``gdp_mu_lower_bound`` as a test of GDP claims (a mu-GDP mechanism with a smaller mu
        produces it with at most ``1 - confidence``), but ``gdp_epsilon_estimate`` is **not** a bound:
        it assumes the trade-off curve is Gaussian, and for other mechanisms (randomized response,
        Laplace) it can exceed the true epsilon far more often than ``1 - confidence``.
    guesses : sequence of (k_plus, k_minus), optional
        Guess plans, all paid for (default :func:`default_plans`).
    seed : optional
        Seed of the tie-breaking permutation.
    mechanism : str
        A name for the report.
    check_inclusion : bool
        Run the fair-coin count test on ``included`` (default True). Pass False only for coins
        drawn by dpaudit itself (as :func:`~dpaudit.one_run.audit_canary_users` does).

    Returns
    -------
    OneRunResult
        ``epsilon_lower_bound`` [SNJ23, Thm 3.1] (the verdict), and beside it ``gdp_mu_lower_bound``
        and ``gdp_epsilon_estimate`` [MMC24] with the Gaussian trade-off curve (an estimate for
        Gaussian-shaped mechanisms, not the verdict).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> inc = draw_inclusion(1000, rng)
    >>> res = audit_canaries(np.where(inc, 1.0, -1.0), inc, epsilon=2.0, seed=0)  # a perfect attack
    >>> res.violation, round(res.epsilon_lower_bound, 2)
    (True, 4.49)
    """
    s = check_finite_array(OWNER, "scores", scores, ndim=1)
    if s.size < 1:
        raise argument_error(OWNER, "scores", "a non-empty 1-d array of finite numbers", scores)
    inc = np.asarray(included)
    if inc.shape != s.shape or inc.dtype.kind not in "biu" or not np.all((inc == 0) | (inc == 1)):
        raise argument_error(OWNER, "included", f"booleans of the same shape as scores {s.shape}", included)
    inc = inc.astype(bool)
    if check_inclusion:
        _check_fair_coin_count(inc)
    m = int(s.size)
    delta = check_probability(OWNER, "delta", delta)
    confidence = check_in_range(OWNER, "confidence", confidence, 0.0, 1.0, low_closed=False, high_closed=False)
    if epsilon is not None:
        epsilon = check_nonnegative(OWNER, "epsilon", epsilon)
    plans = _check_plans(guesses, m)
    order = _ranking(s, as_generator(seed, OWNER))
    # a union bound over the plans evaluated: each at (1 - confidence) / len(plans)
    level = 1.0 - (1.0 - confidence) / len(plans)
    outcomes = []
    for plan in plans:
        r, v = guess_outcome(order, inc, plan)
        eps = steinke_epsilon(m, r, v, delta=delta, confidence=level)
        mu = fdp_mu(m, r, v, confidence=level)
        outcomes.append(GuessOutcome(plan[0], plan[1], v, eps, mu))
    best = max(outcomes, key=lambda o: o.epsilon)
    best_mu = max(outcomes, key=lambda o: o.mu)
    mu = best_mu.mu
    gdp_eps = gdp_epsilon(mu, delta) if delta > 0 and mu > 0 and math.isfinite(mu) else None
    return OneRunResult(
        mechanism=mechanism,
        canaries=m,
        included=int(np.count_nonzero(inc)),
        claimed_epsilon=epsilon,
        delta=delta,
        confidence=confidence,
        epsilon_lower_bound=best.epsilon,
        violation=bool(epsilon is not None and best.epsilon > epsilon),
        best=best,
        plans=tuple(outcomes),
        gdp_mu_lower_bound=mu,
        gdp_epsilon_estimate=gdp_eps,
    )
