"""Sampling cost of ``LaplaceMechanism.sample(size=10**7)`` against a bare ``rng.laplace(size=10**7)``.

Target: within 1.2x. Run: ``python -m benchmarks.bench_sampling``.
"""

from __future__ import annotations

import numpy as np

from benchmarks._timing import interleaved
from dpaudit.mechanisms import GaussianMechanism, LaplaceMechanism

SIZE = 10**7


def main(argv: list[str] | None = None) -> None:
    rng = np.random.default_rng(0)
    laplace, gaussian = LaplaceMechanism(1.0), GaussianMechanism(1.0, 1e-5)
    times = interleaved({
        "bare rng.laplace": lambda: rng.laplace(0.0, laplace.scale, size=SIZE),
        "LaplaceMechanism.sample": lambda: laplace.sample(0.5, SIZE, rng=rng),
        "bare rng.normal": lambda: rng.normal(0.0, gaussian.sigma, size=SIZE),
        "GaussianMechanism.sample": lambda: gaussian.sample(0.5, SIZE, rng=rng),
    }, repeats=7)
    for name, seconds in times.items():
        print(f"{name:<26} {seconds * 1e3:8.1f} ms   {SIZE / seconds / 1e6:7.1f} M samples/s")
    print(f"ratio Laplace  mechanism / bare: {times['LaplaceMechanism.sample'] / times['bare rng.laplace']:.3f}  (target <= 1.2)")
    print(f"ratio Gaussian mechanism / bare: {times['GaussianMechanism.sample'] / times['bare rng.normal']:.3f}")


if __name__ == "__main__":
    main()
