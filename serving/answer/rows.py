"""A table row read as a sentence ("2019–2020학년도 입학생은 전공 72학점 이상입니다."), not as its
cells ("학번: 2019–2020학년도 입학생, 요건: 전공 72학점 이상").

Only the glue is ours: every cell value appears verbatim, in the row's order, so numbers, dates
and names are never changed. The first cell names the row (whom or what it is about); the other
cells say something about it. The reading uses the row's own headers and nothing about one
institution's vocabulary:

- two cells, "label | value": "{label}은/는 {value}입니다." (the header of a lone value adds
  nothing: "기준", "요건", "내용"), unless the value is a bare number, whose header is its unit
  ("교과목: 디지털리터러시 | 학점: 2" -> "디지털리터러시의 학점은 2입니다.");
- more cells: "{label}의 {header}은/는 {value}, {header}은/는 {value}입니다.";
- a row without Hangul is read in English: "For {label}, {header} is {value} and ...";
- a Korean row for a student who writes another language is quoted as its cells, joined by marks
  only: "{label}: {value}", "{label} — {header}: {value}; {header}: {value}" (no glue in a
  language the student does not read: advisor/language/en/grammar.yaml).
"""

from __future__ import annotations

import re

from advisor import language
from advisor.language import alternation

# The glue's words (particles, the copula, sentence endings): advisor/language/ko/grammar.yaml
_GRAMMAR = language.load("ko", "grammar")
_EN_GRAMMAR = language.load("en", "grammar")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_BARE_NUMBER = re.compile(r"^[\d.,\s%~\-–]+$")
_ALREADY_SENTENCE = re.compile("(?:" + alternation(_GRAMMAR["sentence_endings"]) + r"|[.!?。])$")
# a cell that says nothing: marks, and the words for "none" (advisor/language/<code>/answers.yaml)
_EMPTY_VALUES = frozenset({"", "-", "–", "—", "x", "X", *language.words("answers", "empty_cells")})
# How a final digit is read in Korean decides the particle: 1 일, 3 삼, 6 육, 7 칠, 8 팔, 0 영/십 end
# in a consonant; 2 이, 4 사, 5 오, 9 구 do not.
_DIGIT_HAS_FINAL = {digit: digit in _GRAMMAR["digits_with_final_consonant"] for digit in "0123456789"}
_POSSESSIVE, _COPULA = _GRAMMAR["possessive"], _GRAMMAR["copula"]


def row_sentence(cells: list[tuple[str, str]], language: str = "ko") -> str:
    """(header, value) cells of one row as one sentence; "" when no cell has a value. `language`:
    the student's; the glue is Korean only for a Korean reader of a row in Korean."""
    cells = [(h.strip(), v.strip().rstrip(".")) for h, v in cells if v.strip() not in _EMPTY_VALUES]
    if not cells:
        return ""
    if len(cells) == 1:
        header, value = cells[0]
        return f"{header}: {value}" if header else value
    if not any(_HANGUL.search(h + v) for h, v in cells):
        return _english(cells)
    if language != "ko":
        return _quoted(cells)
    (_, label), rest = cells[0], cells[1:]
    if len(rest) == 1:
        header, value = rest[0]
        if _BARE_NUMBER.match(value) and header:
            return f"{label}{_POSSESSIVE} {header}{topic_particle(header)} {_predicate(value)}"
        return f"{label}{topic_particle(label)} {_predicate(value)}"
    parts = [f"{header}{topic_particle(header)} {value}" if header else value for header, value in rest]
    return f"{label}{_POSSESSIVE} " + ", ".join(parts[:-1] + [_predicate(parts[-1])])


def topic_particle(word: str) -> str:
    """은 after a final consonant, 는 after a vowel; 은(는) when the word's end cannot be read."""
    final = has_final_consonant(word)
    if final is None:
        return _GRAMMAR["topic_particle_unknown"]
    after_consonant, after_vowel = _GRAMMAR["particles"]["eun"]
    return after_consonant if final else after_vowel


def has_final_consonant(word: str) -> bool | None:
    """Whether `word` ends in a consonant as read aloud (Hangul syllable or digit), ignoring a
    closing parenthetical and punctuation; None when it ends in neither."""
    text = re.sub(r"\s*\([^()]*\)\s*$", "", word.strip()) or word.strip()
    text = text.rstrip(" .,:;~!?'\"”’")
    if not text:
        return None
    last = text[-1]
    if 0xAC00 <= ord(last) <= 0xD7A3:  # a Hangul syllable: its final consonant by Unicode arithmetic
        return (ord(last) - 0xAC00) % 28 != 0
    if last.isdigit():
        return _DIGIT_HAS_FINAL[last]
    return None


def _predicate(value: str) -> str:
    """The value closing the sentence: "…입니다." unless it already ends like a sentence."""
    return f"{value}." if _ALREADY_SENTENCE.search(value) else f"{value}{_COPULA}."


def _english(cells: list[tuple[str, str]]) -> str:
    (_, label), rest = cells[0], cells[1:]
    parts = [_EN_GRAMMAR["row_cell"].format(header=_lower_first(h), value=v) if h else v for h, v in rest]
    said = parts[0] if len(parts) == 1 else (_EN_GRAMMAR["cell_separator"].join(parts[:-1])
                                              + _EN_GRAMMAR["last_cell_separator"] + parts[-1])
    return _EN_GRAMMAR["row"].format(label=label, said=said)


def _quoted(cells: list[tuple[str, str]]) -> str:
    """A Korean row for a student who writes another language: its cells as they are, joined by
    marks only ("전공필수: 15학점"; "2021학번 — 졸업학점: 130학점; 교양: 36학점"): neither
    Korean glue the student does not read nor English glue around Korean words."""
    (_, label), rest = cells[0], cells[1:]
    if len(rest) == 1:
        return _EN_GRAMMAR["quoted_row"].format(label=label, said=rest[0][1])
    said = _EN_GRAMMAR["quoted_separator"].join(f"{h}: {v}" if h else v for h, v in rest)
    return _EN_GRAMMAR["quoted_cells"].format(label=label, said=said)


def _lower_first(header: str) -> str:
    """"Tuition reduction" -> "tuition reduction"; acronyms ("TOPIK level", "GPA") stay."""
    if len(header) > 1 and header[0].isupper() and header[1].islower():
        return header[0].lower() + header[1:]
    return header
