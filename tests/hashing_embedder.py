"""A tiny dependency-free embedder (signed feature hashing of tokens), following the Embedder
protocol of advisor.index.embedders. For tests and benchmarks only: it knows nothing about meaning,
it just makes vectors that are stable across processes (blake2b, not Python's salted hash).
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Sequence

import numpy as np


class HashingEmbedder:
    name = "hashing"
    version = "1"

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim

    def embed(self, texts: Sequence[str], tokens: Sequence[Sequence[str]] | None = None) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            words = tokens[i] if tokens is not None else (text or "").lower().split()
            counts: dict[str, int] = {}
            for word in words:
                counts[word] = counts.get(word, 0) + 1
            for word, count in counts.items():
                slot, sign = _slot(word, self.dim)
                out[i, slot] += sign * (1.0 + math.log(count))
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)

    def embed_queries(self, texts: Sequence[str], tokens: Sequence[Sequence[str]] | None = None) -> np.ndarray:
        return self.embed(texts, tokens)

    def save(self, directory: Path) -> None:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "embedder.json").write_text(json.dumps({"name": self.name, "version": self.version, "dim": self.dim}))

    @classmethod
    def load(cls, directory: Path) -> "HashingEmbedder":
        return cls(json.loads((Path(directory) / "embedder.json").read_text())["dim"])


def _slot(word: str, dim: int) -> tuple[int, float]:
    digest = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
    return digest % dim, (1.0 if (digest >> 63) & 1 else -1.0)
