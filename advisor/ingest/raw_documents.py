"""Crawl every source of an institution into `raw_documents`, incrementally.

A page fetched before is asked for with a conditional GET; unchanged bytes leave its row exactly as
it was (same fetch time, same run id), so a no-change re-run leaves the table identical. A page is
marked removed only when the server says it is gone (404/410), when it now redirects elsewhere, or
when the config or robots.txt no longer covers it; a failed fetch never loses what is stored. Each
source's rows, crawl log and fetch history (`raw_document_versions`) are written in one transaction.

Sources may overlap (a `pages` source seeded at the site root reaches the FAQ's and the notices'
pages): each URL is crawled by the one source that owns it (advisor/ingest/scopes.py), whichever
source reaches it, and every URL a source reached but left to another is reported as an `Overlap`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import datetime, timezone
from urllib.parse import urlsplit

import duckdb

from advisor.config import InstitutionConfig
from advisor.ingest.crawler import Crawler, Fetch, KnownPage
from advisor.ingest.raw_store import RawStore
from advisor.ingest.scopes import Overlap, Scopes
from advisor.lakehouse import delete_where_in, insert_rows, transaction
from advisor.lakehouse.history import RAW, record_versions

REMOVING_OUTCOMES = {"gone", "redirected", "out_of_scope"}


@dataclass
class CrawlReport:
    outcomes: Counter = field(default_factory=Counter)  # outcome -> number of URLs
    failures: list[dict] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    truncated_sources: list[str] = field(default_factory=list)
    versions: Counter = field(default_factory=Counter)  # fetch versions opened / retired
    overlaps: list[Overlap] = field(default_factory=list)  # URLs a source reached but another owns
    unreachable: dict[str, list[str]] = field(default_factory=dict)  # host -> the sources it stopped

    def counts(self) -> dict:
        return {
            "rows_added": self.outcomes["new"],
            "rows_changed": self.outcomes["changed"],
            "rows_unchanged": self.outcomes["unchanged"] + self.outcomes["not_modified"],
            "rows_removed": len(self.removed),
            "failures": len(self.failures),
        }


def missing_versioned_bytes(con: duckdb.DuckDBPyConnection, store: RawStore) -> list[str]:
    """Content hashes of fetch versions whose bytes are no longer in the store. The store is
    append-only (nothing prunes it), so this stays empty unless someone deleted files by hand."""
    hashes = [h for (h,) in con.execute("SELECT DISTINCT content_hash FROM raw_document_versions ORDER BY 1").fetchall()]
    return [h for h in hashes if not store.has(h)]


def _known_pages(con: duckdb.DuckDBPyConnection, source: str) -> tuple[dict[str, KnownPage], dict[str, tuple]]:
    """The source's live pages: what the crawler needs for conditional GETs, and the row fields
    that a refetch of the same bytes may still change (validators, the config's view of it)."""
    rows = con.execute(
        """SELECT url, content_hash, doc_format, content_type, encoding, size_bytes, etag, last_modified,
                  is_document, source_kind, collection
           FROM raw_documents WHERE source = ? AND removed_at IS NULL""",
        [source],
    ).fetchall()
    known = {row[0]: KnownPage(*row[:8]) for row in rows}
    state = {row[0]: (row[6], row[7], row[8], row[9], row[10]) for row in rows}
    return known, state


def _raw_row(fetch: Fetch, source_kind: str, collection: str, store: RawStore, run_id: str) -> dict:
    return {
        "url": fetch.url,
        "source": fetch.source,
        "source_kind": source_kind,
        "collection": collection,
        "is_document": fetch.is_document,
        "doc_format": fetch.doc_format,
        "content_type": fetch.content_type,
        "encoding": fetch.encoding,
        "content_hash": fetch.content_hash,
        "storage_path": store.relative_path(fetch.content_hash),
        "size_bytes": fetch.size_bytes,
        "http_status": fetch.http_status,
        "etag": fetch.etag,
        "last_modified": fetch.last_modified,
        "fetched_at": fetch.fetched_at,
        "run_id": run_id,
    }


def _log_row(fetch: Fetch, run_id: str) -> dict:
    return {
        "run_id": run_id,
        "source": fetch.source,
        "url": fetch.url,
        "outcome": fetch.outcome,
        "http_status": fetch.http_status,
        "fetched_at": fetch.fetched_at,
        "elapsed_ms": fetch.elapsed_ms,
        "size_bytes": fetch.size_bytes,
        "content_hash": fetch.content_hash,
        "redirected_to": fetch.redirected_to,
        "reason": fetch.reason,
    }


def crawl_institution(  # noqa: C901 - every source's crawl and hand-over share the run's state in one closure
    config: InstitutionConfig,
    con: duckdb.DuckDBPyConnection,
    store: RawStore,
    run_id: str,
    on_fetch: Callable[[Fetch], None] | None = None,
    collections: Collection[str] | None = None,
) -> CrawlReport:
    """Crawl every source (or only those of `collections`: the hourly notices refresh crawls the
    dynamic collection alone; pages of the others are left as they are, never marked removed)."""
    report = CrawlReport()
    crawler = Crawler(config.crawl, store, on_fetch=on_fetch)
    scopes = Scopes(config.sources)
    sources = {s.name: s for s in config.sources}
    claimed: set[str] = set()
    taken: Counter = Counter()  # URLs per source: its max_pages holds across its passes
    handed: dict[str, list[str]] = defaultdict(list)  # source -> URLs others reached that it owns
    unreachable: dict[str, set[str]] = defaultdict(set)
    overlaps: set[Overlap] = set()

    def crawl_one(source, seeds=None) -> None:
        known, state = _known_pages(con, source.name)
        crawl = crawler.crawl(source, known, claimed, owner=scopes.owner, seeds=seeds,
                              budget=None if seeds is None else source.max_pages - taken[source.name])
        taken[source.name] += crawl.taken
        if crawl.truncated and source.name not in report.truncated_sources:
            report.truncated_sources.append(source.name)
        for url, owner in crawl.handoffs.items():
            overlap = scopes.overlap(url, source.name)
            if overlap not in overlaps:
                overlaps.add(overlap)
                report.overlaps.append(overlap)
            if url not in claimed and url not in handed[owner]:
                handed[owner].append(url)
        for fetch in crawl.fetches:
            if fetch.reason == "unreachable":
                unreachable[urlsplit(fetch.url).netloc].add(source.name)
        _persist(con, crawl.fetches, state, source.kind, source.collection, store, run_id, report)

    chosen = {s.name for s in config.sources if collections is None or s.collection in collections}
    for source in config.sources:
        if source.name in chosen:
            crawl_one(source)
    # Then each source continues from the URLs others reached that it did not: handed on until
    # none is left (a URL is fetched once in a run, and only fetched pages hand URLs on).
    while handed:
        name, urls = handed.popitem()
        if name not in chosen:  # a source not crawled this run takes nothing over from the others
            continue
        urls = [u for u in urls if u not in claimed]
        if urls:
            crawl_one(sources[name], urls)
    report.unreachable = {host: sorted(names) for host, names in sorted(unreachable.items())}
    return report


def _persist(con, fetches, known, source_kind, collection, store, run_id, report) -> None:
    changed_rows, removals, failures = [], [], []
    for fetch in fetches:
        report.outcomes[fetch.outcome] += 1
        same_bytes = fetch.outcome in {"unchanged", "not_modified"}
        # Same bytes, but new validators (a server without 304 support) or a config that now sees
        # the page differently: refresh the row, or every later run would redo the work.
        if fetch.outcome in {"new", "changed"} or (
            same_bytes
            and known[fetch.url] != (fetch.etag, fetch.last_modified, fetch.is_document, source_kind, collection)
        ):
            changed_rows.append(_raw_row(fetch, source_kind, collection, store, run_id))
        elif fetch.outcome in REMOVING_OUTCOMES and fetch.url in known:
            reason = fetch.reason or (f"redirects to {fetch.redirected_to}" if fetch.redirected_to else fetch.outcome)
            removals.append((fetch.url, reason, fetch.fetched_at))
        if fetch.outcome == "failed" or (fetch.outcome == "gone" and fetch.url not in known):
            failures.append({
                "run_id": run_id, "asset": "raw_documents", "source": fetch.source, "url": fetch.url,
                "reason": fetch.reason or fetch.outcome, "detail": fetch.detail,
                "http_status": fetch.http_status, "occurred_at": fetch.fetched_at,
            })
    changed = [r["url"] for r in changed_rows]
    with transaction(con):
        delete_where_in(con, "raw_documents", "url", changed)
        insert_rows(con, "raw_documents", changed_rows)
        for url, reason, at in removals:
            con.execute(
                "UPDATE raw_documents SET removed_at = ?, removed_reason = ?, removed_run_id = ? WHERE url = ?",
                [at, reason, run_id, url],
            )
        insert_rows(con, "crawl_log", [_log_row(f, run_id) for f in fetches])
        insert_rows(con, "ingest_failures", failures)
        report.versions += record_versions(con, RAW, datetime.now(timezone.utc), run_id,
                                           {"url": changed + [url for url, _, _ in removals]})
    report.removed.extend(url for url, _, _ in removals)
    report.failures.extend(failures)
