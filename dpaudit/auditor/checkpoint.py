"""Resumable audits: finished blocks of outputs recorded in an SQLite file as they complete.

A checkpoint belongs to one audit. It holds a *fingerprint* of everything that determines the
audit's draws, and every finished block's outputs exactly as the mechanism returned them (dtype,
shape, bytes and a digest). Resuming loads the recorded blocks, draws only the missing ones on
their own streams (:class:`~dpaudit._rng.TrialStreams`), and the selection and estimation then run
on the same blocks, so a killed audit resumes to the result of an uninterrupted one.

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

What a row is trusted for. Each recorded block carries a SHA-256 over *every* field of its row
(dataset, block index, trials, dtype, shape and bytes) and over the fingerprint's own digest, so a
row relabelled (d1's rows made copies of d0's), edited, or copied from another audit's file is
refused. A digest anyone can recompute is no defence against a deliberate edit, so on resume a few
recorded blocks (``REDRAW_PER_DATASET`` per dataset, chosen with fresh operating-system randomness,
so which ones cannot be predicted) are drawn again on their own streams, whose draws are
deterministic, and compared byte for byte; any difference refuses the file.

What the re-draw does **not** guarantee. It samples only ``REDRAW_PER_DATASET`` blocks per dataset,
so it catches a change of the mechanism's behaviour only when that change shows in a block it
happens to re-draw: a mechanism that is not a deterministic function of its ``rng`` (every block
differs) is refused, but a change confined to some blocks (code fixed after a bug that touched one
block, a global flag the function reads) is caught only when that block is among the few re-drawn.
A red team resumed a checkpoint after changing a global the mechanism reads and got a false
VIOLATION from the loaded old block in 5 of 8 runs. **A change to anything outside the fingerprint
above (globals the function reads, functions or methods it calls, a library it uses other than
numpy and dpaudit) needs a fresh checkpoint**: delete the file or use a new path.

One path, one audit at a time. A new file is built complete under a temporary name, locked, and
linked into place (``os.link`` fails if the path exists: creation is exclusive), so a path holds
either nothing or a complete checkpoint and two audits started together cannot both create it.
The file stays locked (``flock``) for the whole audit, and the fingerprint is checked on the
connection that writes, under the lock: a second audit on the same path, whatever its
fingerprint, gets a :class:`~dpaudit.errors.CheckpointError` naming the path.

Writes go through SQLite's write-ahead log with ``synchronous=NORMAL``: a committed block survives
the process being killed. A file that is not such a checkpoint, fails SQLite's ``quick_check``
(truncation, damaged pages) or holds a row that does not match its digest is refused with
:class:`~dpaudit.errors.CheckpointError`; so is a path that cannot hold a file (a missing folder,
a folder) or a write that fails (a full disk).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import math
import os
import sqlite3
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._text import counted
from dpaudit.auditor.fingerprint import audit_fingerprint, mechanism_fingerprint
from dpaudit.errors import CheckpointError

__all__ = [
    "REDRAW_PER_DATASET",
    "Checkpoint",
    "audit_fingerprint",
    "fingerprint_digest",
    "mechanism_fingerprint",
    "recorded_seed",
    "row_digest",
]

FORMAT = "dpaudit-audit-checkpoint"
FORMAT_VERSION = "2"  # 2: rows digested with every field and bound to the fingerprint
ROW_TAG = "dpaudit-block-v2"
REDRAW_PER_DATASET = 2
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


# -- the file ----------------------------------------------------------------------------------


def _refuse(path: Path, owner: str, problem: str, fix: str = "delete it (or use another path) to start afresh.") -> CheckpointError:
    return CheckpointError(f"`{owner}`: checkpoint {str(path)!r} {problem}; it is refused, nothing from it is used. To fix: {fix}")


def _unusable(path: Path, owner: str, problem: str, fix: str) -> CheckpointError:
    return CheckpointError(f"`{owner}`: checkpoint {str(path)!r} {problem}. To fix: {fix}")


def fingerprint_digest(fingerprint: Mapping[str, str]) -> str:
    """SHA-256 of the fingerprint's fields (canonical JSON): what every recorded row is bound to."""
    return hashlib.sha256(json.dumps(dict(fingerprint), sort_keys=True).encode()).hexdigest()


def row_digest(bound_to: str, dataset: int, block: int, start: int, stop: int, dtype: str, shape: str, data: bytes) -> str:
    """SHA-256 of every field of a row, bound to the audit (``bound_to``: :func:`fingerprint_digest`)."""
    hasher = hashlib.sha256(f"{ROW_TAG} {bound_to} {dataset} {block} {start} {stop} {dtype} {shape} ".encode())
    hasher.update(data)
    return hasher.hexdigest()


def _read_meta(path: Path, owner: str) -> dict[str, str]:
    """Open an existing file read-only enough to check it, and return its meta table."""
    conn = _checked_connection(path, owner)
    try:
        return _meta(conn, path, owner)
    finally:
        conn.close()


def _checked_connection(path: Path, owner: str) -> sqlite3.Connection:
    """A connection to an existing file that passed the checks a checkpoint must pass; no pragma is set."""
    if path.is_dir():
        raise _unusable(path, owner, "is a folder, not a file", "pass a file path inside the folder.")
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            magic = fh.read(len(_SQLITE_MAGIC))
    except OSError as exc:
        raise _unusable(path, owner, f"cannot be read ({type(exc).__name__}: {exc})", "check the path and its permissions.") from exc
    if size == 0:
        raise _refuse(path, owner, "is an empty file (0 bytes), not a dpaudit checkpoint")
    if magic != _SQLITE_MAGIC:
        raise _refuse(path, owner, "is not an SQLite database, so not a dpaudit checkpoint")
    try:  # no pragmas here: a file that is refused is left exactly as it was
        conn = sqlite3.connect(path, timeout=60.0)
    except sqlite3.Error as exc:
        raise _refuse(path, owner, f"cannot be opened as an SQLite database ({exc})") from exc
    try:
        problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise _refuse(path, owner, f"is corrupt or truncated (SQLite quick_check: {'; '.join(problems[:3])})")
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"meta", "blocks"} <= tables:
            raise _refuse(path, owner, f"is an SQLite database but not a dpaudit checkpoint (tables: {sorted(tables)})")
    except sqlite3.Error as exc:
        conn.close()
        raise _refuse(path, owner, f"is corrupt or truncated (SQLite: {exc})") from exc
    except CheckpointError:
        conn.close()
        raise
    return conn


def _meta(conn: sqlite3.Connection, path: Path, owner: str) -> dict[str, str]:
    try:
        return {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta").fetchall()}
    except sqlite3.Error as exc:
        raise _refuse(path, owner, f"is corrupt or truncated (SQLite: {exc})") from exc


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


def _lock(fd: int) -> bool:
    """Take an exclusive ``flock`` on ``fd`` without waiting; False when another process holds it.

    ``flock`` locks are separate from the ``fcntl`` byte-range locks SQLite takes, so the lock
    neither blocks readers nor is released by SQLite closing its own descriptors (on local file
    systems; on NFS, Linux emulates ``flock`` with ``fcntl`` locks, and this lock is weaker).
    """
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


class Checkpoint:
    """An open checkpoint file for one audit, locked for as long as it is open.

    Parameters
    ----------
    path : str or PathLike
        The SQLite file; created exclusively (complete, under a temporary name, then linked into
        place) when missing.
    fingerprint : Mapping[str, str]
        From :func:`audit_fingerprint`; an existing file must record exactly these fields.
    owner : str
        Names the caller in error messages.

    Raises
    ------
    CheckpointError
        When the existing file belongs to another audit, is in use by another audit, is not a
        checkpoint, is corrupt, or the path cannot hold a file.
    """

    def __init__(self, path: str | os.PathLike[str], fingerprint: Mapping[str, str], owner: str = "audit") -> None:
        self.path = Path(path)
        self.owner = owner
        self.fingerprint = dict(fingerprint)
        self.bound_to = fingerprint_digest(self.fingerprint)
        self._fd: int | None = None
        self._conn: sqlite3.Connection | None = None
        try:
            self.created = not self.path.exists() and self._create()
            if not self.created:
                self._open_existing()
            self._conn = self._writer()
            self.recorded = self._recorded_keys()
        except BaseException:
            self.close()
            raise

    def _create(self) -> bool:
        """Build a complete file under a temporary name, locked, and link it into place; False if one appeared."""
        meta = {"format": FORMAT, "format_version": FORMAT_VERSION}
        meta.update({f"fp:{k}": v for k, v in self.fingerprint.items()})
        try:
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name + ".", suffix=".tmp")
        except OSError as exc:
            missing = not self.path.parent.is_dir()
            raise _unusable(self.path, self.owner, f"cannot be created ({'its folder does not exist' if missing else exc})",
                            "create the folder first, or pass a path in a writable folder.") from exc
        self._fd = fd
        _lock(fd)  # a fresh inode: nobody else can hold it; the lock moves into place with the link
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
            try:
                os.link(tmp, self.path)  # atomic, and fails if the path exists: exclusive creation
            except FileExistsError:
                os.close(fd)
                self._fd = None
                return False
        except sqlite3.Error as exc:
            raise _unusable(self.path, self.owner, f"cannot be created (SQLite: {exc})",
                            "free some disk space, or pass a path on another disk.") from exc
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.remove(tmp)
        return True

    def _open_existing(self) -> None:
        if self.path.is_dir():
            raise _unusable(self.path, self.owner, "is a folder, not a file", "pass a file path inside the folder.")
        try:
            self._fd = os.open(self.path, os.O_RDWR)
        except OSError as exc:
            raise _unusable(self.path, self.owner, f"cannot be opened for writing ({type(exc).__name__}: {exc})",
                            "check the path and its permissions.") from exc
        if not _lock(self._fd):
            raise _unusable(self.path, self.owner, "is in use by another audit (another process holds its lock)",
                            "wait for that audit to finish (then rerun to resume from it), or use another path.")

    def _writer(self) -> sqlite3.Connection:
        """The connection that writes; the fingerprint is checked on it, under the lock, before any pragma."""
        conn = _checked_connection(self.path, self.owner)
        try:
            self._check_fingerprint(_meta(conn, self.path, self.owner))
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.Error as exc:
            conn.close()
            raise _refuse(self.path, self.owner, f"cannot be opened as an SQLite database ({exc})") from exc
        except BaseException:
            conn.close()
            raise
        return conn

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

    def _recorded_keys(self) -> set[tuple[int, int]]:
        assert self._conn is not None
        try:
            keys = {(int(j), int(k)) for j, k in self._conn.execute("SELECT dataset, block FROM blocks")}
        except (sqlite3.Error, TypeError, ValueError) as exc:
            raise _refuse(self.path, self.owner, f"is corrupt or truncated ({exc})") from exc
        return keys

    def check_plan(self, spans: Callable[[int], tuple[int, int] | None], datasets: int) -> None:
        """Refuse the file if it records a block outside the audit's plan (``spans(k)`` is ``(start, stop)`` or None)."""
        for j, k in sorted(self.recorded):
            if not 0 <= j < datasets or spans(k) is None:
                raise _refuse(self.path, self.owner, f"holds block {k} of d{j}, which is not a block of this audit "
                              "(the file is corrupt)")

    def read(self, dataset: int, block: int, span: tuple[int, int]) -> NDArray[Any]:
        """The recorded outputs of ``block`` of ``dataset``, after checking every field against its digest."""
        assert self._conn is not None
        try:
            row = self._conn.execute("SELECT start, stop, dtype, shape, sha256, data FROM blocks WHERE dataset = ? "
                                     "AND block = ?", (dataset, block)).fetchone()
        except sqlite3.Error as exc:
            raise _refuse(self.path, self.owner, f"is corrupt or truncated (SQLite: {exc})") from exc
        if row is None:
            raise _refuse(self.path, self.owner, f"lost block {block} of d{dataset} while it was open")
        start, stop, dtype, shape, digest, data = row
        where = f"holds block {block} of d{dataset}"
        if (start, stop) != span:
            raise _refuse(self.path, self.owner, f"{where} for trials [{start}, {stop}), which is not a block of "
                          "this audit (the file is corrupt)")
        if not (isinstance(data, bytes) and isinstance(dtype, str) and isinstance(shape, str)) or digest != row_digest(
                self.bound_to, dataset, block, start, stop, dtype, shape, data):
            raise _refuse(self.path, self.owner, f"{where} whose fields do not match their SHA-256 (the file was "
                          "edited, is corrupt, or its rows come from another audit)")
        try:
            dt = np.dtype(dtype)
            dims = tuple(int(v) for v in json.loads(shape))
        except (TypeError, ValueError, OverflowError) as exc:
            raise _refuse(self.path, self.owner, f"{where} with an unreadable dtype or shape ({exc})") from exc
        if dt.kind not in "biuf" or not dims or dims[0] != stop - start or min(dims) < 0 or \
                math.prod(dims) * dt.itemsize != len(data):
            raise _refuse(self.path, self.owner, f"{where} with dtype {dtype} and shape {dims}, which do not fit "
                          f"its {stop - start} trials and {len(data)} bytes (the file is corrupt)")
        return np.frombuffer(bytearray(data), dtype=dt).reshape(dims)

    def refuse_mismatch(self, dataset: int, block: int) -> CheckpointError:
        """The error for a recorded block that differs from the same block re-drawn."""
        return _refuse(self.path, self.owner, f"holds block {block} of d{dataset}, which re-drawn on its own stream "
                       "does not match the recorded bytes: the file was edited, or the mechanism is not a "
                       "deterministic function of its rng (or its code changed, which the fingerprint does not cover)")

    def record(self, dataset: int, blocks: Sequence[tuple[int, int, int]], arrays: Sequence[NDArray[Any]]) -> None:
        """Record finished blocks ``(index, start, stop)`` of ``dataset`` in one transaction."""
        assert self._conn is not None
        rows = []
        for (block, start, stop), arr in zip(blocks, arrays, strict=True):
            data = np.ascontiguousarray(arr).tobytes()
            dtype, shape = arr.dtype.str, json.dumps(list(arr.shape))
            rows.append((dataset, block, start, stop, dtype, shape,
                         row_digest(self.bound_to, dataset, block, start, stop, dtype, shape, data), data))
        try:
            with self._conn:
                self._conn.executemany("INSERT OR IGNORE INTO blocks VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        except sqlite3.Error as exc:
            raise _unusable(self.path, self.owner, f"cannot be written (SQLite: {exc}); the blocks recorded before "
                            "are kept", "free some disk space (or pass a path on another disk), then rerun to "
                            "resume.") from exc
        self.recorded.update((dataset, b[0]) for b in blocks)

    def describe(self, loaded: int, total: int) -> str:
        """One line for the audit's notes: what was loaded, and what the mechanism's fingerprint covers."""
        done = f"resumed, {loaded} of {counted(total, 'block')} loaded from it" if loaded else f"{counted(total, 'block')} recorded in it"
        if total <= 2:
            done += " (one block per dataset: a smaller block_size lets a killed audit resume part-way)"
        return (f"checkpoint {str(self.path)!r}: {done}; its fingerprint covers the seed, block size, trials, "
                f"pair, claim, numpy and dpaudit versions, and {self.fingerprint.get('mechanism_covers', '?')}")

    def close(self) -> None:
        """Close the connection, then release the lock (in that order: see :func:`_lock`)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._fd is not None:
            os.close(self._fd)  # releases the flock
            self._fd = None

    def __enter__(self) -> Checkpoint:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
