"""One name, one thing: ``dpaudit.userlevel`` binds no name that two paper packages use differently.

Each paper's algorithms live in its own package (``dpaudit.userlevel.levy2021`` ...). The flat
namespace re-exports a paper's public name only when it is unambiguous: a name the papers bind to
different objects (Levy et al.'s and Ghazi et al.'s ``PhasedERM``) is only under the papers'
packages, and no object is re-exported under a name other than its own (no ``Ghazi2023PhasedERM``).
"""

from __future__ import annotations

import importlib
import inspect
import types
from typing import Any

import dpaudit.userlevel as flat

PAPERS = ("levy2021", "lowy2024", "ghazi2023", "ghazi2025")


def _papers_bindings() -> dict[str, dict[str, Any]]:
    """name -> {paper: object} over every paper package's public names."""
    bindings: dict[str, dict[str, Any]] = {}
    for paper in PAPERS:
        package = importlib.import_module(f"dpaudit.userlevel.{paper}")
        for name in package.__all__:
            bindings.setdefault(name, {})[paper] = getattr(package, name)
    return bindings


def _flat_names() -> list[str]:
    """The flat namespace's public bindings (subpackages and submodules left out)."""
    names = set(flat.__all__) | {n for n in vars(flat) if not n.startswith("_")}
    return sorted(n for n in names if not isinstance(getattr(flat, n), types.ModuleType))


def test_no_flat_name_is_bound_to_two_objects_across_the_papers() -> None:
    bindings = _papers_bindings()
    clashes = {}
    for name in _flat_names():
        objects = bindings.get(name, {})
        if len({id(obj) for obj in objects.values()}) > 1:
            clashes[name] = sorted(objects)
    assert not clashes, f"flat names bound to different objects in these papers (keep them under the paper): {clashes}"


def test_a_flat_paper_name_is_the_papers_object() -> None:
    bindings = _papers_bindings()
    differ = [name for name in _flat_names() if name in bindings
              and any(getattr(flat, name) is not obj for obj in bindings[name].values())]
    assert not differ, f"flat names bound to another object than their paper's: {differ}"


def test_no_flat_alias_of_a_paper_object() -> None:
    """A class or function is re-exported under its own name only (an alias hides which paper it is)."""
    aliases = {name: getattr(flat, name).__name__ for name in _flat_names()
               if (inspect.isclass(getattr(flat, name)) or inspect.isfunction(getattr(flat, name)))
               and getattr(flat, name).__name__ != name}
    assert not aliases, f"flat names that alias an object of another name: {aliases}"


def test_the_names_of_two_papers_stay_under_their_packages() -> None:
    from dpaudit.userlevel import ghazi2023, ghazi2025, levy2021, lowy2024

    assert levy2021.PhasedERM is not ghazi2023.PhasedERM
    assert lowy2024.concentration_score is not ghazi2025.concentration_score
    for name in ("PhasedERM", "Ghazi2023PhasedERM", "concentration_score", "levy_audit_cases"):
        assert not hasattr(flat, name), name
    assert flat.levy2021_audit_cases is levy2021.levy2021_audit_cases
