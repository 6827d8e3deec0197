"""Curriculum per department x period: one course table (학년 cells spanning their rows), the
campus's own courses under a heading of their own, and what changed since the previous revision."""

from __future__ import annotations

import datetime

from examples.site_kit.markup import Markup, tag

from .catalog import CAMPUS_KO, Course, Department, curriculum, periods_for
from .chrome import bullets, para
from .dept_common import SOURCE, crumbs, is_legacy, period_page, side_menu, year_selector
from .model import Output
from .wording import cohort_cell, josa, pick

KIND_KO = {"basic": "전공기초", "required": "전공필수", "elective": "전공선택"}


def _course_table(caption: str, courses: list[Course]) -> Markup:
    """학년 | 학기 | 이수구분 | 교과목명 | 학점 | 비고, the 학년 cell spanning its rows (rowspan)."""
    head = tag("thead", tag("tr", *(tag("th", c, scope="col") for c in ("학년", "학기", "이수구분", "교과목명", "학점", "비고"))))
    rows = []
    ordered = sorted(courses, key=lambda c: (c.year, c.semester, c.kind != "basic", c.kind != "required", c.code))
    for year in sorted({c.year for c in ordered}):
        group = [c for c in ordered if c.year == year]
        for i, c in enumerate(group):
            cells = [tag("th", f"{year}학년", rowspan=str(len(group)), scope="rowgroup")] if i == 0 else []
            cells += [tag("td", f"{c.semester}학기"), tag("td", KIND_KO[c.kind]), tag("td", c.name),
                      tag("td", str(c.credits)), tag("td", "영어강의" if c.english else "")]
            rows.append(tag("tr", *cells))
    return tag("table", tag("caption", caption), head, tag("tbody", *rows), class_="tbl-type01 tbl-curri")


def _changes(dept: Department, index: int) -> list[str]:
    periods = periods_for(dept)
    if index == 0:
        return []
    before = {c.name for kind in curriculum(dept, periods[index - 1]).values() for c in kind}
    now = {c.name for kind in curriculum(dept, periods[index]).values() for c in kind}
    return [f"신설: {n}" for n in sorted(now - before)] + [f"폐지: {n}" for n in sorted(before - now)]


def curriculum_page(out: Output, as_of: datetime.date, dept: Department, index: int) -> None:
    period = periods_for(dept)[index]
    pg, who = period_page(dept, "curriculum", period)
    rng = pg.rng
    cur = curriculum(dept, period)
    title = pick(rng, f"{dept.name} 교육과정 ({period.label}학년도 입학생)",
                 f"{cohort_cell(period.first, period.last, rng)} {dept.name} 전공 교육과정",
                 f"{dept.name} 교육과정표 - {period.label}학년도")
    required = cur["required"]
    if rng.random() < 0.5:  # a year tab above the content, as many CMS templates have it
        pg.add(year_selector(dept, period, "curriculum"))
    pg.add(para(pick(
        rng,
        f"{who}에게 적용되는 {dept.name} 전공 교육과정입니다. 전공필수는 {len(required)}과목 "
        f"{sum(c.credits for c in required)}학점이며, 전공기초는 1학년에 이수하도록 편성했습니다.",
        f"{josa(who, '은/는')} 아래 편성표에 따라 전공 교과목을 이수합니다. 교육과정은 입학년도 기준으로 적용됩니다.",
    )))
    pg.block(pick(rng, "교육과정 편성표", "학년별 교과목 편성"),
             _course_table(f"{period.label}학년도 입학생 전공 교육과정", [c for kind in cur.values() for c in kind]))
    if len(dept.campuses) > 1:
        own = [c for c in curriculum(dept, period, "sejong")["elective"] + curriculum(dept, period, "sejong")["required"]
               if c.campus == "sejong"]
        heading = pick(rng, "세종캠퍼스 특화 교과목", "세종캠퍼스 개설 교과목", "세종캠 전용 교과목")
        pg.block(heading,
                 para(pick(rng, f"{CAMPUS_KO['sejong']} 학생은 아래 교과목을 추가로 이수할 수 있습니다.",
                           "아래 과목은 세종캠퍼스에서만 개설되며, 세종캠퍼스 소속 학생의 전공 학점으로 인정됩니다.")),
                 _course_table("세종캠퍼스 개설 교과목", own), topic="curriculum", campus="sejong")
    changes = _changes(dept, index)
    pg.block(pick(rng, "교육과정 변경 사항", "이전 교육과정과 달라진 점"),
             bullets(changes) if changes else para("학과가 처음 편성한 교육과정으로, 비교할 이전 교육과정이 없습니다."))
    pg.add(para("졸업에 필요한 학점은 졸업요건 메뉴에서 입학년도별로 확인할 수 있습니다."))
    if not pg.parts[0].startswith('<div class="year-select"'):
        pg.add(year_selector(dept, period, "curriculum"))
    facts = {"period": period.label, "required": [c.name for c in required],
             "required_credits": sum(c.credits for c in required)}
    pg.publish(out, as_of, source=SOURCE, title=title, side=side_menu(dept), topic="curriculum",
               crumbs=crumbs(dept, ("교육과정", None), (f"{period.label}학년도", None)), facts=facts)


def build(out: Output, as_of: datetime.date, dept: Department) -> None:
    for index, period in enumerate(periods_for(dept)):
        if not is_legacy(dept, "curriculum", period):
            curriculum_page(out, as_of, dept, index)
