"""Counterexample search for a Lipschitz claim about a numerical function: it can only refute.

:func:`search_pairs` looks for a pair ``x, y`` with ``||f(x) - f(y)|| > L ||x - y||`` by

* structured pairs: corners and faces of the box, the origin, coordinate directions, far-away points;
* random pairs at many scales, close and far apart;
* lines through random points, with bisection towards the steepest stretch (finds kinks and jumps);
* a hypothesis search (seeded, ``target``-guided towards large ratios);
* local optimisation (Nelder-Mead) of the ratio from the best pairs found.

Points have log-uniform magnitudes up to the domain's ends (up to 1e300 where it is unbounded).
A pair is a violation when ``||f(x) - f(y)|| > L ||x - y|| + tol * scale``, where ``scale`` is the
larger of the two distances compared, ``||f(x) - f(y)||`` and ``L ||x - y||``, plus a rounding allowance
of 16 units in the last place of the values (so an offset of the values cannot hide a violation, and the
rounding of the subtraction is not one), decided exactly on the float values (:func:`exceeds`);
``tol = 0`` asks for the exact comparison. The floats are the callable's own values: a pair is a counterexample
about the callable as written (its rounding included). A violation is re-evaluated before it is reported, and the reported
pair is the exact floats (``repr`` round-trips them).

Examples
--------
>>> import numpy as np
>>> from fractions import Fraction
>>> found = search_pairs(lambda v: 2 * v, 1, norm=2, constant=Fraction(1), rng=np.random.default_rng(0), budget=50)
>>> found.violation is not None and found.violation["ratio"] > 1.99
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from hypothesis import HealthCheck, Phase, given, settings, target
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from numpy.typing import NDArray
from scipy.optimize import minimize

from dpaudit.errors import InvalidArgument
from dpaudit.verify._hypothesis import no_local_constants

__all__ = ["DEFAULT_BUDGET", "PairSearch", "as_vector", "exceeds", "norm_of", "search_pairs"]

#: The vectors :func:`exceeds` compares: float sequences or 1-d float arrays (read entry by entry).
Vector = Sequence[float] | NDArray[np.float64]

#: Pairs a search evaluates unless told otherwise.
DEFAULT_BUDGET = 2000

#: Pairs closer than this (relative to the values' size) do not count for the raw ratio reported.
_SEPARATED = 1e-6

_UNBOUNDED_SCALES = (1e-3, 1e-1, 1.0, 10.0, 1e3, 1e6, 1e12, 1e50, 1e100, 1e200, 1e300)

#: Units in the last place of the values allowed for the rounding of ``f(x) - f(y)`` (with a non-zero tolerance).
ROUNDING_ULPS = 16

#: Largest magnitude drawn where the domain is unbounded.
_FAR = 1e300


def as_vector(value: Any, owner: str = "lipschitz", name: str = "f") -> NDArray[np.float64]:
    """A function's output as a 1-d float array (a scalar becomes length 1).

    A number beyond the float range (a Python int such as ``10**400``) becomes +-inf, so the pair is skipped as one
    where the function is not finite; a complex or non-numeric output is an :class:`InvalidArgument` naming ``name``.
    """
    if np.iscomplexobj(value) or isinstance(value, complex):
        raise InvalidArgument(f"`{owner}`: `{name}` must return real numbers (a scalar or a 1-d array); it returned the "
                              f"complex value {str(value)[:80]}")
    try:
        return np.atleast_1d(np.asarray(value).astype(float)).ravel()
    except OverflowError:
        return np.array([_float_or_inf(v) for v in np.asarray(value, dtype=object).ravel()], dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"`{owner}`: `{name}` must return real numbers (a scalar or a 1-d array); it returned "
                              f"{type(value).__name__} {str(value)[:80]!r} ({exc})") from exc


def _float_or_inf(v: Any) -> float:
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def norm_of(v: NDArray[np.float64], norm: float) -> float:
    """The l1, l2 or l-infinity norm of a vector (0 for an empty one)."""
    if v.size == 0:
        return 0.0
    a = np.abs(v)
    top = float(a.max())
    if norm == math.inf or top == 0.0 or not math.isfinite(top):
        return top if norm == math.inf or top == 0.0 else math.inf
    with np.errstate(over="ignore"):
        if norm == 1:
            return float(a.sum())
        return top * float(np.sqrt(np.sum((a / top) ** 2)))  # scaled: no overflow for entries near 1e300


def _exact_norm(diffs: Sequence[Fraction], norm: float) -> mpmath.mpf | Fraction:
    if not diffs:
        return Fraction(0)
    if norm == 1:
        return sum((abs(d) for d in diffs), Fraction(0))
    if norm == 2:
        square = sum((d * d for d in diffs), Fraction(0))
        with mpmath.workdps(60):
            return mpmath.sqrt(mpmath.mpf(square.numerator) / square.denominator)
    return max(abs(d) for d in diffs)


def exceeds(a1: Vector, a2: Vector, b1: Vector, b2: Vector, bound: Fraction, tol: Fraction, norm: float,
            scale: float) -> bool:
    """Is ``||a1 - a2|| > bound ||b1 - b2|| + tol * scale``, decided on the exact values of the floats?

    The l1 and l-infinity norms are compared in exact rationals; the l2 norm exactly on squares when
    ``tol * scale = 0``, otherwise with 60-digit square roots (error ~1e-60, far below any tolerance).

    Examples
    --------
    >>> from fractions import Fraction
    >>> exceeds([0.3], [0.0], [0.1 + 0.2], [0.0], Fraction(1), Fraction(0), 1, 1.0)   # 0.1 + 0.2 > 0.3 in floats
    False
    >>> exceeds([0.1 + 0.2], [0.0], [0.3], [0.0], Fraction(1), Fraction(0), 1, 1.0)
    True
    """
    if not math.isfinite(scale):
        return False  # an infinite allowance (L ||b1 - b2|| beyond the float range): no finite gap exceeds it
    da = [Fraction(float(p)) - Fraction(float(q)) for p, q in zip(a1, a2, strict=True)]
    db = [Fraction(float(p)) - Fraction(float(q)) for p, q in zip(b1, b2, strict=True)]
    slack = tol * Fraction(float(scale))
    if norm == 2 and slack == 0:
        left = sum((d * d for d in da), Fraction(0))
        right = bound * bound * sum((d * d for d in db), Fraction(0))
        return left > right
    left, right = _exact_norm(da, norm), _exact_norm(db, norm)
    if isinstance(left, Fraction) and isinstance(right, Fraction):
        return left > bound * right + slack
    with mpmath.workdps(60):
        return bool(_mp(left) > _mp(bound) * _mp(right) + _mp(slack))


def _mp(value: Any) -> mpmath.mpf:
    if isinstance(value, Fraction):
        return mpmath.mpf(value.numerator) / value.denominator
    return mpmath.mpf(value)


@dataclass
class PairSearch:
    """State of a search for ``||f(x) - f(y)|| > L ||x - y||`` (see :func:`search_pairs`)."""

    f: Callable[[NDArray[np.float64]], Any]
    dim: int
    norm: float
    constant: Fraction
    low: NDArray[np.float64] | None
    high: NDArray[np.float64] | None
    tolerance: Fraction
    rng: np.random.Generator
    budget: int
    pairs: int = 0
    nonfinite: int = 0
    best_ratio: float = 0.0
    best_raw_ratio: float = 0.0
    best_pair: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None
    violation: dict[str, Any] | None = None
    strategies: dict[str, int] = field(default_factory=dict)
    _top: list[tuple[float, NDArray[np.float64], NDArray[np.float64]]] = field(default_factory=list)

    @property
    def done(self) -> bool:
        """True once a violation is found or the pair budget is spent."""
        return self.violation is not None or self.pairs >= self.budget

    def _clip(self, v: NDArray[np.float64]) -> NDArray[np.float64]:
        if self.low is None or self.high is None:
            return v
        return np.clip(v, self.low, self.high)

    def _call(self, v: NDArray[np.float64]) -> NDArray[np.float64] | None:
        with np.errstate(all="ignore"):  # huge inputs may overflow inside f: such a pair is skipped, not an error
            try:
                out = as_vector(self.f(v.copy()))
            except OverflowError:  # a Python int too large for a float inside f (a lambdified 10**309 * x)
                return None
        return out if np.all(np.isfinite(out)) else None

    def ratio(self, x: NDArray[np.float64], y: NDArray[np.float64], strategy: str) -> float:
        """Evaluate one pair; returns the ratio after the tolerance (0 for an unusable pair)."""
        if self.done:
            return 0.0
        x = self._clip(np.asarray(x, dtype=float).ravel())
        y = self._clip(np.asarray(y, dtype=float).ravel())
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))) or np.array_equal(x, y):
            return 0.0
        self.pairs += 1
        self.strategies[strategy] = self.strategies.get(strategy, 0) + 1
        fx, fy = self._call(x), self._call(y)
        with np.errstate(all="ignore"):
            return self._compare(x, y, fx, fy, strategy)

    def _compare(self, x: NDArray[np.float64], y: NDArray[np.float64], fx: NDArray[np.float64] | None,
                 fy: NDArray[np.float64] | None, strategy: str) -> float:
        if fx is None or fy is None:
            self.nonfinite += 1
            return 0.0
        if fx.shape != fy.shape:
            raise InvalidArgument(f"f returned outputs of different shapes {fx.shape} and {fy.shape}")
        L = _float_or_inf(self.constant)  # a constant beyond the float range: L ||x - y|| is inf in floats
        dx = norm_of(x - y, self.norm)
        if dx == 0.0:
            return 0.0
        gap = norm_of(fx - fy, self.norm)
        scale = self._slack_scale(gap, L * dx, fx, fy)
        ratio = max(0.0, gap - float(self.tolerance) * scale) / dx
        if dx > _SEPARATED * scale:  # far enough apart that rounding cannot move the raw ratio much
            self.best_raw_ratio = max(self.best_raw_ratio, gap / dx)
        if ratio > self.best_ratio:
            self.best_ratio, self.best_pair = ratio, (x.copy(), y.copy())
        self._top.append((ratio, x.copy(), y.copy()))
        if len(self._top) > 64:
            self._top.sort(key=lambda t: -t[0])
            del self._top[16:]
        if exceeds(fx, fy, x, y, self.constant, self.tolerance, self.norm, scale):
            self._confirm(x, y, fx, fy, scale, strategy)
        return ratio

    def _slack_scale(self, gap: float, stretch: float, fx: NDArray[np.float64], fy: NDArray[np.float64]) -> float:
        """The ``scale`` of the allowed excess ``tol * scale``: the larger distance compared, plus a rounding allowance.

        The rounding allowance (when the tolerance is not 0) is ``ROUNDING_ULPS`` units in the last
        place of the values, the error of the float subtraction ``f(x) - f(y)``; 16 ulps of 1e12 is
        4e-3, so an offset cannot hide a violation of size 1 the way a tolerance relative to the
        values did.
        """
        if self.tolerance == 0:
            return 0.0
        rounding = ROUNDING_ULPS * float(np.finfo(float).eps) * max(norm_of(fx, self.norm), norm_of(fy, self.norm))
        return max(gap, stretch) + rounding / float(self.tolerance)

    def _confirm(self, x: NDArray[np.float64], y: NDArray[np.float64], fx: NDArray[np.float64], fy: NDArray[np.float64],
                 scale: float, strategy: str) -> None:
        """Re-evaluate the pair; report it only if the same floats violate the claim again."""
        fx2, fy2 = self._call(x), self._call(y)
        if fx2 is None or fy2 is None or not (np.array_equal(fx, fx2) and np.array_equal(fy, fy2)):
            return
        if not exceeds(fx2, fy2, x, y, self.constant, self.tolerance, self.norm, scale):
            return
        dx = norm_of(x - y, self.norm)
        self.violation = {
            "x": [float(v) for v in x], "y": [float(v) for v in y],
            "f(x)": [float(v) for v in fx2], "f(y)": [float(v) for v in fy2],
            "ratio": norm_of(fx2 - fy2, self.norm) / dx, "found by": strategy,
        }

    # -- strategies ---------------------------------------------------------------------------

    def _points(self, count: int) -> NDArray[np.float64]:
        """Uniform points and points of log-uniform magnitude up to the domain's ends (up to 1e300 unbounded)."""
        if self.low is not None and self.high is not None:
            pts = self.rng.uniform(self.low, self.high, size=(count, self.dim))
            far = float(max(np.max(np.abs(self.low)), np.max(np.abs(self.high)), 1e-300))
            mags = 10.0 ** self.rng.uniform(-12, np.log10(far), size=(count, self.dim))
            signed = np.clip(mags * np.where(self.rng.random((count, self.dim)) < 0.5, -1.0, 1.0), self.low, self.high)
            pts = np.where(self.rng.random((count, 1)) < 0.5, pts, signed)
            snap = self.rng.random((count, self.dim)) < 0.15  # some coordinates on the faces
            ends = np.where(self.rng.random((count, self.dim)) < 0.5, self.low, self.high)
            return np.where(snap, ends, pts)
        scales = 10.0 ** self.rng.uniform(-6, np.log10(_FAR), size=(count, 1))
        direction = self.rng.standard_normal((count, self.dim))
        direction /= np.maximum(np.max(np.abs(direction), axis=1, keepdims=True), 1e-300)
        return direction * scales

    def structured(self, share: int) -> None:
        """Corners, faces, the origin, coordinate directions and far-away points."""
        cands: list[tuple[NDArray[np.float64], NDArray[np.float64]]] = []
        eye = np.eye(self.dim)
        if self.low is not None and self.high is not None:
            mid = (self.low + self.high) / 2
            cands.append((self.low.copy(), self.high.copy()))
            for i in range(self.dim):
                cands.append((mid, np.where(eye[i] > 0, self.high, mid)))
                cands.append((np.where(eye[i] > 0, self.low, mid), mid))
            for _ in range(min(16, 2 ** min(self.dim, 6))):
                bits = self.rng.random(self.dim) < 0.5
                other = bits.copy()
                other[self.rng.integers(self.dim)] ^= True
                cands.append((np.where(bits, self.high, self.low), np.where(other, self.high, self.low)))
        else:
            zero = np.zeros(self.dim)
            for s in _UNBOUNDED_SCALES:
                for i in range(self.dim):
                    cands.append((zero, s * eye[i]))
                    cands.append((-s * eye[i], s * eye[i]))
                cands.append((s * np.ones(self.dim), -s * np.ones(self.dim)))
        for x, y in cands[:share]:
            self.ratio(x, y, "structured")

    def random(self, share: int) -> None:
        """Random points paired with near and far partners."""
        n = max(1, share // 2)
        xs = self._points(n)
        for x in xs:
            if self.done:
                return
            far = self._points(1)[0]
            self.ratio(x, far, "random far")
            direction = self.rng.standard_normal(self.dim)
            direction /= np.linalg.norm(direction) or 1.0
            h = 10.0 ** self.rng.uniform(-6, 0) * max(1.0, float(np.max(np.abs(x))))
            self.ratio(x, x + h * direction, "random near")

    def lines(self, share: int, grid: int = 17) -> None:
        """Steepest stretches along random lines, refined by bisection (kinks, jumps)."""
        per_line = grid + 24
        for _ in range(max(1, share // per_line)):
            if self.done:
                return
            a, b = self._points(2)
            ts = np.linspace(0.0, 1.0, grid)
            vals = [self._call(self._clip(a + t * (b - a))) for t in ts]
            slopes = []
            for before, after in itertools.pairwise(vals):
                if before is None or after is None:
                    slopes.append(-1.0)
                else:
                    slopes.append(norm_of(after - before, self.norm))
            k = int(np.argmax(slopes))
            lo, hi = ts[k], ts[k + 1]
            for _ in range(24):
                mid = (lo + hi) / 2
                left = self.ratio(a + lo * (b - a), a + mid * (b - a), "line bisection")
                right = self.ratio(a + mid * (b - a), a + hi * (b - a), "line bisection")
                if self.done or hi - lo < 1e-15:
                    break
                lo, hi = (lo, mid) if left >= right else (mid, hi)

    def hypothesis(self, share: int, seed: int) -> None:
        """A seeded hypothesis search, guided by ``target`` towards large ratios."""
        if self.low is not None and self.high is not None:
            coords = [st.floats(float(lo), float(hi), allow_nan=False, allow_infinity=False)
                      for lo, hi in zip(self.low, self.high, strict=True)]
        else:
            coords = [st.floats(-_FAR, _FAR, allow_nan=False, allow_infinity=False)] * self.dim
        vec = st.tuples(*coords).map(lambda v: np.array(v, dtype=float))

        @hypothesis_seed(seed)
        @settings(max_examples=max(1, share), database=None, deadline=None, derandomize=False,
                  suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.target])
        @given(vec, vec)
        def body(x: NDArray[np.float64], y: NDArray[np.float64]) -> None:
            r = self.ratio(x, y, "hypothesis")
            target(min(r, 1e12))

        with no_local_constants():
            body()

    def optimise(self, share: int, starts: int = 3) -> None:
        """Nelder-Mead on ``-ratio`` over ``(x, y)`` from the best pairs so far."""
        self._top.sort(key=lambda t: -t[0])
        seeds = [(x, y) for _, x, y in self._top[:starts]]
        per = max(10, share // max(1, len(seeds)))
        for x0, y0 in seeds:
            if self.done:
                return

            def objective(z: NDArray[np.float64]) -> float:
                return -self.ratio(z[: self.dim], z[self.dim :], "local optimisation")

            minimize(objective, np.concatenate([x0, y0]), method="Nelder-Mead",
                     options={"maxfev": per, "xatol": 1e-12, "fatol": 1e-15})


def search_pairs(f: Callable[[NDArray[np.float64]], Any], dim: int, *, norm: float, constant: Fraction,
                 rng: np.random.Generator, budget: int = DEFAULT_BUDGET, low: Any = None, high: Any = None,
                 tolerance: Fraction = Fraction(0)) -> PairSearch:
    """Search for a pair violating ``||f(x) - f(y)|| <= constant ||x - y||`` (see the module docstring).

    Returns the finished :class:`PairSearch`: ``violation`` (a confirmed pair, or None), ``pairs``,
    ``best_ratio`` (the largest ratio after the tolerance, and its ``best_pair``), ``best_raw_ratio``
    (the largest ratio among pairs at least 1e-6 of the values' size apart), ``nonfinite`` (pairs
    where ``f`` returned inf or NaN) and the pairs per ``strategies``.
    """
    lo = None if low is None else np.broadcast_to(np.asarray(low, dtype=float), (dim,)).copy()
    hi = None if high is None else np.broadcast_to(np.asarray(high, dtype=float), (dim,)).copy()
    search = PairSearch(f, dim, norm, constant, lo, hi, tolerance, rng, budget)
    seed = int(rng.integers(2**31))
    search.structured(max(8, budget // 10))
    search.random(budget * 3 // 10)
    search.lines(budget // 5)
    if not search.done:
        search.hypothesis(budget // 10, seed)
    remaining = budget - search.pairs
    if remaining > 0 and not search.done:
        search.optimise(remaining)
    if not search.done and search.pairs < budget:
        search.random(budget - search.pairs)
    return search
