"""Exact against efficient: the bitmask reference (note App. B1), the type-canonical search and the certified
fast path (App. C) compute the same k(x) and centre, and give the same output distribution.

Instances have n <= 12 users and ``kappa = 1`` (horizon 4), so the reference can enumerate every
deletion set; the override only changes the size of the search, not its logic.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math

import numpy as np
import pytest
from scipy import stats

from dpaudit.userlevel.ghazi2023 import (
    DelOutputPert,
    ERMProblem,
    SCOutputPert,
    TwoCampScore,
    UserFunction,
    UserMean,
)
from dpaudit.userlevel.ghazi2023.audit_cases import GOLDEN, golden_mechanism, outlier_users
from dpaudit.userlevel.ghazi2023.stability import (
    EnumerationTooLarge,
    count_deletion_states,
    deletion_states,
    typed_stability,
)
from dpaudit.userlevel.losses import LogisticLoss, SquaredLoss

ALPHA_TOTAL = 1e-3  # declared failure probability of all the statistical comparisons in this module together


@dataclasses.dataclass(frozen=True)
class HashLevels(UserFunction):
    """An arbitrary symmetric f: a level in {0, 0.7, 1.4} hashed from the multiset of user values (Delta = 1)."""

    seed: int

    def __call__(self, users):
        key = repr((self.seed, tuple(sorted(float(v) for v in np.asarray(users).reshape(len(users), -1)[:, 0]))))
        return np.array([0.7 * (hashlib.sha256(key.encode()).digest()[0] % 3)])


def _generic_instances(rng, count):
    for _ in range(count):
        n = int(rng.integers(6, 13))
        yield n, rng.integers(-2, 3, size=(n, 1)).astype(float)


@pytest.mark.parametrize("function", [HashLevels(7), TwoCampScore(1.0), UserMean()], ids=lambda f: type(f).__name__)
def test_typed_search_equals_the_bitmask_reference_for_generic_f(function, rng):
    exact = DelOutputPert(function, 1.0, 0.5, 1.0 if not isinstance(function, UserMean) else 0.05, kappa=1, engine="exact")
    typed = dataclasses.replace(exact, engine="typed")
    ks = []
    for n, x in _generic_instances(rng, 60):
        a, b = exact.stability(x), typed.stability(x)
        assert a.k[0] == b.k[0], f"n={n}, x={x.ravel()}, exact k={a.k[0]}, typed k={b.k[0]}"
        np.testing.assert_allclose(a.centre, b.centre, rtol=0, atol=1e-12, err_msg=f"x={x.ravel()}")
        ks.append(int(a.k[0]))
    assert len(set(ks)) >= 2, f"the instances only produced k in {set(ks)}: the comparison would be vacuous"


def _erm_instance(rng, loss, dim):
    """n <= 12 users drawn from a pool of 3 user types plus one or two unique users; every item of a user equal."""
    n = int(rng.integers(10, 13))
    m = int(rng.choice([200, 2000, 20000]))
    pool = rng.uniform(-1, 1, size=(3, dim + 1))
    users = pool[rng.integers(0, 3, size=n)]
    users[: int(rng.integers(1, 3))] = rng.uniform(-1, 1, size=(1, dim + 1))
    users[:, :dim] /= np.maximum(1.0, np.linalg.norm(users[:, :dim], axis=1, keepdims=True))
    if isinstance(loss, LogisticLoss):
        users[:, dim] = np.sign(users[:, dim]) + (users[:, dim] == 0)
    return np.repeat(users[:, None, :], m, axis=1)


CONFIGS = [(SquaredLoss(), 1), (SquaredLoss(), 2), (LogisticLoss(), 1), (LogisticLoss(), 2)]


@pytest.mark.parametrize(("loss", "dim"), CONFIGS, ids=["squared-1d", "squared-2d", "logistic-1d", "logistic-2d"])
@pytest.mark.parametrize("threshold", ["printed", "certified"])
def test_sc_engines_compute_the_same_k_and_centre(loss, dim, threshold, rng):
    problem = ERMProblem(loss, radius=1.0, feature_bound=1.0, label_bound=1.0, l2=1.0)
    exact = SCOutputPert(problem, 1.0, 0.5, beta=0.3, threshold=threshold, engine="exact", kappa=1)
    seen_k, seen_cert = set(), set()
    for _ in range(8 if isinstance(loss, LogisticLoss) and dim == 2 else 16):
        x = _erm_instance(rng, loss, dim)
        ref, spec = exact.stable_centre(x)
        for engine in ("typed", "auto"):
            got, _ = dataclasses.replace(exact, engine=engine).stable_centre(x)
            assert got.k[0] == ref.k[0], f"{engine}: k={got.k[0]} vs exact {ref.k[0]}; shape={x.shape}"
            tol = 4 * spec.tolerance if loss.name == "logistic" or dim > 1 else 1e-12
            np.testing.assert_allclose(got.centre, ref.centre, rtol=0, atol=tol)
            if engine == "auto":
                seen_cert.add(bool(got.certified[0]))
        seen_k.add(int(ref.k[0]))
    if threshold == "printed":
        assert len(seen_k) >= 2, f"only k in {seen_k}"
    else:
        assert seen_cert == {True, False}, f"the certificate decided {seen_cert} only: the fast path is not compared"


def test_certificate_never_passes_where_the_reference_finds_an_unstable_dataset(rng):
    """ALG-C's soundness: certified => the exact search gives k = 0 (the fast path's output is Alg 1's)."""
    problem = ERMProblem(SquaredLoss(), radius=1.0, feature_bound=1.0, label_bound=1.0, l2=1.0)
    auto = SCOutputPert(problem, 1.0, 0.5, beta=0.3, threshold="certified", kappa=1)
    exact = dataclasses.replace(auto, engine="exact")
    passed = 0
    for m in (200, 2000, 20000):
        for _ in range(10):
            n = int(rng.integers(10, 13))
            users = np.stack([np.ones(n), rng.uniform(-1, 1, size=n) * rng.choice([0.03, 0.1, 0.3, 1.0])], axis=1)
            x = np.repeat(users[:, None, :], m, axis=1)
            got, _ = auto.stable_centre(x)
            if got.certified[0]:
                passed += 1
                assert exact.stable_centre(x)[0].k[0] == 0, f"certificate passed but exact k != 0: m={m}, y={users[:, 1]}"
    for dim in (1, 2):  # a few users far from the rest: spreads just above and below the certificate's radius
        for _ in range(15):
            x = _erm_instance(rng, SquaredLoss(), dim)
            got, _ = auto.stable_centre(x)
            if got.certified[0]:
                passed += 1
                assert exact.stable_centre(x)[0].k[0] == 0, f"certificate passed but exact k != 0: shape {x.shape}"
    assert passed >= 10


def test_certificate_radius_never_certifies_a_threshold_below_the_true_deletion_sensitivity(rng):
    """Soundness of ALG-C's radius: with Delta just below the exact Dbar_{4 kappa} f(x) (computed here by
    enumerating every deletion set, f in closed form), the certificate must fail on every instance.

    The radius is conservative by design (the triangle inequality through theta*(x) costs up to a factor
    2 (4 kappa + 1)), so only a radius that is too large by more than that can fail this test."""
    from itertools import combinations

    from dpaudit.userlevel.ghazi2023.parameters import certificate_radius

    kappa, lam = 1, 1.0
    checked = 0
    for _ in range(60):
        n = int(rng.integers(6, 11))
        y = rng.uniform(-1, 1, size=n) * rng.choice([0.05, 0.3, 1.0])
        y[: int(rng.integers(0, 4))] = rng.choice([-1.0, 1.0])  # a few far users

        def f(keep, y=y):  # argmin over [-1, 1] of mean (theta - y)^2/2 + (lam/2) theta^2
            return float(np.clip(np.mean(y[list(keep)]) / (1 + lam), -1, 1))

        true = 0.0
        for size in range(4 * kappa + 1):
            for u in combinations(range(n), size):
                rest = [j for j in range(n) if j not in u]
                here = f(rest)
                true = max(true, max(abs(here - f([r for r in rest if r != j])) for j in rest))
        theta = f(range(n))
        gamma = float(np.max(np.abs(y - y.mean())))  # centred user gradients (theta - y_i) - (theta - y_bar)
        tau = 1e-12
        below = true * (1 - 1e-9)
        if below <= 2 * tau:
            continue
        radius = certificate_radius(below, strong_convexity=lam, n_users=n, kappa=kappa, tolerance=tau)
        assert not gamma + 2 * tau <= radius, (f"certified Delta = {below:.6g} below the true deletion sensitivity "
                                               f"{true:.6g}: gamma = {gamma:.4g} <= radius {radius:.4g}; y = {y}, theta = {theta}")
        checked += 1
    assert checked >= 40


def _two_sample_p_values(a, b):
    """p-values: two-proportion z-test on the ⊥ flags, two-sample KS on each coordinate of the released vectors."""
    ka, kb, na, nb = a[:, 0].sum(), b[:, 0].sum(), len(a), len(b)
    pooled = (ka + kb) / (na + nb)
    se = math.sqrt(max(pooled * (1 - pooled) * (1 / na + 1 / nb), 1e-300))
    out = [2 * stats.norm.sf(abs(ka / na - kb / nb) / se) if 0 < pooled < 1 else 1.0]
    va, vb = a[a[:, 0] == 0, 1:], b[b[:, 0] == 0, 1:]
    for j in range(va.shape[1]):
        out.append(stats.ks_2samp(va[:, j], vb[:, j]).pvalue if len(va) and len(vb) else 1.0)
    return out


def test_engines_give_the_same_output_distribution(rng):
    """Statistical equivalence at a declared failure probability (ALPHA_TOTAL, Bonferroni over every p-value)."""
    instances = []
    for loss, dim in CONFIGS[:3]:
        problem = ERMProblem(loss, radius=1.0, feature_bound=1.0, label_bound=1.0, l2=1.0)
        for threshold in ("printed", "certified"):
            exact = SCOutputPert(problem, 1.0, 0.5, beta=0.3, threshold=threshold, engine="exact", kappa=1)
            instances.append((exact, _erm_instance(rng, loss, dim)))
    tests = sum(2 + (1 if mech.problem.loss.name == "squared" and x.shape[2] == 3 else 0) for mech, x in instances) * 2
    per_test = ALPHA_TOTAL / tests
    size = 20_000
    bottoms = []
    for exact, x in instances:
        seed = int(rng.integers(2**32))
        ref = exact.sample(x, size, rng=np.random.default_rng([seed, 0]))
        bottoms.append(ref[:, 0].mean())
        for engine in ("typed", "auto"):
            got = dataclasses.replace(exact, engine=engine).sample(x, size, rng=np.random.default_rng([seed, 1]))
            for p in _two_sample_p_values(ref, got):
                assert p > per_test, (f"{engine} vs exact: p={p:.2e} <= {per_test:.1e}; size={size}, seed={seed}, "
                                      f"bottom rates {ref[:, 0].mean():.4f} / {got[:, 0].mean():.4f}")
    assert max(bottoms) > 0.05, "no instance released ⊥ often: the ⊥ comparison would be vacuous"


def test_golden_pair_needs_exactly_its_outliers_deleted():
    """Note App. B2: k(x) = number of outliers for 0..2 kappa outliers, and no stable set beyond."""
    mech = golden_mechanism()
    kap = GOLDEN["kappa"]
    for k in [0, 1, 2, kap - 2, kap - 1, kap, kap + 1, 2 * kap - 1, 2 * kap, 2 * kap + 1]:
        res, spec = mech.stable_centre(outlier_users(k))
        assert spec.alg1.kappa == kap
        assert res.k[0] == (k if k <= 2 * kap else -1), f"{k} outliers: k(x) = {res.k[0]}"
        assert res.centre[0, 0] == 0.0  # the inliers' minimiser, exactly


def test_deletion_states_are_counted_and_enumerated_once(rng):
    for _ in range(30):
        counts = rng.integers(0, 6, size=int(rng.integers(1, 5)))
        top = int(rng.integers(0, 8))
        states, starts = deletion_states(counts, top)
        assert len(states) == count_deletion_states(counts, top) == len({s.tobytes() for s in states})
        assert np.all(states <= counts) and np.all(states.sum(axis=1) <= top)
        assert np.all(np.diff(states.sum(axis=1)) >= 0) and starts[-1] == len(states)


def test_the_exact_search_refuses_beyond_max_states_with_a_clear_error():
    with pytest.raises(EnumerationTooLarge, match=r"would visit 13 deletion states \(12 distinct users, horizon 0\), more than max_states=5"):
        typed_stability(np.ones(12, dtype=np.int64), lambda s: np.zeros((1, len(s), 1)), kappa=0, threshold=1.0,
                        max_states=5)
