"""Leading-order rates of bounds (comparison: :mod:`.rate_comparison`; text: :mod:`.rate_format`).

A rate is represented as a *maximum of monomials*: a sum of positive terms is, up to a constant
factor, the maximum of its terms, so ``1/sqrt(nm) + sqrt(d)/(n sqrt(m) epsilon)`` has the rate
``max(n^-1/2 m^-1/2, d^1/2 n^-1 m^-1/2 epsilon^-1)``. Each monomial carries its exponents in the
rate variables (n, m, d, epsilon by default) and the powers of its logarithmic factors.

Regime
------
Each rate variable has a direction: ``+1`` for quantities that grow (n, m, d >= 1) and ``-1`` for
quantities that shrink (0 < epsilon <= 1). Every other symbol is a constant. A direction must be one the
variable can follow inside its declared domain (:func:`~dpaudit.bounds.rate_regime.regime_directions`):
a log-direction of the regime moves every rate variable to its end (to infinity, or to 0), and a variable
bounded on that side (the integer ``n >= 1`` cannot shrink to 0, ``delta < 1`` cannot grow) is refused
with an ``InvalidArgument`` naming it, its domain and the direction asked (the regime ``n <= 1`` would meet
the domain only at ``n = 1``).

A monomial *a* dominates *b* over this regime (``b <= C a`` for a constant C, at every point of the regime) iff
each exponent of *a* is at least that of *b* for growing variables and at most for shrinking ones.
When no single term dominates another, both are kept: :func:`leading_rate` returns the set of
*possibly dominant* monomials, and which one dominates depends on the regime.

Comparing two rates ``A = max_i a_i`` and ``B = max_j b_j`` over the regime
(:func:`~dpaudit.bounds.rate_comparison.compare_rates`) is exact: writing ``y_v = direction_v * log(v) >= 0``, ``a_i <= C max_j b_j``
for all y iff there is a convex combination lambda with ``alpha_i <= sum_j lambda_j beta_j``
componentwise (minimax theorem / LP duality). The LP is solved with scipy and its certificate is
re-verified in exact rational arithmetic; when it is infeasible, the LP's dual gives a direction
along which ``a_i / B`` grows without bound, i.e. *where* A is larger.

Log factors are kept separately. For statements with a tilde they are ignored
(``ignore_logs=True``); otherwise two monomials with equal polynomial exponents are compared by
their log powers, each log factor being treated as a quantity >= 1.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp

from dpaudit._validation import argument_error
from dpaudit.bounds.rate_format import format_rate
from dpaudit.bounds.rate_regime import regime_directions
from dpaudit.bounds.symbols import RATE_VARIABLES, SYMBOLS
from dpaudit.bounds.theorem import Bound
from dpaudit.bounds.verdict import Verdict
from dpaudit.errors import DPAuditError

__all__ = ["Monomial", "Rate", "RateError", "canonical_log_argument", "leading_rate"]

_OWNER = "leading_rate"


class RateError(DPAuditError, ValueError):
    """The expression has no representation as a maximum of monomials in the rate variables.

    Raised, with the offending sub-expression, for exponentials of a rate variable, exponents that
    depend on a rate variable, negative powers of sums, ``Min`` of different rates, and negative
    terms that are not dominated by a positive term.
    """


@dataclass(frozen=True)
class Monomial:
    """``coefficient * prod(v ** exponent) * prod(log(arg) ** power)``.

    Parameters
    ----------
    coefficient : sympy.Expr
        Positive factor free of rate variables (constants such as L, R are part of it).
    exponents : tuple of (Symbol, exponent)
        Non-zero exponents of the rate variables, sorted by name.
    logs : tuple of (argument, power)
        Logarithmic factors ``log(argument) ** power``, sorted by the argument's text.
    """

    coefficient: sp.Expr = sp.S.One
    exponents: tuple[tuple[sp.Symbol, sp.Expr], ...] = ()
    logs: tuple[tuple[sp.Expr, sp.Expr], ...] = ()

    @staticmethod
    def build(coefficient: Any, exponents: Mapping[sp.Symbol, Any], logs: Mapping[sp.Expr, Any]) -> Monomial:
        """The monomial with zero exponents and log powers dropped and the factors sorted (a canonical form).

        Parameters
        ----------
        coefficient : sympy.Expr
            The factor free of rate variables.
        exponents : mapping of Symbol to exponent
            Exponents of the rate variables (exact rationals).
        logs : mapping of argument to power
            Powers of ``log(argument)``.
        """
        exps = tuple(sorted(((v, _exact(e)) for v, e in exponents.items() if _exact(e) != 0),
                            key=lambda t: t[0].name))
        lg = tuple(sorted(((a, _exact(p)) for a, p in logs.items() if _exact(p) != 0),
                          key=lambda t: sp.srepr(t[0])))
        return Monomial(sp.sympify(coefficient), exps, lg)

    def exponent(self, variable: sp.Symbol) -> sp.Expr:
        """Exponent of ``variable`` (0 if absent)."""
        return dict(self.exponents).get(variable, sp.Integer(0))

    def log_power(self, argument: sp.Expr) -> sp.Expr:
        """Power of ``log(argument)`` (0 if absent)."""
        return dict(self.logs).get(argument, sp.Integer(0))

    def times(self, other: Monomial) -> Monomial:
        """The product of two monomials (exponents and log powers added)."""
        exps = dict(self.exponents)
        for v, e in other.exponents:
            exps[v] = exps.get(v, 0) + e
        lg = dict(self.logs)
        for a, pw in other.logs:
            lg[a] = lg.get(a, 0) + pw
        return Monomial.build(self.coefficient * other.coefficient, exps, lg)

    def power(self, exponent: sp.Expr) -> Monomial:
        """The monomial raised to ``exponent`` (every exponent and log power multiplied by it)."""
        return Monomial.build(self.coefficient ** exponent, {v: e * exponent for v, e in self.exponents},
                              {a: pw * exponent for a, pw in self.logs})

    def same_shape(self, other: Monomial) -> bool:
        """Equal exponents and equal log powers (coefficients may differ)."""
        return self.exponents == other.exponents and self.logs == other.logs

    def as_expr(self, *, with_coefficient: bool = True, with_logs: bool = True) -> sp.Expr:
        """The monomial as a sympy expression, optionally without its coefficient or its log factors."""
        out = self.coefficient if with_coefficient else sp.Integer(1)
        for v, e in self.exponents:
            out *= v ** e
        if with_logs:
            for a, pw in self.logs:
                out *= sp.log(a) ** pw
        return out


@dataclass(frozen=True)
class Rate:
    """The possibly dominant monomials of an expression over a regime.

    Attributes
    ----------
    variables : tuple of Symbol
        Rate variables.
    directions : tuple of int
        ``+1`` (grows) or ``-1`` (shrinks) per variable.
    terms : tuple of Monomial
        Possibly dominant terms: none of them dominates another over the regime. A single term
        means the leading order is the same everywhere in the regime.
    dominated : tuple of Monomial
        Terms dropped because another term dominates them everywhere in the regime.
    ignore_logs : bool
        Whether log factors were ignored when deciding dominance.
    """

    variables: tuple[sp.Symbol, ...]
    directions: tuple[int, ...]
    terms: tuple[Monomial, ...]
    dominated: tuple[Monomial, ...] = ()
    ignore_logs: bool = False

    @property
    def is_single(self) -> bool:
        """True when one monomial dominates everywhere in the regime."""
        return len(self.terms) == 1

    def exponent(self, variable: sp.Symbol) -> sp.Expr:
        """Exponent of ``variable`` in the leading term.

        Raises
        ------
        RateError
            If the leading term depends on the regime (several possibly dominant terms with
            different exponents of ``variable``).
        """
        values = {t.exponent(variable) for t in self.terms}
        if len(values) != 1:
            raise RateError(f"the exponent of {variable} depends on the regime: {sorted(map(str, values))}")
        return values.pop()

    def as_expr(self, *, with_coefficients: bool = False) -> sp.Expr:
        """The sum of the possibly dominant terms (coefficients dropped by default)."""
        return sp.Add(*(t.as_expr(with_coefficient=with_coefficients, with_logs=not self.ignore_logs)
                        for t in self.terms))

    def __str__(self) -> str:
        return format_rate(self)


def _exact(value: Any) -> sp.Expr:
    """sympify, turning floats into rationals so that exponent arithmetic stays exact."""
    out = sp.sympify(value)
    if isinstance(out, sp.Float):
        out = sp.nsimplify(out, rational=True)
    return out


def _ge0(expr: Any) -> bool | None:
    """``expr >= 0`` for every value of its symbols, decided by the kernel (True when proved, else None)."""
    from dpaudit.verify.decide import decide_nonneg

    return True if decide_nonneg(expr) is Verdict.PROVED else None


def _gt0(expr: Any) -> bool:
    from dpaudit.verify.decide import exact_sign

    expr = sp.sympify(expr)
    return bool(expr.is_number and not expr.has(sp.Float) and exact_sign(expr) == 1)


def _certain_sign(expr: Any) -> int | None:
    """The sign (-1, 0 or 1) of ``expr`` for every value of its symbols, decided by the verification kernel.

    Exact arithmetic or arb balls for a number; Z3 / interval arithmetic with the symbols'
    assumptions otherwise. None when undecided. sympy's own ``is_positive`` / ``is_negative`` are
    never consulted.
    """
    from dpaudit.verify.decide import decide_positive, exact_sign

    expr = sp.sympify(expr)
    if expr.has(sp.Float):
        return None
    if expr.is_number:
        return exact_sign(expr)
    if decide_positive(expr) is Verdict.PROVED:
        return 1
    if decide_positive(-expr) is Verdict.PROVED:
        return -1
    return None


def _poly_dominates(a: Monomial, b: Monomial, variables: Sequence[sp.Symbol], directions: Sequence[int]) -> bool:
    return all(_ge0((a.exponent(v) - b.exponent(v)) * s) is True
               for v, s in zip(variables, directions, strict=True))


def _log_dominates(a: Monomial, b: Monomial) -> bool:
    """Every log factor of b has at most the power it has in a."""
    args = {x for x, _ in a.logs} | {x for x, _ in b.logs}
    return all(_ge0(a.log_power(x) - b.log_power(x)) is True for x in args)


def _dominates(a: Monomial, b: Monomial, variables: Sequence[sp.Symbol], directions: Sequence[int],
               ignore_logs: bool) -> bool:
    """``b <= C a`` everywhere in the regime, for a constant C.

    With logs counted, a log factor that b has in excess of a must be beaten by a strictly larger
    polynomial exponent of a in *every* rate variable its argument depends on (a log of a
    constant, e.g. ``log(1/delta)`` when delta is not a rate variable, is a constant).
    """
    if not _poly_dominates(a, b, variables, directions):
        return False
    if ignore_logs:
        return True
    var_set = set(variables)
    strict = {v for v, s in zip(variables, directions, strict=True) if _gt0((a.exponent(v) - b.exponent(v)) * s)}
    args = {x for x, _ in a.logs} | {x for x, _ in b.logs}
    for arg in args:
        if _ge0(a.log_power(arg) - b.log_power(arg)) is True:
            continue
        inside = arg.free_symbols & var_set
        if inside and not inside <= strict:
            return False
    return True


def _merge(terms: list[Monomial], ignore_logs: bool) -> list[Monomial]:
    out: list[Monomial] = []
    for t in terms:
        for idx, u in enumerate(out):
            same = u.exponents == t.exponents and (ignore_logs or u.logs == t.logs)
            if same:
                out[idx] = Monomial(u.coefficient + t.coefficient, u.exponents,
                                    u.logs if len(u.logs) >= len(t.logs) else t.logs)
                break
        else:
            out.append(t)
    return [t for t in out if t.coefficient != 0]


def _prune(terms: list[Monomial], variables: Sequence[sp.Symbol], directions: Sequence[int],
           ignore_logs: bool) -> tuple[list[Monomial], list[Monomial]]:
    terms = _merge(terms, ignore_logs)
    keep: list[Monomial] = []
    dropped: list[Monomial] = []
    for i, t in enumerate(terms):
        beaten = False
        for j, u in enumerate(terms):
            if i == j:
                continue
            if _dominates(u, t, variables, directions, ignore_logs):
                # t is dominated by u; if they dominate each other keep the first one only
                if not _dominates(t, u, variables, directions, ignore_logs) or j < i:
                    beaten = True
                    break
        (dropped if beaten else keep).append(t)
    return keep, dropped


def _direction_of(symbol: sp.Symbol) -> int:
    info = SYMBOLS.get(symbol.name)
    return info.direction if info is not None and info.symbol == symbol else 0


def canonical_log_argument(arg: sp.Expr) -> sp.Expr:
    """A canonical argument for ``log(arg)`` up to constant factors of the log.

    When ``arg`` is a monomial ``c * prod v^{a_v} * exp(...)`` that grows in every symbol it contains
    (growing symbols n, m, d with positive exponents, shrinking ones epsilon, delta with negative
    exponents), ``log(arg)`` is within constant factors of ``log(prod v^{sign(a_v)})`` once the argument
    is large: e.g. ``log(20 n m e^eps/delta)`` becomes ``log(m n/delta)`` and ``log(2 d^4 m^3 n^4)`` becomes
    ``log(d m n)``. Constant factors and ``exp`` of shrinking symbols (bounded) are dropped. Any other
    argument is returned unchanged.
    """
    factors = sp.Mul.make_args(sp.powsimp(sp.expand_power_base(arg, force=True), force=True))
    keep: dict[sp.Symbol, int] = {}
    for f in factors:
        if f.is_number:
            if _certain_sign(f) == 1:
                continue
            return arg
        if isinstance(f, sp.exp) or (isinstance(f, sp.Pow) and f.base == sp.E):
            inner = f.args[0] if isinstance(f, sp.exp) else f.exp
            if all(_direction_of(s) < 0 for s in inner.free_symbols):
                continue  # exp of a shrinking (bounded) quantity: a constant factor
            return arg
        base, ex = (f.base, f.exp) if isinstance(f, sp.Pow) else (f, sp.Integer(1))
        if not isinstance(base, sp.Symbol) or not ex.is_number or ex == 0:
            return arg
        direction = _direction_of(base)
        sign = _certain_sign(ex)
        if direction == 0 or sign is None or sign * direction < 0:
            return arg
        keep[base] = sign
    if not keep:
        return arg
    return sp.Mul(*(v**e for v, e in keep.items()))


class _Tropical:
    """Recursive conversion of an expression into a list of (signed) monomials."""

    def __init__(self, variables: Sequence[sp.Symbol], directions: Sequence[int], ignore_logs: bool) -> None:
        self.variables = tuple(variables)
        self.var_set = set(variables)
        self.directions = tuple(directions)
        self.ignore_logs = ignore_logs

    def constant(self, expr: sp.Expr) -> list[Monomial]:
        return [] if expr == 0 else [Monomial(expr)]

    def terms(self, expr: sp.Expr) -> list[Monomial]:
        if expr.is_number:
            return self.constant(expr)
        if isinstance(expr, sp.Symbol):
            return [Monomial.build(1, {expr: 1}, {})] if expr in self.var_set else [Monomial(expr)]
        if isinstance(expr, sp.log):
            arg = expr.args[0]
            if not arg.free_symbols:
                return self.constant(expr)
            return [Monomial.build(1, {}, {canonical_log_argument(arg): 1})]
        if isinstance(expr, sp.exp) or (isinstance(expr, sp.Pow) and expr.base == sp.E):
            arg = expr.args[0] if isinstance(expr, sp.exp) else expr.exp
            if arg.free_symbols & self.var_set:
                raise RateError(f"exponential in a rate variable has no polynomial rate: {expr}")
            return self.constant(expr)
        if isinstance(expr, sp.Add):
            return self.add([self.terms(a) for a in expr.args], expr)
        if isinstance(expr, sp.Max):
            return self.add([self.terms(a) for a in expr.args], expr)
        if isinstance(expr, sp.Min):
            rates = [self.pruned(self.terms(a)) for a in expr.args]
            first = rates[0]
            if all(len(r) == len(first) and all(any(x.same_shape(y) for y in r) for x in first) for r in rates):
                return first
            raise RateError(f"Min of different rates is not a maximum of monomials: {expr}; "
                            "substitute the branch that applies in your regime")
        if isinstance(expr, sp.Mul):
            out = [Monomial()]
            for factor in expr.args:
                fterms = self.terms(factor)
                out = [a.times(b) for a in out for b in fterms]
            return out
        if isinstance(expr, sp.Pow):
            base, ex = expr.base, expr.exp
            if ex.free_symbols & self.var_set:
                if not (base.free_symbols & self.var_set) and base.is_positive:
                    raise RateError(f"exponential in a rate variable has no polynomial rate: {expr}")
                raise RateError(f"exponent depends on a rate variable (super-polynomial or regime-dependent): {expr}")
            if not (base.free_symbols & self.var_set) and not base.has(sp.log):
                return self.constant(expr)
            bterms = self.terms(base)
            if not bterms:
                return []
            if len(bterms) == 1:
                return [bterms[0].power(ex)]
            pruned = self.pruned(bterms)
            if len(pruned) == 1:
                return [pruned[0].power(ex)]
            if _certain_sign(ex) == 1:
                return [t.power(ex) for t in pruned]
            raise RateError(f"negative power of a sum with several dominant terms (a minimum, not a maximum): {expr}")
        if isinstance(expr, (sp.ceiling, sp.floor)):
            # ceil(x) <= 2x and floor(x) >= x/2 for x >= 1: same rate as x
            return self.terms(expr.args[0])
        if not (expr.free_symbols & self.var_set) and not expr.has(sp.log):
            return self.constant(expr)
        raise RateError(f"unsupported expression for rate extraction: {expr} ({type(expr).__name__})")

    def add(self, groups: list[list[Monomial]], expr: sp.Expr) -> list[Monomial]:
        allterms = _merge([t for g in groups for t in g], ignore_logs=False)
        signs = [_certain_sign(t.coefficient) for t in allterms]
        # a term the kernel proves negative must be dominated; so must a numeric coefficient of undecided sign (a
        # cancellation such as sin(1)**2 + cos(1)**2 - 1 may hide an exact zero). A symbolic coefficient of
        # undecided sign (say sqrt(log(delta)) in a non-rate symbol) counts as positive: added at its magnitude,
        # it gives an upper rate of |expr|
        undecided_number = [sign is None and t.coefficient.is_number for t, sign in zip(allterms, signs, strict=True)]
        positive = [t for t, sign in zip(allterms, signs, strict=True) if sign != -1]
        negative = [t for t, sign, num in zip(allterms, signs, undecided_number, strict=True) if sign == -1 or num]
        for neg in negative:
            flipped = Monomial(-neg.coefficient, neg.exponents, neg.logs)
            ok = any(_dominates(pos, flipped, self.variables, self.directions, False)
                     and not _dominates(flipped, pos, self.variables, self.directions, False)
                     for pos in positive)
            if not ok:
                raise RateError(f"negative term {neg.as_expr()} is not dominated by a positive term in {expr}")
        return positive

    def pruned(self, terms: list[Monomial]) -> list[Monomial]:
        return _prune(terms, self.variables, self.directions, self.ignore_logs)[0]


def _as_expr(target: Bound | sp.Expr | Rate, owner: str) -> sp.Expr:
    if isinstance(target, Bound):
        return target.expression
    try:
        return sp.sympify(target)
    except (sp.SympifyError, TypeError) as exc:
        raise argument_error(owner, "expr", "a Bound or a sympy expression", target) from exc


def leading_rate(
    expr: Bound | sp.Expr,
    variables: Sequence[sp.Symbol] = RATE_VARIABLES,
    *,
    small: Iterable[sp.Symbol] | None = None,
    ignore_logs: bool = False,
) -> Rate:
    """Leading-order rate of ``expr`` in ``variables``: its possibly dominant monomials.

    Parameters
    ----------
    expr : Bound or sympy expression
        The bound. For a :class:`Bound`, its stated expression is used (not its settings), and
        the rate variables whose dependence it hides (``hidden_variables``) are left out.
    variables : sequence of Symbol
        Rate variables (default n, m, d, epsilon). Every other symbol is a constant.
    small : iterable of Symbol, optional
        Variables that shrink (direction -1). Default: those declared shrinking in
        :mod:`dpaudit.bounds.symbols` (epsilon, delta). Each variable must be able to move its way inside its
        declared domain: one that cannot shrink to 0 (an integer such as n) must not be listed, one that cannot grow
        (delta, gamma, in (0, 1)) must be.
    ignore_logs : bool
        Ignore log factors when deciding dominance (for O~ statements).

    Returns
    -------
    Rate
        The possibly dominant terms and the dominated ones.

    Raises
    ------
    InvalidArgument
        If ``variables`` is empty or contains a non-symbol, or ``small`` asks a variable to move where its declared
        domain does not reach (``n``, an integer >= 1, among ``small``; ``delta``, in (0, 1), left out of it).
    RateError
        If the expression is not (up to constants) a maximum of monomials in the variables.

    Examples
    --------
    >>> from dpaudit.bounds.symbols import n, m, d, epsilon
    >>> r = leading_rate(1 / sp.sqrt(n * m) + sp.sqrt(d) / (n * sp.sqrt(m) * epsilon))
    >>> len(r.terms)   # which term dominates depends on the regime
    2
    """
    variables = _check_variables(variables, _OWNER)
    if isinstance(expr, Bound):
        variables = tuple(v for v in variables if v not in expr.hidden_variables)
        ignore_logs = ignore_logs or expr.kind.ignores_logs
    directions = regime_directions(variables, small, _OWNER)
    e = _as_expr(expr, _OWNER)
    return _leading_rate(e, tuple(variables), directions, bool(ignore_logs))


@functools.lru_cache(maxsize=1024)
def _leading_rate(e: sp.Expr, variables: tuple[sp.Symbol, ...], directions: tuple[int, ...], ignore_logs: bool) -> Rate:
    """The deterministic core of :func:`leading_rate`, cached (expressions are immutable)."""
    tro = _Tropical(variables, directions, ignore_logs)
    terms = tro.terms(e)
    if not terms:
        raise RateError(f"expression is identically zero: {e}")
    keep, dropped = _prune(terms, variables, directions, ignore_logs)
    return Rate(variables, directions, tuple(keep), tuple(dropped), ignore_logs)


def _check_variables(variables: Sequence[sp.Symbol], owner: str) -> tuple[sp.Symbol, ...]:
    if isinstance(variables, sp.Symbol) or not isinstance(variables, Iterable):
        raise argument_error(owner, "variables", "a non-empty sequence of sympy Symbols", variables)
    out = tuple(variables)
    if not out or not all(isinstance(v, sp.Symbol) for v in out):
        raise argument_error(owner, "variables", "a non-empty sequence of sympy Symbols", variables)
    return out
