"""Cost of Levy et al. 2021 Phased ERM (Algorithm 4) as ``n m`` grows, and trial batching vs a loop.

Two measurements, both printed as ratios from one run (never asserted):

1. Scaling: median time of ``PhasedERM.sample(data, trials)`` on a grid of ``n m`` (users times
   items, ``d = 4``, 3 rounds of 4 steps; ``n`` and ``m`` both double), and the least-squares exponent
   of time against ``n m`` on a log-log scale. The gradients cost one pass over the round's ``n_t m``
   items per step and Algorithm 2 costs ``O(n_t d' log n_t)`` per step, so time ~ ``a n m + b n``
   and the exponent lies between 1/2 and 1 (no super-linear term).
2. Batching: the same total number of trials run as one trial-batched ``sample`` call and as a
   Python loop of ``sample(size=1)`` calls; the throughput ratio is the speed-up of keeping the trial
   axis inside every array through the whole gradient loop.

Run: ``python -m benchmarks.bench_levy_phased_erm [--quick]``.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from benchmarks._timing import interleaved, median_seconds
from dpaudit.userlevel.levy2021.phased_erm import PhasedERM
from dpaudit.userlevel.losses import SquaredLoss

DIM = 4


def _data(n: int, m: int, rng: np.random.Generator) -> np.ndarray:
    x = rng.normal(size=(n, m, DIM))
    x /= np.maximum(1.0, np.linalg.norm(x, axis=-1, keepdims=True))
    y = np.clip(x @ np.linspace(0.5, -0.5, DIM) + 0.1 * rng.normal(size=(n, m)), -1, 1)
    return np.concatenate([x, y[..., None]], axis=-1)


def _mechanism() -> PhasedERM:
    return PhasedERM(SquaredLoss(), 1.0, 1e-6, 1.0, 1.0, rounds=3, steps=4, tau=0.5, gamma=1e-3)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench_levy_phased_erm", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller grid and fewer repeats")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    erm = _mechanism()
    trials = 64
    grid = [(256, 4), (512, 8), (1024, 16), (2048, 32)] if args.quick else \
        [(256, 4), (512, 8), (1024, 16), (2048, 32), (4096, 64)]
    repeats = 3 if args.quick else 5
    print(f"Phased ERM (d={DIM}, 3 rounds x 4 steps), {trials} trials per call; median of {repeats}")
    sizes, times = [], []
    for n, m in grid:
        data = _data(n, m, rng)
        seconds = median_seconds(lambda data=data: erm.sample(data, trials, rng=rng), repeats=repeats)
        grads = erm.gradient_count(n, m, DIM) * trials
        sizes.append(n * m)
        times.append(seconds)
        print(f"  n={n:5d} m={m:3d} n*m={n * m:8d}  {seconds * 1e3:9.1f} ms  {grads / seconds / 1e6:7.1f} M gradients/s")
    slope, _ = np.polyfit(np.log(sizes), np.log(times), 1)
    top, _ = np.polyfit(np.log(sizes[-3:]), np.log(times[-3:]), 1)
    print(f"fitted exponent of time against n*m: {slope:.3f} over the grid, {top:.3f} over the 3 largest sizes")
    print("  (time ~ a n m + b n: gradients cost one pass over the round's n_t m items per step, Algorithm 2 costs"
          " O(n_t d' log n_t) per step whatever m is; n and m double together here, so the exponent lies in [1/2, 1])")

    n, m = (256, 8)
    data = _data(n, m, rng)
    total = 128 if args.quick else 512

    def batched() -> np.ndarray:
        return erm.sample(data, total, rng=rng)

    def looped() -> list[np.ndarray]:
        return [erm.sample(data, 1, rng=rng) for _ in range(total)]

    t = interleaved({"batched": batched, "loop": looped}, repeats=3)
    print(f"batching (n={n}, m={m}, {total} trials): one call {t['batched'] * 1e3:.1f} ms, "
          f"Python loop {t['loop'] * 1e3:.1f} ms")
    print(f"throughput ratio batched / loop: {t['loop'] / t['batched']:.1f}x  "
          f"({total / t['batched']:.0f} vs {total / t['loop']:.0f} trials/s)")
    if not math.isfinite(slope):
        raise SystemExit("timing failed")


if __name__ == "__main__":
    main()
