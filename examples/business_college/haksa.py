"""학사안내 (/haksa/): rules for everyone (calendar, grades, leave) with the parts that apply to
particular students under headings of their own, and program pages whose eligibility limits them."""

from __future__ import annotations

import datetime

from examples.site_kit.korean import month_day
from examples.site_kit.markup import a
from examples.site_kit.updated import last_updated

from . import policies
from .catalog import DEPARTMENTS, GE_CREDITS, PERIODS, TOTAL_CREDITS, periods_for, requirement_pages
from .chrome import bullets, notes, para, table
from .dept_common import dept_path
from .model import Output, applies
from .pages import Page
from .wording import cohort_cell, levels, pick, status

SOURCE = "college-pages"
HAKSA = ("학사안내", "/haksa/calendar.php")
PAGES = (("calendar", "학사일정"), ("register", "수강신청"), ("grade", "성적·학사경고"), ("leave", "휴학·복학"),
         ("graduation", "졸업요건 총괄"), ("multi-major", "다전공"), ("transfer", "편입학생 학점인정"),
         ("overtime", "초과학기 등록"), ("defer", "졸업유예"), ("exchange", "교환학생"), ("internship", "현장실습"),
         ("scholarship", "장학 안내"), ("general-education", "교양교육과정"), ("military", "군 복무 중 학점 취득"))
SIDE = ("학사안내", [(f"/haksa/{slug}.php", label) for slug, label in PAGES])


def academic_year(as_of: datetime.date) -> int:
    return as_of.year if as_of.month >= 3 else as_of.year - 1


def _publish(pg: Page, out: Output, as_of, slug: str, topic: str) -> None:
    label = dict(PAGES)[slug]
    pg.publish(out, as_of, source=SOURCE, title=label, crumbs=[HAKSA, (label, None)], side=SIDE, topic=topic,
               updated=last_updated(pg.path, as_of))  # 학사 pages say when they were last revised


def calendar(out: Output, as_of: datetime.date) -> None:
    year = academic_year(as_of)
    date = datetime.date
    rows = [
        ("1학기 수강신청", f"{month_day(date(year, 2, 10))} ~ {month_day(date(year, 2, 13))}"),
        ("1학기 개강", month_day(date(year, 3, 2))),
        ("수강정정", f"{month_day(date(year, 3, 3))} ~ {month_day(date(year, 3, 6))}"),
        ("1학기 휴학·복학 신청 마감", month_day(date(year, 3, 27))),
        ("1학기 중간고사", f"{month_day(date(year, 4, 20))} ~ {month_day(date(year, 4, 24))}"),
        ("1학기 기말고사", f"{month_day(date(year, 6, 15))} ~ {month_day(date(year, 6, 19))}"),
        ("하계 계절학기", f"{month_day(date(year, 6, 22))} ~ {month_day(date(year, 7, 10))}"),
        ("후기 학위수여식", month_day(date(year, 8, 21))), ("2학기 개강", month_day(date(year, 9, 1))),
        ("2학기 기말고사", f"{month_day(date(year, 12, 14))} ~ {month_day(date(year, 12, 18))}"),
        ("전기 학위수여식", month_day(date(year + 1, 2, 20))),
    ]
    pg = Page("/haksa/calendar.php")
    pg.add(para(f"{year}학년도 주요 학사일정입니다. 일정은 학교 사정에 따라 바뀔 수 있으며, 바뀌면 학사공지로 알립니다."),
           table(f"{year}학년도 학사일정", ["구분", "일정"], [list(r) for r in rows], row_headers=True),
           notes(["수업일수는 학기당 15주이며, 공휴일 보강은 담당 교수가 따로 정합니다."]))
    _publish(pg, out, as_of, "calendar", "calendar")


def register(out: Output, as_of: datetime.date) -> None:
    pg = Page("/haksa/register.php")
    rng = pg.rng
    pg.add(para("수강신청은 매 학기 포털에서 학년별 일정에 따라 진행합니다. 신청 결과는 수강정정 기간에 한 번 더 바꿀 수 있습니다."))
    pg.block("학기당 수강 한도", table("수강신청 학점 한도", ["구분", "한도"], [
        ["일반", f"{policies.MAX_CREDITS}학점"], [f"직전 학기 평점 {policies.HONORS_GPA} 이상", f"{policies.HONORS_CREDITS}학점"],
        ["계절학기", "6학점"]], row_headers=True))
    pg.block(pick(rng, "신입생 수강신청", "1학년 1학기 수강신청"), para(
        f"1학년 1학기 신입생은 학과가 짠 기본 시간표로 일괄 신청되며, 최대 {policies.FRESHMAN_CREDITS}학점까지 수강합니다. "
        "수강정정 기간에 교양 과목을 바꿀 수 있습니다."), topic="registration", year_level=(1, 1))
    pg.block(pick(rng, "초과학기생 수강신청", "초과학기 등록생의 수강"), para(
        f"{status('overtime', rng, '은/는')} 졸업에 필요한 과목만 신청할 수 있으며 학기당 {policies.OVERTIME_MAX_CREDITS}학점을 넘길 수 없습니다. "
        "등록금은 신청 학점에 따라 부과됩니다."), topic="registration", academic_status="overtime")
    _publish(pg, out, as_of, "register", "registration")


def grade(out: Output, as_of: datetime.date) -> None:
    pg = Page("/haksa/grade.php")
    pg.add(para(f"학기 평점평균이 {policies.WARNING_GPA} 미만이면 학사경고를 받습니다. 학사경고를 연속 {policies.WARNING_DISMISSAL}회 받으면 제적됩니다."))
    pg.block("재수강", bullets([f"C+ 이하 과목만 재수강할 수 있으며, 재학 중 {policies.RETAKE_LIMIT}학점까지 허용합니다.",
                                "재수강한 과목의 성적은 A0를 넘을 수 없습니다."]))
    pg.block("성적 이의신청", para("성적 공개 후 5일 이내에 담당 교수에게 이의신청할 수 있습니다."))
    _publish(pg, out, as_of, "grade", "grades")


def leave(out: Output, as_of: datetime.date) -> None:
    pg = Page("/haksa/leave.php")
    rng = pg.rng
    pg.add(para(f"일반휴학은 재학 중 통산 {policies.LEAVE_TOTAL_SEMESTERS}학기까지 할 수 있고, 한 번에 {policies.LEAVE_AT_ONCE}학기까지 신청합니다. "
                "군휴학과 창업휴학은 이 기간에 넣지 않습니다."))
    pg.block("휴학의 종류", table("휴학 종류별 기간과 서류", ["종류", "기간", "제출 서류"], [
        ["일반휴학", f"1회 {policies.LEAVE_AT_ONCE}학기, 통산 {policies.LEAVE_TOTAL_SEMESTERS}학기", "없음"],
        ["군휴학", "복무 기간", "입영통지서"], ["창업휴학", f"통산 {policies.STARTUP_LEAVE_SEMESTERS}학기", "사업자등록증"],
        ["질병휴학", f"1회 {policies.LEAVE_AT_ONCE}학기", "4주 이상 진단서"]]))
    pg.block(pick(rng, "휴학 중인 학생 유의사항", "휴학생 유의사항"), bullets([
        "휴학 기간이 끝나기 전에 복학하거나 휴학을 연장해야 하며, 그렇지 않으면 제적될 수 있습니다.",
        "휴학 기간에는 교내 장학금을 받을 수 없습니다."]), topic="leave", academic_status="on_leave")
    pg.block(pick(rng, "복학 예정자 안내", "복학 대상자 안내"), para(
        f"{status('returning', rng, '은/는')} 개강 {policies.RETURN_APPLY_DAYS}일 전까지 포털에서 복학을 신청하고 등록금을 내야 합니다. "
        "군 제대자는 전역 후 1년 안에 복학해야 합니다."), topic="leave", academic_status="returning")
    pg.block(pick(rng, "외국인 학부생의 휴학", "국제학생 휴학 유의사항"), para(
        f"{status('foreign', rng, '은/는')} 체류 자격 때문에 연속 {policies.FOREIGN_LEAVE_SEMESTERS}학기를 넘겨 휴학할 수 없으며, "
        "휴학하면 14일 안에 국제교류팀에 알려야 합니다."), topic="leave", academic_status="foreign")
    _publish(pg, out, as_of, "leave", "leave_return")


def graduation(out: Output, as_of: datetime.date) -> None:
    """The common numbers of every cohort in one table: rows = requirement, columns = cohorts."""
    pg = Page("/haksa/graduation.php")
    rng = pg.rng
    cols = [cohort_cell(p.first, p.last, rng) for p in PERIODS]
    pg.add(para("학과와 관계없이 모든 학생에게 공통인 졸업 기준을 입학년도별로 정리했습니다. "
                "전공 학점은 학과 졸업요건 페이지에서 확인하세요."),
           table("입학년도별 공통 졸업 기준", ["구분", *cols], [
               ["졸업학점", *(f"{t}학점" for t in TOTAL_CREDITS)], ["교양", *(f"{g}학점" for g in GE_CREDITS)],
               ["졸업 평점", *("2.0 이상" for _ in PERIODS)]], row_headers=True))
    pg.block("학과별 졸업요건", bullets([a(dept_path(d, "require", periods_for(d)[-1], requirement_pages(d)[0]),
                                          f"{d.name} 졸업요건") for d in DEPARTMENTS]))
    _publish(pg, out, as_of, "graduation", "graduation_requirements")


def multi_major(out: Output, as_of: datetime.date) -> None:
    pg = Page("/haksa/multi-major.php", applies(year_level=(2, 4)))
    pg.add(para(f"다전공은 2학년 이상, 평점 {policies.MULTI_MAJOR_MIN_GPA} 이상이면 신청할 수 있습니다. 다른 단과대학 학과도 선택할 수 있습니다."),
           table("다전공 이수 학점", ["구분", "이수학점"], [["복수전공", f"{policies.DOUBLE_MAJOR_CREDITS}학점 이상"],
                                                     ["부전공", f"{policies.MINOR_CREDITS}학점 이상"]], row_headers=True))
    pg.block("회계세무학과 복수전공 신청 제한", para(
        f"회계세무학과를 복수전공으로 신청하는 학생은 학기마다 {policies.ACT_DOUBLE_MAJOR_QUOTA}명 이내로 선발하며, "
        "회계원리 성적이 B0 이상이어야 합니다."), topic="multi_major", major=("BUS", "ITR", "ECN"))
    _publish(pg, out, as_of, "multi-major", "multi_major")


def transfer(out: Output, as_of: datetime.date) -> None:
    pg = Page("/haksa/transfer.php", applies(academic_status="transfer"))
    rng = pg.rng
    pg.add(para(f"{status('transfer', rng, '은/는')} 전적 대학에서 이수한 학점 중 최대 {policies.TRANSFER_CREDIT_CAP}학점까지 인정받으며, "
                f"그중 전공은 {policies.TRANSFER_MAJOR_CAP}학점까지 인정합니다."),
           bullets(["학점 인정 신청은 편입 첫 학기 수강정정 기간까지 학과 사무실에서 받습니다.",
                    "인정받은 과목의 성적은 P(통과)로 기록되며 평점에 넣지 않습니다."]))
    _publish(pg, out, as_of, "transfer", "transfer")


def overtime(out: Output, as_of: datetime.date) -> None:
    pg = Page("/haksa/overtime.php", applies(academic_status="overtime"))
    rng = pg.rng
    pg.add(para(f"{status('overtime', rng, '은/는')} 8학기를 등록하고도 졸업요건을 채우지 못해 추가로 등록하는 학생으로, "
                "신청 학점에 따라 등록금을 냅니다."),
           table("초과학기 등록금", ["신청 학점", "등록금"], [list(r) for r in policies.OVERTIME_FEES], row_headers=True))
    _publish(pg, out, as_of, "overtime", "tuition")


def defer(out: Output, as_of: datetime.date) -> None:
    pg = Page("/haksa/defer.php", applies(year_level=(4, 4)))
    pg.add(para(f"졸업요건을 모두 채운 4학년 학생은 최대 {policies.DEFER_SEMESTERS}학기까지 졸업을 미룰 수 있습니다. "
                f"유예 기간에는 수업료의 {policies.DEFER_FEE_PCT}%를 내야 합니다."))
    _publish(pg, out, as_of, "defer", "graduation")


def exchange(out: Output, as_of: datetime.date) -> None:
    pg = Page("/haksa/exchange.php", applies(year_level=(2, 4)))
    rng = pg.rng
    pg.add(para(f"교환학생 프로그램은 {levels(2, 4, rng)} 재학생을 대상으로 매년 두 번 선발합니다."),
           table("지원 자격과 인정 학점", ["구분", "기준"], [
               ["평점", f"{policies.EXCHANGE_MIN_GPA} 이상"], ["어학", f"TOEFL iBT {policies.EXCHANGE_TOEFL}점 이상"],
               ["파견 기간", f"최대 {policies.EXCHANGE_MAX_SEMESTERS}학기"], ["학점 인정", f"학기당 {policies.EXCHANGE_CREDIT_CAP}학점까지"]],
               row_headers=True))
    _publish(pg, out, as_of, "exchange", "exchange")


def internship(out: Output, as_of: datetime.date) -> None:
    pg = Page("/haksa/internship.php", applies(year_level=(3, 4)))
    rng = pg.rng
    pg.add(para(f"현장실습은 {levels(3, 4, rng)} 학생이 기업이나 기관에서 일하며 학점을 받는 과목입니다. "
                f"실습 지원금은 월 최대 {policies.INTERNSHIP_ALLOWANCE}만원입니다."),
           table("실습 기간별 인정 학점", ["실습 기간", "인정 학점"], [[k, f"{v}학점"] for k, v in policies.INTERNSHIP_CREDITS]))
    pg.block(pick(rng, "세종캠퍼스 지역기업 현장실습", "세종캠 지역연계 현장실습"), para(
        f"세종캠퍼스 학생은 세종·충청 지역기업 실습에 참여할 수 있으며, 지원금은 월 최대 {policies.SEJONG_REGIONAL_INTERNSHIP_ALLOWANCE}만원입니다."),
        topic="internship", campus="sejong")
    _publish(pg, out, as_of, "internship", "internship")


def scholarship(out: Output, as_of: datetime.date) -> None:
    pg = Page("/haksa/scholarship.php")
    rng = pg.rng
    pg.add(para("교내 장학금은 학기마다 선발하며, 국가장학금은 재적생 누구나 한국장학재단에 신청할 수 있습니다."))
    for campus_code, name in (("seoul", "서울캠퍼스"), ("sejong", "세종캠퍼스")):
        first, second, third = policies.MERIT_PCT[campus_code]
        pg.block(f"{name} 성적우수장학금", para(
            f"직전 학기 15학점 이상을 이수하고 평점 {policies.MERIT_GPA[campus_code]} 이상인 재학생을 선발합니다."),
            table(f"{name} 성적우수장학금 지급액", ["구분", "지급액"], [
                ["수석", f"등록금 {first}%"], ["차석", f"등록금 {second}%"], ["우수", f"등록금 {third}%"]], row_headers=True),
            topic="scholarship", campus=campus_code, academic_status="attending")
    pg.block(pick(rng, "세종캠퍼스 지역인재장학금", "세종캠 지역인재장학"), para(
        f"세종·충청 지역 고등학교를 졸업한 신입생에게 첫 학기 등록금의 {policies.REGIONAL_TALENT_PCT}%를 지급합니다."),
        topic="scholarship", campus="sejong", year_level=(1, 1))
    pg.block(pick(rng, "복학생 정착장학금", "복학 예정자 장학금"), para(
        f"{status('returning', rng, '은/는')} 복학 첫 학기에 정착장학금 {policies.RETURNING_SCHOLARSHIP}만원을 신청할 수 있습니다."),
        topic="scholarship", academic_status="returning")
    pg.block(pick(rng, "외국인 학부생 장학금", "국제학생 장학금"), table(
        "TOPIK 등급별 등록금 감면", ["등급", "감면"], [[k, f"{v}%"] for k, v in policies.FOREIGN_SCHOLARSHIP.items()]),
        topic="scholarship", academic_status="foreign")
    pg.add(notes([f"근로장학생은 월 최대 {policies.WORK_STUDY_HOURS}시간까지 일할 수 있습니다."]))
    _publish(pg, out, as_of, "scholarship", "scholarship")


def general_education(out: Output, as_of: datetime.date) -> None:
    pg = Page("/haksa/general-education.php")
    rng = pg.rng
    pg.add(para("교양은 공통교양과 핵심교양으로 나뉩니다. 영역 기준은 입학년도에 따라 다르니 본인 학번의 기준을 확인하세요."))
    pg.block(pick(rng, "2021학년도 이전 입학생", "'21학번까지"), bullets([
        "공통교양: 글쓰기, 영어Ⅰ·Ⅱ (3과목)", "핵심교양: 5개 영역 중 4개 영역에서 각 1과목 이상"]),
        topic="general_education", entry_year=(2014, 2021))
    pg.block(pick(rng, "2022학년도 이후 입학생", "22학번부터"), bullets([
        "공통교양: 글쓰기, 영어Ⅰ, 데이터 리터러시 (3과목)", "핵심교양: 6개 영역 중 5개 영역에서 각 1과목 이상"]),
        topic="general_education", entry_year=(2022, 2026))
    _publish(pg, out, as_of, "general-education", "general_education")


def military(out: Output, as_of: datetime.date) -> None:
    pg = Page("/haksa/military.php", applies(academic_status="on_leave"))
    pg.add(para("군휴학 중인 학생은 복무 중에도 원격강좌로 학점을 취득할 수 있습니다. 학기당 3학점, 통산 6학점까지 인정합니다."),
           bullets(["신청은 학기 시작 2주 전까지 포털에서 합니다.", "취득한 학점은 일반선택으로 인정합니다."]))
    _publish(pg, out, as_of, "military", "leave")


def build(out: Output, as_of: datetime.date) -> None:
    for make in (calendar, register, grade, leave, graduation, multi_major, transfer, overtime, defer, exchange,
                 internship, scholarship, general_education, military):
        make(out, as_of)
