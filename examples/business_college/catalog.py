"""The college's departments, campuses, curriculum-revision periods and graduation numbers.

Every page, PDF, notice and FAQ answer that states a number takes it from here, so a source for
the wrong students really states a wrong number. Numbers differ across periods, departments and
(for the departments on two campuses) campuses on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass

from examples.site_kit.catalog import Period as BasePeriod

FIRST_COHORT, LAST_COHORT = 2014, 2026
CAMPUSES = ("seoul", "sejong")
CAMPUS_KO = {"seoul": "서울캠퍼스", "sejong": "세종캠퍼스"}
CAMPUS_SHORT = {"seoul": "서울", "sejong": "세종"}


@dataclass(frozen=True)
class Department:
    code: str  # canonical profile value
    slug: str  # URL segment
    name: str  # official Korean name
    former: str | None  # the name before the 2017 reorganization (the legacy pages use it)
    english: str
    founded: int
    first_cohort: int
    campuses: tuple[str, ...]
    office: str
    phone: str
    exam: str | None  # the graduation exam's name, where the department holds one
    other_names: tuple[str, ...] = ()  # informal forms ("경영학전공")

    @property
    def aliases(self) -> tuple[str, ...]:
        """Every surface form of this department on the site (the config's alias list)."""
        return tuple(n for n in (self.name, self.former, *self.other_names, f"Department of {self.english}") if n)


DEPARTMENTS = (
    Department("BUS", "business", "경영학과", "경영학부", "Business Administration", 1979, 2014, CAMPUSES,
               "상경관 301호", "02-940-2301", "경영학 종합시험", ("경영학전공",)),
    Department("ACT", "accounting", "회계세무학과", None, "Accounting and Taxation", 2018, 2018, ("seoul",),
               "상경관 412호", "02-940-2411", "회계 종합시험", ("회계세무전공",)),
    Department("ITR", "trade", "국제통상학과", None, "International Trade", 2020, 2020, ("sejong",),
               "글로벌관 507호", "044-860-2501", "무역실무 종합시험", ("국제통상전공",)),
    Department("ECN", "economics", "경제학과", "경제학부", "Economics", 1979, 2014, CAMPUSES,
               "상경관 205호", "02-940-2201", "경제학 종합시험", ("경제학전공",)),
)
DEPT = {d.code: d for d in DEPARTMENTS}


class Period(BasePeriod):
    @property
    def key(self) -> str:  # the ?year= of its pages
        return str(self.first)

    @property
    def label(self) -> str:
        return self.span("~")


# The college's revisions; a department founded inside one starts with its first cohort.
REVISIONS = ((2014, 2016), (2017, 2018), (2019, 2021), (2022, 2023), (2024, 2026))
PERIODS = tuple(Period(a, b) for a, b in REVISIONS)


def periods_for(dept: Department) -> tuple[Period, ...]:
    return tuple(Period(max(p.first, dept.first_cohort), p.last) for p in PERIODS if p.last >= dept.first_cohort)


def revision_index(period: Period) -> int:
    """Which college revision a (possibly clipped) period belongs to."""
    return next(i for i, p in enumerate(PERIODS) if p.first <= period.first <= p.last)


TOTAL_CREDITS = (140, 136, 133, 130, 128)
GE_CREDITS = (36, 35, 33, 32, 30)
_MAJOR_BASE = {"BUS": 66, "ACT": 72, "ITR": 60, "ECN": 63}
_MAJOR_STEP = (0, -3, -5, -8, -10)
_ENGLISH = {"BUS": (2, 3, 3, 4, 4), "ACT": (2, 2, 2, 2, 3), "ITR": (4, 4, 4, 5, 5), "ECN": (2, 2, 3, 3, 4)}
_EXAM_SCORE = {"BUS": (60, 60, 65, 70, 70), "ACT": (60, 60, 65, 70, 75), "ITR": (60, 60, 60, 65, 70),
               "ECN": (60, 65, 65, 70, 70)}
_INTERNSHIP_HOURS = (80, 120, 120, 160, 160)  # Sejong business students only
_TRANSFER_MAJOR = (48, 45, 45, 42, 42)
_KOREAN_COURSES = (2, 2, 3, 3, 3)  # international undergraduates, instead of English-taught courses


@dataclass(frozen=True)
class Course:
    code: str
    name: str
    credits: int
    year: int
    semester: int
    kind: str  # basic (전공기초) | required (전공필수) | elective (전공선택)
    since: int = FIRST_COHORT
    until: int = LAST_COHORT
    campus: str | None = None  # offered on one campus only
    english: bool = False

    def offered(self, period: Period, campus: str | None = None) -> bool:
        in_time = self.since <= period.first and period.last <= self.until
        return in_time and (self.campus is None or campus is None or self.campus == campus)


def _c(code, name, credits, when, kind, since=FIRST_COHORT, until=LAST_COHORT, campus=None, english=False):
    year, semester = (int(x) for x in when.split("-"))
    return Course(code, name, credits, year, semester, kind, since, until, campus, english)


B, R, E = "basic", "required", "elective"
COURSES: dict[str, tuple[Course, ...]] = {
    "BUS": (
        _c("BUS101", "경영학원론", 3, "1-1", B), _c("BUS102", "회계원리", 3, "1-2", B),
        _c("BUS103", "경영통계", 3, "1-2", B, until=2021), _c("BUS103", "비즈니스 통계", 3, "1-2", B, since=2022),
        _c("BUS201", "마케팅원론", 3, "2-1", R), _c("BUS202", "조직행동론", 3, "2-1", R),
        _c("BUS203", "재무관리", 3, "2-2", R), _c("BUS204", "생산운영관리", 3, "2-2", R, until=2021),
        _c("BUS205", "경영정보시스템", 3, "2-2", R, until=2018), _c("BUS206", "인적자원관리", 3, "3-1", E),
        _c("BUS301", "경영전략", 3, "3-1", R), _c("BUS302", "국제경영", 3, "3-2", E, english=True),
        _c("BUS303", "소비자행동론", 3, "3-1", E), _c("BUS304", "투자론", 3, "3-2", E),
        _c("BUS305", "비즈니스 애널리틱스", 3, "3-1", R, since=2022),
        _c("BUS306", "창업과 벤처경영", 3, "3-2", E, since=2019),
        _c("BUS401", "ESG경영", 3, "4-1", R, since=2024), _c("BUS402", "경영 캡스톤디자인", 3, "4-2", R, since=2022),
        _c("BUS403", "경영사례연구", 3, "4-1", E, english=True), _c("BUS404", "디지털마케팅", 3, "4-1", E, since=2019),
        _c("BUS351", "지역산업경영론", 3, "3-1", E, campus="sejong"),
        _c("BUS352", "스마트물류경영", 3, "3-2", E, since=2019, campus="sejong"),
        _c("BUS451", "공공기관 경영실무", 3, "4-1", E, since=2022, campus="sejong"),
    ),
    "ACT": (
        _c("ACT101", "회계원리", 3, "1-1", B), _c("ACT102", "세법입문", 3, "1-2", B),
        _c("ACT201", "중급회계Ⅰ", 3, "2-1", R), _c("ACT202", "중급회계Ⅱ", 3, "2-2", R),
        _c("ACT203", "원가회계", 3, "2-2", R), _c("ACT204", "전산회계실습", 2, "2-1", R, until=2021),
        _c("ACT204", "AI 회계실습", 3, "2-1", R, since=2022), _c("ACT301", "법인세법", 3, "3-1", R),
        _c("ACT302", "소득세법", 3, "3-1", E), _c("ACT303", "부가가치세법", 3, "3-2", E),
        _c("ACT304", "회계감사", 3, "3-2", R), _c("ACT305", "관리회계", 3, "3-1", E),
        _c("ACT306", "재무제표분석", 3, "3-2", E, english=True), _c("ACT401", "고급회계", 3, "4-1", E),
        _c("ACT402", "국제조세", 3, "4-1", E, since=2022, english=True),
        _c("ACT403", "데이터기반 감사", 3, "4-2", R, since=2024), _c("ACT404", "세무회계 캡스톤", 3, "4-2", E),
    ),
    "ITR": (
        _c("ITR101", "국제통상원론", 3, "1-1", B), _c("ITR102", "무역영어", 3, "1-2", B, english=True),
        _c("ITR201", "무역실무", 3, "2-1", R), _c("ITR202", "국제경제학", 3, "2-1", R),
        _c("ITR203", "국제금융론", 3, "2-2", R), _c("ITR204", "통상법", 3, "2-2", E),
        _c("ITR301", "국제물류론", 3, "3-1", R), _c("ITR302", "글로벌마케팅", 3, "3-1", E, english=True),
        _c("ITR303", "FTA와 원산지", 3, "3-2", R, since=2022), _c("ITR304", "지역경제통합론", 3, "3-2", E),
        _c("ITR401", "디지털무역", 3, "4-1", R, since=2024), _c("ITR402", "통상협상 실습", 3, "4-1", E, english=True),
        _c("ITR403", "국제통상 캡스톤", 3, "4-2", E),
    ),
    "ECN": (
        _c("ECN101", "경제원론Ⅰ", 3, "1-1", B), _c("ECN102", "경제원론Ⅱ", 3, "1-2", B),
        _c("ECN103", "경제수학", 3, "1-2", B), _c("ECN201", "미시경제학", 3, "2-1", R),
        _c("ECN202", "거시경제학", 3, "2-2", R), _c("ECN203", "경제통계학", 3, "2-1", R, until=2018),
        _c("ECN203", "경제데이터분석", 3, "2-1", R, since=2019), _c("ECN301", "계량경제학", 3, "3-1", R),
        _c("ECN302", "화폐금융론", 3, "3-1", E), _c("ECN303", "재정학", 3, "3-2", E),
        _c("ECN304", "노동경제학", 3, "3-2", E), _c("ECN305", "산업조직론", 3, "3-1", E, english=True),
        _c("ECN306", "게임이론", 3, "3-2", E, since=2017), _c("ECN307", "행동경제학", 3, "3-2", E, since=2019),
        _c("ECN401", "경제사", 3, "4-1", E, until=2021), _c("ECN402", "경제학 캡스톤", 3, "4-2", R, since=2022),
        _c("ECN403", "국제무역론", 3, "4-1", E, english=True), _c("ECN451", "지역경제론", 3, "3-1", E, campus="sejong"),
        _c("ECN452", "공공경제 실습", 3, "4-1", R, since=2019, campus="sejong"),
    ),
}


def curriculum(dept: Department, period: Period, campus: str | None = None) -> dict[str, list[Course]]:
    """Courses of one period by kind; with ``campus``, also that campus's own courses."""
    offered = [c for c in COURSES[dept.code] if c.offered(period, campus) and (campus or c.campus is None)]
    return {kind: sorted((c for c in offered if c.kind == kind), key=lambda c: (c.year, c.semester, c.code))
            for kind in (B, R, E)}


@dataclass(frozen=True)
class Requirement:
    total: int
    ge: int
    basic: int
    major: int  # 전공 (전공필수 포함)
    required: int  # 전공필수 학점
    required_courses: tuple[str, ...]
    english: int  # 영어강의 과목 수
    exam: str  # 졸업시험 / 졸업논문 rule
    exam_score: int | None
    internship_hours: int | None
    transfer_major: int
    korean_courses: int


def requirement(dept: Department, period: Period, campus: str | None = None) -> Requirement:
    """Graduation numbers of one department, period and (for two-campus departments) campus."""
    i = revision_index(period)
    cur = curriculum(dept, period, campus)
    sejong = campus == "sejong"
    major = _MAJOR_BASE[dept.code] + _MAJOR_STEP[i] - (3 if sejong and dept.code == "BUS" else 0)
    english = _ENGLISH[dept.code][i] - (1 if sejong else 0)
    score = _EXAM_SCORE[dept.code][i]
    if sejong:  # the Sejong departments graduate on a thesis or report instead of an exam
        exam, score = "졸업논문 또는 사례연구 보고서 제출", None
    else:
        exam = f"{dept.exam} {score}점 이상"
    return Requirement(
        total=TOTAL_CREDITS[i], ge=GE_CREDITS[i], basic=sum(c.credits for c in cur[B]), major=major,
        required=sum(c.credits for c in cur[R]), required_courses=tuple(c.name for c in cur[R]),
        english=english, exam=exam, exam_score=score,
        internship_hours=_INTERNSHIP_HOURS[i] if sejong and dept.code == "BUS" else None,
        transfer_major=_TRANSFER_MAJOR[i] + (3 if dept.code == "ACT" else 0), korean_courses=_KOREAN_COURSES[i],
    )


def requirement_pages(dept: Department) -> tuple[str | None, ...]:
    """The campus variants of a department's graduation-requirement pages: 경영학과 publishes one
    page per campus, the others one page (경제학과 puts both campuses on it)."""
    return dept.campuses if dept.code == "BUS" else (None,)
