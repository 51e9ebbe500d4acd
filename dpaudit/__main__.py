"""``python -m dpaudit``: the same command line as the ``dpaudit`` script (:func:`dpaudit.cli.main`)."""

import sys

from dpaudit.cli import main

if __name__ == "__main__":  # not on import (pytest's doctest collection imports every module)
    sys.exit(main())
