"""Varied Korean wording: cohort / grade / status expressions, department names.

A real site words the same condition many ways ("2019~2021학번", "21학번 이전",
"2023학년도 이후 입학자"); an annotator that only knows one pattern should fail here as it would
there. Every choice goes through the caller's seeded ``random.Random``.
"""

from __future__ import annotations

import random

from examples.site_kit.korean import josa, particle  # noqa: F401 - this college's modules take their wording from here
from examples.site_kit.wording import CohortPhrases, form_of, pick

from .catalog import FIRST_COHORT, FORMER_NAMES, LAST_COHORT, Department, name_in


def cohort(lo: int, hi: int, rng: random.Random) -> str:
    """A noun phrase naming the students admitted in [lo, hi] ("2021–2022학년도 입학생")."""
    yy_lo, yy_hi = lo % 100, hi % 100
    if lo <= FIRST_COHORT and hi >= LAST_COHORT:
        return pick(rng, "모든 학번의 학생", "입학년도와 관계없이 모든 학생")
    if lo == hi:
        options = [f"{lo}학번", f"{lo}학년도 입학생", f"{lo}년도 입학자", f"{yy_lo}학번 학생"]
    else:
        options = [f"{lo}~{hi}학번", f"{lo}–{hi}학년도 입학생", f"{lo}학번부터 {hi}학번까지의 학생",
                   f"{yy_lo}~{yy_hi}학번"]
        if hi == lo + 1:
            options.append(f"{lo}·{hi}학번")
    if lo <= FIRST_COHORT:
        options += [f"{hi}학번 이전 입학자", f"{yy_hi}학번 이전 학생", f"{hi}학년도 이전 입학생"]
    if hi >= LAST_COHORT:
        options += [f"{lo}학번 이후 입학자", f"{lo}학년도 이후 입학자", f"{yy_lo}학번 이후 학생"]
    return pick(rng, *options)


# A scope for "적용 대상:" lines and table cells ("2023학번부터", "2018년도 입학생까지").
cohort_scope = CohortPhrases(
    FIRST_COHORT, LAST_COHORT,
    every=("전 학번",),
    until=("{hi}학번까지", "{hi}년도 입학생까지", "{yy_hi}학번 이전"),
    since=("{lo}학번부터", "{lo}학년도 입학생부터", "{lo}년 이후 입학자"),
    single=("{lo}학번", "{lo}학년도 입학생"),
    span=("{lo}~{hi}학번", "{lo}–{hi}학년도 입학생", "{yy_lo}~{yy_hi}학번"),
)


def grades(lo: int, hi: int, rng: random.Random) -> str:
    if (lo, hi) == (1, 1):
        return pick(rng, "1학년", "신입생(1학년)", "1학년 학생")
    if lo == hi:
        return pick(rng, f"{lo}학년", f"{lo}학년 재학생", f"{lo}학년 학생")
    if hi == 4:
        return pick(rng, f"{lo}학년 이상", f"{lo}학년 이상 학생", f"{lo}~4학년")
    return pick(rng, f"{lo}~{hi}학년", f"{lo}·{hi}학년")


STATUS_FORMS = {
    "enrolled": ("재학생", "재학 중인 학생"),
    "on_leave": ("휴학생", "휴학 중인 학생", "휴학자"),
    "returning": ("복학생", "복학 예정자", "복학자"),
    "transfer": ("편입생", "편입학생"),
    "international": ("외국인 유학생", "유학생"),
}


def status(value: str, rng: random.Random, pair: str | None = None) -> str:
    """A surface form of a student status, with a particle pair ("은/는") attached if given."""
    return form_of(STATUS_FORMS, value, rng, pair)


def dept_name(dept: Department, rng: random.Random, year: int | None = None) -> str:
    """Mostly the official name; sometimes the name the department had in ``year`` (컴퓨터학부
    for a 2016 cohort) or an informal one (AI학과), as real pages mix them."""
    if rng.random() < 0.7:
        return dept.name
    if year is not None and name_in(dept, year) != dept.name:
        return name_in(dept, year)
    informal = [n for n in dept.names if n not in FORMER_NAMES.get(dept.code, ())]
    return pick(rng, *informal) if informal else dept.name


def credits(n: int) -> str:
    return f"{n}학점"


def rng_for(key: str) -> random.Random:
    """One generator per document, seeded by its path, so adding a page never rewords another."""
    return random.Random(f"hanbit-demo-college:{key}")
