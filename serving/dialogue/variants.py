"""Variants: what the candidate answers state for whom (docs/method.md §A online steps 3-4, 9).

A profile question is worth the student's time only when the answer changes with the value: the
candidate documents limited to different values must state different key facts in the passages
that answer the question ("60학점" for cohorts 2019-2022, "66학점" for 2023+). Documents that are
merely labelled for some students, or near-duplicates repeating the same numbers, do not change
the answer. Key facts are what the answering passages state, numbers (amounts, dates, times) and
words (course names, offices), after removing what only says whom a passage is for: the numbers
of its audience ("2019학번", "3학년") and the names of the profile's values ("컴퓨터학과"), which
differ between near-duplicates by construction. Two departments may both require "8과목", of
different courses. Nothing here knows an institution's vocabulary: numbers and words are read by
pattern, the audience by the rules annotator and the value names, both from the config.

The same groups say which values have documents at all and how a variant is labelled when the
student does not know their value ("2019–2022학번: …").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

from advisor import language as language_data
from advisor.config import english_name
from advisor.index import fields
from advisor.retrieval.results import RetrievedChunk
from serving.dialogue.answerability import TermWeights, contains, coverage

# A number as a fact: digits with decimals, times and date separators kept together ("3.0",
# "09:00", "2026.06.15"), so "3.0" and "30" never read as the same fact.
_NUMBER = re.compile(r"\d+(?:[.:,]\d+)*")
# A word of a fact: Hangul or Latin letters, two or more (a particle stays attached: the same
# wording for different students keeps the same words, which is all the comparison needs)
_WORD = re.compile(r"[\uac00-\ud7a3A-Za-z]{2,}")
# Where a passage is cut into the pieces that may answer: lines and sentence ends.
_PIECES = re.compile(r"\n+|(?<=[.!?。])\s+")
# A piece answers the question when it holds at least half of the question's key-word weight (IDF):
# a curriculum row naming "전공 ... 학점" does, a line that only shares "강의" with "강의평가" does not.
PIECE_COVERAGE = 0.5

Spans = Callable[[str], Iterable[tuple[int, int]]]

# An answer that defers to who asks instead of answering for everyone: a verb of difference ("학과마다
# 다릅니다", "학번별로 상이합니다", "it depends on your cohort") or the answer given per group ("입학년도에
# 따라 33학점 또는 36학점"). "마다" or "별" alone do not defer ("계절학기마다 최대 6학점"): they
# distribute one answer; neither does "따라서" (therefore), nor following an instruction ("공지에
# 따라 4월에 신청합니다", "according to the notice"): that names where the answer comes from, not
# groups it differs by. The wordings: advisor/language/<code>/answers.yaml
_DEFERS = re.compile("|".join(language_data.words("answers", "defers")), re.IGNORECASE)
_FOLLOWING_INSTRUCTIONS = re.compile("|".join(language_data.words("answers", "following_instructions")),
                                     re.IGNORECASE)


@dataclass(frozen=True)
class Variant:
    """The documents limited to one value (or range) of an attribute, and what they state."""

    key: tuple  # the documents' limit: a tuple of categorical values, or (min, max)
    facts: frozenset[str]
    addressed: bool  # some passage of its documents answers the question at all


def answering_pieces(text: str, key_words: Sequence[str], weights: TermWeights, message: str = "",
                     context: str = "") -> list[str]:
    """The lines and sentences of `text` that hold what the question is about: what answers it (a
    curriculum page's other rows state facts that do not bear on this question). A piece holds a
    key word itself and, read with its `context` (the title above it), most of their weight. Only
    the words the corpus uses count here: "부탁" in "안내 부탁드립니다" is in no passage at all."""
    words = [w for w in key_words if weights.seen(w)]
    if not words:
        return []
    return [piece for piece in _PIECES.split(text)
            if any(contains(piece, w, message) for w in words)
            and coverage(words, [context, piece], weights, message) >= PIECE_COVERAGE]


def key_facts(text: str, key_words: Sequence[str], audience_spans: Spans, weights: TermWeights,
              message: str = "", context: str = "", audience_words: Sequence[str] = ()) -> frozenset[str] | None:
    """What the answering pieces of `text` state, without what says whom it is for (the numbers of
    `audience_spans`, "2019학번"; the `audience_words`, the names of the profile's values,
    "컴퓨터학과"): their numbers as they are, their words as "w:word", and the title's
    (`context`) words as "t:word" (which documents are parallel versions of one page); None when no
    piece answers the question."""
    pieces = answering_pieces(text, key_words, weights, message, context)
    if not pieces:
        return None
    strip = lambda piece: _without(piece, audience_spans, audience_words)  # noqa: E731
    facts: set[str] = set()
    for piece in map(strip, pieces):
        facts |= {match.group().replace(",", "") for match in _NUMBER.finditer(piece)}
        facts |= {f"w:{word.lower()}" for word in _WORD.findall(piece)}
    facts |= {f"t:{word.lower()}" for word in _WORD.findall(strip(context))}
    return frozenset(facts)


def _without(text: str, audience_spans: Spans, audience_words: Sequence[str]) -> str:
    kept, end = [], 0
    for start, stop in sorted(audience_spans(text)):
        kept.append(text[end:max(start, end)])
        end = max(end, stop)
    text = " ".join([*kept, text[end:]])
    for word in sorted(audience_words, key=len, reverse=True):  # longest first: "컴퓨터학과" before "컴퓨터"
        text = text.replace(word, " ")
    return text


def _numbers(facts: frozenset[str]) -> frozenset[str]:
    return frozenset(f for f in facts if not f.startswith(("w:", "t:")))


def _tagged(facts: frozenset[str], tag: str) -> frozenset[str]:
    return frozenset(f for f in facts if f.startswith(tag))


def variants_by_attribute(candidates: Sequence[RetrievedChunk], doc_limits: Mapping[str, Mapping[str, frozenset]],
                          schema: fields.Schema, facts_of: Callable[[RetrievedChunk], frozenset[str] | None]
                          ) -> dict[str, list[Variant]]:
    """Per attribute, the candidates' documents limited on it (as a whole document) grouped by their
    limit, with the key facts their candidate chunks state, in the order the documents rank."""
    facts: dict[str, set[str]] = {}  # doc_url -> facts, in rank order
    addressed: dict[str, bool] = {}
    for chunk in candidates:
        facts.setdefault(chunk.doc_url, set())
        addressed.setdefault(chunk.doc_url, False)
        stated = facts_of(chunk)
        if stated is not None:
            facts[chunk.doc_url] |= stated
            addressed[chunk.doc_url] = True
    grouped: dict[str, dict[tuple, tuple[set, bool]]] = {}
    for url in facts:
        for name, keys in doc_limits.get(url, {}).items():
            if name not in schema:
                continue
            for key in keys:  # a document whose chunks carry different limits is in each group
                stated, said = grouped.setdefault(name, {}).get(key, (set(), False))
                grouped[name][key] = (stated | facts[url], said or addressed[url])
    return {name: [Variant(key, frozenset(stated), said) for key, (stated, said) in groups.items()]
            for name, groups in grouped.items()}


def defers(answer: str) -> bool:
    """Does an answer written for everyone say that it differs by who asks, rather than answer?"""
    return _DEFERS.search(_FOLLOWING_INSTRUCTIONS.sub(" ", answer)) is not None


def differ(variants: Sequence[Variant]) -> bool:
    """Do the variants state different things for the question? Only variants with a passage that
    answers it count (a page merely labelled for some cohort does not). Two of them, for different
    students, differ when both state numbers and the numbers are not the same ("60학점" / "66학점"),
    or when they are parallel versions of one page (the same title once the audience is taken out:
    "컴퓨터학과 졸업요건" / "수학과 졸업요건") whose answering words differ (8 courses each, not the
    same courses). Different pages that state the same numbers do not make the answer depend on
    whom it is for. When no answering variant states a number and none are parallel (a procedure in
    words on unrelated pages), two or more audiences are taken to differ: asking is the safe side."""
    answering = [v for v in variants if v.addressed]
    if len({v.key for v in answering}) < 2:
        return False
    parallel_seen = False
    for i, a in enumerate(answering):
        for b in answering[i + 1:]:
            if a.key == b.key:
                continue
            numbers_a, numbers_b = _numbers(a.facts), _numbers(b.facts)
            if numbers_a and numbers_b and numbers_a != numbers_b:
                return True
            if _tagged(a.facts, "t:") & _tagged(b.facts, "t:"):
                parallel_seen = True
                if _tagged(a.facts, "w:") != _tagged(b.facts, "w:"):
                    return True
    return not parallel_seen and not any(_numbers(v.facts) for v in answering)


def worth_asking(variants: Sequence[Variant]) -> bool:
    """Is an evidence question on this attribute worth the student's time? Not when none of the
    passages limited on it answers the question, nor when two or more audiences answer it and say
    the same. A single answering audience is asked about: whether its passage applies to this
    student is what decides the answer."""
    audiences = {v.key for v in variants if v.addressed}
    return bool(audiences) and (len(audiences) == 1 or differ(variants))


def covered_values(variants: Sequence[Variant], attribute) -> list:
    """The values the variants' documents cover, in the schema's order: categorical values, or the
    years / numbers inside their ranges (clipped to the schema's span)."""
    if fields.is_categorical(attribute):
        keys = {value for v in variants for value in v.key}
        return [value for value in attribute.values if value in keys]
    numbers = {n for v in variants for n in range(max(v.key[0], attribute.min), min(v.key[-1], attribute.max) + 1)}
    return sorted(numbers)


def is_covered(value, variants: Sequence[Variant], attribute) -> bool:
    return value in covered_values(variants, attribute)


def range_text(low: int, high: int, attribute, language: str = "ko") -> str:
    """A range as a student reads it: "2021학번", "2019–2022학번", "2023학번 이후", "2018학번 이전";
    for a student who writes another language, the bare numbers in that language's frame
    ("2023 and later": the Korean unit is the institution's word, not the student's)."""
    templates = language_data.load("ko" if language == "ko" else "en", "templates")
    text = attribute.value_text if language == "ko" else str
    if low == high:
        return text(low)
    if high >= attribute.max and low > attribute.min:
        return templates["range_from"].format(value=text(low))
    if low <= attribute.min and high < attribute.max:
        return templates["range_until"].format(value=text(high))
    return f"{low}–{text(high)}"


def value_label(name: str, value, attribute, language: str = "ko") -> str:
    """One value (or range) of attribute `name` as a label in the student's `language`: the
    value's label ("심화전공"; in English its English alias, "intensive major"), or a range of
    numbers ("2019–2022학번"; in English "admission year 2019–2022")."""
    if fields.is_categorical(attribute):
        label = attribute.label if language == "ko" else attribute.english_label
        return "·".join(label(v) for v in attribute.values if v in value)
    low, high = (int(value[0]), int(value[-1])) if isinstance(value, (list, tuple)) else (int(value), int(value))
    templates = language_data.load("ko" if language == "ko" else "en", "templates")
    return templates["audience_value"].format(attribute=english_name(name), value=range_text(low, high, attribute, language))


def audience_label(applies_to: Mapping, names: Sequence[str], schema: fields.Schema, language: str = "ko") -> str | None:
    """Whom a passage applies to on `names`, in the schema's own words ("컴퓨터학과 2019–2022학번"),
    in the student's `language`; None when it is limited on none of them (it applies to everyone
    on those)."""
    parts = [value_label(name, applies_to.get(name), schema[name], language)
             for name in schema if name in names and applies_to.get(name)]
    return " ".join(p for p in parts if p) or None
