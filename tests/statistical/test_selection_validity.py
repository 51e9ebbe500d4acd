"""Validity counts for the selection paths added for power: wide tail fits, values within patterns.

* **wide tail fits** (:mod:`dpaudit.auditor.ranking`): for scalar outputs the tail fit now covers
  up to the top 30% of the pooled selection scores when a quadratic fits there, and shrinks each
  fitted rate by its own standard error; it runs from a few hundred selection rows on;
* **values within patterns** (:mod:`dpaudit.auditor.columns`): for mixed outputs, the released
  value of each frequent atom pattern, NaN elsewhere, ranked like a scalar output, tail fit
  included;
* **the pattern-value log-ratio** (:mod:`dpaudit.auditor.pattern_llr`): the joint log-ratio of a
  mixed output's atom pattern and released values;
* **the final round on the whole split** (:mod:`dpaudit.auditor.selection`): the pattern-value
  log-ratio cross-fitted on the two halves of the selection split, its thresholds ranked on every
  selection row's out-of-fold score and its events read through the fit on both halves, on
  the censored pair (tight) and on a correct sparse vector releasing numbers (NumSVT [WDWKZ19,
  Fig. 1], mixed outputs, at its claimed epsilon; both ``-m slow``), with ``SCREEN_ROWS`` lowered so
  that the two rounds run at these trial counts;
* **tail fits of the transcript's all-Gaussian log-ratio** (:mod:`dpaudit.auditor.attacks` marks
  it smooth): a Gaussian release beside an independent flag, tight at (1, 1e-3) in the far tail
  (``-m slow``: 200 audits of 10^5 trials).

Each is counted over ``AUDITS`` audits of correct mechanisms at claims tight on their pairs, the
false alarms within the ``1 - FAILURE_PROB`` quantile of ``Binomial(AUDITS, 1 - c)``; a check that
the path really ran comes with each.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.accounting.calibrate import gaussian_sigma_analytic
from dpaudit.auditor import selection
from dpaudit.auditor.features import detect_layout, flatten_outputs
from dpaudit.auditor.selection import choose_candidates
from dpaudit.mechanisms import GaussianMechanism
from dpaudit.mechanisms.literature import NumericalSVT

FAILURE_PROB = 1e-4
CONFIDENCE = 0.95
AUDITS = 200
ROOT_SEED = 20261128


def censored_pair(data, rng, size=None):
    """Two Laplace(1) releases (of ``data`` and of 0), each at most 0.5 replaced by the atom -1.

    Post-processing of a Laplace release of ``data`` (the second column does not depend on it):
    exactly 1-DP on the pair 0, 1 and tight in the far upper tail of the first column; its outputs
    come in four atom patterns, two of them with a released value in the first column.
    """
    x = np.stack([data + rng.laplace(size=size), rng.laplace(size=size)], axis=-1)
    return np.where(x > 0.5, x, -1.0)


SIGMA_1_1E3 = gaussian_sigma_analytic(1.0, 1.0, 1e-3)


def gaussian_beside_flag(data, rng, size=None):
    """``data + N(0, sigma^2)`` with sigma for (1, 1e-3) [BW18, Thm 8], beside an independent flag -1 or 1.

    The flag does not depend on ``data``: exactly (1, 1e-3)-DP on the pair 0, 1, tight in the far tail
    of the first column; a mixed output, so the transcript family reads it.
    """
    x = data + SIGMA_1_1E3 * rng.standard_normal(size)
    return np.stack([x, np.where(rng.random(size) < 0.5, -1.0, 1.0)], axis=-1)


CASES = {
    # name: (mechanism, d0, d1, trials, audit arguments)
    "wide tail fit: Gaussian (1, 0.05)": (GaussianMechanism(1.0, 0.05), 0.0, 1.0, 20_000, {}),
    "wide tail fit: Gaussian (1, 1e-3)": (GaussianMechanism(1.0, 1e-3), 0.0, 1.0, 100_000, {}),
    "values within patterns: censored pair": (censored_pair, 0.0, 1.0, 4_000, dict(epsilon=1.0)),
    "pattern value llr: censored pair": (censored_pair, 0.0, 1.0, 20_000, dict(epsilon=1.0)),
    "transcript tail fit: Gaussian beside a flag": (gaussian_beside_flag, 0.0, 1.0, 100_000,
                                                    dict(epsilon=1.0, delta=1e-3)),
}

# the paths each case must take (a family's name, or a candidate's origin), beside its own name's
MUST_TAKE = {
    "wide tail fit: Gaussian (1, 0.05)": {"tail fit"},
    "wide tail fit: Gaussian (1, 1e-3)": {"tail fit"},
    "values within patterns: censored pair": {"value within pattern"},
    "pattern value llr: censored pair": {"pattern value llr"},
    "transcript tail fit: Gaussian beside a flag": {"tail fit of transcript llr"},
}
SLOW = {"transcript tail fit: Gaussian beside a flag"}


def _paths_taken(mech, d0, d1, trials, kwargs) -> set[str]:
    """Origins and families of the candidates one selection split proposes (the path really runs)."""
    rng = np.random.default_rng(ROOT_SEED)
    sample = (lambda d, n: mech.sample(d, n, rng=rng)) if hasattr(mech, "sample") else (lambda d, n: mech(d, rng, size=n))
    x0, x1 = flatten_outputs(np.asarray(sample(d0, trials))), flatten_outputs(np.asarray(sample(d1, trials)))
    layout = detect_layout(x0, x1)
    n_sel = int((0.1 if layout.n_columns == 1 and layout.kind == "continuous" else 0.3) * trials)
    cands, _ = choose_candidates(layout, x0[:n_sel], x1[:n_sel], n_est=trials - n_sel, delta=0.0, z=2.0)
    fitted_tails = {f"tail fit of {c.score.family}" for c in cands if c.origin == "tail fit" and c.score.family}
    return {c.origin for c in cands} | {c.score.name.split(" (")[0] for c in cands} | fitted_tails


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in CASES])
def test_false_alarms_on_the_new_selection_paths(name):
    mech, d0, d1, trials, kwargs = CASES[name]
    taken = _paths_taken(mech, d0, d1, trials, kwargs)
    assert MUST_TAKE[name] <= taken, (MUST_TAKE[name], taken)
    seeds = np.random.SeedSequence([ROOT_SEED, len(name)]).spawn(AUDITS)
    results = [dpaudit.audit(mech, d0, d1, trials=trials, confidence=CONFIDENCE, seed=s, **kwargs) for s in seeds]
    alarms = sum(r.violation for r in results)
    limit = int(stats.binom.ppf(1 - FAILURE_PROB, AUDITS, 1 - CONFIDENCE))
    assert alarms <= limit, (f"{name}: {alarms} false alarms in {AUDITS} audits of {trials} trials > {limit} (binomial "
                             f"{1 - CONFIDENCE}, failure prob {FAILURE_PROB}); root seed {ROOT_SEED}")
    assert np.median([r.epsilon_lower_bound for r in results]) > 0.0


#: Selection rows screened in the whole-split cases: a fifth of the halves of their selection splits.
WHOLE_SPLIT_SCREEN = 600
WHOLE_SPLIT_CASES = {
    "whole split: censored pair": (censored_pair, 0.0, 1.0, 20_000, dict(epsilon=1.0)),
    "whole split: numerical sparse vector": (NumericalSVT(1.0, 1.0, 2), np.ones(10), 2.0 * np.ones(10), 20_000, {}),
}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) for n in WHOLE_SPLIT_CASES])
def test_false_alarms_of_the_whole_split_final_round(name, monkeypatch):
    monkeypatch.setattr(selection, "SCREEN_ROWS", WHOLE_SPLIT_SCREEN)
    mech, d0, d1, trials, kwargs = WHOLE_SPLIT_CASES[name]
    fitted_on: list[int] = []
    fit = selection.fit_scores

    def spy(layout, a0, a1, *, float_bits=False, only=None):
        if only is not None and "pattern value llr" in only:
            fitted_on.append(len(a0))
        return fit(layout, a0, a1, float_bits=float_bits, only=only)

    monkeypatch.setattr(selection, "fit_scores", spy)
    assert "pattern value llr" in _paths_taken(mech, d0, d1, trials, kwargs)
    n_sel = int(0.3 * trials)  # as _paths_taken splits
    assert fitted_on == [n_sel // 2, n_sel - n_sel // 2, n_sel]  # cross-fitted: on each half, then on the whole split
    seeds = np.random.SeedSequence([ROOT_SEED, len(name)]).spawn(AUDITS)
    results = [dpaudit.audit(mech, d0, d1, trials=trials, confidence=CONFIDENCE, seed=s, **kwargs) for s in seeds]
    alarms = sum(r.violation for r in results)
    limit = int(stats.binom.ppf(1 - FAILURE_PROB, AUDITS, 1 - CONFIDENCE))
    whole = sum("pattern value llr" in r.evidence.attack for r in results)
    print(f"{name}: {alarms} false alarms in {AUDITS} audits of {trials} trials (limit {limit}); the whole-split "
          f"family's event chosen in {whole}")
    assert alarms <= limit, (f"{name}: {alarms} false alarms in {AUDITS} audits of {trials} trials > {limit} (binomial "
                             f"{1 - CONFIDENCE}, failure prob {FAILURE_PROB}); root seed {ROOT_SEED}; the whole-split "
                             f"family's event chosen in {whole}")
    assert np.median([r.epsilon_lower_bound for r in results]) > 0.0
