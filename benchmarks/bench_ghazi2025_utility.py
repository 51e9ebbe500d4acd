"""Utility of Ghazi et al. (2025) against Theorem 3.1, and against Levy et al.'s Phased ERM on the same data.

Two measurements on the linear instance with a known optimum (``LinearUtilityProblem``, Sec. 4):

1. Log-log slopes of the excess risk in ``n``, ``m`` and ``d`` of Algorithm 1 with its privacy noise
   removed (``noise_free_output``), with standard errors from replicate datasets, beside the slope of
   Theorem 3.1's second term (with the log factors of the proof of Lemma 3.12) and its nominal
   exponent (-1, -1/2, +3/2).
2. The released excess of Algorithm 5 (safe preset) and of Levy et al.'s Phased ERM against ``n`` on
   the same datasets, with the noise-free curves, Theorem 3.1's rate and the trivial level, saved as
   ``benchmarks/results/ghazi2025_utility.png``; the phase noise ``sigma_s / D`` is printed to show why
   the released excess stays at the trivial level at these sizes.

Run: ``python -m benchmarks.bench_ghazi2025_utility [--quick]``.
"""

from __future__ import annotations

import argparse
import pathlib

import numpy as np

from dpaudit.userlevel.comparison import (
    LinearUtilityProblem,
    fit_log_slope,
    plot_excess_risk_comparison,
)
from dpaudit.userlevel.ghazi2025.algorithms import RobustStatsLocalization, RobustStatsSGD
from dpaudit.userlevel.ghazi2025.utility import noise_free_output, theorem_3_1_rate

EPS, DELTA = 1.0, 1e-3
RESULTS = pathlib.Path(__file__).resolve().parent / "results"


def _slope_sweep(name: str, grid: list[int], make, nominal: float, datasets: int, rng: np.random.Generator) -> None:
    reps, rate = [], []
    for v in grid:
        n, m, d = make(v)
        prob = LinearUtilityProblem((0.25,) * d, spread=0.75)
        mech = RobustStatsSGD(prob.loss, EPS, DELTA)
        ex = []
        for _ in range(datasets):
            x, ok = noise_free_output(mech, prob.sample(n, m, rng=rng))
            ex.append(float(prob.excess_risk(x)) if ok else float("nan"))
        reps.append(ex)
        rate.append(theorem_3_1_rate(n, m, d, EPS, DELTA)[1])
        print(f"   {name}={v:>7}: noise-free excess {np.mean(ex):.5f} (sd {np.std(ex, ddof=1):.1e}), "
              f"Theorem 3.1 second term {rate[-1]:.5f}")
    fit = fit_log_slope(grid, reps)
    lo, hi = fit.interval(0.05)
    theorem = float(np.polyfit(np.log(grid), np.log(rate), 1)[0])
    print(f"   slope in {name}: fitted {fit.slope:.3f} +- {fit.standard_error:.3f} (95% [{lo:.3f}, {hi:.3f}]); "
          f"Theorem 3.1 term {theorem:.3f}; nominal {nominal:+.1f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench_ghazi2025_utility")
    parser.add_argument("--quick", action="store_true", help="smaller grids (a few minutes)")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    datasets = 2 if args.quick else 3
    print(f"1. Algorithm 1 with the privacy noise removed, eps={EPS}, delta={DELTA}, mu=0.25, D=G=1")
    _slope_sweep("n", [40_000, 80_000, 160_000] if args.quick else [40_000, 80_000, 160_000, 320_000],
                 lambda v: (v, 16, 1), -1.0, datasets, rng)
    _slope_sweep("m", [4, 16, 64], lambda v: (80_000, v, 1), -0.5, datasets, rng)
    _slope_sweep("d", [1, 2] if args.quick else [1, 2, 4], lambda v: (80_000, 16, v), 1.5, datasets, rng)

    print("\n2. Released outputs (Algorithm 5, safe preset) against Levy et al. on the same data, d = 1, m = 16")
    prob = LinearUtilityProblem((0.25,), spread=0.75)
    n_values = [8_000, 16_000, 32_000, 64_000] if args.quick else [8_000, 16_000, 32_000, 64_000, 128_000]
    for n in n_values:
        p = RobustStatsLocalization(prob.loss, EPS, DELTA).parameters(n, 16, 1)
        print(f"   n={n:>7}: phases {p.phases}, sigma_s / D = " + ", ".join(f"{s:.3g}" for s in p.phase_sigmas))
    fig = plot_excess_risk_comparison(prob, n_values, 16, rng=rng, epsilon=EPS, delta=DELTA,
                                      trials=20 if args.quick else 40, datasets=2)
    for label, xs, means, ses in fig.dpaudit_series:
        print(f"   {label:<42} " + "  ".join(f"n={int(x)}: {mu:.4f}+-{se:.4f}" for x, mu, se in zip(xs, means, ses, strict=True)))
        if len(xs) > 1 and min(means) > 0:
            slope = float(np.polyfit(np.log(xs), np.log(means), 1)[0])
            print(f"   {'':<42} log-log slope in n: {slope:.3f}")
    print(f"   trivial level D*sum|mu| = {prob.trivial_excess}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "ghazi2025_utility.png"
    fig.savefig(out, dpi=120)
    print(f"   saved {out}")


if __name__ == "__main__":
    main()
