"""Index records from the lakehouse: chunks + their cached Kiwi tokens + one annotator's
annotations, in the shape `build.write_build` takes. Used at build time only (the serving side
never opens DuckDB)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from datetime import timedelta

import duckdb

from advisor.index import fields

_CHUNKS = """
SELECT c.chunk_id, c.collection, c.doc_url, c.title, c.text, c.indexed_text, c.published_on, c.kind,
       c.heading_path, c.page, t.tokens, c.source
FROM chunks c LEFT JOIN chunk_tokens t ON t.text_hash = c.text_hash AND t.tokenizer_version = ?
ORDER BY c.collection DESC, c.doc_url, c.position
"""


def records_from_lakehouse(con: duckdb.DuckDBPyConnection, schema: fields.Schema, annotator: str = "rules",
                           tokenizer_version: str | None = None, expiry: Mapping[str, int] | None = None) -> list[dict]:
    """One record per chunk. Tokens are those of the chunk's raw text (chunk_tokens is keyed by
    chunks.text_hash); `tokenizer_version` None: the only one stored (ambiguous -> error).
    `expiry`: source -> its expire_after_days; a notice's record gets `expires_on` (`expires_on`)."""
    version = tokenizer_version or _only_tokenizer_version(con)
    columns = ["chunk_id", "collection", "doc_url", "title", "text", "indexed_text", "published_on", "kind",
               "heading_path", "page", "tokens", "source"]
    rows = [dict(zip(columns, row)) for row in con.execute(_CHUNKS, [version]).fetchall()]
    for row in rows:
        row["expires_on"] = expires_on(row, expiry or {})
    missing = [r["chunk_id"] for r in rows if r["tokens"] is None]
    if missing:
        raise ValueError(f"{len(missing)} chunks have no tokens for tokenizer {version} (e.g. {missing[0]})")
    annotations = _annotations(con, schema, annotator)
    for row in rows:
        row["applies_to"] = annotations.get(row["chunk_id"], {})
    return rows


def expires_on(record: Mapping, expiry: Mapping[str, int]):
    """The last day a notice may be cited: its posted date + its source's expire_after_days, the
    documents stage's rule (advisor/ingest/documents.py, compute_statuses: expired once
    published_on < today - days) carried into the build, so that serving applies it on every later
    day too (advisor/retrieval/retriever.py). None for what never expires."""
    days = expiry.get(record.get("source"))
    if record.get("kind") != "notice" or not days or record.get("published_on") is None:
        return None
    return record["published_on"] + timedelta(days=days)


def _only_tokenizer_version(con) -> str:
    versions = [v for (v,) in con.execute("SELECT DISTINCT tokenizer_version FROM chunk_tokens").fetchall()]
    if len(versions) != 1:
        raise ValueError(f"pass tokenizer_version: chunk_tokens holds {len(versions)} versions {versions}")
    return versions[0]


def _annotations(con, schema: fields.Schema, annotator: str) -> dict[str, dict]:
    result: dict[str, dict] = defaultdict(dict)
    query = "SELECT chunk_id, attribute, value_set, range_min, range_max FROM chunk_annotations WHERE annotator = ?"
    for chunk_id, attribute, value_set, low, high in con.execute(query, [annotator]).fetchall():
        if attribute not in schema:
            continue
        if fields.is_categorical(schema[attribute]):
            result[chunk_id][attribute] = list(value_set) if value_set else None
        else:
            # one-sided ranges ("2020학번 이후") are closed with the schema's bound
            bounds = schema[attribute]
            result[chunk_id][attribute] = None if low is None and high is None else [
                bounds.min if low is None else low, bounds.max if high is None else high]
    return dict(result)


# ----------------------------------------------------------------------------- source snapshots

_DOCUMENTS = """
SELECT url, title, text, source, kind, source_url, fetched_at, published_on, updated_on
FROM documents WHERE url IN (SELECT unnest(?::VARCHAR[]))
ORDER BY url
"""


def source_rows_from_lakehouse(con: duckdb.DuckDBPyConnection, records: list[dict]) -> list[dict]:
    """One snapshot row per document the build's chunks come from (writer.SOURCES_SCHEMA): the cleaned
    text as the `documents` table holds it (structure kept), where and when it was fetched, the dates
    it states (posted, updated), and each chunk's span in that text, so a citation can open the
    saved copy, highlight the passage and say how old it is."""
    by_doc: dict[str, list[dict]] = defaultdict(list)
    for record in records:
        by_doc[record["doc_url"]].append(record)
    offsets = dict(con.execute("SELECT chunk_id, start_offset FROM chunks WHERE chunk_id IN (SELECT unnest(?::VARCHAR[]))",
                               [[r["chunk_id"] for r in records]]).fetchall())
    columns = ["doc_url", "title", "text", "source", "kind", "source_url", "fetched_at", "published_on", "updated_on"]
    rows = []
    for values in con.execute(_DOCUMENTS, [sorted(by_doc)]).fetchall():
        row = dict(zip(columns, values))
        spans = [(r["chunk_id"], *chunk_span(row["text"], r["text"], offsets.get(r["chunk_id"])))
                 for r in by_doc[row["doc_url"]]]
        row.update(chunk_ids=[s[0] for s in spans], chunk_starts=[s[1] for s in spans], chunk_ends=[s[2] for s in spans])
        rows.append(row)
    return rows


def chunk_span(doc_text: str, chunk_text: str, start: int | None) -> tuple[int | None, int | None]:
    """Where the chunk's body lies in its document's text. The body is an exact slice starting at
    `start` (advisor/chunking/chunker.py), but a repeated context line (a caption, an FAQ question)
    may precede it in the chunk, separated by a newline; (None, None) when neither matches."""
    if start is None or not 0 <= start <= len(doc_text):
        return None, None
    for body in (chunk_text, chunk_text.split("\n", 1)[-1]):
        if body and doc_text.startswith(body, start):
            return start, start + len(body)
    return None, None
