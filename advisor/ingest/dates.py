"""Dates as Korean (and other) university sites write them: 2024.3.2., 2024년 3월 2일, 24.03.02,
March 2, 2025, 2 Mar 2025 ... (month names are language data: advisor/language/<code>/dates.yaml).

A date is read as written (the site's local calendar date); a timezone offset is not applied.
"""

from __future__ import annotations

import datetime as dt
import re

from advisor import language

_YEAR4 = r"(?P<y>(?:19|20)\d{2})"
_MONTH = r"(?P<m>\d{1,2})"
_DAY = r"(?P<d>\d{1,2})"

# Tried in order; the four-digit forms come first so "2024.03.02" is never read as "24.03.02".
_FORMS = [
    # 2024-03-02, 2024.03.02, 2024/03/02, 2024.3.2., 2024. 3. 2. (the Korean locale's own format),
    # and the date part of an ISO datetime (2024-03-02T09:00:00+09:00).
    rf"(?<![\d.]){_YEAR4}(?P<sep>[-./])\s?{_MONTH}(?P=sep)\s?{_DAY}(?!\d)\.?",
    # 2024년 3월 2일
    rf"(?<!\d){_YEAR4}\s*년\s*{_MONTH}\s*월\s*{_DAY}\s*일",
    # 24.03.02 / 24-03-02: two-digit years are this century. Not "/", which US-style sites use
    # for MM/DD/YY; not part of a longer dotted number such as a version or an IP address.
    r"(?<![\d.])(?P<y>\d{2})(?P<sep>[-.])\s?(?P<m>\d{2})(?P=sep)\s?(?P<d>\d{2})(?!\d|\.\d)\.?",
]
# Month names of every language's dates.yaml ("March" -> 3), longest first so "Sept" wins over "Sep".
MONTHS: dict[str, int] = {name.lower(): int(number) for lang in language.languages_with("dates")
                          for name, number in (language.load(lang, "dates").get("months") or {}).items()}
if MONTHS:
    _NAME = r"(?P<mon>" + language.alternation(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
    _FORMS += [
        rf"(?<![A-Za-z]){_NAME}\s+{_DAY}(?:st|nd|rd|th)?,?\s+{_YEAR4}(?!\d)",  # March 2, 2025
        rf"(?<!\d){_DAY}(?:st|nd|rd|th)?\s+{_NAME},?\s+{_YEAR4}(?!\d)",  # 2 March 2025
    ]
_PATTERNS = [re.compile(form, re.I) for form in _FORMS]

# What may follow a date in a field that holds only a date: a time, a weekday, a timezone.
_TAIL = re.compile(
    r"""\s*(?:\(?[월화수목금토일](?:요일)?\)?)?\s*
        (?:[T\s]?\s*(?:오전|오후|AM|PM)?\s*\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:Z|[+-]\d{2}:?\d{2})?)?
        \s*(?:\(?[월화수목금토일](?:요일)?\)?)?\s*$""",
    re.X | re.I,
)


def _make(match: re.Match[str]) -> dt.date | None:
    year = int(match["y"])
    if year < 100:
        year += 2000
    month = MONTHS[match["mon"].lower()] if "mon" in match.re.groupindex else int(match["m"])
    try:
        return dt.date(year, month, int(match["d"]))
    except ValueError:  # 2024-02-30, month 13 ...
        return None


def parse_date(text: str) -> dt.date | None:
    """The date a date field holds (a trailing time or weekday is allowed), else None."""
    text = text.strip()
    for pattern in _PATTERNS:
        match = pattern.match(text)
        if match and _TAIL.match(text, match.end()):
            return _make(match)
    return None


def date_at(text: str, position: int) -> dt.date | None:
    """The date that starts exactly at `position` of `text` (a trailing time is not required to
    end the text), else None."""
    for pattern in _PATTERNS:
        match = pattern.match(text, position)
        if match:
            return _make(match)
    return None


def find_date(text: str) -> dt.date | None:
    """The first valid date anywhere in a longer text, else None."""
    found = []
    for pattern in _PATTERNS:
        for match in pattern.finditer(text):
            date = _make(match)
            if date is not None:
                found.append((match.start(), date))
                break
    return min(found)[1] if found else None
