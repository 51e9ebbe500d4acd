"""Randomness handling: seeds become Generators only at entry points, and trials use spawned streams.

House style, conventions 1 and 2: every stochastic function takes ``rng: np.random.Generator``.
Only user entry points (``audit()``, the CLI, notebook helpers) accept a seed and normalise it
here. Repeated trials are split into fixed-size *blocks*; block ``k`` always draws from the
``k``-th child of the root :class:`numpy.random.SeedSequence`, so results do not depend on how
blocks are grouped into batches or spread over workers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._validation import argument_error, check_int

__all__ = ["SeedLike", "TrialStreams", "as_generator", "as_seed_sequence", "spawn_generators"]

SeedLike = int | np.random.SeedSequence | np.random.Generator | None


def as_seed_sequence(seed: Any, owner: str = "dpaudit", name: str = "seed") -> np.random.SeedSequence:
    """Normalise ``seed`` (None, a non-negative int, a SeedSequence or a Generator) to a SeedSequence.

    A Generator is consumed once (one 128-bit draw) to seed the new sequence, so passing the same
    Generator twice gives different streams, as numpy users expect.
    """
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(seed.integers(0, 2**63 - 1, size=2, dtype=np.int64).tolist())
    if isinstance(seed, np.random.RandomState):
        raise argument_error(
            owner, name, "None, an int >= 0, a SeedSequence or a Generator", seed,
            fix="use np.random.default_rng(...) instead of the legacy RandomState.",
        )
    value = check_int(owner, name, seed, minimum=0)
    return np.random.SeedSequence(value)


def as_generator(seed: Any, owner: str = "dpaudit", name: str = "seed") -> np.random.Generator:
    """Return a Generator for ``seed``; a Generator is passed through unchanged."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(as_seed_sequence(seed, owner, name))


def spawn_generators(seed: Any, count: int) -> list[np.random.Generator]:
    """Return ``count`` independent Generators spawned from ``seed``."""
    count = check_int("spawn_generators", "count", count, minimum=0)
    return [np.random.default_rng(child) for child in as_seed_sequence(seed).spawn(count)]


@dataclass(frozen=True)
class TrialStreams:
    """Deterministic random streams for ``trials`` independent trials, in blocks of ``block_size``.

    Block ``k`` covers trials ``[k * block_size, (k + 1) * block_size)`` and draws from
    ``SeedSequence(entropy, spawn_key=(*root_key, stream, k))``. A stream index separates uses
    (for example the two datasets of an audit) that must be independent.

    Parameters
    ----------
    entropy : int
        Root entropy, recorded in results so that any block can be replayed.
    block_size : int
        Trials per block. Changing it changes the draws; batch sizes and worker counts do not.
    """

    entropy: int
    block_size: int = 16384

    @classmethod
    def from_seed(cls, seed: Any, block_size: int = 16384, owner: str = "dpaudit") -> TrialStreams:
        """Build from a user seed (None draws fresh entropy, which is then recorded)."""
        seq = as_seed_sequence(seed, owner)
        entropy = seq.entropy if isinstance(seq.entropy, int) else int(seq.generate_state(4, np.uint64)[0])
        if seq.spawn_key:
            # fold a spawned sequence's key in, so children of one parent stay distinct
            entropy = int(np.random.SeedSequence(entropy, spawn_key=seq.spawn_key).generate_state(4, np.uint64)[0])
        return cls(entropy=int(entropy), block_size=check_int(owner, "block_size", block_size, minimum=1))

    def block_generator(self, stream: int, block: int) -> np.random.Generator:
        """Generator for block ``block`` of stream ``stream``."""
        return np.random.default_rng(np.random.SeedSequence(self.entropy, spawn_key=(stream, block)))

    def blocks(self, trials: int) -> list[tuple[int, int, int]]:
        """``(block index, start, stop)`` for ``trials`` trials."""
        out = []
        for k, start in enumerate(range(0, trials, self.block_size)):
            out.append((k, start, min(start + self.block_size, trials)))
        return out
