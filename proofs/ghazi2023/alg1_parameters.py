"""Alg 1 parameters: (e^{epsbar} + 2) deltabar = delta, e^{2 epsbar} = e^eps, sigma linear in Delta; kappa values."""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpaudit.mechanisms.discrete import tdlap_kappa
from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "ghazi2023/alg1_parameters"
#: (eps, delta) -> kappa(epsbar, deltabar), from the note's table "Concrete parameter values"
NOTE_KAPPA = {(1.0, 1e-5): 27, (1.0, 1e-6): 32, (0.5, 1e-5): 52, (0.1, 1e-5): 254, (1.0, 1e-2): 13, (1.0, 0.1): 9, (1.0, 0.5): 5}


def sigma_over_delta(eps: float, delta: float) -> float:
    """sigma / Delta = 2 sqrt(ln(2/deltabar)) * 8 kappa / epsbar (Alg 1 line 3, erratum E2 reading)."""
    epsbar = eps / 2
    deltabar = delta / (math.exp(epsbar) + 2)
    return 2 * math.sqrt(math.log(2 / deltabar)) * 8 * tdlap_kappa(epsbar, deltabar) / epsbar


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("epsbar = eps/2, deltabar = delta/(e^{epsbar} + 2) (Alg 1 line 3, erratum E1 reading)")
    eps, delta, big_delta, kap = sp.symbols("epsilon delta Delta kappa", positive=True)
    epsbar = eps / 2
    deltabar = delta / (sp.exp(epsbar) + 2)
    proof.zero("(e^{epsbar} + 2) deltabar = delta", (sp.exp(epsbar) + 2) * deltabar - delta)
    proof.zero("e^{2 epsbar} = e^{eps}", sp.exp(2 * epsbar) - sp.exp(eps))
    proof.zero("eq. (2) + eq. (4): deltabar + (e^{epsbar} + 1) deltabar = delta", deltabar + (sp.exp(epsbar) + 1) * deltabar - delta)
    sigma = lambda dl: 2 * sp.sqrt(sp.log(2 / deltabar)) * 8 * kap * dl / epsbar  # noqa: E731
    proof.zero("sigma(2 Delta) = 2 sigma(Delta) (linear in Delta)", sigma(2 * big_delta) - 2 * sigma(big_delta))
    got = [tdlap_kappa(e / 2, d / (math.exp(e / 2) + 2)) for (e, d) in NOTE_KAPPA]
    proof.numeric_eq("dpaudit tdlap_kappa(epsbar, deltabar) matches the note's table", got, list(NOTE_KAPPA.values()),
                     {"(eps, delta)": np.array([str(k) for k in NOTE_KAPPA])})
    proof.numeric_le("sigma/Delta at (1, 1e-5) is 3174.59 (note spot check, to 0.01)", abs(sigma_over_delta(1.0, 1e-5) - 3174.59), 0.01,
                     {"sigma/Delta": sigma_over_delta(1.0, 1e-5)})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Ghazi et al. 2023, Alg 1 line 3 and proof of Thm 3.3 (eqs. (2), (4))",
    statement=("With epsbar = eps/2, deltabar = delta/(e^{epsbar} + 2): (e^{epsbar} + 2) deltabar = delta, e^{2 epsbar} = e^{eps}, "
               "the two delta terms of eqs. (2) and (4) add to delta, and sigma = 2 sqrt(ln(2/deltabar)) 8 kappa Delta/epsbar is linear in Delta."),
    expected=Verdict.PROVED,
    papers=("ghazi2023",),
    check=_run,
)
