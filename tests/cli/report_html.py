"""Reading a dpaudit HTML report back with the standard library's HTML parser."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from html.parser import HTMLParser

__all__ = ["ParsedReport", "parse_report"]

_VOID = {"meta", "img", "br", "hr", "link", "input"}


@dataclass
class ParsedReport:
    """What a reader of the report sees: its text, the verdict box, the images, external links."""

    text: str = ""
    verdict: str = ""
    images: list[bytes] = field(default_factory=list)
    external_resources: list[str] = field(default_factory=list)
    open_tags: list[str] = field(default_factory=list)


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.report = ParsedReport()
        self._stack: list[str] = []
        self._verdict_depth: int | None = None
        self._text: list[str] = []
        self._verdict: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for key in ("src", "href"):
            link = values.get(key) or ""
            if link and not link.startswith(("data:", "#")):
                self.report.external_resources.append(link)
        if tag == "img":
            src = values.get("src") or ""
            prefix = "data:image/png;base64,"
            assert src.startswith(prefix), f"image is not an embedded PNG: {src[:40]!r}"
            try:
                self.report.images.append(base64.b64decode(src[len(prefix):], validate=True))
            except binascii.Error as exc:  # pragma: no cover - reported as a test failure
                raise AssertionError(f"embedded image is not valid base64: {exc}") from exc
        if tag in _VOID:
            return
        self._stack.append(tag)
        if values.get("id") == "verdict":
            self._verdict_depth = len(self._stack)

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return
        assert self._stack and self._stack[-1] == tag, f"</{tag}> closes <{self._stack[-1] if self._stack else None}>"
        if self._verdict_depth == len(self._stack):
            self._verdict_depth = None
        self._stack.pop()

    def handle_data(self, data: str) -> None:
        self._text.append(data)
        if self._verdict_depth is not None:
            self._verdict.append(data)

    def close(self) -> None:
        super().close()
        self.report.text = " ".join("".join(self._text).split())
        self.report.verdict = " ".join("".join(self._verdict).split())
        self.report.open_tags = list(self._stack)


def parse_report(document: str) -> ParsedReport:
    """Parse a report; fail on mismatched tags, unclosed tags or an image that is not embedded."""
    assert document.startswith("<!DOCTYPE html>"), document[:40]
    reader = _Reader()
    reader.feed(document)
    reader.close()
    assert reader.report.open_tags == [], f"unclosed tags: {reader.report.open_tags}"
    return reader.report
