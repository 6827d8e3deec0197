"""What an answer is made of: `ComposedAnswer`, and a chunk cut into the pieces an answer may
quote (sentences, list items, table rows, whole short lists), each with the heading or caption it
sits under.

Chunk text keeps its structure (advisor/chunking): "# heading" lines, "- item" lines, table rows
written as "- header: value | header: value" under a short caption line, and prose paragraphs.
A row alone ("구분: 전공필수 | 기준: 26학점") does not say whose requirement it is; its caption
("심화전공 이수 학점 (2023학년도 입학생)") does, so a row is always shown with its caption.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from advisor import language
from advisor.annotation import structure
from advisor.ingest import rows as row_format  # the cleaned text's row format
from advisor.language import alternation
from serving.answer.rows import row_sentence

SplitSentences = Callable[[str], list[str]]

MAX_LIST_ITEMS = 20  # a longer list is quoted item by item, never whole
_BULLET = re.compile(r"^\s*(?:[-*•·▪◦○●■□▶►]\s+|\d+[.)]\s+|\(\d+\)\s*|[①-⑳]\s*)")
# a line that ends like a sentence, or like a terse note ("…제출함"): advisor/language/ko/grammar.yaml
_GRAMMAR = language.load("ko", "grammar")
_TERMINATED = re.compile(r"[.?!。:：]$|(?:" + alternation(_GRAMMAR["sentence_endings"] + _GRAMMAR["terse_endings"])
                         + r")\.?$")
_CAPTION_MAX = 60  # an unterminated line up to this long right above a list is its caption


@dataclass(frozen=True)
class ComposedAnswer:
    """An answer written from selected evidence. Markers "[k]" in `text` refer to `cited[k-1]`, so
    a caller listing the cited sources in `cited` order numbers them as the text does."""

    text: str  # what the student reads (quoted: in the material's language)
    cited: list[int]  # 0-based indexes into the evidence list, in order of first use
    snippets: dict[int, str]  # evidence index -> the sentence(s) used, verbatim
    method: str  # "extractive" | "llm"
    note: str | None = None  # e.g. why the usual path was not taken
    # Set when the cited material is in another language than the question, in the question's
    # language ("This answer is quoted from Korean-language material."): a note to show the student.
    language_note: str | None = None


def marker(number: int) -> str:
    return f"[{number}]"


@dataclass(frozen=True)
class Unit:
    """One quotable piece of a chunk.

    kind: "sentence" | "item" | "row" | "list" (a caption with all its items).
    lines: what the answer shows, verbatim from the chunk, context first: (sentence,), (item,),
    (caption, row) or (caption, item, item, ...). A unit without a caption has none.
    members: for a "list", the positions of the item units it stands for (so a list and one of its
    items are never both quoted); for the other kinds, its own position.
    """

    position: int
    kind: str
    text: str  # the content that is scored: the sentence, item or row (a list: its caption)
    lines: tuple[str, ...]
    heading: str = ""  # the nearest heading above it, without "#" marks (or an FAQ's question)
    caption: str = ""
    members: tuple[int, ...] = ()


def strip_bullet(line: str) -> str:
    return _BULLET.sub("", line, count=1).strip()


def is_row(line: str) -> bool:
    """A table row as the cleaned text writes it (advisor/ingest/rows.py), after any bullet: cells
    joined by " | ", the first with its header."""
    body = strip_bullet(line)
    return row_format.CELLS in body and ":" in body.split(row_format.CELLS, 1)[0]


def row_cells(line: str) -> list[str]:
    return row_format.cells(strip_bullet(line))


def header_cells(line: str) -> list[tuple[str, str]]:
    """A row's cells as (header, value); a cell without "header: " has the header ""."""
    return [row_format.header_and_value(cell) for cell in row_cells(line)]


def readable(line: str, language: str = "ko") -> str:
    """How a verbatim line is shown in an answer: bullets dropped, a row read as a sentence built
    from its headers and cells (serving/answer/rows.py: the values verbatim, only the glue added,
    in the reader's `language`), a wrapped (PDF) line's breaks as spaces. Nothing else changes."""
    if is_row(line):
        return row_sentence(header_cells(line), language) or " ".join(strip_bullet(line).split())
    return " ".join(strip_bullet(line).split())


def heading_text(line: str) -> str:
    return line.strip().lstrip("#").strip()


def _is_caption(line: str, following: str | None) -> bool:
    if following is None or not structure.is_list_item(following):
        return False
    return (len(line) <= _CAPTION_MAX and not structure.is_list_item(line)
            and not structure.is_heading_line(line) and not _TERMINATED.search(line))


def split_units(text: str, split_sentences: SplitSentences, opens_with_question: bool = False) -> list[Unit]:
    """The chunk's quotable units in reading order (positions 0, 1, ...).

    opens_with_question: the first paragraph is a question (an FAQ entry), even without a "?"
    ("전공필수를 알려 주세요."): it heads the answer, and is never quoted as one."""
    builder = _Builder(split_sentences)
    for number, block in enumerate(re.split(r"\n\s*\n", text)):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        if number == 0 and opens_with_question and lines:
            builder.heading = " ".join(lines)
            continue
        for i, line in enumerate(lines):
            builder.add(line, lines[i + 1] if i + 1 < len(lines) else None)
        builder.end_block()
    return builder.units


class _Builder:
    def __init__(self, split_sentences: SplitSentences) -> None:
        self.split_sentences = split_sentences
        self.units: list[Unit] = []
        self.heading = ""
        self.caption = ""
        self.items: list[Unit] = []
        self.prose: list[str] = []  # lines of one paragraph (a PDF wraps sentences over lines)

    def add(self, line: str, following: str | None) -> None:
        if structure.is_heading_line(line):
            self.end_block()
            self.heading = heading_text(line)
        elif structure.is_byline(line):
            return  # author / date / views of a board post: never an answer
        elif structure.is_list_item(line):
            self._end_prose()
            self._append("row" if is_row(line) else "item", line,
                         (self.caption, line) if self.caption else (line,), collect=True)
        elif _is_caption(line, following):
            self.end_block()
            self.caption = line
        else:
            self._end_list()
            self.prose.append(line)

    def end_block(self) -> None:
        self._end_prose()
        self._end_list()

    def _append(self, kind: str, text: str, lines: tuple[str, ...], members: tuple[int, ...] = (),
                collect: bool = False) -> None:
        position = len(self.units)
        unit = Unit(position, kind, text, lines, self.heading, self.caption, members or (position,))
        self.units.append(unit)
        if collect:
            self.items.append(unit)

    def _end_prose(self) -> None:
        for sentence in self.split_sentences(" ".join(self.prose)) if self.prose else ():
            sentence = sentence.strip()
            if sentence.endswith("?"):
                # an FAQ entry opens with its question: it heads the answer below it, and is
                # never an answer itself
                self.heading = sentence
            elif sentence:
                self._append("sentence", sentence, (sentence,))
        self.prose = []

    def _end_list(self) -> None:
        if self.caption and 2 <= len(self.items) <= MAX_LIST_ITEMS:
            self._append("list", self.caption, (self.caption, *(u.text for u in self.items)),
                         tuple(u.position for u in self.items))
        self.items, self.caption = [], ""
