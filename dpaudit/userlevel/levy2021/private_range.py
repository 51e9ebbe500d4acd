"""PrivateRange: a private interval of width ``O(tau)`` around concentrated 1-D data.

Levy et al. 2021 call ``PrivateRange(X^n, eps/2, tau, B)`` in Algorithm 1 and say it returns
``[a, b]`` with ``|b - a| = 4 tau`` using the approximate median of [FS17]; the algorithm itself
(their Algorithm 6, Appendix D.1) is **not in the seed text**. This module implements the
reconstruction of ``docs/papers/levy2021.md`` (ALG-A) **[RECON]**:

1. clamp every value to ``[-B, B]`` (public and deterministic; every *item* is clamped before a
   user's items are averaged, so no finite input overflows the mean);
2. tile ``[-B, B]`` with ``K = ceil(B / tau)`` bins of width ``2 tau``,
   ``I_k = [-B + 2 k tau, -B + 2 (k + 1) tau)`` (``k = 0 .. K-1``, the last one closed);
3. count the values in each bin;
4. choose a bin with the exponential mechanism, ``P(k) ∝ exp(eps_r cnt_k / 2)`` [MT07];
5. return ``[c_k - r, c_k + r]`` around the bin centre ``c_k``, with ``r = 2 tau`` (``mode="paper"``,
   the stated width ``4 tau``) or ``r = 3 tau`` (``mode="safe"``).

Why two modes
-------------
If the data lie in a ball of radius ``tau`` around some ``x_0`` they touch at most two adjacent
bins. A non-empty chosen bin ``[c - tau, c + tau)`` then forces every point into
``[c - 3 tau, c + 3 tau]``: the **safe** mode contains all the data whenever the chosen bin is
non-empty, and its failure probability is at most ``(K - 1) exp(-eps_r n / 4)``; with
``eps_r = eps / 2`` this is the ``(B / tau) exp(-n eps / 8)`` of Theorem 1 exactly. The **paper**
mode's width ``4 tau`` can clip up to half of the points even when a non-empty bin is chosen
(counterexample in ``docs/papers/levy2021.md``, ALG-A: ``tau = 1``, 60 points at 1.991 and 40 at 3.99
give ``[-1, 3]``). Both modes are equally private; the downstream Laplace noise must be
calibrated to the *actual* width ``2 r`` (``4 tau`` or ``6 tau``).

Privacy argument for the reconstruction
---------------------------------------
Replacing one value moves at most one point out of one bin and into another, so every count
changes by at most 1: ``max_k |cnt_k - cnt'_k| <= 1``. The exponential mechanism with utility
``cnt_k`` of sensitivity 1 and weights ``exp(eps_r cnt_k / 2)`` is ``eps_r``-DP (pure)
[MT07; DR14, Thm 3.10]. Clamping and binning are fixed public maps applied to each value
separately, so they do not change this sensitivity; the interval is a fixed function of the bin
(post-processing). This holds for *every* input, concentrated or not.

Exact sampling in ``O(n log n)`` per row, whatever ``K`` is: only the at most ``n`` non-empty bins
get their own Gumbel key ``eps_r cnt_k / 2 + G_k``; the ``K - q`` empty bins (weight 1 each) are
one group whose maximum Gumbel is ``log(K - q) + G`` (the maximum of ``j`` i.i.d. standard Gumbels
is a Gumbel shifted by ``log j``). Gumbel-max over log-weights samples the categorical law
exactly [Gumbel-max trick; DR14, Sec 3.4], works in log space (no ``exp(eps n / 2)`` overflow,
bug B4), and when the empty group wins a uniformly random empty bin is returned. Keep the
argmax out of it: the mechanism never branches on the data to abort, retry or fall back.

References
----------
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, arXiv:2102.11845 (Alg 1, Thm 1; Alg 6 is in App. D.1).
.. [FS17] V. Feldman and T. Steinke. Generalization for adaptively-chosen estimators via stable
   median. COLT 2017.
.. [MT07] F. McSherry and K. Talwar. Mechanism design via differential privacy. FOCS 2007.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray
from scipy import special

from dpaudit._validation import argument_error, check_finite_array, check_one_of
from dpaudit.guarantees import PureDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.neighbors.relations import UserReplace
from dpaudit.userlevel.domain import check_magnitude
from dpaudit.userlevel.levy2021.parameters import trial_chunks, user_means

__all__ = ["PrivateRange", "RangeMode"]

RangeMode = Literal["paper", "safe"]

#: Bins are indexed with int64 and an empty bin is drawn with ``Generator.integers``; keep K exact.
_MAX_BINS = 1 << 52


@dataclass(frozen=True)
class PrivateRange(MechanismBase):
    """Private interval around concentrated 1-D data (Levy et al. 2021, Algorithm 6) [RECON].

    Parameters
    ----------
    epsilon : float
        The budget ``eps_r`` of this call, in (0, 2^960]. Algorithm 1 passes ``eps / 2``.
    tau : float
        Concentration radius, in (0, 2^960]; public, never estimated from the data.
    bound : float
        Range ``B`` of the values, in (0, 2^960]; every item outside ``[-B, B]`` is clamped to it
        before the user's items are averaged (Algorithm 1 takes ``X^n in [-B, B]^n`` [LSA+21]). The
        clamp is a fixed per-item map, so the privacy argument below is unchanged, and any finite
        input is accepted (:mod:`dpaudit.userlevel.domain`).
    mode : {"safe", "paper"}
        Half-width ``3 tau`` (contains the data whenever the chosen bin is non-empty) or
        ``2 tau`` (the paper's width ``4 tau``, which can clip). See the module docstring.

    Notes
    -----
    ``sample(data, size, rng=rng)`` takes a user-level dataset of shape ``(n_users, m_items)``,
    reduces each user to the mean of their items (one value per user) and returns ``size``
    intervals as rows ``[a, b]`` of a ``(size, 2)`` array. The claim is
    ``PureDP(epsilon, UserReplace())`` for every input.

    .. math:: P(k) \\propto \\exp(\\varepsilon_r \\, \\mathrm{cnt}_k / 2)

    References
    ----------
    [LSA+21, Alg 1 line 1; App. D.1 (not in the seed)]; [MT07]; [DR14, Thm 3.10].

    Examples
    --------
    >>> import numpy as np
    >>> pr = PrivateRange(epsilon=1.0, tau=0.5, bound=4.0)
    >>> pr.n_bins, pr.width
    (8, 3.0)
    >>> data = np.full((200, 1), 1.2)
    >>> a, b = pr.sample(data, 1, rng=np.random.default_rng(0))[0]
    >>> bool(a <= 1.2 <= b)
    True
    """

    epsilon: float
    tau: float
    bound: float
    mode: RangeMode = "safe"

    #: The steps a faulty variant may replace, and nothing else (:mod:`dpaudit.userlevel.steps`).
    STEPS: ClassVar[tuple[str, ...]] = ("log_weights", "select_bins", "bin_index", "_user_values")

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_magnitude(owner, "epsilon", self.epsilon)
        check_magnitude(owner, "tau", self.tau)
        check_magnitude(owner, "bound", self.bound)
        check_one_of(owner, "mode", self.mode, ("safe", "paper"))
        if self.bound / self.tau > _MAX_BINS:
            raise argument_error(owner, "bound", f"at most {_MAX_BINS} * tau (so that K = ceil(B / tau) is exact)",
                                 self.bound)

    # --- public constants -----------------------------------------------------------------------

    @property
    def n_bins(self) -> int:
        """``K = ceil(B / tau)`` bins of width ``2 tau`` tile ``[-B, B]`` [``docs/papers/levy2021.md``, ALG-A step 2]."""
        return max(1, math.ceil(self.bound / self.tau))

    @property
    def half_width(self) -> float:
        """``r = 2 tau`` (paper) or ``3 tau`` (safe) [``docs/papers/levy2021.md``, ALG-A step 5]."""
        return (2.0 if self.mode == "paper" else 3.0) * self.tau

    @property
    def width(self) -> float:
        """Width ``b - a = 2 r`` of every returned interval: ``4 tau`` or ``6 tau``."""
        return 2.0 * self.half_width

    def bin_centers(self, bins: Any) -> NDArray[np.float64]:
        """Centres ``c_k = -B + (2k + 1) tau`` of bins ``k``."""
        return -self.bound + (2.0 * np.asarray(bins, dtype=np.float64) + 1.0) * self.tau

    def bin_index(self, values: Any) -> NDArray[np.float64]:
        """Bin of each value after clamping to ``[-B, B]`` (ALG-A steps 1-2), as exact integer floats.

        Clamping the value and clipping the bin index to ``[0, K - 1]`` give the same bin (both maps
        are monotone and ``floor(B / tau) >= K - 1``), so only the index is clipped. Indices are
        kept as float64 (exact below ``2^53``, and ``K <= 2^52``) to save a conversion pass.
        """
        k = np.array(values, dtype=np.float64, copy=True)
        k += self.bound
        k *= 0.5 / self.tau
        np.floor(k, out=k)
        np.clip(k, 0.0, float(self.n_bins - 1), out=k)
        return k

    def log_weights(self, counts: NDArray[np.int64]) -> NDArray[np.float64]:
        """Exponential-mechanism log-weights ``eps_r cnt / 2`` [MT07; DR14, Thm 3.10]."""
        return np.multiply(0.5 * self.epsilon, counts, dtype=np.float64)

    # --- white-box: the exact output law --------------------------------------------------------

    def log_probabilities(self, values: Any) -> NDArray[np.float64]:
        """Exact log-probability of each of the ``K`` bins for one row of per-user ``values``.

        For white-box checks (e.g. ``max_k |log P(k) - log P'(k)| <= eps_r`` on neighbours),
        computed in log space with ``logsumexp`` so that large ``eps n`` neither overflows nor
        underflows. Needs ``K <= 10^7``.
        """
        owner = f"{type(self).__name__}.probabilities"
        v = check_finite_array(owner, "values", values, ndim=1)
        if self.n_bins > 10**7:
            raise argument_error(owner, "values", "used with at most 10^7 bins (K = ceil(bound / tau))",
                                 self.n_bins)
        counts = np.bincount(self.bin_index(v).astype(np.int64), minlength=self.n_bins)
        logw = self.log_weights(counts)
        out: NDArray[np.float64] = logw - special.logsumexp(logw)
        return out

    def probabilities(self, values: Any) -> NDArray[np.float64]:
        """``exp`` of :meth:`log_probabilities`: the exact output law over the ``K`` bins."""
        return np.exp(self.log_probabilities(values))

    # --- sampling -------------------------------------------------------------------------------

    def select_bins(self, values: Any, *, rng: np.random.Generator, rows: int | None = None) -> NDArray[np.int64]:
        """Sample one bin per row of ``values`` (shape ``(L, N)``, one value per user), exactly.

        ``values`` may have a single row and ``rows = L``: the row is then shared by ``L``
        independent draws (the data are binned and sorted once).
        """
        v = np.asarray(values, dtype=np.float64)
        if v.ndim != 2:
            raise argument_error(f"{type(self).__name__}.select_bins", "values", "a 2-D array (rows, users)", values)
        n_rows = v.shape[0] if rows is None else rows
        if v.shape[0] not in (1, n_rows):
            raise argument_error(f"{type(self).__name__}.select_bins", "values",
                                 f"a single row or exactly rows={n_rows} rows", values)
        bins = np.sort(self.bin_index(v), axis=1)
        if bins.shape[0] == 1 and n_rows > 1:
            out = np.empty(n_rows, dtype=np.int64)
            for start, stop in trial_chunks(n_rows, bins.shape[1] + 1):
                out[start:stop] = self._select_sorted(bins, stop - start, rng)
            return out
        return self._select_sorted(bins, n_rows, rng)

    def _select_sorted(self, bins: NDArray[np.float64], n_rows: int, rng: np.random.Generator) -> NDArray[np.int64]:
        """Gumbel-max exponential mechanism on row-sorted bin indices ``(rows or 1, N)`` -> ``(n_rows,)``.

        Only the run starts of each sorted row (its non-empty bins) get a Gumbel key, drawn in
        row-major order; the empty bins form one group per row. Random draws, in order: the keys of
        the non-empty bins, one key per row for the empty group, one uniform empty-bin rank per row.
        """
        k_total = self.n_bins
        n_src, n = bins.shape
        start = np.ones(bins.shape, dtype=bool)
        start[:, 1:] = bins[:, 1:] != bins[:, :-1]
        flat = np.flatnonzero(start)  # run starts, row-major: each row's runs are contiguous
        row_of = flat // n
        run_bins = bins.reshape(-1)[flat]
        # run length = next run start (or the end of the row) - this start
        nxt = np.empty_like(flat)
        nxt[:-1] = flat[1:]
        nxt[-1] = n_src * n
        counts = np.minimum(nxt, (row_of + 1) * n) - flat
        per_row = np.bincount(row_of, minlength=n_src)  # q: non-empty bins per row (>= 1)
        seg = np.concatenate([[0], np.cumsum(per_row)[:-1]])
        ordinal = np.arange(flat.size) - np.repeat(seg, per_row)
        below = run_bins - ordinal  # number of empty bins below each non-empty bin
        logw = self.log_weights(counts)  # eps_r cnt / 2   [MT07]
        if n_src == 1:
            # one shared row: a dense (n_rows, q) table of keys
            keys = logw[None, :] + rng.gumbel(size=(n_rows, flat.size))
            pick = np.argmax(keys, axis=1)
            best = keys[np.arange(n_rows), pick]
            chosen = run_bins[pick]
            n_empty = np.full(n_rows, k_total - flat.size)
        else:
            keys = logw + rng.gumbel(size=flat.size)
            best = np.maximum.reduceat(keys, seg)
            is_best = keys == np.repeat(best, per_row)
            first = np.flatnonzero(is_best)
            _, at = np.unique(row_of[first], return_index=True)  # first maximiser of every row
            chosen = run_bins[first[at]]
            n_empty = k_total - per_row
        # all empty bins as one group of weight (K - q): max of K - q Gumbels = log(K - q) + Gumbel
        empty_key = np.where(n_empty > 0, np.log(np.maximum(n_empty, 1)), -np.inf) + rng.gumbel(size=n_rows)
        # a uniformly random empty bin: the r-th integer of [0, K) that is not a non-empty bin
        r = rng.integers(0, np.maximum(n_empty, 1))
        if n_src == 1:
            empty_bin = r + np.sum(below[None, :] <= r[:, None], axis=1)
        else:
            empty_bin = r + np.add.reduceat((below <= np.repeat(r, per_row)).astype(np.int64), seg)
        picked: NDArray[np.int64] = np.where(empty_key > best, empty_bin, chosen).astype(np.int64)
        return picked

    def intervals(self, values: Any, *, rng: np.random.Generator,
                  rows: int | None = None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """One private interval ``(a, b)`` per row of ``values`` (see :meth:`select_bins`)."""
        c = self.bin_centers(self.select_bins(values, rng=rng, rows=rows))
        return c - self.half_width, c + self.half_width

    def _user_values(self, data: Any) -> NDArray[np.float64]:
        """One value per user: the mean of the user's items, each clamped to ``[-B, B]`` first; shape ``(n,)``."""
        return user_means(f"{type(self).__name__}.sample", data, item_ndim=0, bound=self.bound)

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` private intervals on ``data`` of shape ``(n_users, m_items)``; returns ``(size, 2)``."""
        size = check_size(f"{type(self).__name__}.sample", size)
        values = self._user_values(data)
        a, b = self.intervals(values[None, :], rng=rng, rows=size)
        return np.stack([a, b], axis=1)

    def claimed_guarantee(self) -> PureDP:
        """``eps_r``-DP (pure) under user replacement, for every input [``docs/papers/levy2021.md``, P0]."""
        return PureDP(self.epsilon, UserReplace())
