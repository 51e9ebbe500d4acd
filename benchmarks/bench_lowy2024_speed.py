"""Speed of Lowy, Liu and Asi (2024)'s Algorithm 1: 10^4 trials at n = 10^3 users, m = 10^2 items, d = 10.

Times ``OutlierRemovalPhasedSGD.sample`` (audit preset, eps = 10, delta = 1e-3, every phase) for 10^4
trials, split over two worker threads (numpy releases the GIL inside its array operations; each
worker draws from its own stream spawned from one seed), and, in the same run, one non-private
projected SGD pass over all ``n m`` items vectorised the same way over the same trials. Prints both
times, their ratio, and the ratio per item gradient (Algorithm 1 uses ``sum_i C N_i m <= n m`` items).
Nothing here asserts a time; timings depend on the machine's load.

Run: ``python -m benchmarks.bench_lowy2024_speed [--trials 10000] [--workers 2]``.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from dpaudit.userlevel.losses import SquaredLoss
from dpaudit.userlevel.lowy2024 import OutlierRemovalPhasedSGD
from dpaudit.userlevel.lowy2024.sgd import one_pass_sgd

N, M, D, EPS, DELTA = 1000, 100, 10, 10.0, 1e-3


def _data(rng: np.random.Generator) -> np.ndarray:
    x = rng.normal(size=(N, M, D)) / np.sqrt(D)
    x /= np.maximum(1.0, np.linalg.norm(x, axis=-1, keepdims=True))
    theta = np.full(D, 0.1)
    y = np.clip(x @ theta + rng.uniform(-0.5, 0.5, size=(N, M)), -1, 1)
    return np.concatenate([x, y[..., None]], axis=-1)


def _split(total: int, workers: int) -> list[int]:
    return [total // workers + (i < total % workers) for i in range(workers)]


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(prog="bench_lowy2024_speed")
    parser.add_argument("--trials", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    data = _data(np.random.default_rng(0))
    mech = OutlierRemovalPhasedSGD(SquaredLoss(), EPS, DELTA)
    p = mech.parameters(N, M, D)
    sizes = _split(args.trials, args.workers)
    streams = np.random.SeedSequence(1).spawn(args.workers)

    def run_alg1(i: int) -> np.ndarray:
        return mech.sample(data, sizes[i], rng=np.random.default_rng(streams[i]))

    def run_sgd(i: int) -> np.ndarray:
        # one non-private pass over all n m items from 0, every trial of this worker at once (same kernel)
        feats, labels = data[..., :-1].reshape(1, N * M, D), data[..., -1].reshape(1, N * M)
        return one_pass_sgd(mech.domain, feats, labels, np.zeros((sizes[i], D)), p.step_size)[:, 0]

    with ThreadPoolExecutor(args.workers) as pool:
        start = time.perf_counter()
        outs = list(pool.map(run_alg1, range(args.workers)))
        t_alg1 = time.perf_counter() - start
        start = time.perf_counter()
        list(pool.map(run_sgd, range(args.workers)))
        t_sgd = time.perf_counter() - start
    out = np.concatenate(outs)
    grads = p.gradient_evaluations
    print(f"Algorithm 1 (audit preset, eps={EPS}, delta={DELTA}): n={N}, m={M}, d={D}, C={p.groups}, "
          f"{p.phases} phases, {grads} item gradients per trial ({grads / (N * M):.2f} n m)")
    print(f"{args.trials} trials on {args.workers} threads: {t_alg1:.1f} s "
          f"({np.mean(np.any(out != 0, axis=1)):.3f} of the trials did not halt)")
    print(f"one non-private projected SGD pass over all n m = {N * M} items, same trials: {t_sgd:.1f} s")
    print(f"ratio Algorithm 1 / SGD pass: {t_alg1 / t_sgd:.2f}; per item gradient: "
          f"{(t_alg1 / grads) / (t_sgd / (N * M)):.2f}")
    return {"alg1_seconds": t_alg1, "sgd_seconds": t_sgd}


if __name__ == "__main__":
    main()
