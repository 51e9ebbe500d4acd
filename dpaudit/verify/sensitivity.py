"""Is a query's sensitivity at most ``bound``? :func:`sensitivity` looks for neighbours that refute it.

A wrong sensitivity is the most common DP bug: the noise is calibrated to a bound the query does
not meet. :func:`sensitivity` searches, without running any mechanism, for neighbouring datasets
``D ~ D'`` (under a :mod:`dpaudit.neighbors` relation) with ``||q(D) - q(D')|| > bound``:

* the relation's worst-case neighbours (:func:`~dpaudit.neighbors.worst_case_neighbors`) at the
  ends of the entry domain and at extreme magnitudes;
* one row replaced (or added) by extreme values, entry by entry and whole;
* random neighbours (:func:`~dpaudit.neighbors.random_neighbor`);
* hypothesis-driven neighbours (:func:`dpaudit.strategies.neighboring_pairs`, seeded, ``target``-guided,
  without hypothesis's constants collected from local modules, so the answer does not depend on imports);
* local optimisation (Nelder-Mead) of the changed row from the farthest neighbour found;
* the same around *other* datasets of the shape given (constant ones at the domain's ends, random ones with
  entries of log-uniform magnitude up to the domain's ends, 1e300 where it is unbounded): sensitivity is a
  property of every pair of neighbours, not of the one dataset given.

It returns DISPROVED with the pair (re-evaluated to confirm; the distance is compared exactly on the
floats, with a tolerance relative to the distances compared) or UNDECIDED with the largest distance
seen; never PROVED.

Examples
--------
>>> import numpy as np
>>> from dpaudit import verify
>>> from dpaudit.neighbors import ItemReplace
>>> data = np.zeros(10)
>>> verify.sensitivity(lambda d: d.sum(), 1.0, relation=ItemReplace(), dataset=data, budget=100).verdict_text()
'DISPROVED'
>>> clipped = verify.sensitivity(lambda d: np.clip(d, 0, 1).sum(), 1.0, relation=ItemReplace(), dataset=data, budget=100)
>>> clipped.verdict_text()[:9], clipped.evidence["largest distance"]
('UNDECIDED', 1.0)
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings, target
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from numpy.typing import NDArray
from scipy.optimize import minimize

from dpaudit._validation import (
    argument_error,
    check_finite_array,
    check_int,
    check_nonnegative,
)
from dpaudit.errors import InvalidArgument
from dpaudit.neighbors import (
    ItemAddRemove,
    ItemReplace,
    NeighborRelation,
    UserAddRemove,
    UserReplace,
    random_neighbor,
    worst_case_neighbors,
)
from dpaudit.verify._hypothesis import no_local_constants
from dpaudit.verify._inputs import exact_positive, shown_number
from dpaudit.verify.box import exact_box
from dpaudit.verify.lipschitz import DEFAULT_TOLERANCE, parse_norm
from dpaudit.verify.proof import Proof
from dpaudit.verify.search import as_vector, exceeds, norm_of
from dpaudit.verify.verdict import CheckResult, Verdict, _amend

__all__ = ["DEFAULT_SENSITIVITY_BUDGET", "sensitivity"]

#: Neighbours a search evaluates unless told otherwise.
DEFAULT_SENSITIVITY_BUDGET = 1000

#: Entry values tried when the domain is unbounded.
_EXTREMES = (-1e300, -1e100, -1e9, -1e6, -1e3, -1.0, 0.0, 1.0, 1e3, 1e6, 1e9, 1e100, 1e300)

#: Largest magnitude of an entry where the domain is unbounded.
_FAR = 1e300

_SHOWN_ENTRIES = 64


class _Search:
    """State of one neighbour search."""

    def __init__(self, query: Callable[[NDArray[np.float64]], Any], base: NDArray[np.float64], relation: NeighborRelation,
                 bound: Fraction, norm: float, tol: Fraction, budget: int, low: float = -np.inf,
                 high: float = np.inf) -> None:
        self.query, self.base, self.relation = query, base, relation
        self.low, self.high = low, high  # the entry domain (floats inside the exact one): nothing outside is tried
        self.bound, self.norm, self.tol, self.budget = bound, norm, tol, budget
        q_base = self._call(base)
        if q_base is None:
            raise argument_error("sensitivity", "query", "finite (not NaN or infinite) on the base dataset given as dataset=",
                                 query)
        self.q_base: NDArray[np.float64] = q_base
        self.best_base = base
        self.count = 0
        self.nonfinite = 0
        self.unusable_bases = 0
        self.best = 0.0
        self.best_neighbor: NDArray[np.float64] | None = None
        self.violation: dict[str, Any] | None = None
        self.strategies: dict[str, int] = {}

    @property
    def done(self) -> bool:
        return self.violation is not None or self.count >= self.budget

    def _call(self, data: NDArray[np.float64]) -> NDArray[np.float64] | None:
        with np.errstate(all="ignore"):  # huge entries may overflow inside the query: such a neighbour is skipped
            out = as_vector(self.query(data.copy()), "sensitivity", "query")
        return out if np.all(np.isfinite(out)) else None

    def distance(self, other: NDArray[np.float64], strategy: str) -> float:
        """Evaluate one neighbour of the base dataset; returns ``||q(D) - q(D')||`` (0 when unusable)."""
        if self.done or not self._inside(other) or not self.relation.is_neighbor(self.base, other):
            return 0.0
        self.count += 1
        self.strategies[strategy] = self.strategies.get(strategy, 0) + 1
        q = self._call(other)
        if q is None:
            self.nonfinite += 1
            return 0.0
        if q.shape != self.q_base.shape:
            raise InvalidArgument(f"the query returned outputs of different shapes {self.q_base.shape} and {q.shape}")
        with np.errstate(all="ignore"):
            dist = norm_of(q - self.q_base, self.norm)
        if not np.isfinite(dist):
            self.nonfinite += 1
            return 0.0
        if dist > self.best:
            self.best, self.best_neighbor, self.best_base = dist, other.copy(), self.base
        # the distances compared, plus 16 ulps of the values for the subtraction's rounding: an offset cannot hide a violation
        rounding = 16 * float(np.finfo(float).eps) * max(norm_of(q, self.norm), norm_of(self.q_base, self.norm))
        scale = 0.0 if self.tol == 0 else max(dist, float(self.bound)) + rounding / float(self.tol)
        if exceeds(q, self.q_base, [1.0], [0.0], self.bound, self.tol, self.norm, scale):
            self._confirm(other, scale, strategy)
        return dist

    def _inside(self, data: NDArray[np.float64]) -> bool:
        """Every entry finite and in the entry domain: the claim says nothing about datasets outside it."""
        return bool(np.all(np.isfinite(data)) and np.all(data >= self.low) and np.all(data <= self.high))

    def rebase(self, base: NDArray[np.float64]) -> bool:
        """Search around another dataset ``D`` (the claim is about every pair of neighbours, not one ``D``)."""
        if not self._inside(base):
            return False
        q = self._call(base)
        if q is None or q.shape != self.q_base.shape:
            return False
        self.base, self.q_base = base, q
        return True

    def _confirm(self, other: NDArray[np.float64], scale: float, strategy: str) -> None:
        q0, q1 = self._call(self.base), self._call(other)
        if q0 is None or q1 is None or not exceeds(q1, q0, [1.0], [0.0], self.bound, self.tol, self.norm, scale):
            return
        self.violation = {"change": _describe_change(self.base, other), "query(D)": q0.tolist(), "query(D')": q1.tolist(),
                          "D (floats, repr)": [repr(float(v)) for v in self.base.ravel()[:_SHOWN_ENTRIES]],
                          "distance": norm_of(q1 - q0, self.norm), "bound": float(self.bound), "found by": strategy}
        if other.size <= _SHOWN_ENTRIES:
            self.violation.update({"D": self.base.tolist(), "D'": other.tolist()})


def _describe_change(base: NDArray[np.float64], other: NDArray[np.float64]) -> dict[str, Any]:
    """Which row differs and how (exact floats)."""
    if base.shape == other.shape:
        rows = np.flatnonzero((base != other).reshape(base.shape[0], -1).any(axis=1))
        i = int(rows[0]) if rows.size else 0
        return {"replaced row": i, "old": np.asarray(base[i]).tolist(), "new": np.asarray(other[i]).tolist()}
    if other.shape[0] > base.shape[0]:
        for i in range(other.shape[0]):
            if np.array_equal(np.delete(other, i, axis=0), base):
                return {"added row": i, "new": np.asarray(other[i]).tolist()}
    for i in range(base.shape[0]):
        if np.array_equal(np.delete(base, i, axis=0), other):
            return {"removed row": i, "old": np.asarray(base[i]).tolist()}
    return {"shape": list(other.shape)}  # pragma: no cover - relation checked before


def _row_with(base: NDArray[np.float64], i: int, row: NDArray[np.float64], add: bool) -> NDArray[np.float64]:
    if add:
        return np.insert(base, i, row, axis=0)
    out = base.copy()
    out[i] = row
    return out


def sensitivity(query: Callable[[NDArray[np.float64]], Any], bound: float, *, relation: NeighborRelation, dataset: Any,
                norm: Any = 1, seed: int | None = None, budget: int | None = None, tolerance: float = DEFAULT_TOLERANCE,
                domain: tuple[float, float] | None = None) -> CheckResult:
    """Search for neighbours ``D ~ D'`` of ``dataset`` with ``||query(D) - query(D')||_norm > bound``.

    Parameters
    ----------
    query : callable
        Maps a dataset (a float array shaped like ``dataset``, or with one row more or fewer under
        add/remove relations) to a scalar or a 1-d array.
    bound : float
        The claimed sensitivity (``> 0``), read exactly: a Fraction, a numpy long double or a sympy Float of any
        precision is compared at its exact value, never rounded to a double.
    relation : NeighborRelation
        :class:`~dpaudit.neighbors.ItemReplace`, :class:`~dpaudit.neighbors.ItemAddRemove`,
        :class:`~dpaudit.neighbors.UserReplace` or :class:`~dpaudit.neighbors.UserAddRemove`.
    dataset : array_like
        The base dataset ``D`` (``(n, ...)`` for item relations, ``(n_users, m_items, ...)`` for user ones).
    norm : 1, 2 or inf
        The norm of ``query(D) - query(D')``.
    seed : int, optional
        Seeds the search (default: a fixed seed derived from the claim).
    budget : int, optional
        Neighbours evaluated (default 1000).
    tolerance : float
        A pair counts only if ``||q(D) - q(D')|| > bound + tolerance * max(||q(D) - q(D')||, bound)`` plus
        16 units in the last place of the query's values (the rounding of the subtraction), compared exactly on
        the floats; 0 asks for the exact comparison.
    domain : (low, high), optional
        The domain of a data entry, with exact bounds (a float at its exact binary value); the entries tried are
        floats inside it, and every entry of ``dataset`` must lie in it (:class:`~dpaudit.errors.InvalidArgument`
        otherwise: the claim says nothing about data outside the domain). Default: unbounded (entries up to
        +-1e300 are tried).

    Returns
    -------
    CheckResult
        DISPROVED with the pair (``counterexample``: the changed row, both query values, the
        distance; both datasets when small), or UNDECIDED with ``evidence`` (neighbours searched, the
        largest distance seen and the neighbour attaining it).
    """
    owner = "sensitivity"
    b = exact_positive(owner, "bound", bound)  # exact: a long double or a Fraction is not rounded to a double
    p = parse_norm(owner, norm)
    tol = Fraction(check_nonnegative(owner, "tolerance", tolerance))
    budget = DEFAULT_SENSITIVITY_BUDGET if budget is None else check_int(owner, "budget", budget, minimum=1)
    if not isinstance(relation, (ItemReplace, ItemAddRemove, UserReplace, UserAddRemove)):
        raise argument_error(owner, "relation", "ItemReplace, ItemAddRemove, UserReplace or UserAddRemove", relation)
    base = check_finite_array(owner, "dataset", dataset, min_ndim=relation.min_ndim)
    if base.shape[0] == 0:
        raise argument_error(owner, "dataset", "non-empty", dataset)
    box = exact_box(owner, domain, 1)
    if box is not None:
        lows, highs = box.float_bounds()  # rounded inward: every entry tried lies in the exact domain
        low, high = float(lows[0]), float(highs[0])
        extremes = tuple(sorted({low, high, low / 2 + high / 2}))
        _check_inside(owner, base, low, high, box.text())
    else:
        low, high = -_FAR, _FAR
        extremes = _EXTREMES
    key = f"dpaudit.verify.sensitivity/{relation}/{base.shape}/{float(b)}/{p}"
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little")
                                if seed is None else check_int(owner, "seed", seed, minimum=0))
    search = _Search(query, base, relation, b, p, tol, budget, *((low, high) if box is not None else (-np.inf, np.inf)))
    _worst_cases(search, extremes, domain is None)
    _extreme_rows(search, extremes, rng)
    _random(search, rng, budget // 6, low if domain is not None else -1e3, high if domain is not None else 1e3)
    _hypothesis(search, budget // 10, int(rng.integers(2**31)), low, high)
    _optimise(search, (budget - search.count) // 3, low, high)
    _other_bases(search, rng, low, high, extremes)
    search.rebase(base)
    where = "R" if box is None else box.text()
    claim = (f"||query(D) - query(D')||_{'inf' if p == np.inf else int(p)} <= {shown_number(b)} for every pair of neighbours D ~ D' "
             f"of shape {base.shape} under {relation} (entries in {where}; searched around the given D and random others)")
    proof = Proof(key)
    proof.given(claim, *(box.notes if box is not None else ()))
    label = f"neighbour search ({search.count} neighbours, tolerance {float(tol):g})"
    if search.violation is not None:
        proof.rechecked_pair(label, search.violation, cases=search.count, constant=b, norm=p,
                             image=("query(D)", "query(D')"), preimage=None,
                             note=f"distance {search.violation['distance']:.6g} > {shown_number(b)}")
    else:
        proof.instance(label, True, point={}, cases=search.count)
    result = proof.result()
    evidence: dict[str, Any] = {"neighbours searched": search.count, "largest distance": search.best,
                                "tolerance": float(tol), "neighbours per strategy": dict(search.strategies)}
    if search.best_neighbor is not None and search.best_base.shape[1:] == search.best_neighbor.shape[1:]:
        evidence["largest distance at"] = _describe_change(search.best_base, search.best_neighbor)
    if search.nonfinite:
        evidence["neighbours where the query was not finite"] = search.nonfinite
    if search.unusable_bases:
        evidence["other datasets where the query was not finite (skipped)"] = search.unusable_bases
    reason = result.reason
    if result.verdict is Verdict.UNDECIDED:
        reason = (f"no neighbour farther than {shown_number(b)} in {search.count} searched (largest distance {search.best:.10g}); "
                  "a search can only refute, never prove")
        if search.nonfinite:  # a NaN or infinite value is no counterexample: it is skipped, and said
            reason += (f"; the query was NaN or infinite (or the distance overflowed) on {search.nonfinite} neighbour(s), "
                       "skipped: not counterexamples")
    return _amend(result, claim=claim, source="dpaudit.verify.sensitivity", reason=reason, evidence=evidence)


def _check_inside(owner: str, base: NDArray[np.float64], low: float, high: float, where: str) -> None:
    """Refuse a dataset with an entry outside the domain: a pair around it is no counterexample to the claim.

    ``low`` and ``high`` are the exact domain rounded inward, so a float lies in the exact domain exactly when
    it lies in ``[low, high]``.
    """
    outside = np.argwhere((base < low) | (base > high))
    if outside.size:
        index = tuple(int(i) for i in outside[0])
        raise argument_error(owner, "dataset", f"inside domain={where} in every entry ({len(outside)} entries are not)",
                             base, fix=f"the entry dataset[{', '.join(map(str, index))}] = {float(base[index])!r} "
                                       "lies outside it; clip the data into the domain or widen domain=")


def _magnitudes(rng: np.random.Generator, shape: tuple[int, ...], low: float, high: float) -> NDArray[np.float64]:
    """Entries of log-uniform magnitude up to the domain's ends (half of them), uniform in it (the other half)."""
    far = max(abs(low), abs(high), 1e-300)
    mags = 10.0 ** rng.uniform(-6, np.log10(far), size=shape) * np.where(rng.random(shape) < 0.5, -1.0, 1.0)
    uniform = rng.uniform(max(low, -1e3), min(high, 1e3), size=shape) if high - low < np.inf else mags
    return np.clip(np.where(rng.random(shape) < 0.5, mags, uniform), low, high)


def _other_bases(search: _Search, rng: np.random.Generator, low: float, high: float, extremes: tuple[float, ...]) -> None:
    """Neighbours of other datasets of the same shape.

    Constant ones at the domain's ends and random ones (log-uniform magnitudes up to the domain's
    ends), each with its worst-case and random neighbours.
    """
    given = search.base
    bases = [np.full(given.shape, v, dtype=float) for v in sorted({extremes[0], extremes[-1], 0.0 if low <= 0 <= high else low})]
    while search.count < search.budget and not search.done:
        candidates = bases.pop(0) if bases else _magnitudes(rng, given.shape, low, high)
        if not search.rebase(candidates):
            # a query that is NaN or infinite on most datasets would keep this loop drawing bases: they count too
            search.unusable_bases += 1
            if search.unusable_bases >= search.budget:
                return
            continue
        ends = (max(low, -1e300), min(high, 1e300))
        for other in worst_case_neighbors(search.relation, search.base, low=ends[0], high=ends[1], max_candidates=16):
            search.distance(other, "other datasets: worst-case neighbours")
        for _ in range(8):
            if search.done:
                return
            row = _magnitudes(rng, given.shape[1:] or (1,), low, high).reshape(given.shape[1:])
            i = int(rng.integers(search.base.shape[0] + (0 if _replaces(search.relation) else 1)))
            search.distance(_row_with(search.base, i, row, not _replaces(search.relation)), "other datasets: random rows")
            if not _replaces(search.relation) and search.base.shape[0] > 1:
                search.distance(np.delete(search.base, i % search.base.shape[0], axis=0), "other datasets: removals")


def _replaces(relation: NeighborRelation) -> bool:
    return isinstance(relation, (ItemReplace, UserReplace))


def _worst_cases(search: _Search, extremes: tuple[float, ...], unbounded: bool) -> None:
    pairs = [(extremes[0], extremes[-1])]
    if unbounded:
        pairs += [(-1.0, 1.0), (-1e3, 1e3), (-1e6, 1e6)]
        lo, hi = float(search.base.min()), float(search.base.max())
        if lo < hi:
            pairs.append((lo, hi))
    for lo, hi in pairs:
        for other in worst_case_neighbors(search.relation, search.base, low=lo, high=hi, max_candidates=64):
            search.distance(other, "worst-case neighbours")


def _extreme_rows(search: _Search, extremes: tuple[float, ...], rng: np.random.Generator) -> None:
    base, n = search.base, search.base.shape[0]
    add = not _replaces(search.relation)
    rows = list(range(n)) if n <= 20 else sorted({0, n - 1, *rng.choice(n, size=18, replace=False).tolist()})
    shape = base.shape[1:]
    for i in rows:
        for value in extremes:
            if search.done:
                return
            search.distance(_row_with(base, i, np.full(shape, value), add), "extreme values")
        if shape and int(np.prod(shape)) > 1:
            for value in (extremes[0], extremes[-1]):
                row = np.array(base[i] if not add else np.zeros(shape), dtype=float)
                flat = row.reshape(-1)
                flat[int(rng.integers(flat.size))] = value
                search.distance(_row_with(base, i, row, add), "extreme values")
    if not _replaces(search.relation):
        for i in rows:
            search.distance(np.delete(base, i, axis=0), "extreme values")


def _random(search: _Search, rng: np.random.Generator, count: int, low: float, high: float) -> None:
    for _ in range(count):
        if search.done:
            return
        search.distance(random_neighbor(search.relation, search.base, rng=rng, low=low, high=high), "random neighbours")


def _hypothesis(search: _Search, count: int, seed: int, low: float, high: float) -> None:
    if count < 1 or search.done:
        return
    from dpaudit.strategies import neighboring_pairs

    pairs = neighboring_pairs(search.relation, st.just(search.base), low=low, high=high)

    @hypothesis_seed(seed)
    @settings(max_examples=count, database=None, deadline=None, suppress_health_check=list(HealthCheck),
              phases=[Phase.generate, Phase.target])
    @given(pairs)
    def body(pair: tuple[NDArray[np.float64], NDArray[np.float64]]) -> None:
        a, b = pair
        other = b if a.shape == search.base.shape and np.array_equal(a, search.base) else a
        target(min(search.distance(other, "hypothesis"), 1e300))

    with no_local_constants():
        body()


def _optimise(search: _Search, count: int, low: float, high: float) -> None:
    """Nelder-Mead on the changed row of the farthest neighbour, kept inside the entry domain."""
    if count < 1 or search.done or search.best_neighbor is None:
        return
    base, best = search.base, search.best_neighbor
    add = best.shape[0] > base.shape[0]
    if best.shape[0] < base.shape[0]:
        return  # a removal has nothing to optimise
    change = _describe_change(base, best)
    i = change.get("replaced row", change.get("added row", 0))
    shape = base.shape[1:]

    def objective(z: NDArray[np.float64]) -> float:
        row = np.clip(z, low, high).reshape(shape) if shape else float(np.clip(z[0], low, high))
        return -search.distance(_row_with(base, i, np.asarray(row, dtype=float), add), "local optimisation")

    minimize(objective, np.atleast_1d(np.asarray(best[i], dtype=float)).ravel(), method="Nelder-Mead",
             options={"maxfev": count})
