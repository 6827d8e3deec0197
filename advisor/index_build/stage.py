"""Build and publish an index build from the lakehouse (the `index_build` asset's logic).

Inputs: chunks, their cached Kiwi tokens, one annotator's annotations, and the URAG-D augmented
texts. BM25 sees the indexed text (the topic / title / keyword prefix, then the chunk: the prefix
helps lexical matching, docs/method.md §A.3); the embedder sees the same text. Beside the plain indexes the
build holds a second set over the augmented texts (URAG-D, docs/method.md §B.4: what the `urag` system
searches), with the LLM's rewriting where there is one, else the extractive summary. An unchanged input (same chunks, annotations, tokenizer,
embedder choice and code) publishes nothing new: the latest build already serves it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import numpy as np

from advisor.chunking import kiwi_tokens
from advisor.chunking.token_cache import cached_tokens, tokenizer_for, tokenizer_version_for
from advisor.config import InstitutionConfig, hnsw_above
from advisor.faq import calibrate, fit, match, paraphrase, store
from advisor.index import layout, writer
from advisor.index.embedders import LOCAL_EMBEDDERS, load_embedder
from advisor.index.store import latest_build_dir
from advisor.index_build import delta, serving_artifacts
from advisor.index_build import records as index_records
from advisor.intents import classifier
from advisor.intents.dataset import load_intent_examples
from advisor.lakehouse import insert_rows, latest_run, scalar
from advisor.versioning import code_version


@dataclass
class BuildOutcome:
    build_id: str
    directory: Path
    published: bool  # False: the inputs were unchanged and the latest build was kept
    counts: dict
    seconds: float
    serving: dict = field(default_factory=dict)  # the manifest's "serving" entry: FAQ store, threshold, intent model
    delta_of: str | None = None  # the build whose static side a delta build reuses (advisor/index_build/delta.py)


def input_fingerprint(con: duckdb.DuckDBPyConnection, annotator: str, common: str,
                      expiry: dict[str, int] | None = None) -> str:
    """What a build depends on: if this is unchanged, so is the build. `common`: `common_fingerprint`;
    `expiry`: the sources' expire_after_days (the chunk store's `expires_on` follows them)."""
    digest = hashlib.sha256()
    for part in (
        common,
        json.dumps(expiry or {}, sort_keys=True),
        scalar(con, "SELECT string_agg(chunk_id || text_hash || indexed_text, '|' ORDER BY chunk_id) FROM chunks"),
        scalar(con, """SELECT string_agg(concat_ws(',', chunk_id, attribute, annotator_version, value_set::VARCHAR,
                                          range_min, range_max), '|' ORDER BY chunk_id, attribute)
                       FROM chunk_annotations WHERE annotator = ?""", [annotator]),
        scalar(con, "SELECT string_agg(chunk_id || method || md5(augmented_text), '|' ORDER BY chunk_id, method) "
                    "FROM chunk_augmentations"),
    ):
        digest.update(str(part).encode())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def common_fingerprint(con: duckdb.DuckDBPyConnection, tokenizer_version: str, embedder_choice: str,
                       enrichment: str = "off") -> str:
    """What every part of a build depends on besides its chunks: code, tokenizer, embedder choice,
    the intent dataset, FAQ enrichment."""
    parts = (enrichment, scalar(con, "SELECT any_value(dataset_version) FROM intent_examples"),
             _serving_code_version(), tokenizer_version, embedder_choice, code_version(writer, index_records, delta))
    return hashlib.sha256("\0".join(str(p) for p in parts).encode()).hexdigest()[:16]


def expiry_days(config: InstitutionConfig) -> dict[str, int]:
    """source -> expire_after_days, for the sources that have one."""
    return {s.name: s.expire_after_days for s in config.sources if s.expire_after_days}


def _serving_code_version() -> str:
    # everything that decides the FAQ store, its scorer and threshold, and the intent model: the key
    # words both are read with included (kiwi_tokens.key_words), not only the modules that call them
    return code_version(serving_artifacts, classifier, calibrate, paraphrase, store, fit, match, kiwi_tokens)


def _augmented(con: duckdb.DuckDBPyConnection, tokenizer, records: list[dict], embedder, vectors) -> writer.Augmented:
    """Each record's URAG-D text (the LLM's rewriting where there is one, else the extractive one;
    a chunk not augmented yet keeps its indexed text), tokenized through the token cache. The e5
    encoder embeds a passage's head, which for an augmented text is its document's summary, the
    same for every chunk of the document: its augmented index keeps the chunks' own vectors (their
    heads hold the title and headings already), and the summary reaches the BM25 side."""
    chosen = dict(con.execute("""SELECT chunk_id, arg_max(augmented_text, method = 'llm') FROM chunk_augmentations
                                 GROUP BY chunk_id""").fetchall())
    methods = sorted({m for (m,) in con.execute("SELECT DISTINCT method FROM chunk_augmentations").fetchall()})
    texts = [chosen.get(r["chunk_id"], r["indexed_text"]) for r in records]
    tokens = [[form for form, _ in found] for found in cached_tokens(con, tokenizer, texts)]
    augmented_vectors = vectors if embedder.name == "e5" else embedder.embed(texts, tokens)
    return writer.Augmented("+".join(methods) or "none", texts, tokens, augmented_vectors)


def _holds_static_vectors(base: Path, records: list[dict], vectors) -> bool:
    """Does the base's static collection hold these very vectors, in this order?"""
    static = [i for i, r in enumerate(records) if r["collection"] == delta.STATIC]
    stored = np.load(base / delta.STATIC / layout.VECTORS_NPY)
    return stored.shape == vectors[static].shape and np.array_equal(stored, vectors[static].astype(np.float32))


def _latest_fingerprint(builds_root: Path) -> tuple[str, Path] | None:
    directory = latest_build_dir(builds_root)
    if directory is None:
        return None
    manifest = layout.read_manifest(directory)
    return manifest.get("lineage", {}).get("input_fingerprint"), directory


def build_index(
    config: InstitutionConfig,
    con: duckdb.DuckDBPyConnection,
    warehouse: Path,
    *,
    annotator: str,
    annotator_version: str,
    make_embedder,  # (texts, tokens) -> a trained or ready Embedder
    embedder_choice: str,
    run_id: str,
    enrich=None,  # URAG-F: (build, seed FAQ entries) -> Enrichment, with an LLM; see serving_artifacts
    full: bool = False,  # never a delta build (advisor/index_build/delta.py): the nightly refresh
) -> BuildOutcome:
    started = datetime.now(timezone.utc)
    builds_root = layout.builds_dir(warehouse)
    common = common_fingerprint(con, tokenizer_version_for(config), embedder_choice,
                                "llm" if enrich is not None else "off")
    expiry = expiry_days(config)
    fingerprint = input_fingerprint(con, annotator, common, expiry)
    latest = _latest_fingerprint(builds_root)
    if latest is not None and latest[0] == fingerprint:
        manifest = layout.read_manifest(latest[1])
        return BuildOutcome(manifest["build_id"], latest[1], False, manifest["counts"], 0.0, manifest.get("serving", {}))
    static_fingerprint = delta.static_fingerprint(con, annotator, common, config)
    base = None if full or embedder_choice not in LOCAL_EMBEDDERS else delta.delta_base(builds_root, static_fingerprint)

    tokenizer = tokenizer_for(config)
    records = index_records.records_from_lakehouse(con, config.profile, annotator=annotator,
                                                    tokenizer_version=tokenizer.version, expiry=expiry)
    prefixes = [r["indexed_text"].split("\n", 1)[0] for r in records]
    for record, prefix in zip(records, cached_tokens(con, tokenizer, prefixes)):
        record["tokens"] = [form for form, _ in prefix] + list(record["tokens"])
    texts = [r["indexed_text"] for r in records]
    tokens = [r["tokens"] for r in records]
    if base is not None:
        # a delta build embeds with the base's embedder, so its static vectors are the base's own
        embedder = load_embedder(base / layout.EMBEDDER_DIR, con)  # e5: its vectors from the lakehouse cache
        vectors = embedder.embed(texts, tokens)
        if not _holds_static_vectors(base, records, vectors):
            base = None  # the base's static vectors differ after all: build in full
    if base is None:
        embedder = make_embedder(texts, tokens)
        vectors = embedder.embed(texts, tokens)
    augmented = _augmented(con, tokenizer, records, embedder, vectors)
    reuse = {} if base is None else {delta.STATIC: base}
    lineage = {
        "run_id": run_id,
        "input_fingerprint": fingerprint,
        "static_fingerprint": static_fingerprint,
        "delta_of": None if base is None else base.name,  # the build whose static side this one reuses
        "chunks_run_id": latest_run(con, "chunks"),
        "annotations_run_id": latest_run(con, "chunk_annotations"),
        "annotator": annotator,
        "annotator_version": annotator_version,
        "tokenizer": {"version": tokenizer.version, "user_words": sorted(tokenizer.user_words)},
        "chunk_ids": [r["chunk_id"] for r in records],
        "retrieval": config.retrieval.model_dump(mode="json"),  # serving reads its knobs from here
        "institution": config.institution,
        "config_hash": config.fingerprint(),
    }
    sweep: list[dict] = []

    def finalize(folder: Path, build_id: str) -> dict:
        if base is not None:  # the FAQ store, threshold and intent model are the static side's
            return delta.reuse_serving(base, folder)
        summary, points = serving_artifacts.prepare_serving(folder, config, tokenizer, load_intent_examples(con), enrich)
        sweep.extend({**p, "build_id": build_id, "embedder": embedder.name} for p in points)
        return summary

    # A readable copy of every source document travels with the build: citations open it when the
    # original page is gone (the demo site is served only during the crawl).
    sources = index_records.source_rows_from_lakehouse(con, records)
    manifest = writer.write_build(records, vectors, embedder, config.profile, builds_root, lineage,
                                 keep=config.pipeline.keep_builds, finalize=finalize, augmented=augmented,
                                 sources=sources, reuse=reuse,
                                 hnsw_above=hnsw_above(config.retrieval.dense_exact, config.retrieval.dense_exact_max_rows))
    insert_rows(con, "faq_threshold_sweep", sweep)
    insert_rows(con, "index_builds", [{
        "build_id": manifest.build_id, "built_at": datetime.fromisoformat(manifest.built_at), "path": manifest.directory,
        "run_id": run_id, "annotator": annotator, "annotator_version": annotator_version,
        "embedder": embedder.name, "embedder_version": embedder.version, "tokenizer_version": tokenizer.version,
        "chunks_run_id": lineage["chunks_run_id"], "annotations_run_id": lineage["annotations_run_id"],
        "chunks_static": manifest.counts.get("static", 0), "chunks_dynamic": manifest.counts.get("dynamic", 0),
        "manifest": json.dumps(manifest.to_json(), ensure_ascii=False, default=str),
    }])
    insert_rows(con, "index_build_chunks", [  # the build's chunks, for lineage joins (advisor/lakehouse/history.py)
        {"build_id": manifest.build_id, "chunk_id": r["chunk_id"], "collection": r["collection"]} for r in records])
    seconds = (datetime.now(timezone.utc) - started).total_seconds()
    return BuildOutcome(manifest.build_id, Path(manifest.directory), True, manifest.counts, seconds, manifest.serving,
                        lineage["delta_of"])
