"""Thm 3.2's complexity at n = d, eps = 1, beta R = L, and when its first term dominates.

It is (mn)^{9/8} + 2 n^{1/4} m^{5/4} + mn; (mn)^{9/8} dominates n^{1/4} m^{5/4} iff n^7 >= m; the
stated speed-ups and the smoothing constant are identities.
"""

from __future__ import annotations

import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "lowy2024/complexity_algebra"


def _run() -> CheckResult:
    proof = Proof(NAME)
    n, m, d, eps, beta, big_l, big_r = sp.symbols("n m d epsilon beta L R", positive=True)
    e8, e4 = sp.Rational(1, 8), sp.Rational(1, 4)
    g32 = m * n * (1 + eps * (beta * big_r / big_l) ** e4 * sp.Min((m * n) ** e8, (eps**2 * n**2 * m / d) ** e8)) \
        + sp.sqrt(beta * big_r / big_l) * (n**e4 * m ** sp.Rational(5, 4) / eps + sp.sqrt(n) * m ** sp.Rational(5, 4) / (d**e4 * sp.sqrt(eps)))
    at = g32.subs({d: n, eps: 1, beta: big_l / big_r})
    proof.equal("Thm 3.2 at n = d, eps = 1, beta R = L: (mn)^{9/8} + 2 n^{1/4} m^{5/4} + mn",
                at, (m * n) ** sp.Rational(9, 8) + 2 * n**e4 * m ** sp.Rational(5, 4) + m * n)
    proof.equal("(mn)^{9/8} / (n^{1/4} m^{5/4}) = (n^7/m)^{1/8}, so it is >= 1 iff n^7 >= m",
                (m * n) ** sp.Rational(9, 8) / (n**e4 * m ** sp.Rational(5, 4)), (n**7 / m) ** e8)
    proof.equal("non-smooth speed-up over [AL24]: (nm)^3 / (n^{11/8} m^{5/4}) = n^{13/8} m^{7/4}",
                (n * m) ** 3 / (n ** sp.Rational(11, 8) * m ** sp.Rational(5, 4)), n ** sp.Rational(13, 8) * m ** sp.Rational(7, 4))
    proof.equal("smooth speed-up: beta (nm)^{3/2} / (beta^{1/4} (nm)^{9/8}) = beta^{3/4} (nm)^{3/8}",
                beta * (n * m) ** sp.Rational(3, 2) / (beta**e4 * (n * m) ** sp.Rational(9, 8)), beta ** sp.Rational(3, 4) * (n * m) ** sp.Rational(3, 8))
    r = sp.sqrt(d) * big_r / (eps * n * sp.sqrt(m))
    proof.equal("smoothing radius r = sqrt(d) R/(eps n sqrt m) gives beta_r = L sqrt(d)/r = L eps n sqrt(m)/R",
                big_l * sp.sqrt(d) / r, big_l * eps * n * sp.sqrt(m) / big_r)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Lowy et al. 2024, Thm 3.2 / C.3 (gradient complexity and its simplification), Remark 4.2, Section 4 (r, beta_r); note 4.2, 4.8",
    statement=("At n = d, eps = 1, beta R = L, Thm 3.2's complexity equals (mn)^{9/8} + 2 n^{1/4} m^{5/4} + mn; (mn)^{9/8} >= n^{1/4} m^{5/4} "
               "iff n^7 >= m; (nm)^3/(n^{11/8} m^{5/4}) = n^{13/8} m^{7/4}; beta(nm)^{3/2}/(beta^{1/4}(nm)^{9/8}) = beta^{3/4}(nm)^{3/8}; "
               "and r = sqrt(d) R/(eps n sqrt m) gives beta_r = L eps n sqrt(m)/R."),
    expected=Verdict.PROVED,
    papers=("lowy2024",),
    check=_run,
)
