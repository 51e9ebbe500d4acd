"""Power: every known-broken catalogue entry is flagged and no correct one is.

The auditor sees only outputs; ``known_broken`` is read here, by the test, to state what is
expected. Seeds are spawned from one root, as in ``dpaudit demo``.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.catalogue import audit_entry, builtin_catalogue

ROOT_SEED = 0
ENTRIES = builtin_catalogue()
SEEDS = np.random.SeedSequence(ROOT_SEED).spawn(len(ENTRIES))


@pytest.mark.parametrize("index", range(len(ENTRIES)), ids=[e.name for e in ENTRIES])
def test_verdict_matches_what_is_known(index):
    entry = ENTRIES[index]
    result = audit_entry(entry, seed=SEEDS[index])
    assert result.violation == entry.known_broken, (
        f"{entry.name}: epsilon >= {result.epsilon_lower_bound:.3f} vs claim {result.claimed_epsilon}; "
        f"expected {'a violation' if entry.known_broken else 'none'}\n{result.to_text()}"
    )


def test_catalogue_has_both_kinds():
    assert sum(e.known_broken for e in ENTRIES) >= 10
    assert sum(not e.known_broken for e in ENTRIES) >= 10
