"""Helpers shared by the tests of `dpaudit.exact` that compare certified profiles with independent computations."""

from __future__ import annotations

import warnings
from typing import Any

from scipy import stats

from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.exact.bracket import case_bracket
from dpaudit.literature_suite import literature_cases


def quiet(cls: Any, *args: Any, **kwargs: Any) -> Any:
    """Build a knowingly broken mechanism without its `UnsoundMechanismWarning`."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        return cls(*args, **kwargs)


def suite_bracket(name: str) -> Any:
    """The certified bracket of the literature suite's case ``name`` at its claim's delta (no sampling)."""
    case = next(c for c in literature_cases() if c.name.split(" ")[0] == name)
    return case_bracket(case)[0]


def clopper_pearson_interval(k: int, n: int, alpha: float) -> tuple[float, float]:
    """The two-sided Clopper-Pearson interval at level ``1 - alpha`` for ``k`` successes in ``n`` trials."""
    low = stats.beta.ppf(alpha / 2, k, n - k + 1) if k > 0 else 0.0
    high = stats.beta.ppf(1 - alpha / 2, k + 1, n - k) if k < n else 1.0
    return float(low), float(high)


def clopper_pearson_ok(k: int, n: int, prob: float, alpha: float, slack: float = 1e-12) -> bool:
    """Whether ``prob`` lies in the Clopper-Pearson interval of ``k`` in ``n`` (with a rounding ``slack``)."""
    low, high = clopper_pearson_interval(k, n, alpha)
    return low - slack <= prob <= high + slack
