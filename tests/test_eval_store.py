"""Evaluation results in the lakehouse (eval/store/: schema, migration of older lakehouses,
benchmark instances, slices, intent predictions, gold provenance), the `--out` JSON
(eval/store/outfile.py), benchmark reading (eval/benchmark/file.py), `advisor eval` end to end and the
evaluation assets.

The systems themselves are not run here: a fake with run_evaluation's signature returns realistic
rows (eval/runner.py has its own tests), so these tests check what happens to its results.
"""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
import sys
import types
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import duckdb
import polars as pl
import pytest

from advisor.config import CategoricalAttribute, load_config
from advisor.intents.metrics import intent_report
from advisor.lakehouse import insert_rows
from eval import store
from eval.benchmark.file import BenchmarkError, benchmark_hash, read_benchmark
from eval.metrics import registry as metric_registry
from eval.metrics.aggregate import sliced_aggregate
from eval.metrics.keyword_match import keyword_match
from eval.metrics.mrr import mrr
from eval.metrics.recall import recall_at
from eval.metrics.registry import CUTOFFS
from eval.metrics.slices import slice_of
from eval.metrics.source_match import source_match
from eval.metrics.sources import gold_ranks
from eval.metrics.success import success_at
from eval.reports.report import breakdown_markdown, table1_markdown
from eval.store import outfile
from tests.conftest import offline_env

ALL_SYSTEMS = ("bm25", "dense", "hybrid", "hybrid+rerank", "hyde", "hyde+rerank", "profill", "profill+rerank",
               "profill-no-hard-filter", "profill-no-soft-prefix", "profill-no-reretrieval", "urag")
LLM_SYSTEMS = ("hybrid+rerank", "hyde", "hyde+rerank", "profill+rerank")
SKIP_REASON = "needs an LLM; none configured"
TIERS = ("template", "faq", "documents", "fallback")


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


# --- a fake runner with realistic output ---------------------------------------------------------


@dataclass
class FakeOutcome:
    per_query: list[dict]
    aggregates: list[dict]
    params: dict = field(default_factory=dict)


def fake_run_evaluation(advisor, instances, systems=ALL_SYSTEMS, settings=("deployment", "oracle"), *,
                        llm_client=None, tokenizer=None, progress=None, seed=0, **_):
    """run_evaluation's shape: per-query rows with the documented keys, aggregates from
    eval.metrics.aggregate.sliced_aggregate, LLM systems skipped without a client, urag with tier shares."""
    rng = random.Random(seed)
    per_query, aggregates = [], []
    for setting in settings:
        for system in systems:
            if system in LLM_SYSTEMS and llm_client is None:
                aggregates.append({"system": system, "setting": setting, "skipped": SKIP_REASON})
                continue
            rows = []
            for instance in instances:
                gold = instance["gold_sources"]
                rank = rng.choice([1, 1, 2, 3, 7, 20, None])
                others = [f"http://example.edu/other/{i}" for i in range(30)]
                retrieved = others[: (rank or 31) - 1] + ([gold[0]] if rank else []) + others[(rank or 31) - 1:]
                if len(gold) > 1 and rng.random() < 0.5:  # a second gold further down
                    retrieved.insert(min(len(retrieved), (rank or 0) + 5), gold[1])
                asked = ["unused"] if setting == "deployment" and system.startswith("profill") else []
                tier = rng.choice(TIERS) if system == "urag" else None
                answer = f"{instance['query']} -> {' '.join(instance.get('keywords') or [])}"
                cited = retrieved[:1]
                source = source_match(gold, cited, retrieved)
                ranks = gold_ranks(retrieved, gold)
                rows.append({
                    "system": system, "setting": setting, "instance_id": instance["id"],
                    "category": instance.get("category"), "query_type": instance.get("query_type"),
                    "slice": slice_of(instance), "gold_sources": list(gold),
                    "rank": ranks[0] if ranks else None, "gold_ranks": ranks, "retrieved_urls": retrieved,
                    "retrieved_chunk_ids": [f"c{i}" for i in range(10)], "questions_asked": len(asked),
                    "questions": asked, "answer": answer, "citations": cited, "tier": tier,
                    "answer_method": "extractive", "rouge_l": rng.random(), "token_f1": rng.random(),
                    "keyword_match": keyword_match(answer, instance.get("keywords") or []),
                    "source_match": source, "answer_correctness": None, "grounded_correctness": None,
                    "seconds": 0.01 + rng.random() / 100, "llm_calls": 0, "llm_tokens": 0,
                })
            aggregate = {"system": system, "setting": setting, "skipped": None,
                         **sliced_aggregate(rows)}
            if system == "urag":
                # the runner's shape: a share per tier, and accuracy (mean source match) per tier
                by_tier = {t: [r["source_match"] for r in rows if r["tier"] == t] for t in TIERS}
                aggregate["tiers"] = {t: len(by_tier[t]) / len(rows) for t in TIERS}
                aggregate["tiers"]["accuracy"] = {t: sum(v) / len(v) if v else None for t, v in by_tier.items()}
            per_query += rows
            aggregates.append(aggregate)
    return FakeOutcome(per_query, aggregates, {"k": 10, "judge_model": None})


def profile_for(config, variant: int) -> dict:
    """A profile over whatever attributes the config's schema has, with surface forms (aliases)
    where it has them, so canonicalization is exercised."""
    profile = {}
    for name, attribute in config.profile.items():
        if isinstance(attribute, CategoricalAttribute):
            canonical = list(attribute.values)[variant % len(attribute.values)]
            aliases = attribute.values[canonical]
            profile[name] = aliases[0] if aliases else canonical
        else:
            profile[name] = str(attribute.min + variant % (attribute.max - attribute.min + 1))
    return profile


def make_instances(config, n: int = 6, sliced: bool = False, gold_from: str | None = None) -> list[dict]:
    """n instances; every third has a second gold source (an FAQ entry); with `sliced`, the last
    third are profile_independent and the rest profile_dependent; `gold_from` as synthesis sets it."""
    categories, query_types = ("graduation", "scholarship"), ("formal", "first_person", "verification")
    instances = []
    for i in range(n):
        instance = {
            "id": f"q{i}", "query": f"질문 {i}번", "query_type": query_types[i % 3], "category": categories[i % 2],
            "profile": profile_for(config, i),
            "gold_sources": [f"http://example.edu/doc/{i}"] + ([f"http://example.edu/faq#q{i}"] if i % 3 == 0 else []),
            "keywords": [f"{i}학점"], "reference_answer": f"{i}학점입니다.", "intent": "retrieval",
        }
        if sliced:
            instance["slice"] = "profile_independent" if i >= 2 * n // 3 else "profile_dependent"
            instance["premise"] = "true" if instance["query_type"] == "verification" else None
        if gold_from is not None:
            instance["gold_from"] = gold_from
            instance["gold_chunk_id"] = f"chunk-{i}"  # provenance the lakehouse keeps
        instances.append(instance)
    return instances


def write_jsonl(path: Path, instances: list[dict]) -> Path:
    path.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in instances), encoding="utf-8")
    return path


def make_meta(**changes) -> store.RunMeta:
    meta = store.RunMeta(
        benchmark="bench.jsonl", benchmark_hash="b" * 16, instances=6, build_id="20260101T000000000000Z-aaaaaaaa",
        annotator="rules", embedder="lsa", code_version="c0de", config_hash="cf" * 8,
        systems=ALL_SYSTEMS, settings=("deployment", "oracle"), institution="Test College",
        started_at=datetime.now(timezone.utc) - timedelta(seconds=5))
    return replace(meta, **changes)


@pytest.fixture(scope="module")
def config():
    return load_config()


@pytest.fixture
def recorded(config):
    con = duckdb.connect()
    outcome = fake_run_evaluation(None, make_instances(config))
    meta = make_meta()
    run_id = store.record_run(con, outcome=outcome, run_meta=meta)
    yield con, outcome, meta, run_id
    con.close()


# --- store ----------------------------------------------------------------------------------------


def test_schema_is_created_idempotently_and_keeps_rows(recorded):
    con, outcome, _, run_id = recorded
    store.ensure_schema(con)
    store.ensure_schema(con)
    tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    assert {"eval_runs", "eval_query_results", "eval_aggregates", "intent_eval"} <= tables
    assert con.execute("SELECT count(*) FROM eval_query_results WHERE run_id = ?", [run_id]).fetchall()[0][0] \
        == len(outcome.per_query)


def test_every_row_of_a_run_carries_its_lineage(recorded):
    con, outcome, meta, run_id = recorded
    expected = meta.lineage()
    for table in ("eval_query_results", "eval_aggregates"):
        lineage = con.sql(f"SELECT DISTINCT {', '.join(store.LINEAGE_FIELDS)} FROM {table} WHERE run_id = ?",
                          params=[run_id]).pl().to_dicts()
        assert lineage == [expected], table
    run = store.run_info(con, run_id)
    assert {k: run[k] for k in store.LINEAGE_FIELDS} == expected
    assert run["systems"] == list(ALL_SYSTEMS) and run["instances"] == 6 and run["params"]["k"] == 10
    assert run["fingerprint"] == meta.fingerprint and run["dagster_run_id"] is None
    # the SQL a researcher writes: one system's MRR by build
    mrr = con.execute("SELECT build_id, mrr FROM eval_aggregates "
                      "WHERE system = 'profill' AND setting = 'oracle'").fetchall()
    wanted = next(a["mrr"] for a in outcome.aggregates if a["system"] == "profill" and a["setting"] == "oracle")
    assert mrr == [(meta.build_id, pytest.approx(wanted))]


def test_aggregates_frame_round_trips_with_report_column_names(recorded):
    con, outcome, meta, run_id = recorded
    frame = store.aggregates_frame(con, run_id)
    assert {"recall@1", "recall@5", "recall@10", "recall@50"} <= set(frame.columns)
    stored = {(r["system"], r["setting"]): r for r in frame.to_dicts()}
    assert len(stored) == len(outcome.aggregates)
    for aggregate in outcome.aggregates:
        row = stored[(aggregate["system"], aggregate["setting"])]
        assert row["skipped"] == aggregate["skipped"]
        for name in metric_registry.fields():
            assert row[name] == pytest.approx(aggregate.get(name)), (aggregate["system"], name)
        if aggregate["skipped"]:
            assert row["n"] == 0 and row["mrr"] is None
        if "tiers" in aggregate:
            assert json.loads(row["tiers"]) == aggregate["tiers"]  # JSON keeps floats exactly
    table = table1_markdown(frame)
    assert SKIP_REASON in table and "| deployment | profill |" in table


def test_per_query_frame_round_trips_lists_and_nulls(recorded):
    con, outcome, _, run_id = recorded
    frame = store.per_query_frame(con, run_id)
    assert frame.height == len(outcome.per_query)
    stored = {(r["system"], r["setting"], r["instance_id"]): r for r in frame.to_dicts()}
    for row in outcome.per_query:
        back = stored[(row["system"], row["setting"], row["instance_id"])]
        for key in store.query_columns():
            value = row[key]
            assert back[key] == (pytest.approx(value) if isinstance(value, float) else value), key
    assert any(r["rank"] is None for r in frame.to_dicts())  # "not retrieved" stays NULL, not 0
    assert "graduation" in breakdown_markdown(frame, "category")


def test_a_run_is_written_all_or_nothing(config, monkeypatch):
    con = duckdb.connect()
    outcome = fake_run_evaluation(None, make_instances(config))
    from eval.store import record

    real_insert = record.insert_rows

    def failing(con_, table, rows):
        if table == "eval_aggregates":
            raise RuntimeError("disk full")
        real_insert(con_, table, rows)

    monkeypatch.setattr(record, "insert_rows", failing)
    with pytest.raises(RuntimeError):
        store.record_run(con, outcome=outcome, run_meta=make_meta())
    for table in ("eval_runs", "eval_query_results", "eval_aggregates"):
        assert con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0] == 0, table


def test_bad_rows_are_refused_naming_the_row(config):
    con = duckdb.connect()
    outcome = fake_run_evaluation(None, make_instances(config))
    duplicate = FakeOutcome(outcome.per_query + outcome.per_query[:1], outcome.aggregates)
    with pytest.raises(ValueError, match="more than one row"):
        store.record_run(con, outcome=duplicate, run_meta=make_meta())
    mistyped = FakeOutcome([{**outcome.per_query[0], "rank": "first"}], outcome.aggregates)
    with pytest.raises(ValueError, match="rank"):
        store.record_run(con, outcome=mistyped, run_meta=make_meta())
    with pytest.raises(ValueError, match="lineage"):
        store.record_run(con, outcome=outcome, run_meta=make_meta(build_id=""))


def test_latest_run_and_fingerprint_lookup(config):
    con = duckdb.connect()
    outcome = fake_run_evaluation(None, make_instances(config))
    now = datetime.now(timezone.utc)
    old = make_meta(finished_at=now - timedelta(hours=1))
    new = make_meta(build_id="20260202T000000000000Z-bbbbbbbb", finished_at=now)
    other = make_meta(benchmark="other.jsonl", benchmark_hash="o" * 16, finished_at=now - timedelta(minutes=1))
    for meta in (old, new, other):
        store.record_run(con, outcome=outcome, run_meta=meta)
    assert store.latest_run(con)["run_id"] == new.run_id
    assert store.latest_run(con, benchmark="other.jsonl")["run_id"] == other.run_id
    assert store.latest_run(con, benchmark="o" * 16)["run_id"] == other.run_id
    assert store.latest_run(con, benchmark="missing.jsonl") is None
    assert old.fingerprint != new.fingerprint  # another build must not reuse old results
    assert store.find_run(con, old.fingerprint) == old.run_id
    assert store.find_run(con, make_meta(code_version="changed").fingerprint) is None
    # the same run recorded again replaces itself
    store.record_run(con, outcome=outcome, run_meta=old)
    assert con.execute("SELECT count(*) FROM eval_runs").fetchall()[0][0] == 3
    with pytest.raises(KeyError):
        store.aggregates_frame(con, "no-such-run")


def test_intent_report_rows(config):
    con = duckdb.connect()
    gold, predicted = ["greeting", "retrieval", "faq", "retrieval"], ["greeting", "faq", "faq", "retrieval"]
    report = intent_report(gold, predicted, labels=("greeting", "ability", "faq", "smalltalk", "retrieval"))
    meta = make_meta()
    run_id = store.record_run(con, outcome=fake_run_evaluation(None, make_instances(config)), run_meta=meta,
                              intent=report, intent_router="intent-logreg-x")
    frame = store.intent_frame(con, run_id)
    assert frame.height == 5 and set(frame["n"]) == {4}
    retrieval = frame.filter(pl.col("intent") == "retrieval").row(0, named=True)
    assert retrieval["recall"] == pytest.approx(0.5) and retrieval["support"] == 2
    assert con.execute("SELECT DISTINCT build_id FROM intent_eval").fetchall() == [(meta.build_id,)]


def test_code_version_follows_result_code_not_presentation(tmp_path):
    for relative in ("eval/runner.py", "eval/store/record.py", "eval/metrics/label_errors.py", "advisor/retrieval/x.py",
                     "serving/api/app.py", "advisor/llm/client.py", "assets/evaluation.py"):
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text("a = 1\n")
    base = store.evaluation_code_version(tmp_path)
    (tmp_path / "eval/store/record.py").write_text("a = 2\n")
    (tmp_path / "serving/api/app.py").write_text("a = 2\n")
    (tmp_path / "eval/reports").mkdir()
    (tmp_path / "eval/reports/fleet.py").write_text("a = 1\n")  # a new module that only reads stored runs
    assert store.evaluation_code_version(tmp_path) == base
    (tmp_path / "eval/metrics/label_errors.py").write_text("a = 2\n")  # decides the rows' label_errors
    changed = store.evaluation_code_version(tmp_path)
    assert changed != base
    (tmp_path / "advisor/retrieval/x.py").write_text("a = 2\n")
    assert store.evaluation_code_version(tmp_path) not in (base, changed)


# --- slices, benchmark instances, intent predictions, gold provenance -----------------------------


def test_a_recorded_runs_aggregates_read_back_as_its_out_file_had_them(config):
    """A reused run's `--out` file is written from the lakehouse: the same document as the run's own."""
    con = duckdb.connect()
    instances = make_instances(config, 9, sliced=True, gold_from="annotations")
    systems = ("bm25", "hyde", "urag")
    outcome = fake_run_evaluation(None, instances, systems=systems)
    meta = make_meta(instances=9, systems=systems)
    run_id = store.record_run(con, outcome=outcome, run_meta=meta, instances=instances)
    stored = store.run_aggregates(con, run_id)
    assert [(a["system"], a["setting"]) for a in stored] == [(s, t) for s in systems for t in meta.settings]
    common = {"build_id": meta.build_id, "benchmark": "b.jsonl", "instances": 9, "run_id": run_id,
              "gold_from": "annotations"}
    by_key = lambda document: {(r["system"], r["setting"]): r for r in document["results"]}  # noqa: E731
    assert by_key(outfile.out_document(stored, **common)) == by_key(outfile.out_document(outcome.aggregates, **common))


def test_main_aggregate_is_over_the_profile_dependent_slice_and_every_slice_has_its_row(config):
    con = duckdb.connect()
    instances = make_instances(config, 9, sliced=True, gold_from="annotations")
    outcome = fake_run_evaluation(None, instances, systems=("bm25", "hyde", "urag"))
    run_id = store.record_run(con, outcome=outcome, run_meta=make_meta(instances=9), instances=instances)

    stored = {(r["system"], r["setting"]): r for r in store.aggregates_frame(con, run_id).to_dicts()}
    per_query = store.per_query_frame(con, run_id)
    for (system, setting), row in stored.items():
        if row["skipped"]:
            continue
        dependent = per_query.filter((pl.col("system") == system) & (pl.col("setting") == setting)
                                     & (pl.col("slice") == "profile_dependent"))
        expected = mrr(dependent["rank"].to_list())
        assert row["slice"] == "profile_dependent" and row["n"] == dependent.height == 6
        assert row["mrr"] == pytest.approx(expected)
        assert row["success@10"] == pytest.approx(success_at(dependent["rank"].to_list(), 10))
        golds = [len(set(g)) for g in dependent["gold_sources"].to_list()]
        assert row["recall@10"] == pytest.approx(recall_at(dependent["gold_ranks"].to_list(), golds, 10))
    slices = store.slice_aggregates_frame(con, run_id)
    assert set(zip(slices["system"], slices["setting"], slices["slice"])) == {
        (s, t, sl) for s in ("bm25", "urag") for t in ("deployment", "oracle")
        for sl in ("profile_dependent", "profile_independent")}
    independent = slices.filter((pl.col("system") == "bm25") & (pl.col("setting") == "oracle")
                                & (pl.col("slice") == "profile_independent")).row(0, named=True)
    rows = per_query.filter((pl.col("system") == "bm25") & (pl.col("setting") == "oracle")
                            & (pl.col("slice") == "profile_independent"))
    assert independent["n"] == rows.height == 3 and independent["mrr"] == pytest.approx(mrr(rows["rank"].to_list()))


def test_instances_are_recorded_once_and_every_result_joins_to_its_question(config):
    con = duckdb.connect()
    instances = make_instances(config, 6, sliced=True, gold_from="annotations")
    outcome = fake_run_evaluation(None, instances, systems=("bm25", "profill"))
    first = store.record_run(con, outcome=outcome, run_meta=make_meta(), instances=instances)
    again = store.record_run(con, outcome=outcome, run_meta=make_meta(), instances=instances)  # same benchmark
    assert first != again
    assert con.execute("SELECT count(*) FROM benchmark_instances").fetchall() == [(6,)]
    assert store.record_benchmark(con, "bench.jsonl", "b" * 16, instances) is False  # a no-op
    unjoined = con.execute(
        "SELECT count(*) FROM eval_query_results q LEFT JOIN benchmark_instances b USING (benchmark_hash, instance_id) "
        "WHERE b.query IS NULL").fetchall()[0][0]
    assert unjoined == 0 and con.execute("SELECT count(*) FROM eval_query_results").fetchall()[0][0] == 2 * 2 * 6 * 2
    stored = store.benchmark_frame(con, "b" * 16).to_dicts()
    by_id = {r["instance_id"]: r for r in stored}
    for instance in instances:
        row = by_id[instance["id"]]
        assert row["query"] == instance["query"] and row["gold_sources"] == instance["gold_sources"]
        assert json.loads(row["profile"]) == instance["profile"] and row["slice"] == instance["slice"]
        assert row["gold_from"] == "annotations" and row["premise"] == instance["premise"]
        assert json.loads(row["provenance"]) == {"intent": "retrieval", "gold_chunk_id": instance["gold_chunk_id"]}
    assert store.run_info(con, first)["gold_from"] == "annotations"
    # a result row naming an instance the benchmark lacks is refused
    with pytest.raises(ValueError, match="instances the benchmark does not have"):
        store.record_run(con, outcome=outcome, run_meta=make_meta(), instances=instances[1:])


@pytest.mark.parametrize("origins, expected", [
    (["truth"], "truth"), (["annotations", "annotations"], "annotations"), ([None], "benchmark"),
    (["truth", None, "annotations"], "annotations,benchmark,truth"),
])
def test_gold_from_is_derived_from_the_instances(config, origins, expected):
    from eval.benchmark.provenance import gold_from_of, gold_note

    instances = make_instances(config, len(origins))
    for instance, origin in zip(instances, origins):
        if origin is not None:
            instance["gold_from"] = origin
    assert gold_from_of(instances) == expected
    assert (gold_note(expected) is not None) == ("annotations" in expected)
    con = duckdb.connect()
    run_id = store.record_run(con, outcome=fake_run_evaluation(None, instances, systems=("bm25",)),
                              run_meta=make_meta(), instances=instances)
    assert store.run_info(con, run_id)["gold_from"] == expected
    given = store.record_run(con, outcome=fake_run_evaluation(None, instances, systems=("bm25",)),
                             run_meta=make_meta(gold_from="truth"), instances=instances)
    assert store.run_info(con, given)["gold_from"] == "truth"  # the run's own word wins


def test_intent_predictions_are_stored_per_example(config):
    con = duckdb.connect()
    predictions = [{"example_id": f"e{i}", "text": f"안녕 {i}", "intent": gold, "predicted": predicted,
                    "confidence": 0.5 + i / 20}
                   for i, (gold, predicted) in enumerate([("greeting", "greeting"), ("faq", "retrieval"),
                                                          ("retrieval", "retrieval")])]
    report = intent_report([p["intent"] for p in predictions], [p["predicted"] for p in predictions])
    run_id = store.record_run(con, outcome=fake_run_evaluation(None, make_instances(config), systems=("bm25",)),
                              run_meta=make_meta(), intent=report, intent_router="r1", intent_predictions=predictions)
    frame = store.intent_predictions_frame(con, run_id)
    assert frame["example_id"].to_list() == ["e0", "e1", "e2"] and set(frame["router"]) == {"r1"}
    assert frame.filter(pl.col("intent") != pl.col("predicted"))["example_id"].to_list() == ["e1"]
    assert frame["confidence"].to_list() == pytest.approx([0.5, 0.55, 0.6])
    assert con.execute("SELECT DISTINCT build_id FROM intent_predictions").fetchall() == [(make_meta().build_id,)]
    with pytest.raises(ValueError, match="confidence"):
        store.record_run(con, outcome=fake_run_evaluation(None, make_instances(config), systems=("bm25",)),
                         run_meta=make_meta(), intent_predictions=[{**predictions[0], "confidence": 2.0}])


# The tables as the first version of the store (eval/store/schema.py) created them, before success@k, slices and
# gold ranks: a lakehouse written then must open without losing a row, and with right numbers.
V1_SCHEMA = """
CREATE TABLE eval_runs (run_id VARCHAR PRIMARY KEY, started_at TIMESTAMPTZ NOT NULL, finished_at TIMESTAMPTZ NOT NULL,
    benchmark VARCHAR NOT NULL, benchmark_hash VARCHAR NOT NULL, instances INTEGER NOT NULL, build_id VARCHAR NOT NULL,
    annotator VARCHAR, annotator_version VARCHAR, embedder VARCHAR, embedder_version VARCHAR,
    code_version VARCHAR NOT NULL, config_hash VARCHAR NOT NULL, institution VARCHAR, systems VARCHAR[] NOT NULL,
    settings VARCHAR[] NOT NULL, llm_model VARCHAR, fingerprint VARCHAR NOT NULL, params JSON, dagster_run_id VARCHAR);
CREATE TABLE eval_query_results (run_id VARCHAR NOT NULL, system VARCHAR NOT NULL, setting VARCHAR NOT NULL,
    instance_id VARCHAR NOT NULL, category VARCHAR, query_type VARCHAR, gold_sources VARCHAR[], rank INTEGER,
    retrieved_urls VARCHAR[], retrieved_chunk_ids VARCHAR[], questions_asked INTEGER, questions VARCHAR[],
    answer VARCHAR, citations VARCHAR[], tier VARCHAR, answer_method VARCHAR, rouge_l DOUBLE, token_f1 DOUBLE,
    keyword_match DOUBLE, source_match DOUBLE, answer_correctness DOUBLE, grounded_correctness DOUBLE,
    seconds DOUBLE, llm_calls INTEGER, llm_tokens BIGINT, extra JSON, build_id VARCHAR NOT NULL, annotator VARCHAR,
    embedder VARCHAR, code_version VARCHAR NOT NULL, config_hash VARCHAR NOT NULL, benchmark VARCHAR NOT NULL,
    benchmark_hash VARCHAR NOT NULL, PRIMARY KEY (run_id, system, setting, instance_id));
CREATE TABLE eval_aggregates (run_id VARCHAR NOT NULL, system VARCHAR NOT NULL, setting VARCHAR NOT NULL,
    n INTEGER NOT NULL, mrr DOUBLE, recall_at_1 DOUBLE, recall_at_5 DOUBLE, recall_at_10 DOUBLE, recall_at_50 DOUBLE,
    rouge_l DOUBLE, token_f1 DOUBLE, keyword_match DOUBLE, source_match DOUBLE, grounded_correctness DOUBLE,
    seconds_per_query DOUBLE, questions_per_query DOUBLE, skipped VARCHAR, tiers JSON, extra JSON,
    build_id VARCHAR NOT NULL, annotator VARCHAR, embedder VARCHAR, code_version VARCHAR NOT NULL,
    config_hash VARCHAR NOT NULL, benchmark VARCHAR NOT NULL, benchmark_hash VARCHAR NOT NULL,
    PRIMARY KEY (run_id, system, setting));
CREATE TABLE intent_eval (run_id VARCHAR NOT NULL, intent VARCHAR NOT NULL, precision DOUBLE NOT NULL,
    recall DOUBLE NOT NULL, f1 DOUBLE NOT NULL, support INTEGER NOT NULL, n INTEGER NOT NULL, accuracy DOUBLE NOT NULL,
    macro_f1 DOUBLE NOT NULL, router VARCHAR, build_id VARCHAR NOT NULL, annotator VARCHAR, embedder VARCHAR,
    code_version VARCHAR NOT NULL, config_hash VARCHAR NOT NULL, benchmark VARCHAR NOT NULL,
    benchmark_hash VARCHAR NOT NULL, PRIMARY KEY (run_id, intent));
"""


def _v1_lakehouse(path: Path, config) -> tuple[FakeOutcome, store.RunMeta]:
    """A lakehouse as the first version wrote it: its recall_at_k held success@k, no gold ranks."""
    outcome = fake_run_evaluation(None, make_instances(config, 9), systems=("bm25", "hyde", "profill"))
    meta = make_meta(instances=9)
    lineage = meta.lineage()
    con = duckdb.connect(str(path))
    con.execute(V1_SCHEMA)
    old_query_columns = [c for c in store.query_columns() if c not in ("slice", "gold_ranks")]
    run = {"run_id": meta.run_id, "started_at": meta.started_at, "finished_at": meta.started_at,
           "benchmark": meta.benchmark, "benchmark_hash": meta.benchmark_hash, "instances": 9,
           "build_id": meta.build_id, "code_version": meta.code_version, "config_hash": meta.config_hash,
           "systems": list(meta.systems), "settings": list(meta.settings), "fingerprint": meta.fingerprint}
    insert_rows(con, "eval_runs", [run])
    insert_rows(con, "eval_query_results",
                      [{"run_id": meta.run_id, **lineage, **{c: r[c] for c in old_query_columns}}
                       for r in outcome.per_query])
    old = []
    for a in outcome.aggregates:
        row = {"run_id": meta.run_id, **lineage, "system": a["system"], "setting": a["setting"],
               "n": a.get("n") or 0, "skipped": a["skipped"], "mrr": a.get("mrr")}
        row.update({f"recall_at_{k}": a.get(f"success@{k}") for k in CUTOFFS})  # what v1 called recall
        old.append(row)
    insert_rows(con, "eval_aggregates", old)
    con.close()
    return outcome, meta


def test_an_older_lakehouse_is_migrated_without_losing_rows_and_its_recall_corrected(config, tmp_path):
    path = tmp_path / "old.duckdb"
    outcome, meta = _v1_lakehouse(path, config)

    # read-only before migrating: what was stored as recall reads as success, recall as not recorded
    con = duckdb.connect(str(path), read_only=True)
    unmigrated = {(r["system"], r["setting"]): r for r in store.aggregates_frame(con, meta.run_id).to_dicts()}
    con.close()
    profill = next(a for a in outcome.aggregates if (a["system"], a["setting"]) == ("profill", "deployment"))
    assert unmigrated[("profill", "deployment")]["success@1"] == pytest.approx(profill["success@1"])
    assert unmigrated[("profill", "deployment")]["recall@1"] is None

    con = duckdb.connect(str(path))
    store.ensure_schema(con)
    assert con.execute("SELECT count(*) FROM eval_query_results").fetchall() == [(len(outcome.per_query),)]
    migrated = {(r["system"], r["setting"]): r for r in store.aggregates_frame(con, meta.run_id).to_dicts()}
    assert set(migrated) == {(a["system"], a["setting"]) for a in outcome.aggregates}
    for a in outcome.aggregates:  # exactly what a run recorded today would hold
        row = migrated[(a["system"], a["setting"])]
        for name in ("mrr", *(f"{m}@{k}" for m in ("recall", "success") for k in CUTOFFS)):
            assert row[name] == pytest.approx(a.get(name)), (a["system"], name)
        assert row["slice"] == "all"
    per_query = store.per_query_frame(con, meta.run_id)
    expected = {(r["system"], r["setting"], r["instance_id"]): r["gold_ranks"] for r in outcome.per_query}
    assert {(r["system"], r["setting"], r["instance_id"]): r["gold_ranks"] for r in per_query.to_dicts()} == expected
    assert any(len(v) > 1 for v in expected.values()) and set(per_query["slice"]) == {"all"}
    assert store.run_info(con, meta.run_id)["gold_from"] is None  # not known for old runs, not guessed

    before = store.aggregates_frame(con, meta.run_id)
    store.ensure_schema(con)  # migrating twice changes nothing
    assert store.aggregates_frame(con, meta.run_id).equals(before)
    new_run = store.record_run(con, outcome=outcome, run_meta=make_meta(instances=9))  # and new runs record
    retrieval = ["system", "setting", "n", "skipped", "mrr", *(f"{m}@{k}" for m in ("recall", "success")
                                                               for k in CUTOFFS)]
    recorded = store.aggregates_frame(con, new_run).select(retrieval).to_dicts()
    assert recorded == [pytest.approx(row) for row in before.select(retrieval).to_dicts()]
    con.close()


# --- the --out JSON -------------------------------------------------------------------------------


def test_out_document_has_the_contract_keys_nulls_and_skips(config, tmp_path):
    outcome = fake_run_evaluation(None, make_instances(config), systems=("bm25", "hyde", "urag"))
    outcome.aggregates[0]["grounded_correctness"] = math.nan  # NaN is not JSON: it is "not computed"
    document = outfile.out_document(outcome.aggregates, build_id="B", benchmark="bench.jsonl", instances=6)
    path = outfile.write_out(tmp_path / "deep" / "out.json", document)
    loaded = json.loads(path.read_text(encoding="utf-8"))
    assert set(loaded) == {"build_id", "benchmark", "instances", "results"}
    assert (loaded["build_id"], loaded["benchmark"], loaded["instances"]) == ("B", "bench.jsonl", 6)
    assert len(loaded["results"]) == 6
    # the contract's fields in its order (docs/contracts.md §1): the metric registry's order is it
    assert outfile.result_fields() == (
        "system", "setting", "n", "mrr", "recall@1", "recall@5", "recall@10", "recall@50", "success@1", "success@5",
        "success@10", "success@50", "rouge_l", "token_f1", "keyword_match", "source_match", "grounded_correctness",
        "seconds_per_query", "questions_per_query", "skipped")
    for row in loaded["results"]:
        assert list(row)[:len(outfile.result_fields())] == list(outfile.result_fields())
        if row["system"] == "hyde":
            assert row["skipped"] == SKIP_REASON and row["n"] == 0
            assert all(row[m] is None for m in metric_registry.fields())
        else:
            assert row["skipped"] is None and row["n"] == 6 and 0 <= row["mrr"] <= 1
        if row["system"] == "urag":
            assert set(row["tiers"]) == set(TIERS) and sum(row["tiers"].values()) == pytest.approx(1.0)
            assert set(row["tier_accuracy"]) == set(TIERS)
            assert all(a is None or 0 <= a <= 1 for a in row["tier_accuracy"].values())
        else:
            assert "tiers" not in row
    assert loaded["results"][0]["grounded_correctness"] is None


def test_out_document_says_where_the_gold_came_from_and_carries_success_and_slices(config, tmp_path):
    instances = make_instances(config, 9, sliced=True, gold_from="annotations")
    outcome = fake_run_evaluation(None, instances, systems=("bm25", "hyde", "urag"))
    document = outfile.out_document(outcome.aggregates, build_id="B", benchmark="bench.jsonl", instances=9,
                                    gold_from="annotations")
    loaded = json.loads(outfile.write_out(tmp_path / "out.json", document).read_text(encoding="utf-8"))
    assert loaded["gold_from"] == "annotations" and "cannot show up as a miss" in loaded["gold_note"]
    for row in loaded["results"]:
        aggregate = next(a for a in outcome.aggregates if (a["system"], a["setting"]) == (row["system"], row["setting"]))
        for k in CUTOFFS:
            assert row[f"success@{k}"] == aggregate.get(f"success@{k}")
            assert row[f"recall@{k}"] == aggregate.get(f"recall@{k}")  # the name kept, now TREC recall
        if row["skipped"]:
            assert "slices" not in row
            continue
        assert row["slice"] == "profile_dependent" and row["n"] == 6
        assert set(row["slices"]) == {"profile_dependent", "profile_independent"}
        independent = row["slices"]["profile_independent"]
        assert independent["n"] == 3 and set(metric_registry.fields()) <= set(independent)
        assert independent["mrr"] == aggregate["slices"]["profile_independent"]["mrr"]
    truth = outfile.out_document(outcome.aggregates, build_id="B", benchmark="b", instances=9, gold_from="truth")
    assert truth["gold_from"] == "truth" and truth["gold_note"] is None


def test_out_document_refuses_a_malformed_aggregate():
    with pytest.raises(ValueError, match="system"):
        outfile.out_document([{"setting": "oracle", "n": 1}], build_id="B", benchmark="b", instances=1)
    with pytest.raises(ValueError, match="mrr"):
        outfile.out_document([{"system": "bm25", "setting": "oracle", "n": 1, "mrr": "high"}], build_id="B",
                             benchmark="b", instances=1)
    with pytest.raises(ValueError, match="tier"):
        outfile.out_document([{"system": "urag", "setting": "oracle", "n": 1, "tiers": {"cache": 1.0}}],
                             build_id="B", benchmark="b", instances=1)


# --- benchmark files ------------------------------------------------------------------------------


def test_benchmark_reads_and_canonicalizes_profiles(config, tmp_path):
    instances = make_instances(config, 3)
    path = tmp_path / "b.jsonl"
    path.write_text("\ufeff" + json.dumps(instances[0], ensure_ascii=False) + "\n\n"
                    + "".join(json.dumps(i, ensure_ascii=False) + "\n" for i in instances[1:]), encoding="utf-8")
    raw = read_benchmark(path)
    assert [i["id"] for i in raw] == ["q0", "q1", "q2"] and raw[0]["profile"] == instances[0]["profile"]
    checked = read_benchmark(path, config.profile)
    for instance in checked:
        for name, value in instance["profile"].items():
            attribute = config.profile[name]
            if isinstance(attribute, CategoricalAttribute):
                assert value in attribute.values
            else:
                assert isinstance(value, int) and attribute.min <= value <= attribute.max


@pytest.mark.parametrize("line, fragment", [
    ('{"id": "b", "query": "q", "gold_sources": ["u"]', "not valid JSON"),
    ('{"id": "b", "query": "q"}', "gold_sources"),
    ('{"id": "b", "query": "q", "gold_sources": "http://x/"}', "gold_sources"),
    ('{"id": "b", "query": "q", "gold_sources": []}', "gold_sources"),
    ('{"id": "b", "query": "", "gold_sources": ["u"]}', "query"),
    ('{"id": "b", "query": "q", "gold_sources": ["u"], "keywords": [""]}', "keywords[0]"),
    ('{"id": "b", "query": "q", "gold_sources": ["u"], "intent": "chitchat"}', "intent"),
    ('["id", "query"]', "JSON object"),
    ('{"id": "a", "query": "q", "gold_sources": ["u"]}', "duplicate id 'a' (first on line 1)"),
])
def test_bad_benchmark_lines_are_named(tmp_path, line, fragment):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a", "query": "q", "gold_sources": ["u"]}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(BenchmarkError) as error:
        read_benchmark(path)
    assert f"{path}:2:" in str(error.value) and fragment in str(error.value)
    assert error.value.line == 2


def test_unknown_profile_attribute_names_the_line_and_instance(config, tmp_path):
    instances = make_instances(config, 3)
    instances[2]["profile"]["shoe_size"] = 270
    path = write_jsonl(tmp_path / "b.jsonl", instances)
    read_benchmark(path)  # the format alone is fine
    with pytest.raises(BenchmarkError) as error:
        read_benchmark(path, config.profile)
    assert f"{path}:3:" in str(error.value) and "'q2'" in str(error.value) and "shoe_size" in str(error.value)
    name, attribute = next((n, a) for n, a in config.profile.items() if isinstance(a, CategoricalAttribute))
    instances[2]["profile"] = {name: "no-such-value"}
    with pytest.raises(BenchmarkError, match=f"profile.{name}"):
        read_benchmark(write_jsonl(tmp_path / "c.jsonl", instances), config.profile)


def test_benchmark_file_errors_and_hash(tmp_path):
    with pytest.raises(BenchmarkError, match="not found"):
        read_benchmark(tmp_path / "missing.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    with pytest.raises(BenchmarkError, match="no instances"):
        read_benchmark(empty)
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes('{"id": "é"}'.encode("latin-1"))
    with pytest.raises(BenchmarkError, match="UTF-8"):
        read_benchmark(latin)
    one_line = tmp_path / "a.jsonl"
    one_line.write_text('{"id": "a", "query": "q", "gold_sources": ["u"]}\n')
    first = benchmark_hash(one_line)
    assert benchmark_hash(one_line) == first and len(first) == 16
    one_line.write_text('{"id": "a", "query": "q2", "gold_sources": ["u"]}\n')
    assert benchmark_hash(one_line) != first


# --- advisor eval, end to end on a copy of the demo warehouse -------------------------------------


@pytest.fixture
def fake_runner(monkeypatch):
    """Replaces eval.runner.run_evaluation (installing a stand-in module if the runner is absent)
    and records how it was called."""
    try:
        import eval.runner as runner
    except ImportError:
        runner = types.ModuleType("eval.runner")
        runner.SYSTEMS, runner.SETTINGS = ALL_SYSTEMS, ("deployment", "oracle")
        monkeypatch.setitem(sys.modules, "eval.runner", runner)
    calls = []

    def run(advisor, instances, systems=ALL_SYSTEMS, settings=("deployment", "oracle"), **kwargs):
        calls.append({"build_id": advisor.build_id, "instances": instances, "systems": tuple(systems),
                      "settings": tuple(settings), **kwargs})
        return fake_run_evaluation(advisor, instances, systems, settings, **kwargs)

    monkeypatch.setattr(runner, "run_evaluation", run, raising=False)
    return calls


@pytest.fixture
def warehouse_copy(demo_warehouse, tmp_path):
    """The demo build, lakehouse and truth file copied, so these tests' writes stay theirs."""
    root = tmp_path / "warehouse"
    root.mkdir()
    shutil.copytree(demo_warehouse.builds, root / "builds")
    shutil.copy2(demo_warehouse.root / "lakehouse.duckdb", root / "lakehouse.duckdb")
    truth = demo_warehouse.root / "demo_college" / "manifest.jsonl"  # the demo config's truth file
    if truth.is_file():
        (root / "demo_college").mkdir()
        shutil.copy2(truth, root / "demo_college" / "manifest.jsonl")
    return root


def run_eval(argv, capsys):
    from cli.main import main

    code = main(["eval", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _held_out_intent_examples(con) -> list:
    from advisor.intents.dataset import load_intent_examples

    return [e for e in load_intent_examples(con) if e.split == "test"]


def _encodings_in_a_new_process(monkeypatch) -> list[str]:
    """The texts the e5 encoder computes from now on, with nothing in this process's memory."""
    from advisor.index import embed_e5, vector_cache

    encoded: list[str] = []
    encode = embed_e5._encode
    monkeypatch.setattr(embed_e5, "_encode", lambda texts, query: encoded.extend(texts) or encode(texts, query))
    monkeypatch.setattr(vector_cache, "_PROCESS", {})
    return encoded


def test_the_intent_evaluation_reads_and_fills_the_lakehouses_vector_cache(warehouse_copy, monkeypatch):
    """A second evaluation of the router, in a new process, encodes none of the examples again."""
    from advisor.index import vector_cache, warm_vectors
    from advisor.index.layout import builds_dir, latest_build_dir
    from advisor.intents import seed_vectors
    from eval.entry import intent_evaluation

    build_dir = latest_build_dir(builds_dir(warehouse_copy))
    con = duckdb.connect(str(warehouse_copy / "lakehouse.duckdb"))
    try:
        examples = _held_out_intent_examples(con)[-30:]
        encoded = _encodings_in_a_new_process(monkeypatch)
        monkeypatch.setattr(warm_vectors, "warm", lambda embedder: 0)  # nor in a shipped file
        monkeypatch.setattr(seed_vectors, "warm", lambda embedder: 0)
        first = intent_evaluation(build_dir, examples, con)
        monkeypatch.setattr(vector_cache, "_PROCESS", {})  # a new process
        encoded_first = len(encoded)
        encoded.clear()
        second = intent_evaluation(build_dir, examples, con)
    finally:
        con.close()
    assert encoded_first > 0 and encoded == []
    assert second[2] == first[2] and len(second[2]) == 30


def test_the_intent_evaluation_of_a_fresh_process_encodes_none_of_the_demos_held_out_examples(warehouse_copy,
                                                                                                  monkeypatch):
    """`advisor eval` in its own process, with an empty lakehouse cache: the held-out examples are
    the demo's own (in its shipped file) or seeds every institution shares (in the seeds' file, as
    the build trained on them), so the router's check encodes none; before, the seeds cost ~600
    encodings (20 s on two cores, over a minute in CI) in every such process."""
    from advisor.index import warm_vectors
    from advisor.index.layout import builds_dir, latest_build_dir
    from eval.entry import intent_evaluation

    with duckdb.connect(str(warehouse_copy / "lakehouse.duckdb"), read_only=True) as con:
        examples = _held_out_intent_examples(con)
    encoded = _encodings_in_a_new_process(monkeypatch)
    monkeypatch.setattr(warm_vectors, "_WARMED", set())  # nor the shipped files read yet
    report, _, predictions = intent_evaluation(latest_build_dir(builds_dir(warehouse_copy)), examples)
    assert report is not None and len(predictions) == len(examples) > 1000
    assert encoded == []


def test_advisor_eval_end_to_end(demo_warehouse, warehouse_copy, fake_runner, tmp_path, capsys):
    config = demo_warehouse.config()
    benchmark = write_jsonl(tmp_path / "bench.jsonl", make_instances(config, 5, gold_from="annotations"))
    out = tmp_path / "out" / "results.json"
    code, stdout, err = run_eval(["--benchmark", str(benchmark), "--systems", "bm25,hyde,profill,urag",
                                  "--out", str(out), "--config", str(demo_warehouse.config_path),
                                  "--warehouse", str(warehouse_copy)], capsys)
    assert code == 0, err
    build_id = (warehouse_copy / "builds" / "LATEST").read_text().strip()
    # the runner got the build, the canonical profiles and the requested systems and settings
    (call,) = fake_runner
    assert call["build_id"] == build_id and call["systems"] == ("bm25", "hyde", "profill", "urag")
    assert call["settings"] == ("deployment", "oracle") and call["llm_client"] is None
    assert all(v in config.profile[n].values for i in call["instances"] for n, v in i["profile"].items()
               if isinstance(config.profile[n], CategoricalAttribute))
    # Table 1 on stdout, with the skipped system's reason and where the gold came from
    assert "| setting | system | MRR | S@1 |" in stdout and "| oracle | profill |" in stdout and SKIP_REASON in stdout
    assert "Gold sources from: annotations (caveat: gold sources were chosen from the build's own annotations" \
        in stdout
    # --out
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["build_id"] == build_id and document["instances"] == 5 and document["benchmark"] == str(benchmark)
    assert document["gold_from"] == "annotations" and document["gold_note"]
    assert {(r["system"], r["setting"]) for r in document["results"]} == \
        {(s, t) for s in ("bm25", "hyde", "profill", "urag") for t in ("deployment", "oracle")}
    # the lakehouse
    con = duckdb.connect(str(warehouse_copy / "lakehouse.duckdb"), read_only=True)
    try:
        run = store.latest_run(con, benchmark=str(benchmark))
        assert run["run_id"] == document["run_id"] and run["build_id"] == build_id
        assert run["benchmark_hash"] == benchmark_hash(benchmark) and run["config_hash"] == config.fingerprint()
        assert run["embedder"] and run["annotator"]
        per_query = store.per_query_frame(con, run["run_id"])
        assert per_query.height == 5 * 3 * 2  # hyde skipped: no rows
        assert run["gold_from"] == "annotations"
        assert con.execute("SELECT count(*) FROM benchmark_instances WHERE benchmark_hash = ?",
                           [run["benchmark_hash"]]).fetchall() == [(5,)]
        annotator = con.execute("SELECT annotator FROM index_builds WHERE build_id = ?", [build_id]).fetchall()
        assert annotator == [(run["annotator"],)]  # joins back to the build it evaluated
    finally:
        con.close()


def test_advisor_eval_reuses_an_unchanged_run_and_records_the_intent_router(demo_warehouse, warehouse_copy,
                                                                            fake_runner, tmp_path, capsys):
    """`advisor eval` and the asset share eval/entry.py: the same build, benchmark, code, config,
    systems and settings again is the recorded run, not a new one; the run has the intent rows."""
    benchmark = write_jsonl(tmp_path / "bench.jsonl", make_instances(demo_warehouse.config(), 4))
    common = ["--benchmark", str(benchmark), "--systems", "bm25,profill", "--config", str(demo_warehouse.config_path),
              "--warehouse", str(warehouse_copy)]
    code, first, err = run_eval([*common, "--out", str(tmp_path / "first.json")], capsys)
    assert code == 0 and "recorded as evaluation run" in err and len(fake_runner) == 1
    code, second, err = run_eval([*common, "--out", str(tmp_path / "second.json")], capsys)
    assert code == 0 and "reusing evaluation run" in err and len(fake_runner) == 1
    assert second == first  # the same Table 1
    documents = [json.loads((tmp_path / name).read_text(encoding="utf-8")) for name in ("first.json", "second.json")]
    by_key = lambda document: {(r["system"], r["setting"]): r for r in document.pop("results")}  # noqa: E731
    assert by_key(documents[0]) == by_key(documents[1]) and documents[0] == documents[1]
    con = duckdb.connect(str(warehouse_copy / "lakehouse.duckdb"), read_only=True)
    try:
        assert store.intent_frame(con, documents[0]["run_id"]).height > 0
        assert con.execute("SELECT count(*) FROM eval_runs").fetchall() == [(1,)]
    finally:
        con.close()
    code, _, _ = run_eval([*common[:3], "bm25", *common[4:]], capsys)  # other systems: a new run
    assert code == 0 and len(fake_runner) == 2


def test_advisor_eval_unknown_system_exits_2_naming_it(demo_warehouse, warehouse_copy, fake_runner, tmp_path, capsys):
    benchmark = write_jsonl(tmp_path / "bench.jsonl", make_instances(demo_warehouse.config(), 2))
    code, stdout, err = run_eval(["--benchmark", str(benchmark), "--systems", "bm25,bm99,gpt", "--warehouse",
                                  str(warehouse_copy), "--config", str(demo_warehouse.config_path)], capsys)
    assert code == 2 and "bm99" in err and "gpt" in err and stdout == ""
    code, _, err = run_eval(["--benchmark", str(benchmark), "--settings", "oracle,lab", "--warehouse",
                             str(warehouse_copy), "--config", str(demo_warehouse.config_path)], capsys)
    assert code == 2 and "lab" in err
    assert not fake_runner


def test_advisor_eval_without_a_build_exits_1(demo_warehouse, fake_runner, tmp_path, capsys):
    benchmark = write_jsonl(tmp_path / "bench.jsonl", make_instances(demo_warehouse.config(), 2))
    code, stdout, err = run_eval(["--benchmark", str(benchmark), "--warehouse", str(tmp_path / "empty")], capsys)
    assert code == 1 and "advisor materialize" in err and not fake_runner


def test_advisor_eval_bad_benchmark_exits_2_naming_the_line(demo_warehouse, warehouse_copy, fake_runner, tmp_path,
                                                            capsys):
    config = demo_warehouse.config()
    bad = tmp_path / ("a-folder-with-a-long-name-" * 3) / "bad.jsonl"  # named whole, not folded at 80 columns
    bad.parent.mkdir()
    bad.write_text('{"id": "a", "query": "q", "gold_sources": ["u"]}\n{"id": "b", "query": "q"}\n', encoding="utf-8")
    common = ["--warehouse", str(warehouse_copy), "--config", str(demo_warehouse.config_path)]
    code, _, err = run_eval(["--benchmark", str(bad), *common], capsys)
    assert code == 2 and f"{bad}:2:" in err and "gold_sources" in err
    instances = make_instances(config, 2)
    instances[1]["profile"] = {"shoe_size": 270}
    code, _, err = run_eval(["--benchmark", str(write_jsonl(tmp_path / "p.jsonl", instances)), *common], capsys)
    assert code == 2 and ":2:" in err and "shoe_size" in err
    instances = make_instances(config, 2)
    instances[1]["gold_from"] = 5
    code, _, err = run_eval(["--benchmark", str(write_jsonl(tmp_path / "g.jsonl", instances)), *common], capsys)
    assert code == 2 and "'q1'" in err and "gold_from" in err
    assert not fake_runner


def test_advisor_eval_on_a_locked_lakehouse_says_so(demo_warehouse, warehouse_copy, fake_runner, tmp_path, capsys):
    benchmark = write_jsonl(tmp_path / "bench.jsonl", make_instances(demo_warehouse.config(), 2))
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys; con = duckdb.connect(sys.argv[1]); print('ready', flush=True); "
         "sys.stdin.readline()", str(warehouse_copy / "lakehouse.duckdb")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        code, _, err = run_eval(["--benchmark", str(benchmark), "--warehouse", str(warehouse_copy),
                                 "--config", str(demo_warehouse.config_path)], capsys)
    finally:
        holder.communicate("\n", timeout=30)
    assert code == 1 and "locked" in err and not fake_runner


# --- the assets -----------------------------------------------------------------------------------


def materialize_evaluation(warehouse: Path, config_path: Path):
    from dagster import DagsterInstance, Definitions, in_process_executor

    from assets.evaluation import evaluation, evaluation_report
    from assets.resources import InstitutionResource, LLMResource, WarehouseResource

    defs = Definitions(
        assets=[evaluation, evaluation_report],
        resources={"institution": InstitutionResource(config_path=str(config_path)),
                   "warehouse": WarehouseResource(path=str(warehouse)), "llm": LLMResource()},
        executor=in_process_executor,
    )
    job = defs.resolve_implicit_global_asset_job_def()
    result = job.execute_in_process(instance=DagsterInstance.ephemeral(), raise_on_error=False)
    assert result.success, [e.message for e in result.all_events if e.is_failure]
    return {e.asset_key.to_user_string(): e.step_materialization_data.materialization.metadata
            for e in result.get_asset_materialization_events()}


def test_evaluation_assets_record_report_and_reuse(demo_warehouse, warehouse_copy, fake_runner):
    from dagster import MarkdownMetadataValue, PathMetadataValue, TableMetadataValue

    from assets.evaluation import OFFLINE_SYSTEMS, SETTINGS

    config = demo_warehouse.config()
    benchmark = warehouse_copy / "benchmarks" / "qa.jsonl"
    benchmark.parent.mkdir()
    write_jsonl(benchmark, make_instances(config, 6, sliced=True, gold_from="truth"))

    first = materialize_evaluation(warehouse_copy, demo_warehouse.config_path)
    run_id = first["evaluation"]["eval_run_id"].value
    assert first["evaluation"]["reused"].value is False
    assert first["evaluation"]["gold_from"].value == "truth"
    table1 = first["evaluation"]["table1"]
    assert isinstance(table1, TableMetadataValue)
    assert {(r.data["setting"], r.data["system"]) for r in table1.records} >= {("deployment", "profill")}
    assert "| deployment | profill |" in first["evaluation"]["table1_markdown"].value
    assert fake_runner[0]["systems"] == OFFLINE_SYSTEMS and fake_runner[0]["llm_client"] is None
    report_metadata = first["evaluation_report"]
    report = Path(report_metadata["report_path"].value)
    assert report.parent == warehouse_copy / "reports" / run_id and report.is_file()
    assert "Intent routing" in report.read_text() and "Gold sources from: truth" in report.read_text()
    # The asset's page links the self-contained report.html and shows Table 1 as Markdown; it no longer
    # squeezes every table into the metadata column nor each chart behind "Show Markdown" (the page has them).
    page = Path(report_metadata["report_html"].value)
    assert isinstance(report_metadata["report_html"], PathMetadataValue) and page == report.with_name("report.html")
    assert report_metadata["report_link"].value == page.resolve().as_uri()
    html = page.read_text(encoding="utf-8")
    assert "Intent routing" in html and "Gold sources from: truth" in html and html.count("data:image/png;base64,") == 5
    assert "profile_independent" in html and 'class="q"' in html  # the slices table, the drill-down
    table1_value = report_metadata["table1"]
    assert isinstance(table1_value, MarkdownMetadataValue) and "| deployment | profill |" in table1_value.value
    assert not [k for k in report_metadata if k.startswith("chart_") or k in ("ablations", "slices", "report")]

    con = duckdb.connect(str(warehouse_copy / "lakehouse.duckdb"), read_only=True)
    try:
        run = store.run_info(con, run_id)
        assert run["dagster_run_id"] and run["instances"] == 6
        assert store.per_query_frame(con, run_id).height == 6 * len(OFFLINE_SYSTEMS) * len(SETTINGS)
        intents = store.intent_frame(con, run_id)
        test_split = con.execute("SELECT count(*) FROM intent_examples WHERE split = 'test'").fetchall()[0][0]
        assert intents.height > 0 and set(intents["n"]) == {test_split}
        predictions = store.intent_predictions_frame(con, run_id)
        assert predictions.height == test_split
        wrong = predictions.filter(pl.col("intent") != pl.col("predicted")).height
        assert intents["accuracy"][0] == pytest.approx(1 - wrong / test_split)  # the report is of these rows
        assert run["gold_from"] == "truth" and store.benchmark_frame(con, run["benchmark_hash"]).height == 6
        assert con.execute("SELECT count(*) FROM materializations WHERE asset IN ('evaluation', 'evaluation_report')"
                           ).fetchall()[0][0] == 2
    finally:
        con.close()

    # nothing changed: the run is reused, the systems are not run again
    second = materialize_evaluation(warehouse_copy, demo_warehouse.config_path)
    assert second["evaluation"]["reused"].value is True and second["evaluation"]["eval_run_id"].value == run_id
    assert len(fake_runner) == 1
    # a changed benchmark is a new run
    write_jsonl(benchmark, make_instances(config, 3))
    third = materialize_evaluation(warehouse_copy, demo_warehouse.config_path)
    assert third["evaluation"]["eval_run_id"].value != run_id and len(fake_runner) == 2
    assert Path(third["evaluation_report"]["report_path"].value).parent.name == third["evaluation"]["eval_run_id"].value


def test_materialize_runs_the_real_evaluation_and_ends_with_table1(demo_warehouse, warehouse_copy):
    """`make demo`'s ending on a thirtieth of the synthesized benchmark: the real systems through the
    evaluation assets in an `advisor materialize` process, Table 1 printed last, the report on disk,
    and the profile-aware system ahead of the profile-blind ones on questions whose answer depends
    on who asks."""
    lines = (demo_warehouse.root / "benchmarks" / "qa.jsonl").read_text(encoding="utf-8").splitlines()
    (warehouse_copy / "benchmarks").mkdir()
    (warehouse_copy / "benchmarks" / "qa.jsonl").write_text("\n".join(lines[::30]) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "cli.main", "materialize", "--config", str(demo_warehouse.config_path),
                           "--warehouse", str(warehouse_copy), "--select", "evaluation+"],
                          capture_output=True, text=True, env=offline_env(), cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    out = done.stdout
    table = out[out.index("Table 1"):]
    assert "| deployment | profill |" in table and "| oracle | bm25 |" in table and "report.md" in table

    con = duckdb.connect(str(warehouse_copy / "lakehouse.duckdb"), read_only=True)
    try:
        mrr = {(s, t): m for s, t, m in con.execute(
            "SELECT system, setting, mrr FROM eval_aggregates").fetchall()}
        asked = con.execute("SELECT avg(len(questions)) FROM eval_query_results "
                            "WHERE system = 'profill' AND setting = 'deployment'").fetchall()[0][0]
    finally:
        con.close()
    blind = max(mrr[(s, "deployment")] for s in ("bm25", "dense", "hybrid"))
    assert mrr[("profill", "deployment")] > 1.5 * blind and asked > 0
    assert mrr[("profill", "oracle")] > mrr[("hybrid", "oracle")]
    for ablation in ("profill-no-hard-filter", "profill-no-soft-prefix", "profill-no-reretrieval"):
        assert mrr[(ablation, "deployment")] < mrr[("profill", "deployment")], ablation
