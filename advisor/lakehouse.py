"""The DuckDB lakehouse: table definitions and the few write helpers every stage shares.

Every data row carries its lineage (source URL, fetch time, content hash, HTTP status, the run that
produced it); `materializations` records each asset run's inputs, outputs, row counts, code version
and config hash, so researchers can join any row back to the run and configuration behind it.
The schema is documented in README.md ("The lakehouse").
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import duckdb
import polars as pl

LAKEHOUSE_FILE = "lakehouse.duckdb"

SCHEMA = """
CREATE TABLE IF NOT EXISTS raw_documents (
    url             VARCHAR PRIMARY KEY,   -- normalized fetched URL
    source          VARCHAR NOT NULL,      -- config source name
    source_kind     VARCHAR NOT NULL,      -- html | pdf | board | faq (the config's kind)
    collection      VARCHAR NOT NULL,      -- static | dynamic
    is_document     BOOLEAN NOT NULL,      -- false: followed for links only (listing pages)
    doc_format      VARCHAR NOT NULL,      -- html | pdf (sniffed from the bytes and headers)
    content_type    VARCHAR,
    encoding        VARCHAR,               -- detected text encoding of HTML
    content_hash    VARCHAR NOT NULL,      -- SHA-256 of the body
    storage_path    VARCHAR NOT NULL,      -- body under the warehouse, content-addressed
    size_bytes      BIGINT,
    http_status     INTEGER NOT NULL,
    etag            VARCHAR,
    last_modified   VARCHAR,
    fetched_at      TIMESTAMPTZ NOT NULL,  -- when these bytes were fetched
    run_id          VARCHAR NOT NULL,      -- the run that fetched these bytes
    removed_at      TIMESTAMPTZ,           -- set when the page disappeared (kept, never deleted)
    removed_reason  VARCHAR,
    removed_run_id  VARCHAR
);

CREATE TABLE IF NOT EXISTS crawl_log (      -- one row per URL per crawl run: the fetch history
    run_id       VARCHAR NOT NULL,
    source       VARCHAR NOT NULL,
    url          VARCHAR NOT NULL,
    outcome      VARCHAR NOT NULL,  -- new | changed | unchanged | not_modified | gone | redirected | out_of_scope | failed
    http_status  INTEGER,
    fetched_at   TIMESTAMPTZ NOT NULL,
    elapsed_ms   DOUBLE,
    size_bytes   BIGINT,
    content_hash VARCHAR,
    redirected_to VARCHAR,
    reason       VARCHAR
);

CREATE TABLE IF NOT EXISTS ingest_failures (  -- every failure, with its reason, per run
    run_id       VARCHAR NOT NULL,
    asset        VARCHAR NOT NULL,
    source       VARCHAR,
    url          VARCHAR,
    reason       VARCHAR NOT NULL,  -- stable code: http_500, timeout, corrupt_pdf, ...
    detail       VARCHAR,
    http_status  INTEGER,
    occurred_at  TIMESTAMPTZ NOT NULL
);

CREATE TABLE IF NOT EXISTS documents (
    doc_id         VARCHAR PRIMARY KEY,   -- hash of url
    url            VARCHAR NOT NULL UNIQUE, -- canonical document URL (FAQ: page URL + #anchor)
    source_url     VARCHAR NOT NULL,      -- the fetched page (raw_documents.url)
    source         VARCHAR NOT NULL,
    kind           VARCHAR NOT NULL,      -- page | pdf | notice | faq
    collection     VARCHAR NOT NULL,      -- static | dynamic
    status         VARCHAR NOT NULL,      -- active | expired | duplicate | removed
    title          VARCHAR,
    breadcrumbs    VARCHAR[],
    headings       VARCHAR[],
    text           VARCHAR NOT NULL,      -- structure kept: # headings, - lists, header: value rows
    question       VARCHAR,               -- FAQ entries
    answer         VARCHAR,
    position       INTEGER,               -- FAQ entry's 1-based position on its page
    lang           VARCHAR,
    published_on   DATE,                  -- notices
    page_spans     STRUCT(page INTEGER, start_offset INTEGER, end_offset INTEGER)[], -- PDFs
    duplicate_of   VARCHAR,               -- consolidated FAQ duplicates: the canonical url
    alias_urls     VARCHAR[],             -- on the canonical entry: its consolidated duplicates
    text_hash      VARCHAR NOT NULL,
    content_hash   VARCHAR NOT NULL,      -- raw_documents.content_hash it was parsed from
    http_status    INTEGER NOT NULL,
    fetched_at     TIMESTAMPTZ NOT NULL,
    crawl_run_id   VARCHAR NOT NULL,      -- the run that fetched the bytes
    run_id         VARCHAR NOT NULL,      -- the run that produced this row
    cleaner_version VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS cleaned_sources (  -- what the cleaner already did, to skip it next time
    source_url   VARCHAR PRIMARY KEY,
    content_hash VARCHAR NOT NULL,
    fingerprint  VARCHAR NOT NULL,  -- cleaner code version + the source's config
    outcome      VARCHAR NOT NULL,  -- ok | failed
    reason       VARCHAR,
    documents    INTEGER NOT NULL,
    run_id       VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS materializations (
    run_id        VARCHAR NOT NULL,
    asset         VARCHAR NOT NULL,
    started_at    TIMESTAMPTZ NOT NULL,
    finished_at   TIMESTAMPTZ NOT NULL,
    code_version  VARCHAR NOT NULL,
    config_hash   VARCHAR NOT NULL,
    institution   VARCHAR,
    inputs        JSON,       -- [{asset, run_id}] the upstream materializations it read
    row_count     BIGINT,     -- rows in the asset's table after the run
    rows_added    BIGINT,
    rows_changed  BIGINT,
    rows_unchanged BIGINT,
    rows_removed  BIGINT,
    failures      BIGINT,
    metadata      JSON,
    PRIMARY KEY (run_id, asset)
);

CREATE OR REPLACE VIEW active_documents AS
    SELECT * FROM documents WHERE status = 'active';
"""


def connect(warehouse: Path, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    warehouse = Path(warehouse)
    warehouse.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(warehouse / LAKEHOUSE_FILE), read_only=read_only)
    if not read_only:
        ensure_schema(con)
    return con


def ensure_schema(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(SCHEMA)


def table_columns(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    return [row[0] for row in con.execute(f"DESCRIBE {table}").fetchall()]


def insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[dict]) -> None:
    """Insert dict rows by column name; columns missing from a row are NULL."""
    if not rows:
        return
    columns = table_columns(con, table)
    schema_frame = con.sql(f"SELECT * FROM {table} LIMIT 0").pl()
    frame = pl.DataFrame(
        [{c: row.get(c) for c in columns} for row in rows],
        schema=schema_frame.schema,
        strict=False,
    )
    con.register("_rows", frame.to_arrow())
    try:
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _rows")
    finally:
        con.unregister("_rows")


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    con.execute("BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def delete_where_in(con: duckdb.DuckDBPyConnection, table: str, column: str, values: Iterable[str]) -> None:
    values = list(values)
    if values:
        con.execute(f"DELETE FROM {table} WHERE {column} IN (SELECT unnest(?))", [values])


def replace_rows(
    con: duckdb.DuckDBPyConnection, table: str, key: str, keys: Iterable[str], rows: Sequence[dict]
) -> None:
    """Delete the rows whose `key` is in `keys`, then insert `rows`: one upsert in a transaction."""
    with transaction(con):
        delete_where_in(con, table, key, keys)
        insert_rows(con, table, rows)


def latest_run(con: duckdb.DuckDBPyConnection, asset: str) -> str | None:
    row = con.execute(
        "SELECT run_id FROM materializations WHERE asset = ? ORDER BY finished_at DESC LIMIT 1", [asset]
    ).fetchone()
    return row[0] if row else None


def record_materialization(
    con: duckdb.DuckDBPyConnection,
    *,
    run_id: str,
    asset: str,
    started_at: datetime,
    finished_at: datetime,
    code_version: str,
    config_hash: str,
    institution: str,
    inputs: list[dict],
    counts: dict,
    metadata: dict,
) -> None:
    row = {
        "run_id": run_id,
        "asset": asset,
        "started_at": started_at,
        "finished_at": finished_at,
        "code_version": code_version,
        "config_hash": config_hash,
        "institution": institution,
        "inputs": json.dumps(inputs, ensure_ascii=False),
        "metadata": json.dumps(metadata, ensure_ascii=False, default=str),
        **{k: counts.get(k) for k in ("row_count", "rows_added", "rows_changed", "rows_unchanged", "rows_removed", "failures")},
    }
    con.execute("DELETE FROM materializations WHERE run_id = ? AND asset = ?", [run_id, asset])
    insert_rows(con, "materializations", [row])
