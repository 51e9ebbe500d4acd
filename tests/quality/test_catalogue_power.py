"""Power: every known-broken catalogue entry is flagged and no correct one is.

The auditor sees only outputs; ``broken`` is read here, by the test, to state what is
expected. Seeds are spawned from one root, as in ``dpaudit demo``. A correct entry must not be
flagged at confidence 0.999: several are audited against a tight claim, and at 0.999 each has a
false-alarm chance of at most 1e-3 (a few percent for the whole catalogue). A broken entry must
be flagged at the stricter 0.999, except in the literature suite, whose claims and trial counts
are the peers' (epsilon 0.1, a few seconds per entry): there the test asks for the demo's 0.95.
Flagging a broken entry is never a false alarm, so the lower confidence costs no validity.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.catalogue import builtin_catalogue
from dpaudit.literature_suite import GROUP as LITERATURE
from dpaudit.userlevel.full_algorithms import GROUP as FULL_ALGORITHMS

ROOT_SEED = 0
CONFIDENCE = 0.999
POWER_CONFIDENCE_LITERATURE = 0.95
ENTRIES = builtin_catalogue()
SEEDS = np.random.SeedSequence(ROOT_SEED).spawn(len(ENTRIES))
# known misses, with the bound reached at the entry's trial count (see the report / README)
KNOWN_MISSES = {"SVT3 (half-half)", "SVT34Parallel (half-half)"}


def _confidence(entry) -> float:
    return POWER_CONFIDENCE_LITERATURE if entry.group == LITERATURE and entry.broken else CONFIDENCE


@pytest.mark.parametrize(
    "index",
    [pytest.param(i, marks=pytest.mark.xfail(reason="known miss: bound below the claim at the demo's trials", strict=True))
     if e.name in KNOWN_MISSES else i for i, e in enumerate(ENTRIES)],
    ids=[e.name for e in ENTRIES],
)
def test_verdict_matches_what_is_known(index):
    entry = ENTRIES[index]
    result = entry.audit(seed=SEEDS[index], confidence=_confidence(entry))
    assert result.violation == entry.broken, (
        f"{entry.name}: epsilon >= {result.epsilon_lower_bound:.3f} vs claim {result.claimed_epsilon}; "
        f"expected {'a violation' if entry.broken else 'none'}\n{result.to_text()}"
    )
    if entry.group == FULL_ALGORITHMS and result.epsilon_upper is not None:
        # the transcript's certified epsilon on its worst pair (dpaudit.userlevel.transcript_profile) bounds the
        # truth from above: a lower bound beyond it means a wrong record (or this audit's 1e-3 chance)
        assert result.bracket_verdict != "wrong declaration", result.to_text()


def test_catalogue_has_both_kinds():
    assert sum(e.broken for e in ENTRIES) >= 10
    assert sum(not e.broken for e in ENTRIES) >= 10


def _literature(name: str):
    return next(e for e in ENTRIES if e.group == LITERATURE and e.name.startswith(name))


@pytest.mark.parametrize(
    ("name", "published", "trials"),
    [("NoisyHist2", 4.602, 100_000), ("ReportNoisyMax4", 0.3463, 400_000), ("SVT5", 1.7612, 100_000), ("Laplace, IEEE bits", 0.2521, 100_000)],
)
def test_wins_over_dp_sniper_are_kept(name, published, trials):
    """dpaudit's event search beats DP-Sniper's published bound here with far fewer samples (2*10^8 for DP-Sniper)."""
    entry = _literature(name)
    result = entry.audit(seed=SEEDS[ENTRIES.index(entry)], trials=trials)
    assert result.epsilon_lower_bound > published, (name, result.epsilon_lower_bound, published, trials)
