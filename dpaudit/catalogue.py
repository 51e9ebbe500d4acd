"""The built-in catalogue: correct mechanisms and known-broken ones, each with the pair that tests it.

``make demo`` (``dpaudit demo``) audits every entry and prints one table row per entry. The
``known_broken`` flag is documentation for readers and tests; the auditor never sees it, so each
verdict comes from the mechanism's outputs alone.
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.auditor import AuditResult, audit
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.interfaces import Mechanism
from dpaudit.mechanisms import (
    AboveThreshold,
    DiscreteLaplaceMechanism,
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponse,
    ReportNoisyMax,
    SparseVector,
    TruncatedDiscreteLaplaceMechanism,
    faulty,
)

__all__ = ["CatalogueEntry", "audit_entry", "builtin_catalogue", "run_demo"]


@dataclass(frozen=True)
class CatalogueEntry:
    """One catalogue row: how to build the mechanism, the pair that tests it, and the trial count.

    ``epsilon`` and ``delta`` override the mechanism's own claim when a *component* is audited
    against its share of the budget (the user-level papers' entries); by default the mechanism's
    ``claimed_guarantee()`` is used.
    """

    name: str
    build: Callable[[], Mechanism]
    d0: Any
    d1: Any
    trials: int
    known_broken: bool
    note: str = ""
    group: str = "primitives"
    epsilon: float | None = None
    delta: float | None = None

    def mechanism(self) -> Mechanism:
        """Build the mechanism, silencing the warning broken ones emit on construction."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnsoundMechanismWarning)
            return self.build()


# Pair shapes used below. For sparse vector, "ascending" gives the queries answered ⊥ a lower value on
# d0 and the last (⊤) query a higher one, the pattern on which the noise must pay twice.
_SVT_D0 = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
_SVT_D1 = [1.0, 1.0, 1.0, 1.0, 1.0, 0.0]


def builtin_catalogue(*, userlevel: bool = True) -> list[CatalogueEntry]:
    """The primitives (correct, then known-broken), then the user-level papers' cases."""
    entries = _primitive_entries()
    if userlevel:
        entries += _userlevel_entries()
    return entries


def _userlevel_entries() -> list[CatalogueEntry]:
    """Levy et al. 2021 and Ghazi et al. 2025: correct components and broken variants or presets."""
    from dpaudit.userlevel.ghazi2025_audit import ghazi2025_audit_cases
    from dpaudit.userlevel.levy_faulty import levy_audit_cases

    out: list[CatalogueEntry] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        for case in levy_audit_cases():
            out.append(CatalogueEntry(case.name, _constant(case.mechanism), case.d0, case.d1, case.trials,
                                      case.broken, case.note, "Levy et al. 2021", case.epsilon, case.delta))
        for g in ghazi2025_audit_cases():
            out.append(CatalogueEntry(_readable(g.name), _constant(g.mechanism), g.d0, g.d1, g.trials,
                                      g.expect_violation, g.description, "Ghazi et al. 2025", g.epsilon, g.delta))
    return out


def _readable(case_name: str) -> str:
    """'ghazi2025-low-threshold-paper' -> 'low threshold (paper preset)'."""
    stem, _, preset = case_name.removeprefix("ghazi2025-").rpartition("-")
    stem = stem.replace("missing-6betaetaB", "missing 6 beta eta B <= 1").replace("-", " ")
    return f"{stem} ({preset} preset)"


def _constant(mechanism: Mechanism) -> Callable[[], Mechanism]:
    return lambda: mechanism


def _primitive_entries() -> list[CatalogueEntry]:
    """Correct mechanisms first, then the known-broken ones."""
    correct = [
        CatalogueEntry("Laplace", lambda: LaplaceMechanism(1.0), 0.0, 1.0, 1_000_000, False),
        CatalogueEntry("Gaussian (analytic)", lambda: GaussianMechanism(1.0, 1e-5), 0.0, 1.0, 1_000_000, False),
        CatalogueEntry("Gaussian (classical)", lambda: GaussianMechanism(0.5, 1e-5, calibration="classical"), 0.0, 1.0, 1_000_000, False),
        CatalogueEntry("discrete Laplace", lambda: DiscreteLaplaceMechanism(1.0), 0, 1, 1_000_000, False),
        CatalogueEntry("truncated discrete Laplace", lambda: TruncatedDiscreteLaplaceMechanism(1.0, 1e-3), 0, 1, 1_000_000, False),
        CatalogueEntry("randomized response (k=2)", lambda: RandomizedResponse(1.0, 2), [0], [1], 200_000, False),
        CatalogueEntry("randomized response (k=4)", lambda: RandomizedResponse(1.0, 4), [0], [1], 200_000, False),
        CatalogueEntry("report noisy max", lambda: ReportNoisyMax(1.0), [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], 200_000, False),
        CatalogueEntry("exponential mechanism", lambda: ExponentialMechanism(1.0), [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], 200_000, False),
        CatalogueEntry("sparse vector (Lyu Alg. 1)", lambda: SparseVector(1.0, 0.0, cutoff=1), _SVT_D0, _SVT_D1, 200_000, False),
        CatalogueEntry("AboveThreshold (Lowy 2024)", lambda: AboveThreshold(1.0, 0.0), _SVT_D0, _SVT_D1, 200_000, False),
        CatalogueEntry(
            "AboveThreshold (Ghazi 2025) at sens. 2",
            lambda: AboveThreshold(1.0, 0.0, sensitivity=2.0, variant="ghazi2025"),
            [2.0, 2.0, 2.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0, 2.0], 200_000, False,
            "the correctly scaled counterpart of the last broken entry",
        ),
    ]
    broken = [
        CatalogueEntry("Lyu Alg. 3 sparse vector", lambda: faulty.SparseVectorLyu3(1.0, 0.0), _SVT_D0, _SVT_D1, 200_000, True, "releases the noisy value"),
        CatalogueEntry("Lyu Alg. 4 sparse vector", lambda: faulty.SparseVectorLyu4(1.0, 0.0), _SVT_D0, _SVT_D1, 200_000, True, "true epsilon (1+6c)/4"),
        CatalogueEntry("Lyu Alg. 5 sparse vector", lambda: faulty.SparseVectorLyu5(1.0, 0.5), [0.0, 1.0], [1.0, 0.0], 200_000, True, "no query noise"),
        CatalogueEntry("Lyu Alg. 6 sparse vector", lambda: faulty.SparseVectorLyu6(1.0, 0.0), [0.0] * 5 + [1.0] * 5, [1.0] * 5 + [0.0] * 5, 200_000, True, "no cutoff"),
        CatalogueEntry("noisy max returning its value", lambda: faulty.NoisyMaxWithValue(1.0), [0.0] * 5, [1.0] * 5, 200_000, True),
        CatalogueEntry("histogram with scale = epsilon", lambda: faulty.HistogramWrongScale(0.1), [5.0, 5.0], [6.0, 5.0], 200_000, True),
        CatalogueEntry(
            "Gaussian: add/remove sigma under replace",
            lambda: faulty.GaussianAddRemoveUnderReplace(1.0, 1e-5),
            np.r_[-1.0, np.zeros(9)], np.r_[1.0, np.zeros(9)], 1_000_000, True,
        ),
        CatalogueEntry(
            "user-level mean with item-level noise",
            lambda: faulty.UserMeanItemLevelSensitivity(1.0),
            -np.ones((10, 10)), np.vstack([np.ones((1, 10)), -np.ones((9, 10))]), 200_000, True,
        ),
        CatalogueEntry("winsorized mean with clip range from data", lambda: faulty.WinsorizedMeanDataRange(1.0), np.zeros(10), np.r_[1.0, np.zeros(9)], 200_000, True),
        CatalogueEntry("mean over the true count", lambda: faulty.MeanTrueCount(1.0), [0.0], [0.0, 0.0], 200_000, True),
        CatalogueEntry(
            "AboveThreshold: sens.-1 noise, sens.-2 queries",
            lambda: faulty.AboveThresholdUnderscaled(1.0, 0.0),
            [2.0, 2.0, 2.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0, 2.0], 200_000, True,
        ),
    ]
    return correct + broken


def audit_entry(entry: CatalogueEntry, *, seed: Any, scale: float = 1.0, **kwargs: Any) -> AuditResult:
    """Audit one entry (``scale`` multiplies its trial count)."""
    trials = max(100, round(entry.trials * scale))
    kwargs.setdefault("epsilon", entry.epsilon)
    kwargs.setdefault("delta", entry.delta)
    return audit(entry.mechanism(), entry.d0, entry.d1, trials=trials, seed=seed, **kwargs)


def _claim_text(result: AuditResult) -> str:
    if result.delta > 0:
        return f"({result.claimed_epsilon:.3g}, {result.delta:.0e})".replace("e-0", "e-")
    return f"{result.claimed_epsilon:.3g}"


def run_demo(
    seed: int = 0,
    scale: float = 1.0,
    as_json: bool = False,
    only: str | None = None,
    entries: Sequence[CatalogueEntry] | None = None,
    stream: Any = None,
) -> int:
    """Audit the catalogue and print the verdict table; return 0 (the exit status).

    The exit status is 0 whatever the verdicts: flagging the broken entries is the point.
    """
    out = sys.stdout if stream is None else stream
    everything = list(builtin_catalogue() if entries is None else entries)
    # seeds follow the full catalogue, so an entry gets the same seed when run alone
    all_seeds = np.random.SeedSequence(seed).spawn(len(everything))
    wanted = [w.strip().lower() for w in (only or "").split(",") if w.strip()]
    picked = [i for i, e in enumerate(everything) if not wanted or any(w in e.name.lower() for w in wanted)]
    chosen = [everything[i] for i in picked]
    seeds = [all_seeds[i] for i in picked]
    header = f"{'mechanism':<48} {'claim':<13} {'relation':<27} {'eps >=':>8}  {'verdict':<9} {'time':>6}"
    rows: list[dict[str, Any]] = []
    if not as_json:
        print(f"dpaudit demo: {len(chosen)} catalogue entries, root seed {seed}, confidence 0.95", file=out)
        print(header, file=out)
        print("-" * len(header), file=out, flush=True)
    started = time.perf_counter()
    group = None
    for entry, child in zip(chosen, seeds, strict=True):
        if entry.group != group and not as_json:
            group = entry.group
            print(f"[{group}]", file=out, flush=True)
        mech = entry.mechanism()
        relation = mech.claimed_guarantee().relation
        result = audit_entry(entry, seed=child, scale=scale)
        verdict = "VIOLATION" if result.violation else "ok"
        rows.append({"mechanism": entry.name, "group": entry.group, "claim": _claim_text(result), "relation": str(relation),
                     "epsilon_lower_bound": result.epsilon_lower_bound, "violation": result.violation,
                     "seconds": result.total_seconds, "trials": result.trials})
        if not as_json:
            print(f"{entry.name[:48]:<48} {_claim_text(result):<13} {str(relation)[:27]:<27} "
                  f"{result.epsilon_lower_bound:>8.3f}  {verdict:<9} {result.total_seconds:>5.1f}s", file=out, flush=True)
    total = time.perf_counter() - started
    if as_json:
        print(json.dumps({"seed": seed, "entries": rows, "seconds": total}, indent=2), file=out)
    else:
        flagged = sum(r["violation"] for r in rows)
        print("-" * len(header), file=out)
        print(f"{flagged} of {len(rows)} flagged in {total:.1f} s. 'eps >=' is a 95% lower confidence bound on the "
              "true epsilon at the claimed delta; VIOLATION means it exceeds the claim.", file=out)
    return 0
