"""Output views: what kind of output a mechanism produces, and features for the attacks.

Outputs arrive as ``(trials, ...)`` arrays. They are flattened to ``(trials, k)`` and classified:

* ``"continuous"``: real values with no repeated atoms (Laplace, Gaussian outputs);
* ``"discrete"``: integer or boolean outputs, or floats that take few distinct values;
* ``"mixed"``: real columns with point masses (atoms), for example a sparse-vector answer that
  releases a noisy value above the threshold and a fixed code elsewhere.

Everything here is fitted on the selection split only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["OutputLayout", "detect_layout", "encode_rows", "flatten_outputs"]

# Fixed odd multipliers for hashing integer rows to int64 category keys (mod 2**64). A collision
# only merges two categories, which can cost power but never validity: the score is fixed before
# the estimation split is looked at.
_HASH_MULTIPLIERS = (np.random.default_rng(0x5EED5EED).integers(1, 2**62, size=4096, dtype=np.int64) * 2 + 1).astype(np.uint64)

MAX_ATOMS_PER_COLUMN = 8
CODES_CACHE = 4
LAYOUT_ROWS = 10_000
LAYOUT_CHUNK = 1024


def flatten_outputs(outputs: NDArray[Any]) -> NDArray[Any]:
    """``(trials, ...)`` -> ``(trials, k)``; scalars become one column."""
    if outputs.ndim == 1:
        return outputs[:, None]
    return outputs.reshape(outputs.shape[0], math.prod(outputs.shape[1:]))  # not -1: zero rows are allowed


def encode_rows(codes: NDArray[np.integer[Any]]) -> NDArray[np.uint64]:
    """Hash each integer row of ``codes`` (shape ``(n, k)``) to one uint64 key."""
    c = np.ascontiguousarray(codes).astype(np.uint64, copy=False)
    k = c.shape[1]
    mult = np.resize(_HASH_MULTIPLIERS, k) if k > _HASH_MULTIPLIERS.size else _HASH_MULTIPLIERS[:k]
    with np.errstate(over="ignore"):
        return (c * mult).sum(axis=1, dtype=np.uint64) + np.uint64(k)


@dataclass(frozen=True)
class OutputLayout:
    """How to read one flattened output row.

    Attributes
    ----------
    kind : {"continuous", "discrete", "mixed"}
    atoms : tuple of arrays
        Per column, the atom values (point masses) found on the selection split; empty for purely
        continuous columns. For ``"discrete"`` outputs every value is an atom of its own and this
        is not used.
    """

    kind: str
    n_columns: int
    atoms: tuple[NDArray[np.float64], ...] = ()
    # the last few (array, codes) pairs: every score of a mixed layout reads the same splits' codes
    _codes_cache: list[tuple[NDArray[Any], NDArray[np.int64]]] = field(default_factory=list, compare=False, repr=False)

    def atom_codes(self, x: NDArray[Any]) -> NDArray[np.int64]:
        """Per entry: 1 + index of the atom it equals, or 0 for a continuous value."""
        for seen, codes in self._codes_cache:
            if seen is x:  # identity, with a strong reference held: never a recycled id
                return codes
        codes = self._atom_codes(x)
        self._codes_cache.insert(0, (x, codes))
        del self._codes_cache[CODES_CACHE:]
        return codes

    def forget_codes(self) -> None:
        """Drop the cached codes (and the arrays they hold on to), e.g. once a block has been counted."""
        self._codes_cache.clear()

    def _atom_codes(self, x: NDArray[Any]) -> NDArray[np.int64]:
        codes = np.zeros(x.shape, dtype=np.int64)
        for j, atoms in enumerate(self.atoms):
            if atoms.size == 0:
                continue
            column = x[:, j]
            idx = np.minimum(np.searchsorted(atoms, column), atoms.size - 1)  # atoms are sorted
            codes[:, j] = np.where(atoms[idx] == column, idx + 1, 0)
        return codes

    def describe_codes(self, codes: NDArray[np.int64]) -> str:
        """A row of atom codes as text: the atom's value, or ``*`` for a continuous entry."""
        parts = [("*" if c == 0 else f"{self.atoms[j][c - 1]:g}") for j, c in enumerate(codes)]
        return "(" + ", ".join(parts) + ")"

    def continuous_part(self, x: NDArray[Any], codes: NDArray[np.int64] | None = None) -> NDArray[np.float64]:
        """Values with atoms replaced by 0 (and infinities, which can only be atoms, removed)."""
        codes = self.atom_codes(x) if codes is None else codes
        out = np.where(codes == 0, x, 0.0).astype(float)
        out[~np.isfinite(out)] = 0.0
        return out


def _integral(x: NDArray[Any]) -> bool:
    """Whether every finite entry of ``x`` is an integer (checked a few rows at a time: no full copies)."""
    for start in range(0, len(x), LAYOUT_CHUNK):
        part = x[start : start + LAYOUT_CHUNK]
        finite = part[np.isfinite(part)]
        if not np.all(finite == np.round(finite)):
            return False
    return True


def detect_layout(sel0: NDArray[Any], sel1: NDArray[Any]) -> OutputLayout:
    """Classify outputs from the pooled selection split (both datasets)."""
    # a subsample suffices: an atom (>= 0.5% of rows) shows up ~100 times in 20,000 rows
    parts = (sel0[:LAYOUT_ROWS], sel1[:LAYOUT_ROWS])  # pooled column by column, never as one copy
    n, k = len(parts[0]) + len(parts[1]), parts[0].shape[1]
    if np.result_type(*parts).kind in "biu":
        return OutputLayout("discrete", k)
    if _integral(parts[0]) and _integral(parts[1]):
        return OutputLayout("discrete", k)
    # an atom is a value that repeats on at least 0.5% of the pooled selection rows (and >= 5 times)
    min_count = max(5, int(0.005 * n))
    atoms: list[NDArray[np.float64]] = []
    for j in range(k):
        values, counts = np.unique(np.concatenate([parts[0][:, j], parts[1][:, j]]), return_counts=True)
        heavy = values[counts >= min_count]
        if heavy.size > MAX_ATOMS_PER_COLUMN:
            heavy = values[np.argsort(counts)[::-1][:MAX_ATOMS_PER_COLUMN]]
        atoms.append(np.sort(heavy).astype(float))
    if any(a.size for a in atoms):
        return OutputLayout("mixed", k, tuple(atoms))
    return OutputLayout("continuous", k, tuple(atoms))
