"""College-wide rules of the demo college: general education, second majors, scholarships, field
practice, registration and leave. Pages, PDFs, notices and FAQ answers quote these numbers, so
every place that states a rule states the same one.
"""

from __future__ import annotations

from dataclasses import dataclass

from .catalog import PERIODS

# Required general-education courses (공통교양) per curriculum-revision period: (name, credits).
GE_REQUIRED = (
    (("글쓰기", 3), ("영어Ⅰ", 2), ("영어Ⅱ", 2), ("한빛정신과 리더십", 1), ("컴퓨팅사고", 2),
     ("대학생활세미나", 1)),
    (("글쓰기", 3), ("영어Ⅰ", 2), ("영어Ⅱ", 2), ("한빛정신과 리더십", 1), ("컴퓨팅사고", 2)),
    (("글쓰기", 3), ("영어Ⅰ", 2), ("영어Ⅱ", 2), ("한빛정신과 리더십", 1), ("디지털리터러시", 2)),
    (("글쓰기", 3), ("영어Ⅰ", 2), ("영어Ⅱ", 2), ("한빛정신과 리더십", 1), ("디지털리터러시", 2),
     ("진로설계", 1)),
    (("학술적 글쓰기", 3), ("Academic English", 3), ("한빛정신과 리더십", 1), ("디지털리터러시", 2),
     ("진로설계", 1)),
    (("학술적 글쓰기", 3), ("Academic English", 3), ("자기설계세미나", 1), ("AI와 윤리", 2),
     ("진로설계", 1)),
    (("학술적 글쓰기", 3), ("Academic English", 3), ("자기설계세미나", 1), ("AI와 윤리", 2),
     ("데이터리터러시", 2)),
    (("글쓰기와 소통", 3), ("Academic English", 3), ("자기설계세미나", 1), ("AI와 윤리", 2),
     ("데이터리터러시", 2)),
)
# Core GE (핵심교양): how many areas must be covered, out of how many, per period.
GE_CORE_AREAS = ((4, 5), (4, 5), (4, 6), (4, 6), (3, 6), (3, 6), (3, 6), (3, 5))
GE_AREA_NAMES = ("인문과 예술", "사회와 문화", "과학과 기술", "세계와 언어", "수리와 논리", "융합과 창의")


def ge_required(period) -> tuple[tuple[str, int], ...]:
    return GE_REQUIRED[PERIODS.index(period)]


# Second majors ------------------------------------------------------------------------------
DOUBLE_MAJOR_MIN_GPA = ((2015, 2019, 2.5), (2020, 2026, 2.7))  # cohort range -> GPA to apply
DOUBLE_MAJOR_MIN_SEMESTERS = 2  # completed semesters before applying (so from 2nd year on)
DOUBLE_MAJOR_QUOTA = {"CS": 40, "DS": 35, "AI": 25}  # places for students of other departments


@dataclass(frozen=True)
class ConvergenceProgram:
    slug: str
    name: str
    departments: tuple[str, ...]
    since: int  # first cohort that may take it
    summary: str


CONVERGENCE_PROGRAMS = (
    ConvergenceProgram("bigdata", "빅데이터융합전공", ("CS", "DS"), 2015,
                       "대용량 데이터의 수집·저장·분석을 컴퓨터학과와 데이터과학과가 함께 가르친다"),
    ConvergenceProgram("ai-convergence", "AI융합전공", ("CS", "AI"), 2020,
                       "인공지능 모델 개발과 소프트웨어 시스템 구현을 함께 익힌다"),
    ConvergenceProgram("intelligent-data", "지능형데이터융합전공", ("DS", "AI"), 2023,
                       "데이터 분석과 인공지능 응용을 산업 문제에 적용한다"),
)

# Scholarships -------------------------------------------------------------------------------
TOPIK_SCHOLARSHIP = ((3, 20), (4, 30), (5, 40), (6, 50))  # TOPIK level -> % of tuition
MERIT_SCHOLARSHIP = ((4.2, 70), (3.9, 40), (3.6, 20))  # previous-semester GPA -> % of tuition
RETURNING_SCHOLARSHIP_PCT = 30  # 복학생 정착장학금, after at least one year of leave
RETURNING_MIN_GPA = 2.5
TRANSFER_SCHOLARSHIP_PCT = (20, 40)  # first semester after transfer; 40% with GPA >= 3.5 before
INTERNATIONAL_MIN_GPA = 2.5

# Field practice (현장실습) -------------------------------------------------------------------
FIELD_PRACTICE_TYPES = (
    ("하계·동계 단기 현장실습", "4주", 3, (3, 4)),
    ("하계·동계 중기 현장실습", "8주", 6, (3, 4)),
    ("학기제 현장실습", "15주", 12, (4, 4)),
)
FIELD_PRACTICE_MAJOR_CREDIT_CAP = {"CS": 6, "DS": 9, "AI": 6}  # 2021 cohort onwards
FIELD_PRACTICE_MAJOR_FROM = 2021  # earlier cohorts get the credits as 일반선택
FIELD_PRACTICE_ALLOWANCE = "월 80만 원 이상(참여 기업 지급)"

# Course registration (수강신청) ---------------------------------------------------------------
MAX_CREDITS = ((2015, 2020, 21, 24), (2021, 2026, 19, 22))  # cohorts -> normal, with GPA >= 3.75
FRESHMAN_MAX_CREDITS = 18
HONOURS_GPA = 3.75
RETAKE_CAP = ((2015, 2018, "A0"), (2019, 2026, "B+"))  # cohorts -> best grade on a retake

# Leave and return (휴학·복학) ------------------------------------------------------------------
LEAVE_LIMIT = ((2015, 2020, 6), (2021, 2026, 4))  # cohorts -> general-leave semesters in total
STARTUP_LEAVE_SEMESTERS = 4
LEAVE_WINDOWS = {1: "1월 15일 ~ 2월 5일", 2: "7월 10일 ~ 8월 5일"}  # application window per term
RETURN_WINDOWS = {1: "1월 20일 ~ 2월 10일", 2: "7월 15일 ~ 8월 10일"}
INTERNATIONAL_EXIT_DAYS = 15  # an international student on leave must leave Korea within this
