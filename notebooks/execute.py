"""Execute the notebooks in this folder in place, in order, and save each one's README thumbnail.

Run: ``python notebooks/execute.py [NAME ...]`` (the ``notebooks`` extra; ``make notebooks`` runs it on
every notebook). Each notebook runs in a fresh kernel with its full parameters, is written back with
its outputs (execution counts 1, 2, 3, ...), and the first PNG output of its cell tagged
``thumbnail`` is saved as ``docs/figures/notebook_NN.png`` (``NN``: the notebook's number prefix), the
image the README shows beside its link. The wall and CPU time of each run are printed.

With ``--small`` (what the test suite does, through :func:`execute`) the kernel gets
``DPAUDIT_NOTEBOOK_SMALL=1``: every notebook's first code cell reads it and shrinks its trial counts
and grids. Nothing is written back in that mode.
"""

from __future__ import annotations

import argparse
import base64
import os
import re
import resource
import sys
import time
from pathlib import Path
from typing import Any

import nbclient
import nbformat

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
FIGURES = ROOT / "docs" / "figures"
SMALL_VARIABLE = "DPAUDIT_NOTEBOOK_SMALL"
THUMBNAIL_TAG = "thumbnail"


def notebooks() -> list[Path]:
    """The notebooks, in order of their number prefix."""
    return sorted(HERE.glob("[0-9][0-9]_*.ipynb"))


def thumbnail_path(notebook: Path) -> Path:
    """``docs/figures/notebook_NN.png`` for ``notebooks/NN_name.ipynb``."""
    return FIGURES / f"notebook_{notebook.name[:2]}.png"


def thumbnail(nb: Any) -> bytes:
    """The first PNG output of the cell tagged ``thumbnail``.

    Raises
    ------
    LookupError
        If no cell carries the tag, or the tagged cell has no PNG output.
    """
    tagged = [c for c in nb.cells if THUMBNAIL_TAG in c.get("metadata", {}).get("tags", [])]
    if not tagged:
        raise LookupError(f"no cell is tagged {THUMBNAIL_TAG!r}")
    for output in tagged[0].get("outputs", []):
        data = output.get("data", {})
        if "image/png" in data:
            return base64.b64decode(data["image/png"])
    raise LookupError(f"the cell tagged {THUMBNAIL_TAG!r} has no PNG output")


def execute(path: Path, *, small: bool = False, timeout: int = 1800) -> Any:
    """Run the notebook at ``path`` top to bottom in a fresh kernel and return it with its outputs.

    ``small`` sets ``DPAUDIT_NOTEBOOK_SMALL=1`` in the kernel's environment. A cell that raises
    stops the run with :class:`nbclient.exceptions.CellExecutionError`.
    """
    nb = nbformat.read(path, as_version=4)
    env = dict(os.environ)
    env.pop(SMALL_VARIABLE, None)
    if small:
        env[SMALL_VARIABLE] = "1"
    client = nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute(env=env)
    return nb


_TIMING_LINE = re.compile(r"^\s*time\s+:")
_SECONDS = re.compile(r"\b\d+(?:\.\d+)?\s?s\b")


def printed_text(nb: Any) -> list[str]:
    """What a notebook's cells print (streams and plain-text results), one entry per output line.

    Timings change from run to run and are masked: a line ``time : ...`` is dropped and every
    ``<number>s`` becomes ``?s``. Figures' reprs (``<Figure size ...>``) and blank lines are dropped (the
    images are compared by eye). Everything else, every number included, is kept as printed.
    """
    lines = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        texts: list[str] = []  # one stream may arrive in several pieces: join consecutive ones
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                if texts and texts[-1].startswith("\0stream"):
                    texts[-1] += output.get("text", "")
                else:
                    texts.append("\0stream" + output.get("text", ""))
            else:
                text = output.get("data", {}).get("text/plain", "")
                if not text.startswith("<Figure size"):
                    texts.append(text)
        for text in texts:
            for line in text.removeprefix("\0stream").splitlines():
                if line.strip() and not _TIMING_LINE.match(line):
                    lines.append(f"[cell {index}] " + _SECONDS.sub("?s", line.rstrip()))
    return lines


def _cpu_seconds() -> float:
    """CPU time of this process and its finished children (the kernels), user + system."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="notebook file names (default: all)")
    parser.add_argument("--small", action="store_true", help="small parameters; time the runs, write nothing")
    args = parser.parse_args(argv)
    paths = notebooks()
    if args.names:
        chosen = [p for p in paths if p.name in args.names or p.stem in args.names]
        missing = sorted(set(args.names) - {p.name for p in chosen} - {p.stem for p in chosen})
        if missing:
            print(f"no notebook called {', '.join(missing)} in {HERE}", file=sys.stderr)
            return 2
        paths = chosen
    total_wall, total_cpu = 0.0, 0.0
    for path in paths:
        wall, cpu = time.perf_counter(), _cpu_seconds()
        nb = execute(path, small=args.small)
        wall, cpu = time.perf_counter() - wall, _cpu_seconds() - cpu
        total_wall, total_cpu = total_wall + wall, total_cpu + cpu
        if not args.small:
            nbformat.write(nb, path)
            FIGURES.mkdir(parents=True, exist_ok=True)
            thumbnail_path(path).write_bytes(thumbnail(nb))
        print(f"executed {path.name}{' (small)' if args.small else ''}: {wall:.1f} s wall, {cpu:.1f} s CPU")
    print(f"total: {total_wall:.1f} s wall, {total_cpu:.1f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
