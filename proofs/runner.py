"""``dpaudit prove`` / ``python -m proofs``: run every lemma check and print the table.

Columns: lemma, source (paper, number), method, cases tried, verdict, time. A verdict that
differs from the check's recorded expectation is marked ``!! expected <verdict>``; an exception
inside a check is reported as ``error``. The exit status is 0 when every verdict matches, 1 when
any does not (or a check raised), and 2 when ``--only`` matches no check.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from dpaudit.bounds.verdict import CheckResult
from proofs._core import PAPER_ORDER, LemmaCheck

__all__ = ["Row", "format_table", "main", "run_checks"]

COLUMNS = ("lemma", "source", "method", "cases", "verdict", "time")


@dataclass(frozen=True)
class Row:
    """One line of the table: a check, its result (None if it raised) and its wall time."""

    check: LemmaCheck
    result: CheckResult | None
    seconds: float
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.result is not None and self.result.verdict is self.check.expected

    @property
    def verdict_text(self) -> str:
        if self.result is None:
            return f"error !! expected {self.check.expected}"
        text = str(self.result.verdict)
        return text if self.ok else f"{text} !! expected {self.check.expected}"


def run_checks(checks: Sequence[LemmaCheck]) -> list[Row]:
    """Run ``checks`` in order; an exception becomes an ``error`` row instead of stopping the run."""
    rows = []
    for check in checks:
        start = time.perf_counter()
        try:
            result: CheckResult | None = check.run()
            error = ""
        except Exception as exc:  # report, never hide: the row fails the run
            result, error = None, f"{type(exc).__name__}: {exc}"
        rows.append(Row(check, result, time.perf_counter() - start, error))
    return rows


def format_table(rows: Sequence[Row]) -> str:
    """The fixed-width table followed by per-paper / per-verdict counts and the mismatches."""
    cells = [COLUMNS] + [
        (row.check.name, row.check.source, row.result.method if row.result else "-",
         str(row.result.cases) if row.result else "-", row.verdict_text, f"{row.seconds:.2f}s")
        for row in rows
    ]
    widths = [max(len(line[i]) for line in cells) for i in range(len(COLUMNS))]
    right = {3, 5}

    def fmt(line: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if i in right else v.ljust(w) for i, (v, w) in enumerate(zip(line, widths, strict=True))).rstrip()

    out = [fmt(cells[0]), "  ".join("-" * w for w in widths)]
    out.extend(fmt(line) for line in cells[1:])
    out.append("")
    verdicts = Counter(str(row.result.verdict) if row.result else "error" for row in rows)
    out.append("verdicts: " + ", ".join(f"{verdicts.get(v, 0)} {v}" for v in ("proved", "disproved", "undecided", "error")))
    per_paper = []
    for paper in PAPER_ORDER:
        mine = [row for row in rows if paper in row.check.papers]
        if mine:
            counts = Counter(str(row.result.verdict) if row.result else "error" for row in mine)
            per_paper.append(f"{paper} {len(mine)} (" + ", ".join(f"{n} {v}" for v, n in sorted(counts.items())) + ")")
    out.append("per paper (shared checks count for each paper using them): " + "; ".join(per_paper))
    total = sum(row.seconds for row in rows)
    bad = [row for row in rows if not row.ok]
    out.append(f"{len(rows)} checks, {len(rows) - len(bad)} as expected, {len(bad)} not; {total:.1f}s")
    for row in bad:
        reason = row.error or (f"got {row.result.verdict}" if row.result else "")
        out.append(f"MISMATCH {row.check.name}: expected {row.check.expected}, {reason}")
        if row.result is not None and row.result.details:
            out.append(f"    details: {row.result.details}")
    return "\n".join(out)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dpaudit prove", description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=None, metavar="SUBSTR", help="run only the lemmas whose name contains SUBSTR")
    return parser


def main(argv: Sequence[str] | None = None, *, stream: TextIO | None = None,
         checks: Sequence[LemmaCheck] | None = None) -> int:
    """Entry point of ``dpaudit prove [--only SUBSTR]``; returns the exit status.

    ``checks`` replaces the registry (used by the tests to run a deliberately mismatched check).
    """
    args = _parser().parse_args(list(argv) if argv is not None else [])
    out = stream if stream is not None else sys.stdout
    if checks is None:
        from proofs.registry import all_checks

        checks = all_checks()
    if args.only:
        checks = [c for c in checks if args.only.lower() in c.name.lower()]
        if not checks:
            print(f"dpaudit prove: no lemma name contains {args.only!r}", file=out)
            return 2
    rows = run_checks(checks)
    print(format_table(rows), file=out)
    return 0 if all(row.ok for row in rows) else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
