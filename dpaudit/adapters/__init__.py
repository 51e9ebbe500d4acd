"""Audit other libraries' mechanisms: diffprivlib and OpenDP, each an optional extra.

* :class:`dpaudit.adapters.diffprivlib.DiffprivlibMechanism` wraps a diffprivlib mechanism object
  (``pip install 'dpaudit[diffprivlib]'``);
* :class:`dpaudit.adapters.opendp.OpenDPMeasurement` wraps an OpenDP measurement, its claim read
  from the measurement's privacy map (``pip install 'dpaudit[opendp]'``).

Both are dpaudit mechanisms (``sample`` and ``claimed_guarantee``), so :func:`dpaudit.audit`,
:func:`dpaudit.testing.assert_private` and ``dpaudit audit`` take them as they are.
:func:`adapt` recognises a foreign object by its type's module, without importing either library.
"""

from __future__ import annotations

from typing import Any

from dpaudit._extras import MissingExtraError, require_extra

__all__ = ["MissingExtraError", "adapt", "require_extra"]


def _library_of(obj: Any) -> str:
    return type(obj).__module__.split(".", 1)[0]


def adapt(obj: Any, d0: Any = None, d1: Any = None, *, delta: float | None = None,
          query_sensitivity: float | None = None) -> Any | None:
    """Wrap a diffprivlib mechanism or an OpenDP measurement; ``None`` for anything else.

    An OpenDP measurement's claim depends on the input distance ``d_in``; here it is the distance
    between ``d0`` and ``d1`` in the measurement's input metric, so the claim read from the privacy
    map is the one for exactly this pair; ``delta`` is needed for measurements whose map is a
    privacy profile (zCDP, smoothed max divergence). ``query_sensitivity`` is the distance the
    query really moves (see each adapter); ``None`` keeps the mechanism's own.
    """
    library = _library_of(obj)
    if library == "diffprivlib":
        from dpaudit.adapters.diffprivlib import DiffprivlibMechanism

        return DiffprivlibMechanism(obj, query_sensitivity=query_sensitivity)
    if library == "opendp" and type(obj).__name__ == "Measurement":
        from dpaudit.adapters.opendp import OpenDPMeasurement, input_distance

        return OpenDPMeasurement(obj, d_in=input_distance(obj, d0, d1), delta=delta, query_sensitivity=query_sensitivity)
    return None
