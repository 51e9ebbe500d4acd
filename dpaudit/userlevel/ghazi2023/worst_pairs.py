"""Worst-case pairs for Ghazi et al. (2023)'s full algorithms (Algorithms 3-6), and their transcripts.

The functions return :class:`~dpaudit.userlevel.transcript.WorstPair` records; :func:`transcript_steps`
says what each transcript column releases on a pair (one SCOutputPert call per column block).

Every SCOutputPert call releases ⊥ with probability ``P[R1 < k(x)]`` (``k`` the stability search's
deletion count, ``R1 ~ TDLap(eps_bar, delta_bar)`` shifted by ``kappa``), else its stable centre plus
``N(0, sigma^2)`` [GKKMMZ23, Alg 1-2, Thm 3.3]; the proof gives the ⊥ channel ``eps/2`` and the
Gaussian ``eps/2``. A pair spends the ⊥ channel's whole share when ``k`` moves by one next to
``kappa``, and the Gaussian's when the stable centres move by the calibration ``8 kappa Delta``.

The stability search's boundary (Algorithms 4 and 6)
----------------------------------------------------
The golden construction of :mod:`.audit_cases` (note App. B2), with inliers at label ``-1`` and
outliers at ``+1`` (twice the golden contrast) and ``m = 3000`` items per user, ``beta = 0.3``:
deleting an outlier moves the regularised minimiser by more than ``Delta`` while deleting inliers
moves it by nothing (identical users), so ``k(x)`` is the number of outliers in the call's users and
the stable centre is the inliers' minimiser on both datasets (checked by :func:`transcript_steps`).
The canary is an outlier in ``d0`` and an inlier in ``d1``, in a call that holds ``kappa + 1``
outliers in ``d0``: ``k`` moves from ``kappa + 1`` to ``kappa``, the boundary of ``R1``'s support
centre where ``P[⊥]`` changes by ``e^{eps_bar}``.

* **Algorithm 4** (Phased-SCO, ``(1, 1e-5)``, ``kappa = 27``): ``n = 436`` users, one phase on users
  ``[218, 436)``; 28 outliers there in ``d0``.
* **Algorithm 6** (Strongly-Convex-SCO, ``(1, 1e-5)``): ``n = 884``; the first stage (SCOutputPert at
  ``(1/2, 5e-6)``, ``kappa = 55``, all users) and the second stage's only phase (users
  ``[442, 884)``, ``kappa = 55``) both hold 56 outliers in ``d0``: each ⊥ channel spends its share,
  ``eps/4`` each, and the two compose. The pair runs the ``"translate"`` engine (see Algorithms 3
  and 5 below), so the second stage's records are certified start-free on both branches of the
  first stage (the ⊥ branch's ``K' = K``; the released branch's ``R'`` exceeds ``K``'s diameter)
  with the same ``k``: the transcript's exact law is the two flags', 0.49997 at ``delta = 1e-5``.
* **What no such pair realises.** The stable centres coincide (the inliers' minimiser), so the
  Gaussian half of each call's budget is slack on this pair; the centres of one user's neighbours
  differ by at most ``Delta``-sized moves here, far below the calibration ``8 kappa Delta``.

Algorithms 3 and 5 (Phased-ERM and Strongly-Convex-ERM)
-------------------------------------------------------
Phased-ERM runs ``T = ceil(ln(nm))`` phases on *all* users at ``(eps/T, delta/T)`` [Alg 3, lines
3-5], so one user meets every phase's ⊥ channel. The boundary pair above works in each phase at
once: with ``(1, 0.01)``, ``beta = 0.3`` and ``m = 10^4`` items per user, ``n = 2338`` (the fewest
with ``n >= 8 kappa' + 2``), ``T = 17`` and ``kappa' = 292``; the printed threshold of phase ``i``
is ``10 (2G) sqrt(ln(T/beta)) / ((1 + lambda_i + 1) n sqrt(m))`` and one outlier's deletion moves the
phase's minimiser by ``2/((2 + lambda_i) n')``, at least ``1/0.80`` of it on every sub-dataset the
search reaches, so ``k = `` the number of outliers in every phase, whatever ``theta_hat_{i-1}``:

* **No phase is adaptive on this pair.** The loss is the squared loss with features 1, ``l2 = 1``
  and ``K = [-1, 1]``, so every sub-dataset's regularised minimiser ``(ybar + lambda_i theta_hat)/
  (2 + lambda_i)`` lies strictly inside ``K`` for every ``theta_hat`` in ``K`` (``|ybar| <= 1``):
  deletions move it by amounts that do not depend on ``theta_hat``, so the search's ``k`` does not,
  and the stable centre (the inliers' minimiser) is the same function of ``theta_hat`` on both
  datasets. The mechanism runs the ``"translate"`` engine (:mod:`.sc_output_pert`), which computes
  exactly this ``f`` once per phase, and :func:`transcript_steps` checks the interior condition at
  both ends of ``K`` before it records a later phase as non-adaptive.
* **The transcript's exact law.** Given any history the phase's released vector has the same law
  on both sides, so the transcript's privacy loss is the sum of the ``T`` flags' losses: ``T``
  independent two-point laws ``F(kappa')`` vs ``F(kappa' - 1)`` (``F`` the CDF of
  ``TDLap(eps/(2T), delta_bar')``), computed exactly. Each spends ``ln F(kappa')/F(kappa' - 1)
  ~ eps/(2T)``, the ⊥ channel's whole share, so the pair's pure epsilon is ``~eps/2`` and its
  epsilon at ``delta`` less; the Gaussian half of every call is slack here as for Algorithm 4.
* **What changed from the paper's Theorem 4.1 setting, and why the claim holds.** ``beta = 0.3``
  instead of ``1/(nm)`` (and the printed threshold): both enter Delta only, and Algorithm 1 is
  ``(eps', delta')``-DP for every data-independent Delta [GKKMMZ23, Thm 3.3], so every phase is and
  basic composition gives the claim [proof of Thm 4.1]. ``beta`` changes the utility statement only
  (pitfall P23). ``T``, ``eps' = eps/T``, ``delta' = delta/T``, ``lambda_i = lambda 4^i`` are the
  paper's.
* **Algorithm 5** first runs SCOutputPert at ``(eps/2, delta/2)`` on all users, then Phased-ERM at
  ``(eps/2, delta/2)`` on ``K' = K ∩ B(theta_0, R')``. :func:`alg5_worst_pair` puts the canary at the
  boundary of every phase (``m = 10^4``: ``n = 5370``, ``T = 18``, ``kappa' = 671``); the first stage's
  ``kappa`` (27) is far below, so with ``kappa' + 1`` outliers it answers ⊥ on both datasets (``k``
  beyond ``2 kappa``) and the phases run on ``K' = K`` (the ⊥ branch) only. Each phase spends
  ``eps/(4T)``: the pair's epsilon is a quarter of the claim's at most (0.038 at ``delta = 0.01``).
* **Algorithm 5's worst pair built: the first stage's boundary** (:func:`alg5_first_stage_pair`).
  The first stage's ⊥ channel has ``eps_bar = eps/4``, eighteen phases' worth of the flags above,
  and one flag near ``P[⊥] = 1/2`` is what a test reads best. Both boundaries cannot hold at once:
  the first stage's Delta is below every phase's, so each of the phases' ``kappa' + 1`` outliers
  counts in the first stage too. With ``kappa + 1 = 28`` outliers in ``d0`` and 27 in ``d1``
  the first stage moves ``k`` from 28 to 27 next to its ``kappa = 27``, and every phase deletes
  the outliers too (``k = 28`` vs 27, deep in ``R1``'s lower tail: ``P[⊥] ~ 2e-5``), so every
  stable centre is the inliers' minimiser on both datasets. Two conditions make the records cover
  this pair, both of the parameters only: every phase's search reaches sub-datasets of
  ``n - 4 kappa'`` users, where one outlier's deletion moves the minimiser by 1.20 times the
  phase's Delta (``m = 10^4``); and the released branch's ``K' = K ∩ B(theta_0, R')`` is ``K``
  for every ``theta_0`` in ``K``: ``R' = sigma (1 + sqrt(2 ln(1/beta))) >= 2 R`` [Alg 5, line 2,
  the corrected radius]. At ``beta = 0.3`` ``R' = 0.72``; ``beta = 0.01`` gives ``R' = 2.24`` (and
  the phases' ratio above). ``beta`` enters Delta and ``R'`` only: each stage is private for every
  data-independent Delta, ``K'`` is post-processing of ``theta_0`` and ``lambda`` is data-independent,
  so the claim holds for every ``beta`` (utility only, as for Algorithm 3). The transcript's exact
  law is then the 19 flags' (the Gaussians' centres coincide on every branch): **[0.2323, 0.2369] at
  delta = 0.01**, six times the every-phase pair's, so the claim is loose by 4.2x on it. The optimal
  test (the flags' log-likelihood-ratio sum, 70% of the trials as estimation rows, one-sided
  Clopper-Pearson at 95%) reaches 0.217 at ``10^5`` trials per dataset and 0.228 at ``10^6``.

At ``m = 1`` (the previous, feasible-size pair: :func:`alg3_move_pair`) no deletion crosses Delta
(``k = 0``) and the only channel is the Gaussian, far below its calibration: no power. The printed
sigma (E2, the paper preset) is audited on the same algorithms at the scale ``B = 10^12`` where it
leaks (:func:`alg3_e2_pair`, :func:`alg5_e2_pair`).

References
----------
.. [GKKMMZ23] B. Ghazi, P. Kamath, R. Kumar, R. Meka, P. Manurangsi and C. Zhang. On user-level
   private convex optimization. ICML 2023, Alg 1-6, Thm 3.3.
.. [Note002] The readings, corrections and pitfalls of Ghazi et al. (2023), ``docs/papers/ghazi2023.md``
   (B2, the golden pair; erratum E2).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_int
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.neighbors.canary import canary_pair
from dpaudit.userlevel.ghazi2023.audit_cases import golden_problem
from dpaudit.userlevel.ghazi2023.phased import PhasedERM, PhasedSCO, _PhasedBase
from dpaudit.userlevel.ghazi2023.sc_output_pert import stable_centres
from dpaudit.userlevel.ghazi2023.solver import Balls
from dpaudit.userlevel.ghazi2023.strongly_convex import (
    StronglyConvexERM,
    StronglyConvexSCO,
    _StronglyConvexBase,
)
from dpaudit.userlevel.transcript import TranscriptStep, WorstPair

__all__ = ["alg3_e2_pair", "alg3_move_pair", "alg3_worst_pair", "alg4_worst_pair", "alg5_e2_pair", "alg5_first_stage_pair",
           "alg5_worst_pair", "alg6_worst_pair", "boundary_margins", "transcript_steps"]

_M_ITEMS, _BETA = 3000, 0.3
#: Items per user of the ERM pairs: every phase's printed Delta (ln(T/beta) under the root, T = 17) below one outlier's move
_ERM_M_ITEMS = 10_000
#: beta of :func:`alg5_first_stage_pair`: R' reaches K's diameter (1.12 x) and the phases still delete every outlier
_ALG5_FIRST_STAGE_BETA = 0.01


def _outliers(n_users: int, m_items: int, outliers: int) -> NDArray[np.float64]:
    """Users of items ``(1, y)``: the last ``outliers`` at ``y = +1``, the others at ``-1``."""
    x = np.empty((n_users, m_items, 2))
    x[..., 0] = 1.0
    x[..., 1] = -1.0
    x[n_users - outliers:, :, 1] = 1.0
    return x


def _quiet(cls: type, *args: Any, **kw: Any) -> Any:
    with warnings.catch_warnings():  # broken variants and the paper preset announce themselves
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        return cls(*args, **kw)


def _golden_pair(n_users: int, outliers: int, m_items: int = _M_ITEMS) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``outliers`` unstable users at the end in ``d0``; the first of them (the canary) an inlier in ``d1``."""
    base = _outliers(n_users, m_items, outliers)
    inlier = base[0].copy()
    outlier = base[-1].copy()
    return canary_pair(base, outlier, inlier, index=n_users - outliers)


def alg4_worst_pair(cls: type[PhasedSCO] = PhasedSCO, outliers: int | None = None, **kw: Any) -> WorstPair:
    """Phased-SCO (or a variant ``cls``) on the boundary pair of the module docstring, at ``(1, 1e-5)``.

    ``outliers`` (default ``kappa + 1``) is the number of unstable users in ``d0``; 1 makes the pair
    one unstable user against none, where a deterministic test (P4) or an ``R1`` that is 0 too
    often (P5a) answers differently for sure.
    """
    mech = _quiet(cls, golden_problem(), 1.0, 1e-5, **{"beta": _BETA, "threshold": "printed", **kw})
    n = 436
    kappa = mech.calls(n, _M_ITEMS, 1)[0].spec.alg1.kappa
    d0, d1 = _golden_pair(n, kappa + 1 if outliers is None else outliers)
    return WorstPair(
        algorithm="Ghazi et al. 2023, Algorithm 4", mechanism=mech, d0=d0, d1=d1, epsilon=1.0, delta=1e-5,
        claim_note="the paper's (eps, delta) [GKKMMZ23, Thm 5.1]", steps=transcript_steps,
        reasoning="the stability search's boundary: the canary's phase holds kappa + 1 unstable users in d0 and "
                  "kappa in d1; the stable centres coincide")


def alg6_worst_pair(cls: type[StronglyConvexSCO] = StronglyConvexSCO, outliers: int | None = None,
                    **kw: Any) -> WorstPair:
    """Strongly-Convex-SCO (or a variant ``cls``): the canary at the boundary of both stages, at ``(1, 1e-5)``.

    ``outliers`` as for :func:`alg4_worst_pair` (default ``kappa + 1``).
    """
    engine = {"engine": "translate"} if cls is StronglyConvexSCO else {}  # the variants keep their own engine
    mech = _quiet(cls, golden_problem(), 1.0, 1e-5, **{"beta": _BETA, "threshold": "printed", **engine, **kw})
    n = 884
    kappa = mech.first_stage(n, _M_ITEMS).parameters(n, _M_ITEMS, 1).alg1.kappa
    d0, d1 = _golden_pair(n, kappa + 1 if outliers is None else outliers)
    return WorstPair(
        algorithm="Ghazi et al. 2023, Algorithm 6", mechanism=mech, d0=d0, d1=d1, epsilon=1.0, delta=1e-5,
        claim_note="the paper's (eps, delta) [GKKMMZ23, Thm 5.3]", steps=transcript_steps,
        reasoning="the canary at the stability boundary of the first stage (all users) and of the second stage's "
                  "phase (its batch): both ⊥ channels spend their share")


def _small_pair(n_users: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    base = _outliers(n_users, 1, 0)
    return canary_pair(base, [1.0, -1.0], [1.0, 1.0])


def alg3_worst_pair(**kw: Any) -> WorstPair:
    """Phased-ERM at the stability boundary of every phase, ``(1, 0.01)`` (module docstring).

    ``kappa' + 1`` outliers in ``d0`` (``kappa`` of every phase's SCOutputPert), ``kappa'`` in ``d1``;
    ``beta = 0.3``, the printed threshold, ``m = 10^4``, the ``"translate"`` engine.
    """
    mech = _quiet(PhasedERM, golden_problem(), 1.0, 1e-2,
                  **{"beta": _BETA, "threshold": "printed", "engine": "translate", **kw})
    n = mech.min_users(_ERM_M_ITEMS)
    kappa = mech.calls(n, _ERM_M_ITEMS, 1)[0].spec.alg1.kappa
    d0, d1 = _golden_pair(n, kappa + 1, _ERM_M_ITEMS)
    return WorstPair(
        algorithm="Ghazi et al. 2023, Algorithm 3", mechanism=mech, d0=d0, d1=d1, epsilon=1.0, delta=1e-2,
        claim_note="the paper's (eps, delta) [GKKMMZ23, Thm 4.1]; beta = 0.3 (enters Delta only)", steps=transcript_steps,
        reasoning="the stability search's boundary in every phase: kappa' + 1 unstable users in d0, kappa' in d1 (all "
                  "phases see all users); the stable centres coincide for every theta_hat")


def alg5_worst_pair(**kw: Any) -> WorstPair:
    """Strongly-Convex-ERM at the boundary of its first stage and of every phase, ``(1, 0.01)``.

    The phases' ``kappa'`` (at ``(eps/(2T), delta/(2T))``) exceeds the first stage's ``kappa``, so the
    canary's ``kappa' + 1`` outliers put the first stage past its boundary unless both agree; this
    pair puts ``kappa' + 1`` outliers in ``d0`` (the phases' boundary). Its certified epsilon (0.038)
    is a sixth of :func:`alg5_first_stage_pair`'s, the pair the catalogue audits.
    """
    mech = _quiet(StronglyConvexERM, golden_problem(), 1.0, 1e-2,
                  **{"beta": _BETA, "threshold": "printed", "engine": "translate", **kw})
    n = mech.min_users(_ERM_M_ITEMS)
    kappa = _erm_phase_kappa(mech, n, _ERM_M_ITEMS)
    d0, d1 = _golden_pair(n, kappa + 1, _ERM_M_ITEMS)
    return WorstPair(
        algorithm="Ghazi et al. 2023, Algorithm 5", mechanism=mech, d0=d0, d1=d1, epsilon=1.0, delta=1e-2,
        claim_note="the paper's (eps, delta) [GKKMMZ23, Thm 4.3]; beta = 0.3 (enters Delta only)", steps=transcript_steps,
        reasoning="the stability search's boundary in every phase of the second stage (all users)")


def alg5_first_stage_pair(**kw: Any) -> WorstPair:
    """Strongly-Convex-ERM at its first stage's stability boundary, ``(1, 0.01)``: Algorithm 5's worst pair built.

    ``kappa + 1`` outliers in ``d0`` (``kappa`` of the first stage, SCOutputPert at ``(eps/2,
    delta/2)``), ``kappa`` in ``d1``; ``beta = 0.01`` (so that ``R'`` exceeds ``K``'s diameter and
    both branches of the first stage run the phases on ``K``), the printed threshold, ``m = 10^4``,
    the ``"translate"`` engine (module docstring).
    """
    mech = _quiet(StronglyConvexERM, golden_problem(), 1.0, 1e-2,
                  **{"beta": _ALG5_FIRST_STAGE_BETA, "threshold": "printed", "engine": "translate", **kw})
    n = mech.min_users(_ERM_M_ITEMS)
    kappa = mech.first_stage(n, _ERM_M_ITEMS).parameters(n, _ERM_M_ITEMS, 1).alg1.kappa
    d0, d1 = _golden_pair(n, kappa + 1, _ERM_M_ITEMS)
    return WorstPair(
        algorithm="Ghazi et al. 2023, Algorithm 5", mechanism=mech, d0=d0, d1=d1, epsilon=1.0, delta=1e-2,
        claim_note="the paper's (eps, delta) [GKKMMZ23, Thm 4.3]; beta = 0.01 (enters Delta and R' only)",
        steps=transcript_steps,
        reasoning="the first stage's stability boundary (its ⊥ flag spends eps/4): kappa + 1 unstable users in d0, "
                  "kappa in d1; every phase deletes them on both sides, so the stable centres coincide; R' >= 2R")


def boundary_margins(mech: StronglyConvexERM, n: int, m: int, outliers: int) -> dict[str, float]:
    """The margins behind :func:`alg5_first_stage_pair` (module docstring), from the parameters alone (no data).

    For users ``(1, -1)`` with ``outliers`` users ``(1, +1)``: ``"first stage"`` and ``"phases"``
    (the least over the phases of both branches of the first stage) are one outlier's move over
    Delta on the sub-dataset a search reaches after ``4 kappa`` deletions of inliers (every
    outlier kept: the smallest such move), where the minimiser is ``b_w/(a + mu)`` [``"translate"``
    engine, :mod:`.sc_output_pert`]; above 1, each search deletes every outlier (0 when ``outliers``
    exceeds ``2 kappa``, more than a search may delete). ``"radius"`` is ``R' / (2R)`` [Alg 5, line 2]: at least 1, the released branch's
    ``K'`` is ``K``. The records (:func:`transcript_steps`) check all of it on the data.
    """
    owner = "boundary_margins"
    n, m = check_int(owner, "n", n, minimum=2), check_int(owner, "m", m, minimum=1)
    outliers = check_int(owner, "outliers", outliers, minimum=0, maximum=n)
    pr = mech.problem
    beta = mech._beta(n, m)
    spec = mech.first_stage(n, m).parameters(n, m, 1)

    def move_over_delta(kappa: int, reg: float, threshold: float) -> float:
        kept = n - 4 * kappa
        if kept < 2:  # a search's 4 kappa deletions would leave fewer than two users
            raise argument_error(owner, "n", f"more than 4 kappa + 1 = {4 * kappa + 1} users (the phases' searches)", n)
        mean = (2 * outliers - kept) / kept
        return float((1.0 - mean) / ((kept - 1) * (1.0 + reg)) / threshold)

    radius = mech._radius(spec.alg1.sigma, n, m, 1, beta)
    phases = []
    for diameter in (2.0 * pr.unit_radius, radius):  # the ⊥ branch's lambda, then the released branch's
        lam = pr.lipschitz() / (diameter * n * np.sqrt(m))
        for call in mech.second_stage().calls(n, m, 1, unit_lambda=lam, epsilon=mech.epsilon / 2, delta=mech.delta / 2,
                                              beta=beta):
            a = call.spec.alg1
            phases.append(move_over_delta(a.kappa, call.spec.reg, a.threshold) if outliers <= 2 * a.kappa else 0.0)
    a = spec.alg1
    first = move_over_delta(a.kappa, spec.reg, a.threshold) if outliers <= 2 * a.kappa else 0.0
    return {"first stage": first, "phases": min(phases), "radius": radius / (2.0 * pr.unit_radius)}


def _erm_phase_kappa(mech: Any, n: int, m: int) -> int:
    pr = mech.problem
    lam = pr.lipschitz() / (2.0 * pr.unit_radius * n * m**0.5)
    calls = mech.second_stage().calls(n, m, 1, unit_lambda=lam, epsilon=mech.epsilon / 2, delta=mech.delta / 2,
                                      beta=mech._beta(n, m))
    return int(calls[0].spec.alg1.kappa)


def alg3_move_pair(**kw: Any) -> WorstPair:
    """Phased-ERM at its smallest size for ``m = 1``, ``(1, 0.01)``: one user's label from ``-1`` to ``+1`` (``k = 0``)."""
    mech = _quiet(PhasedERM, golden_problem(), 1.0, 1e-2, threshold="printed", **kw)
    d0, d1 = _small_pair(mech.min_users(1))
    return WorstPair(
        algorithm="Ghazi et al. 2023, Algorithm 3", mechanism=mech, d0=d0, d1=d1, epsilon=1.0, delta=1e-2,
        claim_note="the paper's (eps, delta) [GKKMMZ23, Thm 4.1]", steps=transcript_steps,
        reasoning="the largest move of one user; no deletion crosses Delta at m = 1 (k = 0 on both sides)")


def _e2_pair(cls: type, n_users: int | None = None) -> WorstPair:
    scale = 1e12
    mech = _quiet(cls, golden_problem(scale), 1.0, 1e-2, beta=0.01, threshold="printed", preset="paper")
    n = mech.min_users(1) if n_users is None else n_users
    base = np.zeros((n, 1, 2))
    base[..., 0] = 1.0
    d0, d1 = canary_pair(base, [1.0, 0.0], [1.0, scale])
    return WorstPair(
        algorithm=f"Ghazi et al. 2023, {cls.__name__} (paper preset, scale 1e12)", mechanism=mech, d0=d0, d1=d1,
        epsilon=1.0, delta=1e-2, claim_note="the paper's (eps, delta)", steps=transcript_steps,
        reasoning="E2: the printed sigma grows like sqrt(scale), so centres B/(2n) apart are many sigma apart")


def alg3_e2_pair() -> WorstPair:
    """Phased-ERM under the paper preset (the printed sigma, E2) at scale ``10^12``: labels 0, one user at ``B``."""
    return _e2_pair(PhasedERM)


def alg5_e2_pair() -> WorstPair:
    """Strongly-Convex-ERM under the paper preset (E2) at scale ``10^12``."""
    return _e2_pair(StronglyConvexERM)


def _call_state(mech: Any, data: Any, call: Any, start: NDArray[np.float64], outer: Balls,
                cache: dict[Any, Any] | None = None) -> tuple[int, float, bool]:
    """``(k, stable centre, translated)`` of one SCOutputPert call started at ``start`` (one problem, unit coordinates).

    ``translated``: the ``"translate"`` engine answered from its search at ``c = 0`` (every
    sub-dataset's minimiser inside the constraint). ``cache`` keeps each dataset's batches grouped.
    """
    pr = mech.problem
    users = call.users
    ukey = (id(data), users if isinstance(users, tuple) else users.tobytes())
    cache = {} if cache is None else cache
    if ukey not in cache:
        unit = cache.get(id(data))
        if unit is None:
            unit = cache[id(data)] = pr.unit_data(data, "transcript_steps")
        batch = unit.users(slice(*users)) if isinstance(users, tuple) else unit.users(users)
        cache[ukey] = (batch, pr.group(batch))
    batch, groups = cache[ukey]
    total = pr.unit_l2 + call.reg
    centre = (call.reg / total) * start
    if mech.preset != "corrected":
        outer = Balls(np.concatenate([outer.centres, Balls.of(1, start.shape[1], (start, call.radius)).centres], axis=1),
                      np.concatenate([outer.radii, np.array([[call.radius]])], axis=1))
    res = stable_centres(pr, batch, groups, call.spec, centre=centre, balls=outer, engine=mech.engine,
                         max_states=mech.max_states)
    moved = res.translated is not None and bool(res.translated[0])
    return int(res.k[0]), float(res.centre[0][0]) * pr.scale, moved


def _start_free(mech: Any, d0: Any, d1: Any, call: Any, outer: Balls, cache: dict[Any, Any],
                states: tuple[tuple[int, float, bool], tuple[int, float, bool]]) -> bool:
    """Whether the call's ⊥ flag and its released centre's shift do not depend on the phase's start.

    True when the ``"translate"`` engine answers the call from its search at ``c = 0`` at both ends
    of ``K`` on both datasets (corrected preset: every start lies in ``K``, and the interior condition
    is an interval in the start, so it holds on all of ``K``), and the centres at the start ``0``
    coincide: then ``k`` is the same at every start on each side and both centres move by the same
    ``mu c/(a + mu)`` (:mod:`.sc_output_pert`, engine ``"translate"``).
    """
    if mech.engine != "translate" or mech.preset != "corrected" or start_dim(outer) != 1:
        return False
    (_, c0, m0), (_, c1, m1) = states
    if not (m0 and m1 and c0 == c1):
        return False
    radius = mech.problem.unit_radius
    for end in (-radius, radius):
        point = np.full((1, 1), end)
        if not all(_call_state(mech, d, call, point, outer, cache)[2] for d in (d0, d1)):
            return False
    return True


def start_dim(outer: Balls) -> int:
    """The dimension of the constraint balls."""
    return int(outer.centres.shape[-1])


def _released_branch(mech: Any, d0: Any, d1: Any, r0: Any, r1: Any, spec: Any, n: int, m: int,
                     d: int) -> list[Any] | None:
    """Algorithms 5-6: the second stage's calls after a released ``theta_0``, when that branch can occur.

    ``[]`` when the first stage answers ⊥ for every ``R1`` on both datasets (only the ⊥ branch runs);
    None when the released branch's ``K' = K ∩ B(theta_0, R')`` may cut ``K`` (``R' < 2R``: the records
    do not cover it). Its phases' lambda comes from ``R'`` [Alg 5-6, line 4].
    """
    if int(r0.k[0]) < 0 and int(r1.k[0]) < 0:
        return []
    pr = mech.problem
    radius = mech._radius(spec.alg1.sigma, n, m, d, mech._beta(n, m))
    if not radius >= 2.0 * pr.unit_radius:
        return None
    lam = pr.lipschitz() * np.sqrt(d) / (radius * n * np.sqrt(m))
    return list(mech.second_stage().calls(n, m, d, unit_lambda=lam, epsilon=mech.epsilon / 2, delta=mech.delta / 2,
                                          beta=mech._beta(n, m)))


def _call_records(mech: Any, d0: Any, d1: Any, calls: list[Any], col: int, label: str, start: NDArray[np.float64],
                  outer: Balls, adaptive_from: int, other: list[Any] | None = None,
                  covered: bool = True) -> tuple[list[TranscriptStep], int]:
    """The records of the calls; ``other`` (Algorithms 5-6) the same phases on the other branch of the first stage.

    A later phase is non-adaptive when it is start-free (:func:`_start_free`) on its branch and, with
    ``other``, on the other branch too with the same ``k`` on each side (so the flag's law does not
    depend on the first stage's answer either, and the centres' shift is 0 on both branches);
    ``covered=False`` (a branch the records cannot describe) leaves every later phase adaptive.
    """
    out: list[TranscriptStep] = []
    cache: dict[Any, Any] = {}
    for i, call in enumerate(calls, start=1):
        a = call.spec.alg1
        states = tuple(_call_state(mech, d, call, start, outer, cache) for d in (d0, d1))
        (k0, c0, _), (k1, c1, _) = states
        adaptive = i >= adaptive_from and not (covered and _start_free(mech, d0, d1, call, outer, cache, states))  # type: ignore[arg-type]
        if i >= adaptive_from and not adaptive and other:
            alt = other[i - 1]
            alt_states = tuple(_call_state(mech, d, alt, start, outer, cache) for d in (d0, d1))
            adaptive = not (_start_free(mech, d0, d1, alt, outer, cache, alt_states)  # type: ignore[arg-type]
                            and (alt_states[0][0], alt_states[1][0]) == (k0, k1))
        note = "shown at the phase's start theta = 0 (later phases start at an earlier release)" if adaptive else (
            "the same at every start in K (translate engine, interior minimisers)" if i >= adaptive_from else "")
        out.append(TranscriptStep(
            (col, col + 1), f"{label} {i}: ⊥ flag", "truncated discrete laplace test",
            {"eps_bar": a.eps_bar, "delta_bar": a.delta_bar, "kappa": a.kappa}, {"k": k0}, {"k": k1}, adaptive,
            {"epsilon": a.eps_bar, "delta": a.delta_bar}, f"⊥ iff R1 < k, R1 ~ TDLap(eps_bar, delta_bar) on [0, 2 kappa]. {note}"))
        out.append(TranscriptStep(
            (col + 1, col + 2), f"{label} {i}: theta_hat (the previous one on ⊥)", "gaussian", {"sigma": a.sigma * mech.problem.scale},
            {"centre": c0}, {"centre": c1}, adaptive, {"epsilon": call.spec.alg1.epsilon - a.eps_bar},
            f"N(stable centre, sigma^2) if not ⊥; projected onto K under the corrected preset. {note}"))
        col += 2
    return out, col


def transcript_steps(mech: Any, d0: Any, d1: Any) -> tuple[TranscriptStep, ...]:
    """What every column of an Algorithm 3-6 transcript releases on ``(d0, d1)`` (``d = 1``).

    Per SCOutputPert call: the ⊥ flag (``k`` on each side, the deletion count of the stability
    search) and the released vector (the stable centre on each side). Calls after the first
    release start from it (adaptive); their ``k`` and centres are shown from the start ``0``.
    """
    z0 = np.asarray(d0, dtype=np.float64)
    n, m, d = z0.shape[0], z0.shape[1], z0.shape[2] - 1
    pr = mech.problem
    start = np.zeros((1, d))
    outer = Balls.of(1, d, (np.zeros(d), pr.unit_radius))
    out: list[TranscriptStep] = []
    col = 0
    if isinstance(mech, _StronglyConvexBase):
        first = mech.first_stage(n, m)
        spec = first.parameters(n, m, d)
        (r0, _), (r1, _) = (first.stable_centre(x) for x in (d0, d1))
        a = spec.alg1
        out.append(TranscriptStep((0, 1), "first stage: ⊥ flag", "truncated discrete laplace test",
                                  {"eps_bar": a.eps_bar, "delta_bar": a.delta_bar, "kappa": a.kappa},
                                  {"k": int(r0.k[0])}, {"k": int(r1.k[0])}, False,
                                  {"epsilon": a.eps_bar, "delta": a.delta_bar}, "⊥ iff R1 < k"))
        out.append(TranscriptStep((1, 2), "first stage: theta_0 (0 on ⊥)", "gaussian", {"sigma": a.sigma * pr.scale},
                                  {"centre": float(r0.centre[0][0]) * pr.scale}, {"centre": float(r1.centre[0][0]) * pr.scale},
                                  False, {"epsilon": a.epsilon - a.eps_bar}, "N(stable centre, sigma^2) if not ⊥"))
        col = 2
        radius = 2.0 * pr.unit_radius  # the ⊥ branch's data-independent K' (the released branch depends on theta_0)
        lam = pr.lipschitz() * np.sqrt(d) / (radius * n * np.sqrt(m))
        calls = mech.second_stage().calls(n, m, d, unit_lambda=lam, epsilon=mech.epsilon / 2, delta=mech.delta / 2,
                                          beta=mech._beta(n, m))
        other = _released_branch(mech, d0, d1, r0, r1, spec, n, m, d)
        more, col = _call_records(mech, d0, d1, calls, col, "second stage, phase", start, outer, 1, other or [],
                                  covered=other is not None)
    elif isinstance(mech, _PhasedBase):
        more, col = _call_records(mech, d0, d1, mech.calls(n, m, d), col, "phase", start, outer, 2)
    else:
        raise argument_error("transcript_steps", "mech", "an Algorithm 3-6 mechanism of Ghazi et al. 2023", mech)
    out += more
    out.append(TranscriptStep((col, col + d), "the output theta_hat", "none", note="post-processing of the releases above"))
    return tuple(out)
