"""The encoder's vectors of the hand-written intent seeds, shipped with the package: a warm cache.

Every build trains its router's vector model on the seeds (advisor/intents/classifier.py), and
about 2,700 of them are the same whatever the institution (those that do not name it). Encoding
them costs e5 about 85 s on two cores, in every first build of a process (`make demo`, each new
institution, the test suite). The vectors are a pure function of (model version, text), so they
ship here, computed once by `python -m advisor.intents.seed_vectors`, keyed by the text's hash:
a seed that is not in the file (edited, new, naming the institution) is simply encoded, and a
file written by another model version is ignored. Stored as int8 with one scale per vector
(cosine with the float vector ≥ 0.9999; tests/test_seed_vectors.py checks a sample against
fresh encodings and that the file covers the current seeds).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from advisor.intents.classifier import encoded_seeds
from advisor.intents.dataset import seed_intent_examples
from advisor.versioning import text_hash

PATH = Path(__file__).with_name("seed_vectors.npz")
KIND = "query"  # the classifier compares a message with the seeds: e5's "query: " on both sides
# two institutions with no name in common: a seed in both lists names neither
_PROBE_INSTITUTIONS = ("한빛대학교 정보대학 (Hanbit University College of Informatics)", "가나다대학교 경영대학")


def shared_seed_texts() -> list[str]:
    """The seed texts the router's vector model encodes (classifier.encoded_seeds) that do not
    depend on the institution."""
    first, other = (encoded_seeds(seed_intent_examples(name)) for name in _PROBE_INSTITUTIONS)
    shared = {e.text for e in other}
    return [e.text for e in first if e.text in shared]


def warm(embedder) -> int:
    """Put the shipped vectors into `embedder`'s cache when they were made by its model; returns
    how many (0: no file, or another model's)."""
    if not PATH.is_file() or not hasattr(embedder, "remember"):
        return 0
    with np.load(PATH, allow_pickle=False) as data:
        if str(data["version"]) != embedder.version:
            return 0
        vectors = data["vectors"].astype(np.float32) * data["scales"][:, None]
        hashes = [str(h) for h in data["hashes"]]
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    embedder.remember(KIND, dict(zip(hashes, vectors)))
    return len(hashes)


def write(embedder, path: Path = PATH) -> int:
    """Encode the shared seed texts with `embedder` and write them to `path`; returns the count."""
    texts = shared_seed_texts()
    vectors = embedder.embed_queries(texts)
    scales = np.abs(vectors).max(axis=1) / 127.0
    quantized = np.round(vectors / scales[:, None]).astype(np.int8)
    np.savez_compressed(path, version=np.array(embedder.version), hashes=np.array([text_hash(t) for t in texts]),
                        vectors=quantized, scales=scales.astype(np.float32))
    return len(texts)


if __name__ == "__main__":  # python -m advisor.intents.seed_vectors: after editing the seeds
    from advisor.index.embed_e5 import E5Embedder

    count = write(E5Embedder())
    print(f"{PATH}: {count} seed vectors", file=sys.stderr)
