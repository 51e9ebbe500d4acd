"""Algorithm 2's outlier test alone (lines 3-7), as a mechanism: the AboveThreshold transcript.

The privacy proof of Algorithm 3 charges the test answers ``{a_i^t}`` of one call of Algorithm 2
``epsilon/2`` through AboveThreshold (proof of Thm C.1, eq. (9); Lemma A.9): the scores have
sensitivity 2 when each user is in the minibatch at most once. :class:`MinibatchConcentrationTest`
releases exactly that transcript, summarised by the step at which the test halted, so that the
test can be audited against its own share of the budget, on a pair that stresses it. With a loss
whose gradients do not depend on the query point (a linear loss), this is Algorithm 2's test
sequence exactly; in general the query point is a fixed public point here.

References
----------
.. [LLA24] A. Lowy, D. Liu and H. Asi. Faster algorithms for user-level private stochastic convex
   optimization. NeurIPS 2024, Algorithm 2 lines 3-7, Algorithm 4, Lemma A.9, proof of Thm C.1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_in_range, check_int, check_positive
from dpaudit.guarantees import PureDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.mechanisms.sparse_vector import AboveThreshold
from dpaudit.neighbors.relations import UserReplace
from dpaudit.userlevel.losses import Loss
from dpaudit.userlevel.lowy2024.domain import PublicDomain
from dpaudit.userlevel.lowy2024.minibatch_sgd import MinibatchRules, _sample_users
from dpaudit.userlevel.lowy2024.outlier_removal import pairwise_sq_distances

__all__ = ["MinibatchConcentrationTest"]


@dataclass(frozen=True)
class MinibatchConcentrationTest(MechanismBase):
    """The test of Algorithm 2 [LLA24, lines 3-7]: ``epsilon``-DP (pure) under user replacement.

    Each of ``steps`` iterations samples ``batch_size`` users without replacement, scores their
    mean gradients at ``query_point`` with radius ``2 tau`` (line 6) and asks AboveThreshold
    (threshold ``threshold * K``, noise drawn once; query noise per step; sensitivity 2, so the
    scales are ``4/epsilon`` and ``8/epsilon``: the paper's ``Lap(8/eps)``, ``Lap(16/eps)`` at
    ``epsilon = eps/2``) whether to go on. Output: the 0-based step at which it halted, or
    ``steps`` if it never did (shape ``(size,)``).
    """

    loss: Loss
    epsilon: float
    tau: float
    steps: int
    batch_size: int
    threshold: float = 0.9
    radius: float = 1.0
    feature_bound: float = 1.0
    label_bound: float = 1.0
    query_point: tuple[float, ...] | None = None

    _rules: ClassVar[MinibatchRules] = MinibatchRules()

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_positive(owner, "epsilon", self.epsilon)
        check_positive(owner, "tau", self.tau)
        check_int(owner, "steps", self.steps, minimum=1)
        check_int(owner, "batch_size", self.batch_size, minimum=2)
        check_in_range(owner, "threshold", self.threshold, 0.0, 1.0, low_closed=False)
        PublicDomain(self.loss, self.radius, self.feature_bound, self.label_bound)

    @property
    def above_threshold(self) -> AboveThreshold:
        """Algorithm 4 on the negated scores (halt = ⊤), sensitivity 2 [LLA24, Alg 2 lines 4-7]."""
        return AboveThreshold(self.epsilon, -self.threshold * self.batch_size, sensitivity=2.0, variant="lowy2024")

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.int64]:
        """``size`` runs of the test: the 0-based step at which AboveThreshold halted, or ``steps`` if it never did, shape ``(size,)``."""
        owner = f"{type(self).__name__}.sample"
        dom = PublicDomain(self.loss, self.radius, self.feature_bound, self.label_bound)
        z = dom.validated(owner, data)
        size = check_size(owner, size)
        n, d = z.shape[0], z.shape[2] - 1
        if self.batch_size > n and not self._rules.with_replacement:
            raise argument_error(owner, "batch_size", f"at most n = {n} (users are sampled without replacement, F5)",
                                 self.batch_size)
        x = np.zeros(d) if self.query_point is None else np.asarray(self.query_point, dtype=float)
        if x.shape != (d,):
            raise argument_error(owner, "query_point", f"of length d = {d}", self.query_point)
        q_all = dom.user_mean_gradients(x, z)  # (n, d): q(Z)/L at the public point [Alg 2 line 5]
        # the score of a batch with multiplicities c_u is (1/K) sum_{u,v} c_u c_v 1(||q_u - q_v|| <= 2 tau) [Alg 2 line 6]
        adjacency = (pairwise_sq_distances(q_all) <= (2.0 * self.tau / dom.lipschitz) ** 2).astype(float)
        at = self.above_threshold
        k = self.batch_size
        out = np.empty(size, dtype=np.int64)
        chunk = max(1, min(size, (32 * 2**20) // (8 * 4 * n)))
        for start in range(0, size, chunk):
            c = min(chunk, size - start)
            noisy_threshold = at.start(c, rng=rng)  # once per run [Alg 2 line 4]
            halted = np.zeros(c, dtype=bool)
            step = np.full(c, self.steps, dtype=np.int64)
            full = k == n and not self._rules.with_replacement  # every user, once: the same score at every step
            full_score = adjacency.sum() / k
            uniform = np.full(n, 1.0 / n)
            for t in range(self.steps):
                if full:
                    score = np.full(c, full_score)
                else:
                    counts = self._batch_counts(rng, c, n, k, uniform)  # [Alg 2 line 3]
                    score = ((counts @ adjacency) * counts).sum(axis=1) / k  # s_i^t at 2 tau [Alg 2 line 6]
                if self._rules.redraw_threshold:
                    noisy_threshold = at.start(c, rng=rng)
                _, now = at.answer(-score, noisy_threshold, halted, rng=rng)  # [Alg 2 line 7]
                step[now & ~halted] = t
                halted = now
            out[start : start + c] = step
        return out

    def _batch_counts(self, rng: np.random.Generator, c: int, n: int, k: int,
                      uniform: NDArray[np.float64]) -> NDArray[np.float64]:
        """How often each user is in each trial's minibatch: a uniform ``K``-subset, or (P7) ``K`` draws with replacement."""
        if self._rules.with_replacement:  # Multinomial(K; 1/n, ..., 1/n) by successive binomials, vectorised over trials
            counts = np.empty((c, n))
            left = np.full(c, k, dtype=np.int64)
            for u in range(n - 1):
                counts[:, u] = rng.binomial(left, 1.0 / (n - u))
                left -= counts[:, u].astype(np.int64)
            counts[:, n - 1] = left
            return counts
        counts = np.zeros((c, n))
        np.put_along_axis(counts, _sample_users(rng, c, n, k, False), 1.0, axis=1)
        return counts

    def claimed_guarantee(self) -> PureDP:
        """``epsilon``-DP under user replacement [DR14, Thm 3.23 with sensitivity-2 scores; LLA24, eq. (9)]."""
        return PureDP(self.epsilon, UserReplace())
