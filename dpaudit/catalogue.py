"""The built-in catalogue: correct mechanisms and known-broken ones, each with the pair that tests it.

``make demo`` (``dpaudit demo``) audits every entry and prints one table row per entry. Entries are
:class:`~dpaudit.auditor.AuditCase` records; their ``broken`` flag is documentation for readers and
tests. The auditor never sees it, so each verdict comes from the mechanism's outputs alone.
"""

from __future__ import annotations

import json
import math
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from dpaudit._table import clip, terminal_width
from dpaudit._text import counted
from dpaudit.auditor import AuditCase, AuditResult
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

__all__ = ["builtin_catalogue", "exact_on_pair", "run_demo"]


# Pair shapes used below. For sparse vector, "ascending" gives the queries answered ⊥ a lower value on
# d0 and the last (⊤) query a higher one, the pattern on which the noise must pay twice.
_SVT_D0 = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
_SVT_D1 = [1.0, 1.0, 1.0, 1.0, 1.0, 0.0]


def builtin_catalogue(*, userlevel: bool = True, literature: bool = True) -> list[AuditCase]:
    """The primitives (correct, then known-broken), the literature suite, then the user-level papers' cases.

    Broken mechanisms warn when constructed; the warnings are silenced here, where they are
    expected.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        entries = _primitive_entries()
        if literature:
            from dpaudit.literature_suite import literature_cases

            entries += literature_cases()
        if userlevel:
            from dpaudit.userlevel.ghazi2023.audit_cases import ghazi2023_audit_cases
            from dpaudit.userlevel.ghazi2025.audit_cases import ghazi2025_audit_cases
            from dpaudit.userlevel.levy2021.audit_cases import levy2021_audit_cases
            from dpaudit.userlevel.lowy2024.audit_cases import lowy2024_audit_cases

            entries += levy2021_audit_cases()
            entries += [replace(case, name=_readable(case.name)) for case in ghazi2025_audit_cases()]
            entries += ghazi2023_audit_cases()
            entries += lowy2024_audit_cases()
            from dpaudit.userlevel.full_algorithms import full_algorithm_cases

            entries += full_algorithm_cases()
    return entries


def _readable(case_name: str) -> str:
    """'ghazi2025-low-threshold-paper' -> 'low threshold (paper preset)'."""
    stem, _, preset = case_name.removeprefix("ghazi2025-").rpartition("-")
    stem = stem.replace("missing-6betaetaB", "missing 6 beta eta B <= 1").replace("-", " ")
    return f"{stem} ({preset} preset)"


def _primitive_entries() -> list[AuditCase]:
    """Correct mechanisms first, then the known-broken ones."""
    correct = [
        _primitive("Laplace", LaplaceMechanism(1.0), 0.0, 1.0, 1_000_000, False),
        _primitive("Gaussian (analytic)", GaussianMechanism(1.0, 1e-5), 0.0, 1.0, 1_000_000, False),
        _primitive("Gaussian (classical)", GaussianMechanism(0.5, 1e-5, calibration="classical"), 0.0, 1.0, 1_000_000, False),
        _primitive("discrete Laplace", DiscreteLaplaceMechanism(1.0), 0, 1, 1_000_000, False),
        _primitive("truncated discrete Laplace", TruncatedDiscreteLaplaceMechanism(1.0, 1e-3), 0, 1, 1_000_000, False),
        _primitive("randomized response (k=2)", RandomizedResponse(1.0, 2), [0], [1], 200_000, False),
        _primitive("randomized response (k=4)", RandomizedResponse(1.0, 4), [0], [1], 200_000, False),
        _primitive("report noisy max", ReportNoisyMax(1.0), [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], 200_000, False),
        _primitive("exponential mechanism", ExponentialMechanism(1.0), [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], 200_000, False),
        _primitive("sparse vector (Lyu Alg. 1)", SparseVector(1.0, 0.0, cutoff=1), _SVT_D0, _SVT_D1, 200_000, False),
        _primitive("AboveThreshold (Lowy 2024)", AboveThreshold(1.0, 0.0), _SVT_D0, _SVT_D1, 200_000, False),
        _primitive("AboveThreshold (Ghazi 2025) at sens. 2", AboveThreshold(1.0, 0.0, sensitivity=2.0, variant="ghazi2025"),
            [2.0, 2.0, 2.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0, 2.0], 200_000, False,
            "the correctly scaled counterpart of the last broken entry",
        ),
    ]
    broken = [
        _primitive("Lyu Alg. 3 sparse vector", faulty.SparseVectorLyu3(1.0, 0.0), _SVT_D0, _SVT_D1, 200_000, True, "releases the noisy value"),
        _primitive("Lyu Alg. 4 sparse vector", faulty.SparseVectorLyu4(1.0, 0.0), _SVT_D0, _SVT_D1, 200_000, True, "true epsilon (1+6c)/4"),
        _primitive("Lyu Alg. 5 sparse vector", faulty.SparseVectorLyu5(1.0, 0.5), [0.0, 1.0], [1.0, 0.0], 200_000, True, "no query noise"),
        _primitive("Lyu Alg. 6 sparse vector", faulty.SparseVectorLyu6(1.0, 0.0), [0.0] * 5 + [1.0] * 5, [1.0] * 5 + [0.0] * 5, 200_000, True, "no cutoff"),
        _primitive("noisy max returning its value", faulty.NoisyMaxWithValue(1.0), [0.0] * 5, [1.0] * 5, 200_000, True),
        _primitive("histogram with scale = epsilon", faulty.HistogramWrongScale(0.1), [5.0, 5.0], [6.0, 5.0], 200_000, True),
        _primitive("Gaussian: add/remove sigma under replace", faulty.GaussianAddRemoveUnderReplace(1.0, 1e-5),
            np.r_[-1.0, np.zeros(9)], np.r_[1.0, np.zeros(9)], 1_000_000, True,
        ),
        _primitive("user-level mean with item-level noise", faulty.UserMeanItemLevelSensitivity(1.0),
            -np.ones((10, 10)), np.vstack([np.ones((1, 10)), -np.ones((9, 10))]), 200_000, True,
        ),
        _primitive("winsorized mean with clip range from data", faulty.WinsorizedMeanDataRange(1.0), np.zeros(10), np.r_[1.0, np.zeros(9)], 200_000, True),
        _primitive("mean over the true count", faulty.MeanTrueCount(1.0), [0.0], [0.0, 0.0], 200_000, True),
        _primitive("AboveThreshold: sens.-1 noise, sens.-2 queries", faulty.AboveThresholdUnderscaled(1.0, 0.0),
            [2.0, 2.0, 2.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0, 2.0], 200_000, True,
        ),
    ]
    return correct + broken


def _primitive(name: str, mechanism: Mechanism, d0: Any, d1: Any, trials: int, broken: bool, note: str = "") -> AuditCase:
    """A primitive's case, audited against the mechanism's own claim."""
    return AuditCase(name, mechanism, d0, d1, None, None, trials, broken, None, note, "primitives")


def exact_on_pair(result: AuditResult) -> str:
    """The demo's "exact on pair" cell: the certified bracket of the pair's epsilon at the claimed delta."""
    upper, lower = result.epsilon_upper, result.epsilon_computed_lower
    if upper is None:
        return "-"
    if lower is None:
        return f"<= {upper:.4g}"
    if math.isinf(lower):
        return "inf"
    if upper - lower <= 5e-5 * max(upper, 1e-3):
        return f"{upper:.4f}"
    return f"[{lower:.4f}, {upper:.4f}]"


def _claim_text(result: AuditResult) -> str:
    if result.delta > 0:
        return f"({result.claimed_epsilon:.3g}, {result.delta:.0e})".replace("e-0", "e-")
    return f"{result.claimed_epsilon:.3g}"


def _demo_widths(width: int | None) -> tuple[int, int]:
    """Widths of the name and relation columns: 48 and 27, narrower (cut with an ellipsis) on a narrow terminal."""
    if width is None:
        return 48, 27
    room = width - (13 + 8 + 18 + 9 + 6 + 7)  # the fixed columns and the gaps between the seven
    name = max(16, min(48, room - 27))
    return name, max(10, min(27, room - name))


def run_demo(
    seed: int = 0,
    scale: float = 1.0,
    as_json: bool = False,
    only: str | None = None,
    entries: Sequence[AuditCase] | None = None,
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
    picked = [i for i, e in enumerate(everything) if not wanted or any(w in e.name.lower() or w in e.group.lower() for w in wanted)]
    chosen = [everything[i] for i in picked]
    seeds = [all_seeds[i] for i in picked]
    name_w, relation_w = _demo_widths(terminal_width(out))
    header = (f"{'mechanism':<{name_w}} {'claim':<13} {'relation':<{relation_w}} {'eps >=':>8}  {'exact on pair':<18} "
              f"{'verdict':<9} {'time':>6}")
    rows: list[dict[str, Any]] = []
    if not as_json:
        print(f"dpaudit demo: {counted(len(chosen), 'catalogue entry')}, root seed {seed}, confidence 0.95", file=out)
        print(header, file=out)
        print("-" * len(header), file=out, flush=True)
    started = time.perf_counter()
    group = None
    for entry, child in zip(chosen, seeds, strict=True):
        if entry.group != group and not as_json:
            group = entry.group
            print(f"[{group}]", file=out, flush=True)
        relation = entry.mechanism.claimed_guarantee().relation
        result = entry.audit(seed=child, scale=scale)
        verdict = "VIOLATION" if result.violation else ("REFUTED" if result.claim_refuted else "ok")
        rows.append({"mechanism": entry.name, "group": entry.group, "claim": _claim_text(result), "relation": str(relation),
                     "epsilon_lower_bound": result.epsilon_lower_bound, "violation": result.violation,
                     "epsilon_upper": result.epsilon_upper, "epsilon_computed_lower": result.epsilon_computed_lower,
                     "bracket_verdict": result.bracket_verdict,
                     "seconds": result.total_seconds, "trials": result.trials})
        if not as_json:
            print(f"{clip(entry.name, name_w):<{name_w}} {_claim_text(result):<13} {clip(str(relation), relation_w):<{relation_w}} "
                  f"{result.epsilon_lower_bound:>8.3f}  {exact_on_pair(result):<18} {verdict:<9} {result.total_seconds:>5.1f}s",
                  file=out, flush=True)
    total = time.perf_counter() - started
    if as_json:
        print(json.dumps({"seed": seed, "entries": rows, "seconds": total}, indent=2), file=out)
    else:
        flagged = sum(r["violation"] for r in rows)
        print("-" * len(header), file=out)
        print(f"{flagged} of {len(rows)} flagged in {total:.1f} s. 'eps >=' is a 95% lower confidence bound on the "
              "true epsilon at the claimed delta; VIOLATION means it exceeds the claim.", file=out)
        print("'exact on pair' is the certified epsilon of the pair at the claimed delta, from the mechanism's declared "
              "profile ([lo, hi], one number when tight, '<=' for a dominating pair, '-' without structure); it is about "
              "this pair only. REFUTED: no violation found, but the certified epsilon exceeds the claim.", file=out)
    return 0
