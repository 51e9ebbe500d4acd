"""QueryDistance on integer data beyond 2**53: distances are exact, not float64-rounded."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.errors import NotNeighborsError
from dpaudit.neighbors import QueryDistance

I64 = np.iinfo(np.int64)
U64 = np.iinfo(np.uint64)


@pytest.mark.parametrize("norm", ["l1", "l2", "linf"])
def test_int64_pair_500_apart_beyond_2_53_is_not_neighbours(norm):
    # 2**62 and 2**62 + 500 are the same float64: a float distance would be 0
    d0, d1 = np.array([2**62], dtype=np.int64), np.array([2**62 + 500], dtype=np.int64)
    relation = QueryDistance(1.0, norm)
    assert not relation.is_neighbor(d0, d1)
    assert relation.distance(d0, d1) == 500.0
    with pytest.raises(NotNeighborsError, match="500"):
        relation.check_neighbors(d0, d1)


@pytest.mark.parametrize(
    ("a", "b", "dist"),
    [
        (np.array([I64.max], np.int64), np.array([I64.max - 1], np.int64), 1),
        (np.array([I64.min], np.int64), np.array([I64.min + 1], np.int64), 1),
        (np.array([I64.max], np.int64), np.array([I64.max - 2], np.int64), 2),
        (np.array([U64.max], np.uint64), np.array([U64.max - 1], np.uint64), 1),
        (np.array([U64.max], np.uint64), np.array([U64.max - 3], np.uint64), 3),
        (np.array([U64.max], np.uint64), np.array([2**63], np.uint64), 2**63 - 1),
        (np.array([I64.max], np.int64), np.array([I64.min], np.int64), 2**64 - 1),  # no int64 wrap-around
        (np.array([I64.min], np.int64), np.array([U64.max], np.uint64), 2**64 - 1 + 2**63),
    ],
)
def test_integer_extremes_are_exact(a, b, dist):
    relation = QueryDistance(1.0)
    assert relation.is_neighbor(a, b) is (dist <= 1)
    assert relation.is_neighbor(b, a) is (dist <= 1)
    assert relation.distance(a, b) == float(dist)


def test_l2_and_linf_on_integer_vectors_are_exact():
    base = np.array([2**62, -(2**62), 7], dtype=np.int64)
    moved = base + np.array([1, 1, 0], dtype=np.int64)
    assert not QueryDistance(1.0, "l1").is_neighbor(base, moved)  # l1 = 2
    assert QueryDistance(2.0, "l1").is_neighbor(base, moved)
    assert not QueryDistance(1.4142135, "l2").is_neighbor(base, moved)  # l2 = sqrt(2) > 1.4142135
    assert QueryDistance(1.4142136, "l2").is_neighbor(base, moved)
    assert QueryDistance(1.0, "linf").is_neighbor(base, moved)


def test_integer_against_float_beyond_2_53_is_exact():
    # the float 2**62 is exact; the integer 2**62 + 1 is not representable as a float
    assert QueryDistance(1.0).is_neighbor(np.array([2.0**62]), np.array([2**62 + 1], dtype=np.int64))
    assert not QueryDistance(1.0).is_neighbor(np.array([2.0**62]), np.array([2**62 + 2], dtype=np.int64))
    assert not QueryDistance(1.0).is_neighbor(np.array([np.inf]), np.array([2**62], dtype=np.int64))


def test_audit_refuses_the_red_team_pair():
    import dpaudit

    def shifted(data, rng, size=None):
        q = float(int(np.asarray(data)[0]) - 2**62)
        return q + rng.laplace(0.0, 1.0, size=size)

    shifted.neighbor_relation = QueryDistance(1.0)
    d0, d1 = np.array([2**62], dtype=np.int64), np.array([2**62 + 500], dtype=np.int64)
    with pytest.raises(NotNeighborsError):
        dpaudit.audit(shifted, d0, d1, epsilon=1.0, seed=0, trials=2000)


@pytest.mark.parametrize("scale", [1e285, 1e300, 1e308])
def test_l2_distance_of_huge_floats_is_finite_not_inf(scale):
    # squaring 1e285 overflows float64; the norm itself (about 1.41 * scale, at most 1.42e308) does not
    got = QueryDistance(1.0, "l2").distance(np.array([scale, 0.0]), np.array([0.0, scale]))
    assert got == pytest.approx(math.hypot(scale, scale), rel=1e-12)


def test_l2_distance_of_an_integer_beside_a_huge_float_does_not_overflow():
    got = QueryDistance(1.0, "l2").distance(np.array([1e300]), np.array([-5], dtype=np.int64))
    assert got == pytest.approx(1e300, rel=1e-12)
