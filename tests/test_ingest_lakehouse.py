"""Crawl + clean into a real DuckDB lakehouse: lineage, incremental re-runs, removals, bad input."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from advisor.config import parse_config
from advisor.ingest.documents import clean_documents
from advisor.ingest.raw_documents import crawl_institution
from advisor.ingest.raw_store import RawStore
from advisor.lakehouse import connect
from tests.crafted_site import CraftedSite, make_pdf

TODAY = date(2026, 6, 15)


def page(title: str, body: str, extra_head: str = "") -> str:
    return (
        f"<!doctype html><html><head><meta charset='utf-8'>{extra_head}<title>{title} | 한빛대</title></head><body>"
        "<header><nav class='gnb'><a href='/'>홈</a> 학사안내 공지사항</nav></header>"
        f"<nav class='breadcrumb'><a href='/'>홈</a> &gt; <span>{title}</span></nav>"
        f"<main id='content'><h1>{title}</h1>{body}</main>"
        "<footer>서울시 한빛로 1 · 대표전화 02-000-0000 · Copyright 한빛대학교</footer></body></html>"
    )


def faq_page(entries: list[tuple[str | None, str, str]]) -> str:
    items = "".join(
        f"<div class='faq-item'{f' id={i!r}' if i else ''}><dt>{q}</dt><dd><p>{a}</p></dd></div>" for i, q, a in entries
    )
    return page("자주 묻는 질문", f"<dl class='faq'>{items}</dl>")


def notice(title: str, day: date, body: str) -> str:
    return page(title, f"<p class='meta'>작성일 <time datetime='{day.isoformat()}'>{day:%Y.%m.%d}</time></p><p>{body}</p>")


@pytest.fixture
def site():
    with CraftedSite() as site:
        site.page("/", page("정보대학", "<a href='/pages/grad.html'>졸업</a> <a href='/pages/old.html'>old</a>"
                                      " <a href='/pages/euckr.html'>euc</a> <a href='/pdf/'>규정</a>"
                                      " <a href='/board/'>공지</a> <a href='/faq/a.html'>FAQ</a> <a href='/faq/b.html'>FAQ2</a>"))
        site.page("/pages/grad.html", page("졸업요건", "<h2>심화전공</h2><table><thead><tr><th>학번</th><th>전공학점</th></tr></thead>"
                                                   "<tbody><tr><td>2021~2022</td><td>72</td></tr></tbody></table>"))
        site.page("/pages/old.html", page("옛 안내", "<p>곧 삭제될 안내입니다.</p>"))
        site.add("/pages/euckr.html", body=page("휴학 안내", "<p>휴학은 최대 6학기까지 가능합니다.</p>",
                                               "").replace("charset='utf-8'", "charset='euc-kr'").encode("euc-kr"),
                 content_type="text/html")
        site.page("/pdf/", page("규정", "<a href='/pdf/rules.pdf'>학사규정</a> <a href='/pdf/broken.pdf'>손상</a>"))
        site.add("/pdf/rules.pdf", body=make_pdf(["제1장 총칙", "제2장 졸업 130학점"]), content_type="application/pdf")
        site.add("/pdf/broken.pdf", body=b"%PDF-1.4 this is not really a pdf", content_type="application/pdf")
        site.page("/board/", page("공지", "<a href='/board/n1.html'>n1</a> <a href='/board/n2.html'>n2</a>"))
        site.page("/board/n1.html", notice("복학생 장학금 신청", TODAY - timedelta(days=10), "복학생 대상"))
        site.page("/board/n2.html", notice("2024년 행사", TODAY - timedelta(days=500), "지난 행사"))
        site.page("/faq/a.html", faq_page([("q1", "졸업학점은?", "130학점입니다."), ("q2", "휴학은?", "6학기까지.")]))
        site.page("/faq/b.html", faq_page([(None, "졸업학점은?", "130학점입니다."), (None, "졸업학점은?", "2015학번은 140학점입니다.")]))
        yield site


def make_config(site: CraftedSite):
    base = site.base
    return parse_config({
        "institution": "Crafted College",
        "crawl": {"delay_seconds": 0, "timeout_seconds": 2, "retries": 1, "backoff_seconds": 0.01},
        "sources": [
            {"name": "pages", "kind": "html", "seeds": [f"{base}/"], "allow": [f"^{base}/(pages/.*)?$"],
             "selectors": {"content": "main#content", "breadcrumb": "nav.breadcrumb"}},
            {"name": "regulations", "kind": "pdf", "seeds": [f"{base}/pdf/"], "allow": [f"^{base}/pdf/"],
             "documents": [r"\.pdf$"]},
            {"name": "notices", "kind": "board", "collection": "dynamic", "seeds": [f"{base}/board/"],
             "allow": [f"^{base}/board/"], "documents": [r"/board/n\d+\.html$"], "expire_after_days": 365,
             "selectors": {"date": "time[datetime]"}},
            {"name": "faq", "kind": "faq", "seeds": [f"{base}/faq/a.html", f"{base}/faq/b.html"],
             "allow": [f"^{base}/faq/"],
             "selectors": {"faq_item": "dl.faq > div.faq-item", "faq_question": "dt", "faq_answer": "dd"}},
        ],
        "profile": {"department": {"type": "categorical", "question": "학과?", "values": {"CS": ["컴퓨터학과"]}}},
    })


def run(config, warehouse, run_id):
    with connect(warehouse) as con:
        crawl = crawl_institution(config, con, RawStore(warehouse), run_id)
        clean = clean_documents(config, con, RawStore(warehouse), run_id, TODAY)
    return crawl, clean


def snapshot(warehouse, table):
    with connect(warehouse) as con:
        return con.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall()


def documents(warehouse):
    with connect(warehouse) as con:
        rows = con.sql("SELECT * FROM documents").pl().to_dicts()
    return {r["url"]: r for r in rows}


def test_first_run_cleans_everything_with_lineage(site, tmp_path):
    crawl, clean = run(make_config(site), tmp_path, "run-1")
    docs = documents(tmp_path)
    u = site.url

    grad = docs[u("/pages/grad.html")]
    assert grad["title"] == "졸업요건" and grad["kind"] == "page" and grad["collection"] == "static"
    assert "72" in grad["text"] and "Copyright" not in grad["text"] and "학사안내" not in grad["text"]
    assert grad["breadcrumbs"][-1] == "졸업요건"
    assert grad["run_id"] == grad["crawl_run_id"] == "run-1" and grad["http_status"] == 200
    assert len(grad["content_hash"]) == 64 and grad["fetched_at"] is not None

    assert "6학기" in docs[u("/pages/euckr.html")]["text"]  # EUC-KR decoded

    rules = docs[u("/pdf/rules.pdf")]
    assert rules["kind"] == "pdf" and [s["page"] for s in rules["page_spans"]] == [1, 2]
    assert u("/pdf/") not in docs  # the listing page is followed, not a document

    assert docs[u("/board/n1.html")]["status"] == "active"
    assert docs[u("/board/n1.html")]["collection"] == "dynamic"
    assert docs[u("/board/n2.html")]["status"] == "expired"
    assert docs[u("/board/n1.html")]["published_on"] == TODAY - timedelta(days=10)

    # FAQ: one document per entry; ids or #faq-N; an exact duplicate consolidated, a same-question
    # entry with a different answer kept (it applies to other students)
    assert docs[u("/faq/a.html#q1")]["question"] == "졸업학점은?"
    assert docs[u("/faq/b.html#faq-1")]["status"] == "duplicate"
    assert docs[u("/faq/b.html#faq-1")]["duplicate_of"] == u("/faq/a.html#q1")
    assert docs[u("/faq/a.html#q1")]["alias_urls"] == [u("/faq/b.html#faq-1")]
    assert docs[u("/faq/b.html#faq-2")]["status"] == "active"

    with connect(tmp_path) as con:
        failures = con.execute("SELECT url, reason, asset FROM ingest_failures").fetchall()
    assert (u("/pdf/broken.pdf"), "corrupt_pdf", "documents") in failures
    assert clean.failures and crawl.outcomes["new"] >= 12


def test_no_change_rerun_reprocesses_nothing_and_leaves_identical_tables(site, tmp_path):
    config = make_config(site)
    run(config, tmp_path, "run-1")
    before = {t: snapshot(tmp_path, t) for t in ("raw_documents", "documents", "cleaned_sources")}
    crawl, clean = run(config, tmp_path, "run-2")
    assert set(crawl.outcomes) == {"not_modified", "failed"} or set(crawl.outcomes) == {"not_modified"}
    assert crawl.outcomes["not_modified"] >= 12
    assert clean.parsed == 0 and clean.status_changes == 0
    for table, rows in before.items():
        assert snapshot(tmp_path, table) == rows, table


def test_changes_removals_and_broken_updates(site, tmp_path):
    config = make_config(site)
    run(config, tmp_path, "run-1")
    u = site.url
    site.page("/pages/grad.html", page("졸업요건", "<p>전공 66학점으로 변경</p>"))
    site.add("/pages/old.html", status=404, body=b"gone")
    site.add("/pdf/rules.pdf", body=b"%PDF-1.7 truncated garbage", content_type="application/pdf")
    site.page("/faq/a.html", faq_page([("q1", "졸업학점은?", "130학점입니다.")]))  # q2 taken off
    crawl, clean = run(config, tmp_path, "run-2")
    docs = documents(tmp_path)

    assert crawl.outcomes["changed"] == 3 and u("/pages/old.html") in crawl.removed
    assert "66학점" in docs[u("/pages/grad.html")]["text"] and docs[u("/pages/grad.html")]["run_id"] == "run-2"
    assert docs[u("/pages/old.html")]["status"] == "removed"  # marked, not silently kept or lost
    assert docs[u("/faq/a.html#q2")]["status"] == "removed"
    # the broken new version of the PDF is a recorded failure; the good old text is kept
    assert "130학점" in docs[u("/pdf/rules.pdf")]["text"] and docs[u("/pdf/rules.pdf")]["run_id"] == "run-1"
    assert any(f["url"] == u("/pdf/rules.pdf") and f["reason"] == "corrupt_pdf" for f in clean.failures)
    assert docs[u("/pages/euckr.html")]["run_id"] == "run-1"  # untouched pages are not re-parsed
    assert clean.parsed == 3  # grad, rules.pdf, faq/a

    with connect(tmp_path) as con:
        raw = con.execute("SELECT removed_at IS NOT NULL, removed_reason, removed_run_id FROM raw_documents WHERE url = ?",
                          [u("/pages/old.html")]).fetchone()
    assert raw == (True, "http_404", "run-2")


def test_unreachable_site_loses_nothing(site, tmp_path):
    config = make_config(site)
    run(config, tmp_path, "run-1")
    before = snapshot(tmp_path, "documents")
    site.routes.clear()
    site.add("/robots.txt", status=500, body=b"down")  # robots unreachable: RFC 9309 says disallow all
    crawl, clean = run(config, tmp_path, "run-2")
    assert crawl.failures and not crawl.removed
    assert snapshot(tmp_path, "documents") == before


def versions(warehouse, table, url):
    with connect(warehouse) as con:
        return con.sql(f"SELECT * FROM {table} WHERE url = ? ORDER BY valid_from", params=[url]).pl().to_dicts()


def test_every_fetch_and_document_version_is_kept(site, tmp_path):
    """A changed page, a page gone, a broken update and an FAQ entry taken off: the current tables
    move on, the versions tables keep what was there, each interval with the runs that opened and
    closed it; a no-change re-run adds nothing."""
    config = make_config(site)
    run(config, tmp_path, "run-1")
    u = site.url
    site.page("/pages/grad.html", page("졸업요건", "<p>전공 66학점으로 변경</p>"))
    site.add("/pages/old.html", status=404, body=b"gone")
    site.add("/pdf/rules.pdf", body=b"%PDF-1.7 truncated garbage", content_type="application/pdf")
    site.page("/faq/a.html", faq_page([("q1", "졸업학점은?", "130학점입니다.")]))
    run(config, tmp_path, "run-2")

    fetches = versions(tmp_path, "raw_document_versions", u("/pages/grad.html"))
    assert [(f["valid_from_run_id"], f["valid_to_run_id"]) for f in fetches] == [("run-1", "run-2"), ("run-2", None)]
    assert fetches[0]["valid_to"] == fetches[1]["valid_from"] and fetches[0]["content_hash"] != fetches[1]["content_hash"]
    assert RawStore(tmp_path).has(fetches[0]["content_hash"])  # the old bytes are kept for it
    grad = versions(tmp_path, "document_versions", u("/pages/grad.html"))
    assert ["72" in d["text"] for d in grad] == [True, False] and grad[0]["content_hash"] == fetches[0]["content_hash"]
    assert [d["valid_to_run_id"] for d in versions(tmp_path, "raw_document_versions", u("/pages/old.html"))] == ["run-2"]
    assert [d["valid_to_run_id"] for d in versions(tmp_path, "document_versions", u("/pages/old.html"))] == ["run-2"]
    assert [d["valid_to_run_id"] for d in versions(tmp_path, "document_versions", u("/faq/a.html#q2"))] == ["run-2"]
    # the broken PDF bytes were fetched (a fetch version), but the document kept its good version
    assert len(versions(tmp_path, "raw_document_versions", u("/pdf/rules.pdf"))) == 2
    assert [d["valid_to"] for d in versions(tmp_path, "document_versions", u("/pdf/rules.pdf"))] == [None]

    before = {t: snapshot(tmp_path, t) for t in ("raw_document_versions", "document_versions")}
    run(config, tmp_path, "run-3")
    for table, rows in before.items():
        assert snapshot(tmp_path, table) == rows, table


def test_a_crash_mid_write_leaves_no_half_written_history(site, tmp_path, monkeypatch):
    import advisor.ingest.documents as cleaning
    from advisor.lakehouse.history import DOCUMENTS, drift

    config = make_config(site)
    run(config, tmp_path, "run-1")
    site.page("/pages/grad.html", page("졸업요건", "<p>전공 66학점으로 변경</p>"))
    tables = ("documents", "document_versions", "cleaned_sources")
    before = {t: snapshot(tmp_path, t) for t in tables}
    real = cleaning.record_versions

    def crash_after_writing(*args, **kwargs):
        real(*args, **kwargs)
        raise RuntimeError("killed mid-write")

    monkeypatch.setattr(cleaning, "record_versions", crash_after_writing)
    with pytest.raises(RuntimeError, match="killed"):
        run(config, tmp_path, "run-2")
    for table, rows in before.items():
        assert snapshot(tmp_path, table) == rows, table  # the documents, their history: all or nothing

    monkeypatch.setattr(cleaning, "record_versions", real)
    _, clean = run(config, tmp_path, "run-3")  # the next run is not blocked, and redoes the page
    assert clean.parsed == 1
    assert [d["valid_from_run_id"] for d in versions(tmp_path, "document_versions", site.url("/pages/grad.html"))] == [
        "run-1", "run-3"]
    with connect(tmp_path) as con:
        assert drift(con, DOCUMENTS) == {"current_rows_without_version": 0, "open_versions_without_current_row": 0}


def test_a_lakehouse_made_before_the_sweep_recorded_faq_recall_gains_the_column(tmp_path):
    import duckdb

    from advisor.lakehouse import LAKEHOUSE_FILE

    old = duckdb.connect(str(tmp_path / LAKEHOUSE_FILE))  # the table as lakehouses of 2026-12-04 have it
    old.execute("CREATE TABLE faq_threshold_sweep (build_id VARCHAR NOT NULL, threshold DOUBLE NOT NULL, mrr DOUBLE NOT NULL, "
                "faq_share DOUBLE NOT NULL, faq_precision DOUBLE, queries INTEGER NOT NULL, chosen BOOLEAN NOT NULL, "
                "embedder VARCHAR NOT NULL, PRIMARY KEY (build_id, threshold))")
    old.execute("INSERT INTO faq_threshold_sweep VALUES ('b1', 0.5, 0.8, 0.5, 0.9, 10, true, 'lsa')")
    old.close()
    with connect(tmp_path) as con:
        assert con.execute("SELECT build_id, faq_recall FROM faq_threshold_sweep").fetchall() == [("b1", None)]
        con.execute("INSERT INTO faq_threshold_sweep BY NAME SELECT 'b2' AS build_id, 0.6 AS threshold, 0.8 AS mrr, "
                    "0.4 AS faq_share, 0.95 AS faq_precision, 10 AS queries, true AS chosen, 'lsa' AS embedder, "
                    "0.7 AS faq_recall")
    with connect(tmp_path) as con:  # opening again changes nothing
        assert con.execute("SELECT faq_recall FROM faq_threshold_sweep ORDER BY build_id").fetchall() == [(None,), (0.7,)]


def test_a_command_opening_the_lakehouse_gets_one_clear_error_missing_or_locked(tmp_path):
    """advisor/lakehouse.open_lakehouse is the one opener of `advisor eval`, `advisor report` and the
    README's results: nothing to read yet, and another process holding DuckDB's lock, each say what
    to do (the command picks its exit code from `missing`)."""
    import subprocess
    import sys

    from advisor.lakehouse import LAKEHOUSE_FILE, LakehouseUnavailable, connect, open_lakehouse

    with pytest.raises(LakehouseUnavailable, match="run `advisor materialize` first") as missing:
        open_lakehouse(tmp_path / "empty")
    assert missing.value.missing and not (tmp_path / "empty").exists()  # reading makes no warehouse up
    connect(tmp_path).close()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys; con = duckdb.connect(sys.argv[1]); print('ready', flush=True); "
         "sys.stdin.readline()", str(tmp_path / LAKEHOUSE_FILE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        for read_only in (True, False):
            with pytest.raises(LakehouseUnavailable, match="locked by another process") as locked:
                open_lakehouse(tmp_path, read_only=read_only)
            assert not locked.value.missing
    finally:
        holder.communicate("\n", timeout=30)
    open_lakehouse(tmp_path).close()  # free again
