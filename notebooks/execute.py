"""Execute every notebook in this folder in place, so the stored outputs are in order and current.

Run: ``python notebooks/execute.py`` (needs the ``notebooks`` extra).
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbclient
import nbformat


def main() -> int:
    here = Path(__file__).resolve().parent
    for path in sorted(here.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        nbclient.NotebookClient(nb, timeout=1200, kernel_name="python3", resources={"metadata": {"path": str(here)}}).execute()
        nbformat.write(nb, path)
        print(f"executed {path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
