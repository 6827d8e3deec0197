"""대학소개 (/college/) and the home page: facts for everyone, and per-campus parts (offices,
directions, facilities, dormitories) under a heading per campus."""

from __future__ import annotations

import datetime

from examples.site_kit.markup import a

from . import policies
from .catalog import CAMPUS_KO
from .chrome import bullets, para, table
from .model import Output
from .pages import Page

SOURCE = "college-pages"
PAGES = (("greeting", "학장 인사말"), ("history", "연혁"), ("organization", "행정조직"), ("location", "오시는 길"),
         ("facilities", "시설 안내"), ("dormitory", "기숙사"), ("certificate", "증명서 발급"), ("privacy", "개인정보처리방침"))
SIDE = ("대학소개", [(f"/college/{slug}.php", label) for slug, label in PAGES])
ABOUT = ("대학소개", "/college/greeting.php")


def _publish(pg: Page, out: Output, as_of, slug: str, topic: str) -> None:
    label = dict(PAGES)[slug]
    pg.publish(out, as_of, source=SOURCE, title=label, crumbs=[ABOUT, (label, None)], side=SIDE, topic=topic)


def home(out: Output, as_of: datetime.date, latest: list[tuple[str, str, str]]) -> None:
    pg = Page("/index.php")
    pg.add(para("새빛대학교 경영경제대학은 서울캠퍼스와 세종캠퍼스에 4개 학과를 둔 단과대학입니다."),
           table("최근 학사공지", ["제목", "등록일"], [[a(href, title), date] for href, title, date in latest]),
           bullets([a("/haksa/calendar.php", "학사일정"), a("/guide/faq.php?cat=haksa", "자주 묻는 질문"),
                    a("/data/index.php", "자료실"), a("/old/index.htm", "구 상경대학 홈페이지 자료실"),
                    a("/eng/index.html", "For international students (English)")]))
    pg.publish(out, as_of, source=SOURCE, title="경영경제대학 홈", crumbs=[], topic="general")


def greeting(out: Output, as_of: datetime.date) -> None:
    pg = Page("/college/greeting.php")
    pg.add(para("경영경제대학 홈페이지를 찾아 주신 여러분을 환영합니다. 우리 대학은 1979년 상경대학으로 출발해 "
                "2017년 경영경제대학으로 새롭게 태어났습니다."),
           para("학생 한 사람 한 사람이 시장과 사회를 이해하는 전문가로 성장하도록 돕겠습니다."),
           para("경영경제대학장 드림"))
    _publish(pg, out, as_of, "greeting", "about")


def history(out: Output, as_of: datetime.date) -> None:
    pg = Page("/college/history.php")
    events = [("1979", "상경대학 설립(경영학부, 경제학부)"), ("1998", "세종캠퍼스 경영학부·경제학부 개설"),
              ("2017", "상경대학을 경영경제대학으로 개편, 경영학과·경제학과로 명칭 변경"),
              ("2018", "회계세무학과 신설(서울캠퍼스)"), ("2020", "국제통상학과 신설(세종캠퍼스)"),
              ("2024", "ESG경영 교과목 전 학과 개설")]
    pg.add(table("경영경제대학 연혁", ["연도", "내용"], [list(e) for e in events]))
    _publish(pg, out, as_of, "history", "about")


def organization(out: Output, as_of: datetime.date) -> None:
    pg = Page("/college/organization.php")
    pg.add(para("업무별 담당 부서와 전화번호입니다. 학적과 장학은 소속 캠퍼스의 부서로 문의하세요."))
    pg.block("서울캠퍼스 행정실", table("서울캠퍼스 부서 연락처", ["부서", "전화", "업무"], [
        ["행정실", "02-940-2000", "학적, 졸업, 증명서"], ["장학복지팀", "02-940-2010", "교내외 장학"],
        ["국제교류팀", "02-940-2020", "외국인 학부생, 교환학생"]]), topic="contact", campus="seoul")
    pg.block("세종캠퍼스 행정팀", table("세종캠퍼스 부서 연락처", ["부서", "전화", "업무"], [
        ["학사행정팀", "044-860-2000", "학적, 졸업, 증명서"], ["학생지원팀", "044-860-2010", "장학, 기숙사, 셔틀"],
        ["국제교류센터", "044-860-2020", "외국인 학부생"]]), topic="contact", campus="sejong")
    _publish(pg, out, as_of, "organization", "contact")


def location(out: Output, as_of: datetime.date) -> None:
    pg = Page("/college/location.php")
    pg.block("서울캠퍼스", para("지하철 4호선 새빛대입구역 3번 출구에서 걸어서 8분 거리이며, 상경관은 정문에서 왼쪽 두 번째 건물입니다."),
             topic="location", campus="seoul")
    pg.block("세종캠퍼스", para(f"경부선 조치원역에서 셔틀버스를 이용하세요({policies.SHUTTLE['sejong']}). 글로벌관은 본관 뒤편에 있습니다."),
             topic="location", campus="sejong")
    _publish(pg, out, as_of, "location", "location")


def facilities(out: Output, as_of: datetime.date) -> None:
    pg = Page("/college/facilities.php")
    pg.add(para("경영경제대학 학생이 쓸 수 있는 열람실과 라운지를 안내합니다. 학생증으로 출입합니다."))
    for code in ("seoul", "sejong"):
        pg.block(f"{CAMPUS_KO[code]} 시설", bullets([
            f"상경 라운지: {policies.LOUNGE_SEATS[code]}명 수용, 팀 프로젝트실 예약 가능",
            f"열람실 운영 시간: {policies.READING_ROOM_HOURS[code]}"]), topic="facilities", campus=code)
    _publish(pg, out, as_of, "facilities", "facilities")


def dormitory(out: Output, as_of: datetime.date) -> None:
    pg = Page("/college/dormitory.php")
    pg.add(para("기숙사는 캠퍼스마다 따로 운영하며, 학기 시작 전에 입사 신청을 받습니다."))
    for code in ("seoul", "sejong"):
        name, capacity, fee = policies.DORMS[code]
        pg.block(f"{CAMPUS_KO[code]} {name}", table(f"{name} 개요", ["구분", "내용"], [
            ["정원", f"{capacity}명"], ["기숙사비", f"학기당 {fee}만원"], ["호실", "2인실"]], row_headers=True),
            topic="dormitory", campus=code)
    _publish(pg, out, as_of, "dormitory", "dormitory")


def certificate(out: Output, as_of: datetime.date) -> None:
    pg = Page("/college/certificate.php")
    pg.add(para("재학증명서와 성적증명서는 무인발급기나 인터넷으로 발급받을 수 있습니다. 인터넷 발급 수수료는 1통에 1천원입니다."))
    pg.block("서울캠퍼스", para("무인발급기: 상경관 1층 로비(평일 09:00~18:00). 영문 증명서는 행정실에서 당일 발급합니다."),
             topic="certificate", campus="seoul")
    pg.block("세종캠퍼스", para("무인발급기: 글로벌관 1층(평일 09:00~17:30). 영문 증명서는 학사행정팀에서 하루 뒤 발급합니다."),
             topic="certificate", campus="sejong")
    _publish(pg, out, as_of, "certificate", "certificate")


def privacy(out: Output, as_of: datetime.date) -> None:
    pg = Page("/college/privacy.php")
    pg.add(para("이 홈페이지는 회원 가입 없이 이용할 수 있습니다. 문의 메일의 개인정보는 답변 후 1년간 보관한 뒤 파기합니다."))
    _publish(pg, out, as_of, "privacy", "about")


def build(out: Output, as_of: datetime.date, latest: list[tuple[str, str, str]]) -> None:
    home(out, as_of, latest)
    for make in (greeting, history, organization, location, facilities, dormitory, certificate, privacy):
        make(out, as_of)
