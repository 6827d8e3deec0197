"""What a document states, read for the benchmark: the facts on its lines (a quantity with a unit,
named by its aspect: "전공필수 | 26학점" -> (전공필수, 26, 학점)), each on the line that states it,
which is the benchmark instance's reference answer.

The lines (table rows, list items, sentences, each with the heading and caption above it) come
from the evaluation's own line reader (eval/benchmark/line_reader.py), never from the answerer's
(serving/answer/units.py and the advisor modules it reads structure with): the benchmark's gold
lines and reference answers must not be cut by the code they grade, or an answer's keyword and
ROUGE scores would be partly self-graded (tests/test_reference_independence.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Sequence

from eval.benchmark.line_reader import ROW, Line, SplitSentences, lines_of

# Quantities an advising answer turns on; years and dates are left out (they are what a cohort or a
# notice is, not what a student asks for), as are bare numbers.
FACT = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d+)?)\s*(학점|과목|학기|개월|시간|%|점|명|만\s?원|회)")
# a table cell that is a quantity and nothing else ("134학점", "21학점 이상"; not "1학기 개강")
_QUANTITY_ONLY = re.compile(FACT.pattern + r"\s*(?:이상|이하|미만|초과|이내|내외)?")
_NOISE = re.compile(r"\[[^\]]*\]|제\s*\d+\s*[조항장절]|\d{2,4}\s*[–~-]\s*\d{2,4}|\d+\s*(?:학년도|학년|학기|년|월|일|차)|\d+"
                    r"|학년도|입학생|입학자|학번|이후|이전|까지|부터|대상|[()\[\]{}<>:|·,./–~-]")
_LEADING_PARTICLE = re.compile(r"^(?:의|및|과|와|에|을|를|은|는|이|가|도)\s+")
# words that qualify a quantity rather than say what it is of ("매 학기 5명", "이상 등록금 70%")
_QUALIFIERS = frozenset({"매", "직전", "이상", "이하", "미만", "초과", "최대", "최소", "총", "각", "약", "학기", "매년",
                         "매학기", "학기당", "연간", "기준", "내외", "이내", "평점", "당", "별도", "추가", "모두", "합계",
                         "통산", "누적", "연속", "최장", "합산", "주"})
_PARTICLE_END = re.compile(r"(?:은|는|이|가|을|를|의|로|으로|에서|에|과|와|도|만|까지)$")


@dataclass(frozen=True)
class Fact:
    aspect: str  # what is asked about ("전공(전공필수 포함)" -> "전공")
    value: str  # "65"
    unit: str  # "학점"
    line: Line
    whom: str = ""  # the words saying whom it is for: the line, less the other columns' values

    @property
    def scope_text(self) -> str:
        return self.whom or self.line.text

    @property
    def quantity(self) -> str:
        return f"{self.value}{self.unit}"


def facts_of(text: str, split_sentences: SplitSentences, is_noun: Callable[[str], bool],
             profile_words: Sequence[str]) -> list[Fact]:
    """Every fact stated on a line of the text, whoever the line is for. A row's aspect is its
    label (not a numbered one: "1학년" indexes a course table); a sentence's is the noun phrase the
    quantity is of. `is_noun(word)`: whether a word is made of nouns only."""
    found = []
    for line in lines_of(text, split_sentences):
        if line.kind == ROW:
            found.extend(_row_facts(line, profile_words))
        else:
            matches = quantities(line.text)
            if not matches:
                continue
            match = matches[0]
            aspect = aspect_before(line.text[:match.start()], profile_words, is_noun)
            if not aspect and len(matches) == 1:
                aspect = sentence_topic(line.text[:match.start()], profile_words, is_noun)
            if aspect:
                found.append(Fact(aspect, match.group(1), _unit(match), line))
    return found


def _row_facts(line: Line, profile_words: Sequence[str]) -> list[Fact]:
    """A row "구분: 전공필수 | 기준: 26학점" is a fact of its label (전공필수): one per cell with a
    quantity, each for whom that cell's header says ("구분: 졸업학점 | 2014~2016학번: 140학점 |
    2017학번 이후: 136학점" is two facts for two cohorts). A row whose first cell says whom it is for
    ("입학년도: 2019학번 | 졸업 이수학점: 134학점 | 교양: 40학점") holds one fact per later cell, each
    of that cell's header. A numbered label ("1학년") indexes a course table: no fact."""
    cells = line.cells
    label = cells[0].split(":", 1)[-1] if cells else ""
    aspect = "" if re.search(r"\d", label) else clean_aspect(label, profile_words)
    found = []
    measured = [(i, m) for i, cell in enumerate(cells) if i > 0 and (m := next(iter(quantities(cell)), None))]
    for i, match in measured:
        if aspect:
            # whom: the row without the other measured cells (a "비고: 2021학번부터" cell still counts)
            whom = " | ".join(c for j, c in enumerate(cells) if j not in {k for k, _ in measured} - {i})
            found.append(Fact(aspect, match.group(1), _unit(match), line, whom))
            continue
        header, _, value = cells[i].partition(":") if ":" in cells[i] and ":" in cells[0] else ("", "", "")
        own = clean_aspect(header, profile_words)
        if own and re.search(r"\d", label) and _QUANTITY_ONLY.fullmatch(value.strip()):
            found.append(Fact(own, match.group(1), _unit(match), line))
    return found


def quantities(text: str) -> list[re.Match]:
    """The quantities of a text, not counting the semester of a year ("4학년 1학기에", "2026학년도
    2학기"): a point in time, not an amount."""
    return [m for m in FACT.finditer(text)
            if not (m.group(2) == "학기" and re.search(r"학년도?\s*$", text[:m.start()]))]


def _unit(match: re.Match) -> str:
    return match.group(2).replace(" ", "")


def without_words(text: str, words: Sequence[str]) -> str:
    """The text with profile words, numbers, cohort and date words and punctuation taken out:
    what a title says about its subject ("2021학번 컴퓨터학과 졸업요건" -> "졸업요건")."""
    text = text or ""
    for word in words:
        text = text.replace(word, " ")
    return re.sub(r"\s+", " ", _NOISE.sub(" ", text)).strip()


def clean_aspect(text: str, words: Sequence[str]) -> str:
    """A short Korean noun phrase, or "" (codes, names in Latin letters and fragments are no aspect)."""
    text = re.sub(r"\([^)]*\)", " ", text.lstrip("#- "))
    aspect = _LEADING_PARTICLE.sub("", without_words(text, words))[:30].strip()
    if re.search(r"[A-Za-z]", aspect) or len(re.sub(r"[^가-힣]", "", aspect)) < 2:
        return ""
    return aspect


def aspect_before(text: str, words: Sequence[str], is_noun: Callable[[str], bool]) -> str:
    """What a quantity in a sentence is of: a "label:" before it, else the noun phrase that ends
    right before it or is the subject of its clause ("영어 졸업요건: TOEIC 650점" -> "영어 졸업요건";
    "복수전공자는 전공 36학점" -> "전공"; "전공필수는 총 8과목" -> "전공필수"; "매 학기 5명" -> "").
    Profile words are who asks, not what."""
    text = re.sub(r"\([^)]*\)", " ", text)
    clause = re.split(r"[,(·]", text)[-1]
    if ":" in clause:
        return clean_aspect(clause.rsplit(":", 1)[0].split(":")[-1], words)
    for word in words:
        clause = clause.replace(word, " ")
    phrase: list[str] = []
    for word in reversed(clause.split()):
        base = _PARTICLE_END.sub("", word) if len(word) > 2 else word
        if not phrase and (re.search(r"\d", word) or base in _QUALIFIERS):
            continue  # "총", "매 학기", "1~2학년": between the noun phrase and the quantity
        if base != word and (phrase or not re.search(r"(?:은|는|이|가|도)$", word)):
            break  # a particle ends the noun phrase before this one; only a subject is what is counted
        if not (re.fullmatch(r"[가-힣]+", base) and is_noun(base)) or base in _QUALIFIERS or len(phrase) == 2:
            break
        phrase.insert(0, base)
    return clean_aspect(" ".join(phrase), words) if phrase else ""


def sentence_topic(text: str, words: Sequence[str], is_noun: Callable[[str], bool]) -> str:
    """The noun phrase a sentence opens with as its topic ("휴학은 통산 6학기를 ..." -> "휴학"): what
    the sentence's one quantity is about when nothing closer names it."""
    match = re.match(r"\s*((?:[가-힣]+\s+){0,2}[가-힣]+?)(?:은|는)\s", text)
    if not match or any(not is_noun(word) for word in match.group(1).split()):
        return ""
    return clean_aspect(match.group(1), words)


def noun_check(key_words: Callable[[list[str]], list[list[str]]]) -> Callable[[str], bool]:
    """is_noun(word) from a tokenizer's key-word reader (Kiwi: nouns, names, numbers), cached:
    a benchmark asks about the same few hundred words again and again."""

    @lru_cache(maxsize=8192)
    def is_noun(word: str) -> bool:
        return "".join(key_words([word])[0]) == word

    return is_noun
