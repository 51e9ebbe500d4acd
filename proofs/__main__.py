"""``python -m dpaudit.proofs [options]``: the same as ``dpaudit prove`` (see :mod:`dpaudit.verify.runner`)."""

import sys

from dpaudit.verify.runner import main

sys.exit(main(sys.argv[1:]))
