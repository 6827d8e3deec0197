"""How the benchmark reads a chunk's text: its lines in reading order (table rows, list items,
prose sentences), each with the heading and the caption above it. eval/benchmark/facts.py finds the facts on
these lines, and a benchmark instance's reference answer is the line a fact is stated on.

The evaluation's own reader, on purpose. The answerer cuts the same text into the pieces it quotes
(serving/answer/units.py); were the reference answers cut by the same rules, an answer's ROUGE and
keyword scores would be partly the answerer agreeing with itself. So this module imports nothing
of the system being graded (not serving/, not the advisor modules units.py reads structure with,
not advisor/language's word lists) and reads the text from principles of its own
(tests/test_reference_independence.py holds it to that):

- The cleaned text is light Markdown, and is read as such: a heading is a CommonMark ATX heading
  ("#" to "######", then a space), a list item or a table row is one line, and a row is an item
  whose cells are separated by a vertical bar, as in a Markdown table, with or without their
  column headers ("- 구분: 전공필수 | 기준: 26학점", "- 1-1 | 전공기초 | 경영학원론 | 3").
- A list marker is told by what its characters are, as Unicode classifies and names them, not by a
  list of marks: the line's first token, set off by a space, that is one drawn mark (a dash, or a
  mark whose Unicode name says it is a bullet, dot, square, circle, triangle ...: "-", "•", "■")
  or a number counting items ("1.", "2)", "(3)", "④"). A reference mark ("※") opens a note,
  which is prose; a year ("2026. 3. 1.") counts nothing.
- A caption is the line right above a list's first item, in the same paragraph, that reads as a
  title: a phrase of a few words that does not end like a sentence (sentence punctuation by its
  Unicode name; a Korean final syllable from eval/benchmark/reading/ko.yaml, the evaluation's own data).
- Prose lines are joined within their paragraph (a PDF wraps a sentence over lines) and cut into
  sentences by the `split_sentences` the caller passes: the institution's tokenizer (Kiwi), the one
  piece of reading the benchmark still shares with the answerer, which is handed the same one.
  A question (an FAQ entry's) is not a statement and is left out.
"""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Callable

import yaml

SplitSentences = Callable[[str], list[str]]

ROW, ITEM, SENTENCE = "row", "item", "sentence"
CELL_BAR = "|"  # between a table row's cells, as Markdown tables write them
MAX_HEADING_LEVEL = 6  # CommonMark's ATX headings: "#" to "######"
# A list counts its items with a small number; four digits are a year ("2026. 3. 1.").
MAX_ITEM_NUMBER_DIGITS = 3
# A caption names its list in a phrase (the bundled sites' longest run to seven words); a line of
# more words is a sentence that lost its end, which the reader keeps as prose.
MAX_CAPTION_WORDS = 12
# Words in a mark's Unicode name that say it is a shape drawn to mark an item ("•" BULLET, "■"
# BLACK SQUARE, "▶" BLACK RIGHT-POINTING TRIANGLE, "✓" CHECK MARK); a mark named otherwise writes
# text ("※" REFERENCE MARK, "㈜" PARENTHESIZED IDEOGRAPH STOCK, "°" DEGREE SIGN, quotes, brackets).
_SHAPE_NAME_WORDS = frozenset({"BULLET", "DOT", "ASTERISK", "PLUS", "SQUARE", "CIRCLE", "TRIANGLE", "DIAMOND",
                               "LOZENGE", "POINTER", "ARROW", "ARROWHEAD", "STAR", "CHECK", "BULLSEYE"})
# Words in the Unicode name of a mark that ends a sentence (., 。, ？, ！ and their kin).
_SENTENCE_END_NAME_WORDS = (("FULL", "STOP"), ("QUESTION", "MARK"), ("EXCLAMATION", "MARK"))
DATA = "reading"  # eval/benchmark/reading/<language>.yaml: the reader's own language data


@dataclass(frozen=True)
class Line:
    kind: str  # ROW | ITEM | SENTENCE
    text: str  # verbatim
    heading: str  # the nearest heading above it ("" at the top)
    caption: str  # the caption right above its list or table ("" when none)

    @property
    def body(self) -> str:
        """The line without a list marker it opens with: markup, not what it says (a PDF's prose
        may open with one too: "• 1학년 1학기는 …")."""
        return without_marker(self.text)

    @property
    def cells(self) -> list[str]:
        return [cell.strip() for cell in self.body.split(CELL_BAR) if cell.strip()]

    @property
    def readable(self) -> str:
        """The line as a reference answer shows it: a row's cells "header: value" joined by commas,
        an item without its marker, a wrapped line's breaks as spaces."""
        if self.kind == ROW:
            return ", ".join(self.cells)
        return " ".join(self.body.split())

    @property
    def context(self) -> str:
        """What the line says about whom it is for, beside itself: its caption and heading."""
        return f"{self.heading} {self.caption}".strip()


# ----------------------------------------------------------------------------- marks

def _name_words(char: str) -> set[str]:
    return set(unicodedata.name(char, "").split())


def _is_bullet(token: str) -> bool:
    """One mark drawn to mark an item: a dash (Unicode category Pd: "-", "–"), or a punctuation
    mark or symbol (Po, Sm, So) whose Unicode name says it is such a shape."""
    if len(token) != 1:
        return False
    category = unicodedata.category(token)
    return category == "Pd" or (category in ("Po", "Sm", "So") and bool(_name_words(token) & _SHAPE_NAME_WORDS))


def _is_numeral(text: str) -> bool:
    """One character that is a number by itself (Unicode No, Nl: ①, ⑴, Ⅳ), not a digit of one."""
    return len(text) == 1 and unicodedata.category(text) in ("No", "Nl")


def _is_number(text: str) -> bool:
    """A number that counts: a few decimal digits, or one numeral character."""
    return (text.isdecimal() and len(text) <= MAX_ITEM_NUMBER_DIGITS) or _is_numeral(text)


def _is_enumerator(token: str) -> bool:
    """An item's number: bare when it is a numeral character ("④"; a bare "2" is a sentence's
    number: "2 courses: …"), else closed by a full stop or a closing bracket ("1.", "2)") or inside
    brackets ("(3)", "[4]")."""
    if len(token) >= 3 and unicodedata.category(token[0]) == "Ps" and unicodedata.category(token[-1]) == "Pe":
        return _is_number(token[1:-1])
    if len(token) >= 2 and (token[-1] == "." or unicodedata.category(token[-1]) == "Pe"):
        return _is_number(token[:-1])
    return _is_numeral(token)


def list_marker(line: str) -> str:
    """The list marker a line opens with, or "" when it is no list item: the first token, when it
    is a bullet or an item's number and text follows it after a space."""
    parts = line.split(maxsplit=1)
    if len(parts) == 2 and (_is_bullet(parts[0]) or _is_enumerator(parts[0])):
        return parts[0]
    return ""


def without_marker(line: str) -> str:
    marker = list_marker(line)
    return line.strip()[len(marker):].strip() if marker else line.strip()


def heading_of(line: str) -> str | None:
    """The heading's text when the line is an ATX heading ("## 졸업요건" -> "졸업요건"), else None."""
    hashes = len(line) - len(line.lstrip("#"))
    rest = line[hashes:]
    if not 1 <= hashes <= MAX_HEADING_LEVEL or (rest and not rest[0].isspace()):
        return None
    return rest.strip()


def is_row(body: str) -> bool:
    """A table row: an item of several cells separated by a bar, with their column headers
    ("구분: 전공필수 | 기준: 26학점") or without ("1-1 | 전공기초 | 경영학원론 | 3")."""
    return len([cell for cell in body.split(CELL_BAR) if cell.strip()]) >= 2


# ----------------------------------------------------------------------------- sentences and titles

def _data_files() -> list:
    """eval/benchmark/reading/<language>.yaml, in name order."""
    folder = resources.files(__package__).joinpath(DATA)
    return sorted((p for p in folder.iterdir() if p.name.endswith(".yaml")), key=lambda p: p.name)


@cache
def _language_data() -> dict[str, list]:
    """Every language's data file, merged list by list."""
    merged: dict[str, list] = {}
    for path in _data_files():
        for key, values in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items():
            merged.setdefault(key, []).extend(values)
    return merged


def data_digest() -> str:
    """A short hash of the reader's language data, for the benchmark's code version."""
    hashed = hashlib.sha256()
    for path in _data_files():
        hashed.update(path.name.encode() + b"\0" + path.read_bytes())
    return hashed.hexdigest()[:12]


def _is_sentence_end(char: str) -> bool:
    words = _name_words(char)
    return unicodedata.category(char) == "Po" and any(set(pair) <= words for pair in _SENTENCE_END_NAME_WORDS)


def ends_like_a_sentence(line: str) -> bool:
    """Whether a line closes a sentence: with sentence punctuation, or (without it) with a final
    syllable of the language data ("…합니다", "…제출함")."""
    line = line.rstrip()
    if line and _is_sentence_end(line[-1]):
        return True
    return line.endswith(tuple(_language_data().get("sentence_final_syllables", ())))


def is_question(sentence: str) -> bool:
    sentence = sentence.rstrip()
    return bool(sentence) and "QUESTION" in _name_words(sentence[-1])


def reads_as_title(line: str) -> bool:
    return len(line.split()) <= MAX_CAPTION_WORDS and not ends_like_a_sentence(line)


# ----------------------------------------------------------------------------- the reader

def lines_of(text: str, split_sentences: SplitSentences) -> list[Line]:
    """A chunk's lines in reading order. Headings set the heading of what follows; list items and
    rows are lines of their own under the current caption; the other lines are prose, joined within
    their paragraph and cut into sentences (a PDF wraps one sentence over several lines)."""
    reader = _Reader(split_sentences)
    raw = [line.strip() for line in text.splitlines()]
    for i, line in enumerate(raw):
        reader.read(line, raw[i + 1] if i + 1 < len(raw) else "")
    reader.end_paragraph()
    return reader.lines


class _Reader:
    def __init__(self, split_sentences: SplitSentences) -> None:
        self.split_sentences = split_sentences
        self.lines: list[Line] = []
        self.heading = ""
        self.caption = ""
        self.prose: list[str] = []

    def read(self, line: str, below: str) -> None:
        """One line, knowing the line right below it ("" at a paragraph's end)."""
        heading = heading_of(line) if line else None
        if not line:
            self.end_paragraph()
        elif heading is not None:
            self.end_paragraph()
            self.heading = heading
        elif list_marker(line):
            self._end_prose()
            self.lines.append(Line(ROW if is_row(without_marker(line)) else ITEM, line, self.heading, self.caption))
        elif below and list_marker(below) and reads_as_title(line):
            self.end_paragraph()
            self.caption = line
        else:
            self.caption = ""  # prose between: the list the caption named has ended
            self.prose.append(line)

    def end_paragraph(self) -> None:
        self._end_prose()
        self.caption = ""

    def _end_prose(self) -> None:
        for sentence in self.split_sentences(" ".join(self.prose)) if self.prose else ():
            sentence = sentence.strip()
            if sentence and not is_question(sentence):
                self.lines.append(Line(SENTENCE, sentence, self.heading, ""))
        self.prose = []
