"""Presets, Algorithm 1's noise and budget split, and the deletion thresholds Delta of Ghazi et al. (2023).

Presets (``preset``)
--------------------
``"corrected"`` (default)
    The readings and corrections of ``docs/papers/ghazi2023.md`` (Appendix A), each checked in
    ``proofs/ghazi2023/``:

    * E1: ``delta_bar = delta / (e^{eps_bar} + 2)`` (the proof of Thm 3.3 ends with
      ``(e^{eps_bar} + 2) delta_bar <= delta``);
    * E2: ``sigma = 2 sqrt(ln(2/delta_bar)) (8 kappa Delta) / eps_bar``, linear in the sensitivity
      ``8 kappa Delta`` as the Gaussian mechanism needs;
    * E5: the thresholds derived from Thm 3.6 (``"union_bound"``, ``"certified"``) use ``10 G``: the
      minimiser may sit on the boundary of ``K``, where ``grad L(theta*) != 0`` and the *centred*
      per-item gradients (norm <= 2G) are what Lemma 3.8 applies to;
    * E6, E7, E8 concern the phased algorithms (:mod:`.phased`).

``"paper"``
    As printed: ``delta_bar = delta / e^{eps_bar + 2}`` (Alg 1, line 3 as typeset; smaller, so still
    private), ``sigma = 2 sqrt(ln(2/delta_bar) (8 kappa Delta)) / eps_bar`` (the typeset root spans
    the sensitivity: not scale-equivariant, and too small whenever ``8 kappa Delta`` exceeds about
    ``ln(2/delta_bar)``: *not private* on data of large scale), and ``5 G`` from Thm 3.6. Mechanisms
    built with it warn :class:`~dpaudit.errors.UnsoundMechanismWarning`.

Thresholds Delta (``threshold``), all data-independent, so any of them keeps Alg 1 private
(Thm 3.3 holds for every fixed Delta > 0); they differ in how often Alg 1 returns ⊥ and in noise:

``"printed"``
    ``10 G sqrt(ln(1/beta)) / (mu n sqrt(m))`` [GKKMMZ23, Alg 2, line 3]. It omits the union bound over
    deletion sets that Cor 3.7 and Thm 3.1 need (erratum E3), so the "w.p. 1 - beta" stability of
    Thm 3.1 is not implied.
``"union_bound"``
    ``c G sqrt((4 kappa + 1) ln(n + 1) + ln(1/beta)) / (mu (n - 4 kappa - 1) sqrt(m))``, ``c = 10``
    (E5) or ``5`` (paper) [note ALG-2, Delta*]: Thm 3.6 on every ``(n - |S|)``-user sub-dataset and a
    union bound over the ``<= (n + 1)^{4 kappa + 1}`` pairs (S, i).
``"certified"``
    ``2 (4 kappa + 1) gamma_0 / (mu (n - 4 kappa - 1)) + 2 tau`` with
    ``gamma_0 = c G sqrt(ln(n/beta)) / sqrt(m)`` [GKKMMZ23, App. C, Lemma C.1; note ALG-C]: the
    certificate ``max_i ||grad L(theta*; x_i) - grad L(theta*; x)|| <= gamma_0`` implies stability
    at this threshold, and holds w.p. >= 1 - beta over a random permutation of the items (Lemma 3.8
    with a union bound over the n users). ``tau`` is the solver tolerance. This is the threshold
    under which SCOutputPert runs in polynomial time on typical data (App. C; an extra O(kappa)
    factor in the noise, as the paper says).

References
----------
.. [GKKMMZ23] B. Ghazi, P. Kamath, R. Kumar, R. Meka, P. Manurangsi and C. Zhang. On user-level
   private convex optimization. ICML 2023.
.. [Note002] The readings, corrections and pitfalls of Ghazi et al. (2023)
   kept in ``docs/papers/ghazi2023.md`` (errata E1-E13, pitfalls P1-P23, audit recipes B1-B3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpaudit._validation import (
    argument_error,
    check_in_range,
    check_int,
    check_one_of,
    check_positive,
)
from dpaudit.mechanisms.discrete import tdlap_kappa, tdlap_pmf
from dpaudit.userlevel.domain import MAX_MAGNITUDE

__all__ = [
    "PRESETS",
    "THRESHOLDS",
    "DelOutputPertParameters",
    "alg1_parameters",
    "certificate_radius",
    "check_beta",
    "deletion_threshold",
    "min_users_for",
    "thm36_constant",
]

PRESETS: tuple[str, ...] = ("corrected", "paper")
_SIGMA_MAX = MAX_MAGNITUDE  # the user-level cap on public constants: sigma times any Gaussian draw stays finite
THRESHOLDS: tuple[str, ...] = ("printed", "union_bound", "certified")

PAPER_FLAW = (
    "preset='paper' follows [GKKMMZ23] as printed: sigma = 2 sqrt(ln(2/delta_bar) 8 kappa Delta)/eps_bar (Alg 1, "
    "line 3 as typeset) is not proportional to the sensitivity 8 kappa Delta and is too small on data of large "
    "scale, so the mechanism is not (epsilon, delta)-DP there (docs/papers/ghazi2023.md, erratum E2)"
)


def thm36_constant(preset: str) -> float:
    """Constant of Thm 3.6 / Lemma 3.8 used in the thresholds: ``10`` (constrained minimiser, E5) or ``5`` (printed)."""
    return 10.0 if preset == "corrected" else 5.0


def check_beta(owner: str, beta: float) -> float:
    """``beta`` in (0, 1/e): Lemma 3.8 and Thm 3.6 assume ``beta < 1/e`` [GKKMMZ23]."""
    return check_in_range(owner, "beta", beta, 0.0, math.exp(-1.0), low_closed=False, high_closed=False)


@dataclass(frozen=True)
class DelOutputPertParameters:
    """Every resolved parameter of Algorithm 1 (DelOutputPert) [GKKMMZ23, Alg 1, line 3; Def 3.4].

    ``threshold`` is Delta and ``sigma`` the Gaussian standard deviation, both in the units of
    ``f``'s output. ``horizon = 4 kappa`` is the stability radius (a set S is tested at
    ``4 kappa - |S|``). ``edge_mass = P[R1 = 0] = P[R1 = 2 kappa]``. ``claimed_delta`` is
    ``delta``, or ``2 edge_mass + e^{eps_bar} delta_bar`` when ``kappa`` was overridden (the proof of
    Thm 3.3 with the edge mass in place of ``delta_bar``). ``min_users = 4 kappa + 2``: the check
    evaluates ``f`` on sub-datasets of ``n - 4 kappa - 1`` users, which must be at least one.
    """

    epsilon: float
    delta: float
    threshold: float
    preset: str
    eps_bar: float
    delta_bar: float
    kappa: int
    kappa_overridden: bool
    horizon: int
    sigma: float
    sensitivity_bound: float
    edge_mass: float
    claimed_delta: float
    min_users: int

    def tdlap_pmf(self) -> np.ndarray:
        """pmf of ``R1`` on ``{0, ..., 2 kappa}``."""
        return tdlap_pmf(self.eps_bar, self.delta_bar, kappa=self.kappa)

    def bottom_probability(self, k: int | None) -> float:
        """``P[⊥] = P[R1 < k]`` for a dataset whose smallest stable deletion set has size ``k`` (None: no such set)."""
        if k is None:
            return 1.0
        return float(self.tdlap_pmf()[: max(0, k)].sum())


def alg1_parameters(epsilon: float, delta: float, threshold: float, *, preset: str = "corrected",
                    kappa: int | None = None, output_scale: float = 1.0,
                    owner: str = "DelOutputPert") -> DelOutputPertParameters:
    """Resolve Algorithm 1's parameters [GKKMMZ23, Alg 1, line 3; Def 3.4].

    ``epsilon`` in (0, 1] and ``delta`` in (0, 1/2] (the paper's standing assumption; the classical
    Gaussian-mechanism lemma used in the proof needs ``eps_bar < 1``). ``kappa`` overrides
    ``kappa(eps_bar, delta_bar)`` for structure tests at tiny ``n`` (the claim's delta grows, see
    :class:`DelOutputPertParameters`). ``threshold`` and the returned ``sigma`` are in the units of
    ``f``'s output; ``output_scale`` is the size of one such unit in the coordinates the user sees
    (:mod:`.erm`), which only the printed sigma depends on: it is not scale-equivariant, so it is
    evaluated in the user's units. Raises when sigma is not a finite positive number.
    """
    eps = check_in_range(owner, "epsilon", epsilon, 0.0, 1.0, low_closed=False)
    dlt = check_in_range(owner, "delta", delta, 0.0, 0.5, low_closed=False)
    delta_th = check_positive(owner, "threshold", threshold)
    check_one_of(owner, "preset", preset, PRESETS)
    eps_bar = eps / 2.0  # [GKKMMZ23, Alg 1, line 3]
    if preset == "corrected":
        delta_bar = dlt / (math.exp(eps_bar) + 2.0)  # reading E1
    else:
        delta_bar = dlt / math.exp(eps_bar + 2.0)  # as typeset
    overridden = kappa is not None
    kap = check_int(owner, "kappa", kappa, minimum=1) if overridden else tdlap_kappa(eps_bar, delta_bar)  # Def 3.4
    horizon = 4 * kap
    sensitivity = 8.0 * kap * delta_th  # distance of the two released centres [proof of Thm 3.3]
    log_term = math.log(2.0 / delta_bar)
    if preset == "corrected":
        sigma = 2.0 * math.sqrt(log_term) * sensitivity / eps_bar  # reading E2
    else:
        sigma = 2.0 * math.sqrt(log_term * sensitivity / output_scale) / eps_bar  # as typeset, in the user's units
    if not (0.0 < sigma <= _SIGMA_MAX):  # sigma * z must stay finite for every Gaussian draw
        raise argument_error(owner, "threshold", f"small enough that sigma = {sigma!r} is at most {_SIGMA_MAX:g} "
                             f"(kappa = {kap})", threshold)
    pmf = tdlap_pmf(eps_bar, delta_bar, kappa=kap)
    edge = float(pmf[0])
    claimed = dlt if not overridden else min(1.0, 2.0 * edge + math.exp(eps_bar) * delta_bar)
    return DelOutputPertParameters(
        epsilon=eps, delta=dlt, threshold=delta_th, preset=preset, eps_bar=eps_bar, delta_bar=delta_bar, kappa=kap,
        kappa_overridden=overridden, horizon=horizon, sigma=sigma, sensitivity_bound=sensitivity, edge_mass=edge,
        claimed_delta=claimed, min_users=horizon + 2,
    )


def min_users_for(kappa: int) -> int:
    """``8 kappa + 2`` users: Thm 3.1 takes ``r = 4 kappa <= n/2`` [GKKMMZ23, proof of Thm 3.1; note ALG-1]."""
    return 8 * kappa + 2


def deletion_threshold(kind: str, *, lipschitz: float, strong_convexity: float, beta: float, n_users: int,
                       m_items: int, kappa: int, preset: str, tolerance: float = 0.0,
                       owner: str = "SCOutputPert") -> float:
    """The threshold Delta of ``kind`` (see the module docstring) in the units of the minimiser.

    ``lipschitz`` is G and ``strong_convexity`` mu of the (regularised) per-item loss on the
    constraint set; ``tolerance`` is the solver's guaranteed accuracy ``||theta_hat - theta*||``
    (only the certified threshold adds it: the certificate bounds exact minimisers).
    """
    check_one_of(owner, "threshold", kind, THRESHOLDS)
    n, m = n_users, m_items
    g, mu = lipschitz, strong_convexity
    log_beta = math.log(1.0 / beta)
    if kind == "printed":
        value = 10.0 * g * math.sqrt(log_beta) / (mu * n * math.sqrt(m))  # [GKKMMZ23, Alg 2, line 3]
    else:
        core = n - 4 * kappa - 1
        if core < 1:
            raise argument_error(owner, "n_users", f"at least 4 kappa + 2 = {4 * kappa + 2} for the '{kind}' threshold",
                                 n_users)
        c = thm36_constant(preset)
        if kind == "union_bound":  # [Note002 ALG-2, Delta*; E3, E5]
            value = c * g * math.sqrt((4 * kappa + 1) * math.log(n + 1.0) + log_beta) / (mu * core * math.sqrt(m))
        else:  # [GKKMMZ23, App. C, Lemma C.1; Note002 ALG-C]
            gamma0 = c * g * math.sqrt(math.log(n / beta)) / math.sqrt(m)
            value = 2.0 * (4 * kappa + 1) * gamma0 / (mu * core) + 2.0 * tolerance
    if not (math.isfinite(value) and value > 0.0):
        raise argument_error(owner, "threshold", f"a finite positive Delta (got {value!r} from G = {g!r}, mu = {mu!r})",
                             kind)
    return value


def certificate_radius(threshold: float, *, strong_convexity: float, n_users: int, kappa: int,
                       tolerance: float) -> float:
    """Largest centred user-gradient deviation ``gamma`` that certifies stability at ``threshold``.

    For every ``|T| <= 4 kappa + 1``, ``||theta*(x) - theta*(x_{-T})|| <= |T| gamma / (mu (n - |T|))``
    (first-order optimality of both constrained minimisers and strong convexity; docs/papers/ghazi2023.md, erratum E5, and Lemma
    C.1), so one deletion step inside the horizon moves the exact minimiser by at most
    ``2 (4 kappa + 1) gamma / (mu (n - 4 kappa - 1))`` and the computed one by ``2 tau`` more. The
    certificate ``gamma <= (Delta - 2 tau) mu (n - 4 kappa - 1) / (2 (4 kappa + 1))`` therefore implies
    ``Dbar_{4 kappa} f(x) <= Delta``, i.e. k(x) = 0 [GKKMMZ23, App. C]. Negative when it can never hold.
    """
    core = n_users - 4 * kappa - 1
    return (threshold - 2.0 * tolerance) * strong_convexity * core / (2.0 * (4 * kappa + 1))
