"""Run every benchmark module in this folder (``python -m benchmarks [name-substring]``)."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import benchmarks


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    pattern = argv[0] if argv else ""
    for info in sorted(pkgutil.iter_modules(benchmarks.__path__), key=lambda i: i.name):
        if info.name.startswith("bench_") and pattern in info.name:
            print(f"\n=== benchmarks.{info.name}", flush=True)
            importlib.import_module(f"benchmarks.{info.name}").main([])
    return 0


if __name__ == "__main__":
    sys.exit(main())
