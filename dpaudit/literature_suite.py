"""The DP-testing literature's benchmark suite as audit cases: StatDP's and DP-Sniper's mechanisms.

Each case audits one mechanism of StatDP [DWWZK18] or DP-Sniper [BSBV21] at the claim those
papers test (epsilon 0.1 unless noted) on one pair of StatDP's pattern family
(:func:`statdp_patterns`): the pair on which DP-Sniper reported its witness. ``broken`` says
whether the true epsilon on that pair exceeds the claim; the auditor never sees it.

:data:`PUBLISHED` holds the peers' published lower bounds (confidence 0.9, DP-Sniper with
2*10^8 final samples per side) from DP-Sniper's repository ``eval_sp2021/reference-results``:
DP-Sniper's best of logistic regression (``dd_search_reg_data.log``) and MLP, and StatDP run
through DP-Sniper's wrapper, twice (``statdp_1/2_data.log``); the floating-point rows are from
``floating_point_data.log`` and ``floating_fixed_data.log``.

The cases' ``trials`` are sized for ``dpaudit demo`` (a few seconds per case; every broken case
flagged there except SVT3 and SVT34Parallel, which need more trials than a demo affords:
SVT34Parallel is flagged at 10^6, SVT3 only at 10^7); ``python -m benchmarks.bench_peer_suites``
audits them at 10^6 and 10^7 trials.

References
----------
.. [DWWZK18] Z. Ding, Y. Wang, G. Wang, D. Zhang and D. Kifer. Detecting violations of
   differential privacy. CCS 2018.
.. [BSBV21] B. Bichsel, S. Steffen, I. Bogunovic and M. Vechev. DP-Sniper: black-box discovery
   of differential privacy violations using classifiers. IEEE S&P 2021.
.. [LSL17] M. Lyu, D. Su and N. Li. Understanding the sparse vector technique for differential
   privacy. PVLDB 10(6), 2017.
.. [Mir12] I. Mironov. On significance of the least significant bits for differential privacy.
   CCS 2012.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.auditor.cases import AuditCase
from dpaudit.auditor.options import AttackOptions
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.mechanisms import LaplaceMechanism, ReportNoisyMax, SparseVector, faulty
from dpaudit.mechanisms.literature import (
    LaplaceParallel,
    NumericalSVT,
    OneTimeRappor,
    PrefixSum,
    Rappor,
    SnappingLaplace,
    SparseVectorResampled,
    SVT34Parallel,
    TruncatedGeometric,
)

__all__ = ["GROUP", "PUBLISHED", "exact_column", "literature_cases", "statdp_patterns"]

GROUP = "literature suite (StatDP, DP-Sniper)"

# name -> (DP-Sniper's lower bound, StatDP's best of two runs); None where not run
PUBLISHED: dict[str, tuple[float | None, float | None]] = {
    "Laplace": (0.0976, 0.0998),
    "TruncatedGeometric": (0.1156, 0.1169),
    "NoisyHist1": (0.0978, 0.0994),
    "NoisyHist2": (4.6020, 10.0022),
    "ReportNoisyMax1": (0.0923, 0.0921),
    "ReportNoisyMax2": (0.0975, 0.0997),
    "ReportNoisyMax3": (0.2488, 0.1991),
    "ReportNoisyMax4": (0.3534, 0.1988),
    "SVT1": (0.0858, 0.0299),
    "SVT2": (0.0859, 0.0407),
    "SVT3": (0.1822, 0.1793),
    "SVT4": (0.1696, 0.1719),
    "SVT5": (1.7612, 14.3143),
    "SVT6": (0.2720, 0.3220),
    "NumericalSVT": (0.0343, None),
    "Rappor": (0.2930, 0.2416),
    "OneTimeRappor": (0.5978, 0.4706),
    "LaplaceParallel": (0.0350, 0.0135),
    "SVT34Parallel": (0.2610, 0.1963),
    "PrefixSum": (0.5774, 0.3516),
    "Laplace, IEEE bits": (0.2521, None),
    "SnappingLaplace, IEEE bits": (0.0979, None),
}


def statdp_patterns(dim: int, component_wise: bool) -> list[tuple[str, NDArray[np.float64], NDArray[np.float64]]]:
    """StatDP's input patterns [DWWZK18, Sec. 5.1], as DP-Sniper generates them [BSBV21, Sec. VI].

    ``d0 = [1, ..., 1]`` against: one above, one below; and, if every entry may change
    (``component_wise``), one above rest below, one below rest above, half-half, all above, all
    below; plus the X shape ``[1..1, 0..0]`` against ``[0..0, 1..1]``.
    """
    ones = np.ones(dim)
    half = dim // 2
    out = [("one below", ones, np.r_[0.0, ones[1:]]), ("one above", ones, np.r_[2.0, ones[1:]])]
    if component_wise:
        out += [
            ("one above rest below", ones, np.r_[2.0, np.zeros(dim - 1)]),
            ("one below rest above", ones, np.r_[0.0, 2.0 * np.ones(dim - 1)]),
            ("half-half", ones, np.r_[2.0 * np.ones(half), np.zeros(dim - half)]),
            ("all above", ones, 2.0 * ones),
            ("all below", ones, np.zeros(dim)),
            ("X shape", np.r_[np.ones(half), np.zeros(dim - half)], np.r_[np.zeros(half), np.ones(dim - half)]),
        ]
    return out


def _pattern(dim: int, component_wise: bool, name: str, swap: bool = False) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    found = {n: (a, b) for n, a, b in statdp_patterns(dim, component_wise)}[name]
    return (found[1], found[0]) if swap else found


def _case(name: str, label: str, mechanism: Any, pair: tuple[Any, Any], trials: int, broken: bool, note: str,
          epsilon: float | None = None, **options: Any) -> AuditCase:
    dpsniper, statdp = PUBLISHED[name]
    peers = f"DP-Sniper {dpsniper:.4g}" + (f", StatDP {statdp:.4g}" if statdp is not None else "")
    return AuditCase(f"{name} ({label})", mechanism, pair[0], pair[1], epsilon, None, trials, broken, None,
                     f"{note} Published: {peers}.", GROUP, dict(options))


def literature_cases() -> list[AuditCase]:
    """The suite, correct mechanisms and broken ones interleaved in the papers' order."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        return _cases()


def _cases() -> list[AuditCase]:
    hist, rnm, svt = (5, False), (5, True), (10, True)
    return [
        _case("Laplace", "values", LaplaceMechanism(0.1), (1.0, 0.0), 200_000, False,
              "numpy's Laplace, audited as a real-valued mechanism (its bits are not read)."),
        _case("TruncatedGeometric", "one below", TruncatedGeometric(3, 5), (2, 1), 200_000, False,
              "GeoSample with k = 3: ln(9/8) = 0.1178-DP, tight between interior counts."),
        _case("NoisyHist1", "one below", LaplaceMechanism(0.1), _pattern(*hist, "one below"), 200_000, False,
              "Lap(1/eps) per bin, l1 distance 1."),
        _case("NoisyHist2", "one below", faulty.HistogramWrongScale(0.1), _pattern(*hist, "one below"), 100_000, True,
              "Laplace scale eps: 10-DP, not 0.1-DP."),
        _case("ReportNoisyMax1", "one below rest above", ReportNoisyMax(0.1), _pattern(*rnm, "one below rest above"), 200_000, False,
              "Index of the max of q + Lap(2/eps)."),
        _case("ReportNoisyMax2", "one below rest above", ReportNoisyMax(0.1, noise="exponential"),
              _pattern(*rnm, "one below rest above"), 200_000, False, "Index of the max of q + Exp(2/eps)."),
        _case("ReportNoisyMax3", "all below", faulty.NoisyMaxValue(0.1), _pattern(*rnm, "all below"), 400_000, True,
              "Max value with Laplace noise: about 5 eps / 2 = 0.25-DP on 5 queries."),
        _case("ReportNoisyMax4", "all above", faulty.NoisyMaxValue(0.1, "exponential"), _pattern(*rnm, "all above"), 100_000, True,
              "Max value with exponential noise: not DP (support starts at the largest answer)."),
        _case("SVT1", "X shape", SparseVector(0.1, 0.5, cutoff=1), _pattern(*svt, "X shape"), 100_000, False,
              "[LSL17] Alg. 1, c = 1, T = 0.5."),
        _case("SVT2", "X shape", SparseVectorResampled(0.1, 1.0, 1), _pattern(*svt, "X shape"), 100_000, False,
              "[LSL17] Alg. 2, c = 1, T = 1."),
        _case("SVT3", "half-half", faulty.SparseVectorLyu3(0.1, 1.0), _pattern(*svt, "half-half"), 200_000, True,
              "[LSL17] Alg. 3 releases the noisy answer: not DP for any epsilon."),
        _case("SVT4", "half-half", faulty.SparseVectorLyu4(0.1, 1.0), _pattern(*svt, "half-half"), 1_000_000, True,
              "[LSL17] Alg. 4: (1 + 6c)/4 eps = 0.175-DP at c = 1."),
        _case("SVT5", "half-half", faulty.SparseVectorLyu5(0.1, 1.0), _pattern(*svt, "half-half", swap=True), 100_000, True,
              "[LSL17] Alg. 5, no query noise: not DP for any epsilon."),
        _case("SVT6", "X shape", faulty.SparseVectorLyu6(0.1, 1.0), _pattern(*svt, "X shape"), 400_000, True,
              "[LSL17] Alg. 6, no cutoff: not DP for any epsilon."),
        _case("NumericalSVT", "all above", NumericalSVT(0.1, 1.0, 2), _pattern(*svt, "all above", swap=True), 100_000, False,
              "[WDWKZ19] NumSVT, c = 2."),
        _case("Rappor", "one below", Rappor(), ([1], [0]), 100_000, False,
              f"One report: eps_1 = {Rappor().epsilon:.4f}-DP, tight (values 1 and 0 set disjoint bits)."),
        _case("OneTimeRappor", "one below", OneTimeRappor(), ([1], [0]), 100_000, False,
              f"Permanent response: eps_inf = {OneTimeRappor().epsilon:.4f}-DP, tight."),
        _case("LaplaceParallel", "one below", LaplaceParallel(0.005, 20), (1.0, 0.0), 200_000, False,
              "20 x Lap(1/0.005): 0.1-DP by composition, tight only on vanishing events."),
        _case("SVT34Parallel", "half-half", SVT34Parallel(0.1, 1.0, 2), _pattern(*svt, "half-half"), 200_000, True,
              "[LSL17] Alg. 3 and 4 side by side, claimed 0.2: Alg. 3 is not DP."),
        _case("PrefixSum", "all below", PrefixSum(0.1, 10), _pattern(*svt, "all below"), 100_000, False,
              "Running sums of q + Lap(1/eps): 10 eps = 1.0-DP when all 10 answers change."),
        _case("Laplace, IEEE bits", "one below", LaplaceMechanism(0.1), (1.0, 0.0), 100_000, True,
              "numpy's textbook sampler with its bits read [Mir12]: outputs near 0 are on a finer grid "
              "than 1 + noise can produce, so not DP for any epsilon.", attack=AttackOptions(float_bits=True)),
        _case("SnappingLaplace, IEEE bits", "one above", SnappingLaplace(0.1, 100.0), (0.0, 1.0), 200_000, False,
              "Mironov's snapping mechanism, 0.1-DP in floating point [Mir12, Thm 1].", attack=AttackOptions(float_bits=True)),
    ]



def exact_column(cases: list[AuditCase] | None = None) -> list[tuple[str, float, Any, str]]:
    """The suite's "true epsilon on this pair" column, computed (no sampling).

    One row per case: ``(name, claimed epsilon, bracket or None, what the profile is or why there is
    none)``; the bracket (:class:`dpaudit.exact.EpsilonBracket`) is certified at the claim's delta.
    ``python -m benchmarks.bench_exact_profiles`` times it.
    """
    from dpaudit.exact.bracket import case_bracket

    rows = []
    for case in literature_cases() if cases is None else cases:
        claim = case.mechanism.claimed_guarantee()
        epsilon = case.epsilon if case.epsilon is not None else claim.epsilon_at(getattr(claim, "delta", 0.0))
        bracket, note = case_bracket(case)
        rows.append((case.name, float(epsilon), bracket, note))
    return rows
