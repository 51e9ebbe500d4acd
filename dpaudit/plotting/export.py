"""Turning a figure into bytes for self-contained reports."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["figure_png"]


def figure_png(fig: Figure, *, dpi: int = 110) -> bytes:
    """The figure as PNG bytes, drawn through its own canvas (pyplot is never involved)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()
