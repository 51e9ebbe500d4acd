"""Utility of Lowy, Liu and Asi (2024) on the linear problem with a known optimum: fitted log-log slopes.

Prints, with the rate's slope beside each fit (Theorems 2.1 and 3.2 are upper bounds up to logs):

* Algorithm 3's released output (eps = 10, delta = 0.05, d = 1, one full-batch phase) against n, and
  its per-step noise sigma_1, which must fall below the gradient scale before the excess risk decays;
* Algorithm 3 without privacy noise against n (the optimisation and sampling terms);
* Algorithm 1 without privacy noise against n m, from where phase 1 first reaches the optimum;
* Algorithm 1's released output against n at feasible sizes (its phase-1 noise does not decay with n m).

Run: ``python -m benchmarks.bench_lowy2024_utility [--quick]``.
"""

from __future__ import annotations

import argparse

import numpy as np

from dpaudit.userlevel.comparison import fit_log_slope
from dpaudit.userlevel.lowy2024 import AcceleratedPhasedERM, OutlierRemovalPhasedSGD
from dpaudit.userlevel.lowy2024.utility import LinearBallProblem, noise_free_alg1, noise_free_alg3


def _report(label: str, xs: list[int], samples: list[list[float]], rate: float) -> None:
    fit = fit_log_slope(xs, [np.maximum(s, 1e-12) for s in samples])
    lo, hi = fit.interval(1e-3)
    means = ", ".join(f"{np.mean(s):.3g}" for s in samples)
    print(f"{label:<58} slope {fit.slope:6.2f}  [{lo:.2f}, {hi:.2f}]  rate {rate:+.2f}   mean excess: {means}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench_lowy2024_utility")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    prob1 = LinearBallProblem((0.5,))
    a3 = AcceleratedPhasedERM(prob1.loss, 10.0, 5e-2, radius=1.0, feature_bound=prob1.feature_bound,
                              label_bound=prob1.label_bound, smoothness=0.0, phases=1, q=1.0)
    ns = [3200, 6400] if args.quick else [3200, 6400, 12800]
    samples = [prob1.excess_risk(a3.sample(prob1.sample(n, 10, rng=rng), 12, rng=rng)).tolist() for n in ns]
    sig = ", ".join(f"{a3.parameters(n, 10, 1).phase_sigmas[0]:.3g}" for n in ns)
    _report(f"Alg 3 released, eps=10, m=10, n={ns} (sigma_1: {sig})", ns, samples, -1.0)
    prob2 = LinearBallProblem((0.3, 0.1))
    a3b = AcceleratedPhasedERM(prob2.loss, 8.0, 1e-2, radius=1.0, feature_bound=prob2.feature_bound,
                               label_bound=prob2.label_bound, smoothness=0.0, phases=1, q=1.0)
    ns2 = [800, 1200, 1600, 2400]
    samples = [[prob2.excess_risk(noise_free_alg3(a3b, prob2.sample(n, 4, rng=rng), rng=rng)) for _ in range(4)] for n in ns2]
    _report(f"Alg 3 noise-free, m=4, n={ns2}", ns2, samples, -0.5)
    a1 = OutlierRemovalPhasedSGD(prob1.loss, 10.0, 1e-3, radius=1.0, feature_bound=prob1.feature_bound,
                                 label_bound=prob1.label_bound, phases=1, q=1.0)
    sizes = [16_000, 32_000] if args.quick else [16_000, 32_000, 64_000]
    samples = []
    for n in sizes:
        row = []
        for _ in range(2):
            z = np.zeros((n, 500, 2))
            z[: n // 4] = prob1.sample(n // 4, 500, rng=rng)
            row.append(float(prob1.excess_risk(noise_free_alg1(a1, z, rng=rng))))
        samples.append(row)
    _report(f"Alg 1 noise-free, eps=10, m=500, n={sizes}", [n * 500 for n in sizes], samples, -0.5)
    a1b = OutlierRemovalPhasedSGD(prob1.loss, 10.0, 1e-3, radius=1.0, feature_bound=prob1.feature_bound,
                                  label_bound=prob1.label_bound)
    ns3 = [2000, 8000, 32000]
    samples = [prob1.excess_risk(a1b.sample(prob1.sample(n, 20, rng=rng), 20, rng=rng)).tolist() for n in ns3]
    _report(f"Alg 1 released, eps=10, m=20, n={ns3} (all phases)", ns3, samples, -0.5)
    print("A slope at or below the rate's (within its interval plus the logs' local slope) is consistent with the theorem;"
          " the trivial excess (output 0) is R ||mu|| = 0.5 for the d = 1 problem.")


if __name__ == "__main__":
    main()
