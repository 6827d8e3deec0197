"""Per department x period: the graduation exam (서울캠퍼스) or thesis (세종캠퍼스) rules. The two
campuses of 경영학과 and 경제학과 share a page, each under a heading of its own."""

from __future__ import annotations

import datetime

from .catalog import CAMPUS_KO, Department, Period, periods_for, requirement, revision_index
from .chrome import notes, para, table
from .dept_common import SOURCE, crumbs, period_page, side_menu, year_selector
from .model import Output
from .wording import cohort_cell, josa, pick

EXAM_SUBJECTS = {"BUS": (4, 4, 4, 5, 5), "ACT": (3, 3, 3, 4, 4), "ITR": (3, 3, 3, 3, 4), "ECN": (3, 3, 3, 4, 4)}
EXAM_FROM_SEMESTER = (7, 7, 6, 6, 6)  # the exam may be taken once this many semesters are registered
THESIS_MEETINGS = (3, 4, 4, 5, 5)  # meetings with the supervisor before submission


def exam_rows(dept: Department, period: Period, campus: str | None) -> list[list[str]]:
    i = revision_index(period)
    return [["시험 과목", f"{EXAM_SUBJECTS[dept.code][i]}과목"],
            ["합격 기준", f"과목 평균 {requirement(dept, period, campus).exam_score}점 이상"],
            ["응시 자격", f"{EXAM_FROM_SEMESTER[i]}학기 이상 등록"]]


def thesis_rows(period: Period) -> list[list[str]]:
    i = revision_index(period)
    return [["지도교수 면담", f"{THESIS_MEETINGS[i]}회 이상"], ["제출 시기", "졸업 학기 10주 차까지"],
            ["심사", "지도교수 1명, 심사위원 1명"]]


def exam_page(out: Output, as_of: datetime.date, dept: Department, index: int) -> None:
    period = periods_for(dept)[index]
    pg, who = period_page(dept, "exam", period)
    rng = pg.rng
    title = pick(rng, f"{dept.name} 졸업시험 안내 ({period.label}학년도 입학생)",
                 f"{cohort_cell(period.first, period.last, rng)} {dept.name} 졸업시험·논문 기준")
    if len(dept.campuses) > 1:
        pg.add(para(f"{josa(who, '은/는')} 캠퍼스에 따라 졸업시험 또는 졸업논문으로 졸업 자격을 인정받습니다."))
        pg.block(f"{CAMPUS_KO['seoul']} 졸업시험", table(f"{dept.exam} 기준", ["구분", "기준"],
                 exam_rows(dept, period, "seoul"), row_headers=True), topic="graduation_exam", campus="seoul")
        pg.block(f"{CAMPUS_KO['sejong']} 졸업논문", table("졸업논문 기준", ["구분", "기준"], thesis_rows(period),
                 row_headers=True), topic="graduation_exam", campus="sejong")
    else:
        pg.add(para(f"{who}의 {dept.exam} 기준입니다. 시험은 매 학기 한 번 치릅니다."))
        pg.block(pick(rng, "시험 기준", "응시 요건과 합격 기준"),
                 table(f"{dept.exam} 기준", ["구분", "기준"], exam_rows(dept, period, None), row_headers=True))
    pg.add(notes(["불합격하면 다음 학기에 다시 응시할 수 있습니다."]), year_selector(dept, period, "exam"))
    pg.publish(out, as_of, source=SOURCE, title=title, side=side_menu(dept), topic="graduation_exam",
               crumbs=crumbs(dept, ("졸업시험", None), (f"{period.label}학년도", None)))


def build(out: Output, as_of: datetime.date, dept: Department) -> None:
    for index in range(len(periods_for(dept))):
        exam_page(out, as_of, dept, index)
