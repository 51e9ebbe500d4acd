"""Counting false alarms of a hull-corrected Bonferroni (jax_privacy's default), not adopted by dpaudit.

The scheme: evaluate ``ln(TPR_lo / FPR_hi)`` at every vertex of the empirical ROC's upper
concave hull, on the same samples, with Clopper-Pearson limits at ``alpha / (2V)`` for ``V``
vertices, and report the largest. ``V`` depends on the data, and the vertices are where the
empirical ROC bulges, so the union bound over a fixed family that Bonferroni rests on does not
cover it: no proof of validity is known to us. This study counts instead, on mechanisms whose
claim is exact on every tail event (so that any selection effect shows): identical outputs
(claim 0), Laplace(1) shifted by 1 (claim 1, tight on every threshold below 0), and a two-level
mechanism whose upper region has ratio exactly ``e^eps`` on every threshold inside it. The
binomial limit is at failure probability 1e-4.

Run: ``python -m benchmarks.bench_hull_bonferroni [--reps 400]``.
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy import special, stats

ALPHA = 0.05


def _upper_hull(x: np.ndarray, y: np.ndarray) -> list[int]:
    """Indices of the upper concave hull of points sorted by x (monotone chain)."""
    hull: list[int] = []
    for i in range(len(x)):
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            if (x[b] - x[a]) * (y[i] - y[a]) - (y[b] - y[a]) * (x[i] - x[a]) >= 0:
                hull.pop()
            else:
                break
        hull.append(i)
    return hull


def hull_bonferroni_epsilon(pos: np.ndarray, neg: np.ndarray, alpha: float = ALPHA) -> float:
    """The scheme described above, for events ``{score >= t}`` (one direction)."""
    n1, n0 = len(pos), len(neg)
    t = np.unique(np.concatenate([pos, neg]))
    tp = n1 - np.searchsorted(np.sort(pos), t, side="left")
    fp = n0 - np.searchsorted(np.sort(neg), t, side="left")
    tp, fp = np.r_[0, tp[::-1]], np.r_[0, fp[::-1]]
    order = np.lexsort((tp / n1, fp / n0))
    tp, fp = tp[order], fp[order]
    idx = _upper_hull(fp / n0, tp / n1)
    a = alpha / len(idx) / 2
    k1, k0 = tp[idx], fp[idx]
    lo = np.where(k1 > 0, special.betaincinv(np.maximum(k1, 1), n1 - k1 + 1, a), 0.0)
    hi = np.where(k0 < n0, special.betaincinv(k0 + 1, np.maximum(n0 - k0, 1), 1 - a), 1.0)
    with np.errstate(divide="ignore"):
        return float(max(0.0, np.max(np.where(lo > 0, np.log(lo) - np.log(hi), 0.0))))


def _two_level(rng: np.random.Generator, n: int, eps: float, q: float) -> tuple[np.ndarray, np.ndarray]:
    s0 = rng.random(n) < q
    s1 = rng.random(n) < q * np.exp(-eps)
    return np.where(s0, 1 + rng.random(n), rng.random(n)), np.where(s1, 1 + rng.random(n), rng.random(n))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_hull_bonferroni")
    parser.add_argument("--reps", type=int, default=400)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(20261124)
    cases = [
        ("identical outputs, claim 0", 0.0, lambda n: (rng.random(n), rng.random(n))),
        ("Laplace(1) shift 1, claim 1", 1.0, lambda n: (-rng.laplace(0, 1, n), -rng.laplace(1, 1, n))),
        ("two-level, eps 1, q 0.9", 1.0, lambda n: _two_level(rng, n, 1.0, 0.9)),
        ("two-level, eps 2, q 0.3", 2.0, lambda n: _two_level(rng, n, 2.0, 0.3)),
    ]
    limit = int(stats.binom.ppf(1 - 1e-4, args.reps, ALPHA))
    print(f"false alarms of the hull-corrected Bonferroni in {args.reps} audits (binomial limit {limit})")
    for name, claim, draw in cases:
        for n in (1_000, 10_000):
            alarms = sum(hull_bonferroni_epsilon(*draw(n)) > claim for _ in range(args.reps))
            print(f"{name:<32} n = {n:>6,}: {alarms:>4}", flush=True)


if __name__ == "__main__":
    main()
