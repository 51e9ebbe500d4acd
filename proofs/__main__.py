"""``python -m proofs [--only SUBSTR]``: run the lemma checks (see :mod:`proofs.runner`)."""

import sys

from proofs.runner import main

sys.exit(main(sys.argv[1:]))
