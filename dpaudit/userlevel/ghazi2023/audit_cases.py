"""Audit constructions for Ghazi et al. (2023), from ``docs/papers/ghazi2023.md`` (App. B2 and Sec. 8).

Every pair differs in all ``m`` items of one user (user-level replacement).

The golden pair (note App. B2)
------------------------------
SCOutputPert with the squared loss in ``d = 1`` (items ``(x, y) = (1, y)``, ``|y| <= 1``,
``K = [-1, 1]``, ``l2 = 1``), the printed threshold, ``(eps, delta) = (1, 1e-5)`` (``kappa = 27``),
``beta = 0.3``, ``n = 218 = 8 kappa + 2`` users of ``m = 2000`` items. *Inliers* have every label 0,
*outliers* every label 1. Deleting an outlier from a sub-dataset of ``n'`` users moves the minimiser
by ``(n' - j)/(2 n' (n' - 1))`` (``j`` outliers left), above Delta once ``n'`` is near
``n - 4 kappa``, while deletions among inliers move it by exactly 0; so ``k(x)`` is the number of
outliers (checked for every count in the tests), the released centre is the inliers' minimiser 0.0
on both datasets, and the whole privacy loss sits in the ⊥ event: ``P[⊥ | k outliers] = F(k - 1)``
with ``F`` the CDF of ``TDLap(eps/2, delta_bar)``. On the pair ``(kappa + 1, kappa)`` the loss is
``ln F(kappa)/F(kappa - 1) = 0.500001``, so the *tight* budget of this pair is the ⊥ channel's own,
``(eps/2, delta_bar)`` (eq. (2) of Thm 3.3's proof), and the correct mechanism is audited against it.

The other pairs
---------------
* P4 (deterministic test), P5(a) (unshifted R1): ``(1, 0)`` outliers; P5(b) (support up to kappa):
  ``(kappa + 1, kappa)``; P5(c) (swapped rate) and the continuous Laplace: ``(kappa, kappa - 1)``, against
  the claim; P5(d) (TDLap(eps, delta)): ``(kappa' + 1, kappa')`` with ``kappa' = kappa(eps, delta) = 13``,
  against the tight ``(eps/2, delta_bar)``.
* "Certificate else ⊥" (P4 through App. C): certified threshold; all users at label -1 (the
  certificate holds) against one user moved to +1 (it fails: a deterministic ⊥).
* E2, the printed sigma: the same loss on a domain of scale ``B = 1e12`` (labels and ``K`` in
  ``[-B, B]``), ``m = 1``, ``n = 250``; all labels 0 against one user at ``B``. Both datasets are stable
  (``k = 0``) and the centres differ by ``B/(2n)``. The corrected sigma (~8e14) hides that; the printed
  one (~1.2e8, since it grows only like the square root of the scale) does not. On the golden pair the
  printed sigma leaks nothing (both centres are 0.0), which is why E2 needs its own pair.
* P9 (sigma for Delta instead of ``8 kappa Delta``): DelOutputPert with the two-camp function
  (:class:`~.functions.TwoCampScore`): ``kappa`` plus users, ``kappa`` minus users and ``2 kappa + 2``
  neutral ones against one minus user made neutral. The chosen stable sets delete opposite camps,
  so the centres are ``2 kappa Delta = 54 Delta`` apart: ``0.017 sigma`` for the correct sigma,
  ``3.7 sigma`` for the broken one.

References
----------
.. [GKKMMZ23] B. Ghazi, P. Kamath, R. Kumar, R. Meka, P. Manurangsi and C. Zhang. On user-level
   private convex optimization. ICML 2023, Alg 1-2, Thm 3.3.
.. [Note002] The readings, corrections and pitfalls of Ghazi et al. (2023)
   kept in ``docs/papers/ghazi2023.md`` (errata E1-E13, pitfalls P1-P23, audit recipes B1-B3).
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.auditor.cases import AuditCase
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.mechanisms.discrete import tdlap_kappa
from dpaudit.userlevel.ghazi2023 import faulty
from dpaudit.userlevel.ghazi2023.del_output_pert import DelOutputPert
from dpaudit.userlevel.ghazi2023.erm import ERMProblem
from dpaudit.userlevel.ghazi2023.functions import TwoCampScore
from dpaudit.userlevel.ghazi2023.phased import PhasedSCO
from dpaudit.userlevel.ghazi2023.sc_output_pert import SCOutputPert
from dpaudit.userlevel.losses import SquaredLoss

__all__ = [
    "GOLDEN",
    "ghazi2023_audit_cases",
    "golden_case",
    "golden_mechanism",
    "golden_problem",
    "outlier_users",
    "shared_endpoint_case",
    "tight_budget",
    "two_camp_users",
]

GROUP = "Ghazi et al. 2023"
EPSILON, DELTA = 1.0, 1e-5
GOLDEN: dict[str, Any] = {"n_users": 218, "m_items": 2000, "beta": 0.3, "kappa": 27}


def tight_budget(epsilon: float = EPSILON, delta: float = DELTA) -> tuple[float, float]:
    """``(eps/2, delta/(e^{eps/2} + 2))``: what eq. (2) of Thm 3.3's proof allows the ⊥ event alone."""
    return epsilon / 2.0, delta / (math.exp(epsilon / 2.0) + 2.0)


def golden_problem(scale: float = 1.0) -> ERMProblem:
    """Squared loss on items ``(1, y)``, ``|y| <= scale``, ``K = [-scale, scale]``, ``l2 = 1``."""
    return ERMProblem(SquaredLoss(), radius=scale, feature_bound=1.0, label_bound=scale, l2=1.0)


@functools.cache
def outlier_users(outliers: int, n_users: int = GOLDEN["n_users"], m_items: int = GOLDEN["m_items"],
                  inlier: float = 0.0, outlier: float = 1.0) -> NDArray[np.float64]:
    """``n_users`` users of ``m_items`` items ``(1, y)``: the first ``outliers`` have ``y = outlier``, the rest ``inlier``.

    Read-only and cached: the cases share their datasets.
    """
    x = np.zeros((n_users, m_items, 2))
    x[..., 0] = 1.0
    x[..., 1] = inlier
    x[:outliers, :, 1] = outlier
    x.setflags(write=False)
    return x


@functools.cache
def two_camp_users(plus: int, minus: int, neutral: int) -> NDArray[np.float64]:
    """Users with one item: ``plus`` at +1, ``minus`` at -1, ``neutral`` at 0 (read-only)."""
    x = np.concatenate([np.ones(plus), -np.ones(minus), np.zeros(neutral)])[:, None]
    x.setflags(write=False)
    return x


def golden_mechanism(cls: type[SCOutputPert] = SCOutputPert, **kw: Any) -> SCOutputPert:
    """The golden SCOutputPert (or a variant ``cls``), printed threshold; broken variants are built quietly."""
    kw = {"epsilon": EPSILON, "delta": DELTA, "beta": GOLDEN["beta"], "threshold": "printed", **kw}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        return cls(golden_problem(), **kw)


def _case(name: str, mechanism: Any, d0: Any, d1: Any, trials: int, broken: bool, bug: str | None, note: str,
          budget: tuple[float, float] | None = None) -> AuditCase:
    eps, delta = budget if budget is not None else (None, None)
    return AuditCase(name, mechanism, d0, d1, eps, delta, trials, broken, bug, note, GROUP)


def golden_case(trials: int = 200_000) -> AuditCase:
    """The correct SCOutputPert on the golden pair ``(kappa + 1, kappa)``, against its tight budget."""
    k = GOLDEN["kappa"]
    return _case("SCOutputPert, golden pair (tight eps/2)", golden_mechanism(), outlier_users(k + 1), outlier_users(k),
                 trials, False, None, "P[⊥] = F(kappa) vs F(kappa - 1): ln ratio 0.500001, at delta_bar just within eps/2",
                 tight_budget())


def _r1_cases() -> list[AuditCase]:
    k = GOLDEN["kappa"]
    k_full = tdlap_kappa(EPSILON, DELTA)  # the shift of TDLap(eps, delta): 13
    return [
        _case("SCOutputPert: deterministic test (P4)", golden_mechanism(faulty.DeterministicTest), outlier_users(1),
              outlier_users(0), 20_000, True, "P4", "R1 = 0: P[⊥] = 1 with one outlier, 0 without"),
        _case("SCOutputPert: R1 centred at 0 (P5a)", golden_mechanism(faulty.UnshiftedR1), outlier_users(1),
              outlier_users(0), 20_000, True, "P5a", "P[R1 = 0] > 1/2 instead of <= delta_bar"),
        _case("SCOutputPert: R1 support {0..kappa} (P5b)", golden_mechanism(faulty.HalfSupportR1),
              outlier_users(k + 1), outlier_users(k), 20_000, True, "P5b", "kappa + 1 outliers: ⊥ for sure; kappa: not"),
        _case("SCOutputPert: R1 rate 1/eps_bar (P5c)", golden_mechanism(faulty.SwappedRateR1), outlier_users(k),
              outlier_users(k - 1), 100_000, True, "P5c", "adjacent ⊥ probabilities differ by e^2 > e^eps"),
        _case("SCOutputPert: R1 ~ TDLap(eps, delta) (P5d, tight eps/2)", golden_mechanism(faulty.UnsplitBudgetR1),
              outlier_users(k_full + 1), outlier_users(k_full), 100_000, True, "P5d",
              "the ⊥ channel alone spends ~eps; audited against its share eps/2", tight_budget()),
        _case("SCOutputPert: continuous Laplace R1 (P5e)", golden_mechanism(faulty.ContinuousLaplaceR1),
              outlier_users(k), outlier_users(k - 1), 100_000, True, "P5e",
              "numpy's laplace(kappa, eps_bar) takes a scale: rate 1/eps_bar = 2"),
    ]


def _certificate_case() -> AuditCase:
    mech = golden_mechanism(faulty.CertificateElseBottom, threshold="certified")
    return _case("SCOutputPert: certificate else ⊥ (P4, App. C)", mech, outlier_users(0, inlier=-1.0),
                 outlier_users(1, inlier=-1.0), 20_000, True, "P4",
                 "identical users pass the gradient certificate, one user at +1 fails it: ⊥ for sure")


def _printed_sigma_cases() -> list[AuditCase]:
    scale, n = 1e12, 250
    d0 = outlier_users(0, n_users=n, m_items=1)
    d1 = outlier_users(1, n_users=n, m_items=1, outlier=scale)
    out = []
    for preset, broken in (("paper", True), ("corrected", False)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnsoundMechanismWarning)
            mech = SCOutputPert(golden_problem(scale), EPSILON, DELTA, beta=0.01, threshold="printed", preset=preset)
        out.append(_case(f"SCOutputPert, scale 1e12 ({preset} preset)", mech, d0, d1, 100_000, broken,
                         "E2" if broken else None,
                         "printed sigma grows like sqrt(scale): centres B/(2n) apart are ~8 sigma apart" if broken else
                         "sigma linear in 8 kappa Delta: the same centres are 3e-6 sigma apart"))
    return out


def _two_camp_cases() -> list[AuditCase]:
    k = GOLDEN["kappa"]
    d0, d1 = two_camp_users(k, k, 2 * k + 2), two_camp_users(k, k - 1, 2 * k + 3)
    f = TwoCampScore(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        broken = faulty.SensitivityDeltaSigma(f, EPSILON, DELTA, 1.0)
    return [
        _case("DelOutputPert, two-camp f", DelOutputPert(f, EPSILON, DELTA, 1.0), d0, d1, 100_000, False, None,
              "centres 54 Delta apart, 0.017 sigma: only the ⊥ channel (~eps/2) shows"),
        _case("DelOutputPert: sigma for Delta, not 8 kappa Delta (P9)", broken, d0, d1, 100_000, True, "P9",
              "centres 2 kappa Delta apart are 3.7 sigma apart"),
    ]


def shared_endpoint_case(preset: str, trials: int = 4000) -> AuditCase:
    """Phased-SCO (Alg 4) with the differing user at ``n/2``, where the printed batches meet (E7, P15).

    ``(eps, delta) = (1, 0.01)``, ``n = 4 N_0`` with the paper's ``N_0 = 8 kappa + 2``, ``m = 4000``,
    ``lambda = 4``, printed threshold, golden labels: every batch holds ``kappa + 1`` outliers in ``d0``
    (the shared user among them) and ``kappa`` in ``d1``. The printed closed ranges put user ``n/2`` in
    both batches, each run at the full budget: the event "both phases answer ⊥" (output exactly
    ``theta_hat_0 = 0``) has probability ratio ``~e^{2 eps_bar} = e^eps``. The corrected disjoint batches
    read that user once: ``~e^{eps_bar}``, within the tight budget ``(eps/2, delta_bar)`` of the one
    phase that sees the user (the centres coincide given the history, so only ⊥ flags differ).
    """
    problem = ERMProblem(SquaredLoss(), radius=1.0, feature_bound=1.0, label_bound=1.0, l2=0.0)
    phased = functools.partial(PhasedSCO, problem, EPSILON, 0.01, beta=0.3, regulariser=4.0, threshold="printed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        n = 4 * phased(preset="paper").batch_zero()
        mech = phased(preset=preset)
    shared, m = n // 2 - 1, 4000
    d1 = np.zeros((n, m, 2))
    d1[..., 0] = 1.0
    for call in mech.calls(n, m, 1):
        others = [u for u in call.users if u != shared][: call.spec.alg1.kappa]
        d1[others, :, 1] = 1.0
    d0 = d1.copy()
    d0[shared, :, 1] = 1.0
    broken = preset == "paper"
    return _case(f"Phased-SCO, user n/2 ({preset} batches, tight eps/2)", mech, d0, d1, trials, broken,
                 "E7/P15" if broken else None,
                 "the printed closed ranges read user n/2 twice at full budget" if broken else
                 "disjoint batches: one phase reads the user", tight_budget(EPSILON, 0.01))


def ghazi2023_audit_cases() -> tuple[AuditCase, ...]:
    """The correct configurations (first) and the broken ones; a few seconds each at their trial counts."""
    cases = [golden_case(), *_two_camp_cases(), *_printed_sigma_cases(), *_r1_cases(), _certificate_case()]
    return tuple(sorted(cases, key=lambda c: c.broken))
