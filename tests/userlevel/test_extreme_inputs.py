"""No finite input inside a mechanism's declared domain gives a non-finite output or a data-dependent error.

A mechanism that returns NaN, inf or an exception on one dataset and a number on its neighbour tells
them apart in one run (``1e308 + 1e308 = inf``, ``inf - inf = NaN``). For every user-level mechanism of
Levy et al. 2021 and Ghazi et al. 2025 (and every component exposed for audits), hypothesis draws
small datasets whose entries mix values near the float limits (``+-1.8e308``, ``+-1e308``), subnormals
(``+-5e-324``), zeros of both signs and ordinary values, inside the declared domain:

* Levy et al. accept every finite input (each item is clamped or projected into the declared domain,
  :mod:`dpaudit.userlevel.domain`), so the data range over all finite floats;
* Ghazi et al. refuse users outside the loss's universe (Assumptions 2.4-2.5), so the data range over
  the universe, which for :class:`SeparableHuberLoss` still has unbounded locations.

Each run must return finite numbers of the right shape, with numpy warnings turned into errors (an
overflow anywhere fails the test). Data outside a declared domain (non-finite entries; Ghazi users
outside the universe) must be refused with :class:`InvalidArgument` *before any randomness is drawn*
(the generator's state is unchanged), and so must public constants above ``2^960``.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from dpaudit.errors import InvalidArgument
from dpaudit.userlevel.ghazi2025 import (
    ConcentrationTest,
    DiagonallyDominantQuadratic,
    LinearLoss,
    RobustStatsLocalization,
    RobustStatsSGD,
    SeparableHuberLoss,
    check_ghazi2025_assumptions,
)
from dpaudit.userlevel.levy2021 import (
    PhasedERM,
    PrivateRange,
    UserMeanEstimator,
    WinsorizedFirstOrder,
    WinsorizedMean1D,
    WinsorizedMeanHighD,
)
from dpaudit.userlevel.losses import AbsoluteLoss, LogisticLoss, SquaredLoss

MAX = float(np.finfo(float).max)
EXTREMES = [0.0, -0.0, 1.0, -1.0, 0.5, -3.0, 1e154, -1e154, 1e300, -1e300, 1e308, -1e308, MAX, -MAX,
            5e-324, -5e-324, 2.2250738585072014e-308, 1e-300]
FINITE = st.one_of(st.sampled_from(EXTREMES), st.floats(allow_nan=False, allow_infinity=False))
EXAMPLES = 20
SIZE = 3


def _overflowing(shape: tuple[int, ...]) -> np.ndarray:
    """User 0's items all +MAX, user 1's all -MAX, user 2 mixed, the rest 0: sums overflow, differences are NaN."""
    x = np.zeros(shape)
    x[0], x[1] = MAX, -MAX
    x[2].flat[::2] = MAX
    x[2].flat[1::2] = -1e308
    return x


def _array(shape: tuple[int, ...], elements: st.SearchStrategy[float] = FINITE) -> st.SearchStrategy[np.ndarray]:
    return hnp.arrays(np.float64, shape, elements=elements)


def _check(out: np.ndarray, shape: tuple[int, ...]) -> None:
    assert out.shape == shape, (out.shape, shape)
    assert np.all(np.isfinite(out)), out


def _run(mech, data, shape, seed=0):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow warning anywhere is a failure
        out = np.asarray(mech.sample(data, SIZE, rng=np.random.default_rng(seed)), dtype=np.float64)
    _check(out, (SIZE, *shape))


# ------------------------------------------------------------------------------------------------
# Levy et al. 2021: every finite input is accepted and mapped into the declared domain


@pytest.fixture(scope="module")
def levy_mechanisms():
    wm = WinsorizedMean1D(1.0, 0.5, 2.0)
    wm_paper = WinsorizedMean1D(1.0, 0.5, 2.0, mode="paper")
    whd = WinsorizedMeanHighD(1.0, 1e-5, 0.2, 1.0, 1e-2)
    stage = whd.coordinate_stage(6, 3, 1, (1.0, -1.0, 1.0, 1.0))
    wfo = WinsorizedFirstOrder(SquaredLoss(), 1.0, 1e-5, 1.0, 1.0, steps=2)
    query = wfo.gradient_query([0.3, -0.2], 6, 2)
    coord = query.coordinate_stage(0, (1.0, -1.0))
    erm = PhasedERM(SquaredLoss(), 1.0, 1e-5, 1.0, 1.0, rounds=2, steps=2)
    return {
        "1d": [
            (PrivateRange(1.0, 0.5, 2.0), (2,)),
            (wm, ()), (wm_paper, ()), (wm.range_stage(), (2,)), (wm.laplace_stage(-1.0, 2.0), ()),
        ],
        "vectors": [
            (whd, (3,)),
            (UserMeanEstimator(1.0, 1e-5, 1.0, gamma=1e-2), (3,)),
            (UserMeanEstimator(1.0, 1e-5, 1.0, gamma=1e-2, tau=0.1, signs=(1.0, 1.0, -1.0, 1.0)), (3,)),
            (stage, ()), (stage.range_stage(), (2,)), (stage.laplace_stage(-1.0, -1.0 + stage.inner.width), ()),
        ],
        "items": [
            (wfo, (2,)),
            (WinsorizedFirstOrder(LogisticLoss(), 1.0, 1e-5, 2.0, 1.0, steps=2, step_size=5.0), (2,)),
            (query, (2,)), (coord, ()), (coord.range_stage(), (2,)),
            (coord.laplace_stage(-1.0, -1.0 + coord.inner.inner.width), ()),
            (erm, (2,)),
            (PhasedERM(AbsoluteLoss(), 1.0, 1e-5, 1.0, 1.0, rounds=2, steps=2), (2,)),
            (erm.round_stage(1, 6, 2, 2, [0.1, 0.1]), (2,)),
        ],
    }


@settings(max_examples=EXAMPLES)
@given(data=_array((5, 2)))
@example(data=_overflowing((5, 2)))
def test_levy_one_dimensional_mechanisms_give_finite_outputs(levy_mechanisms, data):
    for mech, shape in levy_mechanisms["1d"]:
        _run(mech, data, shape)


@settings(max_examples=EXAMPLES)
@given(data=_array((6, 2, 3)))
@example(data=_overflowing((6, 2, 3)))
def test_levy_vector_mechanisms_give_finite_outputs(levy_mechanisms, data):
    for mech, shape in levy_mechanisms["vectors"]:
        _run(mech, data, shape)


@settings(max_examples=EXAMPLES)
@given(data=_array((6, 2, 3)))
@example(data=_overflowing((6, 2, 3)))
def test_levy_optimisers_and_their_components_give_finite_outputs(levy_mechanisms, data):
    for mech, shape in levy_mechanisms["items"]:
        _run(mech, data, shape)


def test_the_issue_example_is_finite_on_both_neighbours():
    """One user's items all 1e308: Corollary 1's estimator, a rotated coordinate and a gradient query are finite."""
    d0 = np.zeros((8, 2, 2))
    d1 = d0.copy()
    d1[0] = 1e308
    whd = WinsorizedMeanHighD(1.0, 1e-5, 0.1, 1.0, 1e-3)
    wfo = WinsorizedFirstOrder(SquaredLoss(), 1.0, 1e-5, 1.0, 1.0, steps=2)
    for mech, shape in ((UserMeanEstimator(1.0, 1e-5, 1.0, gamma=1e-3), (2,)), (whd, (2,)),
                        (whd.coordinate_stage(8, 2, 0, (1.0, 1.0)), ()), (wfo.gradient_query([0.5], 8, 2), (1,))):
        for data in (d0, d1):
            _run(mech, data, shape)


@pytest.mark.parametrize("build", [
    lambda: WinsorizedMean1D(1.0, 0.5, 2.0),
    lambda: WinsorizedMeanHighD(1.0, 1e-5, 0.2, 1.0, 1e-2),
    lambda: UserMeanEstimator(1.0, 1e-5, 1.0),
    lambda: WinsorizedFirstOrder(SquaredLoss(), 1.0, 1e-5, 1.0, 1.0, steps=2),
    lambda: PhasedERM(SquaredLoss(), 1.0, 1e-5, 1.0, 1.0, rounds=2, steps=2),
], ids=["WM1D", "WHD", "Cor1", "Alg3", "Alg4"])
def test_levy_refuses_non_finite_data_before_drawing(build):
    mech = build()
    data = np.zeros((6, 2)) if isinstance(mech, WinsorizedMean1D) else np.zeros((6, 2, 3))
    data.flat[3] = np.inf
    rng = np.random.default_rng(1)
    state = rng.bit_generator.state
    with pytest.raises(InvalidArgument, match=re.escape("`data` must be finite (it has 1 NaN or infinite entries)")):
        mech.sample(data, SIZE, rng=rng)
    assert rng.bit_generator.state == state


@pytest.mark.parametrize(("build", "message"), [
    (lambda: PrivateRange(1.0, 0.5, 1e300),
     "`PrivateRange`: `bound` must be in (0, 2^960] (about 9.7e288), so that no sum, rotation or noise draw can "
     "overflow; got bound=1e+300."),
    (lambda: WinsorizedMean1D(1e-300, 1.0, 1.0),
     "`WinsorizedMean1D`: `epsilon` must be such that the Laplace scale 2w/eps at n = 1 = 1.2e+301 is at most 2^960"),
    (lambda: WinsorizedMeanHighD(1.0, 1e-5, 1e290, 1.0, 1e-2), "`WinsorizedMeanHighD`: `tau` must be in (0, 2^960]"),
    (lambda: WinsorizedFirstOrder(SquaredLoss(), 1.0, 1e-5, 1e200, 1e200),
     "`WinsorizedFirstOrder`: `feature_bound` must be such that the Lipschitz constant G = inf is at most 2^960"),
    (lambda: RobustStatsSGD(LinearLoss(1.0), 1.0, 1e-3, radius=1e300), "`RobustStatsSGD`: `radius` must be in (0, 2^960]"),
    (lambda: ConcentrationTest(LinearLoss(1e300), 1.0, 3.0, 1.0, 4),
     "`ConcentrationTest`: `tau` must be such that tau times the largest l_inf distance 2G of two gradients = 2e+300"),
], ids=["PR-bound", "WM1D-scale", "WHD-tau", "Alg3-G", "Ghazi-radius", "CT-tau"])
def test_public_constants_above_the_cap_are_refused(build, message):
    with pytest.raises(InvalidArgument, match=re.escape(message)):
        build()


# ------------------------------------------------------------------------------------------------
# Ghazi et al. 2025: data inside the universe give finite outputs; outside it, a refusal up front


def _huber_items(shape: tuple[int, int, int]) -> st.SearchStrategy[np.ndarray]:
    """Huber items: any finite locations, weights in [0, 1] (the loss's universe)."""
    n, m, d1 = shape
    weights = st.one_of(st.sampled_from([0.0, 1.0, 5e-324, 0.5]), st.floats(0.0, 1.0))
    return st.tuples(_array((n, m, d1 - 1)), _array((n, m, 1), weights)).map(lambda t: np.concatenate(t, axis=-1))


def _linear_items(shape: tuple[int, int, int], bound: float) -> st.SearchStrategy[np.ndarray]:
    inside = st.one_of(st.sampled_from([0.0, bound, -bound, 5e-324]), st.floats(-bound, bound))
    n, m, d1 = shape
    return st.tuples(_array((n, m, d1 - 1), inside), _array((n, m, 1))).map(lambda t: np.concatenate(t, axis=-1))


HUBER = SeparableHuberLoss(beta=2.0, gradient_cap=3.0)


@settings(max_examples=EXAMPLES)
@given(data=_huber_items((8, 2, 3)))
@example(data=np.concatenate([_overflowing((8, 2, 2)), np.ones((8, 2, 1))], axis=-1))
def test_ghazi_mechanisms_give_finite_outputs_on_the_huber_universe(data):
    for preset in ("safe", "paper"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # preset='paper' announces itself
            mechs = [RobustStatsSGD(HUBER, 1.0, 1e-3, batch_size=4, preset=preset),
                     RobustStatsLocalization(HUBER, 1.0, 1e-3, batch_size=4, preset=preset)]
        for mech in mechs:
            _run(mech, data, (2,))
    _run(ConcentrationTest(HUBER, 1.0, 3.0, 0.5, 4, query_point=(0.5, -1.0)), data, (2,))


@settings(max_examples=EXAMPLES)
@given(data=_linear_items((8, 2, 2), 1e288))
def test_ghazi_mechanisms_give_finite_outputs_on_the_linear_universe(data):
    loss = LinearLoss(1e288)  # just below the cap 2^960 ~ 9.7e288
    _run(RobustStatsSGD(loss, 1.0, 1e-3, batch_size=4, radius=1e-3), data, (1,))
    _run(ConcentrationTest(loss, 1.0, 3.0, 1e-300, 4), data, (2,))


@settings(max_examples=EXAMPLES)
@given(data=_array((4, 2, 3)))
@example(data=_overflowing((4, 2, 3)))
def test_the_assumption_checker_never_overflows_to_nan(data):
    """Any finite data: the report is computed without warnings, and its suprema are never NaN."""
    losses = [HUBER, LinearLoss(1.0), DiagonallyDominantQuadratic(np.array([[2.0, -1.0], [-1.0, 2.0]])),
              SquaredLoss(), LogisticLoss()]
    for loss in losses:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            report = check_ghazi2025_assumptions(loss, data, 1.0)
        assert not np.isnan(report.worst_gradient) and not np.isnan(report.worst_rowsum), (loss, report.summary())


@pytest.mark.parametrize(("mech", "bad"), [
    (RobustStatsSGD(LinearLoss(1.0), 1.0, 1e-3, batch_size=4), "feature"),
    (RobustStatsLocalization(HUBER, 1.0, 1e-3, batch_size=4), "weight"),
    (ConcentrationTest(LinearLoss(1.0), 1.0, 3.0, 1.0, 4), "feature"),
], ids=["Alg1-linear", "Alg5-huber", "ConcentrationTest"])
def test_ghazi_refuses_users_outside_the_universe_before_drawing(mech, bad):
    data = np.zeros((8, 2, 2))
    data[..., 1] = 1.0
    if bad == "feature":
        data[3, :, 0] = 1e308  # outside [-feature_bound, feature_bound]
    else:
        data[3, :, 1] = 1.5  # a Huber weight outside [0, 1]
    rng = np.random.default_rng(2)
    state = rng.bit_generator.state
    with pytest.raises(InvalidArgument, match=re.escape("satisfies Assumptions 2.4 and 2.5 of [GKLM25]")):
        mech.sample(data, SIZE, rng=rng)
    assert rng.bit_generator.state == state
