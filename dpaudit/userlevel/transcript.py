"""Threat models of the user-level algorithms, and a plain record of what each transcript entry releases.

Every full algorithm of the four papers takes ``observe``:

``"final"`` (default)
    The adversary sees the algorithm's output only (its ``sample`` as the paper states it).
``"transcript"``
    The adversary sees every noisy release the algorithm makes on the way: each private gradient
    or iterate, each test outcome, each private range, each phase's noisy output. The papers'
    privacy proofs cover this (they compose the releases, and the output is a post-processing of
    them), so the claim is the same; an audit of the transcript sees each release's spend directly
    where the final output blurs it with later noise [NSTPC21; NHSBT23]. ``sample`` then returns
    one flat row per run, a mixed vector of values and atoms (:mod:`dpaudit.auditor.features`).

For each algorithm a ``transcript_steps`` function (in the paper's package, next to its worst-case
pair) returns :class:`TranscriptStep` records: which mechanism each transcript coordinate releases
on a given pair (the noise law, its scale, the shift between ``d0`` and ``d1``, whether the step
is adaptive). They are plain data, for wiring each transcript to an exact privacy calculator.

References
----------
.. [NSTPC21] M. Nasr, S. Song, A. Thakurta, N. Papernot and N. Carlini. Adversary instantiation:
   lower bounds for differentially private machine learning. IEEE S&P 2021.
.. [NHSBT23] M. Nasr, J. Hayes, T. Steinke, B. Balle, F. Tramèr, M. Jagielski, N. Carlini and
   A. Terzis. Tight auditing of differentially private machine learning. USENIX Security 2023.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from dpaudit._validation import check_one_of

__all__ = ["LAWS", "OBSERVE_MODES", "Observe", "TranscriptStep", "WorstPair", "check_observe", "steps_as_dicts"]

Observe = Literal["final", "transcript"]
OBSERVE_MODES: tuple[str, ...] = ("final", "transcript")

#: The noise laws a step can name (``"none"``: the entry is a deterministic function of earlier ones).
LAWS = ("laplace", "gaussian", "exponential mechanism", "above threshold", "laplace test",
        "truncated discrete laplace test", "ramp coins", "none")


def check_observe(owner: str, value: Any) -> str:
    """``value`` if it is one of :data:`OBSERVE_MODES`, else :class:`~dpaudit.errors.InvalidArgument`."""
    return str(check_one_of(owner, "observe", value, OBSERVE_MODES))


@dataclass(frozen=True)
class TranscriptStep:
    """What a block of transcript columns releases on one neighbouring pair.

    Attributes
    ----------
    columns : (int, int)
        ``[start, stop)`` in the flat transcript row.
    release : str
        What is released, in the paper's words (e.g. ``"step 3: noisy rotated gradient mean"``).
    law : str
        The mechanism: one of :data:`LAWS`.
    parameters : mapping of str to float
        Its public constants (``scale``, ``sigma``, ``epsilon``, ``threshold``, ``sensitivity``, ...).
    on_d0, on_d1 : mapping of str to float or tuple
        The data-dependent inputs of the mechanism on each dataset (a location, a score, bin
        counts), all on the worst-case pair the step was computed for.
    adaptive : bool
        Whether the step's law on this pair depends on earlier releases. On the worst-case pairs
        with linear losses the gradients do not depend on the iterate, so the steps are not.
    budget : mapping of str to float
        The claim's share for this step (``epsilon``, ``delta``), as the paper's proof allots it.
    note : str
        Anything the exact calculator must know (conditioning, post-processing).
    """

    columns: tuple[int, int]
    release: str
    law: str
    parameters: Mapping[str, Any] = field(default_factory=dict)
    on_d0: Mapping[str, Any] = field(default_factory=dict)
    on_d1: Mapping[str, Any] = field(default_factory=dict)
    adaptive: bool = False
    budget: Mapping[str, float] = field(default_factory=dict)
    note: str = ""

    def __post_init__(self) -> None:
        check_one_of("TranscriptStep", "law", self.law, LAWS)

    def as_dict(self) -> dict[str, Any]:
        """The record as nested builtins (JSON-ready)."""
        out = asdict(self)
        out["columns"] = list(self.columns)
        for key in ("parameters", "on_d0", "on_d1", "budget"):
            out[key] = dict(out[key])
        return out


def steps_as_dicts(steps: tuple[TranscriptStep, ...] | list[TranscriptStep]) -> list[dict[str, Any]]:
    """Every step as a plain dictionary."""
    return [s.as_dict() for s in steps]


@dataclass(frozen=True, eq=False)
class WorstPair:
    """A full algorithm, the worst-case pair built for it, and the claim to audit it against.

    Attributes
    ----------
    algorithm : str
        The paper and algorithm (e.g. ``"Levy et al. 2021, Algorithm 3"``).
    mechanism : Mechanism
        The algorithm, configured for the pair, with ``observe="final"``.
    d0, d1 : ndarray
        The pair (user-level replacement neighbours).
    epsilon, delta : float
        The claim audited against: the paper's guarantee for this configuration, in its tightest
        form the paper's own lemmas give (``claim_note`` says which).
    claim_note : str
        Where the claim comes from.
    reasoning : str
        Why the pair is a worst case (which part of the proof each user sits at).
    steps : callable
        ``steps(mechanism, d0, d1) -> tuple[TranscriptStep, ...]``: what each transcript column
        releases on the pair (see :class:`TranscriptStep`).
    """

    algorithm: str
    mechanism: Any
    d0: Any
    d1: Any
    epsilon: float
    delta: float
    claim_note: str
    reasoning: str
    steps: Callable[[Any, Any, Any], tuple[TranscriptStep, ...]] = field(repr=False)

    def observed(self, observe: str) -> Any:
        """The mechanism with ``observe`` set (``"final"`` or ``"transcript"``)."""
        check_observe(f"{type(self).__name__}.observed", observe)
        return dataclasses.replace(self.mechanism, observe=observe)

    def transcript_steps(self) -> tuple[TranscriptStep, ...]:
        """What each transcript column releases on this pair."""
        return self.steps(self.observed("transcript"), self.d0, self.d1)

    def profiled(self) -> Any:
        """The transcript-mode mechanism declaring its certified profile on this pair.

        A :class:`dpaudit.userlevel.transcript_profile.ProfiledTranscript`: an audit of it reports the
        pair's certified epsilon (``epsilon_upper``) beside its lower bound, or why not.
        """
        from dpaudit.userlevel.transcript_profile import ProfiledTranscript

        return ProfiledTranscript.of(self.observed("transcript"), self.d0, self.d1, self.steps)
