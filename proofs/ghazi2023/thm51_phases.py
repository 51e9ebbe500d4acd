"""Erratum E8 as pairs, through the re-derivations of :mod:`dpaudit.bounds.ghazi2023` (the chain of Thm 5.1's proof).

E8(b): with the printed lambda = G sqrt(d)/(R n sqrt(m)) the generalisation terms of Lemma 5.2 sum to 16 G R/sqrt(dm),
above the rate when n >> d (DISPROVED); lambda = (G/R) max(sqrt(d)/(n sqrt(m)), 1/sqrt(nm)) gives the rate (PROVED).
E8(c): the last phase's noise G sqrt(d) sigma_T ~ G R N_0/n is not covered by the stated rate (DISPROVED: a gap in the
proof, not a counterexample to the theorem); kept as a term, the chain is covered (PROVED).

Every verdict is the trusted kernel's (issue 19), through :func:`dpaudit.bounds.check_rate` and
:func:`dpaudit.bounds.rate_kernel.kernel_rate_check`: the rate engine only splits the two rates into monomials and
the kernel decides the obligations (derived <= its monomials, the stated rate >= its monomials, positive
coefficients, and in log space y_v = ln v >= 0 each derived exponent <= the largest stated exponent). PROVED is the
concrete bound derived <= K * stated rate for n, m, d >= 1 with K free of n, m, d (printed in the details); DISPROVED
is a log-direction inside the regime, re-checked exactly (E8(b): n:3/2, m:1/2, d:1/2, i.e. n >> d; E8(c): n:1/2,
m:3/2, d:1/2, i.e. m >> n), along which a derived term outgrows the rate, with the premise "polynomial growth beats
polylog factors" printed beside it.
"""

from __future__ import annotations

from dpaudit.bounds import ghazi2023 as bounds
from dpaudit.verify import CheckResult, LemmaCheck, Premise, Verdict, rng_for
from dpaudit.verify.verdict import _amend

LAMBDA_PRINTED = "ghazi2023/thm51_lambda_printed"
LAMBDA_CORRECTED = "ghazi2023/thm51_lambda_corrected"
LAST_PRINTED = "ghazi2023/thm51_last_phase_printed"
LAST_CORRECTED = "ghazi2023/thm51_last_phase_corrected"


def _wrap(name: str, run) -> CheckResult:
    result = run(rng=rng_for(name))
    reading = Premise("assumed", "reading", "sigma_i from Thm 3.1 with 2G and lambda_i; Lemma 5.2 read with the "
                      "empirical minimiser and N = items (E8(a))")
    return _amend(result, premises=(*result.premises, reading))


CHECKS = (
    LemmaCheck(
        name=LAMBDA_PRINTED,
        source="Ghazi et al. 2023, proof of Thm 5.1 (lambda = G sqrt(d)/(R n sqrt(m))) with Lemma 5.2; docs/papers/ghazi2023.md, erratum E8",
        statement="(as printed) With lambda = G sqrt(d)/(R n sqrt(m)), Thm 5.1's proof chain is O~(RG(sqrt(d)/(n sqrt(m)) + 1/sqrt(nm))).",
        expected=Verdict.DISPROVED,
        papers=("ghazi2023",),
        check=lambda: _wrap(LAMBDA_PRINTED, bounds.check_thm51_generalisation),
        role="printed",
        sibling=LAMBDA_CORRECTED,
    ),
    LemmaCheck(
        name=LAMBDA_CORRECTED,
        source="Ghazi et al. 2023, Thm 5.1 with lambda = (G/R) max(sqrt(d)/(n sqrt(m)), 1/sqrt(nm)); docs/papers/ghazi2023.md, erratum E8",
        statement="(corrected) With lambda = (G/R) max(sqrt(d)/(n sqrt(m)), 1/sqrt(nm)), the chain is O~(RG(sqrt(d)/(n sqrt(m)) + 1/sqrt(nm))).",
        expected=Verdict.PROVED,
        papers=("ghazi2023",),
        check=lambda: _wrap(LAMBDA_CORRECTED, bounds.check_thm51_corrected),
        role="corrected",
        sibling=LAMBDA_PRINTED,
    ),
    LemmaCheck(
        name=LAST_PRINTED,
        source="Ghazi et al. 2023, Alg 4 and the proof of Thm 5.1 (last phase, n_T ~ N_0 users); docs/papers/ghazi2023.md, erratum E8",
        statement=("(as printed) The last phase's noise term G sqrt(d) sigma_T of Phased-SCO is within Thm 5.1's rate "
                   "O~(RG(sqrt(d)/(n sqrt(m)) + 1/sqrt(nm)))."),
        expected=Verdict.DISPROVED,
        papers=("ghazi2023",),
        check=lambda: _wrap(LAST_PRINTED, bounds.check_thm51_last_phase),
        role="printed",
        sibling=LAST_CORRECTED,
    ),
    LemmaCheck(
        name=LAST_CORRECTED,
        source="Ghazi et al. 2023, proof of Thm 5.1 with the last-phase term kept; docs/papers/ghazi2023.md, erratum E8",
        statement=("(corrected) The last phase's term is within O~(RG(sqrt(d)/(n sqrt(m)) + 1/sqrt(nm) + log(1/delta)/(eps n))): "
                   "Thm 5.1's proof gives the rate plus G R N_0/n."),
        expected=Verdict.PROVED,
        papers=("ghazi2023",),
        check=lambda: _wrap(LAST_CORRECTED, bounds.check_thm51_last_phase_corrected),
        role="corrected",
        sibling=LAST_PRINTED,
    ),
)
