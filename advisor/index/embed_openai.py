"""The reference system's dense embedder: an OpenAI-compatible embeddings endpoint (docs/method.md §A.5).

Vectors are cached in the lakehouse by (text hash, model key), so rebuilding an index over unchanged
chunks makes no calls; a new model (or dimension count) misses on purpose. The serving process has
no lakehouse connection (docs/tech-notes.md, DuckDB: one writer per file), so queries embed uncached.
Transport rules (retries, reason codes, usage) are LLMClient's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb
import numpy as np

from advisor.index.embed_common import normalize_rows, write_meta
from advisor.llm.client import LLMClient, LLMFailure, LLMUsage
from advisor.llm.settings import LLMNotConfigured, LLMSettings
from advisor.settings import EmbeddingEnvironment, read
from advisor.versioning import text_hash

NAME = "openai"
BATCH_SIZE = 128  # inputs per request: far below the API's 2,048-input / 300k-token limits for chunks
# USD per 1M input tokens, as published by OpenAI when this was written; unknown models cost None.
EMBEDDING_PRICES_PER_MILLION = {"text-embedding-3-small": 0.02, "text-embedding-3-large": 0.13,
                                "text-embedding-ada-002": 0.10}

from advisor.lakehouse import EMBEDDING_CACHE_DDL  # noqa: E402  (the DDL lives with the rest of the schema)


class EmbeddingFailed(RuntimeError):
    """Some texts could not be embedded; `failure.reason` is LLMClient's stable code. Batches that
    succeeded before it are cached, so a re-run only asks for the rest."""

    def __init__(self, failure: LLMFailure, usage: LLMUsage) -> None:
        super().__init__(f"embedding failed: {failure.reason}: {failure.detail}")
        self.failure = failure
        self.usage = usage


def ensure_tables(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(EMBEDDING_CACHE_DDL)


def model_from_env(environ: Mapping[str, str] | None = None) -> tuple[str, int | None]:
    """(model, dimensions) from ADVISOR_EMBEDDING_MODEL / ADVISOR_EMBEDDING_DIMENSIONS (advisor/settings.py)."""
    embedding = read(EmbeddingEnvironment, environ)
    return embedding.model, embedding.dimensions


class OpenAIEmbedder:
    name = NAME

    def __init__(self, settings: LLMSettings, con: duckdb.DuckDBPyConnection | None = None, *,
                 model: str | None = None, dimensions: int | None = None, batch_size: int = BATCH_SIZE,
                 client: LLMClient | None = None) -> None:
        """`con`: the lakehouse, for the cache (None = no cache, as when serving queries).
        `model`/`dimensions` default to ADVISOR_EMBEDDING_MODEL / ADVISOR_EMBEDDING_DIMENSIONS."""
        if not settings.configured:
            raise LLMNotConfigured(
                "the openai embedder needs an embeddings endpoint: set OPENAI_API_KEY, or OPENAI_BASE_URL "
                "for a local server, or use the offline 'lsa' embedder")
        env_model, env_dims = model_from_env()
        self.model = model or env_model
        self.dimensions = dimensions if dimensions is not None else (env_dims if model is None else None)
        self.batch_size = batch_size
        self.settings = settings
        self._client = client or LLMClient(settings)
        self._con = con
        self.usage = LLMUsage()  # cumulative over this embedder's life
        self._dim: int | None = self.dimensions
        if con is not None:
            ensure_tables(con)

    @property
    def version(self) -> str:
        """The model key: vectors from another model (or size) are not comparable."""
        return self.model if self.dimensions is None else f"{self.model}@{self.dimensions}"

    @property
    def dim(self) -> int:
        if self._dim is None:  # unknown until a vector is seen: ask for one
            self._dim = self.embed(["dimension probe"]).shape[1]
        return self._dim

    def cost_usd(self) -> float | None:
        price = EMBEDDING_PRICES_PER_MILLION.get(self.model)
        return None if price is None else self.usage.prompt_tokens * price / 1_000_000

    def close(self) -> None:
        self._client.close()

    # ---------------------------------------------------------------- embedding
    def embed(self, texts: Sequence[str], tokens: Sequence[Sequence[str]] | None = None) -> np.ndarray:
        """L2-normalised float32 vectors; `tokens` are ignored (the model reads the text). Raises
        EmbeddingFailed when a batch fails after its retries."""
        if isinstance(texts, str):
            raise TypeError("pass a list of texts: embed([query])")
        hashes = [text_hash(t) for t in texts]
        known = self._cached(hashes)
        wanted = {h: t for h, t in zip(hashes, texts) if h not in known and t.strip()}  # dedup
        self.usage.cache_hits += len({h for h in hashes if h in known})
        if wanted:
            known.update(self._fetch(wanted))
        if self._dim is None and known:
            self._dim = len(next(iter(known.values())))
        dim = self._dim or 0
        # blank texts: the API rejects empty input, and they carry nothing to match: zero vectors
        return np.stack([known.get(h, np.zeros(dim, np.float32)) for h in hashes]) if texts \
            else np.zeros((0, dim), np.float32)

    def embed_queries(self, texts: Sequence[str], tokens: Sequence[Sequence[str]] | None = None) -> np.ndarray:
        """Questions are embedded as any text is."""
        return self.embed(texts, tokens)

    def _fetch(self, wanted: dict[str, str]) -> dict[str, np.ndarray]:
        """Embed in batches, `concurrency` requests in flight; successful batches are cached even
        when another fails."""
        items = list(wanted.items())
        batches = [items[i:i + self.batch_size] for i in range(0, len(items), self.batch_size)]
        workers = min(self.settings.concurrency, len(batches))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(
                lambda batch: self._client.embed([t for _, t in batch], self.model, self.dimensions), batches))
        vectors: dict[str, np.ndarray] = {}
        failure: LLMFailure | None = None
        for batch, (outcome, usage) in zip(batches, results):
            self.usage.add(usage)
            if isinstance(outcome, LLMFailure):
                failure = failure or outcome
                continue
            rows = normalize_rows(np.asarray(outcome, dtype=np.float32))
            vectors.update(zip((h for h, _ in batch), rows))
        self._store(vectors)
        if failure is not None:
            raise EmbeddingFailed(failure, self.usage)
        return vectors

    # ---------------------------------------------------------------- cache
    def _cached(self, hashes: list[str]) -> dict[str, np.ndarray]:
        if self._con is None or not hashes:
            return {}
        rows = self._con.execute(
            "SELECT text_hash, vector FROM embedding_cache WHERE model = ? AND text_hash IN (SELECT unnest(?::VARCHAR[]))",
            [self.version, sorted(set(hashes))],
        ).fetchall()
        return {h: np.asarray(v, dtype=np.float32) for h, v in rows}

    def _store(self, vectors: dict[str, np.ndarray]) -> None:
        if self._con is None or not vectors:
            return
        # float32 -> FLOAT[] -> float32 is exact, so a cached vector equals a freshly fetched one
        self._con.executemany(
            "INSERT OR REPLACE INTO embedding_cache VALUES (?, ?, ?)",
            [(h, self.version, v.tolist()) for h, v in vectors.items()],
        )

    # ---------------------------------------------------------------- persistence
    def save(self, directory: Path) -> None:
        """Only the model and vector size: the endpoint and key come from the environment at load
        time, never from disk."""
        write_meta(directory, self.name, self.version, self._dim,
                   {"model": self.model, "dimensions": self.dimensions})

    @classmethod
    def load(cls, directory: Path, meta: dict, con: duckdb.DuckDBPyConnection | None = None) -> "OpenAIEmbedder":
        embedder = cls(LLMSettings.from_env(), con, model=meta["model"], dimensions=meta.get("dimensions"))
        embedder._dim = meta.get("dim") or embedder._dim
        return embedder

