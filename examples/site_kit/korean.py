"""Korean particles (은/는, 이/가, 을/를, 으로/로 ...) and how a date is written: rules of the
language, not of any college."""

from __future__ import annotations

import datetime
import re

# The one-letter days of the week, Monday first as ``date.weekday()`` counts them.
_WEEKDAYS = "월화수목금토일"

# Final consonant of how a trailing digit / letter / numeral is read aloud (None = vowel).
_DIGIT_FINAL = {"0": "ㅇ", "1": "ㄹ", "2": None, "3": "ㅁ", "4": None, "5": None, "6": "ㄱ",
                "7": "ㄹ", "8": "ㄹ", "9": None, "Ⅰ": "ㄹ", "Ⅱ": None, "Ⅲ": "ㅁ"}
_LETTER_FINAL = {"L": "ㄹ", "M": "ㅁ", "N": "ㄴ", "R": "ㄹ"}


def _final(word: str) -> str | None:
    word = re.sub(r"\([^()]*\)$", "", word.strip()) or word
    last = word[-1]
    if "가" <= last <= "힣":
        jong = (ord(last) - 0xAC00) % 28
        return None if jong == 0 else ("ㄹ" if jong == 8 else "x")
    if last in _DIGIT_FINAL:
        return _DIGIT_FINAL[last]
    return _LETTER_FINAL.get(last.upper())


def particle(word: str, pair: str) -> str:
    """The form of a particle pair such as "은/는", "이/가", "으로/로" that follows ``word``."""
    with_final, without = pair.split("/")
    final = _final(word)
    if pair == "으로/로":
        return "로" if final in (None, "ㄹ") else "으로"
    return without if final is None else with_final


def josa(word: str, pair: str) -> str:
    """``word`` followed by the right particle: josa("2019학번", "은/는") == "2019학번은"."""
    return word + particle(word, pair)


def weekday(d: datetime.date) -> str:
    """The day of the week as a date in parentheses names it: "월" for a Monday."""
    return _WEEKDAYS[d.weekday()]


def month_day(d: datetime.date) -> str:
    """"3월 2일(월)": a date within its year, as a notice or a calendar writes it."""
    return f"{d.month}월 {d.day}일({weekday(d)})"
