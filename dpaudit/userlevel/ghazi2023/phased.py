"""Algorithms 3 and 4: Phased-ERM and Phased-SCO (localisation around SCOutputPert).

Phase ``i = 1..T`` adds ``(lambda_i/2) ||theta - theta_hat_{i-1}||^2`` with ``lambda_i = lambda 4^i`` and
calls SCOutputPert with Lipschitz constant ``2G`` and strong convexity ``lambda_i`` on
``K_i = K ∩ B(theta_hat_{i-1}, G/lambda_i)`` [GKKMMZ23, Alg 3-4]:

* Phased-ERM (Alg 3): every phase on all users at ``(eps/T, delta/T)``, ``T = ceil(ln(nm))``
  (basic composition of T adaptive calls; the log is natural, which satisfies the proof's
  ``4^T >= n sqrt(m)/sqrt(d)``), ``beta' = beta/T``, ``lambda = G sqrt(d)/(R n sqrt(m))`` and
  ``beta = 1/(nm)`` by default (proof of Thm 4.1; R is the diameter of K);
* Phased-SCO (Alg 4): phase ``i`` on its own batch of users at the full ``(eps, delta)`` (parallel
  composition: each user is read by one phase, and later phases see earlier ones only through
  their private outputs).

A ⊥ from a phase keeps ``theta_hat_{i-1}`` (post-processing; never retried, never the non-private
minimiser, note P14). ``observe="transcript"`` releases every phase's ⊥ flag and ``theta_hat_i``
before the output (:mod:`dpaudit.userlevel.transcript`). Both run their trials as a batch: each trial has its own ``theta_hat_{i-1}``,
so every phase solves one problem per trial, certifies it (the fast path of
:mod:`.sc_output_pert`) and runs the exact search only for the trials the certificate does not decide.

Corrected preset (default) vs ``preset="paper"``
------------------------------------------------
* E6: the paper never projects, yet claims ``theta*_{l_i, K_i} = theta*_{l_i, K}``, which needs
  ``theta_hat_{i-1} in K``; the corrected preset projects every phase's output onto ``K``
  (post-processing) and then minimises over ``K`` itself, since the minimiser over ``K`` lies within
  ``G/lambda_i`` of ``theta_hat_{i-1}`` (checked in ``proofs/ghazi2023/localisation_radius.py``) and so equals the one over ``K_i``. The paper
  preset minimises over ``K_i`` as printed (when ``K_i`` is empty, which only its unprojected
  iterates allow, the printed step is undefined and ``K`` is used).
* Batches of Alg 4 (E7, P15): corrected: users ``floor(n/2^i) <= u < floor(n/2^{i-1})`` (0-based,
  disjoint), ``T = floor(log2(n/N_0))`` so every batch has at least ``N_0`` users; paper: the closed
  ranges ``[n/2^i, n/2^{i-1}]`` of 1-based users (consecutive batches share an end point when
  ``2^i`` divides ``n``: that user is read twice at full budget) and ``T = ceil(ln(n/N_0))``.
* E8(b): Phased-SCO's corrected ``lambda = (G/R) max(sqrt(d)/(n sqrt(m)), 1/sqrt(nm))`` (as in
  Feldman et al. 2020); the printed ``G sqrt(d)/(R n sqrt(m))`` leaves the generalisation term
  ``16 G R/sqrt(dm)``, above the rate when ``n >> d``.
* ``N_0 = 8 kappa + 2`` with kappa of SCOutputPert at ``(eps, delta)`` in both presets (the paper's
  ``C log(1/delta)/eps`` leaves ``C`` open; this is the smallest batch SCOutputPert accepts).

References
----------
.. [GKKMMZ23] B. Ghazi, P. Kamath, R. Kumar, R. Meka, P. Manurangsi and C. Zhang. On user-level
   private convex optimization. ICML 2023, Alg 3, Alg 4, Lemma 4.2, Lemma 5.2, Thms 4.1 and 5.1.
.. [FKT20] V. Feldman, T. Koren and K. Talwar. Private stochastic convex optimization: optimal rates
   in linear time. STOC 2020.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_int, check_positive
from dpaudit.guarantees import ApproxDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.mechanisms.discrete import sample_tdlap
from dpaudit.neighbors.relations import UserReplace
from dpaudit.userlevel.ghazi2023.del_output_pert import to_user_units
from dpaudit.userlevel.ghazi2023.erm import ERMProblem, UnitData
from dpaudit.userlevel.ghazi2023.parameters import alg1_parameters
from dpaudit.userlevel.ghazi2023.sc_output_pert import (
    SCParameters,
    check_mechanism_fields,
    default_threshold,
    resolve_sc,
    stable_centres,
)
from dpaudit.userlevel.ghazi2023.solver import Balls, project
from dpaudit.userlevel.transcript import Observe, check_observe

__all__ = ["PhaseCall", "PhaseRecord", "PhasedERM", "PhasedSCO", "run_phases", "transcript_units"]

_TRIAL_CHUNK = 4096

#: ``draw_r1(spec, size, rng)``: a phase's ``R1`` draws (a hook for the broken variants).
R1Rule = Callable[[SCParameters, int, np.random.Generator], NDArray[np.int64]]


@dataclass(frozen=True)
class PhaseCall:
    """One SCOutputPert call of a phased algorithm (unit coordinates).

    Its users, parameters, ``lambda_i`` and localisation radius ``G/lambda_i``.
    """

    index: int
    users: tuple[int, int] | NDArray[np.int64]
    spec: SCParameters
    reg: float
    radius: float

    @property
    def n_users(self) -> int:
        """The number of users the call runs on."""
        return self.spec.n_users


@dataclass(frozen=True, eq=False)
class PhaseRecord:
    """Per phase: the fraction of trials answered ⊥ and the fraction decided by the certificate."""

    bottom_rate: tuple[float, ...]
    certified_rate: tuple[float, ...]


def _batch(unit: UnitData, users: tuple[int, int] | NDArray[np.int64]) -> UnitData:
    if isinstance(users, tuple):
        return unit.users(slice(*users))
    return unit.users(users)


def run_phases(problem: ERMProblem, unit: UnitData, calls: list[PhaseCall], *, base_reg: float,
               start: NDArray[np.float64], outer: Balls, project_outputs: bool, engine: str,
               max_states: int | None, rng: np.random.Generator,
               releases: list[NDArray[np.float64]] | None = None,
               draw_r1: R1Rule | None = None, certificate_only: bool = False,
               groups_cache: dict[Any, Any] | None = None) -> tuple[NDArray[np.float64], PhaseRecord]:
    """Run the phases for ``P`` trials at once (``start`` ``(P, d)``, unit coordinates).

    ``releases``, if given, receives per phase the ``(P, 1 + d)`` transcript columns: the ⊥ flag
    and the phase's output ``theta_hat_i`` (unit coordinates; on ⊥ the previous one, a
    post-processing). The draws are the same either way. ``draw_r1`` (default ``TDLap(eps_bar,
    delta_bar)`` [Alg 1, line 4]) and ``certificate_only`` (⊥ whenever the certificate does not
    decide) exist for the broken variants of :mod:`.faulty_full` only.

    ``outer`` is the constraint set per trial (``K``, or ``K'`` in Alg 5-6). With ``project_outputs``
    (corrected preset) each phase minimises over ``outer`` and its output is projected onto it;
    otherwise the phase minimises over ``outer ∩ B(theta_hat_{i-1}, G/lambda_i)`` as printed. Per
    phase the draws are: ``R1`` for every trial, then the Gaussian vectors.
    """
    p, d = start.shape
    theta = start.copy()
    grouped: dict[Any, Any] = {} if groups_cache is None else groups_cache
    bottoms, certs = [], []
    for call in calls:
        key = call.users if isinstance(call.users, tuple) else call.users.tobytes()
        if key not in grouped:
            batch = _batch(unit, call.users)
            grouped[key] = (batch, problem.group(batch))
        batch, groups = grouped[key]
        total = base_reg + call.reg
        centre = (call.reg / total) * theta  # (base/2)||phi||^2 + (lam_i/2)||phi - theta||^2, up to a constant
        if project_outputs:
            balls = outer
        else:
            local = Balls.of(p, d, (theta, call.radius))
            balls = Balls(np.concatenate([outer.centres, local.centres], axis=1),
                          np.concatenate([outer.radii, local.radii], axis=1))
        res = stable_centres(problem, batch, groups, call.spec, centre=centre, balls=balls, engine=engine,
                             max_states=max_states)
        a = call.spec.alg1
        r1 = sample_tdlap(a.eps_bar, a.delta_bar, p, rng=rng, kappa=a.kappa) if draw_r1 is None else draw_r1(call.spec, p, rng)
        noisy = res.centre + rng.normal(0.0, a.sigma, size=(p, d))
        k = np.where(res.certified, 0, -1) if certificate_only else res.k
        bottom = (r1 < k) | (k < 0)
        theta = np.where(bottom[:, None], theta, noisy)  # ⊥: keep theta_hat_{i-1} (post-processing)
        if project_outputs:
            theta = project(theta, outer)  # E6: keeps theta_hat_i in K (post-processing)
        if releases is not None:
            releases.append(np.column_stack([bottom.astype(float), theta]))
        bottoms.append(float(bottom.mean()))
        certs.append(float(res.certified.mean()))
    return theta, PhaseRecord(tuple(bottoms), tuple(certs))


def transcript_units(rows: NDArray[np.float64], scale: float, dim: int, transcript: bool) -> NDArray[np.float64]:
    """Outputs (or transcript rows of ``(flag, theta)`` blocks and the output) mapped back to the user's units.

    Only the vectors are scaled (:func:`~.del_output_pert.to_user_units`); the ⊥ flags stay 0/1.
    """
    if not transcript:
        return to_user_units(rows, scale)
    out = to_user_units(rows, scale)
    flags = np.arange(0, rows.shape[1] - dim, 1 + dim)
    out[:, flags] = rows[:, flags]
    return out


@dataclass(frozen=True)
class _PhasedBase(MechanismBase):
    problem: ERMProblem
    epsilon: float
    delta: float
    beta: float | None = None
    regulariser: float | None = None
    threshold: str | None = None
    preset: str = "corrected"
    engine: str = "auto"
    solver_rtol: float = 1e-10
    max_states: int | None = 5_000_000
    observe: Observe = "final"

    #: Hooks for the broken variants (:mod:`.faulty_full`); the correct algorithm draws TDLap [Alg 1, line 4].
    _r1_rule: ClassVar[R1Rule | None] = None
    _certificate_only: ClassVar[bool] = False

    #: The steps a faulty variant may replace, and nothing else (:mod:`dpaudit.userlevel.steps`).
    STEPS: ClassVar[tuple[str, ...]] = ("_r1_rule", "_certificate_only")

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_observe(owner, self.observe)
        if self.regulariser is not None:
            check_positive(owner, "regulariser", self.regulariser)
        check_mechanism_fields(owner, problem=self.problem, epsilon=self.epsilon, delta=self.delta, preset=self.preset,
                               threshold=self.threshold, engine=self.engine, solver_rtol=self.solver_rtol,
                               beta=self.beta, max_states=self.max_states)

    @property
    def threshold_kind(self) -> str:
        return default_threshold(self.threshold, self.preset)

    def _call(self, index: int, users: tuple[int, int] | NDArray[np.int64], n_users: int, m: int, d: int,
              eps: float, dlt: float, beta: float, lam: float) -> PhaseCall:
        """Phase ``index``: SCOutputPert with Lipschitz 2G and strong convexity lambda 4^i (+ the loss's own l2)."""
        g = self.problem.lipschitz()
        lam_i = lam * 4.0**index  # [GKKMMZ23, Alg 3 line 8, Alg 4 line 8]
        spec = resolve_sc(self.problem, epsilon=eps, delta=dlt, beta=beta, n_users=n_users, m_items=m, dim=d,
                          reg=self.problem.unit_l2 + lam_i, lipschitz=2.0 * g, threshold=self.threshold_kind,
                          preset=self.preset, rtol=self.solver_rtol, owner=type(self).__name__)
        if n_users < spec.min_users:
            raise argument_error(type(self).__name__, "n_users", f"phases of at least 8 kappa' + 2 = {spec.min_users} "
                                 f"users (kappa' = {spec.alg1.kappa}; phase {index} has {n_users})", n_users)
        return PhaseCall(index, users, spec, lam_i, g / lam_i)

    def claimed_guarantee(self) -> ApproxDP:
        """``(epsilon, delta)``-DP under user-level replacement [GKKMMZ23, Thms 4.1 and 5.1]."""
        return ApproxDP(self.epsilon, self.delta, UserReplace())

    def _beta(self, n: int, m: int) -> float:
        return self.beta if self.beta is not None else 1.0 / (n * m)  # proofs of Thms 4.1 and 5.1

    def _unit_lambda(self, n: int, m: int, d: int) -> float:
        raise NotImplementedError

    def calls(self, n_users: int, m_items: int, dim: int, *, unit_lambda: float | None = None,
              epsilon: float | None = None, delta: float | None = None,
              beta: float | None = None) -> list[PhaseCall]:
        """The SCOutputPert calls for ``n_users`` users (all public); raises when a call would have too few users.

        ``unit_lambda`` (lambda in unit coordinates), ``epsilon``, ``delta`` and ``beta`` override the
        mechanism's own (Algorithms 5-6 run the phases at ``(eps/2, delta/2)`` with their own lambda).
        """
        n, m, d = n_users, m_items, dim
        return self._calls(n, m, d, self.epsilon if epsilon is None else epsilon, self.delta if delta is None else delta,
                           self._beta(n, m) if beta is None else beta,
                           self._unit_lambda(n, m, d) if unit_lambda is None else unit_lambda)

    def _calls(self, n: int, m: int, d: int, eps: float, dlt: float, b: float, lam: float) -> list[PhaseCall]:
        raise NotImplementedError

    def min_users(self, m_items: int, dim: int = 1) -> int:
        """The fewest users for which every phase gets at least ``8 kappa + 2`` users (all public)."""
        raise NotImplementedError

    def _first_feasible(self, candidates: Any, m_items: int, dim: int) -> int:
        for n in candidates:
            try:
                self.calls(n, m_items, dim)
            except ValueError:
                continue
            return int(n)
        raise argument_error(type(self).__name__, "m_items", "a configuration some n can satisfy", m_items)

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> tuple[NDArray[np.float64], list[PhaseRecord]]:
        owner = f"{type(self).__name__}.sample"
        size = check_size(owner, size)
        unit = self.problem.unit_data(data, owner)
        n, m, d = unit.shape
        calls = self.calls(n, m, d)
        pr = self.problem
        outs, records = [], []
        cache: dict[Any, Any] = {}  # the batches grouped once per dataset, not per chunk of trials
        for start in range(0, size, _TRIAL_CHUNK):
            c = min(_TRIAL_CHUNK, size - start)
            theta0 = np.zeros((c, d))  # theta_hat_0 = Pi_K(0), fixed and data-independent
            outer = Balls.of(c, d, (np.zeros(d), pr.unit_radius))
            releases: list[NDArray[np.float64]] | None = [] if self.observe == "transcript" else None
            theta, rec = run_phases(pr, unit, calls, base_reg=pr.unit_l2, start=theta0, outer=outer,
                                    project_outputs=self.preset == "corrected", engine=self.engine,
                                    max_states=self.max_states, rng=rng, releases=releases,
                                    draw_r1=type(self)._r1_rule, certificate_only=self._certificate_only,
                                    groups_cache=cache)
            outs.append(theta if releases is None else np.hstack([*releases, theta]))
            records.append(rec)
        return transcript_units(np.concatenate(outs), pr.scale, d, self.observe == "transcript"), records

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` outputs ``theta_hat_T`` (shape ``(size, d)``) on ``data`` ``(n_users, m_items, d + 1)``.

        With ``observe="transcript"`` (:mod:`dpaudit.userlevel.transcript`) every run's transcript:
        per phase the ⊥ flag and ``theta_hat_i`` (``1 + d`` numbers), then the output.
        """
        return self._sample(data, size, rng)[0]

    def sample_with_record(self, data: Any, size: int, *,
                           rng: np.random.Generator) -> tuple[NDArray[np.float64], list[PhaseRecord]]:
        """Like :meth:`sample`, with per-phase ⊥ and certificate rates (one record per chunk of trials)."""
        return self._sample(data, size, rng)


@dataclass(frozen=True)
class PhasedERM(_PhasedBase):
    """Algorithm 3 [GKKMMZ23]: Phased-ERM for a convex, G-Lipschitz loss on ``K``.

    ``regulariser`` is lambda in the user's units (default Thm 4.1's ``G sqrt(d)/(R n sqrt(m))``,
    R the diameter of K); ``beta`` defaults to ``1/(nm)``. The problem's own ``l2`` (if any) stays in
    the loss.
    """

    def _unit_lambda(self, n: int, m: int, d: int) -> float:
        pr = self.problem
        if self.regulariser is not None:
            return pr.to_unit_l2(self.regulariser)
        return pr.lipschitz() * math.sqrt(d) / (2.0 * pr.unit_radius * n * math.sqrt(m))  # [proof of Thm 4.1]

    def min_users(self, m_items: int, dim: int = 1) -> int:
        """Smallest n with ``n >= 8 kappa'(T) + 2``, ``T = ceil(ln(n m))``: scanned one value of T at a time."""
        m = check_int(type(self).__name__, "m_items", m_items, minimum=1)
        candidates: list[int] = []
        for phases in range(1, 80):
            lo = max(2, math.floor(math.exp(phases - 1) / m) + 1)  # ceil(ln(n m)) = phases on (e^{T-1}/m, e^T/m]
            kap = alg1_parameters(self.epsilon / phases, self.delta / phases, 1.0, preset=self.preset).kappa
            candidates.extend(range(max(lo, 8 * kap + 2), max(lo, 8 * kap + 2) + 3))
        return self._first_feasible(sorted(set(candidates)), m, dim)

    def _calls(self, n: int, m: int, d: int, eps: float, dlt: float, b: float, lam: float) -> list[PhaseCall]:
        phases = max(1, math.ceil(math.log(n * m)))  # [GKKMMZ23, Alg 3, line 3], natural log
        # every phase on all users at (eps/T, delta/T, beta/T): basic composition [Alg 3, lines 4-5]
        return [self._call(i, (0, n), n, m, d, eps / phases, dlt / phases, b / phases, lam) for i in range(1, phases + 1)]


@dataclass(frozen=True)
class PhasedSCO(_PhasedBase):
    """Algorithm 4 [GKKMMZ23]: Phased-SCO on disjoint batches of users (see the module docstring).

    ``regulariser`` is lambda in the user's units (default: E8(b)'s corrected value, or Thm 5.1's
    printed one under ``preset="paper"``); ``beta`` defaults to ``1/(nm)``.
    """

    def _unit_lambda(self, n: int, m: int, d: int) -> float:
        pr = self.problem
        if self.regulariser is not None:
            return pr.to_unit_l2(self.regulariser)
        g_over_r = pr.lipschitz() / (2.0 * pr.unit_radius)
        printed = math.sqrt(d) / (n * math.sqrt(m))  # [GKKMMZ23, proof of Thm 5.1]
        return g_over_r * (printed if self.preset == "paper" else max(printed, 1.0 / math.sqrt(n * m)))  # E8(b)

    def batch_zero(self) -> int:
        """``N_0 = 8 kappa + 2`` (kappa of SCOutputPert at the full budget)."""
        return 8 * alg1_parameters(self.epsilon, self.delta, 1.0, preset=self.preset).kappa + 2

    def batches(self, n_users: int, *, batch_zero: int | None = None) -> list[NDArray[np.int64]]:
        """The users (0-based) of each phase (see the module docstring for both presets)."""
        n = n_users
        n0 = self.batch_zero() if batch_zero is None else batch_zero
        if n < 2 * n0:
            raise argument_error(type(self).__name__, "n_users", f"at least 2 N_0 = {2 * n0} (one batch of N_0 users)", n)
        if self.preset == "corrected":
            phases = math.floor(math.log2(n / n0))  # docs/papers/ghazi2023.md, erratum E7
            return [np.arange(n // 2**i, n // 2 ** (i - 1)) for i in range(1, phases + 1)]
        phases = max(1, math.ceil(math.log(n / n0)))  # [GKKMMZ23, Alg 4, line 4]
        # 1-based users l in [n/2^i, n/2^{i-1}] [Alg 4, line 12]: 0-based ceil(n/2^i) - 1 .. floor(n/2^{i-1}) - 1
        return [np.arange(max(1, -(-n // 2**i)) - 1, n // 2 ** (i - 1)) for i in range(1, phases + 1)]

    def min_users(self, m_items: int, dim: int = 1) -> int:
        """At least ``2 N_0``; under the paper's batches the last one can fall short, so scan from there."""
        n0 = self.batch_zero()
        return self._first_feasible(range(2 * n0, 64 * n0), m_items, dim)

    def _calls(self, n: int, m: int, d: int, eps: float, dlt: float, b: float, lam: float) -> list[PhaseCall]:
        n0 = 8 * alg1_parameters(eps, dlt, 1.0, preset=self.preset).kappa + 2
        batches = self.batches(n, batch_zero=n0)
        # each batch at the full (eps, delta): parallel composition [proof of Thm 5.1]
        return [self._call(i, users, users.size, m, d, eps, dlt, b / len(batches), lam)
                for i, users in enumerate(batches, start=1)]
