"""The offline answer (docs/method.md §A online step 9 without an LLM): the evidence's own sentences,
list items and table rows that best answer the question, quoted verbatim.

Units are scored by the question's content morphemes they contain, rarer terms weighing more
(IDF over the evidence's units), with a bonus for what advising answers are made of: amounts
with units, dates, conditions, course names. A unit whose own wording addresses other students
("2019–2020학년도 입학생 | 요건: …" for a 2022 student) is dropped, read by the same rules
annotator that annotated the chunks. Nothing is paraphrased, and a yes/no question gets no yes
or no: only what the sources say.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from advisor import language as language_data
from advisor.annotation import structure
from advisor.annotation.model import ChunkContext
from advisor.annotation.rules import RulesAnnotator
from advisor.config import InstitutionConfig
from advisor.ingest import rows as row_format  # the cleaned text's row format
from advisor.language import alternation, words
from advisor.retrieval import RetrievedChunk, conflicts
from serving.answer.language import language_of, material_note, sources_say
from serving.answer.units import (
    ComposedAnswer,
    Unit,
    header_cells,
    is_row,
    marker,
    readable,
    row_cells,
    split_units,
    strip_bullet,
)

Tokenize = Callable[[list[str]], list[list[str]]]
SplitSentences = Callable[[str], list[str]]

CONTEXT_WEIGHT = 0.5  # a query term found only in the heading or caption above a unit
CONDITION_WEIGHT = 0.4  # a query term only in a leading clause ("졸업하려면", "23학번인데"): the setting, not the ask
PART_WEIGHT = 0.7  # a query term found inside a longer morpheme
RANK_DECAY = 0.2  # evidence i weighs 1 / (1 + RANK_DECAY * i): the selection put the best first
RELATIVE_FLOOR = 0.5  # units scoring below this share of the best one are left out
# Rows of one table are parallel: a row scoring below this share of its table's best row only
# shares what every row says (the table's subject), not what was asked ("졸업학점" vs its 교양 row).
TABLE_ROW_FLOOR = 0.8
# A row whose first cell (what the row is about) is all words of the question weighs up to this
# much more: of "전공(전공필수 포함) 72학점" and "전공필수 24학점", the second answers "전공필수는 몇 학점?"
LABEL_WEIGHT = 0.5
# A question in another language than the institution's: its own language's units weigh this much
# more (a page written for international students says it for them; quoting Korean is the fallback).
LANGUAGE_PREFERENCE = 2.0
# Two units say the same fact when one's amounts are all in the other and this share of the
# shorter one's remaining words (character bigrams) is in the longer one too.
REPEAT_OVERLAP = 0.5
NEAR_DUPLICATE = 0.9  # units without amounts: near-identical wording (the same notice on two pages)

# What advising answers are made of, and what a question asks for: advisor/language/<code>/answers.yaml
_AMOUNT = re.compile(r"\d+(?:[.,]\d+)?\s*(?:" + alternation(words("answers", "amount_units")) + ")", re.IGNORECASE)
_DATE = re.compile("|".join(words("answers", "dates")), re.IGNORECASE)
_CONDITION = re.compile(alternation(words("answers", "conditions")), re.IGNORECASE)
_COURSE = re.compile(r"\b[A-Z]{2,5}\s?\d{3,4}\b|" + alternation(words("answers", "courses")), re.IGNORECASE)
_ASKS_AMOUNT = re.compile("|".join(words("answers", "asks_amount")), re.IGNORECASE)
_ASKS_DATE = re.compile(alternation(words("answers", "asks_date")), re.IGNORECASE)
_ASKS_COURSE = re.compile(alternation(words("answers", "asks_course")), re.IGNORECASE)
# How a question asks, not what it asks about ("목록을 알려 주세요", "tell me the list")
REQUEST_WORDS = frozenset(words("key_words", "asking_stems"))
# Korean puts the ask last: a clause closed by one of these endings only sets the scene
_KO_LEADING_CLAUSE = re.compile(
    "(?:" + alternation(language_data.load("ko", "answers")["leading_clause_endings"]) + r")[,\s]")

# Yes/no questions: a question ending without a question word. Offline we never decide yes or no.
_KO_QUESTION_WORDS = language_data.load("ko", "question_words")
_EN_QUESTION_WORDS = language_data.load("en", "question_words")
_KO_QUESTION_END = re.compile("(?:" + alternation(_KO_QUESTION_WORDS["question_endings"]) + r")\s*$")
_KO_QUESTION_WORD = re.compile(alternation(_KO_QUESTION_WORDS["spelled"]))
_EN_YES_NO_START = re.compile(r"^\s*(?:" + alternation(_EN_QUESTION_WORDS["yes_no_openers"]) + r")\b", re.IGNORECASE)
_EN_QUESTION_WORD = re.compile(r"\b(?:" + alternation(_EN_QUESTION_WORDS["spelled"]) + r")\b", re.IGNORECASE)


def extractive_answer(query: str, evidence: Sequence[RetrievedChunk], known: Mapping[str, Any],
                      config: InstitutionConfig, tokenize: Tokenize, split_sentences: SplitSentences,
                      max_sentences: int = 3, search_text: str | None = None) -> ComposedAnswer:
    """The best-fitting units of `evidence` (best first) for `query`, verbatim, with citations.
    `search_text`: the query as searched, when not as written (an English question in the
    institution's Korean terms): units are scored against it; `query` says the student's language."""
    if not evidence:
        raise ValueError("extractive_answer needs at least one evidence chunk (use fallback_answer without)")
    if max_sentences < 1:
        raise ValueError(f"max_sentences must be at least 1, got {max_sentences}")
    student = language_of(query, config.language)
    candidates = _candidates(evidence, known, config, split_sentences, _reader_for(config))
    # a question searched in the institution's terms was so because its own language's pages do
    # not answer it: no preference for units in the student's language then
    scored = _score(search_text or query, candidates, tokenize)
    if search_text is None:
        scored = _prefer_language(scored, student, config.language)
    picked = _pick(scored, max_sentences)
    note = None
    if not picked:
        picked, note = _first_informative(candidates, student), "no unit shares a term with the question"
    if not picked:
        return ComposedAnswer(_nothing_fits(student), [], {}, "extractive",
                              "every part of the evidence addresses other students than this profile")
    scores = {(c.evidence, c.unit.position): score for score, c in scored}
    reader = _reader_for(config)
    return _compose(picked, scores, is_yes_no(query), student, note, lambda line: reader.own_cells(line, known))


def is_yes_no(query: str) -> bool:
    """A verification question ("2021학번도 캡스톤디자인이 필수인가요?", "Can I ...?")."""
    text = query.strip()
    if not re.search(r"[\uac00-\ud7a3]", text):  # no Hangul: read it as English
        return bool(_EN_YES_NO_START.search(text)) and not _EN_QUESTION_WORD.search(text)
    return bool(_KO_QUESTION_END.search(text)) and not _KO_QUESTION_WORD.search(text)


# ----------------------------------------------------------------------------- profile fit

class _ProfileReader:
    """Whom a unit's own words address, read by the rules annotator that annotated the chunks:
    headings, captions and a row's label cell as labels (they name whom the lines below are for),
    sentences and items as prose (only their lead counts, exceptions and times are ignored)."""

    def __init__(self, config: InstitutionConfig) -> None:
        self.config = config
        self._annotator = RulesAnnotator(config)
        self._readings: dict[tuple[str, bool], dict] = {}

    def fits(self, unit: Unit, known: Mapping[str, Any]) -> bool:
        if not known:
            return True
        readings = [(unit.caption, True), (unit.heading, not unit.heading.endswith("?"))]
        if unit.kind == "row":
            cells = row_cells(unit.text)
            # the first cell names the row ("학번: 2019–2020학년도 입학생"); later cells are data
            # ("권장 이수시기: 2학년 1학기"), except those stating an audience ("대상: 3학년 이상")
            readings += [(cell, True) for i, cell in enumerate(cells) if i == 0 or structure.target_statements(cell)]
        elif unit.kind in ("sentence", "item"):
            readings.append((strip_bullet(unit.text), False))
        known = dict(known)
        return not any(conflicts(self._applies_to(text, label), known, self.config.profile)
                       for text, label in readings if text)

    def own_cells(self, line: str, known: Mapping[str, Any]) -> str:
        """A row whose columns are for different students ("구분: 졸업학점 | '16학번까지: 140학점 |
        '19~'21학번: 133학점"), as this student's: its label and the cells whose header addresses
        them or no one. Any other line, or a row none of whose cells is this student's, as it is."""
        if not known or not is_row(line):
            return line
        cells = row_cells(line)
        kept = cells[:1] + [cell for cell in cells[1:] if not self._conflicts(row_format.header_and_value(cell)[0], known)]
        if len(kept) == len(cells) or len(kept) < 2:
            return line
        if len(kept) == 2:  # one column left: its header says whose value it is, so it stays with it
            header, value = row_format.header_and_value(kept[1])
            kept[1] = f"{header} {value}" if header else value
        return row_format.row_line(kept)

    def own_rows(self, text: str, known: Mapping[str, Any]) -> str:
        """`text` with only this student's rows of each table in it (a row's label addresses other
        students: "입학년도: 2016학번 이전 | 졸업학점: 140학점" for a 2020 student), each with the
        cells that are theirs (`own_cells`); a table none of whose rows is theirs stays whole."""
        if not known:
            return text
        lines = text.splitlines()
        out: list[str] = []
        i = 0
        while i < len(lines):
            if not is_row(lines[i]):
                out.append(lines[i])
                i += 1
                continue
            table = []
            while i < len(lines) and is_row(lines[i]):
                table.append(lines[i])
                i += 1
            own = [line for line in table if not self._conflicts(row_cells(line)[0], known)]
            out += [self.own_cells(line, known) for line in (own or table)]
        return "\n".join(out)

    def _conflicts(self, label: str, known: Mapping[str, Any]) -> bool:
        """Does `label` (a column header, a row's first cell), read as a label, address other students?"""
        return bool(label) and conflicts(self._applies_to(label, True), dict(known), self.config.profile)

    def _applies_to(self, text: str, as_label: bool) -> dict:
        key = (text, as_label)
        if key not in self._readings:
            if len(self._readings) > 20_000:
                self._readings.clear()
            context = ChunkContext(chunk_id="unit", text="" if as_label else text, doc_url="", doc_title="",
                                   kind="page", collection="static", heading_path=(text,) if as_label else ())
            self._readings[key] = self._annotator.annotate_one(context).applies_to
        return self._readings[key]


_READERS: dict[int, tuple[InstitutionConfig, _ProfileReader]] = {}


def own_rows(text: str, known: Mapping[str, Any], config: InstitutionConfig) -> str:
    """`text` (an FAQ entry's stored answer) with only the student's rows of its tables
    (`_ProfileReader.own_rows`): a table answers with the student's row, not every cohort's."""
    return _reader_for(config).own_rows(text, known)


def unit_fits(unit: Unit, known: Mapping[str, Any], config: InstitutionConfig) -> bool:
    """Whether a unit's own words leave it applicable to `known` (the benchmark synthesis picks its
    answer facts with the same reading the answers are made with)."""
    return _reader_for(config).fits(unit, known)


def _reader_for(config: InstitutionConfig) -> _ProfileReader:
    """One reader per config: the annotator compiles the schema's aliases and patterns."""
    entry = _READERS.get(id(config))
    if entry is None or entry[0] is not config:
        if len(_READERS) > 8:
            _READERS.clear()
        entry = _READERS[id(config)] = (config, _ProfileReader(config))
    return entry[1]


# ----------------------------------------------------------------------------- candidates

@dataclass(frozen=True)
class _Candidate:
    evidence: int  # index into the evidence list
    unit: Unit
    shown: tuple[str, ...]  # the lines quoted (a list: its caption and the members that fit)
    shown_members: tuple[int, ...] = ()  # a list: the positions of the members in `shown`


def _candidates(evidence: Sequence[RetrievedChunk], known: Mapping[str, Any], config: InstitutionConfig,
                split_sentences: SplitSentences, reader: "_ProfileReader") -> list[_Candidate]:
    """Every unit of every evidence chunk that fits the known profile, in evidence order."""
    out: list[_Candidate] = []
    for index, chunk in enumerate(evidence):
        if conflicts(chunk.applies_to or {}, dict(known), config.profile):
            continue  # the whole chunk is for other students (the caller did not filter)
        units = split_units(chunk.text, split_sentences, opens_with_question=chunk.kind == "faq")
        fitting = {u.position for u in units if u.kind != "list" and reader.fits(u, known)}
        for unit in units:
            if unit.kind == "list":
                members = [m for m in unit.members if m in fitting]
                if members and reader.fits(unit, known):
                    out.append(_Candidate(index, unit, (unit.caption, *(units[m].text for m in members)),
                                          tuple(members)))
            elif unit.position in fitting:
                out.append(_Candidate(index, unit, unit.lines))
    return out


# ----------------------------------------------------------------------------- scoring

def _score(query: str, candidates: list[_Candidate], tokenize: Tokenize) -> list[tuple[float, _Candidate]]:
    setting = _leading_clause(query)
    ask = query[len(setting):]
    texts = {query, ask}
    labels = [_row_label(c) for c in candidates]
    for c, label in zip(candidates, labels):
        texts.update((_scored_text(c), c.unit.heading, c.unit.caption, label))
    ordered = sorted(texts)
    tokens = dict(zip(ordered, (set(t) for t in tokenize(ordered))))
    query_terms = tokens[query] - REQUEST_WORDS
    own = [_hits(query_terms, tokens[_scored_text(c)]) for c in candidates]
    context = [_hits(query_terms, tokens[c.unit.heading] | tokens[c.unit.caption]) for c in candidates]
    idf = _idf(query_terms, [o.keys() | x.keys() for o, x, c in zip(own, context, candidates) if c.unit.kind != "list"])
    idf = {t: w if t in tokens[ask] else w * CONDITION_WEIGHT for t, w in idf.items()}
    total = math.fsum(idf.values())  # fsum: exact, so set order (hash seed) cannot change a near-tie
    if not total:
        return []
    wants = _wants(query)
    scored = []
    for c, label, own_hits, context_hits in zip(candidates, labels, own, context):
        if c.unit.kind == "list":  # a list is chosen for its caption; its heading is context
            own_hits = _hits(query_terms, tokens[c.unit.caption])
            context_hits = _hits(query_terms, tokens[c.unit.heading])
        matched = math.fsum(idf.get(t, 0.0) * w for t, w in own_hits.items())
        if not matched:
            continue  # a unit must itself say something asked about, not just sit under it
        matched += CONTEXT_WEIGHT * math.fsum(idf.get(t, 0.0) * w for t, w in context_hits.items() if t not in own_hits)
        score = matched / total * (1 + _bonus(" ".join(c.shown[1:] if c.unit.kind == "list" else c.shown), wants))
        if label and tokens[label]:  # a row named by what was asked is the row that answers
            asked = _hits(tokens[label], tokens[ask] - REQUEST_WORDS)
            setting_only = _hits(tokens[label], query_terms)
            named = math.fsum(asked.get(t, CONDITION_WEIGHT * w) for t, w in setting_only.items())
            ask_terms = tokens[ask] - REQUEST_WORDS
            said = math.fsum(_hits(ask_terms, tokens[label]).values()) / len(ask_terms) if ask_terms else 0.0
            score *= 1 + LABEL_WEIGHT * named / len(tokens[label]) * said
        scored.append((score / (1 + RANK_DECAY * c.evidence), c))
    return scored


def _hits(query_terms: set[str], terms: set[str]) -> dict[str, float]:
    """The query terms a text contains: whole (1.0), or inside a compound it keeps as one
    morpheme (교과목 holds 과목, 졸업요건 holds 졸업) at PART_WEIGHT."""
    hits = {}
    for q in query_terms:
        if q in terms:
            hits[q] = 1.0
        elif len(q) >= 2 and any(q in t for t in terms):
            hits[q] = PART_WEIGHT
    return hits


def _leading_clause(query: str) -> str:
    """The query up to its last scene-setting clause ending, or "" (Korean only)."""
    ends = [m.end() for m in _KO_LEADING_CLAUSE.finditer(query)]
    return query[:ends[-1]] if ends else ""


def _row_label(c: _Candidate) -> str:
    """A row's first cell: what the row is about ("전공필수" in "구분: 전공필수 | 기준: 24학점")."""
    if c.unit.kind != "row":
        return ""
    cells = header_cells(c.unit.text)
    if len(cells) < 2:
        return ""
    # a parenthetical qualifies the name ("전공(전공필수 포함)" is the 전공 row)
    return re.sub(r"\([^()]*\)", " ", cells[0][1]).strip()


def _scored_text(c: _Candidate) -> str:
    unit = c.unit
    return strip_bullet(unit.text).replace(row_format.CELLS, " ") if unit.kind != "list" else unit.caption


def _idf(query_terms: set[str], unit_terms: list) -> dict[str, float]:
    """IDF of the query terms that occur in the evidence (absent ones cannot discriminate)."""
    n = len(unit_terms)
    df = {t: sum(t in terms for terms in unit_terms) for t in query_terms}
    # smoothed: a term in every unit still counts (it may be exactly what is asked about)
    return {t: math.log(1 + (n + 1) / (count + 0.5)) for t, count in df.items() if count}


def _prefer_language(scored: list[tuple[float, _Candidate]], student: str,
                     institution: str) -> list[tuple[float, _Candidate]]:
    """A question in another language than the institution's prefers units in its own language."""
    if student == institution:
        return scored
    return [(score * LANGUAGE_PREFERENCE if _language(c) == student else score, c) for score, c in scored]


def _language(c: _Candidate) -> str:
    return language_of(" ".join(c.shown), default="")


def _wants(query: str) -> tuple[bool, bool, bool]:
    return bool(_ASKS_AMOUNT.search(query)), bool(_ASKS_DATE.search(query)), bool(_ASKS_COURSE.search(query))


def _bonus(text: str, wants: tuple[bool, bool, bool]) -> float:
    """What advising answers are made of, more so when the question asks for it."""
    amount, date, course = wants
    bonus = 0.0
    if _AMOUNT.search(text):
        bonus += 0.3 + 0.3 * amount
    if _DATE.search(text):
        bonus += 0.2 + 0.3 * date
    if _CONDITION.search(text):
        bonus += 0.15
    if _COURSE.search(text):
        bonus += 0.1 + 0.2 * course
    return bonus


# ----------------------------------------------------------------------------- selection

def _pick(scored: list[tuple[float, _Candidate]], limit: int) -> list[_Candidate]:
    """The best units above the floor, best first, at most `limit` blocks; rows of one table are
    one block (shown together under their caption), so a table's other rows that answer as well
    come along. A unit saying a fact already picked (an FAQ sentence and the table row it
    restates, the same notice on two pages) is left out."""
    if not scored:
        return []
    ranked = sorted(scored, key=lambda sc: (-sc[0], sc[1].evidence, sc[1].unit.position))
    scores = {(c.evidence, c.unit.position): score for score, c in scored}
    floor = ranked[0][0] * RELATIVE_FLOOR
    picked: list[_Candidate] = []
    blocks: set[tuple] = set()
    table_best: dict[tuple, float] = {}
    covered: set[tuple[int, int]] = set()
    seen_text: set[str] = set()
    facts: list[_Fact] = []
    for score, c in ranked:
        if score < floor:
            break
        members = {(c.evidence, m) for m in c.unit.members}
        text = " ".join(readable(line) for line in c.shown)
        block = _block(c)
        if members & covered or text in seen_text or (block not in blocks and len(blocks) >= limit):
            continue  # a list and its own rows, the same sentence in two sources, or no room
        if block[1] == "table" and score < table_best.setdefault(block, score) * TABLE_ROW_FLOOR:
            continue  # a row that answers less than its table's best row
        fact = _Fact.of(c, _shown(c, scores))
        if any(fact.repeats(other) for other in facts):
            continue
        picked.append(c)
        blocks.add(block)
        covered |= members
        seen_text.add(text)
        facts.append(fact)
    return picked


_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_YEAR = re.compile(r"^(?:19|20)\d\d")


@dataclass(frozen=True)
class _Fact:
    """What a unit states, for telling repetitions apart: its amounts ("66학점", "4과목", dates;
    cohort years are whom it is for, not the fact) and the character bigrams of its words."""

    amounts: frozenset[str]
    numbers: frozenset[str]
    grams: frozenset[str]

    @classmethod
    def of(cls, c: _Candidate, shown: tuple[str, ...]) -> "_Fact":
        """`shown`: the lines the unit will show (a table: the rows that answer)."""
        lines = shown[1:] if c.unit.kind == "list" else (c.unit.text,)
        # a row's headers are the table's, not the fact: its values say it
        content = " ".join(" ".join(v for _, v in header_cells(line)) if is_row(line) else readable(line)
                           for line in lines)
        found = [m.group() for pattern in (_AMOUNT, _DATE) for m in pattern.finditer(content)]
        amounts = frozenset("".join(a.split()).lower() for a in found if not _YEAR.match(a))
        squashed = re.sub(r"[\W\d_]+", "", content.lower())  # the words, units included ("과목", "학점")
        grams = frozenset(squashed[i:i + 2] for i in range(len(squashed) - 1))
        return cls(amounts, frozenset(_NUMBER.findall(content)), grams)

    def repeats(self, other: "_Fact") -> bool:
        """Whether this unit says nothing `other` (already picked) does not."""
        if not self.grams or not other.grams:
            return False
        shared = len(self.grams & other.grams) / min(len(self.grams), len(other.grams))
        if self.amounts:
            return self.amounts <= other.amounts and shared >= REPEAT_OVERLAP
        return self.numbers == other.numbers and shared >= NEAR_DUPLICATE


def _block(c: _Candidate) -> tuple:
    if c.unit.kind == "row" and c.unit.caption:
        return (c.evidence, "table", c.unit.caption)
    return (c.evidence, c.unit.position)


def _first_informative(candidates: list[_Candidate], student: str) -> list[_Candidate]:
    """Nothing matched the question: the top evidence's first unit with substance (in the
    question's language when the evidence has one)."""
    substantial = [c for c in candidates if c.unit.kind != "list" and len(readable(c.unit.text)) >= 10]
    own = [c for c in substantial if _language(c) == student]
    return (own or substantial or candidates)[:1]


# ----------------------------------------------------------------------------- composing

def _compose(picked: list[_Candidate], scores: dict[tuple[int, int], float], yes_no: bool, student: str,
             note: str | None, own: Callable[[str], str] = lambda line: line) -> ComposedAnswer:
    """The answer the student reads: sources in the order of their best unit, each source's best
    unit first (the sentence that answers leads) and its other units in reading order; a table's
    rows as sentences (in the student's language's glue, each with only the cells for the student:
    `own`), its caption once, after the first of them. One marker per source.
    The snippets stay verbatim, in reading order: they are what the citation quotes."""
    by_source: dict[int, list[_Candidate]] = {}
    for c in picked:  # best first
        by_source.setdefault(c.evidence, []).append(c)
    cited = list(by_source)  # the source of the best unit first
    snippets: dict[int, str] = {}
    lines: list[str] = []
    for number, index in enumerate(cited, 1):
        best, *others = by_source[index]
        block: list[str] = []
        captions: set[str] = set()
        for c in [best, *sorted(others, key=lambda c: c.unit.position)]:
            block += _lines(c, scores, captions, student, own)
        block[-1] += " " + marker(number)
        lines += block
        verbatim: list[str] = []
        for c in sorted(by_source[index], key=lambda c: c.unit.position):
            verbatim += [line for line in _shown(c, scores) if line not in verbatim]  # a shared caption once
        snippets[index] = "\n".join(verbatim)
    if yes_no:
        lines.insert(0, sources_say(student))
    material = language_of(" ".join(snippets.values()), default=student)
    return ComposedAnswer("\n".join(lines), cited, snippets, "extractive", note, material_note(student, material))


def _shown(c: _Candidate, scores: dict[tuple[int, int], float]) -> tuple[str, ...]:
    """The verbatim lines a unit contributes. A table picked for its caption keeps the rows that
    answer best (a question about one TOPIK level gets that level's row); an item list keeps all
    (a list asked for is wanted whole)."""
    if c.unit.kind != "list" or not c.shown_members or not all(is_row(line) for line in c.shown[1:]):
        return c.shown
    member_scores = [scores.get((c.evidence, m), 0.0) for m in c.shown_members]
    best = max(member_scores)
    if not best:
        return c.shown
    return (c.shown[0], *(line for line, s in zip(c.shown[1:], member_scores) if s >= best * TABLE_ROW_FLOOR))


def _lines(c: _Candidate, scores: dict[tuple[int, int], float], captions: set[str], student: str = "ko",
           own: Callable[[str], str] = lambda line: line) -> list[str]:
    """What the student reads for a unit: its content first, its caption (once per source) after."""
    shown = _shown(c, scores)
    caption = c.unit.caption if shown and shown[0] == c.unit.caption and c.unit.caption else ""
    body = [readable(own(line), student) for line in (shown[1:] if caption else shown)]
    if caption and c.unit.kind == "list" and not any(is_row(line) for line in shown[1:]) and _short_items(body):
        return [f"{caption}: {', '.join(body)}"]  # a short list reads as one line
    if caption and caption not in captions:
        captions.add(caption)
        body[0] = _with_context(body[0], caption)
    return body


def _short_items(items: list[str]) -> bool:
    return all(len(item) <= 40 and not re.search(r"[.!?。]$", item) for item in items)


def _with_context(line: str, caption: str) -> str:
    """"… 66학점 이상입니다 (학번별 전공 이수 학점)." : the caption says whose table it is."""
    if line.endswith("."):
        return f"{line[:-1]} ({caption})."
    return f"{line} ({caption})"


def _nothing_fits(language: str) -> str:
    return language_data.load("ko" if language == "ko" else "en", "templates")["nothing_fits"]
