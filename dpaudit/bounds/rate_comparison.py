"""Comparison of two leading rates over a parameter regime: an exact LP certificate, or a witness direction.

See :mod:`dpaudit.bounds.rates` for the representation and the argument (minimax / LP duality).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp
from scipy import optimize

from dpaudit._validation import argument_error
from dpaudit.bounds.rate_format import _pretty_name
from dpaudit.bounds.rate_kernel import decided_restriction, has_rate_logs, kernel_rate_check
from dpaudit.bounds.rate_regime import regime_directions
from dpaudit.bounds.rates import (
    Monomial,
    Rate,
    _as_expr,
    _check_variables,
    _dominates,
    _log_dominates,
    _poly_dominates,
    leading_rate,
)
from dpaudit.bounds.symbols import RATE_VARIABLES
from dpaudit.bounds.theorem import Bound
from dpaudit.bounds.verdict import Verdict

__all__ = ["Dominance", "RateComparison", "compare_rates", "regime_vectors"]


@dataclass(frozen=True)
class Dominance:
    """Whether every term of A is <= C max(B) over the regime, with evidence."""

    verdict: Verdict
    certificates: tuple[tuple[Fraction, ...], ...] = ()
    witness: Mapping[sp.Symbol, Fraction] | None = None
    offending: Monomial | None = None
    margin: float = 0.0
    note: str = ""
    restricted: tuple[str, ...] = ()
    """PROVED only where these hold (``n >= E``: every log of a rate variable with a log factor is >= 1); empty when
    proved on the whole regime (:func:`~dpaudit.bounds.rate_kernel.decided_restriction`)."""


@dataclass(frozen=True)
class RateComparison:
    """Result of :func:`compare_rates`.

    Attributes
    ----------
    a, b : Rate
        The compared rates (same variables and directions).
    a_le_b, b_le_a : Dominance
        ``A <= C B`` and ``B <= C A`` everywhere in the regime (or, with log factors, only where its
        ``restricted`` ends hold: ``1 <= C log n`` fails at ``n = 1``), with LP certificates or a witness
        direction (log-space direction ``y`` with ``v = exp(direction_v * y_v * t)``) along which
        the inequality fails.
    constraints : tuple
        Regime constraints the comparison used.
    """

    a: Rate
    b: Rate
    a_le_b: Dominance
    b_le_a: Dominance
    summary: str = field(default="")
    constraints: tuple[Any, ...] = ()

    def point_where_a_larger(self, scale: float = 1e6) -> dict[sp.Symbol, float] | None:
        """A parameter point deep in the region where A exceeds B (``None`` if there is none)."""
        return _witness_point(self.a_le_b, self.a, scale)

    def point_where_b_larger(self, scale: float = 1e6) -> dict[sp.Symbol, float] | None:
        """A parameter point deep in the region where B exceeds A (``None`` if there is none)."""
        return _witness_point(self.b_le_a, self.a, scale)


def _witness_point(dom: Dominance, rate: Rate, scale: float) -> dict[sp.Symbol, float] | None:
    if dom.witness is None:
        return None
    out = {}
    for v, s in zip(rate.variables, rate.directions, strict=True):
        y = float(dom.witness.get(v, Fraction(0)))
        value = float(np.exp(s * y * np.log(scale)))
        if v.is_integer:
            value = float(max(1, round(value)))
        out[v] = value
    return out


def _numeric_vector(mono: Monomial, variables: Sequence[sp.Symbol], directions: Sequence[int]) -> list[sp.Expr] | None:
    """The monomial's log-space exponent vector (``direction * exponent`` per variable), exactly.

    Rationals stay rationals and an irrational closed form (``sqrt(2)``) stays itself, never a
    rounded float (a rational within 1e-18 of ``sqrt(2)`` would make ``n**sqrt(2)`` and
    ``n**(768398401/543339720)`` "the same rate"). None if an exponent has a free symbol.
    """
    out = []
    for v, s in zip(variables, directions, strict=True):
        e = sp.sympify(mono.exponent(v))
        if not e.is_number or e.has(sp.Float):
            return None
        out.append(e * s)
    return out


def _sign(e: Any) -> int | None:
    """The sign of a closed-form number, decided by the verification kernel; None when undecided.

    Exact for rationals, arb balls otherwise.
    """
    from dpaudit.verify.decide import exact_sign

    return exact_sign(sp.sympify(e))


def _at_most(lhs: Any, rhs: Any) -> bool:
    """``lhs <= rhs`` certainly (False when undecided)."""
    return _sign(sp.sympify(rhs) - sp.sympify(lhs)) in (0, 1)


def _q(w: Fraction) -> sp.Rational:
    return sp.Rational(w.numerator, w.denominator)


def _dominance(a: Rate, b: Rate, ignore_logs: bool, cvecs: list[list[sp.Expr]]) -> Dominance:
    variables, directions = a.variables, a.directions
    bvecs = [_numeric_vector(t, variables, directions) for t in b.terms]
    certificates = []
    undecided_note = ""
    for term in a.terms:
        single = [j for j, bt in enumerate(b.terms) if _poly_dominates(bt, term, variables, directions)]
        if single:  # one term of B dominates on the whole orthant (decided by sympy: symbolic exponents are fine)
            lam_single = tuple(Fraction(int(i == single[0])) for i in range(len(b.terms)))
            certificates.append(lam_single)
            if not ignore_logs and not any(_dominates(b.terms[j], term, variables, directions, False) for j in single):
                undecided_note = f"{term.as_expr(with_coefficient=False)} matches only up to log factors"
            continue
        if any(v is None for v in bvecs):
            return Dominance(Verdict.UNDECIDED, note="symbolic exponents in the second rate")
        avec = _numeric_vector(term, variables, directions)
        if avec is None:
            return Dominance(Verdict.UNDECIDED, note=f"symbolic exponents in {term.as_expr()}")
        lam = _certificate(avec, bvecs, cvecs)  # type: ignore[arg-type]
        if lam is None:
            witness, margin = _witness(avec, bvecs, cvecs)  # type: ignore[arg-type]
            if witness is None:
                return Dominance(Verdict.UNDECIDED, offending=term,
                                 note="LP could not certify dominance nor find a witness direction")
            return Dominance(Verdict.DISPROVED, witness=dict(zip(variables, witness, strict=True)), offending=term,
                             margin=margin)
        certificates.append(tuple(lam))
        if not ignore_logs:
            support = [t for t, w in zip(b.terms, lam, strict=True) if w > 0]
            if not all(_log_dominates(s, term) for s in support):
                undecided_note = f"{term.as_expr(with_coefficient=False)} matches only up to log factors"
    if undecided_note:
        return Dominance(Verdict.UNDECIDED, tuple(certificates), note=undecided_note)
    return Dominance(Verdict.PROVED, tuple(certificates))


def _certificate(avec: list[sp.Expr], bvecs: list[list[sp.Expr]], cvecs: list[list[sp.Expr]]) -> list[Fraction] | None:
    """Exact lambda (convex weights) with ``avec + C^T mu <= sum lambda_j bvec_j`` for some mu >= 0, or None.

    By Farkas' lemma this is equivalent to ``<avec, y> <= max_j <bvec_j, y>`` for every y >= 0 with
    ``C y >= 0`` (the regime cone). The LP is solved in floats (a guess only); the certificate is re-checked
    exactly by the verification kernel, entry by entry (irrational exponents included).
    """
    for j, bv in enumerate(bvecs):  # single-term dominance on the orthant first (exact)
        if all(_at_most(x, y) for x, y in zip(avec, bv, strict=True)):
            return [Fraction(int(i == j)) for i in range(len(bvecs))]
    nv, nb, nc = len(avec), len(bvecs), len(cvecs)
    if nb == 1 and nc == 0:
        return None
    # variables: lambda_1..lambda_nb, mu_1..mu_nc
    a_ub = np.array([[-float(bvecs[j][v]) for j in range(nb)] + [float(cvecs[c][v]) for c in range(nc)]
                     for v in range(nv)])
    b_ub = np.array([-float(avec[v]) for v in range(nv)])
    a_eq = np.array([[1.0] * nb + [0.0] * nc])
    res = optimize.linprog(np.zeros(nb + nc), A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[1.0],
                           bounds=[(0, None)] * (nb + nc), method="highs")
    if res.status != 0:
        return None
    for denom in (10**3, 10**6, 10**9):
        lam = [Fraction(float(w)).limit_denominator(denom) if w > 1e-12 else Fraction(0) for w in res.x[:nb]]
        mu = [Fraction(float(w)).limit_denominator(denom) if w > 1e-12 else Fraction(0) for w in res.x[nb:]]
        total = sum(lam)
        if total == 0:
            continue
        lam = [w / total for w in lam]
        if all(_at_most(avec[v] + sum(_q(mu[c]) * cvecs[c][v] for c in range(nc)),
                        sum(_q(lam[j]) * bvecs[j][v] for j in range(nb))) for v in range(nv)):
            return lam
    return None


def _witness(avec: list[sp.Expr], bvecs: list[list[sp.Expr]], cvecs: list[list[sp.Expr]]
             ) -> tuple[list[Fraction] | None, float]:
    """A direction y >= 0 in the regime cone (C y >= 0), sum y = 1, maximising min_j <a - b_j, y>.

    The LP (floats) only proposes y; the cone condition and a positive margin are re-checked exactly by the
    verification kernel.
    """
    nv = len(avec)
    cost = np.zeros(nv + 1)
    cost[-1] = -1.0  # variables y_1..y_nv, t; maximise t
    rows = [[-(float(avec[v]) - float(bv[v])) for v in range(nv)] + [1.0] for bv in bvecs]
    rows += [[-float(cv[v]) for v in range(nv)] + [0.0] for cv in cvecs]
    a_ub = np.array(rows)
    b_ub = np.zeros(len(rows))
    a_eq = np.array([[1.0] * nv + [0.0]])
    res = optimize.linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[1.0],
                           bounds=[(0, None)] * nv + [(None, None)], method="highs")
    if res.status != 0 or -res.fun <= 1e-12:
        return None, 0.0
    y = [Fraction(float(v)).limit_denominator(10**6) if v > 1e-12 else Fraction(0) for v in res.x[:nv]]
    total = sum(y)
    y = [v / total for v in y]
    if not all(_at_most(0, sum(cv[v] * _q(y[v]) for v in range(nv))) for cv in cvecs):
        return None, 0.0
    margins = [sp.Add(*((avec[v] - bv[v]) * _q(y[v]) for v in range(nv))) for bv in bvecs]
    if not all(_sign(m) == 1 for m in margins):
        return None, 0.0  # the margin is not certainly positive
    return y, min(float(m) for m in margins)


def regime_vectors(constraints: Sequence[Any], variables: Sequence[sp.Symbol], directions: Sequence[int]
                   ) -> list[list[sp.Expr]]:
    """Turn asymptotic regime constraints into linear constraints ``<c, y> >= 0`` in log space.

    Each constraint is a sympy relation between two expressions whose ratio is (up to constants and
    log factors) a monomial in the rate variables, e.g. ``n >= sqrt(d)/epsilon`` or ``m <= n**J``
    (with J a number). Constants and logs are dropped: the constraint holds "up to constants".

    Raises
    ------
    InvalidArgument
        If a constraint is not a relation, or its ratio is not a single monomial with numeric exponents.
    """
    out = []
    for rel in constraints:
        if not isinstance(rel, sp.core.relational.Relational) or isinstance(rel, (sp.Eq, sp.Ne)):
            raise argument_error("compare_rates", "constraints", "inequalities between monomials (e.g. n >= sqrt(d)/epsilon)", rel)
        big, small_side = (rel.lhs, rel.rhs) if isinstance(rel, (sp.GreaterThan, sp.StrictGreaterThan)) else (rel.rhs, rel.lhs)
        ratio = leading_rate(big / small_side, variables, small=[v for v, s in zip(variables, directions, strict=True) if s < 0],
                             ignore_logs=True)
        vec = _numeric_vector(ratio.terms[0], variables, directions) if ratio.is_single else None
        if vec is None:
            raise argument_error("compare_rates", "constraints", "a ratio that is one monomial with numeric exponents", rel)
        out.append(vec)
    return out


def compare_rates(
    a: Rate | Bound | sp.Expr,
    b: Rate | Bound | sp.Expr,
    variables: Sequence[sp.Symbol] = RATE_VARIABLES,
    *,
    small: Iterable[sp.Symbol] | None = None,
    ignore_logs: bool = False,
    constraints: Sequence[Any] = (),
    certify: bool = True,
) -> RateComparison:
    """Compare two rates over the regime of the variables: which is smaller, and where.

    Parameters
    ----------
    a, b : Rate, Bound or sympy expression
        The rates (expressions and bounds are passed through :func:`leading_rate`).
    variables, small, ignore_logs
        As in :func:`leading_rate` (each variable's direction checked against its declared domain). Ignored for
        arguments that already are :class:`Rate` objects (both must then share variables and directions).
    constraints : sequence of sympy relations
        Extra asymptotic constraints on the regime, e.g. a theorem's ``n >= sqrt(d)/epsilon``
        (see :func:`regime_vectors`). The regime is then a cone inside the orthant.
    certify : bool
        Decide each direction through the kernel (:func:`~dpaudit.bounds.rate_kernel.kernel_rate_check`, the default):
        a verdict the kernel does not reach is UNDECIDED, the LP's reading kept in ``note``. ``False`` returns the
        LP's reading alone (uncertified evidence, as :func:`~dpaudit.bounds.rate_checks.check_rate` shows it).

    Returns
    -------
    RateComparison
        Verdicts for ``A <= C B`` and ``B <= C A`` (exact LP certificates, or witness directions),
        and a one-line summary.

    Examples
    --------
    >>> from dpaudit.bounds.symbols import n, m
    >>> cmp = compare_rates(sp.sqrt(n * m), n + m, (n, m))
    >>> cmp.a_le_b.verdict.name, cmp.b_le_a.verdict.name
    ('PROVED', 'DISPROVED')
    """
    hidden: set[sp.Symbol] = set()
    for arg in (a, b):
        if isinstance(arg, Bound):
            hidden |= set(arg.hidden_variables)
            ignore_logs = ignore_logs or arg.kind.ignores_logs
    if not isinstance(certify, bool):
        raise argument_error("compare_rates", "certify", "True or False", certify)
    if not isinstance(a, Rate) or not isinstance(b, Rate):
        variables = tuple(v for v in _check_variables(variables, "compare_rates") if v not in hidden)
        regime_directions(variables, small, "compare_rates")  # each variable can reach its end of the regime
    ra = a if isinstance(a, Rate) else leading_rate(_as_expr(a, "compare_rates"), variables, small=small,
                                                      ignore_logs=ignore_logs)
    rb = b if isinstance(b, Rate) else leading_rate(_as_expr(b, "compare_rates"), variables, small=small,
                                                      ignore_logs=ignore_logs)
    if ra.variables != rb.variables or ra.directions != rb.directions:
        raise argument_error("compare_rates", "b", "a rate over the same variables and directions as a",
                             f"variables={rb.variables}, directions={rb.directions}")
    cvecs = regime_vectors(constraints, ra.variables, ra.directions)
    ig = ignore_logs or ra.ignore_logs or rb.ignore_logs
    logged = [i for i, rel in enumerate(constraints) if has_rate_logs(rel, ra.variables)]
    ab = _log_gated(_dominance(ra, rb, ig, cvecs), ra, rb, ig, cvecs, logged)
    ba = _log_gated(_dominance(rb, ra, ig, cvecs), rb, ra, ig, cvecs, logged)
    if certify:
        # every PROVED / DISPROVED passes through the kernel: the LP's reading alone is evidence, not a decision
        xa = ra.as_expr() if isinstance(a, Rate) else _as_expr(a, "compare_rates")
        xb = rb.as_expr() if isinstance(b, Rate) else _as_expr(b, "compare_rates")
        kernel = {name: kernel_rate_check(x, y, key=f"compare_rates: {name}", variables=ra.variables,
                                          directions=ra.directions, ignore_logs=ig, regime=tuple(constraints),
                                          regime_vectors=cvecs)
                  for name, x, y in (("A <= C B", xa, xb), ("B <= C A", xb, xa))}
        ab = _gated(ab, kernel["A <= C B"], ra.variables, ra.directions)
        ba = _gated(ba, kernel["B <= C A"], ra.variables, ra.directions)
    summary = _summary(ra, rb, ab, ba)
    return RateComparison(ra, rb, ab, ba, summary, tuple(constraints))


def _log_gated(dom: Dominance, a: Rate, b: Rate, ignore_logs: bool, cvecs: list[list[sp.Expr]],
               logged: Sequence[int]) -> Dominance:
    """The LP's reading with the regime constraints that have log factors of the rate variables gated.

    As in :func:`~dpaudit.bounds.rate_kernel.kernel_rate_check`: such a constraint (read in log space without its log
    factors) never supports PROVED (the reading without it is kept when PROVED too), and supports DISPROVED only when
    the witness direction satisfies it strictly (``<c, y> > 0``, exact): on its boundary the log factors decide (``log(n)
    <= epsilon n <= 1`` forces ``n <= 2``). Otherwise UNDECIDED, with the reason in ``note``.
    """
    if not logged or dom.verdict is Verdict.UNDECIDED:
        return dom
    if dom.verdict is Verdict.PROVED:
        without = _dominance(a, b, ignore_logs, [c for i, c in enumerate(cvecs) if i not in logged])
        if without.verdict is Verdict.PROVED:
            return without
        why = "PROVED only with a regime constraint with log factors of the rate variables read in log space without them"
    else:
        w = dom.witness or {}
        inside = [sum((sp.sympify(c) * sp.Rational(w.get(v, Fraction(0)).numerator, w.get(v, Fraction(0)).denominator)
                       for c, v in zip(cvecs[i], a.variables, strict=True)), sp.Integer(0)) for i in logged]
        if dom.witness is not None and all(bool(x > 0) for x in inside):
            return dom
        why = ("the witness direction is not strictly inside a regime constraint with log factors of the rate variables "
               "(<c, y> > 0): not a refutation (strictly in log space)")
    return Dominance(Verdict.UNDECIDED, offending=dom.offending,
                     note=f"{why}; the LP's reading: {dom.verdict.name}" + (f"; {dom.note}" if dom.note else ""))


def _gated(dom: Dominance, kernel: Any, variables: Sequence[sp.Symbol], directions: Sequence[int]) -> Dominance:
    """The LP's dominance with the kernel's verdict (:func:`~dpaudit.bounds.rate_kernel.kernel_rate_check`).

    Agreeing readings are kept with their certificate or witness; where the kernel does not decide the verdict is
    UNDECIDED (the LP's reading named in ``note`` as evidence); where only the kernel decides, its verdict (and its
    log-direction, for DISPROVED) is used. A PROVED the kernel reached only where every log of a rate variable is
    at least 1 (``n >= E``) carries those ends in ``restricted`` (the LP reads the regime asymptotically, the kernel
    pointwise: ``1 <= C log n`` fails at ``n = 1``).
    """
    if kernel.verdict is Verdict.PROVED:
        restricted = tuple(map(str, decided_restriction(kernel, variables, directions)))
        if restricted:
            return dataclasses.replace(
                dom if dom.verdict is Verdict.PROVED else Dominance(Verdict.PROVED), restricted=restricted,
                note="; ".join(x for x in (dom.note, f"kernel-proved only where {', '.join(restricted)} (every log of "
                                           "those rate variables >= 1), not on the whole regime") if x))
    if kernel.verdict is dom.verdict:
        return dom
    if kernel.verdict is Verdict.UNDECIDED:
        lp = f"; the LP's reading (evidence, not a decision): {dom.verdict.name}" if dom.verdict is not Verdict.UNDECIDED else ""
        return Dominance(Verdict.UNDECIDED, offending=dom.offending,
                         note=f"kernel: UNDECIDED ({kernel.reason}){lp}" + (f"; {dom.note}" if dom.note else ""))
    disagree = (f"; the LP's reading {dom.verdict.name} disagrees with the kernel: investigate"
                if dom.verdict is not Verdict.UNDECIDED else "")
    if kernel.verdict is Verdict.PROVED:
        return Dominance(Verdict.PROVED, note="kernel-proved" + disagree)
    text = str((kernel.counterexample or {}).get("log-direction y", ""))
    names = {v.name: v for v in variables}
    witness = {names[k.strip()]: Fraction(w.strip()) for k, w in (p.split(":") for p in text.split(",") if ":" in p)
               if k.strip() in names}
    return Dominance(Verdict.DISPROVED, witness={v: witness.get(v, Fraction(0)) for v in variables} if witness else None,
                     offending=dom.offending, note="kernel-disproved" + disagree)


def _summary(a: Rate, b: Rate, ab: Dominance, ba: Dominance) -> str:
    pv, dv = Verdict.PROVED, Verdict.DISPROVED
    if ab.verdict is pv and ba.verdict is pv:
        return ("same rate (up to constants" + (" and log factors" if a.ignore_logs else ", log factors equal") + ")"
                + _where(ab.restricted + ba.restricted))
    if ab.verdict is pv and ba.verdict is dv:
        return f"A <= B{_where(ab.restricted) or ' everywhere'}; B is larger along {_direction_text(ba.witness)}"
    if ba.verdict is pv and ab.verdict is dv:
        return f"B <= A{_where(ba.restricted) or ' everywhere'}; A is larger along {_direction_text(ab.witness)}"
    if ab.verdict is dv and ba.verdict is dv:
        return (f"regime-dependent: A larger along {_direction_text(ab.witness)}, "
                f"B larger along {_direction_text(ba.witness)}")
    notes = "; ".join(x for x in (ab.note, ba.note) if x)
    return f"undecided ({notes})" if notes else "undecided"


def _where(restricted: Sequence[str]) -> str:
    """`` where n >= E (not on the whole regime)`` for a dominance proved only there; ``""`` otherwise."""
    if not restricted:
        return ""
    return f" where {', '.join(dict.fromkeys(restricted))} (not on the whole regime: a log factor vanishes at its end)"


def _direction_text(witness: Mapping[sp.Symbol, Fraction] | None) -> str:
    if not witness:
        return "?"
    parts = [f"{_pretty_name(v)}:{w}" for v, w in witness.items() if w != 0]
    return "log-direction (" + ", ".join(parts) + ")"
