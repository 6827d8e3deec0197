"""College-wide pages: home, /about/, /academics/ (rules by cohort, grade and status), /en/."""

from __future__ import annotations

import datetime

from examples.site_kit.markup import Markup, a, h, join, p, section, table, ul
from examples.site_kit.updated import last_updated

from . import policies
from .catalog import (
    CONVERGENCE_PROGRAM_CREDITS,
    DEPARTMENTS,
    FIRST_COHORT,
    GE_CREDITS,
    LAST_COHORT,
    PERIODS,
    SECOND_MAJOR_CREDITS,
    TOTAL_CREDITS,
    english_rule,
    periods_for,
)
from .dept_curriculum import graduation_path
from .model import Output, Section, applies, narrow
from .pages import add_page
from .phrasing import cohort, cohort_scope, grades, josa, pick, rng_for, status

SOURCE = "college-pages"
ACADEMICS = (
    ("graduation.html", "졸업요건"), ("general-education.html", "교양교육과정"),
    ("electives.html", "일반선택·교양선택"), ("double-major.html", "이중전공"),
    ("convergence-major.html", "융합전공"), ("scholarships.html", "장학 안내"),
    ("field-practice.html", "현장실습"), ("leave-return.html", "휴학·복학"),
    ("course-registration.html", "수강신청"), ("transfer-credits.html", "편입생 학점 인정"),
    ("calendar.html", "학사일정"),
)
ABOUT = (("history.html", "연혁"), ("location.html", "오시는 길"), ("organization.html", "행정조직"),
         ("privacy.html", "개인정보처리방침"))
ENGLISH = (("international-students.html", "International students"),
           ("academic-guide.html", "Academic guide"), ("scholarships.html", "Scholarships"),
           ("korean-language.html", "Korean language program"))


class Page:
    """Collects one page's body and sections so each builder reads top to bottom."""

    def __init__(self, path: str, base: dict | None = None):
        self.path, self.rng = path, rng_for(path)
        self.base = base or applies()
        self.parts: list[Markup] = []
        self.sections: list[Section] = []

    def add(self, *parts: Markup) -> None:
        self.parts.extend(parts)

    def block(self, heading: str, *body: Markup, level: int = 2, topic: str | None = None,
              **limits) -> None:
        """A headed block; with ``limits`` it is recorded as a section for those students."""
        self.parts.append(section(h(level, heading), *body))
        if limits:
            self.sections.append(Section(heading, narrow(self.base, **limits), topic=topic))

    def publish(self, out: Output, as_of, title: str, crumbs, topic="general", lang="ko") -> None:
        add_page(out, as_of, path=self.path, source=SOURCE, title=title, crumbs=crumbs,
                 body=join(self.parts), topic=topic, applies_to=self.base,
                 sections=self.sections, lang=lang, updated=_updated(self.path, as_of))


ACAD = ("학사안내", "/academics/")
# the pages that say when they were last revised: the academic rules and the English guides, as a
# real college's are (not the menus, not the about pages)
DATED = ("/academics/", "/en/")


def _updated(path: str, as_of: datetime.date) -> datetime.date | None:
    return last_updated(path, as_of) if path.startswith(DATED) and path not in DATED else None


def home(out: Output, as_of: datetime.date, latest: list[tuple[str, str, str]]) -> None:
    pg = Page("/index.html")
    pg.add(p("한빛대학교 정보대학은 컴퓨터학과, 데이터과학과, 인공지능학과로 이루어진 단과대학입니다. "
             "학사 규정과 학과별 교육과정, 공지사항을 한곳에서 확인하세요."))
    pg.block("바로가기", ul([a(href, label) for href, label in [
        ("/about/", "대학소개"), ("/academics/", "학사안내"), ("/departments/", "학과 안내"),
        ("/regulations/", "학사 규정과 자료집"), ("/board/", "공지사항"), ("/faq/", "자주 묻는 질문"),
        ("/en/", "International students (English)")]]))
    pg.block("최신 공지", ul([join([a(href, title), f" ({date})"]) for href, title, date in latest]))
    pg.publish(out, as_of, "한빛대학교 정보대학", [])


def about_pages(out: Output, as_of: datetime.date) -> None:
    crumbs = [("대학소개", "/about/")]
    pg = Page("/about/")
    pg.add(p("정보대학은 1987년 전자계산학과 설립으로 시작해 2019년 인공지능학과 신설로 세 학과 체제를 갖추었습니다."),
           ul([a(f"/about/{f}", label) for f, label in ABOUT]))
    pg.block("학과 구성", table("정보대학 학과", ["학과", "설립", "위치"],
                                [[d.name, f"{d.founded}년", d.building] for d in DEPARTMENTS]))
    pg.publish(out, as_of, "정보대학 소개", [("대학소개", None)])

    pg = Page("/about/history.html")
    events = [("1987", "전자계산학과 설립"), ("2005", "컴퓨터학부 개편"), ("2015", "데이터사이언스학과 신설"),
              ("2019", "인공지능학과 신설, 컴퓨터학부를 컴퓨터학과로 개편"), ("2021", "데이터과학과로 명칭 변경"),
              ("2023", "지능형데이터융합전공 신설")]
    pg.add(table("정보대학 연혁", ["연도", "내용"], [list(e) for e in events]))
    pg.publish(out, as_of, "정보대학 연혁", crumbs + [("연혁", None)])

    pg = Page("/about/location.html")
    pg.add(p("지하철 6호선 한빛대역 2번 출구에서 도보 7분 거리입니다. 정보관은 정문을 지나 오른쪽 첫 건물입니다."),
           ul(["버스: 간선 273, 지선 1111 한빛대 정문 하차", "주차: 정보관 지하 주차장(방문객 1시간 무료)"]))
    pg.publish(out, as_of, "오시는 길", crumbs + [("오시는 길", None)])

    pg = Page("/about/organization.html")
    rows = [["행정실", "02-3290-3000", "예산, 시설, 일반 행정"], ["학사지원팀", "02-3290-3010", "수강신청, 학적, 졸업사정"],
            ["장학복지팀", "02-3290-3020", "교내외 장학금, 근로장학"], ["현장실습지원센터", "02-3290-3030", "현장실습 기업 연계"],
            ["국제교류팀", "02-3290-3040", "외국인 유학생, 교환학생"]]
    pg.add(table("행정조직과 연락처", ["부서", "전화", "담당 업무"], rows))
    pg.publish(out, as_of, "행정조직", crumbs + [("행정조직", None)])

    pg = Page("/about/privacy.html")
    pg.add(p("정보대학 홈페이지는 회원 가입 없이 이용할 수 있으며, 문의 메일에 포함된 개인정보는 답변 후 1년간 보관 후 파기합니다."))
    pg.publish(out, as_of, "개인정보처리방침", crumbs + [("개인정보처리방침", None)])


def graduation(out: Output, as_of: datetime.date) -> None:
    pg = Page("/academics/graduation.html")
    rows = [[cohort_scope(q.first, q.last, pg.rng), f"{TOTAL_CREDITS[i]}학점", f"{GE_CREDITS[i]}학점",
             english_rule(q)] for i, q in enumerate(PERIODS)]
    pg.add(p(pick(pg.rng, "졸업요건은 입학년도(학번)에 따라 다릅니다. 아래 표에서 본인의 학번을 먼저 확인하세요.",
                  "정보대학 학생의 졸업요건을 입학년도별로 안내합니다. 전공 학점은 학과와 전공 유형에 따라 다릅니다.")),
           table("입학년도별 졸업 이수학점 요약", ["입학년도", "졸업 이수학점", "교양", "영어 졸업요건"], rows))
    for i, q in enumerate(PERIODS):
        links = [a(graduation_path(d, q), d.name) for d in DEPARTMENTS if q in periods_for(d)]
        who = cohort(q.first, q.last, pg.rng)
        pg.block(f"{q.label}학년도 입학생",
                 p(f"{josa(who, '은/는')} 총 {TOTAL_CREDITS[i]}학점 이상, 교양 {GE_CREDITS[i]}학점 이상을 이수해야 합니다. "
                   f"영어 졸업요건은 '{english_rule(q)}'입니다."),
                 p("학과별 전공 요건: ", join(links, " · ")),
                 topic="graduation_requirements", admission_year=(q.first, q.last))
    pg.publish(out, as_of, "졸업요건 안내", [ACAD, ("졸업요건", None)], topic="graduation_requirements")


def general_education(out: Output, as_of: datetime.date) -> None:
    pg = Page("/academics/general-education.html")
    pg.add(p("교양은 공통교양(필수)과 핵심교양(영역별 선택)으로 나뉩니다. 공통교양 과목은 입학년도에 따라 다릅니다."),
           p("핵심교양 영역: " + ", ".join(policies.GE_AREA_NAMES) + "."))
    for i, q in enumerate(PERIODS):
        courses = policies.ge_required(q)
        areas, of = policies.GE_CORE_AREAS[i]
        heading = pick(pg.rng, f"{cohort_scope(q.first, q.last, pg.rng)} 교양 이수 기준",
                       f"{q.label}학년도 입학생 공통교양")
        pg.block(heading,
                 table(f"{q.label}학년도 입학생 공통교양(필수)", ["교과목", "학점"], [[n, str(c)] for n, c in courses]),
                 p(f"공통교양 {sum(c for _, c in courses)}학점, 핵심교양 {of}개 영역 중 {areas}개 영역 이상을 포함해 "
                   f"교양 {GE_CREDITS[i]}학점 이상을 이수합니다."),
                 topic="ge_required", admission_year=(q.first, q.last))
    pg.publish(out, as_of, "교양교육과정 안내", [ACAD, ("교양교육과정", None)], topic="ge_required")


def electives(out: Output, as_of: datetime.date) -> None:
    pg = Page("/academics/electives.html")
    pg.add(p("일반선택은 교양과 전공 요건을 채우고 남은 학점으로, 다른 학과 전공 과목이나 교양선택 과목을 자유롭게 들을 수 있습니다."))
    pg.block("교양선택", p("핵심교양 영역 요건을 채운 뒤 추가로 들은 교양 과목은 교양선택으로 인정됩니다."))
    pg.block("2020학번 이전 입학자의 일반선택 인정 한도",
             p("타 단과대학 전공 과목은 최대 30학점까지 일반선택으로 인정합니다."),
             topic="electives", admission_year=(FIRST_COHORT, 2020))
    pg.block("2021학번부터 적용되는 일반선택 인정 한도",
             p("타 단과대학 전공 과목은 최대 24학점까지 인정하며, 현장실습 학점은 별도로 계산합니다."),
             topic="electives", admission_year=(2021, LAST_COHORT))
    pg.publish(out, as_of, "일반선택·교양선택 안내", [ACAD, ("일반선택", None)], topic="electives")


def double_major(out: Output, as_of: datetime.date) -> None:
    pg = Page("/academics/double-major.html", applies(major_type="double"))
    pg.add(p(pick(pg.rng, "이중전공은 소속 학과(제1전공) 외에 다른 학과를 제2전공으로 함께 이수하는 제도입니다.",
                  "이중전공을 이수하면 두 개의 학위가 학위기에 함께 기재됩니다.")))
    pg.block("신청 자격", p(f"2개 학기 이상 이수한 {grades(2, 4, pg.rng)}이 신청할 수 있습니다. 휴학 중에는 신청할 수 없습니다."),
             topic="double_major", grade=(2, 4))
    for lo, hi, gpa in policies.DOUBLE_MAJOR_MIN_GPA:
        pg.block(f"{cohort(lo, hi, pg.rng)}의 평점 기준", p(f"신청 학기 직전까지의 평점평균이 {gpa} 이상이어야 합니다."),
                 level=3, topic="double_major", admission_year=(lo, hi))
    rows = [[cohort_scope(q.first, q.last, pg.rng), f"{SECOND_MAJOR_CREDITS[i]}학점"] for i, q in enumerate(PERIODS)]
    pg.block("제2전공 이수 학점", table("입학년도별 제2전공 이수 학점", ["입학년도", "제2전공 학점"], rows),
             p("제1전공의 감면된 이수 학점은 학과별 졸업요건 페이지의 '이중전공' 항목을 확인하세요."))
    pg.block("포기와 변경", p("이중전공은 4학년 1학기까지 포기할 수 있으며, 포기하면 제1전공 심화전공 요건을 다시 충족해야 합니다."))
    pg.publish(out, as_of, "이중전공 안내", [ACAD, ("이중전공", None)], topic="double_major")


def convergence_major(out: Output, as_of: datetime.date) -> None:
    pg = Page("/academics/convergence-major.html", applies(major_type="convergence"))
    pg.add(p("융합전공은 두 개 이상의 학과가 함께 운영하는 전공으로, 제1전공과 병행해 이수합니다."))
    rows = [[cohort_scope(q.first, q.last, pg.rng), f"{CONVERGENCE_PROGRAM_CREDITS[i]}학점"] for i, q in enumerate(PERIODS)]
    pg.add(table("입학년도별 융합전공 이수 학점", ["입학년도", "융합전공 학점"], rows))
    for prog in policies.CONVERGENCE_PROGRAMS:
        partners = ", ".join(d.name for d in DEPARTMENTS if d.code in prog.departments)
        pg.block(prog.name, p(f"{prog.summary}. 운영 학과: {partners}."),
                 p(f"신청 대상: {cohort(prog.since, LAST_COHORT, pg.rng)}."),
                 topic="convergence_major", admission_year=(prog.since, LAST_COHORT))
    pg.publish(out, as_of, "융합전공 안내", [ACAD, ("융합전공", None)], topic="convergence_major")


def scholarships(out: Output, as_of: datetime.date) -> None:
    pg = Page("/academics/scholarships.html")
    rng = pg.rng
    pg.add(p("정보대학 학생이 받을 수 있는 교내 장학금을 학적 상태별로 정리했습니다."))
    merit = [[f"{g} 이상", f"등록금의 {pct}%"] for g, pct in policies.MERIT_SCHOLARSHIP]
    pg.block("성적우수장학금", p(f"직전 학기 12학점 이상을 이수한 {status('enrolled', rng)}에게 지급합니다. 1학년 1학기는 제외합니다."),
             table("성적우수장학 지급 기준", ["직전 학기 평점", "지급액"], merit),
             topic="scholarship", student_status="enrolled")
    pg.block("복학생 정착장학금", p(f"1년 이상 휴학한 뒤 복학한 {status('returning', rng)}에게 복학 첫 학기 등록금의 "
                                   f"{policies.RETURNING_SCHOLARSHIP_PCT}%를 지급합니다. "
                                   f"휴학 직전 학기 평점이 {policies.RETURNING_MIN_GPA} 이상이어야 합니다."),
             topic="scholarship", student_status="returning")
    lo_pct, hi_pct = policies.TRANSFER_SCHOLARSHIP_PCT
    pg.block("편입생 적응장학금", p(f"{status('transfer', rng, '은/는')} 편입 첫 학기에 등록금의 {lo_pct}%를 받으며, 전적 대학 평점이 "
                                   f"3.5 이상이면 {hi_pct}%를 받습니다."),
             topic="scholarship", student_status="transfer")
    topik = [[f"TOPIK {lvl}급", f"등록금의 {pct}%"] for lvl, pct in policies.TOPIK_SCHOLARSHIP]
    pg.block("외국인 유학생 장학금", p(f"{status('international', rng, '은/는')} 한국어능력시험(TOPIK) 등급에 따라 감면받습니다. "
                                     f"재학 중에는 직전 학기 평점 {policies.INTERNATIONAL_MIN_GPA} 이상을 유지해야 합니다."),
             table("TOPIK 등급별 장학 기준", ["TOPIK 등급", "감면액"], topik),
             topic="scholarship", student_status="international")
    pg.block("휴학생 유의사항", p(f"{status('on_leave', rng, '은/는')} 장학금을 신청할 수 없습니다. 장학금을 받은 학기에 휴학하면 "
                                 "군휴학은 복학 학기로 이월되고, 일반휴학은 지급액을 반환해야 합니다."),
             topic="scholarship", student_status="on_leave")
    pg.block("국가장학금과 근로장학", p("국가장학금은 한국장학재단에서 신청하며, 근로장학생은 매 학기 초 학과 사무실에서 모집합니다."))
    pg.publish(out, as_of, "장학 안내", [ACAD, ("장학", None)], topic="scholarship")


def field_practice(out: Output, as_of: datetime.date) -> None:
    pg = Page("/academics/field-practice.html", applies(grade=(3, 4)))
    rng = pg.rng
    rows = [[name, weeks, f"{cr}학점", grades(*g, rng)] for name, weeks, cr, g in policies.FIELD_PRACTICE_TYPES]
    pg.add(p(pick(rng, f"현장실습은 {grades(3, 4, rng)}이 기업과 기관에서 실무를 경험하고 학점을 받는 제도입니다.",
                  "정보대학 현장실습은 3학년 이상 재학생을 대상으로 합니다.")),
           table("현장실습 유형과 인정 학점", ["유형", "기간", "학점", "대상"], rows),
           p(f"실습 지원금: {policies.FIELD_PRACTICE_ALLOWANCE}."))
    pg.block("학기제 현장실습", p("15주 동안 기업에 상주하는 학기제 현장실습은 4학년만 신청할 수 있으며 12학점을 인정합니다."),
             topic="field_practice", grade=(4, 4))
    cut = policies.FIELD_PRACTICE_MAJOR_FROM
    pg.block(f"{cohort(FIRST_COHORT, cut - 1, rng)}의 학점 인정", p("현장실습 학점은 일반선택으로 인정됩니다."),
             topic="field_practice", admission_year=(FIRST_COHORT, cut - 1))
    pg.block(f"{cohort(cut, LAST_COHORT, rng)}의 학점 인정",
             p("학과가 정한 한도(컴퓨터학과·인공지능학과 6학점, 데이터과학과 9학점)까지 전공선택으로 인정됩니다."),
             topic="field_practice", admission_year=(cut, LAST_COHORT))
    pg.block("휴학생의 참여 제한", p(f"{status('on_leave', rng, '은/는')} 현장실습에 참여할 수 없습니다. 실습 학기에 복학 신청을 먼저 하세요."),
             topic="field_practice", student_status="on_leave")
    pg.publish(out, as_of, "현장실습 안내", [ACAD, ("현장실습", None)], topic="field_practice")


def leave_return(out: Output, as_of: datetime.date) -> None:
    pg = Page("/academics/leave-return.html")
    rng = pg.rng
    pg.add(p("휴학과 복학은 정해진 기간에 포털에서 신청합니다. 기간을 놓치면 미등록 제적이 될 수 있으니 주의하세요."))
    pg.block("휴학 신청", p(f"{status('enrolled', rng, '은/는')} 1학기 {policies.LEAVE_WINDOWS[1]}, 2학기 {policies.LEAVE_WINDOWS[2]}에 휴학을 신청할 수 있습니다. "
                           "일반휴학은 1회에 1~2개 학기 단위로 신청합니다."),
             topic="leave_return", student_status="enrolled")
    pg.block("휴학 연장", p(f"{status('on_leave', rng, '이/가')} 휴학을 연장하려면 복학 신청 기간 안에 연장 신청을 해야 합니다. "
                           f"창업휴학은 일반휴학과 별도로 최대 {policies.STARTUP_LEAVE_SEMESTERS}개 학기까지 가능합니다."),
             topic="leave_return", student_status="on_leave")
    pg.block("복학 신청", p(f"휴학 기간이 끝나는 학생은 1학기 {policies.RETURN_WINDOWS[1]}, 2학기 {policies.RETURN_WINDOWS[2]}에 복학을 신청합니다. "
                           "군 복무를 마친 학생은 전역일이 학기 개시일 이후 1/4 이전이면 해당 학기에 복학할 수 있습니다."),
             topic="leave_return", student_status=("on_leave", "returning"))
    pg.block("입학년도별 일반휴학 한도", p("일반휴학으로 쓸 수 있는 학기 수는 입학년도에 따라 다릅니다."))
    for lo, hi, n in policies.LEAVE_LIMIT:
        pg.block(f"{cohort(lo, hi, rng)}", p(f"일반휴학은 통산 {n}개 학기까지 할 수 있습니다(군휴학 제외)."),
                 level=3, topic="leave_return", admission_year=(lo, hi))
    pg.block("신입생의 휴학 제한", p("신입생은 첫 학기에 일반휴학을 할 수 없습니다. 군입대, 질병, 임신·출산은 예외입니다."),
             topic="leave_return", grade=(1, 1))
    pg.block("편입생의 휴학 제한", p(f"{status('transfer', rng)}도 편입 첫 학기에는 일반휴학을 할 수 없습니다."),
             topic="leave_return", student_status="transfer")
    pg.block("외국인 유학생 휴학 시 유의사항",
             p(f"{status('international', rng, '이/가')} 휴학하면 {policies.INTERNATIONAL_EXIT_DAYS}일 이내에 출국해야 하며, "
               "국제교류팀에 체류자격 변경 여부를 먼저 상담하세요."),
             topic="leave_return", student_status="international")
    pg.publish(out, as_of, "휴학·복학 안내", [ACAD, ("휴학·복학", None)], topic="leave_return")


def course_registration(out: Output, as_of: datetime.date) -> None:
    pg = Page("/academics/course-registration.html")
    rng = pg.rng
    pg.add(p("수강신청은 학기 시작 약 2주 전에 학년별로 나누어 진행합니다. 장바구니는 1주 전에 열립니다."))
    pg.block("학기당 최대 신청 학점", p("최대 신청 학점은 입학년도에 따라 다릅니다."))
    for lo, hi, normal, honours in policies.MAX_CREDITS:
        pg.block(cohort(lo, hi, rng), p(f"학기당 {normal}학점까지 신청할 수 있고, 직전 학기 평점이 {policies.HONOURS_GPA} 이상이면 "
                                        f"{honours}학점까지 신청할 수 있습니다."),
                 level=3, topic="course_registration", admission_year=(lo, hi))
    pg.block("신입생 수강신청", p(f"1학년 1학기에는 {policies.FRESHMAN_MAX_CREDITS}학점까지 신청할 수 있으며, 공통교양 과목이 미리 배정됩니다."),
             topic="course_registration", grade=(1, 1))
    pg.block("복학생 수강신청", p(f"{status('returning', rng, '은/는')} 복학 신청이 승인된 뒤에 수강신청을 할 수 있습니다. "
                                 "복학 신청을 수강신청 기간 전에 마치세요."),
             topic="course_registration", student_status="returning")
    pg.block("편입생 수강신청", p("편입생은 학점 인정 결과가 확정된 뒤 편입생 전용 기간에 수강신청을 합니다."),
             topic="course_registration", student_status="transfer")
    for lo, hi, cap in policies.RETAKE_CAP:
        pg.block(f"재수강 성적 상한 ({cohort_scope(lo, hi, rng)})",
                 p(f"C+ 이하 과목만 재수강할 수 있으며, 재수강 성적은 최대 {cap}까지 인정됩니다."),
                 topic="course_registration", admission_year=(lo, hi))
    pg.publish(out, as_of, "수강신청 안내", [ACAD, ("수강신청", None)], topic="course_registration")


def transfer_credits(out: Output, as_of: datetime.date) -> None:
    pg = Page("/academics/transfer-credits.html", applies(student_status="transfer"))
    pg.add(p("편입생은 전적 대학에서 이수한 학점 중 최대 65학점을 인정받습니다. 인정 결과는 편입 첫 학기 3월 중 통보됩니다."),
           ul(["전공 학점 인정은 학과 교과목 대응표에 따릅니다.",
               "편입생에게는 편입한 학년도의 3학년 교육과정이 적용됩니다.",
               "교양 요건은 전적 대학 이수 학점으로 충족한 것으로 봅니다."]))
    pg.publish(out, as_of, "편입생 학점 인정", [ACAD, ("편입생 학점 인정", None)], topic="transfer")


def calendar(out: Output, as_of: datetime.date) -> None:
    year = as_of.year if as_of.month >= 3 else as_of.year - 1  # the academic year starts in March
    pg = Page("/academics/calendar.html")
    rows = [[f"{year}.03.02", "1학기 개강"], [f"{year}.03.09", "수강정정 마감"], [f"{year}.04.20", "중간고사"],
            [f"{year}.06.15", "기말고사"], [f"{year}.06.22", "하계 계절학기·현장실습 시작"],
            [f"{year}.09.01", "2학기 개강"], [f"{year}.10.19", "중간고사"], [f"{year}.12.14", "기말고사"],
            [f"{year + 1}.01.15", f"{year + 1}학년도 1학기 휴학 신청 시작"], [f"{year + 1}.02.20", "학위수여식"]]
    pg.add(table(f"{year}학년도 학사일정", ["날짜", "일정"], rows))
    pg.publish(out, as_of, f"{year}학년도 학사일정", [ACAD, ("학사일정", None)], topic="calendar")


def academics_index(out: Output, as_of: datetime.date) -> None:
    pg = Page("/academics/")
    pg.add(p("정보대학 학사 제도 안내입니다. 대부분의 기준이 입학년도, 학년, 학적 상태에 따라 달라집니다."),
           ul([a(f"/academics/{f}", label) for f, label in ACADEMICS]),
           p("학사운영규정 원문은 ", a("/regulations/", "규정·자료실"), "에서 볼 수 있습니다."))
    pg.publish(out, as_of, "학사안내", [("학사안내", None)])


def english_pages(out: Output, as_of: datetime.date) -> None:
    crumbs = [("English", "/en/")]
    intl = applies(student_status="international")
    pg = Page("/en/")
    pg.add(p("Welcome to Hanbit University College of Informatics. The college has three departments: "
             "Computer Science, Data Science and Artificial Intelligence."),
           ul([a(f"/en/{f}", label) for f, label in ENGLISH]),
           ul([a(f"/departments/{d.slug}/en.html", d.english) for d in DEPARTMENTS]))
    pg.publish(out, as_of, "College of Informatics", [("English", None)], lang="en")

    pg = Page("/en/international-students.html", intl)
    pg.add(p("International students must keep a valid D-2 visa while enrolled. Report any change of address "
             "within 14 days."),
           ul(["Korean proficiency: TOPIK level 4 or higher is required to graduate.",
               f"Leave of absence: you must leave Korea within {policies.INTERNATIONAL_EXIT_DAYS} days after your leave is approved.",
               "Health insurance is mandatory for all international students."]))
    pg.publish(out, as_of, "Guide for International Students", crumbs + [("International students", None)],
               topic="international", lang="en")

    pg = Page("/en/academic-guide.html", intl)
    rows = [[f"{q.label}", f"{TOTAL_CREDITS[i]}", f"{GE_CREDITS[i]}"] for i, q in enumerate(PERIODS)]
    pg.add(p("Graduation requirements depend on your year of admission. Major credits differ by department."),
           table("Credits to graduate by year of admission", ["Admitted in", "Total credits", "General education"], rows))
    for lo, hi, normal, honours in policies.MAX_CREDITS:
        pg.block(f"Course registration for students admitted {lo}–{hi}",
                 p(f"You may register for up to {normal} credits per semester "
                   f"({honours} with a GPA of {policies.HONOURS_GPA} or higher)."),
                 topic="course_registration", admission_year=(lo, hi))
    pg.publish(out, as_of, "Academic Guide", crumbs + [("Academic guide", None)], topic="graduation_requirements",
               lang="en")

    pg = Page("/en/scholarships.html", intl)
    pg.add(p("International students receive a tuition reduction according to their TOPIK level."),
           table("TOPIK scholarship", ["TOPIK level", "Tuition reduction"],
                 [[f"Level {lvl}", f"{pct}%"] for lvl, pct in policies.TOPIK_SCHOLARSHIP]),
           p(f"To keep the scholarship, maintain a GPA of {policies.INTERNATIONAL_MIN_GPA} or higher."))
    pg.publish(out, as_of, "Scholarships for International Students", crumbs + [("Scholarships", None)],
               topic="scholarship", lang="en")

    pg = Page("/en/korean-language.html", intl)
    pg.add(p("The Korean Language Center offers free evening classes (levels 1–6) for international students "
             "every semester. Completing level 4 counts toward the TOPIK graduation requirement."))
    pg.publish(out, as_of, "Korean Language Program", crumbs + [("Korean language", None)], topic="international",
               lang="en")


def build(out: Output, as_of: datetime.date, latest_notices: list[tuple[str, str, str]]) -> None:
    home(out, as_of, latest_notices)
    about_pages(out, as_of)
    academics_index(out, as_of)
    for make in (graduation, general_education, electives, double_major, convergence_major, scholarships,
                 field_practice, leave_return, course_registration, transfer_credits, calendar):
        make(out, as_of)
    english_pages(out, as_of)

