"""Audit throughput of a user-level algorithm on 1 and 2 worker processes, and Dask's overhead.

The mechanism is Ghazi et al. (2025)'s Algorithm 1 with output perturbation
(:class:`dpaudit.userlevel.RobustStatsSGD`) on the separable Huber loss, ``n = 1000`` users of
``m = 8`` items in ``d = 4``: about a millisecond per trial, trial-batched. Each run is a full
:func:`dpaudit.audit` (same seed and blocks of 32 trials, so every run draws the identical outputs;
the benchmark checks the results are identical) on

* a serial run in this process (reference for the pools' overhead),
* a process pool of 1 worker and of 2 workers (:func:`dpaudit.auditor.executors.make_executor`),
* a Dask ``LocalCluster`` of 2 single-threaded worker processes (loopback only), timed in a second
  phase against the 2-process pool again (so no idle cluster runs beside the other runs), once as
  Dask starts its workers and once without the ``MALLOC_TRIM_THRESHOLD_=65536`` its nanny sets by
  default (``distributed.nanny.pre-spawn-environ``): that setting hands freed memory back to the
  system at once, so a mechanism that allocates large temporaries every step (as this one does)
  pays a page fault per page on every allocation.

It prints audit throughput (trials per dataset per second, whole audit and the sampling phase,
which is what workers share), the 2-worker / 1-worker ratio (target: at least 1.8 on an idle
2-core machine) and Dask's time over the 2-process pool's. Times are medians of interleaved repeats
(machine noise hits all runs alike); the load average is printed, as figures on a shared machine
mean little. Nothing here asserts a time. Worker processes get one BLAS thread each, so two
workers do not fight over the cores.

Run: ``python -m benchmarks.bench_parallel [--quick]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import dpaudit
from dpaudit.auditor.executors import make_executor
from dpaudit.userlevel import RobustStatsSGD, SeparableHuberLoss

N_USERS, M_ITEMS, DIM = 1000, 8, 4
BLOCK = 32


def _case() -> tuple[Any, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2025)
    d0 = rng.uniform(-0.5, 0.5, size=(N_USERS, M_ITEMS, DIM + 1))
    d0[..., -1] = 1.0  # weight 1 for every item [GKLM25, Sec. 4 separable Huber]
    d1 = d0.copy()
    d1[0, :, :-1] = 0.5  # user-level replacement of user 0
    mech = RobustStatsSGD(SeparableHuberLoss(beta=1.0, gradient_cap=1.0), 1.0, 1e-3, radius=1.0, batch_size=40)
    return mech, d0, d1


def _timed(runs: dict[str, Callable[[], dpaudit.AuditResult]],
           repeats: int) -> dict[str, list[tuple[dpaudit.AuditResult, float]]]:
    """Each run once to warm up, then ``repeats`` interleaved rounds: results with their wall times."""
    for run in runs.values():
        run()
    out: dict[str, list[tuple[dpaudit.AuditResult, float]]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            start = time.perf_counter()
            res = run()
            out[name].append((res, time.perf_counter() - start))
    return out


def _cluster(distributed: Any) -> Any:
    return distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0",
                                    host="127.0.0.1")


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(prog="bench_parallel")
    parser.add_argument("--quick", action="store_true", help="fewer trials, one repeat (about half a minute)")
    parser.add_argument("--trials", type=int, default=None, help="trials per dataset (default 2048, quick 1024)")
    parser.add_argument("--repeats", type=int, default=None, help="interleaved repeats (default 2, quick 1)")
    args = parser.parse_args(argv)
    trials = args.trials or (1024 if args.quick else 2048)
    repeats = args.repeats or (1 if args.quick else 2)
    saved_environ = dict(os.environ)  # restored at the end: Dask's nanny writes its workers' variables here too
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")  # read by worker processes when they start
    mech, d0, d1 = _case()
    kwargs: dict[str, Any] = dict(trials=trials, seed=0, block_size=BLOCK)
    import dask
    import distributed

    load_before = os.getloadavg()[0]
    # phase 1, no Dask alive: serial and the pools; phase 2: Dask against the 2-process pool again
    with make_executor(workers=1) as pool1, make_executor(workers=2) as pool2:
        results = _timed({
            "serial (this process)": lambda: dpaudit.audit(mech, d0, d1, **kwargs),
            "process pool, 1 worker": lambda: dpaudit.audit(mech, d0, d1, executor=pool1, **kwargs),
            "process pool, 2 workers": lambda: dpaudit.audit(mech, d0, d1, executor=pool2, **kwargs),
        }, repeats)
    try:
        # the cluster without Dask's MALLOC_TRIM_THRESHOLD_ starts first, before the other sets it here too
        with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
            untrimmed = _cluster(distributed)
        with make_executor(workers=2) as pool2, untrimmed, _cluster(distributed) as default, \
                make_executor(scheduler=default.scheduler_address) as dask2, \
                make_executor(scheduler=untrimmed.scheduler_address) as dask2_untrimmed:
            versus = _timed({
                "process pool, 2 workers (again)": lambda: dpaudit.audit(mech, d0, d1, executor=pool2, **kwargs),
                "Dask LocalCluster, 2 workers": lambda: dpaudit.audit(mech, d0, d1, executor=dask2, **kwargs),
                "Dask, no MALLOC_TRIM_THRESHOLD_": lambda: dpaudit.audit(mech, d0, d1, executor=dask2_untrimmed,
                                                                          **kwargs),
            }, repeats)
    finally:
        os.environ.clear()
        os.environ.update(saved_environ)
    results.update(versus)
    wall = {name: statistics.median(t for _, t in rs) for name, rs in results.items()}
    sampling = {name: statistics.median(r.sampling_seconds for r, _ in rs) for name, rs in results.items()}
    first = next(iter(results.values()))[0][0]
    identical = all(
        (r.epsilon_lower_bound, r.evidence, r.gdp_mu_lower_bound) == (first.epsilon_lower_bound, first.evidence,
                                                                        first.gdp_mu_lower_bound)
        for rs in results.values() for r, _ in rs
    )
    print(f"RobustStatsSGD (Ghazi et al. 2025, Alg. 1 + noise), n={N_USERS}, m={M_ITEMS}, d={DIM}; {trials} trials "
          f"per dataset in blocks of {BLOCK}; median of {repeats} interleaved repeat(s); {os.cpu_count()} CPUs; "
          f"1-min load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after")
    print(f"{'run':<32} {'audit (trials/s)':>17} {'sampling (trials/s)':>20} {'wall (s)':>9}")
    for name in results:
        print(f"{name:<32} {trials / wall[name]:>17.1f} {trials / sampling[name]:>20.1f} {wall[name]:>9.2f}")
    figures = {
        "speedup_audit": wall["process pool, 1 worker"] / wall["process pool, 2 workers"],
        "speedup_sampling": sampling["process pool, 1 worker"] / sampling["process pool, 2 workers"],
        "dask_over_pool": wall["Dask LocalCluster, 2 workers"] / wall["process pool, 2 workers (again)"],
        "dask_untrimmed_over_pool": wall["Dask, no MALLOC_TRIM_THRESHOLD_"] / wall["process pool, 2 workers (again)"],
        "pool1_over_serial": wall["process pool, 1 worker"] / wall["serial (this process)"],
    }
    print(f"2 workers / 1 worker: audit {figures['speedup_audit']:.2f}x, sampling {figures['speedup_sampling']:.2f}x "
          "(target: at least 1.8x on an idle 2-core machine)")
    print(f"Dask overhead: Dask time / process-pool time (2 workers each) = {figures['dask_over_pool']:.2f} with "
          f"Dask's worker environment, {figures['dask_untrimmed_over_pool']:.2f} without its MALLOC_TRIM_THRESHOLD_")
    print(f"process pool of 1 / serial = {figures['pool1_over_serial']:.2f}")
    print(f"results identical across all runs: {'yes' if identical else 'NO'}")
    return figures


if __name__ == "__main__":
    main()
