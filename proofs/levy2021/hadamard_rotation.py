"""Sylvester-Hadamard rotation: H H^T = d I, and U = d^{-1/2} H D is orthogonal (preserves the l_2 norm)."""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy.linalg import hadamard

from dpaudit.verify import CheckResult, Fact, LemmaCheck, Proof, Verdict

NAME = "levy2021/hadamard_rotation_orthogonal"
#: ||U x||_2^2 and ||x||_2^2 in the fact "U preserves the l_2 norm"
NORM_UX_SQ, NORM_X_SQ = sp.symbols("norm_Ux_sq norm_x_sq", nonnegative=True)


def _blockmul(x: list[list[sp.Expr]], y: list[list[sp.Expr]]) -> list[list[sp.Expr]]:
    return [[sp.expand(sum((x[i][k] * y[k][j] for k in range(2)), sp.Integer(0))) for j in range(2)] for i in range(2)]


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.given("Sylvester construction H_1 = [1], H_{2d} = [[H_d, H_d], [H_d, -H_d]] (d = 2^k)",
                 "D = diag(omega), omega in {-1, +1}^d drawn independently of the data")
    h, ht, eye = sp.symbols("H H^T I", commutative=False)
    d = sp.Symbol("d", positive=True)
    big = _blockmul([[h, h], [h, -h]], [[ht, ht], [ht, -ht]])  # H_{2d} H_{2d}^T in blocks
    step = [[e.subs(h * ht, d * eye) for e in row] for row in big]
    target = [[2 * d * eye, 0], [0, 2 * d * eye]]
    proof.zeros("induction step: H_d H_d^T = d I implies H_{2d} H_{2d}^T = 2d I (each of the 4 blocks)",
                [step[i][j] - target[i][j] for i in range(2) for j in range(2)])
    signs = (sp.Integer(-1), sp.Integer(1))
    proof.exact("D^2 = I: omega^2 = 1 for both values omega in {-1, +1} (the whole domain)", [sp.Eq(s**2, 1, evaluate=False) for s in signs],
                counterexample=lambda: {"omega": next(s for s in signs if s**2 != 1)}, cases=2)
    proof.assume("H H^T = d I implies H^T H = d I (square H)", "U^T U = D H^T H D / d = D (d I) D / d = I (H^T H = d I for the square H with H H^T = d I)")
    ok = all(np.array_equal(hadamard(2**k) @ hadamard(2**k).T, 2**k * np.eye(2**k, dtype=int)) for k in range(9))
    proof.instance("H H^T = d I in exact integers for d = 1, 2, ..., 256 (scipy.linalg.hadamard)", ok, point={"d": "1..256"}, cases=9)
    rng = proof.rng
    norms_in, norms_out = [], []
    for k in range(1, 9):
        dd = 2**k
        u = hadamard(dd) / np.sqrt(dd) * rng.choice([-1.0, 1.0], size=dd)
        x = rng.normal(size=(50, dd))
        norms_in.append(np.linalg.norm(x, axis=1))
        norms_out.append(np.linalg.norm(x @ u.T, axis=1))
    proof.numeric_eq("||U x||_2 = ||x||_2 for 50 random x per d = 2..256", np.concatenate(norms_out), np.concatenate(norms_in),
                     {"case": np.arange(400)})
    return proof.result()


CHECK = LemmaCheck(
    name=NAME,
    source=("Levy et al. 2021, Alg 2 lines 1-2 (U = d^{-1/2} H D) and Thm 2 variance step; docs/papers/levy2021.md, check L6 (reconstructed: the "
            "rotation preserves l_2)"),
    statement=("For d = 2^k the Sylvester-Hadamard matrix satisfies H H^T = d I, and for every sign vector omega the rotation "
               "U = d^{-1/2} H diag(omega) is orthogonal: ||U x||_2 = ||x||_2 and U^{-1} = U^T."),
    expected=Verdict.PROVED,
    papers=("levy2021",),
    check=_run,
    facts=(Fact("norm", sp.Eq(NORM_UX_SQ, NORM_X_SQ)),),
)
