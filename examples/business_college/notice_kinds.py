"""The recurring posts of one year on the two boards, each with whom it is addressed to.

A kind is posted every year on the same day, so the boards hold near-duplicates that differ in
semester, cohort or audience; its wording is seeded by the posting, not by the build.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass, field
from typing import Any, Callable

from examples.site_kit.korean import weekday

from . import policies
from .catalog import CAMPUS_KO
from .model import SCHEMA, applies
from .wording import cohort, josa, levels, pick, status


def when(d: datetime.date, start: int, length: int = 0) -> str:
    """"2026. 3. 3.(화) ~ 3. 6.(금)": how this office writes a period in a post."""
    a = d + datetime.timedelta(days=start)
    text = f"{a.year}. {a.month}. {a.day}.({weekday(a)})"
    if length:
        b = a + datetime.timedelta(days=length)
        text += f" ~ {b.month}. {b.day}.({weekday(b)})"
    return text


def term(d: datetime.date) -> str:
    """The semester a post on ``d`` is about."""
    return f"{d.year}학년도 {'1' if d.month <= 6 else '2'}학기"


@dataclass
class Draft:
    title: str
    author: str
    topic: str
    applies_to: dict[str, Any]
    intro: str
    details: list[tuple[str, str]] = field(default_factory=list)  # 항목 -> 내용
    notes: list[str] = field(default_factory=list)


Kind = Callable[[datetime.date, random.Random], Draft]


def leave(d, r):
    return Draft(pick(r, f"[학사] {term(d)} 휴학 신청 안내", f"{term(d)} 일반휴학·휴학 연장 접수"), "학사행정팀", "leave",
                 applies(academic_status=("attending", "on_leave")),
                 pick(r, f"{term(d)}에 휴학하려는 {status('attending', r, '과/와')} 휴학 기간을 연장하려는 {status('on_leave', r, '은/는')} 기간 안에 포털에서 신청하시기 바랍니다.",
                      f"{term(d)} 휴학 신청을 받습니다. {status('attending', r, '은/는')} 신규 휴학을, 휴학 중인 학생은 휴학 연장을 신청하세요."),
                 [("신청 기간", when(d, 3, 30)), ("신청 방법", "포털 > 학적 > 휴학 신청"), ("문의", "학사행정팀 02-940-2000")],
                 [f"일반휴학은 통산 {policies.LEAVE_TOTAL_SEMESTERS}학기를 넘을 수 없습니다.", "군휴학은 입영 전 수시로 신청합니다."])


def returning(d, r):
    return Draft(pick(r, f"[학사] {term(d)} 복학 신청 안내", f"{term(d)} 복학 예정자 복학 신청"), "학사행정팀", "leave",
                 applies(academic_status=("on_leave", "returning")),
                 pick(r, f"{term(d)}에 복학할 휴학생(복학 예정자)은 개강 {policies.RETURN_APPLY_DAYS}일 전까지 복학 신청을 마쳐야 합니다.",
                      f"{status('returning', r, '은/는')} 아래 기간에 복학을 신청하고 등록금을 납부하시기 바랍니다."),
                 [("신청 기간", when(d, 5, 14)), ("제출 서류", "군 제대자는 전역증 사본")],
                 ["기간 안에 복학하지 않으면 미복학 제적 대상이 됩니다."])


def registration(d, r):
    rows = [(f"{g}학년", when(d, 7 + (4 - g))) for g in (4, 3, 2, 1)]
    return Draft(pick(r, f"[학사] {term(d)} 수강신청 일정", f"{term(d)} 수강신청 및 정정 안내"), "학사행정팀", "registration",
                 applies(), "수강신청은 학년별로 아래 날짜에 오전 10시부터 진행합니다.", rows + [("수강정정", when(d, 30, 3))],
                 [f"학기당 최대 {policies.MAX_CREDITS}학점까지 신청할 수 있습니다."])


def entering(d) -> tuple[int, int] | None:
    """The cohort entering in a post's year, as a limit; None past the schema's last cohort (a post
    in a year the config has not been extended to cannot name it: it is then for first-years)."""
    return (d.year, d.year) if d.year <= SCHEMA.ranges["entry_year"][1] else None


def orientation(d, r):
    return Draft(pick(r, f"{d.year}학년도 신입생 오리엔테이션 안내", f"[신입생] {d.year} 새내기 오리엔테이션"), "학생지원팀", "orientation",
                 applies(entry_year=entering(d), year_level=(1, 1)),
                 pick(r, f"{d.year}학년도 신입생은 아래 일정에 따라 오리엔테이션에 참석하시기 바랍니다.",
                      f"{d.year}학년도 입학생을 위한 오리엔테이션을 캠퍼스별로 엽니다."),
                 [("서울캠퍼스", when(d, 9) + " 상경관 대강당"), ("세종캠퍼스", when(d, 10) + " 글로벌관 국제회의실")],
                 ["수강신청 방법과 학과별 교육과정을 안내합니다."])


def transfer_credit(d, r):
    return Draft(pick(r, f"[학사] {term(d)} 편입학생 학점인정 신청", "편입생 전적대학 학점 인정 신청 안내"), "학사행정팀", "transfer",
                 applies(academic_status="transfer"),
                 f"이번 학기 {status('transfer', r, '은/는')} 전적 대학 성적증명서를 내고 학점 인정을 신청하시기 바랍니다.",
                 [("신청 기간", when(d, 2, 7)), ("인정 한도", f"최대 {policies.TRANSFER_CREDIT_CAP}학점(전공 {policies.TRANSFER_MAJOR_CAP}학점)")])


def bus_exam(d, r):
    return Draft(pick(r, f"[서울캠퍼스] {term(d)} 경영학 종합시험 시행", f"경영학과(서울) {term(d)} 종합시험 안내"), "경영학과", "graduation_exam",
                 applies(major="BUS", campus="seoul", year_level=(4, 4)),
                 f"{CAMPUS_KO['seoul']} 경영학과 4학년 학생은 졸업 전에 경영학 종합시험에 합격해야 합니다.",
                 [("시험일", when(d, 21)), ("장소", "상경관 201호"), ("과목", "마케팅, 재무, 인사조직, 생산운영")],
                 ["합격 기준 점수는 입학년도별 졸업요건 페이지를 확인하세요."])


def graduation_check(d, r):
    return Draft(pick(r, f"[학사] {term(d)} 졸업예정자 졸업사정 자료 확인", f"{term(d)} 졸업 대상자 이수 현황 점검"), "학사행정팀", "graduation",
                 applies(year_level=(4, 4)),
                 pick(r, "졸업예정자는 포털에서 졸업사정 자료를 확인하고 오류가 있으면 학과 사무실에 알려 주시기 바랍니다.",
                      "이번 학기 졸업예정자의 이수 현황을 점검합니다. 부족한 학점이 있는지 꼭 확인하세요."),
                 [("확인 기간", when(d, 1, 10)), ("확인 메뉴", "포털 > 졸업 > 졸업사정 조회")])


def overtime(d, r):
    return Draft(pick(r, f"[학사] {term(d)} 초과학기 등록 안내", f"{term(d)} 초과학기생 등록금 납부"), "학사행정팀", "tuition",
                 applies(academic_status="overtime"),
                 f"{status('overtime', r, '은/는')} 수강신청한 학점에 따라 등록금을 납부해야 합니다.",
                 [(k, v) for k, v in policies.OVERTIME_FEES])


def exchange(d, r):
    lv = levels(2, 4, r)
    return Draft(pick(r, f"{d.year + (d.month > 6)}학년도 교환학생 파견 모집", f"[국제] 교환학생 선발 공고({term(d)})"), "국제교류팀", "exchange",
                 applies(year_level=(2, 4)),
                 "해외 협정 대학에서 한두 학기를 공부할 교환학생을 아래와 같이 선발합니다.",
                 [("지원 대상", f"{lv} 재학생"), ("어학 기준", f"평점 {policies.EXCHANGE_MIN_GPA} 이상, TOEFL iBT {policies.EXCHANGE_TOEFL}점 이상"),
                  ("서류 접수", when(d, 4, 14))])


def act_lecture(d, r):
    return Draft(pick(r, f"[회계세무학과] {d.year} 세무사 1차 대비 특강", f"회계세무학과 {levels(3, 4, r)} 세무사 특강 안내"), "회계세무학과",
                 "department_event", applies(major="ACT", year_level=(3, 4)),
                 "세무사 1차 시험 대비 특강을 아래와 같이 엽니다.",
                 [("대상", f"회계세무학과 {levels(3, 4, r)}"), ("일정", when(d, 14, 21) + " 매주 토요일"), ("정원", "40명")])


def itr_field(d, r):
    return Draft(pick(r, f"국제통상학과 {d.year} 하계 해외 현장학습 참가자 모집", f"[국제통상학과] 해외 현장학습 모집({d.year})"), "국제통상학과",
                 "department_event", applies(major="ITR", year_level=(2, 3)),
                 "하계 해외 현장학습 참가자를 모집합니다.",
                 [("참가 대상", f"{levels(2, 3, r)} 학생"), ("기간", "7월 중 10일"), ("모집 인원", "24명"), ("지원금", "1인당 80만원")])


def season(d, r):
    name = "하계" if d.month <= 6 else "동계"
    return Draft(f"[학사] {d.year}학년도 {name} 계절학기 수강 안내", "학사행정팀", "registration", applies(),
                 pick(r, f"{name} 계절학기 수강신청을 받습니다. 계절학기는 최대 6학점까지 들을 수 있습니다.",
                      f"{d.year}학년도 {name} 계절학기 개설 과목과 수강료를 안내합니다."),
                 [("수강신청", when(d, 7, 3)), ("수강료", "학점당 9만원")])


def major_change(d, r):
    return Draft(pick(r, f"[학사] {d.year + 1}학년도 전과 신청 안내", f"{d.year + 1}학년도 전과(학과 변경) 접수"), "학사행정팀", "major_change",
                 applies(year_level=(1, 2)),
                 f"학과를 바꾸려는 {levels(1, 2, r)} 재학생은 아래 기간에 전과를 신청하시기 바랍니다.",
                 [("신청 기간", when(d, 3, 10)), ("선발", "학과별 입학정원의 10% 이내")])


def new_curriculum(d, r):
    who = cohort(2024, 2026, r)
    return Draft(pick(r, f"{who} 교육과정 설명회", "2024 개편 교육과정 설명회 개최"), "교학팀", "curriculum",
                 applies(entry_year=(2024, 2026)),
                 f"{who}에게 적용되는 개편 교육과정(ESG경영, 캡스톤디자인 필수화)을 설명합니다.",
                 [("일시", when(d, 10)), ("장소", "상경관 대강당, 세종캠퍼스는 온라인 중계")])


def ecn_tesat(d, r):
    return Draft(pick(r, "[경제학과] TESAT 응시료 지원", f"경제학과 {term(d)} 경제이해력검증시험 응시료 지원"), "경제학과",
                 "department_event", applies(major="ECN"),
                 "경제학과 학생이 경제이해력검증시험(TESAT)에 응시하면 응시료를 전액 지원합니다.",
                 [("신청", when(d, 1, 14)), ("지원 인원", "선착순 60명")])


def bus_sejong_internship(d, r):
    return Draft(pick(r, f"세종캠퍼스 경영학과 {d.year + 1} 현장실습 설명회", "[경영학과(세종)] 현장실습 설명회"), "경영학과 세종분실",
                 "internship", applies(major="BUS", campus="sejong", year_level=(3, 4)),
                 f"{pick(r, '세종캠퍼스', '세종캠')} 경영학과 {levels(3, 4, r)} 학생을 위한 현장실습 설명회를 엽니다.",
                 [("일시", when(d, 8)), ("장소", "글로벌관 305호")],
                 ["세종캠퍼스 경영학과는 입학년도에 따라 현장실습이 졸업요건입니다."])


def topik(d, r):
    return Draft(pick(r, f"[국제] {term(d)} 외국인 학부생 TOPIK 특강", "외국인 유학생 한국어능력시험 대비반 모집"), "국제교류팀", "international",
                 applies(academic_status="foreign"),
                 f"{status('foreign', r, '을/를')} 위한 TOPIK 대비 특강을 엽니다.",
                 [("기간", when(d, 7, 35)), ("정원", "30명")])


def commencement(d, r):
    return Draft(pick(r, f"[학사] {d.year}학년도 {'전기' if d.month < 6 else '후기'} 학위수여식 안내", f"{d.year} 학위수여식 및 학위복 대여"), "학사행정팀",
                 "graduation", applies(year_level=(4, 4)),
                 "졸업예정자는 학위수여식 일정과 학위복 대여 방법을 확인하시기 바랍니다.",
                 [("일시", when(d, 20)), ("학위복 대여", when(d, 10, 5))])


def transition(d, r):
    who = cohort(2018, 2020, r)
    return Draft(pick(r, "'18~'20학번 졸업요건 경과조치 안내", f"{who} 졸업요건 변경(경과조치)"), "교학팀", "graduation_requirements",
                 applies(entry_year=(2018, 2020)),
                 f"{josa(who, '은/는')} 폐지된 전공필수 과목 대신 대체 과목을 이수해도 졸업요건을 충족한 것으로 인정합니다.",
                 [("대상 과목", "생산운영관리, 경영정보시스템"), ("대체 과목", "비즈니스 애널리틱스")])


def probation(d, r):
    return Draft(f"[학사] {term(d)} 학사경고자 학업 상담", "학사행정팀", "grades", applies(),
                 "지난 학기 학사경고를 받은 학생은 지도교수와 학업 상담을 받아야 합니다.",
                 [("상담 기간", when(d, 3, 21))], [f"학사경고 {policies.WARNING_DISMISSAL}회 연속 시 제적됩니다."])


# ----------------------------------------------------------------------------- 장학·취업 board

def national(d, r):
    return Draft(pick(r, f"[장학] {term(d)} 국가장학금 신청 안내", f"{term(d)} 국가장학금 2차 신청"), "장학복지팀", "scholarship", applies(),
                 "재적생 누구나 한국장학재단 누리집에서 국가장학금을 신청할 수 있습니다.",
                 [("신청 기간", when(d, 1, 20)), ("서류 제출", "가구원 동의 필수")])


def regional(d, r):
    return Draft(pick(r, f"[세종캠] {d.year}학년도 지역인재장학생 선발", f"세종캠퍼스 {d.year}학년도 신입생 지역인재장학금"), "학생지원팀",
                 "scholarship", applies(campus="sejong", entry_year=entering(d), year_level=(1, 1)),
                 f"{d.year}학년도 신입생 중 세종·충청 지역 고교 졸업자에게 첫 학기 등록금의 {policies.REGIONAL_TALENT_PCT}%를 지급합니다.",
                 [("신청", when(d, 2, 10))])


def merit_seoul(d, r):
    return Draft(pick(r, f"[장학] {term(d)} 서울캠퍼스 성적우수장학생 선발 결과", f"서울캠 {term(d)} 성적우수장학금 발표"), "장학복지팀",
                 "scholarship", applies(campus="seoul"),
                 f"{CAMPUS_KO['seoul']} 재학생 가운데 직전 학기 평점 {policies.MERIT_GPA['seoul']} 이상인 학생을 선발했습니다.",
                 [("수석", f"등록금 {policies.MERIT_PCT['seoul'][0]}%"), ("차석", f"등록금 {policies.MERIT_PCT['seoul'][1]}%")])


def returning_scholarship(d, r):
    return Draft(pick(r, f"[장학] {term(d)} 복학생 정착장학금 신청", "복학생 정착장학금 접수 안내"), "장학복지팀", "scholarship",
                 applies(academic_status="returning"),
                 f"이번 학기 {status('returning', r, '은/는')} 정착장학금 {policies.RETURNING_SCHOLARSHIP}만원을 신청할 수 있습니다.",
                 [("신청", when(d, 1, 14))])


def foreign_scholarship(d, r):
    return Draft(pick(r, f"[장학] {term(d)} 외국인 학부생 TOPIK 장학금", "외국인 유학생 성적장학금 신청"), "국제교류팀", "scholarship",
                 applies(academic_status="foreign"),
                 f"{status('foreign', r, '은/는')} TOPIK 등급에 따라 등록금을 감면받을 수 있습니다.",
                 [(k, f"등록금 {v}% 감면") for k, v in policies.FOREIGN_SCHOLARSHIP.items()])


def job_fair(d, r):
    return Draft(pick(r, f"[취업] {d.year} 하계 기업 채용설명회", f"{d.year} 여름 채용설명회 참가 안내"), "경력개발센터", "career",
                 applies(year_level=(4, 4)),
                 "4학년 학생과 졸업예정자를 대상으로 기업 채용설명회를 엽니다.",
                 [("일시", when(d, 14)), ("참가 기업", "금융·회계·유통 등 32개사")])


def work_study(d, r):
    return Draft(pick(r, f"[세종캠] {term(d)} 근로장학생 모집", f"세종캠퍼스 {term(d)} 교내 근로장학생 모집"), "학생지원팀", "scholarship",
                 applies(campus="sejong"),
                 f"교내 근로장학생을 모집합니다. 월 최대 {policies.WORK_STUDY_HOURS}시간까지 근무합니다.",
                 [("모집 대상", "세종캠퍼스 재학생"), ("모집 인원", "35명"), ("신청", when(d, 1, 7))])


def act_firms(d, r):
    return Draft(pick(r, f"[취업] {d.year} 회계법인 채용설명회", "회계법인 합동 채용설명회(회계세무학과)"), "경력개발센터", "career",
                 applies(major="ACT", year_level=(3, 4)),
                 f"회계세무학과 {levels(3, 4, r)} 학생을 위한 회계법인 합동 채용설명회입니다.",
                 [("일시", when(d, 10)), ("참가", "4대 회계법인 포함 9개사")])


def dorm(d, r):
    code = "seoul" if d.month == 10 else "sejong"
    name, capacity, fee = policies.DORMS[code]
    return Draft(pick(r, f"[{CAMPUS_KO[code]}] {name} 입사 신청", f"{CAMPUS_KO[code]} {name} 추가 입사생 모집"), "학생지원팀", "dormitory",
                 applies(campus=code),
                 f"{CAMPUS_KO[code]} 학생을 대상으로 {name} 입사 신청을 받습니다.",
                 [("기숙사비", f"학기당 {fee}만원"), ("신청", when(d, 2, 7))])


def camp(d, r):
    return Draft(pick(r, f"[취업] {d.year} 겨울 취업캠프", f"{d.year} 동계 취업역량 캠프 참가자 모집"), "경력개발센터", "career",
                 applies(year_level=(3, 4)),
                 "2박 3일 취업캠프 참가자를 모집합니다. 자기소개서 첨삭과 모의면접을 진행합니다.",
                 [("참가 대상", f"{levels(3, 4, r)} 학생"), ("모집 인원", "60명"), ("참가비", "무료")])


def transfer_orientation(d, r):
    return Draft(pick(r, f"[학사] {term(d)} 편입학생 오리엔테이션", "편입생 적응 오리엔테이션 안내"), "학사행정팀", "transfer",
                 applies(academic_status="transfer"),
                 f"이번 학기 {status('transfer', r, '을/를')} 위한 오리엔테이션을 엽니다. 학점 인정과 졸업요건을 안내합니다.",
                 [("일시", when(d, 16)), ("장소", "상경관 대강당")])


def shuttle(d, r):
    return Draft(pick(r, f"[세종캠] {term(d)} 조치원역 셔틀버스 시간표 변경", "세종캠퍼스 순환 셔틀 운행 시간 변경"), "학생지원팀",
                 "transport", applies(campus="sejong"),
                 f"{pick(r, '세종캠퍼스', '세종캠')} 조치원역 셔틀버스 운행 시간이 바뀝니다. 평일 15분 간격으로 운행합니다.",
                 [("첫차", "07:40"), ("막차", "22:10")])


def reading_room(d, r):
    return Draft(pick(r, f"[서울캠] {d.year} 방학 중 상경관 열람실 운영", "서울캠퍼스 열람실 방학 중 운영 시간"), "행정실", "facilities",
                 applies(campus="seoul"), f"{CAMPUS_KO['seoul']} 상경관 열람실을 방학 중에도 24시간 운영합니다.",
                 [("기간", when(d, 7, 60))])


def foreign_internship(d, r):
    return Draft(pick(r, f"[국제] {d.year} 외국인 학부생 하계 인턴십", "외국인 유학생 기업 인턴십 참가자 모집"), "국제교류팀", "internship",
                 applies(academic_status="foreign"),
                 f"{status('foreign', r, '을/를')} 대상으로 국내 기업 하계 인턴십(4주, 120시간) 참가자를 모집합니다.",
                 [("모집 인원", "15명"), ("지원금", "월 80만원")])


# ----------------------------------------------------------------------------- 학과소식 board

def bus_mentoring(d, r):
    return Draft(pick(r, f"[경영학과] {d.year} 신입생 선배 멘토링 매칭", "경영학과 새내기 멘토링 신청"), "경영학과", "department_event",
                 applies(major="BUS", year_level=(1, 1)), "경영학과 1학년 학생과 고학년 선배를 이어 주는 멘토링을 시작합니다.",
                 [("신청", when(d, 2, 7)), ("활동", "학기 중 4회 이상 만남")])


def act_mock(d, r):
    return Draft(pick(r, f"[회계세무학과] {term(d)} 전산세무 모의시험", "회계세무학과 전산세무 모의시험 시행"), "회계세무학과",
                 "certification", applies(major="ACT"), "회계세무학과 학생은 실무 인증을 위해 전산세무 모의시험에 응시할 수 있습니다.",
                 [("시험일", when(d, 14)), ("장소", "상경관 전산실")])


def itr_mock(d, r):
    return Draft(pick(r, f"[국제통상학과] {term(d)} 무역영어 모의시험", "국제통상학과 무역영어 모의시험 안내"), "국제통상학과",
                 "certification", applies(major="ITR"), "국제통상학과 학생을 대상으로 무역영어 모의시험을 시행합니다.",
                 [("시험일", when(d, 10)), ("문항", "객관식 75문항")])


def ecn_contest(d, r):
    return Draft(pick(r, f"[경제학과] {d.year} 경제데이터 분석 경진대회", "경제학과 데이터 분석 경진대회 참가 모집"), "경제학과",
                 "department_event", applies(major="ECN"), "경제학과 학생 팀(3명 이내)을 대상으로 경제데이터 분석 경진대회를 엽니다.",
                 [("접수", when(d, 3, 14)), ("시상", "대상 1팀 100만원")])


def bus_sejong_visit(d, r):
    return Draft(pick(r, f"[경영학과(세종)] {term(d)} 지역기업 탐방", "세종캠퍼스 경영학과 지역기업 탐방 신청"), "경영학과 세종분실",
                 "department_event", applies(major="BUS", campus="sejong"),
                 "세종캠퍼스 경영학과 학생을 대상으로 세종·충청 지역기업 탐방을 진행합니다.", [("일시", when(d, 12)), ("인원", "30명")])


def ecn_capstone(d, r):
    who = cohort(2022, 2026, r)
    return Draft(pick(r, f"[경제학과] {term(d)} 캡스톤 주제 신청({who})", "경제학 캡스톤 주제 신청 안내"), "경제학과", "capstone",
                 applies(major="ECN", entry_year=(2022, 2026), year_level=(4, 4)),
                 f"경제학과 {who} 가운데 4학년 학생은 경제학 캡스톤 주제를 신청해야 합니다.", [("신청", when(d, 3, 10))])


def act_exam(d, r):
    return Draft(pick(r, f"[회계세무학과] {term(d)} 회계 종합시험 접수", "회계세무학과 회계 종합시험 응시 신청"), "회계세무학과",
                 "graduation_exam", applies(major="ACT", year_level=(4, 4)),
                 "회계세무학과 4학년 학생은 회계 종합시험 응시 신청을 기간 안에 마쳐야 합니다.", [("접수", when(d, 2, 5))])


def itr_alumni(d, r):
    return Draft(pick(r, f"[국제통상학과] {d.year} 졸업생 초청 특강", "국제통상학과 선배 초청 진로 특강"), "국제통상학과", "career",
                 applies(major="ITR"), "국제통상학과 졸업생을 초청해 물류·무역 분야 진로 특강을 엽니다.", [("일시", when(d, 9))])


# (month, day, kind, board): the order is the rank that numbers a post (see notices.py).
ANNUAL: tuple[tuple[int, int, Kind, str], ...] = (
    (1, 6, leave, "notice"), (1, 20, returning, "notice"), (2, 3, registration, "notice"),
    (2, 16, orientation, "notice"), (3, 10, transfer_credit, "notice"), (3, 24, bus_exam, "notice"),
    (4, 7, graduation_check, "notice"), (4, 21, overtime, "notice"), (5, 12, exchange, "notice"),
    (5, 26, act_lecture, "notice"), (6, 2, itr_field, "notice"), (6, 9, season, "notice"),
    (7, 6, leave, "notice"), (7, 20, returning, "notice"), (8, 4, registration, "notice"),
    (8, 18, major_change, "notice"), (9, 8, new_curriculum, "notice"), (9, 22, ecn_tesat, "notice"),
    (10, 6, bus_sejong_internship, "notice"), (10, 20, topik, "notice"), (11, 3, commencement, "notice"),
    (11, 17, transition, "notice"), (12, 1, probation, "notice"), (12, 15, season, "notice"),
    (2, 9, transfer_orientation, "notice"), (3, 31, shuttle, "notice"), (6, 23, reading_room, "notice"),
    (1, 13, camp, "career"), (2, 24, national, "career"), (3, 3, regional, "career"), (3, 17, merit_seoul, "career"),
    (4, 14, returning_scholarship, "career"), (5, 19, foreign_scholarship, "career"), (6, 16, job_fair, "career"),
    (8, 25, work_study, "career"), (9, 15, act_firms, "career"), (10, 13, dorm, "career"), (11, 10, dorm, "career"),
    (7, 7, foreign_internship, "career"),
    (3, 5, bus_mentoring, "major"), (4, 10, act_mock, "major"), (5, 6, itr_mock, "major"), (6, 5, ecn_contest, "major"),
    (9, 4, bus_sejong_visit, "major"), (10, 8, ecn_capstone, "major"), (11, 5, act_exam, "major"), (11, 24, itr_alumni, "major"),
)
BOARDS = {"notice": "학사공지", "career": "장학·취업", "major": "학과소식"}
