"""``audit_scores()``: scores in, bound out, for users who bring their own attack.

A user who has run a mechanism on two neighbouring datasets ``d0``, ``d1`` many times and reduced
each output to a score (the loss of a membership-inference attack, a likelihood ratio, a
distinguisher's logit) gets the auditor's bound from those scores alone, with the same procedure
as :func:`dpaudit.audit` (:mod:`~dpaudit.auditor.runner`):

1. each sample is put in a random order drawn from the seed (independent of the values, so a
   sorted file is as good as a fresh one) and split: the first ``selection_fraction`` of the
   smaller sample, and as many rows of the larger, are the *selection split*, the rest the
   *estimation split*;
2. on the selection split only, thresholds ``{score > t}`` / ``{score <= t}`` are ranked in both
   directions (:mod:`~dpaudit.auditor.selection`, :mod:`~dpaudit.auditor.ranking`; vector scores get the fitted families of
   :mod:`.attacks`);
3. the best ``candidates`` events are evaluated on the estimation split, each at level
   ``alpha / candidates`` (Bonferroni over the events actually evaluated), with one-sided
   Clopper-Pearson limits at half that level: ``eps_lb = ln((p_num_lo - delta) / p_den_hi)``
   [KOV15], [CP34]. The two samples may differ in size: each probability is bounded on its own.

For any fixed event an ``(epsilon, delta)``-DP mechanism has ``P_num <= e^eps P_den + delta``, and
the events are fixed before the estimation split is read, so ``P[eps_lb > epsilon] <= 1 -
confidence`` whenever the scores of each sample are independent draws (the precondition, as for
:func:`dpaudit.audit`).

References
----------
.. [CP34] C. J. Clopper and E. S. Pearson. Biometrika 26(4), 1934.
.. [KOV15] P. Kairouz, S. Oh and P. Viswanath. The composition theorem for differential privacy.
   ICML 2015.
.. [DRS19] J. Dong, A. Roth and W. Su. Gaussian differential privacy. arXiv:1905.02383, Eq. (6).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import stats
from threadpoolctl import threadpool_limits

from dpaudit._rng import as_seed_sequence
from dpaudit._validation import (
    argument_error,
    check_array,
    check_in_range,
    check_int,
    check_nonnegative,
    check_probability,
)
from dpaudit.accounting.conversions import gdp_epsilon
from dpaudit.auditor.features import LAYOUT_ROWS, detect_layout, flatten_outputs
from dpaudit.auditor.ranking import Candidate
from dpaudit.auditor.result import ClaimRecord
from dpaudit.auditor.selection import SCALAR_FRACTION, choose_candidates, default_selection_fraction
from dpaudit.auditor.stats import clopper_pearson_lower, clopper_pearson_upper

__all__ = ["MIN_SCORES", "SCORES_SCHEMA_VERSION", "ScoresAuditResult", "audit_scores"]

OWNER = "audit_scores"
MIN_SCORES = 20
SCORES_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class ScoresAuditResult(ClaimRecord):
    """Outcome of :func:`audit_scores`: the bound, the event behind it, and its counts.

    ``numerator`` names the sample whose event probability is bounded from below; ``n_numerator``
    and ``n_denominator`` are the estimation rows of each sample. Intervals are Clopper-Pearson at
    the per-limit level used. ``gdp_*`` is an estimate under a Gaussian trade-off curve [DRS19],
    never the verdict.
    """

    claimed_epsilon: float | None
    delta: float
    confidence: float
    epsilon_lower_bound: float
    violation: bool
    event: str
    numerator: str
    count_numerator: int
    n_numerator: int
    count_denominator: int
    n_denominator: int
    p_numerator_interval: tuple[float, float]
    p_denominator_interval: tuple[float, float]
    scores: tuple[int, int]
    selection_scores: int
    candidates_evaluated: int
    seed_entropy: int | None
    seconds: float
    gdp_mu_lower_bound: float | None = None
    gdp_epsilon_estimate: float | None = None
    notes: tuple[str, ...] = ()
    schema_version: int = field(default=SCORES_SCHEMA_VERSION)

    def to_text(self) -> str:
        """The result as the plain-text block the CLI prints (claim, bound, verdict, the event's counts)."""
        claim = "none" if self.claimed_epsilon is None else f"epsilon = {self.claimed_epsilon:g}"
        lines = [
            "dpaudit audit of attack scores",
            f"  claim             : {claim} at delta = {self.delta:g}",
            f"  epsilon >= {self.epsilon_lower_bound:.4f}  (confidence {self.confidence:g})  ->  {self.verdict}",
            f"  event             : {{{self.event}}}, {self.numerator} on the numerator",
            f"  counts            : {self.count_numerator} of {self.n_numerator} vs {self.count_denominator} of "
            f"{self.n_denominator} fresh scores",
            f"  P[numerator]      : [{self.p_numerator_interval[0]:.6g}, {self.p_numerator_interval[1]:.6g}]",
            f"  P[denominator]    : [{self.p_denominator_interval[0]:.6g}, {self.p_denominator_interval[1]:.6g}]",
            f"  scores            : {self.scores[0]} on d0, {self.scores[1]} on d1 ({self.selection_scores} of each "
            f"choose the event; {self.candidates_evaluated} candidate(s) paid for)",
        ]
        if self.gdp_mu_lower_bound is not None:
            eps = "n/a" if self.gdp_epsilon_estimate is None else f"{self.gdp_epsilon_estimate:.4f}"
            lines.append(f"  GDP estimate      : mu >= {self.gdp_mu_lower_bound:.4f}, epsilon ~ {eps} "
                         "(assumes a Gaussian trade-off curve; not the verdict)")
        lines.append(f"  seed entropy      : {self.seed_entropy}")
        lines.extend(f"  note              : {note}" for note in self.notes)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()


def _as_scores(value: Any, name: str) -> NDArray[np.float64]:
    arr = check_array(OWNER, name, value, ndim=(1, 2))
    if np.isnan(arr).any():
        raise argument_error(OWNER, name, "free of NaN (a score must be a number; +-inf is allowed)", value)
    if arr.shape[0] < MIN_SCORES:
        raise argument_error(OWNER, name, f"at least {MIN_SCORES} scores (rows)", value)
    return arr


def _evaluate(cand: Candidate, e0: NDArray[Any], e1: NDArray[Any], delta: float, alpha: float) -> dict[str, Any]:
    """Counts, Clopper-Pearson limits at ``alpha / 2`` each and the bound of one event on the estimation split."""
    c0 = int(np.count_nonzero(cand.event(cand.score(e0))))
    c1 = int(np.count_nonzero(cand.event(cand.score(e1))))
    (k_num, n_num), (k_den, n_den) = ((c0, len(e0)), (c1, len(e1))) if cand.numerator == 0 else ((c1, len(e1)), (c0, len(e0)))
    half = alpha / 2
    lo, hi = float(clopper_pearson_lower(k_num, n_num, half)), float(clopper_pearson_upper(k_den, n_den, half))
    value = max(0.0, math.log(lo - delta) - math.log(hi)) if lo > delta else 0.0
    return dict(
        event=cand.describe(), numerator=f"d{cand.numerator}", count_numerator=k_num, n_numerator=n_num,
        count_denominator=k_den, n_denominator=n_den,
        p_numerator_interval=(lo, float(clopper_pearson_upper(k_num, n_num, half))),
        p_denominator_interval=(float(clopper_pearson_lower(k_den, n_den, half)), hi),
        epsilon_lower_bound=value,
    )


def _gdp_mu(ev: dict[str, Any]) -> float:
    """[DRS19, Eq. (6)]: ``Phi^{-1}(1 - FPR_hi) - Phi^{-1}(FNR_hi)`` from one event's limits."""
    fpr_hi = ev["p_denominator_interval"][1]
    fnr_hi = 1.0 - ev["p_numerator_interval"][0]
    if fpr_hi >= 1.0 or fnr_hi >= 1.0:
        return 0.0
    return max(0.0, float(stats.norm.isf(fpr_hi) - stats.norm.ppf(fnr_hi)))


def audit_scores(
    scores_d0: Any,
    scores_d1: Any,
    *,
    epsilon: float | None = None,
    delta: float = 0.0,
    confidence: float = 0.95,
    selection_fraction: float | None = None,
    candidates: int = 1,
    seed: Any = None,
) -> ScoresAuditResult:
    """Lower-bound epsilon from attack scores of a mechanism's outputs on ``d0`` and on ``d1``.

    **Precondition: the scores in each sample are independent draws** (one score per independent
    run of the mechanism, the attack fixed beforehand or fitted on other runs).

    Parameters
    ----------
    scores_d0, scores_d1 : array_like
        Scores of outputs on ``d0`` and on ``d1``: shape ``(n0,)`` and ``(n1,)`` (or ``(n, k)`` for
        vector scores, fitted by the auditor's attack families); at least ``MIN_SCORES`` each, no
        NaN. The sizes may differ. Direction does not matter: both are tried.
    epsilon : float, optional
        The claimed epsilon; ``violation`` is ``epsilon_lower_bound > epsilon``.
    delta : float
        The claimed delta, in ``[0, 1)``.
    confidence : float
        In ``(0, 1)``: a correct mechanism is flagged at most ``1 - confidence`` of the time.
    selection_fraction : float, optional
        Fraction of the smaller sample that chooses the event, in ``(0, 1)``; default 0.1 for
        scalar scores, 0.3 for vectors (as :func:`dpaudit.audit`).
    candidates : int
        Events evaluated on the estimation split, each paid for.
    seed : optional
        Root of the random order that splits the samples.

    Returns
    -------
    ScoresAuditResult

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s0, s1 = rng.laplace(0.0, 1.0, 200_000), rng.laplace(1.0, 1.0, 200_000)  # epsilon = 1
    >>> res = audit_scores(s0, s1, epsilon=0.5, seed=0)
    >>> res.violation, 0.9 < res.epsilon_lower_bound <= 1.0
    (True, True)
    """
    started = time.perf_counter()
    x0 = flatten_outputs(_as_scores(scores_d0, "scores_d0"))
    x1 = flatten_outputs(_as_scores(scores_d1, "scores_d1"))
    if x0.shape[1] != x1.shape[1]:
        raise argument_error(OWNER, "scores_d1", f"scores with {x0.shape[1]} column(s), as scores_d0", scores_d1)
    delta = check_probability(OWNER, "delta", delta)
    confidence = check_in_range(OWNER, "confidence", confidence, 0.0, 1.0, low_closed=False, high_closed=False)
    candidates = check_int(OWNER, "candidates", candidates, minimum=1)
    if epsilon is not None:
        epsilon = check_nonnegative(OWNER, "epsilon", epsilon)
    if selection_fraction is not None:
        selection_fraction = check_in_range(OWNER, "selection_fraction", selection_fraction, 0.0, 1.0, low_closed=False, high_closed=False)
    root = as_seed_sequence(seed, OWNER)
    g0, g1 = (np.random.default_rng(s) for s in root.spawn(2))
    # a random order independent of the values: a sorted file splits like a fresh sample
    x0, x1 = x0[g0.permutation(len(x0))], x1[g1.permutation(len(x1))]
    n_small = min(len(x0), len(x1))
    n_min = _selection_size(n_small, SCALAR_FRACTION if selection_fraction is None else selection_fraction)
    rows = min(n_min, LAYOUT_ROWS)
    layout = detect_layout(x0[:rows], x1[:rows])  # rows every selection split contains
    if selection_fraction is None:
        selection_fraction = default_selection_fraction(layout, False)
    n_sel = _selection_size(n_small, selection_fraction)
    if n_sel > n_min and n_min < LAYOUT_ROWS:
        layout = detect_layout(x0[:n_sel], x1[:n_sel])
    e0, e1 = x0[n_sel:], x1[n_sel:]
    alpha = 1.0 - confidence
    z = float(stats.norm.isf(alpha / (2 * candidates)))
    with threadpool_limits(1, user_api="blas"):
        eps_cands, gdp_cands = choose_candidates(layout, x0[:n_sel], x1[:n_sel], n_est=min(len(e0), len(e1)), delta=delta, z=z)
        chosen = eps_cands[:candidates]
        notes: list[str] = []
        if chosen:
            evaluated = [_evaluate(c, e0, e1, delta, alpha / len(chosen)) for c in chosen]
            best = max(evaluated, key=lambda ev: ev["epsilon_lower_bound"])
        else:
            best = dict(event="no event separates the scores", numerator="d0", count_numerator=0, n_numerator=len(e0),
                        count_denominator=0, n_denominator=len(e1), p_numerator_interval=(0.0, 1.0),
                        p_denominator_interval=(0.0, 1.0), epsilon_lower_bound=0.0)
            notes.append("no candidate event: the scores on the selection split did not differ")
        gdp_mu = gdp_eps = None
        if gdp_cands:
            gdp_mu = _gdp_mu(_evaluate(gdp_cands[0], e0, e1, delta, alpha))
            gdp_eps = gdp_epsilon(gdp_mu, delta) if delta > 0 else None
    value = best["epsilon_lower_bound"]
    return ScoresAuditResult(
        claimed_epsilon=epsilon, delta=delta, confidence=confidence, violation=bool(epsilon is not None and value > epsilon),
        scores=(len(x0), len(x1)), selection_scores=n_sel, candidates_evaluated=len(chosen),
        seed_entropy=root.entropy if isinstance(root.entropy, int) else None, seconds=time.perf_counter() - started,
        gdp_mu_lower_bound=gdp_mu, gdp_epsilon_estimate=gdp_eps, notes=tuple(notes), **best,
    )


def _selection_size(n: int, fraction: float) -> int:
    """Selection rows for ``fraction`` of ``n``: at least 2, leaving at least 1 for estimation."""
    return min(max(2, round(fraction * n)), n - 1)
