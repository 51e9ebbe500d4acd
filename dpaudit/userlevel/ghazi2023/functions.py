"""Functions ``f`` of user-level datasets for the generic Algorithm 1 (DelOutputPert).

Thm 3.3 [GKKMMZ23] holds for *every* deterministic ``f`` and fixed Delta, so an audit may pick the
``f`` that is hardest for the mechanism. Two are provided:

* :class:`UserMean`, the mean of all items (the note's P8 construction);
* :class:`TwoCampScore`, built to realise the proof's distance bound: two neighbours whose chosen
  stable sub-datasets differ by ``2 kappa`` deletions, so the released centres are ``2 kappa Delta``
  apart (the proof allows ``(2 r_1 + 3) Delta <= 8 kappa Delta``). A mechanism whose noise covers
  only ``Delta`` (note P9) is exposed by it.

Each has ``of_counts`` for the type-canonical engine: ``f`` of the dataset holding ``counts[s, t]``
copies of user type ``t``, for every row ``s`` at once.

References
----------
.. [GKKMMZ23] B. Ghazi, P. Kamath, R. Kumar, R. Meka, P. Manurangsi and C. Zhang. On user-level
   private convex optimization. ICML 2023, Thm 3.3.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import check_positive

__all__ = ["TwoCampScore", "UserFunction", "UserMean"]


class UserFunction(abc.ABC):
    """A deterministic ``f`` from user-level datasets ``(n', m, ...)`` to ``R^d``.

    ``symmetric``: ``f`` does not depend on the order of the users (needed by the type-canonical engine).
    """

    symmetric: bool = True

    @abc.abstractmethod
    def __call__(self, users: NDArray[np.float64]) -> NDArray[np.float64]:
        """``f`` of the dataset ``users`` (at least one user), shape ``(d,)``."""

    def of_counts(self, types: NDArray[np.float64], counts: NDArray[np.int64]) -> NDArray[np.float64]:
        """``f`` of the dataset with ``counts[s, t]`` users of type ``types[t]``, for every ``s``: ``(S, d)``."""
        return np.stack([self(np.repeat(types, row, axis=0)) for row in counts])


def _scaled_mean(values: NDArray[np.float64], weights: NDArray[np.float64]) -> NDArray[np.float64]:
    """``sum_t w_t v_t`` with ``w`` normalised first, so values near 1e308 never overflow."""
    return np.einsum("st,t...->s...", weights / weights.sum(axis=1, keepdims=True), values)


@dataclass(frozen=True)
class UserMean(UserFunction):
    """Mean of every item: data ``(n, m)`` (scalar items) or ``(n, m, d)``; output ``(d,)`` (``d = 1`` for scalars)."""

    def __call__(self, users: NDArray[np.float64]) -> NDArray[np.float64]:
        """The mean of every item of ``users`` (``(n, m)`` or ``(n, m, d)``), shape ``(d,)``; divided before summing, so no overflow."""
        u = np.asarray(users, dtype=float)
        flat = u.reshape(u.shape[0] * u.shape[1], -1)
        return (flat / flat.shape[0]).sum(axis=0)  # divide first: no overflow near the float limits

    def of_counts(self, types: NDArray[np.float64], counts: NDArray[np.int64]) -> NDArray[np.float64]:
        """The function on many datasets given as counts of user types.

        Parameters
        ----------
        types : ndarray
            ``(t, m, ...)``: one user of each type.
        counts : ndarray of int
            ``(k, t)``: dataset ``i`` holds ``counts[i, j]`` users of type ``j``.

        Returns
        -------
        ndarray of float
            ``(k, d)``: the mean of every item of each dataset.
        """
        t = np.asarray(types, dtype=float)
        per_type = (t / t.shape[1]).sum(axis=1).reshape(t.shape[0], -1)  # each type's item mean
        return _scaled_mean(per_type, counts.astype(float))


@dataclass(frozen=True)
class TwoCampScore(UserFunction):
    """``f(y) = unit (p - q) + jump * unit * 1[p >= 1 and q >= 1]``.

    ``p`` counts the users with a positive first item ("plus"), ``q`` those with a negative one
    ("minus"); others are neutral.

    Deleting a neutral user changes nothing and deleting a plus or minus user changes ``f`` by
    ``unit``, except that deleting the last member of a camp while the other camp is present drops
    the indicator (a jump of ``(jump + 1) unit``). With ``unit = Delta`` and ``jump > 0``: a dataset
    is unstable exactly when both camps are present (within the horizon ``4 kappa`` whenever
    ``min(p, q) <= 2 kappa``), so ``k(x) = min(p, q)``: delete the smaller camp. With ``p = q = r`` both
    camps qualify and the value tie-break deletes the plus camp (centre ``-r unit``); replacing one
    minus user by a neutral one leaves ``q = r - 1``, so the minus camp goes (centre ``+r unit``):
    centres ``2 r unit`` apart on a replace-one pair.
    """

    unit: float
    jump: float = 100.0

    def __post_init__(self) -> None:
        check_positive("TwoCampScore", "unit", self.unit)
        check_positive("TwoCampScore", "jump", self.jump)

    def _camps(self, first: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        return (first > 0).astype(float), (first < 0).astype(float)

    def __call__(self, users: NDArray[np.float64]) -> NDArray[np.float64]:
        """``f(y)`` on one dataset of users (see the class docstring), shape ``(1,)``."""
        u = np.asarray(users, dtype=float)
        plus, minus = self._camps(u.reshape(u.shape[0], -1)[:, 0])
        return np.array([self._score(plus.sum(), minus.sum())])

    def of_counts(self, types: NDArray[np.float64], counts: NDArray[np.int64]) -> NDArray[np.float64]:
        """``f`` on many datasets given as counts of user types.

        Parameters
        ----------
        types : ndarray
            ``(t, m, ...)``: one user of each type; the sign of its first item picks its camp.
        counts : ndarray of int
            ``(k, t)``: dataset ``i`` holds ``counts[i, j]`` users of type ``j``.

        Returns
        -------
        ndarray of float
            ``(k, 1)``.
        """
        t = np.asarray(types, dtype=float)
        plus, minus = self._camps(t.reshape(t.shape[0], -1)[:, 0])
        c = counts.astype(float)
        return self._score(c @ plus, c @ minus)[:, None]

    def _score(self, p: Any, q: Any) -> Any:
        both = (np.asarray(p) >= 1) & (np.asarray(q) >= 1)
        return self.unit * (np.asarray(p) - np.asarray(q)) + self.jump * self.unit * both
