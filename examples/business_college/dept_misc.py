"""The other department pages: overview, faculty, careers, and the competency certification
(전공역량 인증) whose thresholds change with some curriculum revisions."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from examples.site_kit.markup import a

from .catalog import CAMPUS_KO, DEPARTMENTS, Department, periods_for
from .chrome import bullets, notes, para, table
from .dept_common import SOURCE, crumbs, dept_path, period_page, side_menu, year_selector
from .model import Output, applies
from .pages import Page
from .wording import cohort_cell, josa, pick, rng_for


@dataclass(frozen=True)
class Rule:
    key: str
    label: str  # a row's first cell: what is asked, never a number
    unit: str
    choices: tuple[int, ...]  # values in the order revisions move through them


PROGRAMS: dict[str, tuple[str, tuple[Rule, ...]]] = {
    "BUS": ("경영역량 인증제", (Rule("points", "비교과 활동 포인트", "점", (60, 80, 100, 120)),
                             Rule("cases", "경영사례 발표", "회", (1, 2, 3)),
                             Rule("mentoring", "선배 멘토링 참여", "시간", (6, 10, 12, 16)))),
    "ACT": ("회계·세무 실무 인증", (Rule("tax_training", "세무실무 교육", "시간", (20, 30, 40)),
                                Rule("mock_exam", "전산세무 모의시험", "점", (60, 70, 80)))),
    "ITR": ("무역실무 인증", (Rule("trade_english", "무역영어 모의시험", "점", (60, 70, 80)),
                           Rule("field_study", "해외 현장학습", "시간", (24, 40, 56)))),
    "ECN": ("경제분석 역량 인증", (Rule("tesat", "경제이해력 검증시험", "점", (160, 180, 200, 220)),
                               Rule("data_lab", "데이터 분석 실습", "시간", (15, 20, 30)))),
}
QUOTA = {("BUS", "seoul"): 120, ("BUS", "sejong"): 60, ("ACT", "seoul"): 45, ("ITR", "sejong"): 50,
         ("ECN", "seoul"): 90, ("ECN", "sejong"): 40}
FACULTY = {"BUS": 24, "ACT": 9, "ITR": 8, "ECN": 17}
EMPLOYMENT = {"BUS": 71, "ACT": 76, "ITR": 68, "ECN": 64}


def rule_values(dept: Department, rule: Rule) -> tuple[int, ...]:
    """One value per period of the department: the rule is tightened at some revisions (at least
    once), never loosened."""
    steps = len(periods_for(dept))
    rng = rng_for(f"cert:{dept.code}:{rule.key}")
    index = rng.randrange(len(rule.choices) - 1)
    values = []
    for i in range(steps):
        if i and index + 1 < len(rule.choices) and rng.random() < 0.45:
            index += 1
        values.append(rule.choices[index])
    if len(set(values)) == 1:
        values[-1] = rule.choices[rule.choices.index(values[-1]) + 1]
    return tuple(values)


def cert_page(out: Output, as_of: datetime.date, dept: Department, index: int) -> None:
    program, rules = PROGRAMS[dept.code]
    period = periods_for(dept)[index]
    pg, who = period_page(dept, "cert", period)
    rng = pg.rng
    title = pick(rng, f"{dept.name} {program} 기준 ({period.label}학년도 입학생)",
                 f"{program} - {dept.name} {cohort_cell(period.first, period.last, rng)}")
    pg.add(para(pick(rng, f"{dept.name} 학생은 졸업 전에 {program} 기준을 충족해야 합니다. {josa(who, '은/는')} 아래 기준을 적용합니다.",
                     f"{who}의 {program} 기준입니다. 기준은 입학년도에 따라 다르며 졸업할 때까지 바뀌지 않습니다.")))
    rows = [[r.label, f"{rule_values(dept, r)[index]}{r.unit} 이상"] for r in rules]
    pg.block(pick(rng, "인증 기준", "인증 요건"),
             table(f"{program} 인증 기준 ({period.label}학년도 입학생)", ["구분", "기준"], rows, row_headers=True))
    pg.add(notes(["인증 신청은 4학년 1학기에 학과 사무실에서 받습니다.", "기준을 채우지 못하면 졸업이 유예될 수 있습니다."]),
           year_selector(dept, period, "cert"))
    pg.publish(out, as_of, source=SOURCE, title=title, side=side_menu(dept), topic="certification",
               crumbs=crumbs(dept, ("전공역량 인증", None), (f"{period.label}학년도", None)),
               facts={r.key: rule_values(dept, r)[index] for r in rules})


def intro_page(out: Output, as_of: datetime.date, dept: Department) -> None:
    pg = Page(dept_path(dept, "intro"), applies(major=dept.code))
    rng = pg.rng
    since = "1979년 상경대학 설립과 함께 문을 연" if dept.founded < 2000 else f"{dept.founded}년에 신설된"
    pg.add(para(f"{josa(dept.name, '은/는')} {since} 학과로, 전임교원 {FACULTY[dept.code]}명이 이론과 실무를 함께 가르칩니다."))
    pg.block(pick(rng, "교육목표", "학과 비전"), bullets([
        "기업과 시장을 데이터로 이해하는 분석 역량", "국제 감각과 윤리 의식을 갖춘 전문 인재", "현장 문제를 해결하는 실무 능력"]))
    quota = [[CAMPUS_KO[c], f"{QUOTA[(dept.code, c)]}명", dept.office if c == dept.campuses[0] else "글로벌관 2층 학과 분실"]
             for c in dept.campuses]
    pg.block(pick(rng, "입학정원과 학과 사무실", "모집 정원 및 위치"),
             table("캠퍼스별 입학정원", ["캠퍼스", "입학정원", "학과 사무실"], quota),
             para(f"학과 사무실 전화: {dept.phone}"))
    pg.publish(out, as_of, source=SOURCE, title=f"{dept.name} 소개", side=side_menu(dept), topic="department",
               crumbs=crumbs(dept, ("학과소개", None)))


_FAMILY = "김이박최정강조윤장임한오서신권황안송유홍"
_GIVEN = ("민준", "서연", "지훈", "수빈", "현우", "지민", "태호", "은지", "성민", "하늘", "준영", "예린", "도윤", "소희")
FIELDS = {"BUS": ("마케팅", "재무관리", "인사조직", "생산운영", "경영정보", "회계"),
          "ACT": ("재무회계", "세법", "회계감사", "관리회계"),
          "ITR": ("국제무역", "통상정책", "국제금융", "국제물류"),
          "ECN": ("미시경제", "거시경제", "계량경제", "노동경제", "재정학")}


def professor_page(out: Output, as_of: datetime.date, dept: Department) -> None:
    pg = Page(dept_path(dept, "professor"), applies(major=dept.code))
    rng = pg.rng
    rows = []
    for i in range(min(FACULTY[dept.code], 8)):
        name = _FAMILY[rng.randrange(len(_FAMILY))] + pick(rng, *_GIVEN)
        rows.append([name, pick(rng, "교수", "부교수", "조교수"), FIELDS[dept.code][i % len(FIELDS[dept.code])],
                     f"{dept.office[:3]} {400 + i * 3}호"])
    pg.add(para(f"{dept.name} 전임교원을 소개합니다(일부)."),
           table("교수진", ["성명", "직위", "전공분야", "연구실"], rows))
    pg.publish(out, as_of, source=SOURCE, title=f"{dept.name} 교수진", side=side_menu(dept), topic="faculty",
               crumbs=crumbs(dept, ("교수진", None)))


CAREERS = {"BUS": ("경영컨설턴트", "마케터", "금융권", "공공기관"), "ACT": ("공인회계사", "세무사", "회계법인", "기업 재무팀"),
           "ITR": ("관세사", "물류 기업", "무역 상사", "국제기구"), "ECN": ("경제연구소", "금융권", "데이터 분석가", "공무원")}


def career_page(out: Output, as_of: datetime.date, dept: Department) -> None:
    pg = Page(dept_path(dept, "career"), applies(major=dept.code))
    pg.add(para(f"{dept.name} 졸업생의 최근 3년 평균 취업률은 {EMPLOYMENT[dept.code]}%입니다."),
           bullets([f"주요 진출 분야: {', '.join(CAREERS[dept.code])}",
                    "학과 취업 멘토링은 매 학기 2회 열립니다.", "진로 상담은 학과 사무실로 예약하세요."]))
    pg.publish(out, as_of, source=SOURCE, title=f"{dept.name} 진로·취업", side=side_menu(dept), topic="career",
               crumbs=crumbs(dept, ("진로·취업", None)))


def index_page(out: Output, as_of: datetime.date) -> None:
    pg = Page("/major/index.php")
    rows = [[a(dept_path(d, "intro"), d.name), ", ".join(CAMPUS_KO[c] for c in d.campuses), f"{d.founded}년", d.phone]
            for d in DEPARTMENTS]
    pg.add(para("경영경제대학은 4개 학과로 이루어져 있습니다. 학과마다 개설 캠퍼스가 다릅니다."),
           table("학과 현황", ["학과", "캠퍼스", "설립", "학과 사무실"], rows))
    pg.publish(out, as_of, source=SOURCE, title="학과·전공 안내", crumbs=[("학과·전공", None)], topic="department")


def build(out: Output, as_of: datetime.date, dept: Department) -> None:
    intro_page(out, as_of, dept)
    professor_page(out, as_of, dept)
    career_page(out, as_of, dept)
    for index in range(len(periods_for(dept))):
        cert_page(out, as_of, dept, index)
