"""Whom a line of a document says it is for, read from its own words: a table row "2017~2018학번 |
136학점" in a page for everyone is still a row for two cohorts. The benchmark reads its gold lines
with this, on top of the truth file's applicability of the line's document or section.

Its own reader on purpose (not the rules annotator's, not the answerer's): the gold must not share
the errors of the system it grades. It is conservative: a mention it cannot place (a year that is
neither a date nor a cohort it can read, two conflicting values) makes the line UNCLEAR, and the
benchmark then asks nothing that depends on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from advisor.config import question_unit
from advisor.index import fields
from eval.benchmark.truth import applies

UNCLEAR = None  # what `read` returns for a line it cannot place

_DASH = r"\s*[~∼〜–—-]\s*"
# a year: 2021, or 21 / '21 when 학번 follows (possibly after a range: "'18~'20학번")
_YEAR = (r"(?:'?(?P<{n}2>\d{{2}})(?=\s*학번|\s*[~∼〜–—-]\s*'?\d{{2}}\s*학번)|(?P<{n}4>(?:19|20)\d{{2}}))")
_COHORT_WORD = r"(?:학년도|년도|년)?\s*(?:입학생|입학자|신입생|입학|학번|교육과정)?"
_CUE = re.compile(r"학번|입학|신입생|교육과정")
_DATE = re.compile(r"(?:19|20)\d{2}\s*(?:[.\-/]\s*\d{1,2}|년\s*\d{1,2}\s*월|학년도\s*[12]\s*학기|학년도\s*(?:여름|겨울|하계|동계))")
# "편입생 제외", "외국인 유학생은 불가": who is left out, which this reader does not turn around
_EXCLUDING = re.compile(r"제외|불가|아닌|해당\s*없|해당하지\s*않")
_ANY_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)|'\d{2}(?!\d)|(?<![\d.])\d{2}(?=\s*학번)")


def _year(match: re.Match, name: str) -> int:
    two, four = match.group(f"{name}2"), match.group(f"{name}4")
    return int(four) if four else 2000 + int(two)


_RANGE = re.compile(_YEAR.format(n="a") + r"\s*(?:학년도|년도|년|학번)?" + _DASH + _YEAR.format(n="b")
                    + _COHORT_WORD)
_FROM_TO = re.compile(_YEAR.format(n="a") + _COHORT_WORD + r"\s*부터\s*" + _YEAR.format(n="b") + _COHORT_WORD
                      + r"\s*까지")
_PAIR = re.compile(_YEAR.format(n="a") + r"\s*[·,ㆍ및]\s*" + _YEAR.format(n="b") + _COHORT_WORD)
_OPEN = re.compile(_YEAR.format(n="a") + _COHORT_WORD + r"\s*(?P<side>이후|부터|이전|까지|이하|미만|이상|초과|~(?!\s*\d))"
                   r"\s*(?:입학생|입학자|신입생|입학|학번)?")
_ONE = re.compile(_YEAR.format(n="a") + _COHORT_WORD)


@dataclass(frozen=True)
class Scope:
    """Per attribute, whom a line names: a set of categorical values or an inclusive range."""

    limits: dict[str, Any] = field(default_factory=dict)

    def fits(self, profile: Mapping[str, Any], schema: fields.Schema) -> bool:
        # a line naming someone the profile does not say it is (the attribute unknown) is not for it
        return all(profile.get(name) is not None for name in self.limits) and applies(self.limits, profile, schema)

    def then(self, narrower: "Scope") -> "Scope":
        """This scope (a caption's, a heading's) with a line's own mentions taking precedence."""
        return Scope({**self.limits, **narrower.limits})


class LineScopeReader:
    """Reads `Scope`s for one profile schema: categorical values by their aliases and labels, the
    year attribute by cohort expressions, integer attributes by the unit their question asks in
    ("현재 몇 학년인가요?" -> "학년")."""

    def __init__(self, schema: fields.Schema) -> None:
        self.schema = schema
        self._aliases: list[tuple[str, str, re.Pattern]] = []
        for name, attribute in schema.items():
            if fields.is_categorical(attribute):
                for canonical, aliases in attribute.values.items():
                    for alias in {canonical, attribute.label(canonical), *aliases}:
                        if len(alias) >= 2:
                            # a word start, so that 경영학과 is not read inside 국제경영학과
                            pattern = re.compile(rf"(?<![가-힣A-Za-z0-9]){re.escape(alias)}(?![A-Za-z0-9])",
                                                 re.IGNORECASE)
                            self._aliases.append((name, canonical, pattern))
        self._aliases.sort(key=lambda a: -len(a[2].pattern))
        self._years = [n for n, a in schema.items() if not fields.is_categorical(a) and a.type == "year"]
        self._integers = {n: unit for n, a in schema.items()
                          if not fields.is_categorical(a) and a.type == "integer"
                          and (unit := a.unit or question_unit(a.question))}

    def read(self, text: str) -> Scope | None:
        """The scope a text names, or UNCLEAR."""
        limits: dict[str, Any] = {}
        rest = text
        for name, canonical, pattern in self._aliases:
            if pattern.search(rest):
                limits.setdefault(name, set()).add(canonical)
                rest = pattern.sub(" ", rest)
        for name, values in list(limits.items()):
            limits[name] = frozenset(values)
        cohort = self._cohort(rest)
        if cohort is UNCLEAR:
            return UNCLEAR
        if cohort and self._years:
            limits[self._years[0]] = cohort
        for name, unit in self._integers.items():
            span = self._integer(rest, name, unit)
            if span is UNCLEAR:
                return UNCLEAR
            if span:
                limits[name] = span
        if limits and _EXCLUDING.search(text):
            return UNCLEAR
        return Scope(limits)

    def _cohort(self, text: str):
        """(low, high) of the cohorts a text names, () when none, UNCLEAR when it names a year it
        cannot place."""
        text = _DATE.sub(" ", text)
        if not _ANY_YEAR.search(text):
            return ()
        if not self._years:
            return UNCLEAR
        bounds = self.schema[self._years[0]]
        spans = []
        for pattern in (_FROM_TO, _RANGE, _PAIR, _OPEN, _ONE):
            for match in pattern.finditer(text):
                if not _CUE.search(match.group(0)) and pattern is not _RANGE:
                    continue
                low = _year(match, "a")
                if pattern in (_FROM_TO, _RANGE, _PAIR):
                    spans.append((low, _year(match, "b")))
                elif pattern is _OPEN:
                    side = match.group("side")
                    spans.append({"이후": (low, bounds.max), "부터": (low, bounds.max), "이상": (low, bounds.max),
                                  "~": (low, bounds.max), "초과": (low + 1, bounds.max), "미만": (bounds.min, low - 1)}
                                 .get(side, (bounds.min, low)))
                else:
                    spans.append((low, low))
                text = text[:match.start()] + " " * (match.end() - match.start()) + text[match.end():]
        if _ANY_YEAR.search(text) or not spans or any(low > high for low, high in spans):
            return UNCLEAR  # a year left over, or one read backwards
        return (min(s[0] for s in spans), max(s[1] for s in spans))

    def _integer(self, text: str, name: str, unit: str):
        bounds = self.schema[name]
        unit_re = re.escape(unit)
        spans = []
        for match in re.finditer(rf"(?<!\d)(\d{{1,2}})\s*(?:{_DASH}(\d{{1,2}})\s*)?{unit_re}(?!\s*\d?\s*학기)"
                                 rf"\s*(이상|이하|미만|초과)?", text):
            low = int(match.group(1))
            high = int(match.group(2)) if match.group(2) else low
            side = match.group(3)
            if side in ("이상", "초과"):
                low, high = low + (side == "초과"), bounds.max
            elif side in ("이하", "미만"):
                low, high = bounds.min, low - (side == "미만")
            spans.append((low, high))
        if not spans:
            return ()
        if any(low > high or low < bounds.min or high > bounds.max for low, high in spans):
            return UNCLEAR
        return (min(s[0] for s in spans), max(s[1] for s in spans))


