"""Private for every input: data outside the declared domain are refused up front, data inside it (values
up to the float limits) never produce NaN/inf or an exception, and public numbers that overflow are
refused when the problem is built."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from dpaudit.errors import InvalidArgument
from dpaudit.userlevel.ghazi2023 import DelOutputPert, ERMProblem, PhasedSCO, SCOutputPert, UserMean
from dpaudit.userlevel.losses import LogisticLoss, SquaredLoss

BOUNDS = [1.0, 1e-3, 1e100, 1e300, 1e308]


def _problem(loss, radius, feature_bound, label_bound, l2):
    try:
        return ERMProblem(loss, radius=radius, feature_bound=feature_bound, label_bound=label_bound, l2=l2)
    except InvalidArgument as exc:
        assert "unit-scale numbers are finite" in str(exc) or "Lipschitz constant on K is finite" in str(exc)
        return None


@st.composite
def domain_data(draw, users: int):
    """A problem and data inside its domain, users drawn from at most three distinct user arrays."""
    loss = draw(st.sampled_from([SquaredLoss(), LogisticLoss()]))
    dim = draw(st.sampled_from([1, 2]))
    fb, lb = draw(st.sampled_from(BOUNDS)), draw(st.sampled_from(BOUNDS))
    problem = _problem(loss, draw(st.sampled_from([1.0, 1e300])), fb, lb, draw(st.sampled_from([1e-3, 1.0, 1e3])))
    assume(problem is not None)
    m = draw(st.sampled_from([1, 2]))
    unit = st.floats(-1.0, 1.0, allow_nan=False)
    pool = []
    for _ in range(draw(st.integers(1, 3))):
        feats = np.array(draw(st.lists(unit, min_size=m * dim, max_size=m * dim))).reshape(m, dim)
        feats /= np.maximum(1.0, np.linalg.norm(feats, axis=1, keepdims=True))
        labels = np.array(draw(st.lists(st.sampled_from([-1.0, -0.0, 0.0, 0.5, 1.0]), min_size=m, max_size=m)))
        pool.append(np.concatenate([feats * fb, labels[:, None] * lb], axis=1))  # on or inside the boundary
    which = np.array(draw(st.lists(st.integers(0, len(pool) - 1), min_size=users, max_size=users)))
    return problem, np.stack([pool[i] for i in which])


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(domain_data(users=10), st.sampled_from(["printed", "certified"]), st.sampled_from(["auto", "translate"]),
       st.integers(0, 2**32 - 1))
def test_sc_output_pert_is_finite_on_every_dataset_in_the_domain(problem_data, threshold, engine, seed):
    problem, data = problem_data
    try:
        mech = SCOutputPert(problem, 1.0, 0.5, beta=0.3, threshold=threshold, kappa=1, engine=engine)
        out = mech.sample(data, 8, rng=np.random.default_rng(seed))
    except InvalidArgument as exc:
        assert "`data`" not in str(exc), str(exc)  # only public numbers may be refused, never data in the domain
        event(f"configuration refused (public numbers): {str(exc).split(':')[1].split(' must')[0].strip()}")
        return
    event(f"released: {problem.loss.name}, max |output| 1e{int(np.log10(np.abs(out).max() + 1e-300))}")
    assert out.shape == (8, data.shape[2]) and np.all(np.isfinite(out))


@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(domain_data(users=84), st.integers(0, 2**32 - 1))
def test_phased_sco_is_finite_on_every_dataset_in_the_domain(problem_data, seed):
    problem, data = problem_data
    mech = PhasedSCO(problem, 1.0, 0.5)
    try:
        out = mech.sample(data, 4, rng=np.random.default_rng(seed))
    except InvalidArgument as exc:
        assert str(exc).startswith("`SCOutputPert`: `threshold` must be") or "`threshold` must be" in str(exc), str(exc)
        return
    assert np.all(np.isfinite(out))
    assert np.all(np.abs(out) <= problem.radius * (1 + 1e-12))  # corrected preset: projected onto K (E6)


@settings(max_examples=40)
@given(st.lists(st.sampled_from([-1.7e308, -1e308, 0.0, 1e-300, 1e308, 1.7e308]), min_size=22, max_size=22),
       st.integers(0, 2**32 - 1))
def test_generic_mean_near_the_float_limits_stays_finite(values, seed):
    mech = DelOutputPert(UserMean(), 1.0, 0.5, 1e286)  # sigma 2.6e288, just under the 2^960 cap
    out = mech.sample(np.array(values)[:, None], 16, rng=np.random.default_rng(seed))
    assert np.all(np.isfinite(out))


@pytest.mark.parametrize(("item", "where"), [((1.0000001, 0.0), "user 3, item 0"), ((0.0, -2.5), "user 3, item 0")])
def test_data_outside_the_declared_domain_is_refused_before_any_work(item, where, rng):
    mech = SCOutputPert(ERMProblem(SquaredLoss(), feature_bound=1.0, label_bound=2.0, l2=1.0), 1.0, 1e-5)
    data = np.zeros((300, 2, 2))
    data[3, 0] = item
    with pytest.raises(InvalidArgument, match=re.escape(f"{where} is outside it; nothing is clipped")):
        mech.sample(data, 5, rng=rng)
    with pytest.raises(InvalidArgument, match="finite"):
        mech.sample(np.full((300, 2, 2), np.nan), 5, rng=rng)


def test_public_numbers_that_overflow_are_refused_when_the_problem_is_built():
    with pytest.raises(InvalidArgument, match="unit-scale numbers are finite and non-zero"):
        ERMProblem(SquaredLoss(), radius=1.0, feature_bound=1e308, label_bound=1e-308, l2=1.0)
    with pytest.raises(InvalidArgument, match="unit-scale numbers are finite and non-zero"):
        ERMProblem(SquaredLoss(), radius=1.0, feature_bound=1e200, label_bound=1.0, l2=1e-300)  # l2 vanishes
