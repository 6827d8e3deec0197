"""Chunk annotations in the lakehouse: build annotator inputs, write and read the long table.

`chunk_annotations` holds one row per chunk x annotator x attribute, so SQL can filter and
compare annotators directly. Work is incremental: a chunk is annotated again only when it is new
or the annotator's version changed. Every annotation a chunk ever had stays in
`chunk_annotation_versions`, written in the same transaction.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone

import duckdb

from advisor.annotation.model import (
    AnnotationFailure,
    Annotator,
    Applicability,
    ChunkAnnotation,
    ChunkContext,
)
from advisor.annotation.siblings import CorpusDocument
from advisor.config import CategoricalAttribute, InstitutionConfig
from advisor.lakehouse import insert_rows, transaction
from advisor.lakehouse.history import ANNOTATIONS, record_versions

LEAD_CHARS = 400


@dataclass
class AnnotationReport:
    annotator: str
    version: str
    annotated: int = 0
    unchanged: int = 0
    removed: int = 0
    failures: list[dict] = field(default_factory=list)
    restricted: dict = field(default_factory=dict)  # attribute -> chunks it restricts
    versions: Counter = field(default_factory=Counter)  # annotation versions opened / retired


def chunk_contexts(con: duckdb.DuckDBPyConnection, chunk_ids: Sequence[str] | None = None) -> list[ChunkContext]:
    """Annotator inputs joined from chunks and documents (with FAQ duplicates' page contexts)."""
    where = "" if chunk_ids is None else "WHERE c.chunk_id IN (SELECT unnest($ids))"
    rows = con.sql(
        f"""SELECT c.chunk_id, c.text, c.doc_url, d.title, c.kind, c.collection, d.breadcrumbs, c.heading_path,
                   c.published_on, substr(d.text, 1, {LEAD_CHARS}) AS lead, d.alias_urls,
                   (SELECT list(a.breadcrumbs ORDER BY a.url) FROM documents a WHERE list_contains(d.alias_urls, a.url))
                       AS alias_breadcrumbs
            FROM chunks c JOIN documents d ON d.doc_id = c.doc_id {where}
            ORDER BY c.doc_url, c.position""",
        params={"ids": list(chunk_ids)} if chunk_ids is not None else None,
    ).fetchall()
    return [
        ChunkContext(
            chunk_id=r[0], text=r[1], doc_url=r[2], doc_title=r[3] or "", kind=r[4], collection=r[5],
            breadcrumbs=tuple(r[6] or ()), heading_path=tuple(r[7] or ()), published_on=r[8], doc_lead=r[9] or "",
            alias_urls=tuple(r[10] or ()), alias_contexts=tuple(tuple(b or ()) for b in (r[11] or ())),
        )
        for r in rows
    ]


def corpus_documents(con: duckdb.DuckDBPyConnection) -> list[CorpusDocument]:
    """Every active document as the build-level comparison reads it (siblings.py)."""
    rows = con.sql("SELECT url, kind, title, text, published_on FROM active_documents ORDER BY url").fetchall()
    return [CorpusDocument(url=r[0], kind=r[1] or "", title=r[2] or "", text=r[3] or "", dated=r[4] is not None)
            for r in rows]


def annotation_rows(
    chunk_id: str, annotation: ChunkAnnotation, annotator: Annotator, config: InstitutionConfig, run_id: str
) -> list[dict]:
    rows = []
    for name, attribute in config.profile.items():
        value = annotation.applies_to.get(name)
        categorical = isinstance(attribute, CategoricalAttribute)
        rows.append({
            "chunk_id": chunk_id, "annotator": annotator.name, "annotator_version": annotator.version,
            "attribute": name,
            "value_set": list(value) if categorical and value is not None else None,
            "range_min": value[0] if not categorical and value is not None else None,
            "range_max": value[1] if not categorical and value is not None else None,
            "needed": name in annotation.needs, "run_id": run_id,
        })
    return rows


def annotate_chunks(
    config: InstitutionConfig, con: duckdb.DuckDBPyConnection, annotator: Annotator, run_id: str
) -> AnnotationReport:
    if hasattr(annotator, "read_corpus"):  # what no chunk shows alone; may change the version
        annotator.read_corpus(corpus_documents(con))
    report = AnnotationReport(annotator.name, annotator.version)
    current = {r[0] for r in con.execute("SELECT chunk_id FROM chunks").fetchall()}
    done = {r[0] for r in con.execute(
        "SELECT DISTINCT chunk_id FROM chunk_annotations WHERE annotator = ? AND annotator_version = ?",
        [annotator.name, annotator.version]).fetchall()}
    stale = {r[0] for r in con.execute(
        "SELECT DISTINCT chunk_id FROM chunk_annotations WHERE annotator = ?", [annotator.name]).fetchall()} - current
    todo = sorted(current - done)
    report.unchanged = len(current & done)

    rows, annotated = [], []
    contexts = chunk_contexts(con, todo) if todo else []
    for context, result in zip(contexts, annotator.annotate(contexts)):
        if isinstance(result, AnnotationFailure):
            # Never guessed: the chunk keeps no annotation from this annotator, and says why.
            report.failures.append({"run_id": run_id, "asset": "chunk_annotations", "source": annotator.name,
                                    "url": context.doc_url, "reason": result.reason,
                                    "detail": f"chunk {context.chunk_id}: {result.detail}",
                                    "occurred_at": datetime.now(timezone.utc)})
            continue
        annotated.append(context.chunk_id)
        rows.extend(annotation_rows(context.chunk_id, result, annotator, config, run_id))
    replaced = annotated + sorted(stale)
    with transaction(con):
        con.execute("DELETE FROM chunk_annotations WHERE annotator = ? AND chunk_id IN (SELECT unnest(?))",
                    [annotator.name, replaced])
        insert_rows(con, "chunk_annotations", rows)
        report.versions += record_versions(con, ANNOTATIONS, datetime.now(timezone.utc), run_id,
                                           {"annotator": [annotator.name], "chunk_id": replaced})
    report.annotated, report.removed = len(annotated), len(stale)
    report.restricted = dict(con.execute(
        "SELECT attribute, count(*) FROM chunk_annotations WHERE annotator = ? AND (value_set IS NOT NULL OR range_min IS NOT NULL) "
        "GROUP BY attribute ORDER BY attribute", [annotator.name]).fetchall())
    return report


def load_annotations(con: duckdb.DuckDBPyConnection, annotator: str, config: InstitutionConfig) -> dict[str, Applicability]:
    """chunk_id -> applies_to, as the annotator stored it."""
    result: dict[str, Applicability] = {}
    for chunk_id, attribute, value_set, low, high in con.execute(
        "SELECT chunk_id, attribute, value_set, range_min, range_max FROM chunk_annotations WHERE annotator = ?",
        [annotator],
    ).fetchall():
        if attribute not in config.profile:
            continue
        value = sorted(value_set) if value_set is not None else ([low, high] if low is not None else None)
        result.setdefault(chunk_id, dict.fromkeys(config.profile))[attribute] = value
    return result
