"""Runtime of Lowy, Liu and Asi (2024): wall time against n*m for Algorithms 1 and 3, beside Ghazi 2025 and Levy 2021.

For each algorithm the benchmark times ``sample(data, trials)`` on datasets of growing ``n`` (``m``
fixed) and of growing ``m`` (``n`` fixed), fits ``log time = a + b log(n m)`` and prints the exponent
``b`` with its standard error and the gradients computed per trial over ``n m``. Algorithm 1
(linear time, Thm 2.1), Ghazi et al.'s localization (:class:`~dpaudit.userlevel.RobustStatsLocalization`)
and Levy et al.'s Phased ERM (:class:`~dpaudit.userlevel.levy2021.PhasedERM`) run on the same data: the
linear instance of :class:`~dpaudit.userlevel.comparison.LinearUtilityProblem` (``d = 1``, the
same loss). Algorithm 3 runs on its own smaller grid (full minibatches ``K_i = n_i``: its test
computes ``K_i^2`` distances per step, which dominates its time; its gradient count is
``sum T_i K_i m``). Timings are medians of repeats interleaved across algorithms; nothing asserts a time.

Run: ``python -m benchmarks.bench_lowy2024_scaling [--quick]``.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

from benchmarks._timing import interleaved
from dpaudit.userlevel.comparison import LinearUtilityProblem, fit_log_slope
from dpaudit.userlevel.ghazi2025.algorithms import RobustStatsLocalization
from dpaudit.userlevel.levy2021.phased_erm import PhasedERM
from dpaudit.userlevel.lowy2024 import AcceleratedPhasedERM, OutlierRemovalPhasedSGD

EPS, DELTA = 1.0, 1e-3


def _sweep(label: str, grid: list[tuple[int, int]], algos: dict[str, tuple[object, object]], prob: LinearUtilityProblem,
           trials: int, repeats: int, rng: np.random.Generator) -> dict[str, tuple[float, float]]:
    times: dict[str, list[float]] = {k: [] for k in algos}
    print(f"\n-- sweep over {label}")
    print(f"{'n':>8} {'m':>4} {'n*m':>9} " + " ".join(f"{k[:30]:>32}" for k in algos))
    for n, m in grid:
        data = prob.sample(n, m, rng=rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = interleaved({k: (lambda mech=mech, d=data: mech.sample(d, trials, rng=rng)) for k, (mech, _) in algos.items()},
                            repeats=repeats)
        for k in algos:
            times[k].append(t[k])
        counts = ", ".join(f"{k.split(',')[0]} {count(n, m) / (n * m):.2f}" for k, (_, count) in algos.items())
        print(f"{n:>8} {m:>4} {n * m:>9} " + " ".join(f"{t[k]:>28.3f} s  " for k in algos) + f"  gradients/(n m): {counts}")
    out = {}
    nm = [n * m for n, m in grid]
    for k in algos:
        fit = fit_log_slope(nm, [[v] for v in times[k]])  # one replicate per point: SE from the residuals
        out[f"{k} | {label}"] = (fit.slope, fit.standard_error)
        print(f"   time exponent vs n*m, {k:<30}: {fit.slope:6.3f} +- {fit.standard_error:.3f}")
    return out


def main(argv: list[str] | None = None) -> dict[str, tuple[float, float]]:
    parser = argparse.ArgumentParser(prog="bench_lowy2024_scaling")
    parser.add_argument("--quick", action="store_true", help="smaller grids")
    parser.add_argument("--trials", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    prob = LinearUtilityProblem((0.25,), spread=0.75)
    loss = prob.loss
    alg1 = OutlierRemovalPhasedSGD(loss, EPS, DELTA, label_bound=1.0)
    ghazi = RobustStatsLocalization(loss, EPS, DELTA)
    levy = PhasedERM(loss, EPS, DELTA, radius=1.0, feature_bound=1.0, smoothness=0.0)
    linear = {
        "Lowy 2024 Alg 1": (alg1, lambda n, m: alg1.parameters(n, m, 1).gradient_evaluations),
        "Ghazi 2025 localization": (ghazi, lambda n, m: ghazi.parameters(n, m, 1).gradient_evaluations),
        "Levy 2021 Phased ERM": (levy, lambda n, m: levy.gradient_count(n, m, 1)),
    }
    n_grid = [8_000, 16_000, 32_000] if args.quick else [8_000, 16_000, 32_000, 64_000]
    m_grid = [2, 4, 8] if args.quick else [2, 4, 8, 16]
    print(f"trials per call: {args.trials}; median of {args.repeats} interleaved repeats; eps={EPS}, delta={DELTA}, d=1")
    results = _sweep("n (m = 8)", [(n, 8) for n in n_grid], linear, prob, args.trials, args.repeats, rng)
    results |= _sweep("m (n = 16000)", [(16_000, m) for m in m_grid], linear, prob, args.trials, args.repeats, rng)
    alg3 = AcceleratedPhasedERM(loss, 8.0, 1e-2, label_bound=1.0, smoothness=0.0, phases=1, q=1.0)
    accel = {"Lowy 2024 Alg 3 (eps=8, delta=0.01)": (alg3, lambda n, m: alg3.parameters(n, m, 1).gradient_evaluations)}
    a3_n = [800, 1600, 3200] if args.quick else [800, 1600, 3200, 6400]
    results |= _sweep("n (m = 8), Algorithm 3", [(n, 8) for n in a3_n], accel, prob, max(4, args.trials // 8),
                      args.repeats, rng)
    results |= _sweep("m (n = 1600), Algorithm 3", [(1600, m) for m in m_grid], accel, prob, max(4, args.trials // 8),
                      args.repeats, rng)
    print("\nAn exponent near 1 is linear time. Algorithm 1 computes sum_i C N_i m <= n m gradients per trial; Algorithm 3"
          " computes sum T_i K_i m with K_i = n_i and its test K_i^2 distances per step (quadratic in n_i).")
    return results


if __name__ == "__main__":
    main()
