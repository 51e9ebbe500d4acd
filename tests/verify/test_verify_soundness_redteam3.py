"""Regression tests for the third red team's findings on the verification kernel (integer division, rounded
domain bounds, unprinted restrictions, edited certificates, name collisions, crashes). Every test here failed on
the code before its fix: the comment above each says how."""

from __future__ import annotations

import sympy as sp
import pytest

from dpaudit.bounds import check_inequality
from dpaudit.verify import Proof, Verdict, decide_nonneg, decide_zero, lipschitz

R = sp.Rational
X = sp.Symbol("x", real=True)
N, M = sp.symbols("n m", integer=True)
K = sp.Symbol("k", integer=True, positive=True)

# -- 1: integer symbols in real arithmetic ---------------------------------------------------------


@pytest.mark.parametrize("expr, where", [
    (R(1, 4) - 1 / M, [M >= 2]),                          # m = 2: -1/4
    (1 / (2 * K) - R(1, 4), []),                          # k = 3: -1/12
    (R(1, 4) - N / M, [M >= 2, N >= 1, N < M]),           # n = 1, m = 2: -1/4
    (R(1, 3) - sp.Abs(1 / N), [sp.Abs(N) >= 2]),          # n = 2: 1/6
    (R(1, 10) - sp.log(2) / K, [K >= 2]),                 # k = 2: log(2)/2 > 1/10
    (R(11, 10) - sp.exp(1 / K), [K >= 2]),                # exp(1/2) > 11/10
    (R(1, 100) - 1 / K**2, [K >= 2]),                     # k = 2: 1/4
    (X / K - X / 2, [X >= 1, K >= 2]),                    # k = 3, x = 1: -1/6
], ids=["1/m", "1/2k", "n/m", "abs", "log", "exp", "1/k^2", "x/k"])
def test_integer_denominators_are_real_division(expr, where):
    # before: integer symbols were Z3 Ints and 1/m was integer division (0 for m >= 2): every one PROVED
    assert decide_nonneg(expr, where) is Verdict.DISPROVED


def test_integer_identity_with_a_wrong_factor_is_refuted():
    rest, a, b = sp.symbols("S_rest a b", real=True)
    n = sp.Symbol("n", integer=True, positive=True)
    wrong = (rest + a) / n - (rest + b) / n - (a - b) / (2 * n)
    # before: PROVED (every term divided by the Int n was integer division)
    assert decide_zero(wrong, [n >= 2]) is Verdict.DISPROVED
    assert decide_zero((rest + a) / n - (rest + b) / n - (a - b) / n, [n >= 2]) is Verdict.PROVED


@pytest.mark.parametrize("expr, where", [
    (R(1, 4) - 1 / M, [M >= 4]),
    (1 / (2 * K), []),
    (R(1, 2) - N / M, [M >= 2, N >= 1, 2 * N <= M]),
    (R(1, 2) - 1 / K**2, [K >= 2]),
    (X / 2 - X / K, [X >= 0, K >= 2]),
], ids=["1/m", "1/2k", "n/m", "1/k^2", "x/k"])
def test_true_statements_with_integer_denominators_stay_proved(expr, where):
    assert decide_nonneg(expr, where) is Verdict.PROVED


def test_integer_division_through_proof_check_inequality_and_lipschitz():
    proof = Proof("redteam3/int_div")
    proof.nonneg("2/k <= 1/10", R(1, 10) - 2 / K, hypotheses=[K >= 3])
    # before: PROVED
    assert proof.result().verdict is not Verdict.PROVED
    # before: both raised KernelError (proved by Z3, then refuted by the exact re-check)
    assert check_inequality(2 / K, R(1, 10), where=[K >= 3]).verdict is Verdict.DISPROVED
    assert lipschitz(X / M, R(1, 4), variables=[X], where=[M >= 2]).verdict is Verdict.DISPROVED
    assert lipschitz(X / M, R(1, 2), variables=[X], where=[M >= 2]).verdict is Verdict.PROVED
    assert check_inequality(2 / K, R(1, 10), where=[K >= 20]).verdict is Verdict.PROVED
