"""Vectors by (model key, text hash): in this process (every build a process makes shares them, as
`advisor materialize` run twice in one test session does), and in the lakehouse's `embedding_cache`
when a connection is given (a re-run of the pipeline embeds only new or changed texts)."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence

import duckdb
import numpy as np
import pyarrow as pa

from advisor.lakehouse import EMBEDDING_CACHE_DDL
from advisor.versioning import text_hash

_PROCESS: dict[tuple[str, str], np.ndarray] = {}
_PROCESS_LOCK = threading.Lock()
PROCESS_LIMIT = 500_000  # vectors kept in memory (~0.8 GB at 384 dimensions): beyond it, the lakehouse only


class VectorCache:
    def __init__(self, con: duckdb.DuckDBPyConnection | None = None) -> None:
        self.con = con
        if con is not None:
            con.execute(EMBEDDING_CACHE_DDL)

    def get(self, model: str, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """{text: vector} for the texts already embedded by `model`."""
        hashes = {text: text_hash(text) for text in dict.fromkeys(texts)}
        with _PROCESS_LOCK:
            found = {text: _PROCESS[(model, h)] for text, h in hashes.items() if (model, h) in _PROCESS}
        wanted = {h: text for text, h in hashes.items() if text not in found}
        if self.con is not None and wanted:
            rows = self.con.execute(
                "SELECT text_hash, vector FROM embedding_cache WHERE model = ? "
                "AND text_hash IN (SELECT unnest(?::VARCHAR[]))", [model, sorted(wanted)]).fetchall()
            stored = {wanted[h]: np.asarray(v, dtype=np.float32) for h, v in rows}
            self._remember(model, {hashes[t]: v for t, v in stored.items()})
            found.update(stored)
        return found

    def put(self, model: str, vectors: Mapping[str, np.ndarray]) -> None:
        by_hash = {text_hash(text): np.asarray(v, dtype=np.float32) for text, v in vectors.items()}
        self._remember(model, by_hash)
        if self.con is not None and by_hash:
            # float32 -> FLOAT[] -> float32 is exact: a cached vector equals a fresh one
            rows = pa.table({"text_hash": list(by_hash), "model": [model] * len(by_hash),
                             "vector": pa.array(list(by_hash.values()), type=pa.list_(pa.float32()))})
            self.con.register("_new_vectors", rows)
            try:
                self.con.execute("INSERT OR REPLACE INTO embedding_cache SELECT text_hash, model, vector FROM _new_vectors")
            finally:
                self.con.unregister("_new_vectors")

    def preload(self, model: str, by_hash: Mapping[str, np.ndarray]) -> None:
        """Vectors known without embedding (a shipped warm cache), kept in this process only."""
        self._remember(model, by_hash)

    @staticmethod
    def _remember(model: str, by_hash: Mapping[str, np.ndarray]) -> None:
        with _PROCESS_LOCK:
            if len(_PROCESS) + len(by_hash) > PROCESS_LIMIT:
                _PROCESS.clear()
            _PROCESS.update(((model, h), v) for h, v in by_hash.items())
