"""Profile values a student types rather than picks with a button (docs/method.md §A online step 4).

Two moments of a conversation where a short message says who is asking and nothing else:

- **a typed answer** to the profile questions just asked ("컴퓨터학과요", "21학번", "2021", "3",
  "잘 모르겠어요"): read as if the buttons had been pressed;
- **a follow-up** right after an answer ("그럼 2023학번은요?", "데이터과학과는?", "what about 2023?"):
  the last question, asked again for those values.

Here a bare mention of a value is an answer: unlike in a question, where "심화전공이랑 이중전공
차이" names a topic and says nothing of the asker (`profiling.StatedValues`), a message that names a
value and nothing else can only be about the student. Whether anything else is left is the caller's
to judge (it has the tokenizer): `read` returns what remains once the values are taken out.
Pure logic: no Dagster, no Kiwi.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from advisor import language
from advisor.index import fields

# A typed "don't know": the button's meaning, in the words students type
# (advisor/language/<code>/profile.yaml)
DONT_KNOW = re.compile("|".join(language.words("profile", "dont_know")), re.IGNORECASE)
# Words that name an attribute rather than a topic ("학번은 2021이요", "학과는 컴퓨터학과", "what about
# the 2023 cohort?"): left beside a value, they do not make the message a question of its own. A
# closed class of how students say who they are; the config's own question wording is added by the caller.
ATTRIBUTE_WORDS = frozenset(language.words("profile", "attribute_words"))
_NUMBER = re.compile(r"(?<!\d)\d{1,4}(?!\d)")


@dataclass(frozen=True)
class Typed:
    values: dict[str, Any]  # attribute -> canonical value, or None for "don't know"
    rest: str  # the message without the words that gave the values


def read(message: str, schema: fields.Schema, range_readers: Mapping[str, Any], declinable: Sequence[str] = ()) -> Typed:
    """The values of the schema's attributes the message names, and what is left of it.

    A categorical value counts when one of its aliases or its label occurs (an English alias as a
    whole word: "AI" is not inside "MAIL"), and no other value of the same attribute does (two
    values named is a comparison, not an answer); for an attribute just asked (`declinable`), also
    the first syllables of one value's name ("서울이요"). A cohort or grade counts as the institution's
    annotator reads it ("21학번", "3학년"; `range_readers`: attribute -> an object with
    `ranges_in(text)`, the annotator's extractors), and a bare number ("2021", "21", "3") where it
    fits exactly one attribute still unread. When the message says it does not know, each of the
    `declinable` attributes (the ones just asked) it names no value of is None."""
    values, spans = _named_values(message, schema, range_readers, declinable)
    numeric = [n for n, attribute in schema.items() if n not in values and not fields.is_categorical(attribute)]
    for match in _NUMBER.finditer(message):
        if any(start < match.end() and match.start() < end for start, end in spans):
            continue
        fits = {n: v for n in numeric if (v := _number_value(int(match.group()), schema[n])) is not None}
        if len(fits) == 1:
            (name, value), = fits.items()
            values[name] = value
            spans.append(match.span())
            numeric.remove(name)
    if DONT_KNOW.search(message):
        values.update({name: None for name in declinable if name in schema and name not in values})
    return Typed(values, _without(message, spans))


def _named_values(message: str, schema: fields.Schema, range_readers: Mapping[str, Any],
                  declinable: Sequence[str]) -> tuple[dict[str, Any], list[tuple[int, int]]]:
    """The values the message names by a word (a categorical value, a cohort or grade as the
    annotator reads it), and the spans of those words."""
    values: dict[str, Any] = {}
    spans: list[tuple[int, int]] = []
    for name, attribute in schema.items():
        if fields.is_categorical(attribute):
            hits = _categorical_hits(message, attribute)
            if not hits and name in declinable:
                hits = _prefix_hits(message, attribute)
            if len(hits) == 1:
                (value, found), = hits.items()
                values[name] = value
                spans += found
        elif (reader := range_readers.get(name)) is not None and hasattr(reader, "ranges_in"):
            ranges = [r for r in reader.ranges_in(message) if r.low == r.high]
            if len({r.low for r in ranges}) == 1:
                values[name] = ranges[0].low
                spans += [(r.start, r.end) for r in ranges]
    return values, spans


def retarget(question: str, values: Mapping[str, Any], schema: fields.Schema) -> str:
    """The last question as a follow-up means it: each value of a followed-up attribute that the
    question names as its topic replaced by the follow-up's ("컴퓨터학과 졸업요건 알려줘" then
    "AI학과는요?" -> "인공지능학과 졸업요건 알려줘")."""
    for name, value in values.items():
        attribute = schema.get(name)
        if value is None or attribute is None or not fields.is_categorical(attribute):
            continue
        others = [_alias_pattern(alias) for other in attribute.values if other != value
                  for alias in sorted(_aliases(attribute, other), key=len, reverse=True)]
        for pattern in others:
            question = re.sub(pattern, attribute.label(value), question, flags=re.IGNORECASE)
    return question


def _aliases(attribute, value: str) -> set[str]:
    """How a categorical value is written: its canonical name, aliases and label (two characters or more)."""
    return {a.strip() for a in (value, *attribute.values[value], attribute.label(value)) if len(a.strip()) >= 2}


def _alias_pattern(alias: str) -> str:
    # an English alias as a whole word ("AI" is not inside "MAIL"); Korean ones take particles
    return rf"(?<![A-Za-z]){re.escape(alias)}(?![A-Za-z])" if alias.isascii() else re.escape(alias)


def _categorical_hits(message: str, attribute) -> dict[str, list[tuple[int, int]]]:
    hits: dict[str, list[tuple[int, int]]] = {}
    for canonical in attribute.values:
        for alias in _aliases(attribute, canonical):
            found = [m.span() for m in re.finditer(_alias_pattern(alias), message, re.IGNORECASE)]
            if found:
                hits.setdefault(canonical, []).extend(found)
    return hits


def _prefix_hits(message: str, attribute) -> dict[str, list[tuple[int, int]]]:
    """An answer to the question just asked in its first syllables ("서울이요" for 서울캠퍼스, "경영"
    for 경영학과, "심화요" for 심화전공): a Korean alias's beginning, two syllables or more, that no
    other value's alias begins with, at the start of a word of the message."""
    starts: dict[str, set[str]] = {}
    for value in attribute.values:
        for alias in _aliases(attribute, value):
            if not alias.isascii():
                for k in range(2, len(alias)):
                    starts.setdefault(alias[:k], set()).add(value)
    hits: dict[str, list[tuple[int, int]]] = {}
    for prefix, values in sorted(starts.items(), key=lambda item: -len(item[0])):
        if len(values) != 1:
            continue
        found = [m.span() for m in re.finditer(rf"(?<![\uac00-\ud7a3A-Za-z]){re.escape(prefix)}", message)]
        if found:
            hits.setdefault(next(iter(values)), []).extend(found)
    return hits


def _number_value(number: int, attribute) -> int | None:
    """The attribute's value a bare number gives: itself when in range; for a cohort year also a
    two-digit year ("21" -> 2021, "99" -> 1999)."""
    candidates = [number]
    if getattr(attribute, "type", None) == "year" and number < 100:
        candidates = [2000 + number, 1900 + number]
    return next((c for c in candidates if attribute.min <= c <= attribute.max), None)


def _without(message: str, spans: Sequence[tuple[int, int]]) -> str:
    kept, end = [], 0
    for start, stop in sorted(spans):
        kept.append(message[end:max(start, end)])
        end = max(end, stop)
    return re.sub(r"\s+", " ", "".join(kept) + message[end:]).strip()
