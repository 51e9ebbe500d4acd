"""dpaudit's pytest plugin: the ``assert_dp`` fixture and its command-line options.

pytest loads this module (through the ``pytest11`` entry point) into every session of an
environment where dpaudit is installed, so it imports nothing but pytest: the auditor (numpy,
scipy) is imported by the fixture, the first time a test asks for it. ``-p no:dpaudit`` turns the
plugin off. The fixture and :func:`dpaudit.testing.assert_private` are documented in
:mod:`dpaudit.testing`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

__all__ = ["assert_dp", "pytest_addoption"]

#: Shown in ``pytest --help``; equal to :data:`dpaudit.testing.DEFAULT_TRIALS` and
#: :data:`dpaudit.testing.DEFAULT_SEED` (a test checks it), written out so that ``--help`` does not
#: import the auditor.
_DEFAULTS_SHOWN = {"trials": 100_000, "seed": 0}


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--dpaudit-trials`` and ``--dpaudit-seed``."""
    group = parser.getgroup("dpaudit", "dpaudit privacy assertions")
    group.addoption("--dpaudit-trials", type=int, default=None, metavar="N",
                    help=f"trials per dataset for the assert_dp fixture (default {_DEFAULTS_SHOWN['trials']})")
    group.addoption("--dpaudit-seed", type=int, default=None, metavar="S",
                    help=f"root seed for the assert_dp fixture (default {_DEFAULTS_SHOWN['seed']})")


@pytest.fixture
def assert_dp(request: pytest.FixtureRequest) -> Callable[..., Any]:
    """:func:`dpaudit.testing.assert_private` with ``--dpaudit-trials`` / ``--dpaudit-seed`` applied."""
    from dpaudit.testing import assert_private  # the auditor loads here, on first use

    trials = request.config.getoption("--dpaudit-trials")
    seed = request.config.getoption("--dpaudit-seed")

    def check(mechanism: Any, d0: Any = None, d1: Any = None, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        if trials is not None:
            kwargs.setdefault("trials", trials)
        if seed is not None:
            kwargs.setdefault("seed", seed)
        return assert_private(mechanism, d0, d1, **kwargs)

    return check
