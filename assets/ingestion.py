"""Ingestion stage: crawl the institution's sources (raw_documents), clean them (documents)."""

from collections.abc import Iterator

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetExecutionContext,
    Config,
    Failure,
    MaterializeResult,
    MetadataValue,
)
from pydantic import Field

from advisor import progress
from advisor.index.layout import COLLECTIONS
from advisor.ingest import coverage, crawler, local_site, scopes
from advisor.ingest import documents as cleaning
from advisor.ingest import raw_documents as crawling
from advisor.lakehouse import history, one, scalar
from advisor.versioning import code_version
from assets.lineage import failures_markdown, history_check, record_lineage, versions_metadata
from assets.resources import InstitutionResource, WarehouseResource
from assets.stage import HISTORY, Check, begin, stage_asset
from examples import generate_site

CRAWL_VERSION = code_version(crawler, crawling, local_site, scopes)
GROUP = "ingestion"
EVERY_SOURCE = "every_source_has_documents"
TABLE_ROWS = 30  # rows of a metadata table; the rest are counted


class CrawlConfig(Config):
    collections: list[str] = Field(
        default_factory=list,
        description="Crawl only the sources of these collections (the hourly notices refresh: ['dynamic']); "
                    "empty: every source. Pages of the others are left as they are.")


@stage_asset(
    GROUP, kinds={"duckdb", "python"}, code_version=CRAWL_VERSION,
    checks=[HISTORY, Check("versioned_bytes_kept", "The bytes of every fetch version are still under warehouse/raw/.")],
)
def raw_documents(
    context: AssetExecutionContext, config: CrawlConfig, institution: InstitutionResource,
    warehouse: WarehouseResource,
) -> MaterializeResult:
    """Every fetched page and PDF of the institution's sources, bytes stored content-addressed under the warehouse;
    conditional re-crawls; removed pages marked."""
    collections = _checked_collections(config.collections)
    config, started = begin(context, institution)
    store = warehouse.raw_store()

    def on_fetch(fetch: crawler.Fetch) -> None:
        progress.report("raw_documents", f"{fetch.outcome:>12}  {fetch.url}")
        if fetch.outcome == "failed":
            context.log.warning(f"{fetch.url}: {fetch.reason} ({fetch.detail})")

    with warehouse.connect() as con:
        with local_site.local_site(config.local_site, warehouse.root, config.today(), generate_site) as served:
            if served:
                context.log.info(f"serving the local site at {served} for this crawl")
            report = crawling.crawl_institution(config, con, store, context.run_id, on_fetch=on_fetch,
                                                collections=collections)
        for overlap in report.overlaps:
            context.log.warning(f"{overlap.url}: in the scope of sources {overlap.met_by!r} and {overlap.owner!r}; "
                                f"attributed to {overlap.owner!r} ({overlap.rule})")
        for host, names in report.unreachable.items():
            context.log.warning(f"host {host} unreachable: nothing fetched from it for source(s) {', '.join(names)}")
        total, live, documents = one(con,
            "SELECT count(*), count(*) FILTER (removed_at IS NULL), count(*) FILTER (removed_at IS NULL AND is_document) FROM raw_documents"
        )
        counts = report.counts()
        metadata = {
            "dagster/row_count": total,
            "live_pages": live,
            "live_documents": documents,
            **{f"fetch_{outcome}": n for outcome, n in sorted(report.outcomes.items())},
            "removed_this_run": len(report.removed),
            "failures": len(report.failures),
            "truncated_sources": ", ".join(report.truncated_sources) or "none",
            "unreachable_hosts": "; ".join(f"{host} ({', '.join(names)})"
                                           for host, names in report.unreachable.items()) or "none",
            "overlapping_urls": len(report.overlaps),
            **versions_metadata(report.versions, history.RAW, con),
        }
        pages_per_source = _markdown_table(
            ["source", "live pages", "document pages"],
            [[y.source, y.pages, y.document_pages] for y in coverage.source_yields(con, config)])
        missing_bytes = crawling.missing_versioned_bytes(con, store)
        checks = [
            history_check(con, history.RAW),
            AssetCheckResult(check_name="versioned_bytes_kept", passed=not missing_bytes,
                             severity=AssetCheckSeverity.WARN,
                             metadata={"missing": len(missing_bytes), "examples": MetadataValue.json(missing_bytes[:5])}),
        ]
        record_lineage(
            context, con, config, asset="raw_documents", started_at=started, code_version=CRAWL_VERSION,
            row_count=total, counts=counts, metadata=metadata,
        )
    return MaterializeResult(
        metadata={
            **metadata,
            "failure_details": failures_markdown(report.failures),
            "overlaps": _markdown_table(["url", "reached by", "attributed to", "why"],
                                        [[o.url, o.met_by, o.owner, o.rule] for o in report.overlaps],
                                        empty="No URL is in the scope of two sources that both reached it."),
            "sources": pages_per_source,
            "warehouse": MetadataValue.path(str(warehouse.root)),
        },
        check_results=checks,
    )


def _checked_collections(names: list[str]) -> tuple[str, ...] | None:
    unknown = sorted(set(names) - set(COLLECTIONS))
    if unknown:
        raise Failure(f"unknown collection(s) {', '.join(unknown)}; known: {', '.join(COLLECTIONS)}")
    return tuple(names) or None


@stage_asset(
    GROUP, kinds={"duckdb", "python"}, code_version=cleaning.cleaner_version(), deps=[raw_documents],
    checks=[
        Check("document_urls_unique", "One row per canonical document URL.", blocking=True),
        Check("documents_have_text", "No active document has empty text.", blocking=True),
        Check(EVERY_SOURCE, "Every configured source yields at least one document; one left empty (an unreachable "
              "host, `documents` patterns that match nothing, pages that fail to clean) fails the run, named.",
              blocking=True),
        Check("every_live_page_has_documents",
              "Every live document page either produced documents or has a recorded failure."),
        HISTORY,
    ],
)
def documents(
    context: AssetExecutionContext, institution: InstitutionResource, warehouse: WarehouseResource
) -> Iterator[MaterializeResult]:
    """Clean documents: boilerplate removed, structure kept, PDF pages, notice dates (expired dropped), one document
    per FAQ entry (duplicates consolidated)."""
    config, started = begin(context, institution, "cleaning changed pages")
    with warehouse.connect() as con:
        report = cleaning.clean_documents(config, con, warehouse.raw_store(), context.run_id, config.today())
        yields = coverage.source_yields(con, config)
        empty_sources = coverage.empty_sources_message(yields)
        misses = coverage.content_selector_misses(con, config)
        for miss in misses:
            context.log.warning(miss.message())
        by_status = dict(report.status_counts)
        per_kind = dict(con.execute(
            "SELECT kind, count(*) FROM documents WHERE status = 'active' GROUP BY kind ORDER BY kind").fetchall())
        total = sum(by_status.values())
        checks = [*_document_checks(con), _every_source_check(yields, empty_sources)]
        metadata = {
            "dagster/row_count": total,
            "active": by_status.get("active", 0),
            **{f"status_{s}": n for s, n in sorted(by_status.items()) if s != "active"},
            **{f"active_{kind}": n for kind, n in per_kind.items()},
            "parsed_this_run": report.parsed,
            "skipped_unchanged": report.skipped,
            "documents_added": report.added,
            "documents_reparsed": report.changed,
            "status_changes": report.status_changes,
            "failures": len(report.failures),
            "empty_sources": ", ".join(y.source for y in yields if not y.documents) or "none",
            "content_selector_fallbacks": sum(m.pages for m in misses),
            "content_selector_fallbacks_this_run": sum(report.content_fallbacks.values()),
            **versions_metadata(report.versions, history.DOCUMENTS, con),
        }
        record_lineage(
            context, con, config, asset="documents", started_at=started, code_version=cleaning.cleaner_version(),
            row_count=total,
            counts={"rows_added": report.added, "rows_changed": report.changed, "rows_unchanged": report.skipped,
                    "rows_removed": by_status.get("removed", 0), "failures": len(report.failures)},
            metadata=metadata,
        )
    yield MaterializeResult(
        metadata={
            **metadata,
            "failure_details": failures_markdown(report.failures),
            "sources": _markdown_table(
                ["source", "live pages", "document pages", "documents", "why none"],
                [[y.source, y.pages, y.document_pages, y.documents, "" if y.documents else y.why_empty()]
                 for y in yields]),
            "content_selector_misses": _markdown_table(
                ["source", "content selector", "pages it matched nothing on", "of pages"],
                [[m.source, m.selector, m.pages, m.of_pages] for m in misses],
                empty="Every configured content selector matched on every page."),
        },
        check_results=checks,
    )
    if empty_sources:
        # The blocking check alone would stop the assets downstream with Dagster's message, which
        # only names the check: fail the step with the reason, in one line, after the results.
        raise Failure(description=empty_sources)


def _every_source_check(yields: list[coverage.SourceYield], message: str | None) -> AssetCheckResult:
    return AssetCheckResult(
        check_name=EVERY_SOURCE, passed=message is None, description=message,
        metadata={"empty_sources": MetadataValue.json([y.source for y in yields if not y.documents]),
                  "documents_per_source": MetadataValue.json({y.source: y.documents for y in yields})},
    )


def _markdown_table(header: list[str], rows: list[list], empty: str = "None.") -> MetadataValue:
    if not rows:
        return MetadataValue.md(empty)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |" for row in rows[:TABLE_ROWS]]
    if len(rows) > TABLE_ROWS:
        lines.append(f"| … {len(rows) - TABLE_ROWS} more |" + " |" * (len(header) - 1))
    return MetadataValue.md("\n".join(lines))


def _document_checks(con) -> list[AssetCheckResult]:
    duplicated = scalar(con, "SELECT count(*) - count(DISTINCT url) FROM documents")
    empty = scalar(con,
        "SELECT count(*) FROM documents WHERE status = 'active' AND length(trim(text)) = 0")
    orphans = scalar(con,
        """SELECT count(*) FROM raw_documents r
           WHERE r.is_document AND r.removed_at IS NULL
             AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.source_url = r.url)
             AND NOT EXISTS (SELECT 1 FROM cleaned_sources c WHERE c.source_url = r.url AND c.outcome = 'failed')"""
    )
    return [
        AssetCheckResult(check_name="document_urls_unique", passed=duplicated == 0,
                         metadata={"duplicated_urls": duplicated}),
        AssetCheckResult(check_name="documents_have_text", passed=empty == 0, metadata={"empty": empty}),
        AssetCheckResult(check_name="every_live_page_has_documents", passed=orphans == 0,
                         severity=AssetCheckSeverity.WARN, metadata={"pages_without_documents": orphans}),
        history_check(con, history.DOCUMENTS),
    ]
