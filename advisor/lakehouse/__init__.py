"""The DuckDB lakehouse: table definitions and the few write helpers every stage shares.

Every data row carries its lineage (source URL, fetch time, content hash, HTTP status, the run that
produced it); `materializations` records each asset run's inputs, outputs, row counts, code version
and config hash, so researchers can join any row back to the run and configuration behind it.
The current tables are upserted; their history (every version a build or an evaluation could
have used) is kept beside them by advisor/lakehouse/history.py; the write helpers are in
advisor/lakehouse/sql.py (re-exported here). Every table, view and column is documented in
docs/lakehouse.md.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import duckdb

from advisor.lakehouse import history
from advisor.lakehouse.sql import delete_where_in, insert_rows, one, replace_rows, scalar, transaction

__all__ = ["connect", "delete_where_in", "ensure_schema", "insert_rows", "latest_run", "one",
           "record_materialization", "replace_rows", "scalar", "transaction"]

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
    published_on   DATE,                  -- when it was posted (a notice's date; a page's, where it states one)
    updated_on     DATE,                  -- when it was last updated, where the page states it
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

CREATE TABLE IF NOT EXISTS chunks (
    chunk_id        VARCHAR PRIMARY KEY,   -- hash of document URL, position and text: stable
    doc_id          VARCHAR NOT NULL,
    doc_url         VARCHAR NOT NULL,      -- -> documents.url (the citation)
    source          VARCHAR NOT NULL,
    kind            VARCHAR NOT NULL,      -- page | pdf | notice | faq
    collection      VARCHAR NOT NULL,      -- static | dynamic
    published_on    DATE,
    position        INTEGER NOT NULL,      -- order within the document
    text            VARCHAR NOT NULL,      -- the raw chunk
    indexed_text    VARCHAR NOT NULL,      -- topic > subtopic | title | keywords, then the chunk
    text_hash       VARCHAR NOT NULL,      -- -> chunk_tokens.text_hash
    heading_path    VARCHAR[],
    page            INTEGER,               -- PDFs: the page it starts on
    start_offset    INTEGER,
    topic           VARCHAR,
    subtopic        VARCHAR,
    title           VARCHAR,
    keywords        VARCHAR[],
    doc_text_hash   VARCHAR NOT NULL,      -- documents.text_hash it was cut from
    chunker_version VARCHAR NOT NULL,
    run_id          VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS chunk_tokens (   -- Kiwi content morphemes, computed once per text
    text_hash         VARCHAR NOT NULL,
    tokenizer_version VARCHAR NOT NULL,     -- Kiwi version + user dictionary (config aliases)
    tokens            VARCHAR[] NOT NULL,   -- content morphemes (BM25, token metrics)
    tags              VARCHAR[] NOT NULL,   -- their part-of-speech tags (keywords keep nouns)
    PRIMARY KEY (text_hash, tokenizer_version)
);

CREATE TABLE IF NOT EXISTS chunk_annotations ( -- one row per chunk x annotator x attribute
    chunk_id          VARCHAR NOT NULL,
    annotator         VARCHAR NOT NULL,     -- rules | llm
    annotator_version VARCHAR NOT NULL,
    attribute         VARCHAR NOT NULL,
    value_set         VARCHAR[],            -- categorical: canonical values; NULL = not limited
    range_min         INTEGER,              -- year / integer: inclusive range; NULL = not limited
    range_max         INTEGER,
    needed            BOOLEAN NOT NULL,     -- a reader must know this attribute to trust the chunk
    run_id            VARCHAR NOT NULL,
    PRIMARY KEY (chunk_id, annotator, attribute)
);

CREATE TABLE IF NOT EXISTS annotation_accuracy ( -- per run x annotator x attribute, vs ground truth
    run_id            VARCHAR NOT NULL,
    annotator         VARCHAR NOT NULL,
    annotator_version VARCHAR NOT NULL,
    attribute         VARCHAR NOT NULL,
    n                 INTEGER NOT NULL,
    exact_match       DOUBLE,
    precision         DOUBLE,
    recall            DOUBLE,
    predicted_null_share DOUBLE,
    true_null_share   DOUBLE,
    truth_file        VARCHAR,
    measured_at       TIMESTAMPTZ NOT NULL
);

CREATE TABLE IF NOT EXISTS chunk_augmentations ( -- URAG-D: the chunk in its document's light
    chunk_id       VARCHAR NOT NULL,
    method         VARCHAR NOT NULL,        -- extractive (offline) | llm
    method_version VARCHAR NOT NULL,
    summary        VARCHAR NOT NULL,        -- one sentence
    augmented_text VARCHAR NOT NULL,        -- summary + the (rewritten) chunk
    run_id         VARCHAR NOT NULL,
    PRIMARY KEY (chunk_id, method)
);

CREATE TABLE IF NOT EXISTS index_builds (  -- every index build, published or pruned
    build_id          VARCHAR PRIMARY KEY,
    built_at          TIMESTAMPTZ NOT NULL,
    path              VARCHAR NOT NULL,      -- the build folder (self-contained: serving reads only it)
    run_id            VARCHAR NOT NULL,
    annotator         VARCHAR NOT NULL,
    annotator_version VARCHAR NOT NULL,
    embedder          VARCHAR NOT NULL,
    embedder_version  VARCHAR NOT NULL,
    tokenizer_version VARCHAR NOT NULL,
    chunks_run_id     VARCHAR,               -- the chunks materialization it was built from
    annotations_run_id VARCHAR,
    chunks_static     INTEGER NOT NULL,
    chunks_dynamic    INTEGER NOT NULL,
    manifest          JSON NOT NULL
);

CREATE TABLE IF NOT EXISTS index_build_chunks (  -- which chunks each index build holds
    build_id    VARCHAR NOT NULL,            -- -> index_builds.build_id
    chunk_id    VARCHAR NOT NULL,            -- -> chunk_versions.chunk_id (as of index_builds.built_at)
    collection  VARCHAR NOT NULL,            -- static | dynamic
    PRIMARY KEY (build_id, chunk_id)
);

CREATE TABLE IF NOT EXISTS intent_examples ( -- the intent-routing dataset (built, never hand-edited)
    example_id     VARCHAR PRIMARY KEY,     -- hash of text + intent
    text           VARCHAR NOT NULL,
    intent         VARCHAR NOT NULL,        -- greeting | ability | faq | smalltalk | retrieval
    origin         VARCHAR NOT NULL,        -- seed | faq_question | faq_rewrite | document_question
    source_url     VARCHAR,                 -- the FAQ entry / document it was made from (NULL for seeds)
    split          VARCHAR NOT NULL,        -- train | test (held apart, by hash: stable across runs)
    dataset_version VARCHAR NOT NULL,       -- code + inputs fingerprint
    run_id         VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS faq_threshold_sweep ( -- URAG tier-1 threshold calibration, per index build
    build_id       VARCHAR NOT NULL,
    threshold      DOUBLE NOT NULL,
    mrr            DOUBLE NOT NULL,         -- of the two-tier system on the calibration queries
    faq_share      DOUBLE NOT NULL,         -- share of calibration queries the FAQ tier answered
    faq_precision  DOUBLE,                  -- of those, answered with the right entry
    queries        INTEGER NOT NULL,
    chosen         BOOLEAN NOT NULL,
    embedder       VARCHAR NOT NULL,
    faq_recall     DOUBLE,                  -- share of the FAQ paraphrases answered verbatim with their entry
    PRIMARY KEY (build_id, threshold)
);

CREATE OR REPLACE VIEW active_documents AS
    SELECT * FROM documents WHERE status = 'active';
"""


LLM_SCHEMA = """
CREATE TABLE IF NOT EXISTS llm_cache (      -- validated LLM responses; failures are never stored
    cache_key          VARCHAR PRIMARY KEY,  -- sha256 of (task, input_hash, prompt_version, model)
    task               VARCHAR NOT NULL,     -- annotate | augment | ...
    input_hash         VARCHAR NOT NULL,     -- sha256 of everything the prompt was built from
    prompt_version     VARCHAR NOT NULL,
    model              VARCHAR NOT NULL,
    response           JSON NOT NULL,        -- the JSON object the model returned
    prompt_tokens      INTEGER,              -- what producing it cost (summed over its retries)
    completion_tokens  INTEGER,
    created_at         TIMESTAMPTZ NOT NULL
);

CREATE TABLE IF NOT EXISTS llm_usage (      -- one row per asset run per LLM task
    run_id             VARCHAR NOT NULL,
    asset              VARCHAR NOT NULL,
    task               VARCHAR NOT NULL,
    model              VARCHAR NOT NULL,
    calls              INTEGER NOT NULL,     -- HTTP requests sent, retries included
    cache_hits         INTEGER NOT NULL,     -- items answered without a call
    retries            INTEGER NOT NULL,
    failures           INTEGER NOT NULL,     -- items left without a result
    prompt_tokens      BIGINT NOT NULL,
    completion_tokens  BIGINT NOT NULL,
    cost_usd           DOUBLE,               -- NULL: the model's price is unknown (never guessed)
    recorded_at        TIMESTAMPTZ NOT NULL
);
"""


EMBEDDING_CACHE_DDL = """
CREATE TABLE IF NOT EXISTS embedding_cache (  -- dense vectors by text, per embedding model
    text_hash VARCHAR NOT NULL,               -- sha256 of the embedded text
    model     VARCHAR NOT NULL,               -- model key: name, plus @dimensions when shortened
    vector    FLOAT[] NOT NULL,               -- L2-normalised
    PRIMARY KEY (text_hash, model)
);
"""


USAGE_SCHEMA = """
-- what students asked and said, read from <warehouse>/usage/ by the usage assets (advisor/usage/tables.py)
CREATE TABLE IF NOT EXISTS usage_questions (   -- the question log within the retention window
    answer_id      VARCHAR,               -- 32 hex, random per answer (joins usage_feedback)
    day            DATE NOT NULL,         -- UTC day of the record's file
    hour           VARCHAR,               -- "2026-12-07T11:00Z": no finer time is kept
    question       VARCHAR,               -- scrubbed by serving before it was written
    language       VARCHAR,
    intent         VARCHAR,
    tier           VARCHAR,               -- template | faq | documents | fallback
    answer_method  VARCHAR,
    score          DOUBLE,                -- the answering tier's own top score (NULL: none)
    answered       BOOLEAN,               -- false: tier fallback, the material did not answer
    low_score      BOOLEAN NOT NULL,      -- answered below the build's own bar (advisor/usage/coverage.py)
    build_id       VARCHAR,
    run_id         VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS usage_feedback (    -- each helpful / not helpful, with the answer it rated
    answer_id      VARCHAR,
    day            DATE NOT NULL,
    hour           VARCHAR,
    helpful        BOOLEAN,
    reason         VARCHAR,               -- wrong | outdated | not_my_case | unclear | other | NULL
    tier           VARCHAR,               -- of the rated answer (NULL: its question is not in the log)
    answer_method  VARCHAR,
    language       VARCHAR,
    run_id         VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS usage_coverage_daily (  -- per day: how the questions were answered
    day            DATE NOT NULL,
    questions      BIGINT NOT NULL,
    template       BIGINT NOT NULL,
    faq            BIGINT NOT NULL,
    documents      BIGINT NOT NULL,
    fallback       BIGINT NOT NULL,
    low_score      BIGINT NOT NULL,
    share_template DOUBLE,
    share_faq      DOUBLE,
    share_documents DOUBLE,
    share_fallback DOUBLE,
    run_id         VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS usage_clusters (    -- unanswered and low-score questions, grouped by meaning
    rank           INTEGER NOT NULL,      -- 1 = asked most often
    questions      BIGINT NOT NULL,       -- how many logged questions the group holds
    unanswered     BIGINT NOT NULL,       -- of them, not answered (tier fallback)
    low_score      BIGINT NOT NULL,       -- of them, answered below the build's bar
    examples       VARCHAR[] NOT NULL,    -- up to 3 distinct wordings, most frequent first
    languages      VARCHAR[],
    first_day      DATE,
    last_day       DATE,
    nearest_faq_question VARCHAR,         -- the served build's closest FAQ entry (NULL: no build)
    nearest_faq_url      VARCHAR,
    nearest_faq_score    DOUBLE,
    nearest_page_title   VARCHAR,         -- the page retrieval ranks first for the group's question
    nearest_page_url     VARCHAR,
    build_id       VARCHAR,               -- the build those came from
    run_id         VARCHAR NOT NULL
);
"""


class LakehouseUnavailable(Exception):
    """The lakehouse could not be opened: `missing` (nothing materialized into this warehouse yet)
    or locked by another process. Its message says what to do; each command picks its exit code."""

    def __init__(self, message: str, missing: bool):
        super().__init__(message)
        self.missing = missing


def open_lakehouse(warehouse: Path, read_only: bool = True) -> duckdb.DuckDBPyConnection:
    """`connect`, for a command: a clear LakehouseUnavailable when there is none to read yet or
    another process holds its lock (DuckDB allows one writer, and no reader beside it), instead of
    an empty lakehouse made up or DuckDB's own error."""
    path = Path(warehouse) / LAKEHOUSE_FILE
    if read_only and not path.is_file():
        raise LakehouseUnavailable(f"no lakehouse at {path}: run `advisor materialize` first", missing=True)
    try:
        return connect(warehouse, read_only=read_only)
    except duckdb.IOException as exc:
        if "lock" in str(exc).lower():
            raise LakehouseUnavailable(f"{path} is locked by another process (a running pipeline, or a DuckDB "
                                       "session writing to it); try again when it has finished",
                                       missing=False) from None
        raise


def connect(warehouse: Path, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    warehouse = Path(warehouse)
    warehouse.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(warehouse / LAKEHOUSE_FILE), read_only=read_only)
    if not read_only:
        ensure_schema(con)
    return con


def ensure_schema(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(SCHEMA)
    # a column added after lakehouses were made (CREATE TABLE IF NOT EXISTS leaves an old table as it was)
    con.execute("ALTER TABLE faq_threshold_sweep ADD COLUMN IF NOT EXISTS faq_recall DOUBLE")
    con.execute("ALTER TABLE documents ADD COLUMN IF NOT EXISTS updated_on DATE")
    con.execute(LLM_SCHEMA)
    con.execute(EMBEDDING_CACHE_DDL)
    con.execute(USAGE_SCHEMA)
    history.ensure_history(con)  # versions tables (migrated on first open), build chunks, lineage views
    # and versioned like the rest of a document's content (a page that starts stating it opens a version)
    con.execute("ALTER TABLE document_versions ADD COLUMN IF NOT EXISTS updated_on DATE")


def latest_run(con: duckdb.DuckDBPyConnection, asset: str) -> str | None:
    return scalar(con, "SELECT run_id FROM materializations WHERE asset = ? ORDER BY finished_at DESC LIMIT 1", [asset])


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
