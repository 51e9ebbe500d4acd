"""Benchmarks: throughput, tightness and scaling, reported as ratios measured in one run.

Each ``bench_*.py`` module has a ``main(argv=None)`` and runs as ``python -m benchmarks.<name>``;
``python -m benchmarks`` runs them all. Nothing here is a timed test.
"""
