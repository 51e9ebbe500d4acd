"""Docstrings, comments and docs cite the papers or documents in this repository.

A citation of a document that ships only with the developers' workspace (a planning file, a
reading note, a numbered house convention) sends a user nowhere. This test fails when one
reappears; it also checks that each ``docs/...`` file cited from the code exists.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("dpaudit", "proofs", "tests", "benchmarks", "notebooks", "docs")
SUFFIXES = {".py", ".md", ".ipynb", ".rst", ".txt", ".cfg", ".toml"}
#: citations of documents a user of the package does not have
FORBIDDEN = re.compile(
    r"house style|\bSPEC\b|notes/paper|paper_00\d|\bshared/|paper-00\d note|anchors note|anchors_\w+\.md"
)
DOCS_CITED = re.compile(r"docs/[\w./-]+\.(?:md|rst)")


def _files() -> list[Path]:
    out = [ROOT / "README.md"]
    for top in SCANNED:
        out += [p for p in (ROOT / top).rglob("*") if p.suffix in SUFFIXES and p.is_file()
                and "_build" not in p.parts and ".ipynb_checkpoints" not in p.parts]
    return [p for p in out if p != Path(__file__).resolve()]


def _hits(pattern: re.Pattern[str]) -> list[tuple[str, int, str]]:
    found = []
    for path in _files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in pattern.finditer(line):
                found.append((str(path.relative_to(ROOT)), number, match.group(0)))
    return found


def test_no_citation_of_documents_outside_the_repository():
    hits = _hits(FORBIDDEN)
    assert not hits, "cite the paper (theorem, equation, page) or a file in this repository instead:\n" + "\n".join(
        f"  {path}:{number}: {text!r}" for path, number, text in hits)


def test_cited_docs_files_exist():
    missing = sorted({(path, text) for path, _, text in _hits(DOCS_CITED) if not (ROOT / text).is_file()})
    assert not missing, "cited documents that do not exist:\n" + "\n".join(f"  {p}: {t}" for p, t in missing)


@pytest.mark.parametrize("text", ["(house style, convention 7)", "see SPEC, data model",
                                  "``notes/paper_000_robust_stats.md``", "../shared/papers/000.txt",
                                  "the paper-003 note's pitfalls"])
def test_pattern_catches_each_kind(text):
    assert FORBIDDEN.search(text)
