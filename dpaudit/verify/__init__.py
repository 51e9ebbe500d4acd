"""Verification for users: prove or refute your own lemma, projection or sensitivity.

Three one-call checks:

* :func:`lipschitz` (and :func:`nonexpansive`, constant 1): ``||f(x) - f(y)|| <= L ||x - y||``. For a
  sympy map a proof is attempted (a case split over ``Min``/``Max``/``Abs``/``Piecewise``, or a
  Jacobian bound) and a counterexample is searched for and verified exactly; for a Python callable
  only a counterexample search runs (DISPROVED with the pair, or UNDECIDED with the evidence);
* :func:`sensitivity`: neighbours ``D ~ D'`` with ``||q(D) - q(D')|| > bound`` (DISPROVED with the
  pair, or UNDECIDED with the largest distance seen).

The machinery that checks the papers' lemmas (``dpaudit prove``) is public here too:

* :class:`Proof`: records the steps of an argument (sympy and exact proof steps, case analyses
  whose coverage is checked, proofs by other checks' facts, refutations verified exactly, and
  cross-checks that can only refute) and computes an honest :class:`Verdict`;
* :class:`Region`, :func:`coverage`: the case analyses (slack parametrisations, weak orderings);
* :class:`LemmaCheck`, :class:`Fact`: a registered check with its expected verdict (a regression
  snapshot); ``papers=()`` for a user's own;
* :class:`CheckResult`, :class:`Verdict`, :class:`Premise`: verdicts with their evidence and the
  premises taken on trust ("PROVED given [DR14] Thm A.1");
* :mod:`dpaudit.verify.geometry`: ready-made case analyses of the clamp and of the ball projection;
* :mod:`dpaudit.verify.piecewise`: case splits over the orderings that decide an expression's kinks
  (:func:`prove_by_cases`; the kinks in :mod:`~dpaudit.verify.kinks`, the cells and their products in
  :mod:`~dpaudit.verify.cells`);
* :mod:`dpaudit.verify.search` and :mod:`dpaudit.verify.refute`: the counterexample searches behind
  :func:`lipschitz` and the exact re-checks of their pairs;
* :mod:`dpaudit.verify.runner`: ``dpaudit prove`` (built-in checks, ``--path DIR`` for your own).

Template of a check module (what ``dpaudit prove --path DIR`` loads: a module defining ``CHECK``
or ``CHECKS``)::

    import sympy as sp
    from dpaudit.verify import LemmaCheck, Proof, Region, Verdict

    NAME = "mine/abs_triangle"

    def _run():
        proof = Proof(NAME)                       # proof.rng is seeded from NAME
        proof.given("x, y real")                  # hypotheses: part of the statement
        x, y = sp.symbols("x y", real=True)
        proof.cases("|x + y| <= |x| + |y|", sp.Abs(x) + sp.Abs(y) - sp.Abs(x + y),
                    Region.signs(x, y))          # the four sign patterns of x, y are the cases
        return proof.result()

    CHECK = LemmaCheck(name=NAME, source="my notes, eq. (1)", statement="|x + y| <= |x| + |y| for real x, y",
                       expected=Verdict.PROVED, check=_run)

Examples
--------
>>> import sympy as sp
>>> from dpaudit.verify import Proof, Region
>>> x, a, b = sp.symbols("x a b", real=True)
>>> proof = Proof("example/clamp_range")
>>> proof.cases("min(max(x, a), b) >= a when a <= b", sp.Min(sp.Max(x, a), b) - a,
...             Region.orders([x, a, b], domain=[a <= b]), domain=[a <= b])
<Verdict.PROVED: 'proved'>
>>> proof.result().verdict_text()
'PROVED'
"""

from dpaudit.verify._record import Step, rng_for
from dpaudit.verify.crosscheck import NUMERIC_RTOL, Violation, finite_floats, st, vectors
from dpaudit.verify.decide import decide_nonneg, decide_zero, decision, exact_negative, exact_sign
from dpaudit.verify.lemma import ROLES, Fact, FactInstance, LemmaCheck
from dpaudit.verify.lipschitz import DEFAULT_TOLERANCE, lipschitz, nonexpansive
from dpaudit.verify.piecewise import CaseSplitError, prove_by_cases
from dpaudit.verify.proof import Proof
from dpaudit.verify.regions import Region, coverage, eq, le, lt, orderings
from dpaudit.verify.sensitivity import sensitivity
from dpaudit.verify.verdict import (
    CheckResult,
    Premise,
    Verdict,
    certified,
    combine_results,
    combine_verdicts,
    verdict_from_sympy,
)

__all__ = [
    "DEFAULT_TOLERANCE",
    "NUMERIC_RTOL",
    "ROLES",
    "CaseSplitError",
    "CheckResult",
    "Fact",
    "FactInstance",
    "LemmaCheck",
    "Premise",
    "Proof",
    "Region",
    "Step",
    "Verdict",
    "Violation",
    "certified",
    "combine_results",
    "combine_verdicts",
    "coverage",
    "decide_nonneg",
    "decide_zero",
    "decision",
    "eq",
    "exact_negative",
    "exact_sign",
    "finite_floats",
    "le",
    "lipschitz",
    "lt",
    "nonexpansive",
    "orderings",
    "prove_by_cases",
    "rng_for",
    "sensitivity",
    "st",
    "vectors",
    "verdict_from_sympy",
]
