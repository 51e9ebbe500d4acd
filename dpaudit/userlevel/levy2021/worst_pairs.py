"""Worst-case pairs for Levy et al. 2021's full algorithms (Algorithms 3 and 4), and their transcripts.

:func:`alg3_worst_pair` and :func:`alg4_worst_pair` return a
:class:`~dpaudit.userlevel.transcript.WorstPair`: the algorithm configured for the pair, the pair,
the claim to audit against and the reasoning. :func:`alg3_transcript_steps` and
:func:`alg4_transcript_steps` say what every transcript column releases on the pair (plain data,
:class:`~dpaudit.userlevel.transcript.TranscriptStep`), for wiring the transcript to an exact
privacy calculator.

The construction (both algorithms; ``d = 1``, so ``d' = 1`` and the rotation is the fixed sign +1)
-----------------------------------------------------------------------------------------------------
* **A linear loss.** The absolute loss with every label at ``-2``, beyond every margin
  ``|<theta, x>| <= R ||x|| = 1``, is ``<theta, x> + 2`` on the whole domain: each user's gradient is
  its feature, at every iterate (:mod:`dpaudit.neighbors.canary`). Every step of Algorithm 3 then
  releases the same Algorithm 2 call on the same per-user values: ``T`` identical, non-adaptive
  releases, which is the case where composition is tight and a per-step likelihood-ratio sum is
  the optimal attack [NHSBT23].
* **The others at a bin centre.** Algorithm 2's 1-D range is ``sqrt(d) G = 1``; ``tau`` is chosen so
  that ``tau' = 1/4``: PrivateRange's bins of width ``1/2`` tile ``[-1, 1]`` and the other ``n - 1``
  users sit at ``0.25``, the centre of ``[0, 1/2)``. With ``n`` large enough (see ``n_users``) the
  exponential mechanism picks that bin with probability ``1 - 3 e^{-eps_r (n - 2)/2}``; its safe
  interval is ``[-1/2, 1]`` (width ``w = 6 tau'``).
* **The canary at the interval's two ends.** The canary's feature is ``-1/2`` in ``d0`` and ``1`` in
  ``d1``: the clipped mean moves by the full ``w/n``, so the Laplace stage ``Lap(2w/(n eps''))``
  spends its whole ``eps''/2`` in every step [LSA+21, Thm 1 proof]. Both versions lie outside the
  likely bin, so the bin counts differ only in two unlikely bins.
* **What no pair realises.** The range stage's ``eps''/2`` is spent only on unlikely bins: the
  exponential mechanism's log-ratio is at most ``eps_r/2`` on any output whose probability does not
  vanish with ``n`` (moving one user between two bins changes one count by one on each side).
  The claim's range half is the analysis's slack on every pair of this shape: the pair's exact
  law (:func:`dpaudit.userlevel.transcript_profile.range_then_laplace_profile`) spends ``0.583 eps''``
  per step.
* **Both stages at once** (:func:`alg3_laplace_channel_pair`, :func:`alg3_range_channel_pair`). On the
  released bin ``k``, a canary outside bin ``k`` tilts ``P(k)`` by at most ``eps_r/2`` (the normaliser
  alone moves) while the mean can move by the full ``w/n``; a canary inside it moves ``P(k)`` by up to
  ``eps_r`` but the clipped mean by at most ``4 tau'`` of ``w = 6 tau'``. Per step the transcript
  spends at most ``max(eps_r + 2/3 eps_L, eps_r/2 + eps_L)``: ``5/6 eps''`` for the correct
  algorithm (``eps_r = eps_L = eps''/2``), ``eps''`` for B1 (``eps_L = 3/4 eps''``: masked by the
  claim), ``5/4 eps''`` for B2 on the Laplace stage and ``4/3 eps''`` for B2 on PrivateRange or B3
  (violations). The channel pairs put the tilt and the full move on one likely bin;
  :func:`alg3_spending_pair` (and :func:`alg4_spending_pair`) reaches the first term, ``5/6 eps''``, on an
  unlikely bin: the canary's own bin in ``d0``, so its certified epsilon is ``5/6`` of the claim, the
  most any pair on one coordinate spends (the claim's slack is the Laplace stage's last third on
  that bin: ``6/5``, under 2). Its bin is released too rarely for an audit;
  :func:`alg3_worst_pair` is the pair audited.

The claim audited against is the paper's guarantee in its tightest form: basic composition of the
``T d'`` pure ``eps''``-DP runs of Algorithm 1 (Theorem 1, and Algorithm 2's and 3's budget splits),
``(T d' eps'', 0)`` [LSA+21, Thms 1-3; :meth:`WinsorizedFirstOrder.pure_epsilon_bound`], far below the
advanced-composition ``(eps, delta)`` for these sizes.

References
----------
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, arXiv:2102.11845.
.. [NHSBT23] M. Nasr, J. Hayes, T. Steinke, B. Balle, F. Tramèr, M. Jagielski, N. Carlini and
   A. Terzis. Tight auditing of differentially private machine learning. USENIX Security 2023.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.neighbors.canary import beyond_margin_items, canary_pair, linear_on_domain
from dpaudit.userlevel.hadamard import next_power_of_two
from dpaudit.userlevel.levy2021.exact_laws import rotated_coordinates
from dpaudit.userlevel.levy2021.first_order import WinsorizedFirstOrder, _split
from dpaudit.userlevel.levy2021.phased_erm import PhasedERM
from dpaudit.userlevel.levy2021.winsorized_1d import WinsorizedMean1D
from dpaudit.userlevel.levy2021.winsorized_highd import WinsorizedMeanHighD
from dpaudit.userlevel.losses import AbsoluteLoss
from dpaudit.userlevel.transcript import TranscriptStep, WorstPair

__all__ = ["alg3_audited_pair", "alg3_channel_pair", "alg3_laplace_channel_pair", "alg3_one_bin_pair",
           "alg3_outlier_pair", "alg3_range_channel_pair", "alg3_spending_pair", "alg3_transcript_steps",
           "alg3_worst_pair", "alg4_channel_pair", "alg4_spending_pair", "alg4_transcript_steps", "alg4_worst_pair"]

_LABEL = -2.0  # beyond every margin |<theta, x>| <= radius * feature_bound = 1
_TAU_PRIME = 0.25
_CENTRE, _LOW, _HIGH = 0.25, -0.5, 1.0  # the likely bin's centre and its safe interval's ends
_SPEND_OTHERS, _SPEND_LOW, _SPEND_HIGH = 0.75, -0.5, 0.5  # alg3_spending_pair: bin 3's centre; bin 1's lower end, its interval's top
_GAMMA = 1e-3
_EPSILON, _DELTA = 6.0, 0.1


def _tau_for(n_users: int, gamma: float, tau_prime: float = _TAU_PRIME) -> float:
    """The ``tau`` whose tight radius ``tau sqrt(2 log(2 n d'/gamma)/d')`` is ``tau_prime`` at ``d' = 1`` (``docs/papers/levy2021.md``, L7)."""
    return tau_prime / math.sqrt(2.0 * math.log(2.0 * n_users / gamma))


def _pair(n_users: int, m_items: int, centre: float = _CENTRE, low: float = _LOW,
          high: float = _HIGH) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    base = beyond_margin_items(np.full((n_users, 1), centre), m_items, _LABEL)
    return canary_pair(base, [low, _LABEL], [high, _LABEL])


def _alg3(cls: type[WinsorizedFirstOrder], steps: int, n_users: int, tau_prime: float) -> WinsorizedFirstOrder:
    with warnings.catch_warnings():  # a broken variant announces itself; the audit knows
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        return cls(AbsoluteLoss(), _EPSILON, _DELTA, radius=1.0, feature_bound=1.0, label_bound=2.0, steps=steps,
                   step_size=1e-3, tau=_tau_for(n_users, _GAMMA, tau_prime), gamma=_GAMMA, aggregate="last",
                   tau_rule="tight", signs=(1.0,))


def _alg3_pair(mech: WinsorizedFirstOrder, d0: Any, d1: Any, reasoning: str) -> WorstPair:
    claim = WinsorizedFirstOrder.tight_guarantee(mech, 1)
    return WorstPair(
        algorithm="Levy et al. 2021, Algorithm 3", mechanism=mech, d0=d0, d1=d1, epsilon=claim.epsilon, delta=0.0,
        claim_note=f"basic composition of the T d' = {mech.steps} pure runs of Algorithm 1 at eps'' "
                   f"(paper: ({_EPSILON:g}, {_DELTA:g}) by advanced composition)",
        reasoning=reasoning, steps=alg3_transcript_steps)


def alg3_worst_pair(steps: int = 4, n_users: int = 256, m_items: int = 2,
                    cls: type[WinsorizedFirstOrder] = WinsorizedFirstOrder) -> WorstPair:
    """Algorithm 3 (``T = steps``, or a variant ``cls``) on the canary pair of the module docstring.

    ``n_users = 256`` makes the likely bin's probability at least 0.99 at ``T <= 8``
    (``eps_r = eps''/2``); ``(eps, delta) = (6, 0.1)``, ``R = 1``, ``eta = 10^-3`` (the step size is
    irrelevant to privacy; it keeps the iterates inside the ball).
    """
    mech = _alg3(cls, steps, n_users, _TAU_PRIME)
    d0, d1 = _pair(n_users, m_items)
    return _alg3_pair(mech, d0, d1, "linear loss (each step the same release); the others at a bin centre, the canary "
                                    "at the two ends of that bin's clipping interval: the Laplace stage's full eps''/2 "
                                    "in every step")


def alg3_outlier_pair(steps: int = 4, n_users: int = 256, m_items: int = 2,
                      cls: type[WinsorizedFirstOrder] = WinsorizedFirstOrder) -> WorstPair:
    """Narrow bins (``tau' = 1/20``), the others at ``0.05`` (a bin centre), the canary at the domain's ends ``-1`` and ``1``.

    The correct algorithm clips the canary into the interval ``[-0.1, 0.2]`` on both sides (a shift of
    ``w/n``, the Laplace stage's ``eps''/2``); a variant that does not clip (B17) or widens the
    interval to cover it (B4) moves the mean by ``2/n``, ``6.7`` times more.
    """
    mech = _alg3(cls, steps, n_users, 0.05)
    d0, d1 = _pair(n_users, m_items, centre=0.05, low=-1.0, high=1.0)
    return _alg3_pair(mech, d0, d1, "narrow bins; the canary at the domain's ends, far outside the likely interval")


def alg3_one_bin_pair(steps: int = 4, n_users: int = 8, m_items: int = 2,
                      cls: type[WinsorizedFirstOrder] = WinsorizedFirstOrder) -> WorstPair:
    """One bin (``tau' = 1``: PrivateRange is constant), ``n = 8``, the canary at ``-1`` and ``1``, the others at 0.

    The interval (width ``6``) never clips: the canary moves the mean by ``2/n`` against ``Lap(12/(n eps''))``,
    a Laplace scale above 1, where drawing with the rate ``1/b`` as the scale (B15) is ``b^2`` times less noise.
    """
    mech = _alg3(cls, steps, n_users, 1.0)
    d0, d1 = _pair(n_users, m_items, centre=0.0, low=-1.0, high=1.0)
    return _alg3_pair(mech, d0, d1, "one bin and few users: a Laplace scale above 1")


def alg3_spending_pair(steps: int = 4, n_users: int = 256, m_items: int = 2,
                       cls: type[WinsorizedFirstOrder] = WinsorizedFirstOrder) -> WorstPair:
    """The pair that spends what Algorithm 1 can spend on one coordinate: ``5/6 eps''`` per step, ``5/6`` of the claim.

    Four bins (``tau' = 1/4``), the ``n - 1`` others at ``0.75`` (bin 3's centre), the canary at
    ``-0.5`` (bin 1's lower end) in ``d0`` and at ``0.5`` in ``d1``. On the release of bin 1 (centre
    ``-0.25``, clipping interval ``[-1, 0.5]``):

    * **PrivateRange spends its whole ``eps_r = eps''/2``**: bin 1's count is 1 vs 0 (a factor
      ``e^{eps_r/2}``) and the normaliser, dominated by bin 3 (``n - 1`` vs ``n``), moves by
      ``e^{eps_r/2}`` the other way (up to ``e^{-eps_r (n-1)/2}``);
    * **the Laplace stage spends ``2/3`` of its ``eps_L = eps''/2``**: the canary sits ``tau'`` inside the
      interval's lower end in ``d0`` and at its upper end in ``d1``, a move of ``4 tau'`` of ``w = 6 tau'``.

    That is the supremum over every pair on one coordinate (the module docstring's
    ``max(eps_r + 2/3 eps_L, eps_r/2 + eps_L)``), reached because bin 1 is the canary's own bin in
    ``d0`` and empty otherwise. Per step the claim pays ``eps''`` for the two stages by basic
    composition [LSA+21, Thm 1 proof]; the pair's pure epsilon is ``5/6`` of that, exactly (up to
    the normaliser's ``e^{-eps_r (n-1)/2}``), and, with the linear loss (identical non-adaptive steps),
    ``5/6`` of the claim over the ``T`` steps. Bin 1 is released with probability about
    ``e^{-eps_r (n - 1)/2}`` per step: the pair certifies the epsilon (no sampling), it is not one an
    audit can reach (:func:`alg3_worst_pair` is).
    """
    return alg3_channel_pair(steps, n_users, _TAU_PRIME, ((_SPEND_OTHERS, n_users - 1),), _SPEND_LOW, _SPEND_HIGH,
                             m_items, cls)


def alg3_channel_pair(steps: int, n_users: int, tau_prime: float, others: tuple[tuple[float, int], ...], low: float,
                      high: float, m_items: int = 2,
                      cls: type[WinsorizedFirstOrder] = WinsorizedFirstOrder) -> WorstPair:
    """Algorithm 3 on a pair of the module's shape with the other users spread: ``others`` is ``((value, count), ...)``.

    ``tau_prime`` sets the bins (width ``2 tau'`` on ``[-1, 1]``), the others sit at the given values
    (``n_users - 1`` in all), the canary at ``low`` in ``d0`` and ``high`` in ``d1``; linear loss as
    in :func:`alg3_worst_pair`, so every step is the same release. For the pairs that make both of
    Algorithm 1's stages spend at once (:func:`alg3_laplace_channel_pair`, :func:`alg3_range_channel_pair`).
    """
    values = [v for v, c in others for _ in range(c)]
    if len(values) != n_users - 1:
        raise argument_error("alg3_channel_pair", "others", f"counts summing to n_users - 1 = {n_users - 1}", others)
    mech = _alg3(cls, steps, n_users, tau_prime)
    base = beyond_margin_items(np.array([[values[0]], *([v] for v in values)], dtype=np.float64), m_items, _LABEL)
    d0, d1 = canary_pair(base, [low, _LABEL], [high, _LABEL])
    spread = ", ".join(f"{c} at {v:g}" for v, c in others)
    return _alg3_pair(mech, d0, d1, f"bins of width {2 * tau_prime:g}; the others {spread}; the canary at {low:g} vs {high:g}")


def alg3_audited_pair(steps: int = 4, cls: type[WinsorizedFirstOrder] = WinsorizedFirstOrder) -> WorstPair:
    """Algorithm 3 with two likely bins, each tilting the way the mean's move does: the pair for large audits.

    Four bins (``tau' = 1/4``), ``n = 512``: 255 others at ``-0.25`` (bin 1's centre), 256 at ``0.25``
    (bin 2's), the canary at ``-0.5`` (bin 1's lower end) in ``d0`` and at ``1`` in ``d1``. Bins 1 and 2
    are each released with probability about 1/2 and the others lie inside both their clipping
    intervals (``[-1, 0.5]`` and ``[-0.5, 1]``), so the mean's location given either bin is the same
    up to ``0.5/n`` against a Laplace scale of ``29/n``: one Laplace law per column, which a
    per-column likelihood-ratio attack reads. Per step:

    * on bin 2 the canary sits at the interval's two ends (the mean moves by the full ``w/n``: the
      Laplace stage's ``eps''/2``) and the bin's probability tilts towards ``d1`` by about ``eps_r/4``
      (the canary leaves the crowded bin 1 for the empty bin 3): ``5/8 eps''``, towards ``d1``;
    * on bin 1 (the canary's own bin in ``d0``) the tilt is about ``eps_r/4`` towards ``d0`` and the mean
      moves by ``2/3 w/n``, towards ``d0`` too (the canary is lower there).

    On :func:`alg3_worst_pair` the likely bin spends exactly the Laplace stage's half, so an audit
    reaches half the claim only through the rare bins (the optimal test passes it near ``10^9``
    estimation rows, ``benchmarks.bench_optimal_test``); here the
    likely bins spend more, and the exact optimal test at ``10^6`` trials per dataset reaches about the
    same bound but grows past half the claim from about ``3*10^6`` (``0.21`` at ``2.1*10^6``
    estimation rows, ``0.23`` at ``7*10^6``; the claim is ``0.414``). Certified: ``0.707`` of the claim
    (its largest loss is on the rare bin 3, ``3/4 eps_r + 2/3 eps_L``). At four steps and ``10^6`` trials
    the auditor's families read the bin-centre pair better (``docs/results.md``), so the benchmark's
    four-step row audits that one. With ``steps=2`` (the benchmark's "Levy Alg 3, 2 steps", the same
    release as :func:`alg4_channel_pair`'s round 1) the optimal test reaches about ``0.18`` at ``10^6``
    trials per dataset, above half the two-step claim (``0.160``).
    """
    return alg3_channel_pair(steps, 512, _TAU_PRIME, ((-0.25, 255), (0.25, 256)), -0.5, 1.0, cls=cls)


def alg3_laplace_channel_pair(steps: int = 2, cls: type[WinsorizedFirstOrder] = WinsorizedFirstOrder) -> WorstPair:
    """Both stages at once, the Laplace stage in full: the pair that targets a Laplace stage over-spending (B1, B2).

    Four bins (``tau' = 1/4``), ``n = 512``: 255 others at ``-0.75`` (bin 0's centre), 256 at ``0.25``
    (bin 2's), the canary at ``-1`` (bin 0) vs ``1`` (bin 3). Given bin 2 (released with probability
    about 1/2) the clipping interval ``[-0.5, 1]`` has the canary at its two ends: the mean moves by
    the full ``w/n`` (the Laplace stage's whole budget), and the exponential mechanism favours
    ``d1`` there too (``Z0 > Z1``: the canary adds to the crowded bin 0 in ``d0``, to the empty bin 3
    in ``d1``), by up to a quarter of its budget. The correct algorithm spends at most
    ``5/6 eps''`` per step on any pair of this family; Algorithm 1 with the Laplace stage at ``eps''``
    (B2) up to ``5/4 eps''``.
    """
    return alg3_channel_pair(steps, 512, 0.25, ((-0.75, 255), (0.25, 256)), -1.0, 1.0, cls=cls)


def alg3_range_channel_pair(steps: int = 2, cls: type[WinsorizedFirstOrder] = WinsorizedFirstOrder) -> WorstPair:
    """Both stages at once, PrivateRange's spend large: the pair that targets an over-spending range stage (B2, B3).

    Two bins (``tau' = 1/2``: ``[-1, 0)`` and ``[0, 1]``), ``n = 32``: 8 others at ``-0.5``, 23 at ``0.5``, the
    canary at ``-1`` (bin 0) vs ``1`` (bin 1). Bin 0 holds the canary in ``d0`` only and is lighter, so
    its probability moves by most of the exponential mechanism's budget and it is still released
    often; given bin 0 the interval ``[-2, 1]`` moves the mean by ``2/n`` (2/3 of the Laplace stage's).
    """
    return alg3_channel_pair(steps, 32, 0.5, ((-0.5, 8), (0.5, 23)), -1.0, 1.0, cls=cls)


def alg4_worst_pair(rounds: int = 2, steps: int = 2, n_users: int = 512, m_items: int = 2) -> WorstPair:
    """Algorithm 4 (``rounds`` rounds of ``steps`` steps) with the canary in round 1 (its ``n/2`` users).

    Rounds use disjoint users (parallel composition), so the canary meets one round; round 1 is the
    construction of :func:`alg3_worst_pair` on its ``n/2`` users, the later rounds see only users
    at the bin centre (their releases do not depend on the canary, nor, with the linear loss, on
    the iterate). ``tau`` and ``gamma`` are fixed so that round 1 has ``tau' = 1/4``.
    """
    return _alg4_pair(rounds, steps, n_users, m_items, _CENTRE, _LOW, _HIGH,
                      "the canary in round 1, built as for Algorithm 3; the other rounds see no canary")


def alg4_spending_pair(rounds: int = 2, steps: int = 2, n_users: int = 512, m_items: int = 2) -> WorstPair:
    """Algorithm 4 with round 1 built as :func:`alg3_spending_pair` (its ``n/2`` users): ``5/6`` of the claim.

    The others (every round) at ``0.75``, the canary at ``-0.5`` vs ``0.5``; the later rounds see no
    canary. Round 1 spends ``eps_r + 2/3 eps_L = 5/6 eps''`` per step on the bin holding the canary in
    ``d0``, released with probability about ``e^{-eps_r (n/2 - 1)/2}`` per step.
    """
    return _alg4_pair(rounds, steps, n_users, m_items, _SPEND_OTHERS, _SPEND_LOW, _SPEND_HIGH,
                      "round 1 as Algorithm 3's spending pair: the canary inside a bin on one side, at the far end "
                      "of that bin's clipping interval on the other, the others in one heavier bin")


def alg4_channel_pair(rounds: int = 2, steps: int = 2, n_users: int = 1024, m_items: int = 2) -> WorstPair:
    """Algorithm 4 with round 1 built as :func:`alg3_audited_pair` (its ``n/2 = 512`` users): the pair audited.

    Round 1: 255 others at ``-0.25``, 256 at ``0.25``, the canary at ``-0.5`` vs ``1``; the later rounds'
    users at ``0.25`` (no canary). Bins 1 and 2 are each released with probability about 1/2, and on
    both the released bin tilts towards the side the Laplace mean's move favours: ``0.707`` of the
    claim (certified), against ``0.583`` for :func:`alg4_worst_pair`, whose likely bin spends exactly
    the Laplace stage's half, so an audit of that pair reaches half the claim only through its rare bins,
    beyond ``10^10`` estimation rows (``benchmarks.bench_optimal_test``). Over round 1's two
    steps the exact optimal test at ``10^6`` trials per dataset reaches about ``0.18`` (half the claim: ``0.160``).
    """
    first = n_users // 2
    if first != 512:
        raise argument_error("alg4_channel_pair", "n_users", "1024 (round 1's 512 users: 255 + 256 others and the canary)",
                             n_users)
    values = np.concatenate([[-0.5], np.full(255, -0.25), np.full(n_users - 256, 0.25)])
    return _alg4_pair(rounds, steps, n_users, m_items, values, -0.5, 1.0,
                      "round 1 as Algorithm 3's audited pair: the released bin tilts the way the move of the mean does; "
                      "the other rounds see no canary")


def _alg4_pair(rounds: int, steps: int, n_users: int, m_items: int, centre: float | NDArray[np.float64], low: float,
               high: float, reasoning: str) -> WorstPair:
    """Algorithm 4 on the canary pair (user 0 at ``low`` vs ``high``), the others at ``centre`` (one value, or one each)."""
    first = n_users // 2
    mech = PhasedERM(AbsoluteLoss(), _EPSILON, _DELTA, radius=1.0, feature_bound=1.0, label_bound=2.0,
                     rounds=rounds, steps=steps, tau=_tau_for(first, _GAMMA), gamma=_GAMMA, tau_rule="tight",
                     signs=(1.0,))
    base = beyond_margin_items(np.broadcast_to(np.asarray(centre, dtype=np.float64), (n_users,))[:, None], m_items, _LABEL)
    d0, d1 = canary_pair(base, [low, _LABEL], [high, _LABEL])
    claim = mech.tight_guarantee(n_users, m_items, 1)
    return WorstPair(
        algorithm="Levy et al. 2021, Algorithm 4", mechanism=mech, d0=d0, d1=d1, epsilon=claim.epsilon, delta=0.0,
        claim_note=f"max over rounds of basic composition of T_t d' pure runs of Algorithm 1 (parallel composition; "
                   f"paper: ({_EPSILON:g}, {_DELTA:g}))",
        reasoning=reasoning, steps=alg4_transcript_steps)


def _coordinate_values(opt: WinsorizedFirstOrder, data: Any, signs: tuple[float, ...]) -> NDArray[np.float64]:
    """Every user's rotated gradient coordinates at ``theta = 0`` (clamped to Algorithm 2's box), ``(n, d')``."""
    items = np.asarray(data, dtype=np.float64)
    xy = _split(items, opt)
    grads = opt._user_gradients(np.zeros((1, items.shape[2] - 1)), xy)[0]
    box = np.clip(grads, -opt.lipschitz, opt.lipschitz)
    return rotated_coordinates(box, signs)


def _weights(pr: Any) -> tuple[str, float]:
    """``("exp(epsilon * count / 2)", epsilon)`` as ``pr``'s own log-weights draw (B3's ``exp(eps count)``: ``2 eps``).

    Read from the mechanism's :meth:`~dpaudit.userlevel.levy2021.private_range.PrivateRange.log_weights`,
    so that a record describes what the code draws; log-weights not linear in the count are named so
    (and not certified).
    """
    slope = np.diff(np.asarray(pr.log_weights(np.arange(3, dtype=np.int64)), dtype=np.float64))
    if not np.allclose(slope, slope[0], rtol=1e-12, atol=0.0):
        return "log-weights not linear in the count", float(pr.epsilon)
    return "exp(epsilon * count / 2)", float(2.0 * slope[0])


def _step_records(estimator: WinsorizedMeanHighD, v0: NDArray[np.float64], v1: NDArray[np.float64], offset: int,
                  label: str, adaptive: bool, budget: float) -> list[TranscriptStep]:
    """The ``3 d'`` columns of one Algorithm 2 call: signs, ranges' lower ends, noisy means (one record each)."""
    n, dp = v0.shape
    one_d = estimator.coordinate_mechanism(n, dp)
    pr = one_d.private_range()
    scale = one_d.noise_scale(n)
    centres = pr.bin_centers(np.arange(pr.n_bins))
    half = 0.5 * one_d.width
    signs = estimator.signs or (1.0,) * dp
    out = []
    for j in range(dp):
        out.append(TranscriptStep((offset + j, offset + j + 1), f"{label}: rotation sign omega_{j}", "none",
                                  {"value": signs[j]}, note="fixed public sign (privacy holds given the signs)"))
    weights, weight_epsilon = _weights(pr)
    for j in range(dp):
        counts = [np.bincount(pr.bin_index(v[:, j]).astype(np.int64), minlength=pr.n_bins).tolist() for v in (v0, v1)]
        out.append(TranscriptStep(
            (offset + dp + j, offset + dp + j + 1), f"{label}: PrivateRange lower end a_{j} = c_k - {half:g}",
            "exponential mechanism",
            {"epsilon": weight_epsilon, "weights": weights, "stage epsilon": pr.epsilon, "bins": pr.n_bins,
             "bin_width": 2.0 * pr.tau, "bound": pr.bound, "half_width": half},
            {"counts": tuple(counts[0])}, {"counts": tuple(counts[1])}, adaptive, {"epsilon": budget / 2.0},
            "released value: the chosen bin's interval lower end"))
    # a variant's own clipping or noise draw (B4, B15, B17) is not what these records describe: left uncertified
    paper_law = all(getattr(type(one_d), f) is getattr(WinsorizedMean1D, f) for f in ("_clip", "_laplace_noise"))
    key = "location given bin" if paper_law else "location given bin (not Pi_[a,b] + Lap(scale): not recorded)"
    for j in range(dp):
        locs = [tuple(np.clip(v[:, j][None, :], (centres - half)[:, None], (centres + half)[:, None]).mean(axis=1).tolist())
                for v in (v0, v1)]
        out.append(TranscriptStep(
            (offset + 2 * dp + j, offset + 2 * dp + j + 1), f"{label}: noisy winsorized mean Ybar_{j}", "laplace",
            {"scale": scale}, {key: locs[0]}, {key: locs[1]}, adaptive,
            {"epsilon": budget / 2.0}, "conditional on the released bin k: Lap(location[k], scale)"))
    return out


def alg3_transcript_steps(mech: WinsorizedFirstOrder, d0: Any, d1: Any) -> tuple[TranscriptStep, ...]:
    """What every column of Algorithm 3's transcript releases on ``(d0, d1)`` (layout: ``mech.observe``'s docstring).

    Per step and rotated coordinate: the sign (public), the exponential mechanism of PrivateRange
    (counts on each side) and the Laplace stage (its location given each bin, on each side). The
    steps are non-adaptive when the pair lies in the loss's linear region (every user's gradient
    the same at every iterate); the budget shown is the claim's share, ``eps''/2`` for each stage.
    """
    items0 = np.asarray(d0, dtype=np.float64)
    n, m, dim = items0.shape[0], items0.shape[1], items0.shape[2] - 1
    dp = next_power_of_two(dim)
    signs = mech.signs or (1.0,) * dp
    adaptive = not (linear_on_domain(mech.loss, d0, mech.radius) and linear_on_domain(mech.loss, d1, mech.radius))
    estimator = mech.gradient_estimator(n, m, dim)
    v0, v1 = _coordinate_values(mech, d0, signs), _coordinate_values(mech, d1, signs)
    budget = mech.pure_epsilon_bound(dim) / (mech.steps * dp)
    out: list[TranscriptStep] = []
    for t in range(mech.steps):
        out += _step_records(estimator, v0, v1, 3 * dp * t, f"step {t + 1}", adaptive and t > 0, budget)
    width = 3 * dp * mech.steps
    out.append(TranscriptStep((width, width + dim), "the output Aggregate(theta_1 .. theta_T)", "none",
                              note="post-processing of the releases above"))
    return tuple(out)


def alg4_transcript_steps(mech: PhasedERM, d0: Any, d1: Any) -> tuple[TranscriptStep, ...]:
    """What every column of Algorithm 4's transcript releases on ``(d0, d1)``: each round as Algorithm 3, then its output."""
    items0 = np.asarray(d0, dtype=np.float64)
    n, m, dim = items0.shape[0], items0.shape[1], items0.shape[2] - 1
    dp = next_power_of_two(dim)
    signs = mech.signs or (1.0,) * dp
    linear = linear_on_domain(mech.loss, d0, mech.radius) and linear_on_domain(mech.loss, d1, mech.radius)
    out: list[TranscriptStep] = []
    offset = 0
    for r, phase in enumerate(mech.schedule(n, m, dim), start=1):
        opt = mech.round_optimizer(phase)
        users0, users1 = items0[phase.start:phase.stop], np.asarray(d1, dtype=np.float64)[phase.start:phase.stop]
        if phase.steps:
            estimator = opt.gradient_estimator(phase.n_users, m, dim)
            v0, v1 = _coordinate_values(opt, users0, signs), _coordinate_values(opt, users1, signs)
            budget = opt.pure_epsilon_bound(dim) / (phase.steps * dp)
            for t in range(phase.steps):
                out += _step_records(estimator, v0, v1, offset, f"round {r}, step {t + 1}",
                                     not linear and (r > 1 or t > 0), budget)
                offset += 3 * dp
        out.append(TranscriptStep((offset, offset + dim), f"round {r} output theta_hat_{r}", "none",
                                  note="post-processing of the releases above"))
        offset += dim
    return tuple(out)
