"""What an audit hands the mechanism and what it keeps: each call's own copy in, each call's copy out.

Found by a black-box review of the auditor (issue 20 follow-up):

* a looped ``fn(data, rng)`` (no ``size``) that returns its reused buffer is audited on its real
  outputs: each call's output is copied before the next call;
* each call gets its own copy of the dataset: a mechanism that writes to its input changes neither
  the caller's arrays nor the pair later calls see;
* masked arrays (whose mask is part of the release) and other ndarray subclasses are refused, not
  silently reduced to their data; memmaps are plain data and are accepted;
* with ``float_bits=True``, float outputs that are all atoms are read by their bit patterns
  (``-0.0`` is not ``0.0``);
* the memory refusal names the selection rows the audit would really use, the executor error says
  how to use ``make_executor``, and the one-run GDP figure is labelled an estimate, not a bound.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

import dpaudit
from dpaudit._rng import TrialStreams
from dpaudit.auditor.executors import make_executor
from dpaudit.auditor.sampling import as_sampler, draw_outputs
from dpaudit.errors import InvalidArgument, MechanismError

_LOOPED_BUFFER = np.zeros(1)


def looped_reused_buffer(data, rng):
    """Laplace(1) on a sensitivity-1 query (1-DP), written into one module-level buffer it returns."""
    _LOOPED_BUFFER[0] = float(data) + rng.laplace(0.0, 1.0)
    return _LOOPED_BUFFER


def looped_fresh(data, rng):
    return np.array([float(data) + rng.laplace(0.0, 1.0)])


def test_a_looped_mechanism_reusing_its_buffer_is_audited_on_its_real_outputs():
    streams = TrialStreams.from_seed(3, block_size=50)
    reused, _ = draw_outputs(as_sampler(looped_reused_buffer), [0.0, 1.0], 200, streams)
    fresh, _ = draw_outputs(as_sampler(looped_fresh), [0.0, 1.0], 200, streams)
    for a, b in zip(reused, fresh, strict=True):
        np.testing.assert_array_equal(a, b)
    assert np.unique(reused[0]).size == 200  # not one value repeated (the last call's)
    kwargs = dict(epsilon=1.0, trials=2_000, seed=0)
    got, want = dpaudit.audit(looped_reused_buffer, 0.0, 1.0, **kwargs), dpaudit.audit(looped_fresh, 0.0, 1.0, **kwargs)
    assert not got.violation, got
    assert (got.epsilon_lower_bound, got.evidence) == (want.epsilon_lower_bound, want.evidence)


def _halving(seen):
    """A mechanism with an in-place bug on its input (``data /= 2``) that records what each call saw."""
    def mechanism(data, rng, size=None):
        seen.append(float(data[0]))
        data /= 2.0
        return data[0] + rng.laplace(0.0, 1.0, size)
    return mechanism


def _halving_looped(seen):
    def mechanism(data, rng):
        seen.append(float(data[0]))
        data /= 2.0
        return data[0] + rng.laplace(0.0, 1.0)
    return mechanism


@pytest.mark.parametrize("make", [_halving, _halving_looped], ids=["size", "looped"])
def test_every_call_gets_its_own_copy_of_the_stated_pair(make):
    seen: list[float] = []
    d0, d1 = np.array([0.0]), np.array([1.0])
    trials = 300 if make is _halving_looped else 4_000
    result = dpaudit.audit(make(seen), d0, d1, epsilon=0.25, trials=trials, seed=0, block_size=100)
    assert d0.tolist() == [0.0] and d1.tolist() == [1.0], "the caller's arrays were changed"
    assert set(seen) == {0.0, 1.0}, sorted(set(seen))[:5]
    # the same draws as a mechanism copying its input itself: the audit is of one call on the stated pair
    inner = make([])
    if make is _halving:
        def copying(data, rng, size=None):
            return inner(np.array(data, copy=True), rng, size)
    else:
        def copying(data, rng):
            return inner(np.array(data, copy=True), rng)
    reference = dpaudit.audit(copying, np.array([0.0]), np.array([1.0]), epsilon=0.25, trials=trials, seed=0,
                              block_size=100)
    assert (result.epsilon_lower_bound, result.evidence) == (reference.epsilon_lower_bound, reference.evidence)


def test_an_uncopyable_dataset_is_refused_up_front():
    class Uncopyable:
        def __deepcopy__(self, memo):
            raise TypeError("no copies")

    with pytest.raises(InvalidArgument, match=r"`audit`: `d0` must be copyable"):
        dpaudit.audit(lambda data, rng, size=None: rng.random(size), Uncopyable(), 1.0, epsilon=1.0, trials=200, seed=0)


def _masked(data, rng, size=None):
    noise = rng.laplace(0.0, 1.0, size)
    return np.ma.masked_array(noise, mask=rng.random(size) < (0.9 if data else 0.1))


def _masked_looped(data, rng):
    return np.ma.masked_array([rng.laplace()], mask=[rng.random() < (0.9 if data else 0.1)])


def _matrix(data, rng, size=None):
    with warnings.catch_warnings():  # numpy discourages np.matrix: the mechanism's business, not the test's
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        return np.asmatrix(rng.laplace(data, 1.0, (size, 1)))


@pytest.mark.parametrize(("mechanism", "message"), [
    (_masked, "returned a numpy masked array on d0 (probe call): its mask is part of the release"),
    (_masked_looped, "returned a numpy masked array from one call on d0 (probe call)"),
    (_matrix, "returned an ndarray subclass numpy.matrix"),
], ids=["masked", "masked-looped", "matrix"])
def test_array_subclasses_that_carry_more_than_their_data_are_refused(mechanism, message):
    with pytest.raises(MechanismError, match=re.escape(message)) as info:
        dpaudit.audit(mechanism, 0, 1, epsilon=1.0, trials=200, seed=0)
    assert "To fix:" in str(info.value)


def test_a_memmap_output_is_plain_data(tmp_path):
    def mapped(data, rng, size=None):
        out = np.memmap(tmp_path / "out.bin", dtype=float, mode="w+", shape=(size,))
        out[:] = rng.laplace(data, 1.0, size)
        return out

    got = dpaudit.audit(mapped, 0.0, 1.0, epsilon=1.0, trials=1_000, seed=0)
    want = dpaudit.audit(lambda data, rng, size=None: rng.laplace(data, 1.0, size), 0.0, 1.0, epsilon=1.0,
                         trials=1_000, seed=0)
    assert got.epsilon_lower_bound == want.epsilon_lower_bound


P_SIGN = math.exp(3) / (1 + math.exp(3))


def signed_zero(data, rng, size=None):
    """Randomized response at epsilon 3 carried only by the sign of zero: 0-DP over the reals, 3-DP in IEEE-754."""
    bit = np.where(rng.random(size) < P_SIGN, int(data), 1 - int(data))
    return np.where(bit == 1, -0.0, 0.0)


def test_float_bits_tells_negative_zero_from_zero_when_every_output_is_an_atom():
    result = dpaudit.audit(signed_zero, 0, 1, epsilon=1.0, trials=5_000, seed=0, float_bits=True)
    assert result.violation and result.epsilon_lower_bound > 2.0, result
    assert "float bits" in result.evidence.attack, result.evidence
    over_reals = dpaudit.audit(signed_zero, 0, 1, epsilon=1.0, trials=5_000, seed=0)
    assert not over_reals.violation and over_reals.epsilon_lower_bound == 0.0, over_reals


def _wide(data, rng, size=None):
    return np.asarray(data, float) + rng.laplace(0.0, 1.0, (size, 50))


def test_the_memory_refusal_names_the_selection_rows_a_vector_audit_uses():
    d0, d1 = np.zeros(50), np.r_[1.0, np.zeros(49)]
    with pytest.raises(InvalidArgument, match=r"30000 selection rows per dataset of 400-byte outputs"):
        dpaudit.audit(_wide, d0, d1, epsilon=1.0, trials=100_000, seed=0, block_size=1_000, memory_limit=10**7)


def test_passing_make_executor_itself_says_how_to_use_it():
    with pytest.raises(InvalidArgument, match=r"context manager itself: pass the executor it yields.*`with "
                                              r"dpaudit\.auditor\.executors\.make_executor\(workers=2\) as ex:"):
        dpaudit.audit(looped_fresh, 0.0, 1.0, epsilon=1.0, trials=200, seed=0, executor=make_executor(workers=2))


def test_the_one_run_gdp_figure_is_labelled_an_estimate_not_a_bound():
    from dpaudit.one_run import audit_canaries, draw_inclusion

    inc = draw_inclusion(500, np.random.default_rng(0))
    text = audit_canaries(np.where(inc, 1.0, -1.0), inc, epsilon=1.0, delta=1e-5, seed=0).to_text()
    line = next(line for line in text.splitlines() if "Mahloujifar" in line)
    assert "epsilon estimate" in line and "not a bound" in line and "epsilon ~" not in line, line
    assert "each hold with this probability" not in audit_canaries.__doc__
