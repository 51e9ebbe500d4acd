"""Three-valued deciders: the sign or zero-ness of an expression, and the exact sign of a number.

Every decider answers PROVED, DISPROVED or UNDECIDED (or True / False / None) and every answer comes from
the trusted kernel (:mod:`dpaudit.verify.kernel`): Z3, certified interval arithmetic, exact rationals.
sympy rewrites expressions; it never decides a sign.

Examples
--------
>>> import sympy as sp
>>> from dpaudit.verify import decide_nonneg, decide_zero, exact_sign
>>> x = sp.Symbol("x", real=True)
>>> decide_nonneg(x**2), decide_nonneg(-x**2 - 1), decide_nonneg(x)   # x >= 0 fails at x = -1
(<Verdict.PROVED: 'proved'>, <Verdict.DISPROVED: 'disproved'>, <Verdict.DISPROVED: 'disproved'>)
>>> decide_zero((x + 1)**2 - x**2 - 2*x - 1)
<Verdict.PROVED: 'proved'>
>>> exact_sign(sp.E - 3), exact_sign(sp.pi - 3)
(-1, 1)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from dpaudit._validation import argument_error
from dpaudit.errors import ArgumentTypeError, InvalidArgument
from dpaudit.verify.kernel import Decision, decide, number_sign
from dpaudit.verify.kernel.core import (
    MAX_DEGREE,
    _assumption_text,
    degree,
    satisfiable,
    vacuity_text,
)
from dpaudit.verify.kernel.translate import UnsupportedFormula
from dpaudit.verify.verdict import Verdict

__all__ = ["decide_nonneg", "decide_positive", "decide_zero", "decision", "exact_floats", "exact_negative", "exact_sign", "plain",
           "vacuity"]


_BRANCHING = (sp.Piecewise, sp.Max, sp.Min, sp.Abs, sp.sign, sp.floor, sp.ceiling, sp.Heaviside)


def _rewrites(expr: sp.Expr) -> Iterable[sp.Expr]:
    """Forms equal to ``expr`` (sympy rewrites), cheap ones first.

    The kernel decides each, and re-checks any counterexample on ``expr`` itself.
    """
    yield sp.expand(expr)
    yield sp.factor(expr)
    yield sp.together(expr)
    yield sp.expand(sp.expand_log(expr))
    if not expr.has(*_BRANCHING) and sp.count_ops(expr) <= 60:  # Z3 reads branches itself; simplify is slow on them
        yield sp.simplify(expr)


def _forms(expr: sp.Expr, build: Any) -> tuple[Any, ...]:
    out: list[Any] = []
    for form in _rewrites(expr):
        if form != expr and not any(form == seen for seen in out):
            out.append(form)
    return tuple(build(f) for f in out)


def refuse_same_names(owner: str, parameter: str, *exprs: Any) -> None:
    """Raise :class:`InvalidArgument` when two different symbols among ``exprs`` share a name.

    ``Symbol("x", positive=True)`` and ``Symbol("x", real=True)`` are two variables to sympy and the kernel but print
    alike, so a verdict on them ("DISPROVED x <= x") reads as nonsense; :func:`~dpaudit.verify.lipschitz` refuses
    them too. A ``Dummy`` (a slack variable, a renamed point) is never equal to another symbol and is not checked.
    """
    symbols: set[sp.Symbol] = set()
    for e in exprs:
        symbols |= {s for s in getattr(sp.sympify(e), "free_symbols", ()) if not isinstance(s, sp.Dummy)}
    by_name: dict[str, sp.Symbol] = {}
    for s in sorted(symbols, key=sp.default_sort_key):
        other = by_name.setdefault(s.name, s)
        if other != s:
            raise argument_error(owner, parameter, "sympy expressions whose symbols have distinct names (two different "
                                 f"symbols are named {s.name!r}: {_declared(other)} and {_declared(s)})", s.name,
                                 "declare the symbol once and use it everywhere, or rename one of them")


def _declared(s: sp.Symbol) -> str:
    """How ``s`` was declared: ``Symbol('x', positive=True)``."""
    declared = getattr(s, "_assumptions_orig", None)
    if declared is None:  # an older sympy: the kernel's reading of its assumptions
        return f"Symbol({s.name!r}) ({'; '.join(_assumption_text(s)) or 'real'})"
    return f"Symbol({s.name!r}" + "".join(f", {k}={v}" for k, v in sorted(declared.items())) + ")"


def decision(expr: Any, kind: str = ">=", hypotheses: Sequence[Any] = ()) -> Decision:
    """The kernel's :class:`~dpaudit.verify.kernel.Decision` on ``expr >= 0`` under ``hypotheses``.

    ``kind=">"`` decides ``> 0`` and ``"=="`` ``== 0``; the symbols' assumptions hold too. sympy's
    rewrites of ``expr`` are tried for a proof when the expression itself is not decided.

    The answer of :func:`decide_nonneg` (:func:`decide_positive`, :func:`decide_zero`) with its evidence: the claim
    with the domain it covers, every hypothesis (a symbol declared without assumptions is ``read as real``), the
    exact counterexample of a DISPROVED.

    Examples
    --------
    >>> import sympy as sp
    >>> d = decision(sp.Symbol("z") ** 2)
    >>> print(d)
    PROVED: z**2 >= 0 for all real z [hypotheses: z read as real]
    """
    if kind not in (">=", ">", "=="):
        raise InvalidArgument(f"decision: kind must be '>=', '>' or '==', got {kind!r} (pass the hypotheses as hypotheses=)")
    refuse_same_names("decision", "expr", expr, *hypotheses)
    expr, floats = exact_floats(expr)
    converted = [exact_floats(h) for h in hypotheses]
    hypotheses = [h for h, _ in converted]
    floats += [n for _, ns in converted for n in ns]
    if floats:  # a float is its exact binary value (see exact_floats); the reading is part of the answer
        d = decision(expr, kind, hypotheses)
        return dataclasses.replace(d, note="; ".join([*floats, d.note]), hypotheses=(*d.hypotheses, *floats))
    build = {">=": lambda e: sp.Ge(e, 0, evaluate=False), ">": lambda e: sp.Gt(e, 0, evaluate=False),
             "==": lambda e: sp.Eq(e, 0, evaluate=False)}[kind]
    if not expr.free_symbols and not hypotheses:
        sign = number_sign(expr)
        if sign is None:
            return Decision(Verdict.UNDECIDED, "interval", f"the sign of the number {expr} is not certified by arb balls",
                            claim=str(build(expr)))
        holds = {">=": sign >= 0, ">": sign > 0, "==": sign == 0}[kind]
        return Decision(Verdict.PROVED if holds else Verdict.DISPROVED, "interval", f"sign {sign} certified",
                        None if holds else {}, claim=str(build(expr)))
    first = decide(build(expr), hypotheses)
    if first.verdict is not Verdict.UNDECIDED or first.note.startswith("time limit"):
        return first  # out of time: sympy's rewrites would only spend more
    if not _rewritable(expr):
        return dataclasses.replace(first, note=f"{first.note}; {_NOT_REWRITTEN}")
    return decide(build(expr), hypotheses, rewrites=_forms(expr, build))


_NOT_REWRITTEN = (f"sympy's rewrites not tried: the polynomial degree is above {MAX_DEGREE} (factor and simplify read "
                  "t**(p/q) as a polynomial in t**(1/q), and would build it densely, in memory and without a time limit)")


def _rewritable(expr: sp.Expr) -> bool:
    """May sympy rewrite ``expr``? Not above :data:`~dpaudit.verify.kernel.core.MAX_DEGREE` (its degree bound).

    ``sp.factor(t**(10000001/10000000) - t)`` builds a dense polynomial of degree 10**7 in ``t**(1/10**7)``
    (a MemoryError, or hours), and ``t**4096 - t`` factors a degree-4095 polynomial: neither can be
    interrupted. Such a goal gets the kernel's own (time-limited) decision only. A high power that only sits under a
    log (``log(2**1800/beta**1800)``, which sympy's simplify writes for ``1800 log(2/beta)``) is cheap to rewrite: the
    degree is also gauged after ``expand_log`` (a gauge only: the rewrites are of ``expr`` itself).
    """
    return degree(expr) <= MAX_DEGREE or degree(sp.expand_log(expr, force=True)) <= MAX_DEGREE


def vacuity(hypotheses: Sequence[Any]) -> str:
    """What a PROVED on ``hypotheses`` must say about them: ``""`` when they are shown to have a common solution.

    ``"vacuous: the hypotheses ... have no common solution"`` when the kernel shows they have none
    (:func:`~dpaudit.verify.kernel.satisfiable`: the statement then holds and says nothing), ``"hypotheses not shown
    satisfiable: ..."`` when that is undecided. A float is read at its exact value (:func:`exact_floats`).

    Examples
    --------
    >>> import sympy as sp
    >>> z = sp.Symbol("z", positive=True)
    >>> vacuity([z > 2, z < 1])
    'vacuous: the hypotheses z > 2; z < 1 (with z > 0) have no common solution'
    >>> vacuity([z > 2, z < 3])
    ''
    """
    relations = [exact_floats(h)[0] for h in hypotheses if not (h is True or h is sp.true)]
    relations = [h for h in relations if not (h is True or h is sp.true)]
    if not relations:
        return ""
    try:
        answer = satisfiable(relations)
    except UnsupportedFormula:
        answer = None
    return vacuity_text(relations, answer)


#: The most decimal digits a constant's numerator or denominator may have: Python refuses to print integers of more
#: than ``sys.get_int_max_str_digits()`` (4,300) digits, and Z3 and sympy's printer both go through that conversion.
MAX_DIGITS = 4000
_MAX_BITS = int(MAX_DIGITS * 3.3219280948873626)  # log2(10): bits below MAX_DIGITS digits


def refuse_huge_constants(what: str, expr: Any) -> None:
    """Refuse an exact constant with more than :data:`MAX_DIGITS` digits, before anything tries to print it.

    Raises
    ------
    InvalidArgument
        If a rational constant of ``expr`` has a numerator or denominator of more than :data:`MAX_DIGITS` digits.
    """
    if not isinstance(expr, sp.Basic):
        return
    sizes = [max(abs(int(q.p)).bit_length(), int(q.q).bit_length()) for q in expr.atoms(sp.Rational)]
    # an unevaluated power of a number (Pow(3, 10000, evaluate=False)) becomes a huge integer once anything evaluates it
    sizes += [abs(int(p.exp)) * max(abs(int(p.base.p)).bit_length(), int(p.base.q).bit_length())
              for p in expr.atoms(sp.Pow) if isinstance(p.base, sp.Rational) and isinstance(p.exp, sp.Integer)]
    for bits in sizes:
        if bits > _MAX_BITS:
            raise InvalidArgument(f"{what} holds a constant of about {int(bits / 3.3219280948873626)} digits: constants "
                                  f"of more than {MAX_DIGITS} digits are refused (Python will not print integers of "
                                  "more than 4,300 digits, and the kernel's translation and its printed claims do)")


_INFINITIES = (sp.oo, sp.S.NegativeInfinity)


def _bare_infinity(expr: sp.Basic) -> bool:
    """Does ``expr`` hold ``oo`` or ``-oo`` as a value (not as a Sum's limit or inside a Piecewise)?

    ``zoo`` and ``nan`` (``1/0``, a Piecewise's undefined branch: what a case split meets where the statement is
    not defined) are left to the kernel, which never signs them (UNDECIDED).
    """
    if expr in _INFINITIES:
        return True
    if isinstance(expr, (sp.Piecewise, sp.Sum, sp.Product, sp.Integral)):
        return False  # outside the kernel's language: left to it (UNDECIDED), not collapsed arithmetic
    return any(_bare_infinity(a) for a in expr.args)


def exact_floats(expr: Any) -> tuple[Any, list[str]]:
    """``expr`` with every float replaced by the exact rational it stands for, and one note per float.

    dpaudit's rule for floats in statements: a float is read at its **exact binary value**
    (``sympy.Rational(float)``; ``0.1`` is 3602879701896397/36028797018963968, slightly above 1/10), never at
    a nearby decimal, and the reading is printed with the verdict. So a verdict is about the number the float
    actually is; write ``sympy.Rational(1, 10)`` for one tenth.

    Examples
    --------
    >>> import sympy as sp
    >>> e, notes = exact_floats(sp.Float(0.5) * sp.Symbol("x"))
    >>> e, notes
    (x/2, ['the float 0.500000000000000 is read as its exact value 1/2'])

    Raises
    ------
    InvalidArgument
        If ``expr`` holds an infinity (``oo``, ``-oo``, ``float('inf')``): the kernel decides statements about real
        numbers, and sympy has already collapsed ``inf - 1`` (or ``x + oo``) to ``oo``, so a verdict would be about
        another statement than the one written (``zoo`` and ``nan`` are never signed: UNDECIDED).
    """
    if isinstance(expr, (Decimal, Fraction)):  # exact types: sympify would round a Decimal to a binary Float
        if isinstance(expr, Decimal) and not expr.is_finite():
            raise InvalidArgument(f"{expr} is not a finite number: dpaudit decides statements about real numbers")
        expr = sp.Rational(*expr.as_integer_ratio())
    expr = sp.sympify(expr)
    refuse_huge_constants("the statement", expr)
    if isinstance(expr, sp.Basic) and _bare_infinity(expr):
        raise InvalidArgument(f"{expr} holds an infinity: dpaudit decides statements about real numbers (sympy "
                              "collapses inf - 1 and x + oo to oo before the kernel sees them); write a finite statement")
    floats = sorted(expr.atoms(sp.Float), key=lambda f: sp.Rational(f))
    subs = {f: sp.Rational(f) for f in floats}
    notes = [f"the float {f} is read as its exact value {q}" for f, q in subs.items()]
    return (expr.xreplace(subs) if subs else expr), notes


def decide_nonneg(expr: Any, hypotheses: Sequence[Any] = ()) -> Verdict:
    """Is ``expr >= 0`` for every value allowed by its symbols' assumptions (and ``hypotheses``)?

    The kernel decides over the real numbers: a symbol declared without assumptions (``Symbol("z")``, which
    sympy allows to be complex) is read as real, as in :func:`~dpaudit.verify.lipschitz`; a symbol declared
    complex, imaginary or extended-real is refused with :class:`~dpaudit.errors.InvalidArgument`. The bare
    :class:`Verdict` returned here cannot carry that premise: :func:`decision` returns the same answer with its
    claim (``z**2 >= 0 for all real z``) and its hypotheses (``z read as real``, the symbols' assumptions,
    ``hypotheses``), and every :class:`~dpaudit.verify.Proof` step prints them with its verdict.

    Decided by the trusted kernel (:mod:`dpaudit.verify.kernel`): PROVED from Z3 or certified interval
    arithmetic, DISPROVED only with a counterexample re-checked exactly, UNDECIDED otherwise. sympy only
    supplies equal forms of ``expr`` (expand, factor, together, expand_log, simplify).

    Parameters
    ----------
    expr : sympy expression or number
        The residual, e.g. ``rhs - lhs`` of a claimed ``lhs <= rhs``.

    Returns
    -------
    Verdict
    """
    return decision(expr, ">=", hypotheses).verdict


def decide_positive(expr: Any, hypotheses: Sequence[Any] = ()) -> Verdict:
    """Is ``expr > 0`` for every value allowed by its symbols' assumptions (as :func:`decide_nonneg`, strictly)?

    Examples
    --------
    >>> import sympy as sp
    >>> e = sp.Symbol("e", positive=True)
    >>> decide_positive(1 + e), decide_positive((1 - 2 * e) ** 2)
    (<Verdict.PROVED: 'proved'>, <Verdict.DISPROVED: 'disproved'>)
    """
    return decision(expr, ">", hypotheses).verdict


def decide_zero(expr: Any, hypotheses: Sequence[Any] = ()) -> Verdict:
    """Is ``expr`` identically zero? Decided by the kernel (an identity ``lhs - rhs``).

    A rewrite of ``expr`` to the literal 0 by sympy's expand or simplify also proves it, once the
    kernel has proved ``expr`` defined at every point, as written (``(x**2 - 1)/(x - 1) - (x + 1)``
    is not: sympy's rewriting is trusted only where the expression is defined, its signs never).

    As for :func:`decide_nonneg`, the symbols range over the reals (a symbol without assumptions is read as real).

    Parameters
    ----------
    expr : sympy expression or number
        The residual ``lhs - rhs`` of a claimed identity.

    Returns
    -------
    Verdict
    """
    expr, _ = exact_floats(expr)
    hypotheses = [exact_floats(h)[0] for h in hypotheses]
    if expr.free_symbols and _rewritable(expr):
        for form in (sp.expand(expr), sp.simplify(expr)):
            if form == 0:  # the kernel still proves that expr is defined everywhere, as written
                return decide(sp.Eq(expr, 0, evaluate=False), hypotheses,
                              rewrites=(sp.Eq(form, 0, evaluate=False),)).verdict
    return decision(expr, "==", hypotheses).verdict


def exact_sign(value: Any) -> int | None:
    """Sign (-1, 0 or 1) of a closed-form number (rationals, exp, log, sqrt, erf, ...), decided rigorously.

    Decided by the kernel (:func:`dpaudit.verify.kernel.number_sign`): exactly for rationals, otherwise by an
    arb ball at 200 bits or more that excludes 0. Floats are refused: a float is already rounded, so its sign
    says nothing exact about the quantity it approximates.

    Parameters
    ----------
    value : sympy number or int / Fraction
        A closed form without free symbols; ``-oo`` counts as negative (a bound violated in the limit).

    Returns
    -------
    int or None
        None when the sign cannot be decided.

    Raises
    ------
    TypeError
        If ``value`` is a float or contains a float, or has free symbols.
    """
    if isinstance(value, (float, np.floating)):
        raise ArgumentTypeError(f"exact_sign needs an exact number, got the float {value!r}; use sympy.Rational or a closed form")
    value = sp.sympify(value)
    if value.free_symbols:
        raise ArgumentTypeError(f"exact_sign needs a number, got an expression in {sorted(map(str, value.free_symbols))}")
    if value.has(sp.Float):
        raise ArgumentTypeError(f"exact_sign needs an exact number, got {value} which contains a float; use sympy.Rational")
    return number_sign(value)


def exact_negative(value: Any) -> bool | None:
    """Is the closed-form number ``value`` negative? ``None`` when undecided (see :func:`exact_sign`)."""
    sign = exact_sign(value)
    return None if sign is None else sign < 0


def approx(value: Any) -> float | str:
    """A closed-form number as a float for display; no decision is taken on it.

    The centre of an arb ball at 120 bits; the text if it has none.
    """
    from flint import ctx

    from dpaudit.verify.kernel import value as kernel_value

    old = ctx.prec
    ctx.prec = 120
    try:
        v = kernel_value(sp.sympify(value), {})
    finally:
        ctx.prec = old
    if v is None:
        return str(value)
    try:
        return float(v) if not hasattr(v, "mid") else float(v.mid())
    except (OverflowError, ValueError):
        return str(value)


def plain(value: Any) -> Any:
    """A JSON-friendly, exact version of ``value`` for counterexample records.

    A sympy number is its exact text (``"1/3"``, ``"sqrt(2)/2"``; ``sympy.sympify`` reads it back), never a float
    approximation of it (floats go under the record's ``"approx"`` key, labelled, see
    :func:`dpaudit.verify.verdict.counterexample_text`).
    """
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, sp.Basic):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value
