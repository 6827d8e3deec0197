"""The regulation and orientation PDFs under /regulations/, plus the HTML index linking them.

They restate the same rules as the web pages (from the same catalog), in regulation style:
articles per cohort range, chapters per student status, orientation books per entering class.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from examples.site_kit.book import Book
from examples.site_kit.markup import a, join, p, table, tag
from examples.site_kit.pdf import bullets, grid, h1, h2, page_break, para, title
from examples.site_kit.pdf_style import load_pdf_style

from . import policies
from .catalog import (
    CONVERGENCE_PROGRAM_CREDITS,
    DEPARTMENTS,
    FIRST_COHORT,
    GE_CREDITS,
    LAST_COHORT,
    MAJOR_TYPE_KO,
    MAJOR_TYPES,
    PERIODS,
    SECOND_MAJOR_CREDITS,
    TOTAL_CREDITS,
    curriculum,
    english_rule,
    period_of,
    periods_for,
    requirement,
    thesis_rule,
)
from .layout import SITE_NAME, render
from .model import SCHEMA, Output
from .phrasing import cohort, cohort_scope, rng_for

PDF_STYLE = load_pdf_style(Path(__file__).with_name("pdf_style.yaml"), author=SITE_NAME)
SOURCE = "regulations"
KIND_KO = {"foundation": "전공기초", "required": "전공필수", "elective": "전공선택"}


def academic_regulations() -> tuple[Book, str]:
    b = Book(SCHEMA)
    rng = rng_for("pdf:academic-regulations")
    b.add(title("한빛대학교 정보대학 학사운영규정"),
          para("제정 2015. 3. 1. / 개정 2017. 3. 1., 2019. 3. 1., 2020. 3. 1., 2021. 3. 1., 2023. 3. 1., 2024. 3. 1., 2026. 3. 1."))
    b.heading("제1장 총칙", 1)
    b.add(h2("제1조(목적)"), para("이 규정은 한빛대학교 정보대학 학부 과정의 교육과정, 졸업요건, 학적 및 수강에 관한 사항을 정함을 목적으로 한다."),
          h2("제2조(적용 기준)"), para("교육과정과 졸업요건은 학생의 입학년도를 기준으로 적용하며, 휴학·복학 등 학적 변동으로 바뀌지 아니한다. "
                                     "편입생은 편입한 학년도의 3학년 교육과정을 적용한다."),
          h2("제3조(전공 유형)"), para("학생은 심화전공, 이중전공, 융합전공 중 하나의 전공 유형을 선택하여 이수한다."),
          page_break())
    b.heading("제2장 졸업 이수학점", 1)
    b.add(h2("제4조(졸업 이수학점)"), para("졸업에 필요한 최저 이수학점과 교양 학점, 영어 졸업요건은 입학년도에 따라 다음 표와 같다."),
          grid("[별표 1] 입학년도별 졸업 이수학점", ["입학년도", "졸업 이수학점", "교양", "영어 졸업요건"],
               [[cohort_scope(q.first, q.last, rng), TOTAL_CREDITS[i], GE_CREDITS[i], english_rule(q)]
                for i, q in enumerate(PERIODS)]))
    for n, q in enumerate(PERIODS, start=5):
        heading = f"제{n}조({q.label}학년도 입학생의 전공 이수학점)"
        b.heading(heading, topic="graduation_requirements", admission_year=(q.first, q.last))
        rows = []
        for d in DEPARTMENTS:
            if q not in periods_for(d):
                continue
            for mt in MAJOR_TYPES:
                req = requirement(d, q, mt)
                rows.append([d.name, MAJOR_TYPE_KO[mt], f"{req.major}학점", f"{req.required}학점", thesis_rule(d, q)])
        b.add(para(f"{cohort(q.first, q.last, rng)}의 학과·전공 유형별 전공 이수학점은 다음과 같다."),
              grid(f"{q.label}학년도 입학생 전공 이수학점", ["학과", "전공 유형", "전공", "전공필수", "졸업논문·프로젝트"], rows))
    b.add(page_break())
    b.heading("제3장 교양교육과정", 1)
    b.add(h2("제13조(공통교양)"), para("공통교양은 입학년도별로 다음 과목을 모두 이수하여야 한다."),
          grid("[별표 2] 입학년도별 공통교양", ["입학년도", "공통교양 과목(학점)"],
               [[cohort_scope(q.first, q.last, rng), ", ".join(f"{n}({c})" for n, c in policies.ge_required(q))] for q in PERIODS]),
          page_break())
    b.heading("제4장 이중전공 및 융합전공", 1)
    b.heading("제14조(이중전공 신청 자격)", topic="double_major", major_type="double", grade=(2, 4))
    gpas = ", ".join(f"{cohort_scope(lo, hi, rng)} {gpa}" for lo, hi, gpa in policies.DOUBLE_MAJOR_MIN_GPA)
    b.add(para(f"2개 학기 이상 이수한 재학생은 이중전공을 신청할 수 있다. 신청 최저 평점은 {gpas}로 한다."))
    b.heading("제15조(제2전공 이수학점)", topic="double_major", major_type="double")
    b.add(grid("입학년도별 제2전공 이수학점", ["입학년도", "제2전공"],
               [[cohort_scope(q.first, q.last, rng), f"{SECOND_MAJOR_CREDITS[i]}학점"] for i, q in enumerate(PERIODS)]))
    b.heading("제16조(융합전공)", topic="convergence_major", major_type="convergence")
    b.add(para("융합전공은 " + ", ".join(f"{pg.name}({cohort_scope(pg.since, LAST_COHORT, rng)})" for pg in policies.CONVERGENCE_PROGRAMS)
               + "으로 한다. 소속 학과의 교과목은 융합전공 학점으로 인정하지 아니한다."),
          grid("입학년도별 융합전공 이수학점", ["입학년도", "융합전공"],
               [[cohort_scope(q.first, q.last, rng), f"{CONVERGENCE_PROGRAM_CREDITS[i]}학점"] for i, q in enumerate(PERIODS)]),
          page_break())
    b.heading("제5장 휴학과 복학", 1)
    b.heading("제17조(휴학)", topic="leave_return", student_status=("enrolled", "on_leave"))
    b.add(para(f"휴학은 1학기 {policies.LEAVE_WINDOWS[1]}, 2학기 {policies.LEAVE_WINDOWS[2]}에 신청한다. 창업휴학은 일반휴학과 별도로 "
               f"{policies.STARTUP_LEAVE_SEMESTERS}개 학기까지 할 수 있다."),
          grid("입학년도별 일반휴학 한도", ["입학년도", "통산 한도"], [[cohort_scope(lo, hi, rng), f"{n}개 학기"] for lo, hi, n in policies.LEAVE_LIMIT]))
    # Freshmen OR transfer students: no single applicability record says that, so no section.
    b.add(h2("제18조(신입생 및 편입생의 휴학 제한)"), para("신입생과 편입생은 첫 학기에 일반휴학을 할 수 없다. 다만 군입대, 질병, 임신·출산의 경우는 예외로 한다."))
    b.heading("제19조(복학)", topic="leave_return", student_status=("on_leave", "returning"))
    b.add(para(f"복학은 1학기 {policies.RETURN_WINDOWS[1]}, 2학기 {policies.RETURN_WINDOWS[2]}에 신청한다. 복학생에게는 입학년도의 교육과정을 적용한다."))
    b.heading("제20조(외국인 유학생의 휴학)", topic="leave_return", student_status="international")
    b.add(para(f"외국인 유학생이 휴학한 때에는 {policies.INTERNATIONAL_EXIT_DAYS}일 이내에 출국하여야 한다."), page_break())
    b.heading("제6장 수강신청", 1)
    b.add(h2("제21조(학기당 신청 학점)"),
          grid("입학년도별 학기당 최대 신청 학점", ["입학년도", "기본", f"직전 학기 평점 {policies.HONOURS_GPA} 이상"],
               [[cohort_scope(lo, hi, rng), f"{n}학점", f"{h}학점"] for lo, hi, n, h in policies.MAX_CREDITS]),
          para(f"1학년 1학기에는 {policies.FRESHMAN_MAX_CREDITS}학점까지 신청할 수 있다."),
          h2("제22조(재수강)"),
          para("C+ 이하 과목은 재수강할 수 있으며 재수강 성적의 상한은 "
               + ", ".join(f"{cohort_scope(lo, hi, rng)} {cap}" for lo, hi, cap in policies.RETAKE_CAP) + "로 한다."),
          h1("부칙"),
          bullets([f"({q.first}. 3. 1.) 이 규정은 {q.first}학년도 입학생부터 적용한다." for q in PERIODS[1:]]))
    return b, "학사운영규정"


def orientation(year: int) -> tuple[Book, str]:
    period = period_of(year)
    b = Book(SCHEMA, admission_year=(year, year), grade=(1, 1))
    b.add(title(f"{year}학년도 신입생 오리엔테이션 자료집"),
          para(f"{year}학번 신입생 여러분의 입학을 진심으로 축하합니다. 이 자료집에는 첫 학기에 꼭 알아야 할 학사 제도를 담았습니다."),
          h1("1. 첫 학기 수강신청"),
          bullets([f"1학년 1학기 최대 신청 학점: {policies.FRESHMAN_MAX_CREDITS}학점",
                   "공통교양 " + ", ".join(n for n, _ in policies.ge_required(period)) + " 과목은 학과별로 미리 배정됩니다.",
                   "수강정정은 개강 후 첫 주에 할 수 있습니다."]),
          h1("2. 졸업요건 한눈에 보기"),
          para(f"{year}학번에게 적용되는 졸업 이수학점은 {TOTAL_CREDITS[PERIODS.index(period)]}학점, 교양은 "
               f"{GE_CREDITS[PERIODS.index(period)]}학점이며 영어 졸업요건은 '{english_rule(period)}'입니다."),
          grid(f"{year}학번 학과·전공 유형별 전공 학점", ["학과", "심화전공", "이중전공", "융합전공"],
               [[d.name] + [f"{requirement(d, period, mt).major}학점" for mt in MAJOR_TYPES] for d in DEPARTMENTS]),
          page_break())
    for number, d in enumerate(DEPARTMENTS, start=1):
        heading = f"3-{number}. {d.name} 1학년 교육과정"
        b.heading(heading, 1, topic="recommended_courses", department=d.code)
        cur = curriculum(d, period)
        rows = [[c.code, c.name, c.credits, f"{c.semester}학기", KIND_KO[c.kind]]
                for kind in cur.values() for c in kind if c.year == 1]
        b.add(grid(f"{d.name} {year}학번 1학년 교과목", ["학수번호", "교과목명", "학점", "학기", "구분"], rows),
              para(f"졸업 논문·프로젝트 요건: {thesis_rule(d, period)}."))
    b.add(page_break(), h1("4. 장학과 학생 생활"),
          bullets(["1학년 1학기는 성적우수장학 대상이 아니며, 입학성적 장학금은 입학처 기준에 따릅니다.",
                   "국가장학금은 한국장학재단에서 신청합니다.", "외국인 신입생은 입학 시 제출한 TOPIK 성적으로 첫 학기 감면을 받습니다."]),
          h1("5. 휴학에 관하여"),
          para("신입생은 첫 학기에 일반휴학을 할 수 없습니다. 군입대, 질병, 임신·출산의 경우에만 예외가 인정됩니다."),
          h1("6. 도움받을 곳"),
          grid("부서별 연락처", ["부서", "전화"], [["학사지원팀", "02-3290-3010"], ["장학복지팀", "02-3290-3020"], ["국제교류팀", "02-3290-3040"]]))
    return b, f"{year} 신입생 오리엔테이션 자료집"


def scholarship_regulations() -> tuple[Book, str]:
    b = Book(SCHEMA)
    lo_pct, hi_pct = policies.TRANSFER_SCHOLARSHIP_PCT
    b.add(title("한빛대학교 정보대학 장학금 지급 규정"),
          h1("제1장 총칙"),
          h2("제1조(목적)"), para("이 규정은 정보대학 학생에게 지급하는 교내 장학금의 종류와 지급 기준을 정한다."),
          h2("제2조(장학금의 종류)"), bullets(["성적우수장학금", "복학생 정착장학금", "편입생 적응장학금", "외국인 유학생 장학금", "근로장학금"]),
          h2("제3조(중복 수혜)"), para("교내 장학금을 중복하여 받을 수 없으며 금액이 큰 장학금 하나를 지급한다. 근로장학금은 예외로 한다."),
          page_break(), h1("제2장 장학금별 지급 기준"))
    b.heading("제4조(성적우수장학금)", topic="scholarship", student_status="enrolled")
    b.add(para("직전 학기 12학점 이상을 이수한 재학생에게 다음 기준에 따라 지급한다. 1학년 1학기는 대상에서 제외한다."),
          grid("성적우수장학금 지급 기준", ["직전 학기 평점", "지급액"],
               [[f"{g} 이상", f"등록금의 {pct}%"] for g, pct in policies.MERIT_SCHOLARSHIP]))
    b.heading("제5조(복학생 정착장학금)", topic="scholarship", student_status="returning")
    b.add(para(f"1년 이상 휴학한 후 복학한 학생에게 복학 첫 학기 등록금의 {policies.RETURNING_SCHOLARSHIP_PCT}%를 지급한다. "
               f"휴학 직전 학기 평점이 {policies.RETURNING_MIN_GPA} 이상이어야 한다."))
    b.heading("제6조(편입생 적응장학금)", topic="scholarship", student_status="transfer")
    b.add(para(f"편입생에게 편입 첫 학기 등록금의 {lo_pct}%를 지급하고, 전적 대학 평점이 3.5 이상인 자에게는 {hi_pct}%를 지급한다."),
          page_break())
    b.heading("제7조(외국인 유학생 장학금)", topic="scholarship", student_status="international")
    b.add(para(f"외국인 유학생에게 TOPIK 등급에 따라 등록금을 감면한다. 재학 중에는 직전 학기 평점 {policies.INTERNATIONAL_MIN_GPA} 이상을 유지하여야 한다."),
          grid("TOPIK 등급별 감면율", ["TOPIK 등급", "감면율"],
               [[f"{lvl}급", f"{pct}%"] for lvl, pct in policies.TOPIK_SCHOLARSHIP]))
    b.heading("제8조(휴학과 장학금)", topic="scholarship", student_status="on_leave")
    b.add(para("휴학 중인 학생은 장학금을 신청할 수 없다. 장학금을 받은 학기에 군휴학한 경우 복학 학기로 이월하고, 일반휴학한 경우 반환한다."),
          h1("부칙"), para("이 규정은 2015년 3월 1일부터 시행한다. 제7조의 감면율은 2023년 3월 1일부터 적용한다."))
    return b, "장학금 지급 규정"


def field_practice_guidelines() -> tuple[Book, str]:
    b = Book(SCHEMA, grade=(3, 4))
    rng = rng_for("pdf:field-practice")
    cut = policies.FIELD_PRACTICE_MAJOR_FROM
    b.add(title("정보대학 현장실습 운영지침"),
          h1("제1장 총칙"),
          h2("제1조(목적)"), para("이 지침은 정보대학 학생의 현장실습 운영과 학점 인정에 필요한 사항을 정한다."),
          h2("제2조(참여 대상)"), para("현장실습은 3학년 이상 재학생이 참여할 수 있다. 휴학생과 졸업유예생은 참여할 수 없다."),
          h2("제3조(실습 유형)"),
          grid("현장실습 유형", ["유형", "기간", "인정 학점", "참여 학년"],
               [[n, w, f"{c}학점", f"{g[0]}학년" if g[0] == g[1] else f"{g[0]}~{g[1]}학년"] for n, w, c, g in policies.FIELD_PRACTICE_TYPES]),
          page_break())
    b.heading("제4조(학기제 현장실습)", topic="field_practice", grade=(4, 4))
    b.add(para("학기제 현장실습은 4학년이 15주 동안 참여하며 12학점을 인정한다. 실습 학기에는 다른 과목을 수강할 수 없다."))
    b.heading(f"제5조({cohort_scope(FIRST_COHORT, cut - 1, rng)}의 학점 인정)", topic="field_practice",
              admission_year=(FIRST_COHORT, cut - 1))
    b.add(para("현장실습 학점은 일반선택으로 인정한다."))
    b.heading(f"제6조({cohort_scope(cut, LAST_COHORT, rng)}의 학점 인정)", topic="field_practice",
              admission_year=(cut, LAST_COHORT))
    b.add(para("현장실습 학점은 학과별 한도까지 전공선택으로 인정한다."),
          grid("학과별 전공 인정 한도", ["학과", "한도"], [[d.name, f"{policies.FIELD_PRACTICE_MAJOR_CREDIT_CAP[d.code]}학점"] for d in DEPARTMENTS]),
          page_break())
    b.heading("제7조(휴학생의 참여 제한)", topic="field_practice", student_status="on_leave")
    b.add(para("휴학 중인 학생은 현장실습에 참여할 수 없으며, 실습 학기 전에 복학하여야 한다."),
          h2("제8조(지원금과 보험)"),
          para(f"실습 기관은 {policies.FIELD_PRACTICE_ALLOWANCE}의 지원금을 지급하며, 대학은 참여 학생 전원을 현장실습 보험에 가입시킨다."),
          h2("제9조(평가)"), para("실습 종료 후 2주 이내에 실습 보고서와 기관 평가서를 제출하여야 하며, 평가는 P/F로 한다."),
          h1("부칙"), para(f"이 지침은 2021년 3월 1일부터 시행한다. 제6조는 {cut}학년도 입학생부터 적용한다."))
    return b, "현장실습 운영지침"


# (file, builder, topic, human description for the index page)
DOCUMENTS = (
    ("academic-regulations.pdf", academic_regulations, "regulations", "교육과정, 졸업요건, 휴학·복학, 수강신청에 관한 규정"),
    ("orientation-2025.pdf", lambda: orientation(2025), "orientation", "2025학번 신입생을 위한 학사 안내"),
    ("orientation-2026.pdf", lambda: orientation(2026), "orientation", "2026학번 신입생을 위한 학사 안내"),
    ("scholarship-regulations.pdf", scholarship_regulations, "scholarship", "교내 장학금의 종류와 지급 기준"),
    ("field-practice-guidelines.pdf", field_practice_guidelines, "field_practice", "현장실습 참여 대상과 학점 인정"),
)


def build(out: Output, as_of: datetime.date) -> None:
    rows = []
    for file, make, topic, description in DOCUMENTS:
        book, doc_title = make()
        path = f"/regulations/{file}"
        book.publish(out, path, PDF_STYLE, source=SOURCE, title=doc_title, topic=topic,
                     running_head=f"한빛대학교 정보대학 · {doc_title}")
        rows.append([a(path, doc_title), description, "PDF"])
    body = join([p("정보대학 학사 규정과 안내 자료집입니다. 파일을 내려받아 확인하세요."),
                 table("규정·자료 목록", ["자료", "내용", "형식"], rows),
                 tag("p", "규정 해석에 관한 문의: 학사지원팀 02-3290-3010")])
    out.add_file("/regulations/", render("규정·자료실", [("규정·자료실", None)], body, as_of))
