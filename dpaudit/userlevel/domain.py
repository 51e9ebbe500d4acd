"""Declared domains of the user-level mechanisms, and reductions that cannot overflow.

A mechanism that claims user-level DP must keep its promise on *every* dataset its claim covers, and
a finite input that overflows (``1e308 + 1e308 = inf``, then ``inf - inf = NaN``) tells neighbours
apart in a single run: one dataset gives a number, its neighbour NaN, inf or an exception. Every
user-level mechanism therefore maps each user's items into a **declared public domain** before any
arithmetic that can overflow, and the public constants of the domain are capped so that no later
sum, rotation or noise draw can overflow either:

* a **clamp** (or projection) onto a public set is a fixed map applied to every item separately. A
  user's contribution after the map depends on that user alone, so replace-one neighbours stay
  replace-one neighbours and every sensitivity argument of the papers goes through unchanged; on
  data inside the domain the map is the identity, so nothing the papers analyse changes;
* where a paper's analysis *needs* the data inside a domain that cannot be reached by a clamp (the
  universe of a loss in Ghazi et al. 2025, Assumptions 2.4-2.5), data outside it are **refused up
  front**, before any randomness is drawn, with the parameter, the allowed range and the value.

Public constants (bounds, radii, noise scales) are at most :data:`MAX_MAGNITUDE` ``= 2^960``: a sum
of up to ``2^60`` such terms, or a Laplace, Gumbel or Gaussian draw of up to 40 scales, then stays
below ``2^1020 < 1.8e308`` (numpy's Laplace and Gumbel samplers return at most ``-log(2^-53) < 37``
scales).

References
----------
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, arXiv:2102.11845 (Alg 1: ``X^n in [-B, B]^n``; Alg 2:
   ``X_i in [-B, B]^d``; Cor 1: support in ``B_2(0, B)``; Sec 2: ``||grad l||_2 <= G``).
.. [GKLM25] B. Ghazi, R. Kumar, D. Liu and P. Manurangsi. Linear-time user-level DP-SCO via robust
   statistics. arXiv:2502.08889v1, 2025 (Assumption 2.4: the box ``[-D, D]^d`` and the universe).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_positive
from dpaudit.userlevel.projections import project_l2_ball

__all__ = ["MAX_MAGNITUDE", "check_magnitude", "check_public_constant", "clamp_items", "project_items"]

#: Largest magnitude of a public constant of a user-level mechanism (see the module docstring).
MAX_MAGNITUDE = 2.0**960

_WHY = "(about 9.7e288), so that no sum, rotation or noise draw can overflow"


def check_magnitude(owner: str, name: str, value: Any) -> float:
    """Return ``value`` as a float in ``(0, 2^960]``: a public bound, radius or budget of ``owner``."""
    out = check_positive(owner, name, value)
    if out > MAX_MAGNITUDE:
        raise argument_error(owner, name, f"in (0, 2^960] {_WHY}", value)
    return out


def check_public_constant(owner: str, name: str, value: Any, what: str, quantity: float) -> None:
    """Raise (naming parameter ``name``) unless the derived public constant ``quantity`` is finite and at most 2^960.

    ``what`` says what ``quantity`` is, e.g. ``"the Laplace scale 2w/eps at n = 1"``.
    """
    if not quantity <= MAX_MAGNITUDE:  # also catches inf and NaN
        raise argument_error(owner, name, f"such that {what} = {quantity:.6g} is at most 2^960 {_WHY}", value)


def clamp_items(items: NDArray[np.float64], bound: float) -> NDArray[np.float64]:
    """Clamp every coordinate of every item to ``[-bound, bound]`` (a new array): the box ``[-B, B]^d``.

    [LSA+21, Alg 1-2] take their data in ``[-B, B]`` and ``[-B, B]^d``. A clamp is a fixed map per
    item, the identity on the box, so it keeps every sensitivity bound.
    """
    out: NDArray[np.float64] = np.clip(items, -bound, bound)
    return out


def project_items(items: NDArray[np.float64], radius: float) -> NDArray[np.float64]:
    """Project every item (last axis) onto the l2 ball ``B_2(0, radius)`` (overflow-safe; identity inside).

    [LSA+21, Cor 1] takes the support of ``P_0`` in ``B_2(0, B)``; Algorithms 3-4 bound the features
    by ``||x||_2 <= feature_bound``.
    """
    return project_l2_ball(items, radius)
