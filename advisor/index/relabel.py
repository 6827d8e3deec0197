"""An index build's chunks under other labels: the same texts, tokens and vectors, with another
applicability record per chunk in the filter fields. The evaluation uses it to run the method
with the TRUE applicability in place of the annotator's (the `profill-true-labels` system), so an
annotation error and a retrieval error can be told apart. Nothing is written to disk: the BM25
indexes are rebuilt in memory from the tokens the chunk store keeps."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

import polars as pl

from advisor.index import fields
from advisor.index import writer as b
from advisor.index.store import Collection, IndexBuild


def relabelled(build: IndexBuild, labels: Mapping[str, Mapping[str, Any] | None]) -> IndexBuild:
    """`build` with each chunk's applicability replaced by `labels[chunk_id]`; a chunk absent from
    `labels` keeps its own. Only the plain collections: the augmented ones are URAG's, which
    reads no labels."""
    return replace(build.over({name: _relabelled(c, labels, build.schema) for name, c in build.collections.items()}),
                   augmented={})


def _relabelled(collection: Collection, labels: Mapping, schema: fields.Schema) -> Collection:
    if "tokens" not in collection.chunks.columns:
        raise ValueError("this index build keeps no tokens in its chunk store (format 1): build it again")
    applies_to = [fields.canonical_applies_to(labels[cid], schema) if cid in labels else own
                  for cid, own in zip(collection.chunk_ids, collection.applies_to)]
    chunks = collection.chunks.with_columns(
        pl.Series("applies_to", [fields.applies_to_json(a) for a in applies_to], dtype=pl.String))
    rows = chunks.select("row", "applies_to").to_dicts()  # the chunk store's rows, as the writer indexes them
    index = b.bm25_index(None, rows, chunks["tokens"].to_list(), schema)
    return Collection(name=collection.name, index=index, searcher=index.searcher(), vectors=collection.vectors,
                      ann=collection.ann, chunks=chunks, chunk_ids=list(collection.chunk_ids), applies_to=applies_to)
