"""The four papers' full algorithms on their worst-case pairs: the catalogue group "full algorithms".

Each :class:`FullAlgorithm` names a paper's algorithm, the function building its worst-case pair
(:class:`~dpaudit.userlevel.transcript.WorstPair`, in the paper's ``worst_pairs`` module) and two
trial counts: the demo's (``dpaudit demo``, a few seconds) and the benchmark's
(``python -m benchmarks.bench_full_algorithms``: ``10^6``, or what fits in about ten minutes on two
cores). Each :class:`FullVariant` is a broken component built into the full algorithm, on the pair
that exposes it under the transcript model.

:func:`full_algorithm_cases` turns them into :class:`~dpaudit.auditor.AuditCase` records: every
algorithm under both threat models (``observe="final"`` and ``"transcript"``) against its claim,
then the variants (transcript). The correct algorithms' transcript cases declare their certified
profile on the pair (:meth:`~dpaudit.userlevel.transcript.WorstPair.profiled`), so their audits
report the pair's certified epsilon beside the lower bound; :func:`outcome` turns both into one of
three honest outcomes. Pairs are built once per process (the Ghazi et al. 2023 pairs hold
tens of megabytes of items) and their arrays are read-only.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass

from dpaudit.auditor.cases import AuditCase
from dpaudit.errors import UnsoundMechanismWarning
from dpaudit.exact.profile import EpsilonBracket, ProfileUnavailable
from dpaudit.userlevel.transcript import WorstPair

__all__ = ["FULL_ALGORITHMS", "FULL_VARIANTS", "GROUP", "OUTCOMES", "TIGHT", "VARIANT_OUTCOMES", "FullAlgorithm",
           "FullVariant", "full_algorithm_cases", "outcome", "pair_bracket", "variant_outcome"]

GROUP = "full algorithms"

#: "tight" when the transcript lower bound is at least this fraction of the claim; "loose" when the
#: pair's certified epsilon is at most this fraction of it (the two cannot both hold but at equality).
TIGHT = 0.5

#: The three outcomes of a full algorithm (:func:`outcome`).
OUTCOMES = {
    "tight": "the transcript audit's lower bound is at least half the claim",
    "loose": "the certified epsilon of the worst pair built is at most half the claim (the factor is claim / it)",
    "open": "neither: the gap between the audit's lower bound and the claim is not settled",
}


#: The outcomes of a broken variant on its pair (:func:`variant_outcome`).
VARIANT_OUTCOMES = {
    "flagged": "the transcript audit's lower bound exceeds the claim",
    "violation certified": "not flagged, but the pair's exact epsilon (its own law, certified lower end) exceeds the claim",
    "masked": "the pair's certified epsilon is at most the claim: the bug spends within the claim's slack on this pair",
    "open": "neither",
}


@dataclass(frozen=True)
class FullAlgorithm:
    """A paper's full algorithm: a short name, its worst-case pair, and the demo's and benchmark's trials.

    ``demo=False`` keeps an algorithm whose pair is large (Ghazi et al. 2023's ERM pairs: thousands of
    users of 10^4 items, ~0.4-0.9 GB per dataset) out of the catalogue; the benchmark runs it.
    """

    name: str
    pair: Callable[[], WorstPair]
    demo_trials: int
    bench_trials: int
    demo: bool = True


@dataclass(frozen=True)
class FullVariant:
    """A broken component inside a full algorithm: ``bug`` tag, the pair exposing it, trials.

    ``demo=False`` keeps a slow variant out of the catalogue (the benchmark runs it).
    """

    name: str
    bug: str
    pair: Callable[[], WorstPair]
    demo_trials: int
    bench_trials: int
    note: str = ""
    demo: bool = True


def _cached(build: Callable[[], WorstPair]) -> Callable[[], WorstPair]:
    @functools.cache
    def pair() -> WorstPair:
        with warnings.catch_warnings():  # broken variants announce themselves; the catalogue knows
            warnings.simplefilter("ignore", UnsoundMechanismWarning)
            wp = build()
        for arr in (wp.d0, wp.d1):
            arr.setflags(write=False)
        return wp

    return pair


def _levy(name: str, bug: str | None = None, **kw: object) -> Callable[[], WorstPair]:
    def build() -> WorstPair:
        from dpaudit.userlevel.levy2021 import worst_pairs
        from dpaudit.userlevel.levy2021.faulty_full import alg3_with_bug

        fn = getattr(worst_pairs, name)
        return fn(cls=alg3_with_bug(bug), **kw) if bug else fn(**kw)

    return _cached(build)


def _module_pair(module: str, name: str, **kw: object) -> Callable[[], WorstPair]:
    def build() -> WorstPair:
        import importlib

        return getattr(importlib.import_module(module), name)(**kw)

    return _cached(build)


def _ghazi2023_variant(algorithm: str, pair: str, bug: str, outliers: int | None = None) -> Callable[[], WorstPair]:
    def build() -> WorstPair:
        from dpaudit.userlevel.ghazi2023 import worst_pairs
        from dpaudit.userlevel.ghazi2023.faulty_full import full_variant

        return getattr(worst_pairs, pair)(cls=full_variant(algorithm, bug), outliers=outliers)

    return _cached(build)


def _lowy_variant(name: str) -> Callable[[], WorstPair]:
    def build() -> WorstPair:
        from dpaudit.userlevel.lowy2024 import faulty
        from dpaudit.userlevel.lowy2024.worst_pairs import alg2_worst_pair

        return alg2_worst_pair(cls=getattr(faulty, name))

    return _cached(build)


_L21, _L24 = "dpaudit.userlevel.levy2021.worst_pairs", "dpaudit.userlevel.lowy2024.worst_pairs"
_G23, _G25 = "dpaudit.userlevel.ghazi2023.worst_pairs", "dpaudit.userlevel.ghazi2025.worst_pairs"

#: The full algorithms, in the papers' order (Levy, Ghazi 2023, Lowy, Ghazi 2025).
FULL_ALGORITHMS: tuple[FullAlgorithm, ...] = (
    FullAlgorithm("Levy Alg 3, 4 steps", _module_pair(_L21, "alg3_worst_pair"), 10_000, 1_000_000),
    # two steps on the channel pair: at 10^6 trials no test reaches half of the four-step claim on any pair built
    FullAlgorithm("Levy Alg 3, 2 steps", _module_pair(_L21, "alg3_audited_pair", steps=2), 10_000, 1_000_000),
    # 2*10^6: the run fits in ten minutes on two cores (about 6 min per threat model)
    FullAlgorithm("Levy Alg 4, 2 rounds", _module_pair(_L21, "alg4_channel_pair"), 10_000, 2_000_000),
    FullAlgorithm("Ghazi 2023 Alg 3", _module_pair(_G23, "alg3_worst_pair"), 5_000, 1_000_000, demo=False),
    FullAlgorithm("Ghazi 2023 Alg 4", _module_pair(_G23, "alg4_worst_pair"), 20_000, 1_000_000),
    FullAlgorithm("Ghazi 2023 Alg 5", _module_pair(_G23, "alg5_first_stage_pair"), 5_000, 1_000_000, demo=False),
    FullAlgorithm("Ghazi 2023 Alg 6", _module_pair(_G23, "alg6_worst_pair"), 1_000, 1_000_000),
    FullAlgorithm("Lowy Alg 1", _module_pair(_L24, "alg1_worst_pair"), 100_000, 1_000_000),
    FullAlgorithm("Lowy Alg 2, 4 steps", _module_pair(_L24, "alg2_worst_pair"), 1_000, 100_000),
    FullAlgorithm("Ghazi 2025 Alg 1 + noise", _module_pair(_G25, "alg1_worst_pair"), 100_000, 1_000_000),
    FullAlgorithm("Ghazi 2025 Alg 5", _module_pair(_G25, "alg5_worst_pair"), 100_000, 1_000_000),
)

#: Broken components inside the full algorithms, each on the pair that exposes it (transcript model).
FULL_VARIANTS: tuple[FullVariant, ...] = (
    FullVariant("Levy Alg 3: B4 widen on miss", "B4", _levy("alg3_outlier_pair", "B4 (widen on miss)"), 10_000, 1_000_000,
                "narrow bins, the canary at the domain's ends"),
    FullVariant("Levy Alg 3: B8 coordinate budget", "B8", _levy("alg3_worst_pair", "B8"), 10_000, 1_000_000),
    FullVariant("Levy Alg 3: B15 Laplace rate", "B15", _levy("alg3_one_bin_pair", "B15"), 10_000, 1_000_000,
                "one bin, eight users: a Laplace scale above 1"),
    FullVariant("Levy Alg 3: B17 no clipping", "B17", _levy("alg3_outlier_pair", "B17"), 10_000, 1_000_000),
    FullVariant("Ghazi 2023 Alg 4: P4 no-noise test", "P4", _ghazi2023_variant("PhasedSCO", "alg4_worst_pair", "P4", 1),
                10_000, 1_000_000),
    FullVariant("Ghazi 2023 Alg 4: P5a R1 at 0", "P5a",
                _ghazi2023_variant("PhasedSCO", "alg4_worst_pair", "P5a", 1), 10_000, 1_000_000),
    FullVariant("Ghazi 2023 Alg 4: P5b R1 <= kappa", "P5b",
                _ghazi2023_variant("PhasedSCO", "alg4_worst_pair", "P5b"), 10_000, 1_000_000),
    FullVariant("Ghazi 2023 Alg 4: P5c R1 rate", "P5c",
                _ghazi2023_variant("PhasedSCO", "alg4_worst_pair", "P5c"), 10_000, 1_000_000),
    FullVariant("Ghazi 2023 Alg 4: P5e continuous R1", "P5e",
                _ghazi2023_variant("PhasedSCO", "alg4_worst_pair", "P5e"), 10_000, 1_000_000),
    FullVariant("Ghazi 2023 Alg 4: certificate or ⊥", "P4 (App. C)",
                _ghazi2023_variant("PhasedSCO", "alg4_worst_pair", "P4 (App. C)", 1), 10_000, 1_000_000,
                "one unstable user (the gradient certificate fails) against none (it holds)"),
    FullVariant("Ghazi 2023 Alg 6: P4 no-noise test", "P4",
                _ghazi2023_variant("StronglyConvexSCO", "alg6_worst_pair", "P4", 1), 500, 100_000),
    FullVariant("Ghazi 2023 Alg 6: P5c R1 rate", "P5c",
                _ghazi2023_variant("StronglyConvexSCO", "alg6_worst_pair", "P5c"), 500, 100_000),
    # Algorithm 1's stages over-spending: each on the pair that makes both stages spend at once (two steps); the
    # exact column settles them (B2, B3 above the claim on their pair; B1 at most the claim on every pair of the family)
    FullVariant("Levy Alg 3: B1 Laplace width", "B1", _levy("alg3_laplace_channel_pair", "B1", steps=2), 10_000, 1_000_000,
                "1.5 x the Laplace stage: at most eps'' per step on every pair of the family (masked by the claim)",
                demo=False),
    FullVariant("Levy Alg 3: B2 Laplace stage at eps", "B2", _levy("alg3_laplace_channel_pair", "B2 (Laplace stage)", steps=2),
                10_000, 1_000_000, "the Laplace stage's full eps'' and PrivateRange's tilt on the same bin", demo=False),
    FullVariant("Levy Alg 3: B2 PrivateRange at eps", "B2", _levy("alg3_range_channel_pair", "B2 (PrivateRange)", steps=2),
                10_000, 5_000_000, "two bins, the canary's bin light: PrivateRange's tilt released often", demo=False),
    FullVariant("Levy Alg 3: B3 weights without /2", "B3", _levy("alg3_range_channel_pair", "B3", steps=2), 10_000,
                5_000_000, "two bins, the canary's bin light: PrivateRange's tilt released often", demo=False),
    FullVariant("Lowy Alg 2: P10 threshold per step", "P10", _lowy_variant("RedrawnThresholdMinibatchSGD"), 1_000,
                50_000, "fresh tests at the threshold's boundary: the first halt's law spends less than the call's share",
                demo=False),
    FullVariant("Lowy Alg 2: P7 with replacement", "P7", _lowy_variant("WithReplacementMinibatchSGD"), 1_000, 50_000,
                "K = n drawn with replacement (K = 4n as printed is refused by the claim's recomputation); the score's law "
                "over the multiplicities, exact, then a dominating pair", demo=False),
    FullVariant("Ghazi 2023 Alg 3: E2 printed sigma", "E2", _module_pair(_G23, "alg3_e2_pair"), 1_000, 100_000,
                "paper preset at scale 1e12", demo=False),
    FullVariant("Ghazi 2023 Alg 5: E2 printed sigma", "E2", _module_pair(_G23, "alg5_e2_pair"), 1_000, 20_000,
                "paper preset at scale 1e12", demo=False),
)


def pair_bracket(wp: WorstPair) -> tuple[EpsilonBracket | None, str]:
    """The certified bracket of the transcript's epsilon on the pair at the claim's delta, or ``(None, why not)``.

    From the transcript records (:func:`dpaudit.userlevel.transcript_profile.transcript_profile`); no sampling.
    """
    from dpaudit.userlevel.transcript_profile import transcript_profile

    try:
        profile = transcript_profile(wp.transcript_steps())
    except ProfileUnavailable as exc:
        return None, str(exc)
    return profile.epsilon(wp.delta), profile.description


def outcome(claimed_epsilon: float, transcript_lower: float, bracket: EpsilonBracket | None) -> tuple[str, float | None]:
    """``(outcome, claim / certified epsilon of the pair)``: one of :data:`OUTCOMES`, computed in that order.

    ``"tight"`` when ``transcript_lower >= TIGHT * claim``; else ``"loose"`` when the pair's certified
    epsilon (``bracket.upper``, which bounds the transcript's true epsilon on the pair from above
    whether the profile is exact or a dominating pair) is at most ``TIGHT * claim``; else ``"open"``.
    The factor is ``None`` without a bracket.
    """
    factor = None
    if bracket is not None:
        factor = math.inf if bracket.upper == 0 else claimed_epsilon / bracket.upper
    if transcript_lower >= TIGHT * claimed_epsilon:
        return "tight", factor
    if bracket is not None and bracket.upper <= TIGHT * claimed_epsilon:
        return "loose", factor
    return "open", factor


def variant_outcome(claimed_epsilon: float, flagged: bool, bracket: EpsilonBracket | None) -> str:
    """One of :data:`VARIANT_OUTCOMES` for a broken variant, in that order.

    ``"violation certified"`` needs the pair's own law (``bracket.exact``): a dominating pair's
    epsilon above the claim proves nothing. ``"masked"`` holds for either kind (its upper end bounds
    the pair's epsilon), and says nothing about pairs not built.
    """
    if flagged:
        return "flagged"
    if bracket is not None and bracket.exact and bracket.lower > claimed_epsilon:
        return "violation certified"
    if bracket is not None and bracket.upper <= claimed_epsilon:
        return "masked"
    return "open"


def _case(name: str, wp: WorstPair, observe: str, trials: int, broken: bool, bug: str | None, note: str) -> AuditCase:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsoundMechanismWarning)
        mech = wp.profiled() if observe == "transcript" and not broken else wp.observed(observe)
    return AuditCase(name, mech, wp.d0, wp.d1, wp.epsilon, wp.delta, trials, broken, bug, note, GROUP)


def full_algorithm_cases(*, benchmark: bool = False, variants: bool = True) -> list[AuditCase]:
    """Every full algorithm under both threat models against its claim, then (``variants``) the broken ones.

    ``benchmark`` uses the benchmark's trial counts instead of the demo's.
    """
    out = []
    for alg in FULL_ALGORITHMS:
        if not (benchmark or alg.demo):
            continue
        wp = alg.pair()
        trials = alg.bench_trials if benchmark else alg.demo_trials
        for observe in ("final", "transcript"):
            out.append(_case(f"{alg.name} ({observe})", wp, observe, trials, False, None,
                             f"{wp.algorithm}; claim: {wp.claim_note}"))
    if variants:
        for var in FULL_VARIANTS:
            if not (benchmark or var.demo):
                continue
            wp = var.pair()
            out.append(_case(f"{var.name} (transcript)", wp, "transcript", var.bench_trials if benchmark else var.demo_trials,
                             True, var.bug, var.note or wp.reasoning))
    return out
