"""Fail a test when a mechanism leaks: :func:`assert_private`, and dpaudit's pytest plugin.

The plugin (:mod:`dpaudit.pytest_plugin`) is registered by an entry point (``pytest11``), so
installing dpaudit is enough::

    def test_noisy_mean_is_private(assert_dp):          # the fixture
        assert_dp(noisy_mean, d0, d1, epsilon=1.0)

    def test_noisy_mean_is_private_too():              # or the function, anywhere
        from dpaudit.testing import assert_private
        assert_private(noisy_mean, d0, d1, epsilon=1.0)

By default each pair is audited adaptively (``trials="auto"``, :mod:`dpaudit.auditor.adaptive`): in
stages from 10^5 trials growing sqrt(10)-fold, stopping as soon as a leak is established or no leak
is within reach, at most :data:`DEFAULT_MAX_TRIALS` trials. There is no time limit by default, so
the verdict does not depend on the machine's speed. The fixture uses the command-line options
``--dpaudit-trials N|auto``, ``--dpaudit-max-trials N``, ``--dpaudit-max-time SECONDS`` and
``--dpaudit-seed S`` (a nightly run with a larger budget, say) and otherwise the defaults below.
``-p no:dpaudit`` turns the plugin off.

What a pass means: the audit found **no evidence** of a leak on the pairs given, with the trials it
ran. It is not a proof of privacy. What a failure means: with confidence ``confidence`` the
mechanism's epsilon exceeds the claim on one of the pairs; the message carries the evidence.

The mechanism contract. :class:`MechanismContract` is a base for pytest test classes (in the manner
of dp_accounting's ``PrivacyAccountantTest``) that checks what every dpaudit mechanism promises, on
:class:`ContractCase` records you supply::

    class TestMyMechanisms(MechanismContract):
        def contract_cases(self):
            return [ContractCase("noisy mean", NoisyMean(1.0), d0, neighbour=d1)]

Each case is checked for: data outside the declared domain refused with ``InvalidArgument`` before
any randomness is drawn; finite outputs (and no warning) on extreme data inside the domain; the
same seed giving identical outputs for every batch size; a well-formed claim that an audit on the
given pair does not refute; and returned arrays that are fresh (not views of a buffer the mechanism
reuses, nor of the input). The checks are also plain functions (``check_*``) for other runners.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpaudit.auditor import AuditResult, audit
from dpaudit.errors import CheckFailed, InvalidArgument

__all__ = [
    "DEFAULT_CONFIDENCE",
    "DEFAULT_MAX_TRIALS",
    "DEFAULT_SEED",
    "DEFAULT_TRIALS",
    "ContractCase",
    "MechanismContract",
    "assert_private",
    "check_claim",
    "check_extreme_inputs",
    "check_fresh_outputs",
    "check_refuses_out_of_domain",
    "check_same_seed_same_output",
    "near_limit_variants",
]

#: Trials per dataset: adaptive, in stages from 10^5 trials (enough to flag a mechanism leaking twice
#: its claimed epsilon = 1 on a scalar pair in the first stage) up to :data:`DEFAULT_MAX_TRIALS`.
DEFAULT_TRIALS: int | str = "auto"
#: The adaptive audit's budget: a correct vectorised scalar mechanism at its tight claim takes about a
#: second; a leak that needs more trials than this to show goes unseen (raise it for a nightly run).
DEFAULT_MAX_TRIALS = 1_000_000
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
    trials: int | str = DEFAULT_TRIALS,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
    max_trials: int | None = None,
    max_seconds: float | None = None,
    **audit_options: Any,
) -> list[AuditResult]:
    """Raise ``AssertionError`` with the evidence if an audit finds ``mechanism`` exceeds its claim.

    What a pass means: no evidence of a leak was found on these pairs with the trials run; it is
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
    trials : int or "auto"
        Trials per dataset and pair, or ``"auto"`` (the default): adaptive, up to ``max_trials``.
    seed : int
        Root seed (default :data:`DEFAULT_SEED`); several pairs get streams spawned from it.
    confidence : float
        In (0, 1); default :data:`DEFAULT_CONFIDENCE`.
    max_trials, max_seconds : optional
        The budget of ``trials="auto"`` per pair: trials per dataset (default
        :data:`DEFAULT_MAX_TRIALS`) and seconds (default none: a time limit makes the verdict
        depend on the machine's speed, which the failure message then says).
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
    if trials == "auto":
        audit_options["max_trials"] = DEFAULT_MAX_TRIALS if max_trials is None else max_trials
    elif max_trials is not None:
        audit_options["max_trials"] = max_trials  # refused by audit() with a fixed count, naming it
    if max_seconds is not None:
        audit_options["max_seconds"] = max_seconds
    results = []
    for index, ((a, b), child) in enumerate(zip(pairs, seeds, strict=True)):
        result = audit(mechanism, a, b, epsilon=epsilon, delta=delta, trials=trials, seed=child,
                       confidence=per_pair, **audit_options)
        if result.violation:
            where = "" if len(pairs) == 1 else f" on pair {index} of {len(pairs)}"
            ran = f"{result.trials} trials" + (f" in {len(result.stages)} stage(s)" if result.stages else "")
            raise CheckFailed(
                f"{result.mechanism} leaks{where}: epsilon >= {result.epsilon_lower_bound:.4f} exceeds the claimed "
                f"{result.claimed_epsilon:g} at delta = {result.delta:g} (confidence {per_pair:g}; "
                f"seed {seed}, {ran})\n{result.to_text()}"
            )
        results.append(result)
    return results


# ---- the mechanism contract -----------------------------------------------------------------------

#: The largest finite float, and values the near-limit probes use.
MAX_FLOAT = float(np.finfo(float).max)
_NEAR_LIMITS = (MAX_FLOAT, -MAX_FLOAT, 1.5e308, -1.5e308, 5e-324)


@dataclass(frozen=True)
class ContractCase:
    """A mechanism and the data its contract is checked on.

    Parameters
    ----------
    name : str
        Names the case in test ids and messages.
    mechanism : Mechanism
        An object with ``sample(data, size, *, rng)`` and ``claimed_guarantee()``.
    data : array_like
        A dataset inside the mechanism's declared domain.
    neighbour : array_like, optional
        A neighbour of ``data`` under the claim's relation; with it the claim is audited.
    extreme : sequence of array_like
        Datasets inside the declared domain at its limits (values near +-1.8e308 where the domain
        is every finite number): each must give finite outputs without a warning.
    out_of_domain : sequence of array_like
        Datasets outside the declared domain: each must be refused with ``InvalidArgument`` before
        any randomness is drawn. Copies of ``data`` with a NaN and with an infinite entry are always
        checked too (no declared domain holds them).
    epsilon, delta : float, optional
        The claim audited (default: the mechanism's own; ``delta`` 1e-5 for a GDP claim).
    unsound : bool
        A deliberately broken mechanism: its claim is not audited (that it is caught is the
        auditor's power tests' business), everything else is.
    trials : int
        Trials per dataset of the claim audit.
    finite : bool
        Whether every output entry must be finite (False: +-inf may code an answer; NaN never may).
    audit_options : dict
        Further :func:`dpaudit.audit` arguments for the claim audit.
    exempt : mapping of str to str
        Checks this case is exempt from (``"out_of_domain"``, ``"extreme"``, ``"same_seed"``,
        ``"claim"``, ``"fresh"``), each with the reason; :class:`MechanismContract` reports them as
        skipped with that reason. For deliberately unsound mechanisms whose flaw is what a check tests.
    """

    name: str
    mechanism: Any
    data: Any
    neighbour: Any = None
    extreme: Sequence[Any] = ()
    out_of_domain: Sequence[Any] = ()
    epsilon: float | None = None
    delta: float | None = None
    unsound: bool = False
    trials: int = 2_000
    finite: bool = True
    audit_options: dict[str, Any] = field(default_factory=dict)
    exempt: Mapping[str, str] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"ContractCase({self.name!r})"


def _as_floats(data: Any) -> Any:
    """``data`` as a float array copy, or None when it is not numeric or has no entries."""
    try:
        x = np.array(data, dtype=float)
    except (TypeError, ValueError):
        return None
    return x if x.size else None


def _non_finite_variants(data: Any) -> list[Any]:
    """``data`` with its first entry NaN, +inf and -inf (float data only; empty otherwise)."""
    x = _as_floats(data)
    if x is None:
        return []
    out = []
    for bad in (np.nan, np.inf, -np.inf):
        y = x.copy()
        y.flat[0] = bad
        out.append(y)
    return out


def near_limit_variants(data: Any) -> list[Any]:
    """Copies of ``data`` (float) with values near the float limits.

    Every entry one value of +-1.8e308, +-1.5e308 or 5e-324, and, along the first axis (users), one
    row at +1.8e308, the next at -1.8e308, the next alternating (sums overflow, differences are
    NaN).
    """
    x = _as_floats(data)
    if x is None:
        return []
    out = [np.full_like(x, value) for value in _NEAR_LIMITS]
    if x.ndim >= 1 and x.shape[0] >= 3:
        mixed = np.zeros_like(x)
        mixed[0], mixed[1] = MAX_FLOAT, -MAX_FLOAT
        mixed[2].flat[::2] = MAX_FLOAT
        mixed[2].flat[1::2] = -1e308
        out.append(mixed)
    return out


def _sample(mechanism: Any, data: Any, size: int, seed: int = 0) -> Any:
    """One call with warnings as errors (an overflow anywhere is a failure)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return mechanism.sample(data, size, rng=np.random.default_rng(seed))


def _describe(data: Any) -> str:
    try:
        x = np.asarray(data)
        return f"array of shape {x.shape}, dtype {x.dtype}, entries in [{np.nanmin(x):.3g}, {np.nanmax(x):.3g}]" \
            if x.dtype.kind in "biuf" and x.size else f"array of shape {x.shape}"
    except Exception:  # pragma: no cover - descriptive only
        return type(data).__name__


def _outputs_ok(case: ContractCase, out: Any, size: int, where: str) -> None:
    arr = np.asarray(out)
    assert arr.ndim >= 1 and arr.shape[0] == size, f"{case.name}: {size} outputs expected on axis 0 {where}, got shape {arr.shape}"
    assert arr.dtype.kind in "biuf", f"{case.name}: non-numeric outputs (dtype {arr.dtype}) {where}"
    if arr.dtype.kind == "f":
        bad = np.isnan(arr) if not case.finite else ~np.isfinite(arr)
        assert not bad.any(), f"{case.name}: {'NaN' if not case.finite else 'non-finite'} outputs {where}: {arr[bad][:4]}"


def _refused_up_front(mechanism: Any, data: Any) -> tuple[bool, str]:
    """``(True, "")`` when ``sample`` raises InvalidArgument with the rng untouched, else ``(False, what happened)``."""
    rng = np.random.default_rng(0)
    state = copy.deepcopy(rng.bit_generator.state)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            mechanism.sample(data, 2, rng=rng)
    except InvalidArgument:
        if rng.bit_generator.state != state:
            return False, "raised InvalidArgument only after drawing randomness"
        return True, ""
    except Exception as exc:
        return False, f"raised {type(exc).__name__}: {exc}"
    return False, "accepted it"


def check_refuses_out_of_domain(case: ContractCase) -> None:
    """Every dataset outside the domain is refused up front, without a warning.

    The declared ones, and ``data`` with a NaN or infinite entry: each is refused with
    :class:`InvalidArgument` before any randomness is drawn.
    """
    __tracebackhide__ = True
    for bad in [*case.out_of_domain, *_non_finite_variants(case.data)]:
        refused, what = _refused_up_front(case.mechanism, bad)
        assert refused, f"{case.name}: data outside the domain ({_describe(bad)}) must be refused with InvalidArgument " \
                        f"before any randomness is drawn; the mechanism {what}"


def check_extreme_inputs(case: ContractCase) -> None:
    """Declared extreme in-domain data gives finite outputs without warnings.

    Near-limit copies of ``data`` are either refused up front or give finite outputs (never a
    warning, a NaN, another error).
    """
    __tracebackhide__ = True
    for data in case.extreme:
        try:
            out = _sample(case.mechanism, data, 3)
        except Exception as exc:
            raise CheckFailed(f"{case.name}: extreme data inside the domain ({_describe(data)}) raised "
                                 f"{type(exc).__name__}: {exc}") from exc
        _outputs_ok(case, out, 3, f"on extreme data inside the domain ({_describe(data)})")
    for data in near_limit_variants(case.data):
        refused, what = _refused_up_front(case.mechanism, data)
        if refused:
            continue
        if what != "accepted it":
            raise CheckFailed(f"{case.name}: data near the float limits ({_describe(data)}) must be refused with "
                                 f"InvalidArgument before any randomness is drawn, or give finite outputs; the mechanism {what}")
        _outputs_ok(case, _sample(case.mechanism, data, 3), 3, f"on data near the float limits ({_describe(data)})")


def check_same_seed_same_output(case: ContractCase, sizes: Sequence[int] = (1, 2, 5)) -> None:
    """For every batch size, the same seed gives the same outputs (bytes).

    One output's shape and dtype do not depend on the batch size; ``mechanism(data, rng)`` gives one
    such output.
    """
    __tracebackhide__ = True
    rows = set()
    for size in sizes:
        first, again = np.asarray(_sample(case.mechanism, case.data, size, 7)), np.asarray(_sample(case.mechanism, case.data, size, 7))
        _outputs_ok(case, first, size, f"at batch size {size}")
        assert first.dtype == again.dtype and first.shape == again.shape and first.tobytes() == again.tobytes(), \
            f"{case.name}: the same seed gave different outputs at batch size {size}: not a function of its rng alone"
        rows.add((first.shape[1:], first.dtype))
    assert len(rows) == 1, f"{case.name}: one output's shape or dtype changes with the batch size: {sorted(map(str, rows))}"
    if callable(case.mechanism):
        one = np.asarray(case.mechanism(case.data, np.random.default_rng(7)))
        assert (one.shape, one.dtype) == next(iter(rows)), \
            f"{case.name}: mechanism(data, rng) gave shape {one.shape}, dtype {one.dtype}, not one row {next(iter(rows))}"


def check_claim(case: ContractCase, confidence: float = 0.999) -> AuditResult | None:
    """The claim is bound to a relation, and (unless ``unsound``) an audit finds no violation.

    The claim is a guarantee bound to a neighbour relation; ``neighbour`` is a neighbour of ``data``
    under it; and an audit of the pair at ``confidence`` finds no violation.
    """
    __tracebackhide__ = True
    from dpaudit.guarantees import GDP, ApproxDP, PureDP

    claim = case.mechanism.claimed_guarantee()
    assert isinstance(claim, PureDP | ApproxDP | GDP), f"{case.name}: claimed_guarantee() returned {claim!r}, not a guarantee"
    assert claim.relation is not None, f"{case.name}: the claim {claim} names no neighbour relation"
    if case.neighbour is None:
        return None
    assert claim.relation.is_neighbor(case.data, case.neighbour), \
        f"{case.name}: the case's pair is not a pair of neighbours under {claim.relation}"
    if case.unsound:
        return None
    delta = case.delta if case.delta is not None or not isinstance(claim, GDP) else 1e-5
    result = audit(case.mechanism, case.data, case.neighbour, epsilon=case.epsilon, delta=delta, trials=case.trials,
                   confidence=confidence, seed=DEFAULT_SEED, **case.audit_options)
    assert not result.violation, f"{case.name}: an audit refutes the claim (confidence {confidence:g}):\n{result.to_text()}"
    return result


def check_fresh_outputs(case: ContractCase) -> None:
    """A returned array is the caller's own: no memory shared with the next call's or the input.

    And a later call leaves it unchanged (a mechanism that hands out views of one reused buffer
    fails).
    """
    __tracebackhide__ = True
    rng = np.random.default_rng(3)
    first = case.mechanism.sample(case.data, 3, rng=rng)
    kept = np.array(first, copy=True)
    second = case.mechanism.sample(case.data, 3, rng=rng)
    assert isinstance(first, np.ndarray), f"{case.name}: sample() returned a {type(first).__name__}, not an ndarray"
    assert not np.shares_memory(first, second), f"{case.name}: two calls returned arrays sharing memory"
    assert first.tobytes() == kept.tobytes(), f"{case.name}: a later call changed the outputs of an earlier one"
    data = case.data if isinstance(case.data, np.ndarray) else None
    assert data is None or not np.shares_memory(first, data), f"{case.name}: the outputs are a view of the input data"


class MechanismContract:
    """Base of pytest test classes checking mechanisms against dpaudit's mechanism contract.

    Subclass it (with a name pytest collects, ``Test...``) and return your cases from
    :meth:`contract_cases`; each test below then runs once per case. The claim audits of one class
    share the false-failure probability ``claim_failure_probability`` (Bonferroni over its cases),
    so a correct mechanism fails them at most that often over the choice of seed (the seed is
    fixed, so the verdict is the same on every run).
    """

    #: False-failure probability of all the claim audits of one class together.
    claim_failure_probability: float = 1e-3

    def contract_cases(self) -> Sequence[ContractCase]:
        """The cases to check; override this."""
        raise NotImplementedError(f"{type(self).__name__} must define contract_cases()")

    @classmethod
    def _cases(cls) -> list[ContractCase]:
        if "_contract_cache" not in cls.__dict__:
            cls._contract_cache = list(cls().contract_cases())  # type: ignore[attr-defined]
        return cls._contract_cache  # type: ignore[attr-defined]

    def pytest_generate_tests(self, metafunc: Any) -> None:
        """Parametrise ``contract_case`` with the suite's cases (pytest's hook; ids are the cases' names)."""
        if "contract_case" in metafunc.fixturenames:
            cases = type(self)._cases()
            metafunc.parametrize("contract_case", cases, ids=[case.name for case in cases])

    @staticmethod
    def _unless_exempt(case: ContractCase, check: str) -> None:
        if check in case.exempt:
            import pytest

            pytest.skip(f"{case.name} is exempt from this check: {case.exempt[check]}")

    def test_refuses_out_of_domain_data_up_front(self, contract_case: ContractCase) -> None:
        """Each case's mechanism refuses data outside its declared domain before any draw."""
        self._unless_exempt(contract_case, "out_of_domain")
        check_refuses_out_of_domain(contract_case)

    def test_finite_output_on_extreme_in_domain_data(self, contract_case: ContractCase) -> None:
        """Each case's mechanism returns finite outputs on the extreme values its domain allows."""
        self._unless_exempt(contract_case, "extreme")
        check_extreme_inputs(contract_case)

    def test_same_seed_same_output_for_any_batch_size(self, contract_case: ContractCase) -> None:
        """The same seed gives the same outputs whatever the batch size."""
        self._unless_exempt(contract_case, "same_seed")
        check_same_seed_same_output(contract_case)

    def test_declared_claim_is_valid(self, contract_case: ContractCase) -> None:
        """Each case's claim is bound to a relation covering its neighbour, and (unless unsound) survives an audit.

        The audit is of the pair ``(data, neighbour)`` at the claim itself (:func:`check_claim`); the
        class's ``claim_failure_probability`` is split evenly over the audited cases (a Bonferroni
        correction), so the class fails a correct mechanism with at most that probability.
        """
        self._unless_exempt(contract_case, "claim")
        audited = sum(not case.unsound and case.neighbour is not None for case in type(self)._cases())
        check_claim(contract_case, confidence=1.0 - self.claim_failure_probability / max(1, audited))

    def test_returned_arrays_are_fresh(self, contract_case: ContractCase) -> None:
        """Each call returns a new array, never a view of the input or of another call's output."""
        self._unless_exempt(contract_case, "fresh")
        check_fresh_outputs(contract_case)
