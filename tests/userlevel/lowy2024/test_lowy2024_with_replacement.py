"""Algorithm 2 with replacement (pitfall P7): the step law by hand, the model against the implementation, the outcome.

* :func:`replacement_step_law` on four users (a canary and three identical users, ``K = 4`` draws),
  where every composition's score, ramp and mean are worked out below by hand;
* the AboveThreshold answers' exact law on the P7 worst pair against the frequencies of the
  answers of :class:`WithReplacementMinibatchSGD` itself (the model of the records is the mechanism);
* the full variant's outcome: the dominating pair's bound on the pair, at most the claim (masked).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from dpaudit.exact.random_threshold import random_query_threshold_profile
from dpaudit.userlevel.full_algorithms import FULL_VARIANTS, pair_bracket, variant_outcome
from dpaudit.userlevel.lowy2024.faulty import WithReplacementMinibatchSGD
from dpaudit.userlevel.lowy2024.with_replacement import (
    replacement_step_law,
    replacement_transcript_steps,
)
from dpaudit.userlevel.lowy2024.worst_pairs import ALG2_RULE, REPLACEMENT, alg2_worst_pair
from dpaudit.userlevel.transcript_profile import _LOWY_REPLACEMENT

# the variant announces itself whenever it is rebuilt (observed, transcript_steps); these tests know
pytestmark = pytest.mark.filterwarnings("ignore::dpaudit.errors.UnsoundMechanismWarning")


def _binom(k: int) -> Fraction:
    return Fraction(math.comb(4, k) * 3 ** (4 - k), 4**4)  # the canary's multiplicity: Binomial(4, 1/4)


def test_step_law_by_hand() -> None:
    """A canary (type 0) and three users at 0.5 (type 1), ``K = 4`` draws, radius 0.4.

    d0: the canary at 0.3, within 0.4 of the others: every pair counts, score ``16/4 = 4`` whatever
    ``k``; every rank is 4 >= 2K/3: all kept, mean ``(0.3 k + 0.5 (4 - k))/4``.
    d1: the canary at -0.5, 1.0 away: score ``((4 - k)^2 + k^2)/4``; ranks ``4 - k`` (others) and ``k``
    (canary). Ramp: ``p(h) = clip((h - 2) * 6/4, 0, 1)``: ``h in {0, 2}`` gives 0, ``h in {3, 4}`` gives 1,
    ``h = 1`` gives 0. ``k = 2``: both ranks 2, nobody kept: irregular (a halt). ``k = 0, 1``: the others
    kept, mean 0.5; ``k = 3, 4``: the canary kept alone, mean -0.5.
    Largest location distance over regular ``k``: d0 at ``k = 0`` (0.5) against d1 at ``k = 3, 4`` (-0.5): 1.0.
    """
    law = replacement_step_law(np.array([[0.3], [0.5]]), np.array([[-0.5], [0.5]]), [1, 3], 4, 0.4)
    regular = [0, 1, 3, 4]
    mass = sum(_binom(k) for k in regular)
    assert law.irregular == _binom(2) == Fraction(54, 256)
    assert law.compositions == 5
    assert law.scores0 == ((4.0, Fraction(1)),)
    expected1: dict[float, Fraction] = {}
    for k in regular:
        score = ((4 - k) ** 2 + k**2) / 4
        expected1[score] = expected1.get(score, Fraction(0)) + _binom(k) / mass
    assert dict(law.scores1) == expected1
    assert law.max_shift == pytest.approx(1.0, rel=1e-9) and law.max_shift >= 1.0


def test_step_law_refuses_too_many_types() -> None:
    from dpaudit.exact import ProfileUnavailable

    types = np.linspace(-1, 1, 6)[:, None]
    with pytest.raises(ProfileUnavailable, match="compositions"):
        replacement_step_law(types, types, [30] * 6, 180, 0.4)


@pytest.fixture(scope="module")
def p7_pair():  # type: ignore[no-untyped-def]
    return alg2_worst_pair(cls=WithReplacementMinibatchSGD)


def test_records_mark_the_minibatch(p7_pair) -> None:  # type: ignore[no-untyped-def]
    steps = p7_pair.transcript_steps()
    assert REPLACEMENT == _LOWY_REPLACEMENT
    tests = [s for s in steps if s.law == "above threshold"]
    assert len(tests) == 4 and all(s.parameters["minibatch"] == REPLACEMENT for s in tests)
    assert tests[0].parameters["type counts"] == (9, 1, 150) and tests[0].parameters["draws"] == 160
    # the correct algorithm's records carry no such mark
    assert all("minibatch" not in s.parameters for s in alg2_worst_pair().transcript_steps())


def test_answers_law_matches_the_mechanism(p7_pair) -> None:  # type: ignore[no-untyped-def]
    """The first halting step of the sampled transcripts against the records' exact law, 4.5 standard errors per cell."""
    steps = p7_pair.transcript_steps()
    tests = [s for s in steps if s.law == "above threshold"]
    p = tests[0].parameters
    law = replacement_step_law(np.asarray(tests[0].on_d0["user types"]), np.asarray(tests[0].on_d1["user types"]),
                               p["type counts"], p["draws"], p["score radius"])
    prof = random_query_threshold_profile(-p["threshold"], p["threshold scale"], p["query scale"],
                                          [[(-v, w) for v, w in law.scores0]] * 4, [[(-v, w) for v, w in law.scores1]] * 4)
    mech, n = p7_pair.observed("transcript"), 3000
    for side, (data, expected) in enumerate(((p7_pair.d0, prof.p_lo), (p7_pair.d1, prof.q_lo))):
        rows = mech.sample(data, n, rng=np.random.default_rng(7 + side))
        codes = rows[:, [s.columns[0] for s in tests]]
        first = np.where((codes == 0).any(axis=1), (codes == 0).argmax(axis=1), 4)
        freq = np.bincount(first, minlength=5) / n
        se = np.sqrt(expected * (1 - expected) / n)
        assert np.all(np.abs(freq - expected) <= 4.5 * se + 1e-12), (side, n, freq, expected, f"seed {7 + side}")
    # the two sides differ: the test sees the canary
    assert np.max(np.abs(prof.p_lo - prof.q_lo)) > 0.05


def test_p7_is_masked_on_its_pair(p7_pair) -> None:  # type: ignore[no-untyped-def]
    """The dominating pair's bound is at most the claim (8), and at least the answers' own exact epsilon (post-processing)."""
    bracket, description = pair_bracket(p7_pair)
    assert bracket is not None, description
    assert not bracket.exact and bracket.upper <= p7_pair.epsilon
    tests = [s for s in p7_pair.transcript_steps() if s.law == "above threshold"]
    answers = replacement_transcript_steps(tests, [])[0].profile().epsilon(p7_pair.delta)
    assert answers.exact and answers.lower > 0.5 and bracket.upper >= answers.lower
    assert variant_outcome(p7_pair.epsilon, False, bracket) == "masked"
    assert any(v.bug == "P7" for v in FULL_VARIANTS)


def test_transcript_steps_by_hand() -> None:
    """The 4-user case as records: the answers' exact law, the Gaussian of shift 1.0 per step, and P(B) = 1 - (202/256)^2."""
    from dpaudit.exact import Adaptive, DPStep, GaussianStep, ProfileStep
    from dpaudit.userlevel.transcript import TranscriptStep

    at = {"threshold scale": 1.0, "query scale": 2.0, "threshold": 3.0, "rule": ALG2_RULE, "call": 1,
          "threshold noise": "once per call", "minibatch": REPLACEMENT, "draws": 4, "type counts": (1, 3), "score radius": 0.4}
    tests = [TranscriptStep((2 * t, 2 * t + 1), "answer", "above threshold", at, {"user types": ((0.3,), (0.5,))},
                            {"user types": ((-0.5,), (0.5,))}) for t in range(2)]
    gaussians = [TranscriptStep((2 * t + 1, 2 * t + 2), "gradient", "gaussian", {"sigma": 2.0, "minibatch": REPLACEMENT})
                 for t in range(2)]
    out = replacement_transcript_steps(tests, gaussians)
    assert [type(s) for s in out] == [ProfileStep, Adaptive, DPStep]
    gauss = out[1].options[0]
    assert isinstance(gauss, GaussianStep) and gauss.sigma == 2.0 and len(gauss.shift) == 2
    assert all(1.0 <= s <= 1.0 + 1e-9 for s in gauss.shift)
    blocked = 1 - Fraction(202, 256) ** 2
    assert float(blocked) <= out[2].delta <= float(blocked) * (1 + 1e-15) and out[2].epsilon == 0.0
    # d0's score is 4 whatever k: the answers' law on d0 is the point-mass AboveThreshold law
    point = random_query_threshold_profile(-3.0, 1.0, 2.0, [[(-4.0, Fraction(1))]] * 2, [[(-4.0, Fraction(1))]] * 2)
    assert np.allclose(out[0].of.p_lo, point.p_lo, rtol=1e-12)
    # through the transcript calculator: an upper bound, the three steps composed
    from dpaudit.userlevel.transcript_profile import transcript_profile

    profile = transcript_profile([*tests, *gaussians])
    assert profile.kind == "upper bound" and profile.epsilon(0.5).upper < math.inf
