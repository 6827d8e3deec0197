"""The demo college's departments, curriculum-revision periods, courses and graduation numbers.

Every page, PDF, notice and FAQ answer that states a number takes it from here, and so does the
ground-truth manifest: a wrong source therefore really yields a wrong fact. The numbers are chosen
to differ across periods, major types and departments on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from examples.site_kit.catalog import Period as BasePeriod

MAJOR_TYPES = ("intensive", "double", "convergence")
MAJOR_TYPE_KO = {"intensive": "심화전공", "double": "이중전공", "convergence": "융합전공"}
FIRST_COHORT, LAST_COHORT = 2015, 2026


@dataclass(frozen=True)
class Department:
    code: str  # canonical profile value
    slug: str  # URL segment
    name: str  # official Korean name
    names: tuple[str, ...]  # other Korean forms the site uses (old names, short forms)
    english: str
    short: str  # English short name used in running text
    founded: int
    first_cohort: int
    prefix: str  # course-code prefix
    building: str
    phone: str
    email: str

    @property
    def aliases(self) -> tuple[str, ...]:
        """Every surface form of this department on the site (the config's alias list)."""
        extra = ("CS",) if self.code == "CS" else ("DS",) if self.code == "DS" else ()
        return (self.name, *self.names, *extra, self.english, self.short)


DEPARTMENTS = (
    Department("CS", "cs", "컴퓨터학과", ("컴퓨터학부",), "Department of Computer Science",
               "Computer Science", 1987, 2015, "COSE", "정보관 B동 3층 301호", "02-3290-3201",
               "cs@hanbit.ac.kr"),
    Department("DS", "ds", "데이터과학과", ("데이터사이언스학과",), "Department of Data Science",
               "Data Science", 2015, 2015, "DASC", "정보관 A동 4층 412호", "02-3290-3301",
               "datasci@hanbit.ac.kr"),
    Department("AI", "ai", "인공지능학과", ("AI학과",), "Department of Artificial Intelligence",
               "Artificial Intelligence", 2019, 2019, "AINT", "미래관 5층 503호", "02-3290-3401",
               "ai@hanbit.ac.kr"),
)
DEPT = {d.code: d for d in DEPARTMENTS}

# Former official names: (name, last year it was used). Pages of old curricula still use them.
FORMER_NAMES = {"CS": ("컴퓨터학부", 2018), "DS": ("데이터사이언스학과", 2020)}


def name_in(dept: Department, year: int) -> str:
    """The department's official name in ``year`` (the 컴퓨터학부 became 컴퓨터학과 in 2019)."""
    former = FORMER_NAMES.get(dept.code)
    return former[0] if former and year <= former[1] else dept.name


class Period(BasePeriod):
    @property
    def slug(self) -> str:  # in URLs: curriculum-2021-2022.html
        return self.span("-")

    @property
    def label(self) -> str:
        return self.span("–")


PERIODS = tuple(
    Period(a, b)
    for a, b in [(2015, 2016), (2017, 2018), (2019, 2019), (2020, 2020), (2021, 2022),
                 (2023, 2023), (2024, 2025), (2026, 2026)]
)


def periods_for(dept: Department) -> tuple[Period, ...]:
    return tuple(p for p in PERIODS if p.first >= dept.first_cohort)


def period_of(year: int) -> Period:
    return next(p for p in PERIODS if p.covers(year))


@dataclass(frozen=True)
class Course:
    code: str
    name: str
    credits: int
    year: int  # recommended year (학년)
    semester: int  # recommended semester (1 or 2)
    kind: str  # foundation (전공기초) | required (전공필수) | elective (전공선택)
    since: int = FIRST_COHORT  # first cohort whose curriculum lists it
    until: int = LAST_COHORT  # last cohort whose curriculum lists it
    waived: tuple[str, ...] = ()  # major types that need not take a required course

    def offered(self, period: Period) -> bool:
        return self.since <= period.first and period.last <= self.until


def _c(code, name, credits, when, kind, since=FIRST_COHORT, until=LAST_COHORT, waived=""):
    year, semester = (int(x) for x in when.split("-"))
    return Course(code, name, credits, year, semester, kind, since, until,
                  tuple(w for w in waived.split() if w))


F, R, E = "foundation", "required", "elective"

# Renames keep their code; moves between kinds are two rows with adjacent cohort ranges.
COURSES: dict[str, tuple[Course, ...]] = {
    "CS": (
        _c("COSE101", "컴퓨터프로그래밍Ⅰ", 3, "1-1", F),
        _c("COSE102", "컴퓨터프로그래밍Ⅱ", 3, "1-2", F, until=2022),
        _c("COSE102", "객체지향프로그래밍", 3, "1-2", F, since=2023),
        _c("MATH111", "미적분학Ⅰ", 3, "1-1", F),
        _c("MATH112", "미적분학Ⅱ", 3, "1-2", F, until=2020),
        _c("PHYS101", "일반물리학Ⅰ", 3, "1-1", F, until=2018),
        _c("MATH131", "선형대수", 3, "1-2", F, since=2019),
        _c("STAT201", "확률과 통계", 3, "2-1", F, since=2017),
        _c("COSE105", "인공지능기초", 3, "1-2", F, since=2024),
        _c("COSE211", "이산구조", 3, "2-1", R, until=2018, waived="convergence"),
        _c("COSE211", "이산수학", 3, "1-2", R, since=2019, waived="convergence"),
        _c("COSE213", "자료구조", 3, "2-1", R, until=2022),
        _c("COSE213", "자료구조 및 실습", 4, "2-1", R, since=2023),
        _c("COSE214", "알고리즘", 3, "2-2", R),
        _c("COSE221", "논리설계", 3, "2-1", R, until=2018, waived="double convergence"),
        _c("COSE222", "컴퓨터구조", 3, "2-2", R),
        _c("COSE341", "운영체제", 3, "3-1", R),
        _c("COSE371", "데이터베이스", 3, "3-1", E, until=2018),
        _c("COSE371", "데이터베이스", 3, "3-1", R, since=2019, waived="convergence"),
        _c("COSE342", "컴퓨터네트워크", 3, "3-2", R, until=2020, waived="convergence"),
        _c("COSE342", "컴퓨터네트워크", 3, "3-2", E, since=2021),
        _c("COSE351", "소프트웨어공학", 3, "3-2", R, until=2023, waived="double convergence"),
        _c("COSE351", "소프트웨어공학", 3, "3-2", E, since=2024),
        _c("COSE290", "SW세미나", 1, "2-1", R, since=2020, until=2022, waived="double convergence"),
        _c("COSE489", "캡스톤디자인", 3, "4-1", R, since=2021, until=2025),
        _c("COSE489", "캡스톤디자인Ⅰ", 2, "4-1", R, since=2026),
        _c("COSE490", "캡스톤디자인Ⅱ", 2, "4-2", R, since=2026, waived="convergence"),
        _c("COSE361", "인공지능", 3, "3-1", E, until=2023),
        _c("COSE361", "인공지능", 3, "3-1", R, since=2024, waived="double"),
        _c("COSE315", "오픈소스소프트웨어실습", 2, "2-2", R, since=2026, waived="double convergence"),
        _c("MATH131", "선형대수", 3, "2-1", E, until=2018),
        _c("COSE212", "프로그래밍언어", 3, "3-1", E),
        _c("COSE322", "시스템프로그래밍", 3, "3-1", E),
        _c("COSE332", "멀티미디어", 3, "3-1", E, until=2018),
        _c("COSE312", "컴파일러", 3, "3-2", E),
        _c("COSE331", "컴퓨터그래픽스", 3, "3-2", E, until=2022),
        _c("COSE353", "정보보호", 3, "3-2", E, until=2020),
        _c("COSE353", "정보보안", 3, "3-2", E, since=2021),
        _c("COSE401", "수치해석", 3, "3-2", E, until=2018),
        _c("COSE362", "기계학습", 3, "3-2", E, since=2017),
        _c("COSE373", "웹프로그래밍", 3, "2-2", E, until=2019),
        _c("COSE373", "웹·모바일프로그래밍", 3, "2-2", E, since=2020),
        _c("COSE421", "임베디드시스템", 3, "4-1", E, until=2020),
        _c("COSE451", "HCI", 3, "4-1", E, since=2017),
        _c("COSE474", "딥러닝", 3, "4-1", E, since=2019),
        _c("COSE481", "클라우드컴퓨팅", 3, "4-1", E, since=2021),
        _c("COSE461", "자연어처리", 3, "4-1", E, since=2023),
        _c("COSE482", "분산시스템", 3, "4-2", E),
        _c("COSE472", "컴퓨터비전", 3, "4-2", E, since=2019),
        _c("COSE483", "블록체인", 3, "4-2", E, since=2021, until=2023),
        _c("COSE491", "양자컴퓨팅개론", 3, "4-2", E, since=2026),
    ),
    "DS": (
        _c("DASC101", "데이터과학개론", 3, "1-1", F),
        _c("DASC102", "파이썬프로그래밍", 3, "1-1", F, until=2020),
        _c("DASC102", "데이터프로그래밍", 3, "1-1", F, since=2021),
        _c("MATH111", "미적분학Ⅰ", 3, "1-1", F, until=2022),
        _c("MATH131", "선형대수", 3, "1-2", F),
        _c("STAT101", "통계학입문", 3, "1-2", F, until=2018),
        _c("STAT101", "기초통계학", 3, "1-2", F, since=2019),
        _c("DASC103", "R프로그래밍", 2, "1-2", F, since=2017, until=2022),
        _c("DASC201", "확률론", 3, "2-1", R),
        _c("DASC202", "수리통계학", 3, "2-2", R, until=2023),
        _c("DASC202", "통계적 추론", 3, "2-2", R, since=2024),
        _c("DASC211", "데이터구조", 3, "2-1", R, until=2018, waived="convergence"),
        _c("DASC211", "자료구조와 알고리즘", 4, "2-1", R, since=2019, waived="convergence"),
        _c("DASC221", "데이터베이스", 3, "2-2", R, waived="double convergence"),
        _c("DASC301", "회귀분석", 3, "3-1", R),
        _c("DASC311", "데이터마이닝", 3, "3-1", R, until=2020, waived="convergence"),
        _c("DASC311", "데이터마이닝", 3, "3-1", E, since=2021),
        _c("DASC321", "기계학습", 3, "3-2", E, until=2016),
        _c("DASC321", "기계학습", 3, "3-2", R, since=2017),
        _c("DASC401", "졸업프로젝트", 3, "4-1", R, since=2019, until=2022),
        _c("DASC491", "캡스톤디자인Ⅰ", 2, "4-1", R, since=2023),
        _c("DASC492", "캡스톤디자인Ⅱ", 2, "4-2", R, since=2023, waived="double convergence"),
        _c("DASC231", "데이터시각화", 3, "2-2", E, until=2020),
        _c("DASC231", "데이터시각화", 3, "2-2", R, since=2021, waived="double"),
        _c("DASC331", "빅데이터시스템", 3, "3-2", E, since=2019, until=2023),
        _c("DASC331", "빅데이터처리", 3, "3-2", R, since=2024, waived="convergence"),
        _c("DASC341", "데이터윤리", 1, "3-1", R, since=2026),
        _c("DASC302", "다변량분석", 3, "3-2", E),
        _c("DASC303", "실험계획법", 3, "3-1", E, until=2018),
        _c("DASC304", "비모수통계", 3, "3-2", E, until=2020),
        _c("DASC232", "웹데이터수집", 3, "2-2", E, until=2022),
        _c("DASC305", "최적화이론", 3, "3-1", E, since=2020),
        _c("DASC411", "시계열분석", 3, "4-1", E),
        _c("DASC412", "베이지안통계", 3, "4-1", E, since=2017),
        _c("DASC413", "딥러닝", 3, "4-1", E, since=2019),
        _c("DASC414", "금융데이터분석", 3, "4-1", E, since=2021),
        _c("DASC421", "자연어처리", 3, "4-2", E, since=2021),
        _c("DASC422", "추천시스템", 3, "4-2", E, since=2023),
        _c("DASC423", "인과추론", 3, "4-2", E, since=2024),
        _c("DASC424", "생성형AI응용", 3, "4-2", E, since=2026),
    ),
    "AI": (
        _c("AINT101", "AI프로그래밍", 3, "1-1", F, since=2019),
        _c("MATH111", "미적분학Ⅰ", 3, "1-1", F, since=2019),
        _c("MATH131", "선형대수", 3, "1-2", F, since=2019),
        _c("STAT201", "확률과 통계", 3, "1-2", F, since=2019, until=2022),
        _c("STAT201", "AI를 위한 확률과 통계", 3, "1-2", F, since=2023),
        _c("AINT102", "인공지능개론", 3, "1-2", F, since=2019),
        _c("AINT103", "AI수학", 3, "2-1", F, since=2021),
        _c("AINT201", "자료구조", 3, "2-1", R, since=2019, waived="convergence"),
        _c("AINT202", "알고리즘", 3, "2-2", R, since=2019),
        _c("AINT211", "기계학습", 3, "2-2", R, since=2019, until=2022),
        _c("AINT211", "기계학습원론", 3, "2-2", R, since=2023),
        _c("AINT301", "딥러닝", 3, "3-1", R, since=2019),
        _c("AINT302", "강화학습", 3, "3-2", R, since=2019, until=2020, waived="double convergence"),
        _c("AINT302", "강화학습", 3, "3-2", E, since=2021),
        _c("AINT311", "컴퓨터비전", 3, "3-2", E, since=2019, until=2020),
        _c("AINT311", "컴퓨터비전", 3, "3-2", R, since=2021, waived="double convergence"),
        _c("AINT401", "졸업프로젝트", 3, "4-1", R, since=2019, until=2020),
        _c("AINT489", "캡스톤디자인", 3, "4-1", R, since=2021, until=2023),
        _c("AINT491", "캡스톤디자인Ⅰ", 2, "4-1", R, since=2024),
        _c("AINT492", "캡스톤디자인Ⅱ", 2, "4-2", R, since=2024, waived="convergence"),
        _c("AINT321", "AI윤리", 2, "3-1", R, since=2023, waived="double"),
        _c("AINT322", "자연어처리", 3, "3-1", E, since=2019, until=2023),
        _c("AINT322", "자연어처리", 3, "3-1", R, since=2024, waived="convergence"),
        _c("AINT212", "AI시스템프로그래밍", 3, "2-1", R, since=2026, waived="double convergence"),
        _c("AINT221", "데이터베이스", 3, "2-2", E, since=2019),
        _c("AINT231", "운영체제", 3, "3-1", E, since=2019),
        _c("AINT303", "최적화", 3, "3-1", E, since=2020),
        _c("AINT331", "로보틱스개론", 3, "3-2", E, since=2019),
        _c("AINT411", "음성인식", 3, "4-1", E, since=2019, until=2022),
        _c("AINT412", "의료인공지능", 3, "4-1", E, since=2021, until=2023),
        _c("AINT413", "생성모델", 3, "4-1", E, since=2023),
        _c("AINT414", "멀티모달학습", 3, "4-1", E, since=2026),
        _c("AINT421", "추천시스템", 3, "4-2", E, since=2020),
        _c("AINT422", "설명가능AI", 3, "4-2", E, since=2021),
        _c("AINT423", "그래프신경망", 3, "4-2", E, since=2024),
        _c("AINT424", "대규모언어모델", 3, "4-2", E, since=2024),
    ),
}

# What each course covers, for the course-description pages (keyed by course name).
TOPICS = {
    "컴퓨터프로그래밍Ⅰ": "C 언어 문법, 제어 구조, 함수와 배열, 포인터 기초",
    "컴퓨터프로그래밍Ⅱ": "구조체, 동적 메모리, 파일 입출력, 객체지향 개념의 도입",
    "객체지향프로그래밍": "클래스와 객체, 상속과 다형성, 예외 처리, 디자인 패턴 입문",
    "미적분학Ⅰ": "극한과 연속, 미분법, 적분법과 그 응용",
    "미적분학Ⅱ": "급수, 다변수 함수의 미분, 중적분",
    "일반물리학Ⅰ": "역학, 에너지와 운동량, 회전 운동",
    "선형대수": "행렬과 연립방정식, 벡터공간, 고유값과 고유벡터, 특이값 분해",
    "확률과 통계": "확률분포, 기대값, 표본분포, 추정과 검정",
    "AI를 위한 확률과 통계": "확률분포, 베이즈 정리, 최대우도추정, 정보이론 기초",
    "인공지능기초": "탐색, 지식 표현, 기계학습의 기본 개념과 실습",
    "이산구조": "집합, 논리, 관계와 함수, 그래프와 트리",
    "이산수학": "명제 논리, 증명 기법, 조합론, 그래프 이론",
    "자료구조": "배열, 연결 리스트, 스택과 큐, 트리, 그래프, 해싱",
    "자료구조 및 실습": "선형 자료구조, 트리와 힙, 그래프 탐색을 주간 실습과 함께",
    "알고리즘": "분할정복, 동적계획법, 탐욕 알고리즘, 그래프 알고리즘, NP-완전성",
    "논리설계": "불 대수, 조합 회로, 순차 회로, 유한 상태 기계",
    "컴퓨터구조": "명령어 집합, 파이프라인, 캐시와 메모리 계층, 입출력",
    "운영체제": "프로세스와 스레드, 스케줄링, 동기화, 가상 메모리, 파일 시스템",
    "데이터베이스": "관계 모델, SQL, 정규화, 트랜잭션과 동시성 제어",
    "컴퓨터네트워크": "계층 구조, TCP/IP, 라우팅, 네트워크 프로그래밍",
    "소프트웨어공학": "요구사항 분석, 설계, 테스트, 형상 관리, 애자일 방법론",
    "SW세미나": "산업계 연사 특강과 진로 탐색, 기술 동향 토론",
    "캡스톤디자인": "팀 단위 문제 정의부터 설계, 구현, 발표까지의 종합 프로젝트",
    "캡스톤디자인Ⅰ": "팀 구성, 주제 선정, 요구사항 정의와 설계",
    "캡스톤디자인Ⅱ": "구현, 검증, 최종 발표와 결과 보고서",
    "인공지능": "탐색과 추론, 불확실성, 기계학습과 신경망의 기초",
    "오픈소스소프트웨어실습": "Git 협업, 오픈소스 라이선스, 실제 프로젝트 기여 실습",
    "프로그래밍언어": "구문과 의미론, 타입 시스템, 함수형 프로그래밍",
    "시스템프로그래밍": "어셈블리, 링킹, 예외 제어 흐름, 시스템 콜",
    "멀티미디어": "영상과 음성의 표현, 압축, 스트리밍",
    "컴파일러": "어휘 분석, 구문 분석, 중간 코드, 코드 최적화",
    "컴퓨터그래픽스": "변환과 투영, 래스터화, 셰이딩, OpenGL 실습",
    "정보보호": "암호의 기초, 접근 제어, 네트워크 보안",
    "정보보안": "현대 암호, 시스템 보안, 웹 보안, 보안 사고 대응",
    "수치해석": "오차 분석, 비선형 방정식, 수치 미분과 적분",
    "기계학습": "지도학습과 비지도학습, 모델 선택, 일반화, 앙상블",
    "웹프로그래밍": "HTML/CSS, 자바스크립트, 서버 사이드 프로그래밍",
    "웹·모바일프로그래밍": "웹 프런트엔드, REST API, 모바일 앱 개발",
    "임베디드시스템": "마이크로컨트롤러, 실시간 운영체제, 센서 제어",
    "HCI": "사용자 중심 설계, 프로토타이핑, 사용성 평가",
    "딥러닝": "신경망 최적화, CNN, RNN, 트랜스포머",
    "클라우드컴퓨팅": "가상화, 컨테이너, 분산 스토리지, 클라우드 서비스 설계",
    "자연어처리": "언어 모델, 형태소 분석, 단어 임베딩, 기계 번역",
    "분산시스템": "일관성과 합의, 복제, 장애 허용, 분산 트랜잭션",
    "컴퓨터비전": "영상 처리, 특징 추출, 객체 인식, 영상 분할",
    "블록체인": "합의 알고리즘, 스마트 컨트랙트, 분산 원장",
    "양자컴퓨팅개론": "큐비트, 양자 게이트, 양자 알고리즘의 기초",
    "데이터과학개론": "데이터 과학의 흐름, 데이터 수집·정제·분석·시각화 개관",
    "파이썬프로그래밍": "파이썬 문법, 자료형, 함수, 모듈과 패키지",
    "데이터프로그래밍": "파이썬, NumPy와 pandas를 이용한 데이터 처리",
    "통계학입문": "기술통계, 확률, 추정과 가설검정의 기초",
    "기초통계학": "자료의 요약, 확률분포, 신뢰구간, 가설검정",
    "R프로그래밍": "R 문법, 데이터 프레임, 통계 그래픽스",
    "확률론": "확률공간, 확률변수, 결합분포, 극한정리",
    "수리통계학": "표본분포, 점추정, 구간추정, 가설검정 이론",
    "통계적 추론": "우도 기반 추론, 부트스트랩, 베이지안 추론의 기초",
    "데이터구조": "배열, 리스트, 트리, 해시 테이블과 그 응용",
    "자료구조와 알고리즘": "자료구조와 정렬·탐색·그래프 알고리즘을 하나로 묶은 과목",
    "회귀분석": "단순·다중 회귀, 모형 진단, 변수 선택, 일반화 선형모형",
    "데이터마이닝": "분류, 군집, 연관 규칙, 이상 탐지",
    "졸업프로젝트": "지도교수와 함께 수행하는 개인 또는 팀 단위 연구 프로젝트",
    "데이터시각화": "시각적 인코딩, 대시보드 설계, 인터랙티브 시각화",
    "빅데이터시스템": "하둡, 스파크, 분산 파일 시스템",
    "빅데이터처리": "스파크 기반 대용량 처리, 스트리밍, 데이터 파이프라인",
    "데이터윤리": "개인정보 보호, 알고리즘 공정성, 연구 윤리",
    "다변량분석": "주성분분석, 요인분석, 판별분석, 군집분석",
    "실험계획법": "요인 실험, 블록 설계, 분산분석",
    "비모수통계": "순위 검정, 커널 밀도 추정, 재표본 방법",
    "웹데이터수집": "웹 크롤링, API 활용, 비정형 데이터 정제",
    "최적화이론": "볼록 최적화, 경사하강법, 제약 최적화",
    "최적화": "볼록 최적화, 확률적 경사하강법, 딥러닝 최적화 기법",
    "시계열분석": "ARIMA, 상태공간 모형, 시계열 예측",
    "베이지안통계": "사전분포와 사후분포, MCMC, 계층 모형",
    "금융데이터분석": "수익률 모형, 위험 측정, 포트폴리오 분석",
    "추천시스템": "협업 필터링, 행렬 분해, 딥러닝 기반 추천",
    "인과추론": "잠재 결과 모형, 성향 점수, 실험과 준실험 설계",
    "생성형AI응용": "대규모 언어모델 활용, 프롬프트 설계, 검색 증강 생성",
    "AI프로그래밍": "파이썬, 넘파이, 파이토치 기초",
    "인공지능개론": "인공지능의 역사, 탐색, 기계학습과 딥러닝 개관",
    "AI수학": "AI에 필요한 미적분, 행렬 미분, 최적화의 기초",
    "기계학습원론": "학습 이론, 선형 모형, 커널 방법, 앙상블과 모델 평가",
    "강화학습": "마르코프 결정 과정, 가치 기반과 정책 기반 방법, 심층 강화학습",
    "AI윤리": "AI의 사회적 영향, 공정성, 책임성, 관련 법과 제도",
    "AI시스템프로그래밍": "GPU 프로그래밍, 모델 서빙, MLOps 기초",
    "로보틱스개론": "기구학, 센서와 제어, 로봇 인지",
    "음성인식": "음향 모델, 언어 모델, 종단간 음성인식",
    "의료인공지능": "의료 영상 분석, 임상 데이터, 규제와 윤리",
    "생성모델": "VAE, GAN, 확산 모델",
    "멀티모달학습": "영상-언어 모델, 멀티모달 표현 학습",
    "설명가능AI": "특징 중요도, 반사실 설명, 모델 해석 기법",
    "그래프신경망": "그래프 표현 학습, 메시지 전달, 그래프 응용",
    "대규모언어모델": "사전학습, 미세조정, 정렬, 추론 효율화",
}

# Major credits (전공 학점) per department, aligned with periods_for(dept).
MAJOR_CREDITS = {
    "CS": {"intensive": (72, 70, 69, 66, 65, 63, 60, 62),
           "double": (48, 45, 44, 42, 40, 39, 36, 38),
           "convergence": (42, 40, 39, 36, 35, 33, 32, 34)},
    "DS": {"intensive": (68, 67, 64, 63, 61, 60, 57, 58),
           "double": (45, 44, 42, 40, 39, 37, 36, 37),
           "convergence": (39, 38, 36, 35, 34, 33, 30, 31)},
    "AI": {"intensive": (66, 64, 62, 59, 56, 54),
           "double": (43, 42, 40, 38, 36, 35),
           "convergence": (38, 37, 35, 33, 30, 31)},
}

# College-wide per period: total credits to graduate and general-education (교양) credits.
TOTAL_CREDITS = (140, 136, 134, 132, 130, 130, 128, 126)
GE_CREDITS = (45, 42, 40, 39, 36, 35, 33, 30)
SECOND_MAJOR_CREDITS = (42, 42, 39, 39, 39, 36, 36, 36)  # the other department's part (이중전공)
CONVERGENCE_PROGRAM_CREDITS = (36, 36, 36, 36, 33, 33, 33, 33)  # the convergence programme itself


def curriculum(dept: Department, period: Period) -> dict[str, list[Course]]:
    """Courses of one curriculum revision, by kind, in recommended order."""
    offered = [c for c in COURSES[dept.code] if c.offered(period)]
    order = lambda c: (c.year, c.semester, c.code)  # noqa: E731
    return {k: sorted((c for c in offered if c.kind == k), key=order) for k in (F, R, E)}


@dataclass(frozen=True)
class Requirement:
    """Graduation requirements of one department, period and major type."""

    total: int
    ge: int
    foundation: int
    major: int
    required: int
    required_courses: tuple[str, ...]
    conditions: tuple[str, ...]


def thesis_rule(dept: Department, period: Period) -> str:
    """How the department's students finish: thesis, project or a capstone course."""
    names = {c.name for c in curriculum(dept, period)[R]}
    if "캡스톤디자인Ⅱ" in names:
        return "캡스톤디자인Ⅰ·Ⅱ 이수(2개 학기)"
    if "캡스톤디자인" in names:
        return "캡스톤디자인 이수"
    if "졸업프로젝트" in names:
        return "졸업프로젝트 이수 및 결과 발표"
    return "졸업논문 제출 및 심사 통과"


def english_rule(period: Period) -> str:
    return ENGLISH_RULES[PERIODS.index(period)]


ENGLISH_RULES = (
    "TOEIC 700점 이상(또는 이에 준하는 공인영어성적)",
    "TOEIC 700점 또는 TOEFL iBT 80점 이상",
    "TOEIC 680점 이상",
    "TOEIC 650점 이상",
    "TOEIC 650점 이상 또는 영어강의 2과목 이수",
    "영어강의 3과목 이상 이수",
    "영어강의 2과목 이상 이수",
    "별도 영어 졸업요건 없음",
)


def _dept_conditions(dept: Department, period: Period) -> list[str]:
    extra = []
    if dept.code == "CS" and period.first >= 2021:
        level = 3 if period.first >= 2026 else 2
        extra.append(f"SW코딩인증 Level {level} 이상 취득")
    if dept.code == "DS" and period.first >= 2023:
        extra.append("데이터분석 포트폴리오 제출(4학년 2학기)")
    if dept.code == "AI" and period.first >= 2024:
        extra.append("현장실습 또는 학부연구참여 3학점 이상 이수")
    return extra


def requirement(dept: Department, period: Period, major_type: str) -> Requirement:
    index = periods_for(dept).index(period)
    p_index = PERIODS.index(period)
    cur = curriculum(dept, period)
    required = [c for c in cur[R] if major_type not in c.waived]
    foundation = sum(c.credits for c in cur[F])
    if major_type != "intensive":  # a second major leaves room by trimming 전공기초
        foundation = max(6, foundation - (6 if major_type == "double" else 9))
    conditions = [f"영어 졸업요건: {english_rule(period)}", thesis_rule(dept, period)]
    conditions += _dept_conditions(dept, period)
    if major_type == "intensive" and period.first >= 2019:
        credits = 12 if period.first >= 2023 else 9
        conditions.append(f"4학년 개설 전공선택(심화 과목) {credits}학점 이상 이수")
    if major_type == "double":
        conditions.append(f"이중전공(제2전공) {SECOND_MAJOR_CREDITS[p_index]}학점 별도 이수")
    if major_type == "convergence":
        conditions.append(f"융합전공 {CONVERGENCE_PROGRAM_CREDITS[p_index]}학점 별도 이수")
    return Requirement(
        total=TOTAL_CREDITS[p_index],
        ge=GE_CREDITS[p_index],
        foundation=foundation,
        major=MAJOR_CREDITS[dept.code][major_type][index],
        required=sum(c.credits for c in required),
        required_courses=tuple(c.name for c in required),
        conditions=tuple(conditions),
    )


@cache
def changes(dept_code: str, index: int) -> dict[str, list[str]]:
    """What the revision at periods_for(dept)[index] changed compared with the one before it."""
    dept = DEPT[dept_code]
    periods = periods_for(dept)
    if index == 0:
        return {"added": [], "removed": [], "renamed": [], "moved": []}
    old = {c.code: c for cs in curriculum(dept, periods[index - 1]).values() for c in cs}
    new = {c.code: c for cs in curriculum(dept, periods[index]).values() for c in cs}
    kinds = {F: "전공기초", R: "전공필수", E: "전공선택"}
    out: dict[str, list[str]] = {"added": [], "removed": [], "renamed": [], "moved": []}
    for code in sorted(new.keys() - old.keys()):
        out["added"].append(f"{new[code].name}({kinds[new[code].kind]})")
    for code in sorted(old.keys() - new.keys()):
        out["removed"].append(old[code].name)
    for code in sorted(old.keys() & new.keys()):
        before, after = old[code], new[code]
        if before.name != after.name:
            out["renamed"].append(f"{before.name} → {after.name}")
        if before.kind != after.kind:
            out["moved"].append(f"{after.name}: {kinds[before.kind]} → {kinds[after.kind]}")
    return out
