"""The result of a one-run audit: the bound, the guesses behind it, and every plan paid for."""

from __future__ import annotations

from dataclasses import dataclass, field

from dpaudit.auditor.result import ClaimRecord

__all__ = ["ONE_RUN_SCHEMA_VERSION", "GuessOutcome", "OneRunResult"]

ONE_RUN_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class GuessOutcome:
    """One guess plan: ``k_plus`` top scores guessed in, ``k_minus`` bottom ones out, ``correct`` right.

    ``epsilon`` is its [SNJ23] bound and ``mu`` its [MMC24] Gaussian bound, each at the level the
    union over the plans leaves it.
    """

    k_plus: int
    k_minus: int
    correct: int
    epsilon: float
    mu: float

    @property
    def guesses(self) -> int:
        """``k_plus + k_minus``: how many slots the plan guesses on."""
        return self.k_plus + self.k_minus


@dataclass(frozen=True)
class OneRunResult(ClaimRecord):
    """Outcome of a one-run audit (:func:`dpaudit.one_run.audit_canaries` and friends).

    Attributes
    ----------
    epsilon_lower_bound : float
        Lower confidence bound on epsilon at ``delta`` [SNJ23, Thm 3.1], valid with probability at
        least ``confidence`` over the inclusion coins and the run, after the union over ``plans``.
    violation : bool
        ``epsilon_lower_bound > claimed_epsilon`` (False when no claim was given).
    best : GuessOutcome
        The plan behind the bound.
    gdp_mu_lower_bound, gdp_epsilon_estimate : float or None
        [MMC24] with the Gaussian trade-off curve: a lower confidence bound on mu (falsifies mu-GDP
        claims below it) and the epsilon at ``delta`` of that mu: an *estimate* that assumes a
        Gaussian-shaped trade-off curve, never the verdict.
    """

    mechanism: str
    canaries: int
    included: int
    claimed_epsilon: float | None
    delta: float
    confidence: float
    epsilon_lower_bound: float
    violation: bool
    best: GuessOutcome
    plans: tuple[GuessOutcome, ...]
    gdp_mu_lower_bound: float
    gdp_epsilon_estimate: float | None
    seed_entropy: int | None = None
    run_seconds: float | None = None
    notes: tuple[str, ...] = ()
    schema_version: int = field(default=ONE_RUN_SCHEMA_VERSION)

    def to_text(self) -> str:
        """The result as the plain-text block the CLI prints (claim, bound, verdict, the guesses)."""
        b = self.best
        claim = "none" if self.claimed_epsilon is None else f"epsilon = {self.claimed_epsilon:g}"
        lines = [
            f"dpaudit one-run audit of {self.mechanism}",
            f"  claim             : {claim} at delta = {self.delta:g}",
            f"  epsilon >= {self.epsilon_lower_bound:.4f}  (confidence {self.confidence:g}; Steinke, Nasr and Jagielski 2023)  ->  {self.verdict}",
            f"  canaries          : {self.canaries} ({self.included} included, each with probability 1/2), one run",
            f"  guesses           : top {b.k_plus} in, bottom {b.k_minus} out: {b.correct} of {b.guesses} correct",
            f"  plans paid for    : {len(self.plans)} (each at level {(1 - self.confidence) / len(self.plans):.3g})",
        ]
        eps = "n/a" if self.gdp_epsilon_estimate is None else f"{self.gdp_epsilon_estimate:.4f}"
        lines.append(f"  GDP fit           : a mu-GDP claim needs mu >= {self.gdp_mu_lower_bound:.4f}; epsilon estimate {eps} "
                     "(not a bound: assumes a Gaussian trade-off curve, Mahloujifar et al. 2024; not the verdict)")
        if self.seed_entropy is not None:
            lines.append(f"  seed entropy      : {self.seed_entropy}")
        if self.run_seconds is not None:
            lines.append(f"  time              : {self.run_seconds:.2f} s")
        lines.extend(f"  note              : {note}" for note in self.notes)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()
