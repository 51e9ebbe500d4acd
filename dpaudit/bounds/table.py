"""The comparison table of the four papers' excess-risk rates and gradient counts (``dpaudit bounds``).

Every cell is computed from a :class:`~dpaudit.bounds.theorem.Bound` of
:mod:`dpaudit.bounds.registry`: the bound's expression is put in a common normalisation (stated per
row), its leading rate is extracted with :func:`~dpaudit.bounds.rates.leading_rate`, compared with
the relevant lower bound (decided by the kernel, :func:`~dpaudit.bounds.rate_kernel.kernel_rate_check`; the
offending term named by :func:`~dpaudit.bounds.rate_comparison.compare_rates`), and printed with the
bound's citation. Nothing in the table is typed by hand.

Normalisation (l2 rows): Lipschitz constant L = 1, diameter R = 1, strong convexity mu = 1, smoothness
beta = L/R = 1. Levy et al.'s rates also depend on the sub-Gaussian parameter sigma of the gradients;
gradients bounded by L are L-sub-Gaussian (Hoeffding's lemma: each projection lies in an interval of
length 2L), so ``sigma = L``, ``G~ = L sqrt(d)`` and ``G_ = min(L, L sqrt(d)) = L``. The l_inf row of Ghazi et
al. 2025 keeps its own geometry (G = D = 1: l1-Lipschitz constant and l_inf radius); in l2 constants
its problem has L R = 2 G D d, so its rates are not directly comparable with the l2 rows and it is
compared with its own lower bound.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import sympy as sp
from sympy.printing.str import StrPrinter

from dpaudit._table import render, terminal_width
from dpaudit.bounds import ghazi2023, ghazi2025, levy2021, lowy2024
from dpaudit.bounds.rate_comparison import compare_rates, regime_vectors
from dpaudit.bounds.rate_format import format_monomial
from dpaudit.bounds.rate_kernel import kernel_rate_check
from dpaudit.bounds.rates import RateError, leading_rate
from dpaudit.bounds.symbols import RATE_VARIABLES, D, G, L, R, beta, mu, sigma_sg
from dpaudit.bounds.theorem import Bound, Kind, Paper, Quantity
from dpaudit.bounds.verdict import Verdict

__all__ = ["ENTRIES", "TableEntry", "TableRow", "build_table", "main", "render_table"]

_L2 = MappingProxyType({levy2021.G_under: L, sigma_sg: L, L: sp.Integer(1), R: sp.Integer(1), mu: sp.Integer(1),
                        beta: sp.Integer(1)})
_LINF = MappingProxyType({G: sp.Integer(1), D: sp.Integer(1), beta: sp.Integer(1)})
_NOTE_L2 = "l2; L = R = 1 (and sigma = L for Levy et al.'s bounds)"
_NOTE_LINF = "l_inf ball, l1-Lipschitz; G = D = 1"


@dataclass(frozen=True)
class TableEntry:
    """One row's sources: the paper, its bounds, and the normalisation applied to them.

    Parameters
    ----------
    paper : Paper
        The paper.
    label : str
        Short name of the result (e.g. ``"Alg 1 (linear time)"``).
    problem : str
        ``"convex SCO"`` or ``"strongly convex SCO"``.
    risk : Bound
        The excess-risk bound (upper or lower).
    gradients : Bound or None
        The gradient-count or running-time bound; ``None`` when the paper states none.
    lower : Bound or None
        The lower bound the rate is compared with (``None`` for lower-bound rows).
    normalisation : mapping
        Substitutions into the common setting (applied in order).
    setting : str
        The normalisation in words.
    """

    paper: Paper
    label: str
    problem: str
    risk: Bound
    gradients: Bound | None
    lower: Bound | None
    normalisation: Mapping[sp.Symbol, sp.Expr] = field(default_factory=dict, hash=False)
    setting: str = ""


ENTRIES: tuple[TableEntry, ...] = (
    TableEntry(levy2021.PAPER, "Phased ERM", "convex SCO", levy2021.THM4.bounds[0], None, levy2021.THM5.bounds[0],
               _L2, _NOTE_L2),
    TableEntry(ghazi2023.PAPER, "Phased-SCO", "convex SCO", ghazi2023.THM51.bounds[0], ghazi2023.THM51.bounds[1],
               levy2021.THM5.bounds[0], _L2, _NOTE_L2),
    TableEntry(lowy2024.PAPER, "Alg 1 (linear time)", "convex SCO", lowy2024.THM21.bounds[0], lowy2024.THM21.bounds[1],
               levy2021.THM5.bounds[0], _L2, _NOTE_L2),
    TableEntry(lowy2024.PAPER, "Alg 3 (smooth)", "convex SCO", lowy2024.THM32.bounds[0], lowy2024.THM32.bounds[1],
               levy2021.THM5.bounds[0], _L2, _NOTE_L2 + ", beta = 1"),
    TableEntry(lowy2024.PAPER, "smoothed Alg 3", "convex SCO", lowy2024.THM41.bounds[0], lowy2024.THM41.bounds[1],
               levy2021.THM5.bounds[0], _L2, _NOTE_L2),
    TableEntry(levy2021.PAPER, "lower bound", "convex SCO", levy2021.THM5.bounds[0], None, None, _L2, _NOTE_L2),
    TableEntry(ghazi2025.PAPER, "robust-statistics SGD", "convex SCO", ghazi2025.THM31.bounds[0],
               ghazi2025.THM31.bounds[1], ghazi2025.THM41.bounds[0], _LINF, _NOTE_LINF),
    TableEntry(ghazi2025.PAPER, "lower bound", "convex SCO", ghazi2025.THM41.bounds[0], None, None, _LINF, _NOTE_LINF),
    TableEntry(ghazi2023.PAPER, "Strongly-Convex-SCO", "strongly convex SCO", ghazi2023.THM53.bounds[0], None,
               ghazi2023.THMD7.bounds[0], _L2, _NOTE_L2 + ", mu = 1"),
    TableEntry(lowy2024.PAPER, "Alg 3 + [FKT20]", "strongly convex SCO", lowy2024.REMARK36.bounds[0],
               lowy2024.THM32.bounds[1], ghazi2023.THMD7.bounds[0], _L2, _NOTE_L2 + ", mu = 1, beta = 1"),
    TableEntry(ghazi2023.PAPER, "lower bound", "strongly convex SCO", ghazi2023.THMD7.bounds[0], None, None, _L2,
               _NOTE_L2 + ", mu = 1"),
)
"""The rows of the table, in order."""


@dataclass(frozen=True)
class TableRow:
    """One rendered row; every text cell is computed from the entry's bounds."""

    entry: TableEntry
    paper: str
    result: str
    problem: str
    setting: str
    kind: str
    risk: str
    versus_lower: str
    gradients: str
    citation: str


_PRETTY_NAME = {"epsilon": "ε", "delta": "δ"}


class _Printer(StrPrinter):
    """Compact text: Min as a wedge, square roots as a radical, rational powers as ^(p/q), Greek letters."""

    def _print_Symbol(self, expr: sp.Symbol) -> str:
        return _PRETTY_NAME.get(expr.name, expr.name)

    def _print_Min(self, expr: sp.Min) -> str:
        return "(" + " ∧ ".join(self._print(a) for a in expr.args) + ")"

    def _print_Pow(self, expr: sp.Pow, rational: bool = False) -> str:
        base, ex = expr.as_base_exp()
        if ex == sp.Rational(1, 2):
            inner = self._print(base)
            return f"√{inner}" if base.is_Symbol else f"√({inner})"
        if ex == sp.Rational(-1, 2):
            inner = self._print(base)
            return f"1/√{inner}" if base.is_Symbol else f"1/√({inner})"
        return super()._print_Pow(expr, rational).replace("**", "^")

    def _print_Mul(self, expr: sp.Mul) -> str:
        return super()._print_Mul(expr).replace("*", "·")


def _pretty_expr(expr: sp.Expr) -> str:
    return _Printer().doprint(expr)


def normalised(bound: Bound, substitutions: Mapping[sp.Symbol, sp.Expr]) -> sp.Expr:
    """The bound's expression with the row's normalisation substituted (in order)."""
    expr = bound.expression
    for old, new in substitutions.items():
        expr = expr.subs(old, new)
    return expr


def _variables(*bounds: Bound | None) -> tuple[sp.Symbol, ...]:
    hidden: set[sp.Symbol] = set()
    for b in bounds:
        if b is not None:
            hidden |= set(b.hidden_variables)
    return tuple(v for v in RATE_VARIABLES if v not in hidden)


def rate_text(bound: Bound, substitutions: Mapping[sp.Symbol, sp.Expr]) -> str:
    """The rate cell of a bound: its possibly dominant monomials (log factors dropped for tilde bounds)."""
    expr = normalised(bound, substitutions)
    try:
        rate = leading_rate(expr, _variables(bound), ignore_logs=bound.kind.ignores_logs or bound.kind.is_exact)
    except RateError:
        return _pretty_expr(expr)
    text = " + ".join(format_monomial(t, with_logs=False) for t in rate.terms)
    if bound.hidden_variables:
        text += "  [" + ", ".join(sorted(_PRETTY_NAME.get(v.name, v.name) for v in bound.hidden_variables)) + " hidden]"
    return text


_KIND_TEXT = {Kind.UPPER_O_TILDE: "Õ", Kind.UPPER_O: "O", Kind.LOWER_OMEGA: "Ω", Kind.LOWER_OMEGA_TILDE: "Ω̃",
              Kind.EXACT_UPPER: "≤", Kind.EXACT_EQUAL: "=", Kind.EXACT_LOWER: "≥"}


def versus_lower_text(entry: TableEntry) -> str:
    """How the upper bound compares with the lower bound: decided by the kernel in both directions.

    :func:`~dpaudit.bounds.rate_kernel.kernel_rate_check` (O~: log factors ignored) decides "upper <= C lower" and
    "lower <= C upper"; :func:`compare_rates` names the leading term not covered. A cell where the two disagree, or
    the kernel does not decide, ends with ``[not kernel-certified: ...]``.
    """
    if entry.lower is None:
        return "—"
    variables = _variables(entry.risk, entry.lower)
    up = normalised(entry.risk, entry.normalisation)
    low = normalised(entry.lower, entry.normalisation)
    constraints = [c.regime for b in (entry.risk, entry.lower) for c in b.conditions
                   if c.regime is not None and c.regime.free_symbols <= set(variables)]
    try:
        cmp = compare_rates(up, low, variables, ignore_logs=True, constraints=constraints)
    except RateError as exc:
        return f"not comparable ({exc})"
    # the kernel decides both directions (kernel_rate_check); the rate engine's comparison only names the offending
    # leading term. A cell whose reading the kernel does not confirm says so
    directions = tuple(cmp.a.directions)
    vectors = regime_vectors(constraints, variables, directions)
    kernel = [kernel_rate_check(x, y, key=f"table: {entry.label} {name}", variables=variables, directions=directions,
                                ignore_logs=True, regime=constraints, regime_vectors=vectors).verdict
              for name, x, y in (("upper <= lower", up, low), ("lower <= upper", low, up))]
    engine = [cmp.a_le_b.verdict, cmp.b_le_a.verdict]
    note = "" if kernel == engine else f" [not kernel-certified: kernel {kernel[0].name}/{kernel[1].name}]"
    if cmp.a_le_b.verdict is Verdict.PROVED and cmp.b_le_a.verdict is Verdict.PROVED:
        return "matches (up to logs)" + note
    if cmp.a_le_b.verdict is Verdict.DISPROVED and cmp.a_le_b.offending is not None:
        gap = cmp.a_le_b.offending
        below = "" if cmp.b_le_a.verdict is Verdict.PROVED else "; BELOW the lower bound somewhere"
        return f"above: {format_monomial(gap, with_logs=False)} not covered{below}" + note
    if cmp.b_le_a.verdict is Verdict.DISPROVED:
        return "BELOW the lower bound somewhere (inconsistent)" + note
    return f"undecided ({cmp.summary})" + note


def gradients_text(entry: TableEntry) -> str:
    """The gradient-count cell: the count's rate, or '—' when the paper states none."""
    if entry.gradients is None:
        return "— (not stated)"
    prefix = "time " if entry.gradients.quantity is Quantity.RUNTIME else ""
    return prefix + _KIND_TEXT[entry.gradients.kind] + " " + rate_text(entry.gradients, entry.normalisation)


def build_table(entries: Sequence[TableEntry] = ENTRIES) -> list[TableRow]:
    """Compute every row of the table from its bounds."""
    rows = []
    for e in entries:
        cites = [str(e.risk.citation)] + ([str(e.gradients.citation)] if e.gradients is not None else [])
        rows.append(TableRow(
            entry=e,
            paper=e.paper.short,
            result=e.label,
            problem=e.problem,
            setting=e.setting,
            kind=_KIND_TEXT[e.risk.kind],
            risk=rate_text(e.risk, e.normalisation),
            versus_lower=versus_lower_text(e),
            gradients=gradients_text(e),
            citation="; ".join(dict.fromkeys(cites)),
        ))
    return rows


_HEADERS = ("paper", "result", "excess risk", "vs lower bound", "gradient evaluations", "citation")


def render_table(rows: Sequence[TableRow], *, width: int | None = None) -> str:
    """Plain-text table, grouped by problem, followed by each row's normalisation.

    ``width`` fits each group's table to that many characters (long cells wrap); ``None`` leaves it unlimited.
    """
    cells = [(r.paper, r.result, f"{r.kind}({r.risk})", r.versus_lower, r.gradients, r.citation) for r in rows]
    out: list[str] = []
    problems = list(dict.fromkeys(r.problem for r in rows))
    for problem in problems:
        mine = [c for r, c in zip(rows, cells, strict=True) if r.problem == problem]
        out += ["", f"== {problem} ==", *render(_HEADERS, mine, width=width, sized_by=cells)]
    out += ["", "Normalisation (rates in n, m, d, ε with n, m, d >= 1 and ε <= 1; log factors dropped for Õ/Ω̃):"]
    groups: dict[str, list[str]] = {}
    for r in rows:
        groups.setdefault(r.setting, []).append(f"{r.paper} {r.result}")
    for setting, members in groups.items():
        out.append(f"  {setting}: {', '.join(dict.fromkeys(members))}")
    out.append("Every cell is computed from the cited dpaudit.bounds objects; see dpaudit.bounds.run_checks() "
               "for the re-derivation and calibration checks.")
    return "\n".join(out).lstrip("\n")


def main() -> int:
    """Print the comparison table (entry point of ``dpaudit bounds``). Returns 0."""
    print(render_table(build_table(), width=terminal_width()))
    return 0
