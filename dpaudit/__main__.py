"""``python -m dpaudit``: the same command line as the ``dpaudit`` script (:func:`dpaudit.cli.main`)."""

import sys

from dpaudit.cli import main

sys.exit(main())
