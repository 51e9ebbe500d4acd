"""Algorithm 1 of Lowy, Liu and Asi (2024): phased SGD with outlier iterate removal and output perturbation.

:class:`OutlierRemovalPhasedSGD` is the linear-time algorithm (Thm 2.1 / B.1): ``l = floor(log2 n)``
phases on disjoint users; in phase ``i``, ``C`` groups of ``N_i`` users each run one-pass projected
SGD from ``x_{i-1}`` (``T_i = N_i m`` steps, step size ``eta_i = eta/2^{p i}``); a Laplace-noised
concentration score of the ``C`` average iterates decides between halting (output 0) and the
robust mean of the iterates kept by the soft ramp, released with Gaussian noise ``sigma_i``.

Details the paper leaves open, as ``docs/papers/lowy2024.md`` proposes (Sec. 2.1): ``C = ceil(.)``,
``n_i = floor(.)``, ``N_i = floor(n_i / C)``, exactly ``C N_i`` users in phase ``i``, taken in index
order (any data-independent assignment satisfies the proof; ``shuffle=True`` draws a random one
and a random item order per trial); an empty kept set is a halt; the noisy ``x_i`` is not projected
(the next phase's first step projects); ``p = J + 3/2`` with ``J = log_n m``; ``eta = R/(L sqrt(dmn eps))``
(Thm B.1) with ``R = 2 radius`` the diameter.

References
----------
.. [LLA24] A. Lowy, D. Liu and H. Asi. Faster algorithms for user-level private stochastic convex
   optimization. NeurIPS 2024, Algorithm 1, Theorems 2.1 and B.1, Lemma B.2.
.. [Note003] The readings, corrections and pitfalls of Lowy, Liu and Asi (2024)
   kept in ``docs/papers/lowy2024.md`` (findings F1-F7, pitfalls P1-P25).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import (
    argument_error,
    check_in_range,
    check_int,
    check_positive,
)
from dpaudit.accounting.calibrate import gaussian_sigma_analytic
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.guarantees import ApproxDP
from dpaudit.mechanisms.base import check_size
from dpaudit.neighbors.relations import UserReplace
from dpaudit.userlevel.lowy2024.domain import (
    HEADROOM,
    PhasedMechanismFields,
    PublicDomain,
    check_common_fields,
)
from dpaudit.userlevel.lowy2024.outlier_removal import (
    inclusion_probability,
    pairwise_sq_distances,
    robust_mean,
)
from dpaudit.userlevel.lowy2024.parameters import (
    ALG1_CONSTANTS,
    PRESETS,
    Alg1Constants,
    Alg1Parameters,
    Condition,
    Lowy2024Run,
    condition,
)
from dpaudit.userlevel.lowy2024.privacy import (
    Alg1PhaseGuarantee,
    alg1_phase_guarantee,
    laplace_upper_tail,
)
from dpaudit.userlevel.lowy2024.sgd import one_pass_sgd
from dpaudit.userlevel.transcript import Observe, check_observe

__all__ = ["OutlierRemovalPhasedSGD", "phase_layout"]

_CHUNK_BYTES = 64 * 2**20


def phase_layout(n: int, q: float, phases: int) -> tuple[int, ...]:
    """``n_i = floor((1 - 2^-q) n / 2^{iq})`` for ``i = 1..phases`` [LLA24, Alg 1 line 4]; ``sum n_i <= n``."""
    return tuple(math.floor((1.0 - 2.0 ** (-q)) * n / 2.0 ** (i * q)) for i in range(1, phases + 1))


@dataclass(frozen=True)
class OutlierRemovalPhasedSGD(PhasedMechanismFields):
    """Algorithm 1 of [LLA24], an ``(epsilon, delta)``-user-level DP mechanism (user replacement).

    Parameters
    ----------
    loss : Loss
        Convex loss of a linear predictor (smooth for the utility theorem; privacy needs nothing).
    epsilon : float
        In ``(0, 10]`` (Thm 2.1).
    delta : float
        In ``(0, 1)``.
    radius, feature_bound, label_bound : float
        The declared public domain (:class:`~dpaudit.userlevel.lowy2024.domain.PublicDomain`).
    preset : {"audit", "paper"}
        See :mod:`dpaudit.userlevel.lowy2024.parameters`.
    q : float
        Phase-size decay ``n_i = (1 - 2^-q) n/2^{iq}`` (Thm B.1: "some small q > 0").
    phases : int, optional
        At most ``floor(log2 n)`` (the default, Alg 1 line 2); fewer phases keep every privacy
        argument (phases use disjoint users) and only change utility.
    step_size : float, optional
        ``eta``; default ``R/(L sqrt(d m n eps))`` (Thm B.1).
    tau : float, optional
        Use this ``tau_1`` and ``tau_i = tau_1 (eta_i sqrt(T_i))/(eta_1 sqrt(T_1))``. Privacy holds for
        any data-independent ``tau``.
    groups : int, optional
        ``C`` (at least 7), instead of the preset's formula; the claim is recomputed for it.
    threshold : float, optional
        The test's threshold as a fraction of ``C`` (in ``(2/3, 1]``; paper ``4/5``), instead of the
        preset's; the claim is recomputed for it.
    initial_point : sequence of float, optional
        ``x_0`` (public; default 0).
    shuffle : bool
        Draw a random assignment of users to phases and groups, and a random item order, per trial.
    project_output : bool
        Project the released ``x_l`` onto the ball (post-processing; the paper does not).
    observe : {"final", "transcript"}
        What :meth:`sample` releases (:mod:`dpaudit.userlevel.transcript`): ``x_l``, or the
        transcript: per phase the test outcome (1 passed, 0 halted there, -1 not reached) and the
        noisy ``x_i`` (``d`` numbers; 0 unless the phase passed), then the output: ``l (1 + d) + d``
        numbers per run.

    Notes
    -----
    Claim: ``claimed_guarantee()`` is the paper's ``(epsilon, delta)`` under ``preset="paper"`` and the
    recomputed budget (:func:`~dpaudit.userlevel.lowy2024.privacy.alg1_phase_guarantee`, the
    largest over phases: parallel composition) under ``preset="audit"``.

    Examples
    --------
    >>> import numpy as np
    >>> from dpaudit.userlevel.losses import SquaredLoss
    >>> mech = OutlierRemovalPhasedSGD(SquaredLoss(), epsilon=2.0, delta=1e-3, phases=1, q=1.0)
    >>> data = np.zeros((400, 4, 3)); data[..., 0] = 0.5
    >>> out = mech.sample(data, 2, rng=np.random.default_rng(0))
    >>> out.shape, mech.parameters(400, 4, 2).gradient_evaluations <= 400 * 4
    ((2, 2), True)
    """

    step_size: float | None = None
    tau: float | None = None
    groups: int | None = None
    threshold: float | None = None
    initial_point: tuple[float, ...] | None = None
    shuffle: bool = False
    project_output: bool = False
    observe: Observe = "final"

    _hard_threshold: ClassVar[bool] = False  # pitfall P2 (faulty variants only)
    _leaky_halt: ClassVar[bool] = False  # pitfall P12 (faulty variants only)

    @property
    def _owner(self) -> str:
        return type(self).__name__

    def __post_init__(self) -> None:
        owner = self._owner
        check_common_fields(owner, self, PRESETS)
        if self.phases is not None:
            check_int(owner, "phases", self.phases, minimum=1)
        if self.step_size is not None:
            check_positive(owner, "step_size", self.step_size)
        if self.tau is not None:
            check_positive(owner, "tau", self.tau)
        if self.groups is not None:
            check_int(owner, "groups", self.groups, minimum=7)
        if self.threshold is not None:
            check_in_range(owner, "threshold", self.threshold, 2.0 / 3.0, 1.0, low_closed=False)
        for name in ("shuffle", "project_output"):
            if not isinstance(getattr(self, name), bool):
                raise argument_error(owner, name, "a bool", getattr(self, name))
        check_observe(owner, self.observe)
        self._warn_if_unsound()

    # -- parameters --------------------------------------------------------------------------------

    @property
    def domain(self) -> PublicDomain:
        """The declared public domain of the data (loss, radius, feature and label bounds)."""
        return PublicDomain(self.loss, self.radius, self.feature_bound, self.label_bound)

    @property
    def constants(self) -> Alg1Constants:
        """The constants of the chosen preset."""
        return ALG1_CONSTANTS[self.preset]

    @property
    def _threshold_fraction(self) -> float:
        return self.constants.threshold if self.threshold is None else float(self.threshold)

    def _warn_if_unsound(self) -> None:
        """Paper preset: warn for P14 (eps/4 > 1) here; F1 depends on n, m and is checked in :meth:`parameters`."""
        if self.preset == "paper" and self.epsilon > 4.0:
            warnings.warn(f"{self._owner}(preset='paper') at epsilon={self.epsilon:g} > 4 uses Lemma A.6's classical "
                          "Gaussian at eps/4 > 1, outside its proof (docs/papers/lowy2024.md, P14)", UnsoundMechanismWarning,
                          stacklevel=3)

    def parameters(self, n_users: int, m_items: int, dim: int) -> Alg1Parameters:
        """Resolve every parameter for ``n_users`` users of ``m_items`` items in ``dim`` dimensions.

        Raises :class:`~dpaudit.errors.InvalidArgument` when a phase would have no user per group
        (``N_i < 1``; the paper's Thm B.1 condition does not prevent it, finding F3).
        """
        owner = self._owner
        n = check_int(owner, "n_users", n_users, minimum=2)
        m = check_int(owner, "m_items", m_items, minimum=1)
        d = check_int(owner, "dim", dim, minimum=1)
        eps, delta = float(self.epsilon), float(self.delta)
        dom = self.domain
        lip, beta, big_r = dom.lipschitz, dom.smoothness, dom.diameter
        cst = self.constants
        max_phases = max(1, math.floor(math.log2(n)))  # l = floor(log2 n) [Alg 1 line 2]
        if self.phases is not None and self.phases > max_phases:
            raise argument_error(owner, "phases", f"at most floor(log2 n) = {max_phases}", self.phases)
        ell = self.phases or max_phases
        groups = self._groups(n, m)  # C [Alg 1 line 2]
        users = phase_layout(n, float(self.q), ell)  # n_i [Alg 1 line 4]
        per_group = tuple(u // groups for u in users)  # N_i = n_i / C
        if min(per_group) < 1:
            i = int(np.argmin(per_group)) + 1
            raise argument_error(owner, "data", f"enough users for C = {groups} groups of >= 1 user in every phase "
                                 f"(phase {i} gets n_i = {users[i - 1]} users; N_i = n_i/C < 1, note F3)", n,
                                 fix="use more users, a smaller q, fewer phases, or a larger epsilon.")
        steps = tuple(nu * m for nu in per_group)  # T_i = N_i m
        j_exp = max(math.log(m) / math.log(n), 0.0)  # m <= n^J
        p = j_exp + 1.5  # p = J + 3/2 [Thm B.1]
        eta = self.step_size if self.step_size is not None else big_r / (lip * math.sqrt(d * m * n * eps))  # [Thm B.1]
        etas = tuple(eta / 2.0 ** (p * i) for i in range(1, ell + 1))  # eta_i = eta/2^{pi} [Alg 1 line 4]
        log_ndm = max(math.log(n * d * m), 1.0)
        if self.tau is not None:
            taus = tuple(float(self.tau) * (e * math.sqrt(t)) / (etas[0] * math.sqrt(steps[0])) for e, t in zip(etas, steps, strict=True))
        else:
            taus = tuple(cst.tau * e * lip * math.sqrt(t) * log_ndm for e, t in zip(etas, steps, strict=True))  # tau_i [Alg 1 line 4]
        tiny = np.finfo(float).tiny
        if not all(e > tiny and t > tiny for e, t in zip(etas, taus, strict=True)):
            raise argument_error(owner, "radius", "such that the step sizes eta_i and radii tau_i stay normal floats "
                                 f"(eta_{ell} = {etas[-1]:.3g}, tau_{ell} = {taus[-1]:.3g} underflow); the declared "
                                 "radius is tiny against L", self.radius)
        test_scale = cst.test_scale / eps  # Lap(20/eps) [Alg 1 line 12]
        threshold = self._threshold_fraction * groups  # 4C/5 [Alg 1 line 13]
        if self.preset == "paper":
            sigmas = tuple(cst.sigma * t * math.log(n / delta) ** 2 / (eps * groups) for t in taus)  # [Alg 1 line 25]
            budgets = tuple(self._paper_budget(groups, test_scale, threshold, s, t, n, eps, delta)
                            for s, t in zip(sigmas, taus, strict=True))
            claim = (eps, delta)
        else:
            unit, sigma_per_tau = self._audit_calibration()  # the coupling's sensitivity, hence sigma, is proportional to tau
            sigmas = tuple(sigma_per_tau * t for t in taus)
            budgets = tuple(alg1_phase_guarantee(groups=groups, test_scale=test_scale, threshold=threshold, sigma=s, tau=t,
                                                 gamma=unit.gamma, delta_gaussian=unit.delta_gaussian, zeta=unit.zeta)
                            for s, t in zip(sigmas, taus, strict=True))
            claim = (unit.epsilon, unit.delta)
        if not all(math.isfinite(40.0 * s) and s <= HEADROOM for s in sigmas):
            raise argument_error(owner, "radius", "small enough that every sigma_i stays below 2^960", self.radius)
        recomputed = (max(b.epsilon for b in budgets), max(b.delta for b in budgets))
        conds = self._conditions(n, m, d, eps, delta, groups, beta, lip, big_r, etas, recomputed)
        params = Alg1Parameters(
            preset=self.preset, n_users=n, m_items=m, dim=d, epsilon=eps, delta=delta, radius=float(self.radius),
            lipschitz=lip, smoothness=beta, q=float(self.q), p=p, groups=groups, phases=ell, phase_users=users,
            group_users=per_group, phase_steps=steps, step_size=eta, phase_step_sizes=etas, phase_taus=taus,
            phase_sigmas=sigmas, test_scale=test_scale, threshold=threshold, budgets=budgets,
            claimed_epsilon=claim[0], claimed_delta=claim[1], recomputed=recomputed, conditions=conds,
        )
        if self.preset == "paper":
            self._warn_findings(params)
        return params

    def _audit_split(self, groups: int, test_scale: float, threshold: float, eps_test: float,
                     delta: float) -> tuple[float, float, float]:
        """``gamma``, ``delta_gaussian``, ``zeta`` for the audit preset.

        ``delta_gaussian = zeta = delta/2``. ``gamma`` is the largest score level whose bad pass
        ``e^{eps_test} P(Lap > threshold - gamma C)`` fits in ``delta``; if even the smallest valid
        ``gamma`` (``ceil(gamma C) >= 2C/3 + 1``) does not, that one is used and the consumed
        ``delta`` grows (:mod:`dpaudit.userlevel.lowy2024.privacy`).
        """
        g_min = (math.floor(2.0 * groups / 3.0) + 2) / groups  # ceil(gamma C) >= 2C/3 + 1
        g_max = (threshold - test_scale * math.log(math.exp(eps_test) / (2.0 * delta))) / groups
        g_cap = (groups - 1) / groups
        gamma = min(max(g_min, g_max), g_cap, threshold / groups)
        if gamma < g_min:
            raise argument_error(self._owner, "epsilon", f"such that C = {groups} groups leave room for the coupling "
                                 "(ceil(gamma C) >= 2C/3 + 1 below the threshold)", self.epsilon)
        return gamma, delta / 2.0, delta / 2.0

    @staticmethod
    def _paper_budget(groups: int, test_scale: float, threshold: float, sigma: float, tau: float, n: int, eps: float,
                      delta: float) -> Alg1PhaseGuarantee:
        """The paper's own allocation recomputed: ``delta_gaussian = delta/n``, ``zeta = delta/(10 e^eps)`` [proof of Thm B.1]."""
        g_min = (math.floor(2.0 * groups / 3.0) + 2) / groups
        return alg1_phase_guarantee(groups=groups, test_scale=test_scale, threshold=threshold, sigma=sigma, tau=tau,
                                    gamma=g_min, delta_gaussian=delta / n, zeta=delta / (10.0 * math.exp(eps)))

    def _conditions(self, n: int, m: int, d: int, eps: float, delta: float, groups: int, beta: float, lip: float,
                    big_r: float, etas: tuple[float, ...], recomputed: tuple[float, float]) -> tuple[Condition, ...]:
        q = float(self.q)
        out = [
            condition("eps <= 10", "LLA24 Thm 2.1", eps, "<=", 10.0),
            condition("n^{1-q} >= (100/(1-2^-q)) log(n/delta)/eps", "LLA24 Thm B.1", n ** (1 - q), ">=",
                      100.0 / (1.0 - 2.0 ** (-q)) * math.log(n / delta) / eps),
            condition("beta <= (L/R) sqrt(d m n eps) (utility only)", "LLA24 Thm B.1", beta, "<=",
                      lip / big_r * math.sqrt(d * m * n * eps)),
            condition("eta_1 <= 1/beta (Lemma B.3, utility only)", "LLA24 Lemma B.3", etas[0] * beta, "<=", 1.0),
        ]
        if self.preset == "paper":
            # the proof's good event: P(|Lap(20/eps)| >= 2C/15) on either dataset <= delta/(10 e^eps)
            two_sided = 2.0 * 2.0 * laplace_upper_tail(2.0 * groups / 15.0, self.constants.test_scale / eps)
            out += [
                condition("P(E_i^c or E_i'^c) <= delta/(10 e^eps) (good event of the proof)",
                          "LLA24 proof of Thm B.1 (note F1)", two_sided, "<=", delta / (10.0 * math.exp(eps))),
                condition("Gaussian share eps/4 <= 1 (Lemma A.6's classical form)", "LLA24 Lemma A.6 (note P14)",
                          eps / 4.0, "<=", 1.0),
                condition("recomputed epsilon <= epsilon", "dpaudit.userlevel.lowy2024.privacy", recomputed[0], "<=", eps),
                condition("recomputed delta <= delta", "dpaudit.userlevel.lowy2024.privacy", recomputed[1], "<=", delta),
            ]
        return tuple(out)

    def _warn_findings(self, params: Alg1Parameters) -> None:
        failed = [c for c in params.conditions if not c.holds and ("F1" in c.citation or "recomputed" in c.name)]
        if failed:
            names = "; ".join(f"{c.name} [{c.citation}]" for c in failed)
            warnings.warn(f"{self._owner}(preset='paper') on n={params.n_users}, m={params.m_items}: the printed privacy "
                          f"proof does not cover this configuration ({names}); recomputed budget "
                          f"(eps, delta) = ({params.recomputed[0]:.4g}, {params.recomputed[1]:.3g})",
                          UnsoundMechanismWarning, stacklevel=3)

    # -- sampling ----------------------------------------------------------------------------------

    def claimed_guarantee(self) -> ApproxDP:
        """``(epsilon, delta)``-DP under user replacement: the paper's claim (paper preset) or the recomputed one (audit).

        Under ``preset="audit"`` the number of groups depends only on ``(epsilon, delta)``, so the
        recomputed budget (:meth:`audit_budget`) does not depend on the data's size.
        """
        if self.preset == "paper":
            return ApproxDP(self.epsilon, self.delta, UserReplace())
        budget = self.audit_budget()
        return ApproxDP(budget.epsilon, min(budget.delta, 1.0 - 2**-53), UserReplace())

    def audit_budget(self) -> Alg1PhaseGuarantee:
        """The audit preset's per-phase budget (the same in every phase: the noise is calibrated to it)."""
        return self._audit_calibration()[0]

    def _audit_calibration(self) -> tuple[Alg1PhaseGuarantee, float]:
        """The audit budget and ``sigma/tau``: Gaussian at ``(eps - eps_test, delta/2)`` for the coupling's sensitivity."""
        eps, delta = float(self.epsilon), float(self.delta)
        groups = self._groups(None, None)
        test_scale = self.constants.test_scale / eps
        threshold = self._threshold_fraction * groups
        eps_test = (2.0 * (groups - 1) / groups) / test_scale
        gamma, d_g, zeta = self._audit_split(groups, test_scale, threshold, eps_test, delta)
        unit = alg1_phase_guarantee(groups=groups, test_scale=test_scale, threshold=threshold, sigma=1.0, tau=1.0,
                                    gamma=gamma, delta_gaussian=d_g, zeta=zeta)  # per unit tau (no diameter cap)
        sigma = gaussian_sigma_analytic(unit.sensitivity, eps - eps_test, d_g)  # [BW18, Thm 8] for tau = 1
        budget = alg1_phase_guarantee(groups=groups, test_scale=test_scale, threshold=threshold, sigma=sigma, tau=1.0,
                                      gamma=gamma, delta_gaussian=d_g, zeta=zeta)
        return budget, sigma

    def _groups(self, n: int | None, m: int | None) -> int:
        """``C = ceil(c log(20 n m e^eps/delta)/eps)`` (paper, Alg 1 line 2); the audit preset drops ``n m`` from the log.

        Without ``n m`` the audit preset's budget is a function of ``(epsilon, delta)`` alone; the
        ``n m`` only helps the paper's good-event bookkeeping (note F1) and its utility union bounds.
        """
        if self.groups is not None:
            return int(self.groups)
        eps, delta = float(self.epsilon), float(self.delta)
        inside = 20.0 * math.exp(eps) / delta * (n * m if self.preset == "paper" and n is not None and m is not None else 1)
        groups = math.ceil(self.constants.groups * math.log(inside) / eps)
        if groups < 7:
            raise argument_error(self._owner, "epsilon", f"small enough that C = {groups} >= 7 groups (Lemma B.2 needs C > 6)",
                                 eps)
        return groups

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` independent outputs ``x_l`` (shape ``(size, d)``) on ``data`` ``(n_users, m_items, d + 1)``.

        With ``observe="transcript"``, their transcripts instead, ``(size, l (1 + d) + d)`` (the
        same draws).
        """
        run = self.sample_with_info(data, size, rng=rng)
        if self.observe == "transcript" and run.transcript is not None:
            return run.transcript
        return run.outputs

    def sample_with_info(self, data: Any, size: int, *, rng: np.random.Generator) -> Lowy2024Run:
        """Like :meth:`sample`, with the halting phases and the work counts of the run."""
        owner = f"{self._owner}.sample"
        z = self.domain.validated(owner, data)
        size = check_size(owner, size)
        n, m, d = z.shape[0], z.shape[1], z.shape[2] - 1
        if self.initial_point is not None and len(self.initial_point) != d:
            raise argument_error(owner, "initial_point", f"of length d = {d} (the data's dimension)", self.initial_point)
        p = self.parameters(n, m, d)
        per_trial = 8 * (4 * p.groups * d + 4 * p.groups)
        if p.phases > 1 or self.shuffle:  # per-trial iterates and distance matrices
            per_trial += 8 * 3 * p.groups * p.groups
        if self.shuffle:
            per_trial += 8 * (d + 2) * max(p.phase_steps) * p.groups + 8 * n
        chunk = int(max(1, min(size, _CHUNK_BYTES // per_trial)))
        # phase 1 starts from the public x_0 and, without shuffling, visits the items in a fixed order: its
        # iterates, score and inclusion probabilities are the same for every trial, so they are computed once
        first = None if self.shuffle else self._phase_statistics(p, 0, self._phase_iterates(z, p, 0, 0, None, None, None))
        outs, halts, records = [], [], []
        grads = pairs = 0
        for start in range(0, size, chunk):
            record: list[NDArray[np.float64]] | None = [] if self.observe == "transcript" else None
            out, halt, grads, pairs = self._run_chunk(z, p, min(chunk, size - start), rng, first, record)
            outs.append(out)
            halts.append(halt)
            if record is not None:
                records.append(np.hstack([*record, out]))
        transcript = np.concatenate(records) if records else None
        return Lowy2024Run(np.concatenate(outs), np.concatenate(halts), grads, pairs, p, transcript)

    def _group_items(self, z: NDArray[np.float64], p: Alg1Parameters, phase: int, offset: int,
                     perm: NDArray[np.int64] | None, rng: np.random.Generator) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Group ``j``'s pooled items in visiting order: ``(C, T_i, d)`` (or per trial ``(c, C, T_i, d)``)."""
        nu, m = p.group_users[phase], p.m_items
        count = p.groups * nu
        if perm is None:
            block: NDArray[np.float64] = z[offset : offset + count].reshape(p.groups, nu * m, z.shape[2])
        else:
            users = perm[:, offset : offset + count]
            block = z[users].reshape(users.shape[0], p.groups, nu * m, z.shape[2])
            # a random order of the pooled items within each group ("drawn uniformly without replacement")
            order = np.argsort(rng.random(block.shape[:-1]), axis=-1)
            block = np.take_along_axis(block, order[..., None], axis=-2)
        return block[..., :-1], block[..., -1]

    def _phase_iterates(self, z: NDArray[np.float64], p: Alg1Parameters, i: int, offset: int,
                        perm: NDArray[np.int64] | None, start: NDArray[np.float64] | None,
                        rng: np.random.Generator | None) -> NDArray[np.float64]:
        """The ``C`` groups' SGD outputs ``x~_{i,j}`` in units of the radius, ``(trials or 1, C, d)`` [Alg 1 lines 5-10]."""
        feats, labels = self._group_items(z, p, i, offset, perm, rng)  # type: ignore[arg-type]
        if start is None:
            x0 = np.zeros(z.shape[2] - 1) if self.initial_point is None else np.asarray(self.initial_point) / self.radius
            start = x0[None, :]
        return one_pass_sgd(self.domain, feats, labels, start, p.phase_step_sizes[i])

    def _phase_statistics(self, p: Alg1Parameters, i: int,
                          iterates: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """``(iterates, s_i, p_{i,j})``: the score at ``tau_i`` and the ramp on ranks at ``2 tau_i`` [Alg 1 lines 12-17]."""
        k = p.groups
        tau_u = p.phase_taus[i] / self.radius
        d2 = pairwise_sq_distances(iterates)
        score = np.count_nonzero(d2 <= tau_u * tau_u, axis=(-2, -1)) / k  # s_i(tau_i) [Alg 1 line 12]
        ranks = np.count_nonzero(d2 <= 4.0 * tau_u * tau_u, axis=-1)  # h_{i,j} at 2 tau_i [Alg 1 line 16]
        probs = (ranks >= k / 2.0).astype(float) if self._hard_threshold else inclusion_probability(ranks, k)  # line 17
        return iterates, score, probs

    def _run_chunk(self, z: NDArray[np.float64], p: Alg1Parameters, c: int, rng: np.random.Generator,
                   first: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]] | None,
                   record: list[NDArray[np.float64]] | None = None,
                   ) -> tuple[NDArray[np.float64], NDArray[np.int64], int, int]:
        """The phases for ``c`` trials; ``record``, if given, receives each phase's ``(outcome, x_i)`` columns."""
        n, d = z.shape[0], z.shape[2] - 1
        perm = np.argsort(rng.random((c, n)), axis=1) if self.shuffle else None  # data-independent assignment
        x0 = np.zeros(d) if self.initial_point is None else np.asarray(self.initial_point) / self.radius
        u_prev = np.broadcast_to(x0, (c, d)).copy()  # x_{i-1} in units of the radius
        out = np.zeros((c, d))
        halted = np.full(c, -1, dtype=np.int64)
        active = np.arange(c)
        grads = pairs = 0
        offset = 0
        k = p.groups
        for i in range(p.phases):
            phase_offset, offset = offset, offset + k * p.group_users[i]  # D_i: the next C N_i users [Alg 1 line 5]
            grads += k * p.phase_steps[i]  # T_i steps in each of the C groups [Alg 1 line 8]
            pairs += k * k
            if record is not None:  # outcome -1 and x_i = 0 unless the phase runs and passes
                outcome, released = np.full((c, 1), -1.0), np.zeros((c, d))
                record += [outcome, released]
            if active.size == 0:
                continue
            if i == 0 and first is not None:
                iterates, score, probs = first
            else:
                iterates = self._phase_iterates(z, p, i, phase_offset, None if perm is None else perm[active], u_prev[active],
                                                rng)
                iterates, score, probs = self._phase_statistics(p, i, iterates)
            noisy = score + rng.laplace(0.0, p.test_scale, size=active.size)  # s_hat [Alg 1 line 12]
            probs = np.broadcast_to(probs, (active.size, k))  # independent coins per trial, also when iterates are shared
            mean, kept = robust_mean(iterates, probs, rng=rng)  # [Alg 1 lines 14-24]
            passed = (noisy >= p.threshold) & (kept > 0)  # line 13; an empty S is a halt (dpaudit's reading)
            noise = rng.normal(0.0, p.phase_sigmas[i], size=(active.size, d))  # zeta_i [Alg 1 line 25]
            x_i = self.radius * mean + noise
            halted[active[~passed]] = i  # HALT; output 0 [Alg 1 line 22]
            if self._leaky_halt:  # pitfall P12: the halting branch releases the un-noised average of the iterates
                out[active[~passed]] = self.radius * np.broadcast_to(iterates.mean(axis=-2), (active.size, d))[~passed]
            else:
                out[active[~passed]] = 0.0
            keep = passed.nonzero()[0]
            if record is not None:
                outcome[active, 0] = passed.astype(float)  # the test's answer [Alg 1 line 13]
                released[active[keep]] = x_i[keep]  # the noisy phase output [Alg 1 line 25]
            active = active[keep]
            out[active] = x_i[keep]
            u_prev[active] = x_i[keep] / self.radius
        if self.project_output and active.size:  # post-processing
            norms = np.linalg.norm(out[active] / self.radius, axis=1)
            out[active] *= np.minimum(1.0, 1.0 / np.maximum(norms, 1e-300))[:, None]
        return out, halted, grads, pairs
