"""The auditor's contract: accepted mechanisms and outputs, reproducibility, rendering, and errors."""

from __future__ import annotations

import json
import re
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest

import dpaudit
from dpaudit import InvalidArgument, MechanismError, NothingToLearnWarning, NotNeighborsError
from dpaudit.mechanisms import GaussianMechanism, LaplaceMechanism, RandomizedResponse, SparseVector


def laplace_numpy(data, rng, size=None):
    """A plain callable in numpy's convention: one output when size is None."""
    return rng.laplace(loc=data, scale=1.0, size=size)


def laplace_one(data, rng):
    """A callable with no size parameter: the auditor loops over trials."""
    return rng.laplace(loc=data, scale=1.0)


def leaky_vector(data, rng, size=None):
    """Releases a 3-vector whose second coordinate is the data with too little noise."""
    shape = (3,) if size is None else (size, 3)
    out = rng.normal(size=shape)
    out[..., 1] = data + 0.1 * rng.normal(size=shape[:-1])
    return out


def test_accepts_a_mechanism_object_and_uses_its_claim():
    res = dpaudit.audit(GaussianMechanism(1.0, 1e-5), 0.0, 1.0, trials=20_000, seed=1)
    assert res.claimed_epsilon == 1.0 and res.delta == 1e-5
    assert not res.violation
    assert res.epsilon_lower_bound < 1.0


def test_accepts_numpy_convention_callables():
    res = dpaudit.audit(laplace_numpy, 0.0, 1.0, epsilon=1.0, trials=20_000, seed=2)
    assert 0.5 < res.epsilon_lower_bound <= 1.0 and not res.violation
    flagged = dpaudit.audit(laplace_numpy, 0.0, 1.0, epsilon=0.2, trials=20_000, seed=2)
    assert flagged.violation


def test_loops_a_callable_without_size():
    res = dpaudit.audit(laplace_one, 0.0, 3.0, epsilon=1.0, trials=2_000, seed=3)
    assert res.violation  # true epsilon is 3


@pytest.mark.parametrize(
    ("mechanism", "d0", "d1", "kind"),
    [
        (LaplaceMechanism(1.0), 0.0, 1.0, "continuous, 1 column(s)"),
        (LaplaceMechanism(1.0), np.zeros((2, 2)), np.array([[1.0, 0.0], [0.0, 0.0]]), "continuous, 4 column(s)"),
        (RandomizedResponse(1.0, 3), [0, 1], [1, 1], "discrete, 2 column(s)"),
        (SparseVector(1.0, 0.0), [0.0, 1.0], [1.0, 0.0], "discrete, 2 column(s)"),
    ],
)
def test_output_kinds(mechanism, d0, d1, kind):
    res = dpaudit.audit(mechanism, d0, d1, trials=5_000, seed=4)
    assert res.output_kind == kind
    assert not res.violation


def test_mixed_and_boolean_outputs():
    def mixed(data, rng, size=None):
        noisy = data + rng.laplace(scale=0.2, size=size)
        return np.where(noisy > 0.5, noisy, 0.0)  # the value above a threshold, 0 elsewhere

    res = dpaudit.audit(mixed, 0.0, 1.0, epsilon=1.0, trials=20_000, seed=5)
    assert res.output_kind.startswith("mixed")
    assert res.violation  # true epsilon 5

    def coin(data, rng, size=None):
        return rng.random(size) < (0.9 if data else 0.1)

    res = dpaudit.audit(coin, 0, 1, epsilon=1.0, trials=5_000, seed=5)
    assert res.output_kind == "discrete, 1 column(s)" and res.violation  # true epsilon ln 9


def test_learned_projection_finds_a_leak_in_one_coordinate_of_a_vector():
    res = dpaudit.audit(leaky_vector, 0.0, 1.0, epsilon=1.0, trials=20_000, seed=6)
    assert res.violation
    assert res.evidence.attack in {"coordinate[1]", "lda", "logistic(x, x^2)"}


def test_same_seed_same_result_for_any_batch_size_and_executor():
    mech = SparseVector(1.0, 0.0)
    args = (mech, [0.0, 0.0, 1.0], [1.0, 1.0, 0.0])
    kw = dict(trials=30_000, seed=7, block_size=4096)
    base = dpaudit.audit(*args, **kw)
    same = [
        dpaudit.audit(*args, **kw),
        dpaudit.audit(*args, batch_size=3 * 4096, **kw),
        dpaudit.audit(*args, batch_size=10**9, **kw),
    ]
    with ThreadPoolExecutor(2) as ex:
        same.append(dpaudit.audit(*args, executor=ex, **kw))
    with ProcessPoolExecutor(2) as ex:
        same.append(dpaudit.audit(*args, executor=ex, batch_size=8192, **kw))
    for other in same:
        assert other.evidence == base.evidence
        assert other.epsilon_lower_bound == base.epsilon_lower_bound
    assert dpaudit.audit(*args, trials=30_000, seed=8, block_size=4096).evidence != base.evidence


def test_result_renders_as_text_and_json():
    res = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, trials=10_000, seed=9, progress=True)
    text = res.to_text()
    for needle in ("epsilon >=", "attack", "counts", "P[numerator]", "seed entropy", "GDP estimate"):
        assert needle in text
    data = json.loads(res.to_json())
    assert data["schema_version"] == 3
    assert data["epsilon_lower_bound"] == res.epsilon_lower_bound
    assert data["evidence"]["n"] == res.estimation_trials
    assert data["trials"] == 10_000 and data["seed_entropy"] == 9


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(epsilon=-1.0), "`audit`: `epsilon` must be in [0, inf); got epsilon=-1.0."),
        (dict(delta=1.0), "`audit`: `delta` must be in [0, 1); got delta=1.0."),
        (dict(delta=-0.1), "`audit`: `delta` must be in [0, 1); got delta=-0.1."),
        (dict(trials=99), "`audit`: `trials` must be an integer >= 100; got trials=99."),
        (dict(confidence=1.0), "`audit`: `confidence` must be in (0, 1); got confidence=1.0."),
        (dict(selection_fraction=0.0), "`audit`: `selection_fraction` must be in (0, 1); got selection_fraction=0.0."),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(InvalidArgument, match=re.escape(message)):
        dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, **{"trials": 1000, **kwargs})


def test_callable_needs_an_epsilon_and_mechanism_must_be_callable():
    with pytest.raises(InvalidArgument, match=re.escape("`audit`: `epsilon` must be given for a plain callable")):
        dpaudit.audit(laplace_numpy, 0.0, 1.0, trials=1000)
    with pytest.raises(InvalidArgument, match=re.escape("`audit`: `mechanism` must be a dpaudit mechanism")):
        dpaudit.audit(42, 0.0, 1.0, epsilon=1.0, trials=1000)


def test_nan_data_is_rejected():
    with pytest.raises(InvalidArgument, match=re.escape("`audit`: `d1` must be finite (it is nan); got d1=nan.")):
        dpaudit.audit(LaplaceMechanism(1.0), 0.0, np.nan, trials=1000)


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_non_finite_data_is_refused_up_front_naming_the_dataset_and_position(bad):
    """Infinities were accepted where NaN was refused: a plain callable was audited on d1 = [1, inf]."""
    def laplace_sum(data, rng, size=None):
        return np.asarray(data, dtype=float)[:1].sum() + rng.laplace(0.0, 1.0, size=size)

    calls = []
    laplace_sum_counted = lambda data, rng, size=None: calls.append(size) or laplace_sum(data, rng, size)  # noqa: E731
    d0, d1 = np.zeros((2, 3)), np.zeros((2, 3))
    d1[0, 0], d1[1, 2] = 1.0, bad
    message = f"`audit`: `d1` must be finite (it has 1 NaN or infinite entries, the first d1[1, 2] = {bad!r});"
    with pytest.raises(InvalidArgument, match=re.escape(message)):
        dpaudit.audit(laplace_sum_counted, d0, d1, epsilon=1.0, trials=1000, seed=0)
    assert calls == []  # refused before any call
    with pytest.raises(InvalidArgument, match=re.escape(f"`audit`: `d0` must be finite (it is {bad!r})")):
        dpaudit.audit(LaplaceMechanism(1.0), bad, 0.0, trials=1000, seed=0)


def test_a_mechanism_declaring_infinite_data_is_audited_on_it_but_never_on_nan():
    def saturating(data, rng, size=None):
        return np.tanh(np.asarray(data, dtype=float)) + rng.laplace(0.0, 4.0, size=size)

    saturating.allows_infinite_data = True
    res = dpaudit.audit(saturating, 0.0, np.inf, epsilon=1.0, trials=2000, seed=0)
    assert res.epsilon_lower_bound <= 1.0
    with pytest.raises(InvalidArgument, match=re.escape("`audit`: `d1` must be finite (it is nan)")):
        dpaudit.audit(saturating, 0.0, np.nan, epsilon=1.0, trials=2000, seed=0)


def test_misbehaving_mechanisms():
    def nan_out(data, rng, size=None):
        out = rng.normal(size=size)
        out[-1] = np.nan
        return out

    with pytest.raises(MechanismError, match=re.escape("the mechanism returned NaN on d0 (probe call); outputs must be numbers.")):
        dpaudit.audit(nan_out, 0.0, 1.0, epsilon=1.0, trials=1000, seed=0)
    with pytest.raises(MechanismError, match=re.escape("the mechanism returned NaN on d0 (probe call); outputs must be numbers.")):
        dpaudit.audit(nan_out, 0.0, 1.0, epsilon=1.0, trials=1000, seed=0, block_size=1000)  # always probed

    def nan_in_batches(data, rng, size=None):
        out = rng.normal(size=size)
        if size > 1:  # the probe call (one trial) passes
            out[-1] = np.nan
        return out

    with pytest.raises(MechanismError, match=re.escape("the mechanism returned NaN on d0 (block 0); outputs must be numbers.")):
        dpaudit.audit(nan_in_batches, 0.0, 1.0, epsilon=1.0, trials=1000, seed=0, block_size=1000)

    def shape_shifter(data, rng, size=None):
        return rng.normal(size=(size, 2 if data == 0 else 3))

    with pytest.raises(MechanismError, match=re.escape("the mechanism changed its output shape between calls: (2,) on d0 (block 0) but (3,) on d1 (block 0).")):
        dpaudit.audit(shape_shifter, 0.0, 1.0, epsilon=1.0, trials=1000, seed=0)

    def raiser(data, rng, size=None):
        raise RuntimeError("boom")

    with pytest.raises(MechanismError, match=re.escape("the mechanism raised RuntimeError: boom on d0 (probe call).")) as info:
        dpaudit.audit(raiser, 0.0, 1.0, epsilon=1.0, trials=1000, seed=0)
    assert isinstance(info.value.__cause__, RuntimeError)

    def wrong_count(data, rng, size=None):
        return rng.normal(size=3 if size > 1 else 1)

    with pytest.raises(MechanismError, match=re.escape("the mechanism returned shape (3,) on d0 (block 0); expected 1000 outputs stacked on axis 0.")):
        dpaudit.audit(wrong_count, 0.0, 1.0, epsilon=1.0, trials=1000, seed=0, block_size=1000)


def test_identical_datasets_warn_and_give_zero():
    with pytest.warns(NothingToLearnWarning, match="d0 and d1 are identical"):
        res = dpaudit.audit(LaplaceMechanism(1.0), 0.5, 0.5, trials=5_000, seed=10)
    assert res.epsilon_lower_bound == 0.0 or not res.violation
    assert "nothing can be learned" in res.notes[0]


def test_non_neighbours_are_rejected_under_the_claimed_relation():
    message = "`audit`: the datasets are not neighbours under l1 query distance <= 1: l1 distance 2 exceeds the sensitivity 1."
    with pytest.raises(NotNeighborsError, match=re.escape(message)):
        dpaudit.audit(LaplaceMechanism(1.0), 0.0, 2.0, trials=1000)
    # the check can be turned off, and then the over-sensitive pair shows up as a violation
    res = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 2.0, trials=20_000, check_neighbors=False, seed=11)
    assert res.violation
