"""Cross-checks: finite instances, seeded random points and property tests. They can only refute.

A failing instance records a counterexample (the check becomes DISPROVED) only when the kernel decided it: an
exact relation given to :meth:`CrossChecks.instance`, or a pair re-checked in exact arithmetic by
:meth:`CrossChecks.rechecked_pair`; its certified claim is that relation, not the label. A failure the kernel did
not decide is *evidence* only, printed in the details: a violation seen in floating point (:meth:`numeric_le`), a
count of violations (:meth:`numeric_count`), a truth value computed by the caller (``instance(label, False, ...)``)
or a property test's :class:`Violation`. A DISPROVED from them needs an exact re-check
(:meth:`~dpaudit.verify.Proof.refute`, :meth:`~dpaudit.verify.Proof.exact`). A cross-check that finds nothing adds
nothing towards PROVED.

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

from dpaudit.errors import ArgumentTypeError, CheckFailed, InvalidArgument
from dpaudit.verify._record import Step, _Record, has_float
from dpaudit.verify.decide import plain
from dpaudit.verify.proof_pairs import _kernel_truth, exact_violation
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

        E.g. an enumeration of finitely many instances standing in for "for all". The count is the caller's: nothing
        here re-checks it, so violations are *evidence* only (printed in the details, never a DISPROVED); a
        counterexample must go through :meth:`~dpaudit.verify.Proof.refute` or :meth:`~dpaudit.verify.Proof.exact`.
        """
        if violations:
            self._note_evidence(label, "numeric", cases, dict(counterexample or {}),
                                note or f"{violations} violation(s) counted by the caller")
            return False
        self._add(Step("cross", "numeric", label, Verdict.PROVED, cases, note))
        return True

    def _note_evidence(self, label: str, method: str, cases: int,
                       point: Mapping[str, Any] | Callable[[], Mapping[str, Any]], note: str) -> None:
        """A failure the kernel did not decide (a caller's count or truth value): evidence only, never a counterexample."""
        shown = dict(point() if callable(point) else point)
        self._add(Step("cross", method, label, Verdict.UNDECIDED, cases,
                       f"{note}; not re-checked exactly (evidence only) at {shown}"))

    def rechecked_pair(self, label: str, point: Mapping[str, Any], *, cases: int, note: str, constant: Any, norm: float,
                       image: tuple[str, str] = ("f(x)", "f(y)"), preimage: tuple[str, str] | None = ("x", "y")) -> bool:
        """Record a violation ``||a - b|| > constant ||u - v||`` by a pair, re-checked in exact arithmetic.

        ``a, b = point[image[0]], point[image[1]]`` and ``u, v = point[preimage[0]], point[preimage[1]]`` (numbers or
        sequences of numbers: floats are read as their exact binary values, strings as exact rationals); with
        ``preimage=None`` the right side is ``constant`` itself (a sensitivity bound). The norms are recomputed from
        these numbers and the kernel decides the strict inequality on exact rationals (the l2 norm on squares), so a
        pair is a counterexample about the numbers given (a callable's own float values, for
        :func:`dpaudit.verify.lipschitz`). The certified claim of the DISPROVED is the relation refuted,
        ``||a - b|| <= constant ||u - v||`` at these values; ``label`` stays a label. A pair that does not violate
        the relation when re-checked is evidence only (never a counterexample). Returns whether the violation
        re-checked.

        Parameters
        ----------
        constant : rational number (int, Fraction, sympy number, exact text)
            ``L`` of the Lipschitz claim, or the sensitivity bound; ``>= 0``.
        norm : float
            ``1``, ``2`` or ``inf``.
        """
        decided = exact_violation(f"rechecked_pair({label!r})", point, constant=constant, norm=norm, image=image,
                                  preimage=preimage)
        if decided is None:
            self._note_evidence(label, "exact", cases, point, f"{note}; the pair does not violate the relation when "
                                "re-checked in exact arithmetic")
            return False
        claim, exact_values = decided
        self._record_counterexample(f"instance: {label}", {**point, **exact_values}, claim)
        self._add(Step("cross", "exact", label, Verdict.DISPROVED, cases, note, claim=claim))
        return True

    def instance(self, label: str, holds: Any, *, point: Mapping[str, Any] | Callable[[], Mapping[str, Any]],
                 cases: int = 1, note: str = "") -> bool:
        """Cross-check of finitely many instances of the statement: it can only refute.

        Parameters
        ----------
        holds : sympy relation (or a sequence of them), or bool
            A relation between exact numbers (``sp.Eq(residual, 0, evaluate=False)``; ``And``/``Or``/``Not`` of
            such) is decided by the kernel, as in :meth:`~dpaudit.verify.Proof.exact`: when it fails, the
            instance is a counterexample (DISPROVED, its certified claim the relation). A truth value computed
            elsewhere (a Python, numpy or sympy bool) is the caller's word: ``False`` is *evidence* only, printed in
            the details, never a DISPROVED.
        point : mapping or callable
            The failing instance (called only when ``holds`` fails).

        Returns
        -------
        bool
            Whether every instance holds.
        """
        if isinstance(holds, (bool, np.bool_, sp.logic.boolalg.BooleanAtom)):
            if not bool(holds):
                self._note_evidence(label, "exact", cases, point, (note or "the statement fails here") +
                                    " (a truth value computed by the caller)")
                return False
            self._add(Step("cross", "exact", label, Verdict.PROVED, cases, note))
            return True

        relations = list(holds) if isinstance(holds, (list, tuple)) else [holds]
        owner = f"Proof.instance({label!r})"
        if not relations:
            raise InvalidArgument(f"{owner}: no relation to decide")
        claim = " and ".join(map(str, relations))
        if all(_kernel_truth(owner, r) for r in relations):
            self._add(Step("cross", "exact", label, Verdict.PROVED, cases, note, claim=claim))
            return True
        shown = dict(point() if callable(point) else point)
        if has_float(shown):
            raise ArgumentTypeError(f"{owner} failed at a point given with floats ({shown}): give the instance in "
                                    "exact numbers (rationals), so the counterexample printed is the one decided")
        self._record_counterexample(f"instance: {label}", shown, claim)
        self._add(Step("cross", "exact", label, Verdict.DISPROVED, cases, note or "the statement fails here", claim=claim))
        return False

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
        except Violation as exc:  # the property's own verdict, not the kernel's: evidence (see Proof.refute)
            self._note_evidence(f"{label}: {exc}", "hypothesis", calls, exc.values, str(exc))
            return False
        self._add(Step("cross", "hypothesis", label, Verdict.PROVED, calls, f"max_examples={max_examples}"))
        return True
