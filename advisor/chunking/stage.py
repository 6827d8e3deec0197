"""The chunking stage: cut the active documents into chunks, incrementally, with a Kiwi token cache.

A document is re-chunked only when its text or the chunker changed; chunks of documents that are
no longer active (removed, expired, consolidated) are dropped from `chunks`, and retired, not
lost, in `chunk_versions` (written in the same transaction). Kiwi content morphemes are computed
once per chunk text (and tokenizer version) and kept in `chunk_tokens`.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone

import duckdb

from advisor.chunking import chunker, keywords, model
from advisor.chunking.token_cache import cached_tokens, tokenizer_for, tokenizer_version_for
from advisor.config import InstitutionConfig
from advisor.lakehouse import delete_where_in, insert_rows, scalar, transaction
from advisor.lakehouse.history import CHUNKS, record_versions
from advisor.versioning import code_version, text_hash

DOCUMENT_COLUMNS = """doc_id, url, source, kind, collection, published_on, title, breadcrumbs, headings,
                      text, question, answer, page_spans, text_hash"""


@dataclass
class ChunkReport:
    documents_chunked: int = 0
    documents_unchanged: int = 0
    documents_dropped: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0
    tokens_computed: int = 0
    tokens_cached: int = 0
    per_kind: Counter = field(default_factory=Counter)
    versions: Counter = field(default_factory=Counter)  # chunk versions opened / retired


def chunker_version(config: InstitutionConfig) -> str:
    digest = code_version(chunker, keywords, model)
    key = f"{digest}|{config.pipeline.chunk_max_chars}|{tokenizer_version_for(config)}"
    return hashlib.sha256(key.encode()).hexdigest()[:12]


def build_chunks(config: InstitutionConfig, con: duckdb.DuckDBPyConnection, run_id: str) -> ChunkReport:
    report = ChunkReport()
    version = chunker_version(config)
    docs = con.sql(f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE status = 'active' ORDER BY url").pl().to_dicts()
    chunked = {r[0]: (r[1], r[2]) for r in con.execute(
        "SELECT doc_id, any_value(doc_text_hash), any_value(chunker_version) FROM chunks GROUP BY doc_id").fetchall()}

    todo = [d for d in docs if chunked.get(d["doc_id"]) != (d["text_hash"], version)]
    report.documents_unchanged = len(docs) - len(todo)
    gone = set(chunked) - {d["doc_id"] for d in docs}
    report.documents_dropped = len(gone)

    new_chunks, owners = [], []
    tokenizer = tokenizer_for(config) if todo else None  # Kiwi starts only when there is work
    for doc in todo:
        pieces = chunker.chunk_document(doc, tokenizer.split_sentences, max_chars=config.pipeline.chunk_max_chars)
        new_chunks.extend(pieces)
        owners.extend([doc] * len(pieces))
    report.documents_chunked = len(todo)

    if new_chunks:
        # Keywords are distinctive against the whole corpus, so IDF counts the kept chunks too.
        kept = con.execute(
            "SELECT text FROM chunks WHERE doc_id NOT IN (SELECT unnest(?))", [[d["doc_id"] for d in todo] + sorted(gone)]
        ).fetchall()
        tokens = cached_tokens(con, tokenizer, [c.text for c in new_chunks] + [row[0] for row in kept], report)
        new_chunks = keywords.assign_keywords(new_chunks, tokens[: len(new_chunks)], background=tokens[len(new_chunks):])

    rows = [_row(chunk, doc, version, run_id) for chunk, doc in zip(new_chunks, owners)]
    for row in rows:
        report.per_kind[row["kind"]] += 1
    replaced = [d["doc_id"] for d in todo] + sorted(gone)
    with transaction(con):
        report.chunks_removed = scalar(con,
            "SELECT count(*) FROM chunks WHERE doc_id IN (SELECT unnest(?))", [replaced])
        delete_where_in(con, "chunks", "doc_id", replaced)
        insert_rows(con, "chunks", rows)
        report.versions += record_versions(con, CHUNKS, datetime.now(timezone.utc), run_id, {"doc_id": replaced})
    report.chunks_added = len(rows)
    return report


def _row(chunk: model.Chunk, doc: dict, version: str, run_id: str) -> dict:
    return {
        "chunk_id": chunk.chunk_id,
        "doc_id": chunk.doc_id,
        "doc_url": chunk.doc_url,
        "source": doc["source"],
        "kind": doc["kind"],
        "collection": doc["collection"],
        "published_on": doc["published_on"],
        "position": chunk.position,
        "text": chunk.text,
        "indexed_text": chunk.indexed_text(),
        "text_hash": text_hash(chunk.text),
        "heading_path": list(chunk.heading_path),
        "page": chunk.page,
        "start_offset": chunk.start_offset,
        "topic": chunk.topic,
        "subtopic": chunk.subtopic,
        "title": chunk.title,
        "keywords": list(chunk.keywords),
        "doc_text_hash": doc["text_hash"],
        "chunker_version": version,
        "run_id": run_id,
    }
