"""Validity with the transcript likelihood-ratio family, counted over many audits of correct transcript mechanisms.

Like :mod:`tests.statistical.test_auditor_validity`: each correct mechanism is audited ``AUDITS``
times at a claim it keeps (tight where a closed form exists) with independent seeds; a valid
auditor raises a false alarm with probability at most ``1 - CONFIDENCE`` per audit, so the count
must stay below the ``1 - FAILURE_PROB`` quantile of ``Binomial(AUDITS, 1 - CONFIDENCE)``. Each
mechanism is audited twice: by the whole auditor (the family competes with the others on the
selection split) and with the transcript family alone (every event it proposes is evaluated).

* ``gaussian transcript``: eight releases ``N(0.35 d, 1)`` of the datum ``d`` (the canary's
  gradient observed at every step of a noisy gradient descent) and a data-independent coin column
  (an atom column, so the layout is mixed): ``mu = 0.35 sqrt(8)``-GDP, exactly, and the claim is
  its exact epsilon at ``delta = 10^-3`` [DRS19, Cor 2.13];
* ``halt or value``: a halting bit (halt with probability 0.56 or 0.83) and, when it does not
  halt, a value ``N(m_d, 0.0056^2)`` with means ``10^-3`` apart (the shape of a phase of Lowy et
  al.'s Algorithm 1 on its worst pair, a larger shift so that the family fits the value too): the
  claim is the basic composition of the bit's pure epsilon and the Gaussian's epsilon at
  ``delta`` (valid, and near the bit's share). The family's clipped-linear scores once carried
  rounding noise on their plateaus and so read the values' low-order bits (a false alarm at 4.3
  against 2 on that phase, at one seed in a few); the unit test of exact plateaus
  (``tests/unit/test_transcript_llr.py``) guards that.

* ``bit at its epsilon``: the halting bit above beside a value column whose law is the same on
  both data, audited at the bit's exact epsilon at ``delta`` (``ln((p_1 - delta) / p_0)``, the
  larger of its two one-event ratios): the family's best event is the bit itself, whose ratio sits
  *at* the claim, so a bound that is not a confidence bound (point estimates of the two
  probabilities, say) raises a false alarm in about half the audits. This is the case that gives
  the count its power against a broken bound; the others check the family's fits.

The default run audits ``AUDITS`` times at small trial counts; ``-m slow`` audits 200 times at ten
times the trials.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.accounting.conversions import gdp_epsilon
from dpaudit.auditor import attacks

FAILURE_PROB = 1e-3
CONFIDENCE = 0.95
AUDITS = 40
SLOW_AUDITS = 200
ROOT_SEED = 20261123
DELTA = 1e-3

STEP_MU, STEPS = 0.35, 8
HALT = (0.56, 0.83)
MEAN, SIGMA = (-0.00166, -0.00266), 0.0056


def gaussian_transcript(data, rng, size=None):
    d = float(np.asarray(data).ravel()[0])
    coin = rng.integers(0, 2, size=(size, 1)).astype(float)
    return np.hstack([STEP_MU * d + rng.normal(size=(size, STEPS)), coin])


def halt_or_value(data, rng, size=None):
    d = int(np.asarray(data).ravel()[0])
    halted = rng.random(size) < HALT[d]
    value = MEAN[d] + SIGMA * rng.normal(size=size)
    return np.column_stack([halted.astype(float), np.where(halted, 0.0, value)])


def bit_and_noise(data, rng, size=None):
    d = int(np.asarray(data).ravel()[0])
    halted = rng.random(size) < HALT[d]
    return np.column_stack([halted.astype(float), rng.normal(size=size)])


def _bit_claim() -> float:
    """The bit's exact epsilon at DELTA: the smallest eps with both one-event inequalities holding."""
    (h0, h1) = HALT
    return max(math.log((h1 - DELTA) / h0), math.log((1 - h0 - DELTA) / (1 - h1)))


def _halt_claim() -> float:
    (h0, h1) = HALT
    bit = max(abs(math.log(h1 / h0)), abs(math.log((1 - h0) / (1 - h1))))
    return bit + gdp_epsilon(abs(MEAN[1] - MEAN[0]) / SIGMA, DELTA)


CASES = {
    "gaussian transcript": (gaussian_transcript, gdp_epsilon(STEP_MU * math.sqrt(STEPS), DELTA), 2_000),
    "halt or value": (halt_or_value, _halt_claim(), 4_000),
    "bit at its epsilon": (bit_and_noise, _bit_claim(), 4_000),
}


def _limit(n: int) -> int:
    return int(stats.binom.ppf(1 - FAILURE_PROB, n, 1 - CONFIDENCE))


def _only_the_family(monkeypatch: pytest.MonkeyPatch) -> None:
    real = attacks.score_families
    monkeypatch.setattr(attacks, "score_families",
                        lambda layout, float_bits=False: {k: v for k, v in real(layout, float_bits=float_bits).items()
                                                          if k == "transcript llr"})


def _count(name: str, audits: int, scale: int, family_only: bool) -> None:
    mech, claim, trials = CASES[name]
    seeds = np.random.SeedSequence([ROOT_SEED, len(name), scale, int(family_only)]).spawn(audits)
    results = [dpaudit.audit(mech, [0.0], [1.0], epsilon=claim, delta=DELTA, trials=trials * scale,
                             confidence=CONFIDENCE, seed=s) for s in seeds]
    alarms = int(sum(r.violation for r in results))
    limit = _limit(audits)
    worst = max(results, key=lambda r: r.epsilon_lower_bound)
    assert alarms <= limit, (
        f"{name} ({'family alone' if family_only else 'whole auditor'}): {alarms} false alarms in {audits} audits of "
        f"{trials * scale} trials > {limit} (binomial {1 - CONFIDENCE}, failure prob {FAILURE_PROB}); root seed "
        f"{ROOT_SEED}; claim {claim:.4f}; worst:\n{worst.to_text()}"
    )
    if family_only:  # the family learns something: not trivially valid
        assert np.median([r.epsilon_lower_bound for r in results]) > 0.0
        assert all(r.evidence.attack.startswith("transcript llr") for r in results if r.epsilon_lower_bound > 0)


@pytest.mark.parametrize("family_only", [False, True], ids=["whole auditor", "family alone"])
@pytest.mark.parametrize("name", list(CASES))
def test_false_alarms_on_correct_transcripts(name, family_only, monkeypatch):
    if family_only:
        _only_the_family(monkeypatch)
    _count(name, AUDITS, 1, family_only)


@pytest.mark.slow
@pytest.mark.parametrize("family_only", [False, True], ids=["whole auditor", "family alone"])
@pytest.mark.parametrize("name", list(CASES))
def test_false_alarms_on_correct_transcripts_200_audits(name, family_only, monkeypatch):
    if family_only:
        _only_the_family(monkeypatch)
    _count(name, SLOW_AUDITS, 10, family_only)
