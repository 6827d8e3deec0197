"""The FAQ entries, by page. Answers quote catalog/policies numbers; many depend on the student.

Entries marked with a ``share`` key appear verbatim on two pages (the exact duplicates a pipeline
must consolidate); the department pages ask the same questions with different answers.
"""

from __future__ import annotations

from itertools import groupby

from examples.site_kit.faq import Entry
from examples.site_kit.markup import Markup, a, join, p, table, ul

from . import policies
from .catalog import (
    CONVERGENCE_PROGRAM_CREDITS,
    DEPARTMENTS,
    DEPT,
    FIRST_COHORT,
    GE_CREDITS,
    LAST_COHORT,
    PERIODS,
    SECOND_MAJOR_CREDITS,
    TOTAL_CREDITS,
    Department,
    changes,
    curriculum,
    english_rule,
    name_in,
    periods_for,
    requirement,
    thesis_rule,
)
from .model import applies
from .phrasing import cohort, cohort_scope, dept_name, grades, josa, particle, pick, rng_for


def E(question, answer, topic, share=None, **limits) -> Entry:  # noqa: N802 - reads like a table row
    return Entry(question, answer if isinstance(answer, Markup) else p(answer), applies(**limits), topic, share)


def _rng(page: str, key: str):
    return rng_for(f"faq:{page}:{key}")


# Entries that appear on two pages. Built once so both copies are byte-identical.
def shared() -> dict[str, Entry]:
    return {
        "choose-curriculum": E("입학년도와 다른 학년도의 교육과정을 선택할 수 있나요?",
                               join([p("아니요. 교육과정과 졸업요건은 입학년도(학번)를 기준으로 정해지며 본인이 선택할 수 없습니다."),
                                     p("다만 폐지된 과목은 학과가 정한 대체 교과목으로 이수할 수 있습니다.")]),
                               "curriculum", "choose-curriculum"),
        "returning-curriculum": E("복학하면 어떤 교육과정이 적용되나요?",
                                  join([p("복학생은 복학한 해가 아니라 입학한 해의 교육과정과 졸업요건을 그대로 적용받습니다."),
                                        p("복학 후 들어야 할 과목이 폐지되었다면 학과 대체 교과목 인정 기준을 확인하세요.")]),
                                  "leave_return", "returning-curriculum", student_status="returning"),
        "min-gpa": E("졸업에 필요한 최저 평점이 있나요?", "네. 모든 학번 공통으로 졸업 평점평균 2.0 이상이어야 합니다.",
                     "graduation_requirements", "min-gpa"),
        "leave-scholarship": E("휴학 중에도 장학금을 신청할 수 있나요?",
                               join([p("휴학 중에는 교내 장학금을 신청할 수 없습니다."),
                                     ul(["장학금을 받은 학기에 군휴학을 하면 복학 학기로 이월됩니다.",
                                         "일반휴학을 하면 받은 장학금을 반환해야 합니다."])]),
                               "scholarship", "leave-scholarship", student_status="on_leave"),
        "leave-practice": E("휴학 중에 현장실습에 참여할 수 있나요?",
                            "휴학생은 현장실습에 참여할 수 없습니다. 실습 학기에 맞춰 먼저 복학 신청을 하세요.",
                            "field_practice", "leave-practice", student_status="on_leave"),
        "returning-registration": E("복학생도 정규 수강신청 기간에 신청하나요?",
                                    "네. 다만 복학 신청이 승인되어야 수강신청 화면이 열리므로 복학 신청을 먼저 마쳐야 합니다.",
                                    "course_registration", "returning-registration", student_status="returning"),
        "double-and-convergence": E("이중전공과 융합전공을 동시에 이수할 수 있나요?",
                                    "아니요. 제2전공은 이중전공과 융합전공 중 하나만 선택할 수 있습니다.",
                                    "double_major", "double-and-convergence", major_type=("double", "convergence")),
    }


def graduation(sh: dict[str, Entry]) -> list[Entry]:
    out = []
    for q in PERIODS:
        rng = _rng("graduation", q.slug)
        who = cohort(q.first, q.last, rng)
        rule = english_rule(q)
        answer = (f"{josa(who, '은/는')} 영어 졸업요건으로 '{rule}' 기준을 충족해야 합니다." if "없음" not in rule else
                  f"{who}에게는 별도의 영어 졸업요건이 없습니다. 영어강의 수강은 권장 사항입니다.")
        out.append(E(pick(rng, f"{who}의 영어 졸업요건은 무엇인가요?", f"{who}인데 토익 점수가 꼭 있어야 졸업하나요?",
                          f"{q.label}학년도 입학생 영어 졸업인증 기준을 알려 주세요."),
                     answer,
                     "graduation_requirements", admission_year=(q.first, q.last)))
    for dept in DEPARTMENTS:
        rng = _rng("graduation", dept.slug)
        rows = []
        for rule, group in groupby(periods_for(dept), key=lambda q: thesis_rule(dept, q)):
            group = list(group)
            rows.append([cohort_scope(group[0].first, group[-1].last, rng), rule])
        out.append(E(f"{dept_name(dept, rng)} 학생은 졸업논문을 꼭 써야 하나요?",
                     join([p("입학년도에 따라 다릅니다."), table(f"{dept.name} 학번별 졸업 논문·프로젝트 요건", ["학번", "요건"], rows)]),
                     "capstone", department=dept.code))
    out += [
        sh["min-gpa"],
        E("조기졸업은 어떤 조건에서 가능한가요?", "6학기 이상 등록하고 평점평균 4.0 이상이며 졸업요건을 모두 충족하면 조기졸업을 신청할 수 있습니다.",
          "graduation_requirements", grade=(3, 4)),
        E("졸업요건을 다 채웠는데 졸업을 미룰 수 있나요?", "4학년 재학생은 1회에 한해 졸업유예를 신청할 수 있습니다. 유예 학기에는 1학점 이상 수강해야 합니다.",
          "graduation_requirements", grade=(4, 4)),
        sh["returning-curriculum"],
        E("편입생은 어떤 졸업요건을 적용받나요?", join([p("편입생에게는 편입한 학년도의 3학년 교육과정이 적용됩니다."),
                                               ul(["편입 후 최소 65학점 이상 이수", "전공필수는 학과가 인정하지 않은 과목을 모두 이수"])]),
          "graduation_requirements", student_status="transfer"),
        E("외국인 유학생에게 별도의 졸업요건이 있나요?", "외국인 유학생은 TOPIK 4급 이상을 취득하거나 한국어 4급 과정을 수료해야 졸업할 수 있습니다.",
          "graduation_requirements", student_status="international"),
        E("졸업사정 결과는 언제 알 수 있나요?", "졸업 예정 학기 4월(8월 졸업)과 10월(2월 졸업)에 포털에서 확인할 수 있습니다. 공지사항의 졸업사정 안내를 참고하세요.",
          "graduation_requirements", grade=(4, 4)),
        E("이중전공자는 졸업할 때 무엇을 확인해야 하나요?", "제1전공의 이중전공 기준 학점과 제2전공 학점을 모두 채워야 하며, 둘 중 하나라도 부족하면 졸업할 수 없습니다.",
          "double_major", major_type="double"),
        E("융합전공자의 졸업요건은 어떻게 되나요?", "제1전공의 융합전공 기준 학점과 융합전공 이수 학점을 모두 충족해야 합니다. 융합전공 학점은 입학년도에 따라 33학점 또는 36학점입니다.",
          "convergence_major", major_type="convergence"),
        E("휴학 중인데 졸업할 수 있나요?", "휴학 중에는 졸업할 수 없습니다. 마지막 학기에는 복학해 등록해야 졸업사정 대상이 됩니다.",
          "graduation_requirements", student_status="on_leave"),
        E("학위수여식에 꼭 참석해야 하나요?", "참석은 자유입니다. 불참해도 학위기는 학사지원팀에서 받을 수 있습니다.", "general"),
        sh["choose-curriculum"],
    ]
    return out


def credits(sh: dict[str, Entry]) -> list[Entry]:
    out = []
    for i, q in enumerate(PERIODS):
        rng = _rng("credits", q.slug)
        who = cohort(q.first, q.last, rng)
        links = [a(f"/departments/{d.slug}/graduation-{q.slug}.html", d.name) for d in DEPARTMENTS if q in periods_for(d)]
        out.append(E(pick(rng, f"{who} 졸업 이수학점은 몇 학점인가요?", f"{who}인데 졸업하려면 총 몇 학점을 들어야 하나요?",
                          f"{q.label}학년도 입학생의 졸업학점 기준이 궁금합니다."),
                     join([p(f"{josa(who, '은/는')} 총 {TOTAL_CREDITS[i]}학점 이상을 이수해야 하며, 이 중 교양은 {GE_CREDITS[i]}학점 이상입니다."),
                           p("전공 학점은 학과와 전공 유형에 따라 다릅니다: ", join(links, ", "))]),
                     "credits", admission_year=(q.first, q.last)))
    for dept in DEPARTMENTS:
        for q in periods_for(dept):
            rng = _rng("credits", f"{dept.slug}-{q.slug}")
            req = requirement(dept, q, "intensive")
            who, name = cohort(q.first, q.last, rng), dept_name(dept, rng, q.first)
            question = pick(rng, f"{name} {who} 심화전공자는 전공을 몇 학점 들어야 하나요?",
                            f"{who} {name} 전공 이수학점이 궁금해요(심화전공).",
                            f"{name} {q.label}학년도 입학생 심화전공 학점 기준은?")
            answer = join([p(f"{name} {josa(who, '은/는')} 심화전공 기준으로 전공 {req.major}학점 이상(전공필수 {req.required}학점 포함)을 "
                             f"이수해야 합니다."),
                           p(f"전공기초 {req.foundation}학점, 교양 {req.ge}학점을 포함해 총 {req.total}학점 이상이 필요합니다.")])
            out.append(E(question, answer, "credits", department=dept.code, major_type="intensive",
                         admission_year=(q.first, q.last)))
    out.append(sh["min-gpa"])
    return out


def curriculum_faq(sh: dict[str, Entry]) -> list[Entry]:
    out = [sh["choose-curriculum"]]
    for dept in DEPARTMENTS:
        for q in periods_for(dept):
            rng = _rng("curriculum", f"{dept.slug}-{q.slug}")
            req = list(curriculum(dept, q)["required"])
            who, name = cohort(q.first, q.last, rng), name_in(dept, q.first) if rng.random() < 0.3 else dept.name
            listing = ", ".join(f"{c.name}({c.credits})" for c in req)
            waived = [c.name for c in req if c.waived]
            parts = [p(f"{name} {who}의 전공필수는 {len(req)}과목 {sum(c.credits for c in req)}학점입니다: {listing}.")]
            if waived:
                parts.append(p(f"이중전공·융합전공 이수자는 이 중 일부({', '.join(waived)})가 면제될 수 있습니다."))
            out.append(E(pick(rng, f"{name} {who} 전공필수 과목은 무엇인가요?", f"{who} {name} 전공필수를 알려 주세요.",
                              f"{name} {q.label}학년도 교육과정의 전공필수 과목이 궁금합니다."),
                         join(parts), "required_courses", department=dept.code, admission_year=(q.first, q.last)))
    for dept in DEPARTMENTS:
        for index, q in enumerate(periods_for(dept)):
            for renamed in changes(dept.code, index)["renamed"][:1]:
                old, new = renamed.split(" → ")
                rng = _rng("curriculum", f"rename-{dept.slug}-{q.slug}")
                who = cohort(dept.first_cohort, q.first - 1, rng)
                out.append(E(f"'{old}'{particle(old, '과/와')} '{new}'{particle(new, '은/는')} 같은 과목인가요?",
                             f"네. {q.first}학년도 교육과정 개편 때 '{old}'{particle(old, '이/가')} "
                             f"'{new}'{particle(new, '으로/로')} 이름이 바뀌었습니다. "
                             f"{josa(who, '이/가')} '{new}'{particle(new, '을/를')} 수강하면 "
                             f"'{old}'{particle(old, '을/를')} 이수한 것으로 인정됩니다.",
                             "curriculum_changes", department=dept.code, admission_year=(dept.first_cohort, q.first - 1)))
    out += [
        E("선수과목을 듣지 않고 상위 과목을 수강할 수 있나요?", "수강신청은 가능하지만 담당 교수가 선수과목 이수를 권고합니다. 학과에 따라 자료구조 등은 선수과목 이수가 필수입니다.", "curriculum"),
        E("다른 학과 전공 과목도 전공 학점으로 인정되나요?", "원칙적으로 일반선택으로 인정됩니다. 학과가 지정한 인정 과목만 전공선택으로 인정합니다.", "electives"),
        E("전공기초 과목은 언제 들어야 하나요?", "전공기초는 1~2학년에 개설되며 전공 과목의 선수과목이 많으므로 2학년까지 마치는 것을 권장합니다.",
          "foundational_courses", grade=(1, 2)),
    ]
    return out


def double_major(sh: dict[str, Entry]) -> list[Entry]:
    out = []
    for credits_needed in sorted(set(SECOND_MAJOR_CREDITS), reverse=True):
        qs = [q for i, q in enumerate(PERIODS) if SECOND_MAJOR_CREDITS[i] == credits_needed]
        lo, hi = qs[0].first, qs[-1].last
        rng = _rng("double-major", f"second-{lo}")
        who = cohort(lo, hi, rng)
        out.append(E(pick(rng, f"{who} 이중전공 이수 학점은 몇 학점인가요?", f"{who}인데 제2전공은 몇 학점을 들어야 하나요?"),
                     f"{josa(who, '은/는')} 제2전공 학과에서 {credits_needed}학점 이상을 이수해야 합니다. 제1전공 학점은 학과별 이중전공 기준을 따릅니다.",
                     "double_major", major_type="double", admission_year=(lo, hi)))
    picks = {"CS": ("2017-2018", "2021-2022", "2024-2025"), "DS": ("2015-2016", "2020", "2026"),
             "AI": ("2019", "2023", "2024-2025")}
    for code, slugs in picks.items():
        dept = DEPT[code]
        for q in (x for x in periods_for(dept) if x.slug in slugs):
            rng = _rng("double-major", f"{dept.slug}-{q.slug}")
            req = requirement(dept, q, "double")
            who, name = cohort(q.first, q.last, rng), dept_name(dept, rng, q.first)
            out.append(E(pick(rng, f"{name} {josa(who, '이/가')} 이중전공을 하면 본전공은 몇 학점 들어야 하나요?",
                              f"{who} {name} 학생인데 이중전공 시 제1전공 학점이 줄어드나요?"),
                         f"네. {name} {josa(who, '은/는')} 이중전공을 하면 제1전공을 {req.major}학점(전공필수 {req.required}학점 포함)만 "
                         f"이수하면 됩니다. 심화전공 기준 {requirement(dept, q, 'intensive').major}학점보다 적습니다.",
                         "double_major", department=code, major_type="double", admission_year=(q.first, q.last)))
    for lo, hi, gpa in policies.DOUBLE_MAJOR_MIN_GPA:
        rng = _rng("double-major", f"gpa-{lo}")
        who = cohort(lo, hi, rng)
        out.append(E(f"{who} 이중전공 신청 평점 기준은?", f"{josa(who, '은/는')} 신청 직전 학기까지 평점평균 {gpa} 이상이어야 신청할 수 있습니다.",
                     "double_major", major_type="double", admission_year=(lo, hi), grade=(2, 4)))
    for dept in DEPARTMENTS:
        others = tuple(d.code for d in DEPARTMENTS if d != dept)
        out.append(E(f"{dept.name} 이중전공은 몇 명을 선발하나요?",
                     f"학기마다 {policies.DOUBLE_MAJOR_QUOTA[dept.code]}명 내외를 선발하며, 지원자가 많으면 평점과 면접으로 선발합니다.",
                     "double_major", department=others, major_type="double", grade=(2, 4)))
    out += [
        E("이중전공은 언제 신청하나요?", "매년 5월과 11월에 신청을 받으며, 2개 학기 이상 이수한 2학년 이상 재학생이 신청할 수 있습니다.",
          "double_major", major_type="double", grade=(2, 4)),
        E("휴학 중에도 이중전공을 신청할 수 있나요?", "아니요. 휴학생은 신청할 수 없으며 복학 후 신청 기간에 지원하세요.",
          "double_major", major_type="double", student_status="on_leave"),
        E("편입생도 이중전공을 할 수 있나요?", "편입 후 1개 학기 이상 이수하면 신청할 수 있습니다. 다만 남은 학기 안에 두 전공을 모두 이수할 수 있는지 학과와 상담하세요.",
          "double_major", major_type="double", student_status="transfer"),
        E("외국인 유학생도 이중전공을 신청할 수 있나요?", "네. 다만 TOPIK 4급 이상이어야 하며 체류 기간 안에 졸업할 수 있어야 합니다.",
          "double_major", major_type="double", student_status="international"),
        E("이중전공을 중간에 포기하면 어떻게 되나요?", "4학년 1학기까지 포기할 수 있으며, 포기하면 제1전공의 심화전공 요건을 충족해야 졸업할 수 있습니다. 이미 들은 제2전공 과목은 일반선택으로 인정됩니다.",
          "double_major", major_type="double"),
        E("심화전공과 이중전공은 무엇이 다른가요?", join([p("심화전공은 한 학과의 전공을 깊이 이수하는 것이고, 이중전공은 다른 학과를 제2전공으로 함께 이수하는 것입니다."),
                                                  ul(["심화전공: 제1전공 학점이 가장 많음", "이중전공: 제1전공 학점이 줄고 제2전공 학점이 추가됨"])]),
          "double_major"),
        sh["double-and-convergence"],
    ]
    return out


def convergence(sh: dict[str, Entry]) -> list[Entry]:
    out = []
    for prog in policies.CONVERGENCE_PROGRAMS:
        rng = _rng("convergence", prog.slug)
        depts = ", ".join(DEPT[c].name for c in prog.departments)
        out.append(E(f"{prog.name}은 어떤 전공인가요?", f"{prog.summary}. {depts}가 함께 운영합니다.",
                     "convergence_major", major_type="convergence", admission_year=(prog.since, LAST_COHORT)))
        out.append(E(f"{prog.name}은 누가 신청할 수 있나요?",
                     f"{cohort(prog.since, LAST_COHORT, rng)} 중 2학년 이상 재학생이 신청할 수 있습니다.",
                     "convergence_major", major_type="convergence", admission_year=(prog.since, LAST_COHORT), grade=(2, 4)))
    for k in sorted(set(CONVERGENCE_PROGRAM_CREDITS), reverse=True):
        qs = [q for q in PERIODS if CONVERGENCE_PROGRAM_CREDITS[PERIODS.index(q)] == k]
        rng = _rng("convergence", f"credits-{k}")
        who = cohort(qs[0].first, qs[-1].last, rng)
        out.append(E(f"{who} 융합전공 이수 학점은?", f"{josa(who, '은/는')} 융합전공 {k}학점 이상을 이수해야 합니다.",
                     "convergence_major", major_type="convergence", admission_year=(qs[0].first, qs[-1].last)))
    picks = (("CS", "2019"), ("CS", "2023"), ("DS", "2017-2018"), ("DS", "2024-2025"), ("AI", "2020"), ("AI", "2026"))
    for code, slug in picks:
        dept = DEPT[code]
        q = next(x for x in periods_for(dept) if x.slug == slug)
        rng = _rng("convergence", f"{code}-{slug}")
        req = requirement(dept, q, "convergence")
        who = cohort(q.first, q.last, rng)
        out.append(E(f"{dept.name} {josa(who, '이/가')} 융합전공을 병행하면 본전공 학점은?",
                     f"{dept.name} {josa(who, '은/는')} 융합전공을 병행하면 제1전공을 {req.major}학점(전공필수 {req.required}학점) 이상 이수하면 됩니다.",
                     "convergence_major", department=code, major_type="convergence", admission_year=(q.first, q.last)))
    out += [
        sh["double-and-convergence"],
        E("소속 학과 과목도 융합전공 학점으로 인정되나요?", "아니요. 소속 학과의 교과목은 융합전공 학점으로 인정하지 않습니다.", "convergence_major", major_type="convergence"),
        E("융합전공을 포기할 수 있나요?", "4학년 1학기까지 포기할 수 있으며, 포기 후에는 심화전공 요건을 충족해야 합니다.", "convergence_major", major_type="convergence"),
        E("휴학 중에 융합전공을 신청할 수 있나요?", "휴학생은 신청할 수 없습니다. 복학 학기의 신청 기간을 이용하세요.", "convergence_major",
          major_type="convergence", student_status="on_leave"),
    ]
    return out


def scholarship(sh: dict[str, Entry]) -> list[Entry]:
    merit = table("성적우수장학 기준", ["직전 학기 평점", "지급액"],
                  [[f"{g} 이상", f"등록금의 {pct}%"] for g, pct in policies.MERIT_SCHOLARSHIP])
    topik = table("TOPIK 등급별 감면", ["등급", "감면"], [[f"{lvl}급", f"{pct}%"] for lvl, pct in policies.TOPIK_SCHOLARSHIP])
    lo_pct, hi_pct = policies.TRANSFER_SCHOLARSHIP_PCT
    out = [
        E("복학생이 받을 수 있는 장학금이 있나요?", f"1년 이상 휴학한 뒤 복학하면 복학 첫 학기 등록금의 {policies.RETURNING_SCHOLARSHIP_PCT}%를 복학생 정착장학금으로 받을 수 있습니다.",
          "scholarship", student_status="returning"),
        E("복학생 정착장학금은 언제 신청하나요?", "복학 신청을 마친 뒤 1월 말(1학기)과 7월 말(2학기)에 공지되는 기간에 신청합니다.", "scholarship",
          student_status="returning"),
        E("한 학기만 휴학하고 복학했는데 정착장학금을 받을 수 있나요?", "아니요. 정착장학금은 1년(2개 학기) 이상 휴학한 복학생만 대상입니다.",
          "scholarship", student_status="returning"),
        E("복학생 장학금에 성적 기준이 있나요?", f"휴학 직전 학기 평점이 {policies.RETURNING_MIN_GPA} 이상이어야 합니다.", "scholarship", student_status="returning"),
        sh["leave-scholarship"],
        E("장학금을 받은 학기에 휴학하면 어떻게 되나요?", "군휴학은 장학금이 복학 학기로 이월되고, 일반휴학은 지급액을 반환해야 합니다.", "scholarship",
          student_status="on_leave"),
        E("휴학생도 국가장학금을 신청할 수 있나요?", "신청은 가능하지만 복학해 등록해야 지급됩니다.", "scholarship", student_status="on_leave"),
        E("편입생 장학금이 있나요?", f"편입 첫 학기에 등록금의 {lo_pct}%를 편입생 적응장학금으로 지급합니다.", "scholarship", student_status="transfer"),
        E("전적 대학 성적이 좋으면 편입생 장학금이 늘어나나요?", f"네. 전적 대학 평점이 3.5 이상이면 {hi_pct}%를 받습니다.", "scholarship",
          student_status="transfer"),
        E("외국인 유학생 장학금 기준은?", join([p("TOPIK 등급에 따라 등록금을 감면합니다."), topik]), "scholarship", student_status="international"),
        E("외국인 유학생 장학금을 계속 받으려면?", f"직전 학기 평점 {policies.INTERNATIONAL_MIN_GPA} 이상을 유지해야 합니다.", "scholarship",
          student_status="international"),
        E("외국인 신입생도 TOPIK 장학을 받을 수 있나요?", "입학 당시 제출한 TOPIK 성적으로 첫 학기 감면을 받습니다.", "scholarship",
          student_status="international", grade=(1, 1)),
        E("성적우수장학금 기준은 어떻게 되나요?", join([p("직전 학기 12학점 이상을 이수한 재학생을 대상으로 합니다."), merit]), "scholarship",
          student_status="enrolled"),
        E("1학년 1학기에도 성적장학금을 받을 수 있나요?", "1학년 1학기는 직전 학기 성적이 없으므로 성적우수장학 대상이 아닙니다. 입학성적 장학금은 입학처 기준을 따릅니다.",
          "scholarship", grade=(1, 1)),
        E("12학점 미만을 들었는데 성적장학금을 받을 수 있나요?", "아니요. 직전 학기 12학점 이상 이수가 조건입니다. 4학년 마지막 학기는 9학점 이상이면 됩니다.",
          "scholarship", student_status="enrolled"),
        E("이중전공 과목 성적도 성적장학 평점에 포함되나요?", "네. 직전 학기에 이수한 모든 과목의 평점으로 계산합니다.", "scholarship",
          student_status="enrolled", major_type="double"),
        E("국가장학금은 어디서 신청하나요?", "한국장학재단 누리집에서 신청합니다. 신청 기간은 공지사항을 확인하세요.", "scholarship"),
        E("국가장학금 신청 기간을 놓쳤어요.", "2차 신청 기간에 신청할 수 있지만 재학생은 1차 신청이 원칙입니다.", "scholarship"),
        E("근로장학생은 어떻게 지원하나요?", "매 학기 초 장학복지팀 공지에 따라 신청합니다. 근무 시간은 주 10시간 이내입니다.", "scholarship"),
        E("근로장학과 다른 장학금을 함께 받을 수 있나요?", "네. 근로장학은 근로 대가이므로 다른 장학금과 중복해 받을 수 있습니다.", "scholarship"),
        E("교외 장학재단 추천은 누가 받을 수 있나요?", "2학년 이상 재학생 중 재단이 정한 기준을 충족한 학생을 학과에서 추천합니다.", "scholarship",
          grade=(2, 4), student_status="enrolled"),
        E("교내 장학금을 두 개 이상 받을 수 있나요?", "교내 장학금은 중복 수혜 시 금액이 큰 장학금 하나만 지급합니다.", "scholarship"),
        E("졸업유예 학기에도 장학금을 받을 수 있나요?", "졸업유예 학기에는 교내 장학금을 받을 수 없습니다.", "scholarship", grade=(4, 4)),
    ]
    for dept in DEPARTMENTS:
        out.append(E(f"{dept.name} 자체 장학금에는 무엇이 있나요?",
                     join([p("학과 성적우수장학, 복학생 학업지원장학, 외국인 유학생 학과장학, 학과 발전기금 장학이 있습니다."),
                           p(a(f"/departments/{dept.slug}/scholarships.html", f"{dept.name} 장학금 안내"))]),
                     "scholarship", department=dept.code))
    return out


def field_practice(sh: dict[str, Entry]) -> list[Entry]:
    cut = policies.FIELD_PRACTICE_MAJOR_FROM
    out = [
        E("현장실습은 몇 학년부터 참여할 수 있나요?", "3학년 이상 재학생이 참여할 수 있습니다. 학기제 현장실습은 4학년만 가능합니다.", "field_practice", grade=(3, 4)),
        E("2학년인데 현장실습에 참여할 수 있나요?", "아니요. 2학년은 참여할 수 없으며, 대신 방학 중 기업 탐방 프로그램을 이용할 수 있습니다.", "field_practice", grade=(2, 2)),
        E("학기제 현장실습은 무엇인가요?", "4학년이 한 학기(15주) 동안 기업에 상주하며 실습하고 12학점을 인정받는 제도입니다.", "field_practice", grade=(4, 4)),
        E("현장실습 기간별 인정 학점은?", table("현장실습 인정 학점", ["기간", "학점"], [["4주", "3학점"], ["8주", "6학점"], ["15주(학기제)", "12학점"]]),
          "field_practice", grade=(3, 4)),
        E(f"{cohort(FIRST_COHORT, cut - 1, _rng('field-practice', 'old'))} 현장실습 학점은 어떻게 인정되나요?",
          "현장실습 학점은 일반선택으로 인정되며 전공 학점에는 포함되지 않습니다.", "field_practice",
          admission_year=(FIRST_COHORT, cut - 1), grade=(3, 4)),
        E(f"{josa(cohort(cut, LAST_COHORT, _rng('field-practice', 'new')), '은/는')} 현장실습 학점을 전공으로 인정받을 수 있나요?",
          "네. 학과가 정한 한도까지 전공선택으로 인정됩니다(컴퓨터학과·인공지능학과 6학점, 데이터과학과 9학점).", "field_practice",
          admission_year=(cut, LAST_COHORT), grade=(3, 4)),
        sh["leave-practice"],
        E("외국인 유학생도 현장실습에 참여할 수 있나요?", "참여할 수 있지만 출입국관리사무소의 체류자격 외 활동허가를 먼저 받아야 합니다.", "field_practice",
          student_status="international", grade=(3, 4)),
        E("현장실습 지원금은 얼마인가요?", f"실습 기관이 {policies.FIELD_PRACTICE_ALLOWANCE}의 지원금을 지급합니다.", "field_practice"),
        E("현장실습은 어떻게 신청하나요?", "현장실습지원센터 공지에 따라 4월(하계)과 10월(동계)에 신청합니다.", "field_practice", grade=(3, 4)),
        E("실습 기관을 직접 찾아도 되나요?", "네. 학생이 발굴한 기관도 센터 심사를 거쳐 인정받을 수 있습니다.", "field_practice"),
        E("현장실습 중 다치면 보험 처리가 되나요?", "모든 참여 학생은 현장실습 보험에 일괄 가입되어 있습니다.", "field_practice"),
        E("현장실습을 중도에 그만두면 어떻게 되나요?", "실습 기간의 4분의 3 이상을 채우지 못하면 학점이 인정되지 않습니다.", "field_practice"),
        E("인공지능학과는 현장실습이 필수인가요?", "2024학번부터는 현장실습 또는 학부연구참여 3학점 이상이 졸업요건입니다. 2023학번까지는 선택입니다.",
          "field_practice", department="AI"),
    ]
    for dept in DEPARTMENTS:
        cap = policies.FIELD_PRACTICE_MAJOR_CREDIT_CAP[dept.code]
        lo = max(cut, dept.first_cohort)
        out.append(E(f"{dept.name}에서 현장실습은 전공 몇 학점까지 인정되나요?",
                     f"{josa(cohort(lo, LAST_COHORT, _rng('field-practice', dept.slug)), '은/는')} 최대 {cap}학점까지 전공선택으로 인정됩니다.",
                     "field_practice", department=dept.code, admission_year=(lo, LAST_COHORT), grade=(3, 4)))
    return out


def records(sh: dict[str, Entry]) -> list[Entry]:
    out = [
        E("휴학 신청은 언제 하나요?", f"1학기는 {policies.LEAVE_WINDOWS[1]}, 2학기는 {policies.LEAVE_WINDOWS[2]}에 포털에서 신청합니다.", "leave_return",
          student_status="enrolled"),
        E("휴학에는 어떤 종류가 있나요?", ul(["일반휴학", "군휴학", "질병휴학", "임신·출산·육아휴학", f"창업휴학(최대 {policies.STARTUP_LEAVE_SEMESTERS}개 학기)"]),
          "leave_return"),
    ]
    for lo, hi, n in policies.LEAVE_LIMIT:
        rng = _rng("records", f"limit-{lo}")
        who = cohort(lo, hi, rng)
        out.append(E(f"{who} 일반휴학은 최대 몇 학기까지 가능한가요?", f"{josa(who, '은/는')} 통산 {n}개 학기까지 일반휴학을 할 수 있습니다. 군휴학은 포함되지 않습니다.",
                     "leave_return", admission_year=(lo, hi)))
    out += [
        E("신입생도 첫 학기에 휴학할 수 있나요?", "신입생은 첫 학기에 일반휴학을 할 수 없습니다. 군입대, 질병, 임신·출산은 예외입니다.", "leave_return", grade=(1, 1)),
        E("편입생이 첫 학기에 휴학할 수 있나요?", "편입생도 편입 첫 학기에는 일반휴학을 할 수 없습니다.", "leave_return", student_status="transfer"),
        E("휴학을 연장하려면 어떻게 하나요?", "휴학 중인 학생은 복학 신청 기간에 포털에서 휴학 연장을 신청합니다.", "leave_return", student_status="on_leave"),
        E("창업휴학은 어떻게 신청하나요?", "사업자등록증이나 창업 지원 프로그램 선정 확인서를 첨부해 신청합니다.", "leave_return", student_status="enrolled"),
        E("군휴학은 언제 신청하나요?", "입영일이 정해지면 입영통지서를 첨부해 수시로 신청할 수 있습니다.", "leave_return", student_status="enrolled"),
        E("학기 중에 질병으로 휴학할 수 있나요?", "진단서를 첨부하면 학기 중에도 질병휴학을 신청할 수 있습니다.", "leave_return"),
        E("복학 신청 기간은 언제인가요?", f"1학기는 {policies.RETURN_WINDOWS[1]}, 2학기는 {policies.RETURN_WINDOWS[2]}입니다.", "leave_return",
          student_status=("on_leave", "returning")),
        E("군 전역 후 바로 복학할 수 있나요?", "전역일이 학기 개시일부터 4분의 1이 지나기 전이면 해당 학기에 복학할 수 있습니다.", "leave_return",
          student_status="on_leave"),
        sh["returning-curriculum"],
        E("복학했는데 들어야 할 과목이 폐지되었어요.", "학과 대체 교과목 인정 기준에 따라 대체 과목을 수강하면 됩니다.", "course_substitution",
          student_status="returning"),
        E("휴학 기간이 남았는데 일찍 복학할 수 있나요?", "네. 복학 신청 기간에 조기 복학을 신청하면 됩니다.", "leave_return", student_status="on_leave"),
        E("휴학 기간이 끝났는데 복학 신청을 하지 않으면?", "미복학으로 제적될 수 있습니다. 반드시 기간 내에 복학하거나 휴학을 연장하세요.", "leave_return",
          student_status="on_leave"),
        E("외국인 유학생이 휴학하면 어떻게 되나요?", f"휴학 승인 후 {policies.INTERNATIONAL_EXIT_DAYS}일 이내에 출국해야 합니다. 국제교류팀과 먼저 상담하세요.",
          "leave_return", student_status="international"),
        E("외국인 유학생 복학 시 비자는?", "복학 전에 D-2 비자를 다시 받아야 하며, 입학허가서 재발급은 국제교류팀에 요청합니다.", "leave_return",
          student_status="international"),
        E("학기 중에 휴학하면 등록금을 돌려받나요?", "휴학 신청 시점에 따라 차등 반환합니다. 개강 후 30일 이내는 5/6, 60일 이내는 2/3를 반환합니다.",
          "leave_return", student_status="enrolled"),
        E("휴학 중에 계절학기를 들을 수 있나요?", "휴학 중에는 정규 학기와 계절학기 모두 수강할 수 없습니다.", "course_registration", student_status="on_leave"),
        sh["leave-practice"],
        sh["leave-scholarship"],
        E("제적된 뒤 다시 학교에 다닐 수 있나요?", "재입학을 신청할 수 있으며, 학과 면담 후 재입학 여부가 결정됩니다.", "leave_return"),
        E("전과는 언제 할 수 있나요?", "1학년 2학기부터 2학년 재학생까지 매년 9월에 신청할 수 있습니다.", "general", grade=(1, 2),
          student_status="enrolled"),
        E("자퇴하려면 어떻게 하나요?", "학과 면담 후 자퇴원을 제출합니다. 자퇴 후에는 재입학 절차를 거쳐야 돌아올 수 있습니다.", "leave_return"),
        E("마지막 학기에 휴학해도 되나요?", "가능하지만 복학 후 마지막 학기를 등록해야 졸업할 수 있습니다.", "leave_return", grade=(4, 4)),
        sh["returning-registration"],
    ]
    return out


def registration(sh: dict[str, Entry]) -> list[Entry]:
    out = []
    for lo, hi, normal, honours in policies.MAX_CREDITS:
        rng = _rng("registration", f"max-{lo}")
        who = cohort(lo, hi, rng)
        out.append(E(pick(rng, f"{josa(who, '은/는')} 한 학기에 최대 몇 학점까지 신청할 수 있나요?", f"{who} 최대 수강 학점은?"),
                     f"{josa(who, '은/는')} 학기당 {normal}학점까지, 직전 학기 평점 {policies.HONOURS_GPA} 이상이면 {honours}학점까지 신청할 수 있습니다.",
                     "course_registration", admission_year=(lo, hi)))
    for lo, hi, cap in policies.RETAKE_CAP:
        rng = _rng("registration", f"retake-{lo}")
        who = cohort(lo, hi, rng)
        out.append(E(f"{who} 재수강하면 최대 몇 점까지 받을 수 있나요?", f"{josa(who, '은/는')} 재수강 성적이 최대 {cap}까지 인정됩니다.",
                     "course_registration", admission_year=(lo, hi)))
    out += [
        E("1학년 1학기에는 몇 학점을 신청할 수 있나요?", f"신입생은 첫 학기에 {policies.FRESHMAN_MAX_CREDITS}학점까지 신청할 수 있으며, 공통교양은 미리 배정됩니다.",
          "course_registration", grade=(1, 1)),
        E("평점이 좋으면 더 많은 학점을 들을 수 있나요?",
          table("추가 신청 학점", ["입학년도", "기본", f"평점 {policies.HONOURS_GPA} 이상"],
                [[cohort_scope(lo, hi, _rng("registration", f"t-{lo}")), f"{n}학점", f"{h}학점"] for lo, hi, n, h in policies.MAX_CREDITS]),
          "course_registration"),
        sh["returning-registration"],
        E("복학생은 장바구니를 쓸 수 있나요?", "복학 승인이 수강신청 장바구니 기간 전에 끝나면 사용할 수 있습니다.", "course_registration", student_status="returning"),
        E("편입생은 언제 수강신청을 하나요?", "학점 인정 결과가 확정된 뒤 편입생 전용 기간에 신청합니다.", "course_registration", student_status="transfer"),
        E("외국인 유학생이 들어야 할 한국어 과목이 있나요?", "TOPIK 4급 미만인 외국인 유학생은 '대학 한국어'를 교양으로 수강해야 합니다.", "course_registration",
          student_status="international"),
        E("계절학기는 몇 학점까지 들을 수 있나요?", "계절학기마다 최대 6학점까지 신청할 수 있습니다.", "course_registration"),
        E("계절학기 성적도 평점에 들어가나요?", "네. 계절학기 성적은 다음 정규 학기 성적과 함께 누적 평점에 반영됩니다.", "course_registration"),
        E("수강정정 기간은 언제인가요?", "개강 후 첫 주에 수강정정을 할 수 있습니다.", "course_registration"),
        E("수강철회를 하면 성적표에 남나요?", "철회한 과목은 성적표에 W로 표시되지만 평점에는 반영되지 않습니다.", "course_registration"),
        E("다른 학과 과목을 신청할 수 있나요?", "네. 정원의 일부가 타 학과 학생에게 배정되며, 학점은 일반선택으로 인정됩니다.", "course_registration"),
        E("학부생이 대학원 과목을 들을 수 있나요?", "4학년 중 평점 3.5 이상인 학생은 학기당 6학점까지 대학원 과목을 선수강할 수 있습니다.", "course_registration",
          grade=(4, 4)),
        E("장바구니에 담으면 수강신청이 되나요?", "아니요. 장바구니는 미리 담아 두는 기능이며 수강신청 기간에 다시 신청해야 합니다.", "course_registration"),
        E("폐강되면 어떻게 하나요?", "수강정정 기간에 다른 과목을 신청할 수 있으며, 폐강 과목은 자동으로 삭제됩니다.", "course_registration"),
        E("이중전공자는 제2전공 과목 수강에 우선권이 있나요?", "네. 제2전공 학과의 전공 과목은 이중전공자에게 정원의 일부가 우선 배정됩니다.", "course_registration",
          major_type="double"),
        E("휴학 중에 다음 학기 수강신청을 할 수 있나요?", "복학 신청이 승인되어야 수강신청을 할 수 있습니다.", "course_registration", student_status="on_leave"),
        E("학년별 수강신청 날짜가 다른가요?", table("학년별 수강신청", ["학년", "신청일"], [["4학년", "첫째 날"], ["3학년", "둘째 날"], ["1·2학년", "셋째 날"]]),
          "course_registration"),
        E("졸업 학기에는 학점 제한이 있나요?", "졸업 예정 학기에는 졸업요건에 필요한 학점만큼 추가로 3학점까지 더 신청할 수 있습니다.", "course_registration",
          grade=(4, 4)),
    ]
    return out


def general(sh: dict[str, Entry]) -> list[Entry]:
    offices = table("학과 사무실 위치", ["학과", "위치", "전화"], [[d.name, d.building, d.phone] for d in DEPARTMENTS])
    return [
        E("재학증명서는 어디서 발급받나요?", "포털의 증명서 발급 메뉴나 정보관 1층 무인발급기에서 발급할 수 있습니다.", "general"),
        E("학생증을 잃어버렸어요.", "모바일 학생증을 바로 쓸 수 있고, 실물 카드는 학생지원센터에서 재발급합니다.", "general"),
        E("도서관은 몇 시까지 여나요?", "평일 09:00~22:00, 시험 기간에는 열람실을 24시간 개방합니다.", "general"),
        E("학과 사무실은 어디에 있나요?", offices, "general"),
        E("성적에 이의가 있으면 어떻게 하나요?", "성적 공개 후 3일 이내에 담당 교수에게 이의신청을 합니다.", "general"),
        E("진로 상담은 어디서 받을 수 있나요?", "지도교수 면담 또는 경력개발센터 상담을 예약할 수 있습니다.", "general"),
        E("기숙사 신청은 언제 하나요?", "1학기는 1월, 2학기는 7월에 생활관 누리집에서 신청합니다.", "general"),
        E("학생도 주차할 수 있나요?", "학생은 정기 주차권이 발급되지 않으며, 방문 주차 요금이 적용됩니다.", "general"),
        E("교내 와이파이는 어떻게 쓰나요?", "'HANBIT-WiFi'에 포털 아이디로 로그인합니다.", "general"),
        E("분실물은 어디에 맡기나요?", "정보관 1층 행정실에서 보관합니다.", "general"),
        E("교환학생은 몇 학년에 갈 수 있나요?", "2~3학년 재학생이 파견 신청을 할 수 있으며, 평점 3.0 이상이어야 합니다.", "general", grade=(2, 3)),
        E("외국인 유학생 비자 연장은 어디서 하나요?", "국제교류팀에서 서류를 받아 출입국·외국인청에 신청합니다.", "international",
          student_status="international"),
        E("실습실은 언제 이용할 수 있나요?", "정보관 실습실은 평일 09:00~21:00에 이용할 수 있습니다.", "general"),
        E("노트북을 빌릴 수 있나요?", "학생지원센터에서 학기 단위로 노트북을 대여합니다.", "general"),
        E("학생회는 어떻게 연락하나요?", "단과대학 학생회 사무실은 정보관 B동 1층에 있습니다.", "general"),
    ]


def department(dept: Department) -> list[Entry]:
    """The same questions on every department page, each answered for that department."""
    key = dept.slug
    rng = _rng(key, "dept")
    base = {"department": dept.code}
    others = tuple(d.code for d in DEPARTMENTS if d != dept)
    latest = periods_for(dept)[-1]
    thesis_rows = []
    for rule, group in groupby(periods_for(dept), key=lambda q: thesis_rule(dept, q)):
        group = list(group)
        thesis_rows.append([cohort_scope(group[0].first, group[-1].last, rng), rule])
    first_year = [c.name for kind in curriculum(dept, latest).values() for c in kind if c.year == 1]
    interview = {"CS": "서류 평가와 면접이 있습니다.", "DS": "서류 평가만 하며 면접은 없습니다.",
                 "AI": "서류 평가, 면접과 간단한 코딩 테스트가 있습니다."}[dept.code]
    certification = {
        "CS": ("2021학번부터 SW코딩인증(2026학번부터 Level 3, 그 전은 Level 2)을 취득해야 합니다.", (2021, LAST_COHORT)),
        "DS": ("2023학번부터 4학년 2학기에 데이터분석 포트폴리오를 제출해야 합니다.", (2023, LAST_COHORT)),
        "AI": ("2024학번부터 현장실습 또는 학부연구참여 3학점 이상이 필요합니다.", (2024, LAST_COHORT)),
    }[dept.code]
    research = {"CS": (3, 4), "DS": (2, 4), "AI": (2, 4)}[dept.code]
    sub_hi = latest.first - 1
    english_courses = {"CS": 6, "DS": 4, "AI": 5}[dept.code]
    return [
        E("졸업프로젝트(캡스톤)는 언제 수강하나요?", join([p(f"{dept.name}는 입학년도에 따라 요건이 다릅니다."),
                                               table("학번별 요건", ["학번", "요건"], thesis_rows)]), "capstone", **base),
        E("전공필수를 못 들으면 졸업할 수 없나요?", f"{dept.name} 전공필수는 모두 이수해야 합니다. 폐지된 과목은 대체 교과목으로 이수하세요.",
          "required_courses", **base),
        E("학과 사무실 위치와 운영 시간은?", f"{dept.building}, 평일 09:00~17:30입니다. 전화 {dept.phone}.", "general", **base),
        E("학부연구생은 어떻게 지원하나요?", f"{grades(*research, rng)}은 희망 연구실 교수에게 이메일로 지원합니다.", "research",
          grade=research, **base),
        E("1학년 때 꼭 들어야 할 과목은?", f"{cohort(latest.first, latest.last, rng)} 기준으로 {josa(', '.join(first_year), '을/를')} 1학년에 듣습니다.",
          "recommended_courses", admission_year=(latest.first, latest.last), grade=(1, 1), **base),
        E("현장실습 학점은 전공으로 인정되나요?", f"{dept.name}는 2021학번부터 최대 {policies.FIELD_PRACTICE_MAJOR_CREDIT_CAP[dept.code]}학점까지 전공선택으로 인정합니다.",
          "field_practice", grade=(3, 4), **base),
        E("이중전공 지원 시 면접이 있나요?", f"{dept.name} 이중전공 선발은 {interview}", "double_major", department=others,
          major_type="double", grade=(2, 4)),
        E("학과 장학금에는 어떤 것이 있나요?", p("학과 성적우수장학, 복학생 학업지원장학, 외국인 유학생 학과장학, 학과 발전기금 장학이 있습니다. ",
                                          a(f"/departments/{dept.slug}/scholarships.html", "자세히 보기")), "scholarship", **base),
        E("학과 졸업인증 제도가 있나요?", certification[0], "graduation_requirements", admission_year=certification[1], **base),
        E("교육과정이 바뀌었는데 예전 과목을 재수강하려면?",
          p(f"{josa(cohort(dept.first_cohort, sub_hi, rng), '은/는')} ",
            a(f"/departments/{dept.slug}/substitution.html", "대체 교과목 인정 기준"),
            "에 따라 대체 과목을 수강합니다."),
          "course_substitution", admission_year=(dept.first_cohort, sub_hi), **base),
        E("학석사 연계과정이 있나요?", "3학년 이상 평점 3.5 이상인 학생은 학석사 연계과정을 신청해 5년 안에 석사까지 마칠 수 있습니다.",
          "general", grade=(3, 4), **base),
        E("영어강의는 몇 과목 개설되나요?", f"매 학기 {english_courses}과목 내외의 전공 영어강의가 개설됩니다.", "general", **base),
        E("학과 학생회나 동아리가 있나요?", f"{dept.name} 학생회와 학술 동아리 {2 + len(dept.slug)}개가 활동하고 있습니다.", "general", **base),
        E("노트북이 꼭 필요한가요?", "실습 과목은 실습실 컴퓨터로 수강할 수 있지만 개인 노트북이 있으면 편리합니다.", "general", **base),
        E("전과로 이 학과에 들어올 수 있나요?", f"{dept.name} 전과는 1학년 2학기~2학년 재학생이 신청할 수 있으며 정원의 10% 이내로 선발합니다.",
          "general", department=others, grade=(1, 2)),
    ]


# (file, title, builder, id prefix or None for a page without ids)
PAGES = (
    ("graduation.html", "졸업", graduation, "grad"),
    ("credits.html", "졸업 학점", credits, "credit"),
    ("curriculum.html", "전공·교과과정", curriculum_faq, "curr"),
    ("double-major.html", "이중전공", double_major, "dm"),
    ("convergence.html", "융합전공", convergence, "conv"),
    ("scholarship.html", "장학", scholarship, "sch"),
    ("field-practice.html", "현장실습", field_practice, "fp"),
    ("records.html", "학적(휴학·복학)", records, "rec"),
    ("registration.html", "수강신청", registration, "reg"),
    ("general.html", "기타", general, None),
)

