"""Fingerprints of an audit: everything that determines its draws, as strings a checkpoint records.

See :mod:`dpaudit.auditor.checkpoint` for what the fingerprint covers and what it does not.
"""

from __future__ import annotations

import functools
import hashlib
import pickle
import types
from collections.abc import Sequence
from typing import Any

import numpy as np

from dpaudit._rng import TrialStreams

__all__ = ["audit_fingerprint", "mechanism_fingerprint"]


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
    mechanism: Any, datasets: Sequence[Any], trials: int | str, streams: TrialStreams, claim: tuple[float, float] | None
) -> dict[str, str]:
    """Every field that determines an audit's draws (and its claim), as strings, for a checkpoint.

    ``trials`` is the fixed trial count, or for an adaptive audit the description of its stages
    (:meth:`dpaudit.auditor.adaptive.Budget.describe`): which blocks it may draw.
    """
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
