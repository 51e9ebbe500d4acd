"""Any two points kept with positive probability (h > k/2 neighbours within tau_s) are within 2 tau_s of each other."""

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

NAME = "lowy2024/retained_set_diameter"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("h_j = #{j' : ||y_j - y_j'|| <= tau_s} (incl. j itself); p_j > 0 iff h_j > k/2 (Alg 1 lines 15-17: tau_s = 2 tau_i)")
    proof.cite("triangle inequality", "a common neighbour c of a and b gives ||a - b|| <= ||a - c|| + ||c - b|| <= 2 tau_s")
    k = sp.Symbol("k", positive=True)
    al, be = sp.symbols("alpha beta", positive=True)  # h_a = k/2 + alpha, h_b = k/2 + beta
    proof.nonneg("|N(a) and N(b)| >= h_a + h_b - k = alpha + beta > 0: a common neighbour exists", (k / 2 + al) + (k / 2 + be) - k)

    def prop(kpts: int, dim: int, data: list[float], tau: float) -> None:
        pts = np.array(data[: kpts * dim]).reshape(kpts, dim)
        dist = np.linalg.norm(pts[:, None] - pts[None], axis=-1)
        h = (dist <= tau).sum(1)
        kept = np.flatnonzero(h > kpts / 2)
        if kept.size and dist[np.ix_(kept, kept)].max() > 2 * tau * (1 + NUMERIC_RTOL):
            raise Violation("two retained points farther than 2 tau_s", k=kpts, tau=tau)

    proof.hypothesis("random clouds, k = 1..12, d = 1..2", prop, st.integers(1, 12), st.integers(1, 2), vectors(24, -3.0, 3.0),
                     finite_floats(0.05, 3.0), max_examples=150)
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source="Lowy et al. 2024, Alg 1 lines 15-17 / Alg 2 lines 8-11 (outlier removal), used in Lemma B.2 and Lemma C.2",
    statement="If h_a > k/2 and h_b > k/2 (neighbour counts within tau_s among k points), then ||y_a - y_b|| <= 2 tau_s.",
    expected=Verdict.PROVED,
    papers=("lowy2024",),
    check=_run,
)
