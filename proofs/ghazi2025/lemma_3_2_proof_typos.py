"""The proof of Lemma 3.2 (App. B.1): a missing eta and a vector mean-value theorem that fails.

It writes (x - eta grad f(x)) - (y - grad f(y)) (missing eta: as an identity it is false, DISPROVED)
and uses a vector mean-value theorem, grad f(x) - grad f(y) = grad^2 f(z)(x - y) for one z on the
segment, which fails even for a convex separable f (DISPROVED). The integral form, with the segment
average of the Hessian (still diagonally dominant with row sums <= beta), gives the step the lemma
needs (PROVED).
"""

from __future__ import annotations

import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict, decide_nonneg, decide_zero

ETA_PRINTED = "ghazi2025/lemma_3_2_proof_missing_eta"
MVT_PRINTED = "ghazi2025/lemma_3_2_proof_vector_mvt"
CORRECTED = "ghazi2025/lemma_3_2_proof_integral_form"

U, V, T = sp.symbols("u v t", real=True)
#: a convex, separable (so diagonally dominant) f with phi'' = 1 + cos(2 pi u), psi'' = 1 + sin(2 pi v)
PHI = U**2 / 2 - sp.cos(2 * sp.pi * U) / (4 * sp.pi**2)
PSI = V**2 / 2 - sp.sin(2 * sp.pi * V) / (4 * sp.pi**2)
F = PHI + PSI


def _grad(f: sp.Expr) -> list[sp.Expr]:
    return [sp.diff(f, U), sp.diff(f, V)]


def _equals_square(expr: sp.Expr, root: sp.Expr) -> bool:
    """Is ``expr`` identically ``root^2`` (hence non-negative)? Decided by sympy."""
    return decide_zero(expr - root**2) is Verdict.PROVED and decide_nonneg(root**2) is Verdict.PROVED


def _eta_printed() -> CheckResult:
    proof = Proof(ETA_PRINTED)
    proof.given("f(x) = h x^2/2 in one dimension (convex, beta = h, Assumption 2.5 holds trivially), z anywhere")
    h, eta, x, y = sp.Integer(1), sp.Rational(1, 2), sp.Integer(1), sp.Integer(2)
    lhs = (x - eta * h * x) - (y - h * y)
    rhs = (x - y) * (1 - eta * h)
    proof.refute("h = 1, eta = 1/2, x = 1, y = 2: (x - eta f'(x)) - (y - f'(y)) vs (x - y)(1 - eta f''(z))",
                 {"h": 1, "eta": eta, "x": 1, "y": 2, "lhs": lhs, "rhs": rhs}, -sp.Abs(lhs - rhs),
                 conditions={"eta <= 2/beta": sp.Le(eta, 2 / h)})
    return proof.result()


def _mvt_printed() -> CheckResult:
    proof = Proof(MVT_PRINTED)
    proof.given("f(u, v) = phi(u) + psi(v) with phi'' = 1 + cos(2 pi u), psi'' = 1 + sin(2 pi v): convex, diagonal Hessian")
    g = _grad(F)
    at = lambda e, a, b: e.subs({U: a, V: b})  # noqa: E731
    diff = [sp.simplify(at(gi, 1, 1) - at(gi, 0, 0)) for gi in g]
    hess_on_segment = [sp.diff(F, U, 2).subs(U, T), sp.diff(F, V, 2).subs(V, T)]  # z = (t, t), x - y = (1, 1)
    miss = sp.simplify(sum((hi - di) ** 2 for hi, di in zip(hess_on_segment, diff, strict=True)))
    proof.refute("x = (1, 1), y = (0, 0): min over z = (t, t) of ||H(z)(x - y) - (grad f(x) - grad f(y))||^2 = cos^2 + sin^2 = 1",
                 {"grad f(x) - grad f(y)": diff, "H(z)(x - y) - difference": [str(hi - di) for hi, di in zip(hess_on_segment, diff, strict=True)],
                  "squared miss for every t": miss}, -miss,
                 conditions={"phi'' = 2 cos(pi u)^2 >= 0": _equals_square(sp.diff(PHI, U, 2), sp.sqrt(2) * sp.cos(sp.pi * U)),
                             "psi'' = (sin(pi v) + cos(pi v))^2 >= 0": _equals_square(sp.diff(PSI, V, 2), sp.sin(sp.pi * V) + sp.cos(sp.pi * V))})
    return proof.result()


def _corrected() -> CheckResult:
    proof = Proof(CORRECTED)
    proof.given("f convex, C^2, Hessians diagonally dominant with max row sum <= beta (Def 2.2, Assumption 2.5), eta <= 2/beta")
    proof.cite("fundamental theorem of calculus", "int_0^1 g'(t) dt = g(1) - g(0) for a C^1 function g on [0, 1]")
    proof.assume("integrals keep diagonal dominance", "|int a| <= int |a| (triangle inequality for integrals), so the segment average "
                 "of DD Hessians with non-negative diagonal and row sums <= beta is again DD with row sums <= beta")
    proof.cite("chain rule", "for a C^2 map, d/dt grad f(y + t(x - y)) = grad^2 f(y + t(x - y)) (x - y)")
    x1, _x2, y1, y2 = sp.symbols("x1 x2 y1 y2", real=True)
    eta = sp.Symbol("eta", positive=True)
    gx, gy, hbar = sp.symbols("g_x g_y Hbar_dx", real=True)
    proof.zero("(x - eta grad f(x)) - (y - eta grad f(y)) = (x - y) - eta Hbar (x - y) when grad f(x) - grad f(y) = Hbar (x - y)",
               ((x1 - eta * gx) - (y1 - eta * gy) - ((x1 - y1) - eta * hbar)).subs(gx, gy + hbar))
    g = _grad(F)
    h1, h2 = sp.symbols("h1 h2", real=True, nonzero=True)  # x = y + h (h = 0: both sides vanish)
    for i, (var, y, h) in enumerate(((U, y1, h1), (V, y2, h2))):
        avg = sp.integrate(sp.diff(F, var, 2).subs(var, y + T * h), (T, 0, 1))
        proof.equal(f"example f, coordinate {i}: grad f(y + h) - grad f(y) = (int_0^1 H(y + t h) dt) h for all y and h != 0",
                    g[i].subs(var, y + h) - g[i].subs(var, y), avg * h)
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=ETA_PRINTED,
        source="Ghazi et al. 2025, App. B.1 (proof of Lemma 3.2: '(x - eta grad f(x)) - (y - grad f(y)) = (x - y)(I - eta grad^2 f(z))')",
        statement="(as printed) (x - eta f'(x)) - (y - f'(y)) = (x - y)(1 - eta f''(z)) for a quadratic f, some z, and eta <= 2/beta.",
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_eta_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=MVT_PRINTED,
        source="Ghazi et al. 2025, App. B.1 (proof of Lemma 3.2: 'by the mean-value theorem ... where z is in the segment'); note errata summary",
        statement=("(as printed) For f convex and beta-smooth with DD Hessians, grad f(x) - grad f(y) = grad^2 f(z)(x - y) for some z on "
                   "the segment [x, y]."),
        expected=Verdict.DISPROVED,
        papers=("ghazi2025",),
        check=_mvt_printed,
        role="printed",
        sibling=CORRECTED,
    ),
    LemmaCheck(
        name=CORRECTED,
        source="Ghazi et al. 2025, Lemma 3.2's proof in integral form (note errata summary: 'needs the integral form')",
        statement=("(corrected) grad f(x) - grad f(y) = Hbar (x - y) with Hbar = int_0^1 grad^2 f(y + t(x - y)) dt, which is DD with row "
                   "sums <= beta, so (x - eta grad f(x)) - (y - eta grad f(y)) = (I - eta Hbar)(x - y)."),
        expected=Verdict.PROVED,
        papers=("ghazi2025",),
        check=_corrected,
        role="corrected",
        sibling=MVT_PRINTED,
    ),
)
