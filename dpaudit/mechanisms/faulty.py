"""Deliberately broken mechanisms: the literature's known privacy bugs, for demos and power tests.

Every class here is an :class:`~dpaudit.mechanisms.base.UnsafeMechanism`: constructing one emits
:class:`~dpaudit.errors.UnsoundMechanismWarning`, and its ``flaw`` says what is wrong. Each claims
the guarantee its authors (wrongly) claimed; :mod:`dpaudit.catalogue` pairs each with the
neighbouring datasets that expose it. The auditor must catch them from their outputs alone.

References
----------
.. [LSL17] M. Lyu, D. Su and N. Li. Understanding the sparse vector technique for differential
   privacy. PVLDB 10(6), 2017 (Algorithms 3-6 and their actual privacy, Table 1).
.. [DWWZK18] Z. Ding, Y. Wang, G. Wang, D. Zhang and D. Kifer. Detecting violations of
   differential privacy. CCS 2018 (``histogram_eps``, ``noisy_max_v1b``).
.. [BSBV21] B. Bichsel et al. DP-Sniper. IEEE S&P 2021 (NoisyHist2, ReportNoisyMax3).
.. [KMR23] W. Kong, A. Muñoz Medina, M. Ribero et al. DP-Auditorium. arXiv:2307.05608
   (mean divided by the true count).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import (
    argument_error,
    check_finite_array,
    check_one_of,
    check_positive,
    check_probability,
    check_real,
)
from dpaudit.accounting.calibrate import gaussian_sigma_analytic, laplace_scale
from dpaudit.data import as_user_dataset
from dpaudit.guarantees import ApproxDP, PureDP
from dpaudit.mechanisms.base import UnsafeMechanism, check_size
from dpaudit.mechanisms.faulty_svt import (
    SparseVectorLyu3,
    SparseVectorLyu4,
    SparseVectorLyu5,
    SparseVectorLyu6,
)
from dpaudit.mechanisms.sparse_vector import BOTTOM, svt_codes, threshold_pair_profile
from dpaudit.neighbors.relations import ItemAddRemove, ItemReplace, QueryDistance, UserReplace

if TYPE_CHECKING:
    from dpaudit.exact import PrivacyProfile

__all__ = [
    "AboveThresholdUnderscaled",
    "GaussianAddRemoveUnderReplace",
    "HistogramWrongScale",
    "MeanTrueCount",
    "NoisyMaxValue",
    "NoisyMaxWithValue",
    "SparseVectorLyu3",
    "SparseVectorLyu4",
    "SparseVectorLyu5",
    "SparseVectorLyu6",
    "UserMeanItemLevelSensitivity",
    "WinsorizedMeanDataRange",
]


@dataclass(frozen=True)
class NoisyMaxWithValue(UnsafeMechanism):
    """Report-noisy-max that also releases the noisy maximum value [DWWZK18 noisy_max_v1b; BSBV21 RNM3].

    Output ``[argmax, max]`` of ``q + Lap(2/eps)``. The index alone is epsilon-DP; the value is not
    covered by that proof: shifting every query by 1 shifts the lower tail of the max by ``k`` noise
    terms at once.
    """

    epsilon: float
    flaw = "releases the noisy maximum value together with its index"

    def __post_init__(self) -> None:
        check_positive("NoisyMaxWithValue", "epsilon", self.epsilon)
        super().__post_init__()

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` releases of ``[argmax, max]`` of ``q + Lap(2/eps)``.

        Returns
        -------
        ndarray of float
            Shape ``(size, 2)``: the index (as a float) and the noisy value at it.
        """
        q = check_finite_array("NoisyMaxWithValue.sample", "data", data, ndim=1)
        size = check_size("NoisyMaxWithValue.sample", size)
        noisy = q + rng.laplace(0.0, laplace_scale(2.0, self.epsilon), size=(size, q.shape[0]))
        idx = np.argmax(noisy, axis=1)
        return np.column_stack([idx.astype(float), noisy[np.arange(size), idx]])

    def claimed_guarantee(self) -> PureDP:
        """The claim the variant makes: epsilon-DP for sensitivity-1 queries (true of the index alone)."""
        return PureDP(self.epsilon, QueryDistance(1.0, "linf"))

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The true law over the reals: the index and the value of the maximum (:mod:`dpaudit.exact.noisy_max`)."""
        from dpaudit.exact.noisy_max import noisy_max_value_profile
        from dpaudit.exact.pairs import paired_arrays

        q0, q1 = paired_arrays("NoisyMaxWithValue.privacy_profile", d0, d1, ndim=1)
        return noisy_max_value_profile(q0.tolist(), q1.tolist(), laplace_scale(2.0, self.epsilon), "laplace", with_index=True)


@dataclass(frozen=True)
class NoisyMaxValue(UnsafeMechanism):
    """The maximum *value* of ``q + noise`` with noise of scale ``2/eps`` [DWWZK18, Alg. 7 and 8; BSBV21 RNM3/4].

    ``noise="laplace"`` (Alg. 7): with ``k`` queries all shifted by one, the lower tail of the
    maximum moves by ``k`` noise terms at once, about ``k eps / 2``-DP. ``noise="exponential"``
    (Alg. 8): the maximum's support starts at the largest answer, so a shift gives outputs that
    one dataset cannot produce: not DP for any epsilon.
    """

    epsilon: float
    noise: str = "laplace"
    flaw = "releases the noisy maximum value, which the index's proof does not cover"

    def __post_init__(self) -> None:
        check_positive("NoisyMaxValue", "epsilon", self.epsilon)
        check_one_of("NoisyMaxValue", "noise", self.noise, ("laplace", "exponential"))
        super().__post_init__()

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` releases of ``max_i (q_i + noise_i)``, noise Laplace or exponential of scale ``2/eps``.

        Returns
        -------
        ndarray of float
            Shape ``(size,)``.
        """
        q = check_finite_array("NoisyMaxValue.sample", "data", data, ndim=1)
        size = check_size("NoisyMaxValue.sample", size)
        scale = laplace_scale(2.0, self.epsilon)
        shape = (size, q.shape[0])
        noise = rng.laplace(0.0, scale, size=shape) if self.noise == "laplace" else rng.exponential(scale, size=shape)
        return np.max(q + noise, axis=1)

    def claimed_guarantee(self) -> PureDP:
        """The claim the variant makes: epsilon-DP for sensitivity-1 queries."""
        return PureDP(self.epsilon, QueryDistance(1.0, "linf"))

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The true law over the reals: the value of the maximum (:mod:`dpaudit.exact.noisy_max`).

        With exponential noise a shift gives maxima that only one dataset can produce: the profile's
        delta then stays positive at every epsilon.
        """
        from dpaudit.exact.noisy_max import noisy_max_value_profile
        from dpaudit.exact.pairs import paired_arrays

        q0, q1 = paired_arrays("NoisyMaxValue.privacy_profile", d0, d1, ndim=1)
        return noisy_max_value_profile(q0.tolist(), q1.tolist(), laplace_scale(2.0, self.epsilon), self.noise)


@dataclass(frozen=True)
class HistogramWrongScale(UnsafeMechanism):
    """Noisy histogram with Laplace scale ``epsilon`` instead of ``1/epsilon`` [DWWZK18 histogram_eps; BSBV21 NoisyHist2].

    ``data`` is the vector of bin counts (l1 sensitivity 1 under add/remove of one record). The true
    guarantee is ``1/epsilon``-DP, so the claim is wrong whenever ``epsilon < 1``.
    """

    epsilon: float
    flaw = "Laplace scale is epsilon instead of sensitivity / epsilon"

    def __post_init__(self) -> None:
        check_positive("HistogramWrongScale", "epsilon", self.epsilon)
        super().__post_init__()

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` noisy histograms ``counts + Lap(epsilon)`` (scale ``epsilon`` where ``1/epsilon`` is due).

        Returns
        -------
        ndarray of float
            Shape ``(size, len(data))``.
        """
        x = check_finite_array("HistogramWrongScale.sample", "data", data, ndim=1)
        size = check_size("HistogramWrongScale.sample", size)
        return x + rng.laplace(0.0, self.epsilon, size=(size, x.shape[0]))

    def claimed_guarantee(self) -> PureDP:
        """The claim the variant makes: epsilon-DP for bin counts of l1 sensitivity 1."""
        return PureDP(self.epsilon, QueryDistance(1.0, "l1"))

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The true law: ``Lap(epsilon)`` (not ``Lap(1/epsilon)``) on every bin."""
        from dpaudit.exact.pairs import exact_shifts, paired_arrays

        x0, x1 = paired_arrays("HistogramWrongScale.privacy_profile", d0, d1, ndim=1)
        return _laplace(exact_shifts(x0, x1), self.epsilon)


@dataclass(frozen=True)
class GaussianAddRemoveUnderReplace(UnsafeMechanism):
    """Sum of clipped values with Gaussian noise for add/remove sensitivity, claimed under *replace*.

    The values are clipped to ``[-bound, bound]``.

    Adding or removing one record moves the sum by at most ``bound``; replacing one moves it by up
    to ``2 bound``. The sigma is calibrated (analytic [BW18]) to ``bound``, so under replace the
    mechanism is only as private as a Gaussian with half the noise.
    """

    epsilon: float
    delta: float
    bound: float = 1.0
    sigma: float = field(init=False, repr=False)
    flaw = "noise calibrated to the add/remove sensitivity (bound), claimed under replace (2 bound)"

    def __post_init__(self) -> None:
        check_positive("GaussianAddRemoveUnderReplace", "epsilon", self.epsilon)
        check_probability("GaussianAddRemoveUnderReplace", "delta", self.delta, allow_zero=False)
        check_positive("GaussianAddRemoveUnderReplace", "bound", self.bound)
        object.__setattr__(self, "sigma", gaussian_sigma_analytic(self.bound, self.epsilon, self.delta))
        super().__post_init__()

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` releases of the clipped sum plus ``N(0, sigma^2)``, sigma calibrated for add/remove.

        Returns
        -------
        ndarray of float
            Shape ``(size,)``.
        """
        x = check_finite_array("GaussianAddRemoveUnderReplace.sample", "data", data, ndim=1)
        size = check_size("GaussianAddRemoveUnderReplace.sample", size)
        return self._total(x) + rng.normal(0.0, self.sigma, size=size)

    def _total(self, x: NDArray[np.float64]) -> float:
        return float(np.clip(x, -self.bound, self.bound).sum())

    def claimed_guarantee(self) -> ApproxDP:
        """The claim the variant makes: (epsilon, delta)-DP under replacement, which doubles the sensitivity."""
        return ApproxDP(self.epsilon, self.delta, ItemReplace())

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The true law: a Gaussian pair shifted by the difference of the (float) clipped sums."""
        from dpaudit.exact import GaussianStep

        owner = "GaussianAddRemoveUnderReplace.privacy_profile"
        x0, x1 = (check_finite_array(owner, n, d, ndim=1) for n, d in (("d0", d0), ("d1", d1)))
        return GaussianStep(Fraction(self._total(x1)) - Fraction(self._total(x0)), self.sigma).profile()


@dataclass(frozen=True)
class UserMeanItemLevelSensitivity(UnsafeMechanism):
    """User-level mean of values clipped to ``[-bound, bound]``, noise calibrated to one *item*.

    Data ``(n_users, m_items)``. Replacing one item moves the mean of all ``n m`` items by at most
    ``2 bound / (n m)``, and the Laplace scale is set from that; replacing a *user* moves it by
    ``2 bound / n``, ``m`` times more, so the user-level guarantee is only ``m epsilon``
    (item-level instead of user-level sensitivity; ``docs/papers/levy2021.md``, B6).
    """

    epsilon: float
    bound: float = 1.0
    flaw = "Laplace noise calibrated to item-level sensitivity 2B/(nm) while claiming user-level DP"

    def __post_init__(self) -> None:
        check_positive("UserMeanItemLevelSensitivity", "epsilon", self.epsilon)
        check_positive("UserMeanItemLevelSensitivity", "bound", self.bound)
        super().__post_init__()

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` releases of the user-level mean plus Laplace noise calibrated to one item.

        Returns
        -------
        ndarray of float
            Shape ``(size,)``.
        """
        x = as_user_dataset(data, "UserMeanItemLevelSensitivity.sample", item_ndim=0)
        size = check_size("UserMeanItemLevelSensitivity.sample", size)
        return self._mean(x) + rng.laplace(0.0, self._scale(x), size=size)

    def _mean(self, x: NDArray[np.float64]) -> float:
        return float(np.clip(x, -self.bound, self.bound).mean())

    def _scale(self, x: NDArray[np.float64]) -> float:
        n, m = x.shape
        return laplace_scale(2.0 * self.bound / (n * m), self.epsilon)

    def claimed_guarantee(self) -> PureDP:
        """The claim the variant makes: epsilon-DP when a whole user is replaced."""
        return PureDP(self.epsilon, UserReplace())

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The true law: one Laplace release of the (float) clipped mean, at the item-level scale."""
        owner = "UserMeanItemLevelSensitivity.privacy_profile"
        x0, x1 = (as_user_dataset(d, owner, item_ndim=0) for d in (d0, d1))
        if x0.shape != x1.shape:
            raise argument_error(owner, "d1", f"of the shape of d0 {x0.shape}", d1)
        return _laplace([Fraction(self._mean(x1)) - Fraction(self._mean(x0))], self._scale(x0))


@dataclass(frozen=True)
class WinsorizedMeanDataRange(UnsafeMechanism):
    """Mean clipped to ``[min(data), max(data)]``, Laplace scale ``(max - min) / (n epsilon)``.

    The clip range is read from the private data, so it is not a constant of the mechanism: on a
    dataset whose values are all equal the noise vanishes and the output is the exact mean
    (``docs/papers/levy2021.md``, B5).
    """

    epsilon: float
    flaw = "clip range (and so the noise scale) is read from the private data"

    def __post_init__(self) -> None:
        check_positive("WinsorizedMeanDataRange", "epsilon", self.epsilon)
        super().__post_init__()

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` releases of the mean clipped to the data's own range, with Laplace noise of that range.

        Returns
        -------
        ndarray of float
            Shape ``(size,)``; noiseless when every value is equal (the range is 0).
        """
        x = check_finite_array("WinsorizedMeanDataRange.sample", "data", data, ndim=1)
        size = check_size("WinsorizedMeanDataRange.sample", size)
        centre, scale = self._law(x)
        noise = rng.laplace(0.0, scale, size=size) if scale > 0 else np.zeros(size)
        return centre + noise

    def _law(self, x: NDArray[np.float64]) -> tuple[float, float]:
        """(centre, Laplace scale) of the output on ``x``; scale 0 is a point mass."""
        lo, hi = float(x.min()), float(x.max())
        return float(np.clip(x, lo, hi).mean()), (hi - lo) / (x.shape[0] * self.epsilon)

    def claimed_guarantee(self) -> PureDP:
        """The claim the variant makes: epsilon-DP under replacement of one value."""
        return PureDP(self.epsilon, ItemReplace())

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The true law: Laplace with a data-dependent scale, or a point mass when the data are constant.

        A point mass against a continuous law (or two different points) are singular: one law has
        all its mass where the other has none. Two different positive scales: the two-scale Laplace
        pair (:class:`dpaudit.exact.laplace_variants.LaplaceScalesProfile`).
        """
        from dpaudit.exact import IdenticalProfile
        from dpaudit.exact.finite import finite_from_fractions
        from dpaudit.exact.laplace_variants import LaplaceScalesProfile

        owner = "WinsorizedMeanDataRange.privacy_profile"
        (c0, s0), (c1, s1) = (self._law(check_finite_array(owner, n, d, ndim=1)) for n, d in (("d0", d0), ("d1", d1)))
        if s0 == s1 and s0 > 0:
            return _laplace([Fraction(c1) - Fraction(c0)], s0)
        if s0 == s1 == 0 and c0 == c1:
            return IdenticalProfile()
        if s0 == 0 or s1 == 0:
            one, zero = Fraction(1), Fraction(0)
            return finite_from_fractions([one, zero], [zero, one], description="point mass against a different law (singular pair)")
        return LaplaceScalesProfile(c0, s0, c1, s1)


@dataclass(frozen=True)
class MeanTrueCount(UnsafeMechanism):
    """Noisy sum of values clipped to ``[-bound, bound]`` divided by the *true* count [KMR23 MeanMechanism].

    The sum's noise is right for add/remove, but the denominator is the private count: the output's
    spread reveals ``n``, so add/remove neighbours are distinguishable far in the tails.
    """

    epsilon: float
    bound: float = 1.0
    flaw = "divides the noisy sum by the true (private) count"

    def __post_init__(self) -> None:
        check_positive("MeanTrueCount", "epsilon", self.epsilon)
        check_positive("MeanTrueCount", "bound", self.bound)
        super().__post_init__()

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` releases of the noisy clipped sum divided by the true count [KMR23 MeanMechanism].

        Returns
        -------
        ndarray of float
            Shape ``(size,)``.
        """
        x = check_finite_array("MeanTrueCount.sample", "data", data, ndim=1)
        size = check_size("MeanTrueCount.sample", size)
        noisy = self._total(x) + rng.laplace(0.0, laplace_scale(self.bound, self.epsilon), size=size)
        return noisy / max(x.shape[0], 1)

    def _total(self, x: NDArray[np.float64]) -> float:
        return float(np.clip(x, -self.bound, self.bound).sum())

    def claimed_guarantee(self) -> PureDP:
        """The claim the variant makes: epsilon-DP under adding or removing one value."""
        return PureDP(self.epsilon, ItemAddRemove())

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The true law over the reals: ``(S + Lap(b)) / n = Lap(S / n, b / n)`` with the private count ``n``.

        Counts that differ give Laplace laws of different scales: the one with the smaller count has
        heavier tails, so its loss grows without bound there (not DP for any epsilon at delta = 0).
        """
        from dpaudit.exact import LaplaceProfile
        from dpaudit.exact.laplace_variants import LaplaceScalesProfile

        owner = "MeanTrueCount.privacy_profile"
        x0, x1 = (check_finite_array(owner, n, d, ndim=1) for n, d in (("d0", d0), ("d1", d1)))
        scale = laplace_scale(self.bound, self.epsilon)
        (t0, n0), (t1, n1) = ((Fraction(self._total(x)), max(x.shape[0], 1)) for x in (x0, x1))
        if n0 == n1:  # one scale: the shift over the scale is (t1 - t0) / b whatever n
            return LaplaceProfile(abs(t1 - t0), scale)
        return LaplaceScalesProfile(t0 / n0, Fraction(scale) / n0, t1 / n1, Fraction(scale) / n1,
                                    description=f"mean over the true count: Laplace scales b/{n0} and b/{n1}, b = {scale:g}")


@dataclass(frozen=True)
class AboveThresholdUnderscaled(UnsafeMechanism):
    """AboveThreshold with sensitivity-1 noise scales fed queries of sensitivity 2.

    The ``docs/papers/ghazi2025.md`` pitfall P1 (Ghazi et al. 2025, Alg. 3): the concentration scores change by
    up to 2 between neighbours, but Alg. 4's ``Lap(2/eps)`` / ``Lap(4/eps)`` assume 1. Mirrored
    form (halts on a low query), as in [GKLM25, Alg. 4]; claimed epsilon-DP for sensitivity 2.
    """

    epsilon: float
    threshold: float
    flaw = "noise calibrated for sensitivity-1 queries, used on sensitivity-2 queries"

    def __post_init__(self) -> None:
        check_positive("AboveThresholdUnderscaled", "epsilon", self.epsilon)
        check_real("AboveThresholdUnderscaled", "threshold", self.threshold)
        super().__post_init__()

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.int8]:
        """``size`` runs of Ghazi et al. 2025's mirrored AboveThreshold (Alg. 4) with sensitivity-1 noise scales.

        Returns
        -------
        ndarray of int8
            Shape ``(size, len(data))``; the codes of :func:`dpaudit.mechanisms.sparse_vector.svt_codes`.
        """
        q = check_finite_array("AboveThresholdUnderscaled.sample", "data", data, ndim=1)
        size = check_size("AboveThresholdUnderscaled.sample", size)
        lap = rng.laplace(0.0, laplace_scale(2.0, self.epsilon), size=(size, 1))
        nu = rng.laplace(0.0, laplace_scale(4.0, self.epsilon), size=(size, q.shape[0]))
        return svt_codes(q + nu < self.threshold - lap, 1, BOTTOM)

    def claimed_guarantee(self) -> PureDP:
        """The claim the variant makes: epsilon-DP for queries of sensitivity 2, which its noise does not cover."""
        return PureDP(self.epsilon, QueryDistance(2.0, "linf"))

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The true law: AboveThreshold (mirrored) with the sensitivity-1 scales."""
        from dpaudit.exact.threshold import ThresholdSpec

        spec = ThresholdSpec(self.threshold, laplace_scale(2.0, self.epsilon), laplace_scale(4.0, self.epsilon), 1, "below")
        return threshold_pair_profile(type(self).__name__, spec, d0, d1, "AboveThreshold (ghazi2025) at sensitivity-1 scales")


def _laplace(shifts: list[Fraction], scale: float) -> PrivacyProfile:
    from dpaudit.exact import LaplaceStep

    return LaplaceStep(tuple(shifts), scale).profile()
