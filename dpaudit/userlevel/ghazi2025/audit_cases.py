"""Audit constructions for Ghazi, Kumar, Liu and Manurangsi (2025), from ``docs/papers/ghazi2025.md``, Sec. 8.

Each case is a small frozen record ``(name, mechanism, d0, d1, epsilon, delta, trials)`` plus what
is expected of an audit and why. Both neighbouring datasets differ in *all* ``m`` items of one
user at the same position (user-level replacement), and the mechanisms release low-dimensional
outputs (``d = 1``), so that an audit has power with a few thousand trials.

* **P2, the missing** ``6 beta eta B <= 1`` (Lemma 3.9, erratum A2). Algorithm 5 under
  ``preset="paper"`` with *every precondition Theorem 3.1 prints* satisfied (``B``, ``eta`` and
  ``beta`` at the theorem's values, ``beta eta_1 = 1 <= 2`` so Lemma 3.2 holds too) but
  ``6 beta eta_1 B`` in the thousands. Step 1: all users have the zero loss; in ``d1`` one user
  instead has slope ``G``, which moves the iterate by ``eta varsigma`` (both batches are aligned).
  Step 2: half the users have the Huber loss ``beta theta^2/2`` near 0, half the zero loss: at
  ``x_1 = 0`` all gradients coincide (score ``B``), at ``y_1 = -eta varsigma`` they split by
  ``beta eta varsigma = 1/tau`` and the score falls to ``(B/2)(1 + e^-1) = 0.68 B``, far below
  ``nu = 0.9B + ...``. Steps 3-4 push the iterate right. So ``d0`` passes every test and releases a
  point near ``0.14``, ``d1`` fails and releases ``x_0 = 0``: the pass/fail bit reveals the user.
  Under ``preset="safe"`` the step size is capped at ``1/(6 beta B)`` and the same data leak nothing.
* **P10, the threshold** ``nu`` **too low.** Algorithm 5 under ``preset="paper"`` with ``B = 15``.
  Step 1 is a bimodal batch: 7 users with gradient ``-G``, 7 with ``+G``, and the differing user at
  ``+G`` (``d0``) or ``-G`` (``d1``), so the median, and with it the step, flips sign: the pair is
  not aligned. Its score is ``~B/2``, below ``c0 B``, yet the paper's ``nu = 0.9B + 2 ln(T/delta)/eps``
  with sensitivity-1 noise lets it pass about 1% of the time, and a passing run reveals the user.
  The paper's ``nu`` is only safe through its precondition ``B >= 100 ln(T/delta)/eps``
  (Lemma 3.10), which this ``B`` violates (reported in the conditions); the safe threshold
  ``c0 B + (b_q + b_th) ln(2 e^eps/delta)`` holds the pass probability below ``delta/(2 e^eps)``
  for every ``B``, and the safe preset refuses the paper's value as an explicit ``threshold``.

References
----------
.. [GKLM25] B. Ghazi, R. Kumar, D. Liu and P. Manurangsi. Linear-time user-level DP-SCO via robust
   statistics. arXiv:2502.08889v1, 2025. Lemmas 3.8-3.10, Thm 3.1.
.. [Note000] The readings, corrections and pitfalls of Ghazi, Kumar, Liu and Manurangsi (2025)
   kept in ``docs/papers/ghazi2025.md`` (readings A1-A14, pitfalls P1-P20; pitfalls P2 and P10).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import check_one_of
from dpaudit.auditor.cases import AuditCase
from dpaudit.errors import CheckFailed, UnsoundMechanismWarning
from dpaudit.userlevel.ghazi2025.algorithms import RobustStatsLocalization
from dpaudit.userlevel.ghazi2025.losses import SeparableHuberLoss

__all__ = [
    "ghazi2025_audit_cases",
    "low_threshold_case",
    "missing_lemma_3_9_case",
]


_M, _D, _G, _EPS, _DELTA = 3, 1.0, 10.0, 1.0, 1e-3


def _user(m: int, location: float, weight: float) -> NDArray[np.float64]:
    u = np.zeros((m, 2))
    u[:, 0] = location
    u[:, 1] = weight
    return u


def _mechanism(loss: SeparableHuberLoss, preset: str, **kw: Any) -> RobustStatsLocalization:
    if preset == "paper":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnsoundMechanismWarning)
            return RobustStatsLocalization(loss, _EPS, _DELTA, radius=_D, preset="paper", phases=1, **kw)
    return RobustStatsLocalization(loss, _EPS, _DELTA, radius=_D, preset="safe", phases=1, **kw)


def missing_lemma_3_9_case(preset: str = "paper", trials: int = 2000) -> AuditCase:
    """Pitfall P2: Theorem 3.1's parameters without ``6 beta eta B <= 1`` (see the module docstring).

    ``n = 4B`` users of ``m = 3`` items in ``d = 1``, ``B = ceil(100 ln(mnd/delta)/eps)`` (Thm 3.1),
    one phase (the literal ``S = ceil(ln(n)/B) = 1`` of Alg. 5, line 2), ``eps = 1``,
    ``delta = 1e-3``, ``G = 10``, ``D = 1``; ``beta`` chosen so that ``beta eta_1 = 1`` with
    Theorem 3.1's ``eta``, which is within the theorem's bound on ``beta``.
    """
    check_one_of("missing_lemma_3_9_case", "preset", preset, ("paper", "safe"))
    m = _M
    b = 1600
    for _ in range(50):  # fixed point of B = ceil(100 ln(m * 4B * d / delta) / eps) [GKLM25, Thm 3.1]
        b = math.ceil(100.0 * math.log(4 * b * m / _DELTA) / _EPS)
    n = 4 * b
    # Theorem 3.1's eta_1, read from the paper preset itself (it does not depend on beta there)
    probe = _mechanism(SeparableHuberLoss(beta=1.0, gradient_cap=_G), "paper").parameters(n, m, 1)
    if probe.batch_size != b:  # pragma: no cover - the fixed point above is B(n) exactly
        raise CheckFailed(f"batch size {probe.batch_size} != {b}")
    beta = 1.0 / probe.phase_step_sizes[0]  # beta * eta_1 = 1 <= 2 (Lemma 3.2 holds), 6 beta eta_1 B = 6B
    loss = SeparableHuberLoss(beta=beta, gradient_cap=_G)
    far = _D + loss.knee + 1.0  # farther than G/beta outside the box: slope -/+G on the whole box
    d0 = np.stack([_user(m, 0.0, 0.0)] * n)
    d0[b : 2 * b : 2] = _user(m, 0.0, 1.0)  # step 2: half the batch has beta theta^2 / 2 near 0
    d0[2 * b : 4 * b] = _user(m, far, 1.0)  # steps 3-4: gradient -G pushes the iterate right
    d1 = d0.copy()
    d1[0] = _user(m, -far, 1.0)  # phase 1, step 1: the differing user has gradient +G
    mech = _mechanism(loss, preset)
    expect = preset == "paper"
    return AuditCase(
        name=f"ghazi2025-missing-6betaetaB-{preset}", mechanism=mech, d0=d0, d1=d1, epsilon=_EPS, delta=_DELTA,
        trials=trials, broken=expect, bug="A2" if expect else None, group="Ghazi et al. 2025",
        note=("Theorem 3.1's eta and beta (all printed preconditions hold) violate Lemma 3.9's 6*beta*eta*B <= 1: "
                     "a differing user at step 1 moves the iterate by eta/tau, which splits the step-2 batch and drops "
                     "its score from B to 0.68B, so the pass/fail bit reveals the user" if expect else
                     "same data with the safe preset: eta_s <= 1/(6 beta B) keeps every score within 2 of its neighbour's"),
    )


def low_threshold_case(preset: str = "paper", trials: int = 100_000) -> AuditCase:
    """Pitfall P10: a non-aligned (bimodal) batch passes the paper's threshold with small ``B``.

    ``n = 2B = 30`` users of ``m = 3`` items, ``d = 1``, one phase of two steps; ``eps = 1``,
    ``delta = 1e-3``, ``G = 10``, ``beta = 0.3`` (so ``6 beta eta B <= 1`` holds and only the
    threshold is at fault).
    """
    check_one_of("low_threshold_case", "preset", preset, ("paper", "safe"))
    m, b = _M, 15
    n = 2 * b
    loss = SeparableHuberLoss(beta=0.3, gradient_cap=_G)
    far = _D + loss.knee + 1.0
    d0 = np.stack([_user(m, 0.0, 0.0)] * n)
    d0[1:8] = _user(m, far, 1.0)  # 7 users with gradient -G
    d0[8:15] = _user(m, -far, 1.0)  # 7 users with gradient +G
    d0[0] = _user(m, -far, 1.0)  # the differing user: +G in d0 (median +G) ...
    d1 = d0.copy()
    d1[0] = _user(m, far, 1.0)  # ... and -G in d1 (median -G)
    mech = _mechanism(loss, preset, batch_size=b)
    expect = preset == "paper"
    return AuditCase(
        name=f"ghazi2025-low-threshold-{preset}", mechanism=mech, d0=d0, d1=d1, epsilon=_EPS, delta=_DELTA,
        trials=trials, broken=expect, bug="P10" if expect else None, group="Ghazi et al. 2025",
        note=("nu = 0.9B + 2ln(T/delta)/eps with B = 15 (below Lemma 3.10's B >= 100 ln(T/delta)/eps) lets a "
                     "bimodal, non-aligned batch pass ~1% of the time; the median flips with the differing user, so a "
                     "passing run reveals it" if expect else
                     "same data with the safe threshold c0*B + 24 ln(2e^eps/delta)/eps: the bimodal batch passes with "
                     "probability below delta/(2e^eps)"),
    )


def ghazi2025_audit_cases() -> tuple[AuditCase, ...]:
    """The correct and broken configurations to audit (each a few seconds with the default trials)."""
    return (
        missing_lemma_3_9_case("paper"),
        missing_lemma_3_9_case("safe"),
        low_threshold_case("paper"),
        low_threshold_case("safe"),
    )
