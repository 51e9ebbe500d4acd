"""Canary users: worst-case user-level pairs for gradient-based algorithms.

The tight audits of DP-SGD [NSTPC21; NHSBT23] plant a *canary* whose gradient points in one fixed
direction while the rest of the data contribute nothing that varies, and observe every update: each
step then releases the same mechanism on the same pair, the steps compose without adaptivity, and
the sum over steps of each release's log-likelihood ratio is the optimal attack. The user-level
algorithms of the four papers are audited the same way, with a user in place of an example:
``d0`` and ``d1`` differ in every item of one user (user-level replacement), and the items lie where
the loss is *linear on the whole domain*, so that every user's gradient is the same at every iterate.

For a loss of a linear predictor ``l(theta; (x, y)) = phi(<theta, x>, y)`` on ``||theta|| <= R``:

* the **absolute loss** ``|<theta, x> - y|`` is linear in ``theta`` when ``|y| > R ||x||``: the margin
  never reaches the label, so ``l = sign(-y)(y - <theta, x>)`` and the gradient is ``-sign(y) x`` for
  every ``theta`` (:func:`beyond_margin_items` puts labels there);
* the **hinge loss** ``max(0, 1 - y <theta, x>)`` is linear (gradient ``-y x``) when ``|y| R ||x|| < 1``.

:func:`linear_on_domain` checks that a dataset lies in that region; :func:`canary_pair` builds the
pair from a base dataset and the canary's two versions.

References
----------
.. [NSTPC21] M. Nasr, S. Song, A. Thakurta, N. Papernot and N. Carlini. Adversary instantiation:
   lower bounds for differentially private machine learning. IEEE S&P 2021.
.. [NHSBT23] M. Nasr, J. Hayes, T. Steinke, B. Balle, F. Tramèr, M. Jagielski, N. Carlini and
   A. Terzis. Tight auditing of differentially private machine learning. USENIX Security 2023.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_finite_array, check_int, check_positive

__all__ = ["beyond_margin_items", "canary_pair", "linear_on_domain"]


def beyond_margin_items(features: Any, m_items: int, label: float) -> NDArray[np.float64]:
    """Users whose ``m_items`` items are ``(x_u, label)``: one feature vector per user, all items equal.

    Parameters
    ----------
    features : array_like, shape (n_users, d)
        Each user's feature vector (the gradient the absolute loss gives it when ``label`` lies
        beyond every margin, up to the sign ``-sign(label)``).
    m_items : int
        Items per user.
    label : float
        The label of every item; with ``|label| > R max ||x_u||`` the absolute loss is linear on
        ``||theta|| <= R`` (see :func:`linear_on_domain`).

    Returns
    -------
    ndarray, shape (n_users, m_items, d + 1)
    """
    x = check_finite_array("beyond_margin_items", "features", features, ndim=2)
    m = check_int("beyond_margin_items", "m_items", m_items, minimum=1)
    out = np.empty((x.shape[0], m, x.shape[1] + 1))
    out[..., :-1] = x[:, None, :]
    out[..., -1] = float(label)
    return out


def canary_pair(base: Any, canary0: Any, canary1: Any, index: int = 0) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(d0, d1)``: ``base`` with user ``index`` replaced by ``canary0`` and by ``canary1`` (every item).

    ``canary0`` and ``canary1`` broadcast against one user's items (shape ``base.shape[1:]``), so a
    single item is repeated ``m`` times. The two datasets differ in that user only: neighbours
    under user-level replacement.
    """
    owner = "canary_pair"
    b = check_finite_array(owner, "base", base, min_ndim=2)
    index = check_int(owner, "index", index, minimum=0, maximum=b.shape[0] - 1)
    d0, d1 = b.copy(), b.copy()
    for name, value, out in (("canary0", canary0, d0), ("canary1", canary1, d1)):
        v = check_finite_array(owner, name, value)
        try:
            out[index] = np.broadcast_to(v, b.shape[1:])
        except ValueError:
            raise argument_error(owner, name, f"broadcastable to one user's items {b.shape[1:]}", value) from None
    return d0, d1


def linear_on_domain(loss: Any, data: Any, radius: float) -> bool:
    """Whether every item's loss is linear in ``theta`` on ``||theta||_2 <= radius`` (see the module docstring).

    True for :class:`~dpaudit.userlevel.losses.AbsoluteLoss` items with ``|y| > radius ||x||`` and
    :class:`~dpaudit.userlevel.losses.HingeLoss` items with ``|y| radius ||x|| < 1``; False otherwise
    (including every other loss, which this check does not decide).
    """
    from dpaudit.userlevel.losses import AbsoluteLoss, HingeLoss

    z = check_finite_array("linear_on_domain", "data", data, min_ndim=2)
    r = check_positive("linear_on_domain", "radius", radius)
    reach = r * np.linalg.norm(z[..., :-1], axis=-1)
    y = np.abs(z[..., -1])
    if isinstance(loss, AbsoluteLoss):
        return bool(np.all(y > reach))
    if isinstance(loss, HingeLoss):
        return bool(np.all(y * reach < 1.0))
    return False
