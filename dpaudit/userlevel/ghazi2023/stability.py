"""Algorithm 1's stability search: the smallest deletion set S with ``Dbar_{4 kappa - |S|} f(x_{-S}) <= Delta``.

Alg 1 [GKKMMZ23] samples ``R1``, collects ``X_stable = {x_{-S} : |S| <= R1, Dbar_{4kappa-|S|} f(x_{-S}) <= Delta}``,
returns ⊥ when it is empty and otherwise ``f(x_{-S}) + N(0, sigma^2 I)`` for a member of smallest
``|S|``. With ``k(x)`` the smallest size of a stable set (sizes up to ``2 kappa``, the top of
``R1``'s support), ``X_stable`` is non-empty exactly when ``R1 >= k(x)``, and the set chosen then
always has size ``k(x)`` (note, "equivalent form"). So ``(k(x), f(x_{-S*}))`` is a deterministic
function of ``x``, computed once per dataset, and the trials only draw ``(R1, Z)``.

Unrolled (Def. 3.2 of [GKKMMZ23] applied level by level): with ``H = 4 kappa``, a deletion set ``U`` is *bad* when ``|U| <= H`` and
some ``j`` not in ``U`` has ``||f(x_{-U}) - f(x_{-U-j})|| > Delta``, and ``S`` is *unstable* when some
bad ``U`` contains it. ``f`` is evaluated on every sub-dataset of at least ``n - H - 1`` users.

Two engines compute the same ``k`` and centre:

* :func:`bitmask_stability`: all deletion sets as bitmasks, the superset-OR transform (note App. B1);
  any ``f``; ``n <= 20``. The reference.
* :func:`typed_stability`: for ``f`` symmetric in users, identical users form *types* and a deletion
  set is a vector ``a`` of per-type counts (note ALG-1, item 3); ``unstable(a) = bad(a) or
  unstable(a + e_t)`` for some ``t``, level by level. Exact; its cost is the number of vectors with
  ``|a| <= H + 1``: ``O(kappa^2)`` for two types, exponential in the number of types in general (the
  paper's running time ``n^{O(log(1/delta)/eps)}``, its Sec. 6).

Tie-break among stable sets of size ``k``: the one whose ``f`` is smallest in lexicographic order.
The privacy proof holds for any member of ``X_stable`` (note ALG-1, "Tie-breaking"); a rule that
depends only on the values makes both engines choose the same centre.

References
----------
.. [GKKMMZ23] B. Ghazi, P. Kamath, R. Kumar, R. Meka, P. Manurangsi and C. Zhang. On user-level
   private convex optimization. ICML 2023, Def 3.2 and Alg 1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_int
from dpaudit.errors import DPAuditError

__all__ = [
    "MAX_BITMASK_USERS",
    "EnumerationTooLarge",
    "StabilityResult",
    "bitmask_stability",
    "count_deletion_states",
    "deletion_states",
    "smallest_by_value",
    "typed_stability",
]

MAX_BITMASK_USERS = 20


class EnumerationTooLarge(DPAuditError):
    """The exact stability search would visit more deletion states than the caller's ``max_states``."""


@dataclass(frozen=True, eq=False)
class StabilityResult:
    """Smallest stable deletion sets of ``P`` problems, with the chosen sub-datasets.

    ``k[p]``: size of the smallest stable deletion set of problem ``p`` (``-1``: none with size <= 2
    kappa, so Alg 1 returns ⊥ for every R1); ``centre[p]``: ``f`` of the chosen sub-dataset (zeros
    when k = -1); ``chosen[p]``: the chosen deletion vector (per-type counts, or a 0/1 vector over
    users for the bitmask engine); ``states``: deletion sets visited.
    """

    k: NDArray[np.int64]
    centre: NDArray[np.float64]
    chosen: NDArray[np.int64]
    states: int


def smallest_by_value(values: NDArray[np.float64], candidates: NDArray[np.bool_]) -> NDArray[np.int64]:
    """Per row ``p``, the candidate index whose value vector is lexicographically smallest (-1 if none).

    ``values`` ``(P, S, d)``, ``candidates`` ``(P, S)``; exact ties go to the lowest index.
    """
    alive = candidates.copy()
    for j in range(values.shape[2]):
        col = np.where(alive, values[..., j], np.inf)
        best = col.min(axis=1, keepdims=True)
        alive &= col == best
    first = np.argmax(alive, axis=1)
    return np.where(alive.any(axis=1), first, -1).astype(np.int64)


def count_deletion_states(counts: NDArray[np.int64], max_size: int) -> int:
    """Number of vectors ``a`` with ``0 <= a_t <= counts[t]`` and ``sum(a) <= max_size``.

    A truncated product of the polynomials ``sum_{j <= c_t} x^j``.
    """
    poly = np.zeros(max_size + 1, dtype=object)
    poly[0] = 1
    for c in counts:
        window = np.zeros(max_size + 1, dtype=object)
        for j in range(max_size + 1):
            window[j] = sum(poly[max(0, j - int(c)): j + 1])
        poly = window
    return int(sum(poly))


def deletion_states(counts: NDArray[np.int64], max_size: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """All deletion vectors with ``|a| <= max_size``, ordered by ``|a|``, and each level's start offsets.

    Each vector is generated once: a level-``l`` vector grows only in types at or after its last non-zero one.
    """
    tau = counts.size
    level = np.zeros((1, tau), dtype=np.int64)
    last = np.zeros(1, dtype=np.int64)
    levels, starts = [level], [0, 1]
    for _ in range(max_size):
        new, new_last = [], []
        for t in range(tau):
            ok = (last <= t) & (level[:, t] < counts[t])
            if ok.any():
                grown = level[ok].copy()
                grown[:, t] += 1
                new.append(grown)
                new_last.append(np.full(int(ok.sum()), t, dtype=np.int64))
        if not new:
            break
        level, last = np.concatenate(new), np.concatenate(new_last)
        levels.append(level)
        starts.append(starts[-1] + level.shape[0])
    return np.concatenate(levels), np.asarray(starts, dtype=np.int64)


def _child_index(states: NDArray[np.int64], counts: NDArray[np.int64]) -> NDArray[np.int64]:
    """``child[s, t]`` = index of ``states[s] + e_t`` (-1 when absent: ``a_t = c_t`` or beyond the largest level)."""
    s, tau = states.shape
    radix = np.cumprod(np.concatenate([[1], counts[:-1] + 1])).astype(object)
    if int(np.prod((counts + 1).astype(object))) < 2**62:
        radix_i = radix.astype(np.int64)
        codes = states @ radix_i
        order = np.argsort(codes)
        sorted_codes = codes[order]
        child = np.full((s, tau), -1, dtype=np.int64)
        for t in range(tau):
            target = codes + radix_i[t]
            pos = np.clip(np.searchsorted(sorted_codes, target), 0, s - 1)
            hit = (sorted_codes[pos] == target) & (states[:, t] < counts[t])
            child[:, t] = np.where(hit, order[pos], -1)
        return child
    lookup = {row.tobytes(): i for i, row in enumerate(states)}
    child = np.full((s, tau), -1, dtype=np.int64)
    for t in range(tau):
        grown = states.copy()
        grown[:, t] += 1
        child[:, t] = [lookup.get(row.tobytes(), -1) for row in grown]
    return child


def typed_stability(counts: NDArray[np.int64], values: Callable[[NDArray[np.int64]], NDArray[np.float64]], *,
                    kappa: int, threshold: float, max_states: int | None = None) -> StabilityResult:
    """Exact ``k`` and centre for ``f`` symmetric in users, one result per problem (see the module docstring).

    ``values(states)`` returns ``f`` of the sub-dataset left by each deletion vector, shape ``(P, S, d)``.
    Raises :class:`EnumerationTooLarge` if more than ``max_states`` vectors would be visited.
    """
    counts = np.asarray(counts, dtype=np.int64)
    horizon = 4 * kappa
    n = int(counts.sum())
    if n < horizon + 2:
        raise argument_error("typed_stability", "counts", f"at least 4 kappa + 2 = {horizon + 2} users in total", n)
    if max_states is not None:
        total = count_deletion_states(counts, horizon + 1)
        if total > max_states:
            raise EnumerationTooLarge(
                f"the exact stability search of Alg 1 would visit {total} deletion states ({counts.size} distinct users, "
                f"horizon {horizon}), more than max_states={max_states}; this is the exponential case of the algorithm "
                "(GKKMMZ23, Sec. 6). The refusal itself depends on the data, like the running time (note P16).")
    states, starts = deletion_states(counts, horizon + 1)
    child = _child_index(states, counts)
    vals = np.asarray(values(states), dtype=float)
    p = vals.shape[0]
    n_core = int(starts[horizon + 1])  # states with |a| <= H
    valid = child[:n_core] >= 0
    safe_child = np.where(valid, child[:n_core], 0)
    with np.errstate(over="ignore"):  # a gap that overflows (f near the float limits) is inf > Delta: bad, rightly
        gaps = np.linalg.norm(vals[:, :n_core, None, :] - vals[:, safe_child, :], axis=-1)  # (P, S_core, tau)
    dbar = np.where(valid[None], gaps, 0.0).max(axis=2)
    bad = dbar > threshold
    unstable = bad.copy()
    for level in range(horizon - 1, -1, -1):  # levels H-1 .. 0 inherit from their children (n >= H + 2: all exist)
        lo, hi = starts[level], starts[level + 1]
        kids, ok = safe_child[lo:hi], valid[lo:hi]
        unstable[:, lo:hi] |= np.any(unstable[:, kids] & ok[None], axis=2)
    top = int(starts[2 * kappa + 1])  # candidate sets have |S| <= 2 kappa
    sizes = states[:top].sum(axis=1)
    cand = ~unstable[:, :top]
    k = np.where(cand.any(axis=1), np.where(cand, sizes[None], np.iinfo(np.int64).max).min(axis=1), -1)
    at_k = cand & (sizes[None] == k[:, None])
    pick = smallest_by_value(vals[:, :top], at_k)
    centre = np.where((pick >= 0)[:, None], vals[np.arange(p), np.maximum(pick, 0)], 0.0)
    chosen = np.where((pick >= 0)[:, None], states[np.maximum(pick, 0)], 0)
    return StabilityResult(k.astype(np.int64), centre, chosen, int(states.shape[0]))


def bitmask_stability(n_users: int, values: Callable[[NDArray[np.int64]], NDArray[np.float64]], *, kappa: int,
                      threshold: float) -> StabilityResult:
    """Exact ``k`` and centre for any ``f`` by enumerating deletion sets as bitmasks (note App. B1).

    ``values(masks)`` returns ``f(x without the users set in each mask)``, shape ``(S, d)``. Bad sets
    are marked, ``unstable`` is their superset-OR over all ``2^n`` masks, and ``k`` is the smallest
    popcount of a stable mask with popcount ``<= 2 kappa``.
    """
    n = check_int("bitmask_stability", "n_users", n_users, minimum=1, maximum=MAX_BITMASK_USERS)
    horizon = 4 * kappa
    if n < horizon + 2:
        raise argument_error("bitmask_stability", "n_users", f"at least 4 kappa + 2 = {horizon + 2}", n)
    size = 1 << n
    masks = np.arange(size, dtype=np.int64)
    pop = np.array([bin(v).count("1") for v in range(size)], dtype=np.int64)
    need = masks[pop <= horizon + 1]
    vals_needed = np.asarray(values(need), dtype=float)
    vals = np.zeros((size, vals_needed.shape[1]))
    vals[need] = vals_needed
    bad = np.zeros(size, dtype=bool)
    core = masks[pop <= horizon]
    with np.errstate(over="ignore"):  # an overflowing gap is inf > Delta: bad, rightly
        for j in range(n):
            sub = core[(core >> j & 1) == 0]
            gap = np.linalg.norm(vals[sub] - vals[sub | 1 << j], axis=1)
            bad[sub[gap > threshold]] = True
    unstable = bad.copy()
    for j in range(n):  # superset-OR: unstable[S] = OR of bad[U] over U ⊇ S
        view = unstable.reshape(-1, 2, 1 << j)
        view[:, 0, :] |= view[:, 1, :]
    cand = (pop <= 2 * kappa) & ~unstable
    if not cand.any():
        return StabilityResult(np.array([-1]), np.zeros((1, vals.shape[1])), np.zeros((1, n), dtype=np.int64),
                               int(need.size))
    k = int(pop[cand].min())
    at_k = cand & (pop == k)
    pick = int(smallest_by_value(vals[None], at_k[None])[0])
    chosen = np.array([[pick >> j & 1 for j in range(n)]], dtype=np.int64)
    return StabilityResult(np.array([k]), vals[pick][None], chosen, int(need.size))
