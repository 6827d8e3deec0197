"""Korean (and some English) administrative expressions that say WHOM a text applies to.

Pure functions over strings: no config objects, only the numeric bounds a caller passes in.
Every match carries its span so callers can reason about position (is it in the first
sentence? is it followed by "을 대상으로"? does a grade phrase come right before "재학생"?).

Three kinds of expressions:

- cohorts (admission years): ``2019~2021학번``, ``2020학년도 이후 입학자``, ``21학번 이전``,
  ``2017학년도 입학생부터 2018학년도 입학생까지``, ``'22학번``, ``입학년도: 2019~2021``,
  ``students admitted in 2024–2025``. A year alone is never a cohort: ``2024년 3월 2일`` is a
  date and ``2026학년도 1학기 수강신청`` is the academic year of an event. A cohort needs a
  cohort word (학번, 입학생/입학자, 신입생, admitted …) or a cohort column key.
- curriculum years: ``2021–2022학년도 교육과정`` names the curriculum of those cohorts, while
  ``2023학년도 교육과정 개편`` names a revision (the students it concerns are the ones admitted
  before it). Reported separately because only a caller knows whether the context is a label.
- grades (year of study): ``3학년 이상``, ``3~4학년``, ``1학년 1학기``, ``저학년``, ``신입생``,
  ``졸업예정자``. Counts (``3학점``, ``4학기``) and ``N학년도`` never match.
- statuses: through the config's aliases and their inflections (``휴학생`` → ``휴학 중인 학생``,
  ``휴학 중``, ``휴학한 학생``; ``복학생`` → ``복학 예정자``), see lexicon.py; status changes named
  as actions ("휴학 신청" is filed by enrolled students) are in cues.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from advisor.annotation.lexicon import AliasMatcher, ValueMatch

# ----------------------------------------------------------------------------- results


@dataclass(frozen=True)
class RangeMatch:
    """An inclusive [low, high] found in text[start:end]."""

    low: int
    high: int
    start: int
    end: int
    text: str
    form: str = ""  # the family that matched: hakbeon, entrant, table, english, curriculum, revision, grade, word
    open_start: bool = False  # written "~2016학번": a range's end when another cohort comes right before it


# ----------------------------------------------------------------------------- shared pieces

_DASH = "~〜∼\\-–—－"
_RANGE_SEP = rf"\s*[{_DASH}]\s*"
_LIST_SEP = r"\s*(?:[·ㆍ,，]|및|과|와)\s*"
# A year token: 4 digits (19xx/20xx) or 2 digits, optionally with an apostrophe ('22학번).
_YEAR = r"(?:['’‘`]\s?)?(?:(?:19|20)\d{2}|\d{2})(?!\d)"  # not the head of a student ID number
_YEARS = rf"(?P<years>{_YEAR}(?:(?:{_RANGE_SEP}|{_LIST_SEP}){_YEAR})*)"
_NOT_AFTER_DIGIT = r"(?<![\d.,/:])"
# Open ends. Korean administrative usage is inclusive for 이후/이전 ("2020학번 이전" includes 2020).
_LOWER_QUAL = ("이후", "이상", "부터", "以後")
_UPPER_QUAL = ("이전", "이하", "까지", "以前")
_QUAL = r"(?:이후|이전|이상|이하|부터|까지|미만|초과)"
# "입학" alone only as a word of its own: "2026학년도 입학식" is an event. "입학한 구 상경대학 학생":
# a short name may stand between "입학한" and the person noun.
_ENTRANT = (r"(?:입학생|입학자|신입생|입학한\s*(?:[가-힣]+\s+){0,2}?(?:학생|자)"
            r"|입학(?=[\s,.)은는이가을를의도]|$))")
# A tilde with no year after it leaves a range open: "24학번~" (from 2024), "~2016학번" (until 2016).
_OPEN_AFTER = r"(?P<tilde>\s*[~〜∼](?!\s*['’‘`]?\d))?"
_OPEN_BEFORE = r"(?:(?<![\d'’‘`~〜∼])(?P<lead>[~〜∼])\s*)?"
# "2026학년도 경영경제대학 신입생": the school or unit the cohort entered, between year and noun.
_UNIT_NAME = r"(?:[가-힣]{2,12}(?:대학교|대학|학부|학과)\s+)?"


def expand_year(token: str, low: int, high: int, previous: int | None = None) -> int:
    """A year token as a 4-digit year. Two-digit years map into the schema's range: '21 → 2021
    when 2021 is in [low, high] (or closest to it); after a 4-digit year in a range ("2024~25"),
    the century of that year is used."""
    digits = re.sub(r"\D", "", token)
    year = int(digits)
    if len(digits) == 4:
        return year
    if previous is not None:
        return previous // 100 * 100 + year
    candidates = [1900 + year, 2000 + year]
    inside = [c for c in candidates if low <= c <= high]
    if inside:
        return inside[0]
    return min(candidates, key=lambda c: min(abs(c - low), abs(c - high)))


def _split_years(group: str, low: int, high: int) -> list[int]:
    """Expand "2019~2021", "2019·2020", "21~22", "2024~25" to the years they name (range ends
    are expanded to every year in between)."""
    tokens = re.findall(_YEAR, group)
    seps = re.split(_YEAR, group)[1:-1]
    years: list[int] = []
    previous: int | None = None
    for i, token in enumerate(tokens):
        year = expand_year(token, low, high, previous if len(re.sub(r"\D", "", token)) == 2 and previous else None)
        if i > 0 and re.fullmatch(_RANGE_SEP, seps[i - 1] or "") and years:
            years.extend(range(years[-1] + 1, year + 1))
        else:
            years.append(year)
        previous = year
    return years


def _apply_qualifier(years: list[int], qualifier: str | None, low: int, high: int) -> tuple[int, int] | None:
    if not years:
        return None
    first, last = min(years), max(years)
    if qualifier in _LOWER_QUAL:
        return first, high
    if qualifier in _UPPER_QUAL:
        return low, last
    if qualifier == "초과":
        return last + 1, high
    if qualifier == "미만":
        return low, first - 1
    return first, last


def _plausible(years: list[int], low: int, high: int, slack: int = 15) -> bool:
    """Years far outside the schema's span are not cohorts (a "1987년 설립" or a phone number)."""
    return bool(years) and all(low - slack <= y <= high + slack for y in years)


# ----------------------------------------------------------------------------- cohorts

# "2019~2021학번", "'22학번", "21학번 이전", "2024·2025학번", "15학번 이후"
_COHORT_HAKBEON = re.compile(rf"{_OPEN_BEFORE}{_NOT_AFTER_DIGIT}{_YEARS}\s*학번(?:\s*(?P<qual>{_QUAL}))?{_OPEN_AFTER}")
# "2020학년도 이후 입학자", "2018년도 입학생까지", "2015–2016학년도 입학생", "2022학년도 신입생",
# "2021년 이후 입학자". A bare "2026 신입생" is not one: at the head of a title the year is the
# event's ("2026 신입생 상담 주간").
_COHORT_ENTRANT = re.compile(
    rf"{_OPEN_BEFORE}{_NOT_AFTER_DIGIT}{_YEARS}\s*(?P<unit>학년도|년도|년)\s*(?P<qual1>이후|이전|이전에|이후에|에)?\s*"
    rf"{_UNIT_NAME}{_ENTRANT}(?:\s*(?P<qual>{_QUAL}))?{_OPEN_AFTER}"
)
# Table cells and key/value lines: "입학년도: 2019~2021", "학번 | 2019–2020".
_COHORT_KEY = re.compile(
    rf"(?:(?:입학\s*년도|입학\s*연도)\s*[:：|]?|(?:입학년|학번|admission\s+year|cohort)\s*[:：|])\s*{_YEARS}"
    rf"(?:\s*(?:학년도|년도|년|학번))?(?:\s*(?P<qual>{_QUAL}))?",
    re.IGNORECASE,
)
_EN_YEARS = r"(?P<years>(?:19|20)\d{2}(?:\s*(?:[–—\-~]|to|and|through)\s*(?:(?:19|20)\d{2}|\d{2}))?)"
_COHORT_ENGLISH = re.compile(
    rf"\b(?:admitted|entering|entered|matriculated)\s*(?:(?P<pre>in|from|since|before|after|until|through|by)\s*)?"
    rf"[:：]?\s*"  # a table's key ("Admitted in: 2021–2022")
    rf"(?:the\s+)?(?:academic\s+year\s+)?{_EN_YEARS}"
    rf"(?:\s*(?P<post>or\s+later|and\s+later|onwards?|or\s+earlier|and\s+earlier))?",
    re.IGNORECASE,
)


def find_cohorts(text: str, low: int, high: int) -> list[RangeMatch]:
    """Every admission-year expression in `text`, as inclusive ranges. Open ends ("이후",
    "까지") run to the schema's bounds; closed ranges are reported as written (the caller clips).
    Adjacent "A부터 B까지" pairs are merged into one range."""
    found: list[RangeMatch] = []
    for regex, form in ((_COHORT_HAKBEON, "hakbeon"), (_COHORT_ENTRANT, "entrant"), (_COHORT_KEY, "table")):
        for m in regex.finditer(text):
            years = _split_years(m.group("years"), low, high)
            if not _plausible(years, low, high):
                continue
            groups = m.groupdict()
            qual = groups.get("qual") or (groups.get("qual1") or "").rstrip("에") or None
            if qual is None and groups.get("tilde"):
                qual = "이후"
            elif qual is None and groups.get("lead"):
                qual = "까지"
            bounds = _apply_qualifier(years, qual, low, high)
            if bounds:
                found.append(RangeMatch(*bounds, m.start(), m.end(), m.group(0), form, bool(groups.get("lead"))))
    found.extend(_english_cohorts(text, low, high))
    return _merge_from_to(_join_tilde_ranges(_drop_overlaps(found), text), text)


def _join_tilde_ranges(matches: list[RangeMatch], text: str) -> list[RangeMatch]:
    """"2024학번 ~2026학번": a cohort and an open-start one right after it are one range."""
    out: list[RangeMatch] = []
    for m in matches:
        if m.open_start and out and not text[out[-1].end:m.start].strip():
            a = out.pop()
            m = RangeMatch(a.low, m.high, a.start, m.end, text[a.start:m.end], a.form)
        out.append(m)
    return out


def _english_cohorts(text: str, low: int, high: int) -> list[RangeMatch]:
    out = []
    for m in _COHORT_ENGLISH.finditer(text):
        group = re.sub(r"\s*(?:to|and|through)\s*", "-", m.group("years"), flags=re.IGNORECASE)
        years = _split_years(group, low, high)
        if not _plausible(years, low, high):
            continue
        pre = (m.group("pre") or "").lower()
        post = (m.group("post") or "").lower()
        first, last = min(years), max(years)
        if pre in {"from", "since", "after"} or "later" in post or "onward" in post:
            bounds = (first + (pre == "after"), high)
        elif pre in {"before", "until", "through", "by"} or "earlier" in post:
            bounds = (low, first - 1 if pre == "before" else last)
        else:
            bounds = (first, last)
        out.append(RangeMatch(*bounds, m.start(), m.end(), m.group(0), "english"))
    return out


def _drop_overlaps(matches: list[RangeMatch]) -> list[RangeMatch]:
    """Several patterns can match the same words; keep the longest match at each place."""
    kept: list[RangeMatch] = []
    for m in sorted(matches, key=lambda m: (m.start, -(m.end - m.start))):
        if kept and m.start < kept[-1].end:
            continue
        kept.append(m)
    return kept


def _merge_from_to(matches: list[RangeMatch], text: str) -> list[RangeMatch]:
    """"2017학년도 입학생부터 2018학년도 입학생까지" / "1학년 2학기부터 2학년 재학생까지": a
    "from" match followed closely by an "until" match is one range."""
    out: list[RangeMatch] = []
    i = 0
    while i < len(matches):
        m = matches[i]
        if i + 1 < len(matches) and re.search(r"(?:부터|에서)\s*$", m.text):
            n = matches[i + 1]
            gap = text[m.end:n.start]
            tail = text[n.end:n.end + 8]
            if len(gap) <= 3 and gap.strip() in {"", "~", "-"} and (
                re.search(r"까지\s*$", n.text) or re.match(r"\s*(?:학생|재학생|입학생|입학자)?\s*까지", tail)
            ):
                out.append(RangeMatch(m.low, n.high, m.start, n.end, text[m.start:n.end], m.form))
                i += 2
                continue
        out.append(m)
        i += 1
    return out


# ----------------------------------------------------------------------------- curriculum years

_CURRICULUM_NOUN = r"(?:교육과정|교과과정|졸업요건|졸업\s*이수\s*요건|졸업이수요건|이수요건|학사\s*과정|curriculum|graduation\s+requirements?)"
_BARE_ACADEMIC_YEAR = re.compile(
    rf"{_NOT_AFTER_DIGIT}(?P<years>(?:19|20)\d{{2}}(?:{_RANGE_SEP}(?:(?:19|20)\d{{2}}|\d{{2}}))?)\s*학년도"
)
_EVENT_AFTER = re.compile(r"\s*(?:[1-4]\s*학기|하계|동계|계절|여름|겨울|입학|신입|이후|이전|부터|까지)")
# A few words (a department's name) may stand between the year and the noun.
_GAP = r"[^\d\n>|]{0,12}?"
_REVISION_AFTER = re.compile(rf"{_GAP}(?:{_CURRICULUM_NOUN}\s*)?(?:개편|개정|폐지)")
_CURRICULUM_AFTER = re.compile(rf"{_GAP}{_CURRICULUM_NOUN}")


def find_curriculum_years(text: str, low: int, high: int) -> list[RangeMatch]:
    """Bare ``N학년도`` next to a curriculum noun. ``form`` is "curriculum" (the curriculum of
    those cohorts: "2021–2022학년도 교육과정", "교육과정 (2023학년도)", "졸업요건 > 2019학년도") or
    "revision" ("2023학년도 교육과정 개편": the cohorts admitted before it, [low, N-1]). Event years
    ("2026학년도 1학기", "2026학년도 학사일정") are not reported."""
    out = []
    for m in _BARE_ACADEMIC_YEAR.finditer(text):
        after = text[m.end():m.end() + 30]
        if _EVENT_AFTER.match(after):
            continue
        years = _split_years(m.group("years"), low, high)
        if not _plausible(years, low, high):
            continue
        if _REVISION_AFTER.match(after):
            out.append(RangeMatch(low, min(years) - 1, m.start(), m.end(), m.group(0), "revision"))
            continue
        before = text[max(0, m.start() - 14):m.start()]
        if _CURRICULUM_AFTER.match(after) or re.search(rf"{_CURRICULUM_NOUN}[\s()\[\]–—:>·-]*$", before):
            out.append(RangeMatch(min(years), max(years), m.start(), m.end(), m.group(0), "curriculum"))
    return out


# ----------------------------------------------------------------------------- grades

_GRADE = re.compile(
    r"(?<![\d.])(?P<g1>[1-9])\s*(?:학년)?\s*(?:(?P<sep>[~〜∼\-–—·ㆍ,]|부터)\s*(?P<g2>[1-9]))?\s*학년(?!도)"
    r"(?:\s*(?P<sem>[1-4])\s*학기)?"
    r"(?:\s*(?P<qual>이상|이하|부터|까지|이후|이전|미만|초과))?"
)
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
             "fifth": 5, "5th": 5, "sixth": 6, "6th": 6}
_GRADE_ENGLISH = re.compile(
    r"\b(?P<ord>first|second|third|fourth|fifth|sixth|1st|2nd|3rd|4th|5th|6th)[- ]year\s+(?:students?|undergraduates?)"
    r"|\byear\s+(?P<num>[1-6])\s+students?\b|\b(?P<word>freshm[ae]n|sophomores?|juniors?|seniors?)\b",
    re.IGNORECASE,
)
_ENGLISH_WORDS = {"fresh": 1, "sopho": 2, "junio": 3, "senio": 4}
# A grade given by a status of the year of study: freshmen, the lower/upper years, graduating students.
# Graduation procedures (졸업사정 assessment, 졸업유예 deferral, 학위수여식 commencement) concern
# the students about to graduate, i.e. the final year.
GRADUATION_PROCEDURES = r"졸업\s*사정|졸업\s*유예|학위\s*수여식"
_GRADE_WORDS = re.compile(
    r"신입생|저학년|고학년|졸업\s*예정(?:자|인)?|졸업\s*대상자|졸업\s*학기|마지막\s*학기"
    rf"|{GRADUATION_PROCEDURES}"
)
# A procedure says whom a DOCUMENT is for, never who a student is: "학위수여식 언제예요" asks about
# commencement, it does not say "I am in my final year" (serving/dialogue/profiling.py)
PROCEDURE_WORDS = re.compile(GRADUATION_PROCEDURES)


def find_grades(text: str, low: int, high: int) -> list[RangeMatch]:
    """Every year-of-study restriction in `text`, as inclusive ranges within [low, high]."""
    found: list[RangeMatch] = []
    for m in _GRADE.finditer(text):
        g1, g2 = int(m.group("g1")), int(m.group("g2") or m.group("g1"))
        if not (low <= g1 <= high and low <= g2 <= high):
            continue
        bounds = _qualified_bounds(m, g1, g2, low, high)
        if bounds[0] <= bounds[1]:
            found.append(RangeMatch(*bounds, m.start(), m.end(), m.group(0), "grade"))
    found.extend(_grade_words(text, low, high))
    found.extend(_grades_in_english(text, low, high))
    return _merge_from_to(_drop_overlaps(found), text)


def _qualified_bounds(m: re.Match, g1: int, g2: int, low: int, high: int) -> tuple[int, int]:
    """The range a year (or a span of years) means with its qualifier ("이상", "미만", ...)."""
    qual = m.group("qual")
    if qual in {"이상", "부터", "이후"}:
        return min(g1, g2), high
    if qual in {"이하", "까지", "이전"} and not m.group("g2"):
        return low, g1
    if qual == "초과":
        return g1 + 1, high
    if qual == "미만":
        return low, g1 - 1
    return min(g1, g2), max(g1, g2)


def _grades_in_english(text: str, low: int, high: int) -> list[RangeMatch]:
    out = []
    for m in _GRADE_ENGLISH.finditer(text):
        if m.group("ord"):
            g = _ORDINALS[m.group("ord").lower()]
        elif m.group("num"):
            g = int(m.group("num"))
        else:
            g = _ENGLISH_WORDS[m.group("word").lower()[:5]]
            g = high if g == 4 else g  # "seniors" are the final year whatever the program length
        if low <= g <= high:
            out.append(RangeMatch(g, g, m.start(), m.end(), m.group(0), "english"))
    return out


def _grade_words(text: str, low: int, high: int) -> list[RangeMatch]:
    half = max(1, (high - low + 1) // 2)
    out = []
    for m in _GRADE_WORDS.finditer(text):
        word = m.group(0)
        if word == "신입생":  # also after a cohort ("2026학번 신입생"): both hold
            bounds = (low, low)
        elif word == "저학년":
            bounds = (low, low + half - 1)
        elif word == "고학년":
            bounds = (high - half + 1, high)
        else:  # graduating students are in the final year
            bounds = (high, high)
        out.append(RangeMatch(*bounds, m.start(), m.end(), word, "word"))
    return out


# ----------------------------------------------------------------------------- statuses


@lru_cache(maxsize=32)
def _matcher(values: tuple[tuple[str, tuple[str, ...]], ...]) -> AliasMatcher:
    return AliasMatcher(dict(values))


def find_statuses(text: str, values: dict[str, tuple[str, ...]]) -> list[ValueMatch]:
    """Every mention of a status value (canonical value -> aliases, as in the config), with the
    aliases' usual inflections; longest match first, spans included."""
    key = tuple((value, tuple(aliases)) for value, aliases in values.items())
    return _matcher(key).find(text)
