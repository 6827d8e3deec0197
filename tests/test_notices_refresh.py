"""Notices on their own cadence (pipelines/schedules.py, advisor/index_build/delta.py): a changed notice
is crawled, indexed and published by the notices run alone, in a build that reuses the static
side of the one before; nothing static is crawled, indexed or calibrated again, and neither the
benchmark nor the evaluation runs."""

from __future__ import annotations

import json
import os
import shutil

import duckdb
import pytest
import yaml

from advisor.index.layout import FAQ_DIR, SERVING_FILE, TANTIVY_DIR, VECTORS_NPY, read_manifest
from advisor.index.store import latest_build_dir
from cli.main import main
from pipelines.schedules import NOTICES_ASSETS

SENTENCE = "오로라 장학 설명회는 5월 20일 오후 3시 정보관 101호에서 열립니다."


def _latest_run(con, asset: str) -> str | None:
    row = con.execute("SELECT run_id FROM materializations WHERE asset = ? ORDER BY finished_at DESC LIMIT 1",
                      [asset]).fetchone()
    return row and row[0]


@pytest.fixture
def notices_changed(demo_warehouse, tmp_path, monkeypatch):
    """A copy of the demo warehouse, served from its own copy of the site (no generator, so the
    edit stays), with one notice edited; the copy keeps the site's port, so every URL and chunk id
    of the static pages is the one the base build has."""
    monkeypatch.delenv("DAGSTER_HOME", raising=False)  # the CLI points it at the copy's instance
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    warehouse = tmp_path / "warehouse"
    shutil.copytree(demo_warehouse.root, warehouse, ignore=shutil.ignore_patterns("dagster"))
    config = yaml.safe_load(demo_warehouse.config_path.read_text(encoding="utf-8"))
    config["local_site"] = {**config["local_site"], "generate": None, "directory": "demo_college/site"}
    config_path = tmp_path / "institution.yaml"
    config_path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    notice = max((warehouse / "demo_college" / "site" / "board").glob("notice-*.html"))
    html = notice.read_text(encoding="utf-8")
    assert "</main>" in html
    notice.write_text(html.replace("</main>", f"<p>{SENTENCE}</p></main>", 1), encoding="utf-8")
    return warehouse, config_path


@pytest.mark.e2e
def test_a_changed_notice_is_published_by_the_notices_run_alone_over_the_same_static_side(notices_changed):
    warehouse, config_path = notices_changed
    base = latest_build_dir(warehouse / "builds")
    with duckdb.connect(str(warehouse / "lakehouse.duckdb"), read_only=True) as con:
        before = {asset: _latest_run(con, asset) for asset in ("qa_benchmark", "intent_dataset", "index_build")}

    assert main(["materialize", "--config", str(config_path), "--warehouse", str(warehouse), "--notices"]) == 0

    build = latest_build_dir(warehouse / "builds")
    assert build != base
    assert read_manifest(build)["lineage"]["delta_of"] == base.name
    # the static collection is the base's own files, linked, not indexed again
    for relative in (f"static/{VECTORS_NPY}", f"static/{TANTIVY_DIR}/meta.json", f"{FAQ_DIR}/scorer.json"):
        assert os.stat(build / relative).st_ino == os.stat(base / relative).st_ino, relative
    assert json.loads((build / SERVING_FILE).read_text()) == json.loads((base / SERVING_FILE).read_text())

    with duckdb.connect(str(warehouse / "lakehouse.duckdb"), read_only=True) as con:
        after = {asset: _latest_run(con, asset) for asset in before}
        crawled = {source for (source,) in con.execute(
            "SELECT DISTINCT source FROM crawl_log WHERE run_id = ?", [after["index_build"]]).fetchall()}
    assert after["index_build"] != before["index_build"]
    assert after["qa_benchmark"] == before["qa_benchmark"] and after["intent_dataset"] == before["intent_dataset"]
    assert crawled == {"notices"}

    # the new notice is searchable in the published build, as a running server would see it
    from advisor.chunking.token_cache import tokenizer_for
    from advisor.config import load_config
    from advisor.retrieval import Retriever, load_build, params_from

    loaded = load_build(build)
    retriever = Retriever(loaded, tokenizer_for(load_config(config_path)).content_morphemes,
                          params_from(loaded.manifest["lineage"]["retrieval"]))
    found = retriever.search("오로라 장학 설명회", k=3, mode="bm25").chunks
    assert found[0].collection == "dynamic" and SENTENCE in found[0].text

    # a changed static page is no delta: the next build is made in full
    page = warehouse / "demo_college" / "site" / "academics" / "scholarships.html"
    page.write_text(page.read_text(encoding="utf-8").replace("</main>", "<p>장학 상담은 목요일입니다.</p></main>", 1),
                    encoding="utf-8")
    selection = " or ".join(f"key:{name}" for name in NOTICES_ASSETS)  # every collection crawled
    assert main(["materialize", "--config", str(config_path), "--warehouse", str(warehouse), "--select", selection]) == 0
    rebuilt = latest_build_dir(warehouse / "builds")
    assert rebuilt != build and read_manifest(rebuilt)["lineage"]["delta_of"] is None
    assert os.stat(rebuilt / f"static/{VECTORS_NPY}").st_ino != os.stat(build / f"static/{VECTORS_NPY}").st_ino


def test_a_collection_the_index_does_not_have_is_refused_by_name():
    from dagster import Failure

    from assets.ingestion import _checked_collections

    assert _checked_collections([]) is None and _checked_collections(["dynamic"]) == ("dynamic",)
    with pytest.raises(Failure, match="unknown collection.*dynamc.*known: static, dynamic"):
        _checked_collections(["dynamc"])


def test_the_notices_run_refuses_a_warehouse_without_a_build(tmp_path, monkeypatch):
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    warehouse = tmp_path / "empty"
    assert main(["materialize", "--warehouse", str(warehouse), "--notices"]) == 2
    assert not (warehouse / "lakehouse.duckdb").exists()  # nothing crawled, nothing half-built
    with pytest.raises(SystemExit) as refused:  # the notices run has its own selection
        main(["materialize", "--warehouse", str(warehouse), "--notices", "--select", "documents"])
    assert refused.value.code == 2
