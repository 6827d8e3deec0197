"""History that keeps its joins (advisor/lakehouse/history.py): versions opened and retired by content, and,
through Dagster on a slice of the demo college, an old evaluation's retrieved chunks still joined
to their old text, document version and fetch after a page changed and another disappeared."""

from __future__ import annotations

import hashlib
import json
import shutil
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlparse

import duckdb
import polars as pl
import pytest
import yaml

from advisor.lakehouse import LAKEHOUSE_FILE, connect, history, insert_rows
from tests.conftest import demo_config_on_port, free_port

# --------------------------------------------------------------------------- record_versions

ITEMS = history.History(table="items", versions="item_versions", key=("id",), untracked=("run_id",),
                        state=("gone",), live="c.gone IS NULL", born="$at")
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


@pytest.fixture
def items():
    con = duckdb.connect()
    con.execute("CREATE TABLE items (id VARCHAR PRIMARY KEY, body VARCHAR, tags VARCHAR[], run_id VARCHAR, gone BOOLEAN)")
    history.create_history(con, ITEMS, T0)
    yield con
    con.close()


def upsert(con, run_id, **bodies):
    for key, body in bodies.items():
        con.execute("INSERT OR REPLACE INTO items VALUES (?, ?, ?, ?, NULL)", [key, body, [body[:1]], run_id])


def versions(con, key):
    return con.execute("SELECT body, valid_from_run_id, valid_to_run_id FROM item_versions WHERE id = ? "
                       "ORDER BY valid_from", [key]).fetchall()


def test_versions_open_on_new_content_only_and_keep_every_interval(items):
    at = [T0 + timedelta(hours=h) for h in range(6)]
    upsert(items, "r1", a="one", b="two")
    assert history.record_versions(items, ITEMS, at[1], "r1") == {"opened": 2, "retired": 0}

    upsert(items, "r2", a="one", b="two")  # same content, another run: bookkeeping only
    assert history.record_versions(items, ITEMS, at[2], "r2") == {"opened": 0, "retired": 0}

    upsert(items, "r3", a="ONE")
    items.execute("UPDATE items SET gone = TRUE WHERE id = 'b'")
    assert history.record_versions(items, ITEMS, at[3], "r3") == {"opened": 1, "retired": 2}

    upsert(items, "r4", a="one")  # reverted: the old content is current again, in a new interval
    items.execute("UPDATE items SET gone = NULL WHERE id = 'b'")  # and b is back
    assert history.record_versions(items, ITEMS, at[4], "r4") == {"opened": 2, "retired": 1}

    assert versions(items, "a") == [("one", "r1", "r3"), ("ONE", "r3", "r4"), ("one", "r4", None)]
    assert versions(items, "b") == [("two", "r1", "r3"), ("two", "r2", None)]  # introduced by the row's run
    assert items.execute("SELECT valid_from, valid_to FROM item_versions WHERE id = 'a' AND body = 'ONE'"
                         ).fetchall() == [(at[3], at[4])]
    assert history.drift(items, ITEMS) == {"current_rows_without_version": 0, "open_versions_without_current_row": 0}


def test_scope_limits_the_work_and_drift_shows_what_was_skipped(items):
    upsert(items, "r1", a="one", b="two")
    history.record_versions(items, ITEMS, T0, "r1")
    upsert(items, "r2", a="uno", b="dos")
    assert history.record_versions(items, ITEMS, T0 + timedelta(1), "r2", {"id": ["b"]}) == {"opened": 1, "retired": 1}
    assert history.record_versions(items, ITEMS, T0, "r2", {"id": []}) == {}  # nothing written, nothing to do
    assert history.drift(items, ITEMS) == {"current_rows_without_version": 1, "open_versions_without_current_row": 1}
    assert versions(items, "a") == [("one", "r1", None)]


def test_backfill_starts_each_version_at_its_earliest_evidence(tmp_path):
    """A lakehouse from before versioning: the history is created from its current rows, removed
    pages as retired versions, starting no later than anything derived from them."""
    fetched = T0 + timedelta(hours=1)
    with connect(tmp_path) as con:
        for table in ("chunk_annotation_versions", "chunk_versions", "document_versions", "raw_document_versions"):
            con.execute(f"DROP TABLE {table} CASCADE")
        raw = {"source": "s", "source_kind": "html", "collection": "static", "is_document": True, "doc_format": "html",
               "storage_path": "raw/x", "http_status": 200, "run_id": "crawl-2"}
        insert_rows(con, "raw_documents", [
            {**raw, "url": "http://x/a", "content_hash": "h-a", "fetched_at": fetched + timedelta(days=3)},  # refreshed
            {**raw, "url": "http://x/gone", "content_hash": "h-g", "fetched_at": fetched,
             "removed_at": fetched + timedelta(days=1), "removed_run_id": "crawl-3"}])
        insert_rows(con, "crawl_log", [{"run_id": "crawl-1", "source": "s", "url": "http://x/a", "outcome": "new",
                                        "fetched_at": fetched, "content_hash": "h-a"}])
        insert_rows(con, "documents", [
            {"doc_id": "d-a", "url": "http://x/a", "source_url": "http://x/a", "source": "s", "kind": "page",
             "collection": "static", "status": "active", "text": "A", "text_hash": "t-a", "content_hash": "h-a",
             "http_status": 200, "fetched_at": fetched, "crawl_run_id": "crawl-1", "run_id": "clean-1",
             "cleaner_version": "v"}])
    with connect(tmp_path) as con:  # the next open migrates
        rows = con.execute("SELECT url, valid_from, valid_from_run_id, valid_to, valid_to_run_id "
                           "FROM raw_document_versions ORDER BY url").fetchall()
        document = con.execute("SELECT valid_from, valid_to FROM document_versions").fetchall()
    assert rows == [("http://x/a", fetched, "crawl-1", None, None),
                    ("http://x/gone", fetched, "crawl-2", fetched + timedelta(days=1), "crawl-3")]
    assert document == [(fetched, None)]


# --------------------------------------------------------------------------- through Dagster

SELECTION = "*index_build"  # the crawl through the index build; nothing of the evaluation
PAGES_PER_SOURCE = 4
MARKER = "(2027학년도 개정) "
HISTORY_TABLES = [h.versions for h in history.HISTORIES]


def _site_file(site: Path, url: str) -> Path:
    path = urlparse(url).path.lstrip("/")
    return site / (path + "index.html" if path.endswith("/") or not path else path)


def _pick_pages(con) -> tuple[str, str]:
    """Two department pages of several chunks each: one to edit, one to take down."""
    urls = [r[0] for r in con.execute(
        """SELECT doc_url FROM chunks WHERE kind = 'page' AND doc_url LIKE '%/departments/_%/'
           GROUP BY doc_url HAVING count(*) >= 2 ORDER BY doc_url""").fetchall()]
    assert len(urls) >= 2, urls
    return urls[0], urls[1]


def _chunks_of(con, url: str) -> list[dict]:
    return con.sql("SELECT chunk_id, text, position, doc_text_hash FROM chunks WHERE doc_url = ? ORDER BY position",
                   params=[url]).pl().to_dicts()


def _version_counts(con) -> dict:
    counts = {t: con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0] for t in HISTORY_TABLES}
    counts["index_builds"] = con.execute("SELECT count(*) FROM index_builds").fetchall()[0][0]
    return counts


def _record_old_evaluation(con, build_id: str, chunk_ids: list[str], urls: list[str]) -> str:
    from eval import store

    meta = store.RunMeta(benchmark="handmade", benchmark_hash="0" * 16, instances=1, build_id=build_id,
                         annotator="rules", embedder="lsa", code_version="test", config_hash="test",
                         systems=("bm25",), settings=("deployment",), started_at=datetime.now(timezone.utc))
    outcome = SimpleNamespace(per_query=[{"system": "bm25", "setting": "deployment", "instance_id": "q1",
                                          "retrieved_chunk_ids": chunk_ids, "retrieved_urls": urls}],
                              aggregates=[], params={})
    return store.record_run(con, outcome=outcome, run_meta=meta)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Three materializations: the site as generated; then one page edited and another gone;
    then nothing changed. An evaluation row of the first build is recorded after the first."""
    from cli.main import main
    from examples.demo_college import build_site

    directory = tmp_path_factory.mktemp("history")
    site = build_site(directory / "college", date(2026, 12, 1)).site_dir
    config_path = demo_config_on_port(directory, free_port(), max_pages=PAGES_PER_SOURCE)
    config = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    config["local_site"] = {"directory": str(site), "port": config["local_site"]["port"]}  # a copy we can edit
    config_path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    warehouse = directory / "warehouse"
    args = ["materialize", "--config", str(config_path), "--warehouse", str(warehouse), "--select", SELECTION]
    mp = pytest.MonkeyPatch()
    mp.delenv("DAGSTER_HOME", raising=False)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        mp.delenv(name, raising=False)
    try:
        assert main(args) == 0
        with connect(warehouse) as con:
            edited, removed = _pick_pages(con)
            old = SimpleNamespace(
                edited=_chunks_of(con, edited), removed=_chunks_of(con, removed),
                build=con.execute("SELECT build_id FROM index_builds").fetchall()[0][0],
                fetches={url: con.execute("SELECT content_hash, fetched_at FROM raw_documents WHERE url = ?",
                                          [url]).fetchall()[0] for url in (edited, removed)})
            retrieved = [old.edited[0], old.edited[1], old.removed[0]]
            eval_run = _record_old_evaluation(con, old.build, [c["chunk_id"] for c in retrieved],
                                              [edited, edited, removed])

        page = _site_file(site, edited)
        html = page.read_text(encoding="utf-8")
        at = html.index("<p>", html.index("<main")) + len("<p>")  # the first paragraph of the content
        page.write_text(html[:at] + MARKER + html[at:], encoding="utf-8")
        _site_file(site, removed).unlink()
        assert main(args) == 0
        with connect(warehouse) as con:
            after_change = _version_counts(con)
        assert main(args) == 0
        with connect(warehouse) as con:
            after_rerun = _version_counts(con)
    finally:
        mp.undo()
    return SimpleNamespace(warehouse=warehouse, edited=edited, removed=removed, old=old, retrieved=retrieved,
                           eval_run=eval_run, after_change=after_change, after_rerun=after_rerun)


def readme_query(first_line: str) -> str:
    """A query of the README's lakehouse section, as a reader would copy it."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    start = readme.index(first_line)
    return readme[start:readme.index(";", start)]


OLD_RUN_CHUNKS = readme_query("-- the exact chunk text behind every retrieved chunk of an old evaluation run")


@pytest.mark.e2e
def test_current_tables_show_only_the_new_text(runs):
    with connect(runs.warehouse) as con:
        text, status = con.execute("SELECT text, status FROM documents WHERE url = ?", [runs.edited]).fetchall()[0]
        chunks = _chunks_of(con, runs.edited)
        gone = con.execute("SELECT status FROM documents WHERE url = ?", [runs.removed]).fetchall()[0][0]
        gone_chunks = con.execute("SELECT count(*) FROM chunks WHERE doc_url = ?", [runs.removed]).fetchall()[0][0]
        stale = con.execute("SELECT count(*) FROM chunk_annotations WHERE chunk_id IN (SELECT unnest(?))",
                            [[c["chunk_id"] for c in runs.old.removed] + [runs.old.edited[0]["chunk_id"]]]).fetchall()
        active = con.execute("SELECT count(*) FROM active_documents WHERE url = ?", [runs.removed]).fetchall()[0][0]
    assert status == "active" and MARKER.strip() in text
    assert any(MARKER.strip() in c["text"] for c in chunks)
    assert runs.old.edited[0]["chunk_id"] not in {c["chunk_id"] for c in chunks}
    assert all(c["doc_text_hash"] != runs.old.edited[0]["doc_text_hash"] for c in chunks)
    assert gone == "removed" and gone_chunks == 0 and active == 0 and stale == [(0,)]


@pytest.mark.e2e
def test_an_old_evaluation_joins_to_its_old_text_document_and_fetch(runs):
    with connect(runs.warehouse) as con:
        assert con.execute("SELECT run_id FROM eval_runs").fetchall() == [(runs.eval_run,)]  # the oldest
        rows = con.sql(OLD_RUN_CHUNKS).pl().to_dicts()
        current = dict(con.execute("SELECT url, content_hash FROM raw_documents WHERE url IN (?, ?)",
                                   [runs.edited, runs.removed]).fetchall())
        attributes = con.execute("SELECT count(DISTINCT attribute) FROM chunk_annotations").fetchall()[0][0]
        annotations = dict(con.execute(
            """SELECT chunk_id, count(*) FILTER (valid_to IS NOT NULL) || '/' || count(*) FROM build_chunk_annotations
               WHERE build_id = ? AND chunk_id IN (SELECT unnest(?)) GROUP BY chunk_id""",
            [runs.old.build, [c["chunk_id"] for c in runs.retrieved]]).fetchall())
    assert [r["chunk_id"] for r in rows] == [c["chunk_id"] for c in runs.retrieved]
    # what the build filtered them by is kept too: retired for the changed and the removed chunk
    changed, kept, removed = (c["chunk_id"] for c in runs.retrieved)
    assert annotations == {changed: f"{attributes}/{attributes}", kept: f"0/{attributes}",
                           removed: f"{attributes}/{attributes}"}
    for row, chunk, url in zip(rows, runs.retrieved, [runs.edited, runs.edited, runs.removed]):
        assert row["text"] == chunk["text"] and MARKER.strip() not in row["text"]
        assert row["doc_url"] == url and row["doc_text_hash"] == chunk["doc_text_hash"] and row["doc_title"]
        content_hash, fetched_at = runs.old.fetches[url]
        assert row["fetched_at"] == fetched_at and row["http_status"] == 200
        stored = runs.warehouse / row["storage_path"]
        assert hashlib.sha256(stored.read_bytes()).hexdigest() == content_hash  # the old bytes, kept
    assert current[runs.edited] != runs.old.fetches[runs.edited][0]


@pytest.mark.e2e
def test_a_chunk_in_two_builds_joins_to_the_document_version_of_each(runs):
    """The edit left the second chunk's text (and so its id) unchanged, but it now belongs to a new
    document version: each build sees the version it was built from."""
    kept = runs.old.edited[1]["chunk_id"]
    with connect(runs.warehouse) as con:
        rows = con.execute("SELECT build_id, doc_text_hash, valid_to IS NULL FROM build_chunk_lineage "
                           "WHERE chunk_id = ? ORDER BY built_at", [kept]).fetchall()
        current = con.execute("SELECT text_hash FROM documents WHERE url = ?", [runs.edited]).fetchall()[0][0]
    assert [r[0] for r in rows][0] == runs.old.build and len(rows) == 2
    assert rows[0][1:] == (runs.old.edited[1]["doc_text_hash"], False)
    assert rows[1][1:] == (current, True)


@pytest.mark.e2e
def test_a_rerun_with_nothing_changed_adds_no_versions(runs):
    assert runs.after_rerun == runs.after_change
    assert runs.after_change["index_builds"] == 2
    with connect(runs.warehouse) as con:
        for table in history.HISTORIES:
            assert history.drift(con, table) == {"current_rows_without_version": 0,
                                                 "open_versions_without_current_row": 0}, table.versions
        retired = dict(con.execute(
            "SELECT url, valid_to_run_id FROM document_versions WHERE valid_to IS NOT NULL").fetchall())
        second_clean = con.execute("SELECT run_id FROM materializations WHERE asset = 'documents' "
                                   "ORDER BY finished_at").fetchall()[1][0]
    assert retired == {runs.edited: second_clean, runs.removed: second_clean}


@pytest.mark.e2e
def test_index_build_chunks_lists_each_builds_chunks(runs):
    with connect(runs.warehouse) as con:
        builds = con.execute("SELECT build_id, path, manifest FROM index_builds ORDER BY built_at").fetchall()
        listed = {b: con.sql("SELECT chunk_id, collection FROM index_build_chunks WHERE build_id = ? ORDER BY chunk_id",
                             params=[b]).pl() for b, _, _ in builds}
    for build_id, path, manifest in builds:
        stored = pl.read_parquet(Path(path) / "chunks.parquet").select("chunk_id", "collection").sort("chunk_id")
        assert listed[build_id].equals(stored)
        assert set(listed[build_id]["chunk_id"]) == set(json.loads(manifest)["lineage"]["chunk_ids"])
    first, second = (set(listed[b]["chunk_id"]) for b, _, _ in builds)
    assert {c["chunk_id"] for c in runs.old.removed} <= first - second
    assert runs.old.edited[1]["chunk_id"] in first & second


@pytest.mark.e2e
def test_an_existing_lakehouse_migrates_on_first_open(runs, tmp_path):
    """Drop the history of a copy; the next open rebuilds it from the current rows, and lists every
    build's chunks again from the manifests, the same as the builds wrote them."""
    shutil.copy(runs.warehouse / LAKEHOUSE_FILE, tmp_path / LAKEHOUSE_FILE)
    with connect(tmp_path) as con:
        written = con.execute("SELECT * FROM index_build_chunks ORDER BY ALL").fetchall()
        for table in HISTORY_TABLES:
            con.execute(f"DROP TABLE {table} CASCADE")
        con.execute("DELETE FROM index_build_chunks")
    with connect(tmp_path) as con:
        assert con.execute("SELECT * FROM index_build_chunks ORDER BY ALL").fetchall() == written
        for table in history.HISTORIES:
            assert history.drift(con, table)["current_rows_without_version"] == 0, table.versions
        removed = con.execute("SELECT valid_to_run_id IS NOT NULL FROM raw_document_versions WHERE url = ?",
                              [runs.removed]).fetchall()
        latest = con.execute("""SELECT count(*), count(text), count(doc_text_hash), count(storage_path)
                                FROM build_chunk_lineage
                                WHERE build_id = (SELECT max_by(build_id, built_at) FROM index_builds)""").fetchall()
    assert removed == [(True,)]  # a page gone before the migration is a retired version
    n = latest[0][0]
    assert n > 0 and latest == [(n, n, n, n)]
