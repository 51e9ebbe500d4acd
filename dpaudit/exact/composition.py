"""Composition along a transcript: a sequence of steps, each a small frozen record of one release.

A *transcript* is what an algorithm releases on its worst-case pair, written as the sequence of
its elementary releases (a Gaussian vector with a given shift and sigma, a Laplace release, an
AboveThreshold test, a truncated discrete Laplace count, ...). :func:`compose` returns the
profile of the whole transcript:

* independent steps: the product of the steps' laws. All-Gaussian transcripts stay in closed form
  (the shifts stack into one Gaussian pair with ``mu = sqrt(sum mu_i^2)``, [DRS19, Cor. 3.3]);
  small finite ones are enumerated exactly; anything else composes certified privacy-loss
  distributions (:mod:`dpaudit.exact.pld`), whose bracket is as wide as the grid step times the
  number of steps;
* adaptive steps (:class:`Adaptive`: which release happens depends on earlier outputs): each is
  replaced by a *dominating pair* of all its options, and the composition of dominating pairs
  dominates the adaptive composition [ZDW22, Thm 10]. The result is then marked
  ``kind == "upper bound"``: its ``epsilon(delta).upper`` is certified, its lower end is not a lower
  bound on the truth.

Example: one Gaussian release, then an AboveThreshold test, then a Laplace release chosen
adaptively among two shifts, on a worst-case pair::

    from dpaudit.exact import AboveThresholdStep, Adaptive, GaussianStep, LaplaceStep, compose

    transcript = [
        GaussianStep(shift=[0.5, 0.5], sigma=2.0),           # ||shift||_2 / sigma = 0.354
        AboveThresholdStep(queries0=[0, 0, 1], queries1=[1, 1, 0], threshold=0.5, epsilon=1.0),
        Adaptive([LaplaceStep(1.0, 2.0), LaplaceStep(0.5, 2.0)]),
    ]
    profile = compose(transcript)
    profile.kind                   # "upper bound" (an adaptive step)
    profile.epsilon(1e-6).upper    # certified: the transcript's epsilon on this pair is at most this

References
----------
.. [DRS19] J. Dong, A. Roth and W. Su. Gaussian differential privacy. arXiv:1905.02383v3, Cor. 3.3.
.. [ZDW22] Y. Zhu, J. Dong and Y.-X. Wang. Optimal accounting of differential privacy via
   characteristic function. AISTATS 2022, Definition 8 and Theorem 10.
.. [KOV15] P. Kairouz, S. Oh and P. Viswanath. The composition theorem for differential privacy.
   ICML 2015, Theorem 2.1 (the dominating pair of an (eps, delta)-DP mechanism).
"""

from __future__ import annotations

import abc
import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np

from dpaudit._validation import (
    argument_error,
    check_exact_float,
    check_exact_floats,
    check_int,
    check_nonnegative,
    check_positive,
    check_probability,
)
from dpaudit.exact.closed_forms import (
    GaussianProfile,
    IdenticalProfile,
    LaplaceProfile,
    as_values,
    discrete_laplace_profile,
    truncated_discrete_laplace_profile,
)
from dpaudit.exact.enclosure import Enclosure, arb_of, down, precision, up
from dpaudit.exact.finite import MAX_PRODUCT_OUTPUTS, FiniteProfile, finite_from_arbs, product
from dpaudit.exact.pld import DEFAULT_RESOLUTION, LossDistribution, PLDProfile, grid_step
from dpaudit.exact.profile import EXACT, UPPER_BOUND, PrivacyProfile
from dpaudit.mechanisms.tdlap_params import tdlap_kappa

__all__ = [
    "AboveThresholdStep",
    "Adaptive",
    "DPStep",
    "DiscreteLaplaceStep",
    "GaussianStep",
    "LaplaceStep",
    "ProfileStep",
    "Step",
    "TruncatedDiscreteLaplaceStep",
    "compose",
    "loss_distribution",
]


class Step(abc.ABC):
    """One release of a transcript. Subclasses are frozen dataclasses with a :meth:`profile`."""

    @abc.abstractmethod
    def profile(self) -> PrivacyProfile:
        """The privacy profile of this release on the pair."""


@dataclass(frozen=True)
class LaplaceStep(Step):
    """``x + Lap(scale)`` per coordinate, where ``x`` moves by ``shift`` (a number, or one per coordinate)."""

    shift: float | Fraction | tuple[float | Fraction, ...]
    scale: float

    def profile(self) -> PrivacyProfile:
        """The Laplace profile of the shift (a composition over coordinates when several coordinates move)."""
        nonzero = [s for s in (_magnitude(v) for v in as_values(self.shift)) if s > 0]
        if not nonzero:
            return IdenticalProfile()
        if len(nonzero) == 1:
            return LaplaceProfile(nonzero[0], self.scale)
        return compose([LaplaceStep(s, self.scale) for s in nonzero])


@dataclass(frozen=True)
class GaussianStep(Step):
    """``x + N(0, sigma^2 I)``, where ``x`` moves by ``shift`` (a number or a vector; only its l2 norm matters)."""

    shift: float | Fraction | tuple[float | Fraction, ...]
    sigma: float

    def profile(self) -> GaussianProfile:
        """The Gaussian profile with ``mu = ||shift||_2 / sigma`` [BW18, Thm 8]."""
        return GaussianProfile(as_values(self.shift), self.sigma)


@dataclass(frozen=True)
class DiscreteLaplaceStep(Step):
    """``x + Z`` with ``P[Z = k] ∝ e^{-rate |k|}`` on integers, ``x`` moving by the integer ``shift``."""

    shift: int
    rate: float

    def profile(self) -> PrivacyProfile:
        """The exact finite law of the two-sided geometric noise shifted by ``shift`` [GRS09]."""
        rate = check_positive("DiscreteLaplaceStep", "rate", check_exact_float("DiscreteLaplaceStep", "rate", self.rate))
        return discrete_laplace_profile(check_int("DiscreteLaplaceStep", "shift", self.shift), rate)


@dataclass(frozen=True)
class TruncatedDiscreteLaplaceStep(Step):
    """``x + R - kappa``, ``R ~ TDLap(epsilon, delta)`` of [GKKMMZ23, Def. 3.4], ``x`` moving by the integer ``shift``.

    ``kappa`` defaults to :func:`dpaudit.mechanisms.tdlap_kappa` (``1 + ceil(ln(1/delta)/epsilon)``).
    """

    shift: int
    epsilon: float
    delta: float
    kappa: int | None = None

    def profile(self) -> FiniteProfile:
        """The exact finite law of ``R - kappa`` shifted by ``shift`` [GKKMMZ23, Def. 3.4]."""
        owner = "TruncatedDiscreteLaplaceStep"
        epsilon, delta = (check_exact_float(owner, name, v) for name, v in (("epsilon", self.epsilon), ("delta", self.delta)))
        kappa = tdlap_kappa(epsilon, delta) if self.kappa is None else self.kappa
        return truncated_discrete_laplace_profile(check_int(owner, "shift", self.shift), epsilon, kappa)


@dataclass(frozen=True)
class AboveThresholdStep(Step):
    """An AboveThreshold test [DR14, Alg. 1] on the query answers ``queries0`` (on d0) and ``queries1`` (on d1).

    Noise as :class:`dpaudit.mechanisms.AboveThreshold` draws it: ``Lap(2 s / eps)`` on the threshold,
    ``Lap(4 s / eps)`` per query, halting at the first halting answer (``variant`` as there).
    """

    queries0: tuple[float, ...]
    queries1: tuple[float, ...]
    threshold: float
    epsilon: float
    sensitivity: float = 1.0
    variant: Literal["lowy2024", "ghazi2025"] = "lowy2024"

    def profile(self) -> FiniteProfile:
        """The exact law of AboveThreshold's answers on ``queries0`` and ``queries1``."""
        from dpaudit.mechanisms.sparse_vector import AboveThreshold

        owner = "AboveThresholdStep"
        # read as the floats they equal before the mechanism (which computes in floats) sees them
        epsilon, threshold, sensitivity = (check_exact_float(owner, name, v) for name, v in
                                           (("epsilon", self.epsilon), ("threshold", self.threshold), ("sensitivity", self.sensitivity)))
        queries0, queries1 = (check_exact_floats(owner, name, v) for name, v in (("queries0", self.queries0), ("queries1", self.queries1)))
        mech = AboveThreshold(epsilon, threshold, sensitivity, self.variant)
        return mech.privacy_profile(queries0, queries1)


@dataclass(frozen=True)
class ProfileStep(Step):
    """Any computed profile as a step (for example a mechanism's ``privacy_profile(d0, d1)``)."""

    of: PrivacyProfile

    def profile(self) -> PrivacyProfile:
        """The profile given, unchanged."""
        return self.of


@dataclass(frozen=True)
class DPStep(Step):
    """A release known only to be (epsilon, delta)-DP: its dominating pair [KOV15, Thm 2.1] (an upper bound).

    ``P = (delta, (1-delta) e^eps/(1+e^eps), (1-delta)/(1+e^eps), 0)`` against ``Q``, its mirror image.
    """

    epsilon: float
    delta: float = 0.0

    def profile(self) -> FiniteProfile:
        """The dominating pair of an (epsilon, delta)-DP release [KOV15, Thm 2.1]: a four-point law, an upper bound."""
        eps = check_nonnegative("DPStep", "epsilon", check_exact_float("DPStep", "epsilon", self.epsilon))
        delta = check_probability("DPStep", "delta", check_exact_float("DPStep", "delta", self.delta))
        with precision():
            e, d = arb_of(eps).exp(), arb_of(delta)
            p = [d, (1 - d) * e / (1 + e), (1 - d) / (1 + e), arb_of(0.0)]
            return finite_from_arbs(p, p[::-1], description=f"dominating pair of ({eps:g}, {delta:g})-DP", kind=UPPER_BOUND)


@dataclass(frozen=True)
class Adaptive(Step):
    """A step chosen adaptively among ``options`` (by earlier outputs): replaced by a dominating pair.

    Laplace options are dominated by the one of largest ``shift / scale``, Gaussian ones by the one
    of largest ``||shift|| / sigma`` (their profiles are increasing in that ratio). Otherwise pass
    ``dominating``: a step whose pair dominates every option (for example a :class:`DPStep` with an
    (epsilon, delta) that every option satisfies); it is checked against the options on a grid of
    epsilons, which can refute the assertion but not prove it.
    """

    options: tuple[Step, ...]
    dominating: Step | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", tuple(self.options))
        if not self.options:
            raise argument_error("Adaptive", "options", "at least one step", self.options)

    def reduced(self) -> Step:
        """The single step that dominates every option (see the class docstring).

        Returns
        -------
        Step
            ``dominating`` when given (after checking it on a grid of epsilons), else the Laplace
            option of largest ``|shift| / scale`` or the Gaussian option of largest ``mu``.

        Raises
        ------
        InvalidArgument
            When the options are neither all scalar Laplace nor all Gaussian steps and no
            ``dominating`` step is given.
        """
        if self.dominating is not None:
            _check_domination(self.dominating, self.options)
            return self.dominating
        laplace = [o for o in self.options if isinstance(o, LaplaceStep) and len(as_values(o.shift)) == 1]
        if len(laplace) == len(self.options):
            return max(laplace, key=lambda o: Fraction(_magnitude(as_values(o.shift)[0])) / Fraction(o.scale))
        gaussian = [o for o in self.options if isinstance(o, GaussianStep)]
        if len(gaussian) == len(self.options):
            return max(gaussian, key=lambda o: o.profile().mu.hi)
        raise argument_error("Adaptive", "dominating", "given when the options are not all scalar Laplace or all Gaussian steps",
                             None, fix="pass dominating=DPStep(epsilon, delta) with a guarantee every option satisfies.")

    def profile(self) -> PrivacyProfile:
        """The profile of the dominating step (an upper bound)."""
        return compose([self])


def _magnitude(value: float | Fraction) -> float | Fraction:
    """``|value|``, keeping a Fraction exact (``abs`` of the union is typed ``object``)."""
    return -value if value < 0 else value


def _check_domination(dominating: Step, options: Sequence[Step]) -> None:
    big = dominating.profile()
    for option in options:
        small = option.profile()
        for eps in np.linspace(0.0, 4.0, 17):
            for direction in (0, 1):
                if small.hockey_stick(float(eps), direction).lo > big.hockey_stick(float(eps), direction).hi:
                    raise argument_error("Adaptive", "dominating", f"a pair dominating every option (fails at eps = {eps:g})", dominating)


def loss_distribution(profile: PrivacyProfile, direction: int, step: float) -> LossDistribution:
    """The certified privacy-loss distribution of a profile in one direction on the grid ``k * step``."""
    if isinstance(profile, PLDProfile):
        if profile.step != step:
            raise argument_error("loss_distribution", "step", f"the profile's own grid step {profile.step}", step)
        return profile.directions[direction]
    if isinstance(profile, FiniteProfile):
        loss_lo, loss_hi, mass_lo, mass_hi, infinite = profile.loss_atoms(direction)
        return LossDistribution.from_atoms(loss_lo, loss_hi, mass_lo, mass_hi, infinite, step)
    method: Callable[[int, float], LossDistribution] | None = getattr(profile, "loss_distribution", None)
    if method is None:
        raise argument_error("loss_distribution", "profile", "a profile with a privacy-loss distribution", type(profile).__name__)
    return method(direction, step)


def compose(steps: Sequence[Step], *, resolution: float = DEFAULT_RESOLUTION, description: str | None = None) -> PrivacyProfile:
    """The privacy profile of a transcript of independent (or adaptively chosen) steps on its pair.

    Parameters
    ----------
    steps : sequence of Step
        The releases, in order.
    resolution : float
        Grid step of the privacy losses when distributions must be composed (rounded down to a
        power of two); the epsilon bracket is about ``len(steps) * resolution`` wide then.
    description : str, optional
        What the transcript is, for reports.

    Returns
    -------
    PrivacyProfile
        ``kind == "exact"`` when every step is its own law and none is adaptive, else
        ``"upper bound"``.
    """
    if not steps:
        raise argument_error("compose", "steps", "at least one step", steps)
    for s in steps:
        if not isinstance(s, Step):
            raise argument_error("compose", "steps", "Step objects (LaplaceStep, GaussianStep, ...)", s)
    adaptive = any(isinstance(s, Adaptive) for s in steps)
    flat = [s.reduced() if isinstance(s, Adaptive) else s for s in steps]
    kind = UPPER_BOUND if adaptive else EXACT
    text = description or f"composition of {len(flat)} step(s): " + "; ".join(type(s).__name__ for s in flat)
    gaussian = [s for s in flat if isinstance(s, GaussianStep)]
    if len(gaussian) == len(flat):
        mus = [s.profile()._mu for s in gaussian]
        with precision():
            mu = sum((m * m for m in mus), arb_of(0.0)).sqrt()
        out = GaussianProfile.from_mu(mu)
        out.description, out.kind = f"{text} (Gaussian, mu = {out.mu.hi:.6g})", kind
        return out
    profiles = [s.profile() for s in flat]
    if any(p.kind != EXACT for p in profiles):
        kind = UPPER_BOUND
    profiles = [p for p in profiles if not isinstance(p, IdenticalProfile)] or [IdenticalProfile()]
    if len(profiles) == 1:
        return _with_kind(profiles[0], kind)
    finite = [p for p in profiles if isinstance(p, FiniteProfile)]
    if len(finite) == len(profiles) and math.prod(p.size for p in finite) <= MAX_PRODUCT_OUTPUTS:
        return _with_kind(product(finite, description=text), kind)
    return _compose_losses(profiles, grid_step(resolution), kind, text)


def _with_kind(profile: PrivacyProfile, kind: str) -> PrivacyProfile:
    if kind != EXACT and profile.kind != kind:
        profile = copy.copy(profile)  # never change a profile the caller holds
        profile.kind = kind
    return profile


def _compose_losses(profiles: Sequence[PrivacyProfile], step: float, kind: str, text: str) -> PLDProfile:
    directions = []
    for direction in (0, 1):
        dist = loss_distribution(profiles[0], direction, step)
        for p in profiles[1:]:
            dist = dist.compose(loss_distribution(p, direction, step))
        directions.append(dist)
    maxima: list[Enclosure] = []
    exact: list[Fraction | None] = []
    for direction in (0, 1):
        lo = hi = 0.0
        for p in profiles:
            m = p.max_loss(direction)
            lo, hi = down(lo + m.lo), up(hi + m.hi)
        maxima.append(Enclosure(lo, hi))
        known = [v for v in (p.exact_max_loss(direction) for p in profiles) if v is not None]
        exact.append(sum(known, Fraction(0)) if len(known) == len(profiles) else None)
    return PLDProfile((directions[0], directions[1]), description=f"{text} (privacy-loss grid step {step:g})", kind=kind,
                      max_losses=(maxima[0], maxima[1]), exact_max_losses=(exact[0], exact[1]))
