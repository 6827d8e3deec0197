"""Dated sources: a page's own posted / updated dates read at parse time, carried to every citation
with its fetch time, and notices past their expiry never cited, on whatever day the build is
served (the day comes from the caller or the institution config, never the wall clock)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
import pytest
from selectolax.lexbor import LexborHTMLParser

from advisor.config import InstitutionConfig, Selectors
from advisor.index.layout import read_manifest
from advisor.index.store import latest_build_dir
from advisor.index_build.records import expires_on
from advisor.ingest.documents import compute_statuses
from advisor.ingest.html_text import extract_page
from advisor.ingest.page_dates import page_dates
from advisor.retrieval import RetrievalParams
from examples.site_kit.updated import last_updated
from tests.test_retrieval import make_retriever, record

DEFAULT = Selectors()


def dates_of(html: str) -> tuple[date | None, date | None]:
    stated = page_dates(LexborHTMLParser(html))
    return stated.posted, stated.updated


# --------------------------------------------------------------------------- reading the dates

@pytest.mark.parametrize("html, posted, updated", [
    # structured markup: Open Graph / article meta
    ('<head><meta property="article:published_time" content="2024-01-10T09:00:00+09:00">'
     '<meta property="article:modified_time" content="2024-02-11T23:30:00+09:00"></head><body><p>x</p></body>',
     date(2024, 1, 10), date(2024, 2, 11)),
    # schema.org JSON-LD in a @graph
    ('<head><script type="application/ld+json">{"@graph": [{"@type": "WebPage", "datePublished": "2023-05-01",'
     ' "dateModified": "2024-06-30T10:00:00Z"}]}</script></head><body><p>x</p></body>', date(2023, 5, 1), date(2024, 6, 30)),
    # microdata
    ('<body><p>Posted <time itemprop="datePublished" datetime="2025-09-01">Sep 1</time></p></body>',
     date(2025, 9, 1), None),
    # Korean labels: a definition list below the content, and a post's meta line
    ('<body><main><p>본문</p></main><dl><dt>담당부서</dt><dd>학사지원팀</dd><dt>최종수정일</dt><dd>2025.03.02</dd></dl></body>',
     None, date(2025, 3, 2)),
    ('<body><p>작성자 홍길동 | 등록일 : 2024-11-05 14:20 | 조회 30</p><p>본문</p></body>', date(2024, 11, 5), None),
    ('<body><p>최종 수정일: 2025년 2월 24일</p></body>', None, date(2025, 2, 24)),
    # English labels with month names, any case
    ('<body><p>Text.</p><p>Last updated: March 2, 2025</p></body>', None, date(2025, 3, 2)),
    ('<body><p>POSTED ON 2 Sept 2024</p><p>Updated 14 October 2024</p></body>', date(2024, 9, 2), date(2024, 10, 14)),
])
def test_a_page_s_own_dates_are_read_from_markup_and_labels(html, posted, updated):
    assert dates_of(html) == (posted, updated)


@pytest.mark.parametrize("html", [
    '<body><h1>학사일정</h1><p>2025.03.02 개강</p><p>2025.06.15 기말고사</p></body>',  # dates, but not the page's
    '<body><table><tr><th>번호</th><th>제목</th><th>등록일</th></tr><tr><td>1</td><td>a</td>'
    '<td>2025.01.01</td></tr></table></body>',  # a board's list: the label heads a column, no date follows it
    '<body><p>The outdated 2024-01-01 rules</p><p>last updated by the office</p></body>',  # no label + date pair
    '<body><p>수정 사항 없음</p></body>',
])
def test_a_page_that_states_no_date_of_its_own_gives_none(html):
    assert dates_of(html) == (None, None)


def test_the_source_s_date_selector_comes_before_what_the_page_states():
    html = ('<body><main><p class="d">2024.04.01</p><p>작성일 2024.03.01 · 최종수정일 2024.03.20</p>'
            '<p>본문</p></main></body>')
    configured = extract_page(html, "http://x/a", Selectors(date="p.d"))
    assert (configured.date, configured.updated) == (date(2024, 4, 1), date(2024, 3, 20))
    stated = extract_page(html, "http://x/a", DEFAULT)
    assert (stated.date, stated.updated) == (date(2024, 3, 1), date(2024, 3, 20))


def test_the_bundled_colleges_academic_pages_state_their_revision_date_outside_the_cleaned_text():
    from examples.business_college import haksa
    from examples.business_college import model as business
    from examples.demo_college import college
    from examples.demo_college import model as demo

    as_of = date(2026, 12, 7)
    pages = {}
    for make, file_for in ((lambda out: (college.course_registration(out, as_of), college.english_pages(out, as_of),
                                         college.about_pages(out, as_of)), demo.file_for),
                           (lambda out: haksa.leave(out, as_of), business.file_for)):
        out = demo.Output(file_for)
        make(out)
        pages.update({path: out.files[file_for(path)].decode() for path in (d.path for d in out.docs)})
    for path, content in ((p, "main#content") for p in ("/academics/course-registration.html",
                                                         "/en/academic-guide.html")):
        page = extract_page(pages[path], "http://x" + path, Selectors(content=content))
        assert page.updated == last_updated(path, as_of) < as_of
        assert "최종수정일" not in page.text and "Last updated" not in page.text  # the cleaned text is unchanged
    page = extract_page(pages["/haksa/leave.php"], "http://x/haksa/leave.php", Selectors(content="div.cont_area"))
    assert page.updated == last_updated("/haksa/leave.php", as_of) and "최종수정일" not in page.text
    # the same day in every build of the academic year; the about pages say nothing
    assert last_updated("/haksa/leave.php", as_of) == last_updated("/haksa/leave.php", date(2026, 3, 2))
    assert extract_page(pages["/about/history.html"], "http://x/", DEFAULT).updated is None


# --------------------------------------------------------------------------- expiry at serve time

TODAY = date(2025, 6, 1)


def test_the_build_s_expiry_and_the_cleaner_s_agree_on_the_last_day():
    expiry = {"notices": 365}
    for age, expired in ((365, False), (366, True)):
        published = TODAY - timedelta(days=age)
        row = {"kind": "notice", "source": "notices", "published_on": published}
        status = compute_statuses([{**row, "url": "u", "question": None, "answer": None}], set(),
                                  {"notices": TODAY - timedelta(days=365)})["u"]["status"]
        assert (status == "expired") == expired
        assert (expires_on(row, expiry) < TODAY) == expired
    assert expires_on({"kind": "page", "source": "notices", "published_on": TODAY}, expiry) is None
    assert expires_on({"kind": "notice", "source": "other", "published_on": TODAY}, expiry) is None


@pytest.fixture(scope="module")
def notices_retriever(tmp_path_factory):
    """Two notices on the same subject, one posted 300 days before TODAY and one 10 days before,
    and a static page; the notices expire 365 days after they were posted."""
    words = "휴학 신청 기간 안내".split()
    records = [record("old", words, "dynamic", published_on=TODAY - timedelta(days=300)),
               record("new", words + ["복학"], "dynamic", published_on=TODAY - timedelta(days=10)),
               record("page", ["휴학", "규정", "학칙"])]
    for r in records:
        r["source"] = "notices" if r["collection"] == "dynamic" else "pages"
        r["expires_on"] = expires_on(r, {"notices": 365})
    return make_retriever(tmp_path_factory.mktemp("expiry"), records, RetrievalParams(dynamic_k=3, static_k=3))


@pytest.mark.parametrize("mode", ["bm25", "dense", "hybrid"])
def test_a_notice_past_its_expiry_on_the_search_s_day_is_left_out(notices_retriever, mode):
    def found(today):
        return {c.chunk_id for c in notices_retriever.search("휴학 신청 기간", mode=mode, k=6, today=today).chunks}

    assert {"old", "new"} <= found(TODAY)  # the day the build was made: both current
    later = TODAY + timedelta(days=100)  # a server still serving that build: the old one has expired
    assert "old" not in found(later) and "new" in found(later)
    assert notices_retriever.expired("dynamic", later).sum() == 1
    assert notices_retriever.expired("static", later) is None
    ranked = {h.row for h in notices_retriever.rank("dynamic", "휴학 신청 기간", mode=mode, today=later)}
    assert len(ranked) == 1  # the per-collection ranking leaves it out too


# --------------------------------------------------------------------------- the engine and the API

class _OnDay(InstitutionConfig):
    """The institution's config with its calendar fixed: the serving path reads "today" from it."""

    day: date | None = None

    def today(self) -> date:
        return self.day


@pytest.fixture(scope="module")
def served(demo_warehouse):
    """The demo build's engine, half a year after the build (its oldest notices expired meanwhile),
    and an API server over it."""
    from serving.api import ServingSettings, create_app
    from serving.dialogue.engine import open_advisor
    from tests.fake_advisor import running_server

    config = demo_warehouse.config()
    built_at = datetime.fromisoformat(read_manifest(latest_build_dir(demo_warehouse.builds))["built_at"])
    built_on = built_at.astimezone(ZoneInfo(config.timezone)).date()
    later = built_on + timedelta(days=200)
    advisor = open_advisor(demo_warehouse.builds, _OnDay(**config.model_dump(), day=later))
    assert advisor.as_of() == built_on  # the evaluation's day: the build's, whatever the config's today
    with running_server(create_app(lambda: advisor, ServingSettings(rate_per_minute=0))) as base:
        yield advisor, base, later


PROFILE = {"department": "CS", "admission_year": 2021, "major_type": "intensive", "grade": 3,
           "student_status": "enrolled"}


def _chat(base: str, message: str) -> dict:
    with httpx.Client(base_url=base, timeout=60) as client:
        body = client.post("/v1/chat", json={"message": message}).raise_for_status().json()
        while body["type"] == "ask":
            answers = {q["attribute"]: PROFILE.get(q["attribute"]) for q in body["questions"]}
            body = client.post("/v1/chat", json={"session_id": body["session_id"], "profile": answers}
                               ).raise_for_status().json()
    return body


def test_citations_carry_the_source_s_dates_through_the_api(served):
    advisor, base, _ = served
    body = _chat(base, "수강신청은 한 학기에 최대 몇 학점까지 할 수 있어요?")
    assert body["citations"]
    for citation in body["citations"]:
        assert set(citation) >= {"published_on", "updated_on", "fetched_at"}
        assert citation["fetched_at"] and citation["fetched_at"][:10] <= advisor.as_of().isoformat()
    pages = [c for c in body["citations"] if "/academics/" in c["url"]]
    assert pages  # the course-registration rules page answers it
    for citation in pages:  # the demo's academic pages state when they were last revised
        path = "/" + citation["url"].split("/", 3)[3].split("#")[0]
        assert citation["updated_on"] == last_updated(path, advisor.as_of()).isoformat()
    documented = httpx.get(base + "/openapi.json").json()["components"]["schemas"]["CitationOut"]["properties"]
    assert {"published_on", "updated_on", "fetched_at"} <= set(documented)
    opened = httpx.get(base + body["citations"][0]["snapshot"]).json()
    assert {k: opened[k] for k in ("published_on", "updated_on")} == {
        k: body["citations"][0][k] for k in ("published_on", "updated_on")}


def test_a_notice_expired_since_the_build_is_not_cited_while_a_fresh_one_is(served):
    advisor, base, later = served
    dynamic = advisor.build.collections["dynamic"].chunks.sort("published_on")
    rows = dynamic.select("title", "published_on", "doc_url").unique("doc_url", keep="first").sort("published_on")
    oldest, newest = rows.row(0, named=True), rows.row(-1, named=True)
    assert oldest["published_on"] < later - timedelta(days=365) <= newest["published_on"]

    def ranked(title: str, today: date) -> list[str]:  # the notices' ranking, before recency
        urls = advisor.build.collections["dynamic"].chunks["doc_url"]
        return [urls[hit.row] for hit in advisor.retriever.rank("dynamic", title, None, limit=20, today=today)]

    assert oldest["doc_url"] in ranked(oldest["title"], advisor.as_of())  # current on the build's day
    assert oldest["doc_url"] not in ranked(oldest["title"], later)
    assert newest["doc_url"] in ranked(newest["title"], later)
    assert newest["doc_url"] in [c.doc_url for c in advisor.retrieve(newest["title"], None, soft=False,
                                                                     time_sensitive=True, today=later).chunks]
    # through the API, whose today is the config's: no citation is a notice past its expiry
    body = _chat(base, oldest["title"])
    expired_before = (later - timedelta(days=365)).isoformat()
    assert all(not c["published_on"] or c["published_on"] >= expired_before for c in body["citations"]
               if "/board/" in c["url"])
    assert oldest["doc_url"] not in [c["url"] for c in body["citations"]]


