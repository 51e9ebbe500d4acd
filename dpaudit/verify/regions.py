"""Regions of a case analysis, written with non-negative slack variables, and a check that they cover the domain.

A case analysis proves ``residual >= 0`` on each region of the domain. Each :class:`Region` is a
conjunction of order conditions (``x <= a``, ``a < y``, ``m = n``) and a *parametrisation* of the
region by non-negative slack symbols: ``x <= a`` becomes ``a = x + s`` with ``s >= 0``. sympy then
evaluates ``Min``, ``Max``, ``Abs`` and ``Piecewise`` from their definitions in the region and
decides the residual's sign for all slack values.

Two things make this a proof and not a collection of examples, and both are checked here:

* **the parametrisation reaches every point of its region**: every slack has an inverse (its value
  in the original variables, the gap ``hi - lo`` of a condition) and substituting the inverse gives
  back the original variables (:meth:`Region.verify`);
* **the regions cover the domain** (:func:`coverage`): the truth of an order condition depends only
  on how its two sides are ordered, so it suffices to enumerate every weak ordering (ties allowed)
  of the terms that appear, keep those allowed by the domain and by facts the kernel proves from the symbols' assumptions (``a <= a + w``
  for ``w >= 0``, ``0 < 1``), and find each one inside some region. Treating the terms as opaque
  values is sound: a real point orders its terms' values in one of the enumerated ways.

Examples
--------
>>> import sympy as sp
>>> from dpaudit.verify import Region, coverage
>>> x, a = sp.symbols("x a", real=True)
>>> below, above = Region.where("x <= a", x <= a), Region.where("a <= x", a <= x)
>>> sp.Abs(x - a).subs(below.substitution)      # |x - a| evaluated in the region x <= a
_s0
>>> coverage([below, above])[0]
<Verdict.PROVED: 'proved'>
>>> coverage([below])[0]                       # the region a < x is missing
<Verdict.UNDECIDED: 'undecided'>
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from dpaudit.errors import ArgumentTypeError, InvalidArgument
from dpaudit.verify.decide import decide_nonneg, decide_positive, decide_zero
from dpaudit.verify.verdict import Verdict

__all__ = ["MAX_COVERAGE_TERMS", "Region", "coverage", "eq", "le", "lt", "orderings"]

#: Largest number of distinct terms :func:`coverage` enumerates (7 terms: 47,293 weak orderings).
MAX_COVERAGE_TERMS = 7

_Atom = tuple[sp.Expr, sp.Expr, str]  # (lo, hi, kind) meaning lo <= hi, lo < hi or lo == hi


def le(lo: Any, hi: Any) -> sp.LessThan:
    """The condition ``lo <= hi``, kept unevaluated (``sp.Le(1, n)`` with a positive integer ``n`` is already ``True``)."""
    return sp.Le(lo, hi, evaluate=False)


def lt(lo: Any, hi: Any) -> sp.StrictLessThan:
    """The condition ``lo < hi``, kept unevaluated."""
    return sp.Lt(lo, hi, evaluate=False)


def eq(lhs: Any, rhs: Any) -> sp.Equality:
    """The condition ``lhs == rhs``, kept unevaluated."""
    return sp.Eq(lhs, rhs, evaluate=False)


def _atom(condition: Any) -> _Atom:
    """Normalise a relational to ``(lo, hi, kind)`` with kind ``"le"``, ``"lt"`` or ``"eq"``."""
    if isinstance(condition, sp.Equality):
        return sp.sympify(condition.lhs), sp.sympify(condition.rhs), "eq"
    if isinstance(condition, (sp.LessThan, sp.StrictLessThan)):
        lo, hi = condition.lhs, condition.rhs
    elif isinstance(condition, (sp.GreaterThan, sp.StrictGreaterThan)):
        lo, hi = condition.rhs, condition.lhs
    else:
        raise ArgumentTypeError(f"a region condition must be a sympy relation such as x <= a, got {condition!r} "
                        "(a condition that sympy already evaluated to True/False says nothing about a region)")
    kind = "lt" if isinstance(condition, (sp.StrictLessThan, sp.StrictGreaterThan)) else "le"
    return sp.sympify(lo), sp.sympify(hi), kind


def _integer_gap(lo: sp.Expr, hi: sp.Expr, kind: str) -> int:
    """``lo < hi`` between integers means ``lo + 1 <= hi``."""
    return 1 if kind == "lt" and lo.is_integer is True and hi.is_integer is True else 0


def _parametrise(name: str, conditions: Sequence[Any], sub: dict[sp.Symbol, sp.Expr],
                 inv: dict[sp.Symbol, sp.Expr], *, skip_implied: bool = False) -> tuple[dict[sp.Symbol, sp.Expr], dict[sp.Symbol, sp.Expr]]:
    """Extend the slack parametrisation ``sub`` (with inverses ``inv``) by ``conditions``, in order.

    A condition implied by the earlier ones and the symbols' assumptions restricts nothing: it is
    skipped when no symbol can be solved for, or always with ``skip_implied`` (chains, whose
    every link is a condition).
    """
    sub, inv = dict(sub), dict(inv)
    for cond in conditions:
        lo, hi, kind = _atom(cond)
        lo_now, hi_now = lo.subs(sub), hi.subs(sub)
        gap = _integer_gap(lo, hi, kind)
        diff = sp.expand(hi_now - lo_now)
        if skip_implied and kind != "eq" and _implied(diff - gap):
            continue
        target = _solvable_symbol(lo, hi, diff, sub)
        if target is None:
            if kind != "eq" and _implied(diff - gap):
                continue  # implied by the earlier conditions and the symbols' assumptions: no restriction
            closed = _close_interval(lo, hi, kind, sub, inv)
            if closed is not None:
                sub, inv = closed
                continue
            raise InvalidArgument(f"region {name!r}: cannot parametrise {cond} (no symbol left to solve for with a "
                             "numeric coefficient); pass substitution= and inverse= to Region(...)")
        coeff = diff.coeff(target)
        rest = sp.expand(diff - coeff * target)
        if kind == "eq":
            value = -rest / coeff
        else:
            # a strict condition between reals leaves a positive gap; between integers a gap of at least 1
            strict_real = kind == "lt" and gap == 0
            slack = sp.Dummy(f"s{len(inv)}", positive=True) if strict_real else sp.Dummy(f"s{len(inv)}", nonnegative=True)
            value = (gap + slack - rest) / coeff  # hi - lo = gap + slack
            inv[slack] = hi - lo - gap
        sub = {k: v.subs(target, value) for k, v in sub.items()}
        sub[target] = value
    return sub, inv


def _implied(gap: sp.Expr) -> bool:
    """``gap >= 0`` for every value of the slacks and symbols (under their assumptions), proved by the kernel.

    sympy's ``is_nonnegative`` is never consulted: it rests on a low-precision evalf.
    """
    return decide_nonneg(gap) is Verdict.PROVED


def _close_interval(lo: sp.Expr, hi: sp.Expr, kind: str, sub: dict[sp.Symbol, sp.Expr],
                    inv: dict[sp.Symbol, sp.Expr]) -> tuple[dict[sp.Symbol, sp.Expr], dict[sp.Symbol, sp.Expr]] | None:
    """A second bound on a symbol already written ``v = a + s`` (lower bound a) or ``v = a - s`` (upper bound a).

    The interval between a and the new bound b, open at one end at least, becomes ``v = c + (e - c)
    t/(1 + t)`` with c the closed (or first) end, e the open end, and ``t = |v - c| / |e - v| >=
    0``.
    """
    for var, other, var_is_lo in ((lo, hi, True), (hi, lo, False)):
        if not isinstance(var, sp.Symbol) or var not in sub:
            continue
        slacks = [t for t in sub[var].free_symbols if t in inv]
        if len(slacks) != 1:
            continue
        (old,) = slacks
        first = sp.expand(sub[var].subs(old, 0))  # the first bound a
        sigma = sp.expand(sub[var] - first).coeff(old)  # +1: a is a lower bound, -1: an upper bound
        bound = sp.sympify(other).subs(sub)
        # the new condition must bound v from the other side: an upper bound when a is a lower bound
        if old in bound.free_symbols or sigma not in (1, -1) or (sigma == 1) != var_is_lo:
            continue
        first_strict, new_strict = old.is_positive is True, kind == "lt"
        if not (first_strict or new_strict):
            return None  # a closed interval: split off an end point as its own region
        gap_first = inv[old]  # |v - a| in the original variables
        gap_new = (other - var) if var_is_lo else (var - other)  # |b - v|
        width = sigma * (bound - first)  # |b - a|
        if new_strict:  # closed (or first-strict) end at a, open end at b
            t = sp.Dummy(f"t{len(inv)}", positive=True) if first_strict else sp.Dummy(f"t{len(inv)}", nonnegative=True)
            value, t_inverse = first + sigma * width * t / (1 + t), gap_first / gap_new
        else:  # closed end at b, open end at a
            t = sp.Dummy(f"t{len(inv)}", nonnegative=True)
            value, t_inverse = bound - sigma * width * t / (1 + t), gap_new / gap_first
        replacement = sp.solve(sp.Eq(sub[var], value), old)
        if len(replacement) != 1:
            return None
        new_sub = {k: sp.sympify(v).subs(old, replacement[0]) for k, v in sub.items()}
        new_inv = {k: v for k, v in inv.items() if k != old}
        new_inv[t] = t_inverse
        return new_sub, new_inv
    return None


def _solvable_symbol(lo: sp.Expr, hi: sp.Expr, diff: sp.Expr, sub: Mapping[sp.Symbol, sp.Expr]) -> sp.Symbol | None:
    """A symbol not parametrised yet in which ``diff`` (= hi - lo) is linear with a numeric coefficient.

    The condition's bare symbol sides are preferred.
    """
    candidates = [t for t in (hi, lo) if isinstance(t, sp.Symbol)]
    candidates += sorted(diff.free_symbols - set(candidates), key=lambda v: v.name)
    for var in candidates:
        if var in sub or isinstance(var, sp.Dummy) or var not in diff.free_symbols:
            continue
        coeff = sp.diff(diff, var)
        if coeff.is_number and coeff != 0 and sp.diff(coeff, var) == 0:
            return var
    return None


_VERIFIED: dict[int, tuple[Region, tuple[bool, str]]] = {}


@dataclass(frozen=True)
class Region:
    """One region of a case analysis: its conditions and a slack parametrisation onto it.

    Parameters
    ----------
    name : str
        Shown in the proof's record, e.g. ``"x <= a <= y <= b"``.
    conditions : tuple of sympy relations
        The region, as a conjunction of ``<=``, ``<``, ``>=``, ``>`` and ``Eq`` conditions.
    substitution : mapping
        Original symbol -> expression in non-negative slack symbols (and the unsubstituted
        original symbols).
    inverse : mapping
        Slack symbol -> its value in the original variables (a condition's gap ``hi - lo``).

    Build regions with :meth:`where` (automatic parametrisation) or :meth:`chain`; the explicit
    constructor is for parametrisations the automatic one cannot find (then :meth:`verify`
    checks them).
    """

    name: str
    conditions: tuple[Any, ...]
    substitution: Mapping[sp.Symbol, sp.Expr] = field(repr=False)
    inverse: Mapping[sp.Symbol, sp.Expr] = field(repr=False)

    @classmethod
    def where(cls, name: str, *conditions: Any) -> Region:
        """The region ``conditions`` with an automatic slack parametrisation.

        Conditions are used in order; each must involve a symbol not parametrised yet, with a numeric
        coefficient, which is then solved for with a fresh slack ``s >= 0`` (``s > 0`` for a strict
        ``<`` between reals; a gap of 1 between integers); ``Eq(n, m)`` substitutes without a slack;
        a second, strict bound on a symbol makes an interval (``v = a + (b - a) t/(1 + t)``). Terms that
        depend on each other (``x``, ``-x``, ``x + y``) cannot all be ordered freely: split by the signs
        of the free symbols instead (:meth:`signs`).

        Raises
        ------
        ValueError
            If a condition has no free symbol side (give ``substitution`` and ``inverse`` then).
        """
        sub, inv = _parametrise(name, conditions, {}, {})
        return cls(name, tuple(conditions), sub, inv)

    @classmethod
    def chain(cls, name: str, *terms: Any, strict: Sequence[bool] = ()) -> Region:
        """The region ``terms[0] <= terms[1] <= ...`` (``<`` where ``strict[i]`` is True).

        Examples
        --------
        >>> import sympy as sp
        >>> x, a, b = sp.symbols("x a b", real=True)
        >>> Region.chain("a <= x <= b", a, x, b).conditions
        (a <= x, x <= b)
        """
        terms = tuple(sp.sympify(t) for t in terms)
        if len(terms) < 2:
            raise InvalidArgument(f"region {name!r}: a chain needs at least two terms")

        def rel(i: int) -> Any:  # terms[i] <= terms[i + 1]
            strict_i = i < len(strict) and strict[i]
            return sp.Lt(terms[i], terms[i + 1], evaluate=False) if strict_i else sp.Le(terms[i], terms[i + 1], evaluate=False)

        # parametrise outwards from an anchor: a number if there is one, else the first term that is not a bare symbol
        anchor = next((i for i, t in enumerate(terms) if t.is_Number),
                      next((i for i, t in enumerate(terms) if not isinstance(t, sp.Symbol)), 0))
        order = [rel(i) for i in range(anchor - 1, -1, -1)] + [rel(i) for i in range(anchor, len(terms) - 1)]
        sub, inv = _parametrise(name, order, {}, {}, skip_implied=True)
        return cls(name, tuple(rel(i) for i in range(len(terms) - 1)), sub, inv)

    @classmethod
    def orders(cls, terms: Sequence[Any], domain: Sequence[Any] = ()) -> list[Region]:
        """One chain region per strict ordering of ``terms`` allowed by ``domain`` and sympy's facts.

        Together the regions cover every point (ties lie on the boundary of two chains), so
        :func:`coverage` holds by construction; it is still checked by :meth:`Proof.cases`.

        Examples
        --------
        >>> import sympy as sp
        >>> x, a, b = sp.symbols("x a b", real=True)
        >>> [r.name for r in Region.orders([x, a, b], domain=[a <= b])]
        ['x <= a <= b', 'a <= x <= b', 'a <= b <= x']
        """
        terms = [sp.sympify(t) for t in terms]
        constraints = [_atom(c) for c in domain] + _known_relations(terms)
        index = {t: i for i, t in enumerate(terms)}
        out = []
        for perm in itertools.permutations(range(len(terms))):
            rank = {item: r for r, item in enumerate(perm)}
            if all(_holds((lo, hi, "le" if kind == "eq" else kind), rank, index) for lo, hi, kind in constraints
                   if lo in index and hi in index):
                chain = [terms[i] for i in perm]
                out.append(cls.chain(" <= ".join(map(str, chain)), *chain))
        return out

    @classmethod
    def signs(cls, *symbols: sp.Symbol) -> list[Region]:
        """One region per sign pattern of ``symbols`` (``s <= 0`` or ``s >= 0`` each): 2^k regions covering R^k.

        Examples
        --------
        >>> import sympy as sp
        >>> x, y = sp.symbols("x y", real=True)
        >>> [r.name for r in Region.signs(x, y)]
        ['x <= 0, y <= 0', 'x <= 0, y >= 0', 'x >= 0, y <= 0', 'x >= 0, y >= 0']
        """
        out = []
        for pattern in itertools.product((False, True), repeat=len(symbols)):
            conds = [le(0, s) if positive else le(s, 0) for s, positive in zip(symbols, pattern, strict=True)]
            name = ", ".join(f"{s} {'>=' if positive else '<='} 0" for s, positive in zip(symbols, pattern, strict=True))
            out.append(cls.where(name, *conds))
        return out

    def with_conditions(self, *conditions: Any) -> Region:
        """Return this region intersected with ``conditions`` (parametrised after the region's own)."""
        sub, inv = _parametrise(self.name, conditions, dict(self.substitution), dict(self.inverse))
        return Region(self.name, (*self.conditions, *conditions), sub, inv)

    def apply(self, expr: Any) -> sp.Expr:
        """``expr`` written in the region's slack variables."""
        return sp.sympify(expr).xreplace(dict(self.substitution))

    def verify(self) -> tuple[bool, str]:
        """Check that the parametrisation reaches every point of the region (memoised; see :meth:`_verify`)."""
        key = id(self)
        if key not in _VERIFIED:
            _VERIFIED[key] = (self, self._verify())
        return _VERIFIED[key][1]

    def _verify(self) -> tuple[bool, str]:
        """Check that the parametrisation reaches every point of the region.

        For each slack, its inverse must be non-negative on the region (the gap of one of the
        region's conditions, or non-negative by its symbols' assumptions); substituting the
        inverses must give back every original variable (up to the region's equalities).

        Returns
        -------
        (bool, str)
            Whether the check passed, and what failed otherwise.
        """
        atoms = [_atom(c) for c in self.conditions]
        gaps = [hi - lo - _integer_gap(lo, hi, kind) for lo, hi, kind in atoms if kind != "eq"]
        strict_gaps = [hi - lo for lo, hi, kind in atoms if kind == "lt" and _integer_gap(lo, hi, kind) == 0]
        equalities = [lo - hi for lo, hi, kind in atoms if kind == "eq"]
        for slack, value in self.inverse.items():
            if slack.is_nonnegative is not True:
                return False, f"slack {slack} is not declared non-negative"
            # a ratio of a condition's gap to a strict gap (an interval's slack) is >= 0 on the region
            ratios = [g / h for g in gaps for h in strict_gaps]
            positive_ratios = [g / h for g in strict_gaps for h in strict_gaps]
            if slack.is_positive is True:
                if not _matches(value, strict_gaps + positive_ratios) and decide_positive(value) is not Verdict.PROVED:
                    return False, f"the inverse {slack} = {value} is not shown > 0 on the region"
            elif not _matches(value, gaps + ratios) and decide_nonneg(value) is not Verdict.PROVED:
                return False, f"the inverse {slack} = {value} is not shown >= 0 on the region"
        for var, value in self.substitution.items():
            back = sp.sympify(value).xreplace(dict(self.inverse)) - var
            if sp.expand(back) == 0 or any(sp.expand(back - e) == 0 or sp.expand(back + e) == 0 for e in equalities):
                continue
            if decide_zero(back, list(self.conditions)) is not Verdict.PROVED:  # on the region (where it is defined)
                return False, f"the parametrisation does not give back {var} (residual {back})"
        leftover = set().union(*(sp.sympify(v).free_symbols for v in self.substitution.values())) if self.substitution else set()
        unknown = {s for s in leftover if isinstance(s, sp.Dummy) and s not in self.inverse}
        if unknown:
            return False, f"slack(s) {sorted(map(str, unknown))} have no inverse"
        return True, ""


def _matches(value: sp.Expr, candidates: Sequence[sp.Expr]) -> bool:
    return any(sp.expand(value - c) == 0 or sp.cancel(value - c) == 0 for c in candidates)


def _terms_and_atoms(regions: Sequence[Region], domain: Sequence[Any]) -> tuple[list[sp.Expr], list[list[_Atom]], list[_Atom]]:
    region_atoms = [[_atom(c) for c in r.conditions] for r in regions]
    domain_atoms = [_atom(c) for c in domain]
    terms: list[sp.Expr] = []
    for lo, hi, _ in itertools.chain(*region_atoms, domain_atoms):
        for t in (lo, hi):
            if not any(t == u for u in terms):
                terms.append(t)
    return terms, region_atoms, domain_atoms


def _known_relations(terms: Sequence[sp.Expr]) -> list[_Atom]:
    """Order facts that hold for every value of the terms' symbols (their assumptions), decided by the kernel."""
    known: list[_Atom] = []
    for t1, t2 in itertools.combinations(terms, 2):
        diff = sp.sympify(t2 - t1)
        up, down = decide_nonneg(diff) is Verdict.PROVED, decide_nonneg(-diff) is Verdict.PROVED
        if up and down:
            known.append((t1, t2, "eq"))
        elif up:
            known.append((t1, t2, "lt" if decide_positive(diff) is Verdict.PROVED else "le"))
        elif down:
            known.append((t2, t1, "lt" if decide_positive(-diff) is Verdict.PROVED else "le"))
    return known


def _holds(atom: _Atom, rank: Mapping[int, int], index: Mapping[sp.Expr, int]) -> bool:
    lo, hi, kind = atom
    a, b = rank[index[lo]], rank[index[hi]]
    return a == b if kind == "eq" else (a < b if kind == "lt" else a <= b)


def orderings(count: int) -> Iterator[dict[int, int]]:
    """Every weak ordering of ``count`` items, as item -> rank (ties share a rank).

    Examples
    --------
    >>> sum(1 for _ in orderings(3))   # the ordered Bell (Fubini) number 13
    13
    """
    def place(i: int, levels: list[list[int]]) -> Iterator[list[list[int]]]:
        if i == count:
            yield levels
            return
        for j in range(len(levels)):  # tie with an existing level
            levels[j].append(i)
            yield from place(i + 1, levels)
            levels[j].pop()
        for j in range(len(levels) + 1):  # a new level at position j
            levels.insert(j, [i])
            yield from place(i + 1, levels)
            levels.pop(j)

    for levels in place(0, []):
        yield {item: r for r, level in enumerate(levels) for item in level}


def coverage(regions: Sequence[Region], domain: Sequence[Any] = (), *,
             max_terms: int = MAX_COVERAGE_TERMS) -> tuple[Verdict, str, int]:
    """Do the regions cover the domain? Decided exactly by enumerating weak orderings of the terms.

    Parameters
    ----------
    regions : sequence of Region
        The cases.
    domain : sequence of sympy relations
        Hypotheses of the statement restricting the domain (e.g. ``a <= b``); symbol assumptions
        (``positive=True``...) are used automatically.
    max_terms : int
        Refuse (UNDECIDED) above this many distinct terms.

    Returns
    -------
    (Verdict, str, int)
        PROVED when every admissible ordering lies in some region; UNDECIDED with the first
        ordering in no region otherwise (opaque terms can only under-approximate coverage, so a
        gap is not a counterexample). The int is the number of orderings examined.
    """
    if not regions:
        return Verdict.UNDECIDED, "no regions", 0
    factored = _factored_coverage(regions, domain, max_terms)
    if factored is not None:
        return factored
    terms, region_atoms, domain_atoms = _terms_and_atoms(regions, domain)
    if len(terms) > max_terms:
        return Verdict.UNDECIDED, f"{len(terms)} distinct terms (more than {max_terms}): coverage not enumerated", 0
    index = {t: i for i, t in enumerate(terms)}
    constraints = domain_atoms + _known_relations(terms)
    admissible = 0
    for rank in orderings(len(terms)):
        if not all(_holds(a, rank, index) for a in constraints):
            continue
        admissible += 1
        if not any(all(_holds(a, rank, index) for a in atoms) for atoms in region_atoms):
            levels: dict[int, list[str]] = {}
            for i, r in rank.items():
                levels.setdefault(r, []).append(str(terms[i]))
            shown = " < ".join(" = ".join(sorted(levels[r])) for r in sorted(levels))
            return Verdict.UNDECIDED, f"the ordering {shown} lies in no region", admissible
    return Verdict.PROVED, f"{admissible} admissible orderings of {len(terms)} terms, each in some region", admissible


def _factored_coverage(regions: Sequence[Region], domain: Sequence[Any], max_terms: int) -> tuple[Verdict, str, int] | None:
    """Coverage of a product of case splits, factor by factor; None when ``regions`` is not such a product.

    Regions that carry ``factors`` (cells of independent groups of terms) and form the full product of their
    factors cover the domain if each factor's cells cover it: a weak ordering of all the terms, restricted to one
    factor's terms, satisfies the domain relations among those terms and so lies in some cell of that factor; the
    product cell of those cells then contains the whole ordering.
    """
    factor_lists = [getattr(r, "factors", ()) for r in regions]
    width = len(factor_lists[0])
    if width < 2 or any(len(f) != width for f in factor_lists):
        return None
    positions = [list({id(f[j]): f[j] for f in factor_lists}.values()) for j in range(width)]
    combos = {tuple(id(c) for c in f) for f in factor_lists}
    expected = 1
    for cells in positions:
        expected *= len(cells)
    if len(combos) != expected or len(factor_lists) != expected:
        return None  # not the full product: fall back to the direct enumeration
    total, notes = 0, []
    for j, cells in enumerate(positions):
        terms = {t for c in cells for a in c.conditions for t in (sp.sympify(_atom(a)[0]), sp.sympify(_atom(a)[1]))}
        inside = [d for d in domain if sp.sympify(_atom(d)[0]) in terms and sp.sympify(_atom(d)[1]) in terms]
        verdict, note, count = coverage(cells, inside, max_terms=max_terms)
        total += count
        if verdict is not Verdict.PROVED:
            return verdict, f"factor {j}: {note}", total
        notes.append(note)
    return Verdict.PROVED, f"product of {width} independent case splits: " + "; ".join(notes), total

