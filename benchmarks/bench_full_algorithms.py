"""How tight are the papers' privacy claims? The full algorithms on their worst-case pairs, both threat models.

For every full algorithm of :data:`dpaudit.userlevel.full_algorithms.FULL_ALGORITHMS`: the 95% lower
bound on its epsilon when the adversary sees the final output only (``observe="final"``) and every
noisy release (``observe="transcript"``), on the worst-case pair built for it, against its claim;
beside them the certified epsilon of the transcript on that pair where the transcript is a
composition of known mechanisms (:mod:`dpaudit.userlevel.transcript_profile`: ``[lo, hi]`` for the
pair's exact law, ``<= hi`` for a dominating pair of adaptive steps, else why not), the most any
audit at that trial count reaches on the pair in expectation where its law is a loss grid (the
*optimal test*, :mod:`benchmarks.bench_optimal_test`), and the outcome
:func:`dpaudit.userlevel.full_algorithms.outcome` computes from both: *tight* (transcript bound >= half
the claim), *loose* (the pair's certified epsilon <= half the claim; the factor claim / it), or
*open*. Then every broken
component built into a full algorithm (:data:`~dpaudit.userlevel.full_algorithms.FULL_VARIANTS`):
flagged or not under each threat model, its certified epsilon on its pair, and its outcome
(:func:`~dpaudit.userlevel.full_algorithms.variant_outcome`: flagged, violation certified, masked or open).

Trials: ``10^6`` per dataset, or what fits in about ten minutes per audit on two cores (the
algorithm's ``bench_trials``; printed, and recorded in each row). ``--scale`` multiplies them,
``--trials N`` sets every selected row's count instead, ``--only`` picks rows by name,
``--transcript-only`` skips the algorithms' final-model audits,
``--part algorithms`` or ``variants`` runs one table, ``--from-json FILE`` re-prints a saved
run's tables (the exact column recomputed), ``--markdown`` prints the README's tables.

Run: ``python -m benchmarks.bench_full_algorithms [--scale 0.1 | --trials 1e6] [--only levy] [--part algorithms]
[--markdown] [--seed 0]``.
"""

from __future__ import annotations

import argparse
import json
import re
import time
import warnings
from typing import Any

import dpaudit
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.userlevel.full_algorithms import (
    FULL_ALGORITHMS,
    FULL_VARIANTS,
    TIGHT,
    outcome,
    pair_bracket,
    variant_outcome,
)

CONFIDENCE = 0.95
#: The auditor's estimation share of a transcript's trials (``AttackOptions.selection_fraction`` is 0.3 for vector outputs).
ESTIMATION_SHARE = 0.7


def _audit(mech: Any, wp: Any, trials: int, seed: int) -> Any:
    return dpaudit.audit(mech, wp.d0, wp.d1, epsilon=wp.epsilon, delta=wp.delta, trials=trials, seed=seed,
                         confidence=CONFIDENCE)


def _observed(wp: Any, observe: str, profiled: bool = False) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        return wp.profiled() if profiled else wp.observed(observe)


def _exact_text(bracket: Any, why: str) -> str:
    if bracket is None:  # the first record not covered (the JSON keeps the whole reason)
        law = re.search(r"law '([^']+)'", why)
        return "n/a: " + ("adaptive steps" if "adaptive" in why else f"{law.group(1)} not covered" if law else why[:40])
    return f"[{bracket.lower:.4f}, {bracket.upper:.4f}]" if bracket.exact else f"<= {bracket.upper:.4f}"


def _claim(wp: Any) -> str:
    return f"({wp.epsilon:.3g}, {wp.delta:.0e})".replace("e-0", "e-") if wp.delta > 0 else f"{wp.epsilon:.3g}"


def _trials(bench_trials: int, scale: float, trials: int | None) -> int:
    """``trials`` when given (``--trials``), else the row's ``bench_trials`` times ``scale`` (at least 100)."""
    return trials if trials is not None else max(100, round(bench_trials * scale))


def run(scale: float = 1.0, only: str = "", seed: int = 0, part: str = "all",
        trials: int | None = None, transcript_only: bool = False) -> dict[str, list[dict[str, Any]]]:
    """Audit every selected algorithm and variant; returns the rows of both tables.

    ``trials`` (per dataset) overrides every selected row's count (``--trials``; with ``--only`` to
    run one row at, say, ``10^6``); each row records the count it used. ``transcript_only`` skips
    the algorithms' final-model audits (their cells read "not rerun").
    """
    algorithms, variants = [], []
    for alg in FULL_ALGORITHMS if part in ("all", "algorithms") else ():
        if only and only.lower() not in alg.name.lower():
            continue
        wp = alg.pair()
        n_trials = _trials(alg.bench_trials, scale, trials)
        row: dict[str, Any] = {"algorithm": alg.name, "paper": wp.algorithm, "claim": _claim(wp), "epsilon": wp.epsilon,
                               "delta": wp.delta, "trials": n_trials, "claim_note": wp.claim_note}
        row["final"] = row["final_seconds"] = None
        for observe in ("transcript",) if transcript_only else ("final", "transcript"):
            res = _audit(_observed(wp, observe, observe == "transcript"), wp, n_trials, seed)
            row[observe] = res.epsilon_lower_bound
            row[f"{observe}_attack"] = res.evidence.attack
            row[f"{observe}_seconds"] = res.total_seconds
        row["bracket_verdict"] = res.bracket_verdict
        row["ratio"] = row["transcript"] / wp.epsilon
        algorithms.append(_with_exact(row, wp))
        print(f"{alg.name:<26} claim {row['claim']:<12} final {_num(row['final'], '.3f')}  transcript {row['transcript']:.3f} "
              f"({row['ratio']:.2f} x claim)  exact {row['exact']:<22} {_outcome_text(row):<18} {n_trials:>9,} trials  "
              f"{_num(row['final_seconds'], '.0f')} s + {row['transcript_seconds']:.0f} s", flush=True)
    for var in FULL_VARIANTS if part in ("all", "variants") else ():
        if only and only.lower() not in var.name.lower():
            continue
        wp = var.pair()
        n_trials = _trials(var.bench_trials, scale, trials)
        row = {"variant": var.name, "bug": var.bug, "claim": _claim(wp), "trials": n_trials, "note": var.note}
        for observe in ("final", "transcript"):
            res = _audit(_observed(wp, observe), wp, n_trials, seed)
            row[observe] = res.epsilon_lower_bound
            row[f"{observe}_flagged"] = bool(res.violation)
            row[f"{observe}_seconds"] = res.total_seconds
        variants.append(_variant_exact(row, wp))
        print(f"{var.name:<44} claim {row['claim']:<12} final {row['final']:.3f} "
              f"{'FLAGGED' if row['final_flagged'] else 'missed':<8} transcript {row['transcript']:.3f} "
              f"{'FLAGGED' if row['transcript_flagged'] else 'missed':<8} exact {row['exact']:<22} {row['outcome']:<20} "
              f"{n_trials:>9,} trials", flush=True)
    return {"algorithms": algorithms, "variants": variants}


def _with_exact(row: dict[str, Any], wp: Any) -> dict[str, Any]:
    """``row`` with the pair's certified epsilon and the optimal test's reach (no sampling), and the outcome."""
    bracket, why = pair_bracket(wp)
    row["exact"], row["exact_note"] = _exact_text(bracket, why), why
    row["optimal"] = _optimal(wp, row["trials"])
    row["outcome"], row["factor"] = outcome(wp.epsilon, row["transcript"], bracket)
    return row


def _optimal(wp: Any, trials: int) -> float | None:
    """The optimal test's expected 95% bound at the auditor's estimation share of ``trials``, or ``None``.

    Only where the pair's transcript has a loss-grid profile (:mod:`benchmarks.bench_optimal_test`).
    """
    from benchmarks.bench_optimal_test import optimal_bound
    from dpaudit.exact.pld import PLDProfile
    from dpaudit.exact.profile import ProfileUnavailable
    from dpaudit.userlevel.transcript_profile import transcript_profile

    try:
        profile = transcript_profile(wp.transcript_steps())
    except ProfileUnavailable:
        return None
    if not isinstance(profile, PLDProfile) or profile.kind != "exact":
        return None
    return optimal_bound(profile, int(ESTIMATION_SHARE * trials), wp.delta)[0]


def _variant_exact(row: dict[str, Any], wp: Any) -> dict[str, Any]:
    """``row`` with the variant's certified epsilon on its pair (no sampling) and its outcome."""
    bracket, why = pair_bracket(wp)
    row["exact"], row["exact_note"] = _exact_text(bracket, why), why
    row["outcome"] = variant_outcome(wp.epsilon, row["transcript_flagged"], bracket)
    return row


def rerender(path: str) -> dict[str, list[dict[str, Any]]]:
    """The rows of a saved run (``--json``), the exact column and outcomes recomputed (they need no sampling)."""
    with open(path, encoding="utf-8") as fh:
        rows: dict[str, list[dict[str, Any]]] = json.load(fh)
    by_name = {alg.name: alg for alg in FULL_ALGORITHMS}
    rows["algorithms"] = [_with_exact(r, by_name[r["algorithm"]].pair()) for r in rows["algorithms"]]
    variants = {var.name: var for var in FULL_VARIANTS}
    rows["variants"] = [_variant_exact(r, variants[r["variant"]].pair()) if r["variant"] in variants else r
                        for r in rows["variants"]]
    return rows


def _num(value: float | None, spec: str) -> str:
    """``value`` formatted, or "not rerun" (a final-model audit skipped by ``--transcript-only``)."""
    return "not rerun" if value is None else format(value, spec)


def _outcome_text(row: dict[str, Any]) -> str:
    factor = row.get("factor")
    return row["outcome"] + (f" ({factor:.2f} x)" if row["outcome"] == "loose" and factor is not None else "")


def markdown(rows: dict[str, list[dict[str, Any]]]) -> str:
    """The README's tables (those with rows)."""
    lines: list[str] = []
    if rows["algorithms"]:
        lines += ["| algorithm | claim | final-model bound | transcript bound | optimal test | exact on the worst pair | outcome "
                  "| trials | s per audit |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in rows["algorithms"]:
            optimal = "-" if r.get("optimal") is None else f"{r['optimal']:.3f}"
            lines.append(f"| {r['paper']} ({r['algorithm']}) | {r['claim']} | {_num(r['final'], '.3f')} | {r['transcript']:.3f} "
                         f"({r['ratio']:.2f} x) | {optimal} | {r['exact']} | {_outcome_text(r)} | {r['trials']:,} | "
                         f"{_num(r['final_seconds'], '.0f')} / {r['transcript_seconds']:.0f} |")
    if rows["variants"]:
        lines += ["", "| broken component in the full algorithm | claim | final model | transcript | exact on the pair | outcome | trials |",
                  "|---|---|---|---|---|---|---|"]
        for r in rows["variants"]:
            final, full = (f"{r[o]:.3f} {'**flagged**' if r[f'{o}_flagged'] else 'missed'}" for o in ("final", "transcript"))
            lines.append(f"| {r['variant']} | {r['claim']} | {final} | {full} | {r.get('exact', '')} | {r.get('outcome', '')} "
                         f"| {r['trials']:,} |")
    return "\n".join(lines).strip("\n")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_full_algorithms", description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every trial count (default 1)")
    parser.add_argument("--trials", type=float, default=None,
                        help="trials per dataset for every selected row (e.g. 1e6), instead of its own count x --scale")
    parser.add_argument("--transcript-only", action="store_true",
                        help="audit the algorithms under the transcript model only (the final-model cells read 'not rerun')")
    parser.add_argument("--only", default="", help="a substring of the algorithm or variant names")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--part", choices=("all", "algorithms", "variants"), default="all",
                        help="the algorithms' table, the variants', or both (default)")
    parser.add_argument("--markdown", action="store_true", help="print the README tables at the end")
    parser.add_argument("--json", default="", help="also write the rows to this JSON file")
    parser.add_argument("--from-json", default="", help="print the tables of a saved run (--json) instead of running")
    args = parser.parse_args(argv)
    if args.from_json:
        print(markdown(rerender(args.from_json)))
        return
    started = time.perf_counter()
    if args.trials is not None and not (args.trials >= 1 and float(args.trials).is_integer()):
        parser.error(f"--trials must be a positive whole number, got {args.trials}")
    rows = run(args.scale, args.only, args.seed, args.part, None if args.trials is None else int(args.trials),
               args.transcript_only)
    print(f"\n{len(rows['algorithms'])} algorithms, {len(rows['variants'])} variants in {time.perf_counter() - started:.0f} s "
          f"(95% confidence; outcome 'tight' when the transcript bound is >= {TIGHT} x the claim, 'loose' when the "
          f"pair's certified epsilon is <= {TIGHT} x the claim (factor claim / it), else 'open')")
    if args.markdown:
        print()
        print(markdown(rows))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
