"""Audit throughput against bare sampling throughput of the same mechanism, in one run.

Bare sampling draws the same outputs the audit needs (``trials`` per dataset, both datasets) with
one ``sample`` call per dataset. Target (issue 3): audit time / bare time below 1.5 for scalar
mechanisms at 10^6 trials. Run: ``python -m benchmarks.bench_auditor_speed``.
"""

from __future__ import annotations

import numpy as np

import dpaudit
from benchmarks._timing import interleaved
from dpaudit.mechanisms import DiscreteLaplaceMechanism, GaussianMechanism, LaplaceMechanism

TRIALS = 10**6


def main(argv: list[str] | None = None) -> None:
    cases = [
        ("Laplace", LaplaceMechanism(1.0), 0.0, 1.0),
        ("Gaussian (analytic)", GaussianMechanism(1.0, 1e-5), 0.0, 1.0),
        ("discrete Laplace", DiscreteLaplaceMechanism(1.0), 0, 1),
    ]
    print(f"{'mechanism':<22} {'bare (trials/s)':>16} {'audit (trials/s)':>17} {'overhead':>9}")
    for name, mech, d0, d1 in cases:
        rng = np.random.default_rng(0)

        def bare(mech=mech, d0=d0, d1=d1, rng=rng):
            mech.sample(d0, TRIALS, rng=rng)
            mech.sample(d1, TRIALS, rng=rng)

        def audited(mech=mech, d0=d0, d1=d1):
            dpaudit.audit(mech, d0, d1, trials=TRIALS, seed=1)

        t = interleaved({"bare": bare, "audit": audited}, repeats=5)
        print(f"{name:<22} {TRIALS / t['bare']:>16,.0f} {TRIALS / t['audit']:>17,.0f} {t['audit'] / t['bare']:>8.2f}x")
    print("target: overhead below 1.5x for scalar mechanisms at 10^6 trials")


if __name__ == "__main__":
    main()
