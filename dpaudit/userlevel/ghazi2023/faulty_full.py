"""The broken SCOutputPert variants of :mod:`.faulty` inside the full algorithms (Algorithms 4 and 6).

Each class is a correct phased algorithm (Phased-SCO, Strongly-Convex-SCO) whose every
SCOutputPert call draws ``R1`` (or decides ⊥) the way the named broken component does; the claim
stays the correct algorithm's, so an audit of the full algorithm must catch the bug from the
outputs alone. The components are audited on their own in :mod:`.audit_cases`; these variants show
that the full algorithms' transcripts expose them too (:mod:`.worst_pairs`).

* ``P4``: a deterministic test (``R1 = 0``): ⊥ iff the data are unstable;
* ``P5a``: ``R1`` centred at 0; ``P5b``: supported on ``{0..kappa}``; ``P5c``: rate ``1/eps_bar``;
  ``P5e``: numpy's continuous Laplace given the rate as its scale;
* ``P4 (App. C)``: "certificate else ⊥" (⊥ whenever the gradient certificate does not decide).

Not built here: P5(d) (``R1 ~ TDLap(eps, delta)`` of the *call's* whole budget; a component-level
finding audited in :mod:`.audit_cases`), P9 (DelOutputPert's sigma for a generic ``f``; the ERM
algorithms use SCOutputPert, whose sigma is not at fault) and E2 (the printed sigma: that is the
paper preset itself, ``preset="paper"``, audited on the full algorithms by :mod:`.worst_pairs`).

References
----------
.. [GKKMMZ23] B. Ghazi, P. Kamath, R. Kumar, R. Meka, P. Manurangsi and C. Zhang. On user-level
   private convex optimization. ICML 2023, Alg 1-2, 4, 6.
.. [Note002] The readings, corrections and pitfalls of Ghazi et al. (2023), ``docs/papers/ghazi2023.md``
   (pitfalls P4, P5).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.userlevel.ghazi2023 import faulty
from dpaudit.userlevel.ghazi2023.phased import PhasedSCO, R1Rule
from dpaudit.userlevel.ghazi2023.sc_output_pert import SCParameters
from dpaudit.userlevel.ghazi2023.strongly_convex import StronglyConvexSCO

__all__ = ["FULL_VARIANTS", "full_variant"]


def _rule(component: Any) -> R1Rule:
    """The component's ``_draw_r1`` as a plain rule (those used here read only the call's parameters)."""
    method = component._draw_r1

    def draw(spec: SCParameters, size: int, rng: np.random.Generator) -> NDArray[np.int64]:
        return np.asarray(method(None, spec, size, rng), dtype=np.int64)

    return draw


#: bug tag -> (the broken component, its flaw), each built into Algorithms 4 and 6 below.
FULL_VARIANTS: dict[str, tuple[Any, str]] = {
    "P4": (faulty.DeterministicTest, faulty.DeterministicTest.flaw),
    "P5a": (faulty.UnshiftedR1, faulty.UnshiftedR1.flaw),
    "P5b": (faulty.HalfSupportR1, faulty.HalfSupportR1.flaw),
    "P5c": (faulty.SwappedRateR1, faulty.SwappedRateR1.flaw),
    "P5e": (faulty.ContinuousLaplaceR1, faulty.ContinuousLaplaceR1.flaw),
    "P4 (App. C)": (faulty.CertificateElseBottom, faulty.CertificateElseBottom.flaw),
}


class _Warns:
    flaw: ClassVar[str] = ""

    def _announce(self) -> None:
        warnings.warn(f"{type(self).__name__} is deliberately unsound: {self.flaw}", UnsoundMechanismWarning,
                      stacklevel=4)


def _build(base: Any, bug: str) -> type:
    component, flaw = FULL_VARIANTS[bug]
    certificate = component is faulty.CertificateElseBottom
    name = f"{base.__name__}_{bug.replace(' ', '').replace('(', '').replace(')', '').replace('.', '')}"

    def post_init(self: Any) -> None:
        base.__post_init__(self)
        self._announce()

    namespace = {"flaw": flaw, "__post_init__": post_init, "_certificate_only": certificate,
                 "__doc__": f"{base.__name__} with the broken component {component.__name__} ({bug}): {flaw}.",
                 "__module__": __name__}
    if not certificate:
        namespace["_r1_rule"] = staticmethod(_rule(component))
    return dataclass(frozen=True)(type(name, (_Warns, base), namespace))


_CLASSES = {(base.__name__, bug): _build(base, bug) for base in (PhasedSCO, StronglyConvexSCO) for bug in FULL_VARIANTS}

# module attributes under their own names, so that instances pickle by reference (process executors)
for _cls in _CLASSES.values():
    _cls.__qualname__ = _cls.__name__
    globals()[_cls.__name__] = _cls


def full_variant(algorithm: str, bug: str) -> type:
    """The class of ``algorithm`` (``"PhasedSCO"`` or ``"StronglyConvexSCO"``) with the component bug ``bug``."""
    from dpaudit._validation import check_one_of

    check_one_of("full_variant", "algorithm", algorithm, ("PhasedSCO", "StronglyConvexSCO"))
    check_one_of("full_variant", "bug", bug, tuple(FULL_VARIANTS))
    return _CLASSES[(algorithm, bug)]
