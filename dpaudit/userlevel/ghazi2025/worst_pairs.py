"""Worst-case pairs for Ghazi, Kumar, Liu and Manurangsi (2025)'s Algorithm 1 (+ noise) and Algorithm 5.

:func:`alg1_worst_pair` and :func:`alg5_worst_pair` return a
:class:`~dpaudit.userlevel.transcript.WorstPair`; :func:`transcript_steps` says what each
transcript column releases on the pair (both algorithms share the phase structure).

The construction (``preset="safe"``, ``(eps, delta) = (1, 10^-3)``, ``d = 1``, ``B = 1000``)
-------------------------------------------------------------------------------------------
* **A linear loss.** :class:`~dpaudit.userlevel.ghazi2025.losses.LinearLoss` has gradient ``-x`` at
  every iterate, so the scores, the robust estimates and the phase averages do not depend on the
  iterate: every phase is the same mechanism whatever the earlier releases.
* **At the concentration test's threshold.** The score of Eq. (3) is
  ``(1/B) sum_{i,j} exp(-tau ||q_i - q_j||_inf)``; with ``tau = 5`` (an inverse radius: privacy holds
  for every public ``tau``, Lemma 3.10) gradients 1.5 apart contribute ``e^{-7.5}``, nearly nothing.
  Every batch has 997 users at gradient ``-0.5`` and 2 at ``+1``; the canary (first user) is at
  ``-0.5`` in ``d0`` (score ``(998^2 + 2^2)/1000 = 996.0``) and joins the two at ``+1`` in ``d1``
  (``(997^2 + 3^2)/1000 = 994.0``): its query moves by 1.99 of the score's sensitivity 2 [GKLM25,
  Eq. (4), Lemma 3.9], across the safe threshold ``nu = c0 B + 24 ln(2 e^eps/delta)/eps = 995.0``.
* **The robust estimate.** The canary moves the batch mean by ``1.5/B`` inside the clip
  ``varsigma = 1/tau`` around the median [Alg. 2]; the phase average moves by ``eta`` times that over
  the phase's steps, against the Gaussian's calibration ``sqrt(d) 6 eta varsigma`` [Lemma 3.6]: the
  Gaussian share of the claim is slack on this pair (and on any: one user moves a mean of ``B`` by
  at most ``2G/B``, the calibration pays ``6 varsigma``, Lemma 3.6's alignment worst case).
* **What no pair realises.** The canary meets one query of the phase's AboveThreshold: a single
  query moved by 2 against query noise ``Lap(16/eps)`` spends at most ``eps/8``, while the claim's
  ``eps/2`` for AboveThreshold pays for a whole stream of moved queries (the threshold's noise).

References
----------
.. [GKLM25] B. Ghazi, R. Kumar, D. Liu and P. Manurangsi. Linear-time user-level DP-SCO via robust
   statistics. arXiv:2502.08889v1, 2025. Eq. (3)-(4), Algorithms 1-5, Lemmas 3.6-3.10.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.neighbors.canary import canary_pair
from dpaudit.userlevel.ghazi2025.algorithms import RobustStatsLocalization, RobustStatsSGD
from dpaudit.userlevel.ghazi2025.base import _Ghazi2025Base
from dpaudit.userlevel.ghazi2025.losses import LinearLoss
from dpaudit.userlevel.ghazi2025.sgd import robust_sgd_path
from dpaudit.userlevel.transcript import TranscriptStep, WorstPair

__all__ = ["alg1_worst_pair", "alg5_worst_pair", "transcript_steps"]

EPSILON, DELTA = 1.0, 1e-3
BATCH = 1000
TAU = 5.0
_CORE, _OTHERS = 997, 2


def _batch() -> NDArray[np.float64]:
    """Gradients ``-x`` of one batch: the canary (first), 997 at ``-0.5``, 2 at ``+1`` (features ``0.5`` and ``-1``)."""
    return np.r_[0.5, np.full(_CORE, 0.5), np.full(_OTHERS, -1.0)]


def _pair(n_users: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Every batch like :func:`_batch`; the canary's feature ``0.5`` (``d0``) or ``-1`` (``d1``: it joins the two)."""
    features = np.tile(_batch(), n_users // BATCH)
    base = np.zeros((features.size, 1, 2))
    base[:, 0, 0] = features
    return canary_pair(base, [0.5, 0.0], [-1.0, 0.0])


def _worst(cls: type[_Ghazi2025Base], n_users: int, **kw: Any) -> tuple[_Ghazi2025Base, NDArray[np.float64], NDArray[np.float64]]:
    mech = cls(LinearLoss(1.0), EPSILON, DELTA, radius=1.0, batch_size=BATCH, tau=TAU, **kw)
    d0, d1 = _pair(n_users)
    return mech, d0, d1


def alg1_worst_pair(**kw: Any) -> WorstPair:
    """Algorithm 1 with output perturbation: two steps of ``B`` users, the canary in the first batch."""
    mech, d0, d1 = _worst(RobustStatsSGD, 2 * BATCH, **kw)
    return WorstPair(
        algorithm="Ghazi et al. 2025, Algorithm 1 + noise", mechanism=mech, d0=d0, d1=d1, epsilon=EPSILON, delta=DELTA,
        claim_note="the paper's (eps, delta) [GKLM25, Lemma 3.10], safe preset",
        reasoning="linear loss; the canary's batch score next to the safe threshold, the canary aligned in d0 and "
                  "joining a far cluster in d1 (its query moves by ~2)",
        steps=transcript_steps)


def alg5_worst_pair(**kw: Any) -> WorstPair:
    """Algorithm 5 (localization), two phases of two steps (``n = 4B``), the canary in phase 1's first batch."""
    mech, d0, d1 = _worst(RobustStatsLocalization, 4 * BATCH, **kw)
    return WorstPair(
        algorithm="Ghazi et al. 2025, Algorithm 5", mechanism=mech, d0=d0, d1=d1, epsilon=EPSILON, delta=DELTA,
        claim_note="the paper's (eps, delta) [GKLM25, Thm 3.1], safe preset",
        reasoning="as for Algorithm 1 in phase 1; later phases see no canary (parallel composition)",
        steps=transcript_steps)


def transcript_steps(mech: _Ghazi2025Base, d0: Any, d1: Any) -> tuple[TranscriptStep, ...]:
    """What every column of the transcript releases on ``(d0, d1)``: per phase the AboveThreshold stream and the Gaussian.

    The scores of each step (the AboveThreshold queries) and the phase's average iterate when it
    passes are computed on each dataset from the phase's start ``x_0`` (public for phase 1; for
    later phases the previous noisy output, a release, but with a linear loss they do not depend on
    it, and the values shown are at ``x_0``).
    """
    z0, z1 = np.asarray(d0, dtype=np.float64), np.asarray(d1, dtype=np.float64)
    n, m, d = z0.shape[0], z0.shape[1], z0.shape[2] - 1
    p = mech.parameters(n, m, d)
    x0 = np.zeros(d) if mech.initial_point is None else np.asarray(mech.initial_point, dtype=float)
    out: list[TranscriptStep] = []
    offset = col = 0
    for s in range(p.phases):
        sides = []
        for z in (z0, z1):
            users = z[offset: offset + p.phase_users[s]]
            path = robust_sgd_path(mech.loss, users, x0, step_size=p.phase_step_sizes[s], tau=p.tau,
                                   batch_size=p.batch_size, radius=p.radius, statistic=mech.statistic,
                                   varsigma=p.varsigma)
            sides.append({"scores": tuple(path.scores.tolist()), "average if every test passes":
                          tuple(path.average.tolist()), "x_start (on a halt)": tuple(x0.tolist())})
        differ = sides[0] != sides[1]
        adaptive = s > 0 and not isinstance(mech.loss, LinearLoss)
        out.append(TranscriptStep(
            (col, col + 1), f"phase {s + 1}: AboveThreshold halting step (-1: every test passed)", "above threshold",
            {"threshold": p.phase_thresholds[s], "threshold scale": p.threshold_scale, "query scale": p.query_scale,
             "sensitivity": p.at_sensitivity, "epsilon": p.at_epsilon, "variant": "halt at score + Lap < threshold - Lap"},
            {"scores": sides[0]["scores"]}, {"scores": sides[1]["scores"]}, adaptive,
            {"epsilon": p.at_epsilon} if differ else {}, "Algorithm 4: one threshold draw per phase, one query per step"))
        out.append(TranscriptStep(
            (col + 1, col + 1 + d), f"phase {s + 1}: noisy output x_{s + 1}", "gaussian", {"sigma": p.phase_sigmas[s]},
            sides[0], sides[1], adaptive,
            {"epsilon": p.gaussian_epsilon, "delta": p.gaussian_delta} if differ else {},
            "N(average, sigma^2) if the phase passed, N(x_start, sigma^2) if it halted"))
        col += 1 + d
        offset += p.phase_users[s]
    out.append(TranscriptStep((col, col + d), "the output x_S", "none", note="post-processing of the releases above"))
    return tuple(out)

