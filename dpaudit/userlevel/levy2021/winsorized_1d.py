"""Winsorized mean of Levy et al. 2021, Algorithm 1, and its two stages.

:class:`WinsorizedMean1D`: a private range of width ``w = O(tau)``
(:class:`~dpaudit.userlevel.levy2021.private_range.PrivateRange`), then the mean of the values
clipped to it plus ``Lap(2 w / (n eps))``. Pure ``eps``-DP [LSA+21, Thm 1]. The stages are exposed
for audits against their own budgets (``docs/papers/levy2021.md``, section 8): :class:`RangeStage`
(``eps/2``) and :class:`LaplaceStage` (``eps/2`` given a fixed ``[a, b]``).

The mechanism reduces each user to the mean of their items (one value per user, so user replacement
is replace-one on the means). Privacy never depends on concentration, on ``tau`` being right, or on
the data lying in ``[-B, B]``: every item is clamped to ``[-B, B]`` before the mean (Algorithm 1's
domain; a fixed per-item map, so a finite input never overflows and sensitivities are unchanged),
the clip width is fixed and public, and the noise is calibrated to the *actual* width ``w`` of the
interval (``4 tau`` in the paper mode, ``6 tau`` in the safe mode).

References
----------
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, arXiv:2102.11845.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import (
    argument_error,
    check_one_of,
    check_real,
)
from dpaudit.accounting.calibrate import laplace_scale, round_up
from dpaudit.guarantees import PureDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.neighbors.relations import UserReplace
from dpaudit.userlevel.domain import MAX_MAGNITUDE, check_magnitude, check_public_constant
from dpaudit.userlevel.levy2021.parameters import (
    trial_chunks,
    user_means,
)
from dpaudit.userlevel.levy2021.private_range import PrivateRange, RangeMode

__all__ = ["LaplaceStage", "RangeStage", "WinsorizedMean1D"]


TauRule = Literal["paper", "tight"]


#: Approximate number of float64 temporaries per (row, user) in the 1-D kernel (used for chunking).
_ROW_TEMPS = 12


@dataclass(frozen=True)
class WinsorizedMean1D(MechanismBase):
    """Winsorized mean estimator, 1-D (Levy et al. 2021, Algorithm 1). Pure ``eps``-DP.

    Parameters
    ----------
    epsilon : float
        Privacy budget, in (0, 2^960]; PrivateRange gets ``eps/2``, the Laplace stage ``eps/2``. It
        must leave the Laplace scale ``2w/eps`` at ``n = 1`` at most 2^960.
    tau : float
        Concentration radius of the per-user values, in (0, 2^960]. Public.
    bound : float
        ``B``: the values are meant to lie in ``[-B, B]``, in (0, 2^960]. Items outside are clamped
        to ``[-B, B]`` before the user's mean (a fixed per-item map), so privacy holds, and the
        output is finite, for any finite input.
    mode : {"safe", "paper"}
        PrivateRange width ``6 tau`` (safe, default) or ``4 tau`` (paper). The noise follows the
        width: ``Lap(12 tau / (n eps))`` or ``Lap(8 tau / (n eps))`` [LSA+21, Alg 1 line 2].

    Notes
    -----
    Data: ``(n_users, m_items)``; each user contributes the mean of their items. Output: ``(size,)``.

    .. math:: \\bar\\mu = \\frac1n \\sum_i \\Pi_{[a,b]}(X_i) + \\mathrm{Lap}\\Big(\\frac{2 w}{n \\varepsilon}\\Big),
              \\quad [a, b] = \\mathrm{PrivateRange}(X^n, \\varepsilon/2, \\tau, B),\\ w = b - a

    Privacy [LSA+21, Thm 1 and its proof chain, ``docs/papers/levy2021.md`` P1]: PrivateRange is ``eps/2``-DP for
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
        check_magnitude(owner, "epsilon", self.epsilon)
        check_magnitude(owner, "tau", self.tau)
        check_magnitude(owner, "bound", self.bound)
        check_one_of(owner, "mode", self.mode, ("safe", "paper"))
        self.private_range()  # validates tau/bound against PrivateRange's limits
        # the largest Laplace scale, at n = 1, computed in plain floats (inf, not an error, if it overflows)
        check_public_constant(owner, "epsilon", self.epsilon, "the Laplace scale 2w/eps at n = 1",
                              self.width / self.laplace_epsilon())

    # --- sampling-side parameters (the deliberately broken variants override these) -----------

    def range_epsilon(self) -> float:
        """Budget of PrivateRange: ``eps / 2`` [LSA+21, Alg 1, line 1]."""
        return 0.5 * self.epsilon

    def laplace_epsilon(self) -> float:
        """Budget of the Laplace stage: ``eps / 2`` [LSA+21, Thm 1 proof; ``docs/papers/levy2021.md``, P1]."""
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
        """One value per user (the mean of their items, each clamped to ``[-B, B]``), shape ``(n,)``."""
        return user_means(f"{type(self).__name__}.sample", data, item_ndim=0, bound=self.bound)

    def _clip(self, values: NDArray[np.float64], low: NDArray[np.float64],
              high: NDArray[np.float64]) -> NDArray[np.float64]:
        """``Pi_[a,b](X_i)`` row by row [LSA+21, Alg 1, line 2]."""
        return np.clip(values, low[:, None], high[:, None])

    def _laplace_noise(self, scale: float, rows: int, rng: np.random.Generator) -> NDArray[np.float64]:
        """``rows`` draws of ``Lap(0, scale)`` (density ``exp(-|x|/scale) / (2 scale)``)."""
        return rng.laplace(0.0, scale, size=rows)

    # --- the vectorised kernel ------------------------------------------------------------------

    def release_rows(self, values: Any, *, rng: np.random.Generator, rows: int | None = None,
                     ranges: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
        """Run Algorithm 1 once per row of ``values`` (shape ``(L, n)``: one value per user).

        A single row with ``rows = L`` is shared by ``L`` independent runs. Rows are processed in
        chunks (PrivateRange, then the Laplace stage, chunk after chunk), so the draws are a fixed
        function of the generator. ``ranges``, if given (shape ``(L,)``), receives each run's
        private range's lower end ``a`` (the range is ``[a, a + w]``): the transcript's release of
        line 1; asking for it changes no draw.
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
            if ranges is not None:
                ranges[start:stop] = low
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
        """``size`` intervals ``[a, b]`` from the parent's PrivateRange, shape ``(size, 2)``."""
        size = check_size("RangeStage.sample", size)
        values = self.parent._user_values(data)
        low, high = self.parent.private_range().intervals(values[None, :], rng=rng, rows=size)
        return np.stack([low, high], axis=1)

    def claimed_guarantee(self) -> PureDP:
        """``eps / 2`` under user replacement: the paper's allocation to PrivateRange [LSA+21, Alg. 1, line 1]."""
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
        if not abs(low) <= MAX_MAGNITUDE:
            raise argument_error("LaplaceStage", "low", "in [-2^960, 2^960] (so that no clip or noise draw overflows)",
                                 self.low)
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
        """``size`` releases of ``Lap(loc, scale)`` (:meth:`law`), shape ``(size,)``."""
        size = check_size("LaplaceStage.sample", size)
        loc, scale = self.law(data)
        return loc + self.parent._laplace_noise(scale, size, rng)

    def claimed_guarantee(self) -> PureDP:
        """``eps / 2`` under user replacement: the paper's allocation to the Laplace stage [LSA+21, Thm 1 proof]."""
        return PureDP(0.5 * self.parent.epsilon, UserReplace())  # [LSA+21, Thm 1 proof]
