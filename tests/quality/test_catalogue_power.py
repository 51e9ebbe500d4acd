"""Power: every known-broken catalogue entry is flagged and no correct one is.

The auditor sees only outputs; ``broken`` is read here, by the test, to state what is
expected. Seeds are spawned from one root, as in ``dpaudit demo``. The audits run at confidence
0.999 rather than the demo's 0.95: several correct entries are audited against a tight claim, and at
0.999 each has a false-alarm chance of at most 1e-3 (about 4% for the whole catalogue), while every
broken entry must still clear the stricter bar.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.catalogue import builtin_catalogue

ROOT_SEED = 0
CONFIDENCE = 0.999
ENTRIES = builtin_catalogue()
SEEDS = np.random.SeedSequence(ROOT_SEED).spawn(len(ENTRIES))


@pytest.mark.parametrize("index", range(len(ENTRIES)), ids=[e.name for e in ENTRIES])
def test_verdict_matches_what_is_known(index):
    entry = ENTRIES[index]
    result = entry.audit(seed=SEEDS[index], confidence=CONFIDENCE)
    assert result.violation == entry.broken, (
        f"{entry.name}: epsilon >= {result.epsilon_lower_bound:.3f} vs claim {result.claimed_epsilon}; "
        f"expected {'a violation' if entry.broken else 'none'}\n{result.to_text()}"
    )


def test_catalogue_has_both_kinds():
    assert sum(e.broken for e in ENTRIES) >= 10
    assert sum(not e.broken for e in ENTRIES) >= 10
