"""자료실 (/data/): three PDFs (the college's academic rules, the freshman guidebook, the
scholarship rules) restating the site's numbers in regulation style, an HWP form a crawler cannot
read, and the index page that links them (navigation, not a document)."""

from __future__ import annotations

import datetime
from pathlib import Path

from examples.site_kit.book import Book
from examples.site_kit.markup import a
from examples.site_kit.pdf import grid, h2, page_break, title
from examples.site_kit.pdf import para as p
from examples.site_kit.pdf_style import load_pdf_style

from . import policies
from .catalog import CAMPUS_KO, DEPARTMENTS, GE_CREDITS, LAST_COHORT, PERIODS, TOTAL_CREDITS, curriculum, periods_for
from .chrome import SITE_NAME, bullets, para
from .model import SCHEMA, Output
from .pages import Page
from .wording import cohort_cell, rng_for

PDF_STYLE = load_pdf_style(Path(__file__).with_name("pdf_style.yaml"), author=SITE_NAME)
SOURCE = "documents"
HWP_MAGIC = b"HWP Document File" + bytes(15)  # an HWP 5 header: binary, not HTML or PDF


def academic_rules() -> Book:
    b = Book(SCHEMA)
    rng = rng_for("pdf:rules")
    b.add(title("경영경제대학 학사 운영 세칙"), p("제정 2017. 3. 1. / 개정 2019. 3. 1., 2022. 3. 1., 2024. 3. 1."))
    b.heading("제1장 총칙", 1)
    b.add(h2("제1조(목적)"), p("이 세칙은 경영경제대학 학부 과정의 졸업, 학적과 수강에 필요한 사항을 정한다."),
          h2("제2조(적용 기준)"), p("교육과정과 졸업요건은 학생의 입학 연도를 기준으로 적용하며, 학적 변동으로 바뀌지 아니한다."))
    b.heading("제2장 졸업", 1)
    b.add(h2("제3조(졸업학점)"), p("입학 연도별 졸업학점과 교양 최저 이수학점은 다음 표와 같다."),
          grid("[별표 1] 입학 연도별 졸업학점", ["입학 연도", "졸업학점", "교양"],
               [[cohort_cell(q.first, q.last, rng), f"{t}학점", f"{g}학점"] for q, t, g in zip(PERIODS, TOTAL_CREDITS, GE_CREDITS)]))
    b.heading("제4조(2016학년도 이전 입학생의 경과조치)", topic="curriculum_changes", entry_year=(2014, 2016))
    b.add(p("2016학년도 이전 입학생이 폐지된 과목을 이수하지 못한 경우 학과가 정한 대체 과목으로 이수할 수 있다."))
    b.heading("제5조(2022학년도 이후 입학생의 캡스톤디자인)", topic="curriculum", major=("BUS", "ECN"), entry_year=(2022, 2026))
    b.add(p("경영학과와 경제학과의 2022학년도 이후 입학생은 캡스톤디자인 1과목(3학점)을 전공필수로 이수하여야 한다."), page_break())
    b.heading("제3장 학적", 1)
    b.heading("제6조(휴학)", topic="leave", academic_status=("attending", "on_leave"))
    b.add(p(f"① 일반휴학은 1회 {policies.LEAVE_AT_ONCE}학기 이내, 재학 중 통산 {policies.LEAVE_TOTAL_SEMESTERS}학기 이내로 한다. "
            f"② 창업휴학은 통산 {policies.STARTUP_LEAVE_SEMESTERS}학기 이내로 하며 일반휴학 기간에 산입하지 아니한다."))
    b.heading("제7조(복학)", topic="leave", academic_status=("on_leave", "returning"))
    b.add(p(f"휴학 기간이 끝나는 학생은 개강 {policies.RETURN_APPLY_DAYS}일 전까지 복학을 신청하여야 한다."))
    b.heading("제8조(외국인 학부생의 휴학)", topic="leave", academic_status="foreign")
    b.add(p(f"외국인 학부생은 연속하여 {policies.FOREIGN_LEAVE_SEMESTERS}학기를 초과하여 휴학할 수 없다."))
    b.heading("제9조(편입학생의 학점 인정)", topic="transfer", academic_status="transfer")
    b.add(p(f"편입학생의 전적 대학 이수 학점은 {policies.TRANSFER_CREDIT_CAP}학점 이내에서 인정하며, 그중 전공은 {policies.TRANSFER_MAJOR_CAP}학점 이내로 한다."))
    b.heading("제10조(초과학기 등록)", topic="tuition", academic_status="overtime")
    b.add(p(f"8학기를 초과하여 등록하는 학생은 학기당 {policies.OVERTIME_MAX_CREDITS}학점 이내에서 수강하며, 등록금은 신청 학점에 따라 [별표 2]와 같이 낸다."),
          grid("[별표 2] 초과학기 등록금", ["신청 학점", "등록금"], [list(r) for r in policies.OVERTIME_FEES]))
    b.add(page_break())
    b.heading("제4장 캠퍼스별 특례", 1)
    b.heading("제11조(세종캠퍼스 경영학과의 현장실습)", topic="internship", major="BUS", campus="sejong")
    b.add(p("세종캠퍼스 경영학과 학생은 입학 연도에 따라 학과가 정한 시간 이상 현장실습을 이수하여야 졸업할 수 있다."))
    b.heading("부칙", 1)
    b.add(p("이 세칙은 2024년 3월 1일부터 시행한다."))
    return b


def freshman_guide(year: int) -> Book:
    b = Book(SCHEMA, entry_year=(year, year), year_level=(1, 1))
    b.add(title(f"{year} 신입생 학업 가이드북"), p(f"{year}학년도 경영경제대학 신입생 여러분의 입학을 축하합니다."))
    b.heading("1. 첫 학기 수강신청")
    b.add(p(f"1학년 1학기는 학과 기본 시간표로 자동 신청되며 최대 {policies.FRESHMAN_CREDITS}학점까지 수강합니다."))
    b.heading("2. 졸업까지 필요한 학점")
    b.add(p(f"여러분의 졸업학점은 {TOTAL_CREDITS[-1]}학점, 교양은 {GE_CREDITS[-1]}학점 이상입니다."), page_break())
    b.heading("3. 학과별 1학년 교과목")
    for i, dept in enumerate(DEPARTMENTS, 1):
        period = next(q for q in periods_for(dept) if q.covers(year))
        first_year = [c for kind in curriculum(dept, period).values() for c in kind if c.year == 1]
        b.heading(f"3-{i}. {dept.name} 1학년 교과목", topic="curriculum", major=dept.code)
        b.add(grid(f"{dept.name} 1학년 편성", ["학기", "교과목명", "학점"], [[f"{c.semester}학기", c.name, c.credits] for c in first_year]))
    b.add(page_break())
    for i, (code, note) in enumerate((("seoul", "상경관 라운지와 24시간 열람실을 이용할 수 있습니다."),
                                      ("sejong", "조치원역 셔틀버스가 평일 15분 간격으로 다닙니다.")), 4):
        b.heading(f"{i}. {CAMPUS_KO[code]} 생활 안내", topic="campus_life", campus=code)
        b.add(p(note))
    return b


def scholarship_rules() -> Book:
    b = Book(SCHEMA)
    b.add(title("경영경제대학 장학금 지급 세칙"), p("제정 2017. 3. 1. / 개정 2025. 3. 1."))
    b.add(h2("제1조(목적)"), p("이 세칙은 경영경제대학 교내 장학금의 종류와 지급 기준을 정한다."),
          h2("제2조(국가장학금)"), p("재적생은 한국장학재단의 국가장학금을 신청할 수 있다."), page_break())
    for n, code in enumerate(("seoul", "sejong"), 3):
        b.heading(f"제{n}조({CAMPUS_KO[code]} 성적우수장학금)", topic="scholarship", campus=code, academic_status="attending")
        first, second, third = policies.MERIT_PCT[code]
        b.add(p(f"직전 학기 15학점 이상 이수하고 평점평균 {policies.MERIT_GPA[code]} 이상인 재학생 중 선발하며, "
                f"수석 {first}%, 차석 {second}%, 우수 {third}%의 등록금을 지급한다."))
    b.add(page_break())
    b.heading("제5조(세종캠퍼스 지역인재장학금)", topic="scholarship", campus="sejong", year_level=(1, 1))
    b.add(p(f"세종·충청 지역 고등학교를 졸업한 신입생에게 첫 학기 등록금의 {policies.REGIONAL_TALENT_PCT}%를 지급한다."))
    b.heading("제6조(복학생 정착장학금)", topic="scholarship", academic_status="returning")
    b.add(p(f"복학 첫 학기 학생에게 {policies.RETURNING_SCHOLARSHIP}만원을 지급한다."))
    b.heading("제7조(외국인 학부생 장학금)", topic="scholarship", academic_status="foreign")
    b.add(grid("[별표] TOPIK 등급별 감면", ["등급", "감면율"], [[k, f"{v}%"] for k, v in policies.FOREIGN_SCHOLARSHIP.items()]))
    b.heading("제8조(휴학생의 장학금 제한)", topic="scholarship", academic_status="on_leave")
    b.add(p("휴학 중인 학생에게는 교내 장학금을 지급하지 아니한다."))
    return b


def build(out: Output, as_of: datetime.date) -> None:
    year = min(as_of.year if as_of.month >= 2 else as_of.year - 1, LAST_COHORT)
    books = (("haksa_rules.pdf", "학사 운영 세칙", "academic_rules", academic_rules()),
             (f"freshman_guide_{year}.pdf", f"{year} 신입생 학업 가이드북", "orientation", freshman_guide(year)),
             ("scholarship_rules.pdf", "장학금 지급 세칙", "scholarship", scholarship_rules()))
    links = []
    for file, doc_title, topic, book in books:
        path = f"/data/files/{file}"
        book.publish(out, path, PDF_STYLE, source=SOURCE, title=doc_title, topic=topic,
                     running_head=f"{SITE_NAME} | {doc_title}")
        links.append(a(path, f"{doc_title} (PDF)"))
    out.add_file("/data/files/leave_form.hwp", HWP_MAGIC)
    links.append(a("/data/files/leave_form.hwp", "휴학원 서식 (HWP)"))
    pg = Page("/data/index.php")
    pg.add(para("학사 규정과 안내 자료를 내려받을 수 있습니다."), bullets(links))
    pg.publish(out, as_of, source=None, title="자료실", crumbs=[("자료실", None)])
