"""Test-suite configuration shared by tests/ and proofs/.

* Hypothesis runs with the ``deterministic`` profile by default (derandomised, no example
  database, no deadline); set ``DPAUDIT_HYPOTHESIS_PROFILE=explore`` for a randomised run.
* Every test is checked for leaks into numpy's global random state (house style, convention 1).
* The ``rng`` fixture gives each test its own Generator seeded from the test's node id.
"""

from __future__ import annotations

import hashlib
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "deterministic",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("explore", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("DPAUDIT_HYPOTHESIS_PROFILE", "deterministic"))


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> np.random.Generator:
    """A Generator seeded from the test's node id: reproducible and independent across tests."""
    digest = hashlib.sha256(request.node.nodeid.encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


@pytest.fixture(autouse=True)
def _no_global_numpy_rng_use():
    """Fail a test that draws from (or seeds) numpy's legacy global random state."""
    # reading the legacy state is the point of this guard
    _, keys, pos, has_gauss, gauss = np.random.get_state()  # noqa: NPY002
    keys = keys.copy()
    yield
    _, keys2, pos2, has_gauss2, gauss2 = np.random.get_state()  # noqa: NPY002
    same = np.array_equal(keys, keys2) and (pos, has_gauss, gauss) == (pos2, has_gauss2, gauss2)
    assert same, "test used numpy's global random state; pass an explicit np.random.Generator"
