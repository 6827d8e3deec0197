"""Open a published index build for serving or evaluation: tantivy indexes (tokenizer
re-registered), usearch indexes memory-mapped, the raw vectors memory-mapped, the parquet chunk
store, the embedder and the manifest. Never opens the DuckDB lakehouse (a pipeline run may hold
its write lock at any time; see docs/tech-notes.md, DuckDB).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

import numpy as np
import polars as pl
import tantivy
from usearch.index import Index as UsearchIndex

from advisor.index import fields, layout
from advisor.index.layout import latest_build_dir  # noqa: F401  (re-exported: the loading API)


@dataclass
class Collection:
    name: str
    index: tantivy.Index
    searcher: tantivy.Searcher
    vectors: np.ndarray  # (n, dim) float32, rows L2-normalized; memory-mapped
    ann: UsearchIndex | None  # HNSW over the same vectors (None when the collection is empty)
    chunks: pl.DataFrame  # chunk store rows of this collection, ordered by `row`
    chunk_ids: list[str] = field(default_factory=list)
    applies_to: list[dict] = field(default_factory=list)  # canonical annotation per row

    def __len__(self) -> int:
        return len(self.chunk_ids)

    @property
    def tantivy_schema(self) -> tantivy.Schema:
        return self.index.schema


@dataclass
class IndexBuild:
    directory: Path
    manifest: dict
    schema: fields.Schema  # the profile schema the annotations were written against
    embedder: object
    collections: dict[str, Collection]
    # URAG-D: the same chunks (same rows) indexed by their augmented text; empty when not built
    augmented: dict[str, Collection] = field(default_factory=dict)

    @property
    def build_id(self) -> str:
        return self.manifest["build_id"]

    def over(self, collections: dict[str, Collection]) -> "IndexBuild":
        """This build searching other collections of the same chunks (the augmented ones, or the
        plain ones under other labels): what a Retriever takes."""
        return replace(self, collections=collections)


def _default_loader(directory: Path):
    from advisor.index.embedders import load_embedder  # lazy: written separately, may pull heavy deps

    return load_embedder(directory)


def load_build(build_dir: Path, load_embedder: Callable[[Path], object] = _default_loader) -> IndexBuild:
    build_dir = Path(build_dir)
    manifest = layout.read_manifest(build_dir)
    if manifest.get("format_version") not in layout.READABLE_FORMATS:
        raise ValueError(f"{build_dir}: index format {manifest.get('format_version')}, this code reads "
                         f"{', '.join(map(str, layout.READABLE_FORMATS))}: materialize index_build again")
    chunks = pl.read_parquet(build_dir / layout.CHUNKS_FILE)
    per_collection = {name: chunks.filter(pl.col("collection") == name).sort("row")
                      for name in manifest["files"]["collections"]}
    augmented = (manifest["files"].get("augmented") or {}).get("collections", [])
    return IndexBuild(
        directory=build_dir,
        manifest=manifest,
        schema=fields.schema_from_json(manifest["schema"]),
        embedder=load_embedder(build_dir / layout.EMBEDDER_DIR),
        collections={name: _load_collection(build_dir / name, name, rows) for name, rows in per_collection.items()},
        augmented={name: _load_collection(build_dir / layout.AUGMENTED_DIR / name, name, per_collection[name])
                   for name in augmented},
    )


def _load_collection(directory: Path, name: str, chunks: pl.DataFrame) -> Collection:
    index = tantivy.Index.open(str(directory / layout.TANTIVY_DIR))
    fields.register_tokenizer(index)  # not persisted with the index
    vectors = np.load(directory / layout.VECTORS_NPY, mmap_mode="r")
    ann_path = directory / layout.VECTORS_USEARCH
    ann = UsearchIndex.restore(str(ann_path), view=True) if ann_path.exists() else None
    if len(chunks) != vectors.shape[0] or index.searcher().num_docs != len(chunks):
        raise ValueError(f"{directory}: chunk store, vectors and BM25 index disagree on the number of chunks")
    return Collection(
        name=name, index=index, searcher=index.searcher(), vectors=vectors, ann=ann, chunks=chunks,
        chunk_ids=chunks["chunk_id"].to_list(),
        applies_to=[json.loads(a) for a in chunks["applies_to"].to_list()],
    )
