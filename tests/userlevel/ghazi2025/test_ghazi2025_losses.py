"""Losses for Ghazi et al. (2025): Assumptions 2.4-2.5, Lemma 3.2's contraction, and the checker."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.errors import InvalidArgument
from dpaudit.userlevel.ghazi2025.algorithms import RobustStatsSGD
from dpaudit.userlevel.ghazi2025.assumptions import check_ghazi2025_assumptions
from dpaudit.userlevel.ghazi2025.losses import (
    DiagonallyDominantQuadratic,
    LinearLoss,
    SeparableHuberLoss,
    max_row_abs_sum,
)
from dpaudit.userlevel.losses import LogisticLoss, SquaredLoss

NON_DD = np.array([[1.0, 1.5], [1.5, 4.0]])  # PSD, not diagonally dominant (Assumption 2.5 fails)


def _random_dd_psd(rng: np.random.Generator, d: int) -> np.ndarray:
    """Symmetric, diagonally dominant with a non-negative diagonal (hence PSD by Gershgorin)."""
    a = rng.normal(size=(d, d))
    a = (a + a.T) / 2
    np.fill_diagonal(a, 0.0)
    np.fill_diagonal(a, np.abs(a).sum(axis=1) + rng.uniform(0, 1, size=d))
    return a


def _losses(rng: np.random.Generator, d: int):
    return [
        LinearLoss(2.0),
        SeparableHuberLoss(beta=float(rng.uniform(0.5, 3)), gradient_cap=float(rng.uniform(0.5, 2))),
        DiagonallyDominantQuadratic(_random_dd_psd(rng, d), location_bound=1.0),
    ]


def _items(rng: np.random.Generator, k: int, d: int) -> np.ndarray:
    z = np.empty((k, d + 1))
    z[:, :d] = rng.uniform(-1, 1, size=(k, d))
    z[:, d] = rng.uniform(0, 1, size=k)
    return z


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 4))
def test_gradient_and_hessian_match_finite_differences(seed, d):
    rng = np.random.default_rng(seed)
    items = _items(rng, 3, d)
    theta = rng.uniform(-1, 1, size=d)
    h = 1e-6
    for loss in _losses(rng, d):
        g = loss.gradient(theta, items)
        fd = np.stack([(loss.value(theta + h * e, items) - loss.value(theta - h * e, items)) / (2 * h) for e in np.eye(d)], -1)
        assert np.allclose(g, fd, atol=1e-5), loss.name
        hess = loss.hessian(theta, items)
        hfd = np.stack([(loss.gradient(theta + h * e, items) - loss.gradient(theta - h * e, items)) / (2 * h) for e in np.eye(d)], -1)
        # the Huber Hessian jumps at the knee; compare away from it
        if isinstance(loss, SeparableHuberLoss):
            away = (np.abs(np.abs(theta - items[:, :d]) - loss.knee) > 1e-3).all(axis=1)
            hess, hfd = hess[away], hfd[away]
        assert np.allclose(hess, hfd, atol=1e-4), loss.name
        assert np.allclose(loss.mean_gradient(theta, items), g.mean(axis=0)), loss.name


@settings(max_examples=60)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 4), frac=st.floats(0.01, 1.0))
def test_lemma_3_2_gradient_step_is_linf_contraction(seed, d, frac):
    """[GKLM25, Lemma 3.2]: convex, beta-smooth (row sums), DD Hessian, eta <= 2/beta => l_inf non-expansive."""
    rng = np.random.default_rng(seed)
    items = _items(rng, 4, d)
    for loss in _losses(rng, d)[1:]:
        beta = loss.smoothness_constant
        eta = frac * 2.0 / beta
        x, y = rng.uniform(-1, 1, size=(2, d))
        gx = loss.mean_gradient(x, items)
        gy = loss.mean_gradient(y, items)
        lhs = np.abs((x - eta * gx) - (y - eta * gy)).max()
        assert lhs <= np.abs(x - y).max() * (1 + 1e-12) + 1e-12, loss.name
        # the matrix form used in the proof: ||I - eta H||_inf <= 1
        for hess in loss.hessian(x, items):
            assert max_row_abs_sum(np.eye(d) - eta * hess) <= 1 + 1e-12


def test_non_dd_hessian_breaks_the_contraction():
    """Negative control: PSD but not DD, H = [[1, 1.5], [1.5, 4]]: ||I - eta H||_inf = 1 + eta/2 > 1 for eta in (0, 1]."""
    h = NON_DD
    beta = max_row_abs_sum(h)
    eta = 2.0 / beta
    assert max_row_abs_sum(np.eye(2) - eta * h) == pytest.approx(1 + 0.5 * eta)
    v = np.array([1.0, -1.0])
    assert np.abs((np.eye(2) - eta * h) @ v).max() == pytest.approx(1.1818181818, rel=1e-9)
    loss = DiagonallyDominantQuadratic(h, location_bound=1.0)
    assert loss.is_psd and not loss.is_diagonally_dominant


def test_checker_accepts_valid_users_and_reports_each_kind_of_violation():
    d = 2
    data = np.zeros((6, 3, d + 1))
    data[..., d] = 0.5
    huber = SeparableHuberLoss(beta=2.0, gradient_cap=1.0)
    rep = check_ghazi2025_assumptions(huber, data, 1.0)
    assert rep.ok and rep.violating_users.size == 0
    bad = data.copy()
    bad[2, 1, d] = -0.5  # negative weight: non-convex user
    bad[4, 0, d] = 3.0  # weight outside the universe [0, 1]: gradient up to 3G
    rep = check_ghazi2025_assumptions(huber, bad, 1.0)
    assert not rep.ok
    assert rep.violating_users.tolist() == [2, 4]
    assert rep.convex.tolist() == [True, True, False, True, True, True]
    assert not rep.lipschitz[4] and rep.lipschitz[2]
    assert rep.worst_gradient == pytest.approx(3.0)
    with pytest.raises(InvalidArgument, match=re.escape(
        "`demo`: `data` must be a dataset whose every user's loss satisfies Assumptions 2.4 and 2.5 of [GKLM25]; "
        "got data=None. To fix: separable huber: convexity (Assumption 2.4) fails for 1 user(s) [2]; "
        "G-Lipschitz in l_1, ||grad||_inf <= 1 (Assumption 2.4) fails for 1 user(s) [4]; "
        "beta-smooth, max row sum of |Hessian| <= 2 (Def. 2.2) fails for 1 user(s) [4]; "
        "item inside the loss's declared universe fails for 2 user(s) [2, 4].")):
        rep.raise_if_violated("demo")


def test_checker_flags_logistic_regression_but_not_one_hot_features():
    """Logistic regression's Hessian phi'' x x^T is DD iff every non-zero |x_i| >= sum of the others."""
    d = 3
    data = np.zeros((3, 2, d + 1))
    data[..., d] = 1.0
    data[0, :, 0] = 1.0  # one-hot: DD
    data[1, :, :2] = [0.5, -0.5]  # two equal entries: DD (|x_i| = sum of the others)
    data[2, 0, :3] = [0.5, 0.3, 0.3]  # 0.5 < 0.6: not DD
    for loss in (LogisticLoss(), SquaredLoss()):
        rep = check_ghazi2025_assumptions(loss, data, 1.0)
        assert rep.diagonally_dominant.tolist() == [True, True, False], loss.name
        assert rep.violating_users.tolist() == [2]
        assert "diagonally dominant Hessian (Assumption 2.5) fails for 1 user(s) [2]" in rep.summary()


def test_checker_gradient_bounds_are_attained_suprema(rng):
    """The per-item suprema are exact: a box corner attains them (no slack in G)."""
    d, radius = 3, 0.7
    h = _random_dd_psd(rng, d)
    loss = DiagonallyDominantQuadratic(h, location_bound=1.0)
    items = _items(rng, 5, d)
    rep = check_ghazi2025_assumptions(loss, items[None], radius)
    corners = np.array(np.meshgrid(*[[-radius, radius]] * d, indexing="ij")).reshape(d, -1).T
    grads = np.abs(loss.gradient(corners[:, None, :], items)).max(axis=-1)
    assert rep.worst_gradient == pytest.approx(grads.max(), rel=1e-12)
    assert rep.worst_gradient <= loss.gradient_bound(radius)


def test_non_dd_quadratic_is_reported_and_refused():
    loss = DiagonallyDominantQuadratic(NON_DD, location_bound=1.0)
    data = np.zeros((4, 1, 3))
    data[..., 2] = 1.0
    data[1, :, 2] = 0.0  # a zero-weight user has the zero loss: no violation
    rep = check_ghazi2025_assumptions(loss, data, 1.0)
    assert rep.violating_users.tolist() == [0, 2, 3]
    with pytest.raises(InvalidArgument, match=re.escape(
        "`RobustStatsSGD`: `loss` must be convex with a diagonally dominant Hessian (Assumptions 2.4-2.5 of [GKLM25])")):
        RobustStatsSGD(loss, 1.0, 1e-3)


def test_mechanism_refuses_data_with_a_violating_user(rng):
    loss = SeparableHuberLoss(beta=1.0, gradient_cap=1.0)
    data = np.zeros((40, 2, 2))
    data[..., 1] = 1.0
    data[7, 1, 1] = -1.0
    mech = RobustStatsSGD(loss, 1.0, 1e-3, batch_size=10)
    with pytest.raises(InvalidArgument, match=re.escape(
        "`RobustStatsSGD.sample`: `data` must be a dataset whose every user's loss satisfies Assumptions 2.4 and 2.5 "
        "of [GKLM25]; got data=array(shape=(40, 2, 2), dtype=float64). To fix: separable huber: convexity (Assumption 2.4) "
        "fails for 1 user(s) [7]")):
        mech.sample(data, 2, rng=rng)


def test_linear_loss_is_also_a_linear_predictor_loss():
    """LinearLoss works through the generic Loss API (used by Levy et al.'s algorithms)."""
    from dpaudit.userlevel.losses import Loss

    loss = LinearLoss(1.0)
    assert isinstance(loss, Loss)
    items = np.array([[[0.5, -0.25, 1.0]]])
    assert np.allclose(Loss.gradient(loss, np.zeros(2), items), [[[-0.5, 0.25]]])
    assert loss.value(np.ones(2), items)[0, 0] == pytest.approx(-0.25)
    assert loss.lipschitz(1.0, 3.0) == 3.0 and loss.smoothness(1.0) == 0.0


def test_input_validation_messages():
    with pytest.raises(InvalidArgument, match=re.escape("`LinearLoss`: `feature_bound` must be in (0, inf); got feature_bound=0.")):
        LinearLoss(0)
    with pytest.raises(InvalidArgument, match=re.escape("`SeparableHuberLoss`: `beta` must be in (0, inf); got beta=-1.0.")):
        SeparableHuberLoss(beta=-1.0)
    with pytest.raises(InvalidArgument, match=re.escape("`DiagonallyDominantQuadratic`: `hessian_matrix` must be symmetric")):
        DiagonallyDominantQuadratic(np.array([[1.0, 0.5], [0.0, 1.0]]))
    with pytest.raises(InvalidArgument, match=re.escape("`DiagonallyDominantQuadratic`: `hessian_matrix` must be a non-empty square matrix")):
        DiagonallyDominantQuadratic(np.ones((2, 3)))
    with pytest.raises(InvalidArgument, match=re.escape("`check_ghazi2025_assumptions`: `loss` must be a Ghazi2025Loss, "
                                                        "SquaredLoss or LogisticLoss; got loss=3.")):
        check_ghazi2025_assumptions(3, np.zeros((2, 2, 2)), 1.0)
    with pytest.raises(InvalidArgument, match=re.escape("`check_ghazi2025_assumptions`: `data` must be an array with 3 dimension(s) (shape (2, 2))")):
        check_ghazi2025_assumptions(LinearLoss(), np.zeros((2, 2)), 1.0)
    with pytest.raises(InvalidArgument, match=re.escape("`check_ghazi2025_assumptions`: `radius` must be in (0, inf); got radius=0.")):
        check_ghazi2025_assumptions(LinearLoss(), np.zeros((2, 2, 2)), 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_ghazi2025_assumptions(LinearLoss(), np.zeros((2, 2, 2)), 1.0)
