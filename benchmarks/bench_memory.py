"""Peak memory (RSS) of an audit as the trial count grows, each case in a fresh process.

An audit keeps the *selection* rows (the fraction of the trials that chooses the attack) and then
streams the estimation rows block by block, reducing each block to event counts as it arrives
(:mod:`dpaudit.auditor.streaming`), so its memory is O(selection rows + one block), not
O(trials). Cases:

* a d = 1000 vector mechanism (:class:`~dpaudit.mechanisms.GaussianMechanism` on ``0`` vs ``e_1``)
  at 10^4, 3*10^4 and 10^5 trials per dataset. Target: the peak at 10^5 trials at most a third of
  the 3.57 GB the issue measured before streaming (``--baseline DIR`` measures a checkout of the old
  code in the same run and prints the ratio);
* a scalar mechanism (Laplace noise, a plain callable) at 10^8 trials per dataset. Target: under
  500 MB.

Each figure is ``ru_maxrss`` of a child process that imports dpaudit and runs one audit; the
import alone is printed for reference. Run:
``python -m benchmarks.bench_memory [--baseline DIR] [--only vector|scalar]``
(memory, not time, so a busy machine changes the figures little; the time taken is printed too).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VECTOR_TRIALS = (10_000, 30_000, 100_000)
SCALAR_TRIALS = 10**8
BEFORE_VECTOR_1E5_GB = 3.57  # the figure for the code before streaming (d = 1000, 10^5 trials)
SCALAR_TARGET_MB = 500

_CHILD = """
import json, resource, sys, time
import numpy as np
import dpaudit
from dpaudit.mechanisms import GaussianMechanism

def laplace(data, rng, size=None):
    return rng.laplace(data, 1.0, size)

case, trials = sys.argv[1], int(sys.argv[2])
start = time.perf_counter()
if case == "vector":
    d0 = np.zeros(1000)
    d1 = d0.copy()
    d1[0] = 1.0
    res = dpaudit.audit(GaussianMechanism(1.0, 1e-5), d0, d1, trials=trials, seed=0)
elif case == "scalar":
    res = dpaudit.audit(laplace, 0.0, 1.0, epsilon=1.0, trials=trials, seed=0)
else:
    res = None
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kilobytes on Linux
print(json.dumps({"peak": peak, "seconds": time.perf_counter() - start,
                  "bound": None if res is None else res.epsilon_lower_bound}))
"""


def measure(case: str, trials: int, code: Path) -> dict[str, float]:
    """Peak RSS (bytes), seconds and bound of one audit run in a fresh process on the code at ``code``."""
    env = {**os.environ, "PYTHONPATH": str(code), "OMP_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", _CHILD, case, str(trials)], env=env, capture_output=True, text=True,
                         check=False, cwd=code)
    if out.returncode != 0:
        return {"peak": float("nan"), "seconds": float("nan"), "bound": float("nan"),
                "error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def _row(label: str, trials: int, figures: dict[str, float], base: dict[str, float] | None) -> str:
    text = f"{label:<28} {trials:>12,} {figures['peak'] / 2**20:>10,.0f} MB {figures['seconds']:>8.1f} s"
    if "error" in figures:
        text += f"  failed: {figures['error']}"
    if base is not None:
        text += f"   before: {base['peak'] / 2**20:>7,.0f} MB ({figures['peak'] / base['peak']:.2f}x)"
        if "error" in base:
            text += f" [before failed: {base['error']}]"
    return text


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_memory")
    parser.add_argument("--baseline", type=Path, help="a checkout of older dpaudit code, measured in the same run")
    parser.add_argument("--only", choices=("vector", "scalar"), help="run one case family")
    args = parser.parse_args(argv)
    print(f"{'case':<28} {'trials':>12} {'peak RSS':>13} {'time':>10}")
    idle = measure("import", 0, REPO)
    print(f"{'import dpaudit only':<28} {'':>12} {idle['peak'] / 2**20:>10,.0f} MB")
    if args.only in (None, "vector"):
        for trials in VECTOR_TRIALS:
            base = measure("vector", trials, args.baseline) if args.baseline else None
            now = measure("vector", trials, REPO)
            print(_row("Gaussian, d = 1000", trials, now, base), flush=True)
        print(f"target: at 10^5 trials at most a third of {BEFORE_VECTOR_1E5_GB} GB, i.e. "
              f"{BEFORE_VECTOR_1E5_GB / 3 * 1024:,.0f} MB; measured {now['peak'] / 2**20:,.0f} MB")
    if args.only in (None, "scalar"):
        now = measure("scalar", SCALAR_TRIALS, REPO)
        print(_row("Laplace, scalar callable", SCALAR_TRIALS, now, None), flush=True)
        print(f"target: under {SCALAR_TARGET_MB} MB; measured {now['peak'] / 2**20:,.0f} MB")


if __name__ == "__main__":
    main()
