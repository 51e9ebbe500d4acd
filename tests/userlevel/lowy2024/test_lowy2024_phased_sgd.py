"""Algorithm 1 of Lowy et al. 2024 (OutlierRemovalPhasedSGD): gradient counts, parameters, presets, noise, halting."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import stats

from dpaudit.errors import InvalidArgument, UnsoundMechanismWarning
from dpaudit.guarantees import ApproxDP
from dpaudit.neighbors.relations import UserReplace
from dpaudit.userlevel.losses import SquaredLoss
from dpaudit.userlevel.lowy2024 import OutlierRemovalPhasedSGD
from dpaudit.userlevel.lowy2024.phased_sgd import phase_layout


def _data(n: int, m: int, d: int, rng: np.random.Generator) -> np.ndarray:
    x = rng.normal(size=(n, m, d))
    x /= np.maximum(1.0, np.linalg.norm(x, axis=-1, keepdims=True))
    y = rng.uniform(-1, 1, size=(n, m, 1))
    return np.concatenate([x, y], axis=-1)


@pytest.mark.parametrize(("n", "m", "d", "eps", "q", "phases"), [(6000, 4, 2, 2.0, 0.25, None), (1200, 3, 1, 4.0, 1.0, 3),
                                                                 (5000, 2, 3, 10.0, 0.25, None)])
def test_gradient_count_is_the_papers_formula(counting_squared, n, m, d, eps, q, phases):
    """One trial computes exactly sum_i T_i C = sum_i N_i m C item gradients (proof of Thm B.1), and at most nm.

    Counted by the loss itself (every per-item slope it evaluates), independently of the run's own
    tally; the test's pairwise distances are counted separately (C^2 per phase).
    """
    rng = np.random.default_rng(0)
    mech = OutlierRemovalPhasedSGD(counting_squared, eps, 1e-3, q=q, phases=phases)
    p = mech.parameters(n, m, d)
    z = _data(n, m, d, rng)
    for _ in range(10):  # a test may halt by chance (about 1% per phase here); count a run that reached the end
        counting_squared.calls[0] = 0
        run = mech.sample_with_info(z, 1, rng=rng)
        if run.halted_phase[0] == -1:
            break
    assert run.halted_phase[0] == -1
    assert counting_squared.calls[0] == run.gradient_evaluations == p.gradient_evaluations
    assert p.gradient_evaluations == sum(t * p.groups for t in p.phase_steps)
    assert p.gradient_evaluations <= n * m
    assert run.score_pair_terms == p.phases * p.groups**2
    # the paper's n_i = (1 - 2^-q) n/2^{iq}, N_i = n_i/C, T_i = N_i m, with the floors of the note (Sec. 2.1)
    expected = sum(math.floor(math.floor((1 - 2**-q) * n / 2 ** (i * q)) / p.groups) * m * p.groups
                   for i in range(1, p.phases + 1))
    assert p.gradient_evaluations == expected


def test_paper_preset_parameters_match_the_notes_example():
    """n = 10^6, m = 10, eps = 1, delta = 1e-6, q = 0.25: C = 3393, n_1 = 133 789.6, N_1 = 39.4, N_l = 1.74 (note
    Sec. 2.6, which rounds n_1 to 133 790); the code floors them."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnsoundMechanismWarning)  # F1 holds here: no warning expected
        p = OutlierRemovalPhasedSGD(SquaredLoss(), 1.0, 1e-6, preset="paper", q=0.25).parameters(10**6, 10, 2)
    assert p.groups == 3393 and p.phase_users[0] == 133_789 and p.group_users[0] == 39 and p.group_users[-1] == 1
    assert p.phases == 19 and p.claimed_epsilon == 1.0 and p.claimed_delta == 1e-6
    assert p.recomputed[0] <= 1.0 and p.recomputed[1] <= 1e-6  # the recomputed budget covers the claim here
    assert p.phase_taus[0] == pytest.approx(1000 * p.phase_step_sizes[0] * p.lipschitz * math.sqrt(p.phase_steps[0])
                                            * math.log(10**6 * 2 * 10))
    assert p.phase_sigmas[0] == pytest.approx(100 * p.phase_taus[0] * math.log(1e6 / 1e-6) ** 2 / (1.0 * 3393))


def test_paper_preset_warns_on_f1_and_p14():
    """F1: the proof's good-event bound needs delta >= 20 e^eps/(nm)^2; P14: Lemma A.6 at eps/4 > 1."""
    with pytest.warns(UnsoundMechanismWarning, match="F1"):
        OutlierRemovalPhasedSGD(SquaredLoss(), 1.0, 1e-14, preset="paper").parameters(10**6, 10, 2)
    with pytest.warns(UnsoundMechanismWarning, match="P14"):
        OutlierRemovalPhasedSGD(SquaredLoss(), 6.0, 1e-6, preset="paper")


def test_paper_preset_refuses_too_few_users():
    with pytest.raises(InvalidArgument, match="N_i = n_i/C < 1"):
        OutlierRemovalPhasedSGD(SquaredLoss(), 1.0, 1e-6, preset="paper").parameters(10**5, 100, 2)


def test_audit_preset_claims_its_recomputed_budget():
    mech = OutlierRemovalPhasedSGD(SquaredLoss(), 2.0, 1e-3)
    b = mech.audit_budget()
    assert mech.claimed_guarantee() == ApproxDP(b.epsilon, b.delta, UserReplace())
    assert b.epsilon == pytest.approx(2.0, abs=1e-9) and b.delta == pytest.approx(1e-3)
    small = OutlierRemovalPhasedSGD(SquaredLoss(), 2.0, 1e-3, groups=20)  # too few groups for delta: it grows
    assert small.claimed_guarantee().delta > 1e-3
    assert small.claimed_guarantee().delta == pytest.approx(math.exp(small.audit_budget().epsilon_test)
                                                            * small.audit_budget().bad_pass)


def test_phase_layout_uses_disjoint_users():
    users = phase_layout(10_000, 0.25, 13)
    assert sum(users) <= 10_000 and all(a > b for a, b in itertools.pairwise(users))


def test_output_noise_has_the_calibrated_scale():
    """With identical users every iterate coincides, so the output is R x~ + N(0, sigma_1^2 I): its spread is sigma_1.

    Chi-square interval for the variance at failure probability 1e-6 (two-sided) over 20 000 trials.
    """
    rng = np.random.default_rng(3)
    n, m, d = 400, 3, 2
    z = np.zeros((n, m, d + 1))
    z[..., 0], z[..., -1] = 0.6, 0.1
    mech = OutlierRemovalPhasedSGD(SquaredLoss(), 2.0, 1e-3, phases=1, q=1.0)
    run = mech.sample_with_info(z, 20_000, rng=rng)
    ok = run.halted_phase == -1
    x = run.outputs[ok]
    sigma = run.parameters.phase_sigmas[0]
    k = x.size - d
    var = x.var(axis=0, ddof=1).mean()
    lo, hi = stats.chi2.ppf(5e-7, k) / k, stats.chi2.isf(5e-7, k) / k
    assert lo * sigma**2 <= var <= hi * sigma**2, (var, sigma**2, x.size)


def test_halting_outputs_exactly_zero_and_is_recorded():
    """Two far clusters: the test fails, the output is the public 0 and the phase is recorded (Alg 1 line 22)."""
    rng = np.random.default_rng(4)
    mech = OutlierRemovalPhasedSGD(SquaredLoss(), 2.0, 1e-3, phases=1, q=1.0, tau=1e-6)
    z = _data(400, 3, 2, rng)
    run = mech.sample_with_info(z, 500, rng=rng)
    halted = run.halted_phase == 0
    assert halted.mean() > 0.99
    assert np.all(run.outputs[halted] == 0.0)


def test_same_generator_state_gives_the_same_outputs_and_trials_differ():
    z = _data(600, 2, 2, np.random.default_rng(5))
    mech = OutlierRemovalPhasedSGD(SquaredLoss(), 2.0, 1e-3, q=1.0, phases=2, shuffle=True)
    a = mech.sample(z, 6, rng=np.random.default_rng(9))
    b = mech.sample(z, 6, rng=np.random.default_rng(9))
    assert np.array_equal(a, b)
    assert np.unique(a[:, 0]).size == 6


def test_bad_arguments_are_named():
    with pytest.raises(InvalidArgument, match="epsilon"):
        OutlierRemovalPhasedSGD(SquaredLoss(), 11.0, 1e-3)
    with pytest.raises(InvalidArgument, match="threshold"):
        OutlierRemovalPhasedSGD(SquaredLoss(), 1.0, 1e-3, threshold=0.5)
    with pytest.raises(InvalidArgument, match="phases"):
        OutlierRemovalPhasedSGD(SquaredLoss(), 1.0, 1e-3, phases=30).parameters(1000, 2, 1)
