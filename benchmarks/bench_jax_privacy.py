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
claims with few trials (``--validity`` audits each; 0 skips it). Part 3 (``--one-run``) puts
:mod:`dpaudit.one_run` beside jax_privacy's ``epsilon_one_run`` [Steinke et al. 2023] and
``epsilon_one_run_fdp`` [Mahloujifar et al. 2024] on the same canary scores, at each seed:
Gaussian canaries (``mu S_i + N(0, 1)``, 1000 canaries) and the canary users of a user-level
SGD algorithm (Levy et al.'s Algorithm 3 with its B10 start, 256 canary users). dpaudit guesses
at the top *and* the bottom of the scores and pays for its ~13 guess plans; jax_privacy guesses
above each vertex of the ROC hull and divides by their number. Then, on fixed guess counts (the
same ``(m, r, v)``: jax_privacy's ``Explicit`` threshold at dpaudit's ``k``-th score), the two
must agree: the largest difference is printed.

Run: ``pip install -e '.[peers]'`` (into a separate environment; jax is large) then
``python -m benchmarks.bench_jax_privacy [--trials 1e6,1e7] [--seeds 3] [--validity 200] [--one-run]``.
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


def _gaussian_canaries(seed: int, mu: float) -> tuple[np.ndarray, np.ndarray]:
    from dpaudit.one_run import draw_inclusion

    rng = np.random.default_rng([13, seed])
    included = draw_inclusion(1000, rng)
    return mu * included + rng.normal(size=included.size), included


def _user_level_canaries(seed: int, step_size: float) -> tuple[np.ndarray, np.ndarray]:
    """Scores of 256 canary users after one run of Levy et al.'s Algorithm 3 with the B10 start.

    The step size sets how much of the leaked start survives the noisy steps: 1e-5 leaves part of
    it, 3e-6 nearly all (the canaries are then separated almost perfectly).
    """
    import warnings

    from dpaudit.errors import UnsoundMechanismWarning
    from dpaudit.one_run import linear_canary_users, slot_scores
    from dpaudit.userlevel import SquaredLoss
    from dpaudit.userlevel.levy2021.faulty import LevyNonPrivateStart

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        mech = LevyNonPrivateStart(SquaredLoss(), epsilon=1.0, delta=1e-5, radius=1.0, feature_bound=1.0, steps=10,
                                   aggregate="last", step_size=step_size)
    can, rep = linear_canary_users(256, 8, 256)
    rng = np.random.default_rng([17, seed])
    included = rng.random(256) < 0.5
    data = np.where(included[:, None, None], can, rep)
    release = mech.sample(data, 1, rng=rng)[0]
    return slot_scores(release, can, rep), included


ONE_RUN_CASES = [
    ("Gaussian canaries mu=1", lambda seed: _gaussian_canaries(seed, 1.0)),
    ("Gaussian canaries mu=2", lambda seed: _gaussian_canaries(seed, 2.0)),
    ("user-level B10, step 1e-5", lambda seed: _user_level_canaries(seed, 1e-5)),
    ("user-level B10, step 3e-6", lambda seed: _user_level_canaries(seed, 3e-6)),
]


def one_run_side_by_side(auditing: Any, seeds: int, delta: float = 1e-5) -> None:
    """Part 3: one-run bounds of both tools on the same scores, and agreement on the same counts."""
    from dpaudit.one_run import audit_canaries, fdp_epsilon, steinke_epsilon

    alpha = 1 - CONFIDENCE
    print(f"\none-run audits, delta = {delta:g}, confidence {CONFIDENCE} "
          "(Steinke: the (eps, delta) bound; f-DP: epsilon of the mu-GDP claim rejected)")
    print(f"{'scores':<28} {'seed':>4} {'dpaudit Steinke':>16} {'jax one_run':>12} {'dpaudit f-DP':>13} {'jax one_run_fdp':>16}")
    worst = 0.0
    for name, make in ONE_RUN_CASES:
        for seed in range(seeds):
            scores, included = make(seed)
            ours = audit_canaries(scores, included, delta=delta, confidence=CONFIDENCE, seed=seed)
            jax = auditing.CanaryScoreAuditor(scores[included], scores[~included])
            theirs = float(jax.epsilon_one_run(alpha, delta))
            theirs_fdp = float(jax.epsilon_one_run_fdp(alpha, delta))
            ours_fdp = ours.gdp_epsilon_estimate or 0.0
            print(f"{name:<28} {seed:>4} {ours.epsilon_lower_bound:>16.4f} {theirs:>12.4f} {ours_fdp:>13.4f} {theirs_fdp:>16.4f}", flush=True)
            # the same mathematics: one guess count r (the top k scores), one significance
            order = np.sort(scores)[::-1]
            for k in (16, 64, 250):
                if k >= len(scores) or order[k - 1] == order[k]:
                    continue
                r, v = k, int(np.count_nonzero(included[scores >= order[k - 1]]))
                explicit = auditing.Explicit(float(order[k - 1]))
                m = len(scores)
                worst = max(worst, abs(steinke_epsilon(m, r, v, delta=delta, confidence=CONFIDENCE)
                                       - float(jax.epsilon_one_run(alpha, delta, threshold_strategy=explicit))))
                worst = max(worst, abs(fdp_epsilon(m, r, v, delta=delta, confidence=CONFIDENCE)
                                       - float(jax.epsilon_one_run_fdp(alpha, delta, threshold_strategy=explicit))))
    print(f"same guess counts (m, r, v): largest difference between the tools {worst:.2e} (jax_privacy's root tolerance is 1e-6)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_jax_privacy")
    parser.add_argument("--trials", default="1e6,1e7")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--validity", type=int, default=200, help="audits per validity case (0: skip)")
    parser.add_argument("--one-run", action="store_true", help="also compare the one-run bounds (part 3)")
    parser.add_argument("--only-one-run", action="store_true", help="run part 3 only")
    args = parser.parse_args(argv)
    auditing = _jax_auditor()
    if auditing is None:
        print("bench_jax_privacy: jax_privacy is not installed; install the optional extra with pip install -e '.[peers]'")
        return
    if args.only_one_run:
        one_run_side_by_side(auditing, args.seeds)
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
    if args.one_run:
        one_run_side_by_side(auditing, args.seeds)


if __name__ == "__main__":
    main(sys.argv[1:])
