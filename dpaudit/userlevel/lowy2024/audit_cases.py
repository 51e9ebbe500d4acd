"""Audit constructions for Lowy, Liu and Asi (2024), from ``docs/papers/lowy2024.md``, Sec. 8.

Every pair differs in *all* items of one user at the same index (user-level replacement). The
algorithms run under ``preset="audit"`` with the absolute loss and labels beyond every margin, so
that each user's gradient is its feature vector and, with one user per group, each of Algorithm 1's
group iterates sits exactly where the construction puts it (positions below are in units of
``tau``). Correct mechanisms are audited against their own claim (the recomputed budget), or a
component against its exact share; each broken variant is audited against its correct
counterpart's claim, on the pair that exposes it.

* **Algorithm 1, test share.** ``C`` groups, a core at 0 and a far cluster at ``5 tau``; the score sits
  just below the threshold, and the differing user moves from the core to the far cluster, which
  lowers the score by ``1.6``. Kept points are all at 0 on both sides, so only the halting bit
  differs: the halting indicator is audited against ``eps_test`` (pure), and the mechanism against its claim.
* **P2, hard threshold** (``C = 1000`` groups, threshold ``0.8 C``): 100 points at 0, 400 at
  ``2 tau``, 500 at ``2.5 tau``. The 100 have exactly ``C/2`` neighbours within ``2 tau`` when the
  differing user is among the 400 and ``C/2 - 1`` when it moves to the 500: the ramp gives them
  ``p = 0`` either way, the hard rule keeps all 100 or none and moves the mean by ``0.23 tau``,
  several times the noise's calibration.
* **P12, leaky halt**: two far clusters, so the test fails; the halting branch of the variant
  releases the plain mean, which the differing user moves.
* **P10, threshold redrawn** and **P7, with replacement** (Algorithm 2's test,
  :class:`~dpaudit.userlevel.lowy2024.minibatch_outliers.MinibatchConcentrationTest`): every user's
  gradient equal, the differing user's far away; the halting step is audited against AboveThreshold's
  ``eps_AT``. With the threshold noise drawn at every step the steps leak independently; drawn with
  replacement and ``K = 4n`` (as printed: ``K_i > n_i``), the differing user appears about four
  times per minibatch and moves the score by about 8 instead of 2.
* **P14, Lemma A.6 at eps > 1**: the output perturbation step on two vectors ``Delta`` apart at
  ``(eps, delta) = (8, 0.2)``, where the classical calibration's true delta is 1.5 times the claim.
* **Algorithm 3**: one phase (full batch), the differing user's gradient moved within the core.

References
----------
.. [LLA24] A. Lowy, D. Liu and H. Asi. Faster algorithms for user-level private stochastic convex
   optimization. NeurIPS 2024.
.. [Note003] The readings, corrections and pitfalls of Lowy, Liu and Asi (2024)
   kept in ``docs/papers/lowy2024.md`` (findings F1-F7, pitfalls P1-P25; pitfalls P2, P7, P10, P12, P14).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.auditor.cases import AuditCase
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.guarantees import ApproxDP
from dpaudit.mechanisms.base import MechanismBase
from dpaudit.mechanisms.gaussian import GaussianMechanism
from dpaudit.neighbors.relations import UserReplace
from dpaudit.userlevel.losses import AbsoluteLoss
from dpaudit.userlevel.lowy2024.faulty import (
    HardThresholdPhasedSGD,
    LeakyHaltPhasedSGD,
    LemmaA6OutputPerturbation,
    RedrawnThresholdTest,
    WithReplacementTest,
)
from dpaudit.userlevel.lowy2024.minibatch_outliers import MinibatchConcentrationTest
from dpaudit.userlevel.lowy2024.phased_erm import AcceleratedMinibatchSGD
from dpaudit.userlevel.lowy2024.phased_sgd import OutlierRemovalPhasedSGD

__all__ = ["HaltingIndicator", "lowy2024_audit_cases"]

GROUP = "Lowy et al. 2024"
_LABEL = 2.0  # labels at -2 lie beyond every margin |<theta, x>| <= 1: the absolute loss is <theta, x> + 2 there
_EPS, _DELTA = 2.0, 1e-3


@dataclass(frozen=True)
class HaltingIndicator(MechanismBase):
    """Post-processing of Algorithm 1: 1 if it halted (output exactly the public 0), else 0.

    Its claim is ``(eps_test, e^{eps_test} * bad_pass)`` (:meth:`claimed_guarantee`): when both
    scores are at least ``gamma C`` the kept set is never empty, so the halting bit is the test's
    answer alone, a Laplace mechanism on the score [LLA24, Alg 1 lines 12-13], ``eps_test``-DP with no
    ``delta``; otherwise one side passes with probability at most ``bad_pass``. On a pair of the
    first kind it is audited against ``(eps_test, 0)``.
    """

    mechanism: OutlierRemovalPhasedSGD

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.int64]:
        """``size`` halting bits of Algorithm 1 (1 if it halted), shape ``(size, 1)``."""
        run = self.mechanism.sample_with_info(data, size, rng=rng)
        return (run.halted_phase >= 0).astype(np.int64)[:, None]

    def claimed_guarantee(self) -> ApproxDP:
        """``(eps_test, e^{eps_test} * bad_pass)`` under user replacement (see the class docstring)."""
        budget = self.mechanism.audit_budget()
        return ApproxDP(budget.epsilon_test, math.exp(budget.epsilon_test) * budget.bad_pass, UserReplace())


def _alg1(cls: type[OutlierRemovalPhasedSGD], n: int, **kw: Any) -> tuple[OutlierRemovalPhasedSGD, float]:
    """Algorithm 1, one phase (``q = 1``: ``n/4`` users), ``m = 2`` items, ``d = 1``; ``tau = eta_1/10``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        base = cls(AbsoluteLoss(), _EPS, _DELTA, label_bound=_LABEL, phases=1, q=1.0, **kw)
        eta1 = base.parameters(n, 2, 1).phase_step_sizes[0]
        return cls(AbsoluteLoss(), _EPS, _DELTA, label_bound=_LABEL, phases=1, q=1.0, tau=eta1 / 10.0, **kw), eta1


def _alg1_data(positions: Any, n: int, eta1: float) -> NDArray[np.float64]:
    """Users whose group iterates (one user, two items per group) sit at ``positions`` (units of ``tau = eta1/10``).

    With gradient ``a`` (the feature) and ``x_0 = 0``, the average of the two query points is
    ``-eta1 a/2``, so ``a = -2 p/eta1 = -p/5`` puts the iterate at ``p tau``. Users past the first
    phase are unused (zeros).
    """
    z = np.zeros((n, 2, 2))
    z[..., 1] = -_LABEL
    pos = np.asarray(positions, dtype=float)
    z[: pos.size, :, 0] = (-pos / 5.0)[:, None]
    return z


def _case(name: str, mech: Any, d0: Any, d1: Any, trials: int, broken: bool, bug: str | None, note: str,
          epsilon: float | None = None, delta: float | None = None) -> AuditCase:
    return AuditCase(name=name, mechanism=mech, d0=d0, d1=d1, epsilon=epsilon, delta=delta, trials=trials,
                     broken=broken, bug=bug, note=note, group=GROUP)


def test_share_cases() -> tuple[AuditCase, AuditCase]:
    """Algorithm 1's halting bit against ``eps_test``, and the whole mechanism against its claim, on one pair."""
    mech, eta1 = _alg1(OutlierRemovalPhasedSGD, 288)
    c = mech.parameters(288, 2, 1).groups  # 72 at (2, 1e-3)
    pos0 = np.r_[np.zeros(c - 6), np.full(6, 5.0)]  # score (66^2 + 6^2)/72 = 61 < 0.9 C = 64.8
    pos1 = pos0.copy()
    pos1[0] = 5.0  # (65^2 + 7^2)/72 = 59.4
    d0, d1 = _alg1_data(pos0, 288, eta1), _alg1_data(pos1, 288, eta1)
    eps_test = mech.audit_budget().epsilon_test
    return (
        _case("Alg 1: halting bit vs eps_test", HaltingIndicator(mech), d0, d1, 200_000, False, None,
              "the test is a Laplace mechanism on a score of sensitivity 2(C-1)/C: eps_test exactly", eps_test, 0.0),
        _case("Alg 1 (audit preset)", mech, d0, d1, 100_000, False, None,
              "score just below the threshold; the differing user leaves the core for the far cluster"),
    )


def hard_threshold_cases() -> tuple[AuditCase, AuditCase]:
    """Pitfall P2 on ``C = 1000`` groups with the paper's threshold ``4C/5``: the hard rule and the ramp."""
    n, c = 4000, 1000
    pos0 = np.r_[np.zeros(100), np.full(400, 2.0), np.full(500, 2.5)]
    pos1 = pos0.copy()
    pos1[100] = 2.5
    out = []
    for cls, broken in ((OutlierRemovalPhasedSGD, False), (HardThresholdPhasedSGD, True)):
        mech, eta1 = _alg1(cls, n, groups=c, threshold=0.8)
        out.append(_case(f"Alg 1, C = 1000: {'hard threshold h >= C/2' if broken else 'ramp'}", mech,
                         _alg1_data(pos0, n, eta1), _alg1_data(pos1, n, eta1), 100_000, broken, "P2" if broken else None,
                         "100 iterates with exactly C/2 neighbours within 2 tau; the differing user takes one away"))
    return out[0], out[1]


def leaky_halt_cases() -> tuple[AuditCase, AuditCase]:
    """Pitfall P12: the test fails on two far clusters; the variant's halting branch releases the plain mean."""
    mech, eta1 = _alg1(OutlierRemovalPhasedSGD, 288)
    leaky, _ = _alg1(LeakyHaltPhasedSGD, 288)
    c = mech.parameters(288, 2, 1).groups
    pos0 = np.r_[np.zeros(c // 2), np.full(c - c // 2, 5.0)]
    pos1 = pos0.copy()
    pos1[0] = 5.0
    d0, d1 = _alg1_data(pos0, 288, eta1), _alg1_data(pos1, 288, eta1)
    return (
        _case("Alg 1: halt returns 0", mech, d0, d1, 20_000, False, None, "two far clusters: the test fails"),
        _case("Alg 1: halt returns the plain mean", leaky, d0, d1, 20_000, True, "P12",
              "the halting branch releases the un-noised average of the iterates"),
    )


def _test_pair(n: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    z0 = np.zeros((n, 2, 2))
    z0[..., 0] = 0.5
    z0[..., 1] = -_LABEL
    z1 = z0.copy()
    z1[0, :, 0] = -0.5
    return z0, z1


def minibatch_test_cases() -> tuple[AuditCase, ...]:
    """Pitfalls P10 and P7 on Algorithm 2's test, each next to the correct test, against ``eps_AT``."""
    z0, z1 = _test_pair(20)
    y0, y1 = _test_pair(8)
    loss = AbsoluteLoss()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        redrawn = RedrawnThresholdTest(loss, 2.0, tau=0.1, steps=40, batch_size=20, threshold=0.8, label_bound=_LABEL)
        replaced = WithReplacementTest(loss, 1.0, tau=0.1, steps=20, batch_size=32, threshold=0.8, label_bound=_LABEL)
    return (
        _case("Alg 2 test: threshold noise once", MinibatchConcentrationTest(loss, 2.0, tau=0.1, steps=40, batch_size=20,
              threshold=0.8, label_bound=_LABEL), z0, z1, 200_000, False, None,
              "AboveThreshold: the threshold noise is drawn once per call"),
        _case("Alg 2 test: threshold noise per step", redrawn, z0, z1, 200_000, True, "P10",
              "fresh threshold noise at each of 40 steps: the answers leak independently"),
        _case("Alg 2 test: without replacement", MinibatchConcentrationTest(loss, 1.0, tau=0.1, steps=20, batch_size=8,
              threshold=0.8, label_bound=_LABEL), y0, y1, 50_000, False, None, "K = n users, each once"),
        _case("Alg 2 test: with replacement, K = 4n", replaced, y0, y1, 50_000, True, "P7",
              "K = 4n draws with replacement (K_i > n_i as printed): the user appears ~4 times"),
    )


def output_perturbation_cases() -> tuple[AuditCase, AuditCase]:
    """Pitfall P14: the Gaussian step at ``(8, 0.2)``, Lemma A.6's classical sigma against the analytic one."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        classical = LemmaA6OutputPerturbation(8.0, 0.2)
    return (
        _case("output noise, analytic sigma, eps = 8", GaussianMechanism(8.0, 0.2), [0.0], [1.0], 1_000_000, False, None,
              "[BW18] calibration"),
        _case("output noise, Lemma A.6 sigma, eps = 8", classical, [0.0], [1.0], 1_000_000, True, "P14",
              "sigma = Delta sqrt(2 log(2/delta))/eps at eps = 8: its true delta is 1.5 times the claimed 0.2"),
    )


def alg2_cases() -> tuple[AuditCase]:
    """Algorithm 2 (one phase of Algorithm 3, full batch) against its claim."""
    n = 160
    z0, z1 = _test_pair(n)
    z1[0, :, 0] = 0.3  # still within 2 tau of the core: kept on both sides, the mean moves every step
    mech = AcceleratedMinibatchSGD(AbsoluteLoss(), 8.0, 1e-2, label_bound=_LABEL, smoothness=0.0, tau=0.2)
    return (_case("Alg 2 (audit preset)", mech, z0, z1, 1_000, False, None,
                  "the differing user's gradient moves within the core, every step"),)


def lowy2024_audit_cases() -> tuple[AuditCase, ...]:
    """The correct and broken configurations to audit (a few seconds each with the default trials)."""
    return (*test_share_cases(), *hard_threshold_cases(), *leaky_halt_cases(), *minibatch_test_cases(),
            *output_perturbation_cases(), *alg2_cases())
