"""The FAQ entries by category page. Answers quote catalog/policies numbers; many depend on who
asks. Entries with a ``share`` key appear verbatim on two pages (exact duplicates to consolidate)."""

from __future__ import annotations

from typing import Callable

from examples.site_kit.faq import Entry
from examples.site_kit.markup import Markup, join

from . import policies
from .catalog import CAMPUS_KO, DEPT, GE_CREDITS, PERIODS, TOTAL_CREDITS, periods_for, requirement
from .chrome import bullets, para, table
from .dept_misc import PROGRAMS, rule_values
from .model import applies
from .wording import cohort, cohort_cell, josa, pick, rng_for


def E(  # noqa: N802 - one letter, so that each entry below reads like a table row
        question: str, answer: str | Markup, topic: str, share: str | None = None, anchored: bool = True,
        **limits) -> Entry:
    return Entry(question, answer if isinstance(answer, Markup) else para(answer), applies(**limits), topic, share, anchored)


SHARED = {
    "min-gpa": E("졸업하려면 평점이 몇 점 이상이어야 하나요?", "입학 연도와 상관없이 졸업 평점평균 2.0 이상이어야 합니다.",
                 "graduation_requirements", "min-gpa"),
    "leave-scholarship": E("휴학 중에도 교내 장학금을 받을 수 있나요?",
                           "아니요. 휴학 중인 학생은 교내 장학금을 받을 수 없으며, 복학한 학기부터 다시 신청할 수 있습니다.",
                           "scholarship", "leave-scholarship", academic_status="on_leave"),
    "foreign-leave": E("외국인 학부생은 휴학을 몇 학기까지 연속으로 할 수 있나요?",
                       f"외국인 학부생은 체류 자격 때문에 연속 {policies.FOREIGN_LEAVE_SEMESTERS}학기까지만 휴학할 수 있습니다.",
                       "leave", "foreign-leave", academic_status="foreign"),
}


def haksa() -> list[Entry]:
    return [
        E("휴학은 최대 몇 학기까지 할 수 있나요?",
          f"일반휴학은 재학 중 통산 {policies.LEAVE_TOTAL_SEMESTERS}학기까지 할 수 있습니다. 군휴학과 창업휴학은 여기에 포함되지 않습니다.", "leave"),
        E("휴학은 한 번에 몇 학기까지 신청하나요?", f"한 번에 {policies.LEAVE_AT_ONCE}학기까지 신청할 수 있습니다.", "leave"),
        E("창업휴학도 할 수 있나요?", f"네. 사업자등록증을 내면 통산 {policies.STARTUP_LEAVE_SEMESTERS}학기까지 창업휴학을 할 수 있습니다.", "leave",
          academic_status="attending"),
        E("복학 신청은 언제까지 해야 하나요?",
          f"복학 예정자는 개강 {policies.RETURN_APPLY_DAYS}일 전까지 포털에서 복학을 신청하고 등록금을 내야 합니다.", "leave",
          academic_status=("on_leave", "returning")),
        SHARED["leave-scholarship"],
        SHARED["foreign-leave"],
        E("한 학기에 최대 몇 학점까지 들을 수 있나요?",
          f"기본은 {policies.MAX_CREDITS}학점이며, 직전 학기 평점이 {policies.HONORS_GPA} 이상이면 {policies.HONORS_CREDITS}학점까지 신청할 수 있습니다.",
          "registration"),
        E("신입생 첫 학기 수강신청은 어떻게 하나요?",
          f"1학년 1학기는 학과 기본 시간표로 자동 신청되며 최대 {policies.FRESHMAN_CREDITS}학점까지 수강합니다.", "registration",
          year_level=(1, 1)),
        E("계절학기는 몇 학점까지 들을 수 있나요?", "계절학기마다 최대 6학점까지 수강할 수 있습니다.", "registration"),
        E("재수강은 어떤 과목만 할 수 있나요?", f"C+ 이하 과목만 재수강할 수 있고, 재학 중 {policies.RETAKE_LIMIT}학점까지 허용합니다.", "grades"),
        E("학사경고 기준이 뭔가요?",
          f"학기 평점평균이 {policies.WARNING_GPA} 미만이면 학사경고를 받고, 연속 {policies.WARNING_DISMISSAL}회 받으면 제적됩니다.", "grades"),
        E("초과학기생은 등록금을 얼마나 내나요?",
          table("초과학기 등록금", ["신청 학점", "등록금"], [list(r) for r in policies.OVERTIME_FEES]), "tuition",
          academic_status="overtime"),
        E("초과학기 등록생은 몇 학점까지 수강할 수 있나요?",
          f"초과학기생은 학기당 {policies.OVERTIME_MAX_CREDITS}학점까지 수강할 수 있습니다.", "registration", academic_status="overtime"),
        E("졸업을 미룰 수 있나요?",
          f"졸업요건을 채운 4학년 학생은 최대 {policies.DEFER_SEMESTERS}학기까지 졸업을 유예할 수 있고, 수업료의 {policies.DEFER_FEE_PCT}%를 냅니다.",
          "graduation", year_level=(4, 4)),
        E("전과는 누가 신청할 수 있나요?", "1~2학년 재학생이 신청할 수 있으며, 학과별 입학정원의 10% 이내로 선발합니다.", "major_change",
          year_level=(1, 2)),
        SHARED["min-gpa"],
    ]


def _dept_credit_entries() -> list[Entry]:
    """Per department and its two newest periods (and campus): the questions students ask most."""
    out = []
    for code in ("BUS", "ACT", "ITR", "ECN"):
        dept = DEPT[code]
        for period in periods_for(dept)[-2:]:
            for campus in (dept.campuses if len(dept.campuses) > 1 else (None,)):
                rng = rng_for(f"faq:{code}:{period.key}:{campus}")
                req = requirement(dept, period, campus)
                who = cohort(period.first, period.last, rng)
                where = f"{CAMPUS_KO[campus]} " if campus else ""
                out.append(E(
                    pick(rng, f"{where}{dept.name} {josa(who, '은/는')} 전공을 몇 학점 들어야 하나요?",
                         f"{dept.name}{f'({CAMPUS_KO[campus][:2]})' if campus else ''} {cohort_cell(period.first, period.last, rng)} 전공 이수학점이 궁금합니다."),
                    f"{where}{dept.name} {josa(who, '은/는')} 전공 {req.major}학점 이상(전공필수 {req.required}학점 포함)을 "
                    f"이수해야 합니다. 졸업학점은 {req.total}학점입니다.",
                    "graduation_requirements", major=code, campus=campus, entry_year=(period.first, period.last)))
    return out


def jolup() -> list[Entry]:
    rows = [[cohort_cell(p.first, p.last, rng_for(f"faq:total:{p.key}")), f"{t}학점", f"{g}학점"]
            for p, t, g in zip(PERIODS, TOTAL_CREDITS, GE_CREDITS)]
    return [
        E("졸업학점은 입학년도마다 다른가요?", join([
            para("네. 입학년도별 졸업학점과 교양 최저 학점은 다음과 같습니다."),
            table("입학년도별 졸업학점", ["입학년도", "졸업학점", "교양"], rows)]), "graduation_requirements"),
        SHARED["min-gpa"],
        *_dept_credit_entries(),
        E("편입학생도 영어강의 요건이 있나요?", "아니요. 편입학생에게는 영어강의 요건을 적용하지 않습니다.", "transfer",
          academic_status="transfer"),
        E("외국인 학부생은 영어강의 대신 무엇을 듣나요?", "영어강의 요건 대신 학과가 지정한 한국어 교과목을 이수할 수 있습니다. "
          "과목 수는 입학년도에 따라 2~3과목입니다.", "international", academic_status="foreign"),
        E("졸업시험에 떨어지면 어떻게 되나요?", "다음 학기에 다시 응시할 수 있으며, 응시 횟수 제한은 없습니다.", "graduation_exam"),
    ]


def janghak() -> list[Entry]:
    out = []
    for code in ("seoul", "sejong"):
        first, second, third = policies.MERIT_PCT[code]
        out.append(E(f"{CAMPUS_KO[code]} 성적우수장학금은 평점 몇 점부터 받을 수 있나요?",
                     f"{CAMPUS_KO[code]} 재학생은 직전 학기 15학점 이상을 이수하고 평점 {policies.MERIT_GPA[code]} 이상이어야 합니다. "
                     f"수석은 등록금 {first}%, 차석은 {second}%, 우수는 {third}%를 받습니다.", "scholarship",
                     campus=code))
    return out + [
        E("세종캠퍼스 지역인재장학금은 누가 받나요?",
          f"세종·충청 지역 고등학교를 졸업한 세종캠퍼스 신입생이 첫 학기 등록금의 {policies.REGIONAL_TALENT_PCT}%를 받습니다.",
          "scholarship", campus="sejong", year_level=(1, 1)),
        E("복학생 정착장학금은 얼마인가요?", f"복학 첫 학기에 {policies.RETURNING_SCHOLARSHIP}만원을 지급합니다.", "scholarship",
          academic_status="returning"),
        E("외국인 학부생 장학금은 어떻게 받나요?",
          bullets([f"{k}: 등록금 {v}% 감면" for k, v in policies.FOREIGN_SCHOLARSHIP.items()]), "scholarship", academic_status="foreign"),
        E("국가장학금은 누가 신청할 수 있나요?", "재적생이면 누구나 한국장학재단에 신청할 수 있습니다.", "scholarship"),
        E("근로장학생은 한 달에 몇 시간 일하나요?", f"월 최대 {policies.WORK_STUDY_HOURS}시간까지 근무합니다.", "scholarship"),
        SHARED["leave-scholarship"],
    ]


def major() -> list[Entry]:
    out = [
        E("복수전공은 몇 학점을 이수해야 하나요?", f"복수전공은 {policies.DOUBLE_MAJOR_CREDITS}학점 이상, 부전공은 {policies.MINOR_CREDITS}학점 이상입니다.",
          "multi_major"),
        E("다전공 신청 자격이 있나요?", f"2학년 이상이고 평점 {policies.MULTI_MAJOR_MIN_GPA} 이상이면 신청할 수 있습니다.", "multi_major",
          year_level=(2, 4)),
        E("회계세무학과를 복수전공하려면 조건이 있나요?",
          f"회계세무학과 복수전공은 학기마다 {policies.ACT_DOUBLE_MAJOR_QUOTA}명 이내로 선발하며 회계원리 B0 이상이 필요합니다.",
          "multi_major", major=("BUS", "ITR", "ECN")),
        E("세종캠퍼스 경영학과는 현장실습이 필수인가요?",
          "네. 세종캠퍼스 경영학과는 현장실습이 졸업요건이며, 필요한 시간은 입학년도에 따라 다릅니다.", "internship",
          major="BUS", campus="sejong"),
        E("경제학과 세종캠퍼스도 졸업시험을 보나요?", "아니요. 세종캠퍼스 경제학과는 졸업시험 대신 졸업논문이나 사례연구 보고서를 냅니다.",
          "graduation_exam", major="ECN", campus="sejong"),
    ]
    for code, (program, rules) in PROGRAMS.items():
        dept = DEPT[code]
        period = periods_for(dept)[-1]
        rule = rules[0]
        value = rule_values(dept, rule)[-1]
        rng = rng_for(f"faq:cert:{code}")
        out.append(E(f"{dept.name} {cohort_cell(period.first, period.last, rng)} {program}의 {rule.label} 기준은?",
                     f"{cohort(period.first, period.last, rng)}의 {rule.label} 기준은 {value}{rule.unit} 이상입니다.",
                     "certification", major=code, entry_year=(period.first, period.last)))
    return out


def campus() -> list[Entry]:
    out = [E("세종캠퍼스 셔틀버스는 어떻게 운행하나요?", f"{policies.SHUTTLE['sejong']}으로 운행합니다.", "transport", anchored=False,
             campus="sejong")]
    for code in ("seoul", "sejong"):
        name, capacity, fee = policies.DORMS[code]
        out.append(E(f"{CAMPUS_KO[code]} 기숙사비는 얼마인가요?", f"{name}는 2인실 기준 학기당 {fee}만원이며 정원은 {capacity}명입니다.",
                     "dormitory", anchored=False, campus=code))
        out.append(E(f"{CAMPUS_KO[code]} 열람실은 몇 시까지 여나요?", f"운영 시간은 {policies.READING_ROOM_HOURS[code]}입니다.",
                     "facilities", anchored=False, campus=code))
    return out + [E("학생증을 잃어버렸어요.", "포털에서 재발급을 신청하고 수수료 5천원을 내면 3일 뒤 받을 수 있습니다.", "general",
                    anchored=False)]


def intl() -> list[Entry]:
    return [
        E("외국인 학부생은 TOPIK 몇 급이 필요한가요?", join([
            para("입학년도에 따라 다릅니다."),
            bullets(["2021학년도 이전 입학생: 졸업 전까지 TOPIK 3급 이상", "2022학년도 이후 입학생: 졸업 전까지 TOPIK 4급 이상"])]),
          "international", academic_status="foreign"),
        E("2022학번 이후 외국인 학부생은 한국어 강좌를 몇 과목 들어야 하나요?",
          "2022학번 이후 외국인 학부생은 한국어 교과목 3과목을 이수해야 합니다.", "international", anchored=False,
          academic_status="foreign", entry_year=(2022, 2026)),
        SHARED["foreign-leave"],
        E("체류지를 옮기면 신고해야 하나요?", "네. 외국인 학부생은 이사한 날부터 14일 안에 전입 신고를 해야 합니다.", "visa",
          anchored=False, academic_status="foreign"),
        E("Can I take classes in English only?", "No. International undergraduates must also take Korean language courses; "
          "English-taught courses count toward the major.", "international", academic_status="foreign"),
    ]


def department(code: str) -> Callable[[], list[Entry]]:
    """A department's own FAQ: the same questions on every department page, other answers."""

    def entries() -> list[Entry]:
        from .catalog import revision_index
        from .dept_exam import EXAM_SUBJECTS, THESIS_MEETINGS

        dept = DEPT[code]
        newest, older = periods_for(dept)[-1], periods_for(dept)[-2]
        rng = rng_for(f"faq:dept:{code}")
        out = [E(f"{dept.name} 사무실은 어디에 있나요?", f"{dept.office}에 있으며 전화번호는 {dept.phone}입니다.", "contact", major=code)]
        for period in (newest, older):
            req = requirement(dept, period, dept.campuses[0] if code == "BUS" else None)
            out.append(E(f"{cohort_cell(period.first, period.last, rng)} 전공필수 과목은 무엇인가요?",
                         f"{josa(cohort(period.first, period.last, rng), '은/는')} 전공필수 {len(req.required_courses)}과목 "
                         f"{req.required}학점을 들어야 합니다: " + ", ".join(req.required_courses) + ".",
                         "required_courses", major=code, entry_year=(period.first, period.last)))
        subjects = EXAM_SUBJECTS[code][revision_index(newest)]
        where, limit = (f"{CAMPUS_KO['seoul']} ", {"campus": "seoul"}) if len(dept.campuses) > 1 else ("", {})
        out.append(E(f"{where}{dept.exam}은 몇 과목인가요?",
                     f"{cohort(newest.first, newest.last, rng)}의 {dept.exam}은 {subjects}과목입니다. 입학년도마다 다르니 졸업시험 메뉴를 확인하세요.",
                     "graduation_exam", major=code, entry_year=(newest.first, newest.last), **limit))
        if len(dept.campuses) > 1:
            meetings = THESIS_MEETINGS[revision_index(newest)]
            out.append(E(f"세종캠퍼스 {josa(dept.name, '은/는')} 졸업논문 지도 면담을 몇 번 해야 하나요?",
                         f"{cohort(newest.first, newest.last, rng)} 기준으로 지도교수 면담 {meetings}회 이상이 필요합니다.",
                         "graduation_exam", major=code, campus="sejong", entry_year=(newest.first, newest.last)))
        program, _ = PROGRAMS[code]
        out += [
            E(f"{program}은 언제 신청하나요?", "4학년 1학기에 학과 사무실에서 신청합니다.", "certification", major=code),
            E(f"다른 학과에서 {josa(dept.name, '으로/로')} 전과할 수 있나요?",
              f"1~2학년 학생이 신청할 수 있으며 {dept.name} 입학정원의 10% 이내로 선발합니다.", "major_change",
              major=tuple(d for d in ("BUS", "ACT", "ITR", "ECN") if d != code), year_level=(1, 2)),
            E(f"{dept.name} 행사 소식은 어디서 보나요?", f"학과소식 게시판과 {dept.name} 인스타그램에 올립니다.", "general",
              major=code),
        ]
        if code == "BUS":
            out.append(SHARED["min-gpa"])
        return out

    return entries


# (cat, title, entries, id prefix): the ?cat= pages in menu order
PAGES: tuple[tuple[str, str, Callable[[], list[Entry]], str], ...] = (
    ("haksa", "학사", haksa, "haksa"), ("jolup", "졸업", jolup, "grad"), ("janghak", "장학", janghak, "sch"),
    ("major", "전공·다전공", major, "major"), ("campus", "캠퍼스 생활", campus, ""), ("intl", "외국인 학부생", intl, "intl"),
    ("business", "경영학과", department("BUS"), "bus"), ("accounting", "회계세무학과", department("ACT"), "act"),
    ("trade", "국제통상학과", department("ITR"), "itr"), ("economics", "경제학과", department("ECN"), "ecn"),
)
