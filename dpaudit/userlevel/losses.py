"""Convex losses with gradients, vectorised over trials and items.

An *item* is a vector ``z = (x, y)`` of length ``d + 1``: features ``x = z[..., :d]`` and label
``y = z[..., d]``. A user-level dataset of items has shape ``(n_users, m_items, d + 1)``.

Every loss takes parameters ``theta`` of shape ``(..., d)`` (usually ``(trials, d)``) and items
of shape ``(..., k, d + 1)`` that broadcast against ``theta``'s leading axes, and returns values
of shape ``(..., k)`` and gradients of shape ``(..., k, d)``. Non-smooth losses return a fixed
subgradient (the one at 0 is 0).

Each loss also reports its Lipschitz constant over ``||theta||_2 <= radius`` for features with
``||x||_2 <= feature_bound`` and ``|y| <= label_bound``, and its smoothness where it has one.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import special

from dpaudit._validation import argument_error, check_array

__all__ = ["AbsoluteLoss", "HingeLoss", "LogisticLoss", "Loss", "SquaredLoss", "split_items"]


def split_items(items: Any, dim: int | None = None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Split items ``(..., d + 1)`` into features ``(..., d)`` and labels ``(...)``."""
    z = check_array("split_items", "items", items, min_ndim=1)
    if dim is not None and z.shape[-1] != dim + 1:
        raise argument_error("split_items", "items", f"shaped (..., {dim + 1}) for d={dim}", items)
    return z[..., :-1], z[..., -1]


def _margin(theta: NDArray[np.float64], x: NDArray[np.float64]) -> NDArray[np.float64]:
    """<theta, x> for theta (..., d) against x (..., k, d) -> (..., k)."""
    return np.einsum("...kd,...d->...k", x, theta)


class Loss(abc.ABC):
    """A convex loss ``l(theta; z)`` of a linear predictor."""

    name: str = "loss"
    smooth: bool = False

    @abc.abstractmethod
    def _value_from_margin(self, margin: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]: ...

    @abc.abstractmethod
    def _slope(self, margin: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
        """d l / d margin (a subgradient for non-smooth losses)."""

    def value(self, theta: Any, items: Any) -> NDArray[np.float64]:
        """Loss values, shape ``(..., k)``."""
        th = np.asarray(theta, dtype=float)
        x, y = split_items(items, th.shape[-1])
        return self._value_from_margin(_margin(th, x), y)

    def gradient(self, theta: Any, items: Any) -> NDArray[np.float64]:
        """Per-item gradients, shape ``(..., k, d)``."""
        th = np.asarray(theta, dtype=float)
        x, y = split_items(items, th.shape[-1])
        return self._slope(_margin(th, x), y)[..., None] * x

    def margin_slope(self, theta: Any, items: Any) -> NDArray[np.float64]:
        """``d l / d <theta, x>`` per item, shape ``(..., k)`` (a subgradient where non-smooth).

        Every gradient here is ``margin_slope * x``; callers that aggregate gradients can combine
        the slopes with the features themselves instead of forming ``(..., k, d)``.
        """
        th = np.asarray(theta, dtype=float)
        x, y = split_items(items, th.shape[-1])
        return self._slope(_margin(th, x), y)

    def mean_gradient(self, theta: Any, items: Any) -> NDArray[np.float64]:
        """Average gradient over the item axis, shape ``(..., d)``, without the per-item array."""
        th = np.asarray(theta, dtype=float)
        x, y = split_items(items, th.shape[-1])
        slope = self._slope(_margin(th, x), y)
        # (..., 1, k) @ (..., k, d): a batched matmul, several times faster than the einsum
        return (slope[..., None, :] @ x)[..., 0, :] / x.shape[-2]

    @abc.abstractmethod
    def lipschitz(self, radius: float, feature_bound: float, label_bound: float = 1.0) -> float:
        """Lipschitz constant in theta over the ball of ``radius``."""

    def smoothness(self, feature_bound: float) -> float:
        """Smoothness constant (Lipschitz constant of the gradient); inf when non-smooth."""
        return np.inf


@dataclass(frozen=True)
class SquaredLoss(Loss):
    """``l = (<theta, x> - y)^2 / 2``; gradient ``(<theta, x> - y) x``."""

    name = "squared"
    smooth = True

    def _value_from_margin(self, margin: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
        return 0.5 * (margin - y) ** 2

    def _slope(self, margin: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
        return margin - y

    def lipschitz(self, radius: float, feature_bound: float, label_bound: float = 1.0) -> float:
        """``(radius * feature_bound + label_bound) * feature_bound``: the largest ``|<theta, x> - y| ||x||``."""
        return (radius * feature_bound + label_bound) * feature_bound

    def smoothness(self, feature_bound: float) -> float:
        """``feature_bound^2``: the largest eigenvalue of ``x x^T``."""
        return feature_bound**2


@dataclass(frozen=True)
class LogisticLoss(Loss):
    """``l = log(1 + exp(-y <theta, x>))`` for labels ``y`` in {-1, +1}."""

    name = "logistic"
    smooth = True

    def _value_from_margin(self, margin: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.logaddexp(0.0, -y * margin)

    def _slope(self, margin: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
        return -y * special.expit(-y * margin)

    def lipschitz(self, radius: float, feature_bound: float, label_bound: float = 1.0) -> float:
        """``feature_bound * label_bound``: the slope of the logistic loss is at most 1 in the margin."""
        return feature_bound * label_bound

    def smoothness(self, feature_bound: float) -> float:
        """``feature_bound^2 / 4``: the logistic function's derivative is at most 1/4."""
        return feature_bound**2 / 4.0


@dataclass(frozen=True)
class AbsoluteLoss(Loss):
    """``l = |<theta, x> - y|``; subgradient ``sign(<theta, x> - y) x``."""

    name = "absolute"

    def _value_from_margin(self, margin: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.abs(margin - y)

    def _slope(self, margin: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.sign(margin - y)

    def lipschitz(self, radius: float, feature_bound: float, label_bound: float = 1.0) -> float:
        """``feature_bound``: the subgradient is ``sign(.) x``."""
        return feature_bound


@dataclass(frozen=True)
class HingeLoss(Loss):
    """``l = max(0, 1 - y <theta, x>)`` for labels in {-1, +1}; subgradient ``-y x 1[y <theta,x> < 1]``."""

    name = "hinge"

    def _value_from_margin(self, margin: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.maximum(0.0, 1.0 - y * margin)

    def _slope(self, margin: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.where(y * margin < 1.0, -y, 0.0)

    def lipschitz(self, radius: float, feature_bound: float, label_bound: float = 1.0) -> float:
        """``feature_bound * label_bound``: the subgradient is ``-y x`` or 0."""
        return feature_bound * label_bound
