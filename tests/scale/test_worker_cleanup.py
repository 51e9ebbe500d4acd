"""The processes of ``make_executor(workers=2)`` exit when the process that made them is killed.

A SIGKILL gives the parent no chance to shut its pool down; before the fix the forkserver, both
workers and the resource tracker stayed behind for good (each holding the others' pipes open).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SCRIPT = """
import json, os, time
from dpaudit.auditor.executors import make_executor
with make_executor(workers=2) as pool:
    pids = sorted({f.result() for f in [pool.submit(os.getpid) for _ in range(16)]})
    print(json.dumps(pids), flush=True)
    time.sleep(600)
"""


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree from /proc")
def test_the_pool_processes_exit_when_their_parent_is_killed():
    env = dict(os.environ)
    # stderr to a file, not a pipe: processes left behind would hold a pipe open for good
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    left: set[int] = set()
    tree: set[int] = set()
    try:
        workers = json.loads(proc.stdout.readline())
        tree = _descendants(proc.pid)
        assert set(workers) <= tree and len(tree) >= 4, (workers, tree)  # forkserver, 2 workers, resource tracker
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(_alive(p) for p in tree):
            time.sleep(0.1)
        left = {p for p in tree if _alive(p)}
        assert not left, f"still running 30 s after their parent was killed: {sorted(left)} of {sorted(tree)}"
    finally:
        for pid in {p for p in tree if _alive(p)}:  # processes this test started, by id
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.kill()
        proc.wait(timeout=30)
        proc.stdout.close()
