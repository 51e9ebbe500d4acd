"""Presets, parameter resolution and trial-vectorised sampling shared by Ghazi et al. (2025)'s Algorithms 1 and 5.

The mechanisms (:mod:`dpaudit.userlevel.ghazi2025.algorithms`) differ only in their phase layout and step-size decay.

Two parameterisations (``preset``):

``"safe"`` (default)
    The privacy-safe parameterisation of ``docs/papers/ghazi2025.md``, Sec. 2.8. Changes from the paper, each
    needed for the privacy proof (Lemma 3.10) to go through:

    1. ``eta_s <= 1/(6 beta B)`` in every phase: Lemma 3.9 assumes it, Theorem 3.1 does not impose
       it (erratum A2). It implies Lemma 3.2's ``eta_s <= 2/beta``.
    2. AboveThreshold noise calibrated for score sensitivity 2 (Eq. (4), Lemma 3.9), not 1:
       ``Lap(8/eps)`` threshold and ``Lap(16/eps)`` query noise instead of ``Lap(4/eps)``,
       ``Lap(8/eps)`` (erratum A3).
    3. Threshold ``nu_s = max(0.9 B + 2 ln(T_s/delta)/eps, c0 B + 24 ln(2 e^eps/delta)/eps)`` with
       ``c0 = 2/3 + 1/(3e)``: the second term makes a non-aligned batch (score ``< c0 B``,
       Lemma 3.8 read with 2B/3, erratum A6) pass with probability at most ``delta/(2 e^eps)``
       for every ``B`` (the paper's ``nu`` relies on ``B >= 100 ln(T/delta)/eps`` for that).
    4. ``tau`` is an *inverse* radius everywhere (erratum A1): ``1/tau = C_tau G
       sqrt(2 ln(2nd/omega)/m)``, a Hoeffding radius of a user mean, ``omega = (nmd)^-3``,
       ``C_tau = 40`` (utility only). The paper's ``tau = G log(nmd/omega)/sqrt(m)`` is a radius.
    5. ``B >= 4`` (Lemma 3.6 needs a common point of the two good sets, erratum A13), and a robust
       statistic with the (2B/3)-break point (Remark 3.4 is false for light trimming).
    6. ``eta_s = eta kappa^-s`` with ``kappa = max(ln m, 4)`` (the paper's ``(ln m)^-s`` grows for
       ``m < e`` and is undefined for ``m = 1``, A8); noisy phase outputs are projected onto the box
       before the next phase and at the end (post-processing, A10); ``epsilon <= 1`` (A12).

``"paper"``
    As printed in Theorem 3.1, Lemmas 3.11-3.12 and Algorithms 1-5: ``tau = G ln(nmd/omega)/sqrt(m)``
    used as an inverse radius, ``nu = 0.9 B + 2 ln(T/delta)/eps``, AboveThreshold with
    ``Lap(4/eps)``/``Lap(8/eps)``, ``eta`` from Theorem 3.1 without ``6 beta eta B <= 1``,
    ``eta_s = eta (ln m)^-s``, no projection of the noisy outputs. Constructing it warns
    :class:`~dpaudit.errors.UnsoundMechanismWarning`. The paper's printed preconditions are
    *reported* (:attr:`Ghazi2025Parameters.conditions`), not enforced.

Shared by both presets (not privacy-relevant, or where the paper's text is only ``O(.)``):
``B = ceil(100 ln(mnd/delta)/eps)`` (Thm 3.1); ``S = floor(log2(n/B))`` phases (A7); phase ``s < S``
uses the next ``B floor(n/(2^s B))`` users and the last phase every remaining full batch, so that
``m`` times the number of users gradients are computed ("it takes mn gradient computations",
Thm 3.1) and no user is reused; consecutive users form each batch (any data-independent assignment
satisfies the proof; ``shuffle=True`` draws a random one per trial); the Gaussian noise is the
Gaussian mechanism (Prop. A.2) at ``(eps/2, delta/(2 e^eps))`` for the l_2 sensitivity
``sqrt(d) 6 eta_s / tau`` that the proof of Lemma 3.10 uses (the printed ``sigma_s`` is ``O(.)``, A9).

References
----------
.. [GKLM25] B. Ghazi, R. Kumar, D. Liu and P. Manurangsi. Linear-time user-level DP-SCO via robust
   statistics. arXiv:2502.08889v1, 2025.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014,
   Thm 3.23 (AboveThreshold), Thm A.1 (Gaussian mechanism).
.. [Note000] The readings, corrections and pitfalls of Ghazi, Kumar, Liu and Manurangsi (2025)
   kept in ``docs/papers/ghazi2025.md`` (readings A1-A14, pitfalls P1-P20).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import (
    argument_error,
    check_finite_array,
    check_in_range,
    check_int,
    check_one_of,
    check_positive,
    check_probability,
    check_real,
)
from dpaudit.accounting.calibrate import gaussian_sigma_classical
from dpaudit.data import as_user_dataset
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.guarantees import ApproxDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.neighbors.relations import UserReplace
from dpaudit.userlevel.conditions import evaluate_condition
from dpaudit.userlevel.domain import MAX_MAGNITUDE, check_magnitude, check_public_constant
from dpaudit.userlevel.ghazi2025.assumptions import check_ghazi2025_assumptions
from dpaudit.userlevel.ghazi2025.concentration import StreamingAboveThreshold
from dpaudit.userlevel.ghazi2025.losses import (
    DiagonallyDominantQuadratic,
    Ghazi2025Loss,
    LinearLoss,
)
from dpaudit.userlevel.ghazi2025.parameters import (
    LEMMA_3_8_SCORE_CEILING,
    PRESETS,
    Condition,
    Ghazi2025Parameters,
    Ghazi2025Run,
)
from dpaudit.userlevel.ghazi2025.sgd import _sgd_step
from dpaudit.userlevel.robust_stats import CoordinateMedian, RobustStatistic
from dpaudit.userlevel.transcript import Observe, check_observe

__all__: list[str] = []


_TRIAL_BLOCK_BYTES = 192 * 2**20


_PAPER_FLAW = (
    "preset='paper' follows [GKLM25] as printed: no 6*beta*eta*B <= 1 (Lemma 3.9), AboveThreshold noise "
    "calibrated for score sensitivity 1 instead of 2, and nu = 0.9B + 2ln(T/delta)/eps; it is not "
    "(epsilon, delta)-DP in general (see docs/papers/ghazi2025.md, Sec. 8)"
)


@dataclass(frozen=True)
class _Ghazi2025Base(MechanismBase):
    """Fields and parameter resolution shared by Algorithm 1 (+noise) and Algorithm 5."""

    audit_block_size: ClassVar[int] = 1024  # every trial runs a whole SGD loop

    loss: Ghazi2025Loss
    epsilon: float
    delta: float
    radius: float = 1.0
    preset: str = "safe"
    batch_size: int | None = None
    step_size: float | None = None
    tau: float | None = None
    threshold: float | None = None
    tau_constant: float = 40.0
    statistic: RobustStatistic = field(default_factory=CoordinateMedian)
    initial_point: tuple[float, ...] | None = None
    shuffle: bool = False
    project_output: bool | None = None
    observe: Observe = "final"

    _algorithm = "base"

    @property
    def _owner(self) -> str:
        return type(self).__name__

    def __post_init__(self) -> None:
        owner = self._owner
        if not isinstance(self.loss, Ghazi2025Loss):
            raise argument_error(owner, "loss", "a Ghazi2025Loss (Assumptions 2.4-2.5 of [GKLM25] declared)", self.loss,
                                 fix="use LinearLoss, SeparableHuberLoss or DiagonallyDominantQuadratic.")
        if isinstance(self.loss, DiagonallyDominantQuadratic) and not (self.loss.is_diagonally_dominant and self.loss.is_psd):
            raise argument_error(owner, "loss", "convex with a diagonally dominant Hessian (Assumptions 2.4-2.5 of [GKLM25])",
                                 self.loss)
        check_in_range(owner, "epsilon", self.epsilon, 0.0, 1.0, low_closed=False)
        check_probability(owner, "delta", self.delta, allow_zero=False)
        check_magnitude(owner, "radius", self.radius)
        check_one_of(owner, "preset", self.preset, PRESETS)
        if self.batch_size is not None:
            check_int(owner, "batch_size", self.batch_size, minimum=4 if self.preset == "safe" else 2)
        if self.step_size is not None:
            check_magnitude(owner, "step_size", self.step_size)
        if self.tau is not None:
            check_magnitude(owner, "tau", self.tau)
        if self.threshold is not None and not abs(check_real(owner, "threshold", self.threshold)) <= MAX_MAGNITUDE:
            raise argument_error(owner, "threshold", "in [-2^960, 2^960] (so that no noisy comparison overflows)",
                                 self.threshold)
        check_positive(owner, "tau_constant", self.tau_constant)
        if not isinstance(self.statistic, RobustStatistic):
            raise argument_error(owner, "statistic", "a RobustStatistic", self.statistic)
        if self.initial_point is not None:
            x0 = check_finite_array(owner, "initial_point", self.initial_point, ndim=1)
            if x0.size < 1 or np.abs(x0).max() > self.radius:
                raise argument_error(owner, "initial_point", f"a point of [-radius, radius]^d with radius={self.radius:g}",
                                     self.initial_point)
            object.__setattr__(self, "initial_point", tuple(float(v) for v in x0))
        if not isinstance(self.shuffle, bool):
            raise argument_error(owner, "shuffle", "a bool", self.shuffle)
        if self.project_output is not None and not isinstance(self.project_output, bool):
            raise argument_error(owner, "project_output", "a bool or None", self.project_output)
        check_observe(owner, self.observe)
        self._check_extra()
        if self.preset == "paper":
            warnings.warn(f"{owner}(preset='paper') is deliberately unsound: {_PAPER_FLAW}", UnsoundMechanismWarning,
                          stacklevel=3)

    def _check_extra(self) -> None:
        """Subclass hook for extra field checks."""

    # -- parameter resolution ------------------------------------------------------------------

    def _phase_layout(self, n: int, b: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        raise NotImplementedError

    def _decay(self, m: int) -> float:
        raise NotImplementedError

    def parameters(self, n_users: int, m_items: int, dim: int) -> Ghazi2025Parameters:
        """Resolve every parameter for ``n_users`` users of ``m_items`` items in ``dim`` dimensions.

        Raises :class:`~dpaudit.errors.InvalidArgument` when the configuration is structurally
        impossible (too few users) or, under ``preset="safe"``, violates a privacy requirement.
        """
        owner = self._owner
        n = check_int(owner, "n_users", n_users, minimum=1)
        m = check_int(owner, "m_items", m_items, minimum=1)
        d = check_int(owner, "dim", dim, minimum=1)
        eps, delta, big_d = float(self.epsilon), float(self.delta), float(self.radius)
        safe = self.preset == "safe"
        g_lip = float(self.loss.gradient_bound(big_d))
        beta = float(self.loss.smoothness_constant)
        nmd = n * m * d
        b = self.batch_size if self.batch_size is not None else math.ceil(100.0 * math.log(nmd / delta) / eps)  # [GKLM25, Thm 3.1]
        if self.batch_size is None and safe:
            b = max(b, 4)
        users, steps = self._phase_layout(n, b)
        n_phases = len(users)
        # step size [GKLM25, Thm 3.1] (sqrt(m)*eps read as in Lemma 3.12, Note000 A5)
        eta_thm = (big_d / g_lip) * min(b * math.sqrt(m) / math.sqrt(n),
                                        math.sqrt(m) * eps / math.sqrt(d * math.log(1.0 / delta) * math.log(nmd)))
        if self.step_size is not None:
            eta = float(self.step_size)
        elif safe and beta > 0:
            eta = min(eta_thm, 1.0 / (6.0 * beta * b))  # [GKLM25, Lemma 3.9] precondition (Note000 A2)
        else:
            eta = eta_thm
        kappa = self._decay(m)
        etas = tuple(eta * kappa ** (-(s + 1)) if kappa != 1.0 else eta for s in range(n_phases))
        # tau: inverse radius (Note000 A1)
        # omega = (nmd)^-3 [GKLM25, before Lemma 3.12]; ln(x/omega) = ln(x) + 3 ln(nmd) (no underflow)
        if self.tau is not None:
            tau = float(self.tau)
        elif safe:
            hoeffding = g_lip * math.sqrt(2.0 * (math.log(2.0 * n * d) + 3.0 * math.log(nmd)) / m)  # ln(2nd/omega)
            tau = 1.0 / (self.tau_constant * hoeffding)
        else:
            tau = g_lip * (math.log(nmd) + 3.0 * math.log(nmd)) / math.sqrt(m)  # [GKLM25, Lemma 3.11]: ln(nmd/omega)
        varsigma = 1.0 / tau  # [GKLM25, Alg. 1, line 6]
        # AboveThreshold inside Algorithm 3: epsilon/2 [GKLM25, Alg. 3, line 4]
        at_eps = eps / 2.0
        at_sens = 2.0 if safe else 1.0  # Eq. (4), Lemma 3.9 (safe) vs Alg. 4 / Lemma A.3 (paper)
        at_ref = StreamingAboveThreshold(at_eps, 0.0, at_sens)
        b_th, b_q = at_ref.threshold_scale, at_ref.query_scale
        nu_min = LEMMA_3_8_SCORE_CEILING * b + (b_q + b_th) * math.log(2.0 * math.exp(eps) / delta)  # Note000 Sec. 2.8
        nus = []
        for t_s in steps:
            nu_paper = 0.9 * b + 2.0 * math.log(t_s / delta) / eps  # [GKLM25, Thm 3.1]
            if self.threshold is not None:
                nus.append(float(self.threshold))
            else:
                nus.append(max(nu_paper, nu_min) if safe else nu_paper)
        # Gaussian output perturbation [GKLM25, Alg. 5, line 7; Prop. A.2; proof of Lemma 3.10]
        g_eps, g_delta = eps / 2.0, delta / (2.0 * math.exp(eps))
        sens_inf = tuple(e_s * (4.0 * varsigma + 2.0 * varsigma) for e_s in etas)  # [GKLM25, Lemma 3.6]: eta(4 rho + 2 vs)
        sigmas = tuple(gaussian_sigma_classical(math.sqrt(d) * s_inf, g_eps, g_delta) for s_inf in sens_inf)
        self._check_magnitudes(g_lip, beta, tau, etas, varsigma, b_th, b_q, nus, sigmas)
        project_out = safe if self.project_output is None else bool(self.project_output)
        conds = self._conditions(n, m, d, b, steps, eta, eta_thm, etas, beta, g_lip, nus, nu_min, at_sens, safe)
        params = Ghazi2025Parameters(
            algorithm=self._algorithm, preset=self.preset, n_users=n, m_items=m, dim=d, epsilon=eps, delta=delta,
            radius=big_d, gradient_bound=g_lip, smoothness=beta, batch_size=b, phases=n_phases, phase_users=users,
            phase_steps=steps, step_size=eta, phase_step_sizes=etas, tau=tau, varsigma=varsigma,
            alignment_radius=varsigma, phase_thresholds=tuple(nus), at_epsilon=at_eps, at_sensitivity=at_sens,
            threshold_scale=b_th, query_scale=b_q, phase_linf_sensitivities=sens_inf, phase_sigmas=sigmas,
            gaussian_epsilon=g_eps, gaussian_delta=g_delta, project_between_phases=safe, project_output=project_out,
            conditions=conds,
        )
        if safe:
            self._enforce(params, nu_min)
        return params

    def _check_magnitudes(self, g_lip: float, beta: float, tau: float, etas: tuple[float, ...], varsigma: float,
                          b_th: float, b_q: float, nus: list[float], sigmas: tuple[float, ...]) -> None:
        """Refuse resolved public constants above 2^960 (:mod:`dpaudit.userlevel.domain`), naming the parameter.

        With the box, ``G``, ``beta``, the step, the score exponent ``2 tau G``, the thresholds and
        the noise scales all at most 2^960, every user gradient of an item in the universe is finite,
        and no step, score, comparison or output draw can overflow.
        """
        owner = self._owner
        checks = (
            ("radius", self.radius, "the gradient bound G of the loss on the box", g_lip),
            ("loss", self.loss, "the smoothness beta of the loss", beta),
            ("tau", self.tau, "the score exponent 2 tau G", 2.0 * tau * g_lip),
            ("step_size", self.step_size, "the largest step eta_s (G + varsigma)", max(etas) * (g_lip + varsigma)),
            ("epsilon", self.epsilon, "the AboveThreshold noise scales", max(b_th, b_q)),
            ("threshold", self.threshold, "the largest threshold nu_s", max(abs(v) for v in nus)),
            ("step_size", self.step_size, "the largest output-noise sigma_s", max(sigmas)),
        )
        for name, value, what, quantity in checks:
            check_public_constant(owner, name, value, what, quantity)

    def _conditions(self, n: int, m: int, d: int, b: int, steps: tuple[int, ...], eta: float, eta_thm: float,
                    etas: tuple[float, ...], beta: float, g_lip: float, nus: list[float], nu_min: float,
                    at_sens: float, safe: bool) -> tuple[Condition, ...]:
        eps, delta, big_d = float(self.epsilon), float(self.delta), float(self.radius)
        nmd = n * m * d
        out = [
            evaluate_condition("n >= ln^2(nd/delta)/epsilon", "GKLM25 Thm 3.1", n, ">=", math.log(n * d / delta) ** 2 / eps, False),
            evaluate_condition("beta <= (G/D)(sqrt(n) eps/(sqrt(m) ln(nmd/delta)) + sqrt(d ln(1/delta) ln(nmd))/(sqrt(m) eps))",
                       "GKLM25 Thm 3.1", beta, "<=",
                       (g_lip / big_d) * (math.sqrt(n) * eps / (math.sqrt(m) * math.log(nmd / delta))
                                          + math.sqrt(d * math.log(1 / delta) * math.log(nmd)) / (math.sqrt(m) * eps)), False),
            evaluate_condition("eta <= (D/G) min{B sqrt(m)/sqrt(n), sqrt(m) eps/sqrt(d ln(1/delta) ln(nmd))}", "GKLM25 Thm 3.1",
                       eta, "<=", eta_thm, False),
            evaluate_condition("B >= 4", "Note000 A13 (Lemma 3.6 needs a common good point)", b, ">=", 4, safe),
            evaluate_condition(f"AboveThreshold calibrated for score sensitivity (s = {at_sens:g})",
                       "GKLM25 Eq. (4), Lemma 3.9 vs Alg. 4 (Note000 A3)", at_sens, ">=", 2.0, safe),
            evaluate_condition("robust statistic keeps the (2B/3)-break point (i')", "GKLM25 Assumption 3.3(i), Remark 3.4",
                       float(self.statistic.satisfies_alignment_break_point(b)), ">=", 1.0, safe),
        ]
        for s, (t_s, e_s, nu) in enumerate(zip(steps, etas, nus, strict=True), start=1):
            out.append(evaluate_condition(f"phase {s}: B >= 100 ln(T_s/delta)/eps", "GKLM25 Lemma 3.10", b, ">=",
                                  100 * math.log(t_s / delta) / eps, False))
            out.append(evaluate_condition(f"phase {s}: beta * eta_s <= 2", "GKLM25 Lemma 3.2", beta * e_s, "<=", 2.0, safe))
            out.append(evaluate_condition(f"phase {s}: 6 beta eta_s B <= 1", "GKLM25 Lemma 3.9 (Note000 A2)", 6 * beta * e_s * b,
                                  "<=", 1.0, safe))
            out.append(evaluate_condition(f"phase {s}: nu_s >= c0 B + (b_q + b_th) ln(2 e^eps/delta)",
                                  "GKLM25 Lemma 3.8 with 2B/3 (Note000 A6, Sec. 2.8)", nu, ">=", nu_min, safe))
        return tuple(out)

    def _enforce(self, params: Ghazi2025Parameters, nu_min: float) -> None:
        owner = self._owner
        b = params.batch_size
        for c in params.conditions:
            if not c.enforced or c.holds:
                continue
            if "6 beta eta_s B" in c.name or "beta * eta_s" in c.name:
                # eta_s = eta * kappa^-s is largest in phase 1, so the cap on the base step size is
                allowed = (params.step_size / max(params.phase_step_sizes)) / (6.0 * params.smoothness * b)
                raise argument_error(owner, "step_size", f"at most {allowed:.6g} so that 6*beta*eta_s*B <= 1 in every phase "
                                     f"(beta={params.smoothness:g}, B={b}) under preset='safe' [GKLM25, Lemma 3.9]",
                                     self.step_size)
            if "nu_s" in c.name:
                raise argument_error(owner, "threshold", f"at least c0*B + (b_q + b_th)*ln(2e^eps/delta) = {nu_min:.6g} "
                                     "under preset='safe' [GKLM25, Lemma 3.8; the safe preset of docs/papers/ghazi2025.md]",
                                     self.threshold)
            if "break point" in c.name:
                raise argument_error(owner, "statistic", f"a robust statistic with the 2B/3 break point at B={b} "
                                     "[GKLM25, Assumption 3.3(i); Remark 3.4 is false for light trimming]", self.statistic,
                                     fix="use CoordinateMedian() or TrimmedMean() (trim >= floor(B/3)).")
            raise argument_error(owner, "batch_size", f"satisfying: {c.name} [{c.citation}]", b)  # pragma: no cover

    # -- sampling ------------------------------------------------------------------------------

    def claimed_guarantee(self) -> ApproxDP:
        """``(epsilon, delta)``-DP under user-level replacement [GKLM25, Lemma 3.10, Thm 3.1]."""
        return ApproxDP(self.epsilon, self.delta, UserReplace())

    def _validated_data(self, data: Any, owner: str) -> NDArray[np.float64]:
        z = as_user_dataset(data, owner, "data", item_ndim=1)
        if z.shape[2] < 2:
            raise argument_error(owner, "data", "items of length d + 1 >= 2 (features and a label/weight)", data)
        if self.initial_point is not None and len(self.initial_point) != z.shape[2] - 1:
            raise argument_error(owner, "initial_point", f"of length d = {z.shape[2] - 1} (the data's dimension)",
                                 self.initial_point)
        check_ghazi2025_assumptions(self.loss, z, self.radius).raise_if_violated(owner, data)
        return z

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` independent outputs ``x_S`` (shape ``(size, d)``) on ``data`` ``(n_users, m_items, d + 1)``.

        With ``observe="transcript"`` (:mod:`dpaudit.userlevel.transcript`) every run's transcript
        instead: per phase the step at which AboveThreshold answered ⊥ (-1 if every test passed:
        the phase's answer stream, which halts there) and the noisy phase output ``x_s``
        (``d`` numbers), then the output; ``S (1 + d) + d`` numbers (the same draws).
        """
        run = self.sample_with_info(data, size, rng=rng)
        if self.observe == "transcript":
            assert run.phase_outputs is not None  # sample_with_info always records them
            return np.hstack([np.concatenate([run.halt_step[:, s:s + 1], run.phase_outputs[:, s]], axis=1)
                              for s in range(run.halt_step.shape[1])] + [run.outputs])
        return run.outputs

    def sample_with_info(self, data: Any, size: int, *, rng: np.random.Generator) -> Ghazi2025Run:
        """Like :meth:`sample`, with the test outcomes and the work counts of the run.

        Trials are processed in sub-batches of bounded memory; all draws come from ``rng`` in a fixed
        order (per sub-batch: permutation if ``shuffle``; per phase: thresholds, one query-noise
        vector per step, then the Gaussian noise), so the result is a function of ``rng``.
        """
        owner = f"{self._owner}.sample"
        z = self._validated_data(data, owner)
        size = check_size(owner, size)
        n, m, d = z.shape[0], z.shape[1], z.shape[2] - 1
        p = self.parameters(n, m, d)
        x0 = np.zeros(d) if self.initial_point is None else np.asarray(self.initial_point, dtype=float)
        per_trial = 8 * p.batch_size * m * (d + 1) * (3 if self.shuffle else 2) + 8 * (n if self.shuffle else 0)
        chunk = int(max(1, min(size, _TRIAL_BLOCK_BYTES // max(1, per_trial))))
        outs, passed, halts, phase_outs = [], [], [], []
        grad_evals = score_terms = 0
        user_counts = np.zeros(n, dtype=np.int64)
        for start in range(0, size, chunk):
            c = min(chunk, size - start)
            released = np.empty((c, p.phases, d))
            out, ok, halt, ge, st, uc = self._run_chunk(z, p, x0, c, rng, released)
            outs.append(out)
            passed.append(ok)
            halts.append(halt)
            phase_outs.append(released)
            if start == 0:
                grad_evals, score_terms, user_counts = ge, st, uc
        return Ghazi2025Run(
            outputs=np.concatenate(outs, axis=0),
            passed=np.concatenate(passed, axis=0),
            halt_step=np.concatenate(halts, axis=0),
            gradient_evaluations=grad_evals,
            score_pair_terms=score_terms,
            user_gradient_evaluations=None if self.shuffle else user_counts,
            parameters=p,
            phase_outputs=np.concatenate(phase_outs, axis=0),
        )

    def _run_chunk(
        self, z: NDArray[np.float64], p: Ghazi2025Parameters, x0: NDArray[np.float64], c: int, rng: np.random.Generator,
        released: NDArray[np.float64] | None = None,
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.int64], int, int, NDArray[np.int64]]:
        """The phases for ``c`` trials; ``released`` (``(c, S, d)``), if given, receives every noisy phase output."""
        n, m = z.shape[0], z.shape[1]
        b = p.batch_size
        perm = np.argsort(rng.random((c, n)), axis=1) if self.shuffle else None  # data-independent assignment
        x_start = np.broadcast_to(x0, (c, x0.size)).copy()
        passed = np.zeros((c, p.phases), dtype=bool)
        halt_step = np.full((c, p.phases), -1, dtype=np.int64)
        grad_evals = score_terms = 0
        user_counts = np.zeros(n, dtype=np.int64)
        offset = 0
        out = x_start
        for s in range(p.phases):
            t_s, eta_s = p.phase_steps[s], p.phase_step_sizes[s]
            at = StreamingAboveThreshold(p.at_epsilon, p.phase_thresholds[s], p.at_sensitivity)  # [GKLM25, Alg. 3, line 1]
            noisy_threshold = at.start(c, rng=rng)
            halted = np.zeros(c, dtype=bool)
            x = x_start.copy()
            acc = np.zeros_like(x)
            for t in range(t_s):
                cols = np.arange(offset + t * b, offset + (t + 1) * b)
                items = z[perm[:, cols]] if perm is not None else z[cols]  # (c, B, m, d+1) or (B, m, d+1)
                if perm is None and type(self.loss) is LinearLoss:
                    # LinearLoss's gradients do not depend on the iterate (a subclass may override that, so only
                    # the class itself): one row gives every trial's score and estimate
                    _, score1, g1, _ = _sgd_step(self.loss, x[:1], items, eta_s, p.tau, p.varsigma, p.radius, self.statistic)
                    x = np.clip(x - eta_s * g1, -p.radius, p.radius)  # [GKLM25, Alg. 1, line 7]
                    assert score1 is not None  # _sgd_step computes the score by default
                    score = np.broadcast_to(score1, (c,))
                else:
                    x, step_score, _, _ = _sgd_step(self.loss, x, items, eta_s, p.tau, p.varsigma, p.radius, self.statistic)
                    assert step_score is not None  # _sgd_step computes the score by default
                    score = step_score
                grad_evals += b * m  # B users x m items: the per-item gradients of [GKLM25, Alg. 1, line 5]
                score_terms += b * b  # the B^2 terms of Eq. (3)
                if perm is None:
                    user_counts[cols] += m
                _, now_halted = at.step(score, noisy_threshold, halted, rng=rng)  # [GKLM25, Alg. 3, line 5]
                halt_step[now_halted & ~halted, s] = t
                halted = now_halted
                acc += x
            offset += p.phase_users[s]
            passed[:, s] = ~halted
            xbar = np.where(halted[:, None], x_start, acc / t_s)  # [GKLM25, Alg. 1, lines 10-15]
            out = xbar + rng.normal(0.0, p.phase_sigmas[s], size=xbar.shape)  # [GKLM25, Alg. 5, line 7]
            if released is not None:
                released[:, s] = out
            x_start = np.clip(out, -p.radius, p.radius) if p.project_between_phases else out  # Note000 A10 (safe)
        if p.project_output:
            out = np.clip(out, -p.radius, p.radius)  # post-processing (Note000 A10)
        return out, passed, halt_step, grad_evals, score_terms, user_counts
