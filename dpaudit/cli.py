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

    prove = sub.add_parser("prove", help="run every lemma check in proofs/ and print the table")
    prove.add_argument("--only", default=None, help="substring filter on lemma names")

    sub.add_parser("bounds", help="print the comparison table of the four papers' rates")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "demo":
        from dpaudit.catalogue import run_demo

        return run_demo(seed=args.seed, scale=args.scale, as_json=args.json, only=args.only)
    if args.command == "prove":
        from proofs.runner import main as prove_main

        return prove_main(["--only", args.only] if args.only else [])
    if args.command == "bounds":
        from dpaudit.bounds.table import main as bounds_main

        return bounds_main()
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
