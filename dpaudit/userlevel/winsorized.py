"""Winsorized mean estimators of Levy et al. 2021: Algorithm 1, Algorithm 2 and Corollary 1.

* :class:`WinsorizedMean1D` (Algorithm 1): a private range of width ``w = O(tau)``, then the mean of
  the values clipped to it plus ``Lap(2 w / (n eps))``. Pure ``eps``-DP [LSA+21, Thm 1].
* :class:`WinsorizedMeanHighD` (Algorithm 2): a random rotation ``U = d^{-1/2} H D`` (fast
  Walsh–Hadamard transform, zero-padding to ``d' = 2^ceil(log2 d)``), Algorithm 1 on every rotated
  coordinate at ``eps' = eps / sqrt(8 d' log(1/delta))``, then ``U^{-1}``. ``(eps, delta)``-DP
  [LSA+21, Thm 2].
* :class:`UserMeanEstimator` (Corollary 1): Algorithm 2 on the users' means with the user-mean
  concentration radius ``tau_m = (B / sqrt(m)) (1 + sqrt(2 ln(n / gamma)))`` and a final projection
  on the support ball [LSA+21, Cor 1; paper_004 note, ALG-3, PROP].

Every mechanism takes a user-level dataset ``(n_users, m_items)`` (scalars) or
``(n_users, m_items, d)`` (vectors), reduces each user to the mean of their items (one value per
user, so user replacement is replace-one on the means), and runs ``size`` independent trials as a
leading array axis. Components are exposed for audits against their own budgets (the paper_004
note, section 8): :meth:`WinsorizedMean1D.range_stage` (``eps/2``),
:meth:`WinsorizedMean1D.laplace_stage` (``eps/2`` given a fixed ``[a, b]``) and
:meth:`WinsorizedMeanHighD.coordinate_stage` (``eps'`` on one rotated coordinate for fixed signs),
with its own range and Laplace stages.

Privacy never depends on concentration, on ``tau`` being right, or on the data lying in
``[-B, B]``: PrivateRange clamps, the clip width is fixed and public, and the noise is calibrated
to the *actual* width ``w`` of the interval (``4 tau`` in the paper mode, ``6 tau`` in the safe
mode; see :mod:`dpaudit.userlevel.private_range`).

References
----------
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, arXiv:2102.11845.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import (
    argument_error,
    check_int,
    check_one_of,
    check_positive,
    check_probability,
    check_real,
)
from dpaudit.accounting.calibrate import laplace_scale, round_up
from dpaudit.guarantees import ApproxDP, PureDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.neighbors.relations import UserReplace
from dpaudit.userlevel.hadamard import (
    fwht_coordinate_major,
    inverse_rotate,
    next_power_of_two,
    random_signs,
    rotate,
)
from dpaudit.userlevel.levy_common import (
    alg2_coordinate_epsilon,
    alg2_epsilon_bound,
    alg2_tau_prime,
    check_alg2_region,
    trial_chunks,
    user_means,
)
from dpaudit.userlevel.private_range import PrivateRange, RangeMode
from dpaudit.userlevel.projections import project_l2_ball

__all__ = [
    "LaplaceStage",
    "RangeStage",
    "RotatedCoordinate",
    "UserMeanEstimator",
    "WinsorizedMean1D",
    "WinsorizedMeanHighD",
    "user_mean_radius",
]

TauRule = Literal["paper", "tight"]

#: Approximate number of float64 temporaries per (row, user) in the 1-D kernel (used for chunking).
_ROW_TEMPS = 12


# ==============================================================================================
# Algorithm 1
# ==============================================================================================


@dataclass(frozen=True)
class WinsorizedMean1D(MechanismBase):
    """Winsorized mean estimator, 1-D (Levy et al. 2021, Algorithm 1). Pure ``eps``-DP.

    Parameters
    ----------
    epsilon : float
        Privacy budget, in (0, inf); PrivateRange gets ``eps/2``, the Laplace stage ``eps/2``.
    tau : float
        Concentration radius of the per-user values, in (0, inf). Public.
    bound : float
        ``B``: the values are meant to lie in ``[-B, B]``, in (0, inf). Values outside are clamped
        by PrivateRange and clipped by the Laplace stage, so privacy holds for any finite input.
    mode : {"safe", "paper"}
        PrivateRange width ``6 tau`` (safe, default) or ``4 tau`` (paper). The noise follows the
        width: ``Lap(12 tau / (n eps))`` or ``Lap(8 tau / (n eps))`` [LSA+21, Alg 1 line 2].

    Notes
    -----
    Data: ``(n_users, m_items)``; each user contributes the mean of their items. Output: ``(size,)``.

    .. math:: \\bar\\mu = \\frac1n \\sum_i \\Pi_{[a,b]}(X_i) + \\mathrm{Lap}\\Big(\\frac{2 w}{n \\varepsilon}\\Big),
              \\quad [a, b] = \\mathrm{PrivateRange}(X^n, \\varepsilon/2, \\tau, B),\\ w = b - a

    Privacy [LSA+21, Thm 1 and its proof chain, paper_004 note P1]: PrivateRange is ``eps/2``-DP for
    every input; for a *fixed* ``[a, b]`` the clipped mean has replace-one sensitivity ``w / n``, so
    ``Lap((w/n) / (eps/2))`` is ``eps/2``-DP; basic composition gives ``eps``. The noise scale is
    rounded up (:func:`dpaudit.accounting.laplace_scale`).

    References
    ----------
    [LSA+21, Alg 1, Thm 1]; [DR14, Thm 3.6 (Laplace), Thm 3.16 (basic composition)].

    Examples
    --------
    >>> import numpy as np
    >>> mech = WinsorizedMean1D(epsilon=1.0, tau=0.1, bound=1.0)
    >>> data = np.random.default_rng(0).uniform(0.25, 0.35, size=(500, 4))
    >>> out = mech.sample(data, 1000, rng=np.random.default_rng(1))
    >>> out.shape, bool(abs(np.median(out) - data.mean()) < 0.01)
    ((1000,), True)
    """

    epsilon: float
    tau: float
    bound: float
    mode: RangeMode = "safe"

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_positive(owner, "epsilon", self.epsilon)
        check_positive(owner, "tau", self.tau)
        check_positive(owner, "bound", self.bound)
        check_one_of(owner, "mode", self.mode, ("safe", "paper"))
        self.private_range()  # validates tau/bound against PrivateRange's limits

    # --- sampling-side parameters (the deliberately broken variants override these) -----------

    def range_epsilon(self) -> float:
        """Budget of PrivateRange: ``eps / 2`` [LSA+21, Alg 1, line 1]."""
        return 0.5 * self.epsilon

    def laplace_epsilon(self) -> float:
        """Budget of the Laplace stage: ``eps / 2`` [LSA+21, Thm 1 proof; paper_004 note, P1]."""
        return 0.5 * self.epsilon

    def private_range(self) -> PrivateRange:
        """The PrivateRange call of line 1: ``PrivateRange(X^n, eps/2, tau, B)``."""
        return PrivateRange(self.range_epsilon(), self.tau, self.bound, self.mode)

    @property
    def width(self) -> float:
        """Width ``w = b - a`` of the clipping interval (``4 tau`` paper, ``6 tau`` safe)."""
        return (4.0 if self.mode == "paper" else 6.0) * self.tau

    def noise_scale(self, n_users: int) -> float:
        """Laplace scale ``(w / n) / (eps/2) = 2 w / (n eps)``, rounded up [LSA+21, Alg 1, line 2].

        In the paper mode ``w = 4 tau`` this is the paper's ``8 tau / (eps n)``.
        """
        return laplace_scale(round_up(self.width / n_users), self.laplace_epsilon())

    def _user_values(self, data: Any) -> NDArray[np.float64]:
        """One value per user (the mean of their items), shape ``(n,)``."""
        return user_means(f"{type(self).__name__}.sample", data, item_ndim=0)

    def _clip(self, values: NDArray[np.float64], low: NDArray[np.float64],
              high: NDArray[np.float64]) -> NDArray[np.float64]:
        """``Pi_[a,b](X_i)`` row by row [LSA+21, Alg 1, line 2]."""
        return np.clip(values, low[:, None], high[:, None])

    def _laplace_noise(self, scale: float, rows: int, rng: np.random.Generator) -> NDArray[np.float64]:
        """``rows`` draws of ``Lap(0, scale)`` (density ``exp(-|x|/scale) / (2 scale)``)."""
        return rng.laplace(0.0, scale, size=rows)

    # --- the vectorised kernel ------------------------------------------------------------------

    def release_rows(self, values: Any, *, rng: np.random.Generator, rows: int | None = None) -> NDArray[np.float64]:
        """Run Algorithm 1 once per row of ``values`` (shape ``(L, n)``: one value per user).

        A single row with ``rows = L`` is shared by ``L`` independent runs. Rows are processed in
        chunks (PrivateRange, then the Laplace stage, chunk after chunk), so the draws are a fixed
        function of the generator.
        """
        v = np.asarray(values, dtype=np.float64)
        n_rows = v.shape[0] if rows is None else rows
        n_users = v.shape[1]
        scale = self.noise_scale(n_users)
        pr = self.private_range()
        out = np.empty(n_rows)
        for start, stop in trial_chunks(n_rows, n_users * _ROW_TEMPS):
            chunk = v if v.shape[0] == 1 else v[start:stop]
            low, high = pr.intervals(chunk, rng=rng, rows=stop - start)  # line 1
            clipped_mean = self._clip(chunk, low, high).mean(axis=1)  # line 2: (1/n) sum Pi_[a,b](X_i)
            out[start:stop] = clipped_mean + self._laplace_noise(scale, stop - start, rng)  # + Lap(2w/(n eps))
        return out

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` independent runs on ``data`` of shape ``(n_users, m_items)``; returns ``(size,)``."""
        size = check_size(f"{type(self).__name__}.sample", size)
        values = self._user_values(data)
        return self.release_rows(values[None, :], rng=rng, rows=size)

    def claimed_guarantee(self) -> PureDP:
        """``PureDP(eps)`` under user replacement [LSA+21, Thm 1]."""
        return PureDP(self.epsilon, UserReplace())

    # --- components -----------------------------------------------------------------------------

    def range_stage(self) -> RangeStage:
        """PrivateRange as run by this estimator, claiming its allocation ``eps/2``."""
        return RangeStage(self)

    def laplace_stage(self, low: float, high: float) -> LaplaceStage:
        """The Laplace stage for a *fixed* ``[low, high]`` of width ``w``, claiming ``eps/2``."""
        return LaplaceStage(self, low, high)


@dataclass(frozen=True)
class RangeStage(MechanismBase):
    """Line 1 of Algorithm 1 as run by ``parent``; claims the paper's allocation ``eps/2``.

    Output ``(size, 2)``: the intervals ``[a, b]``. The claim is computed from the paper's split,
    not from the sampler, so a variant that spends more than ``eps/2`` here is caught.
    """

    parent: WinsorizedMean1D

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        size = check_size("RangeStage.sample", size)
        values = self.parent._user_values(data)
        low, high = self.parent.private_range().intervals(values[None, :], rng=rng, rows=size)
        return np.stack([low, high], axis=1)

    def claimed_guarantee(self) -> PureDP:
        return PureDP(0.5 * self.parent.epsilon, UserReplace())  # [LSA+21, Alg 1, line 1]


@dataclass(frozen=True)
class LaplaceStage(MechanismBase):
    """Line 2 of Algorithm 1 for a fixed interval ``[low, high]``; claims ``eps/2``.

    ``low`` and ``high`` play the role of PrivateRange's output and must have the estimator's
    width ``w``. The output law is exactly ``Lap(loc, scale)`` with ``loc`` the clipped mean and
    ``scale = parent.noise_scale(n)`` (see :meth:`law`).
    """

    parent: WinsorizedMean1D
    low: float
    high: float

    def __post_init__(self) -> None:
        low = check_real("LaplaceStage", "low", self.low)
        high = check_real("LaplaceStage", "high", self.high)
        w = self.parent.width
        if not math.isclose(high - low, w, rel_tol=1e-9, abs_tol=0.0):
            raise argument_error("LaplaceStage", "high", f"low + {w!r} (the estimator's interval width)", self.high)

    def law(self, data: Any) -> tuple[float, float]:
        """``(loc, scale)`` of the exact output law ``Lap(loc, scale)`` on ``data``."""
        values = self.parent._user_values(data)
        lo = np.array([self.low])
        hi = np.array([self.high])
        loc = float(self.parent._clip(values[None, :], lo, hi).mean())
        return loc, self.parent.noise_scale(values.shape[0])

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        size = check_size("LaplaceStage.sample", size)
        loc, scale = self.law(data)
        return loc + self.parent._laplace_noise(scale, size, rng)

    def claimed_guarantee(self) -> PureDP:
        return PureDP(0.5 * self.parent.epsilon, UserReplace())  # [LSA+21, Thm 1 proof]


# ==============================================================================================
# Algorithm 2
# ==============================================================================================


@dataclass(frozen=True)
class WinsorizedMeanHighD(MechanismBase):
    """Winsorized mean estimator in ``d`` dimensions (Levy et al. 2021, Algorithm 2). ``(eps, delta)``-DP.

    Parameters
    ----------
    epsilon : float
        In (0, inf); must be small enough that Theorem 2's composition holds for every ``d'``
        (checked exactly at construction, see :func:`~dpaudit.userlevel.levy_common.check_alg2_region`).
    delta : float
        In (0, 1).
    tau : float
        l2 concentration radius of the per-user vectors, in (0, inf). Public.
    bound : float
        ``B`` with the vectors meant to lie in ``[-B, B]^d``; the 1-D range is ``sqrt(d) B``.
    gamma : float
        Concentration failure probability, in (0, 1); enters ``tau'`` only.
    mode : {"safe", "paper"}
        PrivateRange mode of every coordinate (see :class:`WinsorizedMean1D`).
    tau_rule : {"paper", "tight"}
        ``tau' = 10 tau sqrt(log(d' n / gamma) / d')`` (paper) or
        ``tau sqrt(2 log(2 n d' / gamma) / d')`` (tight; still a valid radius) [paper_004 note, L7].
    signs : tuple of float, optional
        Fix the rotation signs ``omega`` (length ``d'``, entries +-1) for audits; by default they
        are drawn afresh, independently of the data, for every trial.

    Notes
    -----
    Data ``(n_users, m_items, d)``; output ``(size, d)``. With ``d' = 2^ceil(log2 d)``:

    .. math:: Y_i = U X_i,\\ U = d'^{-1/2} H D;\\quad
              \\bar Y(j) = \\mathrm{WME1D}(\\{Y_i(j)\\}_i, \\varepsilon', \\tau', \\sqrt d B);\\quad
              \\bar X = U^{-1} \\bar Y

    with ``eps' = eps / sqrt(8 d' log(1/delta))`` [LSA+21, Alg 2, line 3]. Privacy [LSA+21, Thm 2;
    paper_004 note P2, P2']: conditionally on ``omega`` (drawn independently of the data) the ``d'``
    coordinates are ``d'`` adaptively composed ``eps'``-DP mechanisms; advanced composition gives
    ``eps' sqrt(2 d' ln(1/delta)) + d' eps'(e^{eps'} - 1) <= eps`` at ``delta`` in the checked
    region, and basic composition gives ``(d' eps', 0)``. :meth:`tight_guarantee` reports the
    smaller of the two for a given ``d``.

    References
    ----------
    [LSA+21, Alg 2, Thm 2]; [DR14, Thm 3.16, Thm 3.20].

    Examples
    --------
    >>> import numpy as np
    >>> mech = WinsorizedMeanHighD(epsilon=1.0, delta=1e-6, tau=0.05, bound=1.0, gamma=1e-3)
    >>> data = np.random.default_rng(0).normal(0.2, 0.01, size=(3000, 2, 3))
    >>> mech.sample(data, 5, rng=np.random.default_rng(1)).shape
    (5, 3)
    """

    epsilon: float
    delta: float
    tau: float
    bound: float
    gamma: float
    mode: RangeMode = "safe"
    tau_rule: TauRule = "paper"
    signs: tuple[float, ...] | None = field(default=None)

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_positive(owner, "epsilon", self.epsilon)
        check_probability(owner, "delta", self.delta, allow_zero=False)
        check_positive(owner, "tau", self.tau)
        check_positive(owner, "bound", self.bound)
        check_probability(owner, "gamma", self.gamma, allow_zero=False)
        check_one_of(owner, "mode", self.mode, ("safe", "paper"))
        check_one_of(owner, "tau_rule", self.tau_rule, ("paper", "tight"))
        if self.signs is not None:
            s = np.asarray(self.signs, dtype=float)
            dp = s.shape[0] if s.ndim == 1 else 0
            if s.ndim != 1 or dp < 1 or dp & (dp - 1) or not np.all(np.abs(s) == 1.0):
                raise argument_error(owner, "signs", "a tuple of +1/-1 of power-of-two length d'", self.signs)
            object.__setattr__(self, "signs", tuple(float(x) for x in s))
        check_alg2_region(owner, self.epsilon, self.delta)

    # --- sampling-side parameters ---------------------------------------------------------------

    def coordinate_epsilon(self, padded_dim: int) -> float:
        """``eps' = eps / sqrt(8 d' log(1/delta))`` [LSA+21, Alg 2, line 3]."""
        return alg2_coordinate_epsilon(self.epsilon, self.delta, padded_dim)

    def coordinate_tau(self, n_users: int, padded_dim: int) -> float:
        """``tau'`` of Algorithm 2, line 3 (``tau_rule`` selects the paper's or the tight radius)."""
        return alg2_tau_prime(self.tau, n_users, padded_dim, self.gamma, self.tau_rule)

    def coordinate_bound(self, dim: int) -> float:
        """1-D range ``sqrt(d) B``: ``|Y_i(j)| <= ||X_i||_2 <= sqrt(d) B`` [LSA+21, Alg 2, line 3]."""
        return math.sqrt(dim) * self.bound

    def coordinate_mechanism(self, n_users: int, dim: int) -> WinsorizedMean1D:
        """Algorithm 1 as run on each rotated coordinate, for ``n_users`` users in dimension ``dim``."""
        dp = next_power_of_two(dim)
        return WinsorizedMean1D(self.coordinate_epsilon(dp), self.coordinate_tau(n_users, dp),
                                self.coordinate_bound(dim), self.mode)

    def _draw_signs(self, rows: int, padded_dim: int, rng: np.random.Generator) -> NDArray[np.float64]:
        """``omega ~ Unif{+-1}^{d'}`` per trial, independent of the data [LSA+21, Alg 2, line 1]."""
        if self.signs is not None:
            s = np.asarray(self.signs, dtype=float)
            if s.shape[0] != padded_dim:
                raise argument_error(type(self).__name__, "signs", f"of length d'={padded_dim} for this data",
                                     self.signs)
            return np.broadcast_to(s, (rows, padded_dim))
        return random_signs((rows, padded_dim), rng=rng)

    # --- the vectorised kernel ------------------------------------------------------------------

    def release(self, vectors: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """Run Algorithm 2 on per-user vectors, ``size`` times.

        Parameters
        ----------
        vectors : ndarray, shape (1, n, d) or (size, n, d)
            One vector per user; a single leading row is shared by every trial, otherwise trial
            ``s`` uses ``vectors[s]`` (Algorithm 3 passes one gradient set per trial).
        size : int
        rng : numpy.random.Generator

        Returns
        -------
        ndarray, shape (size, d)
        """
        x = np.asarray(vectors, dtype=np.float64)
        n_users, dim = x.shape[1], x.shape[2]
        dp = next_power_of_two(dim)
        one_d = self.coordinate_mechanism(n_users, dim)
        out = np.empty((size, dim))
        for start, stop in trial_chunks(size, n_users * dp * _ROW_TEMPS):
            rows = stop - start
            chunk = x if x.shape[0] == 1 else x[start:stop]
            omega = self._draw_signs(rows, dp, rng)  # line 1
            # line 2: Y_i = U X_i = d'^{-1/2} H (omega * pad(X_i)), computed coordinate-major so that
            # row j * rows + s of `values` holds coordinate j of trial s for every user
            cm = np.zeros((dp, rows, n_users))
            cm[:dim] = np.moveaxis(chunk, -1, 0) * np.moveaxis(omega[:, :dim], -1, 0)[:, :, None]
            y = fwht_coordinate_major(cm.reshape(dp, rows * n_users))
            values = y.reshape(dp * rows, n_users) / math.sqrt(dp)
            ybar = one_d.release_rows(values, rng=rng).reshape(dp, rows).T  # line 3, every coordinate at once
            out[start:stop] = inverse_rotate(ybar, omega, dim)  # line 4: U^{-1} Ybar, truncated to d
        return out

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` runs on ``data`` of shape ``(n_users, m_items, d)``; returns ``(size, d)``."""
        size = check_size(f"{type(self).__name__}.sample", size)
        means = user_means(f"{type(self).__name__}.sample", data, item_ndim=1)
        return self.release(means[None], size, rng=rng)

    def claimed_guarantee(self) -> ApproxDP:
        """``(eps, delta)``-DP under user replacement [LSA+21, Thm 2]."""
        return ApproxDP(self.epsilon, self.delta, UserReplace())

    def tight_guarantee(self, dim: int) -> ApproxDP:
        """The smaller of basic and advanced composition for dimension ``dim`` [paper_004 note, P2']."""
        dim = check_int(f"{type(self).__name__}.tight_guarantee", "dim", dim, minimum=1)
        bound = alg2_epsilon_bound(self.epsilon, self.delta, next_power_of_two(dim))
        return ApproxDP(min(bound, self.epsilon), self.delta, UserReplace())

    # --- components -----------------------------------------------------------------------------

    def coordinate_stage(self, n_users: int, dim: int, index: int, signs: Any) -> RotatedCoordinate:
        """Coordinate ``index`` of Algorithm 2 for fixed ``signs``: Algorithm 1 at ``eps'``.

        DP holds conditionally on the signs, so an audit may fix them and craft users whose
        rotated coordinate differs by the full width [paper_004 note, section 8]. The claim is the
        paper's ``eps' = eps / sqrt(8 d' log(1/delta))``.
        """
        owner = f"{type(self).__name__}.coordinate_stage"
        n_users = check_int(owner, "n_users", n_users, minimum=1)
        dim = check_int(owner, "dim", dim, minimum=1)
        dp = next_power_of_two(dim)
        index = check_int(owner, "index", index, minimum=0, maximum=dp - 1)
        s = np.asarray(signs, dtype=float)
        if s.shape != (dp,) or not np.all(np.abs(s) == 1.0):
            raise argument_error(owner, "signs", f"a vector of {dp} entries +1/-1", signs)
        claim = alg2_coordinate_epsilon(self.epsilon, self.delta, dp)  # [LSA+21, Alg 2, line 3]
        return RotatedCoordinate(self.coordinate_mechanism(n_users, dim), tuple(s.tolist()), index, dim, claim)


@dataclass(frozen=True)
class RotatedCoordinate(MechanismBase):
    """A 1-D mechanism (Algorithm 1 or one of its stages) run on coordinate ``index`` of ``U X̄_u``.

    Each user's mean ``X̄_u`` (shape ``(dim,)``) is rotated with the fixed ``signs``; coordinate
    ``index`` is one value per user, passed to ``inner`` as a ``(n_users, 1)`` dataset. The rotation
    is a fixed public map applied to each user separately, so user replacement stays replace-one.

    ``claim_epsilon`` is set by the parent from the paper's budget split (not from ``inner``).
    """

    inner: MechanismBase
    signs: tuple[float, ...]
    index: int
    dim: int
    claim_epsilon: float

    def rotated_values(self, data: Any) -> NDArray[np.float64]:
        """The per-user values ``(U X̄_u)_index``, shape ``(n_users,)``."""
        means = user_means("RotatedCoordinate.sample", data, item_ndim=1)
        if means.shape[1] != self.dim:
            raise argument_error("RotatedCoordinate.sample", "data", f"shaped (n_users, m_items, {self.dim})", data)
        return rotate(means, np.asarray(self.signs))[:, self.index]

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        return self.inner.sample(self.rotated_values(data)[:, None], size, rng=rng)

    def claimed_guarantee(self) -> PureDP:
        return PureDP(self.claim_epsilon, UserReplace())

    def range_stage(self) -> RotatedCoordinate:
        """PrivateRange of this coordinate, claiming ``eps'/2``."""
        if not isinstance(self.inner, WinsorizedMean1D):
            raise argument_error("RotatedCoordinate.range_stage", "inner", "a WinsorizedMean1D", self.inner)
        return RotatedCoordinate(self.inner.range_stage(), self.signs, self.index, self.dim, 0.5 * self.claim_epsilon)

    def laplace_stage(self, low: float, high: float) -> RotatedCoordinate:
        """The Laplace stage of this coordinate for a fixed ``[low, high]``, claiming ``eps'/2``."""
        if not isinstance(self.inner, WinsorizedMean1D):
            raise argument_error("RotatedCoordinate.laplace_stage", "inner", "a WinsorizedMean1D", self.inner)
        return RotatedCoordinate(self.inner.laplace_stage(low, high), self.signs, self.index, self.dim,
                                 0.5 * self.claim_epsilon)


# ==============================================================================================
# Corollary 1
# ==============================================================================================


def user_mean_radius(bound: float, m_items: int, n_users: int, gamma: float) -> float:
    """Concentration radius of ``n`` user means of ``m`` i.i.d. vectors in ``B_2(0, B)``.

    ``tau_m = (B / sqrt(m)) (1 + sqrt(2 ln(n / gamma)))`` [paper_004 note, ALG-3, PROP]: by
    McDiarmid (bounded differences ``2B/m``), ``||X̄_u - mu|| <= E||X̄_u - mu|| + B sqrt(2 ln(1/g)/m)``
    with probability ``1 - g``, ``E||X̄_u - mu|| <= B / sqrt(m)``, and a union over ``n`` users.
    """
    return bound / math.sqrt(m_items) * (1.0 + math.sqrt(2.0 * math.log(n_users / gamma)))


@dataclass(frozen=True)
class UserMeanEstimator(MechanismBase):
    """User-level DP mean of l2-bounded vectors (Levy et al. 2021, Corollary 1). ``(eps, delta)``-DP.

    Parameters
    ----------
    epsilon, delta : float
        Privacy parameters (``delta`` in (0, 1)).
    bound : float
        ``B``: the support of ``P_0`` is the l2 ball ``B_2(0, B)``.
    gamma : float, optional
        Failure probability of the concentration event. Default ``1 / (m (d n + n^2 eps^2))``,
        inferred from the log factor in Corollary 1's condition on ``n`` [paper_004 note, ALG-3, PROP].
    tau : float, optional
        Radius of the user means; default :func:`user_mean_radius` (``B / sqrt(m)`` times a log).
    mode, tau_rule :
        As in :class:`WinsorizedMeanHighD`.
    project : bool
        Project the estimate on ``B_2(0, B)`` (post-processing; bounds the error on the failure
        event by ``4 B^2``) [paper_004 note, ALG-3 step 3, PROP].

    Notes
    -----
    Data ``(n_users, m_items, d)``; output ``(size, d)``. Each user contributes one vector, the mean
    of their items, and Algorithm 2 runs on the means with ``tau = tau_m``:

    .. math:: \\mathbb E\\|A(\\mathcal S) - \\mu\\|^2 = \\frac{\\mathrm{Var}(P_0)}{mn}
              + \\tilde O\\Big(\\frac{d B^2}{m n^2 \\varepsilon^2}\\Big)   \\quad [LSA+21, Cor 1]

    References
    ----------
    [LSA+21, Cor 1, Thm 2].
    """

    epsilon: float
    delta: float
    bound: float
    gamma: float | None = None
    tau: float | None = None
    mode: RangeMode = "safe"
    tau_rule: TauRule = "paper"
    project: bool = True

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_positive(owner, "epsilon", self.epsilon)
        check_probability(owner, "delta", self.delta, allow_zero=False)
        check_positive(owner, "bound", self.bound)
        if self.gamma is not None:
            check_probability(owner, "gamma", self.gamma, allow_zero=False)
        if self.tau is not None:
            check_positive(owner, "tau", self.tau)
        check_one_of(owner, "mode", self.mode, ("safe", "paper"))
        check_one_of(owner, "tau_rule", self.tau_rule, ("paper", "tight"))
        check_alg2_region(owner, self.epsilon, self.delta)

    def failure_probability(self, n_users: int, m_items: int, dim: int) -> float:
        """``gamma`` (given, or ``1 / (m (d n + n^2 eps^2))``) [paper_004 note, ALG-3, PROP]."""
        if self.gamma is not None:
            return self.gamma
        return min(0.5, 1.0 / (m_items * (dim * n_users + n_users**2 * self.epsilon**2)))

    def radius(self, n_users: int, m_items: int, dim: int) -> float:
        """``tau`` (given, or :func:`user_mean_radius`)."""
        if self.tau is not None:
            return self.tau
        return user_mean_radius(self.bound, m_items, n_users, self.failure_probability(n_users, m_items, dim))

    def estimator(self, n_users: int, m_items: int, dim: int) -> WinsorizedMeanHighD:
        """Algorithm 2 as run on ``n_users`` means of ``m_items`` items in dimension ``dim``."""
        return WinsorizedMeanHighD(self.epsilon, self.delta, self.radius(n_users, m_items, dim), self.bound,
                                   self.failure_probability(n_users, m_items, dim), self.mode, self.tau_rule)

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` runs on ``data`` of shape ``(n_users, m_items, d)``; returns ``(size, d)``."""
        owner = f"{type(self).__name__}.sample"
        size = check_size(owner, size)
        means = user_means(owner, data, item_ndim=1)
        n_users, dim = means.shape
        m_items = np.shape(data)[1]
        out = self.estimator(n_users, m_items, dim).release(means[None], size, rng=rng)
        return project_l2_ball(out, self.bound) if self.project else out

    def claimed_guarantee(self) -> ApproxDP:
        """``(eps, delta)``-DP under user replacement [LSA+21, Cor 1]."""
        return ApproxDP(self.epsilon, self.delta, UserReplace())
