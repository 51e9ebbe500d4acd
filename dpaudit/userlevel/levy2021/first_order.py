"""Winsorized first-order optimisation of Levy et al. 2021 (Algorithm 3).

:class:`WinsorizedFirstOrder` is projected (S)GD on ``Theta = B_2(0, radius)`` in which every
gradient is the *private* Winsorized mean (Algorithm 2) of the users' average gradients
``g_t^(u) = (1/m) sum_j grad l(theta_t; z_j^(u))``, at ``eps' = eps / (2 sqrt(2 T log(2/delta)))``,
``delta' = delta / (2T)``; it is ``(eps, delta)``-DP for the whole transcript [LSA+21, Alg 3, Thm 3].
:class:`GradientQuery` is one step's private gradient at a fixed public point, exposed so that its
stages can be audited against their own budgets.

Data are user-level datasets ``(n_users, m_items, d + 1)`` whose items are ``z = (x, y)`` (see
:mod:`dpaudit.userlevel.losses`); ``size`` independent trials run with the trial batch as the leading
axis of every array through the whole gradient loop (iterates ``(size, d)``, per-user gradients
``(size, n, d)``), in sub-batches when the per-trial state is large (drawing from the one generator in
a fixed order).

Gradient counts. One *gradient* is one per-item ``grad l(theta; z)``; a step computes ``n m`` of them.
:meth:`WinsorizedFirstOrder.gradient_count` returns the exact per-trial count; the regulariser's
gradient ``lambda (theta - centre)`` is not a loss gradient and is not counted.

Reconstructions and proposals (the seed text has no appendix) [``docs/papers/levy2021.md``]:

* The optimiser instance (Prop 4 / Alg 7, App. E.2): projected gradient steps
  ``theta <- Pi_Theta(theta - eta gbar)``; ``eta = 1/H`` for smooth losses and
  ``eta = R / (G sqrt(T))`` otherwise; ``Aggregate`` = average of the iterates or the last one
  [Bub15, Thm 3.2/6.3; note ALG-6, RECON]. Query/Update/Aggregate touch no data.
* The gradient concentration radius (Prop 1, constant unknown): :func:`gradient_concentration_radius`
  [note ALG-5, PROP], capped at ``G`` (always a valid radius around ``x_0 = 0``).

References
----------
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, arXiv:2102.11845.
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014.
.. [Bub15] S. Bubeck. Convex optimization: algorithms and complexity. Foundations and Trends in
   Machine Learning, 2015, arXiv:1405.4980.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

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
from dpaudit.data import as_user_dataset
from dpaudit.guarantees import ApproxDP, Guarantee
from dpaudit.mechanisms.base import MechanismBase, check_size
from dpaudit.neighbors.relations import UserReplace
from dpaudit.userlevel.domain import (
    check_magnitude,
    check_public_constant,
    clamp_items,
    project_items,
)
from dpaudit.userlevel.hadamard import next_power_of_two
from dpaudit.userlevel.levy2021.parameters import (
    alg2_coordinate_epsilon,
    alg2_epsilon_bound,
    alg3_step_privacy,
    check_alg3_region,
    trial_chunks,
)
from dpaudit.userlevel.levy2021.private_range import RangeMode
from dpaudit.userlevel.levy2021.winsorized_1d import TauRule
from dpaudit.userlevel.levy2021.winsorized_highd import (
    RotatedCoordinate,
    WinsorizedMeanHighD,
    check_signs,
)
from dpaudit.userlevel.losses import Loss
from dpaudit.userlevel.projections import projected_step
from dpaudit.userlevel.transcript import Observe, check_observe

__all__ = ["GradientQuery", "WinsorizedFirstOrder", "gradient_concentration_radius", "user_mean_gradients"]


Aggregate = Literal["average", "last"]


#: float64 temporaries per (trial, user): m for the margins and slopes, ~14 d' for Algorithm 2.
_TEMPS_PER_COORD = 14


def gradient_concentration_radius(sigma: float, dim: int, n_users: int, m_items: int, diameter: float,
                                  smoothness: float, alpha: float) -> float:
    """Uniform concentration radius of the users' average gradients (Prop 1 with constants) [PROP].

    ``tau(alpha) = sigma sqrt(8 (d ln 5 + d ln(3 R H sqrt(m) / (sigma sqrt(d))) + ln(n / alpha)) / m)
    + 2 sigma sqrt(d / m)`` [``docs/papers/levy2021.md``, ALG-5, PROP]: a 1/2-net of directions (5^d points), an
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


def _split(items: NDArray[np.float64], opt: Any) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Features ``(n, m, d)`` and labels ``(n, m)`` of a user-level item array, mapped into the declared domain.

    Every feature vector is projected onto ``B_2(0, opt.feature_bound)`` and every label clamped to
    ``[-opt.label_bound, opt.label_bound]``: the item domain on which ``G = loss.lipschitz(radius,
    feature_bound, label_bound)`` bounds every gradient [LSA+21, Sec 2: ``||grad l(theta; z)||_2 <= G``
    for all ``z``], so no finite item can overflow a margin or a gradient. The map is fixed and acts on
    each item alone (sensitivities are unchanged) and is the identity on data inside the domain.
    """
    x = project_items(np.ascontiguousarray(items[..., :-1]), opt.feature_bound)
    y = clamp_items(np.ascontiguousarray(items[..., -1]), opt.label_bound)
    return x, y


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


def _check_problem(owner: str, opt: Any) -> None:
    """Validate what every optimiser here shares: the loss, the budget and the problem's bounds.

    The bounds are public and at most ``2^960``, and so is ``G`` (:mod:`dpaudit.userlevel.domain`):
    with items in the declared domain every margin is at most ``radius * feature_bound <= max(G,
    radius)`` and every gradient at most ``G``, so nothing downstream can overflow.
    """
    if not isinstance(opt.loss, Loss):
        raise argument_error(owner, "loss", "a dpaudit.userlevel.losses.Loss", opt.loss)
    check_magnitude(owner, "epsilon", opt.epsilon)
    check_probability(owner, "delta", opt.delta, allow_zero=False)
    check_magnitude(owner, "radius", opt.radius)
    check_magnitude(owner, "feature_bound", opt.feature_bound)
    check_magnitude(owner, "label_bound", opt.label_bound)
    check_public_constant(owner, "feature_bound", opt.feature_bound, "the Lipschitz constant G",
                          float(opt.loss.lipschitz(opt.radius, opt.feature_bound, opt.label_bound)))


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
        range ``B`` of Algorithm 2 (line 6). Every item is mapped into them before any arithmetic
        (features projected onto ``B_2(0, feature_bound)``, labels clamped), a fixed per-item map,
        so data outside them stay private and every finite input gives a finite output.
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
        Passed to Algorithm 2 (see :class:`~dpaudit.userlevel.levy2021.winsorized_highd.WinsorizedMeanHighD`).
    regularization : float
        ``lambda >= 0``: minimise ``L(theta; S) + (lambda/2) ||theta - centre||^2`` (objective (7));
        the regulariser's gradient is added after the private mean (post-processing).
    centre, theta0 : tuple of float, optional
        Public centre of the regulariser and data-independent starting point ``o_0``; default 0.
    signs : tuple of float, optional
        Fix Algorithm 2's rotation signs ``omega`` (length ``d'``, entries +-1) in every step, as
        :class:`~dpaudit.userlevel.levy2021.winsorized_highd.WinsorizedMeanHighD` allows for audits:
        its privacy holds conditionally on the signs [LSA+21, Thm 2 proof], so a run with fixed
        signs is covered by the same claim. Default: drawn afresh in every step.
    observe : {"final", "transcript"}
        What :meth:`sample` releases (:mod:`dpaudit.userlevel.transcript`): ``Aggregate`` of the
        iterates, or the transcript: per step ``t`` the signs ``omega_t`` (``d'``), each rotated
        coordinate's private range's lower end (``d'``) and noisy mean ``Ybar_t`` (``d'``), then the
        output (``d``): ``T 3 d' + d`` numbers per run. Every iterate follows from the
        transcript, ``theta_{t+1} = Pi_Theta(theta_t - eta(U_t^{-1} Ybar_t + lambda(theta_t - c)))``.

    Notes
    -----
    Data ``(n_users, m_items, d + 1)``; output ``(size, d)`` (:meth:`sample_transcript` gives all
    iterates). For ``t = 0 .. T-1``:

    .. math:: g_t^{(u)} = \\frac1m \\sum_j \\nabla\\ell(\\theta_t; z_j^{(u)}),\\quad
              \\bar g_t = \\mathrm{WME}_d(\\{g_t^{(u)}\\}_u, \\varepsilon', \\delta', \\tau, G, \\gamma),\\quad
              \\theta_{t+1} = \\Pi_\\Theta(\\theta_t - \\eta(\\bar g_t + \\lambda(\\theta_t - c)))

    Privacy [LSA+21, Thm 3; ``docs/papers/levy2021.md`` P4]: ``T`` adaptive ``(eps', delta')`` queries compose to
    ``(eps/2 + T eps'(e^{eps'} - 1), T delta' + delta/2) <= (eps, delta)``; Query, Update and
    Aggregate only post-process. Gradient count per trial: ``T n m``.

    References
    ----------
    [LSA+21, Alg 3, Thm 3, Prop 1]; [Bub15, Thm 3.2, 6.3]; [DR14, Thm 3.20].
    """

    audit_block_size: ClassVar[int] = 1024  # every trial runs a whole SGD loop
    #: Algorithm 2 as called on line 6 (a hook for the broken variants of :mod:`.faulty_full`).
    _estimator_class: ClassVar[type[WinsorizedMeanHighD]] = WinsorizedMeanHighD

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
    signs: tuple[float, ...] | None = None
    observe: Observe = "final"

    def __post_init__(self) -> None:
        owner = type(self).__name__
        _check_problem(owner, self)
        check_observe(owner, self.observe)
        check_int(owner, "steps", self.steps, minimum=1)
        if self.step_size is not None:
            check_magnitude(owner, "step_size", self.step_size)
        if self.tau is not None:
            check_magnitude(owner, "tau", self.tau)
        if self.sigma is not None:
            check_magnitude(owner, "sigma", self.sigma)
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
        if self.signs is not None:
            object.__setattr__(self, "signs", check_signs(owner, self.signs))

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
        return self._estimator_class(e1, d1, self.concentration_radius(n_users, m_items, dim), self.lipschitz,
                                     self.gamma, self.mode, self.tau_rule, signs=self.signs)

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
             regularization: float | None = None, releases: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
        """Run Algorithm 3 for ``rows`` trials on features/labels ``xy``; returns iterates ``(rows, T+1, d)``.

        ``releases`` (shape ``(rows, T, 3 d')``), if given, receives every step's noisy releases
        (:meth:`WinsorizedMeanHighD.release`); the draws are the same either way.
        """
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
            step_out = None if releases is None else releases[:, t]
            gbar = estimator.release(grads, rows, rng=rng, releases=step_out)  # line 6: private mean at (eps', delta')
            if lam:
                gbar = gbar + lam * (theta - centre)  # gradient of (lambda/2)||theta - c||^2: post-processing
            theta = projected_step(theta, eta, gbar, self.radius)  # line 7: Pi_Theta(theta - eta gbar)
            iterates[:, t + 1] = theta
        return iterates

    def _per_trial_elements(self, n_users: int, m_items: int, dim: int) -> int:
        releases = self.steps * 3 * next_power_of_two(dim) if self.observe == "transcript" else 0
        return (n_users * (dim + _TEMPS_PER_COORD * next_power_of_two(dim)) + 2 * _MIN_BLOCK_USERS * m_items
                + (self.steps + 1) * dim + releases)

    def sample_transcript(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """All iterates ``theta_0 .. theta_T`` of ``size`` runs, shape ``(size, T + 1, d)``; the claim covers them."""
        owner = f"{type(self).__name__}.sample"
        size = check_size(owner, size)
        items = _check_items(owner, data)
        n_users, m_items, dim = items.shape[0], items.shape[1], items.shape[2] - 1
        xy = _split(items, self)
        out = np.empty((size, self.steps + 1, dim))
        for start, stop in trial_chunks(size, self._per_trial_elements(n_users, m_items, dim)):
            out[start:stop] = self._run(xy, stop - start, rng)
        return out

    def transcript_width(self, dim: int) -> int:
        """Numbers per run under ``observe="transcript"``: ``T 3 d' + d`` (see ``observe``)."""
        return self.steps * 3 * next_power_of_two(dim) + dim

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` runs on ``data`` ``(n_users, m_items, d + 1)``: ``Aggregate`` of each, ``(size, d)``.

        With ``observe="transcript"``, every run's transcript instead, ``(size, T 3 d' + d)`` (the
        same draws).
        """
        owner = f"{type(self).__name__}.sample"
        size = check_size(owner, size)
        items = _check_items(owner, data)
        n_users, m_items, dim = items.shape[0], items.shape[1], items.shape[2] - 1
        xy = _split(items, self)
        full = self.observe == "transcript"
        width = 3 * next_power_of_two(dim)
        out = np.empty((size, self.transcript_width(dim) if full else dim))
        for start, stop in trial_chunks(size, self._per_trial_elements(n_users, m_items, dim)):
            releases = np.empty((stop - start, self.steps, width)) if full else None
            final = self._aggregate(self._run(xy, stop - start, rng, releases=releases), xy)
            if releases is None:
                out[start:stop] = final
            else:
                out[start:stop] = np.hstack([releases.reshape(stop - start, -1), final])
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
        grads: NDArray[np.float64] = self.parent._user_gradients(th[None, :], _split(items, self.parent))[0][:, None, :]
        return grads

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` releases of ``inner`` on the users' average gradients at ``theta``."""
        return self.inner.sample(self.user_gradients(data), size, rng=rng)

    def claimed_guarantee(self) -> Guarantee:
        """The claim set from the paper's budget split (``claim``), not from ``inner``."""
        return self.claim

    def tight_guarantee(self) -> ApproxDP:
        """Smaller of basic and advanced composition over the ``d'`` coordinates at ``(eps', delta')``."""
        e1, d1 = alg3_step_privacy(self.parent.epsilon, self.parent.delta, self.parent.steps)
        bound = alg2_epsilon_bound(e1, d1, next_power_of_two(len(self.theta)))
        return ApproxDP(min(bound, e1), d1, UserReplace())

    def coordinate_stage(self, index: int, signs: Any) -> GradientQuery:
        """Coordinate ``index`` (fixed ``signs``) of this query: Algorithm 1 at ``eps''``, pure.

        Its own :meth:`~dpaudit.userlevel.levy2021.winsorized_highd.RotatedCoordinate.range_stage` and
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
