"""A polite, incremental HTTP crawler for one institution's sources.

Per source: breadth-first from the seeds over links that match the allow patterns and robots.txt,
at most `max_pages` fetches, a politeness gap per host, a concurrency limit, retries with
exponential backoff on 5xx / timeouts / connection errors, conditional GET (ETag and
Last-Modified) for pages fetched before, a size cap, and manual redirect handling so loops and
redirects out of scope are caught. Bodies go straight into the content-addressed raw store.

The crawler never decides what is lost: it reports every URL's outcome (`Fetch`), and the caller
marks a page removed only on a definitive 404/410 or when the config no longer covers it.

When sources overlap, the caller says which source owns each URL (`owner`, advisor/ingest/scopes.py):
a source crawl leaves a URL another source owns to that source (`SourceCrawl.handoffs`) and
continues a crawl with the URLs handed to it (`seeds`). A host that cannot be connected to is
`unreachable`; `robots_unavailable` is kept for a host that answers but whose robots.txt cannot be
read (a 5xx, a broken answer).
"""

from __future__ import annotations

import asyncio
import re
import time
import urllib.robotparser
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from urllib.parse import quote, urldefrag, urljoin, urlsplit

import httpx

from advisor.config import CrawlSettings, Source
from advisor.ingest.encoding import decode_html
from advisor.ingest.errors import DocumentError
from advisor.ingest.html_text import extract_links
from advisor.ingest.raw_store import RawStore

HTML_TYPES = {"text/html", "application/xhtml+xml"}
PDF_TYPES = {"application/pdf", "application/x-pdf"}
GONE_STATUSES = {404, 410}
REDIRECT_STATUSES = {301, 302, 303, 307, 308}
_UNAVAILABLE = object()  # robots.txt could not be read
_CONNECT_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout)  # nothing answered: DNS, refused, no route
_SAFE_URL_CHARS = "/%:@!$&'()*+,;=-._~"


@dataclass(frozen=True)
class KnownPage:
    """What the lakehouse already holds for a URL: enough for a conditional GET."""

    url: str
    content_hash: str
    doc_format: str  # html | pdf
    content_type: str | None = None
    encoding: str | None = None
    size_bytes: int | None = None
    etag: str | None = None
    last_modified: str | None = None


@dataclass
class Fetch:
    """The outcome of crawling one URL in this run.

    outcome: new | changed | unchanged (200, same bytes) | not_modified (304) | gone (404/410) |
    out_of_scope (a known page the config or robots.txt no longer covers) | redirected | failed.
    """

    url: str
    source: str
    outcome: str
    fetched_at: datetime
    http_status: int | None = None
    elapsed_ms: float = 0.0
    content_type: str | None = None
    doc_format: str | None = None  # html | pdf
    encoding: str | None = None
    content_hash: str | None = None
    size_bytes: int | None = None
    etag: str | None = None
    last_modified: str | None = None
    is_document: bool = False
    redirected_to: str | None = None
    # a stable failure code, e.g. http_500, timeout, unreachable (no connection to the host),
    # connection_error (the answer broke off), robots_unavailable, too_large
    reason: str | None = None
    detail: str | None = None

    @property
    def has_content(self) -> bool:
        return self.outcome in {"new", "changed", "unchanged", "not_modified"}


@dataclass
class SourceCrawl:
    fetches: list[Fetch]
    truncated: bool  # stopped by max_pages: pages not reached are not evidence of removal
    taken: int = 0  # URLs this crawl spent its max_pages budget on
    handoffs: dict[str, str] = field(default_factory=dict)  # url -> the other source that owns it


@dataclass(frozen=True)
class _Unreachable:
    """A host whose robots.txt could not be asked for: nothing answered."""

    detail: str


class _FetchFailed(Exception):
    def __init__(self, reason: str, detail: str, status: int | None = None, *, no_connection: bool = False):
        super().__init__(detail)
        self.reason, self.detail, self.status = reason, detail, status
        self.no_connection = no_connection  # no connection could be made: the host is not there


def normalize_url(url: str) -> str:
    """Drop the fragment and default ports, lower-case scheme and host: one key per page."""
    url, _ = urldefrag(url.strip())
    parts = urlsplit(url)
    netloc = parts.netloc.lower()
    if (parts.scheme == "http" and netloc.endswith(":80")) or (
        parts.scheme == "https" and netloc.endswith(":443")
    ):
        netloc = netloc.rsplit(":", 1)[0]
    # Percent-encode what a page may leave raw (Korean file names), without double-encoding.
    path = quote(parts.path or "/", safe=_SAFE_URL_CHARS)
    query = f"?{quote(parts.query, safe=_SAFE_URL_CHARS + '?')}" if parts.query else ""
    return f"{parts.scheme.lower()}://{netloc}{path}{query}"


def _media_type(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def _doc_format(content_type: str | None, body: bytes) -> str | None:
    media = _media_type(content_type)
    if body.lstrip()[:5] == b"%PDF-" or media in PDF_TYPES:
        return "pdf"  # servers often send PDFs as application/octet-stream: trust the magic bytes
    if media in HTML_TYPES:
        return "html"
    if not media or media == "text/plain":
        head = body[:512].lstrip().lower()
        if head.startswith((b"<!doctype html", b"<html")):
            return "html"
    return None


class _HostGate:
    """Politeness: at most one request start per `delay` seconds per host."""

    def __init__(self, delay: float):
        self.delay = delay
        self._next: dict[str, float] = {}

    def set_delay(self, delay: float) -> None:
        self.delay = max(self.delay, delay)

    async def wait(self, host: str) -> None:
        if self.delay <= 0:
            return
        # No lock needed: nothing awaits between reading and booking the slot, so no other
        # task of the event loop can interleave (and a lock would tie the gate to one loop).
        now = time.monotonic()
        start = max(now, self._next.get(host, now))
        self._next[host] = start + self.delay
        if start > now:
            await asyncio.sleep(start - now)


class Crawler:
    def __init__(
        self,
        settings: CrawlSettings,
        store: RawStore,
        *,
        on_fetch: Callable[[Fetch], None] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ):
        self.settings = settings
        self.store = store
        self.on_fetch = on_fetch or (lambda fetch: None)
        self._transport = transport
        # origin -> parser | None (no robots.txt) | _UNAVAILABLE | _Unreachable
        self._robots: dict[str, object] = {}
        self._gate = _HostGate(settings.delay_seconds)
        self._redirects: dict[str, str] = {}  # url -> Location target, for loop detection

    # ----------------------------------------------------------------- public API
    def crawl(
        self,
        source: Source,
        known: dict[str, KnownPage],
        claimed: set[str] | None = None,
        *,
        owner: Callable[[str], str | None] | None = None,
        seeds: Sequence[str] | None = None,
        budget: int | None = None,
    ) -> SourceCrawl:
        """Crawl one source. `known`: this source's pages from earlier runs; `claimed`: URLs an
        earlier crawl of this run already took (skipped here, so each URL is fetched once);
        `owner`: the source each URL belongs to (default: whoever reaches it first).

        `seeds` and `budget` continue a crawl of the source from other URLs (those another source
        handed to it) with what is left of its `max_pages`; a continuation does not re-check the
        source's known pages, which its first crawl did."""
        continuing = seeds is not None
        return asyncio.run(self._crawl(
            source, known, claimed if claimed is not None else set(), owner,
            list(seeds) if continuing else list(source.seeds),
            source.max_pages if budget is None else budget,
            recheck_known=not continuing,
        ))

    # ----------------------------------------------------------------- the crawl
    async def _crawl(  # noqa: C901 - its steps (take a level, visit it, recheck orphans) share one state in closures
            self, source: Source, known: dict[str, KnownPage], claimed: set[str], owner,
            seeds: list[str], budget: int, recheck_known: bool) -> SourceCrawl:
        """Level-synchronous breadth-first crawl: each level is fetched concurrently, then its
        links are taken in page order. The pages within `max_pages` are therefore the same on
        every run, whatever the timing, so a capped re-crawl stays comparable to the last one."""
        allow = [re.compile(p) for p in source.allow_patterns()]
        documents = [re.compile(p) for p in source.documents]
        fetches: list[Fetch] = []
        seen: set[str] = set()
        handoffs: dict[str, str] = {}
        truncated, taken = False, 0

        def in_scope(url: str) -> bool:
            return url.startswith(("http://", "https://")) and any(p.search(url) for p in allow)

        def elsewhere(url: str) -> bool:
            """A URL of this source's scope that another source owns: left (handed) to it."""
            other = owner(url) if owner is not None else source.name
            if other is None or other == source.name:
                return False
            handoffs.setdefault(url, other)
            return True

        def take(urls: list[str]) -> list[str]:
            nonlocal budget, truncated, taken
            level = []
            for url in map(normalize_url, urls):
                if url in seen or not in_scope(url) or elsewhere(url) or url in claimed:
                    continue
                if budget <= 0:
                    truncated = True
                    break
                budget -= 1
                taken += 1
                seen.add(url)
                level.append(url)
            return level

        def record(fetch: Fetch) -> None:
            fetches.append(fetch)
            self.on_fetch(fetch)

        async with httpx.AsyncClient(
            transport=self._transport,
            timeout=httpx.Timeout(self.settings.timeout_seconds),
            headers={"User-Agent": self.settings.user_agent},
            follow_redirects=False,
            limits=httpx.Limits(max_connections=self.settings.concurrency),
        ) as client:
            slots = asyncio.Semaphore(self.settings.concurrency)

            async def visit(url: str) -> tuple[Fetch, list[str]]:
                async with slots:
                    return await self._visit(client, source, url, known.get(url), in_scope, documents)

            async def visit_all(urls: list[str]) -> list[str]:
                links: list[str] = []
                for fetch, found in await asyncio.gather(*(visit(u) for u in urls)):
                    record(fetch)
                    links.extend(found)
                return links

            level = take(seeds)
            while level:
                level = take(await visit_all(level))

            # Pages held from earlier runs that no link reaches any more: check them directly,
            # so a page is marked removed only on the server's word (404/410), never by absence.
            # One that another source now owns is handed to it, which refetches it as its own.
            if recheck_known and not truncated:
                orphans = []
                for url in sorted(set(known) - seen - claimed):
                    if in_scope(url) and elsewhere(url):
                        continue
                    if in_scope(url):
                        seen.add(url)
                        orphans.append(url)
                    else:
                        record(Fetch(url, source.name, "out_of_scope", _now(), reason="out_of_scope",
                                     detail="no longer matched by the source's allow patterns"))
                await visit_all(orphans)

        claimed.update(seen)
        return SourceCrawl(fetches=fetches, truncated=truncated, taken=taken, handoffs=handoffs)

    async def _visit(self, client, source, url, known, in_scope, documents) -> tuple[Fetch, list[str]]:
        """Fetch one URL; returns its outcome and the links (or redirect target) it leads to."""
        started = time.monotonic()
        fetch = Fetch(url, source.name, "failed", _now())
        try:
            verdict = await self._robots_verdict(client, url)
            if isinstance(verdict, _Unreachable):  # nothing answered: keep what we have
                raise _FetchFailed("unreachable", verdict.detail)
            if verdict == "unavailable":  # not the site's word on this page: keep what we have
                raise _FetchFailed("robots_unavailable", "robots.txt could not be read; not crawling the host")
            if verdict == "disallow":
                fetch.outcome = "out_of_scope" if known else "failed"
                fetch.reason, fetch.detail = "robots_disallowed", "robots.txt disallows this URL"
                return fetch, []
            body = await self._fetch(client, url, known, fetch, in_scope)
        except _FetchFailed as exc:
            fetch.outcome, fetch.reason, fetch.detail = "failed", exc.reason, exc.detail
            fetch.http_status = exc.status if exc.status is not None else fetch.http_status
            return fetch, []
        finally:
            fetch.elapsed_ms = round((time.monotonic() - started) * 1000, 1)

        if fetch.outcome == "redirected":
            return fetch, [fetch.redirected_to]
        if not fetch.has_content:
            return fetch, []
        fetch.is_document = not documents or any(p.search(url) for p in documents)
        return fetch, self._links(fetch, body) if fetch.doc_format == "html" else []

    def _links(self, fetch: Fetch, body: bytes | None) -> list[str]:
        """Links of an HTML page; a 304's links come from the bytes stored last time."""
        try:
            html, fetch.encoding = decode_html(body or self.store.get(fetch.content_hash), fetch.content_type)
        except (DocumentError, FileNotFoundError):
            return []  # undecodable: the cleaner records the failure; nothing to follow
        return extract_links(html, fetch.url)

    async def _fetch(self, client, url: str, known: KnownPage | None, fetch: Fetch, in_scope) -> bytes | None:
        """Fill `fetch` from one GET; returns the new body (None when there is none: 304, 404...)."""
        headers = {}
        if known is not None and self.store.has(known.content_hash):
            if known.etag:
                headers["If-None-Match"] = known.etag
            if known.last_modified:
                headers["If-Modified-Since"] = known.last_modified

        response, body = await self._get_with_retries(client, url, headers)
        fetch.http_status = response.status_code
        fetch.fetched_at = _now()

        if response.status_code in REDIRECT_STATUSES:
            self._check_redirect(url, response, fetch, in_scope)
            return None
        if response.status_code == 304 and known is not None:
            fetch.outcome = "not_modified"
            fetch.content_hash, fetch.doc_format = known.content_hash, known.doc_format
            fetch.content_type, fetch.encoding = known.content_type, known.encoding
            fetch.size_bytes = known.size_bytes
            fetch.etag = response.headers.get("ETag", known.etag)
            fetch.last_modified = response.headers.get("Last-Modified", known.last_modified)
            return None
        if response.status_code in GONE_STATUSES:
            fetch.outcome = "gone"
            fetch.reason, fetch.detail = f"http_{response.status_code}", response.reason_phrase
            return None
        if response.status_code != 200:
            raise _FetchFailed(f"http_{response.status_code}", response.reason_phrase or "", response.status_code)

        content_type = response.headers.get("Content-Type")
        doc_format = _doc_format(content_type, body)
        if doc_format is None:
            raise _FetchFailed("unsupported_content_type", f"not HTML or PDF: {_media_type(content_type) or 'no type'}")
        fetch.content_type, fetch.doc_format = content_type, doc_format
        fetch.size_bytes = len(body)
        fetch.etag = response.headers.get("ETag")
        fetch.last_modified = response.headers.get("Last-Modified")
        fetch.content_hash = self.store.put(body)
        if known is None:
            fetch.outcome = "new"
        else:
            fetch.outcome = "unchanged" if known.content_hash == fetch.content_hash else "changed"
        return body

    def _check_redirect(self, url: str, response: httpx.Response, fetch: Fetch, in_scope) -> None:
        location = response.headers.get("Location")
        if not location:
            raise _FetchFailed("bad_redirect", "redirect without a Location header", response.status_code)
        target = normalize_url(urljoin(url, location))
        self._redirects[url] = target
        chain, hop = [url], target
        while hop is not None:  # follow the redirects seen so far in this run
            chain.append(hop)
            if hop == url:
                raise _FetchFailed("redirect_loop", " -> ".join(chain), response.status_code)
            if len(chain) > self.settings.max_redirects + 1:
                raise _FetchFailed("too_many_redirects", " -> ".join(chain), response.status_code)
            hop = self._redirects.get(hop)
        if not in_scope(target):
            raise _FetchFailed("redirect_out_of_scope", f"redirects outside the allowed URLs: {target}", response.status_code)
        fetch.outcome, fetch.redirected_to = "redirected", target

    async def _get_with_retries(self, client, url: str, headers: dict) -> tuple[httpx.Response, bytes]:
        """GET with backoff on 5xx, timeouts and connection errors. Redirects are not followed
        here: the crawler queues their targets, so each URL is fetched and checked once."""
        attempt = 0
        while True:
            host = urlsplit(url).netloc
            await self._gate.wait(host)
            try:
                response, body = await self._get(client, url, headers)
                if response.status_code < 500 or attempt >= self.settings.retries:
                    if response.status_code >= 500:
                        raise _FetchFailed(
                            f"http_{response.status_code}",
                            f"{response.reason_phrase} after {attempt + 1} attempts",
                            response.status_code,
                        )
                    return response, body
            except _CONNECT_ERRORS as exc:  # before TimeoutException: ConnectTimeout is one
                if attempt >= self.settings.retries:
                    raise _FetchFailed("unreachable", f"host {host} unreachable ({type(exc).__name__}: "
                                       f"{str(exc) or 'no connection'}) after {attempt + 1} attempts",
                                       no_connection=True) from None
            except httpx.TimeoutException:
                if attempt >= self.settings.retries:
                    raise _FetchFailed("timeout", f"no answer within {self.settings.timeout_seconds}s "
                                       f"after {attempt + 1} attempts") from None
            except httpx.TransportError as exc:  # connected, then the answer broke off
                if attempt >= self.settings.retries:
                    raise _FetchFailed("connection_error", f"{type(exc).__name__}: {exc} "
                                       f"after {attempt + 1} attempts") from None
            await asyncio.sleep(self.settings.backoff_seconds * (2**attempt))
            attempt += 1

    async def _get(self, client, url: str, headers: dict) -> tuple[httpx.Response, bytes]:
        """Stream the body so a huge page is cut off at the cap instead of filling memory."""
        cap = self.settings.max_bytes
        async with client.stream("GET", url, headers=headers) as response:
            declared = response.headers.get("Content-Length")
            if declared and declared.isdigit() and int(declared) > cap:
                raise _FetchFailed("too_large", f"declared {int(declared)} bytes > cap {cap}", response.status_code)
            chunks, size = [], 0
            async for chunk in response.aiter_bytes():  # decoded: the cap also stops zip bombs
                size += len(chunk)
                if size > cap:
                    raise _FetchFailed("too_large", f"body exceeds the cap of {cap} bytes", response.status_code)
                chunks.append(chunk)
            return response, b"".join(chunks)

    # ----------------------------------------------------------------- robots.txt
    async def _robots_verdict(self, client, url: str) -> str | _Unreachable:
        """allow | disallow | unavailable | _Unreachable (RFC 9309: a robots.txt that cannot be
        read because of a 5xx or a network error means 'crawl nothing' for now; a missing one,
        4xx, allows all). A host that nothing answers for is unreachable, not 'unavailable'."""
        if not self.settings.respect_robots:
            return "allow"
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        if origin not in self._robots:
            self._robots[origin] = await self._load_robots(client, origin)
        parser = self._robots[origin]
        if parser is _UNAVAILABLE:
            return "unavailable"
        if isinstance(parser, _Unreachable):
            return parser
        if parser is None or parser.can_fetch(self.settings.user_agent, url):
            return "allow"
        return "disallow"

    async def _load_robots(self, client, origin: str):
        try:
            response, body = await self._get_with_retries(client, origin + "/robots.txt", {})
        except _FetchFailed as exc:
            # only a failed connect means the host is not there; a connection reset mid-answer
            # or a 5xx is a host that answered, whose robots.txt is "unavailable"
            if exc.no_connection:
                return _Unreachable(exc.detail)
            return _UNAVAILABLE
        if 400 <= response.status_code < 500 or response.status_code in REDIRECT_STATUSES:
            return None
        parser = urllib.robotparser.RobotFileParser(origin + "/robots.txt")
        parser.parse(body.decode("utf-8", errors="replace").splitlines())
        delay = parser.crawl_delay(self.settings.user_agent)
        if delay:
            self._gate.set_delay(float(delay))
        return parser


def _now() -> datetime:
    return datetime.now(timezone.utc)
