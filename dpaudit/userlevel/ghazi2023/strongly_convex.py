"""Algorithms 5 and 6: Strongly-Convex-ERM and Strongly-Convex-SCO (output perturbation, then localisation).

Both spend ``(eps/2, delta/2)`` on SCOutputPert for ``theta_0`` and ``(eps/2, delta/2)`` on a phased
algorithm over ``K' = K ∩ B(theta_0, R')`` with ``lambda = G sqrt(d)/(R' n sqrt(m))`` (basic composition;
``K'``, ``lambda`` and the start are post-processing of ``theta_0``) [GKKMMZ23, App. B, Alg 5-6]. The
second stage is Phased-ERM (Alg 5) or Phased-SCO (Alg 6); ``beta = 1/(2 n^2 m)`` by default (proofs
of Thms 4.3 and 5.3).

The radius R'
-------------
``paper``: ``R' = sigma sqrt(d ln(1/beta))`` (Alg 5, line 2; the proof's "suitable C" set to 1), and
Alg 6 adds ``G sqrt(ln(1/beta))/(mu sqrt(nm))``. ``corrected``: ``R' = sigma (sqrt(d) + sqrt(2 ln(1/beta)))``,
an exact Gaussian norm tail (``P[||e|| > R'] <= beta`` by Lipschitz concentration and
``E||e|| <= sigma sqrt(d)``), and Alg 6 uses ``sigma (sqrt(d) + sqrt(2 ln(2/beta))) +
30 G sqrt(ln(4/beta))/(mu sqrt(nm))`` (Prop B.1's constant, erratum E9) so that ``theta*(D)`` is in
the ball w.p. ``1 - beta``. Radii only move utility; privacy never depends on them.

The corrected preset centres the ball at ``Pi_K(theta_0)`` (never farther from ``theta* in K``, and
``K'`` is then never empty) and starts the phases at ``Pi_{K'}(theta_0)``; a ⊥ from the first stage
(a case the paper leaves open) uses ``K' = K`` with ``R'`` the diameter of ``K``, a data-independent
rule. The first stage's trials share one stability search; the second stage runs per trial.

References
----------
.. [GKKMMZ23] B. Ghazi, P. Kamath, R. Kumar, R. Meka, P. Manurangsi and C. Zhang. On user-level
   private convex optimization. ICML 2023, App. B (Alg 5, Alg 6, Prop B.1), Thms 4.3 and 5.3.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.guarantees import ApproxDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.mechanisms.discrete import sample_tdlap
from dpaudit.neighbors.relations import UserReplace
from dpaudit.userlevel.ghazi2023.del_output_pert import to_user_units
from dpaudit.userlevel.ghazi2023.erm import ERMProblem
from dpaudit.userlevel.ghazi2023.phased import (
    PhasedERM,
    PhasedSCO,
    R1Rule,
    _PhasedBase,
    run_phases,
    transcript_units,
)
from dpaudit.userlevel.ghazi2023.sc_output_pert import SCOutputPert, check_mechanism_fields
from dpaudit.userlevel.ghazi2023.solver import Balls, project
from dpaudit.userlevel.transcript import Observe, check_observe

__all__ = ["StronglyConvexERM", "StronglyConvexSCO"]


@dataclass(frozen=True)
class _StronglyConvexBase(MechanismBase):
    problem: ERMProblem
    epsilon: float
    delta: float
    beta: float | None = None
    threshold: str | None = None
    preset: str = "corrected"
    engine: str = "auto"
    solver_rtol: float = 1e-10
    max_states: int | None = 5_000_000
    observe: Observe = "final"

    _inner_class: Any = None
    #: Hooks for the broken variants (:mod:`.faulty_full`), used by both stages.
    _r1_rule: ClassVar[R1Rule | None] = None
    _certificate_only: ClassVar[bool] = False

    #: The steps a faulty variant may replace, and nothing else (:mod:`dpaudit.userlevel.steps`).
    STEPS: ClassVar[tuple[str, ...]] = ("_r1_rule", "_certificate_only")

    def __post_init__(self) -> None:
        check_observe(type(self).__name__, self.observe)
        check_mechanism_fields(type(self).__name__, problem=self.problem, epsilon=self.epsilon / 2, delta=self.delta / 2,
                               preset=self.preset, threshold=self.threshold, engine=self.engine,
                               solver_rtol=self.solver_rtol, beta=self.beta, max_states=self.max_states,
                               strongly_convex=True)

    def claimed_guarantee(self) -> ApproxDP:
        """``(epsilon, delta)``-DP under user-level replacement [GKKMMZ23, Thms 4.3 and 5.3]."""
        return ApproxDP(self.epsilon, self.delta, UserReplace())

    def _beta(self, n: int, m: int) -> float:
        return self.beta if self.beta is not None else 1.0 / (2.0 * n * n * m)  # proofs of Thms 4.3 and 5.3

    def _quiet(self, cls: Any, **kw: Any) -> Any:
        with warnings.catch_warnings():  # this mechanism already warned about preset='paper'
            warnings.simplefilter("ignore", UnsoundMechanismWarning)
            return cls(self.problem, preset=self.preset, engine=self.engine, solver_rtol=self.solver_rtol,
                       max_states=self.max_states, threshold=self.threshold, **kw)

    def first_stage(self, n: int, m: int) -> SCOutputPert:
        """SCOutputPert at ``(eps/2, delta/2)`` on ``K`` [Alg 5-6, line 1]."""
        return self._quiet(SCOutputPert, epsilon=self.epsilon / 2, delta=self.delta / 2, beta=self._beta(n, m))

    def second_stage(self) -> _PhasedBase:
        return self._quiet(self._inner_class, epsilon=self.epsilon / 2, delta=self.delta / 2)

    def min_users(self, m_items: int, dim: int = 1) -> int:
        """Enough users for both stages."""
        first = self._quiet(SCOutputPert, epsilon=self.epsilon / 2, delta=self.delta / 2).min_users()
        return max(first, self.second_stage().min_users(m_items, dim))

    def _radius(self, sigma: float, n: int, m: int, d: int, beta: float) -> float:
        raise NotImplementedError

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` outputs ``theta_hat`` (``(size, d)``) on ``data`` ``(n_users, m_items, d + 1)``.

        Draws: the first stage's ``R1`` and Gaussian vectors for all trials, then the second stage
        for the trials whose first stage released a vector, then for those answered ⊥. With
        ``observe="transcript"`` (:mod:`dpaudit.userlevel.transcript`) every run's transcript: the
        first stage's ⊥ flag and ``theta_0`` (0 on ⊥), each second-stage phase's ⊥ flag and
        ``theta_hat_i``, then the output (``(1 + d)(1 + phases) + d`` numbers).
        """
        owner = f"{type(self).__name__}.sample"
        size = check_size(owner, size)
        pr = self.problem
        unit = pr.unit_data(data, owner)
        n, m, d = unit.shape
        beta = self._beta(n, m)
        first = self.first_stage(n, m)
        if n < self.min_users(m, d):
            raise argument_error(owner, "data", f"at least {self.min_users(m, d)} users for both stages (it has {n})", data)
        res, spec = first.stable_centre(data)
        a = spec.alg1
        rule = type(self)._r1_rule
        r1 = sample_tdlap(a.eps_bar, a.delta_bar, size, rng=rng, kappa=a.kappa) if rule is None else rule(spec, size, rng)
        theta0 = res.centre[0] + rng.normal(0.0, a.sigma, size=(size, d))
        k0 = (0 if res.certified[0] else -1) if self._certificate_only else int(res.k[0])
        released = ~((r1 < k0) | (k0 < 0))
        out = np.zeros((size, d))
        transcript = self.observe == "transcript"
        blocks: NDArray[np.float64] | None = None
        if transcript:  # the first stage's release: (⊥ flag, theta_0 or 0), then the phases' columns
            first_cols = np.column_stack([(~released).astype(float), np.where(released[:, None], theta0, 0.0)])
        inner = self.second_stage()
        g = pr.lipschitz()
        cache: dict[Any, Any] = {}  # the users grouped once for both branches
        for keep in (released, ~released):
            idx = np.flatnonzero(keep)
            if idx.size == 0:
                continue
            c = idx.size
            if keep is released:
                radius = self._radius(a.sigma, n, m, d, beta)
                centre = project(theta0[idx], Balls.of(c, d, (np.zeros(d), pr.unit_radius))) \
                    if self.preset == "corrected" else theta0[idx]
            else:  # the first stage answered ⊥: K' = K, R' its diameter (data-independent rule)
                radius = 2.0 * pr.unit_radius
                centre = np.zeros((c, d))
            outer = Balls.of(c, d, (np.zeros(d), pr.unit_radius), (centre, radius))
            lam = g * math.sqrt(d) / (radius * n * math.sqrt(m))  # [Alg 5-6, line 4]
            calls = inner.calls(n, m, d, unit_lambda=lam, epsilon=self.epsilon / 2, delta=self.delta / 2, beta=beta)
            start = project(theta0[idx] if keep is released else np.zeros((c, d)), outer)
            releases: list[NDArray[np.float64]] | None = [] if transcript else None
            theta, _ = run_phases(pr, unit, calls, base_reg=pr.unit_l2, start=start, outer=outer,
                                  project_outputs=self.preset == "corrected", engine=self.engine,
                                  max_states=self.max_states, rng=rng, releases=releases,
                                  draw_r1=rule, certificate_only=self._certificate_only, groups_cache=cache)
            out[idx] = theta
            if releases is not None:
                phase_cols = np.hstack(releases)
                if blocks is None:
                    blocks = np.zeros((size, phase_cols.shape[1]))
                blocks[idx] = phase_cols
        if transcript and blocks is not None:
            return transcript_units(np.hstack([first_cols, blocks, out]), pr.scale, d, True)
        return to_user_units(out, pr.scale)


@dataclass(frozen=True)
class StronglyConvexERM(_StronglyConvexBase):
    """Algorithm 5 [GKKMMZ23, App. B]: Strongly-Convex-ERM (see the module docstring)."""

    _inner_class: Any = PhasedERM

    def _radius(self, sigma: float, n: int, m: int, d: int, beta: float) -> float:
        if self.preset == "paper":
            return sigma * math.sqrt(d * math.log(1.0 / beta))  # [Alg 5, line 2]
        return sigma * (math.sqrt(d) + math.sqrt(2.0 * math.log(1.0 / beta)))  # Gaussian norm tail


@dataclass(frozen=True)
class StronglyConvexSCO(_StronglyConvexBase):
    """Algorithm 6 [GKKMMZ23, App. B]: Strongly-Convex-SCO (see the module docstring)."""

    _inner_class: Any = PhasedSCO

    def _radius(self, sigma: float, n: int, m: int, d: int, beta: float) -> float:
        pr = self.problem
        g, mu = pr.lipschitz(), pr.unit_l2
        if self.preset == "paper":
            return sigma * math.sqrt(d * math.log(1.0 / beta)) + g * math.sqrt(math.log(1.0 / beta)) / (mu * math.sqrt(n * m))
        return (sigma * (math.sqrt(d) + math.sqrt(2.0 * math.log(2.0 / beta)))
                + 30.0 * g * math.sqrt(math.log(4.0 / beta)) / (mu * math.sqrt(n * m)))  # Prop B.1 (E9)
