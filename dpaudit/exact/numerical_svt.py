"""Numerical sparse vector: the ⊤/⊥ pattern of sparse vector, then a fresh Laplace release of each ⊤ query.

NumSVT [WDWKZ19, Fig. 1] (Dwork and Roth's NumericSparse with fresh noise on the released answer,
[DR14, Alg. 3]) compares each query with a noisy threshold as sparse vector does and, on ⊤, releases
``q_i + Lap(b_3)`` drawn afresh; ⊥ releases 0 and queries after the cutoff a constant. Over the
reals a released value is never 0 (nor the constant), so the output is the pattern and the values
at its ⊤ positions, and the values are independent of the pattern given its ⊤ positions. The
density of an output is therefore ``P(pattern) prod_{h in ⊤} f_{b_3}(v_h - q_h)``: the pattern's
law is the sparse-vector law (:func:`dpaudit.exact.threshold.threshold_profile`), each value a
Laplace pair (:func:`dpaudit.exact.cells.laplace_pair_cells`: constant loss outside ``[q_h, q'_h]``,
``band`` cells inside), and the cells of an output are the pattern's atom times the product of its
values' cells. The tails' losses are exact constants, so the largest loss is enclosed as tightly as
the pattern's probabilities.

References
----------
.. [WDWKZ19] Y. Wang, Z. Ding, G. Wang, D. Kifer and D. Zhang. Proving differential privacy with
   shadow execution. PLDI 2019, Fig. 1 (NumSVT).
.. [DR14] C. Dwork and A. Roth. The Algorithmic Foundations of Differential Privacy, 2014, Alg. 3
   (NumericSparse), Thm 3.27.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce

import numpy as np

from dpaudit._validation import (
    argument_error,
    check_exact_float,
    check_exact_floats,
    check_positive,
)
from dpaudit.errors import EnclosureError
from dpaudit.exact.cells import CellProfile, Cells, laplace_pair_cells
from dpaudit.exact.threshold import ThresholdSpec, threshold_profile

__all__ = ["numerical_svt_profile"]

#: Cells inside each released value's band, at most; halved until the whole profile has at most MAX_CELLS.
BAND_CELLS = 32
MAX_CELLS = 400_000


def numerical_svt_profile(spec: ThresholdSpec, release_scale: float, q0: Sequence[float], q1: Sequence[float], *,
                          description: str) -> CellProfile:
    """The profile of numerical sparse vector: ``spec``'s ⊤/⊥ pattern and ``q_h + Lap(release_scale)`` on each ⊤."""
    if spec.halt_on != "above" or spec.resample or spec.query_scale is None:
        raise argument_error("numerical_svt_profile", "spec", "halting on ⊤ with query noise and no resampling", spec)
    q0, q1 = check_exact_floats("numerical_svt_profile", "q0", q0), check_exact_floats("numerical_svt_profile", "q1", q1)
    release_scale = check_positive("numerical_svt_profile", "release_scale",
                                   check_exact_float("numerical_svt_profile", "release_scale", release_scale))
    patterns = threshold_profile(spec, q0, q1, description=description)
    assert patterns.labels is not None
    tops = [tuple(i for i, code in enumerate(label) if code == "⊤") for label in patterns.labels]
    band = BAND_CELLS
    while band > 1 and sum((band + 2) ** len(t) for t in tops) > MAX_CELLS:
        band //= 2
    singles: dict[tuple[float, float], Cells] = {}
    parts = []
    atoms = Cells.atoms_from_bounds(patterns.p_lo, patterns.p_hi, patterns.q_lo, patterns.q_hi)
    for j, positions in enumerate(tops):
        atom = atoms.take(j)
        factors = []
        for h in positions:
            key = (q0[h], q1[h])
            if key not in singles:
                singles[key] = laplace_pair_cells(q0[h], q1[h], release_scale, band)
            factors.append(singles[key])
        parts.append(reduce(Cells.times, factors, atom))
    cells = Cells.concat(parts)
    if not np.all(np.isfinite(cells.l_hi)):
        raise EnclosureError("numerical sparse vector: a pattern of zero probability on one dataset")
    return cells.profile(description=f"{description} (pattern, then Laplace releases of scale {release_scale:g}; "
                                     f"{band} cells inside each value's band, {cells.size} cells)")
