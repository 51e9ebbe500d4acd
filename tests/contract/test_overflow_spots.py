"""dpaudit's own arithmetic on finite data near +-1.5e308 raises no overflow RuntimeWarning.

Under ``-W error`` (and this suite's ``filterwarnings = error``) such a warning becomes an exception,
which an audit then blames on the mechanism, and which turns a refusal of out-of-domain data into
a crash. Each spot below overflowed before the fix.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.userlevel.baselines import ClippedUserMeanGaussian, clip_to_ball
from dpaudit.userlevel.losses import LogisticLoss
from dpaudit.userlevel.lowy2024.domain import PublicDomain, safe_norm

HUGE = 1.5e308


def test_clip_to_ball_of_huge_vectors_is_on_the_sphere_without_warnings():
    x = np.array([[HUGE, HUGE], [HUGE, -HUGE], [3.0, 4.0], [0.3, 0.4]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = clip_to_ball(x, 1.0)
    norms = np.linalg.norm(out, axis=-1)
    assert np.all(norms <= 1.0) and np.allclose(norms[:3], 1.0)
    assert np.array_equal(out[3], x[3])  # the identity inside the ball
    assert np.allclose(out[0], [2**-0.5, 2**-0.5])


def test_safe_norm_of_huge_vectors_is_inf_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert safe_norm(np.array([HUGE, HUGE])) == np.inf
        assert safe_norm(np.array([3e300, 4e300])) == pytest.approx(5e300)


def test_lowy2024_refuses_huge_items_with_invalid_argument_not_an_overflow():
    domain = PublicDomain(LogisticLoss(), 1.0, 1.0, 1.0)
    data = np.full((2, 2, 3), HUGE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidArgument, match=re.escape("inside the declared domain ||x||_2 <= feature_bound")):
            domain.validated("owner", data)


def test_lowy2024_user_mean_gradients_stay_in_the_unit_ball_without_warnings():
    """Items inside a domain declared at 2^960: margins and slopes stay finite, each mean in the unit ball."""
    bound = 2.0**959
    domain = PublicDomain(LogisticLoss(), 1.0, bound, 1.0)
    items = np.zeros((3, 2, 3))
    items[0, :, 0] = bound
    items[1, :, :2] = bound / np.sqrt(2)
    items[..., -1] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        q = domain.user_mean_gradients(np.array([1.0, 0.0]), items)
    assert np.all(np.isfinite(q)) and np.all(safe_norm(q) <= 1.0 + 1e-12)


def test_the_clipped_user_mean_of_huge_users_is_finite_without_warnings():
    data = np.zeros((4, 3, 2))
    data[0] = HUGE
    data[1] = -HUGE
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = ClippedUserMeanGaussian(1.0, 1e-5, 1.0).sample(data, 5, rng=np.random.default_rng(0))
    assert np.all(np.isfinite(out))
