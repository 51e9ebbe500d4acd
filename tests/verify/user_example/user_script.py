"""A user's verification script: the clamp, a projection, a buggy projection, a sensitivity, and an own check file.

Run as ``python user_script.py``: one line per check, then ``dpaudit prove --path my_checks``; exit status 0 when
every verdict is the expected one.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import sympy as sp

from dpaudit import verify
from dpaudit.neighbors import ItemReplace

HERE = Path(__file__).resolve().parent
x = sp.Symbol("x", real=True)
clamp = sp.Min(sp.Max(x, -1), 1)


def l2_ball(v):
    """Projection onto the unit l2 ball."""
    norm = np.linalg.norm(v)
    return v if norm <= 1 else v / norm


def l2_ball_buggy(v):
    """Forgot the min(1, .): points inside the ball are pushed out to the sphere."""
    norm = np.linalg.norm(v)
    return v / norm if norm > 0 else v


def check_all():
    """(claim, result, expected verdict) for each check."""
    return [
        ("clamp is 1-Lipschitz", verify.lipschitz(clamp, 1), "PROVED"),
        ("clamp is 1/2-Lipschitz", verify.lipschitz(clamp, sp.Rational(1, 2)), "DISPROVED"),
        ("l2-ball projection (numpy) is nonexpansive", verify.nonexpansive(l2_ball, dim=3), "UNDECIDED"),
        ("buggy projection is nonexpansive", verify.nonexpansive(l2_ball_buggy, dim=3), "DISPROVED"),
        ("unclipped sum has sensitivity 1",
         verify.sensitivity(lambda d: d.sum(), 1.0, relation=ItemReplace(), dataset=np.zeros(10)), "DISPROVED"),
    ]


def report(results):
    """Print the verdicts; True when each is the expected one."""
    ok = True
    for claim, result, expected in results:
        ok &= result.verdict.name == expected
        print(f"{claim}: {result.verdict_text()}")
        if result.counterexample:
            shown = {k: v for k, v in result.counterexample.items() if k not in ("where", "D", "D'")}
            print(f"    counterexample: {shown}")
        if result.undecided:
            print(f"    evidence: {result.evidence['pairs searched']} pairs searched, largest ratio "
                  f"{result.evidence['largest ratio (well-separated pairs)']:.12g}")
    return ok


if __name__ == "__main__":
    ok = report(check_all())
    cli = shutil.which("dpaudit", path=str(Path(sys.executable).parent)) or "dpaudit"
    run = subprocess.run([cli, "prove", "--no-builtin", "--path", str(HERE / "my_checks")], capture_output=True, text=True)
    print("\n".join(line.rstrip() for line in run.stdout.strip().splitlines()))
    sys.exit(0 if ok and run.returncode == 0 else 1)
