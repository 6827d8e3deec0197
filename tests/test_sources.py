"""Source snapshots in an index build (layout.SOURCES_FILE): written at build time from the
lakehouse, one per document the chunks come from, each chunk's span located in it; read back
without the lakehouse; builds written without them still load."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

from advisor.index import layout
from advisor.index.sources import load_sources
from advisor.index.store import latest_build_dir, load_build
from advisor.index.writer import write_build
from advisor.index_build.records import chunk_span
from tests.hashing_embedder import HashingEmbedder
from tests.test_index_build import SCHEMA, make_records


def snapshot_rows(records: list[dict]) -> list[dict]:
    """One document per record, its text the chunk's text with a heading above it."""
    return [{"doc_url": r["doc_url"], "title": r["title"], "text": f"# {r['title']}\n\n{r['text']}", "source": "test",
             "kind": r["kind"], "chunk_ids": [r["chunk_id"]], "chunk_starts": [len(r["title"]) + 4],
             "chunk_ends": [len(r["title"]) + 4 + len(r["text"])]} for r in records]


def write(root: Path, records: list[dict], sources) -> Path:
    embedder = HashingEmbedder(16)
    vectors = embedder.embed([r["text"] for r in records], [r["tokens"] for r in records])
    manifest = write_build(records, vectors, embedder, SCHEMA, root, {"run_id": "run"}, sources=sources)
    return Path(manifest.directory)


def test_snapshots_round_trip_and_locate_each_chunk(tmp_path):
    records = make_records(6)
    directory = write(tmp_path, records, snapshot_rows(records))
    assert layout.read_manifest(directory)["files"]["sources"] == layout.SOURCES_FILE
    snapshots = load_sources(directory)
    assert len(snapshots) == 6
    for record in records:
        snapshot = snapshots.get(record["chunk_id"])
        assert snapshot.doc_url == record["doc_url"] and snapshot.text.startswith("# ")
        assert snapshot.as_api("b")["chunk"]["text"] == record["text"]
    assert snapshots.get("no-such-chunk") is None


def test_a_build_refuses_snapshots_that_miss_a_chunk(tmp_path):
    records = make_records(4)
    with pytest.raises(ValueError, match="no source snapshot"):
        write(tmp_path, records, snapshot_rows(records)[1:])
    assert latest_build_dir(tmp_path) is None  # nothing published


def test_a_build_without_snapshots_loads_and_says_so(tmp_path):
    records = make_records(4)
    directory = write(tmp_path, records, None)
    assert not (directory / layout.SOURCES_FILE).exists()
    assert load_build(directory, load_embedder=HashingEmbedder.load).build_id
    assert load_sources(directory) is None


def test_chunk_span_finds_the_body_after_a_repeated_context_line():
    doc = "# 장학\n\n| 구분 | 금액 |\n| A | 100 |\n| B | 200 |"
    start = doc.index("| B")
    assert chunk_span(doc, "| B | 200 |", start) == (start, len(doc))
    assert chunk_span(doc, "| 구분 | 금액 |\n| B | 200 |", start) == (start, len(doc))  # the caption carried above
    assert chunk_span(doc, "다른 글", start) == (None, None)
    assert chunk_span(doc, "| B | 200 |", None) == (None, None)


# ----------------------------------------------------------------------------- the demo build


def test_the_demo_build_keeps_a_snapshot_of_every_cited_document(demo_warehouse):
    directory = latest_build_dir(demo_warehouse.builds)
    chunks = pl.read_parquet(directory / layout.CHUNKS_FILE)
    sources = pl.read_parquet(directory / layout.SOURCES_FILE)
    assert set(sources["doc_url"]) == set(chunks["doc_url"])  # every document a chunk (a citation) comes from
    assert sources["doc_url"].is_unique().all()
    assert sources["fetched_at"].null_count() == 0 and (sources["text"].str.len_chars() > 0).all()
    snapshots = load_sources(directory)
    located = 0
    for chunk_id, doc_url, text in chunks.select("chunk_id", "doc_url", "text").iter_rows():
        snapshot = snapshots.get(chunk_id)
        assert snapshot is not None and snapshot.doc_url == doc_url
        if snapshot.chunk_start is not None:
            located += 1
            assert text.endswith(snapshot.text[snapshot.chunk_start:snapshot.chunk_end])
    assert located == len(chunks)  # every chunk is a slice of its document (advisor/chunking/chunker.py)
    # structure kept, as the lakehouse's documents table holds it: headings, table rows as "- 열: 값 | 열: 값"
    assert sources["text"].str.contains(r"(?m)^# ").any() and sources["text"].str.contains(r"(?m)^- .*: .* \| ").any()


def test_faq_citations_have_snapshots_too(demo_warehouse):
    from advisor.faq.store import FAQStore

    directory = latest_build_dir(demo_warehouse.builds)
    build = load_build(directory)
    store = FAQStore.load(directory / layout.FAQ_DIR, build.schema)
    snapshots = load_sources(directory)
    cited = [e.chunk_ids[0] for e in store.entries if e.chunk_ids]
    assert cited and all(chunk_id in snapshots for chunk_id in cited)


def test_an_old_build_copy_without_snapshots_still_loads(demo_warehouse, tmp_path):
    source = latest_build_dir(demo_warehouse.builds)
    old = tmp_path / source.name
    shutil.copytree(source, old)
    (old / layout.SOURCES_FILE).unlink()
    assert load_build(old).build_id == source.name and load_sources(old) is None
