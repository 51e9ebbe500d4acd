"""The one way a faulty variant hooks into a correct algorithm: by replacing its declared steps.

Each paper's broken variants (``faulty.py``, ``faulty_full.py`` beside each algorithm) are the
correct class with one step replaced. The steps a variant may replace are declared by the correct
class itself, in one tuple::

    @dataclass(frozen=True)
    class WinsorizedMean1D(MechanismBase):
        #: The steps a faulty variant may replace (:mod:`dpaudit.userlevel.steps`).
        STEPS: ClassVar[tuple[str, ...]] = ("noise_scale", "_clip", ...)

A step is a method the algorithm calls (``_clip(values, low, high)``), or a strategy attribute it
reads (a component class such as ``_one_d_class``, a rule such as ``_r1_rule``, a frozen rules
object such as ``_rules``); its docstring or comment in the correct class says what it must do. A
class's steps are those it declares and those its (correct) base classes declare.

A variant may set nothing else of the correct class: renaming a step in the correct class without
declaring the new name, or a variant replacing an undeclared method, is caught by
:func:`undeclared_replacements` (the test ``tests/userlevel/test_variant_steps.py`` runs it over every
variant), instead of silently turning a broken variant into a correct one. Besides steps, a variant
may set its bookkeeping (:data:`BOOKKEEPING`: its ``flaw``, the ``__post_init__`` that warns), add
dataclass fields of its own (new parameters), and name further additions of its own in
``EXTRAS: ClassVar[tuple[str, ...]]`` (helpers for audit cases that the correct class does not have).

Examples
--------
>>> from dpaudit.userlevel.levy2021.faulty import LevyNoClip
>>> correct_class(LevyNoClip).__name__, "_clip" in declared_steps(correct_class(LevyNoClip))
('WinsorizedMean1D', True)
>>> undeclared_replacements(LevyNoClip)
[]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

__all__ = ["BOOKKEEPING", "correct_class", "declared_steps", "is_variant_module", "missing_steps",
           "undeclared_replacements"]

#: What any variant may set besides steps: its flaw, the warning on construction, its own additions
#: (and ``_abc_impl``, which Python's abc module sets on every subclass).
BOOKKEEPING = frozenset({"flaw", "__post_init__", "_announce", "EXTRAS", "_abc_impl"})


def is_variant_module(name: str) -> bool:
    """Whether the module ``name`` holds faulty variants (``...faulty`` or ``...faulty_full``)."""
    return name.rsplit(".", 1)[-1] in ("faulty", "faulty_full")


def declared_steps(cls: type) -> frozenset[str]:
    """The steps ``cls`` and its base classes declare in ``STEPS``."""
    return frozenset(name for klass in cls.__mro__ for name in vars(klass).get("STEPS", ()))


def correct_class(variant: type) -> type | None:
    """The correct algorithm ``variant`` is built from.

    Its first base outside the variant modules that declares steps (``None`` for a faulty mechanism
    built from scratch, not from a correct class).
    """
    from dpaudit.mechanisms.base import UnsafeMechanism

    for klass in variant.__mro__[1:]:
        if is_variant_module(klass.__module__) or klass is UnsafeMechanism:
            continue
        return klass if declared_steps(klass) else None
    return None


def missing_steps(cls: type) -> list[str]:
    """Declared steps that ``cls`` does not have (a step renamed without its declaration)."""
    return sorted(name for name in declared_steps(cls) if not hasattr(cls, name))


def undeclared_replacements(variant: type) -> list[str]:
    """What ``variant`` sets that is not a declared step of its correct class, nor bookkeeping, nor its own.

    Every class between ``variant`` and its correct class (the variant modules' helpers and mixins
    included) is read; an empty list means the variant hooks in through declared steps only.
    """
    from dpaudit.mechanisms.base import UnsafeMechanism

    correct = correct_class(variant)
    if correct is None:
        return []
    allowed = declared_steps(correct) | BOOKKEEPING
    correct_fields = {f.name for f in dataclasses.fields(correct)} if dataclasses.is_dataclass(correct) else set()
    own_fields = {f.name for f in dataclasses.fields(variant)} - correct_fields if dataclasses.is_dataclass(variant) \
        else set()
    extras: set[str] = set()
    found: set[str] = set()
    for klass in variant.__mro__:
        if klass is correct:
            break
        if not (is_variant_module(klass.__module__) or klass is UnsafeMechanism):
            continue
        names: Mapping[str, Any] = vars(klass)
        extras |= set(names.get("EXTRAS", ()))
        found |= {name for name in names if not (name.startswith("__") and name.endswith("__"))
                  or name == "__post_init__"}
    return sorted(found - allowed - own_fields - extras)
