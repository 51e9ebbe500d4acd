"""Linear time: wall time of Ghazi et al. (2025) against n*m, beside Levy et al.'s Phased ERM, in one run.

For each algorithm the benchmark times ``sample(data, trials)`` on datasets of growing ``n`` (``m``
fixed) and of growing ``m`` (``n`` fixed), fits ``log time = a + b log(n m)`` and prints the exponent
``b`` with its standard error, next to each algorithm's gradient count per trial. The data are the
linear instance of Sec. 4 (``d = 1``) for both algorithms; Ghazi et al. are also timed on the
separable Huber loss, whose gradients depend on the iterate (so every trial really differentiates
every item). Timings are medians of repeats interleaved across algorithms (machine noise hits all
alike); nothing here asserts a time.

Run: ``python -m benchmarks.bench_ghazi2025_scaling [--quick]``.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

from benchmarks._timing import interleaved
from dpaudit.userlevel.comparison import LinearUtilityProblem, fit_log_slope
from dpaudit.userlevel.ghazi2025.algorithms import RobustStatsLocalization
from dpaudit.userlevel.ghazi2025.losses import SeparableHuberLoss

EPS, DELTA = 1.0, 1e-3


def _huber_data(data: np.ndarray) -> np.ndarray:
    out = data.copy()
    out[..., -1] = 1.0  # weight 1: y * sum_j h(theta_j - x_j)
    return out


def main(argv: list[str] | None = None) -> dict[str, tuple[float, float]]:
    parser = argparse.ArgumentParser(prog="bench_ghazi2025_scaling")
    parser.add_argument("--quick", action="store_true", help="smaller grid (about a minute)")
    parser.add_argument("--trials", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    from dpaudit.userlevel.levy2021.phased_erm import PhasedERM

    rng = np.random.default_rng(0)
    prob = LinearUtilityProblem((0.25,), spread=0.75)
    ghazi = RobustStatsLocalization(prob.loss, EPS, DELTA)
    ghazi_huber = RobustStatsLocalization(SeparableHuberLoss(beta=1.0, gradient_cap=1.0), EPS, DELTA, radius=1.0)
    levy = PhasedERM(prob.loss, EPS, DELTA, radius=1.0, feature_bound=1.0, smoothness=0.0)
    n_grid = [8_000, 16_000, 32_000, 64_000] if args.quick else [8_000, 16_000, 32_000, 64_000, 128_000]
    m_grid = [2, 4, 8, 16] if args.quick else [2, 4, 8, 16, 32]
    sweeps = {"n (m = 8)": [(n, 8) for n in n_grid], "m (n = 16000)": [(16_000, m) for m in m_grid]}
    names = ("Ghazi et al. 2025, linear loss", "Ghazi et al. 2025, Huber loss", "Levy et al. 2021 Phased ERM")
    results: dict[str, tuple[float, float]] = {}
    print(f"trials per call: {args.trials}; median of {args.repeats} interleaved repeats; eps={EPS}, delta={DELTA}, d=1")
    for sweep, grid in sweeps.items():
        times: dict[str, list[float]] = {k: [] for k in names}
        print(f"\n-- sweep over {sweep}")
        print(f"{'n':>8} {'m':>4} {'n*m':>9} " + " ".join(f"{k[:34]:>36}" for k in names))
        for n, m in grid:
            data = prob.sample(n, m, rng=rng)
            hdata = _huber_data(data)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t = interleaved({
                    names[0]: lambda d=data: ghazi.sample(d, args.trials, rng=rng),
                    names[1]: lambda d=hdata: ghazi_huber.sample(d, args.trials, rng=rng),
                    names[2]: lambda d=data: levy.sample(d, args.trials, rng=rng),
                }, repeats=args.repeats)
            for k in names:
                times[k].append(t[k])
            g_ghazi, g_levy = ghazi.parameters(n, m, 1).gradient_evaluations, levy.gradient_count(n, m, 1)
            print(f"{n:>8} {m:>4} {n * m:>9} " + " ".join(f"{t[k]:>30.3f} s   " for k in names)
                  + f"  gradients/trial / (n*m): Ghazi {g_ghazi / (n * m):.3f}, Levy {g_levy / (n * m):.1f}")
        nm = [n * m for n, m in grid]
        for k in names:
            # one replicate per point: the slope's standard error comes from the residuals across the grid
            fit = fit_log_slope(nm, [[v] for v in times[k]])
            results[f"{k} | {sweep}"] = (fit.slope, fit.standard_error)
            print(f"   time exponent vs n*m, {k:<34}: {fit.slope:6.3f} +- {fit.standard_error:.3f}")
        ratio = [times[names[2]][i] / times[names[0]][i] for i in range(len(grid))]
        print("   Levy / Ghazi (linear loss) time ratio: " + ", ".join(f"{r:.1f}" for r in ratio))
    print("\nAn exponent near 1 is linear time. Ghazi et al. compute n*m gradients per trial (each user once);"
          " Phased ERM computes steps_t * n_t * m per round (several passes over each round's users).")
    return results


if __name__ == "__main__":
    main()
