"""The full algorithms' threat models, worst-case pairs and transcript records (dpaudit.userlevel.full_algorithms).

For every full algorithm: ``observe`` is validated; ``observe="transcript"`` releases the width its
transcript records describe, ends with the final output, and uses the same draws as
``observe="final"``; the worst pair differs in one user; the records tile the transcript's columns
and show the inputs the construction promises (the canary moves the quantity each proof bounds by
the amount its docstring states). The verdicts themselves (correct entries not flagged, broken
ones flagged) are counted by the catalogue's power test (``tests/quality``).
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument, UnsoundMechanismWarning
from dpaudit.neighbors import UserReplace, beyond_margin_items, canary_pair, linear_on_domain
from dpaudit.userlevel.full_algorithms import (
    FULL_ALGORITHMS,
    FULL_VARIANTS,
    GROUP,
    full_algorithm_cases,
)
from dpaudit.userlevel.losses import AbsoluteLoss, HingeLoss, SquaredLoss
from dpaudit.userlevel.transcript import LAWS, TranscriptStep

NAMES = [alg.name for alg in FULL_ALGORITHMS]
#: The large pairs (Ghazi et al. 2023's ERM algorithms) run in the slow suite only
_PARAMS = [pytest.param(i, marks=() if alg.demo else pytest.mark.slow, id=alg.name) for i, alg in enumerate(FULL_ALGORITHMS)]


def _observed(wp, observe):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        return wp.observed(observe)


@pytest.fixture(scope="module", params=_PARAMS)
def pair_and_steps(request):
    wp = FULL_ALGORITHMS[request.param].pair()
    return wp, wp.transcript_steps()


def test_observe_is_validated(pair_and_steps):
    wp, _ = pair_and_steps
    with pytest.raises(InvalidArgument, match="observe"):
        _observed(wp, "everything")


def test_the_pair_differs_in_one_user(pair_and_steps):
    wp, _ = pair_and_steps
    UserReplace().check_neighbors(wp.d0, wp.d1, owner="test")
    assert int(np.count_nonzero(np.any(wp.d0 != wp.d1, axis=(1, 2)))) == 1


def test_the_records_tile_the_transcript(pair_and_steps):
    _, steps = pair_and_steps
    assert steps[0].columns[0] == 0
    for a, b in itertools.pairwise(steps):
        assert a.columns[1] == b.columns[0], (a.release, b.release)
    assert all(s.law in LAWS and s.columns[1] > s.columns[0] for s in steps)
    assert steps[-1].law == "none" and "output" in steps[-1].release
    assert all(isinstance(s.as_dict()["columns"], list) for s in steps)


def test_transcript_width_final_output_and_draws(pair_and_steps):
    """The transcript has the records' width, and its last columns are the final output of the same draws."""
    wp, steps = pair_and_steps
    size = 64
    final = _observed(wp, "final").sample(wp.d0, size, rng=np.random.default_rng(5))
    full = _observed(wp, "transcript").sample(wp.d0, size, rng=np.random.default_rng(5))
    d = final.reshape(size, -1).shape[1]
    assert full.shape == (size, steps[-1].columns[1])
    np.testing.assert_array_equal(full[:, -d:], final.reshape(size, -1))


def test_the_canary_moves_what_the_construction_says():
    """Spot checks of each paper's records against its docstring (the quantities each proof bounds)."""
    levy = FULL_ALGORITHMS[0].pair()
    laplace = next(s for s in levy.transcript_steps() if s.law == "laplace")
    n = levy.d0.shape[0]
    loc0, loc1 = laplace.on_d0["location given bin"], laplace.on_d1["location given bin"]
    assert loc1[2] - loc0[2] == pytest.approx(1.5 / n)  # the likely bin's clipped mean moves by w/n
    assert laplace.parameters["scale"] == pytest.approx(2 * 1.5 / (n * levy.epsilon / levy.mechanism.steps), rel=1e-6)

    lowy = next(a for a in FULL_ALGORITHMS if a.name == "Lowy Alg 1").pair()
    test = lowy.transcript_steps()[0]
    c = lowy.mechanism.parameters(*lowy.d0.shape[:2], 1).groups
    assert test.on_d0["score"] - test.on_d1["score"] == pytest.approx(2 * (c - 1) / c)  # the score's sensitivity
    assert test.on_d1["score"] < test.on_d0["score"] < test.parameters["threshold"]

    g23 = next(a for a in FULL_ALGORITHMS if a.name == "Ghazi 2023 Alg 4").pair()
    flag, value = g23.transcript_steps()[:2]
    assert flag.on_d0["k"] == flag.parameters["kappa"] + 1 and flag.on_d1["k"] == flag.parameters["kappa"]
    assert value.on_d0["centre"] == value.on_d1["centre"]  # the stable centres coincide

    g25 = next(a for a in FULL_ALGORITHMS if a.name == "Ghazi 2025 Alg 1 + noise").pair()
    at = g25.transcript_steps()[0]
    first0, first1 = at.on_d0["scores"][0], at.on_d1["scores"][0]
    assert first0 - first1 == pytest.approx(1.99, abs=0.01)
    assert first1 < at.parameters["threshold"] < first0


@pytest.mark.parametrize("name", ["Levy Alg 3, 4 steps", "Levy Alg 3, 2 steps", "Levy Alg 4, 2 rounds", "Lowy Alg 1", "Lowy Alg 2, 4 steps"])
def test_the_canary_pairs_lie_in_the_losses_linear_region(name):
    wp = next(a for a in FULL_ALGORITHMS if a.name == name).pair()
    assert linear_on_domain(wp.mechanism.loss, wp.d0, wp.mechanism.radius)
    assert linear_on_domain(wp.mechanism.loss, wp.d1, wp.mechanism.radius)
    assert all(not s.adaptive for s in wp.transcript_steps())


def test_the_catalogue_group_lists_both_threat_models_and_the_variants():
    cases = full_algorithm_cases()
    assert {c.group for c in cases} == {GROUP}
    for alg in FULL_ALGORITHMS:
        names = {f"{alg.name} (final)", f"{alg.name} (transcript)"}
        assert names <= {c.name for c in cases} if alg.demo else not names & {c.name for c in cases}
    demo_variants = [c for c in cases if c.broken]
    assert len(demo_variants) == sum(v.demo for v in FULL_VARIANTS)
    assert all(c.mechanism.observe == "transcript" for c in demo_variants)


def test_canary_pair_and_beyond_margin_items():
    base = beyond_margin_items(np.zeros((4, 1)), 3, -2.0)
    assert base.shape == (4, 3, 2) and np.all(base[..., 1] == -2.0)
    d0, d1 = canary_pair(base, [0.5, -2.0], [-0.5, -2.0], index=2)
    assert np.all(d0[2, :, 0] == 0.5) and np.all(d1[2, :, 0] == -0.5)
    assert np.array_equal(np.delete(d0, 2, axis=0), np.delete(d1, 2, axis=0))
    with pytest.raises(InvalidArgument, match="index"):
        canary_pair(base, [0.0, 0.0], [1.0, 0.0], index=4)
    with pytest.raises(InvalidArgument, match="canary1"):
        canary_pair(base, [0.0, 0.0], np.zeros(5), index=0)


def test_linear_on_domain_decides_only_what_it_can():
    inside = beyond_margin_items(np.array([[0.5], [1.0]]), 2, -2.0)
    reaching = beyond_margin_items(np.array([[0.5], [1.0]]), 2, -0.9)
    assert linear_on_domain(AbsoluteLoss(), inside, 1.0)
    assert not linear_on_domain(AbsoluteLoss(), reaching, 1.0)  # |y| = 0.9 < R ||x|| = 1: the kink is reachable
    assert linear_on_domain(HingeLoss(), beyond_margin_items(np.array([[0.5]]), 1, 1.0), 1.0)
    assert not linear_on_domain(SquaredLoss(), inside, 1.0)  # not a piecewise-linear loss: never claimed


def test_transcript_step_refuses_an_unknown_law():
    with pytest.raises(InvalidArgument, match="law"):
        TranscriptStep((0, 1), "x", "cauchy")


def test_the_transcripts_mean_what_they_say():
    """Recompute each final output from its transcript (the releases determine it): a recording bug shows here."""
    rng = np.random.default_rng(11)
    levy = FULL_ALGORITHMS[0].pair()
    mech = levy.mechanism
    rows = _observed(levy, "transcript").sample(levy.d0, 200, rng=rng)
    steps = rows[:, :-1].reshape(200, mech.steps, 3)  # (omega, range lower end, noisy rotated mean) per step
    assert np.all(steps[:, :, 0] == 1.0)
    assert set(np.unique(steps[:, :, 1])) <= {-1.5, -1.0, -0.5, 0.0}  # c_k - 3 tau', c_k = -0.75 .. 0.75
    theta = np.zeros(200)
    for t in range(mech.steps):  # theta_{t+1} = Pi_[-1, 1](theta_t - eta omega Ybar_t) in d = 1
        theta = np.clip(theta - mech.step_size * steps[:, t, 0] * steps[:, t, 2], -1.0, 1.0)
    np.testing.assert_allclose(rows[:, -1], theta, rtol=0, atol=1e-12)

    lowy = next(a for a in FULL_ALGORITHMS if a.name == "Lowy Alg 1").pair()
    rows = _observed(lowy, "transcript").sample(lowy.d0, 400, rng=rng)  # (outcome, x_1, output)
    assert set(np.unique(rows[:, 0])) == {0.0, 1.0}
    halted = rows[:, 0] == 0.0
    assert np.all(rows[halted, 1:] == 0.0) and np.array_equal(rows[~halted, 1], rows[~halted, 2])

    g25 = next(a for a in FULL_ALGORITHMS if a.name == "Ghazi 2025 Alg 5").pair()
    rows = _observed(g25, "transcript").sample(g25.d1, 400, rng=rng)  # per phase (halt step, x_s), then the output
    radius = g25.mechanism.radius
    np.testing.assert_array_equal(rows[:, -1], np.clip(rows[:, -2], -radius, radius))  # the output: the last x_S, projected
    assert np.all(np.isin(rows[:, 0], [-1.0, 0.0, 1.0]))  # phase 1 has two steps: passed, or halted at step 0 or 1

    g23 = next(a for a in FULL_ALGORITHMS if a.name == "Ghazi 2023 Alg 4").pair()
    rows = _observed(g23, "transcript").sample(g23.d0, 400, rng=rng)  # (⊥ flag, theta_hat_1, output)
    bottom = rows[:, 0] == 1.0
    assert bottom.any() and (~bottom).any()
    assert np.all(rows[bottom, 1:] == 0.0)  # ⊥ keeps theta_hat_0 = 0
    np.testing.assert_array_equal(rows[:, 1], rows[:, 2])


@pytest.mark.parametrize("index", range(len(FULL_VARIANTS)), ids=[v.name for v in FULL_VARIANTS])
def test_broken_variants_pickle_by_reference(index):
    """Process executors ship the mechanism to workers: the generated variant classes must be importable by name."""
    import pickle

    mech = _observed(FULL_VARIANTS[index].pair(), "transcript")
    again = pickle.loads(pickle.dumps(mech))
    assert type(again) is type(mech) and again == mech


def test_the_benchmark_runs_one_row_at_the_trials_asked_and_records_them():
    """``--only NAME --trials N --transcript-only``: the row says which count it used and which audits were not rerun."""
    from benchmarks import bench_full_algorithms as bench

    rows = bench.run(only="Lowy Alg 1", part="algorithms", trials=300, transcript_only=True)
    assert [r["algorithm"] for r in rows["algorithms"]] == ["Lowy Alg 1"] and not rows["variants"]
    row = rows["algorithms"][0]
    assert row["trials"] == 300 and row["final"] is None and row["transcript"] >= 0.0
    assert row["exact"].startswith("[0.9922") and row["outcome"] in ("loose", "tight")
    assert row["optimal"] is None  # Lowy Alg 1's profile is a joint law of cells, not a loss grid
    table = bench.markdown(rows)
    assert "| 300 |" in table and "not rerun" in table


def test_the_benchmark_prints_the_optimal_tests_reach_beside_the_audit():
    """A row with a loss-grid profile gets the optimal test's expected bound at its trial count (no sampling)."""
    from benchmarks import bench_full_algorithms as bench

    wp = next(a for a in FULL_ALGORITHMS if a.name == "Levy Alg 3, 2 steps").pair()
    row = bench._with_exact({"trials": 1_000_000, "transcript": 0.0, "ratio": 0.0}, wp)
    assert 0.175 < row["optimal"] < 0.185 and row["outcome"] == "open"
