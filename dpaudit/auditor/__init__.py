"""The empirical auditor: confidence lower bounds on epsilon from samples of a mechanism."""

from dpaudit.auditor.cases import AuditCase
from dpaudit.auditor.options import AdaptiveTrials, AttackOptions, ExecutionOptions
from dpaudit.auditor.result import AuditResult, EventEvidence
from dpaudit.auditor.runner import audit
from dpaudit.auditor.scores import ScoresAuditResult, audit_scores
from dpaudit.auditor.stats import (
    clopper_pearson_interval,
    clopper_pearson_lower,
    clopper_pearson_upper,
    epsilon_lower_bound_from_counts,
    gdp_mu_lower_bound_from_counts,
)

__all__ = [
    "AdaptiveTrials",
    "AttackOptions",
    "AuditCase",
    "AuditResult",
    "EventEvidence",
    "ExecutionOptions",
    "ScoresAuditResult",
    "audit",
    "audit_scores",
    "clopper_pearson_interval",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "epsilon_lower_bound_from_counts",
    "gdp_mu_lower_bound_from_counts",
]
