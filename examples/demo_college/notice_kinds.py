"""The recurring board notices of one academic year, each with whom it is addressed to.

Each kind is posted every year on the same month/day (some twice a year, one per semester), so
the board holds near-duplicates that differ only in semester, cohort or audience. A kind returns a
``Draft`` for a concrete posting date; the wording is seeded by the posting, not by the build.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass, field
from typing import Any, Callable

from examples.site_kit.korean import month_day

from . import policies
from .catalog import DEPT, LAST_COHORT, period_of
from .model import applies
from .phrasing import cohort, dept_name, grades, josa, pick, status


def span(d: datetime.date, start: int, length: int) -> str:
    a, b = d + datetime.timedelta(days=start), d + datetime.timedelta(days=start + length)
    return f"{month_day(a)} ~ {month_day(b)}"


def semester(d: datetime.date) -> tuple[int, int]:
    """The semester a notice posted on ``d`` is about: the current one, or the next in Jan/Feb, Jul/Aug."""
    if d.month <= 6:
        return d.year, 1
    return d.year, 2


def sem_label(d: datetime.date) -> str:
    year, term = semester(d)
    return f"{year}학년도 {term}학기"


@dataclass
class Draft:
    title: str
    category: str  # 학사 | 장학 | 현장실습 | 학과 | 국제 | 일반
    author: str
    topic: str
    applies_to: dict[str, Any]
    intro: str
    facts: list[tuple[str, str]] = field(default_factory=list)  # 항목 -> 내용
    notes: list[str] = field(default_factory=list)
    link: tuple[str, str] | None = None


Kind = Callable[[datetime.date, random.Random], Draft]


def leave_application(d, rng):
    label = sem_label(d)
    return Draft(
        pick(rng, f"{label} 휴학 신청 안내", f"[학사] {label} 일반휴학·휴학연장 신청 기간 안내"),
        "학사", "학사지원팀", "leave_return", applies(student_status=("enrolled", "on_leave")),
        pick(rng, f"{label} 휴학 신청을 아래와 같이 받습니다. {status('on_leave', rng, '은/는')} 같은 기간에 휴학 연장을 신청하세요.",
             f"{label}에 휴학하려는 {status('enrolled', rng)}과 휴학을 연장하려는 학생은 기간 내에 신청하시기 바랍니다."),
        [("신청 기간", policies.LEAVE_WINDOWS[semester(d)[1]]), ("신청 방법", "포털 > 학적 > 휴학 신청"),
         ("문의", "학사지원팀 02-3290-3010")],
        ["신입생과 편입생은 첫 학기에 일반휴학을 할 수 없습니다.", "군휴학은 입영통지서를 첨부해 수시로 신청합니다."],
        ("/academics/leave-return.html", "휴학·복학 안내"),
    )


def return_application(d, rng):
    label = sem_label(d)
    return Draft(
        pick(rng, f"{label} 복학 신청 안내", f"{label} 복학 예정자 복학 신청 기간 공지"),
        "학사", "학사지원팀", "leave_return", applies(student_status=("on_leave", "returning")),
        pick(rng, f"{label}에 복학하려는 {status('on_leave', rng, '은/는')} 아래 기간에 복학을 신청하세요.",
             f"{josa(status('returning', rng), '은/는')} 복학 신청이 승인되어야 수강신청을 할 수 있습니다."),
        [("신청 기간", policies.RETURN_WINDOWS[semester(d)[1]]), ("대상", "휴학 기간이 끝나는 학생 및 조기 복학 희망자"),
         ("신청 방법", "포털 > 학적 > 복학 신청")],
        ["군 전역 예정자는 전역 예정 증명서를 제출하세요.", "복학 후에도 입학년도의 교육과정이 그대로 적용됩니다."],
        ("/academics/leave-return.html", "휴학·복학 안내"),
    )


def registration(d, rng):
    label = sem_label(d)
    return Draft(
        pick(rng, f"{label} 수강신청 안내", f"[학사] {label} 수강신청 일정 및 유의사항"),
        "학사", "학사지원팀", "course_registration", applies(),
        pick(rng, f"{label} 수강신청 일정을 안내합니다.", f"{label} 수강신청을 다음과 같이 실시하니 일정을 꼭 확인하세요."),
        [("장바구니", span(d, 7, 2)), ("4학년", month_day(d + datetime.timedelta(days=14))),
         ("3학년", month_day(d + datetime.timedelta(days=15))), ("1·2학년", month_day(d + datetime.timedelta(days=16)))],
        ["2020학번 이전 입학자는 학기당 21학점, 2021학번부터는 19학점까지 신청할 수 있습니다.",
         "복학생은 복학 승인 후 신청할 수 있습니다."],
        ("/academics/course-registration.html", "수강신청 안내"),
    )


def returning_registration(d, rng):
    label = sem_label(d)
    return Draft(
        pick(rng, f"{label} 복학생 수강신청 유의사항", f"복학생 수강신청 안내({label})"),
        "학사", "학사지원팀", "course_registration", applies(student_status="returning"),
        f"{label}에 복학하는 학생은 아래 사항을 확인하고 수강신청을 하시기 바랍니다.",
        [("복학 승인 확인", span(d, 1, 5)), ("수강신청", "정규 수강신청 기간과 동일")],
        ["폐지된 전공필수 과목은 학과 대체 교과목 인정 기준에 따라 수강하세요.",
         "입학년도 교육과정의 졸업요건이 적용되므로 복학 전 이수 현황을 점검하세요."],
    )


def registration_change(d, rng):
    label = sem_label(d)
    return Draft(f"{label} 수강정정 및 수강철회 안내", "학사", "학사지원팀", "course_registration", applies(),
                 pick(rng, "수강정정 기간과 철회 기간을 안내합니다.", "수강신청 과목의 변경은 아래 기간에만 가능합니다."),
                 [("수강정정", span(d, 0, 4)), ("수강철회", span(d, 21, 4))],
                 ["철회한 과목은 성적표에 W로 표시됩니다."])


def seasonal(d, rng):
    term = "하계" if d.month < 9 else "동계"
    return Draft(f"{d.year}학년도 {term} 계절학기 수강신청 안내", "학사", "학사지원팀", "course_registration", applies(),
                 f"{term} 계절학기 개설 과목과 신청 일정을 안내합니다.",
                 [("신청 기간", span(d, 10, 3)), ("최대 신청 학점", "6학점"), ("수업 기간", "4주")],
                 ["계절학기 학점도 학기당 최대 신청 학점과 별도로 계산됩니다."])


def _cohort_year(year: int) -> int:
    """Cohorts past the last modelled one are clamped: the site models admissions up to 2026."""
    return min(year, LAST_COHORT)


def freshman_orientation(d, rng):
    y = _cohort_year(d.year)
    return Draft(
        pick(rng, f"{y}학년도 신입생 오리엔테이션 안내", f"{y}학번 신입생 OT 일정 공지"),
        "학사", "학사지원팀", "orientation", applies(admission_year=(y, y), grade=(1, 1)),
        f"{josa(cohort(y, y, rng), '을/를')} 위한 오리엔테이션을 개최합니다. 자료집은 규정·자료실에 게시됩니다.",
        [("일시", month_day(d + datetime.timedelta(days=14)) + " 10:00"), ("장소", "정보관 대강당")],
        ["1학년 1학기 최대 신청 학점은 18학점입니다."], ("/regulations/", "규정·자료실"),
    )


def transfer_orientation(d, rng):
    return Draft(f"{d.year}학년도 1학기 편입생 오리엔테이션 및 학점 인정 안내", "학사", "학사지원팀", "transfer",
                 applies(student_status="transfer"),
                 f"{d.year}학년도 {josa(status('transfer', rng), '을/를')} 위한 오리엔테이션을 진행합니다.",
                 [("일시", month_day(d + datetime.timedelta(days=10))), ("학점 인정 신청", span(d, 3, 7))],
                 ["전적 대학 성적증명서 원본을 지참하세요."], ("/academics/transfer-credits.html", "편입생 학점 인정"))


def lecture_evaluation(d, rng):
    return Draft(f"{sem_label(d)} 강의평가 실시 안내", "학사", "학사지원팀", "general", applies(),
                 "강의평가에 참여해야 성적을 조회할 수 있습니다.", [("기간", span(d, 0, 14))])


def graduation_review(d, rng):
    month = "8월" if d.month < 7 else f"{d.year + 1}년 2월"
    return Draft(
        pick(rng, f"{month} 졸업예정자 졸업사정 안내", f"[졸업] {month} 졸업 대상자 졸업요건 확인 요청"),
        "학사", "학사지원팀", "graduation_requirements", applies(grade=(4, 4)),
        f"{month} 졸업 예정인 {grades(4, 4, rng)}은 포털에서 졸업요건 충족 여부를 확인하세요.",
        [("확인 기간", span(d, 0, 10)), ("이의 신청", span(d, 11, 3))],
        ["입학년도별 졸업 이수학점과 영어 졸업요건이 다릅니다."], ("/academics/graduation.html", "졸업요건 안내"),
    )


def english_test(d, rng):
    hi = 2022
    return Draft(
        f"{sem_label(d)} 영어졸업인증 교내 TOEIC 시행 안내", "학사", "학사지원팀", "graduation_requirements",
        applies(admission_year=(2015, hi)),
        f"영어 졸업요건이 공인영어성적인 {josa(cohort(2015, hi, rng), '을/를')} 대상으로 교내 TOEIC을 시행합니다.",
        [("접수", span(d, 2, 5)), ("시험일", month_day(d + datetime.timedelta(days=20)))],
        ["2023학번부터는 영어강의 이수로 영어 졸업요건을 충족하므로 대상이 아닙니다."],
    )


def double_major_call(d, rng):
    label = f"{d.year}학년도 2학기" if d.month < 9 else f"{d.year + 1}학년도 1학기"  # applies from next term
    return Draft(
        pick(rng, f"{label} 이중전공 신청 안내", f"[학사] {label} 이중전공 지원자 모집"),
        "학사", "학사지원팀", "double_major", applies(major_type="double", grade=(2, 4)),
        f"2개 학기 이상 이수한 {grades(2, 4, rng)}을 대상으로 이중전공 신청을 받습니다.",
        [("신청 기간", span(d, 3, 6)), ("선발 발표", month_day(d + datetime.timedelta(days=24)))],
        ["2019학번 이전 입학자는 평점 2.5, 2020학번부터는 2.7 이상이어야 합니다.", "휴학생은 신청할 수 없습니다."],
        ("/academics/double-major.html", "이중전공 안내"),
    )


def convergence_call(d, rng):
    return Draft(
        pick(rng, f"{d.year}년 {'상' if d.month < 9 else '하'}반기 융합전공 신청 안내", f"융합전공 참여 학생 모집({d.year})"),
        "학사", "학사지원팀", "convergence_major", applies(major_type="convergence", grade=(2, 4)),
        "빅데이터융합전공, AI융합전공, 지능형데이터융합전공 신청을 받습니다.",
        [("신청 기간", span(d, 3, 6))],
        ["AI융합전공은 2020학번부터, 지능형데이터융합전공은 2023학번부터 신청할 수 있습니다."],
        ("/academics/convergence-major.html", "융합전공 안내"),
    )


def double_major_drop(d, rng):
    return Draft(f"{sem_label(d)} 이중전공 포기·변경 신청 안내", "학사", "학사지원팀", "double_major",
                 applies(major_type="double"),
                 "이중전공을 포기하거나 다른 전공으로 바꾸려는 학생은 기간 내에 신청하세요.",
                 [("신청 기간", span(d, 0, 7))], ["포기하면 제1전공 심화전공 요건을 충족해야 졸업할 수 있습니다."])


def track_briefing(code):
    def kind(d, rng):
        dept = DEPT[code]
        y = _cohort_year(max(d.year - 1, dept.first_cohort))  # this year's 2nd-year students
        return Draft(
            pick(rng, f"{y}학번 대상 {dept.name} 전공 교육과정 설명회", f"[{dept.name}] {y % 100}학번 전공 트랙 설명회 안내"),
            "학과", f"{dept.name} 사무실", "curriculum", applies(department=code, admission_year=(y, y), grade=(2, 2)),
            f"{dept.name} {josa(cohort(y, y, rng), '을/를')} 대상으로 {period_of(min(y, LAST_COHORT)).label}학년도 교육과정과 "
            "3학년 전공 트랙 선택을 안내합니다.",
            [("일시", month_day(d + datetime.timedelta(days=7)) + " 18:00"), ("장소", dept.building)],
        )
    return kind


def substitution_notice(code):
    def kind(d, rng):
        dept = DEPT[code]
        latest = period_of(min(d.year, LAST_COHORT))
        lo, hi = dept.first_cohort, latest.first - 1
        if hi < lo:  # the department has had no revision yet that affects older cohorts
            hi = lo
        return Draft(
            f"[{dept.name}] {latest.first}학년도 교육과정 개편에 따른 대체 교과목 안내",
            "학과", f"{dept.name} 사무실", "course_substitution",
            applies(department=code, admission_year=(lo, hi)),
            f"{josa(cohort(lo, hi, rng), '은/는')} 폐지되거나 이름이 바뀐 과목을 재수강할 때 대체 교과목 기준을 확인하세요.",
            notes=["대체 교과목 목록은 학과 홈페이지에 게시되어 있습니다."],
            link=(f"/departments/{dept.slug}/substitution.html", "대체 교과목 인정 기준"),
        )
    return kind


def returning_scholarship(d, rng):
    label = sem_label(d)
    return Draft(
        pick(rng, f"{label} 복학생 정착장학금 신청 안내", f"[장학] {label} 복학생 장학금 신청"),
        "장학", "장학복지팀", "scholarship", applies(student_status="returning"),
        f"1년 이상 휴학 후 {label}에 복학하는 학생에게 등록금의 {policies.RETURNING_SCHOLARSHIP_PCT}%를 지원합니다.",
        [("신청 기간", span(d, 2, 10)), ("제출 서류", "장학금 신청서, 복학 승인 내역")],
        ["휴학 직전 학기 평점 2.5 이상이어야 합니다."], ("/academics/scholarships.html", "장학 안내"),
    )


def transfer_scholarship(d, rng):
    lo, hi = policies.TRANSFER_SCHOLARSHIP_PCT
    return Draft(f"{sem_label(d)} 편입생 적응장학금 안내", "장학", "장학복지팀", "scholarship",
                 applies(student_status="transfer"),
                 f"편입 첫 학기 {status('transfer', rng)}에게 등록금의 {lo}%(전적 대학 평점 3.5 이상은 {hi}%)를 지급합니다.",
                 [("신청 기간", span(d, 1, 7))])


def topik_scholarship(d, rng):
    rates = ", ".join(f"{lvl}급 {pct}%" for lvl, pct in policies.TOPIK_SCHOLARSHIP)
    return Draft(
        pick(rng, f"{sem_label(d)} 외국인 유학생 TOPIK 장학 신청", f"[International] {sem_label(d)} TOPIK scholarship"),
        "장학", "국제교류팀", "scholarship", applies(student_status="international"),
        f"{status('international', rng, '은/는')} TOPIK 성적에 따라 등록금을 감면받을 수 있습니다({rates}).",
        [("신청 기간", span(d, 1, 9)), ("제출 서류", "TOPIK 성적표 사본")],
        ["재학생은 직전 학기 평점 2.5 이상을 유지해야 합니다."], ("/en/scholarships.html", "Scholarships (English)"),
    )


def merit_scholarship(d, rng):
    return Draft(f"{sem_label(d)} 성적우수장학생 선발 안내", "장학", "장학복지팀", "scholarship",
                 applies(student_status="enrolled", grade=(2, 4)),
                 f"직전 학기 12학점 이상 이수한 {status('enrolled', rng)} 가운데 성적우수장학생을 선발했습니다.",
                 [("지급 기준", "평점 4.2 이상 70%, 3.9 이상 40%, 3.6 이상 20%")], ["1학년 1학기는 선발 대상이 아닙니다."])


def national_scholarship(d, rng):
    target = f"{d.year + 1}학년도 1학기" if d.month >= 9 else f"{d.year}학년도 2학기"
    return Draft(f"{target} 국가장학금 신청 안내", "장학", "장학복지팀", "scholarship", applies(),
                 "한국장학재단 국가장학금 신청 일정을 안내합니다.", [("신청 기간", span(d, 0, 21))])


def work_scholarship(d, rng):
    return Draft(f"{sem_label(d)} 근로장학생 모집", "장학", "장학복지팀", "scholarship", applies(),
                 "학과 사무실과 도서관에서 근무할 근로장학생을 모집합니다.", [("모집 인원", f"{rng.randint(8, 15)}명")])


def leave_scholarship(d, rng):
    return Draft(
        pick(rng, f"{sem_label(d)} 휴학생 장학금 이월·반환 안내", "휴학 시 장학금 처리 기준 안내"),
        "장학", "장학복지팀", "scholarship", applies(student_status="on_leave"),
        f"장학금을 받은 학기에 휴학한 {status('on_leave', rng, '은/는')} 아래 기준에 따라 장학금이 처리됩니다.",
        notes=["군휴학: 복학 학기로 이월", "일반휴학: 지급액 반환", "휴학 중에는 장학금을 새로 신청할 수 없습니다."],
    )


def outside_scholarship(d, rng):
    return Draft(f"{d.year}년 교외장학금(재단) 추천 대상자 모집", "장학", "장학복지팀", "scholarship",
                 applies(student_status="enrolled", grade=(2, 4)),
                 "외부 장학재단의 추천 의뢰에 따라 2학년 이상 재학생을 모집합니다.", [("신청 기간", span(d, 0, 10))])


def korean_tutoring(d, rng):
    return Draft(f"{sem_label(d)} 외국인 유학생 한국어 튜터링 참가자 모집", "국제", "국제교류팀", "international",
                 applies(student_status="international"),
                 f"{status('international', rng, '을/를')} 위한 1:1 한국어 튜터링을 운영합니다.", [("모집 기간", span(d, 0, 7))])


def field_practice_call(term, weeks):
    def kind(d, rng):
        return Draft(
            pick(rng, f"{d.year}년 {term} 현장실습 참여 학생 모집", f"[현장실습] {d.year} {term} 현장실습 모집 안내"),
            "현장실습", "현장실습지원센터", "field_practice", applies(grade=(3, 4)),
            f"{grades(3, 4, rng)}을 대상으로 {term} 현장실습 참여 학생을 모집합니다.",
            [("기간", weeks), ("인정 학점", "4주 3학점, 8주 6학점"), ("지원금", policies.FIELD_PRACTICE_ALLOWANCE)],
            ["휴학생은 참여할 수 없습니다.", "2021학번부터 학과 한도 내에서 전공선택 학점으로 인정됩니다."],
            ("/academics/field-practice.html", "현장실습 안내"),
        )
    return kind


def semester_practice(d, rng):
    target = f"{d.year}학년도 2학기" if d.month < 9 else f"{d.year + 1}학년도 1학기"
    return Draft(f"{target} 학기제 현장실습 모집(4학년)", "현장실습", "현장실습지원센터", "field_practice",
                 applies(grade=(4, 4)), f"{grades(4, 4, rng)}을 대상으로 15주 학기제 현장실습 참여자를 모집합니다.",
                 [("인정 학점", "12학점"), ("신청 기간", span(d, 2, 9))])


def practice_briefing(code):
    def kind(d, rng):
        dept = DEPT[code]
        return Draft(f"[{dept.name}] 현장실습 참여 기업 설명회", "현장실습", f"{dept.name} 사무실", "field_practice",
                     applies(department=code, grade=(3, 4)),
                     f"{dept.name} {grades(3, 4, rng)}을 위한 현장실습 기업 설명회를 엽니다.",
                     [("일시", month_day(d + datetime.timedelta(days=6)) + " 16:00"), ("장소", dept.building)])
    return kind


def practice_training(d, rng):
    return Draft(f"{d.year}년 {'하계' if d.month < 9 else '동계'} 현장실습 사전교육 안내", "현장실습", "현장실습지원센터",
                 "field_practice", applies(grade=(3, 4)), "현장실습 참여 확정자는 사전교육을 반드시 이수해야 합니다.",
                 [("일시", month_day(d + datetime.timedelta(days=5)))])


def dept_event(code, name, topic="general", cohort_range=None, grade=None):
    def kind(d, rng):
        dept = DEPT[code]
        short = "AI학과" if code == "AI" else code
        prefix = pick(rng, f"[{dept.name}]", f"[{dept_name(dept, rng)}]", f"[{short}]")
        target = applies(department=code, admission_year=cohort_range, grade=grade)
        who = cohort(*cohort_range, rng) if cohort_range else f"{dept.name} 학생"
        return Draft(f"{prefix} {d.year} {name}", "학과", f"{dept.name} 사무실", topic, target,
                     pick(rng, f"{josa(who, '을/를')} 대상으로 {josa(name, '을/를')} 진행합니다.",
                          f"{name} 일정을 안내합니다. 많은 참여 바랍니다."),
                     [("일시", month_day(d + datetime.timedelta(days=rng.randint(5, 12)))), ("장소", dept.building)])
    return kind


def thesis_submission(code):
    def kind(d, rng):
        dept = DEPT[code]
        rule = "졸업논문·캡스톤디자인" if code == "CS" else "졸업프로젝트·캡스톤디자인"
        return Draft(f"[{dept.name}] {sem_label(d)} {rule} 결과물 제출 안내", "학과", f"{dept.name} 사무실", "capstone",
                     applies(department=code, grade=(4, 4)),
                     f"{dept.name} {grades(4, 4, rng)}은 학번별 졸업 요건에 맞는 결과물을 제출하세요.",
                     [("제출 기한", month_day(d + datetime.timedelta(days=14)))],
                     link=(f"/departments/{dept.slug}/capstone.html", "졸업논문·캡스톤 안내"))
    return kind


def research_call(code, grade):
    def kind(d, rng):
        dept = DEPT[code]
        return Draft(f"[{dept.name}] {sem_label(d)} 학부연구생 모집", "학과", f"{dept.name} 사무실", "research",
                     applies(department=code, grade=grade), f"{grades(*grade, rng)}을 대상으로 학부연구생을 모집합니다.",
                     [("지원 기간", span(d, 0, 10))], link=(f"/departments/{dept.slug}/labs.html", "연구실 안내"))
    return kind


def tutor_call(d, rng):
    return Draft(f"{sem_label(d)} 튜터(TA) 모집", "학사", "학사지원팀", "general", applies(grade=(3, 4)),
                 f"1학년 전공기초 과목의 튜터를 {grades(3, 4, rng)} 중에서 모집합니다.", [("모집 기간", span(d, 0, 7))])


def mentoring(d, rng):
    y = _cohort_year(d.year)
    return Draft(f"{y}학번 신입생 멘토링 프로그램 참여 안내", "학사", "학사지원팀", "general",
                 applies(admission_year=(y, y), grade=(1, 1)),
                 f"{josa(cohort(y, y, rng), '을/를')} 위한 선배 멘토링을 운영합니다.", [("신청 기간", span(d, 0, 7))])


def job_fair(d, rng):
    return Draft(pick(rng, f"{d.year} 정보대학 채용설명회 안내", f"IT 기업 채용설명회 개최({d.month}월)"), "일반", "행정실",
                 "careers", applies(grade=(3, 4)), f"{grades(3, 4, rng)}을 위한 채용설명회를 개최합니다.",
                 [("일시", month_day(d + datetime.timedelta(days=9)) + " 14:00"), ("장소", "정보관 대강당")])


def general(title, intro, topic="general", grade=None, status_value=None):
    def kind(d, rng):
        return Draft(title.format(year=d.year, sem=sem_label(d)), "일반", "행정실", topic,
                     applies(grade=grade, student_status=status_value), intro, [("일자", month_day(d + datetime.timedelta(days=3)))])
    return kind


def exchange(d, rng):
    return Draft(f"{sem_label(d)} 교환학생 파견 모집", "국제", "국제교류팀", "general", applies(grade=(2, 3)),
                 f"{grades(2, 3, rng)}을 대상으로 교환학생 파견 신청을 받습니다.", [("신청 기간", span(d, 0, 14))])


def visa(d, rng):
    return Draft(f"{sem_label(d)} 외국인 유학생 체류기간 연장 안내", "국제", "국제교류팀", "international",
                 applies(student_status="international"),
                 f"{status('international', rng, '은/는')} 체류기간 만료 전에 연장을 신청하세요.", [("접수", span(d, 0, 14))])


def international_orientation(d, rng):
    return Draft(f"{sem_label(d)} 외국인 유학생 오리엔테이션", "국제", "국제교류팀", "international",
                 applies(student_status="international"), "신입·편입 외국인 유학생을 위한 오리엔테이션입니다.",
                 [("일시", month_day(d + datetime.timedelta(days=5)))])


def military_return(d, rng):
    return Draft(f"{sem_label(d)} 군휴학생 복학 안내", "학사", "학사지원팀", "leave_return",
                 applies(student_status="on_leave"),
                 "군휴학 중인 학생은 전역일에 따라 복학 가능 학기가 다릅니다.", [("상담", "학사지원팀 02-3290-3010")])


def on_leave_guide(d, rng):
    return Draft(f"휴학 중인 학생을 위한 학사 안내({sem_label(d)})", "학사", "학사지원팀", "leave_return",
                 applies(student_status="on_leave"),
                 f"{status('on_leave', rng, '은/는')} 이번 학기 주요 학사 일정을 확인하세요.",
                 notes=["휴학 중에는 수강신청과 장학금 신청을 할 수 없습니다.", "복학 신청 기간을 놓치지 마세요."])


def ge_check(d, rng):
    y = _cohort_year(d.year - 3)
    return Draft(f"{y}학번 공통교양 미이수자 확인 안내", "학사", "학사지원팀", "ge_required",
                 applies(admission_year=(y, y)),
                 f"{josa(cohort(y, y, rng), '은/는')} 졸업 전에 공통교양을 모두 이수했는지 확인하세요.",
                 link=("/academics/general-education.html", "교양교육과정 안내"))


def transition_notice(d, rng):
    return Draft("2020학번 이전 입학자 졸업요건 경과조치 안내", "학사", "학사지원팀", "graduation_requirements",
                 applies(admission_year=(2015, 2020)),
                 f"{josa(cohort(2015, 2020, rng), '은/는')} 폐지된 교과목을 대체 교과목으로 이수해 졸업요건을 충족할 수 있습니다.",
                 link=("/academics/graduation.html", "졸업요건 안내"))


def early_graduation(d, rng):
    return Draft(f"{sem_label(d)} 조기졸업 신청 안내", "학사", "학사지원팀", "graduation_requirements",
                 applies(grade=(3, 4)), "6학기 이상 등록하고 평점 4.0 이상인 학생은 조기졸업을 신청할 수 있습니다.",
                 [("신청 기간", span(d, 0, 7))])


def deferral(d, rng):
    return Draft(f"{sem_label(d)} 졸업유예 신청 안내", "학사", "학사지원팀", "graduation_requirements",
                 applies(grade=(4, 4)), "졸업요건을 충족한 4학년 학생은 1회에 한해 졸업유예를 신청할 수 있습니다.",
                 [("신청 기간", span(d, 0, 7))])


def commencement(d, rng):
    month = "2월" if d.month < 6 else "8월"
    return Draft(f"{d.year}년 {month} 학위수여식 안내", "학사", "학사지원팀", "general", applies(grade=(4, 4)),
                 "학위수여식 일정과 학위복 대여 방법을 안내합니다.", [("일시", month_day(d + datetime.timedelta(days=20)))])


def major_change(d, rng):
    return Draft(f"{d.year}학년도 전과(소속 변경) 신청 안내", "학사", "학사지원팀", "general",
                 applies(grade=(1, 2), student_status="enrolled"), "1학년 2학기부터 2학년 재학생까지 전과를 신청할 수 있습니다.",
                 [("신청 기간", span(d, 0, 10))])


def coding_cert(d, rng):
    return dept_event("CS", "SW코딩인증 시험", "graduation_requirements", cohort_range=(2021, LAST_COHORT))(d, rng)


# (month, day, kind) of every notice posted each year. Days stay <= 28 so every year has them.
ANNUAL: list[tuple[int, int, Kind]] = [
    (1, 5, general("{sem} 재입학 신청 안내", "제적된 학생 중 재입학을 희망하는 학생은 기간 내에 신청하세요.")),
    (1, 8, general("정보관 전기설비 점검에 따른 정전 안내({year})", "점검 시간 동안 실습실과 서버실 이용이 중단됩니다.")),
    (1, 12, leave_application), (1, 18, return_application), (1, 25, returning_scholarship),
    (1, 28, commencement),
    (2, 3, registration), (2, 6, returning_registration), (2, 10, freshman_orientation),
    (2, 13, transfer_orientation), (2, 15, visa), (2, 17, transfer_scholarship),
    (2, 20, research_call("CS", (3, 4))), (2, 21, research_call("DS", (2, 4))), (2, 24, topik_scholarship),
    (2, 25, tutor_call), (2, 26, international_orientation), (2, 27, work_scholarship),
    (3, 4, registration_change), (3, 5, general("{year}학년도 연구실 안전교육 이수 안내", "실험·실습 과목 수강생은 안전교육을 이수해야 합니다.")),
    (3, 6, mentoring), (3, 9, dept_event("DS", "신입생 학업 설계 상담 주간", "curriculum", grade=(1, 1))),
    (3, 12, merit_scholarship), (3, 13, exchange), (3, 18, dept_event("AI", "AI 콜로키움")),
    (3, 19, job_fair), (3, 20, korean_tutoring), (3, 23, english_test),
    (3, 25, dept_event("CS", "학과 학생 간담회")), (3, 26, substitution_notice("CS")),
    (3, 27, substitution_notice("DS")), (3, 28, substitution_notice("AI")),
    (3, 30, dept_event("CS", "SW 특강: 클라우드 네이티브 개발")),
    (4, 1, graduation_review), (4, 3, dept_event("DS", "학과 학생 간담회")), (4, 7, outside_scholarship),
    (4, 9, coding_cert), (4, 10, dept_event("AI", "학과 학생 간담회")),
    (4, 14, track_briefing("CS")), (4, 15, track_briefing("DS")), (4, 16, track_briefing("AI")),
    (4, 17, on_leave_guide), (4, 22, field_practice_call("하계", "6월 말부터 4주 또는 8주")),
    (4, 24, job_fair), (4, 28, practice_briefing("CS")), (4, 27, practice_briefing("DS")),
    (4, 26, practice_briefing("AI")),
    (5, 4, semester_practice), (5, 6, military_return), (5, 8, double_major_call), (5, 12, convergence_call),
    (5, 15, dept_event("CS", "SW 특강: 오픈소스 기여 첫걸음")), (5, 18, dept_event("DS", "데이터 분석 경진대회")),
    (5, 20, seasonal), (5, 26, national_scholarship), (5, 27, thesis_submission("CS")),
    (5, 28, thesis_submission("DS")),
    (6, 1, lecture_evaluation), (6, 2, thesis_submission("AI")), (6, 3, dept_event("AI", "AI 세미나: 대규모언어모델의 평가")),
    (6, 5, general("기말고사 기간 도서관 연장 운영 안내", "기말고사 기간 중 열람실을 24시간 개방합니다.")),
    (6, 8, double_major_drop), (6, 12, leave_scholarship), (6, 22, deferral),
    (6, 24, general("{sem} 성적 공개 및 이의신청 안내", "성적 이의신청은 공개 후 3일 이내에 담당 교수에게 합니다.")),
    (6, 26, practice_training),
    (7, 3, general("하계 방학 중 정보관 개방 시간 안내({year})", "방학 중 정보관은 평일 09:00~18:00에 개방합니다.")),
    (7, 6, general("{sem} 재입학 신청 안내", "재입학 희망자는 학과 면담 후 신청서를 제출하세요.")),
    (7, 8, leave_application), (7, 13, return_application), (7, 24, returning_scholarship),
    (8, 4, registration), (8, 6, returning_registration), (8, 10, commencement),
    (8, 14, visa), (8, 17, transfer_scholarship), (8, 20, research_call("AI", (2, 4))),
    (8, 24, topik_scholarship), (8, 25, tutor_call), (8, 26, international_orientation), (8, 27, work_scholarship),
    (9, 2, registration_change), (9, 9, merit_scholarship), (9, 11, exchange), (9, 15, major_change),
    (9, 16, job_fair), (9, 18, korean_tutoring), (9, 21, english_test), (9, 24, dept_event("AI", "AI 세미나: 멀티모달 학습")),
    (9, 28, ge_check),
    (10, 1, transition_notice), (10, 6, graduation_review), (10, 8, dept_event("CS", "SW 특강: 보안 취약점 분석")),
    (10, 13, outside_scholarship), (10, 15, coding_cert), (10, 17, on_leave_guide), (10, 20, early_graduation),
    (10, 22, dept_event("DS", "데이터 시각화 공모전")), (10, 27, field_practice_call("동계", "12월 말부터 4주 또는 8주")),
    (10, 29, job_fair),
    (11, 3, national_scholarship), (11, 5, semester_practice), (11, 6, military_return), (11, 9, double_major_call),
    (11, 12, convergence_call),
    (11, 14, dept_event("DS", "데이터분석 포트폴리오 제출", "graduation_requirements", cohort_range=(2023, LAST_COHORT), grade=(4, 4))),
    (11, 18, seasonal), (11, 20, thesis_submission("CS")), (11, 21, thesis_submission("DS")),
    (11, 24, lecture_evaluation), (11, 26, dept_event("AI", "AI 세미나: 강화학습의 산업 응용")),
    (11, 27, thesis_submission("AI")),
    (12, 3, general("기말고사 기간 도서관 연장 운영 안내", "열람실 좌석 예약은 모바일 앱으로만 가능합니다.")),
    (12, 7, double_major_drop), (12, 12, leave_scholarship), (12, 19, deferral),
    (12, 22, practice_training),
    (12, 24, general("{sem} 성적 공개 및 이의신청 안내", "성적 공개 기간에 포털에서 확인하고, 이의신청은 3일 이내에 하세요.")),
    (12, 27, general("연말 정보관 시설 점검 안내({year})", "점검 기간 중 실습실 예약이 제한됩니다.")),
]
ANNUAL.sort(key=lambda entry: (entry[0], entry[1]))

