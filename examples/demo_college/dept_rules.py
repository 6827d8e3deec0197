"""Per department, the smaller rules a department publishes per admission cohort: the graduation
certification (졸업인증제), credit recognition limits and graduation-project supervision.

Like the graduation requirements, each rule page is published once per curriculum period
(/departments/<d>/certification-2021-2022.html): its one section, named by the cohort the way the
other pages do, holds a table of "label | number+unit" rows, and the page links the other
periods' pages. The numbers move at some curriculum revisions and differ between departments, so
the same question has different answers for different students (what the benchmark synthesis
calls a profile-dependent category), and only the page of the student's own cohort answers it.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Callable

from examples.site_kit.markup import h, join, p, section, table

from .catalog import Department, Period, name_in, periods_for, thesis_rule
from .dept_curriculum import SOURCE, _period_links, dept_crumbs
from .model import Output, Section, applies
from .pages import add_page
from .phrasing import cohort, cohort_scope, josa, pick, rng_for


@dataclass(frozen=True)
class CohortRule:
    """One row of a rules page: a label without numbers, and the values it may take over time."""

    key: str  # manifest facts key
    label: str  # the row's first cell (a short noun phrase)
    unit: str  # 학점 | 회 | 시간 | 점 | 명 ...
    choices: tuple[int, ...] = ()  # values in the order revisions move through them (see staircase)
    suffix: str = ""  # right after the quantity (" 이상", "까지")
    derived: Callable[[Department, Period], int] | None = None  # instead of choices: from other rules


@dataclass(frozen=True)
class RulePage:
    file: str  # /departments/<d>/<stem>-<period slug>.html (see rule_file)
    menu: str  # label in the department's menu
    title: str  # after the department name
    topic: str
    intro: tuple[str, ...]  # alternative opening paragraphs ({name} = department name)
    caption: str  # table caption after "<period>학년도 입학생 "
    rules: tuple[CohortRule, ...]


# A thesis is written alone or in pairs; projects and capstones grew into larger teams. Longest
# prefix first: team_size takes the first rule name that starts the thesis rule.
_TEAM_SIZE = {"졸업논문": 2, "졸업프로젝트": 3, "캡스톤디자인Ⅰ·Ⅱ": 5, "캡스톤디자인": 4}


def team_size(dept: Department, period: Period) -> int:
    rule = thesis_rule(dept, period)
    return next(size for prefix, size in _TEAM_SIZE.items() if rule.startswith(prefix))


CERTIFICATION = RulePage(
    file="certification.html", menu="졸업인증제", title="졸업인증제 안내", topic="graduation_certification",
    intro=("{name} 학생은 졸업요건과 별도로 학과 졸업인증 기준을 충족해야 학위를 받을 수 있습니다. "
           "인증 기준은 입학년도에 따라 다르므로 본인 학번의 페이지인지 확인하세요.",
           "졸업인증제는 학과가 정한 비교과 활동과 역량 평가를 졸업 전에 갖추도록 하는 제도입니다. "
           "입학 당시의 기준이 졸업할 때까지 적용됩니다."),
    caption="졸업인증 기준",
    rules=(
        CohortRule("volunteer_hours", "사회봉사", "시간", (20, 30, 40, 50), " 이상"),
        CohortRule("seminar_attendance", "전공 세미나 참석", "회", (4, 5, 6, 8), " 이상"),
        CohortRule("diagnosis_pass_score", "전공역량 진단평가 통과 점수", "점", (50, 60, 65, 70), " 이상"),
    ),
)
CREDIT_RECOGNITION = RulePage(
    file="credit-recognition.html", menu="학점 인정 기준", title="인접 학과·교류 학점 인정 기준",
    topic="credit_recognition",
    intro=("정보대학 안의 다른 학과에서 이수한 과목과 국내외 교류 대학에서 받은 학점을 {name} 전공 학점으로 "
           "인정하는 한도입니다. 한도를 넘는 학점은 일반선택으로 처리됩니다.",
           "{name} 전공으로 인정받을 수 있는 교외·인접 학과 학점의 한도입니다. 한도는 입학년도에 따라 다릅니다. "
           "인정 신청은 학기 초 학과 사무실에서 받습니다."),
    caption="전공 학점 인정 한도",
    rules=(
        CohortRule("adjacent_course_limit", "인접 학과 과목 인정 한도", "학점", (6, 9, 12, 15), "까지"),
        CohortRule("exchange_credit_limit", "교류 학점 전공 인정 한도", "학점", (9, 12, 15, 18, 21), "까지"),
    ),
)
SUPERVISION = RulePage(
    file="project-supervision.html", menu="졸업작품 지도 기준", title="졸업논문·졸업작품 지도 기준",
    topic="capstone",
    intro=("졸업논문이나 졸업작품(졸업프로젝트·캡스톤디자인)을 준비하는 학생이 지켜야 할 지도 기준입니다. "
           "면담 기록은 지도교수 확인을 받아 학기 말에 제출하며, 졸업논문의 팀 인원은 공동 저자 수를 뜻합니다.",
           "{name}의 졸업논문·졸업작품 지도는 입학년도의 교육과정에 따라 운영됩니다. 면담 횟수와 팀 인원(졸업논문은 공동 저자 수)을 확인하세요."),
    caption="졸업논문·졸업작품 지도 기준",
    rules=(
        CohortRule("supervision_meetings", "지도교수 면담", "회", (3, 4, 6, 8), " 이상"),
        CohortRule("team_size_limit", "팀 구성 최대 인원", "명", derived=team_size),
    ),
)
RULE_PAGES = (CERTIFICATION, CREDIT_RECOGNITION, SUPERVISION)


def staircase(key: str, choices: tuple[int, ...], steps: int) -> tuple[int, ...]:
    """One value per curriculum period: a department mostly tightens a rule (sometimes relaxes it)
    by one choice at some revisions, at least once, and keeps it between revisions."""
    if len(choices) < 2 or steps < 2:
        raise ValueError(f"{key}: need at least 2 choices and 2 periods")
    rng = rng_for(f"cohort-rule:{key}")
    step = 1 if rng.random() < 0.7 else -1
    index = rng.randrange(len(choices) - 1) if step == 1 else rng.randrange(1, len(choices))
    moves = {i for i in range(1, steps) if rng.random() < 0.35} or {rng.randrange(1, steps)}
    values = []
    for i in range(steps):
        if i in moves and 0 <= index + step < len(choices):
            index += step
        values.append(choices[index])
    return tuple(values)


def rule_values(dept: Department, rule: CohortRule) -> tuple[int, ...]:
    """The rule's value for each of periods_for(dept), in order."""
    periods = periods_for(dept)
    if rule.derived is not None:
        return tuple(rule.derived(dept, q) for q in periods)
    return staircase(f"{dept.code}:{rule.key}", rule.choices, len(periods))


def rule_facts(dept: Department, page: RulePage) -> dict[Period, dict[str, int]]:
    """Period -> {facts key: value}: what the page of each period states."""
    columns = {rule.key: rule_values(dept, rule) for rule in page.rules}
    return {q: {key: values[i] for key, values in columns.items()} for i, q in enumerate(periods_for(dept))}


def rule_file(page: RulePage, period: Period) -> str:
    """certification.html -> certification-2021-2022.html: named like curriculum_path's files."""
    stem = page.file.removesuffix(".html")
    return f"{stem}-{period.slug}.html"


def rule_path(dept: Department, page: RulePage, period: Period) -> str:
    return f"/departments/{dept.slug}/{rule_file(page, period)}"


def current_rule_file(dept: Department, page: RulePage) -> str:
    """What the department menu links: the newest cohort's page, which links the older ones."""
    return rule_file(page, periods_for(dept)[-1])


def _rows(page: RulePage, facts: dict[str, int]) -> list[list[str]]:
    return [[rule.label, f"{facts[rule.key]}{rule.unit}{rule.suffix}"] for rule in page.rules]


def rules_page(out: Output, as_of: datetime.date, dept: Department, page: RulePage, period: Period,
               facts: dict[str, int]) -> None:
    """One department x period page: the cohort's rows, and links to the other cohorts' pages."""
    path = rule_path(dept, page, period)
    rng = rng_for(path)
    name = name_in(dept, period.first)
    who = cohort(period.first, period.last, rng)
    title = pick(rng, f"{name} {page.title} ({period.label}학년도 입학생)",
                 f"{period.label}학년도 입학생 {name} {page.title}", f"{name} {page.title} – {period.label}학년도")
    heading = pick(rng, who, f"{who} 기준", f"{who} 적용 기준")
    doc_applies = applies(department=dept.code, admission_year=(period.first, period.last))
    # Like the graduation pages, the opening names the cohort: the period in the title alone
    # ("– 2020학년도") could be a calendar year.
    scope = pick(
        rng,
        f"이 페이지는 {who}에게 적용되는 {page.caption}입니다.",
        f"{josa(who, '은/는')} 아래 {josa(page.caption, '을/를')} 따릅니다.",
        f"적용 대상: {cohort_scope(period.first, period.last, rng)}.",
    )
    body = join([
        p(scope, " ", pick(rng, *page.intro).format(name=name)),
        section(
            h(2, heading),
            table(f"{period.label}학년도 입학생 {page.caption}", ["구분", "기준"], _rows(page, facts), row_headers=True),
        ),
        p(f"다른 학년도 입학생의 {page.menu}: ", _period_links(dept, period, lambda d, q: rule_path(d, page, q))),
    ])
    add_page(out, as_of, path=path, source=SOURCE, title=title,
             crumbs=dept_crumbs(dept, (page.menu, None), (f"{period.label}학년도", None)), body=body,
             topic=page.topic, applies_to=doc_applies,
             sections=[Section(heading, doc_applies, topic=page.topic, facts=dict(facts))])


def build(out: Output, as_of: datetime.date, dept: Department) -> None:
    for page in RULE_PAGES:
        for period, facts in rule_facts(dept, page).items():
            rules_page(out, as_of, dept, page, period, facts)
