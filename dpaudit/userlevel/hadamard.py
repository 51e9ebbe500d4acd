"""The fast Walsh–Hadamard transform and the randomised rotation of Levy et al. 2021, Algorithm 2.

Algorithm 2 rotates every user vector by ``U = d^{-1/2} H D``, with ``H`` the Sylvester Hadamard
matrix and ``D = Diag(omega)`` a uniformly random sign vector [LSA+21, Alg 2, lines 1-2]. After the
rotation every coordinate of a vector ``v`` is a Rademacher sum with coefficients ``v_i / sqrt(d)``,
so ``||U v||_inf = O(||v||_2 sqrt(log(d n / gamma) / d))`` with high probability [LSA+21, Sec 3,
"random rotation trick"; Hoeffding]. Nothing here touches data-dependent randomness: the signs are
drawn by the caller from its own generator, independently of the data.

``H`` exists (in Sylvester form) only for ``d = 2^k``; :func:`pad_to_power_of_two` zero-pads other
dimensions to ``d' = 2^ceil(log2 d)``, which preserves every l2 norm [``docs/papers/levy2021.md``, ALG-2, PROP].

The transform is computed in ``O(d log d)`` per vector with ``log2 d`` butterfly passes, each one
numpy operation over *all* leading axes at once (trials, users), and never builds the dense matrix.

References
----------
.. [LSA+21] D. Levy, Z. Sun, K. Amin, S. Kale, A. Kulesza, M. Mohri and A. T. Suresh. Learning with
   user-level privacy. NeurIPS 2021, arXiv:2102.11845.
.. [Syl1867] J. J. Sylvester. Thoughts on inverse orthogonal matrices, 1867 (the ``H_{2k} =
   [[H_k, H_k], [H_k, -H_k]]`` construction, the one ``scipy.linalg.hadamard`` uses).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit._validation import argument_error, check_array, check_int

__all__ = [
    "fwht",
    "fwht_coordinate_major",
    "inverse_rotate",
    "next_power_of_two",
    "pad_to_power_of_two",
    "random_signs",
    "rotate",
]


def next_power_of_two(dim: int) -> int:
    """Smallest power of two ``>= dim`` (the padded dimension ``d'`` of Algorithm 2).

    Examples
    --------
    >>> [next_power_of_two(d) for d in (1, 2, 3, 5, 8, 9)]
    [1, 2, 4, 8, 8, 16]
    """
    dim = check_int("next_power_of_two", "dim", dim, minimum=1)
    return 1 << (dim - 1).bit_length()


def pad_to_power_of_two(x: Any) -> NDArray[np.float64]:
    """Zero-pad the last axis of ``x`` to ``next_power_of_two(x.shape[-1])`` (norm preserving)."""
    arr = check_array("pad_to_power_of_two", "x", x, min_ndim=1)
    dim = arr.shape[-1]
    if dim < 1:
        raise argument_error("pad_to_power_of_two", "x", "non-empty along the last axis", x)
    target = next_power_of_two(dim)
    if target == dim:
        return arr
    out = np.zeros((*arr.shape[:-1], target))
    out[..., :dim] = arr
    return out


def fwht(x: Any) -> NDArray[np.float64]:
    """Unnormalised Walsh–Hadamard transform ``H x`` along the last axis (Sylvester order).

    Equals ``x @ scipy.linalg.hadamard(d)`` (``H`` is symmetric) for ``d`` a power of two, in
    ``O(d log d)`` time per vector and vectorised over every leading axis. ``H H = d I``, so
    ``fwht(fwht(x)) = d x``.

    Parameters
    ----------
    x : array_like, shape (..., d)
        ``d`` must be a power of two.

    Returns
    -------
    ndarray, shape (..., d)
        A new array; the input is not modified.

    Raises
    ------
    InvalidArgument
        If the last axis is not a power of two.

    Notes
    -----
    Sylvester's recursion ``H_{2h} = [[H_h, H_h], [H_h, -H_h]]`` [Syl1867] gives one butterfly
    per level: split each block of length ``2h`` into halves ``(a, b)`` and replace it by
    ``(a + b, a - b)``.

    Examples
    --------
    >>> fwht([1.0, 0.0, 0.0, 0.0]).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    arr = check_array("fwht", "x", x, min_ndim=1)
    dim = arr.shape[-1]
    if dim < 1 or dim & (dim - 1):
        raise argument_error("fwht", "x", "an array whose last axis is a power of two (pad with pad_to_power_of_two)",
                             x)
    lead = arr.shape[:-1]
    # coordinate-major layout (d, rows): every butterfly then works on long contiguous blocks
    cm = np.array(arr.reshape(-1, dim).T, dtype=np.float64, order="C", copy=True)
    out = np.ascontiguousarray(fwht_coordinate_major(cm).T)
    return out.reshape(*lead, dim)


def fwht_coordinate_major(cm: NDArray[np.float64]) -> NDArray[np.float64]:
    """Walsh–Hadamard transform along axis 0 of a C-contiguous ``(d, rows)`` array (overwritten).

    The kernel behind :func:`fwht`: with the coordinates on the first axis every butterfly
    ``(a, b) -> (a + b, a - b)`` [Syl1867] runs over long contiguous blocks. ``cm`` is used as
    scratch space; the result is returned (it may be ``cm`` itself or a new array).
    """
    dim = cm.shape[0]
    rows = cm.shape[1]
    src = cm
    dst = np.empty_like(src)
    h = 1
    while h < dim:
        # view as (blocks, 2, h, rows): [:, 0] and [:, 1] are the two halves of every block
        a = src.reshape(dim // (2 * h), 2, h, rows)
        b = dst.reshape(a.shape)
        np.add(a[:, 0], a[:, 1], out=b[:, 0])  # a + b
        np.subtract(a[:, 0], a[:, 1], out=b[:, 1])  # a - b
        src, dst = dst, src
        h *= 2
    return src


def random_signs(shape: tuple[int, ...], *, rng: np.random.Generator) -> NDArray[np.float64]:
    """I.i.d. uniform signs in {-1, +1} (the diagonal ``omega`` of ``D`` in [LSA+21, Alg 2, line 1])."""
    return rng.integers(0, 2, size=shape).astype(np.float64) * 2.0 - 1.0


def _check_signs(owner: str, signs: Any, dim: int) -> NDArray[np.float64]:
    s = check_array(owner, "signs", signs, min_ndim=1)
    if s.shape[-1] != dim or not np.all(np.abs(s) == 1.0):
        raise argument_error(owner, "signs", f"an array of +1/-1 entries with last axis {dim}", signs)
    return s


def rotate(x: Any, signs: Any) -> NDArray[np.float64]:
    """``U x = d'^{-1/2} H D x`` along the last axis, after zero-padding to ``d'`` [LSA+21, Alg 2, line 2].

    Parameters
    ----------
    x : array_like, shape (..., d)
    signs : array_like, shape (..., d')
        The diagonal of ``D``; broadcasts against ``x``'s leading axes (one sign vector per trial).

    Returns
    -------
    ndarray, shape (broadcast(...), d')
    """
    xp = pad_to_power_of_two(x)
    dim = xp.shape[-1]
    s = _check_signs("rotate", signs, dim)
    return fwht(xp * s) / math.sqrt(dim)  # U = d'^{-1/2} H D   [LSA+21, Alg 2, line 2]


def inverse_rotate(y: Any, signs: Any, dim: int | None = None) -> NDArray[np.float64]:
    """``U^{-1} y = U^T y = d'^{-1/2} D H y``, truncated to the first ``dim`` coordinates [LSA+21, Alg 2, line 4].

    ``H`` is symmetric and ``H H = d' I``, so ``U`` is orthogonal and ``U^{-1} = U^T``.
    """
    arr = check_array("inverse_rotate", "y", y, min_ndim=1)
    dprime = arr.shape[-1]
    s = _check_signs("inverse_rotate", signs, dprime)
    out = fwht(arr) * s / math.sqrt(dprime)  # U^{-1} = d'^{-1/2} D H   [LSA+21, Alg 2, line 4]
    if dim is None:
        return out
    dim = check_int("inverse_rotate", "dim", dim, minimum=1, maximum=dprime)
    return out[..., :dim]
