"""Plain-text tables that fit the terminal: ``dpaudit prove``, ``dpaudit bounds`` and ``dpaudit demo``.

On a terminal a table is fitted to its width (``COLUMNS`` or the terminal's size): the widest
columns wrap onto several lines, and a column that may not wrap (a name in the demo's streamed
rows) is cut with an ellipsis. Written to a file or a pipe, nothing is cut.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from collections.abc import Sequence
from typing import IO

__all__ = ["clip", "render", "terminal_width"]

GAP = "  "
MIN_WIDTH = 8


def terminal_width(stream: IO[str] | None = None) -> int | None:
    """The width to fit, or ``None`` (no limit) when ``stream`` (default stdout) is not a terminal."""
    stream = sys.stdout if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    if not (callable(isatty) and isatty()):
        return None
    return max(40, shutil.get_terminal_size().columns)


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, the last one an ellipsis when anything was cut."""
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def _fit(natural: list[int], width: int | None) -> list[int]:
    """Column widths summing (with the gaps) to at most ``width``: the widest columns give way first."""
    widths = list(natural)
    if width is None:
        return widths
    budget = width - len(GAP) * (len(widths) - 1)
    while sum(widths) > budget:
        widest = max(range(len(widths)), key=lambda i: widths[i])
        if widths[widest] <= MIN_WIDTH:
            break
        others = sorted((w for i, w in enumerate(widths) if i != widest), reverse=True)
        target = max(MIN_WIDTH, others[0] if others else MIN_WIDTH, widths[widest] - (sum(widths) - budget))
        widths[widest] = target if target < widths[widest] else widths[widest] - 1
    return widths


def render(header: Sequence[str], rows: Sequence[Sequence[str]], *, right: Sequence[int] = (),
           width: int | None = None, sized_by: Sequence[Sequence[str]] = ()) -> list[str]:
    """The table as lines: header, a rule, then the rows; cells wider than their column wrap.

    ``sized_by`` are more rows the columns are sized for (tables printed in groups line up).
    """
    cells = [list(header)] + [list(r) for r in rows]
    natural = [max(len(line[i]) for line in [*cells, *sized_by]) for i in range(len(header))]
    widths = _fit(natural, width)

    def lines(values: Sequence[str]) -> list[str]:
        parts = [textwrap.wrap(v, w, break_long_words=True, break_on_hyphens=False) or [""]
                 for v, w in zip(values, widths, strict=True)]
        height = max(len(p) for p in parts)
        out = []
        for k in range(height):
            row = [(p[k] if k < len(p) else "") for p in parts]
            out.append(GAP.join(v.rjust(w) if i in right else v.ljust(w)
                                for i, (v, w) in enumerate(zip(row, widths, strict=True))).rstrip())
        return out

    out = [*lines(header), GAP.join("-" * w for w in widths)]
    for row in cells[1:]:
        out += lines(row)
    return out
