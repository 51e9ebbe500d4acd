"""Winsorized mean in high dimension of Levy et al. 2021, Algorithm 2.

:class:`WinsorizedMeanHighD`: a random rotation ``U = d^{-1/2} H D`` (fast Walsh-Hadamard transform,
zero-padding to ``d' = 2^ceil(log2 d)``), Algorithm 1 on every rotated coordinate at
``eps' = eps / sqrt(8 d' log(1/delta))``, then ``U^{-1}``. ``(eps, delta)``-DP [LSA+21, Thm 2].
:class:`RotatedCoordinate` is Algorithm 1 on one rotated coordinate for fixed signs (``eps'``-DP),
exposed with its own range and Laplace stages for audits.

References
----------
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, arXiv:2102.11845.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import (
    argument_error,
    check_int,
    check_one_of,
    check_probability,
)
from dpaudit.guarantees import ApproxDP, PureDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.neighbors.relations import UserReplace
from dpaudit.userlevel.domain import check_magnitude, clamp_items
from dpaudit.userlevel.hadamard import (
    fwht_coordinate_major,
    inverse_rotate,
    next_power_of_two,
    random_signs,
    rotate,
)
from dpaudit.userlevel.levy2021.parameters import (
    alg2_coordinate_epsilon,
    alg2_epsilon_bound,
    alg2_tau_prime,
    check_alg2_region,
    trial_chunks,
    user_means,
)
from dpaudit.userlevel.levy2021.private_range import RangeMode
from dpaudit.userlevel.levy2021.winsorized_1d import _ROW_TEMPS, TauRule, WinsorizedMean1D

__all__ = ["RotatedCoordinate", "WinsorizedMeanHighD", "check_signs"]


def check_signs(owner: str, signs: Any) -> tuple[float, ...]:
    """Fixed rotation signs ``omega``: a tuple of +1/-1 of power-of-two length ``d'``."""
    try:
        s = np.asarray(signs, dtype=float)
    except (TypeError, ValueError):
        raise argument_error(owner, "signs", "a tuple of +1/-1 of power-of-two length d'", signs) from None
    dp = s.shape[0] if s.ndim == 1 else 0
    if s.ndim != 1 or dp < 1 or dp & (dp - 1) or not np.all(np.abs(s) == 1.0):
        raise argument_error(owner, "signs", "a tuple of +1/-1 of power-of-two length d'", signs)
    return tuple(float(x) for x in s)


@dataclass(frozen=True)
class WinsorizedMeanHighD(MechanismBase):
    """Winsorized mean estimator in ``d`` dimensions (Levy et al. 2021, Algorithm 2). ``(eps, delta)``-DP.

    Parameters
    ----------
    epsilon : float
        In (0, inf); must be small enough that Theorem 2's composition holds for every ``d'``
        (checked exactly at construction, see :func:`~dpaudit.userlevel.levy2021.parameters.check_alg2_region`).
    delta : float
        In (0, 1).
    tau : float
        l2 concentration radius of the per-user vectors, in (0, 2^960]. Public.
    bound : float
        ``B`` with the vectors meant to lie in ``[-B, B]^d`` [LSA+21, Alg 2, Require], in (0, 2^960];
        the 1-D range is ``sqrt(d) B``. Every item (and every vector passed to :meth:`release`) is
        clamped coordinate-wise to ``[-B, B]`` first: a fixed per-user map, the identity on the
        domain, which keeps Theorem 2's argument and makes every finite input give a finite output.
    gamma : float
        Concentration failure probability, in (0, 1); enters ``tau'`` only.
    mode : {"safe", "paper"}
        PrivateRange mode of every coordinate (see :class:`WinsorizedMean1D`).
    tau_rule : {"paper", "tight"}
        ``tau' = 10 tau sqrt(log(d' n / gamma) / d')`` (paper) or
        ``tau sqrt(2 log(2 n d' / gamma) / d')`` (tight; still a valid radius) [``docs/papers/levy2021.md``, L7].
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
    ``docs/papers/levy2021.md`` P2, P2']: conditionally on ``omega`` (drawn independently of the data) the ``d'``
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

    #: Algorithm 1 as run on each coordinate (a hook for the broken variants of :mod:`.faulty_full`).
    _one_d_class: ClassVar[type[WinsorizedMean1D]] = WinsorizedMean1D

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_magnitude(owner, "epsilon", self.epsilon)
        check_probability(owner, "delta", self.delta, allow_zero=False)
        check_magnitude(owner, "tau", self.tau)
        check_magnitude(owner, "bound", self.bound)
        check_probability(owner, "gamma", self.gamma, allow_zero=False)
        check_one_of(owner, "mode", self.mode, ("safe", "paper"))
        check_one_of(owner, "tau_rule", self.tau_rule, ("paper", "tight"))
        if self.signs is not None:
            object.__setattr__(self, "signs", check_signs(owner, self.signs))
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
        return self._one_d_class(self.coordinate_epsilon(dp), self.coordinate_tau(n_users, dp),
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

    def _to_domain(self, vectors: NDArray[np.float64]) -> NDArray[np.float64]:
        """Clamp every vector to ``[-B, B]^d`` [LSA+21, Alg 2, Require]: fixed per user, the identity on the domain."""
        return clamp_items(vectors, self.bound)

    # --- the vectorised kernel ------------------------------------------------------------------

    def release(self, vectors: Any, size: int, *, rng: np.random.Generator,
                releases: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
        """Run Algorithm 2 on per-user vectors, ``size`` times.

        Parameters
        ----------
        vectors : ndarray, shape (1, n, d) or (size, n, d)
            One finite vector per user; a single leading row is shared by every trial, otherwise
            trial ``s`` uses ``vectors[s]`` (Algorithm 3 passes one gradient set per trial). Each is
            clamped to ``[-B, B]^d`` before the rotation (so ``|Y_i(j)| <= sqrt(d) B`` and the
            transform cannot overflow).
        size : int
        rng : numpy.random.Generator
        releases : ndarray, shape (size, 3 d'), optional
            If given, receives every run's noisy releases (the transcript of this call): the signs
            ``omega`` (``d'`` entries), each rotated coordinate's private range's lower end
            (``d'``) and its noisy winsorized mean ``Ybar(j)`` (``d'``), from which the output
            ``U^{-1} Ybar`` follows. Asking for them changes no draw.

        Returns
        -------
        ndarray, shape (size, d)
        """
        x = self._to_domain(np.asarray(vectors, dtype=np.float64))
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
            lows = None if releases is None else np.empty(dp * rows)
            ybar = one_d.release_rows(values, rng=rng, ranges=lows).reshape(dp, rows).T  # line 3, every coordinate at once
            out[start:stop] = inverse_rotate(ybar, omega, dim)  # line 4: U^{-1} Ybar, truncated to d
            if releases is not None and lows is not None:
                releases[start:stop] = np.hstack([omega, lows.reshape(dp, rows).T, ybar])
        return out

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` runs on ``data`` of shape ``(n_users, m_items, d)``; returns ``(size, d)``."""
        size = check_size(f"{type(self).__name__}.sample", size)
        means = user_means(f"{type(self).__name__}.sample", data, item_ndim=1, bound=self.bound)
        return self.release(means[None], size, rng=rng)

    def claimed_guarantee(self) -> ApproxDP:
        """``(eps, delta)``-DP under user replacement [LSA+21, Thm 2]."""
        return ApproxDP(self.epsilon, self.delta, UserReplace())

    def tight_guarantee(self, dim: int) -> ApproxDP:
        """The smaller of basic and advanced composition for dimension ``dim`` [``docs/papers/levy2021.md``, P2']."""
        dim = check_int(f"{type(self).__name__}.tight_guarantee", "dim", dim, minimum=1)
        bound = alg2_epsilon_bound(self.epsilon, self.delta, next_power_of_two(dim))
        return ApproxDP(min(bound, self.epsilon), self.delta, UserReplace())

    # --- components -----------------------------------------------------------------------------

    def coordinate_stage(self, n_users: int, dim: int, index: int, signs: Any) -> RotatedCoordinate:
        """Coordinate ``index`` of Algorithm 2 for fixed ``signs``: Algorithm 1 at ``eps'``.

        DP holds conditionally on the signs, so an audit may fix them and craft users whose
        rotated coordinate differs by the full width [``docs/papers/levy2021.md``, section 8]. The claim is the
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
        return RotatedCoordinate(self.coordinate_mechanism(n_users, dim), tuple(s.tolist()), index, dim, claim,
                                 self.bound)


@dataclass(frozen=True)
class RotatedCoordinate(MechanismBase):
    """A 1-D mechanism (Algorithm 1 or one of its stages) run on coordinate ``index`` of ``U X̄_u``.

    Each user's mean ``X̄_u`` (shape ``(dim,)``, every item clamped to the parent's box
    ``[-bound, bound]^dim`` first) is rotated with the fixed ``signs``; coordinate ``index`` is one
    value per user, passed to ``inner`` as a ``(n_users, 1)`` dataset. The clamp and the rotation are
    fixed public maps applied to each user separately, so user replacement stays replace-one.

    ``claim_epsilon`` is set by the parent from the paper's budget split (not from ``inner``).
    """

    inner: MechanismBase
    signs: tuple[float, ...]
    index: int
    dim: int
    claim_epsilon: float
    bound: float

    def __post_init__(self) -> None:
        check_magnitude("RotatedCoordinate", "bound", self.bound)

    def rotated_values(self, data: Any) -> NDArray[np.float64]:
        """The per-user values ``(U X̄_u)_index``, shape ``(n_users,)``."""
        means = user_means("RotatedCoordinate.sample", data, item_ndim=1, bound=self.bound)
        if means.shape[1] != self.dim:
            raise argument_error("RotatedCoordinate.sample", "data", f"shaped (n_users, m_items, {self.dim})", data)
        return rotate(means, np.asarray(self.signs))[:, self.index]

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` releases of ``inner`` on the rotated coordinate (a ``(n_users, 1)`` dataset)."""
        return self.inner.sample(self.rotated_values(data)[:, None], size, rng=rng)

    def claimed_guarantee(self) -> PureDP:
        """``claim_epsilon``-DP under user replacement (the per-coordinate budget of [LSA+21, Alg. 2])."""
        return PureDP(self.claim_epsilon, UserReplace())

    def range_stage(self) -> RotatedCoordinate:
        """PrivateRange of this coordinate, claiming ``eps'/2``."""
        if not isinstance(self.inner, WinsorizedMean1D):
            raise argument_error("RotatedCoordinate.range_stage", "inner", "a WinsorizedMean1D", self.inner)
        return RotatedCoordinate(self.inner.range_stage(), self.signs, self.index, self.dim, 0.5 * self.claim_epsilon,
                                 self.bound)

    def laplace_stage(self, low: float, high: float) -> RotatedCoordinate:
        """The Laplace stage of this coordinate for a fixed ``[low, high]``, claiming ``eps'/2``."""
        if not isinstance(self.inner, WinsorizedMean1D):
            raise argument_error("RotatedCoordinate.laplace_stage", "inner", "a WinsorizedMean1D", self.inner)
        return RotatedCoordinate(self.inner.laplace_stage(low, high), self.signs, self.index, self.dim,
                                 0.5 * self.claim_epsilon, self.bound)
