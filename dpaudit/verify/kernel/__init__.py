"""The trusted kernel: the only code that says PROVED or DISPROVED in dpaudit (read it in one sitting).

* :mod:`.translate`: sympy formula -> Z3 real arithmetic, exactly (transcendental values only through
  true facts about them), with the conditions under which the formula is defined;
* :mod:`.evaluate`: exact rationals and python-flint arb balls; point evaluation, enclosures on boxes,
  branch and bound;
* :mod:`.core`: :func:`decide` (Z3, then interval arithmetic; every candidate counterexample re-checked
  exactly), :func:`recheck`, :func:`sign` of a closed-form number, :func:`c1_conditions` (the whitelist of C^1
  functions behind every derivative bound).

Everything else in :mod:`dpaudit.verify` and :mod:`dpaudit.bounds` (case splits, Jacobians, geometry, the
paper checks, searches) only builds obligations for it.

Examples
--------
>>> import sympy as sp
>>> from dpaudit.verify.kernel import decide
>>> x = sp.Symbol("x", real=True)
>>> decide(sp.Ge(sp.Min(sp.Max(x, -1), 1), -1, evaluate=False)).verdict
<Verdict.PROVED: 'proved'>
>>> d = decide(sp.Le(x**2, x, evaluate=False))
>>> d.verdict, d.counterexample
(<Verdict.DISPROVED: 'disproved'>, {'x': '2'})
"""

from dpaudit.verify.kernel.core import (
           RLIMIT,
           Decision,
           KernelError,
           NotSmooth,
           c1_conditions,
           decide,
           point_keys,
           recheck,
)
from dpaudit.verify.kernel.evaluate import sign_of, value
from dpaudit.verify.kernel.number import number_sign

__all__ = ["RLIMIT", "Decision", "KernelError", "NotSmooth", "c1_conditions", "decide", "number_sign", "point_keys", "recheck",
           "sign_of", "value"]
