"""What ``dpaudit audit`` and ``dpaudit report`` audit: the target, the pair and the claim.

A TARGET is a catalogue entry's name, or ``module:attribute`` naming a dpaudit mechanism, a
callable ``fn(data, rng, size=None)``, a diffprivlib mechanism, an OpenDP measurement, or a factory
(a callable with no required arguments) returning one of those. Loading a ``module:attribute``
target runs that module's code, as ``import`` does: point it only at code you trust. A module in
the current directory is loaded from its file without putting the directory ahead of installed
packages (a local ``matplotlib.py`` is never imported in matplotlib's place). The pair comes from two files
(``.npy``, ``.csv``, ``.json``), from a named worst-case pair (:mod:`dpaudit.neighbors.pairs`), or
from the catalogue entry. Every mistake raises :class:`CommandLineError` with a one-line message.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import importlib.machinery
import importlib.util
import inspect
import json
import os
import re
import sys
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from dpaudit._exact_literals import (
    csv_literals,
    describe,
    first_overflow,
    first_rounded_difference,
    json_literals,
)
from dpaudit.auditor.cases import AuditCase
from dpaudit.errors import DPAuditError

__all__ = ["CommandLineError", "load_dataset", "load_pair", "parse_shape", "prepare_case"]

_MODULE_TARGET = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


class CommandLineError(DPAuditError):
    """Bad command-line input; the message is one line naming what is wrong."""


def load_dataset(path: str, option: str) -> np.ndarray:
    """Read a dataset from a ``.npy``, ``.csv`` (comma-separated numbers) or ``.json`` file."""
    file = Path(path)
    suffix = file.suffix.lower()
    if suffix not in (".npy", ".csv", ".json"):
        raise CommandLineError(f"{option} {path!r}: unsupported file type {suffix or '(none)'!r}; use .npy, .csv or .json")
    if not file.is_file():
        raise CommandLineError(f"{option} {path!r}: no such file")
    try:
        if suffix == ".npy":
            data = np.load(file, allow_pickle=False)
        elif suffix == ".csv":
            with warnings.catch_warnings():  # an empty file: numpy warns, then the check below refuses it
                warnings.filterwarnings("ignore", message=r".*(input contained no data|[Ee]mpty input file)", category=UserWarning)
                data = np.loadtxt(file, delimiter=",", dtype=float)
            _refuse_rounded_integers(file, data, option, path)
        else:
            data = np.asarray(json.loads(file.read_text()))
    except (OSError, ValueError) as exc:
        raise CommandLineError(f"{option} {path!r}: cannot read it as {suffix[1:]} numbers ({_one_line(exc)})") from exc
    if data.dtype.kind not in "biuf":
        raise CommandLineError(f"{option} {path!r}: must hold numbers only (a rectangular array), got dtype {data.dtype}")
    return data


def load_pair(path0: str, path1: str) -> tuple[np.ndarray, np.ndarray]:
    """Read ``--d0`` and ``--d1``, refusing a pair that float64 rounding would change.

    A ``.csv``/``.json`` number is read as float64; where the two datasets (of one shape) differ,
    the difference of the values read must equal the exact difference of the numbers written to a
    relative ``2**-26`` (:mod:`dpaudit._exact_literals` says why), else the audit would be of
    another pair: ``9007199254740993.0`` and ``9007199254740994.0`` differ by 1 but are read 2
    apart. A finite number read as infinite (``1e400``) is refused too.
    """
    d0, d1 = load_dataset(path0, "--d0"), load_dataset(path1, "--d1")
    literals: dict[str, np.ndarray | None] = {}
    for data, path, option in ((d0, path0, "--d0"), (d1, path1, "--d1")):
        if data.dtype.kind == "f" and not np.all(np.isfinite(data)):
            literals[option] = _literals(path, data)
            overflow = first_overflow(data, literals[option])
            if overflow is not None:
                raise CommandLineError(f"{option} {path!r}{_position(overflow[0])}: {overflow[1]} is beyond float64's "
                                       "range (it would be audited as infinite)")
    if d0.shape != d1.shape:
        return d0, d1
    literals0 = literals["--d0"] if "--d0" in literals else _literals(path0, d0)
    literals1 = literals["--d1"] if "--d1" in literals else _literals(path1, d1)
    found = first_rounded_difference(d0, literals0, d1, literals1)
    if found is not None:
        raise CommandLineError(
            f"--d0 {path0!r} and --d1 {path1!r}{_position(found.index)}: {found.literal0} and {found.literal1} differ "
            f"by exactly {describe(abs(found.exact))}, but as float64 they differ by {describe(abs(found.audited))}, more "
            "than 2**-26 of the difference (the pair audited would not be the pair in the files); give the values as "
            "float64 in .npy files, or as decimals that float64 holds closely enough"
        )
    return d0, d1


def _literals(path: str, data: np.ndarray) -> np.ndarray | None:
    """The texts of a read dataset's numbers in its shape (None for ``.npy``: binary values are what they are)."""
    file = Path(path)
    suffix = file.suffix.lower()
    if suffix == ".csv":
        return csv_literals(file, data.shape)
    if suffix == ".json":
        return json_literals(file.read_text(), data.shape)
    return None


def _position(index: tuple[int, ...]) -> str:
    """' row 3, column 2' (counting from 1) for an index into a dataset; '' for a single number."""
    if not index:
        return ""
    if len(index) == 1:
        return f" row {index[0] + 1}"
    if len(index) == 2:
        return f" row {index[0] + 1}, column {index[1] + 1}"
    return f" index {index} (counting from 0)"


def _refuse_rounded_integers(file: Path, data: np.ndarray, option: str, path: str) -> None:
    """Refuse a CSV integer that float64 rounds (beyond ``2**53``): the pair audited would not be the pair given."""
    if data.size == 0 or not np.any(np.abs(data) >= 2.0**53):
        return
    tokens = np.atleast_1d(np.char.strip(np.loadtxt(file, delimiter=",", dtype=str))).ravel()
    values = np.atleast_1d(data).ravel()
    integral = np.char.isdigit(np.char.lstrip(tokens, "+-"))
    rounded = [str(t) for t, v in zip(tokens[integral], values[integral], strict=True) if int(t) != int(v)]
    if rounded:
        raise CommandLineError(f"{option} {path!r}: the integer {rounded[0]} is beyond 2**53, where a CSV's float64 "
                               "numbers cannot hold it (it would be audited as a different number); give the data as "
                               ".npy (int64) or .json")


def parse_shape(text: str) -> tuple[int, ...]:
    """``"100x10"`` -> ``(100, 10)``; ``"scalar"`` -> ``()``."""
    if text.strip().lower() in ("", "scalar", "()"):
        return ()
    parts = text.lower().split("x")
    if not all(p.strip().isdigit() and int(p) >= 1 for p in parts):
        raise CommandLineError(f"--shape must be sizes >= 1 joined by 'x' (e.g. 100x10) or 'scalar'; got {text!r}")
    return tuple(int(p) for p in parts)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _catalogue_entry(spec: str) -> Any:
    from dpaudit.catalogue import builtin_catalogue

    entries = builtin_catalogue()
    key = spec.casefold()
    exact = [e for e in entries if e.name.casefold() == key]
    matches = exact or [e for e in entries if key in e.name.casefold()]
    if len(matches) != 1:
        raise CommandLineError(_no_single_entry(spec, [e.name for e in entries], [e.name for e in matches]))
    return matches[0]


def _no_single_entry(spec: str, names: list[str], matches: list[str], *, shown: int = 5) -> str:
    """The message for a TARGET naming no catalogue entry, or several: the closest names, not all of them."""
    if matches:
        listed = "; ".join(matches[:shown]) + (f"; ... ({len(matches) - shown} more)" if len(matches) > shown else "")
        return (f"TARGET {spec!r} matches {len(matches)} catalogue entries and is not module:callable; "
                f"be more specific: {listed}")
    by_folded = {name.casefold(): name for name in names}
    close = difflib.get_close_matches(spec.casefold(), list(by_folded), n=shown, cutoff=0.5)
    # words of several-word names (a typo of 'laplace' is close to 'Laplace' but far from 'discrete Laplace')
    words = {word: name for name in names for word in name.casefold().replace("(", " ").split()}
    for word in difflib.get_close_matches(spec.casefold(), list(words), n=shown, cutoff=0.75):
        if words[word].casefold() not in close:
            close.append(words[word].casefold())
    hint = ("did you mean: " + "; ".join(by_folded[c] for c in close[:shown]) + "?") if close else \
        "`dpaudit demo` lists the catalogue's names"
    return f"TARGET {spec!r} matches no catalogue entry and is not module:callable; {hint}"


def _local_module(top: str, folder: Path) -> Path | None:
    """``folder/top.py`` or ``folder/top/__init__.py``, if either exists."""
    for candidate in (folder / f"{top}.py", folder / top / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _installed(top: str, folder: Path) -> str | None:
    """Where Python finds a module named ``top`` other than in ``folder``, or None."""
    if top in sys.builtin_module_names or top in sys.stdlib_module_names:
        return "the standard library"
    here = os.path.realpath(folder)
    loaded = sys.modules.get(top)
    if loaded is not None and not getattr(loaded, "__dpaudit_local__", False):  # not a target loaded before
        where = getattr(loaded, "__file__", None)
        if where is None or not os.path.realpath(where).startswith(here + os.sep):
            return str(where or "already imported")
    elsewhere = [p for p in sys.path if os.path.realpath(p or ".") != here]
    found = importlib.machinery.PathFinder.find_spec(top, elsewhere)
    return None if found is None else str(found.origin or (found.submodule_search_locations or [""])[0])


def _load_local(top: str, file: Path) -> None:
    """Import ``file`` as module ``top`` (a package if it is an ``__init__.py``), unless it already is."""
    loaded = sys.modules.get(top)
    if loaded is not None and os.path.realpath(getattr(loaded, "__file__", "") or "") == os.path.realpath(file):
        return
    package = [str(file.parent)] if file.name == "__init__.py" else None
    spec = importlib.util.spec_from_file_location(top, file, submodule_search_locations=package)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    module.__dpaudit_local__ = True  # type: ignore[attr-defined]
    sys.modules[top] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[top]
        raise


def _import_attribute(spec: str) -> Any:
    """Import ``module:attribute``, never letting a local file hide an installed package.

    A module in the current directory is loaded from its file, and the directory goes at the *end*
    of ``sys.path`` (for its own imports, and for worker processes); a local file named like an
    installed module is refused.
    """
    module_name, attribute = spec.split(":", 1)
    top, folder = module_name.split(".")[0], Path.cwd()
    local = _local_module(top, folder)
    try:
        if local is not None:
            clash = _installed(top, folder)
            if clash is not None:
                raise CommandLineError(
                    f"TARGET {spec!r}: {local.relative_to(folder)} in the current directory has the name of the installed "
                    f"module {top!r} ({clash}); rename it (loading it would hide the installed one)"
                )
            if str(folder) not in sys.path:
                sys.path.append(str(folder))
            _load_local(top, local)
        obj: Any = importlib.import_module(module_name)
    except CommandLineError:
        raise
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            raise CommandLineError(
                f"TARGET {spec!r}: no module named {exc.name!r} (looked in the current directory and on sys.path)"
            ) from exc
        raise CommandLineError(f"TARGET {spec!r}: importing {module_name!r} failed: {_one_line(exc)}") from exc
    except (Exception, SystemExit) as exc:  # user code: it may even try to end the process
        raise CommandLineError(f"TARGET {spec!r}: importing {module_name!r} raised {type(exc).__name__}: {_one_line(exc)}") from exc
    for part in attribute.split("."):
        if not hasattr(obj, part):
            raise CommandLineError(f"TARGET {spec!r}: {getattr(obj, '__name__', module_name)!r} has no attribute {part!r}")
        obj = getattr(obj, part)
    return obj


def target_source_files(spec: str, mechanism: Any = None) -> list[Path]:
    """The files a ``module:callable`` target is loaded from (empty for catalogue entries).

    The module's file (found without running it, in the current directory, or the loaded module's
    ``__file__``), and the file defining ``mechanism`` (or its class) when known.
    """
    if not _MODULE_TARGET.match(spec):
        return []
    module_name = spec.split(":", 1)[0]
    files: list[Path] = []
    local = _local_module(module_name.split(".")[0], Path.cwd())
    if local is not None:
        files.append(local)
    loaded = sys.modules.get(module_name)
    for obj in (loaded, mechanism, type(mechanism) if mechanism is not None else None):
        if obj is None:
            continue
        try:
            where = getattr(obj, "__file__", None) if inspect.ismodule(obj) else inspect.getsourcefile(obj)
        except (TypeError, OSError):  # builtins, classes defined in C
            where = None
        if where:
            files.append(Path(where))
    return files


def _is_factory(obj: Any) -> bool:
    """A plain function callable with no arguments (a mechanism callable needs data and rng)."""
    if not (inspect.isfunction(obj) or inspect.ismethod(obj)):
        return False
    required = [
        p for p in inspect.signature(obj).parameters.values()
        if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    return not required


def _a(noun: str) -> str:
    """``noun`` with its indefinite article: 'an int', 'a list'."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def _as_mechanism(spec: str, obj: Any, d0: Any, d1: Any, delta: float | None, *, allow_factory: bool = True,
                  query_sensitivity: float | None = None) -> Any:
    from dpaudit.adapters import adapt

    try:
        adapted = adapt(obj, d0, d1, delta=delta, query_sensitivity=query_sensitivity)
    except DPAuditError as exc:
        raise CommandLineError(f"TARGET {spec!r}: {_one_line(exc)}") from exc
    if adapted is not None:
        return adapted
    if query_sensitivity is not None and not (callable(obj) and allow_factory and _is_factory(obj)):
        raise CommandLineError(f"--query-sensitivity applies to a diffprivlib mechanism or an OpenDP measurement; "
                               f"TARGET {spec!r} is neither")
    if hasattr(obj, "sample") and hasattr(obj, "claimed_guarantee") and not isinstance(obj, type):
        return obj
    if isinstance(obj, type):
        raise CommandLineError(f"TARGET {spec!r} is a class; point at an instance, or at a factory function returning one")
    if callable(obj) and allow_factory and _is_factory(obj):
        try:
            made = obj()
        except (Exception, SystemExit) as exc:
            raise CommandLineError(f"TARGET {spec!r}: the factory raised {type(exc).__name__}: {_one_line(exc)}") from exc
        return _as_mechanism(spec, made, d0, d1, delta, allow_factory=False, query_sensitivity=query_sensitivity)
    if callable(obj):
        return obj
    raise CommandLineError(
        f"TARGET {spec!r} is {_a(type(obj).__name__)} object, not a mechanism, a callable fn(data, rng, size=None) or a "
        "factory"
    )


def _pair_from_args(args: argparse.Namespace) -> tuple[Any, Any, str, Any] | None:
    """``(d0, d1, where they came from, their neighbour relation or None)`` from ``--d0/--d1`` or ``--pair``."""
    given_files = args.d0 is not None or args.d1 is not None
    pair_options = [o for o, v in (("--shape", args.shape), ("--low", args.low), ("--high", args.high)) if v is not None]
    if args.pair is not None and given_files:
        raise CommandLineError("give either --d0 FILE --d1 FILE or --pair NAME, not both")
    if pair_options and args.pair is None:
        raise CommandLineError(f"{', '.join(pair_options)} only apply with --pair NAME")
    if given_files:
        if args.d0 is None or args.d1 is None:
            raise CommandLineError(f"give both --d0 FILE and --d1 FILE (only {'--d0' if args.d0 else '--d1'} was given)")
        d0, d1 = load_pair(args.d0, args.d1)
        return d0, d1, f"files {args.d0} and {args.d1}", None
    if args.pair is None:
        return None
    from dpaudit.neighbors.pairs import PAIR_RELATIONS, worst_case_pair

    if args.pair not in PAIR_RELATIONS:
        raise CommandLineError(f"--pair must be one of {', '.join(PAIR_RELATIONS)}; got {args.pair!r}")
    if args.pair.startswith("query-") and (args.low is not None or args.high is not None):
        raise CommandLineError(f"--low and --high do not apply to --pair {args.pair}: query answers have no data domain "
                               "(the pair is 0 and its shift by the full sensitivity)")
    shape = None if args.shape is None else parse_shape(args.shape)
    low = -1.0 if args.low is None else args.low
    high = 1.0 if args.high is None else args.high
    try:
        d0, d1, relation = worst_case_pair(args.pair, shape=shape, low=low, high=high)
    except DPAuditError as exc:
        raise CommandLineError(f"--pair {args.pair}: {_one_line(exc)}") from exc
    return d0, d1, f"worst-case {relation} pair {args.pair}, d0 shape {d0.shape}, d1 shape {d1.shape}", relation


def _check_numbers(args: argparse.Namespace) -> None:
    """Claim and run options, checked with the project's messages (owner: the sub-command)."""
    from dpaudit._validation import (
        check_in_range,
        check_int,
        check_nonnegative,
        check_positive,
        check_probability,
    )
    from dpaudit.auditor.runner import MIN_TRIALS

    owner = f"dpaudit {args.command}"
    try:
        if args.epsilon is not None:
            check_nonnegative(owner, "--epsilon", args.epsilon)
        if args.delta is not None:
            check_probability(owner, "--delta", args.delta)
        if args.trials is not None and args.trials != "auto":
            check_int(owner, "--trials", args.trials, minimum=MIN_TRIALS)
        if getattr(args, "query_sensitivity", None) is not None:
            check_positive(owner, "--query-sensitivity", args.query_sensitivity)
        for option, minimum in (("max_trials", MIN_TRIALS), ("max_stages", 1), ("first_trials", MIN_TRIALS)):
            if getattr(args, option, None) is not None:
                check_int(owner, "--" + option.replace("_", "-"), getattr(args, option), minimum=minimum)
        if getattr(args, "max_time", None) is not None:
            check_positive(owner, "--max-time", args.max_time, allow_inf=True)
        if args.trials not in (None, "auto") and any(getattr(args, o, None) is not None for o in _BUDGET):
            given = next(o for o in _BUDGET if getattr(args, o, None) is not None)
            raise CommandLineError(f"--{given.replace('_', '-')} sets the budget of --trials auto; it cannot be "
                                   f"given with --trials {args.trials}")
        check_in_range(owner, "--confidence", args.confidence, 0.0, 1.0, low_closed=False, high_closed=False)
        check_int(owner, "--seed", args.seed, minimum=0)
        check_int(owner, "--workers", args.workers, minimum=1)
        if args.block_size is not None:
            check_int(owner, "--block-size", args.block_size, minimum=1)
    except DPAuditError as exc:  # drop the "`dpaudit audit`: " prefix, printed once by the caller
        raise CommandLineError(str(exc).removeprefix(f"`{owner}`: ")) from exc


_BUDGET = ("max_trials", "max_time", "max_stages", "first_trials")


def _trials(args: argparse.Namespace, entry_trials: int | None) -> int | str:
    """``--trials``; without it, a catalogue entry's own count (unless a budget option asks for stages), else auto."""
    if args.trials is not None:
        return args.trials
    if entry_trials is not None and not any(getattr(args, o, None) is not None for o in _BUDGET):
        return entry_trials
    return "auto"


def prepare_case(args: argparse.Namespace) -> AuditCase:
    """Resolve the parsed arguments of ``audit``/``report`` into the case to audit.

    A catalogue entry keeps its own pair and claim unless the arguments override them; a
    ``module:callable`` target becomes a case of the ``command line`` group, not known to be broken.
    The case's ``note`` says where the pair came from.
    """
    _check_numbers(args)
    spec = args.target
    pair = _pair_from_args(args)
    if not _MODULE_TARGET.match(spec):
        if getattr(args, "query_sensitivity", None) is not None:
            raise CommandLineError("--query-sensitivity applies to a module:callable naming a diffprivlib mechanism or "
                                   "an OpenDP measurement, not to a catalogue entry")
        entry = _catalogue_entry(spec)
        # a catalogue entry's claim names its relation, under which the audit checks any pair given
        d0, d1, source, _ = pair or (entry.d0, entry.d1, f"the catalogue entry's pair ({entry.name})", None)
        return replace(
            entry,
            d0=d0,
            d1=d1,
            epsilon=entry.epsilon if args.epsilon is None else args.epsilon,
            delta=entry.delta if args.delta is None else args.delta,
            trials=_trials(args, entry.trials),
            note=source,
        )
    if pair is None:
        raise CommandLineError(f"TARGET {spec!r} needs a pair: give --d0 FILE --d1 FILE or --pair NAME")
    d0, d1, source, relation = pair
    mechanism = _as_mechanism(spec, _import_attribute(spec), d0, d1, args.delta,
                              query_sensitivity=getattr(args, "query_sensitivity", None))
    if args.epsilon is None and not hasattr(mechanism, "claimed_guarantee"):
        raise CommandLineError(f"--epsilon is required: TARGET {spec!r} is a plain callable with no claimed_guarantee()")
    return AuditCase(spec, mechanism, d0, d1, args.epsilon, args.delta, _trials(args, None), broken=False, note=source,
                     group="command line", options=_pair_check(mechanism, relation))


def _pair_check(mechanism: Any, relation: Any) -> dict[str, Any]:
    """``{"check_neighbors": relation}`` for ``--pair``'s relation and a plain callable that declares none.

    A dpaudit mechanism's claim, or a callable's ``neighbor_relation``, names the relation its guarantee is
    about: the audit checks the pair under that one. A plain callable without one is checked under the
    relation the named pair was built for (otherwise its result would say the pair was not checked).
    """
    if relation is None or hasattr(mechanism, "claimed_guarantee") or hasattr(mechanism, "neighbor_relation"):
        return {}
    return {"check_neighbors": relation}
