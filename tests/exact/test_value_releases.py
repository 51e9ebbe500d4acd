"""Mechanisms that release a real value: the noisy maximum's value (alone or with its index), numerical
sparse vector, a mean over the true count, the snapping mechanism; against independent computations.

The independent side is written here in plain floats from each mechanism's definition (scipy's
distributions and quadrature, roots found with brentq), and the samplers are checked against it with
Clopper-Pearson limits.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from exact_support import clopper_pearson_ok, quiet, suite_bracket
from scipy import integrate, optimize, stats

from dpaudit.exact.laplace_variants import LaplaceScalesProfile
from dpaudit.exact.noisy_max import _Branch, _Factors, noisy_max_value_profile
from dpaudit.mechanisms import faulty
from dpaudit.mechanisms.literature import NumericalSVT, SnappingLaplace

# -- the noisy maximum's value ---------------------------------------------------------------------

class _Noise:
    """The noise's density and CDF in plain floats (faster than scipy's frozen distributions in quadrature)."""

    def __init__(self, kind: str, scale: float) -> None:
        self.kind, self.b = kind, scale

    def pdf(self, y: float) -> float:
        if self.kind == "laplace":
            return math.exp(-abs(y) / self.b) / (2 * self.b)
        return math.exp(-y / self.b) / self.b if y >= 0 else 0.0

    def cdf(self, y: float) -> float:
        if self.kind == "laplace":
            return 0.5 * math.exp(y / self.b) if y < 0 else 1.0 - 0.5 * math.exp(-y / self.b)
        return 1.0 - math.exp(-y / self.b) if y >= 0 else 0.0


def _max_density(q: list[float], dist, index: int | None = None):  # type: ignore[no-untyped-def]
    """The density of the maximum (``index`` given: of the pair (index, value)) of ``q + noise``."""
    terms = range(len(q)) if index is None else [index]
    return lambda x: sum(dist.pdf(x - q[i]) * math.prod(dist.cdf(x - q[j]) for j in range(len(q)) if j != i) for i in terms)


NOISY_MAX = {
    "suite RNM3 (all below)": ([1.0] * 5, [0.0] * 5, 20.0, "laplace", False),
    "generic value": ([0.0, 1.0, 0.5], [1.0, 0.2, 0.5], 1.0, "laplace", False),
    "catalogue with index": ([0.0] * 5, [1.0] * 5, 2.0, "laplace", True),
    "generic with index": ([0.0, 1.0, 0.5], [1.0, 0.2, 0.5], 1.5, "laplace", True),
    "exponential, common support": ([2.0, 1.0], [2.0, 0.0], 1.0, "exponential", False),
}


@pytest.mark.parametrize("name", list(NOISY_MAX))
def test_noisy_max_value_matches_quadrature(name):
    q0, q1, scale, noise, with_index = NOISY_MAX[name]
    prof = noisy_max_value_profile(q0, q1, scale, noise, with_index=with_index)
    dist = _Noise(noise, scale)
    branches = range(len(q0)) if with_index else [None]
    dens = [[_max_density(q, dist, i) for i in branches] for q in (q0, q1)]
    points = sorted(set(q0) | set(q1))
    low, high = (min(points) - 40 * scale, max(points) + 40 * scale)
    for eps in (0.0, 0.1, 0.5):
        a = math.exp(eps)
        for direction, (num, den) in enumerate((dens, dens[::-1])):
            ref = sum(integrate.quad(lambda x, f=f, g=g, a=a: max(f(x) - a * g(x), 0.0), low, high, points=points, limit=400,
                                     epsabs=1e-13)[0] for f, g in zip(num, den, strict=True))
            h = prof.hockey_stick(eps, direction)
            assert h.lo - 1e-9 <= ref <= h.hi + 1e-9, (name, eps, direction, h, ref)
    grid = np.linspace(low + 30 * scale, high - 10 * scale, 801)
    for direction, (num, den) in enumerate((dens, dens[::-1])):
        best = -math.inf
        for f, g in zip(num, den, strict=True):
            def loss(x: float, f=f, g=g) -> float:  # type: ignore[no-untyped-def]
                return math.log(f(x) / g(x)) if f(x) > 0 and g(x) > 0 else -math.inf

            start = max([*grid, *points], key=loss)  # the grid and the breakpoints, then a bounded scalar search
            support = max(max(q0), max(q1)) if noise == "exponential" else -math.inf
            polished = optimize.minimize_scalar(lambda x, loss=loss: -loss(x), bounds=(max(start - 0.2, support), start + 0.2),
                                                method="bounded", options={"xatol": 1e-10})
            best = max(best, loss(start), -polished.fun)
        m = prof.max_loss(direction)
        assert m.lo - 1e-7 <= best <= m.hi + 1e-9, (name, direction, m, best)


@pytest.mark.parametrize("name", [n for n, case in NOISY_MAX.items() if case[3] == "laplace"])
def test_noisy_max_value_limit_at_infinity(name):
    """The loss's limit at ``+inf`` (a lower bound of the largest loss in the last cell) against the
    quadrature's densities far right, where every CDF is 1 to within ``e^{-60}``."""
    q0, q1, scale, noise, with_index = NOISY_MAX[name]
    dist = _Noise(noise, scale)
    x = max(*q0, *q1) + 60 * scale
    factors = _Factors(noise, scale)
    q = (q0, q1) if with_index else (sorted(q0), sorted(q1))
    branches = [_Branch(factors, q, [i]) for i in range(len(q0))] if with_index else [_Branch(factors, q, range(len(q0)))]
    for k, branch in enumerate(branches):
        index = k if with_index else None
        far = math.log(_max_density(q0, dist, index)(x) / _max_density(q1, dist, index)(x))
        limit = branch.right_limit()
        assert limit.lo - 1e-12 <= far <= limit.hi + 1e-12 and limit.hi - limit.lo <= 1e-12, (name, k, limit, far)


def test_the_suite_noisy_max_values_closed_forms():
    """RNM3 on all-below: the maximum moves by exactly 1, and left of every answer its density is
    ``prop e^{k x / b}``: epsilon ``k / b = 5 * 0.1 / 2 = 0.25``. RNM4 on all-above: the maximum on d0 can be
    in ``[1, 2)`` where d1's cannot: mass ``(1 - e^{-1/b})^5`` with an infinite loss, delta > 0 at every epsilon."""
    rnm3, rnm4 = suite_bracket("ReportNoisyMax3"), suite_bracket("ReportNoisyMax4")
    assert rnm3.exact and rnm3.lower <= 0.25 <= rnm3.upper and rnm3.upper - rnm3.lower <= 1e-9
    assert rnm4.exact and math.isinf(rnm4.lower)
    prof = quiet(faulty.NoisyMaxValue, 0.1, "exponential").privacy_profile([1.0] * 5, [2.0] * 5)
    mass = (1.0 - math.exp(-1.0 / 20.0)) ** 5
    inf = prof.infinite_loss_mass(0)
    assert inf.lo <= mass * (1 + 1e-12) and inf.lo >= mass * (1 - 1e-9)
    assert prof.delta(50.0).lo >= inf.lo > 0
    assert prof.epsilon(mass / 2).lower == math.inf  # below that mass no epsilon will do
    equal = noisy_max_value_profile([0.0, 1.0, 0.5], [1.0, 0.0, 0.5], 1.0)  # a permutation: the same law of the maximum
    assert equal.epsilon(0.0).upper == 0.0


def test_noisy_max_samplers_draw_the_declared_law(rng):
    """Bins of the sampled maximum (and index) within Clopper-Pearson limits of the scipy probabilities."""
    n, bins = 40_000, [-math.inf, -2.0, 0.0, 1.0, 2.0, 4.0, math.inf]
    checks = []
    for mech, q in [(quiet(faulty.NoisyMaxValue, 1.0, "laplace"), [0.0, 1.0, 0.5]),
                    (quiet(faulty.NoisyMaxValue, 1.0, "exponential"), [0.0, 1.0, 0.5]),
                    (quiet(faulty.NoisyMaxWithValue, 1.0), [0.0, 1.0, 0.5])]:
        out = mech.sample(q, n, rng=rng)
        dist = _Noise(getattr(mech, "noise", "laplace"), 2.0)
        if out.ndim == 1:
            cdf = lambda x, q=q, dist=dist: math.prod(dist.cdf(x - v) for v in q)  # noqa: E731
            for lo, hi in itertools.pairwise(bins):
                checks.append((int(np.sum((out >= lo) & (out < hi))), cdf(hi) - cdf(lo)))
        else:
            for i in range(3):
                f = _max_density(q, dist, i)
                for lo, hi in itertools.pairwise(bins):
                    prob = integrate.quad(f, max(lo, -80.0), min(hi, 80.0), points=[v for v in q if max(lo, -80) < v < min(hi, 80)] or None,
                                          limit=200, epsabs=1e-13)[0]
                    checks.append((int(np.sum((out[:, 0] == i) & (out[:, 1] >= lo) & (out[:, 1] < hi))), prob))
    alpha = 1e-6 / len(checks)
    assert all(clopper_pearson_ok(k, n, p, alpha) for k, p in checks), [(k, p) for k, p in checks if not clopper_pearson_ok(k, n, p, alpha)]


# -- numerical sparse vector -----------------------------------------------------------------------

def _pattern_law(q: list[float], t: float, b1: float, b2: float, cutoff: int) -> dict[tuple[int, ...], float]:
    """P(⊤ positions) of sparse vector by quadrature over the threshold noise."""
    def sf(y: float) -> float:
        return 0.5 * math.exp(-y / b2) if y >= 0 else 1.0 - 0.5 * math.exp(y / b2)

    law = {}
    n = len(q)
    for k in range(cutoff + 1):
        for tops in itertools.combinations(range(n), k):
            answered = tops[-1] + 1 if k == cutoff and k else n

            def f(r: float, tops=tops, answered=answered) -> float:  # type: ignore[no-untyped-def]
                v = math.exp(-abs(r) / b1) / (2 * b1)
                for i in range(answered):
                    v *= sf(t + r - q[i]) if i in tops else 1.0 - sf(t + r - q[i])
                return v

            law[tops] = integrate.quad(f, -60 * b1, 60 * b1, points=sorted({0.0} | {x - t for x in q}), limit=400, epsabs=1e-15)[0]
    return law


def test_numerical_svt_matches_the_pattern_law_and_laplace_releases():
    q0, q1, t, eps, c = [1.0, 0.0, 2.0], [0.0, 1.0, 1.0], 0.5, 1.0, 2
    mech = NumericalSVT(eps, t, c)
    prof = mech.privacy_profile(q0, q1)
    b1, b2, b3 = 3.0 / eps, 6.0 * c / eps, 3.0 * c / eps
    laws = _pattern_law(q0, t, b1, b2, c), _pattern_law(q1, t, b1, b2, c)
    assert sum(laws[0].values()) == pytest.approx(1.0, abs=1e-10)
    for direction, (num, den) in enumerate((laws, laws[::-1])):  # largest loss: the pattern's, plus each value's |q - q'| / b_3
        best = max(math.log(num[tops] / den[tops]) + sum(abs(q0[h] - q1[h]) / b3 for h in tops) for tops in num)
        m = prof.max_loss(direction)
        assert m.lo - 1e-9 <= best <= m.hi + 1e-9 and m.hi - m.lo <= 1e-9, (direction, m, best)
    lap = _Noise("laplace", b3).pdf
    for eps_ in (0.1, 0.6):
        a = math.exp(eps_)
        for direction, (d_num, d_den) in enumerate(((0, 1), (1, 0))):
            qn, qd = (q0, q1)[d_num], (q0, q1)[d_den]
            ref = 0.0
            for tops, p in laws[d_num].items():
                w = laws[d_den][tops]
                if not tops:
                    ref += max(p - a * w, 0.0)
                    continue
                h = tops[0]
                if len(tops) == 1:
                    ref += integrate.quad(lambda v, h=h, p=p, w=w, a=a, qn=qn, qd=qd: max(p * lap(v - qn[h]) - a * w * lap(v - qd[h]), 0.0),
                                          -300, 300, points=sorted({qn[h], qd[h]}), limit=400, epsabs=1e-14)[0]
                    continue
                g = tops[1]
                shift = abs(qn[g] - qd[g]) / b3

                def outer(x: float, h=h, p=p, w=w, shift=shift, a=a, qn=qn, qd=qd) -> float:  # type: ignore[no-untyped-def]
                    big, small = p * lap(x - qn[h]), a * w * lap(x - qd[h])  # then the second value's Laplace pair
                    return big * _laplace_pair_hockey_stick(math.log(small / big), shift)

                ref += integrate.quad(outer, -300, 300, points=sorted({qn[h], qd[h]}), limit=400, epsabs=1e-14)[0]
            hs = prof.hockey_stick(eps_, direction)
            assert hs.lo - 1e-10 <= ref <= hs.hi + 1e-10, (eps_, direction, hs, ref)
            assert hs.hi - hs.lo <= 0.01 * ref


def _laplace_pair_hockey_stick(c: float, s: float) -> float:
    """``int (f(y) - e^c f(y - Delta))_+ dy`` for a Laplace density ``f`` of scale ``b`` and ``s = Delta / b >= 0``, any real ``c``.

    The loss ``(|y - Delta| - |y|)/b`` is ``s`` left of 0, ``-s`` right of ``Delta``, linear between; above ``c``
    left of ``y* = (Delta - b c)/2``, so for ``|c| < s`` the integral is ``1 - e^{(c - s)/2}``; ``1 - e^c`` for
    ``c <= -s``; 0 for ``c >= s``.
    """
    if c >= s:
        return 0.0
    if c <= -s:
        return 1.0 - math.exp(c)
    return 1.0 - math.exp((c - s) / 2)


def test_numerical_svt_on_the_suite_pair_is_within_its_claim():
    bracket = suite_bracket("NumericalSVT")
    assert bracket.exact and bracket.upper <= 0.1 and bracket.upper - bracket.lower <= 1e-9


def test_numerical_svt_sampler_draws_the_declared_law(rng):
    mech, q = NumericalSVT(1.0, 0.5, 2), [1.0, 0.0, 2.0]
    law = _pattern_law(q, 0.5, 3.0, 12.0, 2)
    n = 40_000
    out = mech.sample(q, n, rng=rng)
    released = (out != 0.0) & (out != -1000.0)
    checks = []
    for tops, prob in law.items():
        mask = np.all(released == np.isin(np.arange(3), tops), axis=1)
        checks.append((int(mask.sum()), prob))
        for h in tops:  # the released value: Laplace(q_h, 6) whatever the pattern
            k = int(np.sum(mask & (out[:, h] < q[h])))
            checks.append((k, prob * 0.5))
    alpha = 1e-6 / len(checks)
    assert all(clopper_pearson_ok(k, n, p, alpha) for k, p in checks), checks


# -- a mean over the true count, and Laplace laws of two scales --------------------------------------

def _two_scale_reference(m0: float, s0: float, m1: float, s1: float, eps: float, direction: int) -> float:
    """``H_{e^eps}`` between two Laplace laws: the roots of ``ln p - ln(a q)`` by brentq, then CDF differences."""
    laws = ((m0, s0), (m1, s1)) if direction == 0 else ((m1, s1), (m0, s0))

    def h(y: float) -> float:
        (mn, sn), (md, sd) = laws
        return (-abs(y - mn) / sn - math.log(2 * sn)) - (-abs(y - md) / sd - math.log(2 * sd)) - eps

    def mass(lo: float, hi: float, m: float, s: float) -> float:
        """Laplace mass of [lo, hi], each side of ``m`` from its own tail (no cancellation near 1)."""
        def left(y: float) -> float:  # P(Y <= y) for y <= m
            return 0.0 if y == -math.inf else 0.5 * math.exp((y - m) / s)

        def right(y: float) -> float:  # P(Y >= y) for y >= m
            return 0.0 if y == math.inf else 0.5 * math.exp(-(y - m) / s)

        if hi <= m:
            return left(hi) - left(lo)
        if lo >= m:
            return right(lo) - right(hi)
        return (0.5 - left(lo)) + (0.5 - right(hi))

    xs = np.linspace(-300, 300, 6001) + 1e-3 * math.pi  # off the round numbers the roots may sit on
    vals = [h(x) for x in xs]
    roots = [optimize.brentq(h, xs[i], xs[i + 1], xtol=1e-15) for i in range(len(xs) - 1) if vals[i] * vals[i + 1] < 0]
    cuts = [-math.inf, *roots, math.inf]
    total = 0.0
    for lo, hi in itertools.pairwise(cuts):
        if math.isfinite(lo) and math.isfinite(hi):
            mid = 0.5 * (lo + hi)
        else:
            mid = hi - 1.0 if math.isfinite(hi) else (lo + 1.0 if math.isfinite(lo) else 0.0)
        if h(mid) > 0:
            total += mass(lo, hi, *laws[0]) - math.exp(eps) * mass(lo, hi, *laws[1])
    return total


@pytest.mark.parametrize("m0, s0, m1, s1", [(0.0, 1.0, 0.0, 0.5), (0.3, 1.0, 0.0, 2.0), (0.0, 2.0, 3.0, 1.0), (1.0, 1.0, 0.0, 1.0)])
def test_laplace_laws_of_two_scales(m0, s0, m1, s1):
    prof = LaplaceScalesProfile(m0, s0, m1, s1)
    for eps in (0.0, 0.3, 1.0, 3.0):
        for direction in (0, 1):
            ref = _two_scale_reference(m0, s0, m1, s1, eps, direction)
            h = prof.hockey_stick(eps, direction)
            assert h.lo - 1e-10 <= ref <= h.hi + 1e-10 and h.hi - h.lo <= 1e-12, (eps, direction, h, ref)
    for direction in (0, 1):  # heavier tails in the numerator: unbounded; else the loss at m0 or m1
        heavier = (s0 > s1) if direction == 0 else (s1 > s0)
        m = prof.max_loss(direction)
        if heavier:
            assert m.lo == math.inf
        else:
            num, den = ((m0, s0), (m1, s1)) if direction == 0 else ((m1, s1), (m0, s0))
            best = max(stats.laplace(*num).logpdf(y) - stats.laplace(*den).logpdf(y) for y in (m0, m1))
            assert m.lo - 1e-12 <= best <= m.hi + 1e-12


def test_mean_over_the_true_count():
    mech = quiet(faulty.MeanTrueCount, 1.0)
    prof = mech.privacy_profile([0.0], [0.0, 0.0])  # the catalogue's pair: Lap(0, 1) against Lap(0, 1/2)
    assert prof.epsilon(0.0).lower == math.inf  # unbounded loss in the heavier tail: not DP for any epsilon
    assert prof.max_loss(0).lo == math.inf and prof.max_loss(1).hi == pytest.approx(math.log(2.0))  # d0's one record: heavier
    for delta in (1e-3, 1e-6):  # at a positive delta, finite: the reference at the bracket's ends
        b = prof.epsilon(delta)
        assert _two_scale_reference(0.0, 1.0, 0.0, 0.5, b.upper, 0) <= delta + 1e-12
        assert _two_scale_reference(0.0, 1.0, 0.0, 0.5, b.lower * (1 - 1e-6), 0) > delta
    same = mech.privacy_profile([0.5, -2.0], [0.5, 3.0])  # equal counts: one scale, shift (1 - (-1)) / b = 2
    assert same.epsilon(0.0).lower == pytest.approx(2.0) and same.epsilon(0.0).upper == pytest.approx(2.0)
    wins = quiet(faulty.WinsorizedMeanDataRange, 1.0).privacy_profile([0.0, 1.0, 2.0], [0.0, 1.0, 3.0])  # two ranges, two scales
    assert isinstance(wins, LaplaceScalesProfile) and wins.epsilon(0.0).lower == math.inf


def test_mean_and_winsorized_samplers_draw_the_declared_laws(rng):
    """The samplers' outputs in bins, within Clopper-Pearson limits of the Laplace laws the profiles declare,
    written here from the definitions: ``(sum clip(x, -B, B) + Lap(B / eps)) / n`` and ``mean(x) + Lap((max - min) / (n eps))``;
    and each profile's hockey-stick divergence against the two-scale reference on those laws."""
    n = 40_000
    mean, wins = quiet(faulty.MeanTrueCount, 0.7, 2.0), quiet(faulty.WinsorizedMeanDataRange, 1.3)
    cases = [  # mechanism, d0, d1, the law on each as (loc, scale)
        (mean, [0.5, -3.0, 1.0], [0.5, -3.0], ((0.5 - 2.0 + 1.0) / 3, 2.0 / 0.7 / 3), ((0.5 - 2.0) / 2, 2.0 / 0.7 / 2)),
        (wins, [0.0, 1.0, 2.0], [0.0, 1.0, 3.0], (1.0, 2.0 / (3 * 1.3)), (4.0 / 3, 3.0 / (3 * 1.3))),
    ]
    checks = []
    for mech, d0, d1, law0, law1 in cases:
        for data, (loc, scale) in ((d0, law0), (d1, law1)):
            out = mech.sample(np.array(data), n, rng=rng)
            cuts = loc + scale * np.array([-3.0, -1.0, -0.3, 0.0, 0.4, 1.5, 4.0])
            edges = [-math.inf, *cuts, math.inf]
            cdf = stats.laplace(loc, scale).cdf
            for lo, hi in itertools.pairwise(edges):
                checks.append((int(np.sum((out >= lo) & (out < hi))), float(cdf(hi) - cdf(lo)), (type(mech).__name__, data, lo)))
        prof = mech.privacy_profile(d0, d1)
        for eps in (0.0, 0.5, 2.0):
            for direction in (0, 1):
                ref = _two_scale_reference(*law0, *law1, eps, direction)
                h = prof.hockey_stick(eps, direction)
                assert h.lo - 1e-10 <= ref <= h.hi + 1e-10, (type(mech).__name__, eps, direction, h, ref)
    alpha = 1e-6 / len(checks)
    bad = [(k, p, where) for k, p, where in checks if not clopper_pearson_ok(k, n, p, alpha)]
    assert not bad, (n, alpha, bad)


# -- the snapping mechanism, over the reals --------------------------------------------------------

def test_snapping_over_the_reals(rng):
    mech = SnappingLaplace(0.1, 100.0)
    prof = mech.privacy_profile(0.0, 1.0)
    b = prof.epsilon(0.0)
    exact = 1.0 / mech.scale  # every cell left of both inputs has ratio e^{1/lambda}: attained, and the largest
    assert b.lower <= exact <= b.upper and b.upper - b.lower <= 1e-15 and b.upper < mech.epsilon
    # the unmerged law on every output, independently: Laplace masses of the rounding cells
    grid, big = mech.grid, mech.bound
    m_low, m_high = math.floor(-big / grid), math.ceil(big / grid)
    cuts = [(m + 0.5) * grid for m in range(m_low, m_high)]
    n = 60_000
    for x, lo, hi in ((0.0, prof.p_lo, prof.p_hi), (1.0, prof.q_lo, prof.q_hi)):
        dist = stats.laplace(x, mech.scale)
        masses = np.diff([0.0, *dist.cdf(cuts), 1.0])
        values = [-big, *[m * grid for m in range(m_low + 1, m_high)], big]
        merged_left = masses[: values.index(0.0)].sum()
        merged_right = masses[values.index(0.0) + 1:].sum()
        assert lo[0] - 1e-15 <= merged_left <= hi[0] + 1e-15 and lo[1] - 1e-15 <= masses[values.index(0.0)] <= hi[1] + 1e-15
        assert lo[2] - 1e-15 <= merged_right <= hi[2] + 1e-15
        out = mech.sample(x, n, rng=rng)  # and the float sampler's outputs, within Clopper-Pearson limits
        alpha = 1e-6 / (2 * len(values))
        for v, p in zip(values, masses, strict=True):
            assert clopper_pearson_ok(int(np.sum(out == v)), n, p, alpha), (x, v, p)
