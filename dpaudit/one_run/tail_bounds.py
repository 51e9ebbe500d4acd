"""Tail bounds of the one-run guessing game, and the epsilon (or mu) lower bounds they give.

The game [SNJ23, Sec. 2]: ``m`` canaries, each included independently with probability 1/2
(``S in {-1, +1}^m`` uniform); the mechanism runs **once**; from its output alone the auditor
guesses ``r`` of the canaries (``+1`` "included", ``-1`` "excluded") and abstains on the rest;
``v`` of the ``r`` guesses are correct. A mechanism that is differentially private with respect
to every single coordinate of ``S`` cannot make many correct guesses, and the two analyses below
turn that into a test of the claim.

* **Steinke, Nasr and Jagielski** [SNJ23, Thm 3.1 and the code of App. D]: if ``M`` is
  ``(eps, delta)``-DP and ``r`` is fixed, then for every ``v``

  .. math:: P[W \\ge v] \\le \\beta + 2 m \\delta \\max_{1 \\le i \\le v} \\frac{P[v - i \\le B < v]}{i},
            \\qquad \\beta = P[B \\ge v],\\; B \\sim \\mathrm{Bin}(r, e^\\varepsilon / (1 + e^\\varepsilon)),

  exact binomial tails (no normal approximation). For ``delta = 0`` it is the binomial tail itself,
  attained by randomized response on each canary. :func:`steinke_p_value` is the right-hand side;
  :func:`steinke_epsilon` the largest epsilon it rejects.
* **Mahloujifar, Melis and Chaudhuri** [MMC24, Sec. 4, Algorithms 3 and 4 ("rh with cap")]: for an
  ``f``-DP mechanism, a recursion over the number of correct guesses, driven by the inverse
  blow-up ``x -> 1 - f^{-1}``-style map of the trade-off curve, shows ``P[W >= v] < tau``
  whenever its end value exceeds ``r / m``. :func:`fdp_rejects` runs it for the Gaussian curve
  ``G_mu`` [DRS19] or the ``(eps, delta)`` curve; :func:`fdp_mu` and :func:`fdp_epsilon` search the
  largest parameter it rejects. With the Gaussian curve the epsilon is that of the mu-GDP claim
  at ``delta`` (the estimate assumes a Gaussian trade-off curve, like jax_privacy's
  ``epsilon_one_run_fdp``); with the ``(eps, delta)`` curve it is a bound on epsilon itself.

Why the searches are valid whatever the shape of the tail bound in epsilon: if ``M`` is
``(eps0, delta)``-DP it is ``(eps, delta)``-DP for every ``eps >= eps0``, so each tail bound with
``eps >= eps0`` holds. The reported bound exceeds ``eps0`` only if the observed ``v`` lies in the
union of the rejection sets ``{v : p_eps(v) <= alpha}`` over ``eps > eps0``; with ``v*`` its
smallest element (rejected at some ``eps* > eps0``), ``P[W >= v*] <= p_{eps*}(v*) <= alpha``.
So the bisection may stop at any epsilon it has seen rejected (it keeps ``p(lo) <= alpha``): no
monotonicity in epsilon is needed, and none in ``v``.

The number of guesses ``r`` must not depend on the data beyond what is declared: a guess plan
(top ``k+`` scores guessed in, bottom ``k-`` guessed out) fixes it, and several plans are paid for
by a union bound (:mod:`dpaudit.one_run.guesses`).

References
----------
.. [SNJ23] T. Steinke, M. Nasr and M. Jagielski. Privacy auditing with one (1) training run.
   NeurIPS 2023, arXiv:2305.08846.
.. [MMC24] S. Mahloujifar, L. Melis and K. Chaudhuri. Auditing f-differential privacy in one run.
   ICML 2025, arXiv:2410.22235.
.. [DRS19] J. Dong, A. Roth and W. Su. Gaussian differential privacy. arXiv:1905.02383.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy import special, stats

from dpaudit._validation import (
    argument_error,
    check_int,
    check_nonnegative,
    check_one_of,
    check_probability,
)
from dpaudit.accounting.conversions import gdp_epsilon

__all__ = ["TRADEOFFS", "fdp_epsilon", "fdp_mu", "fdp_rejects", "steinke_epsilon", "steinke_p_value"]

# p-values are widened by this relative amount so that floating-point error in the binomial tails
# (about 1e-14 relative) can only make them larger, never smaller
_OUTWARD = 1e-10
# the searches stop at this width (relative), keeping the end that is rejected
_BISECT_STEPS = 80
_EPS_CAP = 1e4
_MU_CAP = 1e3
TRADEOFFS = ("gaussian", "approx-dp")


def _check_counts(owner: str, m: int, r: int, v: int) -> tuple[int, int, int]:
    m = check_int(owner, "m", m, minimum=1)
    r = check_int(owner, "r", r, minimum=0, maximum=m)
    v = check_int(owner, "v", v, minimum=0, maximum=r)
    return m, r, v


def steinke_p_value(m: int, r: int, v: int, epsilon: float, delta: float = 0.0) -> float:
    """Upper bound on ``P[W >= v]`` for ``r`` guesses about ``m`` canaries of an ``(epsilon, delta)``-DP run.

    [SNJ23, Thm 3.1] with the exact binomial tail ``beta = P[Bin(r, q) >= v]``,
    ``q = e^eps / (1 + e^eps)``, plus ``2 m delta max_{1 <= i <= v} P[v - i <= Bin(r, q) < v] / i``
    for ``delta > 0``; capped at 1 and widened by ``1e-10`` relative against rounding.

    Parameters
    ----------
    m : int
        Canaries in the game (each included with probability 1/2), at least 1.
    r : int
        Guesses made (fixed before the run), in ``[0, m]``.
    v : int
        Correct guesses, in ``[0, r]``.
    epsilon : float
        In ``[0, inf)``.
    delta : float
        In ``[0, 1)``.

    Examples
    --------
    >>> steinke_p_value(100, 100, 100, 0.0) < 2.0**-99  # all 100 right at epsilon 0: about 2^-100
    True
    """
    owner = "steinke_p_value"
    m, r, v = _check_counts(owner, m, r, v)
    epsilon = check_nonnegative(owner, "epsilon", epsilon)
    delta = check_probability(owner, "delta", delta)
    return _steinke(m, r, v, epsilon, delta)


def _steinke(m: int, r: int, v: int, epsilon: float, delta: float) -> float:
    if v == 0:
        return 1.0
    q = float(special.expit(epsilon))
    beta = float(stats.binom.sf(v - 1, r, q))
    p = beta
    if delta > 0:
        # P[v - i <= B <= v - 1] for i = 1..v, as a running sum of the pmf from v - 1 downwards
        window = np.cumsum(stats.binom.pmf(np.arange(v - 1, -1, -1), r, q))
        p = beta + 2.0 * m * delta * float(np.max(window / np.arange(1, v + 1)))
    return min(1.0, p * (1.0 + _OUTWARD))


def _largest_rejected(rejects: Callable[[float], bool], cap: float) -> float:
    """The largest parameter in ``[0, cap]`` seen rejected by a bisection (0 if 0 is not rejected).

    Keeps the invariant ``rejects(lo)``; see the module docstring for why any such ``lo`` is valid.
    """
    if not rejects(0.0):
        return 0.0
    lo, hi = 0.0, 1.0
    while rejects(hi):
        lo, hi = hi, 2.0 * hi
        if hi > cap:
            return lo
    for _ in range(_BISECT_STEPS):
        mid = 0.5 * (lo + hi)
        if rejects(mid):
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-9 * max(1.0, hi):
            break
    return lo


def steinke_epsilon(m: int, r: int, v: int, *, delta: float = 0.0, confidence: float = 0.95) -> float:
    """Largest epsilon whose ``(epsilon, delta)`` claim ``v`` correct of ``r`` guesses rejects [SNJ23].

    A lower confidence bound on epsilon at level ``confidence`` for one fixed guess plan: the
    bisection keeps ``steinke_p_value(lo) <= 1 - confidence``.

    Examples
    --------
    >>> round(steinke_epsilon(1000, 100, 100, delta=0.0), 2)  # the one-run ceiling at r = 100
    3.49
    """
    owner = "steinke_epsilon"
    m, r, v = _check_counts(owner, m, r, v)
    delta = check_probability(owner, "delta", delta)
    alpha = 1.0 - check_probability(owner, "confidence", confidence, allow_zero=False)
    if v == 0 or v * 2 <= r:  # at most half right: consistent with epsilon = 0
        return 0.0
    return _largest_rejected(lambda eps: _steinke(m, r, v, eps, delta) <= alpha, _EPS_CAP)


# ----------------------------------------------------------------------------------------------
# Mahloujifar, Melis and Chaudhuri: f-DP


def _gaussian_inverse_blow_up(mu: float) -> Callable[[float], float]:
    """``y -> Phi(Phi^{-1}(y) - mu)``: the inverse of ``x -> 1 - G_mu(x) = Phi(Phi^{-1}(x) + mu)`` [DRS19, Eq. (6)]."""
    return lambda y: float(special.ndtr(special.ndtri(y) - mu))


def _approx_dp_inverse_blow_up(epsilon: float, delta: float) -> Callable[[float], float]:
    """Inverse of ``x -> 1 - f_{eps,delta}(x) = min(1, delta + e^eps x, 1 - e^-eps (1 - delta - x))``.

    ``f_{eps,delta}(x) = max(0, 1 - delta - e^eps x, e^-eps (1 - delta - x))`` is the trade-off curve
    of ``(eps, delta)``-DP [DRS19, Prop. 2.5]; the map is the smallest probability under one dataset
    of an event whose probability under the other is ``y``.
    """
    grow, shrink = math.exp(epsilon), math.exp(-epsilon)
    return lambda y: max(0.0, (y - delta) * shrink, 1.0 - delta - grow * (1.0 - y))


def fdp_rejects(m: int, r: int, v: int, inverse_blow_up: Callable[[float], float], tau: float) -> bool:
    """Whether ``v`` correct of ``r`` guesses shows ``P[W >= v] < tau`` for every ``f``-DP run [MMC24].

    The recursion of [MMC24, Algorithms 3 and 4] for alphabet size 2 (membership): starting from
    ``rho_v = tau v / m`` and ``h_v = tau (r - v) / m``, for ``i = v - 1, ..., 0``

    .. math:: h_i = \\max(h_{i+1}, \\bar f^{-1}(\\rho_{i+1})), \\qquad
              \\rho_i = \\min(1, \\rho_{i+1} + \\tfrac{i}{r - i} (h_i - h_{i+1})),

    and the claim is rejected when ``rho_0 + h_0 > r / m``. ``inverse_blow_up`` is ``bar f^{-1}``.
    The cap at 1 (as in jax_privacy; ``rho`` bounds a probability) can only keep a claim.
    """
    rho, h = tau * v / m, tau * (r - v) / m
    for i in range(v - 1, -1, -1):
        h_new = max(h, inverse_blow_up(rho))
        if h_new == h:  # a fixed point: nothing changes any more
            break
        rho = min(1.0, rho + (i / (r - i)) * (h_new - h))
        h = h_new
    return rho + h > r / m


def fdp_mu(m: int, r: int, v: int, *, confidence: float = 0.95) -> float:
    """Largest mu whose mu-GDP claim ``v`` correct of ``r`` guesses rejects [MMC24] with the Gaussian curve ``G_mu``.

    A lower confidence bound on mu, falsifying mu-GDP claims below it (it says nothing about
    mechanisms whose trade-off curve is not Gaussian).
    """
    owner = "fdp_mu"
    m, r, v = _check_counts(owner, m, r, v)
    tau = 1.0 - check_probability(owner, "confidence", confidence, allow_zero=False)
    if v == 0 or v * 2 <= r:
        return 0.0
    return _largest_rejected(lambda mu: fdp_rejects(m, r, v, _gaussian_inverse_blow_up(mu), tau), _MU_CAP)


def fdp_epsilon(m: int, r: int, v: int, *, delta: float, confidence: float = 0.95, tradeoff: str = "gaussian") -> float:
    """Epsilon at ``delta`` from the f-DP analysis of one run [MMC24].

    ``tradeoff="gaussian"``: the epsilon at ``delta`` of the mu-GDP claim :func:`fdp_mu` rejects
    (the ``(eps, delta)``-Gaussian mechanism with ``mu(eps, delta)`` is rejected for every smaller
    epsilon): an estimate under a Gaussian trade-off curve, as jax_privacy's
    ``epsilon_one_run_fdp``. ``tradeoff="approx-dp"``: the recursion run on the ``(eps, delta)``-DP
    curve itself, a lower confidence bound on epsilon at ``delta`` for any mechanism.
    """
    owner = "fdp_epsilon"
    m, r, v = _check_counts(owner, m, r, v)
    delta = check_probability(owner, "delta", delta)
    tradeoff = check_one_of(owner, "tradeoff", tradeoff, TRADEOFFS)
    if tradeoff == "gaussian":
        if delta == 0:
            raise argument_error(owner, "delta", "in (0, 1) with tradeoff='gaussian' (mu-GDP promises no finite epsilon at delta = 0)", delta)
        mu = fdp_mu(m, r, v, confidence=confidence)
        return gdp_epsilon(mu, delta) if mu > 0 else 0.0
    tau = 1.0 - check_probability(owner, "confidence", confidence, allow_zero=False)
    if v == 0 or v * 2 <= r:
        return 0.0
    return _largest_rejected(lambda eps: fdp_rejects(m, r, v, _approx_dp_inverse_blow_up(eps, delta), tau), _EPS_CAP)
