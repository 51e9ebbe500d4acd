"""Certified privacy profiles of a neighbouring pair: the other side of an audit's bracket.

An audit proves a *lower* bound on a mechanism's epsilon on one pair. When the mechanism declares
its structure (``privacy_profile(d0, d1)``, the :class:`dpaudit.interfaces.StructuredMechanism`
protocol, implemented by dpaudit's own mechanisms) this package computes the pair's privacy
profile ``delta(eps) = max(H_{e^eps}(P||Q), H_{e^eps}(Q||P))`` exactly or with certified error bounds,
and from it a certified bracket ``[lower, upper]`` of the pair's epsilon at any delta
(:meth:`PrivacyProfile.epsilon`). Every number is an enclosure: exact rationals, Arb balls
(python-flint) or float arithmetic with its rounding bounded; nothing is a plain float formula.

``upper`` is about **the pair audited**: it is not a proof that the mechanism is private for all
pairs. A profile of ``kind == "exact"`` is the pair's own law, so its ``lower`` can refute a claim
with no sampling; ``kind == "upper bound"`` comes from a dominating pair (adaptive composition).

Inputs are never rounded. A float is read as its exact binary value; any other real (an int, a
``Fraction``, a ``Decimal``, a numpy or sympy number) is accepted where it equals a float64 exactly
and refused with :class:`~dpaudit.errors.InvalidArgument` otherwise (``2**53 + 1``,
``Fraction(1, 3)``: pass the float you mean), so an ``"exact"`` bracket is always about the numbers
given (:func:`dpaudit._validation.check_exact_float`). Where every later step is rational or Arb
(the shifts of :class:`LaplaceProfile`, :class:`GaussianProfile` and their steps, the locations and
scales of :class:`LaplaceScalesProfile`, the keep probability of
:func:`randomized_response_profile`, query-law probabilities) numbers are read exactly instead.

What is covered (each with its source in its module):

* closed forms (:mod:`.closed_forms`): Laplace, Gaussian (a vector shift reduces to its l2 norm),
  discrete and truncated discrete Laplace, the truncated geometric, randomized response, the
  exponential mechanism;
* finite outputs enumerated (:mod:`.finite`, :mod:`.selection`): report-noisy-max over k queries,
  RAPPOR's bits, histograms with finite-support noise;
* sparse vector and AboveThreshold variants (:mod:`.threshold`): conditioned on the threshold noise
  and integrated exactly (the integrand is an exponential polynomial); AboveThreshold whose queries
  are random, independent finite laws (:mod:`.random_threshold`: the first halting answer, exact);
* outputs with a continuous part, cut into cells with certified ranges of the likelihood ratio
  (:mod:`.cells`): Lyu et al.'s Alg. 3, which releases the noisy answer (:mod:`.released_values`);
  numerical sparse vector (:mod:`.numerical_svt`); the noisy maximum's value, alone or with its index
  (:mod:`.noisy_max`); Laplace laws of two scales and Mironov's snapping over the reals
  (:mod:`.laplace_variants`);
* a test's outcome then a Gaussian released on some outcomes, the joint law (:mod:`.branched`): the
  Laplace test ``score + Lap(b) >= threshold`` alone or with the Gaussian released on a pass;
* composition along a transcript (:mod:`.composition`): steps, possibly adaptive.

Composing a transcript (the API other parts use to express an algorithm's release on its
worst-case pair)::

    >>> from dpaudit.exact import AboveThresholdStep, GaussianStep, LaplaceStep, compose
    >>> transcript = [
    ...     GaussianStep(shift=(0.3, 0.4), sigma=2.0),             # ||shift||_2 / sigma = 0.25
    ...     LaplaceStep(shift=1.0, scale=4.0),
    ...     AboveThresholdStep(queries0=(0.0, 1.0), queries1=(1.0, 0.0), threshold=0.5, epsilon=0.5),
    ... ]
    >>> profile = compose(transcript)
    >>> bracket = profile.epsilon(1e-6)
    >>> bracket.kind, bracket.lower <= bracket.upper
    ('exact', True)
"""

from dpaudit.exact.branched import (
    BranchedGaussianProfile,
    laplace_test_profile,
    laplace_test_then_gaussian_profile,
)
from dpaudit.exact.cells import CellProfile, Cells
from dpaudit.exact.closed_forms import (
    GaussianProfile,
    IdenticalProfile,
    LaplaceProfile,
    discrete_laplace_profile,
    exponential_mechanism_profile,
    randomized_response_profile,
    truncated_discrete_laplace_profile,
)
from dpaudit.exact.composition import (
    AboveThresholdStep,
    Adaptive,
    DiscreteLaplaceStep,
    DPStep,
    GaussianStep,
    LaplaceStep,
    ProfileStep,
    Step,
    TruncatedDiscreteLaplaceStep,
    compose,
)
from dpaudit.exact.enclosure import Enclosure
from dpaudit.exact.finite import FiniteProfile, product
from dpaudit.exact.laplace_variants import LaplaceScalesProfile, snapping_profile
from dpaudit.exact.noisy_max import noisy_max_value_profile
from dpaudit.exact.numerical_svt import numerical_svt_profile
from dpaudit.exact.pld import PLDProfile
from dpaudit.exact.profile import (
    EXACT,
    UPPER_BOUND,
    EpsilonBracket,
    PrivacyProfile,
    ProfileUnavailable,
)
from dpaudit.exact.random_threshold import random_query_threshold_profile
from dpaudit.exact.released_values import released_value_profile
from dpaudit.exact.selection import report_noisy_max_profile
from dpaudit.exact.threshold import ThresholdSpec, threshold_profile

__all__ = [
    "EXACT",
    "UPPER_BOUND",
    "AboveThresholdStep",
    "Adaptive",
    "BranchedGaussianProfile",
    "CellProfile",
    "Cells",
    "DPStep",
    "DiscreteLaplaceStep",
    "Enclosure",
    "EpsilonBracket",
    "FiniteProfile",
    "GaussianProfile",
    "GaussianStep",
    "IdenticalProfile",
    "LaplaceProfile",
    "LaplaceScalesProfile",
    "LaplaceStep",
    "PLDProfile",
    "PrivacyProfile",
    "ProfileStep",
    "ProfileUnavailable",
    "Step",
    "ThresholdSpec",
    "TruncatedDiscreteLaplaceStep",
    "compose",
    "discrete_laplace_profile",
    "exponential_mechanism_profile",
    "laplace_test_profile",
    "laplace_test_then_gaussian_profile",
    "noisy_max_value_profile",
    "numerical_svt_profile",
    "product",
    "random_query_threshold_profile",
    "randomized_response_profile",
    "released_value_profile",
    "report_noisy_max_profile",
    "snapping_profile",
    "threshold_profile",
    "truncated_discrete_laplace_profile",
]
