"""How this college's office words whom a text is for: cohorts, statuses, campuses, years of study.

Its own habits, not the demo college's: apostrophe cohorts ("'18~'20학번"), "학년도 이후 입학자",
"2022·2023학년도 입학생", campus tags ("(세종)", "세종캠"), "재적생" for everyone registered.
Every choice goes through the caller's seeded ``random.Random``.
"""

from __future__ import annotations

import random

from examples.site_kit.korean import josa, particle
from examples.site_kit.wording import CohortPhrases, form_of, pick

from .catalog import CAMPUS_KO, CAMPUS_SHORT, FIRST_COHORT, LAST_COHORT

__all__ = ["josa", "particle", "pick", "rng_for", "cohort", "cohort_cell", "status", "campus", "levels"]


def rng_for(key: str) -> random.Random:
    """One generator per document, seeded by its key, so adding a page never rewords another."""
    return random.Random(f"saebit-business-college:{key}")


# A noun phrase naming the students admitted in [lo, hi]: cohort(lo, hi, rng).
cohort = CohortPhrases(
    FIRST_COHORT, LAST_COHORT,
    every=("입학 연도와 상관없이 모든 학생", "전 학번 학생"),
    until=("{hi}학년도 이전 입학생", "{hi}년 이전 입학생", "'{yy_hi}학번 이전 학생", "{hi}학번까지의 학생"),
    since=("{lo}학년도 이후 입학자", "{yy_lo}학번부터의 학생", "{lo}학년도 입학생부터", "{lo}년 이후 입학한 학생"),
    single=("{lo}학년도 입학생", "'{yy_lo}학번", "{lo}년 입학자"),
    pair=("{lo}·{hi}학년도 입학생", "'{yy_lo}~'{yy_hi}학번", "{lo}~{hi}학번 학생"),
    span=("{lo}~{hi}학년도 입학생", "'{yy_lo}~'{yy_hi}학번", "{yy_lo}학번부터 {yy_hi}학번까지의 학생", "{lo}~{hi}학번 학생"),
)

# A short scope for table cells and title tags ("'22~'23학번", "2024학번~").
cohort_cell = CohortPhrases(
    FIRST_COHORT, LAST_COHORT,
    every=("전 학번",),
    until=("{hi}학번 이전", "~{hi}학번", "'{yy_hi}학번까지"),
    since=("{lo}학번 이후", "{lo}학번부터", "{yy_lo}학번~"),
    single=("{lo}학번", "'{yy_lo}학번"),
    span=("{lo}~{hi}학번", "'{yy_lo}~'{yy_hi}학번"),
)


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
    return form_of(STATUS_FORMS, value, rng, pair)


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
