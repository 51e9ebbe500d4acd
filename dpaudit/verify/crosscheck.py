"""Cross-checks: finite instances, seeded random points and property tests. They can only refute.

A failing instance whose truth and point are exact (Python/sympy booleans, rationals: no float) records a
counterexample (the check becomes DISPROVED). A violation seen in floating point (:meth:`numeric_le`, a
numpy comparison, a point given in floats) is *evidence* only: it is printed in the details, and a
DISPROVED needs an exact re-check (:meth:`~dpaudit.verify.Proof.refute`). A cross-check that finds
nothing adds nothing towards PROVED.

Examples
--------
>>> import numpy as np
>>> from dpaudit.verify import Proof
>>> proof = Proof("example/cross")
>>> x = proof.rng.uniform(0, 1, 100)
>>> proof.numeric_le("x^2 <= x on [0, 1]", x**2, x, {"x": x})
True
>>> proof.result().verdict            # no proof step: sampling alone proves nothing
<Verdict.UNDECIDED: 'undecided'>
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import sympy as sp
from hypothesis import HealthCheck, Verbosity, given, settings
from hypothesis import strategies as st

from dpaudit.errors import CheckFailed
from dpaudit.verify._record import Step, _Record, has_float
from dpaudit.verify.decide import plain
from dpaudit.verify.verdict import Verdict

__all__ = ["NUMERIC_RTOL", "CrossChecks", "Violation", "finite_floats", "st", "vectors"]

#: Relative tolerance of floating-point cross-checks: 2**12 units in the last place of the larger
#: side, which covers the rounding of the few hundred float operations a cross-check performs.
#: A violation larger than this is a counterexample; a smaller one is reported as rounding.
NUMERIC_RTOL: float = 4096 * float(np.finfo(float).eps)


class Violation(CheckFailed):
    """Raised by a property test when the property fails; carries the offending values."""

    def __init__(self, message: str, **values: Any) -> None:
        super().__init__(message)
        self.values = values


def finite_floats(lo: float = -1e3, hi: float = 1e3) -> st.SearchStrategy[float]:
    """Hypothesis floats in ``[lo, hi]`` without NaN/inf (the range keeps products finite)."""
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


def vectors(dim: int, lo: float = -1e3, hi: float = 1e3) -> st.SearchStrategy[list[float]]:
    """Hypothesis lists of ``dim`` finite floats."""
    return st.lists(finite_floats(lo, hi), min_size=dim, max_size=dim)


def _item(values: np.ndarray, i: int) -> Any:
    return plain(values[0] if values.size == 1 else values[i])


class CrossChecks(_Record):
    """The cross-check half of :class:`~dpaudit.verify.Proof`."""

    def numeric_le(self, label: str, lhs: Any, rhs: Any, points: Mapping[str, Any], atol: Any = 0.0) -> bool:
        """Cross-check ``lhs <= rhs`` elementwise at seeded random points.

        ``points`` maps parameter names to arrays aligned with ``lhs``/``rhs``; the worst
        violation beyond :data:`NUMERIC_RTOL` (relative to the larger side) plus ``atol`` (the
        rounding error bound of an ill-conditioned evaluation, stated where it is used) is the
        counterexample. Returns whether no violation was found.
        """
        lhs_a = np.asarray(lhs, dtype=float)
        rhs_a = np.broadcast_to(np.asarray(rhs, dtype=float), lhs_a.shape)
        scale = np.maximum(np.maximum(np.abs(lhs_a), np.abs(rhs_a)), np.finfo(float).tiny)
        slack = np.asarray(atol, dtype=float)
        with np.errstate(invalid="ignore"):
            excess = (lhs_a - rhs_a - slack) / scale
            satisfied = lhs_a - slack <= rhs_a  # also right for infinite sides (e.g. a log-probability of -inf)
        excess = np.where(satisfied, np.minimum(np.nan_to_num(excess, nan=-1.0), 0.0), excess)
        return self._cross(label, excess, points, "lhs <= rhs", lhs_a, rhs_a)

    def numeric_eq(self, label: str, lhs: Any, rhs: Any, points: Mapping[str, Any]) -> bool:
        """Cross-check ``lhs == rhs`` elementwise (relative error within :data:`NUMERIC_RTOL`)."""
        lhs_a = np.asarray(lhs, dtype=float)
        rhs_a = np.broadcast_to(np.asarray(rhs, dtype=float), lhs_a.shape)
        scale = np.maximum(np.maximum(np.abs(lhs_a), np.abs(rhs_a)), np.finfo(float).tiny)
        excess = np.abs(lhs_a - rhs_a) / scale
        return self._cross(label, excess, points, "lhs == rhs", lhs_a, rhs_a)

    def _cross(self, label: str, excess: np.ndarray, points: Mapping[str, Any], what: str,
               lhs: np.ndarray, rhs: np.ndarray) -> bool:
        excess = np.atleast_1d(excess)
        n = int(excess.size)
        bad = np.flatnonzero(~(excess <= NUMERIC_RTOL))  # NaN counts as a violation
        finite = excess[np.isfinite(excess)]
        worst = float(finite.max()) if finite.size else float("nan")
        if bad.size:
            i = int(bad[np.argmax(np.nan_to_num(excess.ravel()[bad], nan=np.inf))])
            point = {k: _item(np.atleast_1d(np.asarray(v)).ravel(), i) for k, v in points.items()}
            point.update(lhs=float(lhs.ravel()[i]), rhs=float(rhs.ravel()[i]))
            # floats are already rounded: a violation here is evidence for the record, never a counterexample
            self._add(Step("cross", "numeric", label, Verdict.UNDECIDED, n,
                           f"{bad.size} violation(s) of {what} in floating point, not re-checked exactly "
                           f"(evidence only), worst at {point}"))
            return False
        self._add(Step("cross", "numeric", label, Verdict.PROVED, n, f"max relative excess {worst:.2e}"))
        return True

    def numeric_count(self, label: str, cases: int, violations: int, counterexample: Mapping[str, Any] | None = None,
                      note: str = "") -> bool:
        """Cross-check whose caller already counted its cases and violations; returns whether there was none.

        E.g. an enumeration of finitely many instances standing in for "for all".
        """
        if violations:
            self._refute_or_note(label, "numeric", cases, dict(counterexample or {}), note or f"{violations} violation(s)")
            return False
        self._add(Step("cross", "numeric", label, Verdict.PROVED, cases, note))
        return True

    def _refute_or_note(self, label: str, method: str, cases: int, point: Mapping[str, Any] | Callable[[], Mapping[str, Any]],
                        note: str, exact: bool = True) -> None:
        """A failing instance is a counterexample only when its truth and its point are exact (no float in it)."""
        shown = dict(point() if callable(point) else point)
        if exact and not has_float(shown):
            self._record_counterexample(f"{'instance' if method == 'exact' else method}: {label}", shown)
            self._add(Step("cross", method, label, Verdict.DISPROVED, cases, note))
        else:
            self._add(Step("cross", method, label, Verdict.UNDECIDED, cases,
                           f"{note}; in floating point, not re-checked exactly (evidence only) at {shown}"))

    def rechecked_pair(self, label: str, point: Mapping[str, Any], *, cases: int, note: str) -> None:
        """Record a violation by a Python callable, its floats compared in exact rational arithmetic.

        See :func:`dpaudit.verify.search.exceeds`: the floats are the callable's exact values, not
        roundings of the quantity, so the pair is a counterexample about the callable as written.
        """
        self._record_counterexample(f"instance: {label}", point)
        self._add(Step("cross", "exact", label, Verdict.DISPROVED, cases, note))

    def instance(self, label: str, holds: bool, *, point: Mapping[str, Any] | Callable[[], Mapping[str, Any]],
                 cases: int = 1, note: str = "") -> bool:
        """Cross-check of finitely many instances of the statement (exact or not): it can only refute.

        Parameters
        ----------
        holds : bool
            Whether the statement holds on every instance checked.
        point : mapping or callable
            The failing instance (called only when ``holds`` is False).
        """
        exact = isinstance(holds, (bool, sp.logic.boolalg.BooleanAtom))  # a numpy bool comes from float comparisons
        if not bool(holds):
            self._refute_or_note(label, "exact", cases, point, note or "the statement fails here", exact=exact)
            return False
        self._add(Step("cross", "exact", label, Verdict.PROVED, cases, note))
        return True

    def hypothesis(self, label: str, test: Callable[..., None], *strategies: st.SearchStrategy[Any],
                   max_examples: int = 200) -> bool:
        """Run the property ``test`` as a derandomised hypothesis test with ``max_examples``.

        ``test`` raises :class:`Violation` when the property fails. Every call (generation and
        shrinking) is counted as a case; the run is deterministic, so the runner and pytest see
        the same examples. Returns whether no violation was found.
        """
        calls = 0

        def body(args: tuple[Any, ...]) -> None:
            nonlocal calls
            calls += 1
            test(*args)

        wrapped = settings(max_examples=max_examples, derandomize=True, database=None, deadline=None,
                           verbosity=Verbosity.quiet, print_blob=False,
                           suppress_health_check=list(HealthCheck))(given(st.tuples(*strategies))(body))
        try:
            wrapped()
        except Violation as exc:
            self._refute_or_note(f"{label}: {exc}", "hypothesis", calls, exc.values, str(exc))
            return False
        self._add(Step("cross", "hypothesis", label, Verdict.PROVED, calls, f"max_examples={max_examples}"))
        return True
