"""The decision procedure of the trusted kernel: every PROVED and every DISPROVED of dpaudit passes here.

:func:`decide` answers "do the hypotheses imply the goal, for every real value of the free symbols allowed
by their declared assumptions?":

* **Z3** on the exact translation (:mod:`.translate`): the negated goal with every hypothesis; ``unsat`` is
  PROVED, ``sat`` a *candidate* counterexample, ``unknown`` (resource limit) UNDECIDED. The resource limit is
  Z3's deterministic ``rlimit`` (a wall-clock timeout backs it up), and the random seed is fixed.
* **Certified interval arithmetic** (:mod:`.evaluate`, python-flint arb balls) with branch and bound, when the
  hypotheses bound every symbol in a box: for functions Z3 only knows through true facts about them.
* **Exact re-check** of every candidate counterexample (:func:`recheck`): the point's coordinates are
  rationals; the hypotheses must certainly hold and the goal certainly fail, in exact rational arithmetic or
  in arb balls at 200 bits and more that exclude 0. A candidate that does not re-check is dropped.

sympy is used to build formulas and to rewrite them (``rewrites=``: forms equal to the goal, tried for a proof
only); it never decides a sign. A goal must be defined at every point of the domain (no division by zero,
even root or log of a negative number, function outside its real domain): :func:`decide` proves that first, on
the goal as written, before any rewrite is tried (a rewrite such as ``tan(x) cos(x) -> sin(x)`` removes
undefined points). Symbols must be real (:func:`~.translate.check_real_symbol`).

:func:`c1_conditions` is the whitelist of functions known to be C^1 (where), for steps that use a derivative.
"""

from __future__ import annotations

import dataclasses
import functools
import multiprocessing
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, cast

import sympy as sp
import z3
from flint import ctx

from dpaudit.errors import DPAuditError, InvalidArgument, KernelError
from dpaudit.verify.kernel.evaluate import branch_and_bound, enclose_constant, truth
from dpaudit.verify.kernel.translate import Translation, UnsupportedFormula, check_real_symbol
from dpaudit.verify.verdict import Verdict

__all__ = ["RLIMIT", "TIME_LIMIT", "Decision", "KernelError", "NotSmooth", "c1_conditions", "claim_text", "decide", "point_keys",
           "recheck", "satisfiable"]

#: Z3's deterministic resource limit per query (a few seconds of nonlinear work at most), and the wall-clock safety net.
RLIMIT = 300_000
TIMEOUT_MS = 20_000

_RECHECK_BITS = (200, 400, 1000)

#: Digits of the rational read off an algebraic (irrational) value of a Z3 model: a candidate, re-checked exactly.
ALGEBRAIC_DIGITS = 40

#: Polynomial degree above which a Z3 query gets the short wall-clock limit ``HIGH_DEGREE_TIMEOUT_MS``: Z3's
#: nonlinear arithmetic can spend its whole limit on, e.g., ``1 - 40000 x**398 >= 0`` without counting its rlimit.
MAX_DEGREE = 64
HIGH_DEGREE_TIMEOUT_MS = 2_000

#: Wall-clock budget of one decision, in seconds (:func:`decide`'s ``time_limit`` overrides it; set this module
#: attribute to change the default): Z3's queries get at most what is left of it as their ``timeout``, the interval
#: branch and bound stops when it is spent, and the decision is then UNDECIDED with the reason "time limit". A query
#: on a polynomial of degree above :data:`MAX_DEGREE` runs in a forked process that is killed when the budget is spent:
#: Z3's nonlinear arithmetic does not look at its timeout while it works on such a polynomial (``log(beta**1800 + 1)
#: >= 0`` ran for 471 s under a 2 s timeout).
TIME_LIMIT = 20.0


class NotSmooth(DPAuditError):
    """The expression uses a function that is not on the kernel's list of C^1 functions."""


@dataclass(frozen=True)
class Decision:
    """The kernel's answer with its evidence.

    ``counterexample`` (DISPROVED only) maps symbol names to exact rationals (strings); ``hypotheses`` lists
    every hypothesis the answer rests on (symbol assumptions, ``z read as real`` for a symbol declared without
    any, then the hypotheses given); ``claim`` is the statement decided, with the domain it covers
    (``z**2 >= 0 for all real z``).
    """

    verdict: Verdict
    method: str
    note: str = ""
    counterexample: Mapping[str, str] | None = None
    hypotheses: tuple[str, ...] = field(default=())
    claim: str = ""
    vacuity: str = ""

    @property
    def vacuous(self) -> bool:
        """A PROVED whose hypotheses have no common solution (Z3: unsatisfiable): true, and says nothing."""
        return self.vacuity.startswith("vacuous")

    def __str__(self) -> str:
        text = f"{self.verdict.name}: {self.claim}" if self.claim else self.verdict.name
        if self.hypotheses:
            text += f" [hypotheses: {'; '.join(self.hypotheses)}]"
        if self.counterexample is not None:
            text += f" [counterexample: {', '.join(f'{k}={v}' for k, v in self.counterexample.items())}]"
        return text


def _rational(v: z3.ExprRef) -> Fraction | None:
    if z3.is_int_value(v):
        return Fraction(v.as_long())
    if z3.is_rational_value(v):
        return Fraction(v.numerator_as_long(), v.denominator_as_long())
    if z3.is_algebraic_value(v):
        text = v.approx(ALGEBRAIC_DIGITS).as_fraction()
        return Fraction(text.numerator, text.denominator)
    return None


def _assumptions_hold(point: Mapping[sp.Symbol, Fraction]) -> bool:
    for s, v in point.items():
        exact = sp.Rational(v.numerator, v.denominator)
        for key, wanted in s.assumptions0.items():  # every declared assumption (even, odd, prime, ...), on a rational
            if getattr(exact, f"is_{key}", None) is not wanted:
                return False
    return True


def recheck(goal: Any, hypotheses: Sequence[Any], point: Mapping[sp.Symbol, Fraction]) -> bool:
    """Is ``point`` a counterexample? The hypotheses certainly hold there and the goal certainly fails.

    The symbols' assumptions count among the hypotheses; decided in rationals or in arb balls at
    200, 400, then 1000 bits. ``goal=None``: do the hypotheses certainly hold at ``point``?
    """
    if not _assumptions_hold(point):
        return False
    old = ctx.prec
    try:
        for bits in _RECHECK_BITS:
            ctx.prec = bits
            hyps = [truth(h, point) for h in hypotheses]
            if False in hyps:
                return False
            g = False if goal is None else truth(goal, point)
            if g is True:
                return False
            if g is False and all(h is True for h in hyps):
                return True
        return False
    finally:
        ctx.prec = old


def _box(symbols: Sequence[sp.Symbol], hypotheses: Sequence[Any]) -> dict[sp.Symbol, tuple[Fraction, Fraction]] | None:
    """Rational bounds on every symbol read off hypotheses ``s <= c``, ``c <= s`` (strict or not); None if one is unbounded."""
    lo: dict[sp.Symbol, Fraction] = {}
    hi: dict[sp.Symbol, Fraction] = {}
    for h in hypotheses:
        if not isinstance(h, sp.core.relational.Relational) or isinstance(h, (sp.Equality, sp.Unequality)):
            continue
        small, big = (h.lhs, h.rhs) if isinstance(h, (sp.LessThan, sp.StrictLessThan)) else (h.rhs, h.lhs)
        if isinstance(small, sp.Symbol) and big.is_Rational:
            hi[small] = min(hi.get(small, Fraction(big.p, big.q)), Fraction(big.p, big.q))
        elif isinstance(big, sp.Symbol) and small.is_Rational:
            lo[big] = max(lo.get(big, Fraction(small.p, small.q)), Fraction(small.p, small.q))
    for s in symbols:
        if s.is_nonnegative and s not in lo:
            lo[s] = Fraction(0)
    if any(s not in lo or s not in hi or s.is_integer for s in symbols):
        return None
    return {s: (lo[s], hi[s]) for s in symbols}


def _solver(ctx: z3.Context, timeout: int = TIMEOUT_MS) -> z3.Solver:
    solver = z3.Solver(ctx=ctx)
    solver.set("rlimit", RLIMIT)
    solver.set("timeout", timeout)
    solver.set("random_seed", 0)
    return solver


def _point(model: z3.ModelRef, tr: Translation, symbols: Sequence[sp.Symbol]) -> list[Fraction | None]:
    return [_rational(model.eval(tr.vars[s], model_completion=True)) for s in symbols]


def _solve(tr: Translation, symbols: Sequence[sp.Symbol], facts: Sequence[z3.BoolRef], timeout: int) -> tuple[int, list[Fraction | None] | None]:
    solver = _solver(tr.ctx, timeout)
    solver.add(*facts)
    result = solver.check()
    return result.r, (_point(solver.model(), tr, symbols) if result == z3.sat else None)


def _solve_forked(tr: Translation, symbols: Sequence[sp.Symbol], facts: Sequence[z3.BoolRef], timeout: int) -> tuple[int, list[Fraction | None] | None]:
    """:func:`_solve` in a forked process, killed after ``timeout`` ms: the only way to stop Z3 on a high degree."""
    fork = multiprocessing.get_context("fork")
    reader, writer = fork.Pipe(duplex=False)
    process = fork.Process(target=lambda: writer.send(_solve(tr, symbols, facts, timeout)), daemon=True)
    process.start()
    writer.close()
    try:
        if reader.poll(timeout / 1000):
            return cast(tuple[int, list[Fraction | None] | None], reader.recv())
        return z3.Z3_L_UNDEF, None
    except EOFError:  # the process died without an answer
        return z3.Z3_L_UNDEF, None
    finally:
        if process.is_alive():
            process.kill()
        process.join()
        reader.close()


def _check(tr: Translation, symbols: Sequence[sp.Symbol], *facts: z3.BoolRef, timeout: int = TIMEOUT_MS,
           deadline: float | None = None, forked: bool = False) -> tuple[z3.CheckSatResult, dict[sp.Symbol, Fraction] | None]:
    """Z3's answer on ``facts``, within ``timeout`` ms and the decision's ``deadline``; with ``sat``, the symbols' values.

    The values are rationals read off the model (an algebraic value is rounded: a candidate only); a symbol
    whose value is not read is left out.
    """
    if deadline is not None:
        timeout = min(timeout, int((deadline - time.monotonic()) * 1000))
        if timeout <= 0:
            return z3.unknown, None
    status, values = (_solve_forked if forked else _solve)(tr, symbols, facts, timeout)
    point = None if values is None else {s: v for s, v in zip(symbols, values, strict=True) if v is not None}
    return z3.CheckSatResult(status), point


def _satisfiable(hypotheses: tuple[Any, ...], deadline: float) -> bool | None:
    if any(h is False or h is sp.false for h in hypotheses):
        return False
    if not hypotheses:  # the symbols' assumptions alone (one sign and integrality each) always have a common solution
        return True
    symbols = sorted(set().union(*(h.free_symbols for h in hypotheses)), key=lambda s: s.name)
    tr = Translation(enclose_constant)
    try:
        hz = [tr.formula(h) for h in hypotheses]
        for s in symbols:
            tr.symbol(s)
    except UnsupportedFormula:
        return None
    defined = z3.And(*tr.defined) if tr.defined else z3.BoolVal(True, tr.ctx)
    forked = max(degree(h) for h in hypotheses) > MAX_DEGREE
    status, point = _check(tr, symbols, *tr.side, *hz, defined, deadline=deadline, forked=forked)
    if status == z3.unsat:  # the side facts are true of the real functions: no real point satisfies the hypotheses
        return False
    if status == z3.sat and not tr.abstracted:  # an exact translation: Z3's model is a real solution
        return True
    if status == z3.sat and point is not None and len(point) == len(symbols) and recheck(None, hypotheses, point):
        return True
    return None


def satisfiable(hypotheses: Sequence[Any], *, time_limit: float | None = None) -> bool | None:
    """Do ``hypotheses`` (with their symbols' declared assumptions) have a common real solution?

    True when Z3 finds one on the exact translation, or its candidate re-checks exactly (the translation
    replaced a transcendental function by true facts about it); False when Z3 shows there is none (its
    ``unsat``: the facts added about functions are true, so no real point satisfies them); None when
    undecided (within ``time_limit`` seconds, default :data:`TIME_LIMIT`).

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> satisfiable([x > 1, x < 0]), satisfiable([x > 1, x < 2])
    (False, True)
    """
    hypotheses = tuple(h for h in hypotheses if not (h is True or h is sp.true))
    for h in hypotheses:
        for s in getattr(h, "free_symbols", ()):
            check_real_symbol(s)
    return _satisfiable(hypotheses, time.monotonic() + (TIME_LIMIT if time_limit is None else time_limit))


def vacuity_text(hypotheses: Sequence[Any], answer: bool | None) -> str:
    """What to print beside a PROVED when :func:`satisfiable` answered ``answer`` on its ``hypotheses``."""
    if answer is True:
        return ""
    shown = "; ".join(dict.fromkeys(str(h) for h in hypotheses))
    symbols = sorted(set().union(*(getattr(h, "free_symbols", set()) for h in hypotheses)), key=lambda s: s.name)
    declared = "; ".join(a for s in symbols for a in _assumption_text(s) if not a.endswith("read as real"))
    shown += f" (with {declared})" if declared else ""
    if answer is False:
        return f"vacuous: the hypotheses {shown} have no common solution"
    return f"hypotheses not shown satisfiable: {shown}"


def _proved(method: str, note: str, where: tuple[str, ...], hypotheses: tuple[Any, ...], deadline: float) -> Decision:
    """A PROVED, with the satisfiability of its hypotheses (a vacuous implication says nothing)."""
    vacuity = vacuity_text(hypotheses, _satisfiable(hypotheses, deadline))
    return Decision(Verdict.PROVED, method, note, None, where, vacuity=vacuity)


@functools.lru_cache(maxsize=8192)
def _decide_cached(goal: Any, hypotheses: tuple[Any, ...], rewrites: tuple[Any, ...], time_limit: float) -> Decision:
    deadline = time.monotonic() + time_limit
    symbols = sorted(set().union(goal.free_symbols, *(h.free_symbols for h in hypotheses)), key=lambda s: s.name)
    shown = tuple(str(h) for h in hypotheses)
    candidate: dict[sp.Symbol, Fraction] | None = None
    reasons = []
    abstracted = False
    # the goal as written first, for its definedness (and a proof); then the rewrites; a goal with rewrites is decided
    # by them first when they are cheaper (a rewrite to 0), so the goal's own Z3 query runs once, after them
    order = (goal, *rewrites) if not rewrites else (goal, *rewrites, goal)
    high_degree = max(degree(e) for e in (goal, *hypotheses)) > MAX_DEGREE
    timeout = HIGH_DEGREE_TIMEOUT_MS if high_degree else TIMEOUT_MS
    for position, form in enumerate(order):
        if time.monotonic() >= deadline:
            break
        definedness_only = bool(rewrites) and position == 0
        tr = Translation(enclose_constant)
        try:
            hz = [tr.formula(h) for h in hypotheses]
            gz = tr.formula(form)
            for s in symbols:
                tr.symbol(s)
        except UnsupportedFormula as exc:
            reasons.append(str(exc))
            if position == 0:
                break  # definedness is decided on the goal as written, before any rewriting: no rewrite may help
            continue
        where = tuple(tr.assumptions) + shown
        defined = z3.And(*tr.defined) if tr.defined else z3.BoolVal(True, tr.ctx)
        status, _ = _check(tr, [], *tr.side, *hz, z3.Not(defined), timeout=timeout, deadline=deadline, forked=high_degree)
        if status != z3.unsat:
            reasons.append("not shown to be defined at every point of the domain (a division by zero, an even root or "
                           "log of a negative number, or a function outside its real domain, is not excluded)")
            if position == 0:
                break  # a rewrite (tan(x) cos(x) -> sin(x)) may remove the undefined points: it proves nothing then
            continue
        if definedness_only:
            continue
        status, point = _check(tr, symbols, *tr.side, *hz, z3.Not(gz), timeout=timeout, deadline=deadline, forked=high_degree)
        abstracted = abstracted or bool(tr.abstracted)
        if status == z3.unsat:
            method = "z3+abstraction" if tr.abstracted else "z3"
            note = ("Z3: the negation is unsatisfiable" + (f" (with true facts about {', '.join(map(str, tr.abstracted[:4]))})"
                                                            if tr.abstracted else ""))
            return _proved(method, note, where, hypotheses, deadline)
        if status == z3.sat and point is not None and candidate is None:
            candidate = point
        if status == z3.unknown and time.monotonic() >= deadline:
            break
        if status == z3.unknown:
            reasons.append("Z3: unknown (resource limit)")
            if sum("resource limit" in r for r in reasons) >= 2:
                break  # the rewrites are no easier: stop spending
    hypotheses_text = tuple(sorted({a for s in symbols for a in _assumption_text(s)})) + shown
    keys = point_keys(symbols)
    if candidate is not None and len(candidate) == len(symbols) and recheck(goal, hypotheses, candidate):
        return Decision(Verdict.DISPROVED, "z3+exact", "counterexample re-checked exactly",
                        {keys[s]: str(v) for s, v in candidate.items()}, hypotheses_text)
    box = _box(symbols, hypotheses)
    if box is not None:
        proved, corner = branch_and_bound(goal, list(hypotheses), box, deadline=deadline)
        if proved:
            return _proved("interval", f"arb branch and bound on the box {_box_text(box)}", hypotheses_text, hypotheses, deadline)
        if corner is not None and recheck(goal, hypotheses, corner):
            return Decision(Verdict.DISPROVED, "interval+exact", "counterexample re-checked exactly",
                            {keys[s]: str(v) for s, v in corner.items()}, hypotheses_text)
        reasons.append("interval branch and bound: not certified within its budget")
    elif abstracted:
        reasons.append("Z3 knows the transcendental functions only through bounds; no bounded box for interval arithmetic")
    if candidate is not None:
        reasons.append("Z3's candidate counterexample did not re-check exactly (dropped)")
    if time.monotonic() >= deadline:
        reasons.insert(0, f"time limit ({time_limit:g} s per decision)")
    return Decision(Verdict.UNDECIDED, "z3", "; ".join(dict.fromkeys(reasons)) or "undecided", None, hypotheses_text)


def degree(e: Any) -> int:
    """An upper bound on the polynomial degree of ``e``, for :data:`MAX_DEGREE`.

    A product adds, an integer power multiplies; a function or a non-integer power counts as its argument's degree.
    """
    if isinstance(e, sp.Symbol):
        return 1
    args = getattr(e, "args", ())
    if not args:
        return 0
    if isinstance(e, sp.Pow) and e.args[1].is_Integer:
        return abs(int(e.args[1])) * degree(e.args[0])
    if isinstance(e, sp.Pow) and e.args[1].is_Rational:  # b**(p/q) is translated through t**q == b, then t**p
        return max(abs(int(e.args[1].p)), int(e.args[1].q)) * degree(e.args[0])
    if isinstance(e, sp.Mul):
        return sum(degree(a) for a in args)
    return max(degree(a) for a in args)


def point_keys(symbols: Sequence[sp.Symbol]) -> dict[sp.Symbol, str]:
    """The key of each symbol in a counterexample: its name, made unambiguous when two symbols share it.

    A ``Dummy("x")`` beside ``Symbol("x")`` is ``_x``; ``Symbol("x", positive=True)`` beside
    ``Symbol("x", real=True)`` is ``x (x > 0)``: no coordinate of a point hides another.
    """
    by_name: dict[str, list[sp.Symbol]] = {}
    for s in symbols:
        by_name.setdefault(s.name, []).append(s)
    keys: dict[sp.Symbol, str] = {}
    for name, group in by_name.items():
        plain = [s for s in group if not isinstance(s, sp.Dummy)]
        for s in group:
            if len(group) == 1 or (len(plain) == 1 and s is plain[0]):
                keys[s] = name
            elif isinstance(s, sp.Dummy):
                keys[s] = f"_{name}" if sum(isinstance(t, sp.Dummy) for t in group) == 1 else f"_{name}{s.dummy_index}"
            else:
                keys[s] = f"{name} ({', '.join(_assumption_text(s)) or name + ' real'})"
    return keys


def _assumption_text(s: sp.Symbol) -> list[str]:
    names = {"positive": "> 0", "negative": "< 0", "nonnegative": ">= 0", "nonpositive": "<= 0", "nonzero": "!= 0"}
    out = [f"{s} {text}" for key, text in names.items() if s.assumptions0.get(key) is True][:1]
    if s.is_integer:
        out.append(f"{s} integer")
    if s.is_real is None:  # a plain Symbol("z"): sympy allows complex values, the kernel decides over the reals
        out.append(f"{s} read as real")
    return out


def _box_text(box: Mapping[sp.Symbol, tuple[Fraction, Fraction]]) -> str:
    return ", ".join(f"{s} in [{lo}, {hi}]" for s, (lo, hi) in box.items())


def decide(goal: Any, hypotheses: Sequence[Any] = (), *, rewrites: Sequence[Any] = (), time_limit: float | None = None) -> Decision:
    """Do ``hypotheses`` imply ``goal`` for every real value of the free symbols (under their assumptions)?

    Parameters
    ----------
    goal : sympy relation (or And/Or/Not of relations)
        Built unevaluated (``sp.Ge(e, 0, evaluate=False)``): a relation that sympy already turned into
        True/False was decided by sympy, and is refused.
    hypotheses : sequence of sympy relations
        The domain (``where=`` conditions, a region's conditions, a box).
    rewrites : sequence of sympy relations
        Forms of the goal that are equal to it (from sympy's rewriting); tried for a proof only: a
        counterexample is always re-checked against ``goal`` itself.
    time_limit : float, optional
        Wall-clock seconds for the whole decision (default :data:`TIME_LIMIT`); past it, UNDECIDED with the
        reason "time limit".

    A PROVED is checked for vacuity: its ``vacuity`` says when the hypotheses have no common solution (or
    that is not shown), and so does the end of its claim.
    """
    # a hypothesis sympy already evaluated to True (k >= 1 for a positive integer k) holds everywhere: it restricts nothing
    hypotheses = [h for h in hypotheses if not (h is True or h is sp.true)]
    for h in (goal, *hypotheses, *rewrites):
        for s in getattr(h, "free_symbols", ()):
            check_real_symbol(s)
        if isinstance(h, (bool, sp.logic.boolalg.BooleanAtom)):
            return Decision(Verdict.UNDECIDED, "none", f"a relation already evaluated to {h} (by sympy) is not a statement "
                            "the kernel can check; build it with evaluate=False")
    limit = TIME_LIMIT if time_limit is None else float(time_limit)
    if not limit > 0:
        raise InvalidArgument(f"decide: time_limit must be a positive number of seconds, got {time_limit!r}")
    d = _decide_cached(goal, tuple(hypotheses), tuple(rewrites), limit)
    return dataclasses.replace(d, claim=claim_text(goal) + (f" ({d.vacuity})" if d.vacuity else ""))


def claim_text(goal: Any) -> str:
    """The statement decided, with the domain it covers: ``z**2 >= 0 for all real z``.

    The kernel decides over the reals; the symbols' assumptions and the hypotheses are listed beside it, in
    :attr:`Decision.hypotheses`.
    """
    names = sorted(s.name for s in getattr(goal, "free_symbols", ()))
    return f"{goal} for all real {', '.join(names)}" if names else str(goal)


_C1_EVERYWHERE = (sp.exp, sp.sin, sp.cos, sp.tanh, sp.atan, sp.erf, sp.erfc, sp.sinh, sp.cosh, sp.asinh)


def c1_conditions(e: Any) -> list[Any]:
    """Conditions under which ``e`` is C^1 (continuously differentiable) in its symbols, from a whitelist.

    Sums, products and integer powers are C^1 where every factor is and no denominator vanishes;
    ``exp, sin, cos, tanh, atan, erf, erfc, sinh, cosh, asinh`` everywhere; ``log(u)`` and non-integer powers
    ``u**r`` where ``u > 0``. Anything else (``Abs``, ``Max``, ``sign``, ``floor``, ``Piecewise``, ``tan``,
    ``acot``, ``arg``, an unknown function) raises :class:`NotSmooth`: a derivative bound says nothing about it.
    """
    e = sp.sympify(e)
    if not e.free_symbols:
        return []
    if isinstance(e, sp.Symbol):
        return []
    if isinstance(e, (sp.Add, sp.Mul)):
        return [c for a in e.args for c in c1_conditions(a)]
    if isinstance(e, sp.Pow):
        base, exp = e.args
        out = c1_conditions(base) + c1_conditions(exp)
        if exp.is_Integer and exp >= 0:
            return out
        if exp.is_Integer:
            return [*out, sp.Ne(base, 0, evaluate=False)]
        return [*out, sp.Gt(base, 0, evaluate=False)]
    if isinstance(e, _C1_EVERYWHERE):
        return c1_conditions(e.args[0])
    if isinstance(e, sp.log):
        return [*c1_conditions(e.args[0]), sp.Gt(e.args[0], 0, evaluate=False)]
    raise NotSmooth(f"{e.func.__name__} is not on the kernel's list of C^1 functions (in {e})")
