"""The certified profile of a full algorithm's transcript on its worst pair (dpaudit.userlevel.transcript_profile).

Checked against independent computations (float pmfs, the mechanism's own samples), the records it
refuses, the wrapper that declares it to the auditor, and the outcome computed from both sides.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.exact import EpsilonBracket, ProfileUnavailable
from dpaudit.interfaces import StructuredMechanism
from dpaudit.mechanisms.discrete import tdlap_pmf
from dpaudit.userlevel.full_algorithms import FULL_ALGORITHMS, OUTCOMES, outcome, pair_bracket
from dpaudit.userlevel.transcript import TranscriptStep
from dpaudit.userlevel.transcript_profile import (
    ProfiledTranscript,
    tdlap_flag_profile,
    transcript_profile,
)

#: Per-check failure probability of the frequency checks (fixed seeds: a failure reproduces).
ALPHA = 1e-4


def _alg(name):
    return next(a for a in FULL_ALGORITHMS if a.name == name).pair()


# -- the records' laws, independently ------------------------------------------------------------


def _log_ratio(a: float, b: float) -> float:
    if a <= 1e-15 and b <= 1e-15:
        return 0.0
    return math.inf if min(a, b) <= 1e-15 else abs(math.log(a / b))


@pytest.mark.parametrize(("k0", "k1", "eps", "kappa"),
                         [(28, 27, 0.5, 27), (3, 1, 0.2, 5), (0, 1, 1.0, 3), (10, 11, 0.3, 5), (11, 12, 0.3, 5)])
def test_the_flag_profile_is_the_tdlap_cdf_ratio(k0, k1, eps, kappa):
    """Pure epsilon of the two-point flag law = the larger log ratio of P(R < k) or of its complement (float pmf)."""
    pmf = tdlap_pmf(eps, 0.0, kappa=kappa)
    p0, p1 = pmf[:k0].sum(), pmf[:k1].sum()
    want = max(_log_ratio(p0, p1), _log_ratio(1 - p0, 1 - p1))
    got = tdlap_flag_profile(k0, k1, eps, kappa).epsilon(0.0)
    assert got.exact
    if math.isinf(want):  # one side never (or always) raises the flag: an infinite loss
        assert got.lower == math.inf
        return
    assert got.lower <= want * (1 + 1e-9) and got.upper >= want * (1 - 1e-9), (got, want)
    assert got.upper - got.lower <= 1e-9 * max(want, 1.0)


def test_the_flag_records_match_the_mechanisms_own_frequencies():
    """Ghazi et al. 2023 Alg 4: the ⊥ flag's frequency on each side lies in its exact P(R1 < k) (binomial test)."""
    wp = _alg("Ghazi 2023 Alg 4")
    step = wp.transcript_steps()[0]
    pmf = tdlap_pmf(step.parameters["eps_bar"], 0.0, kappa=step.parameters["kappa"])
    mech = wp.observed("transcript")
    n = 4_000
    for data, rec, seed in ((wp.d0, step.on_d0, 1), (wp.d1, step.on_d1, 2)):
        flags = mech.sample(data, n, rng=np.random.default_rng(seed))[:, 0]
        p = pmf[: rec["k"]].sum()
        assert stats.binomtest(int(flags.sum()), n, p).pvalue > ALPHA, (rec, flags.mean(), p)


def test_the_range_records_match_the_mechanisms_own_bins():
    """Levy et al. Alg 3: the released bins' frequencies fit the exponential mechanism the records name (chi-square)."""
    wp = _alg("Levy Alg 3, 4 steps")
    step = wp.transcript_steps()[1]
    eps = step.parameters["epsilon"]
    mech = wp.observed("transcript")
    n = 4_000
    for data, rec, seed in ((wp.d0, step.on_d0, 3), (wp.d1, step.on_d1, 4)):
        rows = mech.sample(data, n, rng=np.random.default_rng(seed))
        lower_ends = rows[:, step.columns[0]]
        counts = np.array(rec["counts"], dtype=float)
        law = np.exp(eps * (counts - counts.max()) / 2)
        law /= law.sum()
        ends = step.parameters["bin_width"] * (np.arange(counts.size) + 0.5) - step.parameters["bound"] - step.parameters["half_width"]
        observed = np.array([np.isclose(lower_ends, e, atol=1e-9).sum() for e in ends])
        assert observed.sum() == n  # every released lower end is one of the recorded bins'
        likely = law * n >= 5  # the rare bins pooled into one cell
        obs, want = observed[likely], law[likely]
        if not likely.all():
            obs, want = np.append(obs, observed[~likely].sum()), np.append(want, law[~likely].sum())
        assert stats.chisquare(obs, want * n).pvalue > ALPHA, (observed, law * n)


@pytest.mark.parametrize("variant", [None, "RedrawnThresholdMinibatchSGD"])
def test_the_threshold_records_match_the_mechanisms_own_halting_steps(variant):
    """Lowy et al. Alg 2 (and P10, fresh threshold noise per step): the first halting step's frequencies fit the exact law."""
    import warnings

    from dpaudit.errors import UnsoundMechanismWarning
    from dpaudit.userlevel.lowy2024 import faulty
    from dpaudit.userlevel.lowy2024.worst_pairs import alg2_worst_pair
    from dpaudit.userlevel.transcript_profile import transcript_exact_steps

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        wp = alg2_worst_pair(cls=getattr(faulty, variant)) if variant else alg2_worst_pair()
        mech = wp.observed("transcript")
        answers = transcript_exact_steps(wp.transcript_steps())[-1].of  # the AboveThreshold answers' law
    steps = wp.mechanism.steps
    # the laws' outcomes as the first halting step (steps = no halt), whatever the labels' spelling
    first = [lab.find("⊤") if "⊤" in lab else steps for lab in answers.labels] if variant is None else \
        [int(lab.split()[-1]) - 1 if lab.startswith("halt") else steps for lab in answers.labels]
    n = 3_000
    for data, side, seed in ((wp.d0, "p", 7), (wp.d1, "q", 8)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnsoundMechanismWarning)
            rows = mech.sample(data, n, rng=np.random.default_rng(seed))
        halts = rows[:, 0:2 * steps:2] == 0.0  # answer columns: 1 continue, 0 halt, -1 not reached
        got = np.bincount(np.where(halts.any(axis=1), halts.argmax(axis=1), steps), minlength=steps + 1)
        law = np.zeros(steps + 1)
        law[first] = 0.5 * (getattr(answers, f"{side}_lo") + getattr(answers, f"{side}_hi"))
        assert stats.chisquare(got, law * n).pvalue > ALPHA, (side, got, law * n)


def test_the_laplace_test_records_match_the_mechanisms_own_passes():
    """Lowy et al. Alg 1: the test's pass frequency on each side lies in its P(score + Lap(b) >= threshold) (binomial test)."""
    wp = _alg("Lowy Alg 1")
    step = wp.transcript_steps()[0]
    b, thr = step.parameters["scale"], step.parameters["threshold"]
    mech = wp.observed("transcript")
    n = 4_000
    for data, rec, seed in ((wp.d0, step.on_d0, 9), (wp.d1, step.on_d1, 10)):
        passes = mech.sample(data, n, rng=np.random.default_rng(seed))[:, 0] == 1.0
        p = 0.5 * math.exp(-(thr - rec["score"]) / b)  # both scores below the threshold
        assert stats.binomtest(int(passes.sum()), n, p).pvalue > ALPHA, (rec, passes.mean(), p)


# -- the conversion --------------------------------------------------------------------------------


_ALG1_RULE = "pass iff score + Lap(scale) >= threshold"


def _lowy_phase(s0, s1, loc0=0.0, loc1=0.0, probs=(1.0, 1.0), threshold=1.0, scale=2.0, sigma=1.0):
    """One phase of Lowy et al.'s Algorithm 1 as records: the test, the Gaussian released on a pass, the output."""
    key = "location if the coins are their means"
    return [TranscriptStep((0, 1), "test", "laplace test", {"scale": scale, "threshold": threshold, "rule": _ALG1_RULE},
                           {"score": s0}, {"score": s1}),
            TranscriptStep((1, 2), "x_1", "gaussian", {"sigma": sigma}, {"inclusion probabilities": probs, key: (loc0,)},
                           {"inclusion probabilities": probs, key: (loc1,)}),
            TranscriptStep((2, 3), "out", "none")]


@pytest.mark.parametrize(("s0", "s1", "threshold", "scale"), [(0.0, -1.0, 1.0, 2.0), (1.5, 0.5, 1.0, 0.5), (3.0, 2.0, 1.0, 1.0)])
@pytest.mark.parametrize("delta", [0.0, 1e-3])
def test_a_one_step_laplace_test_is_its_two_bernoulli_laws(s0, s1, threshold, scale, delta):
    """One phase whose Gaussian does not move: the certified epsilon equals the hand computation of the test's laws.

    ``P(pass) = P(Lap(b) >= threshold - score)`` (the Laplace survival function) on each side; at
    ``delta`` the two-point law's epsilon is the largest ``ln((P(o) - delta) / Q(o))``.
    """
    def passes(score):
        gap = threshold - score
        return 0.5 * math.exp(-gap / scale) if gap >= 0 else 1 - 0.5 * math.exp(gap / scale)

    a0, a1 = passes(s0), passes(s1)
    want = max([math.log((a - delta) / c) for a, c in ((a0, a1), (a1, a0), (1 - a0, 1 - a1), (1 - a1, 1 - a0))
                if a - delta > c] + [0.0])
    for steps in (_lowy_phase(s0, s1, threshold=threshold, scale=scale), _lowy_phase(s0, s1, threshold=threshold, scale=scale)[:1]):
        got = transcript_profile(steps).epsilon(delta)
        assert got.kind == "exact"
        assert got.lower - 1e-12 <= want <= got.upper + 1e-12, (got, want)
        assert got.upper - got.lower <= 1e-9


def test_a_test_then_a_moving_gaussian_is_their_joint_law_and_a_coin_strictly_random_is_refused():
    joint = transcript_profile(_lowy_phase(0.0, -1.0, 0.0, 0.4)).epsilon(1e-3)
    alone = transcript_profile(_lowy_phase(0.0, -1.0)).epsilon(1e-3)
    assert joint.kind == "exact" and joint.lower > alone.upper
    assert isinstance(transcript_profile(_lowy_phase(0.5, 0.5)), dpaudit.exact.IdenticalProfile)
    with pytest.raises(ProfileUnavailable, match="ramp coins"):
        transcript_profile(_lowy_phase(0.0, -1.0, probs=(1.0, 0.5)))
    with pytest.raises(ProfileUnavailable, match="empty kept set"):
        transcript_profile(_lowy_phase(0.0, -1.0, probs=(0.0, 0.0)))


def test_lowy_alg1_pair_is_certified_exactly_and_the_audit_stays_below_it():
    """The pair's exact epsilon is the joint law of its records' test and Gaussian; an audit cannot exceed its upper end."""
    from dpaudit.exact import laplace_test_then_gaussian_profile

    wp = _alg("Lowy Alg 1")
    test, gauss = wp.transcript_steps()[:2]
    key = "location if the coins are their means"
    by_hand = laplace_test_then_gaussian_profile(
        test.on_d0["score"], test.on_d1["score"], test.parameters["threshold"], test.parameters["scale"],
        gauss.on_d1[key][0] - gauss.on_d0[key][0], gauss.parameters["sigma"]).epsilon(wp.delta)
    bracket, _ = pair_bracket(wp)
    assert bracket.exact and bracket.lower == pytest.approx(by_hand.lower, rel=1e-12)
    assert bracket.upper - bracket.lower < 1e-9
    # the test spends its whole share (2 (C-1)/C over the Laplace scale) and the ramp's mean moves by 0.012 sigma
    assert test.parameters["sensitivity"] / test.parameters["scale"] - 0.01 < bracket.lower < bracket.upper < 0.5 * wp.epsilon
    assert outcome(wp.epsilon, 0.0, bracket)[0] == "loose"
    res = dpaudit.audit(wp.profiled(), wp.d0, wp.d1, epsilon=wp.epsilon, delta=wp.delta, trials=20_000, seed=3)
    assert res.epsilon_upper == pytest.approx(bracket.upper, rel=1e-12) and res.profile_kind == "exact"
    assert 0.0 < res.epsilon_lower_bound <= res.epsilon_upper, (res.epsilon_lower_bound, res.epsilon_upper)




def _range_then_laplace_losses(counts0, counts1, eps, loc0, loc1, scale):
    """Float largest loss of (bin, Lap(loc_bin)) each way: a Laplace tail of the bin maximising ``+-ln P0/P1 + |shift| / scale``."""
    laws = []
    for c in (counts0, counts1):
        w = np.exp(eps * np.array(c, dtype=float) / 2)
        laws.append(w / w.sum())
    em = np.log(laws[0] / laws[1])
    lap = np.abs(np.subtract(loc1, loc0)) / scale
    return np.array([np.max(em + lap), np.max(-em + lap)])


@pytest.mark.parametrize(("counts0", "counts1", "eps", "loc0", "loc1", "scale"), [
    ((0, 1, 9, 0), (0, 0, 9, 1), 0.4, (0.0, 0.1, 0.2, 0.3), (0.05, 0.1, 0.15, 0.3), 0.5),
    ((5, 1, 5), (5, 0, 6), 1.0, (0.0, -0.2, 0.4), (0.3, 0.1, 0.4), 0.25),  # the loss peaks where the bins and the mean agree
    ((3, 3), (2, 4), 0.2, (0.0, 0.0), (0.0, 0.0), 1.0),  # the mean does not move: the exponential mechanism alone
])
def test_a_range_then_laplace_step_is_their_joint_law(counts0, counts1, eps, loc0, loc1, scale):
    """At delta = 0 the joint law's epsilon is the largest ``+-ln P0(k)/P1(k) + |shift_k| / scale``, exactly (float pmf)."""
    steps = [TranscriptStep((0, 1), "range", "exponential mechanism", {"epsilon": eps, "weights": "exp(epsilon * count / 2)"},
                            {"counts": counts0}, {"counts": counts1}),
             TranscriptStep((1, 2), "mean", "laplace", {"scale": scale}, {"location given bin": loc0}, {"location given bin": loc1}),
             TranscriptStep((2, 3), "out", "none")]
    want = float(_range_then_laplace_losses(counts0, counts1, eps, loc0, loc1, scale).max())
    got = transcript_profile(steps).epsilon(0.0)
    assert got.kind == "exact"
    assert got.lower <= want * (1 + 1e-9) and got.upper >= want * (1 - 1e-9), (got, want)
    assert got.upper - got.lower <= 1e-9


def test_two_ranges_pair_with_their_means_in_order():
    """Algorithm 2's layout (every range, then every mean): the k-th range is joined with the k-th mean."""
    em = [TranscriptStep((k, k + 1), f"range {k}", "exponential mechanism", {"epsilon": e, "weights": "exp(epsilon * count / 2)"},
                         {"counts": (1, 3)}, {"counts": (0, 4)}) for k, e in enumerate((0.3, 1.2))]
    moves = ((0.6, 0.0), (0.0, 0.6))  # each mean moves given one bin only: a wrong pairing changes the sum
    lap = [TranscriptStep((2 + k, 3 + k), f"mean {k}", "laplace", {"scale": b}, {"location given bin": (0.0, 0.0)},
                          {"location given bin": moves[k]}) for k, b in enumerate((1.0, 0.4))]
    want = float(sum(_range_then_laplace_losses((1, 3), (0, 4), e, (0.0, 0.0), m, b)
                     for e, m, b in ((0.3, moves[0], 1.0), (1.2, moves[1], 0.4))).max())  # each way, summed over the steps
    got = transcript_profile([*em, *lap]).epsilon(0.0)
    assert got.lower <= want + 1e-3 and got.upper >= want - 1e-3, (got, want)


def test_identical_branches_drop_out_and_an_exact_flag_stays_exact():
    steps = [TranscriptStep((0, 1), "flag", "truncated discrete laplace test", {"eps_bar": 0.5, "delta_bar": 1e-6, "kappa": 27},
                            {"k": 28}, {"k": 27}),
             TranscriptStep((1, 2), "theta", "gaussian", {"sigma": 3.0}, {"centre": 0.25}, {"centre": 0.25})]
    profile = transcript_profile(steps)
    assert profile.kind == "exact"
    assert profile.epsilon(0.0).upper == pytest.approx(tdlap_flag_profile(28, 27, 0.5, 27).epsilon(0.0).upper, rel=1e-12)


@pytest.mark.parametrize(("step", "why"), [
    (TranscriptStep((0, 1), "flag", "truncated discrete laplace test", {"eps_bar": 0.5, "kappa": 3}, {"k": 1}, {"k": 2},
                    adaptive=True), "adaptive"),
    (TranscriptStep((0, 1), "test", "laplace test", {"scale": 2.0, "threshold": 1.0}, {"score": 0.0}, {"score": 1.0}),
     "laplace test"),
    (TranscriptStep((0, 1), "range", "exponential mechanism", {"epsilon": 0.1, "weights": "exp(epsilon * count)"},
                    {"counts": (1, 0)}, {"counts": (0, 1)}), "weights"),
    (TranscriptStep((0, 1), "mean", "laplace", {"scale": 1.0}, {"location": 0.0}, {"location": 1.0}), "PrivateRange"),
    (TranscriptStep((0, 1), "sgd", "gaussian", {"sigma": 1.0}, {"inclusion probabilities": (0.5,)},
                    {"inclusion probabilities": (0.4,)}), "branch"),
])
def test_records_it_cannot_certify_are_refused_with_the_reason(step, why):
    with pytest.raises(ProfileUnavailable, match=why):
        transcript_profile([step])


# -- the wrapper the auditor sees ------------------------------------------------------------------


def test_the_wrapper_declares_the_pair_only_and_delegates_the_rest():
    wp = _alg("Ghazi 2025 Alg 1 + noise")
    mech = wp.profiled()
    assert isinstance(mech, ProfiledTranscript) and mech.observe == "transcript"
    assert isinstance(mech, StructuredMechanism)
    again = pickle.loads(pickle.dumps(mech))
    rows = again.sample(wp.d0, 5, rng=np.random.default_rng(0))
    np.testing.assert_array_equal(rows, wp.observed("transcript").sample(wp.d0, 5, rng=np.random.default_rng(0)))
    assert again.claimed_guarantee() == wp.observed("transcript").claimed_guarantee()
    forward, backward = (again.privacy_profile(a, b).epsilon(wp.delta) for a, b in ((wp.d0, wp.d1), (wp.d1, wp.d0)))
    assert forward.upper == pytest.approx(backward.upper, rel=1e-9)
    with pytest.raises(ProfileUnavailable, match="built for"):
        again.privacy_profile(wp.d0, wp.d0)
    with pytest.raises(dpaudit.InvalidArgument, match="observe"):
        ProfiledTranscript.of(wp.observed("final"), wp.d0, wp.d1, wp.steps)


def test_an_audit_of_the_wrapper_reports_the_pair_bracket():
    wp = _alg("Ghazi 2025 Alg 1 + noise")
    res = dpaudit.audit(wp.profiled(), wp.d0, wp.d1, epsilon=wp.epsilon, delta=wp.delta, trials=4_000, seed=5)
    bracket, _ = pair_bracket(wp)
    assert res.epsilon_upper == pytest.approx(bracket.upper, rel=1e-12)
    assert res.profile_kind == "upper bound"
    assert res.epsilon_lower_bound <= res.epsilon_upper
    assert res.bracket_verdict == "loose on this pair"


@pytest.mark.parametrize(("name", "covered"), [("Levy Alg 3, 4 steps", True), ("Ghazi 2023 Alg 4", True),
                                               ("Ghazi 2025 Alg 5", True), ("Lowy Alg 2, 4 steps", True),
                                               ("Lowy Alg 1", True), ("Ghazi 2023 Alg 6", True),
                                               pytest.param("Ghazi 2023 Alg 3", True, marks=pytest.mark.slow),
                                               pytest.param("Ghazi 2023 Alg 5", True, marks=pytest.mark.slow)])
def test_which_full_algorithms_have_a_certified_pair(name, covered):
    bracket, why = pair_bracket(_alg(name))
    assert (bracket is not None) is covered, why
    if covered:
        assert 0.0 < bracket.upper < _alg(name).epsilon  # the pair keeps the claim (the claim is a valid bound)


def test_ghazi2023_later_phases_are_certified_only_when_start_free():
    """Algorithm 6's pair: exact (two flags at the boundary, 0.49997 at 1e-5) on the translate engine; adaptive otherwise."""
    from dpaudit.userlevel.ghazi2023.worst_pairs import alg6_worst_pair

    wp = _alg("Ghazi 2023 Alg 6")
    steps = wp.transcript_steps()
    flags = [s for s in steps if s.law == "truncated discrete laplace test"]
    assert [(f.on_d0["k"], f.on_d1["k"], f.adaptive) for f in flags] == [(56, 55, False), (56, 55, False)]
    bracket, _ = pair_bracket(wp)
    assert bracket is not None and bracket.exact and 0.4999 < bracket.lower <= bracket.upper < 0.5
    auto = alg6_worst_pair(engine="auto")  # the search per start: the records cannot say the later phase is start-free
    assert [s.adaptive for s in auto.transcript_steps() if s.law != "none"] == [False, False, True, True]
    assert pair_bracket(auto)[0] is None


# -- the outcome -----------------------------------------------------------------------------------


def _b(upper, lower=0.0, kind="exact"):
    return EpsilonBracket(1e-5, lower, upper, kind)


@pytest.mark.parametrize(("lower", "bracket", "want"), [
    (0.5, None, ("tight", None)),
    (0.6, _b(0.9), ("tight", 1 / 0.9)),
    (0.49, _b(0.9), ("open", 1 / 0.9)),
    (0.1, _b(0.5, kind="upper bound"), ("loose", 2.0)),
    (0.1, _b(0.51), ("open", 1 / 0.51)),
    (0.0, None, ("open", None)),
])
def test_the_outcome_is_computed_in_order(lower, bracket, want):
    got = outcome(1.0, lower, bracket)
    assert got[0] == want[0] and got[0] in OUTCOMES
    assert (got[1] is None) == (want[1] is None) and (got[1] is None or got[1] == pytest.approx(want[1]))


@pytest.mark.parametrize(("flagged", "bracket", "want"), [
    (True, _b(0.5), "flagged"),
    (False, _b(1.2, lower=1.1), "violation certified"),
    (False, _b(1.2, lower=1.1, kind="upper bound"), "open"),  # a dominating pair above the claim proves nothing
    (False, _b(0.9, kind="upper bound"), "masked"),
    (False, _b(1.0, lower=1.0), "masked"),
    (False, None, "open"),
])
def test_a_variants_outcome_needs_the_pairs_own_law_to_certify_a_violation(flagged, bracket, want):
    from dpaudit.userlevel.full_algorithms import VARIANT_OUTCOMES, variant_outcome

    got = variant_outcome(1.0, flagged, bracket)
    assert got == want and got in VARIANT_OUTCOMES


@pytest.mark.parametrize("bad", [
    {"epsilon": 0.0}, {"epsilon": float("nan")}, {"scale": -1.0}, {"loc0": [0.0, float("inf")]},
    {"counts0": [], "counts1": [], "loc0": [], "loc1": []}, {"counts1": [1]},
])
def test_range_then_laplace_refuses_bad_input_naming_the_parameter(bad):
    from dpaudit.errors import InvalidArgument
    from dpaudit.userlevel.transcript_profile import range_then_laplace_profile

    args = {"counts0": [3, 1], "counts1": [2, 1], "epsilon": 1.0, "loc0": [0.0, 1.0], "loc1": [0.5, 1.0], "scale": 1.0, **bad}
    with pytest.raises(InvalidArgument, match="range_then_laplace_profile"):
        range_then_laplace_profile(**args)
