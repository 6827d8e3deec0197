"""The department pages besides curricula and graduation requirements: overview, people, labs,
course descriptions, substitutions, second majors, field practice, capstone, careers, scholarships
and an English overview. Several of them have sections aimed at particular cohorts or statuses.
"""

from __future__ import annotations

import datetime
from itertools import groupby

from examples.site_kit.markup import a, h, join, p, section, table, tag, ul

from . import policies
from .catalog import (
    COURSES,
    DEPARTMENTS,
    FIRST_COHORT,
    LAST_COHORT,
    MAJOR_TYPES,
    PERIODS,
    SECOND_MAJOR_CREDITS,
    TOPICS,
    Department,
    changes,
    curriculum,
    name_in,
    periods_for,
    requirement,
    thesis_rule,
)
from .dept_curriculum import SOURCE, curriculum_path, dept_crumbs, graduation_path
from .dept_rules import RULE_PAGES, current_rule_file
from .model import Output, Section, applies, narrow
from .pages import add_page
from .people import CAREERS, GOALS, GREETING, INTRO, professors
from .phrasing import cohort, cohort_scope, grades, josa, pick, rng_for, status

# Pages every department has, in menu order: (file, menu label).
MENU = (
    ("greeting.html", "학과장 인사말"), ("history.html", "연혁"), ("professors.html", "교수진"),
    ("labs.html", "연구실"), ("courses.html", "교과목 해설"), ("substitution.html", "대체 교과목"),
    ("capstone.html", "졸업논문·캡스톤"), ("double-major.html", "이중전공 안내"),
    ("convergence.html", "융합전공"), ("field-practice.html", "현장실습"),
    ("scholarships.html", "학과 장학금"), ("careers.html", "진로·취업"),
    ("contact.html", "학과 사무실"), ("en.html", "English"),
)
RESEARCH_GRADE = {"CS": (3, 4), "DS": (2, 4), "AI": (2, 4)}  # who may join a lab as 학부연구생
SUBSTITUTES = {
    "논리설계": "컴퓨터구조", "멀티미디어": "컴퓨터그래픽스", "수치해석": "선형대수",
    "미적분학Ⅱ": "선형대수", "임베디드시스템": "시스템프로그래밍", "컴퓨터그래픽스": "컴퓨터비전",
    "블록체인": "정보보안", "실험계획법": "회귀분석", "비모수통계": "베이지안통계",
    "R프로그래밍": "데이터프로그래밍", "웹데이터수집": "빅데이터처리", "졸업프로젝트": "캡스톤디자인Ⅰ",
    "음성인식": "자연어처리", "의료인공지능": "생성모델", "캡스톤디자인": "캡스톤디자인Ⅰ",
}


def _path(dept: Department, file: str) -> str:
    return f"/departments/{dept.slug}/" + ("" if file == "index.html" else file)


def menu(dept: Department) -> list[tuple[str, str]]:
    """MENU, then the cohort-rule pages (dept_rules.py): one entry each, for the newest cohort."""
    return [*MENU, *((current_rule_file(dept, page), page.menu) for page in RULE_PAGES)]


def _page(out, as_of, dept, file, title, body, topic="general", applies_to=None, sections=None,
          lang="ko", crumb=None):
    add_page(out, as_of, path=_path(dept, file), source=SOURCE, title=title,
             crumbs=dept_crumbs(dept, (crumb or title, None)), body=body, topic=topic,
             applies_to=applies_to or applies(department=dept.code), sections=sections, lang=lang)


def overview(out: Output, as_of: datetime.date, dept: Department) -> None:
    rows = [
        [cohort_scope(q.first, q.last, rng_for(f"{dept.slug}-index-{q.slug}")),
         a(curriculum_path(dept, q), f"{q.label} 교육과정"), a(graduation_path(dept, q), f"{q.label} 졸업요건")]
        for q in periods_for(dept)
    ]
    body = join([
        section(h(2, "학과 소개"), *(p(t) for t in INTRO[dept.code])),
        section(h(2, "교육 목표"), ul(GOALS[dept.code], ordered=True)),
        section(h(2, "교육과정과 졸업요건"),
                p("입학년도에 따라 적용되는 교육과정과 졸업요건이 다릅니다. 본인의 학번에 해당하는 행을 확인하세요."),
                table("입학년도별 교육과정·졸업요건 바로가기", ["적용 학번", "교육과정", "졸업요건"], rows)),
        section(h(2, "학과 안내"), ul([a(_path(dept, f), label) for f, label in menu(dept)])),
    ])
    _page(out, as_of, dept, "index.html", f"{dept.name} 소개", body, crumb="학과 소개")


def greeting(out: Output, as_of: datetime.date, dept: Department) -> None:
    head = professors(dept)[0]
    rng = rng_for(_path(dept, "greeting.html"))
    body = join([
        p(GREETING[dept.code]),
        p(INTRO[dept.code][1]),
        p(pick(rng, "학생 여러분이 자신의 관심 분야를 찾고 마음껏 도전할 수 있도록 교수진과 직원 모두가 힘껏 돕겠습니다.",
               "궁금한 점이 있으면 언제든 학과 사무실이나 지도교수를 찾아 주십시오. 여러분의 성장을 응원합니다.")),
        p(f"{dept.name} 학과장 {head.name}", class_="signature"),
    ])
    _page(out, as_of, dept, "greeting.html", f"{dept.name} 학과장 인사말", body)


def history(out: Output, as_of: datetime.date, dept: Department) -> None:
    events = [(dept.founded, f"{name_in(dept, dept.founded)} 설립")]
    if dept.code == "CS":
        events += [(2005, "컴퓨터학부로 개편"), (2019, "컴퓨터학과로 명칭 변경")]
    if dept.code == "DS":
        events.append((2021, "데이터사이언스학과에서 데이터과학과로 명칭 변경"))
    for q in periods_for(dept)[1:]:
        scope = cohort_scope(q.first, q.last, rng_for(f"{dept.slug}-hist-{q.slug}"))
        events.append((q.first, f"{q.first}학년도 교육과정 개편({scope} 적용)"))
    for prog in policies.CONVERGENCE_PROGRAMS:
        if dept.code in prog.departments:
            events.append((max(prog.since, dept.founded), f"{prog.name} 참여"))
    events.sort()
    body = join([
        p(f"{dept.name}의 주요 연혁입니다."),
        table(f"{dept.name} 연혁", ["연도", "내용"], [[str(y), e] for y, e in events]),
    ])
    _page(out, as_of, dept, "history.html", f"{dept.name} 연혁", body)


def people_page(out: Output, as_of: datetime.date, dept: Department) -> None:
    rows = [[pr.name, pr.position, pr.field, pr.lab, pr.room, pr.email] for pr in professors(dept)]
    body = join([
        p(f"{dept.name} 전임교원은 {len(rows)}명입니다. 면담은 이메일로 미리 약속을 잡아 주세요."),
        table(f"{dept.name} 교수진", ["성명", "직위", "전공 분야", "연구실", "연구실 위치", "이메일"], rows),
    ])
    _page(out, as_of, dept, "professors.html", f"{dept.name} 교수진", body)


def labs(out: Output, as_of: datetime.date, dept: Department) -> None:
    rng = rng_for(_path(dept, "labs.html"))
    lo, hi = RESEARCH_GRADE[dept.code]
    blocks = [
        section(h(3, pr.lab), p(f"지도교수: {pr.name} {pr.position} · 분야: {pr.field} · 위치: {pr.room}"),
                p(pick(rng, f"{pr.field} 분야의 이론과 응용을 연구합니다.",
                       f"{josa(pr.field, '을/를')} 중심으로 산학 과제와 기초 연구를 함께 수행합니다.",
                       f"주요 연구 주제는 {pr.field}이며, 매 학기 세미나를 공개로 진행합니다.")))
        for pr in professors(dept)
    ]
    recruit_heading = "학부연구생 모집 안내"
    body = join([
        p(f"{dept.name}에는 {len(blocks)}개의 연구실이 있습니다."),
        section(h(2, "연구실 목록"), *blocks),
        section(h(2, recruit_heading),
                p(f"학부연구생은 {grades(lo, hi, rng)}을 대상으로 매 학기 초에 모집합니다. 연구참여 학점은 "
                  "학기당 최대 3학점까지 전공선택으로 인정됩니다."),
                p("지원을 원하면 희망 연구실의 지도교수에게 이메일로 성적표와 자기소개서를 보내세요.")),
    ])
    base = applies(department=dept.code)
    _page(out, as_of, dept, "labs.html", f"{dept.name} 연구실", body,
          sections=[Section(recruit_heading, narrow(base, grade=(lo, hi)), topic="research")])


def contact(out: Output, as_of: datetime.date, dept: Department) -> None:
    rows = [["학사·교육과정", f"{dept.phone}"], ["장학·현장실습", dept.phone[:-1] + "2"],
            ["졸업사정·이중전공", dept.phone[:-1] + "3"]]
    body = join([
        tag("address", f"{dept.building} · 전화 {dept.phone} · 이메일 {dept.email}"),
        p("운영 시간: 평일 09:00~17:30 (점심시간 12:00~13:00), 방학 중에는 10:00~16:00로 단축 운영합니다."),
        table("업무별 연락처", ["업무", "전화"], rows),
    ])
    _page(out, as_of, dept, "contact.html", f"{dept.name} 학과 사무실", body)


def course_descriptions(out: Output, as_of: datetime.date, dept: Department) -> None:
    rng = rng_for(_path(dept, "courses.html"))
    seen, items = set(), []
    for c in sorted(COURSES[dept.code], key=lambda c: (c.code, c.since)):
        if (c.code, c.name) in seen:
            continue
        seen.add((c.code, c.name))
        span = [x for x in COURSES[dept.code] if (x.code, x.name) == (c.code, c.name)]
        since, until = min(x.since for x in span), max(x.until for x in span)
        topics = TOPICS[c.name]
        frame = pick(rng, f"{topics} 등을 다룬다.", f"{josa(topics, '을/를')} 배운다.",
                     f"이 과목에서는 {josa(topics, '을/를')} 학습한다.", f"주요 내용: {topics}.")
        note = ""
        if since > max(FIRST_COHORT, dept.first_cohort) or until < LAST_COHORT:
            note = f" (개설 교육과정: {cohort_scope(since, until, rng)})"
        items.append(section(h(3, f"{c.code} {c.name} ({c.credits}학점)"),
                             p(frame + note)))
    body = join([p(f"{dept.name} 전공 교과목의 개요입니다. 교육과정 개편으로 폐지되거나 명칭이 바뀐 과목도 함께 실었습니다."),
                 *items])
    _page(out, as_of, dept, "courses.html", f"{dept.name} 교과목 해설", body, topic="course_descriptions")


def substitution(out: Output, as_of: datetime.date, dept: Department) -> None:
    rng = rng_for(_path(dept, "substitution.html"))
    blocks, sections = [], []
    base = applies(department=dept.code)
    for index, q in enumerate(periods_for(dept)):
        ch = changes(dept.code, index)
        rows = [[old.split(" → ")[0], old.split(" → ")[1], "동일 과목으로 인정"] for old in ch["renamed"]]
        rows += [[old, SUBSTITUTES.get(old, "전공선택 과목"), "재수강 시 대체 과목으로 수강"] for old in ch["removed"]]
        for moved in ch["moved"]:  # "name: 전공선택 → 전공필수"
            course, kinds = moved.split(": ")
            rows.append([course, course, f"종전 이수구분({kinds.split(' → ')[0]}) 유지"])
        if not rows:
            continue
        heading = pick(rng, f"{q.first}학년도 교육과정 개편에 따른 대체 교과목", f"{q.label}학년도 개편 관련 대체 인정")
        who = cohort(dept.first_cohort, q.first - 1, rng)
        blocks.append(section(h(2, heading),
                              p(f"{josa(who, '이/가')} 아래 과목을 재수강하거나 미이수한 경우 다음과 같이 처리합니다."),
                              table(f"{q.label}학년도 개편 대체 교과목", ["종전 교과목", "대체(신) 교과목", "처리"], rows)))
        sections.append(Section(heading, narrow(base, admission_year=(dept.first_cohort, q.first - 1)),
                                topic="course_substitution"))
    body = join([p("교육과정이 바뀌어 종전 교과목이 폐지되거나 이름이 바뀐 경우의 대체 인정 기준입니다. "
                   "각 표는 해당 개편 이전에 입학한 학생에게만 적용됩니다."), *blocks])
    _page(out, as_of, dept, "substitution.html", f"{dept.name} 대체 교과목 인정 기준", body,
          topic="course_substitution", sections=sections)


def capstone(out: Output, as_of: datetime.date, dept: Department) -> None:
    rng = rng_for(_path(dept, "capstone.html"))
    base = applies(department=dept.code)
    blocks, sections = [], []
    for rule, group in groupby(periods_for(dept), key=lambda q: thesis_rule(dept, q)):
        group = list(group)
        lo, hi = group[0].first, group[-1].last
        heading = f"{cohort_scope(lo, hi, rng)}: {rule}"
        blocks.append(section(h(2, heading), p(pick(
            rng,
            f"{josa(cohort(lo, hi, rng), '은/는')} 졸업요건으로 {josa(rule, '을/를')} 충족해야 합니다.",
            f"해당 학번의 학생은 4학년에 {rule} 요건을 갖추어야 졸업할 수 있습니다.",
        )), p("주제 선정과 지도교수 배정은 4학년 1학기 개강 후 2주 이내에 마칩니다.")))
        sections.append(Section(heading, narrow(base, admission_year=(lo, hi)), topic="capstone"))
    body = join([p(f"{dept.name} 학생은 입학년도에 따라 졸업논문, 졸업프로젝트 또는 캡스톤디자인으로 졸업 요건을 충족합니다."),
                 *blocks])
    _page(out, as_of, dept, "capstone.html", f"{dept.name} 졸업논문·캡스톤디자인 안내", body,
          topic="capstone", sections=sections)


def double_major(out: Output, as_of: datetime.date, dept: Department) -> None:
    rng = rng_for(_path(dept, "double-major.html"))
    others = tuple(d.code for d in DEPARTMENTS if d.code != dept.code)
    gpa_rows = [[cohort_scope(lo, hi, rng), f"{gpa} 이상"] for lo, hi, gpa in policies.DOUBLE_MAJOR_MIN_GPA]
    credit_rows = []
    for q in periods_for(dept):
        core = [c.name for c in curriculum(dept, q)["required"] if "double" not in c.waived]
        credit_rows.append([cohort_scope(q.first, q.last, rng),
                            f"{SECOND_MAJOR_CREDITS[PERIODS.index(q)]}학점", ", ".join(core)])
    body = join([
        p(pick(rng, f"다른 학과 학생이 {dept.name}를 제2전공(이중전공)으로 이수하려면 아래 기준을 따릅니다.",
               f"{dept.name} 이중전공은 타 학과 소속 학생을 위한 과정입니다.")),
        section(h(2, "지원 자격"),
                p("2개 학기 이상 이수한 재학생(2학년 이상)이 지원할 수 있으며, 휴학 중에는 신청할 수 없습니다."),
                table("입학년도별 지원 최저 평점", ["입학년도", "평점평균"], gpa_rows)),
        section(h(2, "이수 학점과 필수 과목"),
                table(f"{dept.name} 이중전공 이수 기준", ["적용 학번", "이수 학점", "반드시 이수할 과목"], credit_rows)),
        section(h(2, "선발 인원과 일정"),
                p(f"학기마다 {policies.DOUBLE_MAJOR_QUOTA[dept.code]}명 내외를 선발하며, 신청은 매년 5월과 11월 학사 공지를 통해 받습니다.")),
    ])
    _page(out, as_of, dept, "double-major.html", f"{dept.name} 이중전공 지원 안내", body, topic="double_major",
          applies_to=applies(department=others, major_type="double", grade=(2, 4)))


def convergence(out: Output, as_of: datetime.date, dept: Department) -> None:
    rng = rng_for(_path(dept, "convergence.html"))
    base = applies(major_type="convergence")
    blocks, sections = [], []
    for prog in policies.CONVERGENCE_PROGRAMS:
        if dept.code not in prog.departments:
            continue
        heading = prog.name
        partners = " · ".join(d.name for d in DEPARTMENTS if d.code in prog.departments)
        since = max(prog.since, FIRST_COHORT)
        blocks.append(section(h(2, heading), p(f"운영 학과: {partners}. {prog.summary}."),
                              p(f"신청 대상: {cohort(since, LAST_COHORT, rng)} 중 2학년 이상 재학생.")))
        sections.append(Section(heading, narrow(base, admission_year=(since, LAST_COHORT)),
                                topic="convergence_major"))
    body = join([p(f"{dept.name}가 참여하는 융합전공입니다. 소속 학과 교과목은 융합전공 학점으로 인정하지 않습니다."),
                 *blocks,
                 p("융합전공 공통 규정은 ", a("/academics/convergence-major.html", "융합전공 안내"), "를 참고하세요.")])
    _page(out, as_of, dept, "convergence.html", f"{dept.name} 참여 융합전공", body, topic="convergence_major",
          applies_to=base, sections=sections)


def field_practice(out: Output, as_of: datetime.date, dept: Department) -> None:
    rng = rng_for(_path(dept, "field-practice.html"))
    base = applies(department=dept.code, grade=(3, 4))
    cap = policies.FIELD_PRACTICE_MAJOR_CREDIT_CAP[dept.code]
    old_lo, cut = dept.first_cohort, policies.FIELD_PRACTICE_MAJOR_FROM
    rows = [[name, weeks, f"{cr}학점", grades(*g, rng)] for name, weeks, cr, g in policies.FIELD_PRACTICE_TYPES]
    parts = [
        p(pick(rng, f"{dept.name} {grades(3, 4, rng)}은 하계·동계 방학이나 학기 중에 현장실습에 참여할 수 있습니다.",
               f"현장실습은 {grades(3, 4, rng)}이 참여하는 학점 인정 프로그램입니다.")),
        table("현장실습 유형", ["유형", "기간", "인정 학점", "참여 학년"], rows),
        p(f"실습 지원금: {policies.FIELD_PRACTICE_ALLOWANCE}."),
    ]
    sections = []
    if old_lo < cut:
        heading = f"{cohort_scope(old_lo, cut - 1, rng)}의 학점 인정"
        parts.append(section(h(2, heading), p("현장실습 학점은 일반선택으로 인정되며 전공 학점에는 포함되지 않습니다.")))
        sections.append(Section(heading, narrow(base, admission_year=(old_lo, cut - 1)), topic="field_practice"))
    heading = f"{cohort_scope(cut, LAST_COHORT, rng)}의 학점 인정"
    parts.append(section(h(2, heading), p(f"현장실습 학점 중 최대 {cap}학점까지 전공선택으로 인정합니다.")))
    sections.append(Section(heading, narrow(base, admission_year=(cut, LAST_COHORT)), topic="field_practice"))
    if dept.code == "AI":
        heading = "2024학번부터 적용되는 졸업요건"
        parts.append(section(h(2, heading), p("2024학번부터는 현장실습 또는 학부연구참여 3학점 이상이 졸업요건입니다.")))
        sections.append(Section(heading, narrow(base, admission_year=(2024, LAST_COHORT)), topic="field_practice"))
    _page(out, as_of, dept, "field-practice.html", f"{dept.name} 현장실습", join(parts), topic="field_practice",
          applies_to=base, sections=sections)


def scholarships(out: Output, as_of: datetime.date, dept: Department) -> None:
    rng = rng_for(_path(dept, "scholarships.html"))
    base = applies(department=dept.code)
    merit = ", ".join(f"평점 {g} 이상 등록금 {pct}%" for g, pct in policies.MERIT_SCHOLARSHIP)
    blocks = [
        ("학과 성적우수장학", "enrolled",
         f"직전 학기 성적이 우수한 {status('enrolled', rng)}에게 지급합니다({merit}). 1학년 1학기는 대상이 아닙니다."),
        ("복학생 학업지원장학", "returning",
         f"{status('returning', rng)} 중 학업 계획서를 제출한 학생을 선발해 교재비 50만 원을 지원합니다."),
        ("외국인 유학생 학과장학", "international",
         f"{dept.name}에 재학 중인 {status('international', rng)}에게 학기당 100만 원을 지원합니다(직전 학기 평점 2.5 이상)."),
    ]
    parts = [p(f"{dept.name}에서 자체적으로 운영하는 장학금입니다. 대학 공통 장학금은 ",
               a("/academics/scholarships.html", "장학 안내"), "를 참고하세요.")]
    sections = []
    for heading, who, text in blocks:
        parts.append(section(h(2, heading), p(text)))
        sections.append(Section(heading, narrow(base, student_status=who), topic="scholarship"))
    parts.append(section(h(2, "학과 발전기금 장학"), p("졸업생 기부금으로 매 학기 5명 내외를 선발하며, 학년과 학적 상태에 관계없이 신청할 수 있습니다.")))
    _page(out, as_of, dept, "scholarships.html", f"{dept.name} 장학금", join(parts), topic="scholarship",
          sections=sections)


def careers(out: Output, as_of: datetime.date, dept: Department) -> None:
    rng = rng_for(_path(dept, "careers.html"))
    years = [as_of.year - k for k in (3, 2, 1)]
    rows = [[str(y), f"{rng.randint(68, 86)}.{rng.randint(0, 9)}%", f"{rng.randint(8, 22)}%"] for y in years]
    body = join([
        p(f"{dept.name} 졸업생의 주요 진로와 최근 취업 현황입니다."),
        section(h(2, "주요 진로"), ul(CAREERS[dept.code])),
        section(h(2, "졸업생 취업 현황"), table("최근 3년 취업률", ["졸업 연도", "취업률", "대학원 진학"], rows)),
    ])
    _page(out, as_of, dept, "careers.html", f"{dept.name} 진로·취업", body, topic="careers")


def english(out: Output, as_of: datetime.date, dept: Department) -> None:
    base = applies(department=dept.code)
    parts = [p(f"The {dept.english} at Hanbit University College of Informatics was founded in {dept.founded}. "
               "Courses are taught mainly in Korean; selected courses are offered in English every semester.")]
    sections = []
    for q in periods_for(dept)[-2:]:
        heading = f"Students admitted in {q.label}"
        rows = [[mt.capitalize() + " major", f"{requirement(dept, q, mt).major} credits",
                 f"{requirement(dept, q, mt).required} credits"] for mt in MAJOR_TYPES]
        parts.append(section(h(2, heading), p(f"Total credits to graduate: {requirement(dept, q, 'intensive').total}."),
                             table(f"Major credits for students admitted in {q.label}",
                                   ["Major type", "Major credits", "Required major credits"], rows)))
        sections.append(Section(heading, narrow(base, admission_year=(q.first, q.last)),
                                topic="graduation_requirements"))
    parts.append(p("Office: ", dept.building, " · ", dept.email))
    _page(out, as_of, dept, "en.html", f"{dept.english}: Overview", join(parts), lang="en",
          sections=sections, crumb="English")


def index_page(out: Output, as_of: datetime.date) -> None:
    items = [
        section(h(2, d.name), p(INTRO[d.code][0]), p(a(f"/departments/{d.slug}/", f"{d.name} 바로가기")))
        for d in DEPARTMENTS
    ]
    add_page(out, as_of, path="/departments/", source=SOURCE, title="학과 안내",
             crumbs=[("학과", None)], body=join([p("정보대학에는 세 개의 학과가 있습니다."), *items]),
             applies_to=applies())


def build(out: Output, as_of: datetime.date, dept: Department) -> None:
    for make in (overview, greeting, history, people_page, labs, contact, course_descriptions,
                 substitution, capstone, double_major, convergence, field_practice, scholarships,
                 careers, english):
        make(out, as_of, dept)

