"""What :func:`~dpaudit.audit` audits: its two datasets, checked up front, and the relation they are checked under.

* :func:`as_dataset`: the audit's own copy of ``d0`` or ``d1``, refused with
  :class:`~dpaudit.errors.InvalidArgument` naming the dataset and the first NaN or infinite entry
  (infinities pass only where the mechanism declares ``allows_infinite_data = True``);
* :func:`neighbor_relation`: the relation the pair is checked under (the one passed as
  ``check_neighbors``, the claim's, or a plain callable's ``neighbor_relation``), or the note that
  says it was not checked.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpaudit._validation import argument_error, nonfinite_entries
from dpaudit.auditor.sampling import own_dataset
from dpaudit.neighbors.relations import NeighborRelation

__all__ = ["as_dataset", "neighbor_relation", "same_data"]

OWNER = "audit"


def as_dataset(value: Any, name: str, target: Any) -> Any:
    """The audit's own copy of dataset ``name``, refused up front if it has NaN or infinite entries.

    Infinities are accepted only where the mechanism declares ``allows_infinite_data = True``
    (a declared domain that holds them); NaN never is.
    """
    try:
        arr = np.asarray(value)
    except Exception as exc:  # pragma: no cover - numpy accepts nearly anything
        raise argument_error(OWNER, name, "array-like", value) from exc
    if arr.dtype.kind in "fc" and getattr(target, "allows_infinite_data", False) is True:
        arr = np.where(np.isinf(arr), 0, arr)  # only NaN is refused
    found = nonfinite_entries(arr, name)
    if found is not None:
        raise argument_error(OWNER, name, f"finite ({found})", value,
                             fix="remove or clamp those entries into the data's domain; a mechanism whose domain holds "
                                 "infinities declares allows_infinite_data = True.")
    # the audit's own snapshot: every call then gets a copy of it (see dpaudit.auditor.sampling), so
    # the caller's object is never handed to the mechanism and is unchanged by the audit
    try:
        return own_dataset(value)
    except Exception as exc:
        raise argument_error(OWNER, name, "copyable with copy.deepcopy (each call of the mechanism gets its own copy)",
                             value) from exc


def same_data(a: Any, b: Any) -> bool:
    """True when ``a`` and ``b`` are the same numeric array (nothing can then be learned)."""
    try:
        x, y = np.asarray(a), np.asarray(b)
    except Exception:  # pragma: no cover
        return False
    return x.shape == y.shape and x.dtype.kind not in "OSUV" and bool(np.array_equal(x, y))


def neighbor_relation(check_neighbors: Any, sampler: Any, claim: Any) -> tuple[NeighborRelation | None, str]:
    """The relation ``(d0, d1)`` is checked under, or None and the note saying why it is not checked.

    A relation passed as ``check_neighbors`` is used; else, with ``check_neighbors=True``, the
    claim's own relation (a dpaudit mechanism) or the one a plain callable declares as its
    ``neighbor_relation`` attribute.
    """
    if isinstance(check_neighbors, NeighborRelation):
        return check_neighbors, ""
    if not isinstance(check_neighbors, bool | np.bool_):
        raise argument_error(OWNER, "check_neighbors", "True, False or a neighbour relation (dpaudit.neighbors)",
                             check_neighbors)
    if not check_neighbors:
        return None, "the pair (d0, d1) was not checked to be neighbours (check_neighbors=False)"
    if claim is not None and claim.relation is not None:
        return claim.relation, ""
    declared = getattr(sampler.target, "neighbor_relation", None) if sampler.kind != "mechanism" else None
    if declared is not None:
        if not isinstance(declared, NeighborRelation):
            raise argument_error(OWNER, "mechanism.neighbor_relation", "a neighbour relation (dpaudit.neighbors)", declared)
        return declared, ""
    whose = "a plain callable declares no neighbour relation" if sampler.kind != "mechanism" \
        else "the mechanism's claim names no neighbour relation"
    return None, (f"the pair (d0, d1) was NOT checked to be neighbours ({whose}): a violation is a leak only if "
                  "they are neighbours under the claim's relation; pass check_neighbors=QueryDistance(1.0) (any "
                  "dpaudit.neighbors relation), or set fn.neighbor_relation, to check it")
