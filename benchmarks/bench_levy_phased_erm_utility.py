"""Excess risk of Levy et al. 2021 Phased ERM (Algorithm 4) under three round-length rules, on the same data.

The rules (:class:`~dpaudit.userlevel.levy2021.phased_erm.PhasedERM`, ``step_rule``):

* ``capped-32`` (the rule this package used before): Corollary 2's ``((H + lambda_t)/lambda_t) log(.)``
  capped at 32 steps per round, reproduced here by :class:`_Capped32` to measure against;
* ``corollary2``: each round solved to Corollary 2's accuracy (no cap);
* ``balanced`` (an option beyond Algorithm 4): the round length minimising the round's error bound, optimisation
  error plus the noise that more steps (smaller per-step budgets) add; 0 steps skips the round.

The problem is least squares with a known population optimum: ``x = (a_1 .. a_d)/sqrt(d)`` with
Rademacher ``a``, ``y = <theta*, x> + 0.3 r`` with Rademacher ``r``; ``E[x x^T] = I/d``, so the excess
population risk of ``theta`` is exactly ``||theta - theta*||^2 / (2 d)``. The trivial output ``theta = 0``
has excess ``||theta*||^2 / (2 d)``. Every rule runs on the same dataset (one per configuration) with
its own generator stream; the table gives the mean excess over ``trials`` runs +- its standard error.

Configurations: the point n = 10^4, m = 10, eps = 1 (delta = 1/n^2, Algorithm 4's requirement), at
which round 1 of Corollary 2 wants hundreds of steps; and n = 8192, m = 256, eps = 16 with the
user-level concentration radius of the binary design (``tau = 1.3 sqrt(2 ln(6n/gamma)/m)``, Hoeffding and
a union bound), where the gradients carry signal. ``--quick`` leaves out the Corollary 2 run of the
second configuration (about 20 minutes on 2 loaded cores).

Run: ``python -m benchmarks.bench_levy_phased_erm_utility [--quick]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import time
from typing import Any

import numpy as np

from dpaudit.userlevel.levy2021.phased_erm import PhasedERM, PhaseRound
from dpaudit.userlevel.losses import SquaredLoss

THETA_STAR = np.array([0.4, -0.3])
LABEL_NOISE = 0.3


@dataclasses.dataclass(frozen=True)
class _Capped32(PhasedERM):
    """The round length used before: ``ceil(((H + lambda_t)/lambda_t) max(1, log(G lambda_t R n_t^2 m eps^2 / (sigma^2 d^2))))``
    capped at 32 (kept here only to measure against)."""

    def schedule(self, n_users: int, m_items: int, dim: int) -> list[PhaseRound]:
        out = []
        for p in super().schedule(n_users, m_items, dim):
            h, g, sigma = self.smooth_constant, self.lipschitz, self._sigma()
            arg = g * p.lam * 2.0 * self.radius * p.n_users**2 * m_items * self.epsilon**2 / (sigma**2 * dim**2)
            steps = min(32, math.ceil((h + p.lam) / p.lam * max(1.0, math.log(max(arg, 1.0)))))
            out.append(dataclasses.replace(p, steps=steps))
        return out


def _data(rng: np.random.Generator, n: int, m: int) -> np.ndarray:
    d = THETA_STAR.size
    x = rng.choice([-1.0, 1.0], size=(n, m, d)) / math.sqrt(d)
    y = x @ THETA_STAR + LABEL_NOISE * rng.choice([-1.0, 1.0], size=(n, m))
    return np.concatenate([x, y[..., None]], axis=-1)


def _excess(theta: np.ndarray) -> np.ndarray:
    return np.sum((theta - THETA_STAR) ** 2, axis=-1) / (2 * THETA_STAR.size)


def _row(name: str, erm: PhasedERM, data: np.ndarray, trials: int, rng: np.random.Generator) -> None:
    n, m, d = data.shape[0], data.shape[1], data.shape[2] - 1
    plan = erm.schedule(n, m, d)
    start = time.perf_counter()
    risk = _excess(erm.sample(data, trials, rng=rng))
    seconds = time.perf_counter() - start
    steps = [p.steps for p in plan]
    shown = ", ".join(map(str, steps[:6])) + (", ..." if len(steps) > 6 else "")
    print(f"   {name:<11} excess {risk.mean():.4f} +- {risk.std(ddof=1) / math.sqrt(trials):.4f}   "
          f"steps per round [{shown}] (total {sum(steps)})   {erm.gradient_count(n, m, d) / 1e6:8.1f} M gradients/trial"
          f"   {seconds:6.1f} s")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench_levy_phased_erm_utility", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer trials; no Corollary 2 run at n = 8192")
    args = parser.parse_args(argv)
    trials = 20 if args.quick else 40
    seeds = np.random.SeedSequence(2021).spawn(2)
    label_bound = float(np.abs(THETA_STAR).sum() / math.sqrt(THETA_STAR.size) + LABEL_NOISE)
    trivial = float(_excess(np.zeros_like(THETA_STAR)))
    configs: list[tuple[int, int, float, float, dict[str, Any], bool]] = [
        (10_000, 10, 1.0, 1e-8, {}, True),
        (8192, 256, 16.0, 1e-8, {"gamma": 1e-3, "mode": "paper", "tau_rule": "tight"}, not args.quick),
    ]
    print(f"Phased ERM, least squares d={THETA_STAR.size}, theta*={THETA_STAR.tolist()}, {trials} runs per rule "
          f"(timings taken under load)")
    for (n, m, eps, delta, extra, run_cor2), seed in zip(configs, seeds, strict=True):
        rng = np.random.default_rng(seed)
        data = _data(rng, n, m)
        kw = dict(extra)
        if "gamma" in kw:
            kw["tau"] = (1 + LABEL_NOISE) * math.sqrt(2 * math.log(6 * n / kw["gamma"]) / m)
        print(f"\n n={n}, m={m}, eps={eps:g}, delta={delta:g}{', ' + str(kw) if kw else ''}; "
              f"trivial theta=0: {trivial:.4f}")
        rules: list[tuple[str, PhasedERM]] = [
            ("capped-32", _Capped32(SquaredLoss(), eps, delta, 1.0, 1.0, label_bound=label_bound, **kw)),
            ("balanced", PhasedERM(SquaredLoss(), eps, delta, 1.0, 1.0, label_bound=label_bound, step_rule="balanced", **kw)),
        ]
        if run_cor2:
            rules.append(("corollary2", PhasedERM(SquaredLoss(), eps, delta, 1.0, 1.0, label_bound=label_bound,
                                                  step_rule="corollary2", **kw)))
        for name, erm in rules:
            _row(name, erm, data, trials, rng)
        bal = rules[1][1].schedule(n, m, THETA_STAR.size)
        print("   balanced rounds: error bound / D_t^2 = "
              + ", ".join(f"{p.error_bound / p.initial_distance**2:.2g}" for p in bal[:6])
              + (" ..." if len(bal) > 6 else "")
              + f"; Corollary 2 tolerance / D_t^2 in round 1: {bal[0].tolerance / bal[0].initial_distance**2:.2g}")


if __name__ == "__main__":
    main()
