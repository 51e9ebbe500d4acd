"""The audit result: the verdict with its evidence, as text and as JSON.

Stability contract (after dp_accounting's ``dp_event``): fields are never removed or renamed, new
fields are optional, and the meaning of a field never changes; ``schema_version`` is bumped when
fields are added.

Schema versions: 1, the audit's lower bound and its evidence; 2 adds the other side of the bracket
(``epsilon_upper``, ``epsilon_computed_lower``, ``profile_kind``, ``profile_description``,
``profile_note``, ``profile_curve``, ``bracket_verdict``; the profile's time is in ``total_seconds``), computed by
:mod:`dpaudit.exact.bracket` when the mechanism declares its structure; 3 adds the stages of an adaptive audit
(``trials="auto"``: ``stages``, ``stop_reason``, ``max_trials``, ``max_seconds``, ``reproduce``; empty or
``None`` for a fixed trial count, whose fields keep their meaning).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = [
    "BRACKET_VERDICTS",
    "CLAIM_ROUNDING",
    "LOOSE_FACTOR",
    "SCHEMA_VERSION",
    "STOP_REASONS",
    "AuditResult",
    "EventEvidence",
    "StageRecord",
    "bracket_verdict",
]

SCHEMA_VERSION = 3

#: A claim is refuted by computation only when the certified lower end exceeds it by more than this
#: relative amount: the claim is itself a float (``ln(9/8)`` rounded), and a smaller excess is
#: reported as "at the claim".
CLAIM_ROUNDING = 1e-9
#: "loose on this pair" when the claim is at least this many times the certified upper bound.
LOOSE_FACTOR = 1.1

#: The two-sided verdicts, from the audit's lower bound and the computed bracket.
BRACKET_VERDICTS = {
    "wrong declaration": "the audit's lower bound exceeds the certified upper bound of the mechanism's declared "
    "profile: the declaration is not the mechanism's law (or the audit hit its 1 - confidence chance)",
    "refuted by the audit and by computation": "both the audit's lower bound and the certified epsilon of the pair exceed the claim",
    "refuted by computation": "the certified epsilon of the pair exceeds the claim: a proof, no sampling",
    "refuted by the audit": "the audit's lower bound exceeds the claim",
    "consistent": "the pair's epsilon lies in [lower bound, certified upper bound], and the claim is at least the upper bound",
    "loose on this pair": "the certified upper bound on this pair is below the claim by the stated factor",
    "at the claim": "the pair's certified epsilon equals the claim up to the claim's float rounding",
    "undecided": "the claim lies inside the computed bracket (or above an upper-bound-only figure's lower end)",
    "lower bound only": "no declared structure: only the audit's lower bound is known",
}


#: Why an adaptive audit (``trials="auto"``) stopped: the values of :attr:`AuditResult.stop_reason`.
STOP_REASONS = {
    "violation": "a stage's lower bound exceeded the claim: the violation is established",
    "budget": "the last stage within max_trials was run",
    "out of reach": "no evidence that a violation is within reach at max_trials: the GDP estimate, the bound "
    "of the stage's event extrapolated to later stages, and the bound a fresh selection predicts for the last "
    "stage are all at most the claim",
    "stage limit": "max_stages stages were run",
    "time": "max_seconds: the next stage could not finish in time (or was cut short, and its partial sample "
    "discarded); a time-based stop depends on the machine's speed, so rerun with max_stages to reproduce it",
}


@dataclass(frozen=True)
class StageRecord:
    """One stage of an adaptive audit (``trials="auto"``).

    Stage ``stage`` ends at ``trials`` trials per dataset. Its events were chosen on the first
    ``selection_trials`` trials (all drawn by earlier stages) and counted on the ``estimation_trials``
    trials ending at ``trials``, which no selection of this stage read; ``alpha`` is the error
    probability spent on it (fixed in advance, whatever the budget). ``reach`` is the largest bound the
    stage's event is predicted to give at a later stage within ``max_trials`` (from its fresh counts
    taken as the truth; ``None`` without a later stage); ``predicted_at_budget`` the best bound a
    selection on the next stage's selection rows predicts for the last stage within ``max_trials``,
    computed only when the GDP estimate and the reach were both at most the claim.
    ``decision`` is what followed: ``"continue"`` or one of :data:`STOP_REASONS`.
    """

    stage: int
    trials: int
    selection_trials: int
    estimation_trials: int
    alpha: float
    epsilon_lower_bound: float
    violation: bool
    event: str
    gdp_epsilon_estimate: float | None
    reach: float | None
    predicted_at_budget: float | None
    seconds: float
    decision: str


@dataclass(frozen=True)
class EventEvidence:
    """Counts and intervals for one event evaluated on the estimation split.

    ``numerator`` names the dataset whose probability is bounded from below (``"d0"`` or ``"d1"``);
    the other is bounded from above. Intervals are Clopper-Pearson at the per-limit level used.
    """

    attack: str
    event: str
    numerator: str
    count_numerator: int
    count_denominator: int
    n: int
    p_numerator_interval: tuple[float, float]
    p_denominator_interval: tuple[float, float]
    value: float


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`dpaudit.audit`.

    Attributes
    ----------
    epsilon_lower_bound : float
        Lower confidence bound on the mechanism's epsilon at ``delta``, valid with probability at
        least ``confidence`` (over the audit's own randomness) whatever the mechanism.
    violation : bool
        ``epsilon_lower_bound > claimed_epsilon``.
    evidence : EventEvidence
        The event behind the bound, with counts and intervals.
    gdp_mu_lower_bound, gdp_epsilon_estimate : float or None
        An *estimate*, not a verdict: a lower confidence bound on mu for a mu-GDP claim, and the
        epsilon at ``delta`` it implies if the trade-off curve has the Gaussian shape
        [Nasr et al. 2023]. ``None`` when not computed.
    epsilon_upper : float or None
        Certified upper bound on the epsilon *of this pair* at ``delta``, from the mechanism's
        declared privacy profile (:mod:`dpaudit.exact`); ``None`` without declared structure. It is
        about the pair audited, not a proof of privacy over all pairs.
    epsilon_computed_lower : float or None
        Certified lower bound on the pair's epsilon from the same computation, when the profile is
        the pair's exact law (``profile_kind == "exact"``); it refutes a claim below it.
    profile_kind, profile_description, profile_note : str or None
        ``"exact"`` or ``"upper bound"`` (a dominating pair), what the profile is, and why there is
        none when there is none.
    profile_curve : tuple of (epsilon, delta_lo, delta_hi)
        The pair's privacy profile on a grid of epsilons (the truth lies between), for plots.
    bracket_verdict : str
        The two-sided verdict, one of :data:`BRACKET_VERDICTS` (see :func:`bracket_verdict`).
    trials, selection_trials, estimation_trials : int
        Trials drawn per dataset; the selection and estimation rows behind ``evidence`` (for an
        adaptive audit, those of the stage whose bound is reported: ``trials`` is then more than
        their sum).
    stages : tuple of StageRecord
        An adaptive audit's stages, in order (empty for a fixed trial count). The reported bound
        is the largest of the stages' bounds; the stages' ``alpha`` sum to at most
        ``1 - confidence`` (:mod:`dpaudit.auditor.adaptive`).
    stop_reason : str or None
        Why an adaptive audit stopped, one of :data:`STOP_REASONS`; ``"time"`` marks a stop that
        depends on the machine's speed (``reproduce`` then gives the arguments that redo it).
    max_trials, max_seconds : int or float or None
        The adaptive audit's budget.
    reproduce : str or None
        The :func:`dpaudit.audit` arguments that reproduce an adaptive audit's result exactly.
    """

    mechanism: str
    claimed_epsilon: float
    delta: float
    confidence: float
    epsilon_lower_bound: float
    violation: bool
    evidence: EventEvidence
    trials: int
    selection_trials: int
    estimation_trials: int
    candidates_evaluated: int
    output_kind: str
    seed_entropy: int
    block_size: int
    sampling_seconds: float
    selection_seconds: float
    estimation_seconds: float
    total_seconds: float
    gdp_mu_lower_bound: float | None = None
    gdp_epsilon_estimate: float | None = None
    gdp_evidence: EventEvidence | None = None
    notes: tuple[str, ...] = ()
    schema_version: int = field(default=SCHEMA_VERSION)
    epsilon_upper: float | None = None
    epsilon_computed_lower: float | None = None
    profile_kind: str | None = None
    profile_description: str | None = None
    profile_note: str | None = None
    profile_curve: tuple[tuple[float, float, float], ...] = ()
    bracket_verdict: str = "lower bound only"
    stages: tuple[StageRecord, ...] = ()
    stop_reason: str | None = None
    max_trials: int | None = None
    max_seconds: float | None = None
    reproduce: str | None = None

    @property
    def verdict(self) -> str:
        """``"VIOLATION"`` when the lower bound exceeds the claim, else ``"no violation found"``."""
        return "VIOLATION" if self.violation else "no violation found"

    @property
    def time_limited(self) -> bool:
        """The adaptive audit stopped on ``max_seconds``: where it stopped depends on the machine's speed."""
        return self.stop_reason == "time"

    @property
    def refuted_by_computation(self) -> bool:
        """The certified epsilon of the pair (an exact profile) exceeds the claim."""
        return self.bracket_verdict in ("refuted by computation", "refuted by the audit and by computation")

    @property
    def claim_refuted(self) -> bool:
        """Refuted by the audit (``violation``) or by computation; what the command line's exit status 1 means."""
        return self.violation or self.refuted_by_computation

    @property
    def wrong_declaration(self) -> bool:
        """True when the lower bound exceeds what the mechanism's declared profile allows (``bracket_verdict == "wrong declaration"``)."""
        return self.bracket_verdict == "wrong declaration"

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON-ready values (tuples as lists, non-finite floats as strings)."""
        return _jsonable(asdict(self))

    def to_json(self, indent: int | None = 2) -> str:
        """JSON text; non-finite floats are written as the strings "inf", "-inf"."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def to_text(self) -> str:
        """The result as the plain-text block the CLI prints (claim, bound, verdict, the attack's evidence, the stages)."""
        ev = self.evidence
        lines = [
            f"dpaudit audit of {self.mechanism}",
            f"  claim             : epsilon = {self.claimed_epsilon:g} at delta = {self.delta:g}",
            f"  epsilon >= {self.epsilon_lower_bound:.4f}  (confidence {self.confidence:g})  ->  {self.verdict}",
            f"  attack            : {ev.attack}; event {{{ev.event}}}, {ev.numerator} on the numerator",
            f"  counts            : {ev.count_numerator} vs {ev.count_denominator} of {ev.n} fresh trials per dataset",
            f"  P[numerator]      : [{ev.p_numerator_interval[0]:.6g}, {ev.p_numerator_interval[1]:.6g}]",
            f"  P[denominator]    : [{ev.p_denominator_interval[0]:.6g}, {ev.p_denominator_interval[1]:.6g}]",
            self._trials_line(),
            f"  outputs           : {self.output_kind}",
        ]
        lines.extend(self._stage_lines())
        if self.gdp_mu_lower_bound is not None:
            eps = "n/a" if self.gdp_epsilon_estimate is None else f"{self.gdp_epsilon_estimate:.4f}"
            lines.append(
                f"  GDP estimate      : mu >= {self.gdp_mu_lower_bound:.4f}, epsilon ~ {eps} "
                "(assumes a Gaussian trade-off curve; not the verdict)"
            )
        lines.append(
            f"  seed entropy      : {self.seed_entropy} (block size {self.block_size})"
        )
        lines.append(
            f"  time              : {self.total_seconds:.2f} s (sampling {self.sampling_seconds:.2f}, "
            f"selection {self.selection_seconds:.2f}, estimation {self.estimation_seconds:.2f})"
        )
        lines.extend(self._bracket_lines())
        lines.extend(f"  note              : {note}" for note in self.notes)
        return "\n".join(lines)

    def _trials_line(self) -> str:
        split = (f"{self.selection_trials} selection, {self.estimation_trials} estimation; "
                 f"{self.candidates_evaluated} candidate(s) paid for")
        if not self.stages:
            return f"  trials            : {self.trials} per dataset ({split})"
        best = max(self.stages, key=lambda st: st.epsilon_lower_bound)
        return (f"  trials            : {self.trials} per dataset in {len(self.stages)} stage(s) (trials=\"auto\"); "
                f"the bound is stage {best.stage}'s ({split})")

    def _stage_lines(self) -> list[str]:
        if not self.stages:
            return []
        out = ["  stages            : stage    trials   alpha     bound  GDP est   reach  at max  then"]

        def shown(value: float | None) -> str:
            return "-" if value is None else f"{value:.3f}"

        for st in self.stages:
            out.append(f"                      {st.stage:5d} {st.trials:9d}  {st.alpha:.2e}  {st.epsilon_lower_bound:7.4f}  "
                       f"{shown(st.gdp_epsilon_estimate):>7}  {shown(st.reach):>6}  {shown(st.predicted_at_budget):>6}  "
                       f"{st.decision}")
        budget = f"max_trials {self.max_trials}" + ("" if self.max_seconds is None else f", max_seconds {self.max_seconds:g}")
        out.append(f"  stopped           : {self.stop_reason} ({STOP_REASONS.get(self.stop_reason or '', '?')}); {budget}")
        if self.reproduce:
            out.append(f"  reproduce         : {self.reproduce}")
        return out

    def bracket_rows(self) -> list[tuple[str, str]]:
        """The two-sided part of the result as (label, text) rows, for reports."""
        return [(line[:20].strip(), line[22:]) for line in self._bracket_lines()]

    def _bracket_lines(self) -> list[str]:
        if self.epsilon_upper is None:
            reason = self.profile_note or "the mechanism declares no structure"
            return [f"  exact on pair     : none ({reason}); lower bound only"]
        if self.epsilon_computed_lower is not None:
            figure = f"epsilon in [{self.epsilon_computed_lower:.6g}, {self.epsilon_upper:.6g}] (certified, exact profile)"
        else:
            figure = f"epsilon <= {self.epsilon_upper:.6g} (certified upper bound: a dominating pair)"
        return [
            f"  exact on pair     : {figure}; this pair only, not a proof over all pairs",
            f"  bracket           : [{self.epsilon_lower_bound:.4f}, {self.epsilon_upper:.4f}] against the claim "
            f"{self.claimed_epsilon:g}  ->  {self.bracket_verdict}{self._loose_text()}",
            f"  profile           : {self.profile_description}",
        ]

    def _loose_text(self) -> str:
        if self.bracket_verdict != "loose on this pair" or self.epsilon_upper is None:
            return ""
        if self.epsilon_upper == 0:
            return " (the two laws are identical)"
        return f" (claim / upper = {self.claimed_epsilon / self.epsilon_upper:.3g}x)"

    def __str__(self) -> str:
        return self.to_text()


def bracket_verdict(
    lower_bound: float, violation: bool, claimed: float, upper: float | None, computed_lower: float | None
) -> str:
    """The two-sided verdict (one key of :data:`BRACKET_VERDICTS`).

    In order: a declared profile that the audit's lower bound exceeds is a *wrong declaration*
    (its figures are then not used); a certified lower end above the claim (beyond
    :data:`CLAIM_ROUNDING`) *refutes by computation*; a lower bound above the claim *refutes by the
    audit*; a certified upper bound at most the claim is *consistent*, or *loose on this pair* when
    the claim is at least :data:`LOOSE_FACTOR` times it; a bracket within the claim's rounding is
    *at the claim*; anything else is *undecided*.
    """
    if upper is None:
        return "refuted by the audit" if violation else "lower bound only"
    if lower_bound > upper:
        return "wrong declaration"
    slack = CLAIM_ROUNDING * max(abs(claimed), 1e-300)
    if computed_lower is not None and computed_lower > claimed + slack:
        return "refuted by the audit and by computation" if violation else "refuted by computation"
    if violation:
        return "refuted by the audit"
    if upper <= claimed:
        return "loose on this pair" if upper * LOOSE_FACTOR <= claimed and claimed > 0 else "consistent"
    if computed_lower is not None and upper <= claimed + slack:
        return "at the claim"
    return "undecided"


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return "inf" if value > 0 else ("-inf" if value < 0 else "nan")
    return value


class ClaimRecord:
    """The verdict line and strict-JSON export shared by the scores-in and one-run results (dataclasses)."""

    claimed_epsilon: float | None
    violation: bool

    @property
    def verdict(self) -> str:
        """``"VIOLATION"``, ``"no violation found"`` or ``"no claim given"``."""
        if self.claimed_epsilon is None:
            return "no claim given"
        return "VIOLATION" if self.violation else "no violation found"

    def to_dict(self) -> dict[str, Any]:
        """The record as plain data; non-finite floats become the strings "inf", "-inf", "nan"."""
        return _jsonable(asdict(self))  # type: ignore[call-overload]

    def to_json(self, indent: int | None = 2) -> str:
        """JSON text; non-finite floats are written as the strings "inf", "-inf"."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)
