"""Turn fetched bytes into clean documents, incrementally.

One HTML page or PDF becomes one document; an FAQ page becomes one document per entry (URL rule of
docs/contracts.md §3). Work is skipped when the bytes and the cleaner (code + the source's config) are
unchanged. A page that fails to parse keeps the documents it produced before. Statuses are then
recomputed over the whole table: removed pages, expired notices, consolidated FAQ duplicates.
Every write also brings `document_versions` up to date, in the same transaction.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone

import duckdb
import polars as pl

from advisor.config import InstitutionConfig, Source
from advisor.ingest import dates, encoding, faq, html_text, page_dates, pdf_text
from advisor.ingest.errors import DocumentError
from advisor.ingest.raw_store import RawStore
from advisor.lakehouse import delete_where_in, insert_rows, transaction
from advisor.lakehouse.history import DOCUMENTS, record_versions
from advisor.versioning import code_version, text_hash

PARSER_MODULES = (dates, encoding, faq, html_text, page_dates, pdf_text)
# `cleaned_sources.reason` of a page parsed fine whose source's content selector matched nothing
# on it: its text came from the default content areas or the whole page (reported, not an error)
CONTENT_SELECTOR_MISSED = "content_selector_missed"


def cleaner_version() -> str:
    import advisor.ingest.documents as this

    # the date labels and month names are data: an edited list re-cleans as edited code does
    return text_hash(code_version(this, *PARSER_MODULES) + page_dates.label_version())[:12]


@dataclass
class CleanReport:
    # fetched pages: parsed this run, skipped (bytes and cleaner unchanged), or failed to parse
    parsed: int = 0
    skipped: int = 0
    content_fallbacks: Counter = field(default_factory=Counter)  # source -> pages parsed this run by a fallback
    failures: list[dict] = field(default_factory=list)
    # the documents they gave: rows added or re-parsed; then every document's status
    added: int = 0
    changed: int = 0
    status_counts: Counter = field(default_factory=Counter)
    status_changes: int = 0
    versions: Counter = field(default_factory=Counter)  # document versions opened / retired


def doc_id(url: str) -> str:
    return hashlib.sha256(url.encode()).hexdigest()[:16]


def source_fingerprint(source: Source, version: str) -> str:
    # the name too: a page that moves to another source (advisor/ingest/scopes.py) is cleaned again
    relevant = {k: v for k, v in source.model_dump(mode="json").items()
                if k in {"name", "kind", "collection", "selectors", "documents"}}
    return text_hash(version + json.dumps(relevant, sort_keys=True))[:16]


def _document_kind(source_kind: str, doc_format: str) -> str:
    if doc_format == "pdf":
        return "pdf"
    return {"board": "notice", "faq": "faq"}.get(source_kind, "page")


def parse_raw(raw: dict, body: bytes, source: Source) -> list[dict]:
    """The document rows (without lineage columns) that one fetched body yields."""
    return _parse(raw, body, source)[0]


def _parse(raw: dict, body: bytes, source: Source) -> tuple[list[dict], str | None]:
    """The document rows, and the fallback that gave a page's text when the source's content
    selector matched nothing on it (None otherwise)."""
    kind = _document_kind(source.kind, raw["doc_format"])
    if kind == "pdf":
        parsed = pdf_text.extract_pdf(body)
        return [{
            "url": raw["url"], "kind": kind, "title": parsed.title, "text": parsed.text,
            "lang": html_text.detect_lang(parsed.text),
            "page_spans": [{"page": p, "start_offset": s, "end_offset": e} for p, s, e in parsed.page_spans],
        }], None
    html, _ = encoding.decode_html(body, raw["content_type"])
    if kind == "faq":
        entries = faq.split_faq(html, raw["url"], source.selectors)
        if not entries:
            raise DocumentError("no_faq_items", "no FAQ entries found with the source's selectors")
        # only the title and breadcrumbs come from here: the entries' text does not depend on
        # the content selector, so its fallback is not reported for an FAQ page
        page = html_text.extract_page(html, raw["url"], source.selectors)
        return [{
            "url": e.url, "kind": kind, "title": e.question, "question": e.question, "answer": e.answer,
            "text": f"{e.question}\n\n{e.answer}", "position": e.position, "breadcrumbs": page.breadcrumbs,
            "headings": [page.title] if page.title else [], "lang": html_text.detect_lang(e.question + e.answer),
            "published_on": page.date, "updated_on": page.updated,  # the page's, as it states them
        } for e in entries], None
    page = html_text.extract_page(html, raw["url"], source.selectors)
    published = page.date
    if kind == "notice" and published is None:
        published = dates.find_date(page.text[:300])  # boards without a <time>: date near the top
    return [{
        "url": raw["url"], "kind": kind, "title": page.title, "breadcrumbs": page.breadcrumbs,
        "headings": page.headings, "text": page.text, "lang": page.lang, "published_on": published,
        "updated_on": page.updated,
    }], page.content_fallback


def _with_lineage(row: dict, raw: dict, run_id: str, version: str) -> dict:
    return {
        **row,
        "doc_id": doc_id(row["url"]),
        "source_url": raw["url"],
        "source": raw["source"],
        "collection": raw["collection"],
        "status": "active",
        "text_hash": text_hash(row["text"]),
        "content_hash": raw["content_hash"],
        "http_status": raw["http_status"],
        "fetched_at": raw["fetched_at"],
        "crawl_run_id": raw["run_id"],
        "run_id": run_id,
        "cleaner_version": version,
    }


def clean_documents(
    config: InstitutionConfig,
    con: duckdb.DuckDBPyConnection,
    store: RawStore,
    run_id: str,
    today: date,
) -> CleanReport:
    report = CleanReport()
    version = cleaner_version()
    sources = {s.name: s for s in config.sources}
    done = {r[0]: (r[1], r[2]) for r in con.execute(
        "SELECT source_url, content_hash, fingerprint FROM cleaned_sources").fetchall()}
    raws = con.sql(
        """SELECT url, source, source_kind, collection, doc_format, content_type, content_hash,
                  http_status, fetched_at, run_id
           FROM raw_documents WHERE is_document AND removed_at IS NULL ORDER BY url"""
    ).pl().to_dicts()
    existing = Counter(r[0] for r in con.execute("SELECT source_url FROM documents").fetchall())

    batch = _Batch(run_id, report)
    for raw in raws:
        source = sources.get(raw["source"])
        if source is None:
            continue  # a source dropped from the config: its rows are kept as they were
        fingerprint = source_fingerprint(source, version)
        if done.get(raw["url"]) == (raw["content_hash"], fingerprint):
            report.skipped += 1
            continue
        _clean_one(store, raw, source, fingerprint, run_id, version, existing, report, batch)
        if len(batch.cleaned) >= WRITE_BATCH:
            batch.write(con)
    batch.write(con)

    _update_statuses(con, config, today, run_id, report)
    return report


WRITE_BATCH = 200  # pages per lakehouse write: one transaction each, bounded memory


@dataclass
class _Batch:
    """Rows of parsed pages waiting to be written together (a write per page costs ~20 ms)."""

    run_id: str
    report: CleanReport
    documents: list[dict] = field(default_factory=list)
    cleaned: list[dict] = field(default_factory=list)
    failures: list[dict] = field(default_factory=list)

    def write(self, con: duckdb.DuckDBPyConnection) -> None:
        urls = [r["url"] for r in self.documents]
        with transaction(con):  # a page's documents, its 'cleaned' mark and their history land together
            delete_where_in(con, "documents", "url", urls)
            insert_rows(con, "documents", self.documents)
            delete_where_in(con, "cleaned_sources", "source_url", [r["source_url"] for r in self.cleaned])
            insert_rows(con, "cleaned_sources", self.cleaned)
            insert_rows(con, "ingest_failures", self.failures)
            self.report.versions += record_versions(con, DOCUMENTS, datetime.now(timezone.utc), self.run_id,
                                                    {"url": urls})
        self.documents, self.cleaned, self.failures = [], [], []


def _clean_one(store, raw, source, fingerprint, run_id, version, existing, report, batch: _Batch) -> None:
    report.parsed += 1
    mark = {"source_url": raw["url"], "content_hash": raw["content_hash"], "fingerprint": fingerprint,
            "outcome": "ok", "reason": None, "documents": 0, "run_id": run_id}
    try:
        rows, fallback = _parse(raw, store.get(raw["content_hash"]), source)
    except (DocumentError, FileNotFoundError) as exc:
        reason = getattr(exc, "reason", "missing_raw_bytes")
        failure = {
            "run_id": run_id, "asset": "documents", "source": raw["source"], "url": raw["url"],
            "reason": reason, "detail": getattr(exc, "detail", str(exc)), "http_status": raw["http_status"],
            "occurred_at": datetime.now(timezone.utc),
        }
        batch.failures.append(failure)
        report.failures.append(failure)
        batch.cleaned.append({**mark, "outcome": "failed", "reason": reason})
        return  # the documents this page produced before stay as they were
    # Entries a page no longer has are kept and marked removed by the status pass, not deleted.
    batch.documents.extend(_with_lineage(r, raw, run_id, version) for r in rows)
    if fallback is not None:
        report.content_fallbacks[source.name] += 1
        mark["reason"] = CONTENT_SELECTOR_MISSED
    batch.cleaned.append({**mark, "documents": len(rows)})
    if existing[raw["url"]]:
        report.changed += len(rows)
    else:
        report.added += len(rows)


# --------------------------------------------------------------------------- statuses
_PUNCT = re.compile(r"[\s\W_]+", re.UNICODE)


def _norm(text: str | None) -> str:
    return _PUNCT.sub(" ", (text or "").lower()).strip()


def compute_statuses(docs: list[dict], removed: set[str], expiry: dict[str, date]) -> dict[str, dict]:
    """url -> {status, duplicate_of, alias_urls} for every document.

    FAQ entries are consolidated only when question AND answer match: the same question with a
    different answer usually applies to different students, which is exactly what must be kept.
    The canonical copy is the first by URL, so the choice is stable across runs.
    """
    result = {}
    groups: dict[tuple[str, str], list[str]] = {}
    for doc in sorted(docs, key=lambda d: d["url"]):
        status = "active"
        if doc["url"] in removed:
            status = "removed"
        elif (doc["kind"] == "notice" and doc["published_on"] and doc["source"] in expiry
              and doc["published_on"] < expiry[doc["source"]]):
            status = "expired"
        result[doc["url"]] = {"status": status, "duplicate_of": None, "alias_urls": None}
        if doc["kind"] == "faq" and status == "active":
            groups.setdefault((_norm(doc["question"]), _norm(doc["answer"])), []).append(doc["url"])
    for urls in groups.values():
        canonical, *duplicates = urls
        if duplicates:
            result[canonical]["alias_urls"] = duplicates
            for url in duplicates:
                result[url].update(status="duplicate", duplicate_of=canonical)
    return result


def _update_statuses(con, config: InstitutionConfig, today: date, run_id: str, report: CleanReport) -> None:
    docs = con.sql(
        """SELECT url, source_url, source, kind, published_on, question, answer, status, duplicate_of,
                  alias_urls, content_hash
           FROM documents"""
    ).pl().to_dicts()
    gone_pages = {r[0] for r in con.execute("SELECT url FROM raw_documents WHERE removed_at IS NOT NULL").fetchall()}
    parsed = {r[0]: r[1] for r in con.execute(
        "SELECT source_url, content_hash FROM cleaned_sources WHERE outcome = 'ok'").fetchall()}
    # Removed: the page is gone, or it was re-parsed and no longer yields this document
    # (an FAQ entry taken off its page).
    removed = {
        d["url"] for d in docs
        if d["source_url"] in gone_pages or parsed.get(d["source_url"], d["content_hash"]) != d["content_hash"]
    }
    expiry = {s.name: today - timedelta(days=s.expire_after_days) for s in config.sources if s.expire_after_days}
    statuses = compute_statuses(docs, removed, expiry)
    changes = []
    for doc in docs:
        new = statuses[doc["url"]]
        report.status_counts[new["status"]] += 1
        if (doc["status"], doc["duplicate_of"], doc["alias_urls"]) != (new["status"], new["duplicate_of"], new["alias_urls"]):
            changes.append({"url": doc["url"], **new})
    report.status_changes = len(changes)
    if changes:
        frame = pl.DataFrame(changes, schema={"url": pl.String, "status": pl.String, "duplicate_of": pl.String,
                                              "alias_urls": pl.List(pl.String)})
        con.register("_status_changes", frame.to_arrow())
        try:
            with transaction(con):  # a document removed (or back) retires (or reopens) its version
                con.execute(
                    """UPDATE documents SET status = c.status, duplicate_of = c.duplicate_of, alias_urls = c.alias_urls
                       FROM _status_changes c WHERE documents.url = c.url"""
                )
                report.versions += record_versions(con, DOCUMENTS, datetime.now(timezone.utc), run_id,
                                                   {"url": [c["url"] for c in changes]})
        finally:
            con.unregister("_status_changes")
