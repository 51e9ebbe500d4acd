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
#: numbered sections and errata of the reading notes ("note section 3", "note 5.6", "note erratum E11",
#: "note E2"): cite the paper's page and label instead (``docs/papers/ghazi2023.md, erratum E11``)
NOTE_SECTION = re.compile(r"\bnote\s+(?:sections?\b|sec\.|errat(?:um|a)\b|E\d+\b|\d+(?:\.\d+)*\b|\(T\d\))", re.IGNORECASE)
DOCS_CITED = re.compile(r"docs/[\w./-]+\.(?:md|rst)")
#: "docs/papers/<paper>.md, erratum E<n>": the label must be on that page
ERRATUM_CITED = re.compile(r"(docs/papers/\w+\.md), errat(?:um|a) (E\d+)")


def _files() -> list[Path]:
    out = [ROOT / "README.md"]
    for top in SCANNED:
        out += [p for p in (ROOT / top).rglob("*") if p.suffix in SUFFIXES and p.is_file()
                and "_build" not in p.parts and "_notebooks" not in p.parts and ".ipynb_checkpoints" not in p.parts]
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


def test_no_citation_of_the_reading_notes_sections():
    hits = _hits(NOTE_SECTION)
    assert not hits, ("the reading notes' sections and errata are not in the repository: cite docs/papers/<paper>.md and its "
                      "label (e.g. 'docs/papers/ghazi2023.md, erratum E11') or the paper's theorem/equation:\n"
                      + "\n".join(f"  {path}:{number}: {text!r}" for path, number, text in hits))


def test_cited_errata_are_on_their_page():
    missing = set()
    for path in _files():
        for page, label in ERRATUM_CITED.findall(path.read_text(encoding="utf-8")):
            if f"**{label}**" not in (ROOT / page).read_text(encoding="utf-8"):
                missing.add((str(path.relative_to(ROOT)), page, label))
    assert not missing, "errata cited but not listed on their page:\n" + "\n".join(f"  {p}: {g} {x}" for p, g, x in sorted(missing))


@pytest.mark.parametrize("text", ["; note section 3 step 5 and 5.6", "note erratum E11", "; note E2", "(note 2.7 A4)",
                                  "note 5.10", "Note Sec. 3.5", "note (T1)", "note errata summary"])
def test_note_pattern_catches_each_kind(text):
    assert NOTE_SECTION.search(text)


@pytest.mark.parametrize("text", ["note that x > 0", "notes[0]", "note = 2 ** k", "footnote 4", "docs/papers/ghazi2023.md, erratum E11"])
def test_note_pattern_leaves_prose_alone(text):
    assert not NOTE_SECTION.search(text)


def test_cited_docs_files_exist():
    missing = sorted({(path, text) for path, _, text in _hits(DOCS_CITED) if not (ROOT / text).is_file()})
    assert not missing, "cited documents that do not exist:\n" + "\n".join(f"  {p}: {t}" for p, t in missing)


@pytest.mark.parametrize("text", ["(house style, convention 7)", "see SPEC, data model",
                                  "``notes/paper_000_robust_stats.md``", "../shared/papers/000.txt",
                                  "the paper-003 note's pitfalls"])
def test_pattern_catches_each_kind(text):
    assert FORBIDDEN.search(text)
