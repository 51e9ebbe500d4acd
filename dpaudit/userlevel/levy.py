"""User-level DP optimisation of Levy et al. 2021: Algorithm 3 (Winsorized first-order) and Algorithm 4 (Phased ERM).

* :class:`WinsorizedFirstOrder` (Algorithm 3): projected (S)GD on ``Theta = B_2(0, radius)`` in
  which every gradient is the *private* Winsorized mean (Algorithm 2) of the users' average
  gradients ``g_t^(u) = (1/m) sum_j grad l(theta_t; z_j^(u))``, at
  ``eps' = eps / (2 sqrt(2 T log(2/delta)))``, ``delta' = delta / (2T)``. ``(eps, delta)``-DP for the
  whole transcript [LSA+21, Alg 3, Thm 3].
* :class:`PhasedERM` (Algorithm 4): ``T`` rounds on disjoint user sets of sizes ``n / 2^t``, round
  ``t`` approximately minimising the regularised objective (7) with ``lambda_t = 4^t lambda``
  around the previous round's output, each round by Algorithm 3 with the full ``(eps, delta)``
  (parallel composition). ``(eps, delta)``-DP [LSA+21, Alg 4, Thm 4].

Both take a user-level dataset of shape ``(n_users, m_items, d + 1)`` whose items are
``z = (x, y)`` (see :mod:`dpaudit.userlevel.losses`), and run ``size`` independent trials with the
trial batch as the leading axis of every array through the whole gradient loop (iterates
``(size, d)``, per-user gradients ``(size, n, d)``). Trials are processed in sub-batches when the
per-trial state is large; the sub-batches draw from the one generator in a fixed order.

Gradient counts. One *gradient* is one per-item ``grad l(theta; z)``; a step of Algorithm 3 computes
``n m`` of them (every user's average gradient). :meth:`WinsorizedFirstOrder.gradient_count` and
:meth:`PhasedERM.gradient_count` return the exact per-trial count; the regulariser's gradient
``lambda (theta - centre)`` is not a loss gradient and is not counted.

Reconstructions and proposals (the seed text has no appendix) [paper_004 note]:

* PrivateRange (App. D.1): :mod:`dpaudit.userlevel.private_range` [RECON].
* The optimiser instance (Prop 4 / Alg 7, App. E.2): projected gradient steps
  ``theta <- Pi_Theta(theta - eta gbar)``; ``eta = 1/H`` for smooth losses and
  ``eta = R / (G sqrt(T))`` otherwise; ``Aggregate`` = average of the iterates or the last one
  [Bub15, Thm 3.2/6.3; note ALG-6, RECON]. Query/Update/Aggregate touch no data.
* The gradient concentration radius (Prop 1, constant unknown): :func:`gradient_concentration_radius`
  [note ALG-5, PROP], capped at ``G`` (always a valid radius around ``x_0 = 0``).
* Phased ERM details: ``n_t = floor(n / 2^t)``, users taken in index order (round 1 gets the first
  ``n_1`` users), ``T_eff = min(T, floor(log2 n))``; the regulariser's gradient is added after the
  private mean (post-processing, ``B = G``); per-round steps from Corollary 2, capped at
  ``max_steps``; ``eta_t = 1 / (H + lambda_t)``; the last iterate is the round's output
  [note ALG-7, PROP].

References
----------
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, arXiv:2102.11845.
.. [Bub15] S. Bubeck. Convex optimization: algorithms and complexity. Foundations and Trends in
   Machine Learning, 2015, arXiv:1405.4980.
.. [LSB12] S. Lacoste-Julien, M. Schmidt and F. Bach. A simpler approach to obtaining an O(1/t)
   convergence rate for the projected stochastic subgradient method, 2012, arXiv:1212.2002.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import (
    argument_error,
    check_finite_array,
    check_int,
    check_nonnegative,
    check_one_of,
    check_positive,
    check_probability,
)
from dpaudit.data import as_user_dataset
from dpaudit.guarantees import ApproxDP, Guarantee
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.neighbors.relations import UserReplace
from dpaudit.userlevel.hadamard import next_power_of_two
from dpaudit.userlevel.levy_common import (
    alg2_coordinate_epsilon,
    alg2_epsilon_bound,
    alg3_step_privacy,
    check_alg3_region,
    trial_chunks,
)
from dpaudit.userlevel.losses import Loss
from dpaudit.userlevel.private_range import RangeMode
from dpaudit.userlevel.projections import project_l2_ball
from dpaudit.userlevel.winsorized import RotatedCoordinate, TauRule, WinsorizedMeanHighD

__all__ = [
    "GradientQuery",
    "PhaseRound",
    "PhasedERM",
    "PhasedERMRound",
    "WinsorizedFirstOrder",
    "gradient_concentration_radius",
    "user_mean_gradients",
]

Aggregate = Literal["average", "last"]

#: float64 temporaries per (trial, user): m for the margins and slopes, ~14 d' for Algorithm 2.
_TEMPS_PER_COORD = 14


def gradient_concentration_radius(sigma: float, dim: int, n_users: int, m_items: int, diameter: float,
                                  smoothness: float, alpha: float) -> float:
    """Uniform concentration radius of the users' average gradients (Prop 1 with constants) [PROP].

    ``tau(alpha) = sigma sqrt(8 (d ln 5 + d ln(3 R H sqrt(m) / (sigma sqrt(d))) + ln(n / alpha)) / m)
    + 2 sigma sqrt(d / m)`` [paper_004 note, ALG-5, PROP]: a 1/2-net of directions (5^d points), an
    ``eta``-net of ``Theta`` with ``eta = sigma sqrt(d/m) / H``, ``(sigma^2/m)``-sub-Gaussian user
    gradients and ``2 H eta`` off the net. It matches Prop 1's
    ``O(sigma sqrt((d log(RHm/(d sigma)) + log(n/alpha)) / m))`` up to constants [LSA+21, Prop 1].
    The log is floored at 0 (a net of one point suffices when ``3 R H sqrt(m) < sigma sqrt(d)``, in
    particular for ``H = 0``, a linear loss).
    """
    scale = 3.0 * diameter * smoothness * math.sqrt(m_items) / (sigma * math.sqrt(dim))
    # H = 0 (a linear loss): the gradient does not depend on theta and no net over Theta is needed
    net = dim * math.log(scale) if scale > 1.0 else 0.0
    inner = dim * math.log(5.0) + net + math.log(n_users / alpha)
    return sigma * math.sqrt(8.0 * inner / m_items) + 2.0 * sigma * math.sqrt(dim / m_items)


#: Elements per block of users in :func:`user_mean_gradients` (keeps its temporaries in cache).
_GRAD_BLOCK = 1 << 17
#: Every block holds at least this many users (the trial sub-batches are sized for it).
_MIN_BLOCK_USERS = 16


def user_mean_gradients(loss: Loss, theta: NDArray[np.float64], x: NDArray[np.float64],
                        y: NDArray[np.float64]) -> NDArray[np.float64]:
    """Every user's average gradient at every trial's iterate, shape ``(S, n, d)`` [LSA+21, Alg 3, line 5].

    .. math:: g^{(u)}(\\theta_s) = \\frac1m \\sum_j \\ell'(\\langle \\theta_s, x_j^{(u)} \\rangle, y_j^{(u)}) \\, x_j^{(u)}

    ``theta`` is ``(S, d)``, ``x`` is ``(n, m, d)`` and ``y`` is ``(n, m)``. Every dpaudit loss is a
    loss of a linear predictor whose derivative in the margin is ``loss._slope`` (abstract in
    :class:`~dpaudit.userlevel.losses.Loss`), so the ``S n m`` per-item gradients are two matrix
    products and one elementwise map. Users are processed in blocks of about ``2^17`` elements (and
    at least 16 users) so that the ``(users, m, S)`` temporaries stay in cache; each block is one
    vectorised operation over all of its users and trials. Equal to ``loss.mean_gradient(theta[:, None], items[None])``.
    """
    n_users, m_items, dim = x.shape
    rows = theta.shape[0]
    out = np.empty((n_users, dim, rows))
    block = max(min(n_users, _MIN_BLOCK_USERS), _GRAD_BLOCK // (m_items * rows))
    theta_t = np.ascontiguousarray(theta.T)
    for a in range(0, n_users, block):
        xb = x[a:a + block]
        margin = np.matmul(xb, theta_t)  # <theta_s, x_j^(u)>, shape (users, m, S)
        slope = loss._slope(margin, y[a:a + block, :, None])  # d l / d margin
        np.matmul(xb.transpose(0, 2, 1), slope, out=out[a:a + block])  # sum_j slope_j x_j, shape (users, d, S)
    out /= m_items
    return out.transpose(2, 0, 1)


def _split(items: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Contiguous features ``(n, m, d)`` and labels ``(n, m)`` of a user-level item array."""
    return np.ascontiguousarray(items[..., :-1]), np.ascontiguousarray(items[..., -1])


def _check_items(owner: str, data: Any) -> NDArray[np.float64]:
    x = as_user_dataset(data, owner, "data", item_ndim=1)
    if x.shape[2] < 2:
        raise argument_error(owner, "data", "shaped (n_users, m_items, d + 1) with d >= 1 (items are (x, y))", data)
    return x


def _check_point(owner: str, name: str, value: Any, dim: int) -> NDArray[np.float64]:
    p = check_finite_array(owner, name, value, ndim=(1, 2))
    if p.shape[-1] != dim:
        raise argument_error(owner, name, f"of length d={dim} (the data's feature dimension)", value)
    return p


# ==============================================================================================
# Algorithm 3
# ==============================================================================================



def _check_problem(owner: str, opt: Any) -> None:
    """Validate what every optimiser here shares: the loss, the budget and the problem's bounds."""
    if not isinstance(opt.loss, Loss):
        raise argument_error(owner, "loss", "a dpaudit.userlevel.losses.Loss", opt.loss)
    check_positive(owner, "epsilon", opt.epsilon)
    check_probability(owner, "delta", opt.delta, allow_zero=False)
    check_positive(owner, "radius", opt.radius)
    check_positive(owner, "feature_bound", opt.feature_bound)
    check_positive(owner, "label_bound", opt.label_bound)

@dataclass(frozen=True)
class WinsorizedFirstOrder(MechanismBase):
    """Winsorized first-order optimisation (Levy et al. 2021, Algorithm 3). ``(eps, delta)``-user-level DP.

    Parameters
    ----------
    loss : Loss
        A convex loss of a linear predictor (:class:`~dpaudit.userlevel.losses.SquaredLoss`,
        ``LogisticLoss``, ``AbsoluteLoss``, ``HingeLoss``).
    epsilon, delta : float
        Privacy parameters; ``delta`` in (0, 1). The paper states the claim for ``eps <= 1``; the
        exact advanced-composition condition is checked at construction instead.
    radius : float
        ``Theta = B_2(0, radius)`` (the paper's diameter is ``R = 2 radius``).
    feature_bound, label_bound : float
        Public data bounds ``||x||_2 <= feature_bound`` and ``|y| <= label_bound``; they give the
        Lipschitz constant ``G = loss.lipschitz(radius, feature_bound, label_bound)``, which is the
        range ``B`` of Algorithm 2 (line 6). Data outside them stay private (clamped and clipped).
    steps : int
        ``T``, the number of private gradient queries.
    step_size : float, optional
        Constant ``eta``. Default ``1/H`` for smooth losses, ``R / (G sqrt(T))`` otherwise.
    tau : float, optional
        Concentration radius of the users' average gradients; default
        ``min(G, gradient_concentration_radius(sigma, d, n, m, R, H, gamma))`` (``G`` for
        non-smooth losses).
    sigma : float, optional
        Sub-Gaussian parameter of the per-item gradients (A4); default ``G`` (Hoeffding's lemma for
        vectors in ``B_2(0, G)``).
    gamma : float
        Concentration failure probability, in (0, 1); enters ``tau`` and ``tau'``.
    aggregate : {"average", "last"}
        Return the average of ``theta_1 .. theta_T`` or ``theta_T``.
    mode, tau_rule :
        Passed to Algorithm 2 (see :class:`~dpaudit.userlevel.winsorized.WinsorizedMeanHighD`).
    regularization : float
        ``lambda >= 0``: minimise ``L(theta; S) + (lambda/2) ||theta - centre||^2`` (objective (7));
        the regulariser's gradient is added after the private mean (post-processing).
    centre, theta0 : tuple of float, optional
        Public centre of the regulariser and data-independent starting point ``o_0``; default 0.

    Notes
    -----
    Data ``(n_users, m_items, d + 1)``; output ``(size, d)`` (:meth:`sample_transcript` gives all
    iterates). For ``t = 0 .. T-1``:

    .. math:: g_t^{(u)} = \\frac1m \\sum_j \\nabla\\ell(\\theta_t; z_j^{(u)}),\\quad
              \\bar g_t = \\mathrm{WME}_d(\\{g_t^{(u)}\\}_u, \\varepsilon', \\delta', \\tau, G, \\gamma),\\quad
              \\theta_{t+1} = \\Pi_\\Theta(\\theta_t - \\eta(\\bar g_t + \\lambda(\\theta_t - c)))

    Privacy [LSA+21, Thm 3; paper_004 note P4]: ``T`` adaptive ``(eps', delta')`` queries compose to
    ``(eps/2 + T eps'(e^{eps'} - 1), T delta' + delta/2) <= (eps, delta)``; Query, Update and
    Aggregate only post-process. Gradient count per trial: ``T n m``.

    References
    ----------
    [LSA+21, Alg 3, Thm 3, Prop 1]; [Bub15, Thm 3.2, 6.3]; [DR14, Thm 3.20].
    """

    loss: Loss
    epsilon: float
    delta: float
    radius: float
    feature_bound: float
    label_bound: float = 1.0
    steps: int = 10
    step_size: float | None = None
    tau: float | None = None
    sigma: float | None = None
    gamma: float = 1e-3
    aggregate: Aggregate = "average"
    mode: RangeMode = "safe"
    tau_rule: TauRule = "paper"
    regularization: float = 0.0
    centre: tuple[float, ...] | None = None
    theta0: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        owner = type(self).__name__
        _check_problem(owner, self)
        check_int(owner, "steps", self.steps, minimum=1)
        if self.step_size is not None:
            check_positive(owner, "step_size", self.step_size)
        if self.tau is not None:
            check_positive(owner, "tau", self.tau)
        if self.sigma is not None:
            check_positive(owner, "sigma", self.sigma)
        check_probability(owner, "gamma", self.gamma, allow_zero=False)
        check_one_of(owner, "aggregate", self.aggregate, ("average", "last"))
        check_one_of(owner, "mode", self.mode, ("safe", "paper"))
        check_one_of(owner, "tau_rule", self.tau_rule, ("paper", "tight"))
        check_nonnegative(owner, "regularization", self.regularization)
        for name in ("centre", "theta0"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, tuple(float(v) for v in check_finite_array(owner, name, value, ndim=1)))
        check_alg3_region(owner, self.epsilon, self.delta, self.steps)

    # --- public constants -----------------------------------------------------------------------

    @property
    def lipschitz(self) -> float:
        """``G = loss.lipschitz(radius, feature_bound, label_bound)``: the range ``B`` of line 6."""
        return float(self.loss.lipschitz(self.radius, self.feature_bound, self.label_bound))

    @property
    def smoothness(self) -> float:
        """``H`` of the loss (``inf`` when non-smooth)."""
        return float(self.loss.smoothness(self.feature_bound))

    def step_privacy(self) -> tuple[float, float]:
        """``(eps', delta')`` of every gradient query [LSA+21, Alg 3, line 2]."""
        return alg3_step_privacy(self.epsilon, self.delta, self.steps)

    def learning_rate(self) -> float:
        """``eta``: given, ``1/H`` (smooth) or ``R / (G sqrt(T))`` with ``R = 2 radius`` [Bub15, Thm 3.2/6.3]."""
        if self.step_size is not None:
            return self.step_size
        if math.isfinite(self.smoothness) and self.smoothness > 0:
            return 1.0 / (self.smoothness + self.regularization)
        return 2.0 * self.radius / (self.lipschitz * math.sqrt(self.steps))

    def concentration_radius(self, n_users: int, m_items: int, dim: int) -> float:
        """``tau`` for the users' average gradients (see the class docstring)."""
        if self.tau is not None:
            return self.tau
        g = self.lipschitz
        if not math.isfinite(self.smoothness):
            return g
        sigma = self.sigma if self.sigma is not None else g
        return min(g, gradient_concentration_radius(sigma, dim, n_users, m_items, 2.0 * self.radius,
                                                    self.smoothness, self.gamma))

    def gradient_estimator(self, n_users: int, m_items: int, dim: int) -> WinsorizedMeanHighD:
        """Algorithm 2 as called on line 6: ``WME({g_t^(u)}, eps', delta', tau, G, gamma)``."""
        e1, d1 = self.step_privacy()
        return WinsorizedMeanHighD(e1, d1, self.concentration_radius(n_users, m_items, dim), self.lipschitz,
                                   self.gamma, self.mode, self.tau_rule)

    def gradient_count(self, n_users: int, m_items: int, dim: int | None = None) -> int:
        """Per-item gradients computed per trial: ``T n m`` (``dim`` is accepted for symmetry)."""
        return self.steps * n_users * m_items

    def pure_epsilon_bound(self, dim: int) -> float:
        """Basic composition of the ``T d'`` runs of Algorithm 1: ``T d' eps''`` (pure) [DR14, Thm 3.16].

        ``eps''`` is Algorithm 2's per-coordinate budget at ``(eps', delta')`` [LSA+21, Alg 2-3].
        """
        e1, d1 = alg3_step_privacy(self.epsilon, self.delta, self.steps)
        dp = next_power_of_two(dim)
        return self.steps * dp * alg2_coordinate_epsilon(e1, d1, dp)

    def tight_guarantee(self, dim: int) -> ApproxDP:
        """The smaller of the paper's ``(eps, delta)`` and the pure bound :meth:`pure_epsilon_bound`."""
        return ApproxDP(min(self.epsilon, self.pure_epsilon_bound(dim)), self.delta, UserReplace())

    # --- the kernel -----------------------------------------------------------------------------

    def _start(self, xy: tuple[NDArray[np.float64], NDArray[np.float64]], rows: int,
               dim: int) -> NDArray[np.float64]:
        """``o_0``: the data-independent starting point, one row per trial."""
        th = np.zeros(dim) if self.theta0 is None else _check_point(type(self).__name__, "theta0", self.theta0, dim)
        return np.repeat(th[None, :], rows, axis=0)

    def _user_gradients(self, theta: NDArray[np.float64],
                        xy: tuple[NDArray[np.float64], NDArray[np.float64]]) -> NDArray[np.float64]:
        """``g_t^(u) = (1/m) sum_j grad l(theta_t; z_j^(u))`` for every trial and user, ``(S, n, d)`` [line 5]."""
        return user_mean_gradients(self.loss, theta, *xy)

    def _aggregate(self, iterates: NDArray[np.float64],
                   xy: tuple[NDArray[np.float64], NDArray[np.float64]]) -> NDArray[np.float64]:
        """``Aggregate(o_0 .. o_T)``: average of ``theta_1 .. theta_T`` or the last iterate [line 9]."""
        return iterates[:, 1:].mean(axis=1) if self.aggregate == "average" else iterates[:, -1]

    def _run(self, xy: tuple[NDArray[np.float64], NDArray[np.float64]], rows: int, rng: np.random.Generator, *,
             theta0: NDArray[np.float64] | None = None, centre: NDArray[np.float64] | None = None,
             regularization: float | None = None) -> NDArray[np.float64]:
        """Run Algorithm 3 for ``rows`` trials on features/labels ``xy``; returns iterates ``(rows, T+1, d)``."""
        n_users, m_items, dim = xy[0].shape
        lam = self.regularization if regularization is None else regularization
        if centre is None:
            centre = np.zeros((1, dim)) if self.centre is None else _check_point(
                type(self).__name__, "centre", self.centre, dim)[None, :]
        theta = self._start(xy, rows, dim) if theta0 is None else np.array(theta0, dtype=np.float64)
        estimator = self.gradient_estimator(n_users, m_items, dim)
        eta = self.learning_rate()
        iterates = np.empty((rows, self.steps + 1, dim))
        iterates[:, 0] = theta
        for t in range(self.steps):  # line 3
            grads = self._user_gradients(theta, xy)  # line 5, shape (rows, n, d)
            gbar = estimator.release(grads, rows, rng=rng)  # line 6: private mean at (eps', delta')
            if lam:
                gbar = gbar + lam * (theta - centre)  # gradient of (lambda/2)||theta - c||^2: post-processing
            theta = project_l2_ball(theta - eta * gbar, self.radius)  # line 7: projected gradient step
            iterates[:, t + 1] = theta
        return iterates

    def _per_trial_elements(self, n_users: int, m_items: int, dim: int) -> int:
        return (n_users * (dim + _TEMPS_PER_COORD * next_power_of_two(dim)) + 2 * _MIN_BLOCK_USERS * m_items
                + (self.steps + 1) * dim)

    def sample_transcript(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """All iterates ``theta_0 .. theta_T`` of ``size`` runs, shape ``(size, T + 1, d)``; the claim covers them."""
        owner = f"{type(self).__name__}.sample"
        size = check_size(owner, size)
        items = _check_items(owner, data)
        n_users, m_items, dim = items.shape[0], items.shape[1], items.shape[2] - 1
        xy = _split(items)
        out = np.empty((size, self.steps + 1, dim))
        for start, stop in trial_chunks(size, self._per_trial_elements(n_users, m_items, dim)):
            out[start:stop] = self._run(xy, stop - start, rng)
        return out

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` runs on ``data`` ``(n_users, m_items, d + 1)``; returns ``Aggregate`` of each, ``(size, d)``."""
        owner = f"{type(self).__name__}.sample"
        size = check_size(owner, size)
        items = _check_items(owner, data)
        n_users, m_items, dim = items.shape[0], items.shape[1], items.shape[2] - 1
        xy = _split(items)
        out = np.empty((size, dim))
        for start, stop in trial_chunks(size, self._per_trial_elements(n_users, m_items, dim)):
            out[start:stop] = self._aggregate(self._run(xy, stop - start, rng), xy)
        return out

    def claimed_guarantee(self) -> ApproxDP:
        """``(eps, delta)``-DP under user replacement, for the whole transcript [LSA+21, Thm 3]."""
        return ApproxDP(self.epsilon, self.delta, UserReplace())

    # --- components -----------------------------------------------------------------------------

    def gradient_query(self, theta: Any, n_users: int, m_items: int) -> GradientQuery:
        """One private gradient query (line 6) at a fixed public ``theta``, claiming ``(eps', delta')``."""
        owner = f"{type(self).__name__}.gradient_query"
        th = check_finite_array(owner, "theta", theta, ndim=1)
        n_users = check_int(owner, "n_users", n_users, minimum=1)
        m_items = check_int(owner, "m_items", m_items, minimum=1)
        e1, d1 = alg3_step_privacy(self.epsilon, self.delta, self.steps)  # [LSA+21, Alg 3, line 2]
        return GradientQuery(self.gradient_estimator(n_users, m_items, th.shape[0]), self, tuple(th.tolist()),
                             n_users, m_items, ApproxDP(e1, d1, UserReplace()))


@dataclass(frozen=True)
class GradientQuery(MechanismBase):
    """A mechanism applied to the users' average gradients at a fixed public ``theta``.

    ``inner`` receives a ``(n_users, 1, d)`` dataset whose user ``u`` holds
    ``g^(u) = (1/m) sum_j grad l(theta; z_j^(u))`` (computed by ``parent``). With ``inner`` the
    Algorithm 2 estimator this is one gradient query of Algorithm 3 (line 6);
    :meth:`coordinate_stage` narrows it to one rotated coordinate (Algorithm 1 at ``eps''``) for
    component audits. ``claim`` is set from the paper's budget split, not from ``inner``.
    """

    inner: MechanismBase
    parent: WinsorizedFirstOrder
    theta: tuple[float, ...]
    n_users: int
    m_items: int
    claim: Guarantee

    def user_gradients(self, data: Any) -> NDArray[np.float64]:
        """``(n_users, 1, d)``: every user's average gradient at ``theta``."""
        items = _check_items("GradientQuery.sample", data)
        th = np.asarray(self.theta, dtype=float)
        if items.shape[2] - 1 != th.shape[0]:
            raise argument_error("GradientQuery.sample", "data", f"shaped (n_users, m_items, {th.shape[0] + 1})", data)
        grads: NDArray[np.float64] = self.parent._user_gradients(th[None, :], _split(items))[0][:, None, :]
        return grads

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        return self.inner.sample(self.user_gradients(data), size, rng=rng)

    def claimed_guarantee(self) -> Guarantee:
        return self.claim

    def tight_guarantee(self) -> ApproxDP:
        """Smaller of basic and advanced composition over the ``d'`` coordinates at ``(eps', delta')``."""
        e1, d1 = alg3_step_privacy(self.parent.epsilon, self.parent.delta, self.parent.steps)
        bound = alg2_epsilon_bound(e1, d1, next_power_of_two(len(self.theta)))
        return ApproxDP(min(bound, e1), d1, UserReplace())

    def coordinate_stage(self, index: int, signs: Any) -> GradientQuery:
        """Coordinate ``index`` (fixed ``signs``) of this query: Algorithm 1 at ``eps''``, pure.

        Its own :meth:`~dpaudit.userlevel.winsorized.RotatedCoordinate.range_stage` and
        ``laplace_stage`` are reached through ``.inner``.
        """
        if not isinstance(self.inner, WinsorizedMeanHighD):
            raise argument_error("GradientQuery.coordinate_stage", "inner", "a WinsorizedMeanHighD", self.inner)
        stage = self.inner.coordinate_stage(self.n_users, len(self.theta), index, signs)
        return GradientQuery(stage, self.parent, self.theta, self.n_users, self.m_items, stage.claimed_guarantee())

    def range_stage(self) -> GradientQuery:
        """PrivateRange of a coordinate stage (see :meth:`coordinate_stage`), claiming ``eps''/2``."""
        if not isinstance(self.inner, RotatedCoordinate):
            raise argument_error("GradientQuery.range_stage", "inner", "a coordinate stage (RotatedCoordinate)",
                                 self.inner)
        stage = self.inner.range_stage()
        return self.narrowed(stage, stage.claimed_guarantee())

    def laplace_stage(self, low: float, high: float) -> GradientQuery:
        """The Laplace stage of a coordinate stage for a fixed ``[low, high]``, claiming ``eps''/2``."""
        if not isinstance(self.inner, RotatedCoordinate):
            raise argument_error("GradientQuery.laplace_stage", "inner", "a coordinate stage (RotatedCoordinate)",
                                 self.inner)
        stage = self.inner.laplace_stage(low, high)
        return self.narrowed(stage, stage.claimed_guarantee())

    def narrowed(self, inner: MechanismBase, claim: Guarantee) -> GradientQuery:
        """The same gradient map feeding another ``inner`` (e.g. a coordinate's Laplace stage)."""
        return GradientQuery(inner, self.parent, self.theta, self.n_users, self.m_items, claim)


# ==============================================================================================
# Algorithm 4
# ==============================================================================================


@dataclass(frozen=True)
class PhaseRound:
    """One round of Phased ERM: public constants only (no data).

    ``users`` is the half-open index range ``[start, stop)`` of the round's users; ``lam`` is
    ``lambda_t = 4^t lambda``; ``steps`` and ``step_size`` configure Algorithm 3; ``tau`` and
    ``gamma`` its concentration radius and failure probability.
    """

    index: int
    start: int
    stop: int
    lam: float
    steps: int
    step_size: float
    tau: float
    gamma: float

    @property
    def n_users(self) -> int:
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
        Gradient steps per round; default Corollary 2's ``((H + lambda_t)/lambda_t) log(...)``,
        capped at ``max_steps`` [PROP].
    max_steps : int
        Cap on the default per-round steps.
    tau, gamma : float, optional
        Concentration radius and failure probability per round; defaults
        ``min(G, gradient_concentration_radius(...))`` and Corollary 2's
        ``gamma = sigma^2 d^2 / (lambda_t^2 n_t^2 m eps^2 R^2)`` (capped at 1/2).
    mode, tau_rule :
        Passed to Algorithm 2.
    theta0 : tuple of float, optional
        Data-independent ``theta_hat_0``; default 0.

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

    References
    ----------
    [LSA+21, Alg 4, Thm 4, Cor 2]; [LSB12] for the non-smooth rounds.

    Examples
    --------
    Fit a user-level private linear regression on ``n = 64`` users with ``m = 8`` items each, in
    ``d = 2`` dimensions, running 100 independent trials at once (the output holds the final
    iterates, one row per trial); ``schedule`` lists the public round constants and
    ``gradient_count`` the per-trial gradient evaluations.

    >>> import numpy as np
    >>> from dpaudit.userlevel.losses import SquaredLoss
    >>> from dpaudit.userlevel.levy import PhasedERM
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
    max_steps: int = 32
    tau: float | None = None
    gamma: float | None = None
    mode: RangeMode = "safe"
    tau_rule: TauRule = "paper"
    theta0: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        owner = type(self).__name__
        _check_problem(owner, self)
        if self.sigma is not None:
            check_positive(owner, "sigma", self.sigma)
        if self.smoothness is not None:
            check_nonnegative(owner, "smoothness", self.smoothness, allow_inf=True)
        if self.rounds is not None:
            check_int(owner, "rounds", self.rounds, minimum=1)
        if self.steps is not None:
            check_int(owner, "steps", self.steps, minimum=1)
        check_int(owner, "max_steps", self.max_steps, minimum=1)
        if self.tau is not None:
            check_positive(owner, "tau", self.tau)
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

        The seed prints ``n sqrt(m eps)``; the intended form is ``n sqrt(m) eps`` [paper_004 note, 0(a)].
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
            if self.steps is not None:
                steps_t = self.steps
            else:  # Cor 2: T = ((H + lambda_t)/lambda_t) log(G lambda_t R n_t^2 m eps^2 / (sigma^2 d^2))  [PROP]
                log_arg = g * lam_t * diameter * n_t**2 * m_items * self.epsilon**2 / (sigma**2 * dim**2)
                steps_t = math.ceil((h + lam_t) / lam_t * max(1.0, math.log(max(log_arg, 1.0))))
                steps_t = min(steps_t, self.max_steps)
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
            out.append(PhaseRound(t, start, stop, lam_t, steps_t, eta_t, tau_t, gamma_t))
        return out

    def round_optimizer(self, phase: PhaseRound) -> WinsorizedFirstOrder:
        """Algorithm 3 as run in round ``phase`` (its private part; the regulariser is post-processing)."""
        return WinsorizedFirstOrder(
            self.loss, self.epsilon, self.delta, self.radius, self.feature_bound, self.label_bound,
            steps=phase.steps, step_size=phase.step_size, tau=phase.tau, sigma=self.sigma, gamma=phase.gamma,
            aggregate="last", mode=self.mode, tau_rule=self.tau_rule,
            regularization=phase.lam,
        )

    def gradient_count(self, n_users: int, m_items: int, dim: int) -> int:
        """Per-item gradients per trial: ``sum_t steps_t n_t m`` (exact)."""
        return sum(p.steps * p.n_users * m_items for p in self.schedule(n_users, m_items, dim))

    def tight_guarantee(self, n_users: int, m_items: int, dim: int) -> ApproxDP:
        """``min(eps, max_t T_t d' eps''_t)`` at ``delta``: parallel composition of the rounds' pure bounds."""
        pure = max(self.round_optimizer(p).pure_epsilon_bound(dim) for p in self.schedule(n_users, m_items, dim))
        return ApproxDP(min(self.epsilon, pure), self.delta, UserReplace())

    # --- the kernel -----------------------------------------------------------------------------

    def _round_users(self, phase: PhaseRound, xy: tuple[NDArray[np.float64], NDArray[np.float64]]
                     ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Features and labels of the round's users ``[start, stop)`` [LSA+21, Alg 4, line 4]."""
        return xy[0][phase.start:phase.stop], xy[1][phase.start:phase.stop]

    def _round(self, phase: PhaseRound, xy: tuple[NDArray[np.float64], NDArray[np.float64]],
               centre: NDArray[np.float64], rng: np.random.Generator) -> NDArray[np.float64]:
        """Round ``phase`` for a batch of trials whose previous outputs are ``centre`` ``(rows, d)``."""
        opt = self.round_optimizer(phase)
        users = self._round_users(phase, xy)
        if math.isfinite(self.smooth_constant):
            return opt._run(users, centre.shape[0], rng, theta0=centre, centre=centre)[:, -1]
        return self._nonsmooth_round(opt, phase, users, centre, rng)

    def _nonsmooth_round(self, opt: WinsorizedFirstOrder, phase: PhaseRound,
                         users: tuple[NDArray[np.float64], NDArray[np.float64]],
                         centre: NDArray[np.float64], rng: np.random.Generator) -> NDArray[np.float64]:
        """Strongly convex non-smooth round: ``eta_k = 2 / (lambda_t (k + 2))``, weights ``k + 1`` [LSB12]."""
        rows, dim = centre.shape
        estimator = opt.gradient_estimator(users[0].shape[0], users[0].shape[1], dim)
        theta = centre.copy()
        acc = np.zeros_like(theta)
        total = 0.0
        for k in range(phase.steps):
            gbar = estimator.release(opt._user_gradients(theta, users), rows, rng=rng)
            gbar = gbar + phase.lam * (theta - centre)
            theta = project_l2_ball(theta - 2.0 / (phase.lam * (k + 2)) * gbar, self.radius)
            acc += (k + 1) * theta
            total += k + 1
        return acc / total

    def _start(self, rows: int, dim: int) -> NDArray[np.float64]:
        th = np.zeros(dim) if self.theta0 is None else _check_point(type(self).__name__, "theta0", self.theta0, dim)
        return np.repeat(th[None, :], rows, axis=0)

    def sample_rounds(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """Every round's output ``theta_hat_1 .. theta_hat_T``, shape ``(size, T, d)``; the claim covers them."""
        owner = f"{type(self).__name__}.sample"
        size = check_size(owner, size)
        items = _check_items(owner, data)
        n_users, m_items, dim = items.shape[0], items.shape[1], items.shape[2] - 1
        if n_users < 2:
            raise argument_error(owner, "data", "shaped (n_users >= 2, m_items, d + 1) (a round needs a user)", data)
        plan = self.schedule(n_users, m_items, dim)
        xy = _split(items)
        per_trial = n_users * (dim + _TEMPS_PER_COORD * next_power_of_two(dim)) + 2 * _MIN_BLOCK_USERS * m_items
        out = np.empty((size, len(plan), dim))
        for start, stop in trial_chunks(size, per_trial):
            theta = self._start(stop - start, dim)
            for r, phase in enumerate(plan):  # [LSA+21, Alg 4, line 2]
                theta = self._round(phase, xy, theta, rng)
                out[start:stop, r] = theta
        return out

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` runs on ``data`` ``(n_users, m_items, d + 1)``; returns ``theta_hat_T``, ``(size, d)``."""
        return self.sample_rounds(data, size, rng=rng)[:, -1]

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
        owner = "PhasedERMRound.sample"
        size = check_size(owner, size)
        items = _check_items(owner, data)
        if items.shape[0] < self.phase.stop:
            raise argument_error(owner, "data", f"with at least {self.phase.stop} users", data)
        c = np.asarray(self.centre, dtype=float)
        if items.shape[2] - 1 != c.shape[0]:
            raise argument_error(owner, "data", f"shaped (n_users, m_items, {c.shape[0] + 1})", data)
        xy = _split(items)
        out = np.empty((size, c.shape[0]))
        per_trial = items.shape[0] * (c.shape[0] + _TEMPS_PER_COORD * next_power_of_two(c.shape[0]))
        for start, stop in trial_chunks(size, per_trial + 2 * _MIN_BLOCK_USERS * items.shape[1]):
            out[start:stop] = self.parent._round(self.phase, xy, np.repeat(c[None, :], stop - start, axis=0), rng)
        return out

    def claimed_guarantee(self) -> ApproxDP:
        return ApproxDP(self.parent.epsilon, self.parent.delta, UserReplace())  # [LSA+21, Thm 4 proof]

