"""Ghazi, Kumar, Liu and Manurangsi (2025): linear-time user-level DP-SCO via robust statistics.

The algorithms of [GKLM25], vectorised over independent trials (the trial batch is the leading
array axis through the whole SGD loop):

* :func:`robust_gradient_estimate` / :class:`RobustGradientEstimator`: Algorithm 2, the mean of the
  ``B`` user gradients clipped coordinate-wise to the l_inf ball of radius ``varsigma`` around a
  robust statistic (deterministic, so it is an operator, not a mechanism);
* :func:`concentration_score`: Eq. (3); :class:`StreamingAboveThreshold`: Algorithm 4 fed one score
  per step; :class:`ConcentrationTest`: Algorithm 3 at a fixed public query point (a mechanism);
* :func:`robust_sgd_path`: the deterministic part of Algorithm 1 (lines 4-8), used by the
  mechanisms and by the sensitivity property tests;
* :class:`RobustStatsSGD`: Algorithm 1 with the Gaussian output perturbation of Algorithm 5,
  line 7 (one phase over all users), an (epsilon, delta) user-level mechanism;
* :class:`RobustStatsLocalization`: Algorithm 5 (localization), the paper's full algorithm.

Two parameterisations (``preset``):

``"safe"`` (default)
    The privacy-safe parameterisation of the paper-000 note, Sec. 2.8. Changes from the paper, each
    needed for the privacy proof (Lemma 3.10) to go through:

    1. ``eta_s <= 1/(6 beta B)`` in every phase: Lemma 3.9 assumes it, Theorem 3.1 does not impose
       it (erratum A2). It implies Lemma 3.2's ``eta_s <= 2/beta``.
    2. AboveThreshold noise calibrated for score sensitivity 2 (Eq. (4), Lemma 3.9), not 1:
       ``Lap(8/eps)`` threshold and ``Lap(16/eps)`` query noise instead of ``Lap(4/eps)``,
       ``Lap(8/eps)`` (erratum A3).
    3. Threshold ``nu_s = max(0.9 B + 2 ln(T_s/delta)/eps, c0 B + 24 ln(2 e^eps/delta)/eps)`` with
       ``c0 = 2/3 + 1/(3e)``: the second term makes a non-aligned batch (score ``< c0 B``,
       Lemma 3.8 read with 2B/3, erratum A6) pass with probability at most ``delta/(2 e^eps)``
       for every ``B`` (the paper's ``nu`` relies on ``B >= 100 ln(T/delta)/eps`` for that).
    4. ``tau`` is an *inverse* radius everywhere (erratum A1): ``1/tau = C_tau G
       sqrt(2 ln(2nd/omega)/m)``, a Hoeffding radius of a user mean, ``omega = (nmd)^-3``,
       ``C_tau = 40`` (utility only). The paper's ``tau = G log(nmd/omega)/sqrt(m)`` is a radius.
    5. ``B >= 4`` (Lemma 3.6 needs a common point of the two good sets, erratum A13), and a robust
       statistic with the (2B/3)-break point (Remark 3.4 is false for light trimming).
    6. ``eta_s = eta kappa^-s`` with ``kappa = max(ln m, 4)`` (the paper's ``(ln m)^-s`` grows for
       ``m < e`` and is undefined for ``m = 1``, A8); noisy phase outputs are projected onto the box
       before the next phase and at the end (post-processing, A10); ``epsilon <= 1`` (A12).

``"paper"``
    As printed in Theorem 3.1, Lemmas 3.11-3.12 and Algorithms 1-5: ``tau = G ln(nmd/omega)/sqrt(m)``
    used as an inverse radius, ``nu = 0.9 B + 2 ln(T/delta)/eps``, AboveThreshold with
    ``Lap(4/eps)``/``Lap(8/eps)``, ``eta`` from Theorem 3.1 without ``6 beta eta B <= 1``,
    ``eta_s = eta (ln m)^-s``, no projection of the noisy outputs. Constructing it warns
    :class:`~dpaudit.errors.UnsoundMechanismWarning`. The paper's printed preconditions are
    *reported* (:attr:`Ghazi2025Parameters.conditions`), not enforced.

Shared by both presets (not privacy-relevant, or where the paper's text is only ``O(.)``):
``B = ceil(100 ln(mnd/delta)/eps)`` (Thm 3.1); ``S = floor(log2(n/B))`` phases (A7); phase ``s < S``
uses the next ``B floor(n/(2^s B))`` users and the last phase every remaining full batch, so that
``m`` times the number of users gradients are computed ("it takes mn gradient computations",
Thm 3.1) and no user is reused; consecutive users form each batch (any data-independent assignment
satisfies the proof; ``shuffle=True`` draws a random one per trial); the Gaussian noise is the
Gaussian mechanism (Prop. A.2) at ``(eps/2, delta/(2 e^eps))`` for the l_2 sensitivity
``sqrt(d) 6 eta_s / tau`` that the proof of Lemma 3.10 uses (the printed ``sigma_s`` is ``O(.)``, A9).

References
----------
.. [GKLM25] B. Ghazi, R. Kumar, D. Liu and P. Manurangsi. Linear-time user-level DP-SCO via robust
   statistics. arXiv:2502.08889v1, 2025.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014,
   Thm 3.23 (AboveThreshold), Thm A.1 (Gaussian mechanism).
.. [Note000] dpaudit paper-000 note (``notes/paper_000_robust_stats.md``), Secs. 2.7-2.8 and 8.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import (
    argument_error,
    check_finite_array,
    check_in_range,
    check_int,
    check_one_of,
    check_positive,
    check_probability,
    check_real,
)
from dpaudit.accounting.calibrate import gaussian_sigma_classical
from dpaudit.data import as_user_dataset
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.guarantees import ApproxDP, PureDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.mechanisms.sparse_vector import BOTTOM, NOT_REACHED, TOP, AboveThreshold
from dpaudit.neighbors.relations import UserReplace
from dpaudit.userlevel.ghazi2025_losses import (
    DiagonallyDominantQuadratic,
    Ghazi2025Loss,
    check_ghazi2025_assumptions,
)
from dpaudit.userlevel.robust_stats import CoordinateMedian, RobustStatistic

__all__ = [
    "LEMMA_3_8_SCORE_CEILING",
    "PRESETS",
    "ConcentrationTest",
    "Condition",
    "Ghazi2025Parameters",
    "Ghazi2025Run",
    "RobustGradientEstimator",
    "RobustStatsLocalization",
    "RobustStatsSGD",
    "SGDPath",
    "StreamingAboveThreshold",
    "concentration_score",
    "robust_gradient_estimate",
    "robust_sgd_path",
]

Preset = Literal["safe", "paper"]
PRESETS: tuple[str, ...] = ("safe", "paper")

LEMMA_3_8_SCORE_CEILING = 2.0 / 3.0 + 1.0 / (3.0 * math.e)
"""``c0 = 2/3 + 1/(3e)``: a batch with no ``(1/tau)``-ball holding ``2B/3`` points scores below ``c0 B``
[GKLM25, proof of Lemma 3.8, read with 2B/3 (Note000 A6)]."""

_SCORE_BLOCK_BYTES = 32 * 2**20
_TRIAL_BLOCK_BYTES = 192 * 2**20


# ----------------------------------------------------------------------------------------------
# Algorithm 2 and Eq. (3)
# ----------------------------------------------------------------------------------------------


def robust_gradient_estimate(
    gradients: Any, varsigma: float, statistic: RobustStatistic | None = None
) -> NDArray[np.float64]:
    """Algorithm 2 of [GKLM25]: the mean clipped to ``B_inf(X_rs, varsigma)`` coordinate-wise.

    Parameters
    ----------
    gradients : array_like, shape (..., B, d)
        The ``B`` user gradients ``q_t(Z_{i,t})`` (any leading trial axes).
    varsigma : float
        Clip radius ``varsigma > 0`` (Algorithm 1 passes ``1/tau``).
    statistic : RobustStatistic, optional
        Coordinate-wise robust statistic (default: the median).

    Returns
    -------
    ndarray, shape (..., d)

    Notes
    -----
    Lines 3-9 of Algorithm 2 set ``X_est[j] = Pi_[X_rs[j] - s, X_rs[j] + s](mean[j])`` when
    ``|X_rs[j] - mean[j]| >= s`` and ``mean[j]`` otherwise; both branches equal the clip below
    (the printed "Pi_{B(Y_{j,s})}" is garbled; it is this interval).

    .. math:: X_{est} = \\min(\\max(\\bar x, X_{rs} - \\varsigma), X_{rs} + \\varsigma)
    """
    q = np.asarray(gradients, dtype=float)
    stat = CoordinateMedian() if statistic is None else statistic
    rs = stat(q, axis=-2)  # [GKLM25, Alg. 2, line 3]
    mean = q.mean(axis=-2)  # [GKLM25, Alg. 2, line 3]
    return np.minimum(np.maximum(mean, rs - varsigma), rs + varsigma)  # [GKLM25, Alg. 2, lines 4-9]


@dataclass(frozen=True)
class RobustGradientEstimator:
    """Algorithm 2 of [GKLM25] as a frozen operator (deterministic; no privacy claim of its own).

    Its sensitivity under rho-alignment is ``4 rho + 2 varsigma`` in l_inf [GKLM25, Lemma 3.6].
    """

    varsigma: float
    statistic: RobustStatistic = field(default_factory=CoordinateMedian)

    def __post_init__(self) -> None:
        check_positive("RobustGradientEstimator", "varsigma", self.varsigma)
        if not isinstance(self.statistic, RobustStatistic):
            raise argument_error("RobustGradientEstimator", "statistic", "a RobustStatistic", self.statistic)

    def __call__(self, gradients: Any) -> NDArray[np.float64]:
        q = check_finite_array("RobustGradientEstimator", "gradients", gradients, min_ndim=2)
        return robust_gradient_estimate(q, self.varsigma, self.statistic)


def _score_pairwise(q: NDArray[np.float64], tau: float) -> NDArray[np.float64]:
    lead, b, d = q.shape[:-2], q.shape[-2], q.shape[-1]
    flat = q.reshape(-1, b, d)
    c = flat.shape[0]
    out = np.zeros(c)
    # memory blocks: all trials and as many rows of the B x B distance matrix as fit in the budget;
    # only if one row for every trial does not fit are the trials split as well
    cblock = max(1, min(c, _SCORE_BLOCK_BYTES // (8 * b)))
    rows = max(1, min(b, _SCORE_BLOCK_BYTES // (8 * b * cblock)))
    for c0 in range(0, c, cblock):
        fc = flat[c0 : c0 + cblock]
        for r0 in range(0, b, rows):
            blk = fc[:, r0 : r0 + rows]
            dist = np.zeros((fc.shape[0], blk.shape[1], b))
            for j in range(d):  # running l_inf distance, one coordinate at a time (no (c, r, B, d) array)
                np.maximum(dist, np.abs(blk[:, :, None, j] - fc[:, None, :, j]), out=dist)
            out[c0 : c0 + cblock] += np.exp(-tau * dist).sum(axis=(1, 2))
    return (out / b).reshape(lead)


def _score_sorted_1d(q: NDArray[np.float64], tau: float) -> NDArray[np.float64]:
    # d = 1: sum_j exp(-tau |a_i - a_j|) over j <= i is exp(-tau a_i) sum_{j<=i} exp(tau a_j) for
    # sorted a; computed in log space (logaddexp.accumulate) so that large tau*a cannot overflow.
    a = np.sort(q[..., 0], axis=-1)
    a *= tau
    b = a.shape[-1]
    acc = np.logaddexp.accumulate(a, axis=-1)
    acc -= a
    np.exp(acc, out=acc)
    return (2.0 * acc.sum(axis=-1) - b) / b  # full double sum = 2 * (pairs j < i) + B diagonal terms


def concentration_score(gradients: Any, tau: float, *, method: str = "auto") -> NDArray[np.float64]:
    """Smoothed concentration score, Eq. (3) of [GKLM25], for every leading index.

    .. math:: s = \\frac{1}{B} \\sum_{i=1}^{B} \\sum_{j=1}^{B} \\exp(-\\tau \\lVert q_i - q_j \\rVert_\\infty)

    The double sum includes the ``B`` diagonal terms, so ``s`` lies in ``[1, B]``.

    Parameters
    ----------
    gradients : array_like, shape (..., B, d)
    tau : float
        Inverse radius ``tau > 0``.
    method : {"auto", "pairwise", "sorted"}
        ``"pairwise"``: all ``B^2`` l_inf distances, ``O(B^2 d)``, in row blocks of bounded memory.
        ``"sorted"`` (``d = 1`` only): exact ``O(B log B)`` form via sorting and a log-space prefix
        sum. ``"auto"`` picks ``"sorted"`` when ``d = 1``.

    Returns
    -------
    ndarray, shape (...)
    """
    owner = "concentration_score"
    q = np.asarray(gradients, dtype=float)
    if q.ndim < 2 or q.shape[-2] < 1:
        raise argument_error(owner, "gradients", "an array shaped (..., B >= 1, d)", gradients)
    tau = check_positive(owner, "tau", tau)
    check_one_of(owner, "method", method, ("auto", "pairwise", "sorted"))
    if method == "sorted" and q.shape[-1] != 1:
        raise argument_error(owner, "method", f"'pairwise' or 'auto' for d = {q.shape[-1]} > 1 ('sorted' needs d = 1)", method)
    if method == "sorted" or (method == "auto" and q.shape[-1] == 1):
        return _score_sorted_1d(q, tau)
    return _score_pairwise(q, tau)


# ----------------------------------------------------------------------------------------------
# Algorithm 4, streaming and trial-vectorised
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StreamingAboveThreshold:
    """Algorithm 4 of [GKLM25] (mirrored AboveThreshold) fed one query per step, for many trials.

    Per trial: the noisy threshold ``Delta_hat = Delta - Lap(2 s / epsilon)`` is drawn once
    (:meth:`start`, Alg. 4 line 2); each step draws fresh ``nu_i ~ Lap(4 s / epsilon)`` and answers
    ⊥ and halts at the first ``q_i + nu_i < Delta_hat`` (lines 5-8), ⊤ otherwise; after halting the
    answers are ``NOT_REACHED``. ``s`` is the query sensitivity; the paper prints ``s = 1``. The
    scales are those of :class:`~dpaudit.mechanisms.sparse_vector.AboveThreshold`
    (``variant="ghazi2025"``), which is ``epsilon``-DP for sensitivity-``s`` streams [DR14, Thm 3.23].
    """

    epsilon: float
    threshold: float
    sensitivity: float = 1.0

    def __post_init__(self) -> None:
        owner = "StreamingAboveThreshold"
        check_positive(owner, "epsilon", self.epsilon)
        check_real(owner, "threshold", self.threshold)
        check_positive(owner, "sensitivity", self.sensitivity)

    @property
    def _reference(self) -> AboveThreshold:
        return AboveThreshold(self.epsilon, self.threshold, self.sensitivity, variant="ghazi2025")

    @property
    def threshold_scale(self) -> float:
        """``2 s / epsilon`` [GKLM25, Alg. 4, line 2], rounded up."""
        return self._reference.threshold_scale

    @property
    def query_scale(self) -> float:
        """``4 s / epsilon`` [GKLM25, Alg. 4, line 5], rounded up."""
        return self._reference.query_scale

    def start(self, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """Noisy thresholds ``Delta - Lap(2 s / epsilon)``, one per trial [GKLM25, Alg. 4, line 2]."""
        return self.threshold - rng.laplace(0.0, self.threshold_scale, size=size)

    def step(
        self, scores: Any, noisy_threshold: NDArray[np.float64], halted: NDArray[np.bool_], *, rng: np.random.Generator
    ) -> tuple[NDArray[np.int8], NDArray[np.bool_]]:
        """Answer one query per trial; returns ``(codes, halted)``.

        Query noise is drawn for every trial (also halted ones) so the stream of draws does not
        depend on the data.
        """
        s = np.asarray(scores, dtype=float)
        noisy = s + rng.laplace(0.0, self.query_scale, size=s.shape)  # [GKLM25, Alg. 4, line 5]
        below = noisy < noisy_threshold  # [GKLM25, Alg. 4, line 6]
        codes = np.where(halted, np.int8(NOT_REACHED), np.where(below, np.int8(BOTTOM), np.int8(TOP))).astype(np.int8)
        return codes, halted | below


# ----------------------------------------------------------------------------------------------
# Algorithm 1, deterministic part
# ----------------------------------------------------------------------------------------------


def _sgd_step(
    loss: Ghazi2025Loss,
    x: NDArray[np.float64],
    items: NDArray[np.float64],
    step_size: float,
    tau: float,
    varsigma: float,
    radius: float,
    statistic: RobustStatistic,
    with_score: bool = True,
) -> tuple[NDArray[np.float64], NDArray[np.float64] | None, NDArray[np.float64], NDArray[np.float64]]:
    """One step of Algorithm 1: ``(x_t, s_t, g_{t-1}, q_t)`` from ``x_{t-1}`` and the batch's items."""
    q = loss.mean_gradient(x[..., None, :], items)  # [GKLM25, Alg. 1, line 5]: (..., B, d)
    score = concentration_score(q, tau) if with_score else None  # [GKLM25, Eq. (3)]
    g = robust_gradient_estimate(q, varsigma, statistic)  # [GKLM25, Alg. 1, line 6]
    x_new = np.clip(x - step_size * g, -radius, radius)  # [GKLM25, Alg. 1, line 7]: Pi_X on the box
    return x_new, score, g, q


@dataclass(frozen=True, eq=False)
class SGDPath:
    """Trajectory of :func:`robust_sgd_path`: ``iterates[..., t-1, :] = x_t``, ``scores[..., t-1] = s_t``."""

    initial_point: NDArray[np.float64]
    iterates: NDArray[np.float64]
    scores: NDArray[np.float64]
    estimates: NDArray[np.float64]
    user_gradients: NDArray[np.float64]

    @property
    def average(self) -> NDArray[np.float64]:
        """``x_bar = (1/T) sum_t x_t`` [GKLM25, Alg. 1, line 11]."""
        return np.asarray(self.iterates.mean(axis=-2))


def robust_sgd_path(
    loss: Ghazi2025Loss,
    data: Any,
    initial_point: Any,
    *,
    step_size: float,
    tau: float,
    batch_size: int,
    radius: float,
    statistic: RobustStatistic | None = None,
    varsigma: float | None = None,
) -> SGDPath:
    """The SGD of Algorithm 1 of [GKLM25] (lines 4-8) without the test or any noise.

    Step ``t`` uses users ``(t-1) B, ..., t B - 1`` of ``data``; ``T = floor(n / B)``.

    Parameters
    ----------
    loss : Ghazi2025Loss
    data : array_like, shape (..., n_users, m_items, d + 1)
        Leading axes (e.g. a neighbouring pair stacked on axis 0) broadcast against ``initial_point``.
    initial_point : array_like, shape (..., d)
    step_size, tau : float
        ``eta`` and the inverse radius ``tau``.
    batch_size : int
        ``B``.
    radius : float
        ``D``; iterates are projected onto ``[-D, D]^d``.
    statistic : RobustStatistic, optional
        Default: coordinate-wise median.
    varsigma : float, optional
        Clip radius of Algorithm 2; default ``1/tau`` as in Algorithm 1, line 6.

    Returns
    -------
    SGDPath
        Iterates ``x_1..x_T``, scores ``s_1..s_T`` (at ``x_0..x_{T-1}``), estimates ``g_0..g_{T-1}``
        and user gradients ``(..., T, B, d)``.
    """
    owner = "robust_sgd_path"
    if not isinstance(loss, Ghazi2025Loss):
        raise argument_error(owner, "loss", "a Ghazi2025Loss", loss)
    z = check_finite_array(owner, "data", data, min_ndim=3)
    x0 = check_finite_array(owner, "initial_point", initial_point, min_ndim=1)
    eta = check_positive(owner, "step_size", step_size)
    tau = check_positive(owner, "tau", tau)
    b = check_int(owner, "batch_size", batch_size, minimum=1)
    dd = check_positive(owner, "radius", radius)
    vs = 1.0 / tau if varsigma is None else check_positive(owner, "varsigma", varsigma)
    stat = CoordinateMedian() if statistic is None else statistic
    if z.shape[-1] != x0.shape[-1] + 1:
        raise argument_error(owner, "data", f"items of length d + 1 = {x0.shape[-1] + 1}", data)
    steps = z.shape[-3] // b
    if steps < 1:
        raise argument_error(owner, "batch_size", f"at most n_users = {z.shape[-3]}", batch_size)
    x = np.asarray(x0, dtype=float)
    its, scs, ests, qs = [], [], [], []
    for t in range(steps):
        items = z[..., t * b : (t + 1) * b, :, :]
        x, s, g, q = _sgd_step(loss, x, items, eta, tau, vs, dd, stat)
        its.append(x)
        scs.append(s)
        ests.append(g)
        qs.append(q)
    return SGDPath(
        initial_point=np.asarray(x0, dtype=float),
        iterates=np.stack(its, axis=-2),
        scores=np.stack([sc for sc in scs if sc is not None], axis=-1),
        estimates=np.stack(ests, axis=-2),
        user_gradients=np.stack(qs, axis=-3),
    )


# ----------------------------------------------------------------------------------------------
# Parameters, conditions and the run record
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Condition:
    """One stated precondition or privacy requirement, evaluated for a configuration.

    ``enforced`` says whether the preset refuses configurations that violate it.
    """

    name: str
    citation: str
    value: float
    relation: str
    bound: float
    holds: bool
    enforced: bool

    def __str__(self) -> str:
        mark = "ok" if self.holds else "VIOLATED"
        return f"[{mark}] {self.name}: {self.value:.6g} {self.relation} {self.bound:.6g}  ({self.citation})"


def _condition(name: str, citation: str, value: float, relation: str, bound: float, enforced: bool) -> Condition:
    # one part in 1e12 of slack: both sides are computed in floating point
    tol = 1e-12 * max(1.0, abs(bound))
    holds = value <= bound + tol if relation == "<=" else value >= bound - tol
    return Condition(name, citation, float(value), relation, float(bound), bool(holds), enforced)


@dataclass(frozen=True)
class Ghazi2025Parameters:
    """Every resolved parameter of one configuration (per phase where it varies), and its conditions."""

    algorithm: str
    preset: str
    n_users: int
    m_items: int
    dim: int
    epsilon: float
    delta: float
    radius: float
    gradient_bound: float
    smoothness: float
    batch_size: int
    phases: int
    phase_users: tuple[int, ...]
    phase_steps: tuple[int, ...]
    step_size: float
    phase_step_sizes: tuple[float, ...]
    tau: float
    varsigma: float
    alignment_radius: float
    phase_thresholds: tuple[float, ...]
    at_epsilon: float
    at_sensitivity: float
    threshold_scale: float
    query_scale: float
    phase_linf_sensitivities: tuple[float, ...]
    phase_sigmas: tuple[float, ...]
    gaussian_epsilon: float
    gaussian_delta: float
    project_between_phases: bool
    project_output: bool
    conditions: tuple[Condition, ...]

    @property
    def users_used(self) -> int:
        return int(sum(self.phase_users))

    @property
    def gradient_evaluations(self) -> int:
        """Gradient computations per trial: ``m`` per used user [GKLM25, Thm 3.1: "mn"]."""
        return self.users_used * self.m_items

    @property
    def score_pair_terms(self) -> int:
        """Terms of Eq. (3) evaluated per trial: ``B^2`` per step."""
        return int(sum(self.phase_steps)) * self.batch_size**2

    def failed_conditions(self) -> tuple[Condition, ...]:
        return tuple(c for c in self.conditions if not c.holds)

    def report(self) -> str:
        """Conditions as text, one per line."""
        return "\n".join(str(c) for c in self.conditions)


@dataclass(frozen=True, eq=False)
class Ghazi2025Run:
    """Outputs of :meth:`RobustStatsLocalization.sample_with_info` and what the run did.

    ``passed[i, s]``: trial ``i`` passed every concentration test of phase ``s``;
    ``halt_step[i, s]``: the 0-based step of phase ``s`` at which AboveThreshold answered ⊥, or -1.
    ``gradient_evaluations`` counts calls of the per-item gradient per trial;
    ``score_pair_terms`` counts the ``B^2`` terms of Eq. (3) per step per trial (the score's work,
    counted separately); ``user_gradient_evaluations[u]`` is how many item gradients of user ``u``
    one trial computed (``None`` when ``shuffle=True``: then it differs per trial).
    """

    outputs: NDArray[np.float64]
    passed: NDArray[np.bool_]
    halt_step: NDArray[np.int64]
    gradient_evaluations: int
    score_pair_terms: int
    user_gradient_evaluations: NDArray[np.int64] | None
    parameters: Ghazi2025Parameters


# ----------------------------------------------------------------------------------------------
# The mechanisms
# ----------------------------------------------------------------------------------------------

_PAPER_FLAW = (
    "preset='paper' follows [GKLM25] as printed: no 6*beta*eta*B <= 1 (Lemma 3.9), AboveThreshold noise "
    "calibrated for score sensitivity 1 instead of 2, and nu = 0.9B + 2ln(T/delta)/eps; it is not "
    "(epsilon, delta)-DP in general (see the paper-000 note, Sec. 8)"
)


@dataclass(frozen=True)
class _Ghazi2025Base(MechanismBase):
    """Fields and parameter resolution shared by Algorithm 1 (+noise) and Algorithm 5."""

    loss: Ghazi2025Loss
    epsilon: float
    delta: float
    radius: float = 1.0
    preset: str = "safe"
    batch_size: int | None = None
    step_size: float | None = None
    tau: float | None = None
    threshold: float | None = None
    tau_constant: float = 40.0
    statistic: RobustStatistic = field(default_factory=CoordinateMedian)
    initial_point: tuple[float, ...] | None = None
    shuffle: bool = False
    project_output: bool | None = None

    _algorithm = "base"

    @property
    def _owner(self) -> str:
        return type(self).__name__

    def __post_init__(self) -> None:
        owner = self._owner
        if not isinstance(self.loss, Ghazi2025Loss):
            raise argument_error(owner, "loss", "a Ghazi2025Loss (Assumptions 2.4-2.5 of [GKLM25] declared)", self.loss,
                                 fix="use LinearLoss, SeparableHuberLoss or DiagonallyDominantQuadratic.")
        if isinstance(self.loss, DiagonallyDominantQuadratic) and not (self.loss.is_diagonally_dominant and self.loss.is_psd):
            raise argument_error(owner, "loss", "convex with a diagonally dominant Hessian (Assumptions 2.4-2.5 of [GKLM25])",
                                 self.loss)
        check_in_range(owner, "epsilon", self.epsilon, 0.0, 1.0, low_closed=False)
        check_probability(owner, "delta", self.delta, allow_zero=False)
        check_positive(owner, "radius", self.radius)
        check_one_of(owner, "preset", self.preset, PRESETS)
        if self.batch_size is not None:
            check_int(owner, "batch_size", self.batch_size, minimum=4 if self.preset == "safe" else 2)
        if self.step_size is not None:
            check_positive(owner, "step_size", self.step_size)
        if self.tau is not None:
            check_positive(owner, "tau", self.tau)
        if self.threshold is not None:
            check_real(owner, "threshold", self.threshold)
        check_positive(owner, "tau_constant", self.tau_constant)
        if not isinstance(self.statistic, RobustStatistic):
            raise argument_error(owner, "statistic", "a RobustStatistic", self.statistic)
        if self.initial_point is not None:
            x0 = check_finite_array(owner, "initial_point", self.initial_point, ndim=1)
            if x0.size < 1 or np.abs(x0).max() > self.radius:
                raise argument_error(owner, "initial_point", f"a point of [-radius, radius]^d with radius={self.radius:g}",
                                     self.initial_point)
            object.__setattr__(self, "initial_point", tuple(float(v) for v in x0))
        if not isinstance(self.shuffle, bool):
            raise argument_error(owner, "shuffle", "a bool", self.shuffle)
        if self.project_output is not None and not isinstance(self.project_output, bool):
            raise argument_error(owner, "project_output", "a bool or None", self.project_output)
        self._check_extra()
        if self.preset == "paper":
            warnings.warn(f"{owner}(preset='paper') is deliberately unsound: {_PAPER_FLAW}", UnsoundMechanismWarning,
                          stacklevel=3)

    def _check_extra(self) -> None:
        """Subclass hook for extra field checks."""

    # -- parameter resolution ------------------------------------------------------------------

    def _phase_layout(self, n: int, b: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        raise NotImplementedError

    def _decay(self, m: int) -> float:
        raise NotImplementedError

    def parameters(self, n_users: int, m_items: int, dim: int) -> Ghazi2025Parameters:
        """Resolve every parameter for ``n_users`` users of ``m_items`` items in ``dim`` dimensions.

        Raises :class:`~dpaudit.errors.InvalidArgument` when the configuration is structurally
        impossible (too few users) or, under ``preset="safe"``, violates a privacy requirement.
        """
        owner = self._owner
        n = check_int(owner, "n_users", n_users, minimum=1)
        m = check_int(owner, "m_items", m_items, minimum=1)
        d = check_int(owner, "dim", dim, minimum=1)
        eps, delta, big_d = float(self.epsilon), float(self.delta), float(self.radius)
        safe = self.preset == "safe"
        g_lip = float(self.loss.gradient_bound(big_d))
        beta = float(self.loss.smoothness_constant)
        nmd = n * m * d
        b = self.batch_size if self.batch_size is not None else math.ceil(100.0 * math.log(nmd / delta) / eps)  # [GKLM25, Thm 3.1]
        if self.batch_size is None and safe:
            b = max(b, 4)
        users, steps = self._phase_layout(n, b)
        n_phases = len(users)
        # step size [GKLM25, Thm 3.1] (sqrt(m)*eps read as in Lemma 3.12, Note000 A5)
        eta_thm = (big_d / g_lip) * min(b * math.sqrt(m) / math.sqrt(n),
                                        math.sqrt(m) * eps / math.sqrt(d * math.log(1.0 / delta) * math.log(nmd)))
        if self.step_size is not None:
            eta = float(self.step_size)
        elif safe and beta > 0:
            eta = min(eta_thm, 1.0 / (6.0 * beta * b))  # [GKLM25, Lemma 3.9] precondition (Note000 A2)
        else:
            eta = eta_thm
        kappa = self._decay(m)
        etas = tuple(eta * kappa ** (-(s + 1)) if kappa != 1.0 else eta for s in range(n_phases))
        # tau: inverse radius (Note000 A1)
        # omega = (nmd)^-3 [GKLM25, before Lemma 3.12]; ln(x/omega) = ln(x) + 3 ln(nmd) (no underflow)
        if self.tau is not None:
            tau = float(self.tau)
        elif safe:
            hoeffding = g_lip * math.sqrt(2.0 * (math.log(2.0 * n * d) + 3.0 * math.log(nmd)) / m)  # ln(2nd/omega)
            tau = 1.0 / (self.tau_constant * hoeffding)
        else:
            tau = g_lip * (math.log(nmd) + 3.0 * math.log(nmd)) / math.sqrt(m)  # [GKLM25, Lemma 3.11]: ln(nmd/omega)
        varsigma = 1.0 / tau  # [GKLM25, Alg. 1, line 6]
        # AboveThreshold inside Algorithm 3: epsilon/2 [GKLM25, Alg. 3, line 4]
        at_eps = eps / 2.0
        at_sens = 2.0 if safe else 1.0  # Eq. (4), Lemma 3.9 (safe) vs Alg. 4 / Lemma A.3 (paper)
        at_ref = StreamingAboveThreshold(at_eps, 0.0, at_sens)
        b_th, b_q = at_ref.threshold_scale, at_ref.query_scale
        nu_min = LEMMA_3_8_SCORE_CEILING * b + (b_q + b_th) * math.log(2.0 * math.exp(eps) / delta)  # Note000 Sec. 2.8
        nus = []
        for t_s in steps:
            nu_paper = 0.9 * b + 2.0 * math.log(t_s / delta) / eps  # [GKLM25, Thm 3.1]
            if self.threshold is not None:
                nus.append(float(self.threshold))
            else:
                nus.append(max(nu_paper, nu_min) if safe else nu_paper)
        # Gaussian output perturbation [GKLM25, Alg. 5, line 7; Prop. A.2; proof of Lemma 3.10]
        g_eps, g_delta = eps / 2.0, delta / (2.0 * math.exp(eps))
        sens_inf = tuple(e_s * (4.0 * varsigma + 2.0 * varsigma) for e_s in etas)  # [GKLM25, Lemma 3.6]: eta(4 rho + 2 vs)
        sigmas = tuple(gaussian_sigma_classical(math.sqrt(d) * s_inf, g_eps, g_delta) for s_inf in sens_inf)
        project_out = safe if self.project_output is None else bool(self.project_output)
        conds = self._conditions(n, m, d, b, steps, eta, eta_thm, etas, beta, g_lip, nus, nu_min, at_sens, safe)
        params = Ghazi2025Parameters(
            algorithm=self._algorithm, preset=self.preset, n_users=n, m_items=m, dim=d, epsilon=eps, delta=delta,
            radius=big_d, gradient_bound=g_lip, smoothness=beta, batch_size=b, phases=n_phases, phase_users=users,
            phase_steps=steps, step_size=eta, phase_step_sizes=etas, tau=tau, varsigma=varsigma,
            alignment_radius=varsigma, phase_thresholds=tuple(nus), at_epsilon=at_eps, at_sensitivity=at_sens,
            threshold_scale=b_th, query_scale=b_q, phase_linf_sensitivities=sens_inf, phase_sigmas=sigmas,
            gaussian_epsilon=g_eps, gaussian_delta=g_delta, project_between_phases=safe, project_output=project_out,
            conditions=conds,
        )
        if safe:
            self._enforce(params, nu_min)
        return params

    def _conditions(self, n: int, m: int, d: int, b: int, steps: tuple[int, ...], eta: float, eta_thm: float,
                    etas: tuple[float, ...], beta: float, g_lip: float, nus: list[float], nu_min: float,
                    at_sens: float, safe: bool) -> tuple[Condition, ...]:
        eps, delta, big_d = float(self.epsilon), float(self.delta), float(self.radius)
        nmd = n * m * d
        out = [
            _condition("n >= ln^2(nd/delta)/epsilon", "GKLM25 Thm 3.1", n, ">=", math.log(n * d / delta) ** 2 / eps, False),
            _condition("beta <= (G/D)(sqrt(n) eps/(sqrt(m) ln(nmd/delta)) + sqrt(d ln(1/delta) ln(nmd))/(sqrt(m) eps))",
                       "GKLM25 Thm 3.1", beta, "<=",
                       (g_lip / big_d) * (math.sqrt(n) * eps / (math.sqrt(m) * math.log(nmd / delta))
                                          + math.sqrt(d * math.log(1 / delta) * math.log(nmd)) / (math.sqrt(m) * eps)), False),
            _condition("eta <= (D/G) min{B sqrt(m)/sqrt(n), sqrt(m) eps/sqrt(d ln(1/delta) ln(nmd))}", "GKLM25 Thm 3.1",
                       eta, "<=", eta_thm, False),
            _condition("B >= 4", "Note000 A13 (Lemma 3.6 needs a common good point)", b, ">=", 4, safe),
            _condition(f"AboveThreshold calibrated for score sensitivity (s = {at_sens:g})",
                       "GKLM25 Eq. (4), Lemma 3.9 vs Alg. 4 (Note000 A3)", at_sens, ">=", 2.0, safe),
            _condition("robust statistic keeps the (2B/3)-break point (i')", "GKLM25 Assumption 3.3(i), Remark 3.4",
                       float(self.statistic.satisfies_alignment_break_point(b)), ">=", 1.0, safe),
        ]
        for s, (t_s, e_s, nu) in enumerate(zip(steps, etas, nus, strict=True), start=1):
            out.append(_condition(f"phase {s}: B >= 100 ln(T_s/delta)/eps", "GKLM25 Lemma 3.10", b, ">=",
                                  100 * math.log(t_s / delta) / eps, False))
            out.append(_condition(f"phase {s}: beta * eta_s <= 2", "GKLM25 Lemma 3.2", beta * e_s, "<=", 2.0, safe))
            out.append(_condition(f"phase {s}: 6 beta eta_s B <= 1", "GKLM25 Lemma 3.9 (Note000 A2)", 6 * beta * e_s * b,
                                  "<=", 1.0, safe))
            out.append(_condition(f"phase {s}: nu_s >= c0 B + (b_q + b_th) ln(2 e^eps/delta)",
                                  "GKLM25 Lemma 3.8 with 2B/3 (Note000 A6, Sec. 2.8)", nu, ">=", nu_min, safe))
        return tuple(out)

    def _enforce(self, params: Ghazi2025Parameters, nu_min: float) -> None:
        owner = self._owner
        b = params.batch_size
        for c in params.conditions:
            if not c.enforced or c.holds:
                continue
            if "6 beta eta_s B" in c.name or "beta * eta_s" in c.name:
                # eta_s = eta * kappa^-s is largest in phase 1, so the cap on the base step size is
                allowed = (params.step_size / max(params.phase_step_sizes)) / (6.0 * params.smoothness * b)
                raise argument_error(owner, "step_size", f"at most {allowed:.6g} so that 6*beta*eta_s*B <= 1 in every phase "
                                     f"(beta={params.smoothness:g}, B={b}) under preset='safe' [GKLM25, Lemma 3.9]",
                                     self.step_size)
            if "nu_s" in c.name:
                raise argument_error(owner, "threshold", f"at least c0*B + (b_q + b_th)*ln(2e^eps/delta) = {nu_min:.6g} "
                                     "under preset='safe' [GKLM25, Lemma 3.8; note Sec. 2.8]", self.threshold)
            if "break point" in c.name:
                raise argument_error(owner, "statistic", f"a robust statistic with the 2B/3 break point at B={b} "
                                     "[GKLM25, Assumption 3.3(i); Remark 3.4 is false for light trimming]", self.statistic,
                                     fix="use CoordinateMedian() or TrimmedMean() (trim >= floor(B/3)).")
            raise argument_error(owner, "batch_size", f"satisfying: {c.name} [{c.citation}]", b)  # pragma: no cover

    # -- sampling ------------------------------------------------------------------------------

    def claimed_guarantee(self) -> ApproxDP:
        """``(epsilon, delta)``-DP under user-level replacement [GKLM25, Lemma 3.10, Thm 3.1]."""
        return ApproxDP(self.epsilon, self.delta, UserReplace())

    def _validated_data(self, data: Any, owner: str) -> NDArray[np.float64]:
        z = as_user_dataset(data, owner, "data", item_ndim=1)
        if z.shape[2] < 2:
            raise argument_error(owner, "data", "items of length d + 1 >= 2 (features and a label/weight)", data)
        if self.initial_point is not None and len(self.initial_point) != z.shape[2] - 1:
            raise argument_error(owner, "initial_point", f"of length d = {z.shape[2] - 1} (the data's dimension)",
                                 self.initial_point)
        check_ghazi2025_assumptions(self.loss, z, self.radius).raise_if_violated(owner, data)
        return z

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` independent outputs ``x_S`` (shape ``(size, d)``) on ``data`` ``(n_users, m_items, d + 1)``."""
        return self.sample_with_info(data, size, rng=rng).outputs

    def sample_with_info(self, data: Any, size: int, *, rng: np.random.Generator) -> Ghazi2025Run:
        """Like :meth:`sample`, with the test outcomes and the work counts of the run.

        Trials are processed in sub-batches of bounded memory; all draws come from ``rng`` in a fixed
        order (per sub-batch: permutation if ``shuffle``; per phase: thresholds, one query-noise
        vector per step, then the Gaussian noise), so the result is a function of ``rng``.
        """
        owner = f"{self._owner}.sample"
        z = self._validated_data(data, owner)
        size = check_size(owner, size)
        n, m, d = z.shape[0], z.shape[1], z.shape[2] - 1
        p = self.parameters(n, m, d)
        x0 = np.zeros(d) if self.initial_point is None else np.asarray(self.initial_point, dtype=float)
        per_trial = 8 * p.batch_size * m * (d + 1) * (3 if self.shuffle else 2) + 8 * (n if self.shuffle else 0)
        chunk = int(max(1, min(size, _TRIAL_BLOCK_BYTES // max(1, per_trial))))
        outs, passed, halts = [], [], []
        grad_evals = score_terms = 0
        user_counts = np.zeros(n, dtype=np.int64)
        for start in range(0, size, chunk):
            c = min(chunk, size - start)
            out, ok, halt, ge, st, uc = self._run_chunk(z, p, x0, c, rng)
            outs.append(out)
            passed.append(ok)
            halts.append(halt)
            if start == 0:
                grad_evals, score_terms, user_counts = ge, st, uc
        return Ghazi2025Run(
            outputs=np.concatenate(outs, axis=0),
            passed=np.concatenate(passed, axis=0),
            halt_step=np.concatenate(halts, axis=0),
            gradient_evaluations=grad_evals,
            score_pair_terms=score_terms,
            user_gradient_evaluations=None if self.shuffle else user_counts,
            parameters=p,
        )

    def _run_chunk(
        self, z: NDArray[np.float64], p: Ghazi2025Parameters, x0: NDArray[np.float64], c: int, rng: np.random.Generator
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.int64], int, int, NDArray[np.int64]]:
        n, m = z.shape[0], z.shape[1]
        b = p.batch_size
        perm = np.argsort(rng.random((c, n)), axis=1) if self.shuffle else None  # data-independent assignment
        x_start = np.broadcast_to(x0, (c, x0.size)).copy()
        passed = np.zeros((c, p.phases), dtype=bool)
        halt_step = np.full((c, p.phases), -1, dtype=np.int64)
        grad_evals = score_terms = 0
        user_counts = np.zeros(n, dtype=np.int64)
        offset = 0
        out = x_start
        for s in range(p.phases):
            t_s, eta_s = p.phase_steps[s], p.phase_step_sizes[s]
            at = StreamingAboveThreshold(p.at_epsilon, p.phase_thresholds[s], p.at_sensitivity)  # [GKLM25, Alg. 3, line 1]
            noisy_threshold = at.start(c, rng=rng)
            halted = np.zeros(c, dtype=bool)
            x = x_start.copy()
            acc = np.zeros_like(x)
            for t in range(t_s):
                cols = np.arange(offset + t * b, offset + (t + 1) * b)
                items = z[perm[:, cols]] if perm is not None else z[cols]  # (c, B, m, d+1) or (B, m, d+1)
                x, score, _, _ = _sgd_step(self.loss, x, items, eta_s, p.tau, p.varsigma, p.radius, self.statistic)
                grad_evals += b * m  # B users x m items: the per-item gradients of [GKLM25, Alg. 1, line 5]
                score_terms += b * b  # the B^2 terms of Eq. (3)
                if perm is None:
                    user_counts[cols] += m
                _, now_halted = at.step(score, noisy_threshold, halted, rng=rng)  # [GKLM25, Alg. 3, line 5]
                halt_step[now_halted & ~halted, s] = t
                halted = now_halted
                acc += x
            offset += p.phase_users[s]
            passed[:, s] = ~halted
            xbar = np.where(halted[:, None], x_start, acc / t_s)  # [GKLM25, Alg. 1, lines 10-15]
            out = xbar + rng.normal(0.0, p.phase_sigmas[s], size=xbar.shape)  # [GKLM25, Alg. 5, line 7]
            x_start = np.clip(out, -p.radius, p.radius) if p.project_between_phases else out  # Note000 A10 (safe)
        if p.project_output:
            out = np.clip(out, -p.radius, p.radius)  # post-processing (Note000 A10)
        return out, passed, halt_step, grad_evals, score_terms, user_counts


@dataclass(frozen=True)
class RobustStatsSGD(_Ghazi2025Base):
    """Algorithm 1 of [GKLM25] plus the Gaussian output perturbation of Algorithm 5, line 7.

    One phase over all users: ``T = floor(n/B)`` steps of ``B`` users; the concentration test
    (Algorithm 3 on Algorithm 4) on every step's batch; output ``x_bar + N(0, sigma^2 I_d)`` where
    ``x_bar`` is the average iterate if every test passed and ``x_0`` otherwise. This is one phase of
    :class:`RobustStatsLocalization` with ``eta_1 = eta`` (no decay) and is
    ``(epsilon, delta)``-user-level DP under ``preset="safe"`` by the argument of Lemma 3.10.

    Parameters
    ----------
    loss : Ghazi2025Loss
        Per-item loss with declared ``G`` and ``beta`` (Assumptions 2.4-2.5).
    epsilon : float
        In ``(0, 1]`` ("epsilon <= O(1)", Thm 3.1; read as 1).
    delta : float
        In ``(0, 1)``.
    radius : float
        ``D``: the domain is ``[-D, D]^d``.
    preset : {"safe", "paper"}
        See the module docstring.
    batch_size : int, optional
        ``B``; default ``ceil(100 ln(mnd/delta)/eps)`` [Thm 3.1].
    step_size : float, optional
        ``eta``; default from Thm 3.1 (and, when safe, capped at ``1/(6 beta B)``).
    tau : float, optional
        Inverse radius of the score and of the clip (``varsigma = rho = 1/tau``).
    threshold : float, optional
        ``nu`` for every phase; safe: must be at least ``c0 B + (b_q + b_th) ln(2 e^eps/delta)``.
    tau_constant : float
        ``C_tau`` of the safe ``1/tau = C_tau * (Hoeffding radius)`` (utility only).
    statistic : RobustStatistic
        Default: coordinate-wise median.
    initial_point : sequence of float, optional
        ``x_0`` in the box; default the origin.
    shuffle : bool
        Draw a random assignment of users to steps per trial (default: consecutive users).
    project_output : bool, optional
        Project the released point onto the box (default: safe yes, paper no).

    Examples
    --------
    >>> import numpy as np
    >>> from dpaudit.userlevel.ghazi2025_losses import LinearLoss
    >>> rng = np.random.default_rng(0)
    >>> data = np.zeros((40, 2, 2)); data[:, :, 0] = 0.5
    >>> mech = RobustStatsSGD(LinearLoss(1.0), epsilon=1.0, delta=1e-3, batch_size=10)
    >>> mech.sample(data, 3, rng=rng).shape
    (3, 1)
    """

    _algorithm = "Algorithm 1 + output perturbation"

    def _phase_layout(self, n: int, b: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        if n < b:
            raise argument_error(self._owner, "data", f"at least B = {b} users (one batch) [GKLM25, Alg. 1]", n)
        return (b * (n // b),), (n // b,)

    def _decay(self, m: int) -> float:
        return 1.0


@dataclass(frozen=True)
class RobustStatsLocalization(_Ghazi2025Base):
    """Algorithm 5 of [GKLM25]: localization over ``S`` phases of Algorithm 1 with output noise.

    Phase ``s = 1..S`` runs :class:`RobustStatsSGD`'s phase on fresh users (about ``n/2^s`` of them;
    the last phase takes every remaining full batch) with step size ``eta_s`` from ``x_{s-1}`` and
    releases ``x_s = x_bar_s + N(0, sigma_s^2 I_d)``; the output is ``x_S``. Users are never reused,
    so the phases compose in parallel and the mechanism is ``(epsilon, delta)``-user-level DP under
    ``preset="safe"`` [GKLM25, Lemma 3.10, with the note's fixes]. All parameters are those of
    :class:`RobustStatsSGD`, plus ``phases`` (default ``floor(log2(n/B))``, Note000 A7).

    Examples
    --------
    >>> import numpy as np
    >>> from dpaudit.userlevel.ghazi2025_losses import LinearLoss
    >>> mech = RobustStatsLocalization(LinearLoss(1.0), epsilon=1.0, delta=1e-3, batch_size=10)
    >>> p = mech.parameters(80, 2, 1)
    >>> p.phases, p.phase_users, p.gradient_evaluations
    (3, (40, 20, 20), 160)
    """

    phases: int | None = None
    _algorithm = "Algorithm 5"

    def _check_extra(self) -> None:
        if self.phases is not None:
            check_int(self._owner, "phases", self.phases, minimum=1)

    def _phase_layout(self, n: int, b: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        owner = self._owner
        if n < 2 * b:
            raise argument_error(owner, "data", f"at least 2B = {2 * b} users (phase 1 uses n/2) [GKLM25, Alg. 5]", n)
        max_phases = math.floor(math.log2(n / b))  # S = floor(log2(n/B)) (Note000 A7)
        while b * 2 ** (max_phases + 1) <= n:  # guard against log2 rounding
            max_phases += 1
        while max_phases > 1 and b * 2**max_phases > n:
            max_phases -= 1
        s_count = max_phases if self.phases is None else self.phases
        if s_count > max_phases:
            raise argument_error(owner, "phases", f"at most floor(log2(n/B)) = {max_phases} for n={n}, B={b}", self.phases)
        users = [b * (n // (2**s * b)) for s in range(1, s_count)]  # n_s = n/2^s in full batches [GKLM25, Alg. 5, line 4]
        users.append(b * ((n - sum(users)) // b))  # last phase: every remaining full batch
        return tuple(users), tuple(u // b for u in users)

    def _decay(self, m: int) -> float:
        if self.preset == "safe":
            return max(math.log(m), 4.0)  # kappa (Note000 A8)
        if m < 2:
            raise argument_error(self._owner, "data", "users with m_items >= 2 under preset='paper' "
                                 "(eta_s = eta (ln m)^-s [GKLM25, Alg. 5, line 4] is undefined for m = 1)", m)
        return math.log(m)  # [GKLM25, Alg. 5, line 4]


@dataclass(frozen=True)
class ConcentrationTest(MechanismBase):
    """Algorithm 3 of [GKLM25] (on Algorithm 4) with the queries evaluated at a fixed public point.

    ``data`` ``(T B, m, d + 1)`` is split into ``T`` consecutive batches of ``B`` users; step ``t``
    feeds the score (Eq. (3)) of batch ``t``'s user gradients at ``query_point`` to one
    AboveThreshold instance with privacy parameter ``epsilon/2`` and threshold ``threshold``.
    Output: codes ``(size, T)`` (``TOP = 1``, ``BOTTOM = 0``, ``NOT_REACHED = -1``).

    Replacing one user changes one batch's score, by at most ``2 - 2/B`` (Eq. (4)), so with the
    safe calibration (sensitivity 2) the output is ``epsilon/2``-DP. With the paper's
    sensitivity-1 calibration a single changed query still costs at most ``2/b_q = epsilon/4``;
    the factor 2 of erratum A3 only bites when every later score moves (Lemma 3.9), i.e. inside
    Algorithm 1.
    """

    loss: Ghazi2025Loss
    epsilon: float
    threshold: float
    tau: float
    batch_size: int
    query_point: tuple[float, ...] | None = None
    preset: str = "safe"

    def __post_init__(self) -> None:
        owner = "ConcentrationTest"
        if not isinstance(self.loss, Ghazi2025Loss):
            raise argument_error(owner, "loss", "a Ghazi2025Loss", self.loss)
        check_positive(owner, "epsilon", self.epsilon)
        check_real(owner, "threshold", self.threshold)
        check_positive(owner, "tau", self.tau)
        check_int(owner, "batch_size", self.batch_size, minimum=1)
        check_one_of(owner, "preset", self.preset, PRESETS)
        if self.query_point is not None:
            qp = check_finite_array(owner, "query_point", self.query_point, ndim=1)
            object.__setattr__(self, "query_point", tuple(float(v) for v in qp))

    @property
    def above_threshold(self) -> StreamingAboveThreshold:
        """Algorithm 4 with ``epsilon/2`` [GKLM25, Alg. 3, line 4]; sensitivity 2 (safe) or 1 (paper)."""
        return StreamingAboveThreshold(self.epsilon / 2.0, self.threshold, 2.0 if self.preset == "safe" else 1.0)

    def scores(self, data: Any) -> NDArray[np.float64]:
        """The ``T`` scores (no noise)."""
        owner = "ConcentrationTest.scores"
        z = as_user_dataset(data, owner, "data", item_ndim=1)
        n, d = z.shape[0], z.shape[2] - 1
        if n % self.batch_size:
            raise argument_error(owner, "data", f"a multiple of batch_size = {self.batch_size} users", n)
        x = np.zeros(d) if self.query_point is None else np.asarray(self.query_point)
        if x.size != d:
            raise argument_error(owner, "query_point", f"of length d = {d}", self.query_point)
        batches = z.reshape(n // self.batch_size, self.batch_size, *z.shape[1:])
        q = self.loss.mean_gradient(np.broadcast_to(x, (batches.shape[0], 1, d)), batches)
        return concentration_score(q, self.tau)

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.int8]:
        size = check_size("ConcentrationTest.sample", size)
        s = self.scores(data)
        at = self.above_threshold
        thr = at.start(size, rng=rng)
        halted = np.zeros(size, dtype=bool)
        codes = np.empty((size, s.size), dtype=np.int8)
        for t in range(s.size):
            codes[:, t], halted = at.step(np.full(size, s[t]), thr, halted, rng=rng)
        return codes

    def claimed_guarantee(self) -> PureDP:
        """``epsilon/2``-DP under user replacement: AboveThreshold's share of Algorithm 3's budget."""
        return PureDP(self.epsilon / 2.0, UserReplace())
