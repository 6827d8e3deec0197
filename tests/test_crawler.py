"""The crawler against a real HTTP server on 127.0.0.1 serving crafted pages, bad cases included."""

from __future__ import annotations

import socket

import pytest

from advisor.config import CrawlSettings, Source
from advisor.ingest.crawler import Crawler, KnownPage, normalize_url
from advisor.ingest.raw_store import RawStore
from tests.crafted_site import CraftedSite, make_pdf

FAST = CrawlSettings(delay_seconds=0.0, timeout_seconds=1.0, retries=2, backoff_seconds=0.01,
                     max_bytes=200_000, concurrency=4)


def html(body: str, title: str = "page") -> str:
    return f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head><body><main>{body}</main></body></html>"


def source(site: CraftedSite, **kwargs) -> Source:
    return Source(name="site", kind="html", seeds=[site.url("/")], allow=[f"^{site.base}/"], **kwargs)


def by_url(fetches):
    return {f.url: f for f in fetches}


@pytest.fixture
def store(tmp_path):
    return RawStore(tmp_path)


def test_crawls_links_within_scope_and_stores_bytes(store):
    with CraftedSite() as site:
        site.page("/", html('<a href="/a.html">a</a> <a href="b.html#top">b</a> <a href="/doc.pdf">pdf</a>'
                            ' <a href="http://example.invalid/x">out</a> <a href="mailto:x@y.z">mail</a>'
                            ' <a href="/admin/secret.html">admin</a>'))
        site.page("/a.html", html('<a href="/">home</a> 본문 A'))
        site.page("/b.html", html("본문 B"))
        site.add("/doc.pdf", body=make_pdf(["첫 쪽", "둘째 쪽"]), content_type="application/pdf")
        site.page("/admin/secret.html", html("secret"))
        site.add("/robots.txt", body=b"User-agent: *\nDisallow: /admin/\n", content_type="text/plain")
        crawl = Crawler(FAST, store).crawl(source(site), {})
        fetches = by_url(crawl.fetches)

        assert {u for u, f in fetches.items() if f.outcome == "new"} == {
            site.url(p) for p in ("/", "/a.html", "/b.html", "/doc.pdf")}
        assert site.hits["/admin/secret.html"] == 0
        assert fetches[site.url("/admin/secret.html")].reason == "robots_disallowed"
        assert site.hits["/"] == 1  # the back-link from a.html is not fetched twice
        pdf = fetches[site.url("/doc.pdf")]
        assert pdf.doc_format == "pdf" and store.get(pdf.content_hash).startswith(b"%PDF-")
        assert fetches[site.url("/b.html")].doc_format == "html"
        assert not crawl.truncated


def test_bad_responses_are_failures_with_reasons(store):
    with CraftedSite() as site:
        links = ["/missing.html", "/error.html", "/flaky.html", "/slow.html", "/loop-a", "/image.png",
                 "/huge.html", "/self", "/octet.pdf"]
        site.page("/", html(" ".join(f'<a href="{p}">{p}</a>' for p in links)))
        site.add("/error.html", status=500, body=b"boom", content_type="text/plain")
        site.page("/flaky.html", html("eventually fine"), fail_first=1)
        site.page("/slow.html", html("late"), delay=1.5)
        site.add("/loop-a", status=302, headers={"Location": "/loop-b"})
        site.add("/loop-b", status=302, headers={"Location": "/loop-a"})
        site.add("/self", status=301, headers={"Location": "/self"})
        site.add("/image.png", body=b"\x89PNG\r\n\x1a\n" + b"\0" * 100, content_type="image/png")
        site.page("/huge.html", html("가" * 200_000))
        site.add("/octet.pdf", body=make_pdf(["내용"]), content_type="application/octet-stream")
        fetches = by_url(Crawler(FAST, store).crawl(source(site), {}).fetches)

    def reason(path):
        return fetches[site.url(path)].reason

    assert fetches[site.url("/missing.html")].outcome == "gone" and reason("/missing.html") == "http_404"
    assert reason("/error.html") == "http_500" and site.hits["/error.html"] == FAST.retries + 1
    assert fetches[site.url("/flaky.html")].outcome == "new" and site.hits["/flaky.html"] == 2
    assert reason("/slow.html") == "timeout"
    loop = [f for f in fetches.values() if f.reason == "redirect_loop" and "loop-" in f.url]
    assert len(loop) == 1 and "loop-a" in loop[0].detail and "loop-b" in loop[0].detail
    assert reason("/self") == "redirect_loop"
    assert reason("/image.png") == "unsupported_content_type"
    assert reason("/huge.html") == "too_large"
    assert fetches[site.url("/octet.pdf")].doc_format == "pdf"  # sniffed from the bytes


def test_unreachable_host_fails_after_retries(store):
    with socket.socket() as s:  # a port that nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    seed = f"http://127.0.0.1:{port}/"
    src = Source(name="down", kind="html", seeds=[seed])
    fetches = Crawler(FAST, store).crawl(src, {}).fetches
    assert len(fetches) == 1
    assert fetches[0].outcome == "failed"
    # robots.txt is unreachable too: the host is not crawled, and nothing is marked removed
    assert fetches[0].reason in {"unreachable", "robots_unavailable"}


def test_euc_kr_page_is_decoded_for_links(store):
    body = ("<html><head><meta charset='euc-kr'></head><body><main>"
            "<p>공지사항 목록입니다.</p><a href='/공지.html'>공지</a></main></body></html>").encode("euc-kr")
    with CraftedSite() as site:
        site.add("/", body=body, content_type="text/html")
        site.page("/%EA%B3%B5%EC%A7%80.html", html("공지 본문"))
        fetches = by_url(Crawler(FAST, store).crawl(source(site), {}).fetches)
    root = fetches[site.url("/")]
    assert root.encoding in {"cp949", "euc-kr", "euc_kr"}
    assert fetches[site.url("/%EA%B3%B5%EC%A7%80.html")].outcome == "new"


def test_conditional_get_and_unchanged_bytes(store):
    with CraftedSite() as site:
        site.page("/", html('<a href="/a.html">a</a> <a href="/plain.html">p</a>'))
        site.page("/a.html", html("A"))
        site.page("/plain.html", html("P"), conditional=False)  # a server that ignores validators
        first = by_url(Crawler(FAST, store).crawl(source(site), {}).fetches)
        known = {
            url: KnownPage(url, f.content_hash, f.doc_format, f.content_type, f.encoding, f.size_bytes,
                           f.etag, f.last_modified)
            for url, f in first.items()
        }
        second = by_url(Crawler(FAST, store).crawl(source(site), known).fetches)
        assert second[site.url("/a.html")].outcome == "not_modified"
        assert "If-None-Match" in site.request_headers["/a.html"][1]
        assert second[site.url("/plain.html")].outcome == "unchanged"
        # links of a 304 page come from the stored bytes: a.html is still reached through /
        assert second[site.url("/")].outcome == "not_modified"

        site.page("/a.html", html("A, revised"))
        third = by_url(Crawler(FAST, store).crawl(source(site), known).fetches)
        assert third[site.url("/a.html")].outcome == "changed"


def test_known_page_no_longer_linked_is_rechecked_not_dropped(store):
    with CraftedSite() as site:
        site.page("/", html("no links any more"))
        site.page("/orphan.html", html("still here"))
        known = {site.url("/orphan.html"): KnownPage(site.url("/orphan.html"), "0" * 64, "html"),
                 site.url("/deleted.html"): KnownPage(site.url("/deleted.html"), "1" * 64, "html")}
        fetches = by_url(Crawler(FAST, store).crawl(source(site), known).fetches)
    assert fetches[site.url("/orphan.html")].outcome == "changed"
    assert fetches[site.url("/deleted.html")].outcome == "gone"


def test_max_pages_truncates_and_politeness_spaces_requests(store):
    slow = FAST.model_copy(update={"delay_seconds": 0.05, "concurrency": 4})
    with CraftedSite() as site:
        site.page("/", html(" ".join(f'<a href="/p{i}.html">{i}</a>' for i in range(10))))
        for i in range(10):
            site.page(f"/p{i}.html", html(f"page {i}"))
        crawl = Crawler(slow, store).crawl(source(site, max_pages=5), {})
        starts = sorted(t for path, times in site.request_times.items() if path != "/robots.txt" for t in times)
    assert crawl.truncated
    assert len(crawl.fetches) == 5
    # Seen from the server, arrivals jitter on a loaded machine; the span still shows the spacing.
    assert starts[-1] - starts[0] >= 3 * 0.05


def test_politeness_gate_spaces_request_starts_per_host():
    """Client side, exactly: the i-th request to a host may start no sooner than i delays after
    the first, however many workers ask at once; other hosts are not held up."""
    import asyncio
    import time

    from advisor.ingest.crawler import _HostGate

    async def run():
        gate, released = _HostGate(0.03), {}

        async def ask(key, host):
            await gate.wait(host)
            released[key] = time.monotonic()

        start = time.monotonic()
        await asyncio.gather(*(ask(i, "a") for i in range(5)), ask("other", "b"))
        return start, released

    start, released = asyncio.run(run())
    times = sorted(released[i] for i in range(5))
    for i, t in enumerate(times):
        assert t - start >= i * 0.03 - 0.002  # asyncio never wakes early (clock resolution aside)
    assert released["other"] - start < 0.03


def test_normalize_url():
    assert normalize_url("HTTP://Example.COM:80/a#frag") == "http://example.com/a"
    assert normalize_url("https://x.kr:443") == "https://x.kr/"
    assert normalize_url("http://x.kr/b?q=1#z") == "http://x.kr/b?q=1"


def test_one_crawler_serves_several_sources_with_politeness(store):
    """Each source runs in its own event loop; the politeness gate must not be tied to one."""
    polite = FAST.model_copy(update={"delay_seconds": 0.01})
    with CraftedSite() as site:
        site.page("/a/", html('<a href="/a/1.html">1</a>'))
        site.page("/a/1.html", html("a1"))
        site.page("/b/", html('<a href="/b/1.html">1</a> <a href="/a/1.html">a1</a>'))
        site.page("/b/1.html", html("b1"))
        crawler = Crawler(polite, store)
        claimed: set[str] = set()
        first = crawler.crawl(Source(name="a", kind="html", seeds=[site.url("/a/")]), {}, claimed)
        second = crawler.crawl(Source(name="b", kind="html", seeds=[site.url("/b/")],
                                      allow=[f"^{site.base}/"]), {}, claimed)
    assert {f.url for f in first.fetches} == {site.url("/a/"), site.url("/a/1.html")}
    # /a/1.html belongs to the first source that took it: fetched once in all
    assert {f.url for f in second.fetches} == {site.url("/b/"), site.url("/b/1.html")}
    assert site.hits["/a/1.html"] == 1


def test_capped_crawl_takes_the_same_pages_whatever_the_timing(store):
    import random

    rng = random.Random(7)
    runs = []
    with CraftedSite() as site:
        site.page("/", html(" ".join(f'<a href="/s{i}.html">{i}</a>' for i in range(4))))
        for _ in range(3):  # the level's pages answer in a different order on every run
            for i in range(4):
                site.page(f"/s{i}.html", html(" ".join(f'<a href="/p{i}-{j}.html">x</a>' for j in range(4))),
                          delay=rng.random() * 0.05)
                for j in range(4):
                    site.page(f"/p{i}-{j}.html", html("leaf"))
            runs.append({f.url for f in Crawler(FAST, store).crawl(source(site, max_pages=9), {}).fetches})
    assert runs[0] == runs[1] == runs[2]
    assert {site.url(f"/p0-{j}.html") for j in range(4)} <= runs[0]  # links taken in page order
