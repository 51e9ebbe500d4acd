"""One-run audits: ``m`` canaries each included with probability 1/2, one run, one score per canary.

For mechanisms too expensive to run many times (training a model, a user-level SGD algorithm), the
randomness is in the *input*: which canaries the run includes. Guessing the inclusion bits from the
run's output better than a private mechanism allows refutes its claim [SNJ23]; a hypothesised
trade-off curve sharpens the test [MMC24].

========================  ==================================================================
:mod:`.tail_bounds`       the tail bounds of the guessing game, their epsilon / mu searches
:mod:`.guesses`           guess plans from scores, the union over plans, :func:`audit_canaries`
:mod:`.canaries`          canary users for the user-level algorithms, :func:`audit_canary_users`
:mod:`.result`            :class:`OneRunResult` (text and JSON)
========================  ==================================================================

References
----------
.. [SNJ23] T. Steinke, M. Nasr and M. Jagielski. Privacy auditing with one (1) training run.
   NeurIPS 2023, arXiv:2305.08846.
.. [MMC24] S. Mahloujifar, L. Melis and K. Chaudhuri. Auditing f-differential privacy in one run.
   ICML 2025, arXiv:2410.22235.
"""

from dpaudit.one_run.canaries import audit_canary_users, linear_canary_users, slot_scores
from dpaudit.one_run.guesses import (
    INCLUSION_TEST_LEVEL,
    MIN_GUESSES,
    audit_canaries,
    default_plans,
    draw_inclusion,
    guess_outcome,
)
from dpaudit.one_run.result import GuessOutcome, OneRunResult
from dpaudit.one_run.tail_bounds import (
    fdp_epsilon,
    fdp_mu,
    fdp_rejects,
    steinke_epsilon,
    steinke_p_value,
)

__all__ = [
    "INCLUSION_TEST_LEVEL",
    "MIN_GUESSES",
    "GuessOutcome",
    "OneRunResult",
    "audit_canaries",
    "audit_canary_users",
    "default_plans",
    "draw_inclusion",
    "fdp_epsilon",
    "fdp_mu",
    "fdp_rejects",
    "guess_outcome",
    "linear_canary_users",
    "slot_scores",
    "steinke_epsilon",
    "steinke_p_value",
]
