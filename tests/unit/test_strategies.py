"""dpaudit.strategies: every pair drawn is a neighbour, and the project's own properties under them."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpaudit import InvalidArgument
from dpaudit.neighbors import (
    PAIR_RELATIONS,
    ItemReplace,
    QueryDistance,
    UserAddRemove,
    UserReplace,
    worst_case_pair,
)
from dpaudit.strategies import (
    item_datasets,
    named_pairs,
    neighboring_pairs,
    relations,
    user_datasets,
    worst_case_pairs,
)
from dpaudit.userlevel import clamp


@given(st.data())
def test_neighboring_pairs_are_neighbours_under_their_relation(data):
    relation = data.draw(relations())
    d0, d1 = data.draw(neighboring_pairs(relation))
    assert relation.is_neighbor(d0, d1) and relation.is_neighbor(d1, d0)


@given(st.data())
def test_worst_case_pairs_are_neighbours_at_the_edges_of_the_domain(data):
    relation = data.draw(relations())
    d0, d1 = data.draw(worst_case_pairs(relation, low=-2.0, high=3.0))
    assert relation.is_neighbor(d0, d1)
    if not isinstance(relation, QueryDistance) and d1.shape == d0.shape:  # replaced rows sit at an edge
        changed = d1[np.any((d0 != d1).reshape(d0.shape[0], -1), axis=1)]
        assert np.all((changed == -2.0) | (changed == 3.0))


@given(user_datasets(min_users=2, max_users=6, max_items=4, item_shape=(2,), low=0.0, high=5.0))
def test_user_datasets_have_the_asked_shape_and_range(data):
    assert data.ndim == 3 and data.shape[2] == 2 and 2 <= data.shape[0] <= 6 and 1 <= data.shape[1] <= 4
    assert data.min() >= 0.0 and data.max() <= 5.0


@given(neighboring_pairs(UserReplace(), user_datasets(max_users=8, max_items=6, low=-3.0, high=3.0)),
       st.floats(-2.0, 0.0), st.floats(0.1, 2.0))
def test_clamped_user_mean_moves_at_most_the_width_over_n_under_user_replace(pair, low, width):
    """The sensitivity the user-level mean estimators rely on: replacing all of one user's items
    moves the mean of the clamped data by at most (high - low) / n_users (one user's share)."""
    d0, d1 = pair
    high = low + width
    moved = abs(clamp(d0, low, high).mean() - clamp(d1, low, high).mean())
    assert moved <= width / d0.shape[0] * (1 + 1e-12)


@given(neighboring_pairs(UserAddRemove(), user_datasets(max_users=8, max_items=4)))
def test_user_add_remove_changes_one_whole_user(pair):
    d0, d1 = pair
    assert abs(d0.shape[0] - d1.shape[0]) == 1 and d0.shape[1:] == d1.shape[1:]
    assert min(d0.shape[0], d1.shape[0]) >= 1  # neither dataset is empty


@given(neighboring_pairs(ItemReplace(), item_datasets(max_items=10)))
def test_item_replace_changes_at_most_one_item(pair):
    d0, d1 = pair
    assert d0.shape == d1.shape and np.count_nonzero(d0 != d1) <= 1


@pytest.mark.parametrize("name", list(PAIR_RELATIONS))
@given(data=st.data(), low=st.floats(-5.0, 5.0))
def test_named_pairs_are_neighbours_for_any_shape_and_domain(name, data, low):
    d0, d1 = data.draw(named_pairs(name, max_size=6, low=low, high=low + 1.5))
    relation = PAIR_RELATIONS[name]()
    assert relation.is_neighbor(d0, d1) and not np.array_equal(d0, d1)


def test_named_pairs_are_the_extreme_pairs():
    d0, d1, _ = worst_case_pair("user-add-remove", shape=(2, 3), low=0.0, high=1.0)
    assert d1.tolist() == [[0.0] * 3, [0.0] * 3, [1.0] * 3]  # an all-high user added
    d0, d1, _ = worst_case_pair("query-linf", shape=(3,))
    assert d0.tolist() == [0.0] * 3 and d1.tolist() == [1.0] * 3
    with pytest.raises(InvalidArgument, match="`worst_case_pair`: `name` must be one of item-replace"):
        worst_case_pair("user-swap")


def test_strategy_arguments_are_checked():
    with pytest.raises(InvalidArgument, match=re.escape("`user_datasets`: `high` must be finite and greater than low=1.0")):
        user_datasets(low=1.0, high=1.0)
    with pytest.raises(InvalidArgument, match=re.escape("`item_datasets`: `max_items` must be an integer >= 3")):
        item_datasets(min_items=3, max_items=2)
