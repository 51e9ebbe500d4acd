"""Every python example of the README (and of the docs pages that show output) runs as pasted and
prints what the page shows.

Each ```python block is run on its own by a fresh interpreter in an empty folder (as a visitor
pasting it would); when a plain ``` block follows it, the printed lines must equal that block's.
A block with no output shown must still run without error.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
BLOCK = re.compile(r"```python\n(.*?)```(?:\s*\n```\n(.*?)```)?", flags=re.S)


def readme_examples(text: str) -> list[tuple[str, str | None]]:
    """(code, shown output or None) for each python block of ``text``, in order."""
    return [(code, shown if shown else None) for code, shown in BLOCK.findall(text)]


EXAMPLES = readme_examples(README.read_text(encoding="utf-8"))
#: docs pages whose every python block runs alone and shows its output
PAGES = [ROOT / "docs" / "bounds.md"]
PAGE_EXAMPLES = [(page, code, shown) for page in PAGES for code, shown in readme_examples(page.read_text(encoding="utf-8"))]


def test_the_readme_has_examples_with_output():
    assert len(EXAMPLES) >= 3 and all(shown for _, shown in EXAMPLES), "every README example shows its output"


@pytest.mark.parametrize(("page", "code", "shown"), PAGE_EXAMPLES,
                         ids=[f"{page.stem}{i + 1}" for i, (page, _, _) in enumerate(PAGE_EXAMPLES)])
def test_docs_page_example_prints_what_it_shows(page, code, shown, tmp_path):
    assert shown is not None, f"{page.name}: every example shows its output"
    test_readme_example_prints_what_it_shows(code, shown, tmp_path)


@pytest.mark.parametrize(("code", "shown"), EXAMPLES, ids=[f"example{i + 1}" for i in range(len(EXAMPLES))])
def test_readme_example_prints_what_it_shows(code, shown, tmp_path):
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"the README example fails as pasted:\n{code}\n{done.stderr}"
    if shown is not None:
        printed = [line.rstrip() for line in done.stdout.strip().splitlines()]
        expected = [line.rstrip() for line in shown.strip().splitlines()]
        assert printed == expected, f"the README shows\n{shown}\nbut the example prints\n{done.stdout}"


def test_the_extractor_pairs_code_with_the_output_after_it():
    text = "x\n```python\nprint(1)\n```\n\n```\n1\n```\n```python\nimport os\n```\ntext\n"
    assert readme_examples(text) == [("print(1)\n", "1\n"), ("import os\n", None)]
