"""The certified privacy profile of a full algorithm's transcript on its worst-case pair.

A transcript's :class:`~dpaudit.userlevel.transcript.TranscriptStep` records say which known
mechanism each block of columns releases on the pair. :func:`transcript_profile` turns them into
the steps of :func:`dpaudit.exact.compose` and returns the profile of the whole transcript, or
raises :class:`~dpaudit.exact.ProfileUnavailable` naming the first record it cannot certify.

What each record becomes (the laws the four papers' algorithms use on their worst pairs):

``"none"``
    Nothing: a public constant (Levy et al.'s fixed rotation signs) or a deterministic function of
    earlier releases (the output, an aggregate of the iterates).
``"exponential mechanism"`` followed by ``"laplace"`` with ``location given bin``
    Levy et al. 2021's PrivateRange (Algorithm 2: bin ``k`` with weight ``exp(eps count_k / 2)``)
    then the winsorized mean ``Lap(location_k, scale)`` given the released bin (Algorithm 1):
    their *joint* law, exact (:func:`range_then_laplace_profile`: each bin's two masses times the
    two Laplace laws given that bin, cut into cells whose loss ranges are certified). The ``k``-th
    exponential mechanism record pairs with the ``k``-th Laplace record after it (Algorithm 2 draws
    every coordinate's range, then every coordinate's mean).
``"truncated discrete laplace test"``
    Ghazi et al. 2023's ⊥ flag (Algorithm 1: ⊥ iff ``R1 < k``, ``R1 ~ TDLap(eps_bar, delta_bar)``
    on ``{0..2 kappa}``, Def. 3.4): a two-point law on each side, exact.
``"gaussian"`` after a test
    Ghazi et al. 2023's ``N(centre, sigma^2)`` if not ⊥ (else the previous, public or already
    released, iterate) and Ghazi et al. 2025's ``N(average, sigma^2)`` if the phase passed (else
    ``N(x_start, sigma^2)``): which law applies depends on the test's release, so it is one
    :class:`~dpaudit.exact.Adaptive` step over the branches' shifts. A branch whose location is the
    same on both sides is the identical pair. Dropped when no branch moves.
``"laplace test"`` (rule ``pass iff score + Lap(scale) >= threshold``) then its ``"gaussian"``
    Lowy et al. 2024's Algorithm 1 phase [LLA24, Alg 1 lines 12-13 and 25]: the Laplace-noised
    concentration score against the threshold, pass or halt, and on a pass ``N(robust mean,
    sigma^2 I)``. When every ramp coin is 0 or 1 on both sides (the kept set, so the mean, is fixed,
    and not empty: an empty set is a halt) the pair (test, Gaussian given a pass) is one joint law,
    exact (:func:`dpaudit.exact.branched.laplace_test_then_gaussian_profile`: the two Bernoulli
    laws of the test, ``P(pass) = P(Lap(scale) >= threshold - score)``, and the Gaussian pair
    scaled by the pass masses). A test with no Gaussian after it is its two-point law alone.
``"above threshold"`` with per-step ``scores``
    Ghazi et al. 2025's Algorithm 4 (mirrored), the halting step released: the exact sparse-vector
    profile (:func:`dpaudit.exact.threshold_profile`, halting below the noisy threshold).
``"above threshold"``, one record per step (Lowy et al. 2024's Algorithm 2 rule)
    The answers of one AboveThreshold call (threshold noise drawn once): the exact sparse-vector
    profile of the call on the negated scores; with the threshold noise drawn afresh at every step
    (pitfall P10) independent single-query tests, released up to the first halt: the exact law of
    the first halting step. The Gaussian after each answer, released only while the test continues,
    is the adaptive pair of its shift and nothing, when every ramp coin is 0 or 1 on both sides
    (the kept set and the mean are then fixed).

``"above threshold"`` and ``"gaussian"`` records marked ``minibatch`` drawn with replacement
    Lowy et al. 2024's Algorithm 2 with the box's with-replacement minibatch (pitfall P7): the
    scores, kept sets and means are random, functions of the batch's multiplicities. A dominating
    pair (:mod:`dpaudit.userlevel.lowy2024.with_replacement`): the exact law of the AboveThreshold
    answers on the scores' law, then the Gaussians dominated by their largest shift, then the
    ``(0, P(irregular batch))`` pair; an upper bound.

Not certified (the profile is unavailable, and the algorithm's outcome stays open): a record
marked ``adaptive`` (its law is shown at one state only, and a bound over every state is not
recorded), a release after Lowy et al.'s ramp coins when some coin is strictly random (a mixture
over the kept sets), a
``"laplace test"`` without its rule or a Gaussian after it whose kept set is empty, an
``"above threshold"`` record without per-step scores, any unknown law or parameter form.

The composition is ``"exact"`` when no step is adaptive, else ``"upper bound"`` (its ``epsilon``
bracket's upper end is certified for the pair; see :mod:`dpaudit.exact.composition`).

References
----------
.. [DRS19] J. Dong, A. Roth and W. Su. Gaussian differential privacy. arXiv:1905.02383v3, Cor. 3.3.
.. [LLA24] A. Lowy, D. Liu and H. Asi. Faster algorithms for user-level private stochastic convex
   optimization. NeurIPS 2024, Algorithm 1.
.. [MT07] F. McSherry and K. Talwar. Mechanism design via differential privacy. FOCS 2007.
.. [ZDW22] Y. Zhu, J. Dong and Y.-X. Wang. Optimal accounting of differential privacy via
   characteristic function. AISTATS 2022, Theorem 10 (dominating pairs of adaptive compositions).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpaudit._validation import argument_error, check_finite_array, check_positive
from dpaudit.exact import (
    Adaptive,
    GaussianStep,
    PrivacyProfile,
    ProfileStep,
    ProfileUnavailable,
    Step,
    ThresholdSpec,
    compose,
    exponential_mechanism_profile,
    threshold_profile,
)
from dpaudit.exact.branched import laplace_test_profile, laplace_test_then_gaussian_profile
from dpaudit.userlevel.transcript import TranscriptStep

__all__ = ["ProfiledTranscript", "range_then_laplace_profile", "tdlap_flag_profile", "transcript_exact_steps",
           "transcript_profile"]

#: The exponential mechanism's weights as Levy et al. 2021's PrivateRange prints them (Alg. 2).
_EM_WEIGHTS = "exp(epsilon * count / 2)"
#: Ghazi et al. 2025's halting rule (Alg. 4, mirrored), as the transcript records name it.
_G25_RULE = "halt at score + Lap < threshold - Lap"
#: Lowy et al. 2024's Algorithm 2 test, as the transcript records name it (one AboveThreshold call per phase).
_LOWY_RULE = "halt iff -score + Lap(query scale) >= -threshold + Lap(threshold scale)"
#: How Lowy et al. 2024's Algorithm 2 records mark a minibatch drawn with replacement (pitfall P7).
_LOWY_REPLACEMENT = "drawn with replacement: K uniform draws among the n users, afresh each step"
#: Lowy et al. 2024's Algorithm 1 test (lines 12-13), as the transcript records name it.
_LOWY_ALG1_RULE = "pass iff score + Lap(scale) >= threshold"
#: Equal cells between the two Laplace locations of a bin (the loss is linear there; the tails hold the extremes).
_LAPLACE_BAND = 8


def range_then_laplace_profile(counts0: Sequence[int], counts1: Sequence[int], epsilon: float, loc0: Sequence[float],
                               loc1: Sequence[float], scale: float, *, band: int = _LAPLACE_BAND) -> PrivacyProfile:
    """The exact joint profile of PrivateRange's bin and the Laplace mean given that bin, on one pair.

    Levy et al. 2021, Algorithm 1: bin ``k`` with probability ``∝ exp(epsilon counts_k / 2)``
    (Algorithm 2 of the paper, the exponential mechanism [MT07]), then ``Lap(loc_k, scale)``.
    The output ``(k, y)`` has density ``P(k) lap(y - loc_k)`` on each side, so its cells are the
    bins' atoms times the Laplace pair's cells (:func:`dpaudit.exact.cells.laplace_pair_cells`),
    masses in Arb balls: the pair's own law (``kind == "exact"``), not a dominating pair. Its
    largest loss is ``max_k (ln P0(k)/P1(k) + |loc1_k - loc0_k| / scale)`` (a Laplace tail).
    """
    from flint import arb

    from dpaudit.exact.cells import Cells, laplace_pair_cells
    from dpaudit.exact.enclosure import arb_of, precision
    from dpaudit.exact.profile import EXACT

    owner = "range_then_laplace_profile"
    if not len(counts0) == len(counts1) == len(loc0) == len(loc1) or len(counts0) == 0:
        raise argument_error(owner, "counts0, counts1, loc0, loc1", "one entry per bin each (at least one bin)",
                             (len(counts0), len(counts1), len(loc0), len(loc1)))
    epsilon, scale = check_positive(owner, "epsilon", epsilon), check_positive(owner, "scale", scale)
    for name, values in (("counts0", counts0), ("counts1", counts1), ("loc0", loc0), ("loc1", loc1)):
        check_finite_array(owner, name, np.asarray(values, dtype=float))
    with precision():
        laws = []
        for counts in (counts0, counts1):
            top = max(counts)
            w = [(arb_of(epsilon) / 2 * (arb_of(c) - arb_of(top))).exp() for c in counts]
            z = sum(w, arb(0))
            laws.append([x / z for x in w])
        parts = [Cells.atoms([laws[0][k]], [laws[1][k]]).times(laplace_pair_cells(float(loc0[k]), float(loc1[k]), scale, band))
                 for k in range(len(counts0))]
    return Cells.concat(parts).profile(
        description=f"PrivateRange (eps {epsilon:g}, {len(counts0)} bins) then Lap(scale {scale:g}) given the bin", kind=EXACT)


def tdlap_flag_profile(k0: int, k1: int, eps_bar: float, kappa: int) -> PrivacyProfile:
    """The exact profile of the flag ``[R1 < k]``, ``R1 ~ TDLap`` on ``{0..2 kappa}`` (``∝ e^{-eps |x - kappa|}``), ``k0`` vs ``k1``.

    Ghazi et al. 2023, Algorithm 1 and Definition 3.4. Probabilities in Arb balls (certified).
    """
    from dpaudit.exact.enclosure import arb_of, precision
    from dpaudit.exact.finite import finite_from_arbs

    with precision():
        weight = [(-arb_of(eps_bar) * abs(j - kappa)).exp() for j in range(2 * kappa + 1)]
        total = sum(weight[1:], weight[0])
        laws = []
        for k in (k0, k1):
            cut = max(0, min(k, 2 * kappa + 1))  # each side summed on its own: an empty side is an exact 0
            laws.append([sum(weight[:cut], arb_of(0.0)) / total, sum(weight[cut:], arb_of(0.0)) / total])
        return finite_from_arbs(laws[0], laws[1], description=f"⊥ flag [R1 < k], k {k0} vs {k1}, TDLap eps {eps_bar:g}, kappa {kappa}")


def _unavailable(step: TranscriptStep, why: str) -> ProfileUnavailable:
    return ProfileUnavailable(f"transcript columns {step.columns} ({step.release}): {why}")


def _shift(a: Any, b: Any) -> tuple[float, ...]:
    x, y = tuple(float(v) for v in (a if isinstance(a, tuple | list) else (a,))), \
        tuple(float(v) for v in (b if isinstance(b, tuple | list) else (b,)))
    if len(x) != len(y):
        raise ProfileUnavailable(f"locations of different lengths ({len(x)} vs {len(y)})")
    return tuple(v - u for u, v in zip(x, y, strict=True))


def _gaussian_branches(step: TranscriptStep) -> list[tuple[float, ...]]:
    """The shifts of the Gaussian's branches (one per outcome of the test before it)."""
    if "centre" in step.on_d0:  # Ghazi et al. 2023: N(centre) if not ⊥, else the previous iterate (same on both sides)
        return [_shift(step.on_d0["centre"], step.on_d1["centre"]), (0.0,)]
    probs = [side.get("inclusion probabilities") for side in (step.on_d0, step.on_d1)]
    if all(pr is not None and all(v in (0.0, 1.0) for v in pr) for pr in probs) and "location if the coins are their means" in step.on_d0:
        # Lowy et al.: every ramp coin is 0 or 1 on both sides, so the kept set and the mean are fixed; released only
        # while the test continues (else nothing: the identical pair)
        key = "location if the coins are their means"
        return [_shift(step.on_d0[key], step.on_d1[key]), (0.0,)]
    keys = ("average if every test passes", "x_start (on a halt)")
    if all(k in step.on_d0 and k in step.on_d1 for k in keys):  # Ghazi et al. 2025
        return [_shift(step.on_d0[k], step.on_d1[k]) for k in keys]
    raise _unavailable(step, "a Gaussian release whose location is not a known branch form (the ramp's coins, say)")


def transcript_exact_steps(steps: Sequence[TranscriptStep]) -> list[Step]:
    """The :mod:`dpaudit.exact` steps of a transcript (see the module docstring); ``ProfileUnavailable`` if any is not covered."""
    out: list[Step] = []
    lowy_tests: list[TranscriptStep] = []  # Lowy et al.'s per-step answers, joined per AboveThreshold call at the end
    pending_em: list[TranscriptStep] = []  # PrivateRange records waiting for their Laplace mean, in order
    pending_test: list[TranscriptStep] = []  # Lowy et al.'s Algorithm 1 test waiting for its Gaussian

    def flush(tests: bool = True) -> None:  # a range released without a mean after it: the exponential mechanism alone
        for em in pending_em:
            out.append(ProfileStep(exponential_mechanism_profile(list(em.on_d0["counts"]), list(em.on_d1["counts"]),
                                                                 float(em.parameters["epsilon"]), 1.0)))
        pending_em.clear()
        if not tests:
            return
        for test in pending_test:  # a test with no release after it: its two-point law
            s0, s1, thr, scale = _laplace_test_inputs(test)
            if s0 != s1:
                out.append(ProfileStep(laplace_test_profile(s0, s1, thr, scale)))
        pending_test.clear()

    replaced = [s for s in steps if s.parameters.get("minibatch") == _LOWY_REPLACEMENT]
    if replaced:  # Lowy et al.'s Algorithm 2 with its minibatch drawn with replacement (pitfall P7): one call's records
        from dpaudit.userlevel.lowy2024.with_replacement import replacement_transcript_steps

        tests = [s for s in replaced if s.law == "above threshold" and s.parameters.get("rule") == _LOWY_RULE]
        gaussians = [s for s in replaced if s.law == "gaussian"]
        if len(tests) + len(gaussians) != len(replaced) or len({s.parameters.get("call") for s in tests}) > 1:
            raise _unavailable(replaced[0], "records of a minibatch drawn with replacement other than one AboveThreshold "
                                            "call and its Gaussians")
        if any(s.adaptive for s in replaced):
            raise _unavailable(next(s for s in replaced if s.adaptive), "adaptive (its law is recorded at one state only)")
        out += replacement_transcript_steps(tests, gaussians)
        steps = [s for s in steps if s.parameters.get("minibatch") != _LOWY_REPLACEMENT]
    for step in steps:
        if step.law == "none":
            continue
        if step.adaptive:
            raise _unavailable(step, "adaptive (its law is recorded at one state only, with no bound over every state)")
        p = step.parameters
        if step.law == "exponential mechanism":
            if p.get("weights") != _EM_WEIGHTS:
                raise _unavailable(step, f"exponential mechanism weights {p.get('weights')!r}, not {_EM_WEIGHTS!r}")
            pending_em.append(step)
            continue
        if step.law == "laplace":
            if "location given bin" not in step.on_d0 or not pending_em:
                raise _unavailable(step, "a Laplace release not conditioned on a recorded PrivateRange bin")
            em = pending_em.pop(0)
            loc0, loc1 = step.on_d0["location given bin"], step.on_d1["location given bin"]
            if len(loc0) != len(em.on_d0["counts"]):
                raise _unavailable(step, "one location per bin expected")
            _shift(loc0, loc1)  # same lengths on both sides
            out.append(ProfileStep(range_then_laplace_profile(
                list(em.on_d0["counts"]), list(em.on_d1["counts"]), float(em.parameters["epsilon"]), list(loc0), list(loc1),
                float(p["scale"]))))
            continue
        flush(tests=step.law != "gaussian")  # a Gaussian right after a laplace test is released on its pass
        if step.law == "truncated discrete laplace test":
            k0, k1 = int(step.on_d0["k"]), int(step.on_d1["k"])
            if k0 != k1:
                out.append(ProfileStep(tdlap_flag_profile(k0, k1, float(p["eps_bar"]), int(p["kappa"]))))
            continue
        if step.law == "laplace test":
            _laplace_test_inputs(step)  # refused here if its rule or scores are not recorded
            pending_test.append(step)
            continue
        if step.law == "gaussian" and pending_test:
            joint = _test_then_gaussian(pending_test.pop(), step)
            if joint is not None:
                out.append(ProfileStep(joint))
            continue
        if step.law == "gaussian":
            branches = _gaussian_branches(step)
            if any(any(s) for s in branches):
                out.append(Adaptive(tuple(GaussianStep(s, float(p["sigma"])) for s in branches)))
            continue
        if step.law == "above threshold" and p.get("rule") == _LOWY_RULE and "minibatch" not in p:
            lowy_tests.append(step)
            continue
        if step.law == "above threshold" and p.get("variant") == _G25_RULE and "scores" in step.on_d0:
            q0, q1 = [float(v) for v in step.on_d0["scores"]], [float(v) for v in step.on_d1["scores"]]
            if q0 != q1:
                spec = ThresholdSpec(float(p["threshold"]), float(p["threshold scale"]), float(p["query scale"]), 1, "below")
                out.append(ProfileStep(threshold_profile(spec, q0, q1, description=step.release)))
            continue
        raise _unavailable(step, f"law {step.law!r} in this form is not a composition of mechanisms dpaudit.exact computes")
    flush()
    out += _lowy_tests(lowy_tests)
    return out


def _laplace_test_inputs(step: TranscriptStep) -> tuple[float, float, float, float]:
    """``(score on d0, score on d1, threshold, scale)`` of a Lowy et al. Algorithm 1 test record, or ``ProfileUnavailable``."""
    p = step.parameters
    if p.get("rule") != _LOWY_ALG1_RULE or "score" not in step.on_d0 or "score" not in step.on_d1:
        raise _unavailable(step, f"a laplace test without the rule {_LOWY_ALG1_RULE!r} and a score on each side")
    return float(step.on_d0["score"]), float(step.on_d1["score"]), float(p["threshold"]), float(p["scale"])


def _test_then_gaussian(test: TranscriptStep, step: TranscriptStep) -> PrivacyProfile | None:
    """The joint law of Lowy et al.'s Algorithm 1 test and the Gaussian released on a pass; ``None`` if it is the same on both sides.

    [LLA24, Alg 1 lines 12-13 and 25]: pass iff ``score + Lap(scale) >= threshold`` and the kept set
    is not empty (dpaudit's reading: an empty set is a halt), then ``N(mean of the kept iterates,
    sigma^2 I)``. Covered when every ramp coin is 0 or 1 on both sides (the kept set and the mean are
    fixed) and the kept set is not empty.
    """
    s0, s1, thr, scale = _laplace_test_inputs(test)
    key = "location if the coins are their means"
    probs = [tuple(side.get("inclusion probabilities") or ()) for side in (step.on_d0, step.on_d1)]
    if not all(pr and all(v in (0.0, 1.0) for v in pr) for pr in probs) or not all(key in side for side in (step.on_d0, step.on_d1)):
        raise _unavailable(step, "a Gaussian after a laplace test whose ramp coins are not all 0 or 1 (a mixture over "
                                 "the kept sets)")
    if not all(any(v == 1.0 for v in pr) for pr in probs):
        raise _unavailable(step, "a Gaussian after a laplace test with an empty kept set on a side (every run halts there)")
    shift = _shift(step.on_d0[key], step.on_d1[key])
    if s0 == s1 and not any(shift):
        return None
    return laplace_test_then_gaussian_profile(s0, s1, thr, scale, shift, float(step.parameters["sigma"]))


def _lowy_tests(steps: Sequence[TranscriptStep]) -> list[Step]:
    """Lowy et al. 2024's Algorithm 2 answers as exact steps.

    One AboveThreshold call per ``call`` (threshold noise once), or (``"fresh every step"``, pitfall P10) one
    single-query test per step.

    The answer ``t`` is "halt" iff ``-score_t + Lap(b_q) >= -threshold + Lap(b_t)`` [LLA24, Alg 2 line 4]: the
    sparse vector "above" rule with cutoff 1 on the negated scores (:func:`dpaudit.exact.threshold_profile`).
    With fresh threshold noise the answers are independent single-query tests released up to the first
    halt: the exact law of the first halting step (:func:`_first_halt_profile`).
    """
    out: list[Step] = []
    calls: dict[Any, list[TranscriptStep]] = {}
    for step in steps:
        calls.setdefault(step.parameters.get("call"), []).append(step)
    for group in calls.values():
        p = group[0].parameters
        spec = ThresholdSpec(-float(p["threshold"]), float(p["threshold scale"]), float(p["query scale"]), 1, "above")
        q0, q1 = [-float(s.on_d0["score"]) for s in group], [-float(s.on_d1["score"]) for s in group]
        if q0 == q1:
            continue
        if p.get("threshold noise") == "once per call":
            out.append(ProfileStep(threshold_profile(spec, q0, q1, description=f"AboveThreshold call {p.get('call')}")))
            continue
        if p.get("threshold noise") != "fresh every step":
            raise _unavailable(group[0], f"threshold noise {p.get('threshold noise')!r} not recorded as once per call or fresh")
        out.append(ProfileStep(_first_halt_profile([threshold_profile(spec, [a], [b], description="one test")
                                                    for a, b in zip(q0, q1, strict=True)])))
    return out


def _ball(lo: float, hi: float) -> Any:
    """An Arb ball holding ``[lo, hi]`` (both float ends, widened by one ulp of the midpoint)."""
    from flint import arb

    mid = 0.5 * (lo + hi)
    return arb(mid, 0.5 * (hi - lo) + abs(mid) * 2.0**-51 + 2.0**-1074)


def _first_halt_profile(tests: Sequence[Any]) -> PrivacyProfile:
    """The exact law of the first halting step among independent single-query tests (or none), on each side.

    Each ``tests[t]`` is the finite profile of one answer (labels ``("⊥", "⊤")``, ``⊤`` halting); the
    answers released are the steps up to the first halt, so ``P(halt at t) = prod_{s < t} P(⊥_s) P(⊤_t)``
    and ``P(no halt) = prod_s P(⊥_s)``: a finite law, exact (Arb balls).
    """
    from flint import arb

    from dpaudit.exact.enclosure import precision
    from dpaudit.exact.finite import finite_from_arbs

    with precision():
        laws = []
        for side in ("p", "q"):
            go, law = arb(1), []
            for test in tests:
                if tuple(test.labels) != ("⊥", "⊤"):
                    raise ProfileUnavailable(f"a single test's outcomes {test.labels!r}, not ('⊥', '⊤')")
                lo, hi = getattr(test, f"{side}_lo"), getattr(test, f"{side}_hi")
                law.append(go * _ball(float(lo[1]), float(hi[1])))
                go = go * _ball(float(lo[0]), float(hi[0]))
            laws.append([*law, go])
    labels = [f"halt at step {t + 1}" for t in range(len(tests))] + ["no halt"]
    return finite_from_arbs(laws[0], laws[1], labels=labels,
                            description=f"first halt among {len(tests)} tests, fresh threshold noise each (exact)")


def _identical() -> PrivacyProfile:
    from dpaudit.exact import IdenticalProfile

    return IdenticalProfile()


def transcript_profile(steps: Sequence[TranscriptStep], *, description: str = "") -> PrivacyProfile:
    """The certified privacy profile of a transcript on its pair (``ProfileUnavailable`` when not covered)."""
    exact_steps = transcript_exact_steps(steps)
    if not exact_steps:
        return _identical()
    gaussian = [s for s in exact_steps if _is_gaussian(s)]
    if len(gaussian) > 1 and len(gaussian) < len(exact_steps):
        # the Gaussians stack into one pair in closed form [DRS19, Cor. 3.3] before the rest composes on a grid:
        # one grid composition instead of one per step (whose bracket widens with every step)
        exact_steps = [ProfileStep(compose(gaussian)), *(s for s in exact_steps if not _is_gaussian(s))]
    return compose(exact_steps, description=description or None)


def _is_gaussian(step: Step) -> bool:
    return isinstance(step, GaussianStep) or (isinstance(step, Adaptive) and all(isinstance(o, GaussianStep) for o in step.options))


def _digest(data: Any) -> str:
    arr = np.ascontiguousarray(np.asarray(data, dtype=np.float64))
    return hashlib.sha256(repr(arr.shape).encode() + arr.tobytes()).hexdigest()


@dataclass(frozen=True)
class ProfiledTranscript:
    """A full algorithm in transcript mode that declares its profile on the worst-case pair it was built for.

    ``sample`` and ``claimed_guarantee`` (and every other attribute) are the wrapped mechanism's.
    ``privacy_profile(d0, d1)`` is :func:`transcript_profile` of ``steps(mechanism, d0, d1)`` when
    ``(d0, d1)`` is the pair (either order), else :class:`~dpaudit.exact.ProfileUnavailable`: the
    records describe the laws on that pair only (its linear losses make the steps non-adaptive).
    Built by :meth:`dpaudit.userlevel.transcript.WorstPair.profiled`.
    """

    mechanism: Any
    pair_digests: tuple[str, str]
    steps: Callable[[Any, Any, Any], tuple[TranscriptStep, ...]] = field(repr=False)

    def __post_init__(self) -> None:
        if getattr(self.mechanism, "observe", None) != "transcript":
            raise argument_error("ProfiledTranscript", "mechanism", "a mechanism with observe='transcript'",
                                 getattr(self.mechanism, "observe", None))

    @classmethod
    def of(cls, mechanism: Any, d0: Any, d1: Any, steps: Callable[[Any, Any, Any], tuple[TranscriptStep, ...]]) -> ProfiledTranscript:
        """The wrapper of ``mechanism`` (transcript mode) for the pair ``(d0, d1)``."""
        return cls(mechanism, (_digest(d0), _digest(d1)), steps)

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> Any:
        """The wrapped mechanism's transcript rows."""
        return self.mechanism.sample(data, size, rng=rng)

    def claimed_guarantee(self) -> Any:
        """The wrapped mechanism's claim."""
        return self.mechanism.claimed_guarantee()

    def privacy_profile(self, d0: Any, d1: Any) -> PrivacyProfile:
        """The transcript's certified profile on the pair it was built for (see the class docstring)."""
        if sorted((_digest(d0), _digest(d1))) != sorted(self.pair_digests):
            raise ProfileUnavailable("the transcript records describe the worst-case pair this mechanism was built for only")
        return transcript_profile(self.steps(self.mechanism, d0, d1), description=f"{type(self.mechanism).__name__} transcript")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("mechanism", "pair_digests", "steps"):
            raise AttributeError(name)
        return getattr(self.mechanism, name)
