"""Algorithm 1, DelOutputPert: output perturbation for functions of low local deletion sensitivity.

``DelOutputPert_{eps, delta, Delta}(f; x)`` [GKKMMZ23, Alg 1]: draw ``R1 ~ TDLap(eps_bar, delta_bar)``
(Def 3.4, :func:`dpaudit.mechanisms.discrete.sample_tdlap`), return ⊥ when no ``x_{-S}`` with
``|S| <= R1`` is stable at horizon ``4 kappa - |S|``, else ``f(x_{-S}) + N(0, sigma^2 I)`` for a
stable one of smallest ``|S|``. (eps, delta)-DP under replace-one user neighbours for every
deterministic ``f`` and every data-independent ``Delta > 0`` (Thm 3.3).

Output encoding: one row per trial, ``(size, d + 1)``; column 0 is 1.0 for ⊥ and 0.0 otherwise,
columns 1..d the released vector (0.0 when ⊥). A released value that would overflow is clipped to
the largest finite float (post-processing, never reached by data inside a sane domain).

Vectorised over trials (note App. B3): ``(k(x), f(x_{-S*}))`` is computed once per dataset
(:mod:`.stability`); a trial draws ``R1`` (all trials first) then the Gaussian vector. ⊥ happens
exactly when ``R1 < k(x)``.

References
----------
.. [GKKMMZ23] B. Ghazi, P. Kamath, R. Kumar, R. Meka, P. Manurangsi and C. Zhang. On user-level
   private convex optimization. ICML 2023, Alg 1, Def 3.4, Thm 3.3, Obs 3.5.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_int, check_one_of
from dpaudit.data import as_user_dataset
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.guarantees import ApproxDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.mechanisms.discrete import sample_tdlap
from dpaudit.neighbors.relations import UserReplace
from dpaudit.userlevel.ghazi2023.erm import identical_rows
from dpaudit.userlevel.ghazi2023.functions import UserFunction
from dpaudit.userlevel.ghazi2023.parameters import (
    PAPER_FLAW,
    DelOutputPertParameters,
    alg1_parameters,
)
from dpaudit.userlevel.ghazi2023.stability import (
    StabilityResult,
    bitmask_stability,
    typed_stability,
)

__all__ = ["ENGINES", "DelOutputPert", "release", "to_user_units"]

ENGINES: tuple[str, ...] = ("typed", "exact")

_FLOAT_MAX = float(np.finfo(float).max)


def to_user_units(values: NDArray[np.float64], scale: float) -> NDArray[np.float64]:
    """``scale * values``, clipped first so that the product is finite (post-processing: a fixed map)."""
    limit = (_FLOAT_MAX / scale) * (1.0 - 1e-12) if scale > 1.0 else _FLOAT_MAX
    return np.clip(values, -limit, limit) * scale


def release(k: NDArray[np.int64], centre: NDArray[np.float64], sigma: float, r1: NDArray[np.int64],
            rng: np.random.Generator, scale: float = 1.0) -> NDArray[np.float64]:
    """Rows ``(⊥ flag, s * (centre + Z))`` given ``k`` (``-1``: always ⊥), ``R1`` and ``Z ~ N(0, sigma^2 I)``.

    ``k``, ``centre`` broadcast against ``r1`` ``(T,)``; ``Z`` is drawn here, after ``R1``. ``scale``
    maps the unit-free coordinates back (:mod:`.erm`); the clip keeps the product finite.
    """
    t = r1.shape[0]
    centre = np.broadcast_to(centre, (t, centre.shape[-1]))
    bottom = (r1 < k) | (k < 0)
    noisy = centre + rng.normal(0.0, sigma, size=centre.shape)
    vec = to_user_units(noisy, scale)
    out = np.empty((t, centre.shape[-1] + 1))
    out[:, 0] = bottom
    out[:, 1:] = np.where(bottom[:, None], 0.0, vec)
    return out


@dataclass(frozen=True)
class DelOutputPert(MechanismBase):
    """Algorithm 1 for a user-supplied ``f`` (:class:`~dpaudit.userlevel.ghazi2023.functions.UserFunction`).

    Parameters
    ----------
    function : UserFunction
        ``f``; deterministic, defined on every dataset of at least one user.
    epsilon, delta : float
        Budget, ``epsilon`` in (0, 1] and ``delta`` in (0, 1/2].
    threshold : float
        Delta > 0, fixed before seeing data.
    preset : {"corrected", "paper"}
        See :mod:`~dpaudit.userlevel.ghazi2023.parameters` (``"paper"`` warns: its sigma is not private at large scale).
    engine : {"typed", "exact"}
        The stability search (:mod:`.stability`); ``"typed"`` needs ``function.symmetric``,
        ``"exact"`` at most 20 users.
    kappa : int, optional
        Overrides ``kappa(eps_bar, delta_bar)`` for structure tests at tiny ``n``; the claimed delta
        then grows (:class:`~.parameters.DelOutputPertParameters`).
    max_states : int or None
        Refuse (``EnumerationTooLarge``) a typed search over more deletion states; None: no limit.
    """

    function: UserFunction
    epsilon: float
    delta: float
    threshold: float
    preset: str = "corrected"
    engine: str = "typed"
    kappa: int | None = None
    max_states: int | None = 5_000_000
    params: DelOutputPertParameters = field(init=False, repr=False, compare=False)

    #: The steps a faulty variant may replace, and nothing else (:mod:`dpaudit.userlevel.steps`).
    STEPS: ClassVar[tuple[str, ...]] = ("_sigma",)

    def __post_init__(self) -> None:
        owner = type(self).__name__
        if not isinstance(self.function, UserFunction):
            raise argument_error(owner, "function", "a UserFunction", self.function)
        check_one_of(owner, "engine", self.engine, ENGINES)
        if self.engine == "typed" and not self.function.symmetric:
            raise argument_error(owner, "engine", "'exact' for a function that depends on the order of users",
                                 self.engine)
        if self.max_states is not None:
            check_int(owner, "max_states", self.max_states, minimum=1)
        object.__setattr__(self, "params", alg1_parameters(self.epsilon, self.delta, self.threshold,
                                                           preset=self.preset, kappa=self.kappa, owner=owner))
        self._warn_if_unsound(owner)

    def _warn_if_unsound(self, owner: str) -> None:
        if self.preset == "paper":
            warnings.warn(f"{owner}(preset='paper') is deliberately unsound: {PAPER_FLAW}", UnsoundMechanismWarning,
                          stacklevel=4)

    # -- what the mechanism promises ---------------------------------------------------------------

    def claimed_guarantee(self) -> ApproxDP:
        """``(epsilon, delta)``-DP under user-level replacement [GKKMMZ23, Thm 3.3]."""
        return ApproxDP(self.epsilon, self.params.claimed_delta, UserReplace())

    def min_users(self) -> int:
        """``4 kappa + 2``: the check evaluates ``f`` on ``n - 4 kappa - 1 >= 1`` users."""
        return self.params.min_users

    # -- the deterministic part ------------------------------------------------------------------

    def _data(self, data: Any, owner: str) -> NDArray[np.float64]:
        x = as_user_dataset(data, owner, "data")
        n = x.shape[0]
        if n < self.min_users():
            raise argument_error(owner, "data", f"at least 4 kappa + 2 = {self.min_users()} users (kappa = "
                                 f"{self.params.kappa}; it has {n})", data)
        return x

    def stability(self, data: Any) -> StabilityResult:
        """``k(x)`` and the chosen ``f(x_{-S*})`` (see :mod:`.stability`)."""
        x = self._data(data, f"{type(self).__name__}.stability")
        p = self.params
        n = x.shape[0]
        if self.engine == "exact":
            def values(masks: NDArray[np.int64]) -> NDArray[np.float64]:
                keep = ((masks[:, None] >> np.arange(n)) & 1) == 0
                return np.stack([np.atleast_1d(self.function(x[row])) for row in keep])

            return bitmask_stability(n, values, kappa=p.kappa, threshold=p.threshold)
        reps, counts, _ = identical_rows(x.reshape(n, -1))
        types = x[reps]

        def typed_values(states: NDArray[np.int64]) -> NDArray[np.float64]:
            return np.asarray(self.function.of_counts(types, counts[None] - states), dtype=float)[None]

        return typed_stability(counts, typed_values, kappa=p.kappa, threshold=p.threshold, max_states=self.max_states)

    # -- sampling --------------------------------------------------------------------------------

    def _draw_r1(self, size: int, rng: np.random.Generator) -> NDArray[np.int64]:
        """``R1 ~ TDLap(eps_bar, delta_bar)`` [GKKMMZ23, Alg 1, line 4; Def 3.4]."""
        p = self.params
        return sample_tdlap(p.eps_bar, p.delta_bar, size, rng=rng, kappa=p.kappa)

    def _sigma(self) -> float:
        return self.params.sigma

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` outputs ``(⊥ flag, f(x_{-S*}) + Z)`` on ``data`` ``(n_users, m_items, ...)``."""
        size = check_size(f"{type(self).__name__}.sample", size)
        stab = self.stability(data)
        r1 = self._draw_r1(size, rng)
        return release(stab.k[0], stab.centre[0], self._sigma(), r1, rng)
