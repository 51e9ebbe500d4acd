"""One :class:`~dpaudit.testing.ContractCase` for every concrete mechanism class dpaudit ships.

Classes are found by walking dpaudit's packages, so a new class is picked up without editing this
file. Each class gets its case from an audit case of the built-in catalogue
(:func:`dpaudit.catalogue.builtin_catalogue`) whose mechanism is, or wraps, an instance of the class
(its pair and claim, a correct one first), else from ``BUILDERS`` below, which declares how to
build the classes the catalogue does not use, with a neighbouring pair.

``BASES`` declares the classes that are bases of others (never shipped as mechanisms of their
own), each with the subclass that stands for it. Nothing is skipped silently: a class with no case
fails ``test_every_concrete_mechanism_class_has_a_contract_case``.

Extreme data inside each declared domain (``extreme``): every finite value for the mechanisms that
declare the whole real line (primitives on query answers, Levy et al.'s algorithms, the baselines);
items on the boundary of the declared ball for the (x, y) domains of Ghazi et al. 2023 and Lowy et
al. 2024; users with locations near the float limit for Ghazi et al. 2025's Huber universe.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import dpaudit
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.mechanisms.base import UnsafeMechanism
from dpaudit.testing import MAX_FLOAT, ContractCase, near_limit_variants

#: Trials per dataset of a claim audit (a smoke check of the claim: gross errors show at once; the
#: catalogue's own tests audit at full strength), and at most for the algorithms whose every trial
#: runs an SGD loop (those that declare ``audit_block_size``).
CLAIM_TRIALS, EXPENSIVE_CLAIM_TRIALS = 20_000, 2_000
#: Trials for adapters, which call the other library once per trial.
LOOPED_CLAIM_TRIALS = 2_000

#: Base classes, with the concrete subclass whose case stands for each.
BASES = {
    "dpaudit.userlevel.ghazi2023.phased._PhasedBase": "dpaudit.userlevel.ghazi2023.phased.PhasedERM",
    "dpaudit.userlevel.ghazi2023.strongly_convex._StronglyConvexBase":
        "dpaudit.userlevel.ghazi2023.strongly_convex.StronglyConvexERM",
    "dpaudit.userlevel.ghazi2025.base._Ghazi2025Base": "dpaudit.userlevel.ghazi2025.algorithms.RobustStatsSGD",
    "dpaudit.userlevel.lowy2024.phased_erm._Alg3Base": "dpaudit.userlevel.lowy2024.phased_erm.AcceleratedPhasedERM",
    "dpaudit.userlevel.levy2021.faulty._FaultyWM1D": "dpaudit.userlevel.levy2021.faulty.LevyLaplaceRate",
}

#: Checks a deliberately unsound mechanism is exempt from, and why (reported as a skip with the reason).
EXEMPT = {
    "dpaudit.adapters.opendp.OpenDPMeasurement": {
        "same_seed": "OpenDP draws from its own cryptographically secure randomness, which cannot be seeded; its "
                     "audits are reproducible in distribution only (and a checkpoint of one cannot be resumed)"},
    "dpaudit.userlevel.levy2021.faulty.LevyOverflowingMean": {
        "extreme": "its flaw is the overflow of user means near the float limits (an ObservedRelease of it is "
                   "the catalogue's overflow case)"},
    "dpaudit.userlevel.levy2021.faulty._UnclampedHighD": {
        "extreme": "its flaw is the missing clamp to [-B, B]^d, which lets a non-finite mean through"},
    "dpaudit.mechanisms.faulty.WinsorizedMeanDataRange": {
        "extreme": "its flaw is the clip range taken from the data, whose spread overflows near the float limits"},
    "dpaudit.userlevel.levy2021.faulty.LevyRangeNoClamp": {
        "extreme": "its flaw (B12) is the missing clamp, which is exactly what overflows near the float limits"},
}

#: Classes whose declared domain is every finite value: near-limit data must be accepted, with finite outputs.
ALL_FINITE = {
    "LaplaceMechanism", "GaussianMechanism", "ReportNoisyMax", "ExponentialMechanism", "SparseVector",
    "AboveThreshold", "SparseVectorResampled", "NumericalSVT", "LaplaceParallel", "SnappingLaplace",
    "LaplaceStage", "WinsorizedMean1D", "PrivateRange", "RangeStage", "RotatedCoordinate", "WinsorizedMeanHighD",
    "UserMeanEstimator", "GradientQuery", "WinsorizedFirstOrder", "PhasedERMRound", "PhasedERMTranscript",
    "ObservedRelease", "DelOutputPert", "ClippedUserMeanGaussian", "ClippedUserMeanLaplace", "GroupPrivateItemMean",
}


def qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def concrete_mechanism_classes() -> dict[str, type]:
    """Every class defined in dpaudit with ``sample`` and ``claimed_guarantee`` that is not abstract (nor a Protocol)."""
    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(dpaudit.__path__, "dpaudit."):
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if (inspect.isclass(obj) and obj.__module__ == module.__name__ and callable(getattr(obj, "sample", None))
                    and callable(getattr(obj, "claimed_guarantee", None)) and not inspect.isabstract(obj)
                    and not getattr(obj, "_is_protocol", False)):
                found[qualified(obj)] = obj
    return found


# -- data helpers -------------------------------------------------------------------------------


def _replace_user(data: np.ndarray, user: int, items: Any) -> np.ndarray:
    out = np.array(data, dtype=float, copy=True)
    out[user] = items
    return out


def _xy_boundary(data: Any, feature_bound: float, label_bound: float) -> list[np.ndarray]:
    """Items ``(x, y)`` moved onto the boundary of ``||x|| <= feature_bound``, ``|y| <= label_bound``."""
    z = np.array(data, dtype=float, copy=True)
    x = z[..., :-1]
    top = np.max(np.abs(x), axis=-1, keepdims=True)
    unit = np.where(top > 0, x / np.where(top > 0, top, 1.0), 0.0)
    unit[..., 0] = np.where(top[..., 0] > 0, unit[..., 0], 1.0)
    norm = np.linalg.norm(unit, axis=-1, keepdims=True)
    x[...] = unit / norm * feature_bound * (1 - 1e-15)
    z[..., -1] = np.where(np.arange(z.shape[0])[:, None] % 2 == 0, label_bound, -label_bound)
    return [z]


def _bounds(mechanism: Any) -> tuple[float, float] | None:
    """``(feature_bound, label_bound)`` of an (x, y) domain declared by the mechanism or what it wraps."""
    for obj in (mechanism, getattr(mechanism, "problem", None), getattr(mechanism, "mechanism", None)):
        if obj is not None and hasattr(obj, "feature_bound") and hasattr(obj, "label_bound"):
            return float(obj.feature_bound), float(obj.label_bound)
        problem = getattr(obj, "problem", None)
        if problem is not None and hasattr(problem, "feature_bound"):
            return float(problem.feature_bound), float(problem.label_bound)
    return None


def _huber_universe(data: Any) -> list[np.ndarray]:
    """Huber items ``(location, weight)``: locations near the float limit (one user at +max, one at -max,
    one mixed), weights in {0, 1}: inside the universe of Ghazi et al. 2025's Huber loss."""
    z = np.array(data, dtype=float, copy=True)
    z[..., :-1] = 0.0
    z[0, ..., :-1], z[1, ..., :-1] = MAX_FLOAT, -MAX_FLOAT
    z[2, ..., :-1] = 1e308
    z[..., -1] = 1.0
    z[3, ..., -1] = 0.0
    return [z]


def _extremes(name: str, mechanism: Any, data: Any) -> list[Any]:
    short = name.rsplit(".", 1)[-1]
    if short in ALL_FINITE:
        return near_limit_variants(data)
    loss = getattr(mechanism, "loss", None)
    if type(loss).__name__ == "SeparableHuberLoss":
        return _huber_universe(data)
    bounds = _bounds(mechanism)
    if bounds is not None and np.ndim(data) == 3:
        return _xy_boundary(data, *bounds)
    return []


# -- cases --------------------------------------------------------------------------------------


def _case(name: str, mechanism: Any, d0: Any, d1: Any, *, epsilon: Any = None, delta: Any = None, broken: bool = False,
          trials: int | None = None, options: dict[str, Any] | None = None) -> ContractCase:
    expensive = isinstance(getattr(mechanism, "audit_block_size", None), int)
    limit = EXPENSIVE_CLAIM_TRIALS if expensive else CLAIM_TRIALS
    return ContractCase(
        name=name.removeprefix("dpaudit."), mechanism=mechanism, data=d0, neighbour=d1,
        extreme=_extremes(name, mechanism, d0), epsilon=epsilon, delta=delta,
        unsound=broken or isinstance(mechanism, UnsafeMechanism), trials=min(trials or limit, limit),
        audit_options=dict(options or {}), exempt=EXEMPT.get(name, {}),
    )


def _wrapped(mechanism: Any) -> list[Any]:
    """The mechanisms a wrapper holds in its fields (an observed release's inner mechanism, say)."""
    if not dataclasses.is_dataclass(mechanism):
        return []
    inner = [getattr(mechanism, f.name) for f in dataclasses.fields(mechanism)]
    return [m for m in inner if hasattr(m, "sample") and hasattr(m, "claimed_guarantee") and not isinstance(m, type)]


#: The catalogue group of the papers' full algorithms on their worst-case pairs (dpaudit.userlevel.full_algorithms):
#: a class of theirs that has a builder is checked on the builder's smaller case (the worst pairs hold up to
#: 884 users x 3000 items).
FULL_ALGORITHMS_GROUP = "full algorithms"


def catalogue_cases(classes: dict[str, type]) -> dict[str, ContractCase]:
    """One case per class from the catalogue: a correct audit case if there is one, else a broken one."""
    from dpaudit.catalogue import builtin_catalogue

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        entries = builtin_catalogue()
    cases: dict[str, ContractCase] = {}
    for entry in entries:
        top = [(entry.mechanism, entry.broken, entry.epsilon, entry.delta)]
        nested = [(m, isinstance(m, UnsafeMechanism), None, None) for m in _wrapped(entry.mechanism)]
        for mechanism, broken, epsilon, delta in top + nested:
            name = qualified(type(mechanism))
            if entry.group == FULL_ALGORITHMS_GROUP and name in BUILDERS:
                continue
            if name not in classes or (name in cases and not cases[name].unsound):
                continue
            if name in cases and broken:
                continue
            cases[name] = _case(name, mechanism, entry.d0, entry.d1, epsilon=epsilon, delta=delta, broken=broken,
                                trials=entry.trials if mechanism is entry.mechanism else None,
                                options=dict(entry.options) if mechanism is entry.mechanism else None)
    return cases


def _quiet(build: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        return build()


def _user_level_mean() -> tuple[np.ndarray, np.ndarray]:
    """8 users of 3 items in R^2 at 0; the neighbour moves user 0 onto the unit sphere."""
    d0 = np.zeros((8, 3, 2))
    return d0, _replace_user(d0, 0, [1.0, 0.0])


def _levy_1d() -> tuple[np.ndarray, np.ndarray]:
    d0 = np.zeros((8, 1))
    return d0, _replace_user(d0, 0, [1.0])


def _levy_vectors() -> tuple[np.ndarray, np.ndarray]:
    d0 = np.zeros((200, 1, 2))
    return d0, _replace_user(d0, 0, [[1.0, 0.0]])


def _levy_items() -> tuple[np.ndarray, np.ndarray]:
    d0 = np.zeros((128, 1, 3))
    d0[..., -1] = 0.5
    return d0, _replace_user(d0, 0, [[1.0, 0.0, -0.5]])


def _huber_users(n: int) -> tuple[np.ndarray, np.ndarray]:
    d0 = np.zeros((n, 2, 2))
    d0[..., 1] = 1.0
    return d0, _replace_user(d0, 0, [[3.0, 1.0], [3.0, 1.0]])


def _ghazi2023(cls_name: str, variant: type | None = None) -> ContractCase:
    """A case of the algorithm ``cls_name`` (or of ``variant``, a broken subclass of it) on a small mean problem."""
    from dpaudit.userlevel.ghazi2023 import phased, strongly_convex
    from dpaudit.userlevel.ghazi2023.utility import MeanProblem

    cls = {"PhasedERM": phased.PhasedERM, "PhasedSCO": phased.PhasedSCO,
           "StronglyConvexERM": strongly_convex.StronglyConvexERM,
           "StronglyConvexSCO": strongly_convex.StronglyConvexSCO}[cls_name]
    problem = MeanProblem(l2=1.0 if "Strongly" in cls_name else 0.0)
    if variant is not None:
        assert issubclass(variant, cls), (variant, cls)
        cls = variant
    mechanism = _quiet(lambda: cls(problem.erm(), 1.0, 0.5))
    n = mechanism.min_users(20) if hasattr(mechanism, "min_users") else 64
    d0 = problem.sample(n, 20, np.random.default_rng(0))
    bound = problem.erm().label_bound  # the declared domain's labels: the neighbour's user sits at its edge
    d1 = _replace_user(d0, 0, np.column_stack([np.ones(20), np.full(20, -bound)]))
    return _case(qualified(cls), mechanism, d0, d1, broken=variant is not None)


def _builders() -> dict[str, Callable[[], ContractCase]]:
    from dpaudit.userlevel import baselines
    from dpaudit.userlevel.levy2021 import faulty as levy_faulty
    from dpaudit.userlevel.levy2021.phased_erm import PhasedERM
    from dpaudit.userlevel.losses import SquaredLoss

    def adapter_diffprivlib() -> ContractCase:
        from diffprivlib.mechanisms import Laplace

        from dpaudit.adapters.diffprivlib import DiffprivlibMechanism

        return _case("dpaudit.adapters.diffprivlib.DiffprivlibMechanism",
                     DiffprivlibMechanism(Laplace(epsilon=1.0, sensitivity=1.0)), 0.0, 1.0, trials=LOOPED_CLAIM_TRIALS)

    def adapter_opendp() -> ContractCase:
        import opendp.prelude as dp

        from dpaudit.adapters.opendp import OpenDPMeasurement

        dp.enable_features("contrib")
        laplace = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
        return _case("dpaudit.adapters.opendp.OpenDPMeasurement", OpenDPMeasurement(laplace, d_in=1.0), 0.0, 1.0,
                     trials=LOOPED_CLAIM_TRIALS)

    def ghazi2025(cls_name: str) -> Callable[[], ContractCase]:
        def build() -> ContractCase:
            from dpaudit.userlevel.ghazi2025 import (
                ConcentrationTest,
                RobustStatsSGD,
                SeparableHuberLoss,
            )

            loss = SeparableHuberLoss(beta=2.0, gradient_cap=3.0)
            if cls_name == "RobustStatsSGD":
                mechanism: Any = RobustStatsSGD(loss, 1.0, 1e-3, batch_size=4)
            else:
                mechanism = ConcentrationTest(loss, 1.0, 3.0, 0.5, 4, query_point=(0.5,))
            d0, d1 = _huber_users(16)
            return _case(qualified(type(mechanism)), mechanism, d0, d1)
        return build

    def levy(cls: type, pair: Callable[[], tuple[np.ndarray, np.ndarray]], *args: Any, **kwargs: Any) -> Callable[[], ContractCase]:
        return lambda: _case(qualified(cls), _quiet(lambda: cls(*args, **kwargs)), *pair())

    def lowy_alg3() -> ContractCase:
        from dpaudit.userlevel.lowy2024.phased_erm import AcceleratedPhasedERM

        mechanism = AcceleratedPhasedERM(SquaredLoss(), 4.0, 1e-3, phases=1, q=2.0)
        d0 = np.zeros((1600, 2, 2))  # enough users for its one phase's test (its own tests' size)
        d0[..., -1] = 0.5
        # 40 ms a trial: a 200-trial smoke check of the claim (the catalogue audits its Algorithm 2 at length)
        return _case(qualified(AcceleratedPhasedERM), mechanism, d0, _replace_user(d0, 0, [[1.0, -1.0]] * 2),
                     trials=200)

    base = "dpaudit.userlevel.levy2021.faulty."
    return {
        "dpaudit.adapters.diffprivlib.DiffprivlibMechanism": adapter_diffprivlib,
        "dpaudit.adapters.opendp.OpenDPMeasurement": adapter_opendp,
        "dpaudit.userlevel.baselines.ClippedUserMeanGaussian":
            lambda: _case("dpaudit.userlevel.baselines.ClippedUserMeanGaussian",
                          baselines.ClippedUserMeanGaussian(1.0, 1e-5, 1.0), *_user_level_mean()),
        "dpaudit.userlevel.baselines.ClippedUserMeanLaplace":
            lambda: _case("dpaudit.userlevel.baselines.ClippedUserMeanLaplace",
                          baselines.ClippedUserMeanLaplace(1.0, 1.0), *_user_level_mean()),
        "dpaudit.userlevel.baselines.GroupPrivateItemMean":
            lambda: _case("dpaudit.userlevel.baselines.GroupPrivateItemMean",
                          baselines.GroupPrivateItemMean(1.0, 1e-5, 1.0), *_user_level_mean()),
        "dpaudit.userlevel.ghazi2023.phased.PhasedERM": lambda: _ghazi2023("PhasedERM"),
        "dpaudit.userlevel.ghazi2023.phased.PhasedSCO": lambda: _ghazi2023("PhasedSCO"),
        "dpaudit.userlevel.ghazi2023.strongly_convex.StronglyConvexERM": lambda: _ghazi2023("StronglyConvexERM"),
        "dpaudit.userlevel.ghazi2023.strongly_convex.StronglyConvexSCO": lambda: _ghazi2023("StronglyConvexSCO"),
        "dpaudit.userlevel.ghazi2025.algorithms.RobustStatsSGD": ghazi2025("RobustStatsSGD"),
        "dpaudit.userlevel.ghazi2025.concentration.ConcentrationTest": ghazi2025("ConcentrationTest"),
        base + "LevyFullBudgetStage": levy(levy_faulty.LevyFullBudgetStage, _levy_1d, 2.0, 0.5, 4.0),
        base + "LevyLaplaceRate": levy(levy_faulty.LevyLaplaceRate, _levy_1d, 0.5, 0.5, 4.0),
        base + "LevyWrongWidthLaplace": levy(levy_faulty.LevyWrongWidthLaplace, _levy_1d, 2.0, 0.5, 4.0),
        base + "LevyNoLogCoordinateBudget": levy(levy_faulty.LevyNoLogCoordinateBudget, _levy_vectors, 1.0, 1e-5, 0.2,
                                                 1.0, 1e-2),
        base + "LevyOverflowingMean": levy(levy_faulty.LevyOverflowingMean, _levy_vectors, 1.0, 1e-5, 1.0, gamma=1e-2),
        base + "LevyReusedUsers": levy(levy_faulty.LevyReusedUsers, _levy_items, SquaredLoss(), 1.0, 1e-5, 1.0, 1.0,
                                       rounds=2, steps=2),
        # Algorithm 2 without its clamp: the (deliberately broken) component LevyOverflowingMean runs
        base + "_UnclampedHighD": lambda: _case(base + "_UnclampedHighD",
                                                levy_faulty._UnclampedHighD(1.0, 1e-5, 0.2, 1.0, 1e-2),
                                                *_levy_vectors(), broken=True),
        "dpaudit.userlevel.levy2021.phased_erm.PhasedERM": levy(PhasedERM, _levy_items, SquaredLoss(), 1.0, 1e-5, 1.0,
                                                                1.0, rounds=2, steps=2),
        "dpaudit.userlevel.lowy2024.phased_erm.AcceleratedPhasedERM": lowy_alg3,
    }


def _full_variant_builders() -> dict[str, Callable[[], ContractCase]]:
    """The broken full-algorithm classes (dpaudit.userlevel.full_algorithms) the catalogue's demo leaves out.

    Each is built on its paper's worst-case pair (or, for Ghazi et al. 2023's, the small mean problem of
    :func:`_ghazi2023`: the golden pairs hold tens of megabytes), as a broken case: its flaw is what it is for.
    """
    from dpaudit.userlevel.ghazi2023 import faulty_full as g23
    from dpaudit.userlevel.levy2021 import faulty_full as levy_full
    from dpaudit.userlevel.levy2021.worst_pairs import alg3_worst_pair
    from dpaudit.userlevel.lowy2024 import faulty as lowy_faulty
    from dpaudit.userlevel.lowy2024.worst_pairs import alg2_worst_pair

    def on_pair(build_pair: Callable[[], Any]) -> Callable[[], ContractCase]:
        def build() -> ContractCase:
            wp = _quiet(build_pair)
            return _case(qualified(type(wp.mechanism)), wp.mechanism, wp.d0, wp.d1, broken=True)
        return build

    out: dict[str, Callable[[], ContractCase]] = {}
    for bug in levy_full.ALG3_BUGS:
        cls = levy_full.alg3_with_bug(bug)
        out[qualified(cls)] = on_pair(lambda cls=cls: alg3_worst_pair(cls=cls))
    for cls in (lowy_faulty.RedrawnThresholdMinibatchSGD, lowy_faulty.WithReplacementMinibatchSGD):
        out[qualified(cls)] = on_pair(lambda cls=cls: alg2_worst_pair(cls=cls))
    for bug in g23.FULL_VARIANTS:
        for algorithm in ("PhasedSCO", "StronglyConvexSCO"):
            cls = g23.full_variant(algorithm, bug)
            out[qualified(cls)] = lambda algorithm=algorithm, cls=cls: _ghazi2023(algorithm, cls)
    # the 1-D components inside B2 (PrivateRange at eps) and B3 (weights without /2)
    for cls in (levy_full._RangeNoHalf1D, levy_full._RangeFullBudget1D):
        out[qualified(cls)] = lambda cls=cls: _case(qualified(cls), _quiet(lambda: cls(2.0, 0.5, 4.0)), *_levy_1d(), broken=True)
    return out


BUILDERS = {**_builders(), **_full_variant_builders()}


def all_cases() -> tuple[dict[str, type], dict[str, ContractCase]]:
    """Every concrete class, and the case of each class that has one (bases excluded)."""
    classes = concrete_mechanism_classes()
    cases = catalogue_cases(classes)
    for name, build in BUILDERS.items():
        if name in classes and name not in cases:
            cases[name] = build()
    return classes, cases
