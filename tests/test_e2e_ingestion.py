"""End to end through Dagster: `advisor materialize` on a slice of the demo college, then a
no-change re-run that re-processes nothing and leaves identical tables."""

from __future__ import annotations

import json
import socket

import pytest
import yaml

from advisor.lakehouse import connect
from cli.main import main
from tests.conftest import demo_config_on_port, free_port

pytestmark = pytest.mark.e2e
PAGES_PER_SOURCE = 6


@pytest.fixture
def slice_config(tmp_path):
    """The demo college's own config on another port, each source capped at a few pages."""
    return demo_config_on_port(tmp_path, free_port(), max_pages=PAGES_PER_SOURCE)


def tables(warehouse) -> dict:
    with connect(warehouse) as con:
        return {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()
                for t in ("raw_documents", "documents", "cleaned_sources", "chunks", "chunk_tokens",
                          "chunk_annotations", "chunk_augmentations", "index_builds")}


def test_materialize_slice_then_no_change_rerun(slice_config, tmp_path, monkeypatch):
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    warehouse = tmp_path / "warehouse"
    args = ["materialize", "--config", str(slice_config), "--warehouse", str(warehouse)]

    assert main(args) == 0
    first = tables(warehouse)
    kinds = {row[4] for row in first["documents"]}
    assert {"page", "pdf", "notice", "faq"} <= kinds
    assert (warehouse / "dagster" / "dagster.yaml").exists()  # run history beside the data
    builds = sorted(p.name for p in (warehouse / "builds").iterdir())
    assert len(builds) == 2 and "LATEST" in builds  # one build, published

    assert main(args) == 0
    assert tables(warehouse) == first  # no new build either: its inputs did not change
    assert sorted(p.name for p in (warehouse / "builds").iterdir()) == builds
    with connect(warehouse) as con:
        runs = con.execute(
            "SELECT run_id, asset, rows_added, rows_changed, code_version, config_hash, inputs, metadata "
            "FROM materializations ORDER BY finished_at").fetchall()
        outcomes = dict(con.execute(
            "SELECT outcome, count(*) FROM crawl_log WHERE run_id = ? GROUP BY outcome", [runs[-1][0]]).fetchall())
    assets = ["raw_documents", "documents", "chunks", "chunk_annotations", "annotation_accuracy", "chunk_augmentations",
              "intent_dataset", "index_build", "qa_benchmark", "evaluation", "evaluation_report", "dialogue_benchmark",
              "question_log", "feedback", "coverage", "preference_study"]
    assert sorted(r[1] for r in runs) == sorted(assets * 2)
    runs = [r for r in runs if r[1] in {"raw_documents", "documents"}]
    second_crawl, second_clean = runs[2], runs[3]
    assert second_crawl[2] == second_crawl[3] == 0  # nothing new, nothing changed
    assert json.loads(second_clean[7])["parsed_this_run"] == 0
    assert set(outcomes) <= {"not_modified", "failed"} and outcomes["not_modified"] > 20
    # lineage: the cleaning run names the crawl run it read; code and config recorded
    assert json.loads(second_clean[6]) == [{"asset": "raw_documents", "run_id": second_crawl[0]}]
    assert all(r[4] and r[5] for r in runs)


def test_materialize_select_and_failure_exit_code(slice_config, tmp_path, monkeypatch):
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    warehouse = tmp_path / "warehouse"
    assert main(["materialize", "--config", str(slice_config), "--warehouse", str(warehouse),
                 "--select", "nonexistent_asset"]) == 2
    # the port is taken: the crawl cannot serve the site, the run fails, the exit code says so
    config = yaml.safe_load(slice_config.read_text(encoding="utf-8"))
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", config["local_site"]["port"]))
        blocker.listen()
        assert main(["materialize", "--config", str(slice_config), "--warehouse", str(warehouse),
                     "--select", "raw_documents"]) == 1


def test_failures_are_recorded_and_shown_in_asset_metadata(tmp_path, monkeypatch):
    """A site with broken pages, through Dagster: the run goes on, each failure is in the
    lakehouse with its reason and in the asset's metadata in the UI."""
    from dagster import AssetKey, DagsterInstance

    from tests.crafted_site import CraftedSite

    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    warehouse = tmp_path / "warehouse"
    with CraftedSite() as site:
        site.page("/", "<html><body><main><h1>Home</h1><p>본문</p><a href='/broken.pdf'>pdf</a>"
                       "<a href='/down.html'>down</a><a href='/ok.html'>ok</a></main></body></html>")
        site.page("/ok.html", "<html><body><main><h1>OK</h1><p>정상 페이지</p></main></body></html>")
        site.add("/broken.pdf", body=b"%PDF-1.4 garbage", content_type="application/pdf")
        site.add("/down.html", status=503, body=b"down", content_type="text/plain")
        config = tmp_path / "crafted.yaml"
        config.write_text(yaml.safe_dump({
            "institution": "Crafted",
            "pipeline": {"embedder": "lsa"},  # the failures are the point, not the encoder
            "crawl": {"delay_seconds": 0, "retries": 1, "backoff_seconds": 0.01},
            "sources": [{"name": "site", "kind": "html", "seeds": [site.url("/")]}],
            "profile": {"grade": {"type": "integer", "question": "?", "min": 1, "max": 4}},
        }), encoding="utf-8")
        assert main(["materialize", "--config", str(config), "--warehouse", str(warehouse)]) == 0

    instance = DagsterInstance.get()
    crawl = instance.get_latest_materialization_event(AssetKey("raw_documents")).asset_materialization
    clean = instance.get_latest_materialization_event(AssetKey("documents")).asset_materialization
    assert crawl.metadata["failures"].value == 1 and "http_503" in crawl.metadata["failure_details"].value
    assert clean.metadata["failures"].value == 1 and "corrupt_pdf" in clean.metadata["failure_details"].value
    with connect(warehouse) as con:
        reasons = sorted(con.execute("SELECT asset, reason FROM ingest_failures").fetchall())
        active = con.execute("SELECT count(*) FROM documents WHERE status = 'active'").fetchone()[0]
    assert reasons == [("documents", "corrupt_pdf"), ("raw_documents", "http_503")]
    assert active == 2  # the home page and ok.html


def test_llm_backends_through_dagster_against_a_local_openai_server(slice_config, tmp_path, monkeypatch):
    """With OPENAI_BASE_URL set, `auto` picks the LLM annotator and augmenter: real HTTP through
    the openai SDK, usage and cost recorded, and a re-run answered from the cache."""
    from tests.openai_server import FakeOpenAIServer, reply

    def respond(body: dict):
        name = body["response_format"]["json_schema"]["name"]
        if name == "chunk_augmentation":
            return reply({"summary": "요약 문장입니다.", "rewritten": "다시 쓴 본문입니다."}, 300, 40)
        if name == "faq_paraphrases":  # URAG-F: this FAQ question asked another way
            question = body["messages"][-1]["content"].split("<<<\n", 1)[1].split("\n>>>", 1)[0]
            return reply({"paraphrases": [f"{question} 알려주세요", f"혹시 {question}"]}, 200, 30)
        if name == "benchmark_rewrite":  # the QA benchmark's question and reference answer
            prompt = body["messages"][-1]["content"]
            question = prompt.split("Template question: ", 1)[1].split("\n", 1)[0]
            fact = prompt.split("Fact asked for: ", 1)[1].split("\n", 1)[0]
            lead = "아니요" if "claim is false" in prompt else "네"
            return reply({"question": f"저기요, {question}", "reference_answer": f"{lead}, {fact}입니다."}, 300, 30)
        if name == "faq_pairs":  # URAG-F: a new Q/A pair from a document chunk
            return reply({"pairs": [{"question": "이 안내의 요점은 무엇인가요?", "answer": "본문에 안내된 절차를 따르면 됩니다."}]}, 400, 30)
        record = dict.fromkeys(body["response_format"]["json_schema"]["schema"]["properties"])
        record.update(department=["CS"], needs=["department"])
        return reply(record, 500, 30)

    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    server = FakeOpenAIServer().start()
    server.default = respond
    try:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-local-test")
        monkeypatch.setenv("ADVISOR_LLM_MODEL", "gpt-4o-mini")
        warehouse = tmp_path / "warehouse"
        args = ["materialize", "--config", str(slice_config), "--warehouse", str(warehouse)]
        assert main(args) == 0
        first_calls = len(server.requests)
        assert main(args) == 0
        assert len(server.requests) == first_calls  # nothing changed: no call at all
    finally:
        server.stop()

    with connect(warehouse) as con:
        n_chunks = con.execute("SELECT count(*) FROM chunks").fetchall()[0][0]
        by_annotator = dict(con.execute(
            "SELECT annotator, count(DISTINCT chunk_id) FROM chunk_annotations GROUP BY annotator").fetchall())
        usage = con.execute("SELECT task, calls, prompt_tokens, completion_tokens, cost_usd FROM llm_usage "
                            "ORDER BY recorded_at").fetchall()
        llm_departments = {r[0] for r in con.execute(
            "SELECT DISTINCT value_set[1] FROM chunk_annotations WHERE annotator = 'llm' AND attribute = 'department'"
        ).fetchall()}
        accuracy_rows = {r[0] for r in con.execute("SELECT DISTINCT annotator FROM annotation_accuracy").fetchall()}
        llm_augmented = con.execute("SELECT count(*) FROM chunk_augmentations WHERE method = 'llm'").fetchall()[0][0]
    assert by_annotator == {"rules": n_chunks, "llm": n_chunks}
    assert llm_departments == {"CS"}
    assert accuracy_rows == {"rules", "llm"}  # researchers compare annotators in SQL
    assert llm_augmented == n_chunks
    annotate = [u for u in usage if u[0] == "annotate"]
    assert annotate[0][1] == n_chunks and annotate[0][2] == 500 * n_chunks
    assert annotate[0][4] == pytest.approx((500 * 0.15 + 30 * 0.60) * n_chunks / 1e6)
    with connect(warehouse) as con:
        faq_entries, other_chunks = con.execute(
            "SELECT count(DISTINCT doc_url) FILTER (kind = 'faq'), count(*) FILTER (kind <> 'faq') FROM chunks").fetchall()[0]
        enriched = json.loads(con.execute("SELECT manifest FROM index_builds").fetchall()[0][0])["serving"]
    benchmark = [json.loads(line) for line in (warehouse / "benchmarks" / "qa.jsonl").read_text(encoding="utf-8").splitlines()]
    # annotate + augment every chunk; paraphrase every FAQ entry; pairs from every other chunk;
    # rewrite every benchmark question (identical requests, the same question on the same passage
    # for two profiles, are sent once)
    # (the stated-profile slice keeps its template: the student's own words are its point)
    # (and an FAQ question keeps the FAQ's own words: it has no fact to check a rewrite by)
    rewritten = [i for i in benchmark if i["slice"] != "stated_profile" and i["query_type"] != "faq_question"]
    rewrites = {(i["query"], i["reference_answer"], i["gold_chunk_id"]) for i in rewritten}
    assert first_calls == 2 * n_chunks + faq_entries + other_chunks + len(rewrites)
    assert rewritten and {i["written_by"] for i in rewritten} == {"llm:gpt-4o-mini"}
    assert {i["written_by"] for i in benchmark if i["slice"] == "stated_profile"} == {"template"}
    assert {i["written_by"] for i in benchmark if i["query_type"] == "faq_question"} <= {"faq"}
    assert enriched["faq"]["enrichment"] == "llm" and enriched["calibration"]["method"] == "llm_paraphrases"
    assert enriched["faq"]["llm_paraphrase"] == faq_entries and enriched["faq"]["llm_generated"] == other_chunks
