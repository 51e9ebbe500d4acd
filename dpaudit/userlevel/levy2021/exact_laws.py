"""Exact output laws of Levy et al. 2021's estimators on a given dataset, and the exact epsilon of a pair.

The audit cases (:mod:`dpaudit.userlevel.levy2021.audit_cases`) audit every correct component against
the privacy loss it *actually* spends on the pair that tests it, not against the component's whole
budget: a correct Algorithm 1 spends about ``eps/2`` on an edge pair (the Laplace stage), so an audit
against ``eps`` cannot see a noise scale off by a factor 2. This module computes that pair budget
exactly, **from the paper's formulas, written here independently of the mechanisms' code** (so that a
wrong constant in a mechanism is not copied into its own budget):

* Algorithm 1 on per-user values ``v_1..v_n`` [LSA+21, Alg 1; App. D.1 as reconstructed in the
  ``docs/papers/levy2021.md``, ALG-A] releases ``mean_i clip(v_i, a_k, b_k) + Lap(2w/(n eps))`` where bin ``k`` of
  ``K = ceil(B / tau)`` (width ``2 tau`` from ``-B``) is drawn with ``P(k) ∝ exp((eps/2) cnt_k / 2)``
  and ``[a_k, b_k] = [c_k - r, c_k + r]``, ``r = 2 tau`` (paper) or ``3 tau`` (safe), ``w = 2r``: a
  mixture of ``K`` Laplace laws of one scale (:func:`algorithm_1_law`);
* with the rotation signs fixed, Algorithm 2 runs Algorithm 1 independently on every rotated
  coordinate ``(U X_i)_j``, ``U = d'^{-1/2} H D`` (``H`` from :func:`scipy.linalg.hadamard`), at
  ``eps' = eps / sqrt(8 d' ln(1/delta))``, ``tau'`` and range ``sqrt(d) B`` [LSA+21, Alg 2]; the output
  is a fixed bijection of independent coordinates, so its privacy loss is the sum of theirs;
* with ``d' = 1`` the random sign ``s`` of the rotation makes the law of ``s A(s v)`` an equal mixture
  of the laws of ``A(v)`` and ``-A(-v)``.

:func:`laplace_mixture_epsilon` then gives the exact ``sup_x |log p_0(x) / p_1(x)|`` of two such
mixtures: between consecutive locations every density is ``A e^{x/b} + B e^{-x/b}``, so the ratio is
a Möbius map of ``e^{2x/b}`` and monotone there, and beyond the outermost locations it is constant;
the supremum is attained at a location, and all of them are evaluated (in log space).

This is the pure epsilon of the mechanism *on that pair*, at most the component's budget; a correct
mechanism never exceeds it, so an audit against it is valid, and one off by a constant factor exceeds
it by that factor.

References
----------
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, arXiv:2102.11845.
.. [MT07] F. McSherry and K. Talwar. Mechanism design via differential privacy. FOCS 2007.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import linalg, special

from dpaudit._validation import argument_error
from dpaudit.errors import InvalidArgument

__all__ = [
    "LaplaceMixture",
    "algorithm_1_law",
    "algorithm_2_pair_epsilon",
    "algorithm_3_step_privacy",
    "categorical_epsilon",
    "laplace_mixture_epsilon",
    "rotated_coordinates",
    "sign_symmetrised",
]


@dataclass(frozen=True)
class LaplaceMixture:
    """``sum_k exp(log_weights[k]) Lap(locations[k], scale)``; ``log_weights`` normalised."""

    log_weights: NDArray[np.float64]
    locations: NDArray[np.float64]
    scale: float

    def scaled(self, factor: float) -> LaplaceMixture:
        """The law of ``factor * X`` (``factor != 0``)."""
        return LaplaceMixture(self.log_weights, factor * self.locations, abs(factor) * self.scale)


def algorithm_1_law(values: Any, epsilon: float, tau: float, bound: float, mode: str = "safe") -> LaplaceMixture:
    """The exact output law of Algorithm 1 on per-user values (see the module docstring).

    The bins, counts and exponential-mechanism weights are those of [LSA+21, Alg 1 line 1] with
    PrivateRange at ``eps/2`` (reconstructed, ``docs/papers/levy2021.md`` ALG-A; ``P(k) ∝ exp(eps_r cnt_k / 2)``
    [MT07]), the values clamped to ``[-B, B]``; the Laplace scale is ``2w/(n eps)`` [LSA+21, Alg 1
    line 2, with ``w`` the interval's width].
    """
    v = np.clip(np.asarray(values, dtype=np.float64).ravel(), -bound, bound)
    n = v.size
    k_bins = max(1, math.ceil(bound / tau))
    index = np.minimum(np.floor((v + bound) / (2.0 * tau)), k_bins - 1).astype(np.int64)
    counts = np.bincount(index, minlength=k_bins)
    eps_range = epsilon / 2.0
    logw = np.asarray(eps_range * counts / 2.0, dtype=np.float64)
    logw -= special.logsumexp(logw)
    half = (2.0 if mode == "paper" else 3.0) * tau
    centres = -bound + (2.0 * np.arange(k_bins) + 1.0) * tau
    locs = np.clip(v[None, :], (centres - half)[:, None], (centres + half)[:, None]).mean(axis=1)
    return LaplaceMixture(logw, locs, 2.0 * (2.0 * half) / (n * epsilon))


def sign_symmetrised(law_plus: LaplaceMixture, law_minus: LaplaceMixture) -> LaplaceMixture:
    """Law of ``s A(s v)`` for a fair sign ``s``: ``law_plus`` is that of ``A(v)``, ``law_minus`` of ``A(-v)``."""
    if law_plus.scale != law_minus.scale:
        raise InvalidArgument("both laws must share one scale")
    logw = np.concatenate([law_plus.log_weights, law_minus.log_weights]) - math.log(2.0)
    locs = np.concatenate([law_plus.locations, -law_minus.locations])
    return LaplaceMixture(logw, locs, law_plus.scale)


def _log_density(law: LaplaceMixture, x: NDArray[np.float64]) -> NDArray[np.float64]:
    out: NDArray[np.float64] = special.logsumexp(
        law.log_weights[None, :] - np.abs(x[:, None] - law.locations[None, :]) / law.scale, axis=1)
    return out


def laplace_mixture_epsilon(p0: LaplaceMixture, p1: LaplaceMixture) -> float:
    """Exact ``sup_x |log p0(x) - log p1(x)|`` for two Laplace mixtures of one scale (module docstring)."""
    if not math.isclose(p0.scale, p1.scale, rel_tol=1e-12):
        raise InvalidArgument("both mixtures must share one scale")
    # beyond the outermost location every component decays like e^{-|x|/b}, so the ratio is constant
    # there and equals its value at that location: the locations themselves hold the supremum
    kinks = np.unique(np.concatenate([p0.locations, p1.locations]))
    return float(np.max(np.abs(_log_density(p0, kinks) - _log_density(p1, kinks))))


def categorical_epsilon(log_p0: NDArray[np.float64], log_p1: NDArray[np.float64]) -> float:
    """Exact ``max_k |log P0(k) - log P1(k)|`` of two laws on the same finite set."""
    return float(np.max(np.abs(np.asarray(log_p0) - np.asarray(log_p1))))


def rotated_coordinates(vectors: Any, signs: Any) -> NDArray[np.float64]:
    """``U x = d'^{-1/2} H D x`` for every row, zero-padded to ``d' = len(signs)`` [LSA+21, Alg 2 line 2].

    Uses the dense Sylvester matrix of :func:`scipy.linalg.hadamard`, not dpaudit's fast transform.
    """
    x = np.atleast_2d(np.asarray(vectors, dtype=np.float64))
    s = np.asarray(signs, dtype=np.float64)
    dp = s.size
    padded = np.zeros((x.shape[0], dp))
    padded[:, : x.shape[1]] = x
    out: NDArray[np.float64] = (padded * s) @ linalg.hadamard(dp).T / math.sqrt(dp)
    return out


# ------------------------------------------------------------------------------------------------
# The papers' per-stage parameters, read from the transcription in dpaudit.bounds.levy2021
# ------------------------------------------------------------------------------------------------


def _paper_value(expression_name: str, **values: float) -> float:
    """Evaluate one of :mod:`dpaudit.bounds.levy2021`'s sympy expressions of the paper at ``values``."""
    from dpaudit.bounds import (
        levy2021 as paper,  # sympy is imported only when a pair budget is computed
    )
    from dpaudit.bounds import symbols

    expr = getattr(paper, expression_name)
    return float(expr.subs({getattr(symbols, k): v for k, v in values.items()}))


def algorithm_3_step_privacy(epsilon: float, delta: float, steps: int) -> tuple[float, float]:
    """``(eps', delta')`` of every gradient query, ``eps / (2 sqrt(2 T log(2/delta)))`` and ``delta/(2T)`` [LSA+21, Alg 3]."""
    return (_paper_value("EPS_PRIME_ALG3", epsilon=epsilon, delta=delta, T=steps),
            _paper_value("DELTA_PRIME_ALG3", delta=delta, T=steps))


def _coordinate_parameters(epsilon: float, delta: float, tau: float, n_users: int, padded_dim: int, gamma: float,
                           tau_rule: str) -> tuple[float, float]:
    """``(eps', tau')`` of Algorithm 2 for ``d'`` coordinates [LSA+21, Alg 2 line 3; tight tau': ``docs/papers/levy2021.md``, L7]."""
    eps1 = _paper_value("EPS_PRIME_ALG2", epsilon=epsilon, delta=delta, d=padded_dim)
    if tau_rule == "paper":
        tau1 = _paper_value("TAU_PRIME_ALG2", tau=tau, d=padded_dim, n=n_users, gamma=gamma)
    else:
        tau1 = tau * math.sqrt(2.0 * math.log(2.0 * n_users * padded_dim / gamma) / padded_dim)
    return eps1, tau1


def algorithm_2_pair_epsilon(x0: Any, x1: Any, *, epsilon: float, delta: float, tau: float, bound: float,
                             gamma: float, signs: Any = None, tau_rule: str = "tight", mode: str = "safe") -> float:
    """Exact pure epsilon of Algorithm 2 on the pair of per-user vectors ``x0``, ``x1`` (shape ``(n, d)``).

    With fixed ``signs`` (length ``d'``), the sum over the rotated coordinates of Algorithm 1's pair
    epsilon at ``eps'``, ``tau'`` and range ``sqrt(d) B``. With ``signs=None`` only ``d' = 1`` is
    supported: the random sign is a fair mixture (:func:`sign_symmetrised`). The vectors are clamped to
    ``[-B, B]^d`` first, as the mechanism does.
    """
    a0 = np.clip(np.atleast_2d(np.asarray(x0, dtype=np.float64)), -bound, bound)
    a1 = np.clip(np.atleast_2d(np.asarray(x1, dtype=np.float64)), -bound, bound)
    n_users, dim = a0.shape
    padded = 1 << (dim - 1).bit_length()
    eps1, tau1 = _coordinate_parameters(epsilon, delta, tau, n_users, padded, gamma, tau_rule)
    range1 = math.sqrt(dim) * bound

    def law(values: NDArray[np.float64]) -> LaplaceMixture:
        return algorithm_1_law(values, eps1, tau1, range1, mode)

    if signs is None:
        if padded != 1:
            raise argument_error("algorithm_2_pair_epsilon", "signs", "given when d' > 1 (fixed signs)", signs)
        return laplace_mixture_epsilon(sign_symmetrised(law(a0[:, 0]), law(-a0[:, 0])),
                                       sign_symmetrised(law(a1[:, 0]), law(-a1[:, 0])))
    r0, r1 = rotated_coordinates(a0, signs), rotated_coordinates(a1, signs)
    return sum(laplace_mixture_epsilon(law(r0[:, j]), law(r1[:, j])) for j in range(padded))
