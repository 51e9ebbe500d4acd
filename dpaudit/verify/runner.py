"""``dpaudit prove``: run checks (the built-in ones and/or a user's own) and print the table.

Columns: lemma, source, method, cases, verdict, premises, time. The premises cell holds what the verdict takes on
trust (cited theorems, assumed steps), the domain its steps were decided on, and the hypotheses it holds under (the
symbols' declared domains, ``symbols: t > 0``, and exact readings of floats): a PROVED ``1/t - 1/(t + 1) >= 0`` with
``t`` declared positive says ``symbols: t > 0`` beside it, since it is false for ``t`` in ``(-1, 0)``. A PROVED whose
hypotheses have no common solution reads "proved (vacuous)". Below the table, for the checks under ``--path`` (for
every check with ``--claims``): the claim the kernel certified beside each verdict, and the check's statement as a
label only (nothing binds an author's statement text to what the check's proof decided).
Each check runs under a timeout; a timeout is UNDECIDED with the reason. The expected verdicts
are a regression snapshot: a verdict equal to the expected one is ``ok``; UNDECIDED -> PROVED is
reported as an *improvement* (update the snapshot); anything else is a mismatch, and so is a
check that raises or calls ``sys.exit`` (an error row; the other checks still run). Exit status: 0 when there is no
mismatch, 1 otherwise, 2 on a usage problem, printed as one line (``--only`` matches nothing, ``--path`` holds no
check, a module under ``--path`` cannot be loaded (a syntax error, an exception or ``sys.exit`` while it is imported,
a ``CHECK`` that is not a LemmaCheck, a check name defined twice), or a check under ``--path`` takes the name of a
built-in check: refused even with ``--no-builtin``, so a verdict is never reported under a name that is not its own).

Examples
--------
>>> import io, sympy as sp
>>> from dpaudit.verify import LemmaCheck, Proof, Verdict
>>> from dpaudit.verify.runner import main
>>> def _run():
...     proof = Proof("mine/square")
...     proof.cite("[Folklore]", "squares of reals are non-negative")
...     proof.nonneg("x^2 >= 0", sp.Symbol("x", real=True) ** 2)
...     return proof.result()
>>> mine = LemmaCheck(name="mine/square", source="my notes, eq. 1", statement="x^2 >= 0",
...                   expected=Verdict.PROVED, check=_run)
>>> out = io.StringIO()
>>> main([], stream=out, checks=[mine])
0
>>> "proved" in out.getvalue() and "[Folklore]" in out.getvalue()
True
"""

from __future__ import annotations

import argparse
import re
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TextIO

from dpaudit._table import render, terminal_width
from dpaudit._text import counted
from dpaudit.errors import DPAuditError
from dpaudit.verify.discovery import checks_in_path, unique_checks
from dpaudit.verify.lemma import LemmaCheck
from dpaudit.verify.verdict import CheckResult, Verdict

__all__ = ["COLUMNS", "DEFAULT_TIMEOUT", "CheckTimeout", "Row", "format_claims", "format_premises", "format_table", "main",
           "run_check", "run_checks"]

COLUMNS = ("lemma", "source", "method", "cases", "verdict", "premises", "time")

_SYMBOLS = "symbols: "  # how a Proof's result lists its symbols' declared domains (one hypothesis)
_ONLY_REAL = re.compile(r"\S+ real")

#: Seconds a check may run unless it sets its own ``timeout`` (the slowest built-in check takes ~2 s).
DEFAULT_TIMEOUT: float = 120.0


class CheckTimeout(BaseException):
    """Raised inside a check when its time is up.

    A BaseException, so ``except Exception`` in library code does not swallow it.
    """


@dataclass(frozen=True)
class Row:
    """One line of the table: a check, its result (None if it raised), wall time and status."""

    check: LemmaCheck
    result: CheckResult | None
    seconds: float
    error: str = ""

    @property
    def status(self) -> str:
        """``"ok"``, ``"improved"`` (expected UNDECIDED, got PROVED), ``"mismatch"`` or ``"error"``."""
        if self.result is None:
            return "error"
        got, want = self.result.verdict, self.check.expected
        if got is want:
            return "ok"
        if want is Verdict.UNDECIDED and got is Verdict.PROVED:
            return "improved"
        return "mismatch"

    @property
    def ok(self) -> bool:
        """No mismatch (an improvement is not a failure)."""
        return self.status in ("ok", "improved")

    @property
    def verdict_text(self) -> str:
        """The verdict as printed: the result, with the expected verdict when they differ."""
        if self.result is None:
            return f"error !! expected {self.check.expected}"
        text = str(self.result.verdict)
        if self.result.proved and self.result.vacuity:  # "vacuous" or "hypotheses not shown satisfiable"
            text += f" ({self.result.vacuity.split(':')[0]})"
        if self.status == "improved":
            return f"{text} (improved from {self.check.expected})"
        return text if self.status == "ok" else f"{text} !! expected {self.check.expected}"


@contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: object) -> None:
        raise CheckTimeout(f"timed out after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _timed_out(check: LemmaCheck, seconds: float) -> CheckResult:
    return CheckResult(Verdict.UNDECIDED, check.statement, check.source, method="timeout",
                       reason=f"timed out after {seconds:g} s", details=f"timed out after {seconds:g} s")


def _call_with_timeout(check: LemmaCheck, seconds: float | None) -> CheckResult:
    if seconds is None:
        return check.run()
    if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
        try:
            with _alarm(seconds):
                return check.run()
        except CheckTimeout:
            return _timed_out(check, seconds)
    # not the main thread (or no SIGALRM): run in a worker thread; a check that overruns is
    # reported and left to finish in the background (Python cannot stop a thread)
    box: dict[str, object] = {}

    def work() -> None:
        try:
            box["result"] = check.run()
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=work, name=f"dpaudit-check-{check.name}", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        return _timed_out(check, seconds)
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["result"]  # type: ignore[return-value]


def run_check(check: LemmaCheck, *, timeout: float | None = DEFAULT_TIMEOUT) -> Row:
    """Run one check under its timeout (``check.timeout`` wins over ``timeout``).

    An exception becomes an ``error`` row instead of stopping the run.
    """
    seconds = check.timeout if check.timeout is not None else timeout
    start = time.perf_counter()
    try:
        result: CheckResult | None = _call_with_timeout(check, seconds)
        error = ""
    except Exception as exc:  # report, never hide: the row fails the run
        result, error = None, f"{type(exc).__name__}: {exc}"
    except SystemExit as exc:  # a check's code path ended the process (a helper's main()): its row fails, the rest run
        result, error = None, f"the check called sys.exit({exc.code!r}) (SystemExit): no verdict"
    return Row(check, result, time.perf_counter() - start, error)


def run_checks(checks: Sequence[LemmaCheck], *, timeout: float | None = DEFAULT_TIMEOUT,
               progress: Callable[[Row], None] | None = None) -> list[Row]:
    """Run ``checks`` in order (see :func:`run_check`); ``progress`` is called after each."""
    rows = []
    for check in checks:
        row = run_check(check, timeout=timeout)
        rows.append(row)
        if progress is not None:
            progress(row)
    return rows


def _counts(rows: Sequence[Row]) -> Counter[str]:
    return Counter(str(row.result.verdict) if row.result else "error" for row in rows)


def _hypotheses(result: CheckResult) -> list[str]:
    """The result's hypotheses that restrict its statement: a symbol declared only ``real`` is left out.

    Statements are over the reals (a symbol with no assumption is read as real and says so): ``x real`` restricts
    nothing, while ``t > 0``, ``n > 0 integer`` or ``z read as real`` do and are kept, as is every other hypothesis
    (a float read at its exact value) except the claim itself (which is printed as the claim).
    """
    out = []
    for text in result.assumptions:
        if result.claim.startswith(text):  # the claim itself, recorded as what is given (verify.lipschitz): printed already
            continue
        if text.startswith(_SYMBOLS):
            kept = [item for item in text[len(_SYMBOLS):].split(", ") if not _ONLY_REAL.fullmatch(item)]
            if kept:
                out.append(_SYMBOLS + ", ".join(kept))
        else:
            out.append(text)
    return out


def _premises_cell(result: CheckResult) -> str:
    """What the verdict rests on: the premises taken on trust, the domain its steps were decided on, its hypotheses.

    The hypotheses are the symbols' declared domains (``symbols: t > 0``) and readings of floats: a statement proved
    for a positive ``t`` holds only there, so the table says so beside the verdict.
    """
    parts = [result.premises_text()] if result.premises else []
    if result.domain:
        parts.append("domain: " + ", ".join(result.domain))
    parts.extend(_hypotheses(result))
    return "; ".join(parts) or "-"


def format_table(rows: Sequence[Row], *, paper_order: Sequence[str] = (), width: int | None = None) -> str:
    """The table followed by per-verdict and per-paper counts, improvements and mismatches.

    ``width`` fits the table to that many characters (long cells wrap); ``None`` leaves it unlimited.
    """
    cells = [COLUMNS] + [
        (row.check.name, row.check.source, row.result.method if row.result else "-",
         str(row.result.cases) if row.result else "-", row.verdict_text,
         _premises_cell(row.result) if row.result else "-", f"{row.seconds:.2f}s")
        for row in rows
    ]
    out = render(cells[0], cells[1:], right=(3, 6), width=width)
    out.append("")
    verdicts = _counts(rows)
    out.append("verdicts: " + ", ".join(f"{verdicts.get(v, 0)} {v}" for v in ("proved", "disproved", "undecided", "error")))
    given = sum(1 for row in rows if row.result is not None and row.result.proved and row.result.premises)
    if given:
        out.append(f"{given} of the proved verdicts rest on premises taken on trust (see the premises column; --premises lists them)")
    restricted = sum(1 for row in rows if row.result is not None and row.result.proved
                     and (_hypotheses(row.result) or row.result.domain))
    if restricted:
        out.append(f"{restricted} of the proved verdicts hold only under hypotheses (the symbols' declared domains, a "
                   "restricted domain: see the premises column)")
    papers = list(dict.fromkeys([*paper_order, *(p for row in rows for p in row.check.papers)]))
    per_paper = []
    for paper in papers:
        mine = [row for row in rows if paper in row.check.papers]
        if mine:
            counts = _counts(mine)
            per_paper.append(f"{paper} {len(mine)} (" + ", ".join(f"{n} {v}" for v, n in sorted(counts.items())) + ")")
    own = [row for row in rows if not row.check.papers]
    if own:
        per_paper.append(f"no paper {len(own)} (" + ", ".join(f"{n} {v}" for v, n in sorted(_counts(own).items())) + ")")
    if per_paper:
        out.append("per paper (shared checks count for each paper using them): " + "; ".join(per_paper))
    total = sum(row.seconds for row in rows)
    bad = [row for row in rows if not row.ok]
    better = [row for row in rows if row.status == "improved"]
    out.append(f"{counted(len(rows), 'check')}, {len(rows) - len(bad) - len(better)} as expected, {len(better)} improved, "
               f"{len(bad)} not; {total:.1f}s")
    for row in better:
        out.append(f"IMPROVED {row.check.name}: expected {row.check.expected}, got {row.result.verdict if row.result else '-'}"
                   " (update the expected verdict)")
    for row in bad:
        reason = row.error or (f"got {row.result.verdict}" if row.result else "")
        if row.result is not None and row.result.reason:
            reason += f" ({row.result.reason})"
        out.append(f"MISMATCH {row.check.name}: expected {row.check.expected}, {reason}")
        if row.result is not None and row.result.details:
            out.append(f"    details: {row.result.details}")
    return "\n".join(out)


def format_claims(rows: Sequence[Row]) -> str:
    """What the kernel decided for each check, beside its verdict; the check's statement below it, as a label only.

    A check's ``statement`` is its author's text: nothing binds it to what the check's proof decided (a Lemma whose
    statement says one thing while its steps prove another). The claim is what was certified: a :class:`Proof`'s
    steps as formulas, a Lipschitz or inequality check's own claim, with the vacuity of its hypotheses.
    """
    out = ["what the kernel decided (the claim certified beside each verdict; the statement is the check's label, not checked):"]
    for row in rows:
        if row.result is None:
            out.append(f"  {row.check.name}: {row.verdict_text}")
            continue
        claim = row.result.claim
        if row.result.proved and row.result.vacuity:
            claim += f" ({row.result.vacuity})"
        hypotheses = _hypotheses(row.result)
        if hypotheses:  # what the claim assumes, whatever the verdict (a counterexample satisfies them)
            claim += f" [hypotheses: {'; '.join(hypotheses)}]"
        out.append(f"  {row.check.name}: {row.verdict_text}: {claim}")
        out.append(f"      statement (label): {row.check.statement}")
    return "\n".join(out)


def format_premises(rows: Sequence[Row]) -> str:
    """Every premise taken on trust, once, with its text and the checks resting on it; then the proved verdicts' hypotheses.

    A hypothesis (a symbol's declared domain, a restricted domain) is not taken on trust: it is part of what the
    verdict states. It is listed after the premises, with the checks that hold only under it, so that "premises
    taken on trust: none" is never read as "holds for every value".
    """
    return "\n".join([_trusted_premises(rows), *_hypotheses_lines(rows)])


def _hypotheses_lines(rows: Sequence[Row]) -> list[str]:
    entries: dict[str, list[str]] = {}
    for row in rows:
        if row.result is None or not row.result.proved:
            continue
        for text in [*(f"domain: {d}" for d in row.result.domain), *_hypotheses(row.result)]:
            users = entries.setdefault(text, [])
            if row.check.name not in users:
                users.append(row.check.name)
    if not entries:
        return []
    out = [f"hypotheses the proved verdicts hold under (part of what they state, not taken on trust): {len(entries)}"]
    for text, users in entries.items():
        out.append(f"  {text}")
        out.append(f"      used by {len(users)}: {', '.join(users)}")
    return out


def _trusted_premises(rows: Sequence[Row]) -> str:
    entries: dict[tuple[str, str], tuple[list[str], list[str]]] = {}
    for row in rows:
        if row.result is None:
            continue
        for p in row.result.premises:
            texts, users = entries.setdefault((p.kind, p.key), ([], []))
            if p.text not in texts:
                texts.append(p.text)
            if row.check.name not in users:
                users.append(row.check.name)
    if not entries:
        return "premises taken on trust: none"
    cited = sorted(k for k in entries if k[0] == "cited")
    assumed = sorted(k for k in entries if k[0] == "assumed")
    facts = sorted(k for k in entries if k[0] == "fact")
    out = [f"premises taken on trust: {len(cited)} cited theorems, {len(assumed)} assumed steps, "
           f"{len(facts)} Facts of dependencies that their own proof did not establish"]
    for title, keys in (("cited theorems", cited), ("assumed steps", assumed), ("unproved Facts of dependencies", facts)):
        if keys:
            out.append(f"{title}:")
        for key in keys:
            texts, users = entries[key]
            out.append(f"  {key[1]}: {texts[0]}")
            out.extend(f"      also stated as: {t}" for t in texts[1:])
            out.append(f"      used by {len(users)}: {', '.join(users)}")
    return "\n".join(out)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dpaudit prove", description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=None, metavar="SUBSTR", help="run only the checks whose name contains SUBSTR")
    parser.add_argument("--path", action="append", default=[], metavar="DIR",
                        help="also run the checks (modules defining CHECK or CHECKS) under DIR; repeatable")
    parser.add_argument("--no-builtin", action="store_true", help="do not run the built-in checks of the four papers")
    parser.add_argument("--premises", action="store_true", help="list every premise taken on trust, once")
    parser.add_argument("--claims", action="store_true",
                        help="print what the kernel decided for every check (always done for the checks under --path)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help=f"per-check time limit (default {DEFAULT_TIMEOUT:g}; a timeout is UNDECIDED)")
    return parser


def main(argv: Sequence[str] | None = None, *, stream: TextIO | None = None,
         checks: Sequence[LemmaCheck] | None = None) -> int:
    """Entry point of ``dpaudit prove``; returns the exit status.

    ``checks`` replaces the built-in checks (used by tests to run a deliberately mismatched check).
    """
    args = _parser().parse_args(list(argv) if argv is not None else [])
    out = stream if stream is not None else sys.stdout
    if args.timeout is not None and not args.timeout > 0:
        print(f"dpaudit prove: --timeout must be a positive number of seconds; got {args.timeout}", file=out)
        return 2
    selected: list[LemmaCheck] = []
    users: set[str] = set()  # the checks under --path: their claims are printed beside their verdicts
    paper_order: tuple[str, ...] = ()
    builtin_names: set[str] = set()
    if args.path and checks is None:  # a user's check may not take a built-in check's name, even with --no-builtin
        from dpaudit.proofs.registry import all_checks

        builtin_names = {c.name for c in all_checks()}
    if not args.no_builtin:
        if checks is None:
            from dpaudit.proofs import PAPER_ORDER
            from dpaudit.proofs.registry import all_checks

            selected.extend(all_checks())
            paper_order = PAPER_ORDER
        else:
            selected.extend(checks)
    for path in args.path:
        try:
            found = checks_in_path(path)
        except DPAuditError as exc:  # a missing path or a module that cannot be loaded: one line, exit 2
            print(" ".join(str(exc).split()), file=out)
            return 2
        if not found:
            print(f"dpaudit prove --path: no module under {path} defines CHECK or CHECKS", file=out)
            return 2
        taken = sorted(c.name for c in found if c.name in builtin_names)
        if taken:
            print(f"dpaudit prove --path: {path} defines checks named like built-in checks ({', '.join(taken)}): "
                  "their verdicts would be reported under the built-in names; rename them (e.g. mine/...)", file=out)
            return 2
        selected.extend(found)
        users.update(c.name for c in found)
    try:
        selected = list(unique_checks(selected))
    except ValueError as exc:
        print("dpaudit prove: " + " ".join(str(exc).split()), file=out)
        return 2
    if args.only:
        selected = [c for c in selected if args.only.lower() in c.name.lower()]
        if not selected:
            print(f"dpaudit prove: no check name contains {args.only!r}", file=out)
            return 2
    if not selected:
        print("dpaudit prove: nothing to run (--no-builtin without --path)", file=out)
        return 2
    rows = run_checks(selected, timeout=args.timeout)
    print(format_table(rows, paper_order=paper_order, width=terminal_width(out)), file=out)
    claimed = [row for row in rows if args.claims or row.check.name in users]
    if claimed:
        print("", file=out)
        print(format_claims(claimed), file=out)
    if args.premises:
        print("", file=out)
        print(format_premises(rows), file=out)
    return 0 if all(row.ok for row in rows) else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
