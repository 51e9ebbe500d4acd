"""Speed of Ghazi et al. (2023)'s SCOutputPert (Algorithm 2) against one call of the non-private solver.

At n = 10^3 users, m = 10^2 items, d = 10 (squared loss, l2 = 1, the corrected preset, so the
certified fast path of App. C decides), one call ``sample(data, 10^4)`` validates and groups the data,
solves the regularised ERM once, checks the gradient certificate and draws 10^4 (R1, Z) pairs. It is
timed against one call of the same deterministic solver on the same data (validation, grouping and
the minimiser: what a non-private release would compute). Medians of interleaved repeats in one run;
the ratio is what to read, not the absolute times (they depend on the machine and its load).

Run: ``python -m benchmarks.bench_ghazi2023_speed [--trials 10000] [--repeats 5]``.
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks._timing import interleaved
from dpaudit.userlevel.ghazi2023 import ERMProblem, SCOutputPert
from dpaudit.userlevel.ghazi2023.solver import Balls, minimise, solver_tolerance
from dpaudit.userlevel.losses import SquaredLoss


def _data(n: int, m: int, d: int, rng: np.random.Generator) -> np.ndarray:
    x = rng.normal(size=(n, m, d))
    x /= np.maximum(1.0, np.linalg.norm(x, axis=-1, keepdims=True))
    theta = np.full(d, 0.3 / np.sqrt(d))
    y = np.clip(x @ theta + 0.1 * rng.normal(size=(n, m)), -1.0, 1.0)
    return np.concatenate([x, y[..., None]], axis=-1)


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(prog="bench_ghazi2023_speed")
    parser.add_argument("--trials", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--m", type=int, default=100)
    parser.add_argument("--d", type=int, default=10)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    data = _data(args.n, args.m, args.d, rng)
    problem = ERMProblem(SquaredLoss(), radius=1.0, feature_bound=1.0, label_bound=1.0, l2=1.0)
    mech = SCOutputPert(problem, 1.0, 1e-5)

    def private() -> object:
        return mech.sample(data, args.trials, rng=rng)

    def non_private() -> object:
        unit = problem.unit_data(data, "bench")
        groups = problem.group(unit)
        d = unit.shape[2]
        return minimise(problem, groups, groups.counts.astype(float), reg=problem.unit_l2, centre=np.zeros((1, d)),
                        balls=Balls.of(1, d, (np.zeros(d), problem.unit_radius)), tau=solver_tolerance(problem, problem.unit_l2))

    res, spec = mech.stable_centre(data)
    times = interleaved({"private": private, "non_private": non_private}, repeats=args.repeats)
    rate = args.trials / times["private"]
    ratio = times["private"] / times["non_private"]
    print(f"SCOutputPert (Alg 2), n={args.n}, m={args.m}, d={args.d}, eps=1, delta=1e-5, corrected preset; "
          f"certificate decided: {bool(res.certified[0])}, k(x) = {int(res.k[0])}, kappa = {spec.alg1.kappa}")
    print(f"  {args.trials} trials in {times['private']:.3f} s ({rate:,.0f} trials/s); one non-private solve "
          f"{times['non_private']:.3f} s")
    print(f"  ratio (10^4 private trials / one non-private solve): {ratio:.2f}x   (median of {args.repeats} interleaved repeats)")
    return {"trials_per_second": rate, "ratio": ratio}


if __name__ == "__main__":
    main()
