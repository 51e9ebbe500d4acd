"""Without an extra, the adapters say which extra to install (runs whether the extras are there or not)."""

from __future__ import annotations

import sys

import pytest

from dpaudit.adapters import MissingExtraError, adapt
from dpaudit.adapters.diffprivlib import DiffprivlibMechanism
from dpaudit.adapters.opendp import OpenDPMeasurement


@pytest.mark.parametrize(("build", "library", "extra"), [
    (lambda: DiffprivlibMechanism(object()), "diffprivlib", "diffprivlib"),
    (lambda: OpenDPMeasurement(object(), d_in=1.0), "opendp", "opendp"),
])
def test_a_missing_library_names_its_extra(build, library, extra, monkeypatch):
    for name in [m for m in sys.modules if m == library or m.startswith(library + ".")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, library, None)  # as if not installed
    with pytest.raises(MissingExtraError, match=rf"needs the optional '{extra}' extra: pip install 'dpaudit\[{extra}\]'"):
        build()


def test_plain_objects_are_not_adapted():
    assert adapt(3.0) is None and adapt(lambda data, rng, size=None: data) is None
