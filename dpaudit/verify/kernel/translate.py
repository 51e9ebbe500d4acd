"""Exact translation of a sympy formula into Z3 real arithmetic (part of the trusted kernel).

Rationals stay rationals; ``Max``, ``Min``, ``Abs``, ``sign``, ``Heaviside`` and ``Piecewise`` become
if-then-else; ``e**(p/q)`` is an auxiliary ``t >= 0`` with ``t**q = e`` (and ``e >= 0`` required);
``floor``/``ceiling`` an integer ``k`` with ``k <= e < k + 1``. A transcendental function value
(``exp``, ``log``, ``tanh``, ``atan``, ``sin``, ``cos``, ``erf``, a constant such as ``pi``) becomes
a fresh real constrained by *true* facts about it (its range, sign, classical bounds such as
``exp(u) >= 1 + u`` and ``log(u) <= u - 1``, monotonicity between two values of the same function,
and certified enclosures of constants): an over-approximation, so ``unsat`` still proves the formula
for the real functions, while a model is only a candidate to re-check. Only the functions of :data:`DOMAINS`
are translated, each with the condition under which its value is a real number (``acosh(u)`` needs ``u >= 1``,
``tan(u)`` needs ``cos(u) != 0``); any other function is refused (:class:`UnsupportedFormula`), except a
user's undefined function ``g(x)`` (and its derivatives), which is an unconstrained real, assumed real and
defined everywhere (printed as an assumption).

Every partial operation records where it is defined (``d != 0`` under a division, ``e >= 0`` under an
even root, ``u > 0`` under a log, a ``Piecewise`` with no default): :attr:`Translation.defined`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy as sp
import z3
from sympy.core.function import AppliedUndef

from dpaudit.errors import DPAuditError

__all__ = ["DOMAINS", "MONOTONE", "Translation", "UnsupportedFormula", "check_real_symbol"]

#: Increasing functions: two values of one of them are ordered like their arguments.
MONOTONE = (sp.exp, sp.log, sp.tanh, sp.atan, sp.erf, sp.sinh, sp.asinh)

#: The functions the kernel translates, with where their value is a real number (None: everywhere). A function
#: not listed here is refused: sympy's functions are complex-valued off their real domain (acosh(0) = i pi / 2).
DOMAINS: dict[Any, Any] = {
    sp.exp: None, sp.sin: None, sp.cos: None, sp.tanh: None, sp.atan: None, sp.erf: None, sp.erfc: None,
    sp.sinh: None, sp.cosh: None, sp.asinh: None,
    sp.log: lambda t, u, arg: u > 0,
    sp.tan: lambda t, u, arg: t.term(sp.cos(arg)) != 0, sp.sec: lambda t, u, arg: t.term(sp.cos(arg)) != 0,
    sp.cot: lambda t, u, arg: t.term(sp.sin(arg)) != 0, sp.csc: lambda t, u, arg: t.term(sp.sin(arg)) != 0,
    sp.asin: lambda t, u, arg: z3.And(u >= -1, u <= 1), sp.acos: lambda t, u, arg: z3.And(u >= -1, u <= 1),
    sp.acosh: lambda t, u, arg: u >= 1, sp.atanh: lambda t, u, arg: z3.And(u > -1, u < 1),
}


def surely_positive(e: Any) -> bool:
    """A syntactic proof that ``e > 0``.

    ``e`` is a positive rational, a symbol declared positive, ``exp``/``pi``/``E``, or sums,
    products and real powers of such. A log of it, or a denominator, needs no definedness query to
    Z3 then (a quotient such as ``2**1800/beta**1800`` would otherwise be a polynomial of degree
    1800 for it).
    """
    if e.is_Rational:
        return bool(e > 0)
    if isinstance(e, sp.Symbol):
        return e.assumptions0.get("positive") is True
    if e in (sp.pi, sp.E) or isinstance(e, sp.exp):
        return True
    if isinstance(e, (sp.Add, sp.Mul)):
        return all(surely_positive(a) for a in e.args)
    if isinstance(e, sp.Pow):
        return surely_positive(e.args[0]) and e.args[1].is_Rational is True
    return False


def check_real_symbol(s: sp.Symbol) -> None:
    """Refuse a symbol that may be non-real or infinite (``imaginary``, ``complex``, ``extended_real``).

    The kernel decides statements over the real numbers. A symbol with no assumption at all is read
    as a real.
    """
    from dpaudit.errors import InvalidArgument

    if s.is_real is True:
        return
    if s.is_real is False or s.is_extended_real is True or s.is_complex is True or s.is_infinite is True:
        kinds = sorted(k for k, v in s.assumptions0.items() if v is True and k != "commutative")
        raise InvalidArgument(f"symbol {s.name!r}: the verification kernel decides statements over the real numbers, so "
                              f"a symbol must be real (declare it real=True, positive=True, ...); got the assumptions "
                              f"{kinds} (non-real, or allowing +-oo)")


#: The largest integer exponent, and numerator or denominator of a rational one, the translation expands into a polynomial.
MAX_EXPONENT = 4096


class UnsupportedFormula(DPAuditError):
    """The formula uses something the translation refuses (a Float, a complex unit, a non-real relation)."""


def _q(value: Fraction, ctx: z3.Context) -> z3.ArithRef:
    return z3.RealVal(f"{value.numerator}/{value.denominator}", ctx)


class Translation:
    """Translates formulas over one set of symbols; collects side conditions and definedness conditions."""

    def __init__(self, enclose: Any) -> None:
        self.ctx = z3.Context()  # a fresh context per decision: no state shared between decisions (determinism)
        self.enclose = enclose  # closed-form constant -> (Fraction lo, Fraction hi) or None
        self.vars: dict[sp.Symbol, z3.ArithRef] = {}   # the Z3 constant of each symbol (Int for an integer symbol)
        self._reals: dict[sp.Symbol, z3.ArithRef] = {}  # its real-sorted term (ToReal of an Int)
        self.side: list[z3.BoolRef] = []      # true facts about auxiliary variables
        self.defined: list[z3.BoolRef] = []   # where the formulas are defined
        self.assumptions: list[str] = []      # symbol assumptions, in words
        self.abstracted: list[sp.Expr] = []   # function values replaced by constrained reals
        self._atoms: dict[sp.Expr, z3.ArithRef] = {}
        self._by_func: dict[Any, list[tuple[z3.ArithRef, z3.ArithRef]]] = {}
        self._fresh = 0

    def num(self, n: int) -> z3.ArithRef:
        """The integer ``n`` as a Z3 real in this translation's context."""
        return z3.RealVal(n, self.ctx)

    def fresh(self, integer: bool = False) -> z3.ArithRef:
        """A new auxiliary Z3 variable (an integer when ``integer``), unconstrained until side conditions say more."""
        self._fresh += 1
        return (z3.Int if integer else z3.Real)(f"_aux{self._fresh}", self.ctx)

    # -- symbols -------------------------------------------------------------------------------
    def symbol(self, s: sp.Symbol) -> z3.ArithRef:
        """The real-sorted term of ``s``, created on first use.

        The symbol must be real; its sign assumption (positive, negative, ...) and integrality become
        side conditions and are recorded in words in ``assumptions``. An integer symbol is a Z3 ``Int`` (its
        model value is read off :attr:`vars`) used through ``ToReal``: Z3 divides two ``Int`` terms as
        integers (``1/m = 0`` for ``m >= 2``), so every term of a formula must be real-sorted.
        """
        if s in self._reals:
            return self._reals[s]
        check_real_symbol(s)
        name = f"{s.name}_{len(self.vars)}"
        v = z3.Int(name, self.ctx) if s.is_integer else z3.Real(name, self.ctx)
        self.vars[s] = v
        self._reals[s] = z3.ToReal(v) if s.is_integer else v
        facts = [("positive", v > 0, "> 0"), ("negative", v < 0, "< 0"), ("nonnegative", v >= 0, ">= 0"),
                 ("nonpositive", v <= 0, "<= 0"), ("nonzero", v != 0, "!= 0")]
        for attr, cond, text in facts:
            if s.assumptions0.get(attr) is True:
                self.side.append(cond)
                self.assumptions.append(f"{s} {text}")
                break
        if s.is_integer:
            self.assumptions.append(f"{s} integer")
        if s.is_real is None:  # sympy reads a plain Symbol("z") as possibly complex: deciding over the reals is a premise
            self.assumptions.append(f"{s} read as real")
        return self._reals[s]

    # -- terms ---------------------------------------------------------------------------------
    def term(self, e: Any) -> z3.ArithRef:
        """The exact Z3 term of a real sympy expression.

        Rationals, symbols, sums, products and integer powers translate exactly; other functions are
        abstracted as constrained reals (recorded in ``abstracted``).

        Raises
        ------
        UnsupportedFormula
            On a float, an infinity, a complex value or anything else that is not an exact real term.
        """
        e = sp.sympify(e)
        if isinstance(e, sp.Float):
            raise UnsupportedFormula(f"the float {e} is not exact; convert it to a Rational first")
        if e.is_Rational:
            return _q(Fraction(int(e.p), int(e.q)), self.ctx)
        if isinstance(e, sp.Symbol):
            return self.symbol(e)
        if e in (sp.oo, -sp.oo, sp.zoo, sp.nan) or e.has(sp.I):
            raise UnsupportedFormula(f"{e} is not a real number")
        if isinstance(e, sp.Add):
            return z3.Sum([self.term(a) for a in e.args])
        if isinstance(e, sp.Mul):
            out = self.term(e.args[0])
            for a in e.args[1:]:
                out = out * self.term(a)
            return out
        if isinstance(e, sp.Pow):
            return self._pow(e)
        if isinstance(e, (sp.Max, sp.Min)):
            args = [self.term(a) for a in e.args]
            out = args[0]
            for a in args[1:]:
                out = z3.If(a >= out, a, out) if isinstance(e, sp.Max) else z3.If(a <= out, a, out)
            return out
        if isinstance(e, sp.Abs):
            a = self.term(e.args[0])
            return z3.If(a >= 0, a, -a)
        if isinstance(e, sp.sign):
            a = self.term(e.args[0])
            return z3.If(a > 0, self.num(1), z3.If(a < 0, self.num(-1), self.num(0)))
        if isinstance(e, sp.Heaviside):
            a = self.term(e.args[0])
            at0 = self.term(e.args[1]) if len(e.args) > 1 else _q(Fraction(1, 2), self.ctx)
            return z3.If(a > 0, self.num(1), z3.If(a < 0, self.num(0), at0))
        if isinstance(e, sp.Piecewise):
            return self._piecewise(e)
        if isinstance(e, (sp.floor, sp.ceiling)):
            a = self.term(e.args[0])
            k = self.fresh(integer=True)
            kr = z3.ToReal(k)
            self.side.append(z3.And(kr <= a, a < kr + 1) if isinstance(e, sp.floor) else z3.And(kr - 1 < a, a <= kr))
            return kr
        return self._abstract(e)

    def _pow(self, e: sp.Pow) -> z3.ArithRef:
        base, exp = e.args
        if exp.is_Integer:
            n = int(exp)
            if abs(n) > MAX_EXPONENT:  # a product of |n| factors: t**(10**7) exhausts Z3's memory while it is built
                raise UnsupportedFormula(f"the exponent {exp} of {e} is above {MAX_EXPONENT}")
            b = self.term(base)
            if n == 0:
                return self.num(1)
            out = b
            for _ in range(abs(n) - 1):
                out = out * b
            if n < 0:
                if not surely_positive(base):  # a base proved positive syntactically needs no definedness query
                    self.defined.append(b != 0)
                return self._reciprocal(out)
            return out
        if exp.is_Rational and not e.free_symbols:
            return self._abstract(e)  # a closed-form constant such as sqrt(2): enclosed below
        if exp.is_Rational:
            p, q = int(exp.p), int(exp.q)
            if max(abs(p), q) > MAX_EXPONENT:  # t**q == base would be a polynomial Z3 cannot build, let alone decide
                raise UnsupportedFormula(f"the exponent {exp} of {e} has a numerator or denominator above {MAX_EXPONENT}")
            b = self.term(base)
            t = self.fresh()
            power = t
            for _ in range(q - 1):
                power = power * t
            self.side.append(z3.Implies(b >= 0, z3.And(t >= 0, power == b)))
            if not surely_positive(base):
                self.defined.append(b >= 0 if p > 0 else b > 0)
            return self.term_power(t, p)
        # b**e = exp(e log b) for b > 0: the facts about exp and log apply (e.g. 2**n >= 1 for n >= 0)
        log_b = sp.log(base, evaluate=False)
        return self._abstract(sp.exp(sp.Mul(exp, log_b, evaluate=False), evaluate=False))

    def term_power(self, t: z3.ArithRef, p: int) -> z3.ArithRef:
        """``t ** p`` for a non-zero integer ``p`` by repeated multiplication (``1 / t ** |p|`` when ``p < 0``)."""
        out = t
        for _ in range(abs(p) - 1):
            out = out * t
        return self._reciprocal(out) if p < 0 else out

    def _reciprocal(self, d: z3.ArithRef) -> z3.ArithRef:
        if not d.is_real():  # Z3 divides Int terms as integers (1/m = 0 for m >= 2): every division must be real
            raise UnsupportedFormula(f"an integer-sorted denominator reached Z3: {d}")
        return 1 / d

    def _piecewise(self, e: sp.Piecewise) -> z3.ArithRef:
        pieces = [(self.term(v), self.formula(c)) for v, c in e.args]
        self.defined.append(z3.Or(*[c for _, c in pieces]))
        out = pieces[-1][0]
        for value, cond in reversed(pieces[:-1]):
            out = z3.If(cond, value, out)
        return out

    # -- abstraction of function values ---------------------------------------------------------
    def _abstract(self, e: sp.Expr) -> z3.ArithRef:
        if e in self._atoms:
            return self._atoms[e]
        a = self.fresh()
        self._atoms[e] = a
        self.abstracted.append(e)
        if not e.free_symbols:
            bounds = self.enclose(e)
            if bounds is None:
                raise UnsupportedFormula(f"no certified enclosure of the constant {e}")
            self.side.append(z3.And(_q(bounds[0], self.ctx) <= a, a <= _q(bounds[1], self.ctx)))
            if e is sp.E:  # exp(1), ordered against the other values of exp
                self._monotone(sp.exp, self.num(1), a)
            elif isinstance(e, MONOTONE):
                self._monotone(e.func, self.term(e.args[0]), a)
            return a
        if isinstance(e, AppliedUndef) or (isinstance(e, sp.Derivative) and isinstance(e.expr, AppliedUndef)):
            self.assumptions.append(f"{e} real (an unspecified function, assumed real and defined everywhere)")
            return a
        if e.func not in DOMAINS or len(e.args) != 1:
            raise UnsupportedFormula(f"{e.func.__name__} is not on the kernel's list of functions with a known real "
                                     f"domain (in {e})")
        u = self.term(e.args[0])
        f = e.func
        if DOMAINS[f] is not None and not (f is sp.log and surely_positive(e.args[0])):
            self.defined.append(DOMAINS[f](self, u, e.args[0]))
        facts: list[z3.BoolRef] = []
        if f is sp.exp:
            facts = [a > 0, a >= 1 + u, z3.Implies(u < 1, a * (1 - u) <= 1)]
        elif f is sp.log:
            facts = [z3.Implies(u > 0, z3.And(a <= u - 1, a * u >= u - 1))]
        elif f in (sp.tanh, sp.erf, sp.atan):
            bound = self.term(sp.pi) / 2 if f is sp.atan else self.num(1)
            facts = [a > -bound, a < bound, z3.Implies(u > 0, a > 0), z3.Implies(u < 0, a < 0), z3.Implies(u == 0, a == 0)]
            if f is not sp.erf:  # |tanh u|, |atan u| <= |u|
                facts += [z3.Implies(u >= 0, a <= u), z3.Implies(u <= 0, a >= u)]
        elif f is sp.sin:
            facts = [a >= -1, a <= 1, z3.Implies(u >= 0, z3.And(-u <= a, a <= u)), z3.Implies(u <= 0, z3.And(u <= a, a <= -u))]
        elif f is sp.cos:
            facts = [a >= -1, a <= 1, a >= 1 - u * u / 2]
        elif f is sp.erfc:
            facts = [a > 0, a < 2]
        self.side.extend(facts)
        if isinstance(e, MONOTONE):
            self._monotone(f, u, a)
        return a

    def _monotone(self, func: Any, u: z3.ArithRef, a: z3.ArithRef) -> None:
        for v, b in self._by_func.get(func, []):
            self.side.append(z3.Implies(u <= v, a <= b))
            self.side.append(z3.Implies(v <= u, b <= a))
            self.side.append(z3.Implies(u < v, a < b))
            self.side.append(z3.Implies(v < u, b < a))
        self._by_func.setdefault(func, []).append((u, a))

    # -- formulas ------------------------------------------------------------------------------
    def formula(self, c: Any) -> z3.BoolRef:
        """The Z3 formula of a sympy relation or a boolean combination of relations (``And``, ``Or``, ``Not``, ``Implies``).

        Raises
        ------
        UnsupportedFormula
            When ``c`` is neither a boolean constant nor such a combination.
        """
        if c is True or c == sp.true:
            return z3.BoolVal(True, self.ctx)
        if c is False or c == sp.false:
            return z3.BoolVal(False, self.ctx)
        if isinstance(c, sp.And):
            return z3.And(*[self.formula(a) for a in c.args])
        if isinstance(c, sp.Or):
            return z3.Or(*[self.formula(a) for a in c.args])
        if isinstance(c, sp.Not):
            return z3.Not(self.formula(c.args[0]))
        if isinstance(c, sp.Implies):
            return z3.Implies(self.formula(c.args[0]), self.formula(c.args[1]))
        if isinstance(c, sp.core.relational.Relational):
            lhs, rhs = self.term(c.lhs), self.term(c.rhs)
            ops = {sp.Equality: lambda: lhs == rhs, sp.Unequality: lambda: lhs != rhs,
                   sp.LessThan: lambda: lhs <= rhs, sp.StrictLessThan: lambda: lhs < rhs,
                   sp.GreaterThan: lambda: lhs >= rhs, sp.StrictGreaterThan: lambda: lhs > rhs}
            for kind, build in ops.items():
                if isinstance(c, kind):
                    return build()
        raise UnsupportedFormula(f"{c!r} is not a relation between real expressions")
