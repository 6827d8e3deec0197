"""History that keeps its joins: every version of a fetch, a document, a chunk and a chunk
annotation that a build or an evaluation could have used.

The current tables (`raw_documents`, `documents`, `chunks`, `chunk_annotations`) stay as they are:
one row per URL / chunk, upserted, what every stage reads. Beside each, a `*_versions` table is
appended to in the same transaction as the upsert (`record_versions`): a row per distinct content
of an entity and per interval in which it was current, with `valid_from` / `valid_to` and the runs
that introduced and retired it. A version is new only when content changes; bookkeeping that
changes with every re-run (run ids, code versions, HTTP validators) is kept as of the version's
introduction and never opens one, so a no-change re-run adds nothing. Rows are never deleted and
their content never updated: retiring a version sets its `valid_to` once.

`ensure_history` creates the tables on an existing lakehouse and backfills them from the current
rows (one transaction: a crash leaves the lakehouse unmigrated, and the next open migrates), and
keeps `index_build_chunks` filled from the builds' manifests. The views join it all up:
`chunk_lineage` (a chunk version → the document version it was cut from → the fetch it was parsed
from), `build_chunk_lineage` (the same for every chunk of every index build, as of the build) and
`build_chunk_annotations` (the annotations each build filtered by).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

import duckdb

from advisor.lakehouse.sql import transaction

VALIDITY = ("valid_from", "valid_from_run_id", "valid_to", "valid_to_run_id")


@dataclass(frozen=True)
class History:
    table: str                    # the current table
    versions: str                 # its history
    key: tuple[str, ...]          # what one current row stands for: at most one open version per key
    untracked: tuple[str, ...]    # kept as of the version's start; a change alone opens no version
    state: tuple[str, ...]        # the current table's own state, said by validity instead (not copied)
    live: str                     # which current rows are current versions (alias c)
    # Backfill of an existing lakehouse (alias c, migration time $at): the earliest time the row's
    # content is known to have existed, so that as-of joins from later rows and builds find it,
    # and for rows no longer live, when they stopped being.
    born: str
    born_run: str = "c.run_id"
    ended: str = "$at"
    ended_run: str = "NULL"


RAW = History(
    table="raw_documents", versions="raw_document_versions", key=("url",),
    untracked=("etag", "last_modified", "fetched_at", "run_id"),  # a refetch of the same bytes
    state=("removed_at", "removed_reason", "removed_run_id"),
    live="c.removed_at IS NULL",
    born="""least(c.fetched_at,
                  (SELECT min(l.fetched_at) FROM crawl_log l WHERE l.url = c.url AND l.content_hash = c.content_hash),
                  (SELECT min(d.fetched_at) FROM documents d WHERE d.source_url = c.url AND d.content_hash = c.content_hash))""",
    born_run="""coalesce((SELECT arg_min(l.run_id, l.fetched_at) FROM crawl_log l
                          WHERE l.url = c.url AND l.content_hash = c.content_hash), c.run_id)""",
    ended="coalesce(c.removed_at, $at)", ended_run="c.removed_run_id",
)

DOCUMENTS = History(
    table="documents", versions="document_versions", key=("url",),
    untracked=("http_status", "fetched_at", "crawl_run_id", "run_id", "cleaner_version"),
    state=("status", "duplicate_of", "alias_urls"),  # recomputed over the whole table each run
    live="c.status <> 'removed'",
    born="c.fetched_at",  # its bytes were fetched then: no build can have read it earlier
    # removed before the migration: when its page went, else (an entry taken off a live page)
    # when the page was last cleaned
    ended="""coalesce((SELECT r.removed_at FROM raw_documents r WHERE r.url = c.source_url),
                      (SELECT m.finished_at FROM cleaned_sources s JOIN materializations m
                         ON m.run_id = s.run_id AND m.asset = 'documents' WHERE s.source_url = c.source_url),
                      $at)""",
    ended_run="""coalesce((SELECT r.removed_run_id FROM raw_documents r WHERE r.url = c.source_url),
                          (SELECT s.run_id FROM cleaned_sources s WHERE s.source_url = c.source_url))""",
)

CHUNKS = History(
    table="chunks", versions="chunk_versions", key=("chunk_id",),
    untracked=("chunker_version", "run_id"), state=(), live="TRUE",
    born="""coalesce((SELECT d.fetched_at FROM documents d WHERE d.doc_id = c.doc_id AND d.text_hash = c.doc_text_hash),
                     (SELECT m.started_at FROM materializations m WHERE m.run_id = c.run_id AND m.asset = 'chunks'),
                     $at)""",
)

ANNOTATIONS = History(
    table="chunk_annotations", versions="chunk_annotation_versions", key=("chunk_id", "annotator", "attribute"),
    untracked=("annotator_version", "run_id"), state=(), live="TRUE",
    born="""coalesce((SELECT v.valid_from FROM chunk_versions v WHERE v.chunk_id = c.chunk_id AND v.valid_to IS NULL),
                     (SELECT m.started_at FROM materializations m
                       WHERE m.run_id = c.run_id AND m.asset = 'chunk_annotations'),
                     $at)""",
)

HISTORIES = (RAW, DOCUMENTS, CHUNKS, ANNOTATIONS)  # in backfill order: annotations start with their chunk


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    return [d[0] for d in con.execute(f"SELECT * FROM {table} LIMIT 0").description]


def _shared(con: duckdb.DuckDBPyConnection, history: History) -> tuple[list[str], list[str]]:
    """(copied, compared) columns. Only those both tables have: a column added to the current
    table later is not versioned until its history table gets it too."""
    versioned = set(_columns(con, history.versions)) - set(VALIDITY)
    copied = [c for c in _columns(con, history.table) if c in versioned]
    return copied, [c for c in copied if c not in history.untracked]


def _same(history: History, compared: list[str]) -> str:
    """v (a version) holds the content of c (a current row)."""
    return " AND ".join([f"v.{k} = c.{k}" for k in history.key]
                        + [f"v.{c} IS NOT DISTINCT FROM c.{c}" for c in compared if c not in history.key])


def record_versions(
    con: duckdb.DuckDBPyConnection,
    history: History,
    at: datetime,
    run_id: str,
    scope: Mapping[str, Sequence] | None = None,
) -> Counter:
    """Bring `history.versions` up to the current table: retire open versions whose entity is no
    longer current with that content, open one for every current row without an identical open
    version. Call it inside the transaction that wrote the current table. `scope` (column -> values,
    on both tables) limits the work to the rows that write touched. Returns {opened, retired}."""
    scope = {column: list(values) for column, values in (scope or {}).items()}
    if any(not values for values in scope.values()):
        return Counter()  # the write touched nothing
    copied, compared = _shared(con, history)
    same = _same(history, compared)
    params = {f"s{i}": values for i, values in enumerate(scope.values())}

    def within(alias: str) -> str:
        return "".join(f" AND {alias}.{column} IN (SELECT unnest($s{i}))" for i, column in enumerate(scope))

    retired = con.execute(
        f"""UPDATE {history.versions} AS v SET valid_to = $at, valid_to_run_id = $run
            WHERE v.valid_to IS NULL {within('v')}
              AND NOT EXISTS (SELECT 1 FROM {history.table} c WHERE {history.live} AND {same})""",
        {**params, "at": at, "run": run_id},
    ).fetchall()[0][0]
    opened = con.execute(
        f"""INSERT INTO {history.versions} BY NAME
            SELECT {', '.join(f'c.{c}' for c in copied)}, $at AS valid_from, c.run_id AS valid_from_run_id
            FROM {history.table} c
            WHERE {history.live} {within('c')}
              AND NOT EXISTS (SELECT 1 FROM {history.versions} v WHERE v.valid_to IS NULL AND {same})""",
        {**params, "at": at},
    ).fetchall()[0][0]
    return Counter(opened=opened, retired=retired)


def drift(con: duckdb.DuckDBPyConnection, history: History) -> dict[str, int]:
    """How far the history is from the current table: current rows without an identical open
    version, and open versions without their current row. Both 0 unless a writer skipped
    `record_versions`."""
    same = _same(history, _shared(con, history)[1])
    unversioned, orphaned = con.execute(
        f"""SELECT (SELECT count(*) FROM {history.table} c WHERE {history.live}
                      AND NOT EXISTS (SELECT 1 FROM {history.versions} v WHERE v.valid_to IS NULL AND {same})),
                   (SELECT count(*) FROM {history.versions} v WHERE v.valid_to IS NULL
                      AND NOT EXISTS (SELECT 1 FROM {history.table} c WHERE {history.live} AND {same}))"""
    ).fetchall()[0]
    return {"current_rows_without_version": unversioned, "open_versions_without_current_row": orphaned}


def version_rows(con: duckdb.DuckDBPyConnection, history: History) -> int:
    return con.execute(f"SELECT count(*) FROM {history.versions}").fetchall()[0][0]


# --------------------------------------------------------------------------- migration


def _existing_tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {r[0] for r in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main'"
    ).fetchall()}


def create_history(con: duckdb.DuckDBPyConnection, history: History, at: datetime) -> None:
    """Create `history.versions` and backfill it from the current table, in one transaction."""
    copied = [c for c in _columns(con, history.table) if c not in history.state]
    select = ", ".join(f"c.{c}" for c in copied)
    with transaction(con):
        con.execute(
            f"""CREATE TABLE {history.versions} AS
                SELECT {select}, NULL::TIMESTAMPTZ AS valid_from, NULL::VARCHAR AS valid_from_run_id,
                       NULL::TIMESTAMPTZ AS valid_to, NULL::VARCHAR AS valid_to_run_id
                FROM {history.table} c LIMIT 0""")
        con.execute(f"ALTER TABLE {history.versions} ALTER COLUMN valid_from SET NOT NULL")
        con.execute(
            f"""INSERT INTO {history.versions} BY NAME
                SELECT {select}, {history.born} AS valid_from, {history.born_run} AS valid_from_run_id,
                       CASE WHEN NOT ({history.live}) THEN {history.ended} END AS valid_to,
                       CASE WHEN NOT ({history.live}) THEN {history.ended_run} END AS valid_to_run_id
                FROM {history.table} c""",
            {"at": at},
        )


# The manifest lists a build's chunk ids in record order, static before dynamic
# (advisor/index_build/records.py orders by collection descending): the first `chunks_static` are static.
_BUILD_CHUNKS_BACKFILL = """
INSERT INTO index_build_chunks
SELECT b.build_id, u.chunk_id, CASE WHEN u.n <= b.chunks_static THEN 'static' ELSE 'dynamic' END
FROM index_builds b,
     unnest(from_json(b.manifest -> '$.lineage.chunk_ids', '["VARCHAR"]')) WITH ORDINALITY AS u(chunk_id, n)
WHERE NOT EXISTS (SELECT 1 FROM index_build_chunks x WHERE x.build_id = b.build_id)
"""

# built_at has whole seconds; the build id starts with the microsecond it was written
# (advisor/index/layout.py), which orders it after a chunk written in the same second.
_BUILDS_AS_OF = """SELECT build_id, built_at, run_id, annotator,
       coalesce(timezone('UTC', try_strptime(split_part(build_id, '-', 1), '%Y%m%dT%H%M%S%fZ')), built_at) AS as_of
FROM index_builds"""

VIEWS = """
CREATE OR REPLACE VIEW chunk_lineage AS  -- one row per chunk version, with what it was cut from
SELECT c.chunk_id, c.text, c.heading_path, c.position, c.title, c.kind, c.collection, c.indexed_text,
       c.valid_from, c.valid_to, c.valid_from_run_id AS chunked_by_run, c.valid_to_run_id AS retired_by_run,
       c.doc_url, c.doc_id, d.text_hash AS doc_text_hash, d.title AS doc_title,
       d.valid_from AS doc_valid_from, d.valid_to AS doc_valid_to, d.run_id AS cleaned_by_run, d.cleaner_version,
       d.source_url, r.content_hash, r.fetched_at, r.http_status, r.storage_path, r.run_id AS fetched_by_run
FROM chunk_versions c
-- the document version current when the chunk was cut, the fetch current when that was parsed
ASOF LEFT JOIN document_versions d
       ON d.url = c.doc_url AND d.text_hash = c.doc_text_hash AND c.valid_from >= d.valid_from
ASOF LEFT JOIN raw_document_versions r
       ON r.url = d.source_url AND r.content_hash = d.content_hash AND d.valid_from >= r.valid_from;

CREATE OR REPLACE VIEW build_chunk_lineage AS  -- every chunk of every index build, as it was then
WITH builds AS ({builds})
SELECT b.build_id, i.built_at, i.run_id AS build_run_id, b.chunk_id, b.collection,
       l.* EXCLUDE (chunk_id, collection)
FROM index_build_chunks b JOIN builds i USING (build_id)
ASOF LEFT JOIN chunk_lineage l ON l.chunk_id = b.chunk_id AND i.as_of >= l.valid_from;

CREATE OR REPLACE VIEW build_chunk_annotations AS  -- the annotations each build filtered by
WITH builds AS ({builds})
SELECT b.build_id, b.chunk_id, a.annotator, a.annotator_version, a.attribute, a.value_set, a.range_min,
       a.range_max, a.needed, a.valid_from, a.valid_to, a.valid_from_run_id AS annotated_by_run
FROM index_build_chunks b JOIN builds i USING (build_id)
JOIN chunk_annotation_versions a
  ON a.chunk_id = b.chunk_id AND a.annotator = i.annotator
 AND a.valid_from <= i.as_of AND (a.valid_to IS NULL OR a.valid_to > i.as_of);
""".replace("{builds}", _BUILDS_AS_OF)


def ensure_history(con: duckdb.DuckDBPyConnection) -> None:
    """Create and backfill what is missing (a lakehouse from before versioning), list the chunks of
    builds that have no rows in `index_build_chunks` yet, and (re)create the views."""
    existing = _existing_tables(con)
    at = datetime.now(timezone.utc)
    for history in HISTORIES:
        if history.versions not in existing:
            create_history(con, history, at)
    with transaction(con):
        con.execute(_BUILD_CHUNKS_BACKFILL)
    con.execute(VIEWS)
