"""Symbolic verification of the papers' bounds (sympy), with three-valued verdicts."""

from dpaudit.bounds.verdict import CheckResult, Verdict, verdict_from_sympy

__all__ = ["CheckResult", "Verdict", "verdict_from_sympy"]
