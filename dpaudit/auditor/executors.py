"""Executors for :func:`dpaudit.audit`: a local process pool, or a Dask cluster.

Nothing here schedules work itself: :func:`make_executor` hands back a
:class:`concurrent.futures.ProcessPoolExecutor` or Dask's ``Client.get_executor()``, and the audit
submits one task per group of blocks (:mod:`.sampling`). Results are identical to a serial run for
any worker count, because every block draws from its own stream.

Faults: when a pool worker dies the pool breaks, and the audit stops with a
:class:`~dpaudit.errors.MechanismError` naming the block; a Dask scheduler instead reruns the tasks
of a dead worker on another worker (up to its ``distributed.scheduler.allowed-failures``, then
``KilledWorker``, which the audit reports the same way). A rerun block has the identical draws.

Worker processes exit when the process that made the pool dies, even by SIGKILL (which leaves it
no chance to shut the pool down): each worker watches a pipe whose only writing end that process
holds, and leaves when the pipe closes. Without this the forkserver, the workers and the resource
tracker would keep one another alive for good, each holding the others' pipes open.

Dask's nanny starts workers with ``MALLOC_TRIM_THRESHOLD_=65536`` (its
``distributed.nanny.pre-spawn-environ``), which hands freed memory back to the system at once; a
mechanism that allocates large temporaries at every step (the user-level algorithms do) then pays
page faults on every allocation and runs several times slower than in a process pool
(``python -m benchmarks.bench_parallel`` measures both). Set that key to ``None`` in the Dask
configuration of the machine starting the workers to keep glibc's default.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing.connection import Connection
from typing import Any

from dpaudit._validation import argument_error, check_int

__all__ = ["make_executor"]

OWNER = "make_executor"


def _connect_to_scheduler(address: str, timeout: float) -> Any:
    try:
        import distributed
    except ImportError as exc:
        raise argument_error(OWNER, "scheduler", "usable only with Dask installed", address,
                             fix="pip install 'dpaudit[distributed]'.") from exc
    try:
        return distributed.Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise argument_error(OWNER, "scheduler", f"the address of a running Dask scheduler reachable within "
                             f"{timeout:g} s (connecting failed: {type(exc).__name__}: {exc})", address) from exc


def _exit_with_parent(parent_alive: Connection) -> None:
    """Worker initializer: leave this worker as soon as the pool's parent process is gone.

    ``parent_alive`` is the reading end of a pipe whose writing end only the parent holds and never
    writes to; ``recv_bytes`` returns (EOFError) exactly when the parent has closed it or died.
    """

    def watch() -> None:
        try:
            parent_alive.recv_bytes()
        except (EOFError, OSError):
            pass
        os._exit(0)

    threading.Thread(target=watch, name="dpaudit-parent-watch", daemon=True).start()


def main_file_missing() -> bool:
    """Whether ``__main__`` names a file that does not exist (a program read from standard input).

    Worker processes started by forkserver or spawn re-run such a ``__main__`` from its file before
    their first task, so every one of them dies at once.
    """
    main = sys.modules.get("__main__")
    if getattr(getattr(main, "__spec__", None), "name", None) is not None:  # python -m module
        return False
    path = getattr(main, "__file__", None)
    return isinstance(path, str) and not os.path.isfile(path)


@contextmanager
def make_executor(workers: int | None = None, scheduler: str | None = None, *,
                  timeout: float = 30.0) -> Iterator[Executor | None]:
    """Yield an executor for :func:`dpaudit.audit`, and shut it down on exit.

    Parameters
    ----------
    workers : int, optional
        At least 1: a pool of that many worker processes, started by ``forkserver`` (safe beside
        threads, unlike ``fork``), which exit when this process does. Mechanisms sent to processes must be picklable and importable:
        defined in a module, not in a notebook or ``python -c`` (Dask sends those by value).
    scheduler : str, optional
        The address of a running Dask scheduler (``tcp://host:8786``, or an ``inproc://`` address
        of a ``LocalCluster(processes=False)`` in this process); needs the ``distributed`` extra.
    timeout : float
        Seconds to wait for the scheduler.

    Yields
    ------
    concurrent.futures.Executor or None
        ``None`` (run serially) when neither ``workers`` nor ``scheduler`` is given.

    Raises
    ------
    InvalidArgument
        When both are given, ``workers`` is below 1, or the scheduler cannot be reached.

    Examples
    --------
    >>> import dpaudit
    >>> from dpaudit.mechanisms import LaplaceMechanism
    >>> with make_executor(workers=2) as pool:
    ...     res = dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, trials=20_000, seed=0, block_size=5_000,
    ...                         executor=pool)
    >>> res.epsilon_lower_bound == dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, trials=20_000, seed=0,
    ...                                          block_size=5_000).epsilon_lower_bound
    True
    """
    if workers is not None and scheduler is not None:
        raise argument_error(OWNER, "workers", "None when a Dask scheduler is given (the cluster has its own workers)",
                             workers)
    if scheduler is not None:
        if not isinstance(scheduler, str) or not scheduler:
            raise argument_error(OWNER, "scheduler", "a Dask scheduler address such as 'tcp://127.0.0.1:8786'",
                                 scheduler)
        client = _connect_to_scheduler(scheduler, timeout)
        try:
            # pure=False: no hashing of every task's data, and no result shared between tasks by key
            yield client.get_executor(pure=False)
        finally:
            client.close()
        return
    if workers is None:
        yield None
        return
    workers = check_int(OWNER, "workers", workers, minimum=1)
    if main_file_missing():
        raise argument_error(
            OWNER, "workers", "None when the program was read from standard input: worker processes re-run "
            f"__main__ from its file, and {sys.modules['__main__'].__file__!r} is none", workers,
            fix="save the code in a .py file and run that, or use a Dask cluster (scheduler=...)")
    context = multiprocessing.get_context("forkserver")
    parent_alive, alive = context.Pipe(duplex=False)
    try:
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_exit_with_parent,
                                   initargs=(parent_alive,))
        try:
            yield pool
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    finally:  # after the workers have left: closing it first would end them mid-task
        alive.close()
        parent_alive.close()
