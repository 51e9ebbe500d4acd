"""Exact binomial confidence limits and the epsilon bounds built on them.

Shared by the auditor and by the statistical tests, so that product bounds and test thresholds
cannot drift apart (convention 8 of ``docs/conventions.md``).

References
----------
.. [CP34] C. J. Clopper and E. S. Pearson. The use of confidence or fiducial limits illustrated in
   the case of the binomial. Biometrika 26(4), 1934.
.. [KOV15] P. Kairouz, S. Oh and P. Viswanath. The composition theorem for differential privacy.
   ICML 2015 (hypothesis-testing region of (epsilon, delta)-DP).
.. [DRS19] J. Dong, A. Roth and W. Su. Gaussian differential privacy. arXiv:1905.02383v3, Eq. (6).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import special, stats

from dpaudit._validation import argument_error, check_in_range, check_int

__all__ = [
    "clopper_pearson_interval",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "epsilon_lower_bound_from_counts",
    "gdp_mu_lower_bound_from_counts",
]


# Limits are widened by this relative amount so that floating-point error in the incomplete-beta
# inverse (about 1e-15 relative) can only make the interval wider, never narrower.
_OUTWARD = 1e-12


def _counts(owner: str, k: Any, n: Any) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    kk = np.asarray(k, dtype=float)
    nn = np.asarray(n, dtype=float)
    if np.any(nn < 1) or np.any(kk < 0) or np.any(kk > nn) or np.any(kk != np.floor(kk)):
        raise argument_error(owner, "k", "an integer count in [0, n] with n >= 1", k)
    return kk, nn


def clopper_pearson_lower(k: Any, n: Any, alpha: float) -> NDArray[np.float64] | float:
    """One-sided lower confidence limit: ``P[p < lower] <= alpha`` [CP34].

    ``Beta.ppf(alpha; k, n - k + 1)``, and 0 when ``k = 0``. Vectorised over ``k`` and ``n``.
    """
    alpha = check_in_range("clopper_pearson_lower", "alpha", alpha, 0.0, 1.0, low_closed=False, high_closed=False)
    kk, nn = _counts("clopper_pearson_lower", k, n)
    with np.errstate(invalid="ignore"):
        out = np.where(kk > 0, special.betaincinv(np.maximum(kk, 1), nn - kk + 1, alpha), 0.0)
    out = out * (1.0 - _OUTWARD)
    return float(out) if out.ndim == 0 else out


def clopper_pearson_upper(k: Any, n: Any, alpha: float) -> NDArray[np.float64] | float:
    """One-sided upper confidence limit: ``P[p > upper] <= alpha`` [CP34].

    ``Beta.ppf(1 - alpha; k + 1, n - k)``, and 1 when ``k = n``. Vectorised over ``k`` and ``n``.
    """
    alpha = check_in_range("clopper_pearson_upper", "alpha", alpha, 0.0, 1.0, low_closed=False, high_closed=False)
    kk, nn = _counts("clopper_pearson_upper", k, n)
    with np.errstate(invalid="ignore"):
        out = np.where(kk < nn, special.betaincinv(kk + 1, np.maximum(nn - kk, 1), 1.0 - alpha), 1.0)
    out = np.minimum(out * (1.0 + _OUTWARD), 1.0)
    return float(out) if out.ndim == 0 else out


def clopper_pearson_interval(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Two-sided interval with ``alpha / 2`` in each tail."""
    return float(clopper_pearson_lower(k, n, alpha / 2)), float(clopper_pearson_upper(k, n, alpha / 2))


def epsilon_lower_bound_from_counts(k_num: int, k_den: int, n: int, delta: float, alpha: float, n_den: int | None = None) -> float:
    """``ln((p_num_lo - delta) / p_den_hi)`` with one-sided Clopper-Pearson limits at ``alpha / 2`` each.

    For an (epsilon, delta)-DP mechanism and any fixed event E, ``P_num(E) <= e^eps P_den(E) + delta``
    [DR14, Def 2.4], so on the event (probability >= 1 - alpha) that both limits hold,
    ``(p_num_lo - delta) / p_den_hi <= e^eps``. Returns 0 when the numerator limit is at most
    ``delta`` (nothing can be concluded) and clips negative values to 0.
    """
    owner = "epsilon_lower_bound_from_counts"
    n = check_int(owner, "n", n, minimum=1)
    n_den = n if n_den is None else check_int(owner, "n_den", n_den, minimum=1)
    k_num = check_int(owner, "k_num", k_num, minimum=0, maximum=n)
    k_den = check_int(owner, "k_den", k_den, minimum=0, maximum=n_den)
    lo = float(clopper_pearson_lower(k_num, n, alpha / 2))
    hi = float(clopper_pearson_upper(k_den, n_den, alpha / 2))
    if lo <= delta:
        return 0.0
    return max(0.0, math.log(lo - delta) - math.log(hi))


def gdp_mu_lower_bound_from_counts(k_num: int, k_den: int, n: int, alpha: float) -> float:
    """Lower confidence bound on mu for a mu-GDP claim from one test [DRS19, Eq. (6)].

    The test rejects "dataset = den" on the event; its false-positive rate is
    ``P_den(E) <= FPR_hi`` and false-negative rate ``1 - P_num(E) <= FNR_hi`` (Clopper-Pearson at
    ``alpha / 2`` each). A mu-GDP mechanism has ``FNR >= Phi(Phi^{-1}(1 - FPR) - mu)``, hence
    ``mu >= Phi^{-1}(1 - FPR_hi) - Phi^{-1}(FNR_hi)``. Valid as a falsification of a GDP claim
    only; as an epsilon estimate it assumes a Gaussian-shaped trade-off curve.
    """
    fpr_hi = float(clopper_pearson_upper(k_den, n, alpha / 2))
    fnr_hi = 1.0 - float(clopper_pearson_lower(k_num, n, alpha / 2))
    if fpr_hi >= 1.0 or fnr_hi >= 1.0:
        return 0.0
    if fpr_hi <= 0.0 or fnr_hi <= 0.0:  # pragma: no cover - CP limits are interior for n >= 1
        return math.inf
    return max(0.0, float(stats.norm.isf(fpr_hi) - stats.norm.ppf(fnr_hi)))
