"""One-run audits of the user-level algorithms: canary *users*, each in the run with probability 1/2.

The user-level algorithms claim their guarantee under user replacement (one user's ``m`` items all
change). A one-run audit therefore plants ``k`` canary *slots*: slot ``i`` holds canary user ``i``
when its coin says "in" and a replacement user otherwise, so flipping one coin is exactly one
user replaced, the relation of the claim [SNJ23, Sec. 2, with replacement in place of inclusion].
The datasets are built through the algorithms' public API (a ``(n_users, m_items, d + 1)`` array of
items ``(x, y)``), the algorithm runs **once** (``sample(data, 1, rng=...)``), and every slot gets a
score from the released parameters.

:func:`linear_canary_users` builds canaries for losses of linear predictors
(:mod:`dpaudit.userlevel.losses`): canary ``i`` has every item ``(b e_i, +L)`` and its replacement
``(b e_i, -L)``, so the two pull coordinate ``i`` of the model in opposite directions and no two
slots share a coordinate (``k <= d``). The default score of a slot is the released model's
projection on ``mean(y x)`` of its canary minus that of its replacement: the direction a gradient
step of any loss decreasing in the margin ``y <theta, x>`` moves along.

References
----------
.. [SNJ23] T. Steinke, M. Nasr and M. Jagielski. Privacy auditing with one (1) training run.
   NeurIPS 2023, arXiv:2305.08846.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._rng import as_seed_sequence
from dpaudit._text import counted
from dpaudit._validation import argument_error, check_finite_array, check_int, check_positive
from dpaudit.errors import MechanismError
from dpaudit.guarantees import ApproxDP
from dpaudit.one_run.guesses import audit_canaries
from dpaudit.one_run.result import OneRunResult

__all__ = ["audit_canary_users", "linear_canary_users", "slot_scores"]

OWNER = "audit_canary_users"


def linear_canary_users(k: int, m_items: int, dim: int, *, feature_bound: float = 1.0,
                        label_bound: float = 1.0) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(canaries, replacements)``, each ``(k, m_items, dim + 1)``, for losses of linear predictors.

    Canary ``i``: ``m_items`` copies of ``(feature_bound e_i, +label_bound)``; its replacement the
    same features with label ``-label_bound``. Both lie in the algorithms' declared domain
    (``||x|| <= feature_bound``, ``|y| <= label_bound``).
    """
    owner = "linear_canary_users"
    dim = check_int(owner, "dim", dim, minimum=1)
    k = check_int(owner, "k", k, minimum=1, maximum=dim)
    m_items = check_int(owner, "m_items", m_items, minimum=1)
    b = check_positive(owner, "feature_bound", feature_bound)
    label = check_positive(owner, "label_bound", label_bound)
    canaries = np.zeros((k, m_items, dim + 1))
    canaries[np.arange(k), :, np.arange(k)] = b
    replacements = canaries.copy()
    canaries[..., dim] = label
    replacements[..., dim] = -label
    return canaries, replacements


def slot_scores(released: NDArray[np.float64], canaries: NDArray[np.float64], replacements: NDArray[np.float64]) -> NDArray[np.float64]:
    """The default scores: ``<theta, mean(y x)_canary - mean(y x)_replacement>`` per slot."""
    def pull(users: NDArray[np.float64]) -> NDArray[np.float64]:
        return (users[..., :-1] * users[..., -1:]).mean(axis=1)

    direction = pull(canaries) - pull(replacements)
    theta = np.asarray(released, dtype=float).ravel()
    if theta.size != direction.shape[1]:
        raise argument_error(OWNER, "score", f"given: the release has {theta.size} numbers, not the {direction.shape[1]} "
                             "features of a linear model (pass score=...)", "default")
    return direction @ theta


def audit_canary_users(
    mechanism: Any,
    canaries: Any,
    replacements: Any,
    *,
    population: Any = None,
    score: Callable[[NDArray[Any], NDArray[np.float64], NDArray[np.float64]], Any] | None = None,
    epsilon: float | None = None,
    delta: float | None = None,
    confidence: float = 0.95,
    guesses: Sequence[tuple[int, int]] | None = None,
    seed: Any = None,
) -> OneRunResult:
    """Run a user-level mechanism **once** on canary users drawn in with probability 1/2; bound its epsilon.

    Parameters
    ----------
    mechanism : Mechanism
        A user-level dpaudit mechanism (``sample(data, size, *, rng)``, ``claimed_guarantee()``)
        whose claim holds under user replacement.
    canaries, replacements : array_like
        ``(k, m_items, ...)``: slot ``i`` holds ``canaries[i]`` when its coin says "in", else
        ``replacements[i]`` (:func:`linear_canary_users` builds both).
    population : array_like, optional
        ``(n0, m_items, ...)`` users always present, placed before the slots.
    score : callable, optional
        ``score(release, canaries, replacements) -> (k,)`` scores, higher meaning "canary in"
        (default :func:`slot_scores`). It must not look at the coins.
    epsilon, delta : float, optional
        The claim audited; default the mechanism's ``claimed_guarantee()``.
    confidence : float
        In ``(0, 1)``.
    guesses : sequence of (k_plus, k_minus), optional
        Guess plans (default :func:`dpaudit.one_run.default_plans`), all paid for.
    seed : optional
        Root of the coins, the run and the tie-breaking.

    Returns
    -------
    OneRunResult
    """
    claim = mechanism.claimed_guarantee() if hasattr(mechanism, "claimed_guarantee") else None
    if delta is None:
        delta = claim.delta if isinstance(claim, ApproxDP) else 0.0
    if epsilon is None:
        if claim is None:
            raise argument_error(OWNER, "epsilon", "given for a mechanism without claimed_guarantee()", None)
        epsilon = claim.epsilon_at(delta)
    can = check_finite_array(OWNER, "canaries", canaries, min_ndim=2)
    rep = check_finite_array(OWNER, "replacements", replacements, min_ndim=2)
    if rep.shape != can.shape:
        raise argument_error(OWNER, "replacements", f"shaped like canaries {can.shape}", replacements)
    k = int(can.shape[0])
    if population is None:
        base = np.zeros((0, *can.shape[1:]))
    else:
        base = check_finite_array(OWNER, "population", population, min_ndim=2)
        if base.shape[1:] != can.shape[1:]:
            raise argument_error(OWNER, "population", f"users shaped like the canaries' {can.shape[1:]}", population)
    root = as_seed_sequence(seed, OWNER)
    coins_seed, run_seed, tie_seed = root.spawn(3)
    included = np.random.default_rng(coins_seed).random(k) < 0.5
    slots = np.where(included.reshape(-1, *([1] * (can.ndim - 1))), can, rep)
    data = np.concatenate([base, slots])
    if claim is not None and claim.relation is not None:
        # one coin flipped is one slot replaced; the claim's relation must cover that change
        flipped = data.copy()
        flipped[len(base)] = rep[0] if included[0] else can[0]
        claim.relation.check_neighbors(data, flipped, owner=OWNER)
    started = time.perf_counter()
    try:
        release = np.asarray(mechanism.sample(data, 1, rng=np.random.default_rng(run_seed)))[0]
    except Exception as exc:
        raise MechanismError(f"the mechanism raised {type(exc).__name__}: {exc} on the canary dataset.") from exc
    seconds = time.perf_counter() - started
    raw = (score or slot_scores)(release, can, rep)
    scores = check_finite_array(OWNER, "score", raw, ndim=1)
    if scores.shape != (k,):
        raise argument_error(OWNER, "score", f"a callable returning {k} scores, one per slot", raw)
    name = repr(mechanism) if len(repr(mechanism)) < 120 else type(mechanism).__name__
    result = audit_canaries(scores, included, epsilon=epsilon, delta=delta, confidence=confidence, guesses=guesses,
                            seed=tie_seed, mechanism=name, check_inclusion=False)
    note = f"{counted(k, 'canary user')} in {counted(len(base) + k, 'user')} of {counted(can.shape[1], 'item')}; one run"
    entropy = root.entropy if isinstance(root.entropy, int) else None
    return replace(result, seed_entropy=entropy, run_seconds=seconds, notes=(*result.notes, note))
