"""Is a map ``L``-Lipschitz? :func:`lipschitz` proves it (sympy input) or looks for a counterexample.

Claim: ``||f(x) - f(y)||_p <= L ||x - y||_p`` for all ``x, y`` in the domain, with the same norm
``p`` (1, 2 or infinity) on inputs and outputs.

**sympy input** (an expression in real symbols, a sequence of them for a vector map, or a
``sympy.Lambda``): a proof is attempted.

* Kinks (``Min``, ``Max``, ``Abs``, ``Piecewise``, ``sign``, ``Heaviside``) whose comparisons are
  between symbols and numbers: a case split of the *pair* residual, e.g.
  ``L |x - y| - |f(x) - f(y)|``, over every weak ordering of ``x, y`` and the kinks' thresholds
  (:mod:`dpaudit.verify.piecewise`; coverage checked). No premise: the split is exhaustive. For a
  vector map whose components depend on disjoint sets of inputs the claim splits per component
  (for the l-infinity norm it always does: each component against the largest input difference).
* No kinks (a smooth map): a bound on the Jacobian's operator norm, ``||J(z)||_{p->p} <= L`` for all
  ``z`` (the dual norm of the gradient for a scalar map), on the open box when ``domain`` is given.
  Premise: the mean value inequality.

Whatever the proof says, the claim is also searched for a counterexample numerically
(:mod:`dpaudit.verify.search`); a candidate pair found numerically or in a failing case is
re-checked in exact arithmetic before it makes the verdict DISPROVED. So: PROVED, DISPROVED with an
exact pair, or UNDECIDED with the reason.

**A Python callable** on a 1-d numpy array (``dim`` required): counterexample search only. The
answer is DISPROVED with the pair (the exact floats, re-evaluated to confirm) or UNDECIDED with the
evidence (pairs searched, the largest ratio seen); never PROVED.

Tolerance: a numerical pair counts only if ``||f(x) - f(y)|| > L ||x - y|| + tolerance * scale``
with ``scale`` the larger of the distances compared, ``||f(x) - f(y)||`` and ``L ||x - y||`` (an offset
of the values cannot hide a violation), decided exactly on the floats; ``tolerance=0`` asks for the
exact comparison. For a sympy map every numerical pair is then re-checked on the exact map.

Examples
--------
>>> import sympy as sp
>>> from dpaudit import verify
>>> x = sp.Symbol("x", real=True)
>>> verify.lipschitz(sp.Min(sp.Max(x, -1), 1), 1).verdict_text()
'PROVED'
>>> result = verify.lipschitz(sp.Min(sp.Max(x, -1), 1), sp.Rational(1, 2))
>>> result.verdict_text(), result.counterexample["x"], result.counterexample["y"]
('DISPROVED', ['1'], ['-1/3'])
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from dpaudit._text import counted
from dpaudit._validation import argument_error, check_int, check_nonnegative
from dpaudit.verify._inputs import exact_constant
from dpaudit.verify._record import _assumption_text
from dpaudit.verify.box import ExactBox, exact_box
from dpaudit.verify.decide import exact_floats
from dpaudit.verify.lipschitz_routes import (
    _MEAN_VALUE,
    _assumption_relations,
    _by_cases,
    _by_gradient,
    _by_kernel,
    _by_radial,
    _c1_conditions,
    _point_labels,
    _second_point,
)
from dpaudit.verify.piecewise import CaseSplitError, has_kinks
from dpaudit.verify.proof import Proof
from dpaudit.verify.refute import as_fraction, refute_lipschitz
from dpaudit.verify.regions import le
from dpaudit.verify.search import DEFAULT_BUDGET, search_pairs
from dpaudit.verify.verdict import CheckResult, Verdict, _amend

__all__ = ["DEFAULT_TOLERANCE", "lipschitz", "nonexpansive", "parse_norm"]

#: Relative tolerance of numerical comparisons (see the module docstring).
DEFAULT_TOLERANCE = 1e-9

_SOURCE = "dpaudit.verify.lipschitz"


def parse_norm(owner: str, norm: Any) -> float:
    """``1``, ``2`` or ``inf`` (also ``"l1"``, ``"l2"``, ``"linf"``, ``"inf"``, ``numpy.inf``) as a float."""
    names = {"l1": 1.0, "l2": 2.0, "linf": math.inf, "inf": math.inf}
    if isinstance(norm, str) and norm.lower() in names:
        return names[norm.lower()]
    if not isinstance(norm, bool) and isinstance(norm, (int, float, np.integer, np.floating)) and float(norm) in (1.0, 2.0, math.inf):
        return float(norm)
    raise argument_error(owner, "norm", "1, 2 or inf (also 'l1', 'l2', 'linf')", norm)


def _exact_constant(owner: str, constant: Any) -> sp.Expr:
    """``constant`` as an exact sympy expression.

    A positive number (a float at its exact binary value), or a symbolic expression (a parameter of
    the claim, quantified like the others; restrict it with ``where``).
    """
    return exact_constant(owner, "constant", constant)


def _exact_floats(expr: Any) -> tuple[Any, list[str]]:
    """``expr`` with every sympy Float replaced by its exact value, and a note per replacement.

    A float is a binary fraction: ``0.1`` is 3602879701896397/36028797018963968, not 1/10. The notes
    are printed with the verdict; see :func:`dpaudit.verify.decide.exact_floats`.
    """
    return exact_floats(expr)


def _seeded(seed: int | None, key: str) -> np.random.Generator:
    if seed is None:
        digest = hashlib.sha256(key.encode()).digest()
        return np.random.default_rng(int.from_bytes(digest[:8], "little"))
    return np.random.default_rng(check_int("lipschitz", "seed", seed, minimum=0))


def lipschitz(f: Any, constant: Any, *, norm: Any = 2, domain: tuple[Any, Any] | None = None, dim: int | None = None,
              seed: int | None = None, budget: int | None = None, tolerance: float = DEFAULT_TOLERANCE,
              variables: Sequence[sp.Symbol] | None = None, where: Sequence[Any] = ()) -> CheckResult:
    """Prove or refute ``||f(x) - f(y)||_p <= constant * ||x - y||_p`` for all ``x, y`` in the domain.

    Parameters
    ----------
    f : sympy expression, sequence of expressions, sympy.Lambda, or callable
        The map. A sympy input is a function of ``variables`` (default: all its free symbols, sorted
        by name; symbols not declared real are read as real); other free symbols are parameters,
        universally quantified (restrict them with ``where``) over their declared domains: a parameter declared
        ``positive`` or ``integer`` is named so in the claim (``given k >= 1, k integer``). A callable takes a 1-d float array of
        length ``dim`` and returns a scalar or a 1-d array.
    constant : positive number
        ``L``. A float is taken at its exact binary value.
    norm : 1, 2 or inf
        The norm on inputs and outputs (the same for both).
    domain : (low, high), optional
        A box: every input coordinate in ``[low, high]`` (scalars, or one bound per coordinate). The bounds
        are exact: ints, Fractions, sympy Rationals, or floats read at their exact binary value (printed with
        a note when it differs from the decimal shown); a search in floats stays inside the box (rounded
        inward). Default: all of ``R^dim``.
    dim : int
        Input dimension of a callable (ignored for sympy input).
    seed : int, optional
        Seeds the counterexample search (default: a fixed seed derived from the claim).
    budget : int, optional
        Pairs the search evaluates (default 2000; 600 per parameter setting for sympy input).
    tolerance : float
        Relative tolerance of numerical comparisons (module docstring); 0 for exact comparison.
    variables : sequence of sympy symbols, optional
        The inputs of a sympy map (the other free symbols are parameters).
    where : sequence of sympy relations
        Hypotheses on parameters and inputs (e.g. ``a <= b``), part of the claim.

    Returns
    -------
    CheckResult
        ``verdict``; ``counterexample`` (the pair, with ``f`` at both points) when DISPROVED;
        ``reason`` when UNDECIDED; ``premises`` taken on trust; ``evidence`` of the search (pairs
        searched, the largest ratio seen and where).

    Raises
    ------
    dpaudit.errors.InvalidArgument
        On a bad ``constant``, ``norm``, ``domain``, ``dim``, ``budget``, ``seed`` or ``tolerance``.
    """
    owner = "lipschitz"
    p = parse_norm(owner, norm)
    L = _exact_constant(owner, constant)
    tol = Fraction(check_nonnegative(owner, "tolerance", tolerance))
    if budget is not None:
        budget = check_int(owner, "budget", budget, minimum=1)
    if isinstance(f, sp.Lambda):
        variables = list(f.variables) if variables is None else variables
        f = f.expr
    if isinstance(f, sp.Basic) or (isinstance(f, (list, tuple, sp.MatrixBase)) and f and all(isinstance(e, sp.Basic) for e in f)):
        return _symbolic(f, L, p, domain, variables, list(where), seed, budget, tol)
    if callable(f):
        if dim is None:
            raise argument_error(owner, "dim", "the input dimension of the callable (a positive int)", dim)
        dim = check_int(owner, "dim", dim, minimum=1)
        return _numerical(f, L, p, dim, exact_box(owner, domain, dim), seed, budget or DEFAULT_BUDGET, tol)
    raise argument_error(owner, "f", "a sympy expression, a sequence of them, a sympy.Lambda, or a callable on 1-d arrays", f)


def nonexpansive(projection: Any, **kwargs: Any) -> CheckResult:
    """:func:`lipschitz` with constant 1: ``||P(x) - P(y)|| <= ||x - y||``.

    Examples
    --------
    >>> import numpy as np
    >>> from dpaudit import verify
    >>> verify.nonexpansive(lambda v: np.clip(v, -1, 1), dim=2, norm="inf", budget=200).verdict_text()[:9]
    'UNDECIDED'
    """
    if "constant" in kwargs:
        raise argument_error("nonexpansive", "constant", "left out (nonexpansive means constant 1)", kwargs["constant"])
    return lipschitz(projection, 1, **kwargs)


def _norm_word(p: float) -> str:
    return "inf" if p == math.inf else str(int(p))


def _shown_constant(L: sp.Expr) -> str:
    """``L`` for a person: a constant given as a float prints as that float (``0.9``).

    Not as its exact binary value ``8106479329266893/9007199254740992``, which is what is checked.
    """
    if isinstance(L, sp.Rational) and not isinstance(L, sp.Integer):
        q = int(L.q)
        if q > 2**20 and q & (q - 1) == 0:  # a dyadic rational with a long denominator: a float's value
            shown = repr(float(L))
            if sp.Rational(float(L)) == L and sp.Rational(shown) != L:
                return f"{shown} (the float's exact binary value)"
    return str(L)


# -- numerical maps ----------------------------------------------------------------------------


def _numerical(f: Callable[..., Any], L: sp.Expr, p: float, dim: int, box: ExactBox | None,
               seed: int | None, budget: int, tol: Fraction) -> CheckResult:
    where = f"R^{dim}" if box is None else f"the box {box.text()}"
    low, high = (None, None) if box is None else box.float_bounds()  # rounded inward: every point tried is in the box
    claim = (f"||f(x) - f(y)||_{_norm_word(p)} <= {_shown_constant(L)} ||x - y||_{_norm_word(p)} for all x, y in {where} "
             f"(f = {getattr(f, '__name__', repr(f))})")
    key = f"{_SOURCE}/callable/{dim}/{p}/{L}"
    proof = Proof(key)
    proof.given(claim, *(box.notes if box is not None else ()))
    search = search_pairs(f, dim, norm=p, constant=as_fraction(L), rng=_seeded(seed, key), budget=budget,
                          low=low, high=high, tolerance=tol)
    label = f"counterexample search ({counted(search.pairs, 'pair')}, tolerance {float(tol):g})"
    if search.violation is not None:
        proof.rechecked_pair(label, search.violation, cases=search.pairs, constant=L, norm=p,
                             note=f"||f(x) - f(y)|| / ||x - y|| = {search.violation['ratio']:.6g} > {L}")
    else:
        proof.instance(label, True, point={}, cases=search.pairs)
    result = proof.result()
    evidence = _evidence(search, tol)
    reason = result.reason
    if result.verdict is Verdict.UNDECIDED:
        reason = (f"no counterexample in {counted(search.pairs, 'pair')} (largest ratio {search.best_ratio:.10g} after the tolerance); "
                  "a search can only refute, never prove")
    return _amend(result, claim=claim, source=_SOURCE, reason=reason, evidence=evidence)


def _evidence(search: Any, tol: Fraction) -> dict[str, Any]:
    out: dict[str, Any] = {
        "pairs searched": search.pairs,
        "largest ratio (after the tolerance)": search.best_ratio,
        "largest ratio (well-separated pairs)": search.best_raw_ratio,
        "tolerance": float(tol),
        "pairs per strategy": dict(search.strategies),
    }
    if search.best_pair is not None:
        out["largest ratio at"] = {"x": search.best_pair[0].tolist(), "y": search.best_pair[1].tolist()}
    if search.nonfinite:
        out["pairs where f was not finite"] = search.nonfinite
    return out


# -- sympy maps --------------------------------------------------------------------------------


def _components(f: Any) -> list[sp.Expr]:
    if isinstance(f, sp.MatrixBase):
        return [sp.sympify(e) for e in f]
    if isinstance(f, (list, tuple, sp.Tuple)):  # a vector map (a sympy.Lambda returning a tuple gives a sympy Tuple)
        return [sp.sympify(e) for e in f]
    return [sp.sympify(f)]


def _as_real(exprs: list[sp.Expr], variables: Sequence[sp.Symbol] | None, where: list[Any]
             ) -> tuple[list[sp.Expr], list[sp.Symbol], list[sp.Symbol], list[Any], list[str]]:
    """Replace symbols not declared real by real ones of the same name; split inputs from parameters.

    Floats become exact rationals (with a note); a ``where`` condition that sympy already evaluated to True or
    False, or a variable the map does not depend on, is refused.
    """
    float_notes: list[str] = []
    converted = []
    for e in exprs:
        e, n = _exact_floats(e)
        converted.append(e)
        float_notes += n
    exprs = converted
    checked = []
    for w in where:
        if isinstance(w, (bool, sp.logic.boolalg.BooleanAtom)) or not isinstance(w, sp.Basic):
            raise argument_error("lipschitz", "where", "sympy relations between expressions (a condition that is already "
                                 "True or False says nothing)", w)
        w, n = _exact_floats(w)
        checked.append(w)
        float_notes += n
    where = checked
    if variables is not None:
        used = set().union(*(e.free_symbols for e in exprs))
        for v in variables:
            if isinstance(v, sp.Symbol) and not any(v.name == u.name for u in used):
                raise argument_error("lipschitz", "variables", f"symbols the map depends on (f does not contain {v})", variables)
    free = sorted(set().union(*(e.free_symbols for e in exprs)) | set().union(*(sp.sympify(w).free_symbols for w in where)),
                  key=lambda s: s.name)
    for a, b in itertools.combinations(free, 2):  # the map is lambdified and points are keyed by name: names must differ
        if a.name == b.name:
            raise argument_error("lipschitz", "f", "a map whose symbols have distinct names (two different symbols are "
                                 f"named {a.name!r}: {_assumption_text(a)!r} and {_assumption_text(b)!r})", a.name,
                                 "rename one of them")
    renamed = {s: sp.Symbol(s.name, real=True) for s in free if s.is_real is not True}
    notes = [f"{s} read as real (no assumption declared)" for s in renamed]
    exprs = [e.xreplace(renamed) for e in exprs]
    where = [sp.sympify(w).xreplace(renamed) for w in where]
    if variables is None:
        inputs = sorted(set().union(*(e.free_symbols for e in exprs)), key=lambda s: s.name)
    else:
        inputs = [renamed.get(v, v) for v in variables]
        for v in inputs:
            if not isinstance(v, sp.Symbol):
                raise argument_error("lipschitz", "variables", "sympy symbols", variables)
    params = sorted({renamed.get(s, s) for s in free} - set(inputs), key=lambda s: s.name)
    for v in inputs:  # the pair residual is decided over the reals: an integer input would be two different claims
        if v.is_integer:
            raise argument_error("lipschitz", "variables", "real inputs (a Lipschitz claim over the integers is not "
                                 f"supported; {v} is declared integer)", v)
    return exprs, inputs, params, where, float_notes + notes


#: A symbol's declared sign as text, most specific first; an integer's strict bounds are printed as the integers they mean.
_SIGNS = (("zero", "= 0", "= 0"), ("positive", "> 0", ">= 1"), ("negative", "< 0", "<= -1"), ("nonnegative", ">= 0", ">= 0"),
          ("nonpositive", "<= 0", "<= 0"), ("nonzero", "!= 0", "!= 0"))
#: A symbol's declared number class, most specific first (prime implies integer, integer implies rational).
_CLASSES = (("prime", "prime"), ("composite", "composite"), ("even", "even"), ("odd", "odd"), ("integer", "integer"),
            ("rational", "rational"), ("irrational", "irrational"), ("noninteger", "not an integer"))


def _parameter_hypotheses(s: sp.Symbol) -> list[str]:
    """A parameter's declared assumptions beyond ``real``, as the claim prints them (``a > 0``; ``k >= 1, k integer``).

    The kernel decides over the symbols' declared domains, so a parameter declared positive or integer restricts the
    claim: ``x/k`` is 1-Lipschitz for a positive integer ``k``, not for ``k = 1/2``.
    """
    facts = s.assumptions0
    integer = facts.get("integer") is True
    out = [f"{s.name} {whole if integer else real}" for key, real, whole in _SIGNS if facts.get(key) is True][:1]
    out += [f"{s.name} {word}" for key, word in _CLASSES if facts.get(key) is True][:1]
    return out


def _symbolic(f: Any, L: sp.Expr, p: float, domain: Any, variables: Sequence[sp.Symbol] | None, where: list[Any],
              seed: int | None, budget: int | None, tol: Fraction) -> CheckResult:
    exprs, xs, params, where, notes = _as_real(_components(f), variables, where)
    params = sorted(set(params) | (L.free_symbols - set(xs)), key=lambda s: s.name)  # a symbolic constant's parameters
    if not xs:
        raise argument_error("lipschitz", "f", "a function of at least one real symbol", f)
    exact = exact_box("lipschitz", domain, len(xs))
    notes += list(exact.notes) if exact is not None else []
    low, high = (None, None) if exact is None else exact.float_bounds()  # for the float search: rounded inward
    ys = _second_point(xs, {s.name for e in (*exprs, *where, L) for s in sp.sympify(e).free_symbols})
    to_y = dict(zip(xs, ys, strict=True))
    box = [] if exact is None else [rel for v, lo, hi in zip(xs, exact.low, exact.high, strict=True)
                                    for rel in (le(lo, v), le(v, hi))]
    hypotheses = where + box
    pair_domain = list(hypotheses) + [h.xreplace(to_y) for h in hypotheses if h.free_symbols & set(xs)]
    assumed = [a for v in xs for a in _assumption_relations(v)]
    pair_domain += assumed + [a.xreplace(to_y) for a in assumed]
    shown = exprs[0] if len(exprs) == 1 else tuple(exprs)
    region = f"R^{len(xs)}" if exact is None else f"the box {exact.text()}"
    if assumed:  # the symbols' own assumptions restrict the domain: the claim says so
        region += " with " + ", ".join(map(str, assumed))
    # the parameters' declared assumptions restrict the claim as much as where= does (a*x with a > 0 and a <= 1 is
    # 1-Lipschitz; with a = -5 it is not): the claim names them
    declared = [text for s in params for text in _parameter_hypotheses(s)]
    given = [*map(str, where), *declared]
    a, b = labels = _point_labels({s.name for s in params})
    claim = (f"||f({a}) - f({b})||_{_norm_word(p)} <= {_shown_constant(L)} ||{a} - {b}||_{_norm_word(p)} for all {a}, {b} in "
             f"{region} with f({', '.join(map(str, xs))}) = {shown}" + (f", given {', '.join(given)}" if given else ""))
    key = f"{_SOURCE}/{sp.srepr(shown)}/{L}/{p}/{domain}/{where}"
    proof = Proof(key)
    proof.kernel_points = []
    proof.given(claim, *notes)
    if L.free_symbols:  # a symbolic constant: L >= 0 is part of the claim (the squared residuals below lose its sign)
        proof.nonneg(f"the constant {L} >= 0 (part of the claim)", L, hypotheses=where)
    reason = ""
    split: list[tuple[sp.Expr, list[Any]]] = []
    try:
        if not _by_kernel(proof, exprs, xs, to_y, L, p, pair_domain) and not _by_radial(proof, exprs, xs, to_y, L, p, low, where):
            smooth = _c1_conditions(exprs)
            if smooth is not None:
                _by_gradient(proof, exprs, xs, L, p, hypotheses + assumed, exact, smooth)
            elif any(has_kinks(e) for e in exprs):
                split = _by_cases(proof, exprs, xs, to_y, L, p, pair_domain)
            else:
                proof.unproved("a derivative bound", "the map uses a function that is not on the kernel's list of C^1 "
                               "functions (a jump, floor, arg, atan(tan(.)), an unknown function): the mean value "
                               "inequality does not apply")
                reason = "no exact proof: not C^1 by the kernel's whitelist and no kink to split"
    except CaseSplitError as exc:
        proof.unproved("the case split or the Jacobian bound", str(exc))
        reason = f"no exact proof: {exc}"
    rng = _seeded(seed, key)
    evidence = refute_lipschitz(proof, split, exprs, xs, ys, params, L, p, low, high, where, pair_domain, rng, budget, tol,
                                labels)
    result = proof.result()
    if result.verdict is Verdict.UNDECIDED:
        reason = "; ".join(r for r in (reason, result.reason) if r)
    else:
        reason = result.reason
    # printed: the claim's domain (the closed box, where=, the inputs' sign assumptions), which the steps cover (the
    # Jacobian's on the open box, the closed one by continuity); the mean value inequality only backs a proof
    domain = tuple(dict.fromkeys([*(str(h) for h in [*hypotheses, *assumed]), *declared]))
    premises = result.premises if result.verdict is Verdict.PROVED else tuple(q for q in result.premises
                                                                             if q.key != _MEAN_VALUE[0])
    return _amend(result, claim=claim, source=_SOURCE, reason=reason, evidence=evidence, domain=domain, premises=premises)
