"""The kernel's forked route: queries above ``MAX_DEGREE`` run Z3 in a forked, time-limited process.

Its time limit is tested in ``test_verify_vacuity_and_limits.py``; here its answers: an unsat read as PROVED, a sat
model read back as a counterexample that re-checks exactly (written from mutation testing's survivors).
"""

from __future__ import annotations

import sympy as sp
import z3

from dpaudit.verify.kernel import core, decide
from dpaudit.verify.verdict import Verdict

X, Y = sp.Symbol("x", real=True), sp.Symbol("y", real=True)


def _spied(monkeypatch) -> list[int]:
    statuses: list[int] = []
    forked = core._solve_forked

    def spy(*args, **kwargs):
        status, values = forked(*args, **kwargs)
        statuses.append(status)
        return status, values

    monkeypatch.setattr(core, "_solve_forked", spy)
    return statuses


def test_a_high_degree_truth_is_proved_by_the_forked_solver(monkeypatch):
    statuses = _spied(monkeypatch)
    d = decide(sp.Ge((X**2 - 2) ** 34, 0, evaluate=False))
    assert d.verdict is Verdict.PROVED and "unsatisfiable" in d.note
    assert z3.Z3_L_FALSE in statuses  # the negation's unsat came through the fork


def test_a_high_degree_falsehood_gets_the_forked_model_as_an_exact_counterexample(monkeypatch):
    statuses = _spied(monkeypatch)
    d = decide(sp.Ge(X**66 - 2 * X**2 + 1 + Y**2, 0, evaluate=False))
    assert d.verdict is Verdict.DISPROVED and z3.Z3_L_TRUE in statuses
    point = {k: sp.Rational(v) for k, v in d.counterexample.items()}
    value = (X**66 - 2 * X**2 + 1 + Y**2).subs({X: point["x"], Y: point["y"]})
    assert value < 0  # exact rationals: the model read back from the child process is a real counterexample


def test_the_fork_is_used_only_above_the_degree_limit(monkeypatch):
    statuses = _spied(monkeypatch)
    assert decide(sp.Ge(X**4 - 2 * X**2 + 1, 0, evaluate=False)).verdict is Verdict.PROVED
    assert statuses == []
    decide(sp.Ge(X**(core.MAX_DEGREE + 2) + 1, 0, evaluate=False))
    assert statuses
