"""Shared parameter arithmetic for the Levy et al. 2021 algorithms (budget splits, radii, batching).

Everything here is deterministic and data-independent: it turns public inputs (epsilon, delta,
tau, gamma, n, d, T) into the constants the algorithms use, always rounding in the safe direction
(per-stage epsilons are rounded *down* by a few ulps, so a composed total computed in exact reals
never exceeds the claim because of floating point; noise scales are rounded up by
:func:`dpaudit.accounting.laplace_scale`).

References
----------
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, arXiv:2102.11845.
.. [DRV10] C. Dwork, G. N. Rothblum and S. Vadhan. Boosting and differential privacy. FOCS 2010
   (advanced composition; stated as [DR14, Thm 3.20]).
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error
from dpaudit.data import as_user_dataset
from dpaudit.userlevel.domain import clamp_items, project_items

__all__ = [
    "ELEMENT_BUDGET",
    "alg2_coordinate_epsilon",
    "alg2_epsilon_bound",
    "alg2_tau_prime",
    "alg3_epsilon_bound",
    "alg3_step_privacy",
    "check_alg2_region",
    "check_alg3_region",
    "round_down",
    "trial_chunks",
    "user_means",
]

#: Largest number of float64 elements one per-chunk temporary may hold (8 MB). The kernels keep
#: about a dozen such temporaries alive, so a chunk stays well under 1 GB whatever ``size`` is.
ELEMENT_BUDGET = 1 << 20

#: Relative slack when comparing a composed epsilon with the claim: the composition identities
#: (e.g. eps' sqrt(2 d' ln(1/delta)) = eps/2) hold exactly in the reals, and their floating-point
#: evaluation differs from the exact value by a few ulps.
_IDENTITY_RTOL = 1e-12


def round_down(value: float, ulps: int = 4) -> float:
    """``value`` moved ``ulps`` floats towards zero: a per-stage epsilon that never overshoots."""
    out = float(value)
    for _ in range(ulps):
        out = float(np.nextafter(out, 0.0))
    return out


def trial_chunks(size: int, per_trial: int, budget: int = ELEMENT_BUDGET) -> list[tuple[int, int]]:
    """Split ``size`` trials into consecutive ``(start, stop)`` blocks of at most ``budget // per_trial``.

    The split depends only on ``size``, ``per_trial`` and ``budget``, so a sampler that draws its
    randomness chunk by chunk, in order, is deterministic given its generator.
    """
    step = max(1, budget // max(1, per_trial))
    return [(start, min(start + step, size)) for start in range(0, size, step)]


def user_means(owner: str, data: Any, item_ndim: int, bound: float, *,
               domain: Literal["box", "ball"] = "box") -> NDArray[np.float64]:
    """Validate a user-level dataset, map every item into the declared domain, and average per user.

    Each user then contributes exactly one value (or vector), so user-level replace neighbours
    become replace-one neighbours on the means [LSA+21, Sec 3, Cor 1; ``docs/papers/levy2021.md``, P3].

    The domain is the box ``[-bound, bound]^d`` (``"box"``: Algorithms 1-2 take ``X in [-B, B]``
    and ``X_i in [-B, B]^d`` [LSA+21, Alg 1-2]) or the ball ``B_2(0, bound)`` (``"ball"``:
    Corollary 1's support). Items are mapped *before* the mean, so no finite input can overflow it
    (a user whose items are all ``1e308`` would otherwise have an infinite mean, and ``inf - inf``
    in the rotation is NaN: a one-run distinguisher). The map is fixed and acts on each item alone,
    so sensitivities are unchanged, and it is the identity on data inside the domain
    (:mod:`dpaudit.userlevel.domain`).
    """
    x = as_user_dataset(data, owner, "data", item_ndim=item_ndim)
    x = project_items(x, bound) if domain == "ball" else clamp_items(x, bound)
    means: NDArray[np.float64] = x.mean(axis=1)  # |entries| <= bound <= 2^960: the sum cannot overflow
    return means


# ----------------------------------------------------------------------------------------------
# Algorithm 2: per-coordinate budget and radius
# ----------------------------------------------------------------------------------------------


def alg2_coordinate_epsilon(epsilon: float, delta: float, padded_dim: int) -> float:
    """``eps' = eps / sqrt(8 d' log(1/delta))`` [LSA+21, Alg 2, line 3], rounded down.

    ``d'`` is the padded (power-of-two) dimension: there are ``d'`` coordinates to compose
    [``docs/papers/levy2021.md``, ALG-2, PROP].
    """
    return round_down(epsilon / math.sqrt(8.0 * padded_dim * math.log(1.0 / delta)))


def alg2_tau_prime(tau: float, n_users: int, padded_dim: int, gamma: float,
                   rule: Literal["paper", "tight"] = "paper") -> float:
    """Per-coordinate concentration radius of the rotated data.

    ``"paper"``: ``tau' = 10 tau sqrt(log(d' n / gamma) / d')`` [LSA+21, Alg 2, line 3].
    ``"tight"``: ``tau' = tau sqrt(2 log(2 n d' / gamma) / d')``, which already makes all ``n d'``
    rotated entries concentrated with probability ``>= 1 - gamma`` by Hoeffding and a union bound
    [``docs/papers/levy2021.md``, L7, PROP]. Privacy never depends on this radius; only utility does.
    """
    if rule == "paper":
        return 10.0 * tau * math.sqrt(max(math.log(padded_dim * n_users / gamma), 0.0) / padded_dim)
    return tau * math.sqrt(2.0 * math.log(2.0 * n_users * padded_dim / gamma) / padded_dim)


def alg2_epsilon_bound(epsilon: float, delta: float, padded_dim: int) -> float:
    """The epsilon that Algorithm 2 provably achieves at ``delta`` with ``d'`` coordinates.

    The ``d'`` per-coordinate runs of Algorithm 1 are each ``eps'``-DP (pure) and adaptively
    composed (one user moves every coordinate). Two valid totals [``docs/papers/levy2021.md``, P2 and P2']:

    * basic composition [DR14, Thm 3.16]: ``d' eps'`` (pure);
    * advanced composition [DRV10; DR14, Thm 3.20]:
      ``eps' sqrt(2 d' ln(1/delta)) + d' eps' (e^{eps'} - 1)``, whose first term is ``eps/2``.

    Returns the smaller. Theorem 2's claim ``(eps, delta)`` holds whenever this is ``<= eps``.
    """
    e1 = alg2_coordinate_epsilon(epsilon, delta, padded_dim)
    basic = padded_dim * e1
    advanced = e1 * math.sqrt(2.0 * padded_dim * math.log(1.0 / delta)) + padded_dim * e1 * math.expm1(e1)
    return min(basic, advanced)


def check_alg2_region(owner: str, epsilon: float, delta: float, max_log2_dim: int = 40) -> None:
    """Raise unless Theorem 2's ``(eps, delta)`` follows from composition for *every* ``d' = 2^k``.

    The paper states Theorem 2 for all ``eps > 0``; the derivation needs
    ``d' eps'(e^{eps'} - 1) <= eps/2`` (or basic composition), which fails for large ``eps`` at
    large ``delta`` (e.g. eps = 5, delta = 0.1) [``docs/papers/levy2021.md``, P2 and bug B9].
    """
    worst = _alg2_worst(float(epsilon), float(delta), max_log2_dim)
    if worst is not None:
        k, bound = worst
        raise argument_error(
            owner, "epsilon",
            f"small enough for Theorem 2's composition at delta={delta!r} (at d'={1 << k} the "
            f"composed total is {bound:.6g} > epsilon)", epsilon,
            fix="lower epsilon or delta; the claim (epsilon, delta) is not proved here [LSA+21, Thm 2].",
        )


@functools.lru_cache(maxsize=4096)
def _alg2_worst(epsilon: float, delta: float, max_log2_dim: int) -> tuple[int, float] | None:
    """First ``k`` with ``alg2_epsilon_bound(eps, delta, 2^k) > eps`` (and the bound), or None."""
    for k in range(max_log2_dim + 1):
        bound = alg2_epsilon_bound(epsilon, delta, 1 << k)
        if bound > epsilon * (1.0 + _IDENTITY_RTOL):
            return k, bound
    return None


# ----------------------------------------------------------------------------------------------
# Algorithm 3: per-step budget
# ----------------------------------------------------------------------------------------------


def alg3_step_privacy(epsilon: float, delta: float, steps: int) -> tuple[float, float]:
    """``eps' = eps / (2 sqrt(2 T log(2/delta)))`` and ``delta' = delta / (2T)`` [LSA+21, Alg 3, line 2]."""
    e1 = round_down(epsilon / (2.0 * math.sqrt(2.0 * steps * math.log(2.0 / delta))))
    return e1, delta / (2.0 * steps)


def alg3_epsilon_bound(epsilon: float, delta: float, steps: int) -> float:
    """Epsilon of ``T`` adaptive ``(eps', delta')`` gradient queries at total ``delta`` [DRV10].

    ``sqrt(2 T ln(2/delta)) eps' + T eps'(e^{eps'} - 1)`` with slack ``delta/2``; the first term is
    ``eps/2`` and the deltas add to ``T delta/(2T) + delta/2 = delta`` [``docs/papers/levy2021.md``, P4].
    """
    e1, _ = alg3_step_privacy(epsilon, delta, steps)
    return e1 * math.sqrt(2.0 * steps * math.log(2.0 / delta)) + steps * e1 * math.expm1(e1)


def check_alg3_region(owner: str, epsilon: float, delta: float, steps: int) -> None:
    """Raise unless Theorem 3's ``(eps, delta)`` follows for ``T = steps`` (and every ``d'``).

    The paper states it for ``eps <= 1`` [LSA+21, Thm 3]; the exact condition checked here is that
    every gradient query's Algorithm 2 call is ``(eps', delta')``-DP (:func:`check_alg2_region`)
    and that the advanced-composition total of the ``T`` calls is at most ``eps``.
    """
    e1, d1 = alg3_step_privacy(epsilon, delta, steps)
    bound = alg3_epsilon_bound(epsilon, delta, steps)
    if bound > epsilon * (1.0 + _IDENTITY_RTOL):
        raise argument_error(
            owner, "epsilon",
            f"small enough for Theorem 3's composition over T={steps} steps at delta={delta!r} "
            f"(the composed total is {bound:.6g} > epsilon)", epsilon,
            fix="lower epsilon (the paper assumes epsilon <= 1) [LSA+21, Thm 3].",
        )
    worst = _alg2_worst(float(e1), float(d1), 40)
    if worst is not None:
        k, inner = worst
        raise argument_error(
            owner, "epsilon",
            f"small enough that every gradient query (Algorithm 2 at eps'={e1:.6g}, delta'={d1:.3g}) is "
            f"(eps', delta')-DP (at d'={1 << k} its composed total is {inner:.6g} > eps')", epsilon,
            fix="lower epsilon (the paper assumes epsilon <= 1) [LSA+21, Thm 2-3].",
        )
