"""Algorithm 3 of Lowy, Liu and Asi (2024) (accelerated phased ERM with outlier gradient removal) and its smoothed form.

:class:`AcceleratedPhasedERM`: ``l = floor(log2 n)`` phases on disjoint users; phase ``i`` solves
``F_i(x) = (1/n_i) sum_{Z in D_i} F(x, Z) + (lambda_i/2)||x - x_{i-1}||^2`` approximately by one call
of Algorithm 2 (:func:`~dpaudit.userlevel.lowy2024.minibatch_sgd.run_minibatch_phase`); a halt in
any phase outputs 0. With ``smoothing=True`` it is the non-smooth algorithm of Section 4 (Thm 4.1 /
D.3): gradients of the uniformly smoothed loss ``f_r``, ``r = sqrt(d) R/(eps n sqrt(m))``.
:class:`AcceleratedMinibatchSGD` is one call of Algorithm 2 on all the given users, as a mechanism.

Parameters the paper leaves open, as ``docs/papers/lowy2024.md`` proposes (Secs. 2.2-2.5): ``n_i``, ``K_i``,
``T_i`` rounded (floor, ceil, ceil); ``T_i = ceil((1 + sqrt(beta/lambda_i)) log(ndm))`` (the proof of
Thm D.3's explicit form of ``Theta~``); ``tau = c L log(ndm)/sqrt(m)``; ``p = 3q + 2.5 + log_n sqrt(m)``
(Thm C.3's lower bound); ``K_i`` capped at ``n_i`` (F5); the smoothed version's ``lambda =
(L/R)/sqrt(mn)`` (the proof of Thm D.3 writes ``1/sqrt(mn)`` with ``L = R = 1``).

References
----------
.. [LLA24] A. Lowy, D. Liu and H. Asi. Faster algorithms for user-level private stochastic convex
   optimization. NeurIPS 2024, Algorithms 2-3, Theorems 3.1, 3.2, C.1, C.3, D.3, Lemma D.2.
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
    check_int,
    check_nonnegative,
    check_positive,
)
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
from dpaudit.userlevel.lowy2024.minibatch_sgd import (
    MinibatchPhase,
    MinibatchRules,
    run_minibatch_phase,
)
from dpaudit.userlevel.lowy2024.parameters import (
    ALG3_CONSTANTS,
    PRESETS,
    Alg3Constants,
    Alg3Parameters,
    Condition,
    Lowy2024Run,
    condition,
)
from dpaudit.userlevel.lowy2024.phased_sgd import phase_layout
from dpaudit.userlevel.lowy2024.privacy import (
    Alg2PhaseGuarantee,
    alg2_coupling_sensitivity,
    alg2_kept_count,
    alg2_phase_guarantee,
    calibrate_alg2_sigma,
    laplace_difference_tail,
)
from dpaudit.userlevel.lowy2024.smoothing import RandomizedSmoothing, smoothing_radius
from dpaudit.userlevel.transcript import Observe, check_observe

__all__ = ["AcceleratedMinibatchSGD", "AcceleratedPhasedERM"]

_CHUNK_BYTES = 64 * 2**20


def _gamma_grid(users: int, threshold_fraction: float) -> NDArray[np.float64]:
    """Candidate score levels ``gamma`` from the least one with two points of ``h >= 2K/3 + 1`` up to the threshold."""
    lo = 2.0 / 3.0
    while alg2_kept_count(users, lo) < 2 and lo < threshold_fraction:
        lo += 1.0 / (4.0 * users)
    return np.linspace(lo, threshold_fraction, 64)


@dataclass(frozen=True)
class _Alg3Base(PhasedMechanismFields):
    """Fields, parameter resolution and sampling shared by Algorithms 3 and 2."""

    lam: float | None = None
    steps: int | None = None
    batch_size: int | None = None
    tau: float | None = None
    smoothing: bool = False
    smoothness: float | None = None
    initial_point: tuple[float, ...] | None = None
    observe: Observe = "final"

    _rules: ClassVar[MinibatchRules] = MinibatchRules()

    @property
    def _owner(self) -> str:
        return type(self).__name__

    def __post_init__(self) -> None:
        owner = self._owner
        check_common_fields(owner, self, PRESETS)
        for name in ("phases", "steps"):
            if getattr(self, name) is not None:
                check_int(owner, name, getattr(self, name), minimum=1)
        if self.batch_size is not None:
            check_int(owner, "batch_size", self.batch_size, minimum=8)
        for name in ("lam", "tau"):
            if getattr(self, name) is not None:
                check_positive(owner, name, getattr(self, name))
        if self.smoothness is not None:
            check_nonnegative(owner, "smoothness", self.smoothness)
        if not isinstance(self.smoothing, bool):
            raise argument_error(owner, "smoothing", "a bool", self.smoothing)
        check_observe(owner, self.observe)
        if not self.smoothing and self.smoothness is None and not math.isfinite(self.loss.smoothness(self.feature_bound)):
            raise argument_error(owner, "loss", "smooth (Algorithm 3 needs beta < inf; use smoothing=True, Sec. 4)",
                                 self.loss)

    @property
    def constants(self) -> Alg3Constants:
        return ALG3_CONSTANTS[self.preset]

    def domain_for(self, n: int, m: int, d: int) -> tuple[PublicDomain, RandomizedSmoothing | None]:
        """The domain (``L`` over ``X + B(0, r)`` when smoothed, Thm D.3) and the smoothing, if any."""
        if not self.smoothing:
            return PublicDomain(self.loss, self.radius, self.feature_bound, self.label_bound), None
        r = smoothing_radius(n, m, d, self.epsilon, 2.0 * self.radius)  # [Thm D.3]
        dom = PublicDomain(self.loss, self.radius, self.feature_bound, self.label_bound, lipschitz_radius=self.radius + r)
        return dom, RandomizedSmoothing(r)

    # -- layout -------------------------------------------------------------------------------

    def _layout(self, n: int) -> tuple[int, ...]:
        raise NotImplementedError

    def _lam_factor(self, i: int, p: float) -> float:
        return 2.0 ** (p * i)  # lambda_i = lambda 2^{p i} [Alg 3 line 4]

    def parameters(self, n_users: int, m_items: int, dim: int) -> Alg3Parameters:
        """Resolve every parameter for ``n_users`` users of ``m_items`` items in ``dim`` dimensions."""
        owner = self._owner
        n = check_int(owner, "n_users", n_users, minimum=2)
        m = check_int(owner, "m_items", m_items, minimum=1)
        d = check_int(owner, "dim", dim, minimum=1)
        eps, delta = float(self.epsilon), float(self.delta)
        dom, smooth = self.domain_for(n, m, d)
        lip, big_r = dom.lipschitz, dom.diameter
        if self.smoothness is not None:
            beta = float(self.smoothness)
        else:
            beta = smooth.smoothness(lip, d) if smooth is not None else dom.smoothness  # Lemma D.1 when smoothed
        cst = self.constants
        users = self._layout(n)
        ell = len(users)
        q = float(self.q)
        p = 3.0 * q + 2.5 + max(0.5 * math.log(m) / math.log(n), 0.0)  # p >= 3q + 2.5 + log_n sqrt(m) [Thm C.3]
        if self.lam is not None:
            lam = float(self.lam)
        elif self.smoothing:
            lam = (lip / big_r) / math.sqrt(m * n)  # [proof of Thm D.3], with L/R restored
        else:
            lam = (lip / big_r) * (1.0 / math.sqrt(n * m) + math.sqrt(d) / (eps * n * math.sqrt(m)))  # [Thm C.3]
        lams = tuple(lam * self._lam_factor(i, p) for i in range(1, ell + 1))
        log_ndm = max(math.log(n * d * m), 1.0)
        steps = tuple(self.steps or math.ceil((1.0 + math.sqrt(beta / li)) * log_ndm) for li in lams)  # [Thm D.3, Lemma D.2]
        if self.tau is not None:
            tau = float(self.tau)
        elif self.preset == "paper":
            tau = cst.tau * lip * log_ndm / math.sqrt(m)  # tau = O(L log(ndm)/sqrt m) [Alg 3 line 2], constant 1
        else:  # vector Hoeffding radius of a mean of m gradients of norm <= L (dpaudit's choice: the paper leaves it open), at most L
            tau = min(lip, cst.tau * lip * math.sqrt(2.0 * math.log(2.0 * n * m * d * sum(steps)) / m))
        tiny = np.finfo(float).tiny
        if not (tau > tiny and all(tiny < li <= HEADROOM for li in lams)):
            raise argument_error(owner, "radius", "such that tau and every lambda_i stay normal floats (the declared "
                                 f"constants give tau = {tau:.3g}, lambda_1 = {lams[0]:.3g})", self.radius)
        eps_at = cst.above_threshold_share * eps
        uncapped = tuple(self._paper_batch(nu, t, m, n, d) for nu, t in zip(users, steps, strict=True))
        plans, budgets = [], []
        for i, (nu, t_i) in enumerate(zip(users, steps, strict=True)):
            if self.preset == "paper":
                k = self.batch_size or min(nu, math.ceil(uncapped[i]))  # capped at n_i (F5)
                if cst.sigma is None:  # the paper preset prints sigma; None means "calibrate" (the audit branch)
                    raise argument_error(owner, "preset", "a preset whose constants print sigma", self.preset)
                sigma = cst.sigma * tau * math.sqrt(t_i) * math.log(n * d * math.exp(eps) / delta) / (eps * nu)  # [Alg 2 l. 14]
                budget = self._paper_budget(k, nu, t_i, tau, sigma, eps, delta, eps_at, lip)
            else:
                k, sigma, budget = self._audit_phase(i, nu, t_i, tau, eps, delta, eps_at, lip)
            if k > nu:
                raise argument_error(owner, "batch_size", f"at most n_i = {nu} users in phase {i + 1} (sampling without "
                                     "replacement, F5)", k)
            plans.append((k, sigma))
            budgets.append(budget)
        if not all(s <= HEADROOM for _, s in plans):
            raise argument_error(owner, "radius", "such that every sigma_i stays at most 2^960 (the declared constants "
                                 f"give sigma = {max(s for _, s in plans):.3g})", self.radius)
        claim = (eps, delta)
        recomputed = (max(b.epsilon for b in budgets), max(b.delta for b in budgets))
        conds = self._conditions(n, m, d, eps, delta, q, users, steps, uncapped, recomputed)
        params = Alg3Parameters(
            preset=self.preset, n_users=n, m_items=m, dim=d, epsilon=eps, delta=delta, radius=float(self.radius),
            lipschitz=lip, smoothness=beta, q=q, p=p, lam=lam, phases=ell, phase_users=users, phase_lams=lams,
            phase_steps=steps, phase_batch_uncapped=uncapped, phase_batch=tuple(k for k, _ in plans), tau=tau,
            phase_sigmas=tuple(s for _, s in plans), threshold_fraction=cst.threshold, above_threshold_epsilon=eps_at,
            budgets=tuple(budgets), claimed_epsilon=claim[0], claimed_delta=claim[1], recomputed=recomputed,
            conditions=conds,
        )
        if self.preset == "paper":
            self._warn_findings(params)
        return params

    def _paper_batch(self, nu: int, t_i: int, m: int, n: int, d: int) -> float:
        eps, delta = float(self.epsilon), float(self.delta)
        if self.smoothing:  # K_i = n_i eps/sqrt(T_i) + log(nmde^eps/delta)/eps [proof of Thm D.3]
            return nu * eps / math.sqrt(t_i) + math.log(n * m * d * math.exp(eps) / delta) / eps
        return self.constants.users * math.log(nu**2 * m**2 * math.exp(eps) / delta) * (
            1.0 / eps + nu * eps / math.sqrt(t_i * math.log(1.0 / delta)))  # [Alg 3 line 4]

    def _paper_budget(self, k: int, nu: int, t_i: int, tau: float, sigma: float, eps: float, delta: float,
                      eps_at: float, lip: float) -> Alg2PhaseGuarantee:
        """The paper's allocation recomputed: ``zeta = delta/(10 T e^eps)`` [proof of Thm C.1], margins ``4/5 - 2/20``."""
        zeta = delta / (10.0 * t_i * math.exp(eps))
        grid = _gamma_grid(k, self.constants.threshold)
        gamma = max(0.7, float(grid[0]))  # scores >= 7K/10 on the proof's good event
        return alg2_phase_guarantee(users=k, phase_users=nu, steps=t_i, tau=tau, sigma=sigma, gamma=gamma,
                                    threshold=self.constants.threshold * k, threshold_scale=4.0 / eps_at,
                                    query_scale=8.0 / eps_at, epsilon_above_threshold=eps_at, delta_step=zeta, zeta=zeta,
                                    delta_prime=zeta, diameter=2.0 * lip)

    def _audit_phase(self, i: int, nu: int, t_i: int, tau: float, eps: float, delta: float,
                     eps_at: float, lip: float) -> tuple[int, float, Alg2PhaseGuarantee]:
        """The smallest minibatch (and its largest score level ``gamma``) whose bad pass fits ``delta/2``; sigma calibrated.

        Budget: AboveThreshold ``eps_at``; the gradients ``eps - eps_at`` at ``delta/2`` (``delta' = delta/4``,
        ``T (K/n_i)(delta0 + zeta) = delta/4``, ``delta0 = zeta``); the bad pass ``(1 + e^eps) T p <= delta/2``.
        """
        theta = self.constants.threshold
        b_xi, b_v = 4.0 / eps_at, 8.0 / eps_at
        allowance = delta / (2.0 * (1.0 + math.exp(eps)) * t_i)

        def best_gamma(k: int) -> float | None:
            fits = [g for g in _gamma_grid(k, theta)
                    if laplace_difference_tail(max(0.0, (theta - g) * k - 2.0), b_v, b_xi) <= allowance]
            return max(fits) if fits else None

        k = self.batch_size or nu  # full batch by default: the paper's K_i exceeds n_i and is capped there (F5)
        gamma = best_gamma(k) if k <= nu else None
        if gamma is None:
            raise argument_error(self._owner, "data", f"enough users in phase {i + 1} (K = {k} of n_i = {nu}) for a test "
                                 f"that passes spuriously with probability <= delta/(2(1+e^eps)T) at T = {t_i}",
                                 nu, fix="use more users, fewer phases, a larger epsilon or delta.")
        zeta = delta * nu / (8.0 * t_i * k)
        sens, _ = alg2_coupling_sensitivity(tau, k, gamma, zeta, 2.0 * lip)
        sigma = calibrate_alg2_sigma(target_epsilon=eps - eps_at, sensitivity=sens, steps=t_i, ratio=k / nu,
                                     delta_step=zeta, zeta=zeta, delta_prime=delta / 4.0)
        budget = alg2_phase_guarantee(users=k, phase_users=nu, steps=t_i, tau=tau, sigma=sigma, gamma=gamma,
                                      threshold=theta * k, threshold_scale=b_xi, query_scale=b_v,
                                      epsilon_above_threshold=eps_at, delta_step=zeta, zeta=zeta, delta_prime=delta / 4.0,
                                      diameter=2.0 * lip)
        return k, sigma, budget

    def _conditions(self, n: int, m: int, d: int, eps: float, delta: float, q: float, users: tuple[int, ...],
                    steps: tuple[int, ...], uncapped: tuple[float, ...], recomputed: tuple[float, float]) -> tuple[Condition, ...]:
        out = [
            condition("eps <= 10", "LLA24 Thm 3.1", eps, "<=", 10.0),
            condition("n^{1-q} > 100 log(20 n m d e^eps/delta)/(eps (1 - 2^-q))", "LLA24 Thm 3.1", n ** (1 - q), ">=",
                      100.0 * math.log(20.0 * n * m * d * math.exp(eps) / delta) / (eps * (1.0 - 2.0 ** (-q)))),
            condition("delta < 1/(mn) (utility only)", "LLA24 Thm C.3", delta, "<=", 1.0 / (m * n)),
        ]
        for i, (nu, k) in enumerate(zip(users, uncapped, strict=True), start=1):
            out.append(condition(f"phase {i}: K_i <= n_i as printed", "LLA24 proof of Thm C.3 (note F5)", k, "<=", nu))
        if self.preset == "paper":
            out += [
                condition("recomputed epsilon <= epsilon (eq. (10) with the printed sigma_i)",
                          "dpaudit.userlevel.lowy2024.privacy (note F6)", recomputed[0], "<=", eps),
                condition("recomputed delta <= delta", "dpaudit.userlevel.lowy2024.privacy", recomputed[1], "<=", delta),
            ]
        return tuple(out)

    def _warn_findings(self, params: Alg3Parameters) -> None:
        failed = [c for c in params.conditions if not c.holds and "recomputed" in c.name]
        if failed:
            warnings.warn(f"{self._owner}(preset='paper') on n={params.n_users}, m={params.m_items}: the printed sigma_i is "
                          "below what eq. (10)'s composition needs with Lemma C.2's explicit constant (note F6); "
                          f"recomputed budget (eps, delta) = ({params.recomputed[0]:.4g}, {params.recomputed[1]:.3g})",
                          UnsoundMechanismWarning, stacklevel=3)

    # -- sampling -------------------------------------------------------------------------------

    def claimed_guarantee(self) -> ApproxDP:
        """``(epsilon, delta)`` under user replacement: the paper's claim, or (audit) the budget the noise is calibrated to.

        Under ``preset="audit"`` :meth:`parameters` refuses configurations whose recomputed budget
        exceeds ``(epsilon, delta)``, so the claim is what the recomputation certifies.
        """
        return ApproxDP(self.epsilon, self.delta, UserReplace())

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` independent outputs (shape ``(size, d)``) on ``data`` ``(n_users, m_items, d + 1)``.

        With ``observe="transcript"``, their transcripts instead: per phase and step the
        AboveThreshold answer (1 continue, 0 halt there, -1 not reached) and the noisy minibatch
        gradient ``(g + zeta)/L`` (``d`` numbers, 0 unless the step continues), then the output;
        ``sum_i T_i (1 + d) + d`` numbers (the same draws).
        """
        run = self.sample_with_info(data, size, rng=rng)
        if self.observe == "transcript" and run.transcript is not None:
            return run.transcript
        return run.outputs

    def sample_with_info(self, data: Any, size: int, *, rng: np.random.Generator) -> Lowy2024Run:
        """Like :meth:`sample`, with the halting phases and the work counts of the run."""
        owner = f"{self._owner}.sample"
        z = PublicDomain(self.loss, self.radius, self.feature_bound, self.label_bound).validated(owner, data)
        size = check_size(owner, size)
        n, m, d = z.shape[0], z.shape[1], z.shape[2] - 1
        dom, smooth = self.domain_for(n, m, d)
        if self.initial_point is not None and len(self.initial_point) != d:
            raise argument_error(owner, "initial_point", f"of length d = {d} (the data's dimension)", self.initial_point)
        p = self.parameters(n, m, d)
        kmax = max(p.phase_batch)
        per_trial = 8 * (3 * kmax * m * (d + 1) + 3 * kmax * kmax + 8 * d)
        chunk = int(max(1, min(size, _CHUNK_BYTES // per_trial)))
        outs, halts, records = [], [], []
        grads = pairs = 0
        for start in range(0, size, chunk):
            record: list[NDArray[np.float64]] | None = [] if self.observe == "transcript" else None
            out, halt, grads, pairs = self._run_chunk(z, p, dom, smooth, min(chunk, size - start), rng, record)
            outs.append(out)
            halts.append(halt)
            if record is not None:
                records.append(np.hstack([*record, out]))
        transcript = np.concatenate(records) if records else None
        return Lowy2024Run(np.concatenate(outs), np.concatenate(halts), grads, pairs, p, transcript)

    def _run_chunk(self, z: NDArray[np.float64], p: Alg3Parameters, dom: PublicDomain, smooth: RandomizedSmoothing | None,
                   c: int, rng: np.random.Generator, record: list[NDArray[np.float64]] | None = None,
                   ) -> tuple[NDArray[np.float64], NDArray[np.int64], int, int]:
        """The phases for ``c`` trials; ``record``, if given, receives each phase's ``(T_i, 1 + d)`` releases, flattened."""
        d = z.shape[2] - 1
        x0 = np.zeros(d) if self.initial_point is None else np.asarray(self.initial_point) / self.radius
        center = np.broadcast_to(x0, (c, d)).copy()
        halted = np.full(c, -1, dtype=np.int64)
        active = np.arange(c)
        grads = pairs = 0
        offset = 0
        for i in range(p.phases):
            phase_data = z[offset : offset + p.phase_users[i]]  # D_i: the next n_i users, disjoint [Alg 3 line 5]
            offset += p.phase_users[i]
            plan = MinibatchPhase(p.phase_users[i], p.phase_steps[i], p.phase_batch[i], p.phase_lams[i], p.tau,
                                  p.phase_sigmas[i], p.threshold_fraction * p.phase_batch[i], p.above_threshold_epsilon,
                                  p.smoothness)
            grads += plan.steps * plan.batch * p.m_items
            pairs += plan.steps * plan.batch * plan.batch
            phase_releases = None
            if record is not None:  # a phase not reached releases nothing: answers -1, gradients 0
                full = np.zeros((c, plan.steps, 1 + d))
                full[:, :, 0] = -1.0
                record.append(full.reshape(c, -1))
                phase_releases = np.empty((active.size, plan.steps, 1 + d))
            if active.size == 0:
                continue
            x_out, stop, _, _ = run_minibatch_phase(dom, phase_data, plan, center[active], rng=rng, smoothing=smooth,
                                                    rules=self._rules, releases=phase_releases)  # [Alg 3 line 7]
            if phase_releases is not None:
                full[active] = phase_releases
            halted[active[stop]] = i
            center[active] = x_out
            active = active[~stop]
        out = self.radius * center
        out[halted >= 0] = 0.0  # "Halt; Return 0" [Alg 2 line 18]
        return out, halted, grads, pairs


@dataclass(frozen=True)
class AcceleratedPhasedERM(_Alg3Base):
    """Algorithm 3 of [LLA24] (``smoothing=True``: the non-smooth algorithm of Thm 4.1); ``(epsilon, delta)``-user-level DP.

    Parameters
    ----------
    loss : Loss
        Convex loss of a linear predictor; smooth unless ``smoothing=True``.
    epsilon, delta : float
        ``epsilon`` in ``(0, 10]`` (Thm 3.1), ``delta`` in ``(0, 1)``.
    radius, feature_bound, label_bound : float
        The declared public domain.
    preset : {"audit", "paper"}
        See :mod:`dpaudit.userlevel.lowy2024.parameters`.
    q : float
        ``n_i = (1 - 2^-q) n/2^{iq}``.
    phases : int, optional
        At most ``floor(log2 n)`` (the default).
    lam, steps, batch_size, tau : optional
        Override ``lambda`` (Thm C.3 / D.3), ``T_i``, ``K_i`` and ``tau``.
    smoothing : bool
        Run on the uniformly smoothed loss (Section 4, Lemma D.1 with F2's corrected direction).
    smoothness : float, optional
        ``beta`` declared for the loss on the data's domain (e.g. 0 for an absolute loss whose labels
        lie beyond every margin, which is linear there); default the loss's own. Privacy does not
        depend on it; ``T_i`` and the utility theorem do.
    initial_point : sequence of float, optional
        ``x_0`` (public; default 0).
    observe : {"final", "transcript"}
        What :meth:`sample` releases: the output, or every step's AboveThreshold answer and noisy
        gradient (:mod:`dpaudit.userlevel.transcript`; layout in :meth:`sample`).

    Examples
    --------
    >>> import numpy as np
    >>> from dpaudit.userlevel.losses import SquaredLoss
    >>> mech = AcceleratedPhasedERM(SquaredLoss(), epsilon=4.0, delta=1e-3, phases=1, q=2.0, steps=3)
    >>> data = np.zeros((1600, 2, 2)); data[..., 0] = 0.5
    >>> p = mech.parameters(1600, 2, 1)
    >>> p.phase_users, p.gradient_evaluations == 3 * p.phase_batch[0] * 2
    ((300,), True)
    """

    def _layout(self, n: int) -> tuple[int, ...]:
        max_phases = max(1, math.floor(math.log2(n)))  # l = floor(log2 n) [Alg 3 line 2]
        if self.phases is not None and self.phases > max_phases:
            raise argument_error(self._owner, "phases", f"at most floor(log2 n) = {max_phases}", self.phases)
        users = phase_layout(n, float(self.q), self.phases or max_phases)  # n_i [Alg 3 line 4]
        if min(users) < 8:
            raise argument_error(self._owner, "data", f"at least 8 users in every phase (got n_i = {users})", n,
                                 fix="use more users, fewer phases or a smaller q.")
        return users


@dataclass(frozen=True)
class AcceleratedMinibatchSGD(_Alg3Base):
    """Algorithm 2 of [LLA24] on all the given users (``n_i = n``), from ``initial_point``; ``(epsilon, delta)``-user-level DP.

    Minimises ``(1/n) sum_Z F(x, Z) + (lam/2)||x - x_0||^2`` with ``steps`` AC-SA iterations of
    minibatches of ``batch_size`` users (defaults: Algorithm 3's phase-1 formulas with ``n_1 = n``).
    Same parameters as :class:`AcceleratedPhasedERM` (``q`` and ``phases`` unused).
    """

    def _layout(self, n: int) -> tuple[int, ...]:
        if n < 8:
            raise argument_error(self._owner, "data", "at least 8 users", n)
        return (n,)

    def _lam_factor(self, i: int, p: float) -> float:
        return 1.0
