"""Guarantees, seeds and streams, neighbour relations and generators, user-level data helpers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpaudit import GDP, ApproxDP, InvalidArgument, PureDP
from dpaudit._rng import TrialStreams, as_generator, as_seed_sequence, spawn_generators
from dpaudit.data import as_user_dataset, flatten_users, group_items
from dpaudit.neighbors import (
    ItemAddRemove,
    ItemReplace,
    QueryDistance,
    UserAddRemove,
    UserReplace,
    random_neighbor,
    worst_case_neighbors,
)
from dpaudit.strategies import user_datasets


def test_guarantees_are_frozen_and_answer_epsilon_at_delta():
    pure = PureDP(1.0)
    with pytest.raises(AttributeError):
        pure.epsilon = 2.0  # type: ignore[misc]
    assert pure.epsilon_at(0.0) == 1.0
    approx = ApproxDP(1.0, 1e-5, UserReplace())
    assert approx.epsilon_at(1e-5) == 1.0
    assert approx.epsilon_at(1e-6) == math.inf
    assert approx.relation == UserReplace()
    # [DRS19, Cor 2.13] reference values
    assert GDP(1.0).epsilon_at(1e-5) == pytest.approx(4.377, abs=1e-3)
    assert GDP(0.5).epsilon_at(1e-5) == pytest.approx(1.993, abs=1e-3)
    assert GDP(1.0).epsilon_at(0.0) == math.inf
    assert GDP(0.0).epsilon_at(0.0) == 0.0


def test_seed_handling():
    assert isinstance(as_generator(3), np.random.Generator)
    g = np.random.default_rng(1)
    assert as_generator(g) is g
    assert as_generator(5).random() == as_generator(5).random()
    with pytest.raises(InvalidArgument, match="legacy RandomState"):
        as_seed_sequence(np.random.RandomState(0))
    with pytest.raises(InvalidArgument, match=r"`dpaudit`: `seed` must be an integer >= 0; got seed=-1."):
        as_seed_sequence(-1)
    a, b = spawn_generators(7, 2)
    assert a.random() != b.random()


def test_trial_streams_are_deterministic_and_distinct():
    s = TrialStreams.from_seed(11, block_size=4)
    assert s.blocks(10) == [(0, 0, 4), (1, 4, 8), (2, 8, 10)]
    x = s.block_generator(0, 1).random(3)
    y = TrialStreams.from_seed(11, block_size=4).block_generator(0, 1).random(3)
    np.testing.assert_array_equal(x, y)
    assert not np.array_equal(x, s.block_generator(1, 1).random(3))
    assert not np.array_equal(x, s.block_generator(0, 2).random(3))
    # fresh entropy is recorded so the run can be replayed
    fresh = TrialStreams.from_seed(None)
    assert TrialStreams(fresh.entropy).block_generator(0, 0).random() == fresh.block_generator(0, 0).random()


def test_relations_decide_exactly():
    a = np.arange(6.0).reshape(3, 2)
    b = a.copy()
    b[1] = [9.0, 9.0]
    assert UserReplace().is_neighbor(a, b)
    assert UserReplace().is_neighbor(a, a)
    assert ItemReplace().is_neighbor(a[:, 0], b[:, 0])
    assert ItemAddRemove().is_neighbor(np.array([1.0, 2.0, 3.0]), np.array([1.0, 3.0]))
    assert ItemAddRemove().is_neighbor(np.array([1.0, 3.0]), np.array([1.0, 2.0, 3.0]))
    assert not ItemAddRemove().is_neighbor(np.array([1.0, 2.0, 3.0]), np.array([3.0, 1.0]))
    assert UserAddRemove().is_neighbor(a, a[:2])
    assert not UserAddRemove().is_neighbor(a, b[:2])
    assert QueryDistance(1.0, "l2").is_neighbor([0.0, 0.0], [0.6, 0.8])
    assert not QueryDistance(1.0, "l1").is_neighbor([0.0, 0.0], [0.6, 0.8])
    assert QueryDistance(1.0, "linf").is_neighbor([0.0, 0.0], [1.0, -1.0])


user_data = user_datasets(max_users=5, max_items=4, low=-1.0, high=1.0)


@given(data=user_data, seed=st.integers(0, 2**32 - 1))
def test_random_neighbours_are_neighbours(data, seed):
    rng = np.random.default_rng(seed)
    for relation in (UserReplace(), UserAddRemove(), ItemReplace(), ItemAddRemove(), QueryDistance(1.0, "l2")):
        other = random_neighbor(relation, data, rng=rng)
        assert relation.is_neighbor(data, other)


@given(data=user_data)
def test_worst_case_neighbours_replace_a_whole_user(data):
    cands = worst_case_neighbors(UserReplace(), data, low=-1.0, high=1.0, query=lambda x: x.mean())
    assert all(UserReplace().is_neighbor(data, c) for c in cands)
    if cands:
        changed = [np.flatnonzero(np.any(c != data, axis=1)) for c in cands]
        assert all(len(rows) == 1 for rows in changed)
        # the first candidate moves the mean the most among those tried
        moves = [abs(c.mean() - data.mean()) for c in cands]
        assert moves[0] == max(moves)


def test_worst_case_for_query_distance_uses_the_full_sensitivity():
    cands = worst_case_neighbors(QueryDistance(2.0, "l1"), np.zeros(4))
    assert [QueryDistance(2.0, "l1").distance(c, np.zeros(4)) for c in cands] == pytest.approx([2.0, 2.0, 2.0])


def test_user_dataset_helpers():
    items = np.arange(12.0).reshape(6, 2)
    users = group_items(items, 3)
    assert users.shape == (2, 3, 2)
    np.testing.assert_array_equal(flatten_users(users), items)
    assert as_user_dataset(users).dtype == np.float64
    with pytest.raises(InvalidArgument, match="must be finite"):
        as_user_dataset(np.array([[np.nan]]))
