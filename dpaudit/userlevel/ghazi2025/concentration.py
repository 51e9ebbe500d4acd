"""The concentration test of Ghazi, Kumar, Liu and Manurangsi (2025): Eq. (3), Algorithms 3 and 4.

* :func:`concentration_score`: the smoothed concentration score, Eq. (3);
* :class:`StreamingAboveThreshold`: Algorithm 4 (mirrored AboveThreshold) fed one score per step,
  vectorised over trials;
* :class:`ConcentrationTest`: Algorithm 3 at a fixed public query point, a mechanism.

References
----------
.. [GKLM25] B. Ghazi, R. Kumar, D. Liu and P. Manurangsi. Linear-time user-level DP-SCO via robust
   statistics. arXiv:2502.08889v1, 2025.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
.. [Note000] The readings, corrections and pitfalls of Ghazi, Kumar, Liu and Manurangsi (2025)
   kept in ``docs/papers/ghazi2025.md`` (readings A1-A14, pitfalls P1-P20).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import (
    argument_error,
    check_finite_array,
    check_int,
    check_one_of,
    check_positive,
    check_real,
)
from dpaudit.data import as_user_dataset
from dpaudit.guarantees import PureDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.mechanisms.sparse_vector import BOTTOM, NOT_REACHED, TOP, AboveThreshold
from dpaudit.neighbors.relations import UserReplace
from dpaudit.userlevel.domain import MAX_MAGNITUDE, check_magnitude, check_public_constant
from dpaudit.userlevel.ghazi2025.assumptions import check_ghazi2025_assumptions
from dpaudit.userlevel.ghazi2025.losses import Ghazi2025Loss
from dpaudit.userlevel.ghazi2025.parameters import PRESETS

__all__ = ["ConcentrationTest", "StreamingAboveThreshold", "concentration_score"]


_SCORE_BLOCK_BYTES = 32 * 2**20


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


@dataclass(frozen=True)
class ConcentrationTest(MechanismBase):
    """Algorithm 3 of [GKLM25] (on Algorithm 4) with the queries evaluated at a fixed public point.

    ``data`` ``(T B, m, d + 1)`` is split into ``T`` consecutive batches of ``B`` users; step ``t``
    feeds the score (Eq. (3)) of batch ``t``'s user gradients at ``query_point`` to one
    AboveThreshold instance with privacy parameter ``epsilon/2`` and threshold ``threshold``.
    Output: codes ``(size, T)`` (``TOP = 1``, ``BOTTOM = 0``, ``NOT_REACHED = -1``).

    Replacing one user changes one batch's score, by at most ``2 - 2/B`` (Eq. (4)), so with the
    safe calibration (sensitivity 2) the output is ``epsilon/2``-DP.

    Data must lie in the loss's declared universe and satisfy Assumptions 2.4-2.5 on the smallest
    box ``[-r, r]^d`` holding the query point (:func:`check_ghazi2025_assumptions`); otherwise the
    call is refused before any noise is drawn. Inside it every user gradient is finite (at most
    ``G`` in l_inf), so no finite input makes a score NaN (a user whose items are ``1e308`` under
    :class:`LinearLoss` would otherwise have an infinite gradient, and ``inf - inf = NaN`` in Eq. (3)
    would answer every query ⊤: a one-run distinguisher). With the paper's
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
        check_magnitude(owner, "epsilon", self.epsilon)
        if not abs(check_real(owner, "threshold", self.threshold)) <= MAX_MAGNITUDE:
            raise argument_error(owner, "threshold", "in [-2^960, 2^960] (so that no noisy comparison overflows)",
                                 self.threshold)
        check_magnitude(owner, "tau", self.tau)
        check_int(owner, "batch_size", self.batch_size, minimum=1)
        check_one_of(owner, "preset", self.preset, PRESETS)
        check_public_constant(owner, "epsilon", self.epsilon, "the query-noise scale 8 s / epsilon (s = 2)",
                              16.0 / self.epsilon)
        if self.query_point is not None:
            qp = check_finite_array(owner, "query_point", self.query_point, ndim=1)
            object.__setattr__(self, "query_point", tuple(float(v) for v in qp))
            check_public_constant(owner, "query_point", self.query_point, "the gradient bound G on the box holding it",
                                  float(self.loss.gradient_bound(self._box_radius())))
        check_public_constant(owner, "tau", self.tau, "tau times the largest l_inf distance 2G of two gradients",
                              2.0 * self.tau * float(self.loss.gradient_bound(self._box_radius())))

    def _box_radius(self) -> float:
        """``r = ||query_point||_inf`` (at least the smallest positive float): the smallest box holding the query point."""
        qp = np.zeros(1) if self.query_point is None else np.asarray(self.query_point)
        return max(float(np.abs(qp).max(initial=0.0)), float(np.finfo(float).tiny))

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
        # refuse data outside the declared domain up front [GKLM25, Assumptions 2.4-2.5]
        check_ghazi2025_assumptions(self.loss, z, self._box_radius()).raise_if_violated(owner, data)
        batches = z.reshape(n // self.batch_size, self.batch_size, *z.shape[1:])
        q = self.loss.mean_gradient(np.broadcast_to(x, (batches.shape[0], 1, d)), batches)
        return concentration_score(q, self.tau)

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.int8]:
        """``size`` runs of the test: AboveThreshold [GKLM25, Alg. 4] over the ``T`` scores of :meth:`scores`.

        Returns
        -------
        ndarray of int8
            Shape ``(size, T)``: ``TOP``, ``BOTTOM`` or ``NOT_REACHED`` per step.
        """
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
