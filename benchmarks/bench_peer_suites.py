"""The DP-testing literature's suite, audited by dpaudit beside the peers' published bounds.

For every entry of :mod:`dpaudit.literature_suite`: the claim, DP-Sniper's and StatDP's published
lower bounds (confidence 0.9; DP-Sniper with 2*10^8 final samples per side, StatDP through
DP-Sniper's wrapper), and dpaudit's bound (confidence 0.95) with its time at each trial count.
``flag`` says what the verdict should be: ``!`` marks a broken entry not flagged or a correct
one flagged. The last lines give, per trial count, the geometric mean of dpaudit's bound over
DP-Sniper's published one, as is and with each ratio capped at 1 (over the entries where
dpaudit's bound is positive; the entries at 0 are counted apart), and the number of broken
entries flagged.

Run: ``python -m benchmarks.bench_peer_suites [--trials 1e6,1e7] [--only svt,rappor] [--seed 0]``.
At 10^7 trials per side some entries take minutes each on a 2-core machine.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from dpaudit.literature_suite import PUBLISHED, literature_cases


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_peer_suites")
    parser.add_argument("--trials", default="1e6,1e7", help="comma-separated trial counts per side")
    parser.add_argument("--only", default="", help="comma-separated substrings of entry names")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    counts = [int(float(t)) for t in args.trials.split(",") if t]
    wanted = [w.strip().lower() for w in args.only.split(",") if w.strip()]
    # each entry's seed goes by its place in the whole suite, so --only reruns the same audits
    cases = [(i, c) for i, c in enumerate(literature_cases()) if not wanted or any(w in c.name.lower() for w in wanted)]
    head = f"{'entry':<40} {'claim':>7} {'DP-Sniper':>9} {'StatDP':>8} " + " ".join(f"{f'{n:.0e} eps>=':>12} {'sec':>6}" for n in counts) + "  flag"
    print(head)
    print("-" * len(head), flush=True)
    ratios: dict[int, list[float]] = {n: [] for n in counts}
    flagged: dict[int, list[bool]] = {n: [] for n in counts}
    for i, case in cases:
        dpsniper, statdp = PUBLISHED[case.name.split(" (")[0]]
        cells, verdicts = [], []
        claim = None
        for n in counts:
            res = case.audit(seed=np.random.SeedSequence([args.seed, i, n]), trials=n)
            claim = res.claimed_epsilon
            cells.append(f"{res.epsilon_lower_bound:>12.4f} {res.total_seconds:>6.1f}")
            verdicts.append(res.violation)
            if dpsniper is not None:
                ratios[n].append(res.epsilon_lower_bound / dpsniper)
            if case.broken:
                flagged[n].append(res.violation)
        ok = all(v == case.broken for v in verdicts)
        flag = ("broken" if case.broken else "correct") + ("" if ok else " !")
        print(f"{case.name[:40]:<40} {claim:>7.4f} {_fmt(dpsniper):>9} {_fmt(statdp):>8} " + " ".join(cells) + f"  {flag}", flush=True)
    print("DP-Sniper / StatDP: published at confidence 0.9 (eval_sp2021/reference-results); dpaudit at 0.95.")
    for n in counts:
        positive = [r for r in ratios[n] if r > 0]
        geo = math.exp(sum(math.log(r) for r in positive) / len(positive)) if positive else float("nan")
        capped = math.exp(sum(math.log(min(r, 1.0)) for r in positive) / len(positive)) if positive else float("nan")
        print(f"{n:.0e} trials: geometric mean of dpaudit / DP-Sniper {geo:.3f} ({capped:.3f} with each ratio capped "
              f"at 1) over the {len(positive)} entries with a positive bound ({len(ratios[n]) - len(positive)} at 0, "
              f"left out of both); broken entries flagged {sum(flagged[n])} of {len(flagged[n])}")


if __name__ == "__main__":
    main()
