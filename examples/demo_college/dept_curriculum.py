"""Per department x curriculum period: the curriculum page and the graduation-requirements page.

These are the near-duplicates that matter most: 22 curricula and 22 requirement pages that share
their wording and differ in the courses and numbers of one cohort range.
"""

from __future__ import annotations

import datetime

from examples.site_kit.markup import Markup, a, h, join, p, section, table, ul

from . import policies
from .catalog import (
    MAJOR_TYPE_KO,
    MAJOR_TYPES,
    PERIODS,
    Course,
    Department,
    Period,
    changes,
    curriculum,
    english_rule,
    name_in,
    periods_for,
    requirement,
    thesis_rule,
)
from .model import Output, Section, applies, narrow
from .pages import add_page
from .phrasing import cohort, cohort_scope, josa, pick, rng_for

SOURCE = "department-pages"
KIND_KO = {"foundation": "전공기초", "required": "전공필수", "elective": "전공선택"}
WAIVER_NOTE = {
    ("double",): "이중전공자 면제",
    ("convergence",): "융합전공자 면제",
    ("double", "convergence"): "이중·융합전공자 면제",
}


def curriculum_path(dept: Department, period: Period) -> str:
    return f"/departments/{dept.slug}/curriculum-{period.slug}.html"


def graduation_path(dept: Department, period: Period) -> str:
    return f"/departments/{dept.slug}/graduation-{period.slug}.html"


def dept_crumbs(dept: Department, *rest: tuple[str, str | None]) -> list[tuple[str, str | None]]:
    return [("학과", "/departments/"), (dept.name, f"/departments/{dept.slug}/"), *rest]


def _when(c: Course) -> str:
    return f"{c.year}학년 {c.semester}학기"


def _course_table(caption: str, courses: list[Course], with_note: bool = False) -> Markup:
    head = ["학수번호", "교과목명", "학점", "권장 이수시기"] + (["비고"] if with_note else [])
    rows = []
    for c in courses:
        row = [c.code, c.name, str(c.credits), _when(c)]
        if with_note:
            row.append(WAIVER_NOTE.get(c.waived, ""))
        rows.append(row)
    return table(caption, head, rows)


def _roadmap(cur: dict[str, list[Course]], caption: str) -> Markup:
    """Year x semester grid; required courses are marked so the grid reads on its own."""
    rows = []
    for year in range(1, 5):
        cells = [f"{year}학년"]
        for sem in (1, 2):
            names = [
                c.name + ("(필)" if c.kind == "required" else "")
                for kind in ("foundation", "required", "elective")
                for c in cur[kind]
                if (c.year, c.semester) == (year, sem)
            ]
            cells.append(", ".join(names) or "-")
        rows.append(cells)
    return table(caption, ["학년", "1학기", "2학기"], rows, row_headers=True)


def _change_list(dept: Department, index: int) -> list[str]:
    ch = changes(dept.code, index)
    return (
        [f"신설: {x}" for x in ch["added"]]
        + [f"폐지: {x}" for x in ch["removed"]]
        + [f"교과목명 변경: {x}" for x in ch["renamed"]]
        + [f"이수구분 변경: {x}" for x in ch["moved"]]
    )


def _period_links(dept: Department, current: Period, path_of) -> Markup:
    links = [
        a(path_of(dept, q), f"{q.label}학년도") if q != current else Markup(f"<strong>{q.label}학년도</strong>")
        for q in periods_for(dept)
    ]
    return join(links, " · ")


def curriculum_page(out: Output, as_of: datetime.date, dept: Department, index: int) -> None:
    period = periods_for(dept)[index]
    path = curriculum_path(dept, period)
    rng = rng_for(path)
    cur = curriculum(dept, period)
    name = name_in(dept, period.first)
    who = cohort(period.first, period.last, rng)
    title = pick(rng, f"{name} 교육과정 ({period.label}학년도)", f"{period.label}학년도 {name} 교육과정",
                 f"{name} {period.label}학년도 교과과정")
    intro = pick(
        rng,
        f"{josa(who, '은/는')} 아래 교육과정에 따라 전공 교과목을 이수합니다. 입학 당시의 교육과정이 "
        "졸업할 때까지 적용되며, 휴학이나 복학으로 학년이 바뀌어도 적용 교육과정은 달라지지 않습니다.",
        f"본 교육과정은 {period.label}학년도에 개편되어 {who}에게 적용됩니다. 전공기초, 전공필수, "
        "전공선택 교과목과 학년별 권장 이수 순서를 차례로 안내합니다.",
        f"{name}의 {period.label}학년도 교육과정입니다(적용 대상: {cohort_scope(period.first, period.last, rng)}). "
        "다른 학번의 학생은 본인 입학년도의 교육과정을 확인하시기 바랍니다.",
    )
    req_credits = sum(c.credits for c in cur["required"])
    heads = {
        "foundation": pick(rng, "전공기초(학문의기초)", "학문의기초(전공기초) 교과목", "전공기초 교과목"),
        "required": pick(rng, "전공필수", "전공필수 교과목"),
        "elective": pick(rng, "전공선택", "전공선택 교과목"),
        "roadmap": pick(rng, "학년별 권장 이수 순서", "권장 이수 체계", "학년·학기별 추천 교과목"),
        "changes": pick(rng, "이전 교육과정 대비 변경 사항", "주요 개편 내용"),
    }
    change_items = _change_list(dept, index)
    change_body = (
        ul(change_items) if change_items else
        p(f"{period.label}학년도 교육과정은 학과에서 처음 편성한 교육과정으로, 비교 대상이 되는 이전 교육과정이 없습니다.")
    )
    body = join([
        p(intro),
        section(h(2, heads["foundation"]),
                p(f"전공기초 교과목은 1~2학년에 개설되며 모두 {sum(c.credits for c in cur['foundation'])}학점입니다."),
                _course_table(f"{period.label}학년도 전공기초 교과목", cur["foundation"])),
        section(h(2, heads["required"]),
                p(f"전공필수는 총 {len(cur['required'])}과목 {req_credits}학점입니다. 비고란의 면제 표시는 "
                  "이중전공·융합전공 이수자에게 해당합니다."),
                _course_table(f"{period.label}학년도 전공필수 교과목", cur["required"], with_note=True)),
        section(h(2, heads["elective"]),
                _course_table(f"{period.label}학년도 전공선택 교과목", cur["elective"])),
        section(h(2, heads["roadmap"]),
                _roadmap(cur, f"{period.label}학년도 입학생 권장 이수 순서 ((필)은 전공필수)")),
        section(h(2, heads["changes"]), change_body),
        p("졸업에 필요한 학점은 ", a(graduation_path(dept, period), f"{period.label}학년도 졸업요건"),
          " 페이지를 참고하세요. 다른 학년도 교육과정: ", _period_links(dept, period, curriculum_path)),
    ])
    doc_applies = applies(department=dept.code, admission_year=(period.first, period.last))
    topics = {"foundation": "foundational_courses", "required": "required_courses",
              "elective": "electives", "roadmap": "recommended_courses", "changes": "curriculum_changes"}
    facts = {
        "period": period.label,
        "foundation": [c.name for c in cur["foundation"]],
        "required": [c.name for c in cur["required"]],
        "electives": [c.name for c in cur["elective"]],
        "required_credits": req_credits,
    }
    add_page(
        out, as_of, path=path, source=SOURCE, title=title,
        crumbs=dept_crumbs(dept, ("교육과정", None), (f"{period.label}학년도", None)),
        body=body, topic="curriculum", applies_to=doc_applies, facts=facts,
        sections=[Section(heads[k], doc_applies, topic=t) for k, t in topics.items()],
    )


def _major_section(dept: Department, period: Period, major_type: str, heading: str, rng) -> Markup:
    req = requirement(dept, period, major_type)
    waived = [c.name for c in curriculum(dept, period)["required"] if major_type in c.waived]
    label = MAJOR_TYPE_KO[major_type]
    lead = {
        "intensive": pick(rng, "하나의 전공만 깊이 있게 이수하는 경우의 요건입니다.",
                          "이중전공이나 융합전공 없이 본 학과 전공만 이수하는 학생에게 적용합니다."),
        "double": pick(rng, "다른 학과를 제2전공으로 함께 이수하는 경우, 본 학과(제1전공) 요건은 다음과 같습니다.",
                       "이중전공을 병행하면 제1전공의 이수 학점이 줄어듭니다."),
        "convergence": pick(rng, "융합전공을 함께 이수하는 학생의 제1전공 요건입니다.",
                            "융합전공 병행 시 본 학과 전공 요건은 아래와 같이 완화됩니다."),
    }[major_type]
    rows = [
        ["졸업 이수학점", f"{req.total}학점 이상"],
        ["교양", f"{req.ge}학점 이상"],
        ["전공기초(학문의기초)", f"{req.foundation}학점 이상"],
        ["전공(전공필수 포함)", f"{req.major}학점 이상"],
        ["전공필수", f"{req.required}학점"],
    ]
    parts = [
        h(2, heading),
        p(lead),
        table(f"{label} 이수 학점 ({period.label}학년도 입학생)", ["구분", "기준"], rows, row_headers=True),
        p("전공필수 과목: " + ", ".join(req.required_courses) + "."),
    ]
    if waived:
        parts.append(p(f"{label} 이수자는 {', '.join(waived)} 과목을 이수하지 않아도 됩니다."))
    parts.append(ul(req.conditions))
    return section(*parts)


MAJOR_HEADINGS = {
    "intensive": ("심화전공", "심화전공 이수자", "심화전공(단일전공)"),
    "double": ("이중전공", "이중전공 이수자(제1전공 기준)", "이중전공자"),
    "convergence": ("융합전공", "융합전공 이수자", "융합전공 병행자"),
}


def graduation_page(out: Output, as_of: datetime.date, dept: Department, index: int) -> None:
    period = periods_for(dept)[index]
    path = graduation_path(dept, period)
    rng = rng_for(path)
    name = name_in(dept, period.first)
    who = cohort(period.first, period.last, rng)
    p_index = PERIODS.index(period)
    title = pick(rng, f"{name} 졸업요건 ({period.label}학년도 입학생)",
                 f"{period.label}학년도 입학생 {name} 졸업요건", f"{name} 졸업이수요건 – {period.label}학년도")
    intro = pick(
        rng,
        f"이 페이지는 {who}에게 적용되는 {name} 졸업요건입니다. 전공 유형(심화전공·이중전공·융합전공)에 따라 "
        "전공 이수 학점이 다르므로 본인에게 해당하는 항목을 확인하세요.",
        f"{josa(who, '은/는')} 아래 요건을 모두 충족해야 학위를 받을 수 있습니다. 다른 학번의 졸업요건과 "
        "숫자가 다르니 반드시 입학년도를 확인하시기 바랍니다.",
        f"{name} {period.label}학년도 교육과정 기준 졸업요건을 전공 유형별로 정리했습니다(대상: "
        f"{cohort_scope(period.first, period.last, rng)}).",
    )
    ge_courses = ", ".join(n for n, _ in policies.ge_required(period))
    areas, of = policies.GE_CORE_AREAS[p_index]
    common_heading = pick(rng, "공통 졸업요건", "모든 전공 유형 공통 사항")
    intensive = requirement(dept, period, "intensive")
    common = section(
        h(2, common_heading),
        ul([
            f"졸업 이수학점: {intensive.total}학점 이상",
            f"교양: {intensive.ge}학점 이상(공통교양 {ge_courses} 및 핵심교양 {of}개 영역 중 {areas}개 영역 이상)",
            f"영어 졸업요건: {english_rule(period)}",
            f"졸업논문·프로젝트: {thesis_rule(dept, period)}",
            "졸업 평점평균 2.0 이상",
        ]),
    )
    headings = {mt: pick(rng, *MAJOR_HEADINGS[mt]) for mt in MAJOR_TYPES}
    body = join([
        p(intro),
        common,
        *(_major_section(dept, period, mt, headings[mt], rng) for mt in MAJOR_TYPES),
        p("※ 교양 세부 요건은 ", a("/academics/general-education.html", "교양교육과정 안내"),
          "를, 교과목 목록은 ", a(curriculum_path(dept, period), f"{period.label}학년도 교육과정"), "을 참고하세요."),
        p("다른 학년도 졸업요건: ", _period_links(dept, period, graduation_path)),
    ])
    doc_applies = applies(department=dept.code, admission_year=(period.first, period.last))
    sections = []
    for mt in MAJOR_TYPES:
        req = requirement(dept, period, mt)
        facts = {"total_credits": req.total, "ge_credits": req.ge, "foundation_credits": req.foundation,
                 "major_credits": req.major, "required_credits": req.required,
                 "required_courses": list(req.required_courses), "conditions": list(req.conditions)}
        sections.append(Section(headings[mt], narrow(doc_applies, major_type=mt),
                                topic="graduation_requirements", facts=facts))
    add_page(
        out, as_of, path=path, source=SOURCE, title=title,
        crumbs=dept_crumbs(dept, ("졸업요건", None), (f"{period.label}학년도", None)),
        body=body, topic="graduation_requirements", applies_to=doc_applies, sections=sections,
        facts={"period": period.label, "total_credits": intensive.total, "ge_credits": intensive.ge},
    )


def build(out: Output, as_of: datetime.date, dept: Department) -> None:
    for index in range(len(periods_for(dept))):
        curriculum_page(out, as_of, dept, index)
        graduation_page(out, as_of, dept, index)
