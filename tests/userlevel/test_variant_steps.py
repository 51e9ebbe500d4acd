"""Every faulty variant of the papers' algorithms hooks in through its correct class's declared steps only.

A variant that replaces an undeclared method or attribute (for example a private helper that the
correct class has since renamed, which would silently make the variant correct) fails here, as does
a declared step that the correct class no longer has (:mod:`dpaudit.userlevel.steps`).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from dataclasses import dataclass

import numpy as np
import pytest

import dpaudit.userlevel
from dpaudit.mechanisms.base import UnsafeMechanism
from dpaudit.userlevel.levy2021.winsorized_1d import WinsorizedMean1D
from dpaudit.userlevel.steps import (
    correct_class,
    declared_steps,
    is_variant_module,
    missing_steps,
    undeclared_replacements,
)

#: classes of the variant modules that are not built from a correct algorithm: the warning mixins
#: and one mechanism built from scratch (Lemma A.6's calibration, a primitive of its own)
STANDALONE = {"_Announce", "_Warns", "LemmaA6OutputPerturbation"}


def _modules() -> list[str]:
    return sorted(info.name for info in pkgutil.walk_packages(dpaudit.userlevel.__path__, "dpaudit.userlevel.")
                  if not info.ispkg)


def _steps_declaring() -> list[type]:
    out = {}
    for name in _modules():
        for value in vars(importlib.import_module(name)).values():
            if inspect.isclass(value) and "STEPS" in vars(value):
                out[f"{value.__module__}.{value.__qualname__}"] = value
    return [out[key] for key in sorted(out)]


def _variants() -> list[type]:
    """The classes of the variant modules: their module attributes, and the classes they build on the fly
    (Algorithm 3's components, kept in ``ALG3_BUGS`` only), found as subclasses of the correct classes."""
    found: dict[str, type] = {}
    for name in filter(is_variant_module, _modules()):
        module = importlib.import_module(name)
        for value in vars(module).values():
            if inspect.isclass(value) and value.__module__ == name:
                found[f"{name}.{value.__qualname__}"] = value
    stack = list(_steps_declaring())
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            if is_variant_module(sub.__module__):
                found.setdefault(f"{sub.__module__}.{sub.__qualname__}", sub)
            stack.append(sub)
    return [found[key] for key in sorted(found)]


VARIANTS = _variants()


def test_the_variants_of_the_three_papers_are_all_found():
    papers = {cls.__module__.split(".")[2] for cls in VARIANTS}
    assert papers == {"levy2021", "ghazi2023", "lowy2024"}  # Ghazi et al. 2025 has presets, no variant classes
    built = [cls for cls in VARIANTS if correct_class(cls) is not None]
    assert {cls.__name__ for cls in VARIANTS if correct_class(cls) is None} == STANDALONE
    assert len(built) >= 50, len(built)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda cls: f"{cls.__module__.split('.')[2]}.{cls.__name__}")
def test_a_variant_replaces_declared_steps_only(variant):
    assert undeclared_replacements(variant) == [], (
        f"{variant.__name__} sets {undeclared_replacements(variant)} of {correct_class(variant)}, which does not "
        "declare them in STEPS: declare the step in the correct class (with what it must do), or build the bug "
        "from a declared step")


@pytest.mark.parametrize("cls", _steps_declaring(), ids=lambda cls: cls.__name__)
def test_each_declared_step_exists(cls):
    assert missing_steps(cls) == [], f"{cls.__name__} declares steps it does not have: {missing_steps(cls)}"


def test_an_undeclared_replacement_is_caught():
    def _validated_radius(self):  # a method WinsorizedMean1D does not declare (nor have)
        return 0.0

    renamed = type("Renamed", (UnsafeMechanism, WinsorizedMean1D), {
        "__module__": "somewhere.faulty", "flaw": "x", "_clip_values": _validated_radius,
        "noise_scale": lambda self, n: 1.0})
    assert correct_class(renamed) is WinsorizedMean1D
    assert undeclared_replacements(renamed) == ["_clip_values"]
    # a helper class between the variant and the correct class is read too
    helper = type("Helper", (WinsorizedMean1D,), {"__module__": "x.faulty_full", "_owner_name": "y"})
    assert undeclared_replacements(type("Leaf", (helper,), {"__module__": "x.faulty", "flaw": "z"})) == ["_owner_name"]
    # outside the variant modules nothing is a variant
    assert not is_variant_module("dpaudit.userlevel.levy2021.winsorized_1d")


def test_a_declared_step_that_is_gone_is_caught():
    @dataclass(frozen=True)
    class Declares(WinsorizedMean1D):
        STEPS = ("_clip_renamed",)

    assert missing_steps(Declares) == ["_clip_renamed"]
    assert "_clip" in declared_steps(Declares)  # the base's steps stay declared


def test_the_lowy_steps_are_what_the_algorithm_calls():
    # the correct steps: the ramp of Alg 1 line 17 and the public 0 of line 22
    from dpaudit.userlevel.lowy2024.outlier_removal import inclusion_probability
    from dpaudit.userlevel.lowy2024.phased_sgd import OutlierRemovalPhasedSGD

    ranks = np.arange(9)
    assert np.array_equal(OutlierRemovalPhasedSGD._inclusion_probabilities(None, ranks, 8),
                          inclusion_probability(ranks, 8))
    assert np.array_equal(OutlierRemovalPhasedSGD._halted_release(None, np.ones((4, 3)), 2), np.zeros((2, 3)))
