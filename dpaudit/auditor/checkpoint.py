"""Resumable audits: finished blocks of outputs recorded in an SQLite file as they complete.

A checkpoint belongs to one audit. It holds a *fingerprint* of everything that determines the
audit's draws, and every finished block's outputs exactly as the mechanism returned them (dtype,
shape, bytes and their SHA-256). Resuming loads the recorded blocks, draws only the missing ones on
their own streams (:class:`~dpaudit._rng.TrialStreams`), and the selection and estimation then run
on the full set, so a killed audit resumes to the result of an uninterrupted one.

What the fingerprint covers (a checkpoint whose fingerprint differs in any field is refused):

* the seed entropy, the block size and the trial count (with another trial count the last block
  would cover other trials; adding trials to an audit already looked at is also optional stopping);
* ``d0`` and ``d1``: the SHA-256 of dtype, shape and bytes of a numeric array, else of the pickle;
* the claim: ``epsilon`` and ``delta``;
* the mechanism. For an object (a dpaudit mechanism, a callable instance): its class and its
  pickled state, that is its parameters (an object that cannot be pickled: its attributes one by
  one, functions among them as below). For a plain function (or a ``functools.partial`` of one,
  with its arguments): its module, qualified name, bytecode, constants, default arguments and
  closure values. **Not covered**: the code of the methods and functions the mechanism calls, and
  the global variables a function reads; a change there between two runs, under the same names and
  parameters, is not detected (for dpaudit's own classes the dpaudit version stands in for their
  code). Every audit with a checkpoint says in its notes what its mechanism's fingerprint covers;
* the numpy and dpaudit versions (numpy may change a sampler's stream between versions).

Writes go through SQLite's write-ahead log with ``synchronous=NORMAL``: a committed block survives
the process being killed. A new file is built under a temporary name and renamed into place, so a
path holds either nothing or a complete checkpoint. A file that is not such a checkpoint, fails
SQLite's ``quick_check`` (truncation, damaged pages) or holds a block whose SHA-256, shape or
dtype does not match is refused with :class:`~dpaudit.errors.CheckpointError`.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import pickle
import sqlite3
import tempfile
import types
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._rng import TrialStreams
from dpaudit.errors import CheckpointError

__all__ = ["Checkpoint", "audit_fingerprint", "mechanism_fingerprint", "recorded_seed"]

FORMAT = "dpaudit-audit-checkpoint"
FORMAT_VERSION = "1"
_SQLITE_MAGIC = b"SQLite format 3\x00"
_FIELD_LABELS = {
    "mechanism": "mechanism",
    "mechanism_digest": "mechanism fingerprint (SHA-256)",
    "mechanism_covers": "what the mechanism's fingerprint covers",
    "seed_entropy": "seed entropy",
    "block_size": "block size",
    "trials": "trials",
    "d0": "d0 (SHA-256 of its contents)",
    "d1": "d1 (SHA-256 of its contents)",
    "epsilon": "claimed epsilon",
    "delta": "claimed delta",
    "numpy": "numpy version",
    "dpaudit": "dpaudit version",
}
_SCHEMA = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE blocks (dataset INTEGER NOT NULL, block INTEGER NOT NULL, start INTEGER NOT NULL, "
    "stop INTEGER NOT NULL, dtype TEXT NOT NULL, shape TEXT NOT NULL, sha256 TEXT NOT NULL, "
    "data BLOB NOT NULL, PRIMARY KEY (dataset, block))",
)


# -- fingerprints ------------------------------------------------------------------------------


def _value_digest(value: Any, hasher: Any, seen: set[int]) -> None:
    """Feed a stable description of ``value`` to ``hasher`` (arrays by bytes, functions by code)."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "biufcmM":
        hasher.update(f"ndarray {value.dtype.str} {value.shape}".encode())
        hasher.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, types.FunctionType):
        _function_digest(value, hasher, seen)
    elif isinstance(value, types.MethodType):
        _value_digest(value.__func__, hasher, seen)
        _value_digest(value.__self__, hasher, seen)
    elif isinstance(value, tuple | list):
        hasher.update(f"{type(value).__name__} {len(value)}".encode())
        for item in value:
            _value_digest(item, hasher, seen)
    elif isinstance(value, functools.partial):
        for part in (value.func, value.args, tuple(sorted(value.keywords.items()))):
            _value_digest(part, hasher, seen)
    else:
        try:
            hasher.update(b"pickle " + pickle.dumps(value, protocol=4))
        except Exception:  # unpicklable (a lambda among its fields, say): attribute by attribute
            _object_digest(value, hasher, seen)


def _object_digest(value: Any, hasher: Any, seen: set[int]) -> None:
    cls = type(value)
    hasher.update(f"object {cls.__module__}.{cls.__qualname__}".encode())
    attrs = getattr(value, "__dict__", None)
    if isinstance(attrs, dict) and id(value) not in seen:
        seen.add(id(value))
        for key in sorted(attrs):
            hasher.update(f"attribute {key}".encode())
            _value_digest(attrs[key], hasher, seen)
    elif " at 0x" not in (text := repr(value)):  # else only the class name: its repr is an address
        hasher.update(("repr " + text).encode())


def _code_digest(code: types.CodeType, hasher: Any) -> None:
    hasher.update(code.co_code)
    hasher.update(repr((code.co_names, code.co_varnames, code.co_freevars)).encode())
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _code_digest(const, hasher)
        elif isinstance(const, frozenset):  # set order follows string hashing, which varies per process
            hasher.update(repr(sorted(repr(c) for c in const)).encode())
        else:
            hasher.update(repr(const).encode())


def _function_digest(fn: types.FunctionType, hasher: Any, seen: set[int]) -> None:
    hasher.update(f"function {fn.__module__}.{fn.__qualname__}".encode())
    if id(fn) in seen:  # a recursive closure
        return
    seen.add(id(fn))
    _code_digest(fn.__code__, hasher)
    for value in (fn.__defaults__ or ()) + tuple(sorted((fn.__kwdefaults__ or {}).items())):
        _value_digest(value, hasher, seen)
    for cell in fn.__closure__ or ():
        try:
            content = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        _value_digest(content, hasher, seen)


def mechanism_fingerprint(mechanism: Any) -> tuple[str, str, str]:
    """``(name, SHA-256 hex digest, what the digest covers)`` for a mechanism or callable.

    Examples
    --------
    >>> from dpaudit.mechanisms import LaplaceMechanism
    >>> a = mechanism_fingerprint(LaplaceMechanism(1.0))
    >>> a == mechanism_fingerprint(LaplaceMechanism(1.0)), a == mechanism_fingerprint(LaplaceMechanism(2.0))
    (True, False)
    """
    hasher = hashlib.sha256()
    target = mechanism.func if isinstance(mechanism, functools.partial) else mechanism
    if isinstance(target, types.FunctionType | types.MethodType):
        name = f"{target.__module__}.{target.__qualname__}"
        covers = ("the function's module, qualified name, bytecode, constants, default arguments and closure "
                  "values (not the globals it reads nor the functions it calls)")
        _value_digest(mechanism, hasher, set())  # a partial: its arguments too
        return name, hasher.hexdigest(), covers
    cls = type(mechanism)
    name = f"{cls.__module__}.{cls.__qualname__}"
    _value_digest(mechanism, hasher, set())
    try:
        pickle.dumps(mechanism, protocol=4)
        covers = ("the class name and pickled state, i.e. the parameters (not the code of its methods; the dpaudit "
                  "version stands for dpaudit's own classes)")
    except Exception:
        covers = ("the class name and its attributes, one by one as it cannot be pickled (functions among them by "
                  "bytecode, constants and closure values; not the code of its methods)")
    return name, hasher.hexdigest(), covers


def _data_digest(data: Any) -> str:
    hasher = hashlib.sha256()
    try:
        arr = np.asarray(data)
    except Exception:
        arr = None
    _value_digest(arr if arr is not None and arr.dtype.kind in "biufcmM" else data, hasher, set())
    return hasher.hexdigest()


def audit_fingerprint(
    mechanism: Any, datasets: Sequence[Any], trials: int, streams: TrialStreams, claim: tuple[float, float] | None
) -> dict[str, str]:
    """Every field that determines an audit's draws (and its claim), as strings, for a checkpoint."""
    import dpaudit

    name, digest, covers = mechanism_fingerprint(mechanism)
    fields = {
        "mechanism": name,
        "mechanism_digest": digest,
        "mechanism_covers": covers,
        "seed_entropy": str(streams.entropy),
        "block_size": str(streams.block_size),
        "trials": str(trials),
        "numpy": np.__version__,
        "dpaudit": dpaudit.__version__,
    }
    for j, data in enumerate(datasets):
        fields[f"d{j}"] = _data_digest(data)
    if claim is not None:
        fields["epsilon"], fields["delta"] = repr(float(claim[0])), repr(float(claim[1]))
    return fields


# -- the file ----------------------------------------------------------------------------------


def _refuse(path: Path, owner: str, problem: str, fix: str = "delete it (or use another path) to start afresh.") -> CheckpointError:
    return CheckpointError(f"`{owner}`: checkpoint {str(path)!r} {problem}; it is refused, nothing from it is used. To fix: {fix}")


def _connect(path: Path, owner: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=60.0)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise _refuse(path, owner, f"cannot be opened as an SQLite database ({exc})") from exc
    return conn


def _read_meta(path: Path, owner: str) -> dict[str, str]:
    """Open an existing file read-only enough to check it, and return its meta table."""
    size = path.stat().st_size
    if size == 0:
        raise _refuse(path, owner, "is an empty file (0 bytes), not a dpaudit checkpoint")
    with path.open("rb") as fh:
        if fh.read(len(_SQLITE_MAGIC)) != _SQLITE_MAGIC:
            raise _refuse(path, owner, "is not an SQLite database, so not a dpaudit checkpoint")
    try:  # no pragmas here: a file that is refused is left exactly as it was
        conn = sqlite3.connect(path, timeout=60.0)
    except sqlite3.DatabaseError as exc:
        raise _refuse(path, owner, f"cannot be opened as an SQLite database ({exc})") from exc
    try:
        problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise _refuse(path, owner, f"is corrupt or truncated (SQLite quick_check: {'; '.join(problems[:3])})")
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"meta", "blocks"} <= tables:
            raise _refuse(path, owner, f"is an SQLite database but not a dpaudit checkpoint (tables: {sorted(tables)})")
        return dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.DatabaseError as exc:
        raise _refuse(path, owner, f"is corrupt or truncated (SQLite: {exc})") from exc
    finally:
        conn.close()


def recorded_seed(path: str | os.PathLike[str], owner: str = "audit") -> int | None:
    """The seed entropy recorded in an existing checkpoint, or ``None`` when ``path`` does not exist."""
    path = Path(path)
    if not path.exists():
        return None
    meta = _read_meta(path, owner)
    try:
        return int(meta["fp:seed_entropy"])
    except (KeyError, ValueError) as exc:
        raise _refuse(path, owner, "has no valid recorded seed entropy") from exc


def _short(value: str) -> str:
    return value if len(value) <= 24 or not all(c in "0123456789abcdef" for c in value) else value[:16] + "..."


class Checkpoint:
    """An open checkpoint file for one audit (see the module docstring for what it covers).

    Parameters
    ----------
    path : str or PathLike
        The SQLite file; created (complete, under a temporary name, then renamed) when missing.
    fingerprint : Mapping[str, str]
        From :func:`audit_fingerprint`; an existing file must record exactly these fields.
    owner : str
        Names the caller in error messages.

    Raises
    ------
    CheckpointError
        When the existing file belongs to another audit, is not a checkpoint, or is corrupt.
    """

    def __init__(self, path: str | os.PathLike[str], fingerprint: Mapping[str, str], owner: str = "audit") -> None:
        self.path = Path(path)
        self.owner = owner
        self.fingerprint = dict(fingerprint)
        self.created = not self.path.exists()
        if self.created:
            self._create()
        else:
            self._check_fingerprint(_read_meta(self.path, owner))
        self._conn = _connect(self.path, owner)

    def _create(self) -> None:
        meta = {"format": FORMAT, "format_version": FORMAT_VERSION}
        meta.update({f"fp:{k}": v for k, v in self.fingerprint.items()})
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name + ".", suffix=".tmp")
        os.close(fd)
        try:
            conn = sqlite3.connect(tmp)
            try:
                with conn:
                    for statement in _SCHEMA:
                        conn.execute(statement)
                    conn.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
                conn.execute("PRAGMA journal_mode=WAL")
            finally:
                conn.close()
            os.replace(tmp, self.path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)

    def _check_fingerprint(self, meta: dict[str, str]) -> None:
        if meta.get("format") != FORMAT or meta.get("format_version") != FORMAT_VERSION:
            raise _refuse(self.path, self.owner, f"is not a dpaudit audit checkpoint of format {FORMAT_VERSION} "
                          f"(format {meta.get('format')!r}, version {meta.get('format_version')!r})")
        recorded = {k[3:]: v for k, v in meta.items() if k.startswith("fp:")}
        diffs = []
        for key in sorted(set(recorded) | set(self.fingerprint), key=lambda k: (k not in _FIELD_LABELS, k)):
            there, here = recorded.get(key, "(absent)"), self.fingerprint.get(key, "(absent)")
            if there != here:
                diffs.append(f"{_FIELD_LABELS.get(key, key)} is {_short(there)} in the file but {_short(here)} here")
        if diffs:
            raise _refuse(self.path, self.owner, "was written by a different audit (" + "; ".join(diffs) + ")",
                          "resume with the same mechanism, seed, pair, claim, block size and trials, or delete "
                          "the file (or use another path) to start afresh.")

    def load(self, plan: Mapping[tuple[int, int], tuple[int, int]]) -> dict[tuple[int, int], NDArray[Any]]:
        """Recorded blocks, keyed ``(dataset, block)``; ``plan`` maps each key to its ``(start, stop)``."""
        out: dict[tuple[int, int], NDArray[Any]] = {}
        try:
            rows = self._conn.execute("SELECT dataset, block, start, stop, dtype, shape, sha256, data FROM blocks")
            for dataset, block, start, stop, dtype, shape, digest, data in rows:
                out[(dataset, block)] = self._restore(plan, dataset, block, start, stop, dtype, shape, digest, data)
        except sqlite3.DatabaseError as exc:
            raise _refuse(self.path, self.owner, f"is corrupt or truncated (SQLite: {exc})") from exc
        return out

    def _restore(self, plan: Mapping[tuple[int, int], tuple[int, int]], dataset: Any, block: Any, start: Any,
                 stop: Any, dtype: Any, shape: Any, digest: Any, data: Any) -> NDArray[Any]:
        where = f"holds block {block} of d{dataset}"
        if plan.get((dataset, block)) != (start, stop):
            raise _refuse(self.path, self.owner, f"{where} for trials [{start}, {stop}), which is not a block of "
                          "this audit (the file is corrupt)")
        if not isinstance(data, bytes) or hashlib.sha256(data).hexdigest() != digest:
            raise _refuse(self.path, self.owner, f"{where} whose bytes do not match their SHA-256 (the file is corrupt)")
        try:
            dt = np.dtype(dtype)
            dims = tuple(int(v) for v in json.loads(shape))
        except (TypeError, ValueError) as exc:
            raise _refuse(self.path, self.owner, f"{where} with an unreadable dtype or shape ({exc})") from exc
        if dt.kind not in "biuf" or not dims or dims[0] != stop - start or math.prod(dims) * dt.itemsize != len(data):
            raise _refuse(self.path, self.owner, f"{where} with dtype {dtype} and shape {dims}, which do not fit "
                          f"its {stop - start} trials and {len(data)} bytes (the file is corrupt)")
        return np.frombuffer(bytearray(data), dtype=dt).reshape(dims)

    def record(self, dataset: int, blocks: Sequence[tuple[int, int, int]], arrays: Sequence[NDArray[Any]]) -> None:
        """Record finished blocks ``(index, start, stop)`` of ``dataset`` in one transaction."""
        rows = []
        for (block, start, stop), arr in zip(blocks, arrays, strict=True):
            data = np.ascontiguousarray(arr).tobytes()
            rows.append((dataset, block, start, stop, arr.dtype.str, json.dumps(list(arr.shape)),
                         hashlib.sha256(data).hexdigest(), data))
        with self._conn:
            self._conn.executemany("INSERT OR IGNORE INTO blocks VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)

    def describe(self, loaded: int, total: int) -> str:
        """One line for the audit's notes: what was loaded, and what the mechanism's fingerprint covers."""
        done = f"resumed, {loaded} of {total} blocks loaded from it" if loaded else f"{total} blocks recorded in it"
        if total <= 2:
            done += " (one block per dataset: a smaller block_size lets a killed audit resume part-way)"
        return (f"checkpoint {str(self.path)!r}: {done}; its fingerprint covers the seed, block size, trials, "
                f"pair, claim, numpy and dpaudit versions, and {self.fingerprint.get('mechanism_covers', '?')}")

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Checkpoint:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

