"""[HRS16] non-expansiveness of a gradient step, used in Lemma 2.3.

For convex beta-smooth F and 0 < eta <= 2/beta, ||(x - eta grad F(x)) - (y - eta grad F(y))|| <= ||x
- y|| (PROVED); for eta > 2/beta it fails (control, DISPROVED).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpaudit.verify import CheckResult, LemmaCheck, Proof, Verdict

NAME = "lowy2024/gd_step_nonexpansive"
CONTROL = "lowy2024/gd_step_nonexpansive_large_step"


def _run() -> CheckResult:
    proof = Proof(NAME)
    proof.cite("Baillon-Haddad theorem", "Baillon-Haddad: convex beta-smooth F has <g, v> >= ||g||^2/beta for v = x - y, g = grad F(x) - grad F(y)")
    beta, w = sp.symbols("beta w", positive=True)
    vv, gg, s = sp.symbols("V Q s", nonnegative=True)  # V = ||v||^2, Q = ||g||^2, <g, v> = Q/beta + s
    eta = 2 / (beta * (1 + w))  # every eta in (0, 2/beta]
    inner = gg / beta + s
    new = vv - 2 * eta * inner + eta**2 * gg  # ||v - eta g||^2
    proof.nonneg("||v||^2 - ||v - eta g||^2 = 2 eta <g, v> - eta^2 ||g||^2 >= 0 for eta in (0, 2/beta]", vv - new)
    rng = proof.rng
    ratios, where = [], []
    for _ in range(200):
        d = int(rng.integers(1, 8))
        a = rng.normal(size=(d, d))
        amat = a @ a.T
        beta_ = float(np.linalg.eigvalsh(amat).max())
        eta_ = 2 / beta_ * float(rng.uniform(0.01, 1.0))
        x, y = rng.normal(size=(2, d))
        step = (x - eta_ * amat @ x) - (y - eta_ * amat @ y)
        ratios.append(np.linalg.norm(step) / np.linalg.norm(x - y))
        where.append("quadratic")
    for _ in range(200):  # logistic regression, beta = ||a||^2/4 per sample, averaged
        d = int(rng.integers(1, 6))
        feats = rng.normal(size=(20, d))
        labels = rng.choice([-1.0, 1.0], size=20)
        beta_ = float(np.linalg.eigvalsh(feats.T @ feats / 20).max()) / 4
        eta_ = 2 / beta_ * float(rng.uniform(0.01, 1.0))

        def grad(t: np.ndarray, feats: np.ndarray = feats, labels: np.ndarray = labels) -> np.ndarray:
            marg = labels * (feats @ t)
            return -(feats * (labels / (1 + np.exp(marg)))[:, None]).mean(0)

        x, y = rng.normal(size=(2, d))
        step = (x - eta_ * grad(x)) - (y - eta_ * grad(y))
        ratios.append(np.linalg.norm(step) / np.linalg.norm(x - y))
        where.append("logistic")
    proof.numeric_le("||step(x) - step(y)|| / ||x - y|| <= 1 (200 PSD quadratics, 200 logistic losses)", ratios, 1.0,
                     {"loss": np.array(where)})
    return proof.result()


def _control() -> CheckResult:
    proof = Proof(CONTROL)
    beta, eta = sp.Integer(1), sp.Rational(21, 10)  # F = x^2/2 (beta = 1), eta = 2.1/beta
    x, y = sp.Integer(1), sp.Integer(0)
    step = (x - eta * beta * x) - (y - eta * beta * y)
    proof.refute("F(x) = x^2/2, eta = 2.1: |step(1) - step(0)| vs |1 - 0|", {"F": "x^2/2", "beta": 1, "eta": "21/10"}, sp.Abs(x - y) - sp.Abs(step))
    return proof.result()


CHECKS = (
    LemmaCheck(
        name=NAME,
        source="Lowy et al. 2024, Lemma 2.3 / B.4 proof (non-expansive gradient steps, [HRS16]); note 5.11",
        statement="For convex beta-smooth F and 0 < eta <= 2/beta: ||(x - eta grad F(x)) - (y - eta grad F(y))||_2 <= ||x - y||_2.",
        expected=Verdict.PROVED,
        papers=("lowy2024",),
        check=_run,
    ),
    LemmaCheck(
        name=CONTROL,
        source="Lowy et al. 2024 note 5.11 (power check: the property fails just above eta = 2/beta)",
        statement="(negative control) For convex beta-smooth F and eta = 2.1/beta, the gradient step is non-expansive.",
        expected=Verdict.DISPROVED,
        papers=("lowy2024",),
        check=_control,
        role="control",
    ),
)
