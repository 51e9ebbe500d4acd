"""Worst-case pairs for Lowy, Liu and Asi (2024)'s Algorithms 1 and 2, and their transcripts.

:func:`alg1_worst_pair` and :func:`alg2_worst_pair` return a
:class:`~dpaudit.userlevel.transcript.WorstPair`; :func:`alg1_transcript_steps` and
:func:`alg2_transcript_steps` say what each transcript column releases on the pair.

Both run under ``preset="audit"`` (the noise calibrated to a recomputed, explicit budget, which is
the claim) with the absolute loss and labels beyond every margin, so that a user's gradient is its
feature at every iterate (:mod:`dpaudit.neighbors.canary`): the releases do not depend on the
iterate, and each step of Algorithm 2 is the same mechanism on the same inputs.

Algorithm 1 (one phase, one user per group, ``C = 72`` groups at ``(2, 1e-3)``)
--------------------------------------------------------------------------------
Each group's iterate sits where the construction puts it (positions in units of ``tau``; the
helper of :mod:`.audit_cases`): a core of 67 users at ``-0.99``, a cluster of 4 at ``0.99``, and the
canary at ``0`` in ``d0`` and ``-2.5`` in ``d1``.

* **At the test's threshold, with the score's full sensitivity.** The score counts ordered pairs
  within ``tau`` [LLA24, Alg 1 line 12]. In ``d0`` the canary is within ``tau`` of all 71 others,
  which are not within ``tau`` of each other across the two clusters (``1.98 tau`` apart):
  ``(67^2 + 4^2 + 2 * 71 + 1)/72 = 64.56``, just below the threshold ``0.9 C = 64.8``. In ``d1`` the
  canary is within ``tau`` of nobody: ``(67^2 + 4^2 + 1)/72 = 62.58``. The score moves by
  ``2 * 71/72``, its whole sensitivity ``2(C - 1)/C``, and sits in the Laplace test's exponential
  tail on both sides, where the pass probabilities' ratio is ``e^{eps_test}``: the test's whole share.
* **At the outlier rule's threshold.** The ramp keeps a point with ``2 tau``-rank ``h >= 2C/3`` for sure
  [Alg 1 lines 16-17]: every point is kept on both sides (the clusters are ``1.98 tau`` apart, within
  ``2 tau``), and in ``d1`` the canary at ``-2.5`` is still within ``2 tau`` of the core (rank 68): kept,
  at the far edge of the ball. The robust mean moves by ``2.5 tau / 72``.
* **What no such pair realises.** Lemma B.2's sensitivity (the Gaussian's calibration, ``1.08 tau``
  here) pays for up to ``t = 8`` other points flipping in or out with probability ``6/C`` each; one
  user cannot make them flip while it is within ``tau`` of everyone in ``d0``. The Gaussian share of
  the claim is slack on this pair: the canary's own move is ``0.012 sigma``.
* **What the pair costs, exactly.** Every ramp coin is 1 on both sides, so the transcript is the test
  and, on a pass, the Gaussian around a fixed mean: one joint law
  (:func:`dpaudit.exact.laplace_test_then_gaussian_profile`; ``P(pass) = e^{-(64.8 - score)/2}/2``,
  0.4425 vs 0.1651). Its epsilon at ``delta = 1e-3`` is 0.9922 (the test's pure 0.9861 and the
  Gaussian's small move together), just under half the claim of 2: the claim also pays the Gaussian
  a share (1.014) that one user at the test's boundary does not spend.

Algorithm 2 (one call, full batch ``K = n = 160``, ``T = 4`` steps at ``(8, 1e-2)``)
------------------------------------------------------------------------------------
The score (at ``2 tau``, ``tau = 0.2 L``) of a core of 150 users at ``q = 0.5`` and a far cluster of
9 at ``-0.5``: with the canary in the core (``d0``, at ``0.1``, the core's ``2 tau`` edge) it is
``(151^2 + 81)/160 = 143.0``, just below the threshold ``0.9 K = 144``; with the canary at ``-1``
(``d1``, within ``2 tau`` of nobody) ``141.1``. Every step the AboveThreshold query moves by 1.9 of
its sensitivity 2 and the robust mean by the canary's kept contribution ``0.4/151``; the user meets
every step (full batch), so the steps compose.

The same pair for the with-replacement variant (pitfall P7, ``K = n = 160`` draws)
----------------------------------------------------------------------------------
Each step's batch is ``K`` uniform draws among the 160 users: the canary appears ``k ~ Binomial(160,
1/160)`` times (about ``Poisson(1)``), the same law on both datasets, and so do the core's ``C`` and
the far cluster's ``F`` copies. The score is ``((C + k)^2 + F^2)/K`` on ``d0`` and ``(C^2 + F^2 + k^2)/K``
on ``d1``: the canary's copies move it by ``2 k C/K`` (``1.9 k``, unbounded in ``k`` where the correct
algorithm's move is at most 2), but ``C`` and ``F`` move it too, by several units (a standard deviation
of about 5.5 against the AboveThreshold query noise ``Lap(2)``). The ramp keeps the core and the
canary on ``d0`` and the core alone on ``d1`` whenever ``C + k >= 107`` and ``F, k < 80``; the robust
mean then moves by ``0.4 k/(C + k)``, against ``sigma = 8.4 L``. The records give the user types and
their counts; :mod:`.with_replacement` turns them into the scores' exact law and a dominating pair.

References
----------
.. [LLA24] A. Lowy, D. Liu and H. Asi. Faster algorithms for user-level private stochastic convex
   optimization. NeurIPS 2024, Algorithms 1-2, Lemmas B.2 and C.2.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.neighbors.canary import beyond_margin_items, canary_pair, linear_on_domain
from dpaudit.userlevel.losses import AbsoluteLoss
from dpaudit.userlevel.lowy2024.audit_cases import _alg1, _alg1_data
from dpaudit.userlevel.lowy2024.outlier_removal import inclusion_probability, pairwise_sq_distances
from dpaudit.userlevel.lowy2024.phased_erm import AcceleratedMinibatchSGD
from dpaudit.userlevel.lowy2024.phased_sgd import OutlierRemovalPhasedSGD
from dpaudit.userlevel.transcript import TranscriptStep, WorstPair

__all__ = ["ALG1_RULE", "ALG2_RULE", "REPLACEMENT", "alg1_transcript_steps", "alg1_worst_pair", "alg2_transcript_steps", "alg2_worst_pair"]

#: Algorithm 1's test as the records name it [LLA24, Alg 1 lines 12-13]: ``s_hat = s + Lap(20/eps)``, pass iff ``>= 4C/5``.
ALG1_RULE = "pass iff score + Lap(scale) >= threshold"
#: Algorithm 2's AboveThreshold answer as the records name it [LLA24, Alg 2 line 4, the test on the negated score].
ALG2_RULE = "halt iff -score + Lap(query scale) >= -threshold + Lap(threshold scale)"
#: How Algorithm 2's records mark a minibatch drawn with replacement (pitfall P7): the step's input is the user types' law.
REPLACEMENT = "drawn with replacement: K uniform draws among the n users, afresh each step"

_LABEL = -2.0  # beyond every margin |<theta, x>| <= 1
_ALG1_USERS = 288  # 4 C: one phase (q = 1) of C = 72 groups of one user


def _alg1_positions(canary: float) -> NDArray[np.float64]:
    """Group iterates in units of tau: the canary, 67 at -0.99, 4 at 0.99 (see the module docstring)."""
    return np.r_[canary, np.full(67, -0.99), np.full(4, 0.99)]


def alg1_worst_pair(cls: type[OutlierRemovalPhasedSGD] = OutlierRemovalPhasedSGD, **kw: Any) -> WorstPair:
    """Algorithm 1 (or a variant ``cls``) on the pair of the module docstring, against its recomputed claim."""
    mech, eta1 = _alg1(cls, _ALG1_USERS, **kw)
    d0 = _alg1_data(_alg1_positions(0.0), _ALG1_USERS, eta1)
    d1 = _alg1_data(_alg1_positions(-2.5), _ALG1_USERS, eta1)
    claim = OutlierRemovalPhasedSGD.claimed_guarantee(mech)
    return WorstPair(
        algorithm="Lowy et al. 2024, Algorithm 1", mechanism=mech, d0=d0, d1=d1, epsilon=claim.epsilon,
        delta=claim.delta, claim_note="the audit preset's recomputed budget: eps_test + Gaussian (Lemma B.2 explicit)",
        reasoning="score just below the test's threshold, moved by its whole sensitivity 2(C-1)/C; the canary kept on "
                  "both sides, at the far edge of the ramp's 2 tau ball in d1",
        steps=alg1_transcript_steps)


def alg1_transcript_steps(mech: OutlierRemovalPhasedSGD, d0: Any, d1: Any) -> tuple[TranscriptStep, ...]:
    """What every column of Algorithm 1's transcript releases on ``(d0, d1)``: per phase the test and the Gaussian.

    Only phases whose users differ between ``d0`` and ``d1`` get data-dependent inputs; the test
    is a Laplace mechanism on the score (released as pass/halt), the phase output a Gaussian around
    the robust mean of the iterates kept by the ramp's coins (their probabilities shown). Phase
    ``i > 1`` starts from ``x_{i-1}``, a previous release: adaptive unless the loss is linear there.
    """
    z0, z1 = np.asarray(d0, dtype=np.float64), np.asarray(d1, dtype=np.float64)
    n, m, d = z0.shape[0], z0.shape[1], z0.shape[2] - 1
    p = mech.parameters(n, m, d)
    linear = linear_on_domain(mech.loss, z0, mech.radius) and linear_on_domain(mech.loss, z1, mech.radius)
    budget = mech.audit_budget() if mech.preset == "audit" else None
    out: list[TranscriptStep] = []
    offset = col = 0
    for i in range(p.phases):
        sides = []
        for z in (z0, z1):
            start = None if i == 0 else np.zeros((1, d))  # phase 1 starts at x_0; later ones at a release
            its = mech._phase_iterates(z, p, i, offset, None, start, None)[0]
            d2 = pairwise_sq_distances(its)
            tau_u = p.phase_taus[i] / mech.radius
            score = float(np.count_nonzero(d2 <= tau_u * tau_u) / p.groups)
            probs = inclusion_probability(np.count_nonzero(d2 <= 4.0 * tau_u * tau_u, axis=-1), p.groups)
            kept = probs > 0
            loc = (mech.radius * (probs[kept, None] * its[kept]).sum(axis=0) / probs[kept].sum()).tolist() if kept.any() else [0.0] * d
            sides.append({"score": score, "inclusion probabilities": tuple(probs.tolist()),
                          "location if the coins are their means": tuple(loc)})
        adaptive = i > 0 and not linear
        out.append(TranscriptStep(
            (col, col + 1), f"phase {i + 1}: test outcome (1 pass, 0 halt, -1 not reached)", "laplace test",
            {"scale": p.test_scale, "threshold": p.threshold, "sensitivity": 2.0 * (p.groups - 1) / p.groups,
             "rule": ALG1_RULE},
            {"score": sides[0]["score"]}, {"score": sides[1]["score"]}, adaptive,
            {"epsilon": budget.epsilon_test} if budget else {}, "halt iff score + Lap(scale) < threshold"))
        out.append(TranscriptStep(
            (col + 1, col + 1 + d), f"phase {i + 1}: noisy robust mean x_{i + 1}", "gaussian",
            {"sigma": p.phase_sigmas[i]}, sides[0], sides[1], adaptive,
            {"epsilon": budget.epsilon_gaussian, "delta": budget.delta_gaussian + budget.zeta} if budget else {},
            "released only if the test passes; the kept set is drawn by independent coins (ramp coins), "
            "then N(mean of the kept iterates, sigma^2 I)"))
        col += 1 + d
        offset += p.groups * p.group_users[i]
    out.append(TranscriptStep((col, col + d), "the output x_l (0 on a halt)", "none",
                              note="post-processing of the releases above"))
    return tuple(out)


def _user_types(q0: NDArray[np.float64], q1: NDArray[np.float64]) -> tuple[Any, Any, tuple[int, ...]]:
    """The distinct ``(gradient on d0, gradient on d1)`` of the users, as ``(types on d0, types on d1, users per type)``."""
    joint = np.hstack([q0, q1])
    rows, counts = np.unique(joint, axis=0, return_counts=True)
    d = q0.shape[1]
    return (tuple(tuple(r[:d].tolist()) for r in rows), tuple(tuple(r[d:].tolist()) for r in rows),
            tuple(int(c) for c in counts))


def _alg2_features(canary: float) -> NDArray[np.float64]:
    return np.r_[canary, np.full(150, 0.5), np.full(9, -0.5)][:, None]


def alg2_worst_pair(cls: type[AcceleratedMinibatchSGD] = AcceleratedMinibatchSGD, steps: int = 4) -> WorstPair:
    """Algorithm 2 (or a variant ``cls``) on the pair of the module docstring, against ``(8, 1e-2)``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        mech = cls(AbsoluteLoss(), 8.0, 1e-2, label_bound=2.0, smoothness=0.0, tau=0.2, steps=steps)
    base = beyond_margin_items(_alg2_features(0.5), 2, _LABEL)
    d0, d1 = canary_pair(base, [0.1, _LABEL], [-1.0, _LABEL])
    claim = AcceleratedMinibatchSGD.claimed_guarantee(mech)
    return WorstPair(
        algorithm="Lowy et al. 2024, Algorithm 2", mechanism=mech, d0=d0, d1=d1, epsilon=claim.epsilon,
        delta=claim.delta, claim_note="the paper's (eps, delta), which the audit preset's recomputation certifies",
        reasoning="score just below the AboveThreshold threshold, moved by 1.9 of its sensitivity 2 in every step; "
                  "the canary kept at the core's 2 tau edge in d0, dropped in d1",
        steps=alg2_transcript_steps)


def alg2_transcript_steps(mech: AcceleratedMinibatchSGD, d0: Any, d1: Any) -> tuple[TranscriptStep, ...]:
    """What every column of Algorithm 2's transcript releases on ``(d0, d1)`` (full batch: no subsampling).

    Per step: the AboveThreshold answer on the negated score (threshold noise drawn once per call,
    fresh query noise per step; the answers are one interactive mechanism, not independent steps)
    and the Gaussian around the robust mean of the kept users' gradients (in units of ``L``). With
    the minibatch drawn with replacement (pitfall P7) the records are marked ``minibatch`` =
    :data:`REPLACEMENT` and carry the users' types (distinct gradients on each side, users per type),
    from which :mod:`.with_replacement` computes the scores' law; the full-batch scores shown are then
    for reading only.
    """
    z0, z1 = np.asarray(d0, dtype=np.float64), np.asarray(d1, dtype=np.float64)
    n, m, d = z0.shape[0], z0.shape[1], z0.shape[2] - 1
    p = mech.parameters(n, m, d)
    dom, _ = mech.domain_for(n, m, d)
    linear = linear_on_domain(mech.loss, z0, mech.radius) and linear_on_domain(mech.loss, z1, mech.radius)
    k = p.phase_batch[0]
    sides = []
    grads = []
    for z in (z0, z1):
        q = dom.user_mean_gradients(np.zeros((1, d)), z[None, :k])[0]
        grads.append(dom.user_mean_gradients(np.zeros((1, d)), z[None])[0])
        d2 = pairwise_sq_distances(q)
        within = d2 <= (2.0 * p.tau / dom.lipschitz) ** 2
        h = np.count_nonzero(within, axis=-1)
        probs = inclusion_probability(h, k)
        loc = ((probs[:, None] * q).sum(axis=0) / probs.sum()).tolist()
        sides.append({"score": float(h.sum() / k), "inclusion probabilities": tuple(probs.tolist()),
                      "location if the coins are their means": tuple(loc)})
    b: Any = p.budgets[0]  # a LowyBudget (parameters.py types budgets as objects)
    rules = mech._rules  # the variants' departures (P7, P10) change what the records can say
    at = {"threshold scale": 4.0 / p.above_threshold_epsilon, "query scale": 8.0 / p.above_threshold_epsilon,
          "threshold": p.threshold_fraction * k, "sensitivity": 2.0, "epsilon": p.above_threshold_epsilon,
          "rule": ALG2_RULE, "call": 1, "threshold noise": "fresh every step" if rules.redraw_threshold else "once per call"}
    types: tuple[dict[str, Any], dict[str, Any]] = ({}, {})
    if rules.with_replacement:  # the batch's multiplicities are random: the step's input is the law of the user types
        t0, t1, counts = _user_types(grads[0], grads[1])
        at.update({"minibatch": REPLACEMENT, "draws": k, "type counts": counts, "score radius": 2.0 * p.tau / dom.lipschitz})
        types = ({"user types": t0}, {"user types": t1})
    out: list[TranscriptStep] = []
    for t in range(p.phase_steps[0]):
        col = t * (1 + d)
        out.append(TranscriptStep(
            (col, col + 1), f"step {t + 1}: AboveThreshold answer (1 continue, 0 halt, -1 not reached)",
            "above threshold", at, {"score": sides[0]["score"], **types[0]}, {"score": sides[1]["score"], **types[1]}, False,
            {"epsilon": b.epsilon_above_threshold}, "halt iff -score + Lap(query scale) >= -threshold + Lap(threshold "
            "scale), the threshold noise drawn once per call (the whole call's answers share this budget)"))
        out.append(TranscriptStep(
            (col + 1, col + 1 + d), f"step {t + 1}: noisy robust minibatch gradient (g + zeta)/L", "gaussian",
            {"sigma": p.phase_sigmas[0] / dom.lipschitz, **({"minibatch": REPLACEMENT} if rules.with_replacement else {})},
            sides[0], sides[1], t > 0 and not linear,
            {"epsilon": b.epsilon_step, "delta": b.delta_gradients / p.phase_steps[0]},
            "released only while the test continues; kept users drawn by the ramp's coins"))
    width = p.phase_steps[0] * (1 + d)
    out.append(TranscriptStep((width, width + d), "the output x_ag (0 on a halt)", "none",
                              note="post-processing of the releases above"))
    return tuple(out)
