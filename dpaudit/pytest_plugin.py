"""dpaudit's pytest plugin: the ``assert_dp`` fixture and its command-line options.

pytest loads this module (through the ``pytest11`` entry point) into every session of an
environment where dpaudit is installed, so it imports nothing but pytest: the auditor (numpy,
scipy) is imported by the fixture, the first time a test asks for it. ``-p no:dpaudit`` turns the
plugin off. The fixture and :func:`dpaudit.testing.assert_private` are documented in
:mod:`dpaudit.testing`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import pytest

__all__ = ["assert_dp", "pytest_addoption"]

#: Shown in ``pytest --help``; equal to :data:`dpaudit.testing.DEFAULT_TRIALS`,
#: :data:`dpaudit.testing.DEFAULT_MAX_TRIALS` and :data:`dpaudit.testing.DEFAULT_SEED` (a test checks
#: it), written out so that ``--help`` does not import the auditor.
_DEFAULTS_SHOWN: dict[str, int | str] = {"trials": "auto", "max_trials": 1_000_000, "seed": 0}


def _trials_option(text: str) -> int | str:
    """``--dpaudit-trials``: an integer, or ``auto`` (as ``dpaudit.cli.trials_option``, without its imports)."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 100 or auto; got {text!r}") from None


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--dpaudit-trials``, ``--dpaudit-max-trials``, ``--dpaudit-max-time`` and ``--dpaudit-seed``."""
    group = parser.getgroup("dpaudit", "dpaudit privacy assertions")
    group.addoption("--dpaudit-trials", type=_trials_option, default=None, metavar="N|auto",
                    help=f"trials per dataset for the assert_dp fixture, or auto (default {_DEFAULTS_SHOWN['trials']})")
    group.addoption("--dpaudit-max-trials", type=int, default=None, metavar="N",
                    help=f"the assert_dp fixture's budget with auto trials (default {_DEFAULTS_SHOWN['max_trials']})")
    group.addoption("--dpaudit-max-time", type=float, default=None, metavar="SECONDS",
                    help="the assert_dp fixture's time limit per pair with auto trials (default none: the "
                    "verdict then does not depend on the machine's speed)")
    group.addoption("--dpaudit-seed", type=int, default=None, metavar="S",
                    help=f"root seed for the assert_dp fixture (default {_DEFAULTS_SHOWN['seed']})")


@pytest.fixture
def assert_dp(request: pytest.FixtureRequest) -> Callable[..., Any]:
    """:func:`dpaudit.testing.assert_private` with ``--dpaudit-trials`` / ``--dpaudit-seed`` applied."""
    from dpaudit.testing import (  # the auditor loads here, on first use
        DEFAULT_TRIALS,
        assert_private,
    )

    options = {name: request.config.getoption(f"--dpaudit-{flag}") for name, flag in
               (("trials", "trials"), ("seed", "seed"), ("max_trials", "max-trials"), ("max_seconds", "max-time"))}

    def check(mechanism: Any, d0: Any = None, d1: Any = None, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        for name in ("trials", "seed"):
            if options[name] is not None:
                kwargs.setdefault(name, options[name])
        if kwargs.get("trials", DEFAULT_TRIALS) == "auto":  # the budget applies to adaptive audits only
            for name in ("max_trials", "max_seconds"):
                if options[name] is not None:
                    kwargs.setdefault(name, options[name])
        return assert_private(mechanism, d0, d1, **kwargs)

    return check
