"""FAQ pages split into one entry per question, each with its own citable URL."""

from __future__ import annotations

from advisor.config import Selectors
from advisor.ingest.faq import FaqEntry, split_faq

PAGE_URL = "https://www.hanbit.ac.kr/academics/faq.html"

DL_FAQ = """<html><body>
<header><nav><details><summary>전체 메뉴</summary><a href="/">홈</a></details></nav></header>
<main><h1>자주 묻는 질문</h1>
<dl class="faq">
  <div id="leave-of-absence">
    <dt>Q. 휴학 신청은 언제 하나요?</dt>
    <dd><p>학기 개시일 전까지 신청합니다.</p>
        <ul><li>일반휴학: 포털에서 신청</li><li>군휴학: 입영통지서 제출</li></ul></dd>
  </div>
  <div>
    <dt><span class="q">Q</span>복학 신청 기간은?</dt>
    <dd>A. 아래 표를 확인하세요.
      <table><thead><tr><th>학기</th><th>기간</th></tr></thead>
      <tbody><tr><td>1학기</td><td>1월 15일~2월 10일</td></tr>
             <tr><td>2학기</td><td>7월 15일~8월 10일</td></tr></tbody></table></dd>
  </div>
  <div id="empty-answer"><dt>답이 없는 질문</dt><dd>  </dd></div>
  <div><dt></dt><dd>질문이 없는 답</dd></div>
  <div><dt>졸업 유예는 가능한가요?</dt><dd>네, 최대 2학기까지 가능합니다.</dd></div>
</dl></main>
<footer>Copyright</footer>
</body></html>"""


def test_dl_faq_items_with_and_without_ids():
    entries = split_faq(DL_FAQ, PAGE_URL + "#top", Selectors())
    assert [e.anchor for e in entries] == ["leave-of-absence", "faq-2", "faq-5"]
    first, second, third = entries
    assert first == FaqEntry(
        url=PAGE_URL + "#leave-of-absence",
        anchor="leave-of-absence",
        position=1,
        question="휴학 신청은 언제 하나요?",
        answer="학기 개시일 전까지 신청합니다.\n\n- 일반휴학: 포털에서 신청\n- 군휴학: 입영통지서 제출",
    )
    assert second.url == PAGE_URL + "#faq-2" and second.position == 2
    assert second.question == "복학 신청 기간은?"
    assert second.answer == (
        "아래 표를 확인하세요.\n\n"
        "- 학기: 1학기 | 기간: 1월 15일~2월 10일\n"
        "- 학기: 2학기 | 기간: 7월 15일~8월 10일"
    )
    # Empty items are skipped but still count: #faq-N is the N-th item element on the page.
    assert (third.position, third.url) == (5, PAGE_URL + "#faq-5")
    assert third.answer == "네, 최대 2학기까지 가능합니다."


def test_details_summary_items():
    html = """<main>
      <details id="scholarship"><summary>장학금 종류는?</summary>
        <p>성적장학금과 가계곤란장학금이 있습니다.</p>
        <ol><li>성적장학금</li><li>가계곤란장학금</li></ol></details>
      <details><summary>신청 방법은?</summary>포털 &gt; 장학 메뉴에서 신청합니다.</details>
      <details><summary>빈 답변</summary></details>
    </main>"""
    entries = split_faq(html, PAGE_URL, Selectors())
    assert [(e.anchor, e.question) for e in entries] == [("scholarship", "장학금 종류는?"), ("faq-2", "신청 방법은?")]
    assert entries[0].answer == "성적장학금과 가계곤란장학금이 있습니다.\n\n1. 성적장학금\n2. 가계곤란장학금"
    assert entries[1].answer == "포털 > 장학 메뉴에서 신청합니다."


def test_plain_dt_dd_fallback():
    html = """<div class="qna"><dl>
      <dt>수강정정 기간은?</dt><dd>개강 후 1주일입니다.</dd>
      <dt id="q-retake">재수강 가능한가요?</dt><dd>C+ 이하 과목만 가능합니다.</dd><dd>최대 B+까지 인정됩니다.</dd>
    </dl></div>"""
    entries = split_faq(html, PAGE_URL, Selectors())
    assert [(e.url, e.question) for e in entries] == [
        (PAGE_URL + "#faq-1", "수강정정 기간은?"),
        (PAGE_URL + "#q-retake", "재수강 가능한가요?"),
    ]
    assert entries[1].answer == "C+ 이하 과목만 가능합니다.\n\n최대 B+까지 인정됩니다."


def test_configured_selectors():
    html = """<ul class="faq-list">
      <li id="f1"><p class="tit">기숙사 신청은?</p><div class="cont"><p>생활관 홈페이지에서 신청합니다.</p></div></li>
      <li><p class="tit">식당 운영 시간은?</p><div class="cont">11:30~13:30</div></li>
    </ul>"""
    selectors = Selectors(faq_item="ul.faq-list > li", faq_question=".tit", faq_answer=".cont")
    entries = split_faq(html, PAGE_URL, selectors)
    assert [(e.anchor, e.question, e.answer) for e in entries] == [
        ("f1", "기숙사 신청은?", "생활관 홈페이지에서 신청합니다."),
        ("faq-2", "식당 운영 시간은?", "11:30~13:30"),
    ]


def test_faq_item_class_with_heading_question():
    html = """<div class="faq-item" id="tuition"><h3>등록금 분할납부가 되나요?</h3>
      <p>4회까지 분할납부할 수 있습니다.</p></div>"""
    (entry,) = split_faq(html, PAGE_URL, Selectors())
    assert (entry.anchor, entry.question, entry.answer) == ("tuition", "등록금 분할납부가 되나요?", "4회까지 분할납부할 수 있습니다.")


def test_page_without_faq_items_gives_nothing():
    html = "<main><h1>공지</h1><p>FAQ가 아닌 일반 페이지입니다.</p></main>"
    assert split_faq(html, PAGE_URL, Selectors()) == []
    assert split_faq(DL_FAQ, PAGE_URL, Selectors(faq_item=".no-such-item")) == []


def test_accordion_questions_inside_buttons():
    html = """<div class="faq-wrap">
      <article class="faq-item" id="q1"><h3 class="faq-q"><button type="button" aria-expanded="false">
        <span class="ico" aria-hidden="true">Q</span>휴학은 몇 학기까지 되나요?</button></h3>
        <div class="faq-a" hidden><p>통산 6학기입니다.</p><button type="button">닫기</button></div></article>
      <article class="faq-item"><h3 class="faq-q"><button type="button">복학 신청은 언제?</button></h3>
        <div class="faq-a" hidden><p>개강 2주 전까지입니다.</p></div></article>
    </div>"""
    selectors = Selectors(faq_item="div.faq-wrap > article.faq-item", faq_question="h3.faq-q", faq_answer="div.faq-a")
    entries = split_faq(html, PAGE_URL, selectors)
    assert [(e.anchor, e.question, e.answer) for e in entries] == [
        ("q1", "휴학은 몇 학기까지 되나요?", "통산 6학기입니다."),  # the answer's own button stays out
        ("faq-2", "복학 신청은 언제?", "개강 2주 전까지입니다."),
    ]
