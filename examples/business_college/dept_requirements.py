"""Graduation requirements per department x period (x campus for 경영학과): the near-duplicates
that matter most. One table, rows = requirement, columns = the standard and a remark; 경제학과
states both campuses on one page under a heading each; every page ends with the parts for transfer
and international students."""

from __future__ import annotations

import datetime

from examples.site_kit.markup import Markup

from .catalog import CAMPUS_KO, Department, Period, Requirement, periods_for, requirement, requirement_pages
from .chrome import notes, para, table
from .dept_common import SOURCE, campus_switch, crumbs, period_page, side_menu, year_selector
from .model import Output
from .pages import Page
from .wording import campus as campus_word
from .wording import cohort_cell, josa, pick, status


def _rows(req: Requirement, campus: str | None) -> list[list[str]]:
    rows = [
        ["졸업학점", f"{req.total}학점 이상", "교양·전공·일반선택 합산"],
        ["교양", f"{req.ge}학점 이상", "핵심교양 4개 영역 포함"],
        ["전공기초", f"{req.basic}학점", "1학년 이수 권장"],
        ["전공", f"{req.major}학점 이상", "전공필수 포함"],
        ["전공필수", f"{req.required}학점", f"{len(req.required_courses)}과목"],
        ["영어강의", f"{req.english}과목 이상", "전공 영어강의 포함"],
        ["졸업시험·논문", req.exam, ""],
    ]
    if req.internship_hours:
        rows.append(["현장실습", f"{req.internship_hours}시간 이상", f"{CAMPUS_KO[campus]} 경영학과만 해당"])
    return rows


def _standard_table(dept: Department, period: Period, campus: str | None, rng) -> Markup:
    req = requirement(dept, period, campus)
    where = f", {CAMPUS_KO[campus]}" if campus else ""
    caption = pick(rng, f"{dept.name} 졸업 이수 기준 ({period.label}학년도 입학생{where})",
                   f"졸업요건 기준표({cohort_cell(period.first, period.last, rng)}{where})")
    return table(caption, ["구분", "기준", "비고"], _rows(req, campus), row_headers=True)


def _special_blocks(pg: Page, dept: Department, period: Period, req: Requirement) -> None:
    rng = pg.rng
    transfer_heading = pick(rng, "편입학생 졸업요건", "편입생 이수 기준", "학사편입생 특례")
    pg.block(transfer_heading, para(
        f"{status('transfer', rng, '은/는')} 본교에서 전공 {req.transfer_major}학점 이상을 포함해 "
        f"{req.transfer_major + 21}학점 이상을 이수해야 합니다. 교양은 편입 전 대학에서 이수한 학점으로 인정하며, "
        "영어강의 요건은 적용하지 않습니다."), topic="transfer", academic_status="transfer")
    foreign_heading = pick(rng, "외국인 학부생 특례", "외국인 유학생 졸업요건", "국제학생 이수 기준")
    pg.block(foreign_heading, para(
        f"{status('foreign', rng, '은/는')} 영어강의 요건 대신 한국어 교과목 {req.korean_courses}과목을 이수할 수 있습니다. "
        "졸업 전까지 한국어능력시험(TOPIK) 4급 이상 성적을 제출해야 합니다."), topic="international",
        academic_status="foreign")


def requirement_page(out: Output, as_of: datetime.date, dept: Department, period: Period,
                     campus: str | None) -> None:
    """One page per period; 경영학과 publishes one per campus (``campus`` set)."""
    pg, who = period_page(dept, "require", period, campus)
    rng = pg.rng
    tag_ = campus_word(campus, rng, short=True) if campus else ""
    title = pick(rng, f"{dept.name}{tag_} 졸업요건 ({period.label}학년도 입학생)",
                 f"{cohort_cell(period.first, period.last, rng)} {dept.name}{tag_} 졸업이수기준",
                 f"{dept.name}{tag_} 졸업요건 - {period.label}학년도 입학생")
    req = requirement(dept, period, campus)
    where = f"{campus_word(campus, rng)} " if campus else ""
    pg.add(para(pick(rng,
                     f"{where}{dept.name} {who}의 졸업 이수 기준입니다. 입학 당시의 기준이 졸업할 때까지 적용되며, "
                     "휴학이나 복학으로 학년이 바뀌어도 달라지지 않습니다.",
                     f"{josa(who, '은/는')} 아래 표의 기준을 모두 충족해야 {dept.name} 학위를 받을 수 있습니다.",
                     f"{where}{dept.name} 졸업요건을 안내합니다(적용 대상: {who}). 다른 학번은 기준이 다르니 "
                     "입학년도를 먼저 확인하세요.")))
    if dept.code == "ECN":
        pg.block(pick(rng, "졸업 이수 기준", "캠퍼스별 졸업 이수 기준"),
                 para("경제학과는 두 캠퍼스의 기준이 일부 다릅니다. 본인이 소속된 캠퍼스의 표를 확인하세요."))
        for c in dept.campuses:
            pg.block(CAMPUS_KO[c], _standard_table(dept, period, c, rng), level=4,
                     topic="graduation_requirements", campus=c)
    else:
        pg.block(pick(rng, "졸업 이수 기준", "이수학점 기준표", "졸업요건 총괄"), _standard_table(dept, period, campus, rng))
    pg.block(pick(rng, "전공필수 교과목", "반드시 이수할 전공필수 과목"),
             para(f"전공필수 {len(req.required_courses)}과목: " + ", ".join(req.required_courses) + "."))
    _special_blocks(pg, dept, period, req)
    pg.add(notes(["입학년도별 공통 기준은 학사안내 > 졸업요건 총괄을 참고하세요.",
                  "졸업시험 일정은 학사공지 게시판에 매 학기 안내합니다."]),
           campus_switch(dept, period, campus) if campus else None,
           year_selector(dept, period, "require", campus))
    facts = {"period": period.label, "total_credits": req.total, "major_credits": req.major,
             "required_credits": req.required, "english_courses": req.english}
    pg.publish(out, as_of, source=SOURCE, title=title, side=side_menu(dept), topic="graduation_requirements",
               crumbs=crumbs(dept, ("졸업요건", None), (f"{period.label}학년도", None)), facts=facts)


def build(out: Output, as_of: datetime.date, dept: Department) -> None:
    for period in periods_for(dept):
        for campus in requirement_pages(dept):
            requirement_page(out, as_of, dept, period, campus)
