"""Validity of both halves at once: across every structured catalogue and literature-suite entry, the
audit's lower bound exceeds the certified upper bound no more often than the audit's alpha allows.

For a correct declaration, ``epsilon_upper >= true epsilon``, so ``lower > upper`` implies the audit's
bound exceeded the truth, which happens with probability at most ``1 - confidence`` per audit
(whatever the mechanism: the broken entries count too). The number of such events over ``n`` audits
is then stochastically below ``Binomial(n, 1 - confidence)``, and the test allows up to that
distribution's ``1 - FAILURE_PROB`` quantile. A declaration that understates the truth on a tight
entry is caught almost every time, so the count fails. The same holds entry by entry: each entry's
count is below ``Binomial(seeds, 1 - confidence)``, and the test allows its ``1 - FAILURE_PROB / entries``
quantile (Bonferroni), so one wrong declaration that the audit exceeds at every seed fails too. The
default run uses confidence 0.999 (a small alpha makes a handful of wrong declarations exceed the
limit) at a quarter of the demo trials; ``-m slow`` uses the audits' own confidence 0.95 over ten seeds.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from dpaudit.catalogue import builtin_catalogue
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.exact.bracket import case_bracket

FAILURE_PROB = 1e-4
ROOT_SEED = 20260521


def _structured_cases():  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        cases = builtin_catalogue(userlevel=False)
    return [c for c in cases if case_bracket(c)[0] is not None]


def _count(confidence: float, seeds: int, scale: float) -> tuple[dict[str, int], int, list[str]]:
    cases = _structured_cases()
    children = np.random.SeedSequence(ROOT_SEED).spawn(len(cases) * seeds)
    exceed, n, where = {}, 0, []
    for i, case in enumerate(cases):
        exceed[case.name] = 0
        for s in range(seeds):
            res = case.audit(seed=children[i * seeds + s], scale=scale, confidence=confidence)
            assert res.epsilon_upper is not None, case.name
            n += 1
            if res.epsilon_lower_bound > res.epsilon_upper:
                exceed[case.name] += 1
                where.append(f"{case.name} (seed {s}): {res.epsilon_lower_bound:.4f} > {res.epsilon_upper:.4f}")
    return exceed, n, where


def _check(confidence: float, seeds: int, scale: float) -> None:
    exceed, n, where = _count(confidence, seeds, scale)
    limit = int(stats.binom.ppf(1 - FAILURE_PROB, n, 1 - confidence))
    per_entry = int(stats.binom.ppf(1 - FAILURE_PROB / len(exceed), seeds, 1 - confidence))
    total = sum(exceed.values())
    assert n >= 30
    assert total <= limit, f"lower > upper in {total} of n = {n} audits (limit {limit}, root seed {ROOT_SEED}): {where}"
    worst = max(exceed, key=exceed.__getitem__)
    assert exceed[worst] <= per_entry, (f"lower > upper in {exceed[worst]} of {seeds} audits of {worst} (limit {per_entry} "
                                        f"per entry, Bonferroni over {len(exceed)}; root seed {ROOT_SEED}): {where}")


def test_lower_bounds_never_exceed_certified_upper_bounds_beyond_alpha():
    _check(confidence=0.999, seeds=2, scale=0.25)


@pytest.mark.slow
def test_lower_bounds_never_exceed_certified_upper_bounds_beyond_alpha_many_seeds():
    _check(confidence=0.95, seeds=10, scale=1.0)
