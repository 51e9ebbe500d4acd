"""Three-valued verdicts for symbolic checks (convention 11 of ``docs/conventions.md``).

The types live in :mod:`dpaudit.verify.verdict` (one rule for the bounds and the proofs); this
module keeps the names :mod:`dpaudit.bounds` has always exported.
"""

from dpaudit.verify.verdict import (
    CheckResult,
    Premise,
    Verdict,
    combine_verdicts,
    verdict_from_sympy,
)

__all__ = ["CheckResult", "Premise", "Verdict", "combine_verdicts", "verdict_from_sympy"]
