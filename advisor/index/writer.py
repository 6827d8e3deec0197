"""Write one index build (docs/method.md §A.5): per collection (static, dynamic) a BM25
index over Kiwi content morphemes (tantivy) with the profile annotation as filter fields, a dense
index (usearch, cosine) plus the raw vectors for exact search, and a chunk store the serving side
reads without DuckDB. The folder is written under a temporary name and published atomically
(layout.py, which also names every file of a build), so serving only ever sees complete builds.
The chunk store has one row per chunk: text, URL, title, annotation, dates, ... + (collection, row).
The dialogue's artifacts (faq/, intent/, serving.json) are added by serving_artifacts.py, via `finalize`.
With `sources`, the build also keeps a snapshot of every source document (SOURCES_FILE): what a
citation opens when the original page is unreachable; it is not indexed and changes no retrieval.

The chunk store keeps each chunk's index tokens, so a reader can index the same chunks under other
labels (advisor/index/relabel.py: the evaluation's true-label system) without Kiwi.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import asdict, dataclass, field, replace
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import polars as pl
import tantivy
from usearch.index import Index as UsearchIndex
from usearch.index import MetricKind

from advisor.index import fields, layout
from advisor.index.layout import (
    AUGMENTED_DIR,
    CHUNKS_FILE,
    COLLECTIONS,
    EMBEDDER_DIR,
    FORMAT_VERSION,
    MANIFEST,
    SOURCES_FILE,
    TANTIVY_DIR,
    VECTORS_NPY,
    VECTORS_USEARCH,
)

CHUNK_SCHEMA = {
    "chunk_id": pl.String, "collection": pl.String, "row": pl.Int64, "doc_url": pl.String,
    "title": pl.String, "text": pl.String, "indexed_text": pl.String, "published_on": pl.Date,
    "kind": pl.String, "heading_path": pl.List(pl.String), "page": pl.Int64, "applies_to": pl.String,
    "tokens": pl.List(pl.String),
    # a notice's last citable day (published_on + its source's expire_after_days; null: never
    # expires); retrieval leaves it out after that day. Absent in builds made before it existed.
    "expires_on": pl.Date,
}

# One row per source document (advisor/index_build/records.py makes them); chunk_starts/ends: each chunk's
# body in `text` (null when it could not be located), parallel to chunk_ids.
SOURCES_SCHEMA = {
    "doc_url": pl.String, "title": pl.String, "text": pl.String, "source": pl.String, "kind": pl.String,
    "source_url": pl.String, "fetched_at": pl.Datetime("us", "UTC"), "published_on": pl.Date, "updated_on": pl.Date,
    "chunk_ids": pl.List(pl.String), "chunk_starts": pl.List(pl.Int64), "chunk_ends": pl.List(pl.Int64),
}


@dataclass(frozen=True)
class Augmented:
    """URAG-D (docs/method.md §B.4): every record's augmented text, its index tokens and vectors, in
    record order; written as a second set of collections beside the plain ones."""

    method: str  # "extractive" | "llm"
    texts: Sequence[str]
    tokens: Sequence[Sequence[str]]
    vectors: np.ndarray


@dataclass(frozen=True)
class BuildManifest:
    build_id: str
    built_at: str
    format_version: int
    counts: dict[str, int]
    schema: dict
    embedder: dict
    lineage: dict
    files: dict = field(default_factory=dict)
    serving: dict = field(default_factory=dict)  # the dialogue's artifacts: FAQ store, intent model, thresholds
    directory: str = ""  # where it was published (not stored in manifest.json: builds may move)

    def to_json(self) -> dict:
        data = asdict(self)
        data.pop("directory")
        return data


def write_build(
    records: Sequence[Mapping[str, Any]],
    vectors: np.ndarray,
    embedder,
    schema: Mapping,
    builds_root: Path,
    lineage: Mapping[str, Any],
    keep: int = 5,
    finalize: Callable[[Path, str], dict] | None = None,
    augmented: Augmented | None = None,
    sources: Sequence[Mapping[str, Any]] | None = None,
    reuse: Mapping[str, Path] | None = None,
    hnsw_above: int | None = 0,
) -> BuildManifest:
    """Write, publish as LATEST and prune. On any error nothing is published and the temporary
    folder is removed; LATEST and earlier builds are untouched.

    `finalize(folder, build_id)` runs on the written (not yet published) build: what it adds to
    the folder is published with it, and the dict it returns is the manifest's "serving" entry
    (the dialogue's artifacts are made from the finished indexes, so they come last).

    `reuse`: collection -> an earlier build whose folder of that collection (and its augmented
    twin) holds exactly these rows and vectors: linked instead of indexed again (advisor/index_build/delta.py).
    `hnsw_above`: a collection with more rows gets the usearch HNSW index (None: none does; the
    retrieval config decides, `advisor.config.hnsw_above`: an index no search reads is not built)."""
    builds_root = Path(builds_root)
    builds_root.mkdir(parents=True, exist_ok=True)
    vectors = _check_inputs(records, vectors, embedder)
    if augmented is not None:
        augmented = replace(augmented, vectors=_check_augmented(records, augmented, embedder))
    schema = dict(schema)
    build_id = layout.new_build_id(_content_hash(records, vectors, embedder, lineage, augmented))
    tmp = layout.tmp_dir(builds_root, build_id)
    try:
        tmp.mkdir()
        manifest = _write_contents(tmp, build_id, records, vectors, embedder, schema, lineage, augmented, sources,
                                   reuse or {}, hnsw_above)
        if finalize is not None:
            manifest = replace(manifest, serving=_jsonable(finalize(tmp, build_id)))
            _write_manifest(tmp, manifest)
        final = layout.publish(builds_root, tmp, build_id)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    layout.prune(builds_root, keep)
    return BuildManifest(**{**manifest.to_json(), "directory": str(final)})


def _write_contents(tmp: Path, build_id: str, records, vectors, embedder, schema, lineage,
                    augmented: Augmented | None, sources, reuse: Mapping[str, Path],
                    hnsw_above: int | None) -> BuildManifest:
    rows = _chunk_rows(records, schema)
    counts = {}
    files: dict[str, Any] = {"chunks": CHUNKS_FILE, "embedder": EMBEDDER_DIR, "collections": list(COLLECTIONS)}
    for collection in COLLECTIONS:
        positions = [i for i, r in enumerate(rows) if r["collection"] == collection]
        counts[collection] = len(positions)
        if collection in reuse:
            layout.link_tree(reuse[collection] / collection, tmp / collection)
            if augmented is not None:
                (tmp / AUGMENTED_DIR).mkdir(exist_ok=True)
                layout.link_tree(reuse[collection] / AUGMENTED_DIR / collection, tmp / AUGMENTED_DIR / collection)
            continue
        hnsw = hnsw_above is not None and len(positions) > hnsw_above
        _write_collection(tmp / collection, [rows[i] for i in positions], [rows[i]["tokens"] for i in positions],
                          vectors[positions], schema, hnsw)
        if augmented is not None:
            _write_collection(tmp / AUGMENTED_DIR / collection, [rows[i] for i in positions],
                              [augmented.tokens[i] for i in positions], augmented.vectors[positions], schema, hnsw)
    if augmented is not None:
        files["augmented"] = {"method": augmented.method, "collections": list(COLLECTIONS)}
    if sources is not None:
        _write_sources(tmp, records, sources)
        files["sources"] = SOURCES_FILE
    pl.DataFrame(rows, schema=CHUNK_SCHEMA).write_parquet(tmp / CHUNKS_FILE)
    embedder.save(tmp / EMBEDDER_DIR)
    manifest = BuildManifest(
        build_id=build_id,
        built_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        format_version=FORMAT_VERSION,
        counts=counts,
        schema=fields.schema_to_json(schema),
        embedder={"name": embedder.name, "version": embedder.version, "dim": int(embedder.dim)},
        lineage=_jsonable(dict(lineage)),
        files=files,
    )
    # Written last: a folder with a manifest is a finished one (useful when inspecting by hand).
    _write_manifest(tmp, manifest)
    return manifest


def _write_sources(folder: Path, records, sources) -> None:
    """The snapshots, checked to cover every chunk: a citation must always find its document."""
    covered = {chunk_id for row in sources for chunk_id in row.get("chunk_ids") or []}
    missing = [r["chunk_id"] for r in records if r["chunk_id"] not in covered]
    if missing:
        raise ValueError(f"{len(missing)} chunks have no source snapshot (e.g. {missing[0]})")
    rows = [{name: row.get(name) for name in SOURCES_SCHEMA} for row in sources]
    pl.DataFrame(rows, schema=SOURCES_SCHEMA).write_parquet(folder / SOURCES_FILE)


def _write_manifest(folder: Path, manifest: BuildManifest) -> None:
    (folder / MANIFEST).write_text(json.dumps(manifest.to_json(), ensure_ascii=False, indent=2), encoding="utf-8")


# --------------------------------------------------------------------------- inputs

def _check_inputs(records, vectors, embedder) -> np.ndarray:
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    if vectors.ndim != 2 or vectors.shape[0] != len(records):
        raise ValueError(f"vectors must be (len(records), dim); got {vectors.shape} for {len(records)} records")
    if vectors.shape[1] != embedder.dim:
        raise ValueError(f"vectors have dim {vectors.shape[1]}, the embedder {embedder.dim}")
    ids = [r["chunk_id"] for r in records]
    if len(set(ids)) != len(ids):
        raise ValueError("chunk_id values are not unique")
    unknown = {r["collection"] for r in records} - set(COLLECTIONS)
    if unknown:
        raise ValueError(f"unknown collection(s): {sorted(unknown)}")
    return vectors


def _check_augmented(records, augmented: Augmented, embedder) -> np.ndarray:
    vectors = np.ascontiguousarray(augmented.vectors, dtype=np.float32)
    if not len(augmented.texts) == len(augmented.tokens) == vectors.shape[0] == len(records):
        raise ValueError("augmented texts, tokens and vectors must have one row per record")
    if vectors.shape[1] != embedder.dim:
        raise ValueError(f"augmented vectors have dim {vectors.shape[1]}, the embedder {embedder.dim}")
    return vectors


def _chunk_rows(records, schema) -> list[dict]:
    rows, next_row = [], dict.fromkeys(COLLECTIONS, 0)
    for record in records:
        collection = record["collection"]
        applies_to = fields.canonical_applies_to(record.get("applies_to"), schema)
        rows.append({
            "chunk_id": record["chunk_id"], "collection": collection, "row": next_row[collection],
            "doc_url": record.get("doc_url"), "title": record.get("title"), "text": record.get("text") or "",
            "indexed_text": record.get("indexed_text") or "", "published_on": _as_date(record.get("published_on")),
            "kind": record.get("kind"), "heading_path": list(record.get("heading_path") or []),
            "page": record.get("page"), "applies_to": fields.applies_to_json(applies_to),
            "tokens": [t for t in record.get("tokens") or [] if t and not t.isspace()],
            "expires_on": _as_date(record.get("expires_on")),
        })
        next_row[collection] += 1
    return rows


def _as_date(value) -> date | None:
    if value is None or isinstance(value, date) and not isinstance(value, datetime):
        return value
    if isinstance(value, datetime):
        return value.date()
    return date.fromisoformat(str(value)[:10])


def _content_hash(records, vectors: np.ndarray, embedder, lineage, augmented: Augmented | None = None) -> str:
    digest = hashlib.sha256()
    for record in records:
        digest.update(json.dumps([record["chunk_id"], record.get("indexed_text"), record.get("text"),
                                  list(record.get("tokens") or []), record.get("applies_to")],
                                 ensure_ascii=False, sort_keys=True, default=str).encode())
    digest.update(vectors.tobytes())
    digest.update(f"{embedder.name}|{embedder.version}".encode())
    digest.update(json.dumps(_jsonable(dict(lineage)), sort_keys=True).encode())
    if augmented is not None:
        digest.update(json.dumps([augmented.method, list(augmented.texts)], ensure_ascii=False).encode())
    return digest.hexdigest()


def _jsonable(value):
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


# --------------------------------------------------------------------------- one collection

def _write_collection(directory: Path, rows: list[dict], tokens: list, vectors: np.ndarray, schema: Mapping,
                      hnsw: bool) -> None:
    (directory / TANTIVY_DIR).mkdir(parents=True)
    bm25_index(directory / TANTIVY_DIR, rows, tokens, schema)
    np.save(directory / VECTORS_NPY, vectors)
    if len(rows) and hnsw:
        index = UsearchIndex(ndim=vectors.shape[1], metric=MetricKind.Cos, dtype="f32")
        index.add(np.arange(len(rows), dtype=np.uint64), vectors)
        index.save(str(directory / VECTORS_USEARCH))


def bm25_index(directory: Path | None, rows: list[dict], tokens: list, schema: Mapping) -> tantivy.Index:
    """The BM25 index of `rows` (in RAM when `directory` is None), committed."""
    index = tantivy.Index(fields.tantivy_schema(schema), path=None if directory is None else str(directory))
    fields.register_tokenizer(index)
    # One thread: one segment in insertion order, and a deterministic index for the same input.
    writer = index.writer(heap_size=64_000_000, num_threads=1)
    for row, row_tokens in zip(rows, tokens):
        writer.add_document(_document(row, row_tokens, schema))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return index


def _document(row: dict, tokens: Sequence[str], schema: Mapping) -> tantivy.Document:
    doc = tantivy.Document()
    doc.add_integer(fields.ROW_FIELD, row["row"])
    doc.add_text(fields.BODY_FIELD, " ".join(t for t in tokens if t and not t.isspace()))
    applies_to = json.loads(row["applies_to"])
    for name, attribute in schema.items():
        value = applies_to.get(name)
        if fields.is_categorical(attribute):
            for item in value or [fields.ANY]:
                doc.add_text(fields.cat_field(name), item)
        else:
            low, high = value if value is not None else (fields.NULL_MIN, fields.NULL_MAX)
            doc.add_integer(fields.min_field(name), int(low))
            doc.add_integer(fields.max_field(name), int(high))
    return doc
