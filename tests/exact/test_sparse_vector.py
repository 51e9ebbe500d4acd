"""Sparse vector (Lyu, Su and Li's Algorithms 1-6) and report-noisy-max: exact laws against
independent computations written here, and the literature's closed forms.

The independent computation integrates ``f_rho(r) prod_i P(answer_i | r)`` with scipy's adaptive
quadrature in plain floats (a different formulation from the exact exponential-polynomial
integrals of :mod:`dpaudit.exact.threshold`).
"""

from __future__ import annotations

import itertools
import math
import warnings

import pytest
from scipy import integrate, stats

from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.exact import ThresholdSpec, report_noisy_max_profile, threshold_profile
from dpaudit.literature_suite import exact_column, literature_cases, statdp_patterns
from dpaudit.mechanisms import AboveThreshold, ReportNoisyMax, SparseVector, faulty
from dpaudit.mechanisms.literature import SparseVectorResampled


def _lyu(cls, *args, **kwargs):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        return cls(*args, **kwargs)


def _quad_output(spec: ThresholdSpec, q: list[float], halts: set[int], answered: int) -> float:
    """P(output) by quadrature: answered queries 0..answered-1, halting answers at ``halts``."""
    b1, b2, t = spec.threshold_scale, spec.query_scale, spec.threshold

    def laplace_sf(y: float, b: float) -> float:
        return 0.5 * math.exp(-y / b) if y >= 0 else 1.0 - 0.5 * math.exp(y / b)

    def halt_prob(i: int, r: float) -> float:
        above = laplace_sf(t + r - q[i], b2) if b2 is not None else float(q[i] >= t + r)
        return above if spec.halt_on == "above" else 1.0 - above

    def integrand(r: float) -> float:
        value = math.exp(-abs(r) / b1) / (2 * b1)
        for i in range(answered):
            h = halt_prob(i, r)
            value *= h if i in halts else 1.0 - h
        return value

    points = sorted({0.0} | {x - t for x in q})
    width = 60 * max(b1, b2 or 0.0)
    value, _ = integrate.quad(integrand, -width, width, points=points, limit=500, epsabs=1e-14, epsrel=1e-12)
    return value


def _quad_law(spec: ThresholdSpec, q: list[float]) -> dict[str, float]:
    n, cutoff = len(q), spec.cutoff or len(q)
    code = {True: "⊤" if spec.halt_on == "above" else "⊥", False: "⊥" if spec.halt_on == "above" else "⊤"}
    law = {}
    for size in range(cutoff + 1):
        for halts in itertools.combinations(range(n), size):
            answered = halts[-1] + 1 if size == cutoff and size else n
            label = "".join(code[i in halts] for i in range(answered)) + "·" * (n - answered)
            law[label] = _quad_output(spec, q, set(halts), answered)
    return law


SPECS = {
    "Alg. 1, c = 1": (ThresholdSpec(0.5, 20.0, 40.0, 1), [1.0] * 3 + [0.0] * 3, [0.0] * 3 + [1.0] * 3),
    "Alg. 1, c = 2": (ThresholdSpec(0.0, 2.0, 8.0, 2), [0.0, 0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0, 1.0]),
    "AboveThreshold mirrored": (ThresholdSpec(0.0, 2.0, 4.0, 1, "below"), [2.0, 2.0, 0.0, 2.0], [0.0, 0.0, 2.0, 0.0]),
    "Alg. 4": (ThresholdSpec(1.0, 4.0, 4.0 / 3.0, 1), [1.0] * 4, [2.0, 2.0, 0.0, 0.0]),
    "Alg. 5 (no query noise)": (ThresholdSpec(1.0, 2.0, None, None), [2.0, 2.0, 0.0, 0.0], [1.0] * 4),
    "Alg. 6 (no cutoff)": (ThresholdSpec(1.0, 2.0, 2.0, None), [1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]),
}


@pytest.mark.parametrize("name", list(SPECS))
def test_output_law_matches_quadrature(name):
    spec, q0, q1 = SPECS[name]
    if spec.cutoff is None:  # compare the enumerated law (no grouping) with quadrature, output by output
        spec_c = ThresholdSpec(spec.threshold, spec.threshold_scale, spec.query_scale, len(q0), spec.halt_on)
        prof = threshold_profile(spec_c, q0, q1, description=name)
    else:
        prof = threshold_profile(spec, q0, q1, description=name)
    for q, lo, hi in ((q0, prof.p_lo, prof.p_hi), (q1, prof.q_lo, prof.q_hi)):
        ref = _quad_law(spec, q)
        assert set(ref) == set(prof.labels)
        for j, label in enumerate(prof.labels):
            assert lo[j] - 1e-10 <= ref[label] <= hi[j] + 1e-10, (name, label, lo[j], hi[j], ref[label])
        assert lo.sum() <= 1.0 + 1e-12 and hi.sum() >= 1.0 - 1e-12


def test_grouped_law_equals_the_enumerated_one():
    """No cutoff: merging exchangeable queries keeps the profile (same likelihood ratios)."""
    spec, q0, q1 = SPECS["Alg. 6 (no cutoff)"]
    grouped = threshold_profile(spec, q0, q1, description="grouped")
    full = threshold_profile(ThresholdSpec(1.0, 2.0, 2.0, 4), q0, q1, description="full")
    assert grouped.size < full.size
    for eps in (0.0, 0.2, 0.7):
        a, b = grouped.delta(eps), full.delta(eps)
        assert abs(a.hi - b.hi) < 1e-12 and abs(a.lo - b.lo) < 1e-12


def _epsilon_from_quad(spec: ThresholdSpec, q0: list[float], q1: list[float]) -> float:
    p, q = _quad_law(spec, q0), _quad_law(spec, q1)
    return max(abs(math.log(p[k] / q[k])) for k in p if p[k] > 1e-300 and q[k] > 1e-300)


def test_the_literature_suite_table():
    """Lyu et al.'s Algorithms 1-6 on the suite's pairs, against the closed forms or the quadrature."""
    rows = {name.split(" ")[0]: (claim, bracket) for name, claim, bracket, _ in exact_column()}
    cases = {c.name.split(" ")[0]: c for c in literature_cases()}
    for name in ("SVT1", "SVT2"):  # Alg. 1 and 2: within their claim on every pattern
        claim, bracket = rows[name]
        assert bracket is not None and bracket.exact and bracket.upper <= claim
    assert math.isinf(rows["SVT5"][1].lower)  # Alg. 5 on half-half: an output only d0 can produce
    assert rows["SVT3"][1].exact and rows["SVT3"][1].upper < math.inf  # finite on a fixed pair: tests/exact/test_released_values.py
    for name in ("SVT1", "SVT2", "SVT4", "SVT6"):  # the others: the independent quadrature
        case = cases[name]
        mech = case.mechanism
        halting = "above"
        if name == "SVT2":
            spec = ThresholdSpec(mech.threshold, mech.cutoff / (mech.epsilon / 2), 2 * mech.cutoff / (mech.epsilon / 2), 1, halting)
        elif name == "SVT6":
            spec = ThresholdSpec(mech.threshold, mech.threshold_scale, mech.query_scale, None, halting)
        else:
            spec = ThresholdSpec(mech.threshold, mech.threshold_scale, mech.query_scale, mech.cutoff, halting)
        q0, q1 = list(case.d0), list(case.d1)
        if name == "SVT6":  # 2^10 outputs by quadrature is slow: the X shape's law on 6 queries instead
            q0, q1 = [1.0, 1.0, 1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]
            bracket = mech.privacy_profile(q0, q1).epsilon(0.0)
        else:
            bracket = rows[name][1]
        reference = _epsilon_from_quad(spec, q0, q1)
        assert bracket.lower - 1e-8 <= reference <= bracket.upper + 1e-8, (name, bracket, reference)


def test_alg4_reaches_its_closed_form_and_never_exceeds_it():
    """[LSL17, Sec. 3.3]: Alg. 4 is ((1 + 6c)/4) eps-DP, attained as ⊥ answers accumulate before the ⊤ ones."""
    for cutoff in (1, 2):
        mech = _lyu(faulty.SparseVectorLyu4, 1.0, 0.0, cutoff=cutoff)
        bound = (1 + 6 * cutoff) / 4
        previous = 0.0
        for t in (cutoff + 2, 10, 20):
            d0 = [0.0] * (t - cutoff) + [1.0] * cutoff
            d1 = [1.0] * (t - cutoff) + [0.0] * cutoff
            b = mech.privacy_profile(d0, d1).epsilon(0.0)
            assert previous < b.lower and b.upper <= bound
            previous = b.lower
        assert previous > bound - 0.01
    for _, d0, d1 in statdp_patterns(8, True):  # and never above it on StatDP's patterns
        assert mech.privacy_profile(d0, d1).epsilon(0.0).upper <= 3.25


def test_alg6_grows_without_bound_and_alg1_2_stay_within_their_claim():
    mech6 = _lyu(faulty.SparseVectorLyu6, 1.0, 0.5)
    values = [mech6.privacy_profile([0.0] * k + [1.0] * k, [1.0] * k + [0.0] * k).epsilon(0.0).lower for k in (2, 5, 10)]
    assert values[0] < values[1] < values[2] and values[2] > 8.0  # not DP for any epsilon: grows with the queries
    for mech in (SparseVector(0.5, 0.0, cutoff=2), SparseVectorResampled(0.5, 0.0, 2), AboveThreshold(0.5, 0.0)):
        for _, d0, d1 in statdp_patterns(6, True):
            assert mech.privacy_profile(d0, d1).epsilon(0.0).upper <= 0.5


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_report_noisy_max_matches_quadrature(noise):
    q0, q1, scale = [1.0, 1.0, 0.0], [0.0, 2.0, 1.0], 1.5
    prof = report_noisy_max_profile(q0, q1, scale, noise)
    dist = stats.laplace(0, scale) if noise == "laplace" else stats.expon(0, scale)
    for q, lo, hi in ((q0, prof.p_lo, prof.p_hi), (q1, prof.q_lo, prof.q_hi)):
        for i in range(3):
            def integrand(x: float, i: int = i, q: list[float] = q) -> float:
                return dist.pdf(x - q[i]) * math.prod(dist.cdf(x - q[j]) for j in range(3) if j != i)

            ref, _ = integrate.quad(integrand, -80, 80, points=sorted(set(q)), limit=400, epsabs=1e-14)
            assert lo[i] - 1e-10 <= ref <= hi[i] + 1e-10


def test_the_declared_laws_match_the_samplers(rng):
    """The profile declares the law the sampler draws from: empirical frequencies within Clopper-Pearson limits.

    Failure probability 1e-6 per test (Bonferroni over every output of every mechanism below).
    """
    mechs = [
        (SparseVector(1.0, 0.0, cutoff=2), [0.0, 1.0, 0.0, 1.0], [1.0, 0.0, 1.0, 0.0]),
        (SparseVectorResampled(1.0, 0.0, 2), [0.0, 1.0, 0.0, 1.0], [1.0, 0.0, 1.0, 0.0]),
        (AboveThreshold(1.0, 0.0, variant="ghazi2025"), [0.0, 1.0, 0.0], [1.0, 0.0, 1.0]),
        (_lyu(faulty.SparseVectorLyu4, 1.0, 0.0), [0.0, 0.0, 1.0], [1.0, 1.0, 0.0]),
        (ReportNoisyMax(1.0), [0.0, 1.0, 0.5], [1.0, 0.0, 0.5]),
    ]
    n = 40_000
    outputs = sum(len(m.privacy_profile(a, b).labels or range(3)) for m, a, b in mechs) * 2
    alpha = 1e-6 / outputs
    code = {1: "⊤", 0: "⊥", -1: "·"}
    for mech, d0, d1 in mechs:
        prof = mech.privacy_profile(d0, d1)
        for data, lo, hi in ((d0, prof.p_lo, prof.p_hi), (d1, prof.q_lo, prof.q_hi)):
            out = mech.sample(data, n, rng=rng)
            if out.ndim == 1:
                labels = [str(int(x)) for x in out]
            else:
                labels = ["".join(code[int(c)] for c in row) for row in out]
            counts = {label: 0 for label in prof.labels}
            for label in labels:
                counts[label] += 1
            for j, label in enumerate(prof.labels):
                k = counts[label]
                low = stats.beta.ppf(alpha / 2, k, n - k + 1) if k > 0 else 0.0
                high = stats.beta.ppf(1 - alpha / 2, k + 1, n - k) if k < n else 1.0
                assert low <= hi[j] and lo[j] <= high, (type(mech).__name__, label, k, n, (low, high), (lo[j], hi[j]))
