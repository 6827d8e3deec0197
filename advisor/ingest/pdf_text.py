"""PDF bytes -> text with page offsets, so a chunk can cite the page it came from."""

from __future__ import annotations

import io
import logging
import re
import struct
import unicodedata
import zlib
from dataclasses import dataclass

from pypdf import PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError, PyPdfError, WrongPasswordError

from advisor.ingest.errors import DocumentError

# pypdf logs a warning for every small defect it repairs (a missing EOF marker, a bad xref
# offset); across thousands of crawled PDFs that is noise, and real failures raise anyway.
logging.getLogger("pypdf").setLevel(logging.ERROR)

# What pypdf's parser lets escape on malformed input besides its own exceptions. (The input is an
# in-memory buffer, so even OSError can only come from the bytes.)
_PARSE_ERRORS = (PyPdfError, ValueError, LookupError, TypeError, AttributeError, AssertionError,
                 RecursionError, OverflowError, NotImplementedError, OSError, zlib.error, struct.error)


@dataclass(frozen=True)
class ParsedPdf:
    title: str
    text: str
    page_spans: list[tuple[int, int, int]]  # (1-based page, start, end) offsets into `text`
    n_pages: int


def extract_pdf(data: bytes) -> ParsedPdf:
    """Extract the text of every page. Raises DocumentError with reason ``corrupt_pdf``,
    ``encrypted_pdf`` or ``empty_text`` (no text layer, e.g. a scanned PDF)."""
    if b"%PDF-" not in data[:1024]:  # the header may follow up to 1 KB of junk
        raise DocumentError("corrupt_pdf", "not a PDF (no %PDF- header)")
    reader = _open(data)
    try:
        pages = list(reader.pages)
    except _PARSE_ERRORS as exc:
        raise DocumentError("corrupt_pdf", f"cannot read the page tree: {exc}") from None

    texts, failures = [], 0
    for page in pages:
        try:
            texts.append(tidy_page_text(page.extract_text() or ""))
        except _PARSE_ERRORS:
            # One broken page (a bad content stream or font) should not cost the whole document.
            texts.append("")
            failures += 1
    if pages and failures == len(pages):
        raise DocumentError("corrupt_pdf", "no page's content could be read")

    text, spans = _join_pages(strip_running_lines(texts))
    if not text:
        raise DocumentError("empty_text", "no text layer (scanned PDF?)")
    return ParsedPdf(_title(reader, text), text, spans, len(pages))


def _open(data: bytes) -> PdfReader:
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        encrypted = reader.is_encrypted
    except _PARSE_ERRORS as exc:
        raise DocumentError("corrupt_pdf", f"cannot parse the PDF: {exc}") from None
    if encrypted:
        # Most "protected" PDFs only carry an owner password (restricting printing or copying);
        # they open with the empty user password, as in any viewer.
        try:
            if not reader.decrypt(""):
                raise DocumentError("encrypted_pdf", "needs a password to open")
        except (WrongPasswordError, FileNotDecryptedError):
            raise DocumentError("encrypted_pdf", "needs a password to open") from None
        except (DependencyError, NotImplementedError) as exc:  # an algorithm pypdf cannot do
            raise DocumentError("encrypted_pdf", f"unsupported encryption: {exc}") from None
        except _PARSE_ERRORS as exc:
            raise DocumentError("corrupt_pdf", f"broken encryption dictionary: {exc}") from None
    return reader


_PAGE_NUMBER = re.compile(r"^(?:[-–—(\[]\s*)?(?:page\s*|p\.\s*)?\d{1,4}(?:\s*/\s*\d{1,4})?(?:\s*[-–—)\]])?$", re.I)
_EDGE_LINES = 2  # running heads and feet sit in the first or last lines of a page


def strip_running_lines(texts: list[str]) -> list[str]:
    """Drop running heads/feet (the same line at the top or bottom of most pages, page numbers
    aside) and bare page numbers: boilerplate that would otherwise open every chunk."""
    def key(line: str) -> str:
        return re.sub(r"\d+", "#", line.strip())

    pages = [t.split("\n") for t in texts]
    counts: dict[str, int] = {}
    for lines in pages:
        for k in {key(line) for line in lines[:_EDGE_LINES] + lines[-_EDGE_LINES:] if line.strip()}:
            counts[k] = counts.get(k, 0) + 1
    with_text = sum(1 for t in texts if t)
    running = {k for k, n in counts.items() if with_text >= 3 and n >= 0.6 * with_text}

    def boilerplate(line: str) -> bool:
        return key(line) in running or bool(_PAGE_NUMBER.match(line.strip()))

    cleaned = []
    for lines in pages:
        head = 0
        while head < min(_EDGE_LINES, len(lines)) and boilerplate(lines[head]):
            head += 1
        tail = len(lines)
        while tail > head and len(lines) - tail < _EDGE_LINES and boilerplate(lines[tail - 1]):
            tail -= 1
        cleaned.append("\n".join(lines[head:tail]).strip())
    return cleaned


def _join_pages(texts: list[str]) -> tuple[str, list[tuple[int, int, int]]]:
    """Pages joined by a blank line; an empty page gets an empty span and adds no blank line."""
    parts: list[str] = []
    spans: list[tuple[int, int, int]] = []
    offset = 0
    for number, page_text in enumerate(texts, start=1):
        if page_text:
            if parts:
                parts.append("\n\n")
                offset += 2
            parts.append(page_text)
            spans.append((number, offset, offset + len(page_text)))
            offset += len(page_text)
        else:
            spans.append((number, offset, offset))
    return "".join(parts), spans


# --------------------------------------------------------------------------- tidying

_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200a\u202f\u3000]+")
_ENDS_SENTENCE = re.compile(r"[.!?:;。)\]」』》〉]$")
# Lines that start a new unit: bullets, numbered items ("1.", "2)", "(3)", "가.", "①"), notes.
_STARTS_ITEM = re.compile(
    r"^(?:[-•·∙○●◦□■◆◇▶▷►※*★☆>]|\d+[.)]|\(\d+\)|[가-하][.)]|\([가-하]\)|[\u2460-\u2473\u3260-\u327b])"
)
# A small number standing alone ("자료구조 3 전공필수"): the mark of a table row (credits, hours,
# grades), rarer in running text. Four-digit years are left out: prose says "in 2021" freely.
_LONE_NUMBER = re.compile(r"(?:^|\s)\d{1,3}(?:[.,]\d+)?(?=\s|$)")
_WRAP_SHARE = 0.75  # a line at least this share of the page's widest line filled its line box
_MIN_COLUMN = 40  # narrower than this (in columns), the "lines" are labels or cells, not prose


def _width(line: str) -> int:
    """Display width: Hangul and other wide characters take two columns."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in line)


def _is_wrapped(line: str, following: str, full_width: int) -> bool:
    """Whether `following` continues `line` (the line was wrapped by the layout, not ended).

    Only a line that fills the text column is joined to the next, never into a line that starts
    like a list item, and never when either holds a lone number: a table row that happens to be
    wide still keeps its own line. When unsure, keep the break; it costs little.
    """
    return (
        bool(line and following)
        and full_width >= _MIN_COLUMN
        and _width(line) >= _WRAP_SHARE * full_width
        and not _ENDS_SENTENCE.search(line)
        and not _STARTS_ITEM.match(following)
        and not _LONE_NUMBER.search(line)
        and not _LONE_NUMBER.search(following)
    )


def tidy_page_text(raw: str) -> str:
    """Collapse spaces, keep line breaks, join lines the layout wrapped, drop empty runs."""
    lines = [_SPACES.sub(" ", line).strip() for line in raw.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    full_width = max((_width(line) for line in lines), default=0)
    out: list[str] = []
    for line in lines:
        previous = out[-1] if out else ""
        if previous and line and _is_wrapped(previous, line, full_width):
            if re.search(r"[a-z]-$", previous) and line[0].islower():  # "require-" + "ments"
                out[-1] = previous[:-1] + line
            else:
                out[-1] = previous + " " + line
        elif line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()


# --------------------------------------------------------------------------- title

_FILENAME = re.compile(r"\.(?:pdf|hwpx?|docx?|pptx?|xlsx?|txt|rtf|odt)$", re.I)
_PLACEHOLDERS = {"untitled", "no title", "title", "제목 없음", "제목없음", "무제", "문서", "document", "slide 1"}
_APP_PREFIX = re.compile(r"^(?:Microsoft (?:Word|PowerPoint|Excel) - |한글 - )", re.I)


def _meaningful(title: str) -> bool:
    """Metadata titles are often a file name or an authoring tool's placeholder."""
    title = title.strip()
    return (
        len(title) >= 2
        and title.lower() not in _PLACEHOLDERS
        and not _APP_PREFIX.match(title)
        and not _FILENAME.search(title)
        and bool(re.search(r"[^\W\d_]", title))  # has letters, not just numbers or symbols
    )


def _title(reader: PdfReader, text: str) -> str:
    try:
        title = str((reader.metadata or {}).get("/Title") or "")
    except _PARSE_ERRORS:
        title = ""
    if _meaningful(title):
        return re.sub(r"\s+", " ", title).strip()
    first_line = next((line for line in text.split("\n") if line.strip()), "")
    return first_line.strip()[:200]
