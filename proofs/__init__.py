"""dpaudit's lemma checks: one check per exact lemma of the four papers (see ``README.md``).

``python -m proofs`` (or ``dpaudit prove``) runs them all and prints the table.
"""

from proofs._core import PAPERS, LemmaCheck, Proof

__all__ = ["PAPERS", "LemmaCheck", "Proof"]
