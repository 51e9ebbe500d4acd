"""Algorithm 2, SCOutputPert: Algorithm 1 applied to the minimiser of a strongly convex regularised loss.

``SCOutputPert_{eps, delta, beta, G, mu, K}(l; x) = DelOutputPert_{eps, delta, Delta}(f; x)`` with
``f(y) = argmin_{theta in K} L(theta; y)`` [GKKMMZ23, Alg 2]. Private for every dataset: Delta is
fixed before the data are seen, and ``f`` is a deterministic function of the retained users.

Which search runs (``engine``)
------------------------------
``"auto"`` (default) is the certified fast path of App. C (note ALG-C) in front of the exact
type-canonical search:

1. solve ``f(x)`` once and compute the certificate ``gamma = max_i ||g_i - g_bar||``, the spread of
   the users' mean gradients at the solution (Lemma C.1, centred as in erratum E5 so that it is
   valid when ``K`` binds);
2. if ``gamma + 2 L_s tau <= gamma_max(Delta)`` (:func:`~.parameters.certificate_radius`; ``L_s``
   bounds the per-item Hessian, ``tau`` the solver error) then every deletion step inside the
   horizon moves the *computed* minimiser by at most Delta, so ``x`` itself is stable: ``k(x) = 0``
   and Alg 1 would release ``f(x) + Z`` for every ``R1``. The fast path releases exactly that, so its
   output distribution *is* Alg 1's;
3. otherwise the exact type-canonical search (:func:`~.stability.typed_stability`) runs, with the
   same Delta. Never "⊥ when the certificate fails" (a deterministic test, note P4).

``"translate"`` (the squared loss in ``d = 1`` with every item's feature of the same length):
there every sub-dataset's minimiser over ``K`` is ``(b_w + mu c)/(a + mu)`` (``b_w`` its mean
label-feature product, ``a`` the common squared feature length, ``c`` the regulariser's centre)
whenever that point lies inside the constraint balls, so every deletion's move, and with it the
whole typed search (``k`` and the chosen sub-dataset), is the same for every centre ``c`` for
which *all* sub-datasets' points are inside (checked per problem from the extreme ``b`` over the
types: a sub-dataset's ``b_w`` is a mean of the types' ``b``). For those problems the search runs
once, at ``c = 0``, and the centre is translated by ``mu c/(a + mu)``; the others run step 3. In
exact arithmetic this is the typed search's ``f``; in floats it is another deterministic ``f`` of
the retained users (rounded differently), and Alg 1 is private for every deterministic ``f``
[GKKMMZ23, Thm 3.3], so the claim is unchanged. It makes the phased algorithms' later phases
(one regulariser centre per trial) cost one search per phase.

``"typed"`` always runs step 3; ``"exact"`` enumerates bitmasks over users (at most 20; the test
reference). All three give the same distribution (tested statistically on ``n <= 12``). With the
``"certified"`` threshold (the default of the corrected preset) the certificate holds w.p.
``>= 1 - beta`` over a random permutation of the items, and the mechanism runs in polynomial time;
otherwise the typed search costs grows with the number of *distinct* users, exponentially in the
worst case (the paper's own running time, Sec. 6), and ``max_states`` bounds it. The branch taken
depends on the data, so running time is a side channel outside the output-DP model (note P16).

Solver error and the privacy claim
----------------------------------
Alg 1 is private for *any* deterministic ``f``, so the solver's error does not enter the privacy
claim of the typed and exact searches: their ``f`` is the solver's output, and stability is checked
on it. The certified path is equivalent to them only if the certificate bounds the computed ``f`` on
every sub-dataset the search would have touched. The solver guarantees ``||f_hat - theta*|| <= tau``
for every problem (:mod:`.solver`), the certified threshold adds ``2 tau`` and the certificate
``2 L_s tau``, so the bound covers the computed values. When the a-priori iteration bound of the
solver exceeds its cap (a public property of the configuration), the fast path is switched off.

References
----------
.. [GKKMMZ23] B. Ghazi, P. Kamath, R. Kumar, R. Meka, P. Manurangsi and C. Zhang. On user-level
   private convex optimization. ICML 2023, Alg 2, Thm 3.1, Thm 3.6, Lemma C.1 and App. C.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_int, check_one_of, check_positive
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.guarantees import ApproxDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.mechanisms.discrete import sample_tdlap
from dpaudit.neighbors.relations import UserReplace
from dpaudit.userlevel.ghazi2023.del_output_pert import release
from dpaudit.userlevel.ghazi2023.erm import ERMProblem, GroupedData, UnitData
from dpaudit.userlevel.ghazi2023.parameters import (
    PAPER_FLAW,
    PRESETS,
    THRESHOLDS,
    DelOutputPertParameters,
    alg1_parameters,
    certificate_radius,
    check_beta,
    deletion_threshold,
    min_users_for,
)
from dpaudit.userlevel.ghazi2023.solver import (
    MAX_FISTA_ITERATIONS,
    Balls,
    fista_iteration_bound,
    group_gradients,
    minimise,
    solver_tolerance,
)
from dpaudit.userlevel.ghazi2023.stability import (
    bitmask_stability,
    count_deletion_states,
    typed_stability,
)

__all__ = ["SC_ENGINES", "SCOutputPert", "SCParameters", "StableCentres", "check_mechanism_fields", "default_threshold",
           "resolve_sc", "stable_centres"]

SC_ENGINES: tuple[str, ...] = ("auto", "typed", "exact", "translate")
_MIN_CONDITION = 1e-12
_PROBLEM_STATES = 1 << 22  # problems x states x types per chunk of the typed search


@dataclass(frozen=True)
class SCParameters:
    """One SCOutputPert call resolved, in the unit-free coordinates of :mod:`.erm` (multiply by ``scale``).

    ``alg1`` holds Delta and sigma; ``lipschitz`` (G) and ``reg`` (mu) are those Delta is computed
    from; ``tolerance`` is the solver's guaranteed accuracy; ``certificate`` the largest
    certifying gradient spread (ALG-C); ``min_users = 8 kappa + 2``.
    """

    threshold_kind: str
    preset: str
    beta: float
    n_users: int
    m_items: int
    scale: float
    lipschitz: float
    reg: float
    tolerance: float
    certificate: float
    certificate_enabled: bool
    alg1: DelOutputPertParameters
    min_users: int

    @property
    def threshold(self) -> float:
        """Delta in the user's units."""
        return self.alg1.threshold * self.scale

    @property
    def sigma(self) -> float:
        """sigma in the user's units."""
        return self.alg1.sigma * self.scale


def resolve_sc(problem: ERMProblem, *, epsilon: float, delta: float, beta: float, n_users: int, m_items: int,
               dim: int, reg: float, lipschitz: float, threshold: str, preset: str, kappa: int | None = None,
               rtol: float = 1e-10, centre_norm: float = 0.0, owner: str = "SCOutputPert") -> SCParameters:
    """Resolve SCOutputPert for ``n_users`` users of ``m_items`` items (all numbers public).

    ``reg`` is the strong convexity mu and ``lipschitz`` the G of the call, both in unit coordinates
    (Alg 3-6 pass ``2G`` and ``lambda_i``).
    """
    beta = check_beta(owner, beta)
    if not reg / (problem.unit_smoothness + reg) >= _MIN_CONDITION:
        raise argument_error(owner, "problem", f"a strong convexity mu above the float resolution of the loss's curvature "
                             f"(mu/(L + mu) = {reg / (problem.unit_smoothness + reg):.3g} < {_MIN_CONDITION:g} in unit "
                             "coordinates): the minimiser cannot be computed to the accuracy the mechanism needs",
                             problem)
    # kappa does not depend on Delta: resolve it once with a placeholder Delta
    kap = alg1_parameters(epsilon, delta, 1.0, preset=preset, kappa=kappa, owner=owner).kappa
    tau = solver_tolerance(problem, reg, rtol)
    value = deletion_threshold(threshold, lipschitz=lipschitz, strong_convexity=reg, beta=beta, n_users=n_users,
                               m_items=m_items, kappa=kap, preset=preset, tolerance=tau, owner=owner)
    alg1 = alg1_parameters(epsilon, delta, value, preset=preset, kappa=kappa, output_scale=problem.scale, owner=owner)
    enabled = dim == 1 or fista_iteration_bound(problem, reg, tau, problem.unit_radius, centre_norm) <= MAX_FISTA_ITERATIONS
    cert = certificate_radius(value, strong_convexity=reg, n_users=n_users, kappa=kap, tolerance=tau) \
        if n_users > 4 * kap + 1 else -math.inf
    return SCParameters(threshold, preset, beta, n_users, m_items, problem.scale, lipschitz, reg, tau, cert, enabled,
                        alg1, min_users_for(kap))


def check_mechanism_fields(owner: str, *, problem: Any, epsilon: float, delta: float, preset: str,
                           threshold: str | None, engine: str, solver_rtol: float, beta: float | None,
                           max_states: int | None, kappa: int | None = None, strongly_convex: bool = False) -> None:
    """The field checks shared by Algorithms 2-6 (and the paper preset's warning)."""
    if not isinstance(problem, ERMProblem):
        raise argument_error(owner, "problem", "an ERMProblem", problem)
    if strongly_convex and problem.l2 <= 0:
        raise argument_error(owner, "problem", "a strongly convex problem: l2 > 0 (mu = l2) [GKKMMZ23, Thm 3.1]", problem)
    check_one_of(owner, "preset", preset, PRESETS)
    if threshold is not None:
        check_one_of(owner, "threshold", threshold, THRESHOLDS)
    check_one_of(owner, "engine", engine, SC_ENGINES)
    check_positive(owner, "solver_rtol", solver_rtol)
    if beta is not None:
        check_beta(owner, beta)
    if max_states is not None:
        check_int(owner, "max_states", max_states, minimum=1)
    alg1_parameters(epsilon, delta, 1.0, preset=preset, kappa=kappa, owner=owner)
    if preset == "paper":
        warnings.warn(f"{owner}(preset='paper') is deliberately unsound: {PAPER_FLAW}", UnsoundMechanismWarning,
                      stacklevel=4)


def default_threshold(threshold: str | None, preset: str) -> str:
    """The threshold used: as given, else ``"certified"`` (corrected preset) or ``"printed"`` (paper preset)."""
    if threshold is not None:
        return threshold
    return "certified" if preset == "corrected" else "printed"


@dataclass(frozen=True, eq=False)
class StableCentres:
    """Per problem: ``k`` (``-1``: ⊥ for every R1), the centre (unit coordinates) and whether the certificate decided."""

    k: NDArray[np.int64]
    centre: NDArray[np.float64]
    certified: NDArray[np.bool_]
    states: int
    #: per problem, whether the ``"translate"`` engine answered it from its search at ``c = 0`` (None: other engines)
    translated: NDArray[np.bool_] | None = None


def _typed_chunk(problem: ERMProblem, groups: GroupedData, spec: SCParameters, centre: NDArray[np.float64],
                 balls: Balls, max_states: int | None) -> tuple[NDArray[np.int64], NDArray[np.float64], int]:
    p = centre.shape[0]

    def values(states: NDArray[np.int64]) -> NDArray[np.float64]:
        s = states.shape[0]
        weights = np.tile(groups.counts[None] - states, (p, 1)).astype(float)
        rep = np.repeat(np.arange(p), s)
        out = minimise(problem, groups, weights, reg=spec.reg, centre=centre[rep], balls=balls.take(rep),
                       tau=spec.tolerance)
        return out.reshape(p, s, -1)

    res = typed_stability(groups.counts, values, kappa=spec.alg1.kappa, threshold=spec.alg1.threshold,
                          max_states=max_states)
    return res.k, res.centre, res.states


def _typed(problem: ERMProblem, groups: GroupedData, spec: SCParameters, centre: NDArray[np.float64], balls: Balls,
           max_states: int | None) -> tuple[NDArray[np.int64], NDArray[np.float64], int]:
    """The typed search for every problem, in chunks so that problems x states stays bounded in memory."""
    states = count_deletion_states(groups.counts, 4 * spec.alg1.kappa + 1)
    if max_states is not None and states > max_states:  # refuse before any work (typed_stability says why)
        return _typed_chunk(problem, groups, spec, centre[:1], balls.take(np.array([0])), max_states)
    chunk = max(1, _PROBLEM_STATES // max(1, states * groups.n_types))
    parts = [_typed_chunk(problem, groups, spec, centre[i:i + chunk], balls.take(np.arange(i, min(i + chunk, len(centre)))),
                          max_states) for i in range(0, len(centre), chunk)]
    return np.concatenate([q[0] for q in parts]), np.concatenate([q[1] for q in parts]), parts[0][2]


def _exact(problem: ERMProblem, unit: UnitData, spec: SCParameters, centre: NDArray[np.float64],
           balls: Balls) -> tuple[NDArray[np.int64], NDArray[np.float64], int]:
    groups = problem.per_user_groups(unit)
    n = groups.n_types
    ks, cs, states = [], [], 0
    for i in range(centre.shape[0]):
        def values(masks: NDArray[np.int64], i: int = i) -> NDArray[np.float64]:
            keep = (((masks[:, None] >> np.arange(n)) & 1) == 0).astype(float)
            rep = np.zeros(masks.size, dtype=np.int64) + i
            return minimise(problem, groups, keep, reg=spec.reg, centre=centre[rep], balls=balls.take(rep),
                            tau=spec.tolerance)

        res = bitmask_stability(n, values, kappa=spec.alg1.kappa, threshold=spec.alg1.threshold)
        ks.append(res.k[0])
        cs.append(res.centre[0])
        states += res.states
    return np.asarray(ks, dtype=np.int64), np.stack(cs), states


def _interior(problem: ERMProblem, groups: GroupedData, spec: SCParameters, centre: NDArray[np.float64],
              balls: Balls) -> tuple[NDArray[np.bool_], float] | None:
    """Per problem, whether every sub-dataset's unconstrained minimiser is strictly inside the balls (see ``"translate"``).

    None when the closed form does not apply (not the squared loss in ``d = 1``, or the types' squared
    feature lengths differ). Also returns the common ``a``.
    """
    if not problem.is_squared or centre.shape[1] != 1 or groups.second_moment is None or groups.cross_moment is None:
        return None
    a_all = groups.second_moment[:, 0, 0]
    if not np.all(a_all == a_all[0]):
        return None
    a, mu = float(a_all[0]), spec.reg
    b = groups.cross_moment[:, 0]
    lo = (float(b.min()) + mu * centre[:, 0]) / (a + mu)  # a sub-dataset's b_w is a mean of the types' b
    hi = (float(b.max()) + mu * centre[:, 0]) / (a + mu)
    margin = 1e-9 * (1.0 + np.abs(balls.radii))  # strictly inside, well beyond rounding
    ok = np.all((np.abs(lo[:, None] - balls.centres[:, :, 0]) <= balls.radii - margin)
                & (np.abs(hi[:, None] - balls.centres[:, :, 0]) <= balls.radii - margin), axis=1)
    return ok, a


_REFERENCES: dict[tuple[Any, ...], tuple[NDArray[np.int64], NDArray[np.float64], int]] = {}


def _reference(problem: ERMProblem, groups: GroupedData, spec: SCParameters, zero: NDArray[np.float64], balls: Balls,
               max_states: int | None) -> tuple[NDArray[np.int64], NDArray[np.float64], int]:
    """The typed search at ``c = 0``, remembered by content (the phases of every chunk of trials share it)."""
    assert groups.second_moment is not None and groups.cross_moment is not None  # checked by _interior
    key = (repr(problem), repr(spec), max_states, groups.counts.tobytes(), groups.cross_moment.tobytes(),
           groups.second_moment.tobytes(), balls.centres.tobytes(), balls.radii.tobytes())
    if key not in _REFERENCES:
        if len(_REFERENCES) >= 64:
            _REFERENCES.clear()
        _REFERENCES[key] = _typed(problem, groups, spec, zero, balls, max_states)
    return _REFERENCES[key]


def _translated(problem: ERMProblem, groups: GroupedData, spec: SCParameters, centre: NDArray[np.float64],
                balls: Balls, max_states: int | None) -> StableCentres:
    """The ``"translate"`` engine (module docstring): one typed search at ``c = 0`` for every interior problem."""
    p = centre.shape[0]
    k = np.zeros(p, dtype=np.int64)
    out = np.zeros_like(centre)
    checked = _interior(problem, groups, spec, centre, balls)
    moved = np.zeros(p, dtype=bool)
    states = 0
    if checked is not None:
        ok, a = checked
        zero = np.zeros((1, 1))
        if ok.any():
            ref_balls = balls.take(np.flatnonzero(ok)[:1])
            ref_ok, _ = _interior(problem, groups, spec, zero, ref_balls)  # type: ignore[misc]
            if ref_ok[0]:
                kr, cr, states = _reference(problem, groups, spec, zero, ref_balls, max_states)
                moved = ok
                k[ok] = kr[0]
                # k = -1 (⊥ for every R1): no centre, 0 as the typed search leaves it
                out[ok] = cr[0] + (spec.reg / (a + spec.reg)) * centre[ok] if kr[0] >= 0 else 0.0
    rest = np.flatnonzero(~moved)
    if rest.size:
        kr, cr, s2 = _typed(problem, groups, spec, centre[rest], balls.take(rest), max_states)
        k[rest], out[rest] = kr, cr
        states = max(states, s2)
    return StableCentres(k, out, np.zeros(p, dtype=bool), states, moved)


def stable_centres(problem: ERMProblem, unit: UnitData, groups: GroupedData, spec: SCParameters, *,
                   centre: NDArray[np.float64], balls: Balls, engine: str, max_states: int | None) -> StableCentres:
    """``(k, f(x_{-S*}))`` of ``P`` SCOutputPert problems on the same users.

    Regulariser centres and constraint balls may differ per problem (see the module docstring for
    the engines). Identical problems (e.g. every trial of a first phase) are solved once.
    """
    p = centre.shape[0]
    key = np.concatenate([centre, balls.centres.reshape(p, -1), balls.radii], axis=1)
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    if first.size < p:
        sub = _stable_centres(problem, unit, groups, spec, centre=centre[first], balls=balls.take(first),
                              engine=engine, max_states=max_states)
        inv = inverse.reshape(-1)
        moved = None if sub.translated is None else sub.translated[inv]
        return StableCentres(sub.k[inv], sub.centre[inv], sub.certified[inv], sub.states, moved)
    return _stable_centres(problem, unit, groups, spec, centre=centre, balls=balls, engine=engine, max_states=max_states)


def _stable_centres(problem: ERMProblem, unit: UnitData, groups: GroupedData, spec: SCParameters, *,
                    centre: NDArray[np.float64], balls: Balls, engine: str, max_states: int | None) -> StableCentres:
    p = centre.shape[0]
    if engine == "translate":
        return _translated(problem, groups, spec, centre, balls, max_states)
    if engine == "exact":
        k, c, states = _exact(problem, unit, spec, centre, balls)
        return StableCentres(k, c, np.zeros(p, dtype=bool), states)
    k = np.zeros(p, dtype=np.int64)
    out = np.zeros_like(centre)
    passed = np.zeros(p, dtype=bool)
    if engine == "auto" and spec.certificate_enabled and spec.certificate >= 0:
        phi = minimise(problem, groups, groups.counts.astype(float), reg=spec.reg, centre=centre, balls=balls,
                       tau=spec.tolerance)
        grads = group_gradients(problem, groups, phi)  # (P, types, d); the regulariser cancels in the spread
        mean = np.einsum("t,ptd->pd", groups.counts / groups.counts.sum(), grads)
        gamma = np.linalg.norm(grads - mean[:, None], axis=-1).max(axis=1)
        passed = gamma + 2.0 * problem.unit_smoothness * spec.tolerance <= spec.certificate  # [App. C; Note002 ALG-C]
        out[passed] = phi[passed]
    states = 0
    rest = np.flatnonzero(~passed)
    if rest.size:
        kr, cr, states = _typed(problem, groups, spec, centre[rest], balls.take(rest), max_states)
        k[rest], out[rest] = kr, cr
    return StableCentres(k, out, passed, states)


@dataclass(frozen=True)
class SCOutputPert(MechanismBase):
    """Algorithm 2 [GKKMMZ23]: ``(epsilon, delta)``-DP output perturbation of the regularised ERM minimiser.

    Parameters
    ----------
    problem : ERMProblem
        Loss, constraint radius, declared data domain and ``l2 > 0`` (the strong convexity mu).
    epsilon, delta : float
        Budget: ``epsilon`` in (0, 1], ``delta`` in (0, 1/2].
    beta : float
        Failure probability of the utility statement, in (0, 1/e); enters Delta only.
    threshold : {"printed", "union_bound", "certified"} or None
        Delta (:mod:`~dpaudit.userlevel.ghazi2023.parameters`); None: ``"certified"`` under the corrected preset, ``"printed"``
        under the paper preset.
    preset : {"corrected", "paper"}
        ``"paper"`` warns :class:`~dpaudit.errors.UnsoundMechanismWarning`.
    engine : {"auto", "typed", "exact", "translate"}
        The stability search (module docstring).
    kappa : int, optional
        Override of ``kappa`` for structure tests at tiny ``n`` (the claimed delta grows).
    solver_rtol : float
        Solver accuracy relative to the radius of any minimiser.
    max_states : int or None
        Bound on the exact search; None: unbounded.

    Outputs have shape ``(size, d + 1)``: the ⊥ flag, then the released vector (see :mod:`.del_output_pert`).
    """

    problem: ERMProblem
    epsilon: float
    delta: float
    beta: float = 0.01
    threshold: str | None = None
    preset: str = "corrected"
    engine: str = "auto"
    kappa: int | None = None
    solver_rtol: float = 1e-10
    max_states: int | None = 5_000_000

    #: The steps a faulty variant may replace, and nothing else (:mod:`dpaudit.userlevel.steps`).
    STEPS: ClassVar[tuple[str, ...]] = ("_draw_r1", "_centres")

    def __post_init__(self) -> None:
        check_mechanism_fields(type(self).__name__, problem=self.problem, epsilon=self.epsilon, delta=self.delta,
                               preset=self.preset, threshold=self.threshold, engine=self.engine,
                               solver_rtol=self.solver_rtol, beta=self.beta, max_states=self.max_states,
                               kappa=self.kappa, strongly_convex=True)

    @property
    def threshold_kind(self) -> str:
        """The threshold rule in force: ``threshold`` when given, else ``"certified"`` (corrected preset) or ``"printed"`` (paper)."""
        return default_threshold(self.threshold, self.preset)

    def parameters(self, n_users: int, m_items: int, dim: int) -> SCParameters:
        """Every parameter for ``n_users`` users of ``m_items`` items in ``dim`` dimensions."""
        owner = type(self).__name__
        n = check_int(owner, "n_users", n_users, minimum=1)
        m = check_int(owner, "m_items", m_items, minimum=1)
        d = check_int(owner, "dim", dim, minimum=1)
        pr = self.problem
        return resolve_sc(pr, epsilon=self.epsilon, delta=self.delta, beta=self.beta, n_users=n, m_items=m, dim=d,
                          reg=pr.unit_l2, lipschitz=pr.lipschitz(), threshold=self.threshold_kind, preset=self.preset,
                          kappa=self.kappa, rtol=self.solver_rtol, owner=owner)

    def min_users(self) -> int:
        """``8 kappa + 2`` [GKKMMZ23, Thm 3.1 with r = 4 kappa <= n/2; note ALG-1]."""
        kap = alg1_parameters(self.epsilon, self.delta, 1.0, preset=self.preset, kappa=self.kappa).kappa
        return min_users_for(kap)

    def claimed_guarantee(self) -> ApproxDP:
        """``(epsilon, delta)``-DP under user-level replacement [GKKMMZ23, Thm 3.1 via Thm 3.3].

        The claim covers the declared domain: every dataset inside the problem's bounds whose
        stability search fits in ``max_states`` (all of them with ``max_states=None``, or whenever the
        certificate decides). A dataset outside it is refused with
        :class:`~dpaudit.userlevel.ghazi2023.stability.EnumerationTooLarge` before any randomness is
        drawn, as data outside the bounds are; that refusal, like the running time, is visible to
        whoever runs the mechanism and lies outside the output-DP model (the note's P16).
        """
        delta = alg1_parameters(self.epsilon, self.delta, 1.0, preset=self.preset, kappa=self.kappa).claimed_delta
        return ApproxDP(self.epsilon, delta, UserReplace())

    # -- the deterministic part ------------------------------------------------------------------

    def _prepare(self, data: Any, owner: str) -> tuple[UnitData, SCParameters]:
        unit = self.problem.unit_data(data, owner)
        n, m, d = unit.shape
        if n < self.min_users():
            raise argument_error(owner, "data", f"at least 8 kappa + 2 = {self.min_users()} users for SCOutputPert "
                                 f"[GKKMMZ23, Thm 3.1] (it has {n})", data)
        return unit, self.parameters(n, m, d)

    def stable_centre(self, data: Any) -> tuple[StableCentres, SCParameters]:
        """``k(x)``, ``f(x_{-S*})`` (unit coordinates), whether the certificate decided, and the parameters."""
        unit, spec = self._prepare(data, f"{type(self).__name__}.stable_centre")
        d = unit.shape[2]
        groups = self.problem.group(unit)
        balls = Balls.of(1, d, (np.zeros(d), self.problem.unit_radius))
        res = stable_centres(self.problem, unit, groups, spec, centre=np.zeros((1, d)), balls=balls,
                             engine=self.engine, max_states=self.max_states)
        return res, spec

    # -- sampling --------------------------------------------------------------------------------

    def _draw_r1(self, spec: SCParameters, size: int, rng: np.random.Generator) -> NDArray[np.int64]:
        """``R1 ~ TDLap(eps_bar, delta_bar)`` [GKKMMZ23, Alg 1, line 4]."""
        a = spec.alg1
        return sample_tdlap(a.eps_bar, a.delta_bar, size, rng=rng, kappa=a.kappa)

    def _sigma(self, spec: SCParameters) -> float:
        return spec.alg1.sigma

    def _centres(self, res: StableCentres, spec: SCParameters) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """Hook for variants that change what is released; the correct mechanism releases ``(k, f(x_{-S*}))``."""
        return res.k, res.centre

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` outputs ``(⊥ flag, theta)`` on ``data`` ``(n_users, m_items, d + 1)``; R1 first, then Z."""
        size = check_size(f"{type(self).__name__}.sample", size)
        res, spec = self.stable_centre(data)
        k, centre = self._centres(res, spec)
        r1 = self._draw_r1(spec, size, rng)
        return release(k[0], centre[0], self._sigma(spec), r1, rng, scale=spec.scale)
