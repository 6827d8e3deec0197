"""Index builds: folder layout, manifest, LATEST pointer, atomic publish, pruning, and loading
without the DuckDB lakehouse."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import numpy as np
import pytest

from advisor.config import load_config
from advisor.index import layout
from advisor.index.store import latest_build_dir, load_build
from advisor.index.writer import write_build
from tests.hashing_embedder import HashingEmbedder

SCHEMA = load_config().profile
REPO = Path(__file__).resolve().parents[1]


def make_records(n: int = 12, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    words = "졸업 학점 전공 이수 신청 기간 장학금 휴학 복학 수강 교과목 학사".split()
    records = []
    for i in range(n):
        tokens = list(rng.choice(words, size=5))
        dynamic = i % 4 == 0
        records.append({
            "chunk_id": f"c{seed}-{i}", "collection": "dynamic" if dynamic else "static",
            "doc_url": f"https://u.example/doc/{i}", "title": f"문서 {i}", "text": " ".join(tokens) + " 입니다.",
            "indexed_text": "제목 | " + " ".join(tokens), "tokens": tokens,
            "published_on": date(2025, 1, 1 + i) if dynamic else None, "kind": "notice" if dynamic else "page",
            "heading_path": ["학사", f"절 {i}"], "page": i if i % 3 == 0 else None,
            "applies_to": {"department": ["CS"] if i % 2 else None, "admission_year": [2020, 2022] if i % 3 == 0 else None},
        })
    return records


def build(root: Path, seed: int = 0, embedder=None, keep: int = 5, n: int = 12):
    embedder = embedder or HashingEmbedder(16)
    records = make_records(n, seed)
    vectors = embedder.embed([r["text"] for r in records], [r["tokens"] for r in records])
    return write_build(records, vectors, embedder, SCHEMA, root, {"run_id": f"run-{seed}", "annotator": "rules"}, keep=keep)


class FailingEmbedder(HashingEmbedder):
    """Fails while the build is being written (after both collections are on disk)."""

    def save(self, directory: Path) -> None:
        raise RuntimeError("disk full")


def test_layout_manifest_and_latest(tmp_path):
    manifest = build(tmp_path)
    directory = Path(manifest.directory)
    assert directory == tmp_path / manifest.build_id
    assert layout.BUILD_ID.match(manifest.build_id)
    assert (tmp_path / "LATEST").read_text().strip() == manifest.build_id
    assert latest_build_dir(tmp_path) == directory
    assert sorted(p.name for p in directory.iterdir()) == ["chunks.parquet", "dynamic", "embedder", "manifest.json", "static"]
    for collection in ("static", "dynamic"):
        assert sorted(p.name for p in (directory / collection).iterdir()) == ["tantivy", "vectors.npy", "vectors.usearch"]
    on_disk = json.loads((directory / "manifest.json").read_text())
    assert on_disk == manifest.to_json()
    assert on_disk["counts"] == {"static": 9, "dynamic": 3}
    assert on_disk["lineage"] == {"run_id": "run-0", "annotator": "rules"}
    assert on_disk["embedder"] == {"name": "hashing", "version": "1", "dim": 16}
    assert set(on_disk["schema"]) == set(SCHEMA) and on_disk["schema"]["admission_year"]["min"] == 2015
    assert on_disk["format_version"] == 2 and on_disk["built_at"]


def test_loaded_build_round_trips_the_chunk_store(tmp_path):
    manifest = build(tmp_path)
    loaded = load_build(Path(manifest.directory), load_embedder=HashingEmbedder.load)
    assert loaded.build_id == manifest.build_id and loaded.embedder.dim == 16
    assert set(loaded.schema) == set(SCHEMA)
    static, dynamic = loaded.collections["static"], loaded.collections["dynamic"]
    assert len(static) == 9 and len(dynamic) == 3 and static.vectors.shape == (9, 16)
    row = dynamic.chunks.row(0, named=True)
    assert row["chunk_id"] == "c0-0" and row["published_on"] == date(2025, 1, 1) and row["page"] == 0
    assert row["heading_path"] == ["학사", "절 0"] and row["doc_url"] == "https://u.example/doc/0"
    assert dynamic.applies_to[0] == {"department": None, "major_type": None, "admission_year": [2020, 2022],
                                     "grade": None, "student_status": None}
    assert static.searcher.num_docs == 9


def test_failed_build_publishes_nothing(tmp_path):
    first = build(tmp_path, seed=1)
    with pytest.raises(RuntimeError, match="disk full"):
        build(tmp_path, seed=2, embedder=FailingEmbedder(16))
    assert (tmp_path / "LATEST").read_text().strip() == first.build_id
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([first.build_id, "LATEST"])  # no tmp folder left
    assert load_build(latest_build_dir(tmp_path), load_embedder=HashingEmbedder.load).build_id == first.build_id


def test_invalid_input_publishes_nothing(tmp_path):
    records = make_records(4)
    with pytest.raises(ValueError, match="vectors"):
        write_build(records, np.zeros((3, 16), np.float32), HashingEmbedder(16), SCHEMA, tmp_path, {})
    assert latest_build_dir(tmp_path) is None and not any(tmp_path.iterdir())


def test_keep_n_newest_and_never_the_published_one(tmp_path):
    ids = [build(tmp_path, seed=s, keep=2).build_id for s in range(4)]
    assert layout.list_builds(tmp_path) == sorted(ids)[-2:] and ids == sorted(ids)  # ids sort by time
    assert latest_build_dir(tmp_path).name == ids[-1]
    # An operator rolled LATEST back to an older build: pruning must keep it.
    (tmp_path / "LATEST").write_text(ids[2])
    layout.prune(tmp_path, keep=1)
    assert layout.list_builds(tmp_path) == [ids[2], ids[3]]


def test_stale_tmp_folder_of_a_dead_writer_is_cleaned(tmp_path):
    stale = tmp_path / "20200101T000000000000Z-deadbeef.tmp-999999999"
    stale.mkdir()
    build(tmp_path)
    assert not stale.exists()


def test_empty_collection_builds_and_loads(tmp_path):
    embedder = HashingEmbedder(8)
    records = [r for r in make_records(8) if r["collection"] == "static"]
    vectors = embedder.embed([r["text"] for r in records], [r["tokens"] for r in records])
    manifest = write_build(records, vectors, embedder, SCHEMA, tmp_path, {})
    assert manifest.counts == {"static": len(records), "dynamic": 0}
    loaded = load_build(Path(manifest.directory), load_embedder=HashingEmbedder.load)
    assert len(loaded.collections["dynamic"]) == 0 and loaded.collections["dynamic"].ann is None


def test_loading_and_searching_never_imports_duckdb(tmp_path):
    manifest = build(tmp_path)
    script = f"""
import sys
from pathlib import Path
from tests.hashing_embedder import HashingEmbedder
from advisor.index.store import latest_build_dir, load_build
from advisor.retrieval import Retriever
build = load_build(latest_build_dir(Path({str(tmp_path)!r})), load_embedder=HashingEmbedder.load)
result = Retriever(build, lambda texts: [t.split() for t in texts]).search("졸업 학점", {{"department": "CS"}})
assert result.chunks, result
assert "duckdb" not in sys.modules, "loading a build imported duckdb"
print(build.build_id)
"""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == manifest.build_id


def test_the_hnsw_index_is_built_only_for_collections_a_search_would_use_it_on(tmp_path):
    from advisor.config import hnsw_above

    embedder = HashingEmbedder(16)
    records = make_records(12, 0)  # 9 static, 3 dynamic
    vectors = embedder.embed([r["text"] for r in records], [r["tokens"] for r in records])
    by_size = write_build(records, vectors, embedder, SCHEMA, tmp_path / "by-size", {}, hnsw_above=hnsw_above(None, 5))
    never = write_build(records, vectors, embedder, SCHEMA, tmp_path / "never", {}, hnsw_above=hnsw_above(True, 5))
    assert (Path(by_size.directory) / "static" / "vectors.usearch").exists()
    assert not (Path(by_size.directory) / "dynamic" / "vectors.usearch").exists()
    assert not any(Path(never.directory).rglob("vectors.usearch"))
    loaded = load_build(Path(never.directory), load_embedder=HashingEmbedder.load)
    assert loaded.collections["static"].ann is None and len(loaded.collections["static"]) == 9
    assert hnsw_above(False, 5) == 0  # always HNSW: every non-empty collection gets it
