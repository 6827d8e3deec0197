"""What the crawl says instead of failing silently (issue 13): sources whose scopes overlap, a content
selector that matches nothing, an unreachable host; and the run that fails, in one line, when a
configured source yields no documents."""

from __future__ import annotations

import socket
from datetime import date

import pytest
import yaml

from advisor.config import parse_config
from advisor.ingest import coverage
from advisor.ingest.crawler import Crawler
from advisor.ingest.documents import clean_documents
from advisor.ingest.raw_documents import crawl_institution
from advisor.ingest.raw_store import RawStore
from advisor.ingest.scopes import Scopes, literal_prefix
from advisor.lakehouse import connect
from tests.crafted_site import CraftedSite

TODAY = date(2026, 6, 15)
PROFILE = {"grade": {"type": "integer", "question": "몇 학년?", "min": 1, "max": 4}}
CRAWL = {"delay_seconds": 0, "timeout_seconds": 2, "retries": 0, "backoff_seconds": 0.01}


def page(title: str, body: str) -> str:
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head><body>"
            f"<main id='content'><h1>{title}</h1>{body}</main></body></html>")


def faq_page(pairs: list[tuple[str, str]]) -> str:
    items = "".join(f"<div class='faq-item'><dt>{q}</dt><dd>{a}</dd></div>" for q, a in pairs)
    return page("자주 묻는 질문", f"<dl class='faq'>{items}</dl>")


@pytest.fixture
def site():
    """A college whose home page links into every section, the FAQ's and the board's included."""
    with CraftedSite() as site:
        site.page("/", page("정보대학", "<a href='/about.html'>소개</a> <a href='/faq/'>FAQ</a> "
                                      "<a href='/faq/late.html'>FAQ 추가</a> <a href='/board/'>공지</a>"))
        site.page("/about.html", page("소개", "<p>정보대학 소개입니다.</p>"))
        site.page("/faq/", page("FAQ", "<a href='/faq/a.html'>졸업</a>"))
        site.page("/faq/a.html", faq_page([("졸업학점은?", "130학점입니다.")]))
        site.page("/faq/late.html", faq_page([("휴학은?", "6학기까지 가능합니다.")]))  # linked from / only
        site.page("/board/", page("공지", "<a href='/board/n1.html'>n1</a>"))
        site.page("/board/n1.html", page("장학금 신청", "<p><time datetime='2026-06-01'>2026.06.01</time> 신청하세요.</p>"))
        yield site


def sources(site: CraftedSite, *names: str) -> list[dict]:
    base = site.base
    every = {
        # seeded at the root: its default scope (the seed's prefix) is the whole site
        "pages": {"name": "pages", "kind": "html", "seeds": [f"{base}/"], "selectors": {"content": "main#content"}},
        "faq": {"name": "faq", "kind": "faq", "seeds": [f"{base}/faq/"], "allow": [f"^{base}/faq/"],
                "documents": [r"/faq/[a-z]+\.html$"], "selectors": {"faq_item": "div.faq-item"}},
        "notices": {"name": "notices", "kind": "board", "collection": "dynamic", "seeds": [f"{base}/board/"],
                    "documents": [r"/board/n\d+\.html$"]},
    }
    return [every[name] for name in names]


def config_of(source_list: list[dict], **crawl):
    return parse_config({"institution": "Crafted", "crawl": {**CRAWL, **crawl}, "sources": source_list,
                         "profile": PROFILE})


def run(config, warehouse, run_id: str):
    with connect(warehouse) as con:
        crawl = crawl_institution(config, con, RawStore(warehouse), run_id)
        clean = clean_documents(config, con, RawStore(warehouse), run_id, TODAY)
        yields = {y.source: y for y in coverage.source_yields(con, config)}
        owners = dict(con.execute("SELECT url, source FROM raw_documents WHERE removed_at IS NULL").fetchall())
        doc_sources = dict(con.execute("SELECT url, source FROM documents WHERE status <> 'removed'").fetchall())
    return crawl, clean, yields, owners, doc_sources


def dead_port() -> int:
    with socket.socket() as s:  # bound, then closed: nothing listens on it
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ----------------------------------------------------------------------------- attribution rule


@pytest.mark.parametrize("pattern, prefix", [
    (r"^https://cs\.example\.ac\.kr/board/", "https://cs.example.ac.kr/board/"),
    (r"^http://127\.0\.0\.1:8765/index\.html$", "http://127.0.0.1:8765/index.html"),
    (r"^http://x\.kr/(pages/.*)?$", "http://x.kr/"),
    (r"^http://x\.kr/a?b", "http://x.kr/"),  # an optional character is not part of every match
    (r"^http://x\.kr/a+b", "http://x.kr/a"),
    (r"^http://x\.kr/\d+", "http://x.kr/"),
    (r"/faq/", ""),  # not anchored: could match anywhere
    (r"^http://a\.kr/|^http://b\.kr/", ""),  # an alternation
])
def test_literal_prefix_of_an_allow_pattern(pattern, prefix):
    assert literal_prefix(pattern) == prefix


def test_the_most_specific_source_owns_a_url_whatever_the_config_order():
    base = "http://x.kr"
    root = {"name": "pages", "kind": "html", "seeds": [f"{base}/"]}
    faq = {"name": "faq", "kind": "faq", "seeds": [f"{base}/faq/"], "documents": [r"/faq/(?!index)\w+\.html$"]}
    hub = {"name": "hub", "kind": "html", "seeds": [f"{base}/faq/"], "documents": [r"/faq/index\.html$"]}
    for order in ([root, faq, hub], [hub, faq, root]):
        scopes = Scopes(config_of(order).sources)
        assert scopes.owner(f"{base}/about.html") == "pages"  # only the root source has it
        assert scopes.owner(f"{base}/faq/a.html") == "faq"  # the longer prefix, then its documents pattern
        assert scopes.owner(f"{base}/faq/index.html") == "hub"  # same prefix: the source it is a document of
        assert scopes.owner("http://elsewhere.kr/") is None
        assert scopes.overlap(f"{base}/faq/a.html", "pages").rule == "longer prefix"
        assert scopes.overlap(f"{base}/faq/a.html", "hub").rule == "document pattern"
    twins = Scopes(config_of([{**root, "name": "first"}, {**root, "name": "second"}]).sources)
    assert twins.owner(f"{base}/x.html") == "first"  # all equal: the config's order
    assert twins.overlap(f"{base}/x.html", "second").rule == "config order"


# ----------------------------------------------------------------------------- overlapping sources


@pytest.mark.parametrize("order", [("pages", "faq", "notices"), ("faq", "notices", "pages")])
def test_overlapping_sources_each_get_their_pages_and_every_overlap_is_reported(site, tmp_path, order):
    crawl, _, yields, owners, doc_sources = run(config_of(sources(site, *order)), tmp_path, "run-1")
    u = site.url

    assert owners == {u("/"): "pages", u("/about.html"): "pages", u("/faq/"): "faq", u("/faq/a.html"): "faq",
                      u("/faq/late.html"): "faq", u("/board/"): "notices", u("/board/n1.html"): "notices"}
    # /faq/late.html is linked from the home page only: the root source handed it to its owner
    assert doc_sources[u("/faq/late.html") + "#faq-1"] == "faq"
    assert {y.source: y.documents for y in yields.values()} == {"pages": 2, "faq": 2, "notices": 1}
    assert all(site.hits[path] == 1 for path in ("/faq/", "/faq/a.html", "/faq/late.html", "/board/"))

    # one warning per URL the root source reached but left, naming both sources
    reported = {(o.url, o.met_by, o.owner) for o in crawl.overlaps}
    assert reported == {(u(p), "pages", owner) for p, owner in
                        [("/faq/", "faq"), ("/faq/late.html", "faq"), ("/board/", "notices")]}
    assert {o.rule for o in crawl.overlaps} == {"longer prefix"}


def test_a_page_moves_to_the_source_that_now_owns_it_and_nothing_is_lost(site, tmp_path):
    _, _, _, owners, doc_sources = run(config_of(sources(site, "pages")), tmp_path, "run-1")
    assert owners[site.url("/faq/a.html")] == "pages"  # no FAQ source yet: the root source has it

    crawl, _, yields, owners, doc_sources = run(config_of(sources(site, "pages", "faq", "notices")), tmp_path, "run-2")
    assert owners[site.url("/faq/a.html")] == "faq" and owners[site.url("/board/n1.html")] == "notices"
    assert not crawl.removed  # moved, not removed
    assert doc_sources[site.url("/faq/a.html") + "#faq-1"] == "faq"  # cleaned again as an FAQ page
    assert coverage.empty_sources_message(list(yields.values())) is None


# ----------------------------------------------------------------------------- content selector


def test_a_content_selector_that_matches_nothing_is_reported_with_its_source(site, tmp_path):
    source_list = sources(site, "pages", "faq", "notices")
    source_list[0]["selectors"] = {"content": "div#no-such-element"}
    source_list[2]["selectors"] = {"content": "main#content"}
    config = config_of(source_list)
    _, clean, _, _, _ = run(config, tmp_path, "run-1")
    assert clean.content_fallbacks == {"pages": 2}  # the home page and about.html; still cleaned

    with connect(tmp_path) as con:
        misses = coverage.content_selector_misses(con, config)
    assert [(m.source, m.selector, m.pages, m.of_pages) for m in misses] == [("pages", "div#no-such-element", 2, 2)]
    message = misses[0].message()
    assert "'pages'" in message and "'div#no-such-element'" in message and "2 of 2" in message

    # an unchanged page is not parsed again, and still says its text came from a fallback
    _, clean, _, _, _ = run(config, tmp_path, "run-2")
    assert clean.parsed == 0
    with connect(tmp_path) as con:
        assert [m.pages for m in coverage.content_selector_misses(con, config)] == [2]


# ----------------------------------------------------------------------------- unreachable host


def test_a_dead_host_is_unreachable_and_a_failing_robots_txt_is_unavailable(tmp_path):
    port = dead_port()
    config = config_of([{"name": "down", "kind": "html", "seeds": [f"http://127.0.0.1:{port}/"]}])
    crawl, _, yields, _, _ = run(config, tmp_path, "run-1")
    assert crawl.unreachable == {f"127.0.0.1:{port}": ["down"]}
    assert [(f["reason"], f"127.0.0.1:{port}" in f["detail"]) for f in crawl.failures] == [("unreachable", True)]
    message = coverage.empty_sources_message(list(yields.values()))
    assert message.startswith("no documents were crawled: source down yielded none; unreachable: 127.0.0.1:")
    assert "\n" not in message

    with CraftedSite() as site:  # a host that answers, but not for robots.txt
        site.add("/robots.txt", status=500, body=b"down")
        site.page("/", page("home", "<p>본문</p>"))
        answering = config_of([{"name": "site", "kind": "html", "seeds": [site.url("/")]}])
        fetches = Crawler(answering.crawl, RawStore(tmp_path)).crawl(answering.sources[0], {}).fetches
    assert [f.reason for f in fetches] == ["robots_unavailable"]


# ----------------------------------------------------------------------------- through Dagster


def materialize(config: dict, directory, monkeypatch, capsys, select: str | None = None):
    """`advisor materialize` on a crafted config; its exit code, its output on one line, and the
    Dagster instance the run went to."""
    from dagster import DagsterInstance

    from cli.main import main

    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    path = directory / "crafted.yaml"
    path.write_text(yaml.safe_dump({"institution": "Crafted", "crawl": CRAWL, "profile": PROFILE, **config}),
                    encoding="utf-8")
    args = ["materialize", "--config", str(path), "--warehouse", str(directory / "warehouse")]
    code = main(args + (["--select", select] if select else []))
    out, err = capsys.readouterr()
    return code, " ".join((out + err).split()), DagsterInstance.get()


def step_failures(instance) -> dict[str, str]:
    from dagster import DagsterEventType

    run = instance.get_runs(limit=1)[0]
    return {e.step_key: e.dagster_event.event_specific_data.error.message.strip()
            for e in instance.all_logs(run.run_id, of_type=DagsterEventType.STEP_FAILURE)}


def warnings_of(instance) -> list[str]:
    import logging

    run = instance.get_runs(limit=1)[0]
    return [e.user_message for e in instance.all_logs(run.run_id) if e.level == logging.WARNING]


def test_overlaps_and_selector_fallbacks_are_logged_and_in_the_metadata(site, tmp_path, monkeypatch, capsys):
    from dagster import AssetKey

    source_list = sources(site, "pages", "faq", "notices")
    source_list[0]["selectors"] = {"content": "div#no-such-element"}
    code, _, instance = materialize({"sources": source_list}, tmp_path, monkeypatch, capsys,
                                    select="key:raw_documents or key:documents")
    assert code == 0
    crawl = instance.get_latest_materialization_event(AssetKey("raw_documents")).asset_materialization.metadata
    assert crawl["overlapping_urls"].value == 3
    assert f"| {site.url('/board/')} | pages | notices | longer prefix |" in crawl["overlaps"].value
    clean = instance.get_latest_materialization_event(AssetKey("documents")).asset_materialization.metadata
    assert clean["content_selector_fallbacks"].value == 2 and clean["empty_sources"].value == "none"
    assert "| pages | div#no-such-element | 2 | 2 |" in clean["content_selector_misses"].value

    logged = warnings_of(instance)
    assert any(site.url("/faq/late.html") in w and "'pages'" in w and "'faq'" in w for w in logged)
    assert any("div#no-such-element" in w and "'pages'" in w for w in logged)


def test_a_source_without_documents_fails_the_run_naming_it(site, tmp_path, monkeypatch, capsys):
    source_list = sources(site, "pages", "faq")
    source_list[1]["seeds"] = [site.url("/faq/missing.html")]  # 404
    source_list[1]["allow"] = [f"^{site.base}/faq/missing"]  # and the pages' links are out of its scope
    code, out, instance = materialize({"sources": source_list}, tmp_path, monkeypatch, capsys,
                                      select="key:raw_documents or key:documents or key:chunks")
    assert code == 1
    failures = step_failures(instance)
    assert list(failures) == ["documents"]  # chunks never ran: the check blocks it
    assert failures["documents"].endswith("source faq yielded no documents (faq: no page crawled (http_404 ×1))")
    assert "every_source_has_documents" in out and "source faq yielded no documents" in out


def test_an_unreachable_site_fails_in_one_line_naming_the_host_not_in_the_embedder(tmp_path, monkeypatch, capsys):
    port = dead_port()
    config = {"sources": [{"name": "pages", "kind": "html", "seeds": [f"http://127.0.0.1:{port}/"]},
                          {"name": "faq", "kind": "faq", "seeds": [f"http://127.0.0.1:{port}/faq/"]}]}
    code, out, instance = materialize(config, tmp_path, monkeypatch, capsys)  # every asset
    assert code == 1
    failures = step_failures(instance)
    assert list(failures) == ["documents"]
    line = failures["documents"]
    assert "\n" not in line and (f"no documents were crawled: sources pages, faq yielded none; "
                                 f"unreachable: 127.0.0.1:{port}") in line
    assert "LSA" not in out and "embed_lsa" not in out  # the embedder never ran
    with connect(tmp_path / "warehouse") as con:
        reasons = con.execute("SELECT DISTINCT outcome, reason FROM crawl_log").fetchall()
    assert reasons == [("failed", "unreachable")]

    # the index build asked for on its own says the same, instead of the embedder's error
    code, out, instance = materialize(config, tmp_path, monkeypatch, capsys, select="key:index_build")
    assert code == 1
    assert step_failures(instance)["index_build"].endswith(
        f"nothing to index: no documents were crawled: sources pages, faq yielded none; "
        f"unreachable: 127.0.0.1:{port} (pages: no page crawled, host 127.0.0.1:{port} unreachable; "
        f"faq: no page crawled, host 127.0.0.1:{port} unreachable)")
