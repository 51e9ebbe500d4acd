"""User-level mean estimation against m: Levy et al.'s Corollary 1 estimator and the naive baselines, same data.

Draws one dataset per ``m`` (``n = 4000`` users, items ``mu + 0.5 u`` with ``u`` uniform on the sphere
of ``R^4``, ``eps = 1``, ``delta = 1e-6``), runs every estimator of
:func:`dpaudit.userlevel.comparison.default_mean_estimators` on it and plots the privacy error
``E||A(S) - mean(S)||^2`` with the closed-form noise terms extended to where Levy et al.'s lines
cross the best baseline (:func:`dpaudit.userlevel.comparison.plot_error_vs_m`). Prints the measured
numbers and the crossover ``m``; saves ``docs/figures/error_vs_m.png``.

Run: ``python -m benchmarks.bench_userlevel_error_vs_m [--quick] [--out PATH]``.
"""

from __future__ import annotations

import argparse
import pathlib

import numpy as np

from dpaudit.userlevel.comparison import SphereMeanProblem, plot_error_vs_m

FIGURE = pathlib.Path(__file__).resolve().parents[1] / "docs" / "figures" / "error_vs_m.png"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench_userlevel_error_vs_m", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="m up to 256 and 50 runs per cell")
    parser.add_argument("--out", type=pathlib.Path, default=FIGURE, help=f"where to save the PNG (default {FIGURE})")
    args = parser.parse_args(argv)
    problem = SphereMeanProblem((0.3, -0.2, 0.1, 0.0), spread=0.5)
    m_values = [1, 4, 16, 64, 256] if args.quick else [1, 4, 16, 64, 256, 1024]
    fig = plot_error_vs_m(problem, m_values, 4000, rng=np.random.default_rng(2021), epsilon=1.0, delta=1e-6,
                          trials=50 if args.quick else 200, extrapolate_to=1e9)
    print("privacy error E||A(S) - mean(S)||^2 (mean +- standard error), n=4000, d=4, eps=1, delta=1e-6")
    for label, xs, means, ses in fig.dpaudit_series:
        print(f"  {label:<40} " + "  ".join(f"m={int(x)}: {mu:.3g}+-{se:.1g}" for x, mu, se in zip(xs, means, ses, strict=True)))
    for label, m_star in fig.dpaudit_crossover.items():
        print(f"  {label} is below every baseline (closed form) from m = {m_star:.3g}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=110)
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
