"""Shared optimisation parts: losses (gradients, Lipschitz constants) and projections."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpaudit import InvalidArgument
from dpaudit.userlevel import (
    AbsoluteLoss,
    HingeLoss,
    LogisticLoss,
    SquaredLoss,
    clamp,
    project_l2_ball,
    project_linf_ball,
)

LOSSES = [SquaredLoss(), LogisticLoss(), AbsoluteLoss(), HingeLoss()]


def _items(rng, shape, dim, labels="pm1"):
    x = rng.normal(size=(*shape, dim))
    x /= np.maximum(1.0, np.linalg.norm(x, axis=-1, keepdims=True))  # ||x|| <= 1
    y = rng.choice([-1.0, 1.0], size=shape) if labels == "pm1" else rng.uniform(-1, 1, size=shape)
    return np.concatenate([x, y[..., None]], axis=-1)


@pytest.mark.parametrize("loss", [SquaredLoss(), LogisticLoss()], ids=lambda loss: loss.name)
def test_smooth_gradients_match_finite_differences(loss, rng):
    theta, items = rng.normal(size=3), _items(rng, (6,), 3)
    h = 1e-6
    numeric = np.stack([(loss.value(theta + h * e, items) - loss.value(theta - h * e, items)) / (2 * h) for e in np.eye(3)], axis=-1)
    np.testing.assert_allclose(loss.gradient(theta, items), numeric, atol=1e-6)


@pytest.mark.parametrize("loss", LOSSES, ids=lambda loss: loss.name)
def test_batched_shapes_and_mean_gradient(loss, rng):
    theta, items = rng.normal(size=(5, 3)), _items(rng, (5, 7), 3)
    assert loss.value(theta, items).shape == (5, 7)
    grads = loss.gradient(theta, items)
    assert grads.shape == (5, 7, 3)
    np.testing.assert_allclose(loss.mean_gradient(theta, items), grads.mean(axis=1), atol=1e-12)
    np.testing.assert_allclose(loss.margin_slope(theta, items)[..., None] * items[..., :3], grads, atol=1e-12)


@pytest.mark.parametrize("loss", LOSSES, ids=lambda loss: loss.name)
@given(seed=st.integers(0, 2**32 - 1), radius=st.floats(0.1, 10.0))
def test_gradient_norm_within_the_stated_lipschitz_constant(loss, seed, radius):
    rng = np.random.default_rng(seed)
    theta = project_l2_ball(rng.normal(size=(20, 4)) * radius, radius)
    items = _items(rng, (20, 5), 4, labels="pm1" if loss.name in ("logistic", "hinge") else "unit")
    norms = np.linalg.norm(loss.gradient(theta, items), axis=-1)
    assert norms.max() <= loss.lipschitz(radius, feature_bound=1.0, label_bound=1.0) * (1 + 1e-12)


@given(seed=st.integers(0, 2**32 - 1), radius=st.floats(0.0, 5.0))
def test_l2_projection_lands_in_the_ball_and_fixes_its_points(seed, radius):
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(30, 3)) * 4
    p = project_l2_ball(v, radius)
    # the norm measured scaled by the largest entry: a plain norm of a tiny vector sums subnormal squares
    top = np.max(np.abs(p), axis=-1, keepdims=True)
    norms = top[:, 0] * np.linalg.norm(p / np.where(top > 0, top, 1.0), axis=-1)
    assert np.all(norms <= radius * (1 + 1e-12) + 1e-300)
    inside = np.linalg.norm(v, axis=-1) <= radius
    np.testing.assert_array_equal(p[inside], v[inside])


def test_box_and_linf_projections(rng):
    x = rng.normal(size=(10, 3)) * 5
    np.testing.assert_array_equal(clamp(x, -1, 1), np.clip(x, -1, 1))
    centre, radius = np.ones(3), np.full((10, 1), 0.5)
    p = project_linf_ball(x, centre, radius)
    assert np.all(np.abs(p - centre) <= 0.5)
    with pytest.raises(InvalidArgument, match=r"`project_linf_ball`: `radius` must be in \[0, inf\)"):
        project_linf_ball(x, centre, -1.0)
    with pytest.raises(InvalidArgument, match=r"`clamp`: `high` must be at least low everywhere"):
        clamp(x, 1.0, -1.0)
