"""The minimisers reach their stated accuracy (against independent references), projections are exact, and
the R1 samplers of the correct mechanism and of the variants have the distributions they claim."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import optimize, stats

from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.userlevel.ghazi2023 import ERMProblem, faulty
from dpaudit.userlevel.ghazi2023.audit_cases import golden_mechanism, golden_problem
from dpaudit.userlevel.ghazi2023.solver import Balls, minimise, project, solver_tolerance
from dpaudit.userlevel.losses import LogisticLoss, SquaredLoss

ALPHA = 1e-3  # declared failure probability of each goodness-of-fit test


def _reference(problem, unit, reg, centre, radius):
    """scipy SLSQP on the raw objective (independent of the grouping and of the batched solver)."""
    x, y = unit.features.reshape(-1, unit.shape[2]), unit.labels.reshape(-1)

    def objective(phi):
        margin = x @ phi
        data = 0.5 * np.mean((margin - y) ** 2) if problem.is_squared else np.mean(np.logaddexp(0.0, -y * margin))
        return data + 0.5 * reg * np.sum((phi - centre) ** 2)

    cons = [{"type": "ineq", "fun": lambda phi: radius**2 - phi @ phi}]
    return optimize.minimize(objective, np.zeros(unit.shape[2]), constraints=cons, method="SLSQP",
                             options={"ftol": 1e-15, "maxiter": 500}).x


@pytest.mark.parametrize("loss", [SquaredLoss(), LogisticLoss()], ids=["squared", "logistic"])
@pytest.mark.parametrize("dim", [1, 3])
@pytest.mark.parametrize("radius", [0.05, 10.0], ids=["constraint-binds", "interior"])
def test_minimiser_matches_an_independent_solver(loss, dim, radius, rng):
    problem = ERMProblem(loss, radius=radius, feature_bound=1.0, label_bound=1.0, l2=0.3)
    data = rng.uniform(-1, 1, size=(9, 5, dim + 1))
    data[..., :dim] /= np.maximum(1.0, np.linalg.norm(data[..., :dim], axis=-1, keepdims=True))
    data[..., dim] = 0.7 + 0.2 * data[..., dim] if loss.name == "squared" else np.sign(data[..., dim])
    unit = problem.unit_data(data, "test")
    groups = problem.group(unit)
    centre = np.full((1, dim), 0.2)
    tau = solver_tolerance(problem, 0.3, 1e-8)
    got = minimise(problem, groups, groups.counts.astype(float), reg=0.3, centre=centre,
                   balls=Balls.of(1, dim, (np.zeros(dim), problem.unit_radius)), tau=tau)[0]
    ref = _reference(problem, unit, 0.3, centre[0], problem.unit_radius)
    assert np.linalg.norm(got - ref) <= tau + 1e-7, (got, ref, tau)  # + the reference's own tolerance


def test_two_ball_projection_is_the_closest_feasible_point(rng):
    for _ in range(200):
        d = int(rng.integers(2, 5))
        c1, c2 = rng.normal(size=d), rng.normal(size=d)
        r1, r2 = rng.uniform(0.5, 2.0, size=2)
        if np.linalg.norm(c1 - c2) > r1 + r2:
            continue
        x = 3 * rng.normal(size=d)
        got = project(x[None], Balls.of(1, d, (c1, r1), (c2, r2)))[0]
        assert np.linalg.norm(got - c1) <= r1 * (1 + 1e-9) and np.linalg.norm(got - c2) <= r2 * (1 + 1e-9)
        cons = [{"type": "ineq", "fun": lambda z, c=c, r=r: r * r - (z - c) @ (z - c)} for c, r in ((c1, r1), (c2, r2))]
        ref = optimize.minimize(lambda z, x=x: (z - x) @ (z - x), got, constraints=cons, method="SLSQP",
                                options={"ftol": 1e-14}).x
        assert np.linalg.norm(got - x) <= np.linalg.norm(ref - x) + 1e-6


def _tdlap_pmf_closed_form(eps, kappa):
    r = np.arange(2 * kappa + 1)
    w = np.exp(-eps * np.abs(r - kappa))
    return w / w.sum()


def _gof_p_value(samples, pmf):
    counts = np.bincount(samples, minlength=pmf.size)[: pmf.size]
    keep = pmf * samples.size >= 5  # pool the tails with small expected counts
    observed = np.append(counts[keep], samples.size - counts[keep].sum())
    expected = np.append(pmf[keep], 1 - pmf[keep].sum()) * samples.size
    return stats.chisquare(observed, expected).pvalue


def test_r1_follows_tdlap_and_the_variants_do_not(rng):
    mech = golden_mechanism()
    spec = mech.parameters(218, 2000, 1)
    pmf = _tdlap_pmf_closed_form(0.5, spec.alg1.kappa)
    size = 200_000
    assert _gof_p_value(mech._draw_r1(spec, size, rng), pmf) > ALPHA
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        for cls in (faulty.ContinuousLaplaceR1, faulty.SwappedRateR1, faulty.UnshiftedR1, faulty.HalfSupportR1,
                    faulty.UnsplitBudgetR1):
            variant = cls(golden_problem(), 1.0, 1e-5, beta=0.3, threshold="printed")
            draws = variant._draw_r1(spec, size, rng)
            assert draws.min() >= 0 and draws.max() <= 2 * spec.alg1.kappa
            assert _gof_p_value(draws, pmf) < ALPHA, cls.__name__


def test_a_continuous_laplace_with_the_right_scale_fails_the_fit_but_not_the_privacy_ratio(rng):
    """The floor of kappa + Lap(1/eps_bar) is itself a discrete Laplace (flat at the centre): Def 3.4 is not
    met, yet adjacent masses still differ by at most e^{eps_bar} (so it is a spec deviation, not a leak)."""
    kappa, eps_bar, size = 27, 0.5, 400_000
    draws = np.clip(np.floor(rng.laplace(kappa, 1 / eps_bar, size)), 0, 2 * kappa).astype(np.int64)
    assert _gof_p_value(draws, _tdlap_pmf_closed_form(eps_bar, kappa)) < ALPHA
    u = np.arange(1, 2 * kappa)  # exact masses of floor(kappa + L) away from the clipped end points
    lo = np.where(u >= kappa, 0.5 * np.exp(-eps_bar * (u - kappa)), 0.5 * np.exp(-eps_bar * (kappa - u)))
    hi = np.where(u + 1 > kappa, 0.5 * np.exp(-eps_bar * (u + 1 - kappa)), 0.5 * np.exp(-eps_bar * (kappa - u - 1)))
    mass = np.abs(lo - hi)  # P[u <= kappa + L < u + 1]
    assert np.all(np.abs(np.diff(np.log(mass))) <= eps_bar + 1e-12)
