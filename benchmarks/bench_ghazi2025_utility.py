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
import math
import pathlib
import time

import numpy as np

from dpaudit.userlevel.comparison import (
    LinearUtilityProblem,
    fit_log_slope,
    plot_excess_risk_comparison,
)
from dpaudit.userlevel.ghazi2025.algorithms import RobustStatsLocalization, RobustStatsSGD
from dpaudit.userlevel.ghazi2025.usefulness import (
    drift_excess,
    phase_noise_ratio,
    smallest_useful_users,
)
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


def _usefulness(quick: bool, rng: np.random.Generator) -> None:
    prob = LinearUtilityProblem((0.25,), spread=0.75)
    mech = RobustStatsLocalization(prob.loss, EPS, DELTA)
    trivial = prob.trivial_excess
    print(f"3. Where the safe preset beats x = 0 (eps={EPS}, delta={DELTA}, linear instance mu=0.25, D=G=1; "
          f"trivial excess {trivial})")
    print("   closed-form sigma_1 / D (m=16, d=1): " + ", ".join(
        f"n=1e{k}: {phase_noise_ratio(10**k, 16, 1, EPS, DELTA):.3g}" for k in (4, 6, 8, 10, 12, 14)))
    print("   drift model, m=16, d=1 (predicted excess / trivial; sigma of the last phase / D):")
    for k in range(16, 36, 2):
        n = 1 << k
        p = mech.parameters(n, 16, 1)
        ex = drift_excess(mech, prob, n, 16, rng=rng, trials=20_000)
        print(f"     n=2^{k:<2} ({n:.2e}): {ex.mean() / trivial:.3f} +- {ex.std(ddof=1) / trivial / math.sqrt(ex.size):.3f};"
              f" phases {p.phases}, sigma_S/D {p.phase_sigmas[-1] / p.radius:.2g}")
    print("   smallest n (power of 2) with predicted excess + 3 se < 0.9 x trivial:")
    for d in (1, 2):
        prob_d = LinearUtilityProblem((0.25,) * d, spread=0.75)
        mech_d = RobustStatsLocalization(prob_d.loss, EPS, DELTA)
        for m in (16, 256, 4096, 65536):
            pt = smallest_useful_users(mech_d, prob_d, m, rng=rng, trials=4000)
            if pt is None:
                print(f"     d={d} m={m:>5}: none up to n=2^70")
                continue
            print(f"     d={d} m={m:>5}: n = 2^{pt.n_users.bit_length() - 1} = {pt.n_users:.2e} "
                  f"(n*m = {pt.n_users * m:.1e} items), excess {pt.predicted_excess / pt.trivial_excess:.3f} x trivial, "
                  f"sigma_1/D {pt.phase_noise_ratio:.3g}")
    n, m = (1 << 18, 16) if quick else (1 << 20, 16)
    trials = 100 if quick else 200
    data = prob.sample(n, m, rng=rng)
    start = time.perf_counter()
    out = mech.sample(data, trials, rng=rng)
    seconds = time.perf_counter() - start
    ex = prob.excess_risk(out)
    model = drift_excess(mech, prob, n, m, rng=rng, trials=100_000)
    print(f"   measured at n=2^{n.bit_length() - 1}, m={m} ({n * m:.1e} items, {trials} runs, {seconds:.0f} s under load): "
          f"excess {ex.mean():.4f} +- {ex.std(ddof=1) / math.sqrt(trials):.4f}; drift model {model.mean():.4f}; "
          f"trivial {trivial}")


def _section_1(quick: bool, rng: np.random.Generator) -> None:
    datasets = 2 if quick else 3
    print(f"1. Algorithm 1 with the privacy noise removed, eps={EPS}, delta={DELTA}, mu=0.25, D=G=1")
    _slope_sweep("n", [40_000, 80_000, 160_000] if quick else [40_000, 80_000, 160_000, 320_000],
                 lambda v: (v, 16, 1), -1.0, datasets, rng)
    _slope_sweep("m", [4, 16, 64], lambda v: (80_000, v, 1), -0.5, datasets, rng)
    _slope_sweep("d", [1, 2] if quick else [1, 2, 4], lambda v: (80_000, 16, v), 1.5, datasets, rng)


def _section_2(quick: bool, rng: np.random.Generator) -> None:
    print("\n2. Released outputs (Algorithm 5, safe preset) against Levy et al. on the same data, d = 1, m = 16")
    prob = LinearUtilityProblem((0.25,), spread=0.75)
    n_values = [8_000, 16_000, 32_000, 64_000] if quick else [8_000, 16_000, 32_000, 64_000, 128_000]
    for n in n_values:
        p = RobustStatsLocalization(prob.loss, EPS, DELTA).parameters(n, 16, 1)
        print(f"   n={n:>7}: phases {p.phases}, sigma_s / D = " + ", ".join(f"{s:.3g}" for s in p.phase_sigmas))
    fig = plot_excess_risk_comparison(prob, n_values, 16, rng=rng, epsilon=EPS, delta=DELTA,
                                      trials=20 if quick else 40, datasets=2)
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench_ghazi2025_utility")
    parser.add_argument("--quick", action="store_true", help="smaller grids (a few minutes)")
    parser.add_argument("--only", choices=("1", "2", "3"), help="run one section")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    if args.only in (None, "1"):
        _section_1(args.quick, rng)
    if args.only in (None, "2"):
        _section_2(args.quick, rng)
    if args.only in (None, "3"):
        print()
        _usefulness(args.quick, rng)


if __name__ == "__main__":
    main()
