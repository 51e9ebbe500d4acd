"""Every concrete mechanism class dpaudit ships keeps the mechanism contract (:class:`dpaudit.testing.MechanismContract`).

The classes are found by walking dpaudit's packages (:mod:`contract_cases`), so a new class is
checked as soon as it exists, and fails ``test_every_concrete_mechanism_class_has_a_contract_case``
until it declares how to build it. Per class: data outside its declared domain refused up front;
finite outputs on extreme data inside it; identical outputs for the same seed at every batch size;
a well-formed claim not refuted by an audit of its pair (all claim audits together at false-failure
probability 1e-3, Bonferroni); fresh output arrays.
"""

from __future__ import annotations

from contract_cases import BASES, BUILDERS, all_cases, qualified

from dpaudit.testing import MechanismContract

CLASSES, CASES = all_cases()


def test_every_concrete_mechanism_class_has_a_contract_case():
    missing = sorted(set(CLASSES) - set(CASES) - set(BASES))
    assert not missing, (
        f"{len(missing)} mechanism class(es) have no contract case: {missing}. Use one in the catalogue, or declare "
        "how to build it (with a neighbouring pair) in tests/contract/contract_cases.py BUILDERS"
    )


def test_the_declarations_name_real_classes():
    """No stale entry: every declared base and builder names a class found by the walk, and every base
    has a checked subclass standing for it."""
    assert set(BASES) <= set(CLASSES) and set(BUILDERS) <= set(CLASSES)
    for base, stand_in in BASES.items():
        assert stand_in in CASES and issubclass(CLASSES[stand_in], CLASSES[base]), (base, stand_in)


def test_the_walk_finds_the_mechanisms_of_every_paper():
    """A smoke check of the walk itself (a broken walk would check nothing)."""
    found = set(CLASSES)
    for package in ("mechanisms", "userlevel.levy2021", "userlevel.ghazi2023", "userlevel.lowy2024",
                    "userlevel.ghazi2025", "userlevel.baselines", "adapters"):
        assert any(name.startswith(f"dpaudit.{package}.") for name in found), package
    assert len(CASES) >= 90, len(CASES)
    assert qualified(type(CASES["dpaudit.mechanisms.laplace.LaplaceMechanism"].mechanism)) in CLASSES


class TestEveryMechanism(MechanismContract):
    """The contract, once per concrete class (its catalogue case, or its declared builder)."""

    def contract_cases(self):
        return [CASES[name] for name in sorted(CASES)]
