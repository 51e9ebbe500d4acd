"""The audit result: the verdict with its evidence, as text and as JSON.

Stability contract (after dp_accounting's ``dp_event``): fields are never removed or renamed, new
fields are optional, and the meaning of a field never changes; ``schema_version`` is bumped when
fields are added.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["SCHEMA_VERSION", "AuditResult", "EventEvidence"]

SCHEMA_VERSION = 1


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

    @property
    def verdict(self) -> str:
        return "VIOLATION" if self.violation else "no violation found"

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(asdict(self))

    def to_json(self, indent: int | None = 2) -> str:
        """JSON text; non-finite floats are written as the strings "inf", "-inf"."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def to_text(self) -> str:
        ev = self.evidence
        lines = [
            f"dpaudit audit of {self.mechanism}",
            f"  claim             : epsilon = {self.claimed_epsilon:g} at delta = {self.delta:g}",
            f"  epsilon >= {self.epsilon_lower_bound:.4f}  (confidence {self.confidence:g})  ->  {self.verdict}",
            f"  attack            : {ev.attack}; event {{{ev.event}}}, {ev.numerator} on the numerator",
            f"  counts            : {ev.count_numerator} vs {ev.count_denominator} of {ev.n} fresh trials per dataset",
            f"  P[numerator]      : [{ev.p_numerator_interval[0]:.6g}, {ev.p_numerator_interval[1]:.6g}]",
            f"  P[denominator]    : [{ev.p_denominator_interval[0]:.6g}, {ev.p_denominator_interval[1]:.6g}]",
            f"  trials            : {self.trials} per dataset ({self.selection_trials} selection, "
            f"{self.estimation_trials} estimation; {self.candidates_evaluated} candidate(s) paid for)",
            f"  outputs           : {self.output_kind}",
        ]
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
        lines.extend(f"  note              : {note}" for note in self.notes)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return "inf" if value > 0 else ("-inf" if value < 0 else "nan")
    return value
