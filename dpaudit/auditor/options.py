"""The option objects of :func:`dpaudit.audit`: how to attack, how to run, how many trials to spend.

:func:`~dpaudit.audit` keeps the keywords every audit names (``epsilon``, ``delta``, ``trials``,
``confidence``, ``seed``, ``check_neighbors``) and takes the rest grouped in frozen, validated
objects::

    audit(mech, d0, d1, epsilon=1.0, trials=AdaptiveTrials(max_trials=10**6, max_seconds=60),
          attack=AttackOptions(candidates=3, float_bits=True),
          execution=ExecutionOptions(block_size=4096, progress=True))

- :class:`AttackOptions` change what the auditor looks for (and so the bound);
- :class:`ExecutionOptions` change how the draws are made and kept, never the bound, except
  ``block_size``, which is part of the seed (the same seed and block size give the same draws
  whatever the executor or batch size);
- :class:`AdaptiveTrials` is ``trials="auto"`` with its budget (:mod:`dpaudit.auditor.adaptive`).

Each object checks its fields when it is built (an :class:`~dpaudit.errors.InvalidArgument` names the
field, its allowed range and the value), so a bad option fails before any draw; ``replace`` gives a
copy with some fields changed, checked again.

The same options are still accepted as plain keywords of :func:`~dpaudit.audit` (``candidates=3``,
``block_size=4096``, ``max_trials=10**6``); :func:`resolve_options` maps them into the objects and
refuses an option given both ways.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import os
from collections.abc import Mapping
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from dpaudit._validation import (
    argument_error,
    check_count,
    check_in_range,
    check_int,
    check_positive,
)

__all__ = [
    "DEFAULT_FIRST_TRIALS",
    "DEFAULT_MAX_TRIALS",
    "AdaptiveTrials",
    "AttackOptions",
    "ExecutionOptions",
    "resolve_options",
]

#: The first stage of ``trials="auto"`` (trials per dataset).
DEFAULT_FIRST_TRIALS = 100_000
#: The default budget of ``trials="auto"`` (trials per dataset).
DEFAULT_MAX_TRIALS = 10_000_000
#: The default confidence of an audit's lower bound.
DEFAULT_CONFIDENCE = 0.95
#: The fewest trials per dataset an audit (or a stage) may use.
MIN_TRIALS = 100
#: The largest trial count per dataset accepted (2**53, the integers a float holds exactly): far beyond any
#: feasible audit, and small enough for every index and array size on the way.
LARGEST_TRIALS = 2**53


def _check_bool(owner: str, name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise argument_error(owner, name, "True or False", value)
    return value


class _Options:
    """What the three option classes share: checking, ``replace`` and a short ``repr`` of the changed fields."""

    @staticmethod
    def _checked(owner: str, values: dict[str, Any]) -> dict[str, Any]:
        """``values`` checked and converted to their canonical types (errors name ``owner``)."""
        return values

    def __post_init__(self) -> None:
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}  # type: ignore[arg-type]
        for name, value in self._checked(type(self).__name__, values).items():
            object.__setattr__(self, name, value)

    @classmethod
    def _from_keywords(cls, owner: str, values: Mapping[str, Any]) -> Any:
        """The object of keywords given to ``owner`` (its errors name ``owner``)."""
        return cls(**cls._checked(owner, dict(values)))

    def replace(self, **changes: Any) -> Any:
        """A copy with ``changes`` applied (and checked again)."""
        names = {f.name for f in dataclasses.fields(self)}  # type: ignore[arg-type]
        unknown = sorted(set(changes) - names)
        if unknown:
            raise argument_error(type(self).__name__, unknown[0], f"one of {', '.join(sorted(names))}", changes[unknown[0]])
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]

    def changed(self) -> dict[str, Any]:
        """The fields that differ from their defaults (what ``repr`` shows)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)  # type: ignore[arg-type]
                if getattr(self, f.name) != f.default}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(" + ", ".join(f"{k}={v!r}" for k, v in self.changed().items()) + ")"


@dataclass(frozen=True, repr=False)
class AttackOptions(_Options):
    """How the auditor attacks the outputs: what it may choose and pay for (these change the bound).

    Parameters
    ----------
    selection_fraction : float, optional
        Fraction of the trials used to choose the attack, in (0, 1). Default: 0.1 for scalar
        outputs (real or discrete) and 0.3 otherwise (see :mod:`dpaudit.auditor.selection`).
    candidates : int
        Number of best events evaluated on the estimation split, at least 1; each is paid for
        (Bonferroni over the number actually evaluated, which can be smaller).
    float_bits : bool
        Also attack the IEEE-754 representation of floating-point outputs (exponents, low-order
        bits, the dyadic grid each value lies on; :mod:`dpaudit.auditor.bits`). A mechanism that
        is private over the reals but sampled naively in floating point leaks there [Mironov
        2012]. Off by default: the textbook samplers (numpy's ``laplace``, ``normal``) all leak
        this way, including dpaudit's own, so it asks a different question from the default.
    spot_check : int, optional
        A check of the precondition that the rows of one call are independent draws
        (:mod:`dpaudit.auditor.independence`): ``spot_check`` further trials per dataset are drawn
        one call each, and ``spot_check // 2`` calls of two rows; the chosen event's frequency among
        the single-call trials is compared with the estimation split's, and how often the two rows
        of one call are identical with how often two single-call trials are (Fisher's exact tests).
        A clear disagreement raises :class:`~dpaudit.errors.MechanismError` (rows not independent),
        and no bound is reported. ``None`` (the default) is automatic: 200 for a plain callable
        ``fn(data, rng, size=None)`` whose audit is about to report a violation, none otherwise (a
        dpaudit mechanism declares how it batches; a callable without ``size`` is called once per
        trial). ``0`` turns the check off; a positive count runs it on every audit. Draws of its own:
        the bound is the same with or without it.

    Examples
    --------
    >>> AttackOptions(candidates=3, float_bits=True)
    AttackOptions(candidates=3, float_bits=True)
    >>> AttackOptions(candidates=3).replace(candidates=1) == AttackOptions()
    True
    """

    selection_fraction: float | None = None
    candidates: int = 1
    float_bits: bool = False
    spot_check: int | None = None

    @staticmethod
    def _checked(owner: str, v: dict[str, Any]) -> dict[str, Any]:
        if v.get("selection_fraction") is not None:
            v["selection_fraction"] = check_in_range(owner, "selection_fraction", v["selection_fraction"], 0.0, 1.0,
                                                     low_closed=False, high_closed=False)
        if "candidates" in v:
            v["candidates"] = check_int(owner, "candidates", v["candidates"], minimum=1)
        if "float_bits" in v:
            v["float_bits"] = _check_bool(owner, "float_bits", v["float_bits"])
        if v.get("spot_check") is not None:
            v["spot_check"] = check_int(owner, "spot_check", v["spot_check"], minimum=0)
        return v


@dataclass(frozen=True, repr=False)
class ExecutionOptions(_Options):
    """How the draws are made and kept. None of these changes the result, except ``block_size``.

    Parameters
    ----------
    block_size : int, optional
        Trials per random-stream block, at least 1; part of the seed (changing it changes the
        draws). By default it is the mechanism's ``audit_block_size`` where it declares one (the
        user-level algorithms whose every trial runs an SGD loop declare 1024, so that long audits
        spread over workers and checkpoint block by block), else it is chosen from the size of one
        output (one probe call on a separate stream): about 2**23 output numbers per block, between
        2**12 and 2**20 trials, so a scalar mechanism is drawn in one call per million trials (with
        ``trials="auto"``, at most the power of two at or above the first stage's trials).
    batch_size : int, optional
        Trials per dispatched task (rounded up to whole blocks), at least 1. Does not change the
        results.
    executor : concurrent.futures.Executor, optional
        Draw blocks in parallel (for example a ``ProcessPoolExecutor`` or a Dask
        ``Client.get_executor()``; :func:`dpaudit.auditor.executors.make_executor` builds either);
        results are identical to the serial run. Work is spread by blocks, so an expensive
        mechanism needs a ``block_size`` giving many blocks. A worker that dies stops the audit
        with a :class:`~dpaudit.errors.MechanismError` naming the block (a Dask cluster reruns the
        block itself, with the identical draws).
    progress : bool
        Show a progress bar (needs the ``progress`` extra, tqdm).
    checkpoint : str or PathLike, optional
        An SQLite file recording every block of outputs as it finishes; rerunning the same audit
        with the same file loads the recorded blocks and draws only the rest, to the identical
        result. A file written by another audit (mechanism, seed, pair, claim, block size or
        trials), or a corrupt or truncated one, is refused. For a plain callable the fingerprint
        covers its code and parameters but not the functions it calls
        (:mod:`dpaudit.auditor.checkpoint` lists what it covers). On resume a few recorded blocks,
        chosen at random, are drawn again and compared byte for byte; the file is locked while the
        audit runs, so a second audit on the same path is refused.
    memory_limit : int, optional
        Bytes the audit may use, at least 1. It holds the selection rows and one block at a time
        (with an executor, the blocks in flight), never all outputs; its estimated need is checked
        after the probe call (the first call, of one trial) and again once the selection split's
        size is known, and an audit that cannot fit is refused with
        :class:`~dpaudit.errors.InvalidArgument`. Default: the memory available to this process
        (system, cgroup and address-space limits).

    Examples
    --------
    >>> ExecutionOptions(block_size=4096, progress=True)
    ExecutionOptions(block_size=4096, progress=True)
    """

    block_size: int | None = None
    batch_size: int | None = None
    executor: Executor | None = None
    progress: bool = False
    checkpoint: str | os.PathLike[str] | None = None
    memory_limit: int | None = None

    @staticmethod
    def _checked(owner: str, v: dict[str, Any]) -> dict[str, Any]:
        for name in ("block_size", "batch_size"):
            if v.get(name) is not None:
                v[name] = check_int(owner, name, v[name], minimum=1)
        executor = v.get("executor")
        if executor is not None and not callable(getattr(executor, "submit", None)):
            entered = " (this is the context manager itself: pass the executor it yields)" \
                if hasattr(executor, "__enter__") else ""
            raise argument_error(owner, "executor", "a concurrent.futures.Executor (with a submit() method), or None "
                                 "to run serially", executor,
                                 fix=f"make_executor returns a context manager{entered}: `with "
                                     "dpaudit.auditor.executors.make_executor(workers=2) as ex: "
                                     "audit(..., execution=ExecutionOptions(executor=ex))`.")
        if "progress" in v:
            v["progress"] = _check_bool(owner, "progress", v["progress"])
        path = v.get("checkpoint")
        if path is not None and (not isinstance(path, str | os.PathLike) or not os.fspath(path)):
            raise argument_error(owner, "checkpoint", "a path (str or os.PathLike) naming an SQLite file, or None", path)
        if v.get("memory_limit") is not None:
            v["memory_limit"] = check_count(owner, "memory_limit", v["memory_limit"], minimum=1)
        return v


@dataclass(frozen=True, repr=False)
class AdaptiveTrials(_Options):
    """``trials="auto"`` with its budget: stages of growing size that stop as soon as they can.

    Stage ``s`` ends at ``first_trials * sqrt(10)**(s - 1)`` trials per dataset (capped at
    ``max_trials``); the audit stops as soon as a violation is established, when no violation is
    within reach, or at the budget. :mod:`dpaudit.auditor.adaptive` gives the schedule, the spending
    of ``1 - confidence`` over the stages, and why the bound stays valid however the audit stops.
    ``trials="auto"`` is ``trials=AdaptiveTrials()``.

    Parameters
    ----------
    first_trials : int
        The first stage's trials per dataset, at least 100 (default 10**5). Integral floats
        (``1e5``) are accepted.
    max_trials : int
        The budget, trials per dataset, at least 100 (default 10**7).
    max_seconds : float, optional
        Seconds, positive (default none; ``inf`` is none). A stage that cannot finish in time is
        not run, or is discarded; the first stage always completes. Stopping on ``max_seconds``
        depends on the machine's speed: the result says so, and its ``reproduce`` gives the
        arguments (``max_stages``) that redo the same stages anywhere.
    max_stages : int, optional
        The most stages to run, at least 1 (default none).

    Examples
    --------
    >>> AdaptiveTrials(max_trials=1e6, max_seconds=60)
    AdaptiveTrials(max_trials=1000000, max_seconds=60.0)
    """

    first_trials: int = DEFAULT_FIRST_TRIALS
    max_trials: int = DEFAULT_MAX_TRIALS
    max_seconds: float | None = None
    max_stages: int | None = None

    @staticmethod
    def _checked(owner: str, v: dict[str, Any]) -> dict[str, Any]:
        for name in ("first_trials", "max_trials"):
            if name in v:
                v[name] = check_count(owner, name, v[name], minimum=MIN_TRIALS, maximum=LARGEST_TRIALS)
        if v.get("max_seconds") is not None:
            seconds = check_positive(owner, "max_seconds", v["max_seconds"], allow_inf=True)
            v["max_seconds"] = None if math.isinf(seconds) else seconds
        if v.get("max_stages") is not None:
            v["max_stages"] = check_int(owner, "max_stages", v["max_stages"], minimum=1)
        return v


#: The keywords :func:`~dpaudit.audit` still accepts one by one, by the object that holds them.
KEYWORDS: dict[type[_Options], tuple[str, ...]] = {
    AttackOptions: tuple(f.name for f in dataclasses.fields(AttackOptions)),
    ExecutionOptions: tuple(f.name for f in dataclasses.fields(ExecutionOptions)),
    AdaptiveTrials: tuple(f.name for f in dataclasses.fields(AdaptiveTrials)),
}
_PARAMETER = {AttackOptions: "attack", ExecutionOptions: "execution", AdaptiveTrials: "trials"}


def resolve_options(
    owner: str, trials: Any, attack: Any, execution: Any, keywords: Mapping[str, Any],
) -> tuple[int | AdaptiveTrials, AttackOptions, ExecutionOptions]:
    """The trials (a count, or the adaptive schedule), attack and execution options of one call.

    ``keywords`` are the options given one by one (``candidates=3``, ``max_trials=10**6``, ...);
    each goes into its object. An option given both ways (``candidates=3`` with ``attack=``, or
    ``max_trials=`` with ``trials=AdaptiveTrials(...)``), an unknown keyword, an object of the wrong
    type, and a budget with a fixed trial count are refused with
    :class:`~dpaudit.errors.InvalidArgument`. A keyword whose value is ``None`` counts as not given
    (``None`` is every optional field's default), except where ``None`` is not allowed.

    Examples
    --------
    >>> resolve_options("audit", "auto", None, None, {"candidates": 2, "max_trials": 10**6})
    (AdaptiveTrials(max_trials=1000000), AttackOptions(candidates=2), ExecutionOptions())
    """
    known = {name: cls for cls, names in KEYWORDS.items() for name in names}
    unknown = sorted(set(keywords) - set(known))
    if unknown:
        close = difflib.get_close_matches(unknown[0], [*known, "attack", "execution"], n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise argument_error(owner, unknown[0], "one of audit()'s keywords" + hint, keywords[unknown[0]],
                             fix="the options are attack=AttackOptions(...), execution=ExecutionOptions(...) and "
                                 "trials=AdaptiveTrials(...), or their fields as keywords.")
    given: dict[type[_Options], dict[str, Any]] = {cls: {} for cls in KEYWORDS}
    for name, value in keywords.items():
        if value is not None:
            given[known[name]][name] = value

    objects: dict[type[_Options], Any] = {}
    for cls, value in ((AttackOptions, attack), (ExecutionOptions, execution)):
        if value is None:
            objects[cls] = cls._from_keywords(owner, given[cls])
            continue
        if not isinstance(value, cls):
            raise argument_error(owner, _PARAMETER[cls], f"an {cls.__name__} (or None)", value)
        _refuse_both(owner, cls, given[cls])
        objects[cls] = value

    budget = given[AdaptiveTrials]
    if isinstance(trials, AdaptiveTrials):
        _refuse_both(owner, AdaptiveTrials, budget)
        return trials, objects[AttackOptions], objects[ExecutionOptions]
    if isinstance(trials, str) and trials == "auto":
        return AdaptiveTrials._from_keywords(owner, budget), objects[AttackOptions], objects[ExecutionOptions]
    if budget:
        name = next(iter(budget))
        raise argument_error(owner, name, "left out with a fixed trial count (it sets an adaptive audit's budget)",
                             budget[name], fix="pass trials='auto' (or trials=AdaptiveTrials(...)) to audit in stages.")
    if isinstance(trials, str):
        raise argument_error(owner, "trials", f"an integer >= {MIN_TRIALS} or 'auto' (or an AdaptiveTrials)", trials)
    return check_count(owner, "trials", trials, minimum=MIN_TRIALS, maximum=LARGEST_TRIALS), objects[AttackOptions], objects[ExecutionOptions]


def _refuse_both(owner: str, cls: type[_Options], given: Mapping[str, Any]) -> None:
    if given:
        name = next(iter(given))
        parameter = _PARAMETER[cls]
        raise argument_error(owner, name, f"given once: as a keyword or in {parameter}={cls.__name__}(...), not both",
                             given[name], fix=f"move it into {parameter}: {parameter}.replace({name}=...).")
