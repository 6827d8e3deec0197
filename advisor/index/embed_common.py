"""Small helpers shared by the embedders."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def normalize_rows(matrix: np.ndarray) -> np.ndarray:
    """float32 rows scaled to unit length; an all-zero row stays zero (no NaN), so a text with no
    known feature simply matches nothing."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


META_FILE = "embedder.json"


def write_meta(directory: Path, name: str, version: str, dim: int | None, extra: dict) -> None:
    """embedder.json: which embedder made the vectors, so `load_embedder` can rebuild it."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    meta = {"name": name, "version": version, "dim": dim, **extra}
    (directory / META_FILE).write_text(json.dumps(meta, ensure_ascii=False, indent=1), encoding="utf-8")


def read_meta(directory: Path) -> dict:
    path = Path(directory) / META_FILE
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no saved embedder here") from None
