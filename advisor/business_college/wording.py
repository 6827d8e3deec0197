"""How this college's office words whom a text is for: cohorts, statuses, campuses, years of study.

Its own habits, not the demo college's: apostrophe cohorts ("'18~'20학번"), "학년도 이후 입학자",
"2022·2023학년도 입학생", campus tags ("(세종)", "세종캠"), "재적생" for everyone registered.
Every choice goes through the caller's seeded ``random.Random``.
"""

from __future__ import annotations

import random

from advisor.site_kit.korean import josa, particle

from .catalog import CAMPUS_KO, CAMPUS_SHORT, FIRST_COHORT, LAST_COHORT

__all__ = ["josa", "particle", "pick", "rng_for", "cohort", "cohort_cell", "status", "campus", "levels"]


def rng_for(key: str) -> random.Random:
    """One generator per document, seeded by its key, so adding a page never rewords another."""
    return random.Random(f"saebit-business-college:{key}")


def pick(rng: random.Random, *options: str) -> str:
    return options[rng.randrange(len(options))]


def _yy(year: int) -> str:
    return f"{year % 100:02d}"


def cohort(lo: int, hi: int, rng: random.Random) -> str:
    """A noun phrase naming the students admitted in [lo, hi]."""
    if lo <= FIRST_COHORT and hi >= LAST_COHORT:
        return pick(rng, "입학 연도와 상관없이 모든 학생", "전 학번 학생")
    if lo <= FIRST_COHORT:
        return pick(rng, f"{hi}학년도 이전 입학생", f"{hi}년 이전 입학생", f"'{_yy(hi)}학번 이전 학생",
                    f"{hi}학번까지의 학생")
    if hi >= LAST_COHORT:
        return pick(rng, f"{lo}학년도 이후 입학자", f"{_yy(lo)}학번부터의 학생", f"{lo}학년도 입학생부터",
                    f"{lo}년 이후 입학한 학생")
    if lo == hi:
        return pick(rng, f"{lo}학년도 입학생", f"'{_yy(lo)}학번", f"{lo}년 입학자")
    if hi == lo + 1:
        return pick(rng, f"{lo}·{hi}학년도 입학생", f"'{_yy(lo)}~'{_yy(hi)}학번", f"{lo}~{hi}학번 학생")
    return pick(rng, f"{lo}~{hi}학년도 입학생", f"'{_yy(lo)}~'{_yy(hi)}학번", f"{_yy(lo)}학번부터 {_yy(hi)}학번까지의 학생",
                f"{lo}~{hi}학번 학생")


def cohort_cell(lo: int, hi: int, rng: random.Random) -> str:
    """A short scope for table cells and title tags ("'22~'23학번", "2024학번~")."""
    if lo <= FIRST_COHORT and hi >= LAST_COHORT:
        return "전 학번"
    if lo <= FIRST_COHORT:
        return pick(rng, f"{hi}학번 이전", f"~{hi}학번", f"'{_yy(hi)}학번까지")
    if hi >= LAST_COHORT:
        return pick(rng, f"{lo}학번 이후", f"{lo}학번부터", f"{_yy(lo)}학번~")
    if lo == hi:
        return pick(rng, f"{lo}학번", f"'{_yy(lo)}학번")
    return pick(rng, f"{lo}~{hi}학번", f"'{_yy(lo)}~'{_yy(hi)}학번")


STATUS_FORMS = {
    "attending": ("재학생", "재학 중인 학생"),
    "on_leave": ("휴학생", "휴학 중인 학생", "휴학자"),
    "returning": ("복학 예정자", "복학생", "복학 대상자"),
    "transfer": ("편입학생", "편입생", "학사편입생"),
    "foreign": ("외국인 학부생", "외국인 유학생", "국제학생"),
    "overtime": ("초과학기생", "초과학기 등록생"),
}


def status(value: str, rng: random.Random, pair: str | None = None) -> str:
    """A surface form of a status, with a particle pair ("은/는") attached if given."""
    word = pick(rng, *STATUS_FORMS[value])
    return josa(word, pair) if pair else word


def campus(value: str, rng: random.Random, short: bool = False) -> str:
    """"서울캠퍼스" / "세종캠" / (short) "(세종)" as a tag after a name."""
    if short:
        return f"({CAMPUS_SHORT[value]})"
    return pick(rng, CAMPUS_KO[value], CAMPUS_KO[value], f"{CAMPUS_SHORT[value]}캠")


def levels(lo: int, hi: int, rng: random.Random) -> str:
    """Years of study: "3학년 이상", "1·2학년", "4학년 재학생"."""
    if lo == hi:
        return pick(rng, f"{lo}학년", f"{lo}학년 학생")
    if hi == 4:
        return pick(rng, f"{lo}학년 이상", f"{lo}~4학년")
    if hi == lo + 1:
        return pick(rng, f"{lo}·{hi}학년", f"{lo}~{hi}학년")
    return f"{lo}~{hi}학년"
