"""Levy, Sun, Amin, Kale, Kulesza, Mohri, Suresh. *Learning with User-Level Privacy*. NeurIPS 2021.

Bibliography key ``LSAKKMS21``; read from the NeurIPS 2021 main text (main text only:
the appendix is not in the source, so results that need it are marked as reconstructions).

Symbols (see :mod:`dpaudit.bounds.symbols`): the paper's Lipschitz constant G is ``L``, its
smoothness H is ``beta``, its sub-Gaussian parameter sigma is ``sigma_sg``, its failure probability
gamma is ``gamma``, its range bound B is ``B``. ``G~ = sigma_sg sqrt(d)`` and
``G_ = min(L, G~)`` as in the paper (Section 2).

Departures from the typeset text (each also stated on the bound it affects):

* The source renders ``n sqrt(m epsilon)`` in Thm 3, Thm 4, Thm 5 and Alg 4. We read
  ``n sqrt(m) epsilon``: the squared forms in the same theorems carry epsilon^2 (Thm 3(ii),
  Cor 2), and the internal variance nu^2 of Thm 3 gives exactly ``n sqrt(m) epsilon``. The check
  :func:`check_thm3_typesetting` verifies this: the literal reading does *not* follow from nu^2.
* Thm 2 writes ``log(dn/alpha)``; alpha is undefined there and the derivation gives gamma
  (:func:`check_thm2_variance`), so we use ``log(dn/gamma)``.
* Cor 1's ``Var(P_0)`` is replaced by its upper bound B^2 (as the paper does for its minimax claim).
* Thm 4's and Thm 5's ``min`` is kept as sympy ``Min``; rate comparisons substitute the branch
  that applies (e.g. ``G_ = L`` when ``L <= sigma_sg sqrt(d)``).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.bounds.calibration import check_laplace_calibration
from dpaudit.bounds.checks import CheckSpec, check_identity, check_inequality, random_points
from dpaudit.bounds.rate_checks import check_rate
from dpaudit.bounds.symbols import (
    B,
    L,
    R,
    T,
    beta,
    d,
    delta,
    epsilon,
    gamma,
    lam,
    m,
    mu,
    n,
    sigma_sg,
    tau,
)
from dpaudit.bounds.theorem import Bound, Citation, Condition, Kind, Paper, Quantity, Theorem
from dpaudit.bounds.verdict import CheckResult, Verdict
from dpaudit.verify import Proof
from dpaudit.verify.verdict import combine_results

__all__ = [
    "CHECKS",
    "PAPER",
    "check_alg1_laplace",
    "check_alg2_composition",
    "check_alg2_composition_total",
    "check_alg3_composition",
    "check_thm2_variance",
    "check_thm3_convex",
    "check_thm3_strongly_convex",
    "check_thm3_typesetting",
    "check_thm4_equivalence",
    "prove_alg3_budget",
]

KEY = "LSAKKMS21"

G_tilde = sigma_sg * sp.sqrt(d)
"""G~ = sigma sqrt(d) [LSAKKMS21, Section 2, A4]."""
G_under = sp.Min(L, G_tilde)
"""``G_ = min(G, G~)`` [LSAKKMS21, Section 2]."""


def _cite(location: str, equation: str = "") -> Citation:
    return Citation(KEY, location, equation)


# --- Algorithm 1 / Theorem 1: WinsorizedMean1D ------------------------------------------------
LAPLACE_SCALE_ALG1 = 8 * tau / (n * epsilon)
"""Laplace scale of Alg 1, line 2: Lap(8 tau/(n eps)) [LSAKKMS21, Alg 1]."""
CLIPPED_MEAN_SENSITIVITY = 4 * tau / n
"""Replace-one sensitivity ``(b - a)/n`` of the mean clipped to ``[a, b]``, ``|b - a| = 4 tau`` [LSAKKMS21, Alg 1, Thm 1]."""

THM1 = Theorem(
    key="levy2021.thm1",
    title="WinsorizedMean1D",
    citation=_cite("Thm 1"),
    setting="1-D, data in [-B, B], (tau, gamma)-concentrated",
    bounds=(
        Bound("levy2021.thm1.noise", Quantity.NOISE_SCALE, LAPLACE_SCALE_ALG1, Kind.EXACT_EQUAL, _cite("Alg 1, line 2")),
        Bound("levy2021.thm1.beta", Quantity.PROBABILITY, sp.Min(1, gamma + (B / tau) * sp.exp(-n * epsilon / 8)),
              Kind.EXACT_UPPER, _cite("Thm 1"),
              notes="TV distance to the mean plus Lap(8 tau/(n eps)); the construction of PrivateRange is in the "
                    "missing appendix (App. D.1)."),
    ),
)

# --- Algorithm 2 / Theorem 2: WinsorizedMeanHighD ---------------------------------------------
EPS_PRIME_ALG2 = epsilon / sp.sqrt(8 * d * sp.log(1 / delta))
"""Per-coordinate budget eps' of Alg 2, line 3 [LSAKKMS21, Alg 2]."""
TAU_PRIME_ALG2 = 10 * tau * sp.sqrt(sp.log(d * n / gamma) / d)
"""Per-coordinate radius tau' of Alg 2, line 3 [LSAKKMS21, Alg 2]."""
_eps_p, _tau_p = sp.symbols("epsilon_prime tau_prime", positive=True)

THM2 = Theorem(
    key="levy2021.thm2",
    title="WinsorizedMeanHighD",
    citation=_cite("Thm 2"),
    setting="d-dimensional, (tau, gamma)-concentrated in l2, random Hadamard rotation",
    bounds=(
        Bound("levy2021.thm2.variance", Quantity.MSE,
              102400 * d * tau**2 * sp.log(d * n / gamma) * sp.log(1 / delta) / (n**2 * epsilon**2),
              Kind.EXACT_UPPER, _cite("Thm 2", "eq. (6)"),
              settings={_eps_p: EPS_PRIME_ALG2, _tau_p: TAU_PRIME_ALG2},
              notes="c_0 = 102,400. The typeset log(dn/alpha) is read log(dn/gamma) (alpha is undefined there)."),
        Bound("levy2021.thm2.beta", Quantity.PROBABILITY,
              sp.Min(1, 2 * gamma + d**2 * B * sp.sqrt(sp.log(d * n / gamma)) / tau
                     * sp.exp(-n * epsilon / (24 * sp.sqrt(d * sp.log(1 / delta))))),
              Kind.EXACT_UPPER, _cite("Thm 2")),
    ),
)

# --- Corollary 1: user-level mean estimation ------------------------------------------------------
COR1 = Theorem(
    key="levy2021.cor1",
    title="user-level mean estimation (l2-bounded)",
    citation=_cite("Cor 1"),
    setting="supp P_0 in B_2(0, B)",
    bounds=(
        Bound("levy2021.cor1.mse", Quantity.MSE, B**2 / (m * n) + d * B**2 / (m * n**2 * epsilon**2),
              Kind.UPPER_O_TILDE, _cite("Cor 1"),
              conditions=(Condition("n >= (c_1 sqrt(d) log(1/delta)/eps) log(m(dn + n^2 eps^2)), c_1 unspecified"),),
              hidden="log factors (App. D.4, not in the source)",
              notes="Var(P_0) replaced by its upper bound B^2."),
    ),
)

# --- Algorithm 3 / Theorem 3: winsorized first-order optimisation (ERM) -------------------------
EPS_PRIME_ALG3 = epsilon / (2 * sp.sqrt(2 * T * sp.log(2 / delta)))
"""Per-step budget eps' of Alg 3, line 2 [LSAKKMS21, Alg 3]."""
DELTA_PRIME_ALG3 = delta / (2 * T)
"""Per-step delta' of Alg 3, line 2 [LSAKKMS21, Alg 3]."""
NU2_THM3 = T * G_tilde**2 * d / (n**2 * m * epsilon**2)
"""Variance of the private gradient oracle, nu^2 = O~(T G~^2 d/(n^2 m eps^2)) [LSAKKMS21, Thm 3, proof sketch]."""

_READING = ("Typeset 'n sqrt(m eps)' read as n sqrt(m) eps (see module docstring and check_thm3_typesetting).")
_THM3_CONDS = (Condition("n = Omega~(sqrt(d T)/eps)"),
               Condition("eps <= 1 (privacy)", epsilon <= 1))

THM3 = Theorem(
    key="levy2021.thm3",
    title="winsorized first-order ERM",
    citation=_cite("Thm 3"),
    setting="A2, A3 (H-smooth), A4 (sub-Gaussian gradients), l2",
    bounds=(
        Bound("levy2021.thm3.convex", Quantity.EMPIRICAL_RISK,
              R**2 * beta / T + R * G_tilde * sp.sqrt(d) / (n * sp.sqrt(m) * epsilon), Kind.UPPER_O_TILDE,
              _cite("Thm 3(i)"), settings={sp.Symbol("nu2", positive=True): NU2_THM3}, conditions=_THM3_CONDS,
              notes=_READING),
        Bound("levy2021.thm3.strongly_convex", Quantity.EMPIRICAL_RISK,
              L * R * sp.exp(-mu * T / beta) + G_tilde**2 * d / (mu * n**2 * m * epsilon**2), Kind.UPPER_O_TILDE,
              _cite("Thm 3(ii)"), conditions=_THM3_CONDS),
        Bound("levy2021.thm3.nonconvex", Quantity.GRADIENT_MAPPING,
              beta**2 * R / T + beta * R * G_tilde * sp.sqrt(d) / (n * sp.sqrt(m) * epsilon), Kind.UPPER_O_TILDE,
              _cite("Thm 3(iii)"), conditions=_THM3_CONDS,
              notes=_READING + " H^2 R/T is not unit-consistent with the other term (H^2 R^2/T would be); kept as typeset."),
    ),
)

# --- Corollary 2 (localization) -----------------------------------------------------------------------------
COR2 = Theorem(
    key="levy2021.cor2",
    title="localization",
    citation=_cite("Cor 2"),
    setting="mu-strongly convex",
    bounds=(
        Bound("levy2021.cor2.distance", Quantity.SQUARED_DISTANCE,
              sigma_sg**2 * d**2 / (mu**2 * n**2 * m * epsilon**2), Kind.UPPER_O_TILDE, _cite("Cor 2"),
              settings={T: beta / mu * sp.log(n**2 * m * (L / G_tilde) ** 2 * mu * R * epsilon**2 / d),
                        gamma: sigma_sg**2 * d**2 / (mu**2 * n**2 * m * epsilon**2 * R**2)},
              conditions=(Condition("n = Omega~(sqrt(d H)/mu) [as typeset; units suggest sqrt(dH/mu)/eps]"),)),
    ),
)

# --- Theorem 4 (Phased ERM for SCO) and Theorem 5 (lower bound) -----------------------------------
N_A_THM4 = beta * R * sp.sqrt(m) / (sigma_sg * epsilon)
N_B_THM4 = sp.cbrt(d**2 * m * beta**2 * R**2 / (L * G_under * epsilon**4))
H_MAX_THM4 = sp.sqrt(n**2 * epsilon**2 * sigma_sg**2 / (R**2 * m) + L * G_under * n**3 * epsilon**4 / (d**2 * R**2 * m))

THM4 = Theorem(
    key="levy2021.thm4",
    title="Phased ERM (SCO)",
    citation=_cite("Thm 4"),
    setting="convex, L-Lipschitz, H-smooth, sigma-sub-Gaussian gradients, l2",
    bounds=(
        Bound("levy2021.thm4.risk", Quantity.EXCESS_RISK,
              R * sp.sqrt(L * G_under) / sp.sqrt(m * n) + R * G_tilde * sp.sqrt(d) / (n * sp.sqrt(m) * epsilon),
              Kind.UPPER_O_TILDE, _cite("Thm 4"),
              settings={T: sp.ceiling(sp.log(L * n * sp.sqrt(m) * epsilon / (sigma_sg * d), 2)),
                        lam: sp.sqrt(L * G_under / (n * m)
                                                                 + sigma_sg**2 * d**2 / (n**2 * m * epsilon**2)) / R},
              conditions=(Condition("n = Omega~(min(cbrt(d^2 m H^2 R^2/(G G_ eps^4)), H R sqrt(m)/(sigma eps)))"),
                          Condition("eps <= 1", epsilon <= 1), Condition("delta <= 1/n^2", delta <= 1 / n**2)),
              notes=_READING),
    ),
)

THM5 = Theorem(
    key="levy2021.thm5",
    title="SCO lower bound",
    citation=_cite("Thm 5"),
    setting="exists P, loss with A3, A4 (linear loss, Gaussian data)",
    bounds=(
        Bound("levy2021.thm5.risk", Quantity.EXCESS_RISK,
              R * G_under / sp.sqrt(m * n) + R * G_under * sp.sqrt(d) / (n * sp.sqrt(m) * epsilon),
              Kind.LOWER_OMEGA, _cite("Thm 5"), notes=_READING),
    ),
)

PAPER = Paper(
    key=KEY,
    short="Levy et al. 2021",
    title="Learning with User-Level Privacy (NeurIPS 2021)",
    source="NeurIPS 2021, main text",
    theorems=(THM1, THM2, COR1, THM3, COR2, THM4, THM5),
)


# ------------------------------------------------------------------------------------------------
# checks
# ------------------------------------------------------------------------------------------------


def check_thm2_variance(*, rng: np.random.Generator, claim: Bound | None = None) -> CheckResult:
    """Re-derive Thm 2's variance from Alg 2's settings.

    Each of the d rotated coordinates gets Lap(8 tau'/(n eps')) noise (Alg 1 with eps', tau'), of
    variance 2 (8 tau'/(n eps'))^2; the rotation U^{-1} preserves the trace, so the variance is
    ``d * 2 * (8 tau'/(n eps'))^2`` with eps', tau' from Alg 2, line 3. Claim: this equals
    c_0 d tau^2 log(dn/gamma) log(1/delta)/(n^2 eps^2) with c_0 = 102,400 [LSAKKMS21, Thm 2, eq. (6)].
    """
    bound = claim or THM2.bound(Quantity.MSE)
    derived = d * 2 * (8 * TAU_PRIME_ALG2 / (n * EPS_PRIME_ALG2)) ** 2
    return check_identity(derived, bound.expression, claim=f"Thm 2 variance = d*2*(8tau'/(n eps'))^2 ({bound.name})",
                          source=str(bound.citation), rng=rng, region={delta: (1e-12, 0.5)},
                          assumptions=("Lap(b) has variance 2b^2", "U^{-1} is orthogonal"))


def check_thm3_convex(*, rng: np.random.Generator, claim: Bound | None = None) -> CheckResult:
    """Re-derive Thm 3(i) from the private oracle's variance nu^2.

    Projected SGD on an H-smooth convex objective with an oracle of variance nu^2 has excess risk
    ``H R^2/T + R nu sqrt(2/T)`` (Prop 4 of the missing appendix; standard, e.g. Bubeck 2015,
    Thm 6.3 [reconstruction]). Substituting nu^2 = T G~^2 d/(n^2 m eps^2) must give Thm 3(i)'s rate.
    """
    bound = claim or THM3.bounds[0]
    derived = beta * R**2 / T + R * sp.sqrt(NU2_THM3) * sp.sqrt(2 / T)
    # compare the privacy terms: the optimisation term H R^2/T is a constant in (n, m, d, eps) and
    # would dominate any decreasing term; T -> oo removes it from both sides
    return check_rate(derived.subs(T, sp.oo), bound.with_expression(bound.expression.subs(T, sp.oo)),
                      claim=f"Thm 3(i) follows from nu^2 via SGD ({bound.name})", source=str(bound.citation), rng=rng)


def check_thm3_strongly_convex(*, rng: np.random.Generator, claim: Bound | None = None) -> CheckResult:
    """Re-derive Thm 3(ii)'s privacy term from nu^2: strongly convex SGD gives ``nu^2/(mu T)``.

    Standard, e.g. Bubeck 2015, Thm 6.2 [reconstruction; Prop 4 is in the missing appendix].
    """
    bound = claim or THM3.bounds[1]
    derived = NU2_THM3 / (mu * T)
    target = bound.expression.subs(T, sp.oo)  # drops the optimisation term G R exp(-mu T/H)
    return check_rate(derived, bound.with_expression(target), claim=f"Thm 3(ii) privacy term follows from nu^2 ({bound.name})",
                      source=str(bound.citation), rng=rng)


def check_thm3_typesetting(*, rng: np.random.Generator) -> CheckResult:
    """The typeset ``n sqrt(m eps)`` of Thm 3(i) does not follow from nu^2; ``n sqrt(m) eps`` does.

    Returns the check of the *literal* reading (expected DISPROVED: the derived rate has 1/eps,
    the literal one 1/sqrt(eps)); its ``details`` also report the check of our reading.
    """
    literal = THM3.bounds[0].with_expression(
        R**2 * beta / T + R * G_tilde * sp.sqrt(d) / (n * sp.sqrt(m * epsilon)), note="literal typesetting")
    lit = check_thm3_convex(rng=rng, claim=literal)
    ours = check_thm3_convex(rng=rng)
    # the result is the kernel's decision on the literal reading (certified when it is); ours is evidence in details
    return combine_results("Thm 3(i) as typeset (n sqrt(m eps)) follows from nu^2", lit, source=lit.source,
                           method=lit.method, residual=lit.residual, cases=lit.cases + ours.cases,
                           details=f"{lit.details}; our reading n sqrt(m) eps: {ours.verdict.name}")


def check_thm4_equivalence(*, rng: np.random.Generator) -> CheckResult:
    """Thm 4: ``n >= min(n_b, n_a)`` is equivalent to ``H <= max(h_2, h_1)``, within sqrt(2) of the stated form.

    Solves ``n = n_a`` and ``n^3 = n_b^3`` for H (sympy) and compares with the stated
    ``H = O~(sqrt(h_1^2 + h_2^2))``: identities for h_1, h_2 (the stated roots substituted back into the conditions,
    and equal to sympy's roots) and ``max <= sqrt(h_1^2+h_2^2) <= sqrt(2) max``, each decided by the kernel.
    """
    cite = str(THM4.citation)
    g_low = sp.Symbol("G_low", positive=True)  # G_ as a positive symbol (its value does not matter here)
    h1 = sp.solve(sp.Eq(n, N_A_THM4), beta)
    h2 = [s for s in sp.solve(sp.Eq(n**3, N_B_THM4.subs(G_under, g_low) ** 3), beta) if s.is_positive is not False]
    h1_stated = n * sigma_sg * epsilon / (R * sp.sqrt(m))
    h2_stated = sp.sqrt(L * g_low * n**3 * epsilon**4 / (d**2 * R**2 * m))
    # the stated roots solve the conditions (substituted back, decided by the kernel, not taken from sympy's solve)
    results = [check_identity(N_A_THM4.subs(beta, h1_stated), n, claim="n_a(h_1) = n", source=cite, rng=rng, count=16),
               check_identity(N_B_THM4.subs(G_under, g_low).subs(beta, h2_stated) ** 3, n**3, claim="n_b(h_2)^3 = n^3",
                              source=cite, rng=rng, count=16)]
    if len(h1) == 1:
        results.append(check_identity(h1[0], h1_stated, claim="n = n_a <=> H = h_1", source=cite, rng=rng, count=16))
    if len(h2) == 1:
        results.append(check_identity(h2[0], h2_stated, claim="n^3 = n_b^3 <=> H = h_2", source=cite, rng=rng, count=16))
    # max(h1, h2) <= sqrt(h1^2 + h2^2) <= sqrt(2) max(h1, h2); by symmetry take h_a >= h_b, i.e.
    # h_b = h_a/(1 + u) with u > 0, and compare squares (all quantities are positive)
    a, u = sp.symbols("h_a u", positive=True)
    b = a / (1 + u)
    results.append(check_inequality(a**2, a**2 + b**2, claim="max(h1,h2)^2 <= h1^2 + h2^2", source=cite, rng=rng, count=16))
    results.append(check_inequality(a**2 + b**2, 2 * a**2, claim="h1^2 + h2^2 <= 2 max(h1,h2)^2", source=cite, rng=rng,
                                    count=16))
    details = "; ".join(f"{r.claim}: {r.verdict.name}" for r in results)
    claim = "Thm 4: the n-condition and the H-condition are equivalent (up to sqrt(2))"
    if len(results) != 6:  # sympy did not give one positive root for H: no identity to decide
        return CheckResult(Verdict.UNDECIDED, claim, cite, "kernel", None, (), None, sum(r.cases for r in results),
                           details, reason=f"solving n = n_a, n^3 = n_b^3 for H gave {len(h1)} and {len(h2)} roots, not one each")
    return combine_results(claim, *results, source=cite, method="kernel+numeric", cases=sum(r.cases for r in results),
                           details=details)


def check_alg1_laplace(*, rng: np.random.Generator, scale: sp.Expr = LAPLACE_SCALE_ALG1) -> CheckResult:
    """Alg 1's Laplace stage is eps/2-DP, and with PrivateRange at eps/2 the budget is eps [LSAKKMS21, Thm 1 / Alg 1].

    Lap(8 tau/(n eps)) on the clipped mean, whose sensitivity is 4 tau/n.
    """
    lap = check_laplace_calibration(scale, budget=epsilon / 2, sensitivity=CLIPPED_MEAN_SENSITIVITY, rng=rng,
                                    claim="Alg 1: Lap(scale) on the 4tau-clipped mean is (eps/2)-DP",
                                    source=str(_cite("Alg 1")))
    total = check_identity(epsilon / 2 + epsilon / 2, epsilon, claim="eps/2 (range) + eps/2 (Laplace) = eps",
                           source=str(_cite("Thm 1")), rng=rng, count=8)
    return combine_results(f"Alg 1 with Lap({scale}) is eps-DP", lap, total, source=str(_cite("Thm 1")),
                           method="kernel+numeric", residual=lap.residual, cases=lap.cases + total.cases,
                           details=f"Laplace stage: {lap.verdict.name} ({lap.details}); budget sum: {total.verdict.name}")


def check_alg2_composition(*, rng: np.random.Generator) -> CheckResult:
    """Alg 2's first advanced-composition term over d coordinates is exactly eps/2.

    ``eps' sqrt(2 d ln(1/delta)) = eps/2`` [LSAKKMS21, Alg 2, line 3; DR14, Thm 3.20].
    """
    return check_identity(EPS_PRIME_ALG2 * sp.sqrt(2 * d * sp.log(1 / delta)), epsilon / 2,
                          claim="Alg 2: eps' sqrt(2 d ln(1/delta)) = eps/2", source=str(_cite("Alg 2, line 3")),
                          rng=rng, region={delta: (1e-12, 0.9)})


def check_alg2_composition_total(*, rng: np.random.Generator, max_epsilon: float = 10.0,
                                 max_delta: float = 0.9) -> CheckResult:
    """The route of Thm 2's proof: Alg 2's total advanced-composition epsilon is at most eps.

    Thm 2 states (eps, delta)-DP for all eps.

    Total: ``eps/2 + d eps'(e^{eps'} - 1)`` [DR14, Thm 3.20 with delta' = delta]. The notes'
    counterexample (eps = 5, delta = 0.1, d = 1: total 5.07) refutes this *route*, not Thm 2 itself:
    there basic composition gives ``d eps' = 1.165 <= 5`` (note P2'), so the DISPROVED verdict marks a
    gap in the proof. Pass ``max_epsilon=1, max_delta=0.6`` to check the regime where the notes
    derive that the total stays below eps.
    """
    total = epsilon / 2 + d * EPS_PRIME_ALG2 * (sp.exp(EPS_PRIME_ALG2) - 1)
    extra = [{epsilon: 5.0, delta: 0.1, d: 1.0}] if max_epsilon >= 5 else []
    return check_inequality(total, epsilon,
                            claim=(f"Thm 2's proof route (a gap in the proof, not in the statement): Alg 2's advanced-composition "
                                   f"total <= eps for eps <= {max_epsilon:g}, delta <= {max_delta:g}"),
                            source=str(_cite("Thm 2")), rng=rng,
                            region={epsilon: (1e-3, max_epsilon), delta: (1e-12, max_delta), d: (1, 1e4)},
                            extra_points=extra)


def prove_alg3_budget(proof: Proof) -> None:
    """Record on ``proof`` the symbolic argument that Alg 3's budget split is (eps, delta)-DP for eps <= 1.

    With ``eps' = eps/(2 sqrt(2 T ln(2/delta)))`` and ``delta' = delta/(2T)`` [LSAKKMS21, Alg 3, line 2],
    advanced composition [DR14, Thm 3.20] with slack delta/2 gives the total
    ``sqrt(2 T ln(2/delta)) eps' + T eps'(e^{eps'} - 1)``: the first term is eps/2 exactly, and for
    eps <= 1 the second is at most ``(e - 1) T eps'^2 = (e - 1) eps^2/(8 ln(2/delta)) <= eps/2``
    (chord of the convex e^x on [0, 1], which applies because eps' <= 1). Shared by
    :func:`check_alg3_composition` and the lemma check ``levy2021/alg3_composition``.
    """
    proof.cite("[DR14] Thm 3.20", "advanced composition with slack delta/2: T adaptive (eps', delta')-DP steps are "
               "(sqrt(2 T ln(2/delta)) eps' + T eps'(e^{eps'} - 1), T delta' + delta/2)-DP")
    proof.given("0 < eps <= 1 (Thm 3), 0 < delta < 1, T >= 1 steps")
    eps_, dl, big_t, lg = sp.symbols("epsilon delta T L", positive=True)  # L = ln(2/delta) >= ln 2 since delta < 1
    ep = eps_ / (2 * sp.sqrt(2 * big_t * lg))
    proof.zero("first term: sqrt(2 T ln(2/delta)) eps' = eps/2", sp.sqrt(2 * big_t * lg) * ep - eps_ / 2)
    proof.zero("delta: T delta' + delta/2 = delta", big_t * dl / (2 * big_t) + dl / 2 - dl)
    x = sp.Symbol("x", real=True)
    proof.concave_nonneg("e^x - 1 <= (e - 1) x on [0, 1] (chord of the convex e^x)", (sp.E - 1) * x - (sp.exp(x) - 1), x, 0, 1)
    a, ell, t1 = sp.symbols("a ell t", nonnegative=True)  # eps = 1/(1 + a) <= 1, L = ln 2 + ell, T = 1 + t
    region = {eps_: 1 / (1 + a), lg: sp.log(2) + ell, big_t: 1 + t1}
    proof.nonneg("eps' <= 1 for eps <= 1, T >= 1, L >= ln 2, so the chord bound applies at x = eps'", (1 - ep**2).subs(region))
    proof.zero("T eps'^2 = eps^2/(8 L)", big_t * ep**2 - eps_**2 / (8 * lg))
    proof.nonneg("(e - 1) eps^2/(8 L) <= eps/2 for eps <= 1, L >= ln 2",
                 (eps_ / 2 - (sp.E - 1) * eps_**2 / (8 * lg)).subs(region))


def check_alg3_composition(*, rng: np.random.Generator, count: int = 64) -> CheckResult:
    """Alg 3 over T steps is (eps, delta)-DP by advanced composition for eps <= 1.

    [LSAKKMS21, Alg 3, line 2 and Thm 3; DR14, Thm 3.20 with delta' = delta/2].

    The symbolic argument is :func:`prove_alg3_budget`; the total
    ``eps/2 + T eps'(e^{eps'} - 1) <= eps`` is cross-checked at random points of the region
    (which can only refute). PROVED given [DR14, Thm 3.20].
    """
    proof = Proof("levy2021.alg3_composition")
    prove_alg3_budget(proof)
    pts = random_points([epsilon, delta, T], rng, count, region={epsilon: (1e-3, 1.0), delta: (1e-12, 0.99)})
    total = sp.lambdify((epsilon, delta, T), epsilon / 2 + T * EPS_PRIME_ALG3 * (sp.exp(EPS_PRIME_ALG3) - 1), "mpmath")
    values = np.array([[p[epsilon], p[delta], p[T], float(total(p[epsilon], p[delta], p[T]))] for p in pts])
    proof.numeric_le("eps/2 + T eps'(e^eps' - 1) <= eps at random points (50-digit evaluation)", values[:, 3], values[:, 0],
                     {"epsilon": values[:, 0], "delta": values[:, 1], "T": values[:, 2]})
    result = proof.result()
    # the certified claim stays the proof's steps as formulas; the sentence is the label (CheckResult.statement)
    return combine_results("Alg 3 is (eps, delta)-DP by advanced composition for eps <= 1", result,
                           source=str(_cite("Alg 3, line 2")), method=result.method, residual=result.residual,
                           cases=result.cases, details=result.details)


CHECKS: tuple[CheckSpec, ...] = (
    CheckSpec("levy2021.thm2_variance", "re-derivation", "Thm 2 variance from Alg 2's eps', tau' (c_0 = 102,400)",
              lambda rng: check_thm2_variance(rng=rng)),
    CheckSpec("levy2021.thm3_convex", "re-derivation", "Thm 3(i) from nu^2 and smooth convex SGD",
              lambda rng: check_thm3_convex(rng=rng)),
    CheckSpec("levy2021.thm3_strongly_convex", "re-derivation", "Thm 3(ii) privacy term from nu^2",
              lambda rng: check_thm3_strongly_convex(rng=rng)),
    CheckSpec("levy2021.thm3_typesetting", "consistency", "typeset n sqrt(m eps) vs nu^2 (literal reading)",
              lambda rng: check_thm3_typesetting(rng=rng)),
    CheckSpec("levy2021.thm4_equivalence", "consistency", "Thm 4 n-condition <=> H-condition",
              lambda rng: check_thm4_equivalence(rng=rng)),
    CheckSpec("levy2021.alg1_laplace", "calibration", "Alg 1 Laplace scale 8tau/(n eps) and eps/2 + eps/2",
              lambda rng: check_alg1_laplace(rng=rng)),
    CheckSpec("levy2021.alg2_composition", "composition", "Alg 2 eps' sqrt(2d ln(1/delta)) = eps/2",
              lambda rng: check_alg2_composition(rng=rng)),
    CheckSpec("levy2021.alg2_total", "composition", "Thm 2's proof route: Alg 2 advanced-composition total <= eps (all eps); a gap in the proof",
              lambda rng: check_alg2_composition_total(rng=rng)),
    CheckSpec("levy2021.alg3_composition", "composition", "Alg 3 budget split over T steps (eps <= 1)",
              lambda rng: check_alg3_composition(rng=rng)),
)
