"""The Walsh–Hadamard rotation of Levy et al. 2021, Algorithm 2 (``docs/papers/levy2021.md``, lemmas L6 and L7)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dpaudit.errors import InvalidArgument
from dpaudit.userlevel.hadamard import (
    fwht,
    inverse_rotate,
    next_power_of_two,
    pad_to_power_of_two,
    random_signs,
    rotate,
)

FAILURE_PROB = 1e-6
SEED = 20210412


@pytest.mark.parametrize("dim", [1, 2, 4, 8, 16, 64, 256])
def test_fwht_equals_the_dense_sylvester_matrix(dim, rng):
    x = rng.normal(size=(3, 5, dim))
    dense = x @ scipy.linalg.hadamard(dim)
    np.testing.assert_allclose(fwht(x), dense, rtol=0, atol=1e-12 * dim)


def test_fwht_is_an_involution_up_to_d_and_does_not_modify_its_input(rng):
    x = rng.normal(size=(7, 32))
    keep = x.copy()
    np.testing.assert_allclose(fwht(fwht(x)), 32 * x, atol=1e-11)
    np.testing.assert_array_equal(x, keep)


def test_hadamard_matrix_identities():
    # L6: H H^T = d I and U e_1 has every coordinate +-1/sqrt(d)
    for dim in (2, 8, 32):
        h = fwht(np.eye(dim))
        np.testing.assert_allclose(h @ h.T, dim * np.eye(dim), atol=1e-12)
        u_e1 = rotate(np.eye(dim)[0], np.ones(dim))
        np.testing.assert_allclose(np.abs(u_e1), 1 / math.sqrt(dim), atol=1e-15)


@given(st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_rotation_is_orthogonal_for_any_dimension(dim, seed):
    """L6 for every d (zero-padding to d'): norms are preserved and U^{-1} U x = x."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(4, dim)) * rng.uniform(0.1, 10)
    signs = random_signs((4, next_power_of_two(dim)), rng=rng)
    y = rotate(x, signs)
    assert y.shape == (4, next_power_of_two(dim))
    np.testing.assert_allclose(np.linalg.norm(y, axis=1), np.linalg.norm(x, axis=1), rtol=1e-12)
    np.testing.assert_allclose(inverse_rotate(y, signs, dim), x, atol=1e-12 * np.abs(x).max())


def test_rotation_matches_the_dense_u_matrix(rng):
    dim = 8
    signs = random_signs((dim,), rng=rng)
    u = scipy.linalg.hadamard(dim) @ np.diag(signs) / math.sqrt(dim)
    x = rng.normal(size=(5, dim))
    np.testing.assert_allclose(rotate(x, signs), x @ u.T, atol=1e-12)
    np.testing.assert_allclose(u @ u.T, np.eye(dim), atol=1e-12)


def test_padding_preserves_the_norm():
    x = np.arange(1.0, 6.0)
    p = pad_to_power_of_two(x)
    assert p.shape == (8,) and np.array_equal(p[:5], x) and not p[5:].any()
    assert next_power_of_two(1) == 1 and next_power_of_two(1025) == 2048


def test_rotation_concentrates_every_coordinate_and_needs_the_signs():
    """L7 (and bug B14): with D, |(U v)_j| <= t fails with probability <= 2 exp(-t^2 d / (2||v||^2)).

    Without D, v = (1, ..., 1)/sqrt(d) maps to e_1: one coordinate carries the whole norm.
    """
    rng = np.random.default_rng(SEED)
    dim, n_vectors = 64, 2000
    v = np.ones(dim) / math.sqrt(dim)  # ||v|| = 1, the adversarial vector for D = I
    no_signs = rotate(v, np.ones(dim))
    assert math.isclose(np.abs(no_signs).max(), 1.0, rel_tol=1e-12)  # B14: l_inf = l_2 without D
    signs = random_signs((n_vectors, dim), rng=rng)
    entries = np.abs(rotate(v, signs)).ravel()
    t = 0.6
    p_bound = 2 * math.exp(-(t**2) * dim / 2)  # Hoeffding, per entry
    k = int(np.count_nonzero(entries > t))
    limit = stats.binom.isf(FAILURE_PROB, entries.size, p_bound)
    assert k <= limit, f"n={entries.size}, k={k}, bound p={p_bound:.3g}, limit={limit}, seed={SEED}"


def test_signs_are_independent_of_the_data():
    """The rotation's randomness is drawn from the generator alone (bug B13 guard)."""
    a = random_signs((3, 8), rng=np.random.default_rng(1))
    b = random_signs((3, 8), rng=np.random.default_rng(1))
    assert np.array_equal(a, b) and set(np.unique(a)) <= {-1.0, 1.0}


def test_bad_inputs_are_rejected_with_clear_messages():
    with pytest.raises(InvalidArgument, match=re.escape(
            "`fwht`: `x` must be an array whose last axis is a power of two (pad with pad_to_power_of_two)")):
        fwht(np.ones(3))
    with pytest.raises(InvalidArgument, match=re.escape(
            "`rotate`: `signs` must be an array of +1/-1 entries with last axis 4; got signs=array(shape=(4,)")):
        rotate(np.ones(3), np.array([1.0, 0.5, 1.0, 1.0]))
    with pytest.raises(InvalidArgument, match=re.escape(
            "`next_power_of_two`: `dim` must be an integer >= 1; got dim=0.")):
        next_power_of_two(0)
