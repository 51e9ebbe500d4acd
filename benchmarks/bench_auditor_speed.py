"""Audit time over bare sampling time of the same outputs, as a ratio measured in one run.

Bare sampling calls the mechanism once per dataset for ``TRIALS`` outputs and holds both
results; the audit draws the same number per dataset, chooses its event and evaluates it. Target: at most 1.5x for scalar
outputs of a plain callable ``fn(data, rng, size=None)`` at 2*10^6 trials. Timings alternate
between the two (median of repeats), so machine load hits both alike; the ratio is given in
wall time and in CPU time of this process (steadier when other work shares the machine).
Run: ``python -m benchmarks.bench_auditor_speed``.
"""

from __future__ import annotations

import time

import numpy as np

import dpaudit
from benchmarks._timing import interleaved
from dpaudit.mechanisms import DiscreteLaplaceMechanism, GaussianMechanism, LaplaceMechanism

TRIALS = 2 * 10**6


def laplace_callable(data, rng, size=None):
    """A plain callable in numpy's convention: Laplace(1) noise."""
    return rng.laplace(data, 1.0, size=size)


def gaussian_callable(data, rng, size=None):
    """A plain callable in numpy's convention: Gaussian noise, sigma 3.73 (the (1, 1e-5) calibration)."""
    return rng.normal(data, 3.7306, size=size)


def main(argv: list[str] | None = None) -> None:
    cases = [
        ("Laplace, plain callable", laplace_callable, 0.0, 1.0, {"epsilon": 1.0}),
        ("Gaussian, plain callable", gaussian_callable, 0.0, 1.0, {"epsilon": 1.0, "delta": 1e-5}),
        ("LaplaceMechanism", LaplaceMechanism(1.0), 0.0, 1.0, {}),
        ("GaussianMechanism", GaussianMechanism(1.0, 1e-5), 0.0, 1.0, {}),
        ("DiscreteLaplaceMechanism", DiscreteLaplaceMechanism(1.0), 0, 1, {}),
    ]
    print(f"{'mechanism':<26} {'bare (trials/s)':>16} {'audit (trials/s)':>17} {'audit / bare':>13} {'(CPU time)':>11}")
    for name, mech, d0, d1, claim in cases:
        rng = np.random.default_rng(0)

        def bare(mech=mech, d0=d0, d1=d1, rng=rng):
            # both datasets' outputs held at once, as the audit holds them
            if callable(mech) and not hasattr(mech, "sample"):
                return mech(d0, rng, size=TRIALS), mech(d1, rng, size=TRIALS)
            return mech.sample(d0, TRIALS, rng=rng), mech.sample(d1, TRIALS, rng=rng)

        def audited(mech=mech, d0=d0, d1=d1, claim=claim):
            dpaudit.audit(mech, d0, d1, trials=TRIALS, seed=1, **claim)

        t = interleaved({"bare": bare, "audit": audited}, repeats=5)
        cpu = interleaved({"bare": bare, "audit": audited}, repeats=5, clock=time.process_time)
        print(f"{name:<26} {TRIALS / t['bare']:>16,.0f} {TRIALS / t['audit']:>17,.0f} {t['audit'] / t['bare']:>12.2f}x "
              f"{cpu['audit'] / cpu['bare']:>10.2f}x", flush=True)
    print(f"target: at most 1.5x for scalar outputs of a plain callable at {TRIALS:,} trials")


if __name__ == "__main__":
    main()
