"""Bad input gets a clear error naming the parameter, the allowed range and the value; each message is pinned."""

from __future__ import annotations

import re

import numpy as np
import pytest

from dpaudit import ApproxDP, InvalidArgument, NotNeighborsError, PureDP
from dpaudit.accounting import gaussian_sigma_analytic, gaussian_sigma_classical, laplace_scale
from dpaudit.data import as_user_dataset, group_items
from dpaudit.mechanisms import (
    AboveThreshold,
    DiscreteLaplaceMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponse,
    ReportNoisyMax,
    TruncatedDiscreteLaplaceMechanism,
)
from dpaudit.neighbors import ItemAddRemove, ItemReplace, QueryDistance, UserReplace


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: LaplaceMechanism(-1.0), "`LaplaceMechanism`: `epsilon` must be in (0, inf); got epsilon=-1.0."),
        (lambda: LaplaceMechanism(float("nan")), "`LaplaceMechanism`: `epsilon` must be a real number, not NaN; got epsilon=nan."),
        (lambda: LaplaceMechanism(1.0, sensitivity=0.0), "`LaplaceMechanism`: `sensitivity` must be in (0, inf); got sensitivity=0.0."),
        (lambda: GaussianMechanism(1.0, 1.0), "`GaussianMechanism`: `delta` must be in (0, 1); got delta=1.0."),
        (lambda: GaussianMechanism(1.0, 0.0), "`GaussianMechanism`: `delta` must be in (0, 1); got delta=0.0."),
        (lambda: GaussianMechanism(1.0, 1e-5, calibration="exact"),
         "`GaussianMechanism`: `calibration` must be one of 'analytic', 'classical'; got calibration='exact'."),
        (lambda: ApproxDP(1.0, 1.5), "`ApproxDP`: `delta` must be in [0, 1); got delta=1.5."),
        (lambda: PureDP(-0.5), "`PureDP`: `epsilon` must be in [0, inf]; got epsilon=-0.5."),
        (lambda: PureDP("1"), "`PureDP`: `epsilon` must be a real number; got epsilon='1'."),
        (lambda: laplace_scale(1.0, 0.0), "`laplace_scale`: `epsilon` must be in (0, inf); got epsilon=0.0."),
        (lambda: gaussian_sigma_analytic(1.0, 1.0, 1.0), "`gaussian_sigma_analytic`: `delta` must be in (0, 1); got delta=1.0."),
        (lambda: DiscreteLaplaceMechanism(1.0, sensitivity=1.5), "`DiscreteLaplaceMechanism`: `sensitivity` must be an integer; got sensitivity=1.5."),
        (lambda: RandomizedResponse(1.0, k=1), "`randomized_response_keep_probability`: `k` must be an integer >= 2; got k=1."),
        (lambda: TruncatedDiscreteLaplaceMechanism(1.0, 1.0), "`tdlap_kappa`: `delta` must be in (0, 1); got delta=1.0."),
        (lambda: AboveThreshold(1.0, 0.0, variant="dwork"), "`AboveThreshold`: `variant` must be one of 'lowy2024', 'ghazi2025'; got variant='dwork'."),
        (lambda: QueryDistance(1.0, "l3"), "`QueryDistance`: `norm` must be one of 'l1', 'l2', 'linf'; got norm='l3'."),
        (lambda: group_items(np.zeros(7), 2), "`group_items`: `m_items` must be a divisor of the number of items (7); got m_items=2."),
    ],
)
def test_constructor_and_helper_messages(call, message):
    with pytest.raises(InvalidArgument, match=re.escape(message)):
        call()


def test_classical_gaussian_rejects_large_epsilon_with_a_fix():
    message = (
        "`gaussian_sigma_classical`: `epsilon` must be in (0, 1) for the classical calibration [DR14, Thm A.1]; "
        "got epsilon=2.0. To fix: use calibration='analytic' (Balle & Wang 2018) for epsilon >= 1."
    )
    with pytest.raises(InvalidArgument, match=re.escape(message)):
        gaussian_sigma_classical(1.0, 2.0, 1e-5)


def test_nan_in_data_is_rejected(rng):
    message = "`LaplaceMechanism.sample`: `data` must be finite (it has 1 NaN or infinite entries); got data=array(shape=(2,), dtype=float64)."
    with pytest.raises(InvalidArgument, match=re.escape(message)):
        LaplaceMechanism(1.0).sample(np.array([0.0, np.nan]), 10, rng=rng)


def test_wrong_shape_is_rejected(rng):
    with pytest.raises(InvalidArgument, match=re.escape("`ReportNoisyMax.sample`: `data` must be an array with 1 dimension(s) (shape (2, 2))")):
        ReportNoisyMax(1.0).sample(np.zeros((2, 2)), 10, rng=rng)
    with pytest.raises(InvalidArgument, match=re.escape("`dpaudit`: `data` must be shaped (n_users, m_items) (got shape (3, 2, 4))")):
        as_user_dataset(np.zeros((3, 2, 4)), item_ndim=0)


def test_non_integer_data_for_discrete_noise(rng):
    message = "`DiscreteLaplaceMechanism.sample`: `data` must be integer-valued (discrete noise is private only on integer queries); got data=0.5."
    with pytest.raises(InvalidArgument, match=re.escape(message)):
        DiscreteLaplaceMechanism(1.0).sample(0.5, 10, rng=rng)


def test_size_must_be_positive_integer(rng):
    with pytest.raises(InvalidArgument, match=re.escape("`LaplaceMechanism.sample`: `size` must be an integer >= 1; got size=0.")):
        LaplaceMechanism(1.0).sample(0.0, 0, rng=rng)
    with pytest.raises(InvalidArgument, match=re.escape("`LaplaceMechanism.sample`: `size` must be an integer; got size=2.0.")):
        LaplaceMechanism(1.0).sample(0.0, 2.0, rng=rng)


@pytest.mark.parametrize(
    ("relation", "a", "b", "reason"),
    [
        (ItemReplace(), np.zeros(3), np.array([1.0, 1.0, 0.0]), "2 items differ, at most 1 may"),
        (ItemReplace(), np.zeros(3), np.zeros(4), "replace needs equal shapes, got (3,) and (4,)"),
        (UserReplace(), np.zeros((3, 2)), np.ones((3, 2)), "3 users differ, at most 1 may"),
        (ItemAddRemove(), np.zeros(3), np.zeros(5), "the numbers of items differ by 2, not by 1"),
        (QueryDistance(1.0, "l1"), np.zeros(2), np.array([0.75, 0.75]), "l1 distance 1.5 exceeds the sensitivity 1"),
    ],
)
def test_non_neighbours_get_a_clear_error(relation, a, b, reason):
    assert not relation.is_neighbor(a, b)
    message = f"`check`: the datasets are not neighbours under {relation}: {reason}."
    with pytest.raises(NotNeighborsError, match=re.escape(message)):
        relation.check_neighbors(a, b, owner="check")
