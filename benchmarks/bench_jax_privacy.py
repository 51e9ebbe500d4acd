"""dpaudit beside jax_privacy's auditor, on the same outputs (needs the optional ``[peers]`` extra).

jax-privacy 2.0.0's ``CanaryScoreAuditor(in_scores, out_scores).epsilon_clopper_pearson(
significance, delta, one_sided=False)`` with its default ``Bonferroni()`` strategy: every
threshold on the empirical ROC's Pareto frontier, each at ``significance / (number of frontier
vertices)``. That number depends on the data, so the union bound behind it does not apply as
stated; dpaudit does not use it (see README, "How the threshold is chosen"). Both tools get the
outputs dpaudit's audit drew (replayed from its seed), at confidence 0.95, both directions.

Part 1 prints the bounds (mean and minimum over seeds) for scalar Laplace (epsilon 1), the
analytic Gaussian (1, 1e-5) and randomized response (epsilon 1) at each trial count. Part 2
counts false alarms of both tools over many audits of correct mechanisms audited at tight
claims with few trials (``--validity`` audits each; 0 skips it).

Run: ``pip install -e '.[peers]'`` then
``python -m benchmarks.bench_jax_privacy [--trials 1e6,1e7] [--seeds 3] [--validity 200]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from typing import Any

import numpy as np
from scipy import stats

import dpaudit
from dpaudit._rng import TrialStreams
from dpaudit.auditor.sampling import as_sampler, draw_outputs
from dpaudit.mechanisms import GaussianMechanism, LaplaceMechanism, RandomizedResponse

CONFIDENCE = 0.95


def _jax_auditor() -> Any:
    try:
        from jax_privacy import auditing
    except ImportError:
        return None
    return auditing


def _replay(mech: Any, d0: Any, d1: Any, res: Any) -> tuple[np.ndarray, np.ndarray]:
    """The outputs an audit drew, redrawn from its recorded seed entropy and block size."""
    streams = TrialStreams(res.seed_entropy, res.block_size)
    (o0, o1), _ = draw_outputs(as_sampler(mech), [d0, d1], res.trials, streams)
    return np.asarray(o0, dtype=float).ravel(), np.asarray(o1, dtype=float).ravel()


def _both(auditing: Any, mech: Any, d0: Any, d1: Any, trials: int, seed: Any, delta: float) -> tuple[float, float, Any]:
    res = dpaudit.audit(mech, d0, d1, trials=trials, seed=seed, confidence=CONFIDENCE)
    out0, out1 = _replay(mech, d0, d1, res)
    jax = auditing.CanaryScoreAuditor(out1, out0).epsilon_clopper_pearson(1 - CONFIDENCE, delta=delta, one_sided=False)
    return res.epsilon_lower_bound, float(jax), res


CASES = [
    ("Laplace eps=1", LaplaceMechanism(1.0), 0.0, 1.0, 0.0),
    ("Gaussian (1, 1e-5)", GaussianMechanism(1.0, 1e-5), 0.0, 1.0, 1e-5),
    ("randomized response eps=1", RandomizedResponse(1.0, 2), [0], [1], 0.0),
]

VALIDITY_CASES = [
    ("Gaussian (1, 0.1)", GaussianMechanism(1.0, 0.1), 0.0, 1.0, 0.1, 10_000),
    ("Gaussian (1, 0.01)", GaussianMechanism(1.0, 0.01), 0.0, 1.0, 0.01, 10_000),
    ("Laplace eps=1", LaplaceMechanism(1.0), 0.0, 1.0, 0.0, 10_000),
    ("randomized response eps=1", RandomizedResponse(1.0, 2), [0], [1], 0.0, 10_000),
]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_jax_privacy")
    parser.add_argument("--trials", default="1e6,1e7")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--validity", type=int, default=200, help="audits per validity case (0: skip)")
    args = parser.parse_args(argv)
    auditing = _jax_auditor()
    if auditing is None:
        print("bench_jax_privacy: jax_privacy is not installed; install the optional extra with pip install -e '.[peers]'")
        return
    print(f"{'mechanism':<28} {'trials':>10} {'dpaudit mean':>13} {'min':>7} {'jax mean':>9} {'min':>7}")
    for name, mech, d0, d1, delta in CASES:
        for trials in (int(float(t)) for t in args.trials.split(",")):
            pairs = [_both(auditing, mech, d0, d1, trials, np.random.SeedSequence([7, s]), delta)[:2] for s in range(args.seeds)]
            ours, theirs = [p[0] for p in pairs], [p[1] for p in pairs]
            print(f"{name:<28} {trials:>10,} {statistics.mean(ours):>13.4f} {min(ours):>7.4f} "
                  f"{statistics.mean(theirs):>9.4f} {min(theirs):>7.4f}", flush=True)
    if args.validity:
        limit = int(stats.binom.ppf(1 - 1e-4, args.validity, 1 - CONFIDENCE))
        print(f"\nfalse alarms in {args.validity} audits at the tight claim (binomial limit {limit} at failure probability 1e-4)")
        for name, mech, d0, d1, delta, trials in VALIDITY_CASES:
            claim = mech.claimed_guarantee().epsilon
            counts = [0, 0]
            for s in range(args.validity):
                ours, theirs, _ = _both(auditing, mech, d0, d1, trials, np.random.SeedSequence([11, s]), delta)
                counts[0] += ours > claim
                counts[1] += theirs > claim
            print(f"{name:<28} {trials:>8,} trials: dpaudit {counts[0]:>3}, jax_privacy {counts[1]:>3}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
