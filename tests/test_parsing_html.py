"""HTML page parsing: boilerplate removal, structured text, titles, breadcrumbs, links."""

from __future__ import annotations

import datetime as dt

import pytest

from advisor.annotation.structure import table_labels
from advisor.config import Selectors
from advisor.ingest.errors import DocumentError
from advisor.ingest.html_text import extract_links, extract_page
from advisor.ingest.rows import is_group_row, is_table_row

URL = "https://www.hanbit.ac.kr/cs/graduation.do"

PAGE = """<!DOCTYPE html>
<html lang="ko">
<head>
  <meta charset="utf-8">
  <title>졸업요건 | 컴퓨터학과 | 한빛대학교</title>
  <script>var trackingLabel = "스크립트 문자열";</script>
  <style>.gnb { color: red; }</style>
</head>
<body>
<div id="skipnav"><a href="#content">본문 바로가기</a></div>
<header id="header">
  <h1 class="logo"><a href="/"><img src="/img/logo.png" alt="한빛대학교"></a></h1>
  <nav class="gnb"><ul>
    <li><a href="/intro">대학소개</a></li>
    <li><a href="/academics">학사안내</a></li>
    <li><a href="/campus">캠퍼스생활</a></li>
  </ul></nav>
</header>
<div class="container">
  <aside class="lnb">
    <h2>학사안내</h2>
    <ul><li><a href="/academics/enroll">수강신청</a></li><li><a href="/academics/leave">휴학안내</a></li></ul>
  </aside>
  <main id="content">
    <div class="location">
      <span class="blind">현재 위치</span>
      <a href="/" class="home"><img src="/img/home.png" alt="홈"></a> &gt;
      <a href="/academics">학사안내</a> &gt;
      <strong>졸업요건</strong>
    </div>
    <h1>졸업요건</h1>
    <p class="date">게시일 <time datetime="2024-03-02T09:00:00+09:00">2024.03.02</time></p>
    <p>컴퓨터학과 학생은 <strong>졸업</strong>을 위해 아래 요건을
       <a href="/academics/rules">모두</a> 충족해야 합니다.<br>문의: 학과사무실</p>
    <h2>이수학점</h2>
    <table class="tbl">
      <caption>입학년도별 졸업 이수학점</caption>
      <thead><tr><th>입학년도</th><th>구분</th><th>학점</th></tr></thead>
      <tbody>
        <tr><td rowspan="2">2021학년도 이후</td><td>전공</td><td>72</td></tr>
        <tr><td>교양</td><td>30</td></tr>
        <tr><td>2020학년도 이전</td><td>전공</td><td>60</td></tr>
      </tbody>
    </table>
    <h3>유의사항</h3>
    <ul>
      <li>복수전공자는
        <ul><li>주전공 <em>42학점</em></li><li>복수전공 42학점</li></ul>
      </li>
      <li>편입생은 별도 기준을 따릅니다.</li>
    </ul>
    <ol><li>졸업논문 제출</li><li>졸업시험 합격</li></ol>
    <dl><dt>담당</dt><dd>학과사무실 (02-123-4567)</dd></dl>
    <form class="search"><label>검색</label><input name="q"><button>검색하기</button></form>
  </main>
</div>
<footer id="footer"><p>Copyright 한빛대학교. 서울특별시 한빛로 1</p></footer>
</body>
</html>
"""


@pytest.fixture(scope="module")
def page():
    return extract_page(PAGE, URL, Selectors(date="time"))


def test_boilerplate_is_dropped(page):
    for noise in ("스크립트", "대학소개", "캠퍼스생활", "수강신청", "Copyright", "본문 바로가기",
                  "검색", "현재 위치", "color: red"):
        assert noise not in page.text, noise


def test_title_breadcrumbs_date_lang(page):
    assert page.title == "졸업요건"
    assert page.breadcrumbs == ["홈", "학사안내", "졸업요건"]
    assert page.date == dt.date(2024, 3, 2)
    assert page.lang == "ko"
    assert page.headings == ["졸업요건", "이수학점", "유의사항"]


def test_headings_paragraphs_and_inline_elements(page):
    assert page.text.startswith("# 졸업요건\n\n")
    assert "\n\n## 이수학점\n\n" in page.text
    assert "\n\n### 유의사항\n\n" in page.text
    # Inline elements joined without breaks; <br> is a newline; no runs of spaces anywhere.
    assert "컴퓨터학과 학생은 졸업을 위해 아래 요건을 모두 충족해야 합니다.\n문의: 학과사무실" in page.text
    assert "  " not in page.text.replace("\n  ", "\n")  # only list indentation has double spaces
    assert "\n\n\n" not in page.text


def test_table_rows_are_self_contained(page):
    assert (
        "입학년도별 졸업 이수학점\n"
        "- 입학년도: 2021학년도 이후 | 구분: 전공 | 학점: 72\n"
        "- 입학년도: 2021학년도 이후 | 구분: 교양 | 학점: 30\n"
        "- 입학년도: 2020학년도 이전 | 구분: 전공 | 학점: 60"
    ) in page.text


def test_lists_and_definition_lists(page):
    assert (
        "- 복수전공자는\n"
        "  - 주전공 42학점\n"
        "  - 복수전공 42학점\n"
        "- 편입생은 별도 기준을 따릅니다."
    ) in page.text
    assert "1. 졸업논문 제출\n2. 졸업시험 합격" in page.text
    assert "담당: 학과사무실 (02-123-4567)" in page.text


def _text(body: str, **selectors) -> str:
    return extract_page(f"<html><body>{body}</body></html>", URL, Selectors(**selectors)).text


def test_table_without_thead_uses_first_th_row_and_expands_colspan():
    text = _text(
        "<table><tr><th rowspan=2>과목</th><th colspan=2>학점</th></tr>"
        "<tr><th>이론</th><th>실습</th></tr>"
        "<tr><td>자료구조</td><td>3</td><td>1</td></tr>"
        "<tr><td colspan=3>2학년</td></tr>"
        "<tr><td>운영체제</td><td colspan=2>4</td></tr></table>"
    )
    assert text.split("\n") == [
        "- 과목: 자료구조 | 학점 이론: 3 | 학점 실습: 1",
        "- 2학년",
        "- 과목: 운영체제 | 학점: 4",
    ]


def test_table_without_header_and_with_row_headers():
    assert _text("<table><tr><td>가</td><td>나</td></tr><tr><td>다</td><td>라</td></tr></table>") == "- 가 | 나\n- 다 | 라"
    assert _text("<table><tr><th>학과</th><td>컴퓨터학과</td></tr><tr><th>전화</th><td>02-1234</td></tr></table>") == (
        "- 학과: 컴퓨터학과\n- 전화: 02-1234"
    )


def test_nested_ordered_lists_and_stray_nested_list():
    text = _text("<ol start=3><li>셋<ol><li>하나</li></ol></li><li>넷</li></ol>"
                 "<ul><li>a</li><ul><li>a-1</li></ul><li>b</li></ul>")
    assert text == "3. 셋\n  1. 하나\n4. 넷\n\n- a\n  - a-1\n- b"


def test_malformed_html_still_reads_sensibly():
    text = _text(
        "<div><p>닫히지 않은 <b>굵은 글씨<p>다음 문단</div></div></span>"
        "<div>꼬리 <a href=x>링크</a>텍스트<ul><li>항목 하나<li>항목 둘</ul>"
    )
    assert text == "닫히지 않은 굵은 글씨\n\n다음 문단\n\n꼬리 링크텍스트\n\n- 항목 하나\n- 항목 둘"


def test_thousands_of_unclosed_tags_do_not_overflow():
    # Old editors leave <font> unclosed; the parser nests each one inside the last.
    text = _text("<main>" + "<font color=red>학점 <script>track()</script>" * 3000 + "</main>")
    assert text.count("학점") == 3000 and "track" not in text


def test_whitespace_is_normalized():
    assert _text("<p>  여러   칸의 \n\n 공백&nbsp;&nbsp;입니다 </p><p></p><p><br><br></p><p>가<br><br><br>나</p>") == (
        "여러 칸의 공백 입니다\n\n가\n\n나"
    )


def test_configured_selectors_and_removal():
    html = (
        "<body><div id=wrap><h2 class=page-title>학사일정</h2><div class=banner>배너 광고</div>"
        "<div id=board><p>2024학년도 1학기 개강</p><span class=reg>등록일: 2024.2.26.</span></div></div></body>"
    )
    page = extract_page(html, URL, Selectors(content="#board", title=".page-title", date=".reg", remove=(".banner",)))
    assert page.title == "학사일정"
    assert page.date == dt.date(2024, 2, 26)
    assert "배너" not in page.text and page.text.startswith("2024학년도 1학기 개강")


def test_title_fallbacks():
    assert extract_page("<title>학사공지 - 한빛대학교</title><main><h1>공지</h1><p>내용</p></main>", URL, Selectors()).title == "공지"
    assert extract_page("<title>학사공지 - 한빛대학교</title><p>내용</p>", URL, Selectors()).title == "학사공지"
    assert extract_page("<title>Graduation | CS | Hanbit</title><p>Text</p>", URL, Selectors()).title == "Graduation | CS"
    page = extract_page("<p>No title here</p>", URL, Selectors())
    assert page.title == "" and page.lang == "en" and page.date is None


def test_breadcrumb_from_list_and_from_plain_text():
    html = ('<nav aria-label="breadcrumb"><ol><li><a href="/">Home</a></li>'
            '<li><a href="/a">학사</a><ul class="depth"><li><a>수업</a></li><li><a>졸업</a></li></ul></li>'
            '<li>졸업요건</li></ol></nav><main><p>본문</p></main>')
    assert extract_page(html, URL, Selectors()).breadcrumbs == ["Home", "학사", "졸업요건"]
    html = '<div class="path">홈 › 대학생활 / 장학금</div><main><p>본문</p></main>'
    page = extract_page(html, URL, Selectors(breadcrumb=".path"))
    assert page.breadcrumbs == ["홈", "대학생활", "장학금"]
    assert "대학생활" not in page.text


def test_content_without_text_is_empty_text():
    with pytest.raises(DocumentError) as err:
        extract_page("<html><body><nav><a href=/>메뉴</a></nav><main> </main></body></html>", URL, Selectors())
    assert err.value.reason == "empty_text"


def test_whole_page_form_is_kept():
    html = "<body><form id=aspnetForm><main><h1>장학 안내</h1><p>성적장학금 안내입니다.</p></main></form></body>"
    assert "성적장학금" in extract_page(html, URL, Selectors()).text


def test_links_are_absolute_deduplicated_and_filtered():
    html = """
      <a href="notice.do?id=1#reply">1</a>
      <a href="/academics/">학사</a>
      <a href="notice.do?id=1">1 again</a>
      <a href="#top">top</a>
      <a href="mailto:office@hanbit.ac.kr">mail</a>
      <a href="tel:021234567">tel</a>
      <a href="javascript:void(0)">js</a>
      <a href="  https://other.example.org/x  ">other</a>
      <a href="ftp://files.example.org/a">ftp</a>
      <a href="http://[broken">broken</a>
      <a>no href</a>
    """
    assert extract_links(html, URL) == [
        "https://www.hanbit.ac.kr/cs/notice.do?id=1",
        "https://www.hanbit.ac.kr/academics/",
        "https://other.example.org/x",
    ]


def test_links_respect_base_href():
    html = '<head><base href="/board/"></head><a href="view.do?no=7">글</a><a href="../main">메인</a>'
    assert extract_links(html, URL) == [
        "https://www.hanbit.ac.kr/board/view.do?no=7",
        "https://www.hanbit.ac.kr/main",
    ]


def test_the_chunker_and_the_annotator_read_the_rows_the_cleaner_writes():
    """One owner of the row format (advisor/ingest/rows.py): a headed row is a table row, a row
    across the table is a group row that heads the rows below (a list item looks like one: the
    readers look for group rows only among a table's rows), and a group row is one line."""
    text = _text(
        "<table><caption>2024학년도 입학생 전공 이수 학점</caption><tr><th>구분</th><th>학점</th></tr>"
        "<tr><td colspan=2>단일전공</td></tr>"
        "<tr><td>전공필수</td><td>24</td></tr></table>"
        "<ul><li>졸업논문은 4학년 2학기에 제출합니다.</li></ul>"
    )
    lines = text.split("\n")
    rows = [line for line in lines if is_table_row(line)]
    assert rows == ["- 구분: 전공필수 | 학점: 24"]
    assert [line for line in lines[:3] if is_group_row(line)] == ["- 단일전공"]
    assert not is_group_row("- 졸업논문은 4학년 2학기에 제출합니다.\n  이어지는 설명")  # one line, or not a row
    assert table_labels(text) == ["2024학년도 입학생 전공 이수 학점", "단일전공"]
