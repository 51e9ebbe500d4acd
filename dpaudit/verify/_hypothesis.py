"""Run hypothesis searches independently of which modules are imported.

hypothesis (6.1xx) mixes into its draws constants it collects from the *local* modules loaded so far
(``hypothesis.internal.conjecture.providers._get_local_constants``), so a seeded search could give a
different answer depending on what else the program imported. :func:`no_local_constants` switches that
collection off for the duration of one search (the searches are seeded on top of it).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

__all__ = ["no_local_constants"]


@contextlib.contextmanager
def no_local_constants() -> Iterator[None]:
    """While active, hypothesis draws no constants collected from local modules (a no-op on versions without them)."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - a hypothesis without the providers module
        yield
        return
    original = getattr(providers, "_get_local_constants", None)
    if original is None:  # pragma: no cover - an older hypothesis: nothing to switch off
        yield
        return
    try:
        from hypothesis.internal.constants_ast import Constants
        from hypothesis.internal.floats import float_to_int
        from sortedcontainers import SortedSet

        empty = Constants(integers=SortedSet(), floats=SortedSet(key=float_to_int), bytes=SortedSet(), strings=SortedSet())
    except (ImportError, TypeError):  # pragma: no cover - another layout: fall back to the global constants only
        empty = providers.GLOBAL_CONSTANTS
    providers._get_local_constants = lambda: empty
    try:
        yield
    finally:
        providers._get_local_constants = original
