"""What each configured source yielded, read from the lakehouse: the `documents` asset's check that
every source gives documents, its one-line error when one gives none, the content selectors that
matched nothing, and the index build's error when there is nothing to index."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import duckdb

from advisor.config import InstitutionConfig
from advisor.ingest.documents import CONTENT_SELECTOR_MISSED
from advisor.ingest.html_text import DEFAULT_CONTENT


@dataclass
class SourceYield:
    source: str
    pages: int = 0  # live pages in raw_documents
    document_pages: int = 0  # of them, the pages its `documents` patterns make documents
    documents: int = 0  # documents not removed (active, expired or duplicate)
    crawl_failures: Counter = field(default_factory=Counter)  # reason -> URLs failed or gone in its latest crawl
    parse_failures: Counter = field(default_factory=Counter)  # reason -> live pages that failed to clean
    unreachable_hosts: list[str] = field(default_factory=list)  # in its latest crawl

    def why_empty(self) -> str:
        """Why the source has no documents, in a few words."""
        if not self.pages:
            if self.unreachable_hosts:
                return f"no page crawled, {_hosts(self.unreachable_hosts)} unreachable"
            return "no page crawled" + (f" ({_tally(self.crawl_failures)})" if self.crawl_failures else "")
        if not self.document_pages:
            return f"{self.pages} page(s) crawled, none matched by its `documents` patterns"
        if self.parse_failures:
            return f"{self.document_pages} document page(s), none cleaned ({_tally(self.parse_failures)})"
        return f"{self.document_pages} document page(s), all removed"


def _tally(counts: Counter) -> str:
    return ", ".join(f"{reason} ×{n}" for reason, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _hosts(hosts: list[str]) -> str:
    return ("host " if len(hosts) == 1 else "hosts ") + ", ".join(hosts)


def source_yields(con: duckdb.DuckDBPyConnection, config: InstitutionConfig) -> list[SourceYield]:
    """One per configured source, in config order (sources dropped from the config are not asked
    about: their rows are kept as they were)."""
    yields = {s.name: SourceYield(s.name) for s in config.sources}
    for source, pages, document_pages in con.execute(
        """SELECT source, count(*), count(*) FILTER (is_document) FROM raw_documents
           WHERE removed_at IS NULL GROUP BY source""").fetchall():
        if source in yields:
            yields[source].pages, yields[source].document_pages = pages, document_pages
    for source, n in con.execute(
            "SELECT source, count(*) FROM documents WHERE status <> 'removed' GROUP BY source").fetchall():
        if source in yields:
            yields[source].documents = n
    for source, reason, n in con.execute(
        """SELECT r.source, c.reason, count(*) FROM cleaned_sources c JOIN raw_documents r ON r.url = c.source_url
           WHERE r.removed_at IS NULL AND c.outcome = 'failed' GROUP BY ALL""").fetchall():
        if source in yields:
            yields[source].parse_failures[reason or "failed"] = n
    # the source's latest crawl: what stopped it this time
    for source, url, reason in con.execute(
        """WITH latest AS (SELECT source, arg_max(run_id, fetched_at) AS run_id FROM crawl_log GROUP BY source)
           SELECT l.source, l.url, l.reason FROM crawl_log l JOIN latest USING (source, run_id)
           WHERE l.outcome IN ('failed', 'gone') ORDER BY l.url""").fetchall():
        if source in yields:
            found = yields[source]
            found.crawl_failures[reason or "failed"] += 1
            host = urlsplit(url).netloc
            if reason == "unreachable" and host not in found.unreachable_hosts:
                found.unreachable_hosts.append(host)
    return list(yields.values())


def _sources(yields: list[SourceYield]) -> str:
    return ("source " if len(yields) == 1 else "sources ") + ", ".join(y.source for y in yields)


def _reasons(yields: list[SourceYield]) -> str:
    return "; ".join(f"{y.source}: {y.why_empty()}" for y in yields)


def no_documents_message(yields: list[SourceYield]) -> str | None:
    """One line when no configured source yields any document, naming the sources and the
    unreachable hosts (None when some source yields documents)."""
    if any(y.documents for y in yields):
        return None
    hosts = sorted({h for y in yields for h in y.unreachable_hosts})
    unreachable = f"; unreachable: {', '.join(hosts)}" if hosts else ""
    return f"no documents were crawled: {_sources(yields)} yielded none{unreachable} ({_reasons(yields)})"


def empty_sources_message(yields: list[SourceYield]) -> str | None:
    """One line when a configured source yields no documents (None when every source does)."""
    empty = [y for y in yields if not y.documents]
    if not empty:
        return None
    return no_documents_message(yields) or f"{_sources(empty)} yielded no documents ({_reasons(empty)})"


@dataclass(frozen=True)
class SelectorMiss:
    source: str
    selector: str
    pages: int  # live pages of the source whose text came from a fallback
    of_pages: int  # live pages of the source that were cleaned

    def message(self) -> str:
        return (f"source {self.source!r}: content selector {self.selector!r} matched no element with text on "
                f"{self.pages} of {self.of_pages} page(s); their text was taken from the default content areas "
                f"({', '.join(DEFAULT_CONTENT)}) or the whole page body")


def content_selector_misses(con: duckdb.DuckDBPyConnection, config: InstitutionConfig) -> list[SelectorMiss]:
    """Per source with a content selector: the live pages it matched nothing on (as recorded
    when each page was last cleaned, so an unchanged page keeps saying it)."""
    counts = {source: (missed, cleaned) for source, missed, cleaned in con.execute(
        """SELECT r.source, count(*) FILTER (c.reason = ?), count(*)
           FROM cleaned_sources c JOIN raw_documents r ON r.url = c.source_url
           WHERE r.removed_at IS NULL AND c.outcome = 'ok' GROUP BY r.source""", [CONTENT_SELECTOR_MISSED]).fetchall()}
    misses = []
    for source in config.sources:
        missed, cleaned = counts.get(source.name, (0, 0))
        if missed and source.selectors.content:
            misses.append(SelectorMiss(source.name, source.selectors.content, missed, cleaned))
    return misses
