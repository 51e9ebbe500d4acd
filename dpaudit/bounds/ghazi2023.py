"""Ghazi, Kamath, Kumar, Meka, Manurangsi, Zhang. *On User-Level Private Convex Optimization*. ICML 2023.

Bibliography key ``GKKMMZ23``; read from the ICML 2023 version (main text and appendices);
page-by-page notes in ``docs/papers/ghazi2023.md``.

Symbols: the paper's Lipschitz constant G is ``L``, its failure probability beta is ``gamma``
(``beta`` is smoothness everywhere in dpaudit), its diameter R is ``R``. Its ERM/SCO rates are
stated with ``O~_eps``, which hides ``poly(log(1/delta), log(nm), 1/epsilon)``: those bounds list
epsilon in ``hidden_variables`` and rate comparisons treat it as a constant.

Readings of the typeset text (errata E1, E2 of the notes; both verified by the checks below):

* Alg 1, line 3 typesets ``delta_bar = delta / e^{eps_bar + 2}``; the proof ends with
  ``(e^{eps_bar} + 2) delta_bar <= delta``, so we use ``delta / (e^{eps_bar} + 2)``. The literal value
  is smaller, hence also private (:func:`check_alg1_budget` shows both).
* ``sigma = 2 sqrt(ln(2/delta_bar)) (8 kappa Delta)/eps_bar`` (the typeset square root spans the
  sensitivity; only the linear reading matches Thm 3.3's ``O(Delta log(1/delta)^1.5/eps^2)``).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.bounds.calibration import check_gaussian_noise
from dpaudit.bounds.checks import CheckSpec, check_identity, check_inequality
from dpaudit.bounds.rate_checks import check_rate
from dpaudit.bounds.symbols import Delta, L, R, T, c, d, delta, epsilon, gamma, k, lam, m, mu, n
from dpaudit.bounds.theorem import Bound, Citation, Condition, Kind, Paper, Quantity, Theorem
from dpaudit.bounds.verdict import CheckResult, Verdict
from dpaudit.verify import Proof
from dpaudit.verify.verdict import combine_results

__all__ = [
    "CHECKS",
    "PAPER",
    "check_alg1_budget",
    "check_alg1_gaussian",
    "check_phased_erm_composition",
    "check_tdlap_edge_mass",
    "check_thm41_chain",
    "check_thm51_corrected",
    "check_thm51_generalisation",
    "check_thm51_last_phase",
    "check_thm51_last_phase_corrected",
    "threshold_union",
]

KEY = "GKKMMZ23"
_HIDES = "poly(log(1/delta), log(nm), 1/epsilon)"


def _cite(location: str, equation: str = "") -> Citation:
    return Citation(KEY, location, equation)


# --- Algorithm 1 (DelOutputPert) parameters ---------------------------------------------------
EPS_BAR = epsilon / 2
"""eps_bar = eps/2 [GKKMMZ23, Alg 1, line 3]."""
DELTA_BAR = delta / (sp.exp(EPS_BAR) + 2)
"""delta_bar = delta/(e^{eps_bar} + 2) [GKKMMZ23, Alg 1, line 3; reading E1]."""
KAPPA = 1 + sp.ceiling(sp.log(1 / DELTA_BAR) / EPS_BAR)
"""kappa(eps_bar, delta_bar) = 1 + ceil(ln(1/delta_bar)/eps_bar) [GKKMMZ23, Def 3.4]."""
SIGMA_ALG1 = 2 * sp.sqrt(sp.log(2 / DELTA_BAR)) * (8 * KAPPA * Delta) / EPS_BAR
"""sigma = 2 sqrt(ln(2/delta_bar)) (8 kappa Delta)/eps_bar [GKKMMZ23, Alg 1, line 3; reading E2]."""
SENSITIVITY_ALG1 = 8 * KAPPA * Delta
"""Distance between the two released centres, <= 8 kappa Delta [GKKMMZ23, proof of Thm 3.3]."""

ALG1 = Theorem(
    key="ghazi2023.thm33",
    title="DelOutputPert (output perturbation for low local deletion sensitivity)",
    citation=_cite("Thm 3.3"),
    setting="any deterministic f, data-independent Delta, user-level replace-one",
    bounds=(
        Bound("ghazi2023.alg1.sigma", Quantity.NOISE_SCALE, SIGMA_ALG1, Kind.EXACT_EQUAL, _cite("Alg 1, line 3"),
              conditions=(Condition("0 < eps <= 1", epsilon <= 1), Condition("0 < delta <= 1/2", delta <= sp.Rational(1, 2))),
              notes="Readings E1 (delta_bar = delta/(e^eps_bar + 2)) and E2 (sigma linear in 8 kappa Delta)."),
        Bound("ghazi2023.thm33.sigma", Quantity.NOISE_SCALE, Delta * sp.log(1 / delta) ** sp.Rational(3, 2) / epsilon**2,
              Kind.UPPER_O, _cite("Thm 3.3")),
    ),
)

THRESHOLD_ALG2 = 10 * L * sp.sqrt(sp.log(1 / gamma)) / (mu * n * sp.sqrt(m))
"""Delta = 10 G sqrt(log(1/beta))/(mu n sqrt(m)) as printed [GKKMMZ23, Alg 2, line 1] (erratum E3: no union bound)."""
THM36_BOUND = 5 * L * sp.sqrt(sp.log(1 / gamma)) / (mu * (n - 1) * sp.sqrt(m))
"""||theta*(x^pi) - theta*(x^pi_{-n})|| <= 5 G sqrt(log(1/beta))/(mu (n - 1) sqrt(m)) w.p. 1 - beta [GKKMMZ23, Thm 3.6]
(its proof needs grad L(theta*) = 0: an interior minimiser, erratum E5)."""
THM36_CONSTRAINED = 10 * L * sp.sqrt(sp.log(1 / gamma)) / (mu * (n - 1) * sp.sqrt(m))
"""Thm 3.6 for a minimiser over K (first-order optimality, Lemma 3.8 on the centred gradients of norm <= 2G; E5)."""


def threshold_union(kappa: sp.Expr) -> sp.Expr:
    """Delta* = 5 G sqrt((4 kappa + 1) ln(n + 1) + ln(1/beta)) / (mu (n - 4 kappa - 1) sqrt(m)) for a given kappa."""
    return 5 * L * sp.sqrt((4 * kappa + 1) * sp.log(n + 1) + sp.log(1 / gamma)) / (mu * (n - 4 * kappa - 1) * sp.sqrt(m))


THRESHOLD_UNION = threshold_union(KAPPA)
"""Delta* with the union bound over deletion sets that Cor 3.7 needs (note ALG-2; 10 G when K may bind, E5)."""

THM31 = Theorem(
    key="ghazi2023.thm31",
    title="SCOutputPert (strongly convex ERM output perturbation)",
    citation=_cite("Thm 3.1"),
    setting="mu-strongly convex, L-Lipschitz, random permutation of items",
    bounds=(
        Bound("ghazi2023.alg2.threshold", Quantity.PARAMETER, THRESHOLD_ALG2, Kind.EXACT_EQUAL, _cite("Alg 2, line 1"),
              notes="As printed; Thm 3.1's proof needs an extra sqrt(r log n) union-bound term (erratum E3). "
                    "Privacy is unaffected."),
        Bound("ghazi2023.thm31.sigma", Quantity.NOISE_SCALE,
              L * sp.sqrt(sp.log(n) * sp.log(1 / delta) / epsilon + sp.log(1 / gamma)) / (mu * n * sp.sqrt(m))
              * sp.log(1 / delta) ** sp.Rational(3, 2) / epsilon**2,
              Kind.UPPER_O, _cite("Thm 3.1"),
              conditions=(Condition("n >= C log(1/delta)/eps, C unspecified"),)),
    ),
)

# --- Theorems 4.1, 4.3 (ERM) and 5.1, 5.3 (SCO) --------------------------------------------------
LAMBDA_THM41 = L * sp.sqrt(d) / (R * n * sp.sqrt(m))
"""lambda = G sqrt(d)/(R n sqrt(m)) [GKKMMZ23, proofs of Thm 4.1 and Thm 5.1]."""
_N_COND = Condition("n >= Omega~(log(1/delta) log(m)/eps)")

THM41 = Theorem(
    key="ghazi2023.thm41", title="Phased-ERM (convex)", citation=_cite("Thm 4.1"),
    setting="convex, L-Lipschitz, l2, random permutation of items",
    bounds=(Bound("ghazi2023.thm41.risk", Quantity.EMPIRICAL_RISK, R * L * sp.sqrt(d) / (n * sp.sqrt(m)),
                  Kind.UPPER_O_TILDE, _cite("Thm 4.1"),
                  settings={lam: LAMBDA_THM41, gamma: 1 / (n * m), T: sp.ceiling(sp.log(n * m))},
                  conditions=(_N_COND,), hidden=_HIDES, hidden_variables=frozenset({epsilon})),),
)
THM43 = Theorem(
    key="ghazi2023.thm43", title="Strongly-Convex-ERM", citation=_cite("Thm 4.3"),
    setting="mu-strongly convex, L-Lipschitz",
    bounds=(Bound("ghazi2023.thm43.risk", Quantity.EMPIRICAL_RISK, L**2 * d / (mu * n**2 * m), Kind.UPPER_O_TILDE,
                  _cite("Thm 4.3"), settings={gamma: 1 / (2 * n**2 * m)}, conditions=(_N_COND,), hidden=_HIDES,
                  hidden_variables=frozenset({epsilon})),),
)
THM51 = Theorem(
    key="ghazi2023.thm51", title="Phased-SCO (convex)", citation=_cite("Thm 5.1"),
    setting="convex, L-Lipschitz, l2, i.i.d. items",
    bounds=(Bound("ghazi2023.thm51.risk", Quantity.EXCESS_RISK,
                  R * L * (sp.sqrt(d) / (n * sp.sqrt(m)) + 1 / sp.sqrt(n * m)), Kind.UPPER_O_TILDE, _cite("Thm 5.1"),
                  settings={lam: LAMBDA_THM41, gamma: 1 / (n * m)}, conditions=(_N_COND,), hidden=_HIDES,
                  hidden_variables=frozenset({epsilon}),
                  notes="The theorem writes n >= O~(...); it means Omega~ (erratum E13)."),
              Bound("ghazi2023.runtime", Quantity.RUNTIME, n ** (c * sp.log(1 / delta) / epsilon) * (m * d) ** c,
                    Kind.UPPER_O, _cite("Sec 6"),
                    notes="n^{O(log(1/delta)/eps)} (md)^{O(1)}: c stands for the unspecified constants "
                          "(App. C: polynomial time with high probability only).")),
)
THM53 = Theorem(
    key="ghazi2023.thm53", title="Strongly-Convex-SCO", citation=_cite("Thm 5.3"),
    setting="mu-strongly convex, L-Lipschitz, i.i.d. items",
    bounds=(Bound("ghazi2023.thm53.risk", Quantity.EXCESS_RISK, L**2 / mu * (d / (n**2 * m) + 1 / (n * m)),
                  Kind.UPPER_O_TILDE, _cite("Thm 5.3"), settings={gamma: 1 / (2 * n**2 * m)}, conditions=(_N_COND,),
                  hidden=_HIDES, hidden_variables=frozenset({epsilon})),),
)
THMD7 = Theorem(
    key="ghazi2023.thmD7", title="strongly convex SCO lower bound", citation=_cite("Thm D.7"),
    setting="exists mu-strongly convex L-Lipschitz loss",
    bounds=(Bound("ghazi2023.thmD7.risk", Quantity.EXCESS_RISK,
                  L**2 / mu * (1 / (n * m) + d / (epsilon**2 * n**2 * m)), Kind.LOWER_OMEGA, _cite("Thm D.7"),
                  conditions=(Condition("n >= sqrt(d)/eps", n >= sp.sqrt(d) / epsilon),
                              Condition("delta <= sqrt(d)/(200 sqrt(n log n)) (as typeset; see erratum E11)")),),),
)

PAPER = Paper(
    key=KEY,
    short="Ghazi et al. 2023",
    title="On User-Level Private Convex Optimization (ICML 2023)",
    source="ICML 2023 (PMLR 202), main text and appendices",
    theorems=(ALG1, THM31, THM41, THM43, THM51, THM53, THMD7),
)

# ------------------------------------------------------------------------------------------------
# re-derivations
# ------------------------------------------------------------------------------------------------

SIGMA_PHASE = c * 2 * L / (lam * 4**k * n * sp.sqrt(m))
"""sigma_i = sigma(eps', delta', beta', 2G, lambda_i) = O~_eps(2G/(lambda_i n sqrt(m))) [GKKMMZ23, Thm 3.1 with
Lipschitz 2G and strong convexity lambda_i = lambda 4^i]; ``c`` stands for the hidden O~_eps factor."""


def _privacy_sum() -> tuple[sp.Expr, sp.Expr]:
    """sum_{i=1}^{T-1} lambda_{i+1} d sigma_i^2 in closed form, and its T -> oo limit."""
    term = lam * 4 ** (k + 1) * d * SIGMA_PHASE**2
    closed = sp.simplify(sp.summation(term, (k, 1, T - 1)))
    limit = sp.simplify(sp.summation(term, (k, 1, sp.oo)))
    return closed, limit


def check_thm41_chain(*, rng: np.random.Generator, claim: Bound | None = None) -> CheckResult:
    """Re-derive Thm 4.1 from its proof's chain ``lambda R^2 + G sqrt(d) sigma_T + sum lambda_{i+1} d sigma_i^2``.

    Steps: (i) the sum over phases has the closed form computed by sympy and is at most its
    T -> oo limit ``16 c^2 d G^2/(3 lambda n^2 m)``; (ii) ``4^T >= (nm)^{ln 4}`` because
    ``T = ceil(ln(nm))``; (iii) substituting ``lambda = G sqrt(d)/(R n sqrt(m))`` gives a rate at most the
    stated ``RG sqrt(d)/(n sqrt(m))`` [GKKMMZ23, proof of Thm 4.1].
    """
    bound = claim or THM41.bounds[0]
    closed, limit = _privacy_sum()
    step1 = check_inequality(closed, limit, claim="phase sum <= its limit 16c^2 d G^2/(3 lam n^2 m)",
                             source=str(_cite("proof of Thm 4.1")), rng=rng, count=32)
    last = L * sp.sqrt(d) * SIGMA_PHASE.subs(4**k, (n * m) ** sp.log(4))
    derived = (lam * R**2 + last + limit).subs(lam, bound.settings.get(lam, LAMBDA_THM41))
    rate = check_rate(derived, bound, claim="Thm 4.1 rate from the proof's chain", source=str(bound.citation), rng=rng)
    return combine_results(f"Thm 4.1 follows from its parameter settings ({bound.name})", step1, rate,
                           source=str(bound.citation), method="kernel+rates", residual=rate.residual,
                           assumptions=("sigma_i from Thm 3.1 with 2G, lambda_i",),
                           counterexample=rate.counterexample or step1.counterexample, cases=step1.cases + rate.cases,
                           details=f"sum step: {step1.verdict.name}; rate: {rate.verdict.name} ({rate.details})",
                           reason="; ".join(r.reason for r in (step1, rate) if r.reason))


def _generalisation_total(lam_expr: sp.Expr) -> sp.Expr:
    """sum_i 16 G^2/(lambda_i n_i) with n_i = n m/2^i items in batch i (Lemma 5.2, reading E8(a)), summed to oo."""
    term = 16 * L**2 / (lam_expr * 4**k * (n * m / 2**k))
    return sp.simplify(sp.summation(term, (k, 1, sp.oo)))


def check_thm51_generalisation(*, rng: np.random.Generator, claim: Bound | None = None) -> CheckResult:
    """Re-derive Thm 5.1 with the *printed* lambda (erratum E8(b)) [GKKMMZ23, Lemma 5.2, proof of Thm 5.1].

    Lemma 5.2's generalisation terms sum to ``16 G^2/(lambda n m) = 16 G R/sqrt(d m)``, which
    exceeds the stated ``RG(sqrt(d)/(n sqrt(m)) + 1/sqrt(nm))`` when n >> d.
    """
    bound = claim or THM51.bounds[0]
    _, privacy = _privacy_sum()
    derived = (lam * R**2 + _generalisation_total(lam) + privacy).subs(lam, LAMBDA_THM41)
    return check_rate(derived, bound, claim="Thm 5.1 rate from its proof with the printed lambda = G sqrt(d)/(R n sqrt(m))",
                      source=str(_cite("Lemma 5.2, proof of Thm 5.1")), rng=rng)


def check_thm51_corrected(*, rng: np.random.Generator, claim: Bound | None = None) -> CheckResult:
    """With ``lambda = (G/R) max(sqrt(d)/(n sqrt(m)), 1/sqrt(nm))`` the same chain gives Thm 5.1's rate.

    This is the lambda of Feldman et al. 2020. Upper bounds used: ``1/max(a, b) <= 1/b`` in the
    generalisation term and ``<= 1/a`` in the privacy term.
    """
    bound = claim or THM51.bounds[0]
    a = sp.sqrt(d) / (n * sp.sqrt(m))
    b = 1 / sp.sqrt(n * m)
    _, privacy = _privacy_sum()
    derived = (L / R) * sp.Max(a, b) * R**2 + _generalisation_total((L / R) * b) + privacy.subs(lam, (L / R) * a)
    return check_rate(derived, bound, claim="Thm 5.1 rate with the corrected lambda (G/R) max(sqrt(d)/(n sqrt m), 1/sqrt(nm))",
                      source=str(_cite("Thm 5.1")), rng=rng)


def check_thm51_last_phase(*, rng: np.random.Generator, claim: Bound | None = None) -> CheckResult:
    """The last phase's noise term of the Thm 4.1 chain, transferred to Phased-SCO, is not covered by Thm 5.1's rate.

    In Phased-SCO the last batch has n_T = n/2^T users and ``lambda_T = lambda 4^T``, so
    ``G sqrt(d) sigma_T = 2 c G R/2^T`` with the printed lambda. The last batch needs at least
    ``N_0 = C log(1/delta)/eps`` users, so ``2^T <= n/N_0`` and the term is at least
    ``2 c G R N_0/n``, larger than ``RG/sqrt(nm) + RG sqrt(d)/(n sqrt(m))`` when m >> n (erratum E8(c) of the
    notes). A DISPROVED verdict means the proof as written does not give the stated rate; it is not a
    counterexample to the theorem itself [GKKMMZ23, Alg 4, proof of Thm 5.1].
    """
    bound = claim or THM51.bounds[0]
    n_zero = c * sp.log(1 / delta) / epsilon
    sigma_last = SIGMA_PHASE.subs(4**k, 4**T).subs(n, n / 2**T)  # batch of n/2^T users
    term = sp.simplify((L * sp.sqrt(d) * sigma_last).subs(lam, LAMBDA_THM41))  # = 2cGR/2^T
    lower = term.subs(2**T, n / n_zero)
    ident = check_identity(term, 2 * c * L * R / 2**T, claim="G sqrt(d) sigma_T = 2cGR/2^T", source=str(bound.citation),
                           rng=rng, count=16)
    rate = check_rate(lower, bound, claim="last-phase term 2cGR N_0/n is covered by Thm 5.1's rate",
                      source=str(_cite("Alg 4, proof of Thm 5.1")), rng=rng)
    # the conjunction, certified when its parts are (combine_results: a DISPROVED rests on the refuting part only)
    return combine_results("Thm 5.1's proof (last-phase noise, N_0 users) gives the stated rate", ident, rate,
                           source=str(bound.citation), method="kernel+rates", residual=rate.residual,
                           assumptions=("last batch has >= N_0 users",), counterexample=rate.counterexample,
                           cases=ident.cases + rate.cases,
                           details=f"identity: {ident.verdict.name}; rate: {rate.verdict.name} ({rate.details})",
                           reason="; ".join(r.reason for r in (ident, rate) if r.reason))


THM51_WITH_LAST_PHASE = Bound(
    "ghazi2023.thm51.risk_with_last_phase", Quantity.EXCESS_RISK,
    R * L * (sp.sqrt(d) / (n * sp.sqrt(m)) + 1 / sp.sqrt(n * m) + sp.log(1 / delta) / (epsilon * n)),
    Kind.UPPER_O_TILDE, _cite("Thm 5.1, proof"), conditions=(_N_COND,), hidden=_HIDES,
    notes="Thm 5.1's rate plus the last phase's G sqrt(d) sigma_T ~ G R N_0/n, N_0 = C log(1/delta)/eps (erratum E8(c)).")


def check_thm51_last_phase_corrected(*, rng: np.random.Generator) -> CheckResult:
    """With the last-phase term ``G R N_0/n`` kept, the chain of :func:`check_thm51_last_phase` is covered.

    Thm 5.1's proof gives ``RG(sqrt(d)/(n sqrt(m)) + 1/sqrt(nm) + log(1/delta)/(eps n))`` (erratum
    E8(c)).
    """
    n_zero = c * sp.log(1 / delta) / epsilon
    sigma_last = SIGMA_PHASE.subs(4**k, 4**T).subs(n, n / 2**T)
    term = sp.simplify((L * sp.sqrt(d) * sigma_last).subs(lam, LAMBDA_THM41)).subs(2**T, n / n_zero)
    return check_rate(term, THM51_WITH_LAST_PHASE, claim="last-phase term is covered once N_0/n is in the rate",
                      source=str(_cite("Alg 4, proof of Thm 5.1")), rng=rng)


# ------------------------------------------------------------------------------------------------
# calibration and composition
# ------------------------------------------------------------------------------------------------


def check_alg1_budget(*, rng: np.random.Generator) -> CheckResult:
    """Alg 1's budget adds up to (eps, delta) [GKKMMZ23, Alg 1, line 3 and the end of the proof of Thm 3.3].

    The two eps_bar steps give e^{2 eps_bar} = e^eps, and the three delta_bar terms give
    (e^{eps_bar} + 2) delta_bar = delta; the literal typesetting delta/e^{eps_bar+2} is no larger.
    """
    cite = str(_cite("proof of Thm 3.3"))
    e1 = check_identity(sp.exp(2 * EPS_BAR), sp.exp(epsilon), claim="e^{2 eps_bar} = e^eps", source=cite, rng=rng, count=16)
    e2 = check_identity((sp.exp(EPS_BAR) + 2) * DELTA_BAR, delta, claim="(e^eps_bar + 2) delta_bar = delta", source=cite,
                        rng=rng, count=16)
    e3 = check_inequality(delta / sp.exp(EPS_BAR + 2), DELTA_BAR, claim="literal delta/e^(eps_bar+2) <= delta_bar",
                          source=str(_cite("Alg 1, line 3")), rng=rng, count=32,
                          reparametrize={epsilon: 2 * sp.log(1 + sp.Symbol("v", positive=True))})
    return combine_results("Alg 1 budget: (eps_bar, delta_bar) steps compose to (eps, delta)", e1, e2, e3, source=cite,
                           method="kernel+numeric", residual=e2.residual, cases=e1.cases + e2.cases + e3.cases,
                           details=f"{e1.claim}: {e1.verdict.name}; {e2.claim}: {e2.verdict.name}; {e3.claim}: {e3.verdict.name}")


def check_alg1_gaussian(*, rng: np.random.Generator, sigma_expr: sp.Expr = SIGMA_ALG1) -> CheckResult:
    """Alg 1's Gaussian step is (eps_bar, delta_bar)-DP for eps <= 1, delta <= 1/2.

    N(0, sigma^2 I) on centres at distance <= 8 kappa Delta [GKKMMZ23, proof of Thm 3.3, step
    "Gaussian mechanism"; DR14, Thm A.1; BW18, Thm 8].
    """
    const = check_inequality(2 * sp.log(sp.Rational(5, 4) / DELTA_BAR), 4 * sp.log(2 / DELTA_BAR),
                             claim="c^2 = 4 ln(2/delta_bar) >= 2 ln(1.25/delta_bar)", source=str(_cite("proof of Thm 3.3")),
                             rng=rng, count=32, region={delta: (1e-12, 0.5)},
                             reparametrize={delta: 1 / (1 + sp.Symbol("u", positive=True))})
    noise = check_gaussian_noise(sigma_expr, sensitivity=SENSITIVITY_ALG1, eps_budget=EPS_BAR, delta_budget=DELTA_BAR,
                                 claim=f"Alg 1 Gaussian step with sigma = {sigma_expr} is (eps_bar, delta_bar)-DP",
                                 source=str(_cite("Alg 1, line 3")), rng=rng,
                                 region={epsilon: (1e-2, 1.0), delta: (1e-12, 0.5)}, count=32,
                                 reparametrize={delta: 1 / (1 + sp.Symbol("u", positive=True))})
    return combine_results(noise.statement or f"Alg 1 Gaussian step with sigma = {sigma_expr} is (eps_bar, delta_bar)-DP",
                           const, noise, source=noise.source, method=noise.method, residual=noise.residual,
                           cases=const.cases + noise.cases, details=f"constant: {const.verdict.name}; noise: {noise.details}")


def check_tdlap_edge_mass(*, rng: np.random.Generator) -> CheckResult:
    """TDLap(eps_bar, delta_bar) puts at most delta_bar e^{-eps_bar} <= delta_bar on each end point.

    ``e^{-eps_bar kappa} <= delta_bar e^{-eps_bar}`` because ``eps_bar kappa >= eps_bar +
    ln(1/delta_bar)`` [GKKMMZ23, Def 3.4 and proof of Thm 3.3 (T1)]. The kernel does not read ``ceiling``: the
    ceiling is written ``ceil(y) = y + f`` with ``f >= 0`` (an assumed premise, printed), and the kernel decides
    the inequality for every ``f >= 0``; the form with the ceiling itself is cross-checked at random points (which
    can only refute, after an exact re-check).
    """
    cite = str(_cite("Def 3.4"))
    f = sp.Symbol("f", nonnegative=True)
    y = sp.log(1 / DELTA_BAR) / EPS_BAR
    proof = Proof("ghazi2023.tdlap_edge")
    proof.given("kappa = 1 + ceil(y), y = ln(1/delta_bar)/eps_bar, eps_bar = eps/2, delta_bar = delta/(e^eps_bar + 2)")
    proof.assume("ceiling", "ceil(y) = y + f for some f >= 0 (the ceiling of a real is at least the real)")
    proof.nonneg("e^{-eps_bar (1 + y + f)} <= delta_bar e^{-eps_bar} for every f >= 0",
                 DELTA_BAR * sp.exp(-EPS_BAR) - sp.exp(-EPS_BAR * (1 + y + f)))
    sym = proof.result()
    num = check_inequality(sp.exp(-EPS_BAR * KAPPA), DELTA_BAR * sp.exp(-EPS_BAR),
                           claim="e^{-eps_bar kappa} <= delta_bar e^{-eps_bar}", source=cite, rng=rng,
                           count=64, region={delta: (1e-12, 0.5), epsilon: (1e-2, 1.0)}, symbolic=False)
    details = f"symbolic (ceil = y + f): {sym.verdict.name}; with ceiling, numerically: {num.verdict.name} ({num.details})"
    # a re-checked counterexample of the ceiling form refutes the claim; otherwise the f-form proof decides it
    part = num if num.verdict is Verdict.DISPROVED else sym
    return combine_results("TDLap end-point mass <= delta_bar", part, source=cite, method="kernel+numeric",
                           residual=sym.residual, cases=sym.cases + num.cases, details=details)


def check_phased_erm_composition(*, rng: np.random.Generator) -> CheckResult:
    """Phased-ERM's T SCOutputPert calls at (eps/T, delta/T) compose to (eps, delta).

    The calls run on the same data; basic composition [GKKMMZ23, Alg 3, line 2 and proof of Thm
    4.1].
    """
    e = check_identity(T * (epsilon / T), epsilon, claim="T (eps/T) = eps", source=str(_cite("Alg 3")), rng=rng, count=8)
    dl = check_identity(T * (delta / T), delta, claim="T (delta/T) = delta", source=str(_cite("Alg 3")), rng=rng, count=8)
    return combine_results("Phased-ERM basic composition", e, dl, source=str(_cite("Alg 3")), method="kernel+numeric",
                           cases=e.cases + dl.cases, details=f"{e.verdict.name}, {dl.verdict.name}")


CHECKS: tuple[CheckSpec, ...] = (
    CheckSpec("ghazi2023.thm41_chain", "re-derivation", "Thm 4.1 from lambda, sigma_i and the phase sum",
              lambda rng: check_thm41_chain(rng=rng)),
    CheckSpec("ghazi2023.thm51_printed_lambda", "re-derivation", "Thm 5.1 with the printed lambda (E8b)",
              lambda rng: check_thm51_generalisation(rng=rng)),
    CheckSpec("ghazi2023.thm51_corrected_lambda", "re-derivation", "Thm 5.1 with the corrected lambda",
              lambda rng: check_thm51_corrected(rng=rng)),
    CheckSpec("ghazi2023.thm51_last_phase", "re-derivation", "Thm 5.1 last-phase noise term (E8c)",
              lambda rng: check_thm51_last_phase(rng=rng)),
    CheckSpec("ghazi2023.alg1_budget", "composition", "Alg 1 eps_bar/delta_bar bookkeeping",
              lambda rng: check_alg1_budget(rng=rng)),
    CheckSpec("ghazi2023.alg1_gaussian", "calibration", "Alg 1 Gaussian sigma at sensitivity 8 kappa Delta",
              lambda rng: check_alg1_gaussian(rng=rng)),
    CheckSpec("ghazi2023.tdlap_edge", "calibration", "TDLap end-point mass <= delta_bar",
              lambda rng: check_tdlap_edge_mass(rng=rng)),
    CheckSpec("ghazi2023.phased_erm_composition", "composition", "Phased-ERM basic composition over T phases",
              lambda rng: check_phased_erm_composition(rng=rng)),
)
