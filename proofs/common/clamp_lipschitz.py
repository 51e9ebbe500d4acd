"""The 1-D clamp is monotone, 1-Lipschitz, maps into [a, b] and is idempotent."""

from __future__ import annotations

import numpy as np

from dpaudit.userlevel.projections import clamp
from dpaudit.verify import (
    NUMERIC_RTOL,
    CheckResult,
    LemmaCheck,
    Proof,
    Verdict,
    Violation,
    finite_floats,
)
from dpaudit.verify.geometry import prove_clamp_properties

NAME = "common/clamp_1d_lipschitz"


def _run() -> CheckResult:
    proof = Proof(NAME)
    prove_clamp_properties(proof)

    def prop(x: float, y: float, low: float, width: float) -> None:
        a, b = low, low + width
        cx, cy = float(clamp(x, a, b)), float(clamp(y, a, b))
        if abs(cx - cy) > abs(x - y) * (1 + NUMERIC_RTOL):
            raise Violation("|Pi(x) - Pi(y)| > |x - y|", x=x, y=y, a=a, b=b)
        if not (a <= cx <= b) or abs(cx - cy) > (b - a) * (1 + NUMERIC_RTOL) + 0.0:
            raise Violation("Pi(x) outside [a, b] or gap above the width", x=x, y=y, a=a, b=b)
        if float(clamp(cx, a, b)) != cx:
            raise Violation("Pi(Pi(x)) != Pi(x)", x=x, a=a, b=b)

    proof.hypothesis("dpaudit.userlevel.projections.clamp on floats", prop, finite_floats(), finite_floats(),
                     finite_floats(), finite_floats(0.0, 1e3), max_examples=150)
    # vectorised random points through the real implementation
    rng = proof.rng
    x, y = rng.uniform(-5, 5, size=(2, 2000))
    a = rng.uniform(-3, 1, size=2000)
    b = a + rng.exponential(2.0, size=2000)
    gap = np.abs(clamp(x, a, b) - clamp(y, a, b))
    proof.numeric_le("|Pi(x) - Pi(y)| <= |x - y| (2000 seeded points)", gap, np.abs(x - y), {"x": x, "y": y, "a": a, "b": b})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source=("Levy et al. 2021, Alg 1 line 2 (docs/papers/levy2021.md, check L1); Ghazi et al. 2025, Alg 2 line 4 and Lemma 3.5; Lowy et al. 2024, Alg "
            "1 (projection)"),
    statement=("For real a <= b and Pi(x) = min(max(x, a), b): for all real x, y, |Pi(x) - Pi(y)| <= |x - y|, "
               "|Pi(x) - Pi(y)| <= b - a, Pi(x) in [a, b], Pi(Pi(x)) = Pi(x), and Pi is non-decreasing."),
    expected=Verdict.PROVED,
    papers=("levy2021", "ghazi2025", "lowy2024"),
    check=_run,
)
