"""Winsorized first-order optimisation (Alg 3) and Phased ERM (Alg 4) of Levy et al. 2021: mechanics.

Schedules and constants against the paper's formulas, disjoint rounds, exact gradient counts,
trial batching, the four losses, components, and clear errors.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import mpmath
import numpy as np
import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.guarantees import ApproxDP
from dpaudit.neighbors import UserReplace
from dpaudit.userlevel.levy2021.first_order import (
    WinsorizedFirstOrder,
    gradient_concentration_radius,
    user_mean_gradients,
)
from dpaudit.userlevel.levy2021.phased_erm import PhasedERM
from dpaudit.userlevel.losses import AbsoluteLoss, HingeLoss, LogisticLoss, SquaredLoss


@dataclass(frozen=True)
class CountingSquaredLoss(SquaredLoss):
    """Squared loss that counts every per-item derivative it evaluates (one per item gradient)."""

    counter: list = field(default_factory=lambda: [0], compare=False)

    def _slope(self, margin, y):
        self.counter[0] += np.broadcast(margin, y).size  # one derivative per (trial, user, item)
        return super()._slope(margin, y)


def _regression(rng: np.random.Generator, n: int, m: int, d: int, labels: str = "real") -> np.ndarray:
    x = rng.normal(size=(n, m, d))
    x /= np.maximum(1.0, np.linalg.norm(x, axis=-1, keepdims=True))
    theta = np.linspace(0.5, -0.5, d)
    y = x @ theta + 0.1 * rng.normal(size=(n, m))
    if labels == "sign":
        y = np.where(y >= 0, 1.0, -1.0)
    return np.concatenate([x, np.clip(y, -1, 1)[..., None]], axis=-1)


def test_user_mean_gradients_match_the_loss_api(rng):
    data = _regression(rng, 13, 7, 3)
    theta = rng.normal(size=(5, 3))
    for loss in (SquaredLoss(), LogisticLoss(), AbsoluteLoss(), HingeLoss()):
        ref = loss.mean_gradient(theta[:, None, :], data[None])
        got = user_mean_gradients(loss, theta, np.ascontiguousarray(data[..., :-1]), np.ascontiguousarray(data[..., -1]))
        np.testing.assert_allclose(got, ref, atol=1e-13)


def test_winsorized_first_order_counts_its_gradients_exactly(rng):
    loss = CountingSquaredLoss()
    wfo = WinsorizedFirstOrder(loss, 1.0, 1e-5, 1.0, 1.0, steps=4, tau=0.5)
    n, m, d, size = 30, 5, 2, 37
    wfo.sample(_regression(rng, n, m, d), size, rng=rng)
    assert loss.counter[0] == size * wfo.gradient_count(n, m, d) == size * 4 * n * m


def test_phased_erm_counts_its_gradients_exactly(rng):
    loss = CountingSquaredLoss()
    erm = PhasedERM(loss, 1.0, 1e-5, 1.0, 1.0, rounds=3, steps=2, tau=0.5)
    n, m, d, size = 40, 3, 2, 11
    erm.sample(_regression(rng, n, m, d), size, rng=rng)
    expected = sum(2 * n_t * m for n_t in (20, 10, 5))
    assert erm.gradient_count(n, m, d) == expected
    assert loss.counter[0] == size * expected


def test_phased_erm_schedule_follows_algorithm_4():
    loss = SquaredLoss()
    erm = PhasedERM(loss, 0.8, 1e-6, 1.0, 1.0, label_bound=1.0)
    n, m, d = 1000, 16, 2
    g = loss.lipschitz(1.0, 1.0, 1.0)
    sigma = g
    plan = erm.schedule(n, m, d)
    t_paper = math.ceil(math.log2(g * n * math.sqrt(m) * 0.8 / (sigma * d)))  # Alg 4 line 1, sqrt(m) eps
    assert len(plan) == min(t_paper, int(math.log2(n)))
    lam = math.sqrt(g * min(g, sigma * math.sqrt(d)) / (n * m) + sigma**2 * d**2 / (n**2 * m * 0.8**2)) / 2.0
    starts = 0
    for t, p in enumerate(plan, start=1):
        assert p.n_users == n // 2**t and p.start == starts  # disjoint, in index order
        starts = p.stop
        assert math.isclose(p.lam, 4**t * lam, rel_tol=1e-12)
        assert math.isclose(p.step_size, 1 / (loss.smoothness(1.0) + p.lam))
        # Corollary 2's round length, T = ((H + mu)/mu) log(D^2 / tol) with mu = lambda_t and its accuracy
        # tol = sigma^2 d^2 / (mu^2 n_t^2 m eps^2), bounds the default steps (no fixed cap)
        tol = sigma**2 * d**2 / (p.lam**2 * p.n_users**2 * m * 0.8**2)
        dist = min(2.0, g / p.lam)
        t_cor2 = math.ceil((loss.smoothness(1.0) + p.lam) / p.lam * math.log(max(dist**2 / tol, 1.0)))
        assert 0 <= p.steps <= max(1, t_cor2)  # 0: a round whose one step would add more noise than it gains
    assert starts <= n


def test_rounds_use_disjoint_users(rng):
    """A user outside every round's range cannot change the output (parallel composition, P5)."""
    erm = PhasedERM(SquaredLoss(), 1.0, 1e-5, 1.0, 1.0, rounds=2, steps=2, tau=0.5)
    data = _regression(rng, 9, 2, 2)  # rounds use users [0, 4) and [4, 6); users 6..8 are unused
    other = data.copy()
    other[7] = -other[7]
    a = erm.sample(data, 50, rng=np.random.default_rng(3))
    b = erm.sample(other, 50, rng=np.random.default_rng(3))
    assert np.array_equal(a, b)
    c = erm.round_stage(2, 9, 2, 2, [0.1, 0.2]).sample(data, 20, rng=np.random.default_rng(4))
    d = erm.round_stage(2, 9, 2, 2, [0.1, 0.2]).sample(np.concatenate([-data[:4], data[4:]]), 20,
                                                      rng=np.random.default_rng(4))
    assert np.array_equal(c, d)  # round 2 ignores round 1's users


@pytest.mark.parametrize("loss", [SquaredLoss(), LogisticLoss(), AbsoluteLoss(), HingeLoss()],
                         ids=lambda loss: type(loss).__name__)
def test_every_loss_runs_and_stays_in_the_ball(loss, rng):
    data = _regression(rng, 64, 4, 3, labels="sign" if isinstance(loss, LogisticLoss | HingeLoss) else "real")
    wfo = WinsorizedFirstOrder(loss, 1.0, 1e-5, 0.7, 1.0, steps=3)
    erm = PhasedERM(loss, 1.0, 1e-5, 0.7, 1.0, rounds=2, steps=3)
    for mech in (wfo, erm):
        out = mech.sample(data, 25, rng=rng)
        assert out.shape == (25, 3) and np.all(np.isfinite(out))
        assert np.all(np.linalg.norm(out, axis=1) <= 0.7 * (1 + 1e-12))
    transcript = wfo.sample_transcript(data, 4, rng=rng)
    assert transcript.shape == (4, 4, 3) and np.all(transcript[:, 0] == 0.0)


def test_phased_erm_is_deterministic_given_the_generator_and_batches_trials():
    data = _regression(np.random.default_rng(0), 64, 8, 2)
    erm = PhasedERM(SquaredLoss(), 1.0, 1e-5, 1.0, 1.0, rounds=3, steps=2)
    a = erm.sample(data, 2000, rng=np.random.default_rng(9))
    b = erm.sample(data, 2000, rng=np.random.default_rng(9))
    assert np.array_equal(a, b)
    rounds = erm.sample_rounds(data, 5, rng=np.random.default_rng(9))
    assert rounds.shape == (5, 3, 2)


def test_phased_erm_handles_65536_trials():
    data = _regression(np.random.default_rng(0), 64, 8, 2)
    erm = PhasedERM(SquaredLoss(), 1.0, 1e-5, 1.0, 1.0, rounds=3, steps=2)
    out = erm.sample(data, 65_536, rng=np.random.default_rng(1))
    assert out.shape == (65_536, 2) and np.all(np.isfinite(out))


def _mp_step(eps: float, delta: float, steps: int, dp: int) -> tuple[float, float, float]:
    """(eps', delta', eps'') in 50-digit mpmath: eps' = eps/(2 sqrt(2T ln(2/delta))), delta' = delta/(2T)
    [LSA+21, Alg 3 line 2] and eps'' = eps'/sqrt(8 d' ln(1/delta')) [Alg 2 line 3]."""
    with mpmath.workdps(50):
        e1 = mpmath.mpf(eps) / (2 * mpmath.sqrt(2 * steps * mpmath.log(2 / mpmath.mpf(delta))))
        d1 = mpmath.mpf(delta) / (2 * steps)
        e2 = e1 / mpmath.sqrt(8 * dp * mpmath.log(1 / d1))
        return float(e1), float(d1), float(e2)


def test_claims_and_tight_bounds():
    """The per-step and per-coordinate budgets and the pure bound T d' eps'' against the paper's closed forms (mpmath)."""
    wfo = WinsorizedFirstOrder(SquaredLoss(), 1.0, 1e-5, 1.0, 1.0, steps=5)
    assert wfo.claimed_guarantee() == ApproxDP(1.0, 1e-5, UserReplace())
    e1, d1, e2 = _mp_step(1.0, 1e-5, 5, 4)  # d = 3 is padded to d' = 4
    got1, gotd1 = wfo.step_privacy()
    assert got1 <= e1 and math.isclose(got1, e1, rel_tol=1e-14) and math.isclose(gotd1, d1, rel_tol=1e-15)
    assert math.isclose(wfo.pure_epsilon_bound(3), 5 * 4 * e2, rel_tol=1e-13)
    query = wfo.gradient_query([0.0, 0.0, 0.0], 10, 2)
    claim = query.claimed_guarantee()
    assert math.isclose(claim.epsilon_at(d1), e1, rel_tol=1e-14) and claim.relation == UserReplace()
    assert math.isclose(query.coordinate_stage(1, (1.0, 1.0, -1.0, 1.0)).claimed_guarantee().epsilon, e2,
                        rel_tol=1e-13)
    erm = PhasedERM(SquaredLoss(), 1.0, 1e-5, 1.0, 1.0, rounds=2, steps=3)
    assert erm.claimed_guarantee() == ApproxDP(1.0, 1e-5, UserReplace())
    # every round runs T = 3 steps in d = 2 (d' = 2) at the full budget: the pure bound 3 * 2 * eps'' (parallel
    # composition over the rounds), which is below eps here, so it is the tight guarantee
    _, _, e2_erm = _mp_step(1.0, 1e-5, 3, 2)
    assert 6 * e2_erm < 1.0
    assert math.isclose(erm.tight_guarantee(100, 2, 2).epsilon, 6 * e2_erm, rel_tol=1e-13)


def test_default_concentration_radius():
    """The note's radius (ALG-5) at points where every log is a whole number, and its scalings.

    d = 1, sigma = 1, m = 8: with 3 R H sqrt(m) / (sigma sqrt(d)) = e^2 the net term is d * 2, and with
    n / alpha = e^3 / 5 the union term is 3 - ln 5, so the bracket is exactly 5 and the radius is
    sqrt(8 * 5 / 8) + 2 sqrt(1/8) = sqrt(5) + 1/sqrt(2). A linear loss (H = 0) needs no net: the bracket
    is d ln 5 + ln(n / alpha), and the radius scales exactly like 1/sqrt(m).
    """
    m = 8
    h = math.e**2 / (3 * 2.0 * math.sqrt(m))  # R = 2 (the diameter)
    r = gradient_concentration_radius(1.0, 1, 1, m, 2.0, h, 5 * math.exp(-3))
    assert math.isclose(r, math.sqrt(5) + 1 / math.sqrt(2), rel_tol=1e-12)
    flat = gradient_concentration_radius(1.0, 2, 100, 50, 2.0, 0.0, 0.01)
    assert math.isclose(flat, math.sqrt(8 * (2 * math.log(5) + math.log(1e4)) / 50) + 2 * math.sqrt(2 / 50), rel_tol=1e-12)
    assert math.isclose(gradient_concentration_radius(1.0, 2, 100, 200, 2.0, 0.0, 0.01), flat / 2, rel_tol=1e-12)
    wfo = WinsorizedFirstOrder(SquaredLoss(), 1.0, 1e-5, 1.0, 1.0)
    assert wfo.concentration_radius(100, 4, 2) == wfo.lipschitz  # capped at G (a valid radius around 0)
    assert WinsorizedFirstOrder(HingeLoss(), 1.0, 1e-5, 1.0, 1.0).concentration_radius(100, 10**6, 2) == 1.0


@pytest.mark.parametrize(("build", "message"), [
    (lambda: PhasedERM(AbsoluteLoss(), 1.0, 1e-5, 1.0, 1.0),
     "`PhasedERM`: `steps` must be given for a non-smooth loss (AbsoluteLoss has no smoothness constant, so "
     "Corollary 2's round length is undefined); got steps=None."),
    (lambda: PhasedERM(SquaredLoss(), -0.5, 1e-5, 1.0, 1.0), "`PhasedERM`: `epsilon` must be in (0, inf); got epsilon=-0.5."),
    (lambda: PhasedERM(SquaredLoss(), 1.0, 1.0, 1.0, 1.0), "`PhasedERM`: `delta` must be in (0, 1); got delta=1.0."),
    (lambda: WinsorizedFirstOrder("squared", 1.0, 1e-5, 1.0, 1.0),  # type: ignore[arg-type]
     "`WinsorizedFirstOrder`: `loss` must be a dpaudit.userlevel.losses.Loss; got loss='squared'."),
    (lambda: WinsorizedFirstOrder(SquaredLoss(), 1.0, 1e-5, 1.0, 1.0, steps=0),
     "`WinsorizedFirstOrder`: `steps` must be an integer >= 1; got steps=0."),
    (lambda: WinsorizedFirstOrder(SquaredLoss(), 50.0, 1e-5, 1.0, 1.0),
     "`WinsorizedFirstOrder`: `epsilon` must be small enough for Theorem 3's composition over T=10 steps at "
     "delta=1e-05 (the composed total is 88.256 > epsilon); got epsilon=50.0."),
])
def test_bad_parameters(build, message):
    with pytest.raises(InvalidArgument, match=re.escape(message)):
        build()


@pytest.mark.parametrize(("mech", "data", "message"), [
    (PhasedERM(SquaredLoss(), 1.0, 1e-5, 1.0, 1.0), np.zeros((1, 2, 3)),
     "`PhasedERM.sample`: `data` must be shaped (n_users >= 2, m_items, d + 1) (a round needs a user); "
     "got data=array(shape=(1, 2, 3), dtype=float64)."),
    (WinsorizedFirstOrder(SquaredLoss(), 1.0, 1e-5, 1.0, 1.0), np.zeros((3, 2, 1)),
     "`WinsorizedFirstOrder.sample`: `data` must be shaped (n_users, m_items, d + 1) with d >= 1 (items are (x, y)); "
     "got data=array(shape=(3, 2, 1), dtype=float64)."),
    (WinsorizedFirstOrder(SquaredLoss(), 1.0, 1e-5, 1.0, 1.0, theta0=(0.0,)), np.zeros((3, 2, 3)),
     "`WinsorizedFirstOrder`: `theta0` must be of length d=2 (the data's feature dimension); got theta0=(0.0,)."),
    (PhasedERM(SquaredLoss(), 1.0, 1e-5, 1.0, 1.0), np.array([[[0.0, np.nan]], [[1.0, 1.0]]]),
     "`PhasedERM.sample`: `data` must be finite (it has 1 NaN or infinite entries)"),
])
def test_bad_data(mech, data, message):
    with pytest.raises(InvalidArgument, match=re.escape(message)):
        mech.sample(data, 3, rng=np.random.default_rng(0))
