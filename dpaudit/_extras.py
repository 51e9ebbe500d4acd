"""Importing an optional library, with an error that names the extra that installs it."""

from __future__ import annotations

import importlib
from types import ModuleType

from dpaudit.errors import DPAuditError

__all__ = ["MissingExtraError", "require_extra"]


class MissingExtraError(DPAuditError, ImportError):
    """An optional library is missing (or fails to import); the message names the extra."""


def require_extra(module: str, extra: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingExtraError` naming ``pip install 'dpaudit[extra]'``.

    Any ImportError counts, not only a missing module: diffprivlib 0.6.6, for example, is
    installed but fails to import beside scikit-learn 1.7.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(
            f"this needs the optional {extra!r} extra: pip install 'dpaudit[{extra}]' "
            f"(importing {module} failed: {exc})"
        ) from exc
