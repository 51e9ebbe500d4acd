"""Counts in messages take the noun's number: "1 pair", "2 pairs" (never "1 pairs")."""

from __future__ import annotations

import pytest

import dpaudit
from dpaudit._text import counted
from dpaudit.mechanisms import LaplaceMechanism


@pytest.mark.parametrize(("n", "noun", "expected"), [
    (0, "pair", "0 pairs"), (1, "pair", "1 pair"), (2, "pair", "2 pairs"),
    (1, "catalogue entry", "1 catalogue entry"), (3, "catalogue entry", "3 catalogue entries"),
    (2, "day", "2 days"), (1, "canary user", "1 canary user"), (2, "child", "2 children"),
])
def test_counted(n, noun, expected):
    plural = "children" if noun == "child" else None
    assert counted(n, noun, plural) == expected


def test_an_audit_report_says_one_candidate():
    text = str(dpaudit.audit(LaplaceMechanism(epsilon=1.0), 0.0, 1.0, trials=2_000, seed=0))
    assert "1 candidate paid for" in text and "candidate(s)" not in text and "1 candidates" not in text
