"""Fail a test when a mechanism leaks: :func:`assert_private`, and dpaudit's pytest plugin.

The plugin is registered by an entry point (``pytest11``), so installing dpaudit is enough::

    def test_noisy_mean_is_private(assert_dp):          # the fixture
        assert_dp(noisy_mean, d0, d1, epsilon=1.0)

    def test_noisy_mean_is_private_too():              # or the function, anywhere
        from dpaudit.testing import assert_private
        assert_private(noisy_mean, d0, d1, epsilon=1.0)

The fixture uses the command-line options ``--dpaudit-trials N`` and ``--dpaudit-seed S`` (a nightly
run with more trials, say) and otherwise the defaults below. ``-p no:dpaudit`` turns the plugin off.

What a pass means: the audit found **no evidence** of a leak on the pairs given, with that many
trials. It is not a proof of privacy. What a failure means: with confidence ``confidence`` the
mechanism's epsilon exceeds the claim on one of the pairs; the message carries the evidence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dpaudit.auditor import AuditResult, audit

__all__ = ["DEFAULT_CONFIDENCE", "DEFAULT_SEED", "DEFAULT_TRIALS", "assert_private"]

#: Trials per dataset: enough to flag a mechanism leaking twice its claimed epsilon = 1 on a scalar
#: pair, and about a second of auditing for a vectorised scalar mechanism.
DEFAULT_TRIALS = 100_000
#: Fixed, so a test's verdict is the same on every run.
DEFAULT_SEED = 0
#: A correct mechanism fails at most 1 - 0.999 = 0.1% of the time (over the choice of seed).
DEFAULT_CONFIDENCE = 0.999


def assert_private(
    mechanism: Any,
    d0: Any = None,
    d1: Any = None,
    *,
    pairs: Sequence[tuple[Any, Any]] | None = None,
    epsilon: float | None = None,
    delta: float | None = None,
    trials: int = DEFAULT_TRIALS,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
    **audit_options: Any,
) -> list[AuditResult]:
    """Raise ``AssertionError`` with the evidence if an audit finds ``mechanism`` exceeds its claim.

    What a pass means: no evidence of a leak was found on these pairs with this many trials; it is
    **not** a proof of privacy. A correct mechanism fails with probability at most
    ``1 - confidence`` over the choice of seed: 0.1% at the default 0.999. With the default fixed
    seed the verdict is deterministic: the same on every run and machine.

    Parameters
    ----------
    mechanism : Mechanism or callable
        A dpaudit mechanism, a callable ``fn(data, rng, size=None)``, or an adapter from
        :mod:`dpaudit.adapters`.
    d0, d1 : array_like, optional
        One neighbouring pair. Give either ``d0`` and ``d1`` or ``pairs``.
    pairs : sequence of (d0, d1), optional
        Several pairs; each is audited at confidence ``1 - (1 - confidence) / len(pairs)``
        (Bonferroni), so the false-failure rate of the whole assertion stays ``1 - confidence``.
    epsilon, delta : float, optional
        The claim; default: the mechanism's ``claimed_guarantee()`` (``epsilon`` is required for a
        plain callable) and its delta, else 0.
    trials : int
        Trials per dataset and pair (default :data:`DEFAULT_TRIALS`).
    seed : int
        Root seed (default :data:`DEFAULT_SEED`); several pairs get streams spawned from it.
    confidence : float
        In (0, 1); default :data:`DEFAULT_CONFIDENCE`.
    **audit_options
        Passed to :func:`dpaudit.audit` (``executor``, ``candidates``, ...).

    Returns
    -------
    list of AuditResult
        One per pair, for further checks.

    Raises
    ------
    AssertionError
        On a violation, with the pair, the bound, the event, counts, intervals and seed.

    Examples
    --------
    >>> from dpaudit.mechanisms import LaplaceMechanism
    >>> [result] = assert_private(LaplaceMechanism(epsilon=1.0), 0.0, 1.0, trials=20_000)
    >>> result.violation
    False
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this function's
    from dpaudit._validation import argument_error, check_in_range

    if pairs is None:
        if d0 is None or d1 is None:
            raise argument_error("assert_private", "d0, d1", "both given (or pairs=[(d0, d1), ...])", (d0, d1))
        pairs = [(d0, d1)]
    elif d0 is not None or d1 is not None:
        raise argument_error("assert_private", "pairs", "given without d0 and d1", pairs)
    pairs = list(pairs)
    if not pairs:
        raise argument_error("assert_private", "pairs", "a non-empty sequence of (d0, d1)", pairs)
    confidence = check_in_range("assert_private", "confidence", confidence, 0.0, 1.0, low_closed=False, high_closed=False)
    per_pair = 1.0 - (1.0 - confidence) / len(pairs)
    seeds: list[Any] = [seed] if len(pairs) == 1 else list(np.random.SeedSequence(seed).spawn(len(pairs)))
    results = []
    for index, ((a, b), child) in enumerate(zip(pairs, seeds, strict=True)):
        result = audit(mechanism, a, b, epsilon=epsilon, delta=delta, trials=trials, seed=child,
                       confidence=per_pair, **audit_options)
        if result.violation:
            where = "" if len(pairs) == 1 else f" on pair {index} of {len(pairs)}"
            raise AssertionError(
                f"{result.mechanism} leaks{where}: epsilon >= {result.epsilon_lower_bound:.4f} exceeds the claimed "
                f"{result.claimed_epsilon:g} at delta = {result.delta:g} (confidence {per_pair:g}; "
                f"seed {seed}, {trials} trials)\n{result.to_text()}"
            )
        results.append(result)
    return results


# ---- the pytest plugin (loaded through the `pytest11` entry point) --------------------------------

try:
    import pytest
except ImportError:  # pragma: no cover - assert_private works without pytest
    pytest = None  # type: ignore[assignment]

if pytest is not None:

    def pytest_addoption(parser: pytest.Parser) -> None:
        group = parser.getgroup("dpaudit", "dpaudit privacy assertions")
        group.addoption("--dpaudit-trials", type=int, default=None, metavar="N",
                        help=f"trials per dataset for the assert_dp fixture (default {DEFAULT_TRIALS})")
        group.addoption("--dpaudit-seed", type=int, default=None, metavar="S",
                        help=f"root seed for the assert_dp fixture (default {DEFAULT_SEED})")

    @pytest.fixture
    def assert_dp(request: pytest.FixtureRequest) -> Callable[..., list[AuditResult]]:
        """:func:`dpaudit.testing.assert_private` with ``--dpaudit-trials`` / ``--dpaudit-seed`` applied."""
        trials = request.config.getoption("--dpaudit-trials")
        seed = request.config.getoption("--dpaudit-seed")

        def check(mechanism: Any, d0: Any = None, d1: Any = None, **kwargs: Any) -> list[AuditResult]:
            __tracebackhide__ = True
            if trials is not None:
                kwargs.setdefault("trials", trials)
            if seed is not None:
                kwargs.setdefault("seed", seed)
            return assert_private(mechanism, d0, d1, **kwargs)

        return check
