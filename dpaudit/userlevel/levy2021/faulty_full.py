"""The broken components of :mod:`.faulty` inside the full Algorithm 3, for audits of the whole algorithm.

:func:`alg3_with_bug` returns Algorithm 3 (:class:`~dpaudit.userlevel.levy2021.first_order.WinsorizedFirstOrder`)
whose every gradient query runs the named broken component: Algorithm 1 with the bug on every
rotated coordinate (B1, B2, B3, B4-widen, B15, B17), or Algorithm 2 with it (B8). The claim stays
the correct algorithm's; only the sampler changes. Constructing a variant warns
:class:`~dpaudit.errors.UnsoundMechanismWarning` once (its per-step components are built quietly).

Not built into Algorithm 3, and why:

* B4 (argmax on overflow): the exponential mechanism's weights overflow only for ``eps_r n/2 > 709``,
  about ``3 10^4`` users at Algorithm 3's per-coordinate budgets: beyond a feasible audit of the
  full algorithm (its component case has ``n = 3000`` at ``eps_r = 1``);
* B3 (counts over items), B5, B6, B12, B18: they act on the map from a user's items to its value,
  which Algorithm 3 replaces by the user's average gradient (one value per user, inside ``[-G, G]``),
  or on the claim's relation: there is no such map to break inside it.

References
----------
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, arXiv:2102.11845.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

from dpaudit._validation import check_one_of
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.userlevel.levy2021 import faulty
from dpaudit.userlevel.levy2021.first_order import WinsorizedFirstOrder
from dpaudit.userlevel.levy2021.private_range import PrivateRange
from dpaudit.userlevel.levy2021.winsorized_1d import WinsorizedMean1D
from dpaudit.userlevel.levy2021.winsorized_highd import WinsorizedMeanHighD

__all__ = ["ALG3_BUGS", "alg3_with_bug"]


def _quiet_1d(broken: type) -> type:
    """``broken`` (a WinsorizedMean1D variant) without its construction warning (built once per step)."""

    def post_init(self: Any) -> None:
        WinsorizedMean1D.__post_init__(self)

    return dataclass(frozen=True)(type(f"_Quiet{broken.__name__}", (broken,), {"__post_init__": post_init,
                                                                            "__module__": __name__}))


@dataclass(frozen=True)
class _RangeNoHalf1D(WinsorizedMean1D):
    """Algorithm 1 whose PrivateRange has B3's weights ``exp(eps cnt)``."""

    def private_range(self) -> PrivateRange:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnsoundMechanismWarning)
            return faulty.LevyRangeNoHalf(self.range_epsilon(), self.tau, self.bound, self.mode)


@dataclass(frozen=True)
class _RangeFullBudget1D(faulty.LevyFullBudgetStage):
    which: Any = "range"


def _quiet_highd(broken: type) -> type:
    def post_init(self: Any) -> None:
        WinsorizedMeanHighD.__post_init__(self)

    return dataclass(frozen=True)(type(f"_Quiet{broken.__name__}", (broken,), {"__post_init__": post_init,
                                                                            "__module__": __name__}))


def _highd_with(one_d: type) -> type:
    return type(f"_HighD{one_d.__name__}", (WinsorizedMeanHighD,), {"_one_d_class": one_d, "__module__": __name__})


#: bug tag -> (Algorithm 2 as each step runs it, the flaw).
ALG3_BUGS: dict[str, tuple[type, str]] = {
    "B1": (_highd_with(_quiet_1d(faulty.LevyWrongWidthLaplace)), faulty.LevyWrongWidthLaplace.flaw),
    "B2 (Laplace stage)": (_highd_with(_quiet_1d(faulty.LevyFullBudgetStage)), faulty.LevyFullBudgetStage.flaw),
    "B2 (PrivateRange)": (_highd_with(_quiet_1d(_RangeFullBudget1D)), faulty.LevyFullBudgetStage.flaw),
    "B3": (_highd_with(_RangeNoHalf1D), faulty.LevyRangeNoHalf.flaw),
    "B4 (widen on miss)": (_highd_with(_quiet_1d(faulty.LevyWidenOnMiss)), faulty.LevyWidenOnMiss.flaw),
    "B8": (_quiet_highd(faulty.LevyNoLogCoordinateBudget), faulty.LevyNoLogCoordinateBudget.flaw),
    "B15": (_highd_with(_quiet_1d(faulty.LevyLaplaceRate)), faulty.LevyLaplaceRate.flaw),
    "B17": (_highd_with(_quiet_1d(faulty.LevyNoClip)), faulty.LevyNoClip.flaw),
}


class _Announce:
    flaw: ClassVar[str] = ""

    def _announce(self) -> None:
        warnings.warn(f"{type(self).__name__} is deliberately unsound: {self.flaw}", UnsoundMechanismWarning,
                      stacklevel=4)


def _alg3_class(bug: str) -> type:
    estimator, flaw = ALG3_BUGS[bug]

    def post_init(self: Any) -> None:
        WinsorizedFirstOrder.__post_init__(self)
        self._announce()

    name = "WinsorizedFirstOrder_" + "".join(ch for ch in bug if ch.isalnum())
    namespace = {"_estimator_class": estimator, "flaw": flaw, "__post_init__": post_init, "__module__": __name__,
                 "__doc__": f"Algorithm 3 whose gradient queries run the broken component {bug}: {flaw}."}
    return dataclass(frozen=True)(type(name, (_Announce, WinsorizedFirstOrder), namespace))


_ALG3 = {bug: _alg3_class(bug) for bug in ALG3_BUGS}

# module attributes under their own names, so that instances pickle by reference (process executors)
for _cls in _ALG3.values():
    _cls.__qualname__ = _cls.__name__
    globals()[_cls.__name__] = _cls


def alg3_with_bug(bug: str) -> type:
    """The class of Algorithm 3 with the component bug ``bug`` (a key of :data:`ALG3_BUGS`)."""
    check_one_of("alg3_with_bug", "bug", bug, tuple(ALG3_BUGS))
    return _ALG3[bug]
