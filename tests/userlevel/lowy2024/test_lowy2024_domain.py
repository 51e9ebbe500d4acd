"""Private for every input: data outside the declared domain is refused up front; inside it, even near the
float limits, every algorithm returns finite outputs and never raises."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.errors import InvalidArgument
from dpaudit.userlevel.domain import MAX_MAGNITUDE
from dpaudit.userlevel.losses import AbsoluteLoss, LogisticLoss, SquaredLoss
from dpaudit.userlevel.lowy2024 import (
    AcceleratedMinibatchSGD,
    MinibatchConcentrationTest,
    OutlierRemovalPhasedSGD,
    PublicDomain,
)

BIG = MAX_MAGNITUDE  # 2^960: the largest declared constant (products with it must stay finite)


def _inside(rng: np.random.Generator, n: int, m: int, d: int, feature_bound: float, label_bound: float,
            mode: str) -> np.ndarray:
    """Items inside the declared domain, pushed to its edges in different ways (values up to 2^960 ~ 1e289)."""
    x = rng.normal(size=(n, m, d))
    x /= np.linalg.norm(x, axis=-1, keepdims=True)
    if mode == "edge":  # every feature vector on the sphere of radius feature_bound
        x *= feature_bound * (1 - 1e-15)
    elif mode == "spikes":  # one user at the edge, the rest tiny
        x *= 1e-300
        x[0] = feature_bound * (1 - 1e-15) / np.sqrt(d)
    else:
        x *= feature_bound * rng.random((n, m, 1))
    y = label_bound * rng.uniform(-1, 1, size=(n, m, 1))
    if mode == "edge":
        y = np.sign(y) * label_bound
    return np.concatenate([x, y], axis=-1)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["squared", "absolute", "logistic"]), st.sampled_from([1.0, 1e150, BIG]),
       st.sampled_from([1.0, 1e-200, 1e150]), st.sampled_from(["edge", "spikes", "random"]), st.integers(0, 2**32 - 1))
def test_algorithm_1_is_finite_near_the_float_limits(loss_name, feature_bound, radius, mode, seed):
    loss = {"squared": SquaredLoss(), "absolute": AbsoluteLoss(), "logistic": LogisticLoss()}[loss_name]
    label_bound = 1.0
    try:
        mech = OutlierRemovalPhasedSGD(loss, 4.0, 1e-3, radius=radius, feature_bound=feature_bound,
                                       label_bound=label_bound, phases=2, q=1.0)
        mech.parameters(400, 2, 2)
    except InvalidArgument:  # refused from the declared constants and the shape alone, before any data is read
        return
    rng = np.random.default_rng(seed)
    z = _inside(rng, 400, 2, 2, feature_bound, label_bound, mode)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no overflow or invalid value anywhere inside
        out = mech.sample(z, 20, rng=rng)
    assert np.all(np.isfinite(out))


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["squared", "absolute"]), st.sampled_from([1.0, 1e150, BIG]), st.sampled_from([1.0, 1e150]),
       st.sampled_from(["edge", "spikes", "random"]), st.integers(0, 2**32 - 1))
def test_algorithm_2_and_its_test_are_finite_near_the_float_limits(loss_name, label_bound, radius, mode, seed):
    loss = {"squared": SquaredLoss(), "absolute": AbsoluteLoss()}[loss_name]
    try:
        mech = AcceleratedMinibatchSGD(loss, 8.0, 1e-2, radius=radius, feature_bound=1.0, label_bound=label_bound,
                                       smoothness=1.0, steps=4)
        test = MinibatchConcentrationTest(loss, 1.0, tau=0.5, steps=5, batch_size=100, radius=radius,
                                          label_bound=label_bound)
        mech.parameters(200, 2, 2)
    except InvalidArgument:  # refused from the declared constants and the shape alone, before any data is read
        return
    rng = np.random.default_rng(seed)
    z = _inside(rng, 200, 2, 2, 1.0, label_bound, mode)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        out = mech.sample(z, 5, rng=rng)
        steps = test.sample(z, 5, rng=rng)
    assert np.all(np.isfinite(out)) and np.all((steps >= 0) & (steps <= 5))


@pytest.mark.parametrize("bad", ["feature", "label", "nan"])
def test_data_outside_the_domain_is_refused_before_anything_runs(bad):
    z = np.zeros((400, 2, 3))
    if bad == "feature":
        z[17, 1, :2] = [1e308, 1e308]  # ||x|| overflows a naive norm; the safe norm sees 1.4e308 > 1
        match = r"user 17, item 1 has \|\|x\|\|_2 = 1.41421e\+308"
    elif bad == "label":
        z[3, 0, 2] = -1.5
        match = r"user 3, item 0 has \|y\| = 1.5"
    else:
        z[0, 0, 0] = np.nan
        match = "finite"
    mech = OutlierRemovalPhasedSGD(SquaredLoss(), 2.0, 1e-3, phases=1, q=1.0)
    with pytest.raises(InvalidArgument, match=match):
        mech.sample(z, 3, rng=np.random.default_rng(0))


def test_declared_constants_that_overflow_are_refused():
    with pytest.raises(InvalidArgument, match="feature_bound"):
        PublicDomain(SquaredLoss(), 1.0, 1e308, 1.0)
    with pytest.raises(InvalidArgument, match="Lipschitz constant"):
        PublicDomain(SquaredLoss(), 1.0, 1e200, 1.0)  # L = (R B + Y) B = 1e400


def test_points_on_the_sphere_are_inside():
    """A point exactly on ||x|| = feature_bound may round outside; 8 ulps of tolerance keep it in."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(50, 3, 4))
    x /= np.linalg.norm(x, axis=-1, keepdims=True)
    z = np.concatenate([x, np.ones((50, 3, 1))], axis=-1)
    assert PublicDomain(SquaredLoss(), 1.0, 1.0, 1.0).validated("t", z).shape == z.shape
