"""Phased ERM of Levy et al. 2021 (Algorithm 4).

:class:`PhasedERM` runs ``T`` rounds on disjoint user sets of sizes ``n / 2^t``, round ``t``
approximately minimising the regularised objective (7) with ``lambda_t = 4^t lambda`` around the
previous round's output, each round by Algorithm 3 (:class:`~dpaudit.userlevel.levy2021.first_order.WinsorizedFirstOrder`)
with the full ``(eps, delta)`` (parallel composition). ``(eps, delta)``-DP [LSA+21, Alg 4, Thm 4].

Details the paper leaves open [``docs/papers/levy2021.md``, ALG-7, PROP]: ``n_t = floor(n / 2^t)``, users taken in
index order (round 1 gets the first ``n_1`` users), ``T_eff = min(T, floor(log2 n))``; the
regulariser's gradient is added after the private mean (post-processing, ``B = G``);
``eta_t = 1 / (H + lambda_t)``; the last iterate is the round's output.

Round length [PROP]. Theorem 4's proof needs each round's output within Corollary 2's accuracy of the
round's minimiser, ``E||theta_hat_t - theta*_t||^2 <= sigma^2 d^2 / (lambda_t^2 n_t^2 m eps^2)``. Each
step of size ``1/(H + lambda_t)`` shrinks the distance by ``q_t = H / (H + lambda_t)`` and adds the
noise of Algorithm 2 at the per-step budget of a ``T``-step run, which grows with ``T``; the schedule
picks ``T`` from this trade-off (:meth:`PhasedERM.schedule`, :mod:`.round_length`).

References
----------
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, arXiv:2102.11845.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
.. [Bub15] S. Bubeck. Convex optimization: algorithms and complexity, 2015, arXiv:1405.4980.
.. [RB16] E. K. Ryu and S. Boyd. Primer on monotone operator methods. Applied and Computational
   Mathematics 15(1), 2016 (Sec. 6: the gradient map of a strongly convex smooth function is a
   contraction).
.. [LSB12] S. Lacoste-Julien, M. Schmidt and F. Bach. A simpler approach to obtaining an O(1/t)
   convergence rate for the projected stochastic subgradient method, 2012, arXiv:1212.2002.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import (
    argument_error,
    check_finite_array,
    check_int,
    check_nonnegative,
    check_one_of,
    check_probability,
)
from dpaudit.guarantees import ApproxDP
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.neighbors.relations import UserReplace
from dpaudit.userlevel.domain import check_magnitude
from dpaudit.userlevel.hadamard import next_power_of_two
from dpaudit.userlevel.levy2021.first_order import (
    _MIN_BLOCK_USERS,
    _TEMPS_PER_COORD,
    WinsorizedFirstOrder,
    _check_items,
    _check_point,
    _check_problem,
    _split,
    gradient_concentration_radius,
)
from dpaudit.userlevel.levy2021.parameters import (
    check_alg3_region,
    trial_chunks,
)
from dpaudit.userlevel.levy2021.private_range import RangeMode
from dpaudit.userlevel.levy2021.round_length import (
    StepRule,
    choose_round_length,
    localization_steps,
    round_error_bound,
)
from dpaudit.userlevel.levy2021.winsorized_1d import TauRule
from dpaudit.userlevel.levy2021.winsorized_highd import check_signs
from dpaudit.userlevel.losses import Loss
from dpaudit.userlevel.projections import projected_step
from dpaudit.userlevel.transcript import Observe, check_observe

__all__ = ["PhaseRound", "PhasedERM", "PhasedERMRound", "StepRule", "localization_steps"]


@dataclass(frozen=True)
class PhaseRound:
    """One round of Phased ERM: public constants only (no data).

    ``users`` is the half-open index range ``[start, stop)`` of the round's users; ``lam`` is
    ``lambda_t = 4^t lambda``; ``steps`` and ``step_size`` configure Algorithm 3 (``steps = 0``: the
    round is skipped and releases its centre); ``tau`` and
    ``gamma`` its concentration radius and failure probability. For smooth losses the schedule also
    records the round's error budget (``nan`` otherwise): ``initial_distance`` ``D_t``, Corollary 2's
    ``tolerance``, and ``error_bound``, the Prop 4 bound on ``E||theta_hat_t - theta*_t||^2`` at ``steps``.
    """

    index: int
    start: int
    stop: int
    lam: float
    steps: int
    step_size: float
    tau: float
    gamma: float
    initial_distance: float = math.nan
    tolerance: float = math.nan
    error_bound: float = math.nan

    @property
    def n_users(self) -> int:
        """The number of the round's users, ``stop - start``."""
        return self.stop - self.start


@dataclass(frozen=True)
class PhasedERM(MechanismBase):
    """Phased ERM for user-level DP-SCO (Levy et al. 2021, Algorithm 4). ``(eps, delta)``-user-level DP.

    Parameters
    ----------
    loss : Loss
        Convex loss; the paper assumes it is ``H``-smooth (squared, logistic). Non-smooth losses
        (absolute, hinge) need ``steps`` and use decreasing steps with weighted averaging.
    epsilon, delta : float
        Privacy parameters (the paper requires ``eps <= 1`` and ``delta <= 1/n^2`` for its rate; the
        privacy claim is checked exactly at construction for every round length).
    radius : float
        ``Theta = B_2(0, radius)``; the paper's diameter is ``R = 2 radius``.
    feature_bound, label_bound : float
        Public bounds ``||x||_2 <= feature_bound``, ``|y| <= label_bound`` giving
        ``G = loss.lipschitz(radius, feature_bound, label_bound)``.
    sigma : float, optional
        Sub-Gaussian parameter of the per-item gradients (A4); default ``G``.
    smoothness : float, optional
        ``H``; default ``loss.smoothness(feature_bound)``.
    rounds : int, optional
        Number of rounds; default ``T = ceil(log2(G n sqrt(m) eps / (sigma d)))`` [Alg 4, line 1]; in
        every case at most ``floor(log2 n)`` (every round needs a user).
    steps : int, optional
        Gradient steps in every round. Default: per round, from ``step_rule`` (smooth losses only).
    step_rule : {"balanced", "corollary2"}
        How the default round length is chosen (see Notes). ``"corollary2"`` (default, the paper's):
        the steps that bring the optimisation error to Corollary 2's tolerance
        (:func:`localization_steps`). ``"balanced"`` (a proposal beyond Algorithm 4 [PROP]): the
        ``T`` in ``0 .. localization_steps`` that minimises the bound on the round's error,
        optimisation error plus the noise that ``T`` steps' smaller budgets add (``T = 0`` skips the
        round: it releases its centre and reads no data). At the sizes that run here it is never
        worse than the paper's rule (``python -m benchmarks.bench_levy_phased_erm_utility``).
    max_steps : int, optional
        A compute cap on the default round length (default none). A cap that binds stops the round
        short of the rule's choice; the privacy accounting follows the capped count.
    tau, gamma : float, optional
        Concentration radius and failure probability per round; defaults
        ``min(G, gradient_concentration_radius(...))`` and Corollary 2's
        ``gamma = sigma^2 d^2 / (lambda_t^2 n_t^2 m eps^2 R^2)`` (capped at 1/2).
    mode, tau_rule :
        Passed to Algorithm 2.
    theta0 : tuple of float, optional
        Data-independent ``theta_hat_0``; default 0.
    signs : tuple of float, optional
        Fixed rotation signs for every step of every round (see
        :class:`~dpaudit.userlevel.levy2021.first_order.WinsorizedFirstOrder`); default random.
    observe : {"final", "transcript"}
        What :meth:`sample` releases: ``theta_hat_T``, or the transcript of every round
        (:mod:`dpaudit.userlevel.transcript`; layout in :meth:`sample`).

    Notes
    -----
    Data ``(n_users, m_items, d + 1)``; output ``(size, d)``, the final round's iterate. Round
    ``t = 1 .. T`` uses the next ``n_t = floor(n / 2^t)`` users and approximately minimises

    .. math:: L_{\\lambda_t, \\hat\\theta_{t-1}}(\\theta; S_t) = \\frac{1}{m n_t} \\sum_{u \\in S_t}
              \\sum_j \\ell(\\theta, z_j^{(u)}) + \\frac{\\lambda_t}{2}\\|\\theta - \\hat\\theta_{t-1}\\|^2,
              \\qquad \\lambda_t = 4^t \\lambda, \\quad
              \\lambda = \\sqrt{G \\underline G / (nm) + \\sigma^2 d^2 / (n^2 m \\varepsilon^2)} / R

    with Algorithm 3 at the full ``(eps, delta)`` [LSA+21, Alg 4, eq. (7)]. Privacy: the rounds use
    disjoint users, so parallel composition gives ``(eps, delta)`` for the whole transcript
    ``theta_hat_1 .. theta_hat_T`` [LSA+21, Thm 4; note P5]. Gradient count per trial:
    ``sum_t steps_t n_t m`` (:meth:`gradient_count`).

    Round length and its privacy cost [PROP]. The round objective is ``lambda_t``-strongly convex and
    ``(H + lambda_t)``-smooth, so a step of size ``eta_t = 1/(H + lambda_t)`` shrinks the distance to its
    minimiser ``theta*_t`` by ``q_t = H / (H + lambda_t)`` [RB16, Sec. 6] and Algorithm 2 adds independent
    zero-mean noise of variance ``nu_t^2(T)``; after ``T`` steps (:meth:`round_error_bound`)

    .. math:: \\mathbb E\\|\\hat\\theta_t - \\theta^*_t\\|^2 \\le q_t^{2T} D_t^2
              + \\eta_t^2 \\nu_t^2(T) \\frac{1 - q_t^{2T}}{1 - q_t^2}, \\qquad
              D_t = \\min(R, G/\\lambda_t),

    the finite-``T`` form of the strongly convex case of [LSA+21, Prop 4] (``docs/papers/levy2021.md``, ALG-6).
    ``D_t`` bounds the distance from the centre ``theta_hat_{t-1}`` to ``theta*_t`` (strong convexity and
    ``G``-Lipschitz losses give ``lambda_t ||c - theta*_t|| <= G``). ``nu_t^2(T) = 2 d b_t(T)^2`` is the
    exact variance of Algorithm 2's noise ``U^{-1} xi`` (``xi_j ~ Lap(b_t(T))``) at the per-step budget
    ``eps' = eps / (2 sqrt(2 T log(2/delta)))``, ``delta' = delta / (2T)`` [LSA+21, Alg 3, line 2]:
    ``b_t(T)^2`` grows like ``T log(2T/delta)``, so more steps mean more noise in every step.

    * ``"corollary2"`` solves each round to Corollary 2's accuracy: ``T_t`` =
      :func:`localization_steps`, the first ``T`` whose optimisation term is at most the tolerance
      ``sigma^2 d^2 / (lambda_t^2 n_t^2 m eps^2)`` [LSA+21, Cor 2]. It is at most Corollary 2's printed
      ``((H + lambda_t)/lambda_t) log(.)``. Beyond it, steps only add noise.
    * ``"balanced"`` (the option beyond the paper) resolves the trade-off: the ``T`` in ``0 .. localization_steps`` with the
      smallest bound (unimodal in ``T``, found by bisection, :meth:`_balanced_steps`). In Theorem 4's
      regime the noise term is below the tolerance and the rules nearly agree; at small ``n`` one
      step's noise exceeds what it can gain, and the round is shortened or skipped (``T = 0``: the
      round releases its centre and reads no data) instead of adding noise.

    Either way ``T`` is a function of public constants only, each round's Algorithm 3 computes
    ``eps'(T)`` from its own ``T`` (so the ``(eps, delta)`` claim holds for every round length), and the
    construction check at ``T = 1`` (the largest ``eps'``) covers every ``T``. The step counts and
    bounds are recorded in :meth:`schedule` (``steps``, ``tolerance``, ``error_bound``).

    References
    ----------
    [LSA+21, Alg 4, Thm 4, Cor 2, Prop 4]; [RB16]; [LSB12] for the non-smooth rounds.

    Examples
    --------
    Fit a user-level private linear regression on ``n = 64`` users with ``m = 8`` items each, in
    ``d = 2`` dimensions, running 100 independent trials at once (the output holds the final
    iterates, one row per trial); ``schedule`` lists the public round constants and
    ``gradient_count`` the per-trial gradient evaluations.

    >>> import numpy as np
    >>> from dpaudit.userlevel.losses import SquaredLoss
    >>> from dpaudit.userlevel.levy2021 import PhasedERM
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(64, 8, 2)) / 2
    >>> y = np.clip(x @ np.array([0.5, -0.3]), -1, 1)
    >>> data = np.concatenate([x, y[..., None]], axis=-1)  # (n_users, m_items, d + 1)
    >>> erm = PhasedERM(SquaredLoss(), epsilon=1.0, delta=1e-5, radius=1.0, feature_bound=2.0,
    ...                 rounds=2, steps=3)
    >>> erm.sample(data, 100, rng=rng).shape
    (100, 2)
    >>> [r.n_users for r in erm.schedule(64, 8, 2)], erm.gradient_count(64, 8, 2)
    ([32, 16], 1152)
    """

    audit_block_size: ClassVar[int] = 1024  # every trial runs a whole SGD loop

    loss: Loss
    epsilon: float
    delta: float
    radius: float
    feature_bound: float
    label_bound: float = 1.0
    sigma: float | None = None
    smoothness: float | None = None
    rounds: int | None = None
    steps: int | None = None
    step_rule: StepRule = "corollary2"
    max_steps: int | None = None
    tau: float | None = None
    gamma: float | None = None
    mode: RangeMode = "safe"
    tau_rule: TauRule = "paper"
    theta0: tuple[float, ...] | None = None
    signs: tuple[float, ...] | None = None
    observe: Observe = "final"

    def __post_init__(self) -> None:
        owner = type(self).__name__
        _check_problem(owner, self)
        check_observe(owner, self.observe)
        if self.signs is not None:
            object.__setattr__(self, "signs", check_signs(owner, self.signs))
        if self.sigma is not None:
            check_magnitude(owner, "sigma", self.sigma)
        if self.smoothness is not None:
            check_nonnegative(owner, "smoothness", self.smoothness, allow_inf=True)
        if self.rounds is not None:
            check_int(owner, "rounds", self.rounds, minimum=1)
        if self.steps is not None:
            check_int(owner, "steps", self.steps, minimum=1)
        check_one_of(owner, "step_rule", self.step_rule, ("balanced", "corollary2"))
        if self.max_steps is not None:
            check_int(owner, "max_steps", self.max_steps, minimum=1)
        if self.tau is not None:
            check_magnitude(owner, "tau", self.tau)
        if self.gamma is not None:
            check_probability(owner, "gamma", self.gamma, allow_zero=False)
        check_one_of(owner, "mode", self.mode, ("safe", "paper"))
        check_one_of(owner, "tau_rule", self.tau_rule, ("paper", "tight"))
        if self.theta0 is not None:
            object.__setattr__(self, "theta0", tuple(float(v) for v in check_finite_array(owner, "theta0", self.theta0,
                                                                                           ndim=1)))
        if not math.isfinite(self.smooth_constant) and self.steps is None:
            raise argument_error(owner, "steps", f"given for a non-smooth loss ({type(self.loss).__name__} has no "
                                 "smoothness constant, so Corollary 2's round length is undefined)", self.steps)
        # a round of T steps is (eps, delta)-DP for every T >= 1 iff it is for T = 1 (eps' is largest)
        check_alg3_region(owner, self.epsilon, self.delta, 1 if self.steps is None else self.steps)

    # --- public constants -----------------------------------------------------------------------

    @property
    def lipschitz(self) -> float:
        """``G = loss.lipschitz(radius, feature_bound, label_bound)``."""
        return float(self.loss.lipschitz(self.radius, self.feature_bound, self.label_bound))

    @property
    def smooth_constant(self) -> float:
        """``H`` (given, or the loss's; ``inf`` when non-smooth)."""
        if self.smoothness is not None:
            return float(self.smoothness)
        return float(self.loss.smoothness(self.feature_bound))

    def _sigma(self) -> float:
        return self.sigma if self.sigma is not None else self.lipschitz

    def n_rounds(self, n_users: int, m_items: int, dim: int) -> int:
        """``T = ceil(log2(G n sqrt(m) eps / (sigma d)))`` [LSA+21, Alg 4, line 1], in ``[1, floor(log2 n)]``.

        The seed prints ``n sqrt(m eps)``; the intended form is ``n sqrt(m) eps`` [``docs/papers/levy2021.md``, 0(a)].
        """
        cap = max(1, n_users.bit_length() - 1)  # floor(log2 n), exactly
        if self.rounds is not None:
            return min(self.rounds, cap)
        arg = self.lipschitz * n_users * math.sqrt(m_items) * self.epsilon / (self._sigma() * dim)
        t = math.ceil(math.log2(arg)) if arg > 1 else 1
        return max(1, min(t, cap))

    def base_regularization(self, n_users: int, m_items: int, dim: int) -> float:
        """``lambda = sqrt(G G_ / (n m) + sigma^2 d^2 / (n^2 m eps^2)) / R`` [LSA+21, Alg 4, line 1]."""
        g = self.lipschitz
        sigma = self._sigma()
        g_under = min(g, sigma * math.sqrt(dim))  # G_ = min(G, sigma sqrt(d))   [LSA+21, Sec 2.1]
        diameter = 2.0 * self.radius
        return math.sqrt(g * g_under / (n_users * m_items)
                         + sigma**2 * dim**2 / (n_users**2 * m_items * self.epsilon**2)) / diameter

    def round_slices(self, n_users: int, n_rounds: int) -> list[tuple[int, int]]:
        """Disjoint user ranges: round ``t`` gets the next ``floor(n / 2^t)`` users [LSA+21, Alg 4, lines 3-4]."""
        out = []
        start = 0
        for t in range(1, n_rounds + 1):
            n_t = n_users // 2**t
            out.append((start, start + n_t))
            start += n_t
        return out

    def schedule(self, n_users: int, m_items: int, dim: int) -> list[PhaseRound]:
        """The public constants of every round, for data of ``n_users`` x ``m_items`` in dimension ``dim``."""
        owner = f"{type(self).__name__}.schedule"
        n_users = check_int(owner, "n_users", n_users, minimum=2)
        m_items = check_int(owner, "m_items", m_items, minimum=1)
        dim = check_int(owner, "dim", dim, minimum=1)
        n_rounds = self.n_rounds(n_users, m_items, dim)
        lam = self.base_regularization(n_users, m_items, dim)
        h = self.smooth_constant
        g = self.lipschitz
        sigma = self._sigma()
        diameter = 2.0 * self.radius
        out = []
        for t, (start, stop) in enumerate(self.round_slices(n_users, n_rounds), start=1):
            n_t = stop - start
            lam_t = 4.0**t * lam  # [LSA+21, Alg 4, line 3]
            if self.gamma is not None:
                gamma_t = self.gamma
            else:  # Cor 2: gamma = sigma^2 d^2 / (mu^2 n^2 m eps^2 R^2) with mu = lambda_t, n = n_t
                gamma_t = min(0.5, sigma**2 * dim**2 / (lam_t**2 * n_t**2 * m_items * self.epsilon**2 * diameter**2))
            if math.isfinite(h):
                eta_t = 1.0 / (h + lam_t)  # strongly convex, (H + lambda_t)-smooth round objective [Bub15, Thm 3.10]
            else:
                eta_t = 2.0 / lam_t  # first of the decreasing steps 2 / (lambda_t (k + 2)) [LSB12]
            if self.tau is not None:
                tau_t = self.tau
            elif not math.isfinite(h):
                tau_t = g
            else:
                tau_t = min(g, gradient_concentration_radius(sigma, dim, n_t, m_items, diameter, h, gamma_t))
            phase = PhaseRound(t, start, stop, lam_t, 1 if self.steps is None else self.steps, eta_t, tau_t, gamma_t)
            if math.isfinite(h):
                phase = choose_round_length(self, phase, m_items, dim)
            out.append(phase)
        return out

    # --- round length (dpaudit.userlevel.levy2021.round_length) ---------------------------------

    def round_error_bound(self, phase: PhaseRound, m_items: int, dim: int, steps: int) -> float:
        """Bound on ``E||theta_hat_t - theta*_t||^2`` after ``steps`` steps of round ``phase`` (:func:`round_error_bound`)."""
        return round_error_bound(self, phase, m_items, dim, steps)

    def round_optimizer(self, phase: PhaseRound) -> WinsorizedFirstOrder:
        """Algorithm 3 as run in round ``phase`` (its private part; the regulariser is post-processing)."""
        return WinsorizedFirstOrder(
            self.loss, self.epsilon, self.delta, self.radius, self.feature_bound, self.label_bound,
            steps=phase.steps, step_size=phase.step_size, tau=phase.tau, sigma=self.sigma, gamma=phase.gamma,
            aggregate="last", mode=self.mode, tau_rule=self.tau_rule,
            regularization=phase.lam, signs=self.signs,
        )

    def gradient_count(self, n_users: int, m_items: int, dim: int) -> int:
        """Per-item gradients per trial: ``sum_t steps_t n_t m`` (exact)."""
        return sum(p.steps * p.n_users * m_items for p in self.schedule(n_users, m_items, dim))

    def tight_guarantee(self, n_users: int, m_items: int, dim: int) -> ApproxDP:
        """``min(eps, max_t T_t d' eps''_t)`` at ``delta``: parallel composition of the rounds' pure bounds.

        Skipped rounds (0 steps) read no data and contribute nothing.
        """
        pure = max((self.round_optimizer(p).pure_epsilon_bound(dim) for p in self.schedule(n_users, m_items, dim)
                    if p.steps > 0), default=0.0)
        return ApproxDP(min(self.epsilon, pure), self.delta, UserReplace())

    # --- the kernel -----------------------------------------------------------------------------

    def _round_users(self, phase: PhaseRound, xy: tuple[NDArray[np.float64], NDArray[np.float64]]
                     ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Features and labels of the round's users ``[start, stop)`` [LSA+21, Alg 4, line 4]."""
        return xy[0][phase.start:phase.stop], xy[1][phase.start:phase.stop]

    def _round(self, phase: PhaseRound, xy: tuple[NDArray[np.float64], NDArray[np.float64]],
               centre: NDArray[np.float64], rng: np.random.Generator,
               releases: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
        """Round ``phase`` for a batch of trials whose previous outputs are ``centre`` ``(rows, d)``.

        ``releases`` (``(rows, steps, 3 d')``), if given, receives the round's noisy releases.
        """
        if phase.steps == 0:  # a skipped round releases its public centre and reads no data
            return centre.copy()
        opt = self.round_optimizer(phase)
        users = self._round_users(phase, xy)
        if math.isfinite(self.smooth_constant):
            return opt._run(users, centre.shape[0], rng, theta0=centre, centre=centre, releases=releases)[:, -1]
        return self._nonsmooth_round(opt, phase, users, centre, rng, releases)

    def _nonsmooth_round(self, opt: WinsorizedFirstOrder, phase: PhaseRound,
                         users: tuple[NDArray[np.float64], NDArray[np.float64]],
                         centre: NDArray[np.float64], rng: np.random.Generator,
                         releases: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
        """Strongly convex non-smooth round: ``eta_k = 2 / (lambda_t (k + 2))``, weights ``k + 1`` [LSB12]."""
        rows, dim = centre.shape
        estimator = opt.gradient_estimator(users[0].shape[0], users[0].shape[1], dim)
        theta = centre.copy()
        acc = np.zeros_like(theta)
        total = 0.0
        for k in range(phase.steps):
            step_out = None if releases is None else releases[:, k]
            gbar = estimator.release(opt._user_gradients(theta, users), rows, rng=rng, releases=step_out)
            gbar = gbar + phase.lam * (theta - centre)
            theta = projected_step(theta, 2.0 / (phase.lam * (k + 2)), gbar, self.radius)
            acc += (k + 1) * theta
            total += k + 1
        return acc / total

    def _start(self, rows: int, dim: int) -> NDArray[np.float64]:
        th = np.zeros(dim) if self.theta0 is None else _check_point(type(self).__name__, "theta0", self.theta0, dim)
        return np.repeat(th[None, :], rows, axis=0)

    def sample_rounds(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """Every round's output ``theta_hat_1 .. theta_hat_T``, shape ``(size, T, d)``; the claim covers them."""
        rounds, _ = self._sample(data, size, rng, with_releases=False)
        return rounds

    def transcript_width(self, n_users: int, m_items: int, dim: int) -> int:
        """Numbers per run under ``observe="transcript"``: ``sum_t (steps_t 3 d' + d)``."""
        return sum(p.steps * 3 * next_power_of_two(dim) + dim for p in self.schedule(n_users, m_items, dim))

    def _sample(self, data: Any, size: int, rng: np.random.Generator,
                with_releases: bool) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
        """Round outputs ``(size, T, d)`` and, if asked, the transcript rows ``(size, transcript_width)``."""
        owner = f"{type(self).__name__}.sample"
        size = check_size(owner, size)
        items = _check_items(owner, data)
        n_users, m_items, dim = items.shape[0], items.shape[1], items.shape[2] - 1
        if n_users < 2:
            raise argument_error(owner, "data", "shaped (n_users >= 2, m_items, d + 1) (a round needs a user)", data)
        plan = self.schedule(n_users, m_items, dim)
        xy = _split(items, self)  # every item mapped into the declared domain first
        width = 3 * next_power_of_two(dim)
        per_trial = n_users * (dim + _TEMPS_PER_COORD * next_power_of_two(dim)) + 2 * _MIN_BLOCK_USERS * m_items
        if with_releases:
            per_trial += sum(p.steps for p in plan) * width
        out = np.empty((size, len(plan), dim))
        transcript = np.empty((size, self.transcript_width(n_users, m_items, dim))) if with_releases else None
        for start, stop in trial_chunks(size, per_trial):
            theta = self._start(stop - start, dim)
            pieces = []
            for r, phase in enumerate(plan):  # [LSA+21, Alg 4, line 2]
                releases = np.empty((stop - start, phase.steps, width)) if with_releases else None
                theta = self._round(phase, xy, theta, rng, releases)
                out[start:stop, r] = theta
                if releases is not None:
                    pieces += [releases.reshape(stop - start, -1), theta]
            if transcript is not None:
                transcript[start:stop] = np.hstack(pieces)
        return out, transcript

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` runs on ``data`` ``(n_users, m_items, d + 1)``: ``theta_hat_T``, ``(size, d)``.

        With ``observe="transcript"``, every round's releases and output instead, ``(size,
        transcript_width)`` (the same draws).

        The transcript of round ``t`` is its steps' releases (per step: the signs, the rotated
        coordinates' private ranges and noisy means, ``3 d'`` numbers; see
        :class:`~dpaudit.userlevel.levy2021.first_order.WinsorizedFirstOrder`) followed by
        ``theta_hat_t``; a skipped round contributes only ``theta_hat_t`` (its public centre).
        """
        rounds, transcript = self._sample(data, size, rng, with_releases=self.observe == "transcript")
        return rounds[:, -1] if transcript is None else transcript

    def claimed_guarantee(self) -> ApproxDP:
        """``(eps, delta)``-DP under user replacement [LSA+21, Thm 4]."""
        return ApproxDP(self.epsilon, self.delta, UserReplace())

    # --- components -----------------------------------------------------------------------------

    def round_stage(self, index: int, n_users: int, m_items: int, dim: int, centre: Any) -> PhasedERMRound:
        """Round ``index`` (1-based) from a fixed public ``centre = theta_hat_{t-1}``, claiming ``(eps, delta)``."""
        owner = f"{type(self).__name__}.round_stage"
        plan = self.schedule(n_users, m_items, dim)
        index = check_int(owner, "index", index, minimum=1, maximum=len(plan))
        c = _check_point(owner, "centre", centre, dim)
        return PhasedERMRound(self, plan[index - 1], tuple(c.tolist()))


@dataclass(frozen=True)
class PhasedERMRound(MechanismBase):
    """One round of :class:`PhasedERM` on the full dataset, from a fixed public centre.

    Only the round's users influence the output; the claim is the round's ``(eps, delta)`` (the
    paper's allocation, Algorithm 3 at full budget).
    """

    parent: PhasedERM
    phase: PhaseRound
    centre: tuple[float, ...]

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` outputs of the round from the public centre, shape ``(size, d)``."""
        owner = "PhasedERMRound.sample"
        size = check_size(owner, size)
        items = _check_items(owner, data)
        if items.shape[0] < self.phase.stop:
            raise argument_error(owner, "data", f"with at least {self.phase.stop} users", data)
        c = np.asarray(self.centre, dtype=float)
        if items.shape[2] - 1 != c.shape[0]:
            raise argument_error(owner, "data", f"shaped (n_users, m_items, {c.shape[0] + 1})", data)
        xy = _split(items, self.parent)  # every item mapped into the declared domain first
        out = np.empty((size, c.shape[0]))
        per_trial = items.shape[0] * (c.shape[0] + _TEMPS_PER_COORD * next_power_of_two(c.shape[0]))
        for start, stop in trial_chunks(size, per_trial + 2 * _MIN_BLOCK_USERS * items.shape[1]):
            out[start:stop] = self.parent._round(self.phase, xy, np.repeat(c[None, :], stop - start, axis=0), rng)
        return out

    def claimed_guarantee(self) -> ApproxDP:
        """The run's (epsilon, delta) under user replacement: each round is run at the full budget [LSA+21, Thm 4 proof]."""
        return ApproxDP(self.parent.epsilon, self.parent.delta, UserReplace())  # [LSA+21, Thm 4 proof]
