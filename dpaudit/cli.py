"""Command-line interface: ``dpaudit demo | audit | prove | bounds``.

Each sub-command imports its machinery lazily so that ``dpaudit --help`` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dpaudit", description="Audit and verify differential-privacy implementations.")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="audit the built-in catalogue and print the verdict table")
    demo.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    demo.add_argument("--scale", type=float, default=1.0, help="multiply every entry's trial count (default 1)")
    demo.add_argument("--json", action="store_true", help="print JSON instead of a table")
    demo.add_argument("--only", default=None, help="comma-separated substrings; run only the entries whose names contain one")

    aud = sub.add_parser("audit", help="audit one catalogue entry and print its full evidence")
    aud.add_argument("name", help="a substring of a catalogue entry's name (see `dpaudit demo`)")
    aud.add_argument("--trials", type=int, default=None, help="trials per dataset (default: the entry's)")
    aud.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    aud.add_argument("--confidence", type=float, default=0.95, help="confidence level (default 0.95)")
    aud.add_argument("--json", action="store_true", help="print the result as JSON")
    aud.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    aud.add_argument("--scheduler", default=None, metavar="ADDRESS", help="draw on this Dask cluster (needs dpaudit[distributed])")
    aud.add_argument("--checkpoint", default=None, metavar="FILE", help="record blocks in this SQLite file; rerun to resume")

    prove = sub.add_parser("prove", help="run every lemma check in proofs/ and print the table")
    prove.add_argument("--only", default=None, help="substring filter on lemma names")

    sub.add_parser("bounds", help="print the comparison table of the four papers' rates")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _dispatch(argv)
    except BrokenPipeError:  # e.g. `dpaudit bounds | head`: the reader left, which is not an error
        sys.stderr.close()
        return 0


def _dispatch(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "demo":
        from dpaudit.catalogue import run_demo

        return run_demo(seed=args.seed, scale=args.scale, as_json=args.json, only=args.only)
    if args.command == "audit":
        return _audit_command(args)
    if args.command == "prove":
        from proofs.runner import main as prove_main

        return prove_main(["--only", args.only] if args.only else [])
    if args.command == "bounds":
        from dpaudit.bounds.table import main as bounds_main

        return bounds_main()
    return 2  # pragma: no cover - argparse rejects unknown commands


def _audit_command(args: argparse.Namespace) -> int:
    from dpaudit.catalogue import builtin_catalogue

    matches = [e for e in builtin_catalogue() if args.name.lower() in e.name.lower()]
    if len(matches) != 1:
        names = ", ".join(e.name for e in (matches or builtin_catalogue()))
        print(f"dpaudit audit: {args.name!r} matches {len(matches)} entries; choose one of: {names}", file=sys.stderr)
        return 2
    entry = matches[0]
    scale = 1.0 if args.trials is None else args.trials / entry.trials
    from dpaudit.auditor.executors import make_executor

    with make_executor(workers=getattr(args, "workers", None), scheduler=args.scheduler) as executor:
        result = entry.audit(seed=args.seed, scale=scale, confidence=args.confidence, progress=not args.no_progress,
                             executor=executor, checkpoint=args.checkpoint)
    print(result.to_json() if args.json else result.to_text())
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
