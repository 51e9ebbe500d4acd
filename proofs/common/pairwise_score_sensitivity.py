"""Replacing one point changes a pairwise concentration score by at most 2(k-1)/k (tight)."""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import (
    NUMERIC_RTOL,
    CheckResult,
    LemmaCheck,
    Proof,
    Verdict,
    Violation,
    finite_floats,
    st,
    vectors,
)

NAME = "common/pairwise_score_sensitivity"


def score(points: np.ndarray, kernel: str, radius: float) -> float:
    """s = (1/k) sum_{j, j'} K(y_j, y_j'), ordered pairs incl. the diagonal.

    ``"indicator"``: K = 1(||y - y'||_2 <= radius) (Lowy et al. 2024, Alg 1 line 12 / Alg 2 line 6);
    ``"exp"``: K = exp(-||y - y'||_inf / radius) (Ghazi et al. 2025, eq. (3) with tau = 1/radius).
    """
    diff = points[:, None, :] - points[None, :, :]
    if kernel == "indicator":
        kmat = (np.linalg.norm(diff, axis=-1) <= radius).astype(float)
    else:
        kmat = np.exp(-np.max(np.abs(diff), axis=-1) / radius)
    return float(kmat.sum() / points.shape[0])


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("kernel K(y, y') in [0, 1], symmetric, K(y, y) = 1",
                "replace-one: Y and Y' differ only in the point j0, so entries (j, j') with j, j' != j0 coincide")
    proof.assume("triangle inequality over entries", "|s - s'| <= (1/k) sum over the entries that can change of "
                 "|K - K'|, and |K - K'| <= 1 for K, K' in [0, 1]")
    k = sp.Symbol("k", integer=True, positive=True)
    # entries of the k x k kernel matrix that involve j0, minus the diagonal entry (j0, j0) = 1 on both sides
    proof.zero("entries that can change: k^2 - (k - 1)^2 - 1 = 2(k - 1)", (k**2 - (k - 1) ** 2 - 1) - 2 * (k - 1))
    proof.nonneg("each changes by <= 1, so |s - s'| <= 2(k - 1)/k <= 2 (Ghazi et al. 2025 eq. (4))", 2 - 2 * (k - 1) / k)
    # tightness (indicator kernel): k identical points vs k-1 identical + 1 far point
    s_all = k**2 / k
    s_far = ((k - 1) ** 2 + 1) / k
    proof.zero("attained: s(all equal) - s(one far) = 2(k - 1)/k", (s_all - s_far) - 2 * (k - 1) / k)

    def prop(kpts: int, dim: int, data: list[float], replacement: list[float], j0: int, radius: float, kernel: str) -> None:
        pts = np.array(data[:kpts * dim]).reshape(kpts, dim)
        other = pts.copy()
        other[j0 % kpts] = replacement[:dim]
        delta = abs(score(pts, kernel, radius) - score(other, kernel, radius))
        bound = 2 * (kpts - 1) / kpts
        if delta > bound * (1 + NUMERIC_RTOL):
            raise Violation("score changed by more than 2(k-1)/k", k=kpts, delta=delta, kernel=kernel)

    proof.hypothesis("indicator and exp kernels, k = 1..10, d = 1..2", prop, st.integers(1, 10), st.integers(1, 2),
                     vectors(20, -5.0, 5.0), vectors(2, -50.0, 50.0), st.integers(0, 9), finite_floats(0.05, 5.0),
                     st.sampled_from(["indicator", "exp"]), max_examples=150)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Lowy et al. 2024, Alg 1 line 12 and Alg 2 line 6 (sensitivity of s_i); Ghazi et al. 2025, eq. (4)",
    statement=("For k points and a kernel K in [0, 1] with K(y, y) = 1, the score s(Y) = (1/k) sum_{j,j'} K(y_j, y_j') "
               "changes by at most 2(k - 1)/k <= 2 when one point is replaced, and 2(k - 1)/k is attained."),
    expected=Verdict.PROVED,
    papers=("lowy2024", "ghazi2025"),
    check=_run,
)
