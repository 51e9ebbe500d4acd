"""The auditing page's command-line, report and pytest-plugin examples print what the page says they do.

The shell blocks of those sections run in order in one empty folder, each compared with the output
block after it; timings and memory addresses are masked. The diffprivlib example runs too (seeded);
the OpenDP one cannot be seeded, so only its claim line is compared.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "docs" / "auditing.md"


def _section(start: str, stop: str) -> str:
    text = README.read_text(encoding="utf-8")
    return text[text.index(start):text.index(stop)]


def _examples(section: str, language: str) -> list[tuple[str, str]]:
    """(code, expected output) for each ``language`` block followed by a plain output block."""
    return re.findall(rf"```{language}\n(.*?)```\s*\n```\n(.*?)```", section, flags=re.S)


def _normalised(text: str) -> list[str]:
    lines = []
    for line in text.strip().splitlines():
        if re.match(r"^(E\s+)?\s*time\s+:", line):
            continue
        line = re.sub(r"0x[0-9a-f]+", "0x?", line)
        line = re.sub(r" in [0-9.]+s$", " in ?s", line)
        lines.append(line.rstrip())
    return lines


def _environment() -> dict[str, str]:
    # pytest stops truncating its short summary when CI or BUILD_NUMBER is set; the page shows a terminal's output
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "PYTEST")) and k not in ("CI", "BUILD_NUMBER", "COLUMNS")}
    env["COLUMNS"] = "80"
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def test_the_command_line_and_plugin_examples(tmp_path):
    examples = _examples(_section("### Your own mechanism", "### Hypothesis strategies"), "bash")
    assert len(examples) == 4
    for code, expected in examples:
        done = subprocess.run(["bash", "-c", code], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, env=_environment(), timeout=600)
        assert _normalised(done.stdout) == _normalised(expected), code


def test_the_adapter_examples(tmp_path):
    pytest.importorskip("diffprivlib.mechanisms", reason="needs the 'diffprivlib' extra: pip install 'dpaudit[diffprivlib]'",
                        exc_type=ImportError)
    pytest.importorskip("opendp", reason="needs the 'opendp' extra: pip install 'dpaudit[opendp]'", exc_type=ImportError)
    [(seeded, seeded_output), (unseeded, unseeded_output)] = _examples(
        _section("### diffprivlib and OpenDP", "On the command line, `dpaudit audit mymod:laplace"), "python"
    )
    for code, expected, compare in ((seeded, seeded_output, slice(None)), (unseeded, unseeded_output, slice(0, 1))):
        done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                              env=_environment(), timeout=600)
        assert done.returncode == 0, done.stderr
        assert _normalised(done.stdout)[compare] == _normalised(expected)[compare]
