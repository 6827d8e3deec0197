"""The evaluation runner (eval/runner.py) on the demo build: every system x setting, the
simulated student, the ablations, the cached path against the plain one, and the LLM systems
through a real local OpenAI-protocol server."""

from __future__ import annotations

import math
import re
from datetime import date

import pytest

from advisor.index import fields
from advisor.llm.client import LLMClient
from advisor.retrieval import conflicts, known_profile
from eval import runner
from eval.benchmark.file import read_benchmark
from eval.benchmark.truth import Truth, truth_file
from eval.metrics.metric import ANSWER, Query, Scored
from eval.metrics.sources import source_matches
from eval.runner import DONT_KNOW, SETTINGS, SKIPPED_NO_LLM, SYSTEMS, run_evaluation
from eval.systems.offline import ANSWER_K, RANK_DEPTH, extend
from eval.systems.simulate import converse
from serving.dialogue.engine import open_advisor
from tests.openai_server import Behaviour, malformed, reply, settings_for

TODAY = date(2026, 3, 2)
OFFLINE = ("bm25", "dense", "hybrid", "hybrid+filter", "profill", "profill-no-hard-filter", "profill-no-soft-prefix",
           "profill-no-reretrieval", "profill-true-labels", "urag")
ROW_KEYS = {"system", "setting", "instance_id", "category", "query_type", "slice", "gold_sources", "rank", "gold_ranks",
            "retrieved_urls",
            "retrieved_chunk_ids", "questions_asked", "questions", "answer", "citations", "tier", "answer_method",
            "rouge_l", "token_f1", "keyword_match", "source_match", "answer_correctness", "grounded_correctness",
            "seconds", "llm_calls", "llm_tokens"}
AGGREGATE_KEYS = {"system", "setting", "n", "mrr", "recall@1", "recall@5", "recall@10", "recall@50", "rouge_l",
                  "token_f1", "keyword_match", "source_match", "grounded_correctness", "seconds_per_query",
                  "questions_per_query", "skipped"}


@pytest.fixture(scope="module")
def advisor(demo_warehouse):
    return open_advisor(demo_warehouse.builds, demo_warehouse.config())


@pytest.fixture(scope="module")
def instances(advisor, demo_warehouse):
    """24 instances spread over the synthesized benchmark (qa_benchmark asset), their hidden profile
    covering every schema attribute (so the oracle setting has nothing left to ask)."""
    every = read_benchmark(demo_warehouse.root / "benchmarks" / "qa.jsonl", advisor.schema)
    found = every[:: max(1, len(every) // 24)][:24]
    for inst in found:
        for name, attribute in advisor.schema.items():
            if name not in inst["profile"]:
                inst["profile"][name] = (next(iter(attribute.values)) if fields.is_categorical(attribute)
                                         else attribute.min)
    return found


@pytest.fixture(scope="module")
def true_labels(advisor, demo_warehouse):
    from eval.benchmark.synthesis import chunk_rows

    config = demo_warehouse.config()
    return Truth.load(truth_file(config, demo_warehouse.root), config).labels(chunk_rows(advisor.build))


@pytest.fixture(scope="module")
def offline(advisor, instances, true_labels):
    return run_evaluation(advisor, instances, today=TODAY, true_labels=true_labels)


def _expected_skip(system, setting):
    if system in runner.LLM_SYSTEMS:
        return SKIPPED_NO_LLM
    if system == "hybrid+filter" and setting != "oracle":
        return runner.SKIPPED_NEEDS_PROFILE
    if setting == DONT_KNOW and system not in runner.ASKING_SYSTEMS:
        return runner.SKIPPED_ASKS_NOTHING
    return None


def _rows(outcome, system, setting):
    return [r for r in outcome.per_query if r["system"] == system and r["setting"] == setting]


def test_every_offline_system_and_setting_gives_documented_rows(offline, instances):
    for system in OFFLINE:
        for setting in SETTINGS:
            rows = _rows(offline, system, setting)
            if _expected_skip(system, setting):
                assert not rows
                continue
            assert [r["instance_id"] for r in rows] == [i["id"] for i in instances], (system, setting)
            for row in rows:
                # proFILL's rows say which attributes' annotations, against the truth, cost it
                assert set(row) == ROW_KEYS | ({"label_errors"} if system == "profill" else set())
                assert len(row["retrieved_urls"]) == len(set(row["retrieved_urls"])) <= RANK_DEPTH
                assert len(row["retrieved_chunk_ids"]) <= ANSWER_K
                assert row["answer"] and row["tier"] in ("template", "faq", "documents", "fallback")
                assert row["answer_correctness"] is None and row["grounded_correctness"] is None  # no judge: never faked
                assert row["source_match"] in (0.0, 0.5, 1.0)
                assert row["rouge_l"] is not None and row["keyword_match"] is not None
    aggregates = {(a["system"], a["setting"]): a for a in offline.aggregates}
    assert set(aggregates) == {(s, t) for s in SYSTEMS for t in SETTINGS}
    for (system, setting), row in aggregates.items():
        reason = _expected_skip(system, setting)
        if reason is None:
            # Table 1's row is over the paper's slice (the profile-dependent questions), less those
            # whose text states the answer: they are reported beside it
            main = sum(i.get("slice") == "profile_dependent" and i.get("query_type") != "verification_true"
                       for i in instances) or len(instances)
            stated = sum(i.get("slice") == "profile_dependent" and i.get("query_type") == "verification_true"
                         for i in instances)
            assert set(row) >= AGGREGATE_KEYS and row["skipped"] is None and row["n"] == main
            assert stated and row["slices"]["answer_in_question"]["n"] == stated
        else:  # reported as skipped, with the reason
            assert row == {"system": system, "setting": setting, "skipped": reason}
            assert not _rows(offline, system, setting)
    tiers = aggregates[("urag", "deployment")]["tiers"]
    assert math.isclose(sum(tiers[t] for t in ("template", "faq", "documents", "fallback")), 1.0)
    assert offline.params["judge_model"] is None and offline.params["today"] == TODAY.isoformat()


def test_profill_asks_in_deployment_and_not_in_oracle(offline, instances):
    deployment = _rows(offline, "profill", "deployment")
    assert sum(r["questions_asked"] for r in deployment) > 0
    assert all(r["questions_asked"] == len(r["questions"]) for r in deployment)
    assert all(r["questions_asked"] == 0 for r in _rows(offline, "profill", "oracle"))
    for setting in SETTINGS:  # profile-blind baselines never ask
        assert all(r["questions_asked"] == 0 for r in _rows(offline, "hybrid", setting))


def _conflicting(advisor, row, profile):
    known = known_profile(profile, advisor.schema)
    applies = {cid: a for c in advisor.build.collections.values() for cid, a in zip(c.chunk_ids, c.applies_to)}
    return [cid for cid in row["retrieved_chunk_ids"] if conflicts(applies[cid], known, advisor.schema)]


def test_ablations_differ_from_profill_as_intended(advisor, offline, instances):
    profiles = {i["id"]: i["profile"] for i in instances}
    filtered = _rows(offline, "profill", "oracle")
    unfiltered = _rows(offline, "profill-no-hard-filter", "oracle")
    assert not any(_conflicting(advisor, r, profiles[r["instance_id"]]) for r in filtered)
    assert any(_conflicting(advisor, r, profiles[r["instance_id"]]) for r in unfiltered)

    asked = sum(r["questions_asked"] for r in _rows(offline, "profill", "deployment"))
    asked_without = sum(r["questions_asked"] for r in _rows(offline, "profill-no-reretrieval", "deployment"))
    assert asked_without < asked

    no_soft = _rows(offline, "profill-no-soft-prefix", "oracle")
    assert any(a["retrieved_chunk_ids"] != b["retrieved_chunk_ids"] for a, b in zip(filtered, no_soft))
    assert not any(_conflicting(advisor, r, profiles[r["instance_id"]]) for r in no_soft)  # still filtered


def test_hybrid_filter_keeps_only_sources_for_the_student_and_asks_nothing(advisor, offline, instances):
    profiles = {i["id"]: i["profile"] for i in instances}
    rows = _rows(offline, "hybrid+filter", "oracle")
    assert rows and all(r["questions_asked"] == 0 for r in rows)
    assert not any(_conflicting(advisor, r, profiles[r["instance_id"]]) for r in rows)
    blind = {r["instance_id"]: r for r in _rows(offline, "hybrid", "oracle")}
    assert any(r["retrieved_chunk_ids"] != blind[r["instance_id"]]["retrieved_chunk_ids"] for r in rows)


def test_the_true_label_system_filters_by_the_truth(advisor, offline, instances, true_labels):
    profiles = {i["id"]: known_profile(i["profile"], advisor.schema) for i in instances}
    rows = _rows(offline, "profill-true-labels", "oracle")
    assert rows
    for row in rows:  # nothing retrieved for the answer truly conflicts with the student's profile
        assert not any(conflicts(fields.canonical_applies_to(true_labels[cid], advisor.schema),
                                 profiles[row["instance_id"]], advisor.schema)
                       for cid in row["retrieved_chunk_ids"] if cid in true_labels)
    assert offline.params["true_labels"] == len(true_labels)


def test_without_truth_the_true_label_system_is_skipped_with_the_reason(advisor, instances):
    outcome = run_evaluation(advisor, instances[:2], ["profill-true-labels"], ["oracle"], today=TODAY)
    assert outcome.aggregates == [{"system": "profill-true-labels", "setting": "oracle",
                                   "skipped": runner.SKIPPED_NO_TRUTH}] and not outcome.per_query


def test_a_student_who_does_not_know_answers_none(advisor, instances):
    """The deployment-dont-know student: with share 1 every asked attribute stays unknown, with
    share 0 every one is answered; the draw is fixed per instance and attribute."""
    inst = next(i for i in instances if i["slice"] == "profile_dependent")
    hidden = known_profile(inst["profile"], advisor.schema)
    reply, asked = converse(advisor, inst["query"], hidden, False, TODAY, dont_know=1.0, key=inst["id"])
    assert asked and not any(name in reply.profile_used for name in asked)
    reply, asked = converse(advisor, inst["query"], hidden, False, TODAY, dont_know=0.0, key=inst["id"])
    assert asked and all(reply.profile_used.get(name) == hidden[name] for name in asked)


def test_dont_know_costs_questions_answered_not_questions_asked(advisor, offline):
    known = _rows(offline, "profill", "deployment")
    unsure = _rows(offline, "profill", DONT_KNOW)
    assert len(unsure) == len(known) and offline.params["dont_know_share"] == advisor.config.evaluation.dont_know_share
    assert any(a["retrieved_chunk_ids"] != b["retrieved_chunk_ids"] for a, b in zip(known, unsure))


def test_urag_searches_the_augmented_index(advisor, offline):
    assert advisor.build.augmented  # index_build writes the URAG-D collections
    urag, hybrid = _rows(offline, "urag", "deployment"), _rows(offline, "hybrid", "deployment")
    assert any(a["retrieved_chunk_ids"] != b["retrieved_chunk_ids"] for a, b in zip(urag, hybrid)
               if a["tier"] != "template")
    assert offline.params["urag_index"]


def test_cached_runner_equals_the_plain_path(advisor, instances, offline, true_labels):
    sample = instances[:8]
    plain = run_evaluation(advisor, sample, OFFLINE, optimized=False, today=TODAY, true_labels=true_labels)
    ids = {i["id"] for i in sample}
    cached = [r for r in offline.per_query if r["instance_id"] in ids]
    strip = lambda rows: sorted(({k: v for k, v in r.items() if k != "seconds"} for r in rows),  # noqa: E731
                                key=lambda r: (r["system"], r["setting"], r["instance_id"]))
    assert strip(cached) == strip(plain.per_query)


# ----------------------------------------------------------------------------- the registry and the caches

# The public names, in the reports' order (docs/contracts.md §1): a rename or a reordering is a change of contract.
PUBLIC_NAMES = ("bm25", "dense", "hybrid", "hybrid+filter", "hybrid+rerank", "hyde", "hyde+rerank", "profill",
                "profill+rerank", "profill-true-labels", "profill-no-hard-filter", "profill-no-soft-prefix",
                "profill-no-reretrieval", "urag")


def test_every_list_of_system_names_is_the_registry():
    from assets import evaluation as asset
    from eval.reports import report as reports
    from eval.store import outfile
    from eval.systems import registry

    assert registry.NAMES == PUBLIC_NAMES == SYSTEMS == reports.SYSTEM_ORDER
    assert reports.SETTING_ORDER == SETTINGS == asset.SETTINGS == registry.SETTINGS
    assert tuple(n for n in PUBLIC_NAMES if n not in runner.LLM_SYSTEMS) == asset.OFFLINE_SYSTEMS
    assert set(asset.OFFLINE_SYSTEMS) == set(OFFLINE)
    assert {"hybrid+rerank", "hyde", "hyde+rerank", "profill+rerank"} == runner.LLM_SYSTEMS
    assert reports.ABLATION_SYSTEMS == ("profill-no-hard-filter", "profill-no-soft-prefix", "profill-no-reretrieval")
    assert reports.REFERENCE_SYSTEM == "profill" and outfile.TIERED_SYSTEMS == ("urag",)
    with pytest.raises(ValueError, match="unknown system 'gpt'"):
        registry.system("gpt")


def test_a_systems_properties_decide_where_it_runs():
    from types import SimpleNamespace

    from eval.systems.registry import System

    offline = SimpleNamespace(llm_client=None, true_labels=None, advisor=SimpleNamespace(build=SimpleNamespace(augmented={})))
    online = SimpleNamespace(llm_client=object(), true_labels={"c": {}},
                             advisor=SimpleNamespace(build=SimpleNamespace(augmented={"static": object()})))
    plain = System(name="plain")
    assert [plain.skip_reason(t, online) for t in SETTINGS] == [None, runner.SKIPPED_ASKS_NOTHING, None]
    asking = System(name="asking", asks=True)
    assert [asking.skip_reason(t, offline) for t in SETTINGS] == [None, None, None]
    assert System(name="f", oracle_only=True).skip_reason("deployment", online) == runner.SKIPPED_NEEDS_PROFILE
    assert System(name="f", oracle_only=True).skip_reason("oracle", online) is None
    for system, needs, reason in ((System(name="l", needs_llm=True), online, SKIPPED_NO_LLM),
                                  (System(name="t", needs_truth=True), online, runner.SKIPPED_NO_TRUTH),
                                  (System(name="u", needs_urag_index=True), online, runner.SKIPPED_NO_URAG_INDEX)):
        assert system.skip_reason("oracle", offline) == reason and system.skip_reason("oracle", needs) is None


# Literals that share a system's name without naming the system: the LLM task HyDE's calls are
# tallied and versioned under, and the preference study's vote for proFILL (serving writes those
# votes and may not import the evaluation).
NAME_LABELS = {("eval/systems/llm.py", "hyde"), ("eval/runner.py", "hyde"), ("eval/study.py", "profill")}


def test_system_names_are_spelled_only_in_the_registry():
    """A system's name written out anywhere the registry can be imported from (eval, assets,
    pipelines, cli, bench) is a second owner of it, which drifts when the registry changes, as
    pipelines/fleet.py's "profill" and bench/retrieval.py's own MODES did. bm25, dense and hybrid
    are also the shared retriever's modes (advisor.retrieval.MODES), so only the other names are
    looked for."""
    import ast
    from pathlib import Path

    from advisor.retrieval import MODES
    from eval.systems import registry

    root = Path(__file__).resolve().parent.parent
    names = set(registry.NAMES) - set(MODES)
    found = set()
    for top in ("eval", "assets", "pipelines", "cli", "bench"):
        for path in sorted((root / top).rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            if relative == "eval/systems/registry.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and node.value in names:
                    found.add((relative, node.value))
    assert found == NAME_LABELS
    # what bench/retrieval.py times is the registry's one-retrieval systems
    assert tuple(s.name for s in registry.RETRIEVAL_SYSTEMS) == ("bm25", "dense", "hybrid", "hybrid+filter")


def _citation_precision(query: Query) -> float | None:
    """docs/method.md's worked example: the share of the answer's citations that are gold sources."""
    cited, golds = query.row["citations"], query.row["gold_sources"]
    if not cited:
        return None  # nothing cited: nothing to measure, not 0
    return sum(any(source_matches(g, url) for g in golds) for url in cited) / len(cited)


CITATION_PRECISION = Scored(name="citation_precision", header="citation precision", kind=ANSWER, interval=True,
                            scorer=_citation_precision, description="the share of the citations that are gold")


def test_a_metric_added_to_the_registry_reaches_every_reader(advisor, instances, monkeypatch, tmp_path):
    """One metric module and one registry line, and nothing else: the runner scores and aggregates
    it (and its interval), the lakehouse gets its columns (an older one when it is next opened),
    the --out file its field and the report's answer-quality table its column."""
    from datetime import datetime, timezone

    import duckdb

    from eval import store
    from eval.metrics import registry as metric_registry
    from eval.reports.report import write_report
    from eval.store import outfile

    con = duckdb.connect()
    store.ensure_schema(con)  # a lakehouse from before the metric
    monkeypatch.setattr(metric_registry, "METRICS", (*metric_registry.METRICS, CITATION_PRECISION))
    sample = instances[:8]
    outcome = run_evaluation(advisor, sample, systems=("bm25", "profill"), settings=("deployment",), today=TODAY)

    # the runner: every row scored, every aggregate and slice the mean of the values present
    for row in outcome.per_query:
        cited = row["citations"]
        gold = [any(source_matches(g, url) for g in row["gold_sources"]) for url in cited]
        expected = sum(gold) / len(gold) if cited else None
        assert row["citation_precision"] == expected
    for aggregate in outcome.aggregates:
        mine = [r for r in outcome.per_query if r["system"] == aggregate["system"]]
        main = [r["citation_precision"] for r in mine if aggregate["slice"] in (r["slice"], "all")]
        present = [v for v in main if v is not None]
        assert present and aggregate["citation_precision"] == pytest.approx(sum(present) / len(present))
        assert all("citation_precision" in s for s in aggregate["slices"].values())
    assert any(i["metric"] == "citation_precision" for i in outcome.intervals)

    # the lakehouse: a column in each table, the values as the runner gave them
    meta = store.RunMeta(benchmark="qa.jsonl", benchmark_hash="h", instances=len(sample), build_id="b",
                         annotator=None, embedder=None, code_version="c", config_hash="x",
                         systems=("bm25", "profill"), settings=("deployment",),
                         started_at=datetime.now(timezone.utc))
    run_id = store.record_run(con, outcome=outcome, run_meta=meta, instances=sample)
    for table in ("eval_query_results", "eval_aggregates", "eval_slice_aggregates"):
        assert con.execute("SELECT count(citation_precision) FROM " + table).fetchone()[0] > 0, table
    stored = {(r["system"], r["setting"]): r for r in store.aggregates_frame(con, run_id).to_dicts()}
    for aggregate in outcome.aggregates:
        assert stored[(aggregate["system"], aggregate["setting"])]["citation_precision"] == pytest.approx(
            aggregate["citation_precision"])
    assert "citation_precision" in store.per_query_frame(con, run_id).columns
    assert "citation_precision" in store.run_aggregates(con, run_id)[0]

    # the --out file
    document = outfile.out_document(outcome.aggregates, build_id="b", benchmark="qa.jsonl", instances=len(sample))
    assert all("citation_precision" in row for row in document["results"])

    # the report: its column in the answer-quality table
    written = write_report(store.aggregates_frame(con, run_id), store.per_query_frame(con, run_id), tmp_path,
                           "Toy", {"build_id": "b"}, slices=store.slice_aggregates_frame(con, run_id))
    quality = written["tables"]["answer_quality"]
    assert "citation precision" in quality.markdown().splitlines()[0]
    assert {r["system"]: r["citation precision"] for r in quality.records()} == {
        s: pytest.approx(round(stored[(s, "deployment")]["citation_precision"], 3)) for s in ("bm25", "profill")}


def test_one_question_through_a_system_object_is_its_row_in_the_run(advisor, instances, true_labels):
    from eval.systems import registry
    from eval.systems.simulate import hidden_profile

    sample = instances[:3]
    hidden = {i["id"]: hidden_profile(i, advisor.schema) for i in sample}
    run = runner.Run(advisor, sample, hidden, TODAY, None, True, None, None, true_labels)
    for name in ("hybrid", "profill-no-soft-prefix", "urag"):
        system = registry.system(name)
        whole = system.answers(run, "deployment")
        one = system.answer(run, sample[1], "deployment")
        assert (one.answer, one.ranked_urls, one.questions) == (whole[1].answer, whole[1].ranked_urls, whole[1].questions)
        assert [c.chunk_id for c in system.search(run, sample[1], "deployment")] == \
            [c.chunk_id for c in whole[1].candidates]


def test_the_runs_engines_are_composed_from_the_memos_caching_collaborators(advisor, instances):
    """Every variant's engine is a real Advisor over the memo's caches (no copies of the served
    one's private state): across the variants, no text is embedded twice the same way, and the
    FAQ tier's vectors go through the cache too."""
    from eval.systems import registry
    from eval.systems.memo import compose
    from eval.systems.simulate import hidden_profile

    embedded = []

    class Recording:
        def __init__(self, inner) -> None:
            self.inner = inner

        def embed(self, texts, tokens=None):
            embedded.extend(("passage", text, tuple(t)) for text, t in zip(texts, tokens))
            return self.inner.embed(texts, tokens)

        def embed_queries(self, texts, tokens=None):
            embedded.extend(("query", text, tuple(t)) for text, t in zip(texts, tokens))
            return self.inner.embed_queries(texts, tokens)

        def __getattr__(self, name):
            return getattr(self.inner, name)

    recorded = compose(advisor, advisor.settings, embedder=Recording(advisor.embedder))
    sample = instances[:4]
    hidden = {i["id"]: hidden_profile(i, advisor.schema) for i in sample}
    run = runner.Run(recorded, sample, hidden, TODAY, None, True, None, None)
    names = ("profill", "profill-no-hard-filter", "profill-no-soft-prefix")
    engines = {name: run.engine(registry.system(name).settings(advisor.settings)) for name in names}
    assert len({id(e) for e in engines.values()}) == 3
    assert not engines["profill-no-hard-filter"].settings.hard_filter and engines["profill"].settings.hard_filter
    for engine in engines.values():
        assert engine.tokenizer is run.memo.tokenizer and engine.embedder is run.memo.embedder
        assert engine.retriever is run.memo.retriever and engine.faq_store is run.memo.faq_store
    for name in names:
        run.answers(name, "deployment")
    assert embedded and len(embedded) == len(set(embedded))
    faq_readings = {("query", i["query"], tuple(advisor.tokenizer.content_morphemes([i["query"]])[0])) for i in sample}
    assert faq_readings & set(embedded)  # a question stating its profile is searched without those words


def test_the_caching_embedder_keeps_a_text_read_two_ways_apart():
    """A model trained on Kiwi tokens embeds a text differently with the retriever's query
    morphemes than with the FAQ tier's content morphemes: one cache entry per reading."""
    import numpy as np

    from eval.systems.memo import CachingEmbedder

    class ByTokens:
        calls = 0

        def embed(self, texts, tokens=None):
            ByTokens.calls += 1
            return np.array([[len(t), len(tk)] for t, tk in zip(texts, tokens)], dtype=np.float32)

    cache = CachingEmbedder(ByTokens())
    assert cache.embed(["ab", "ab"], [["a"], ["a", "b"]]).tolist() == [[2, 1], [2, 2]]
    assert cache.embed(["ab"], [["a", "b"]]).tolist() == [[2, 2]] and ByTokens.calls == 1


def test_bad_input_is_a_clear_error(advisor, instances):
    with pytest.raises(ValueError, match="unknown system"):
        run_evaluation(advisor, instances[:1], ["bm25", "gpt"])
    with pytest.raises(ValueError, match="gold_sources"):
        run_evaluation(advisor, [{"id": "x", "query": "졸업 학점?"}], ["bm25"])
    bad = dict(instances[0], profile={"department": "nowhere"})
    with pytest.raises(ValueError, match="department"):
        run_evaluation(advisor, [bad], ["bm25"])


# ----------------------------------------------------------------------------- LLM systems

def _schema(body) -> str:
    return body["response_format"]["json_schema"]["name"]


def _scripted(rerank_ok: bool):
    def behave(body) -> Behaviour:
        name = _schema(body)
        if name == "hyde_passage":
            return reply({"passage": "전공 이수 학점은 학번에 따라 다르며 전공필수 과목을 포함합니다."})
        if name == "rerank":
            if not rerank_ok:
                return malformed('{"ranking": [1, 1')
            n = len(re.findall(r"^\[\d+\] ", body["messages"][-1]["content"], re.MULTILINE))
            return reply({"ranking": list(range(n, 0, -1))})  # reversed
        if name == "judge_score":
            return reply({"reason": "half", "score": 0.5})
        if name == "judge_items":
            return reply({"reference_decision": "none", "answer_decision": "none",
                          "items": [{"item": "a", "covered": True}, {"item": "b", "covered": False}]})
        return Behaviour(status=418)
    return behave


def _candidates(advisor, query):
    served = advisor.retriever.search(query, None, mode="hybrid", k=ANSWER_K, soft=False, hard=False, today=TODAY)
    deep = advisor.retriever.search(query, None, mode="hybrid", k=RANK_DEPTH, soft=False, hard=False, today=TODAY)
    return extend(served.chunks, deep.chunks)


def test_llm_systems_hyde_reranker_and_judges(advisor, instances, openai_server):
    openai_server.default = _scripted(rerank_ok=True)
    sample = instances[:3]
    with LLMClient(settings_for(openai_server)) as client:
        outcome = run_evaluation(advisor, sample, ["hybrid", "hybrid+rerank", "hyde", "profill+rerank"],
                                 ["deployment"], llm_client=client, today=TODAY, judge_limit=2)
    hyde = _rows(outcome, "hyde", "deployment")
    assert len(hyde) == 3 and all(r["llm_calls"] >= 1 for r in hyde)
    assert len(openai_server.requests_containing(sample[0]["query"])) > 0
    for inst, row in zip(sample, _rows(outcome, "hybrid+rerank", "deployment")):
        top = _candidates(advisor, inst["query"])[:20]
        assert row["retrieved_chunk_ids"] == [c.chunk_id for c in reversed(top)][:ANSWER_K]
    profill_reranked = _rows(outcome, "profill+rerank", "deployment")
    assert sum(r["questions_asked"] for r in profill_reranked) > 0  # the dialogue's burden is kept
    assert all(r["llm_calls"] >= 1 for r in profill_reranked)
    judged = [r for r in outcome.per_query if r["answer_correctness"] is not None]
    assert len(judged) == 2 * 4  # two instances x four systems
    for row in judged:
        assert row["answer_correctness"] == pytest.approx(0.5)  # (0.5 + 1/2 items) / 2
        assert row["grounded_correctness"] == pytest.approx(math.sqrt(0.5 * row["source_match"]))
    assert outcome.params["judge_model"] == client.model and outcome.params["llm"]["failures"] == {}


def test_malformed_rerank_reply_keeps_the_original_order(advisor, instances, openai_server):
    openai_server.default = _scripted(rerank_ok=False)
    sample = instances[:2]
    with LLMClient(settings_for(openai_server)) as client:
        outcome = run_evaluation(advisor, sample, ["hybrid", "hybrid+rerank"], ["oracle"], llm_client=client,
                                 today=TODAY, judge_limit=0)
    base, reranked = _rows(outcome, "hybrid", "oracle"), _rows(outcome, "hybrid+rerank", "oracle")
    for a, b in zip(base, reranked):
        assert b["retrieved_chunk_ids"] == a["retrieved_chunk_ids"] and b["rank"] == a["rank"]
        assert b["answer"] == a["answer"] and b["llm_calls"] == 2  # the reply retried once, then given up
    assert outcome.params["llm"]["failures"]["rerank"] == len(sample)


def test_an_annotation_error_shows_up_as_a_miss_and_is_blamed_on_its_attribute(advisor, demo_warehouse, true_labels):
    """Swap the cohort labels of two curriculum-period graduation pages (an annotator's error): the
    truth-based gold does not move, proFILL now misses the page for the student, the true-label
    system still finds it, and the row names the attribute whose labels cost it."""
    from eval.benchmark.synthesis import chunk_rows
    from eval.systems.offline import true_label_advisor

    every = read_benchmark(demo_warehouse.root / "benchmarks" / "qa.jsonl", advisor.schema)
    first, second = "/departments/cs/graduation-2021-2022.html", "/departments/cs/graduation-2023.html"
    rows = chunk_rows(advisor.build)
    cohort_of = {page: next(r["applies_to"]["admission_year"] for r in rows if r["doc_url"].endswith(page))
                 for page in (first, second)}
    swapped = {r["chunk_id"]: {**r["applies_to"], "admission_year": cohort_of[second if r["doc_url"].endswith(first)
                                                                              else first]}
               for r in rows if r["doc_url"].endswith((first, second))}
    assert swapped and cohort_of[first] != cohort_of[second]
    wrong = true_label_advisor(advisor, swapped)  # the engine over the mislabelled build
    asked = [i for i in every if i["slice"] == "profile_dependent" and any(g.endswith(first) for g in i["gold_sources"])
             and i["query_type"] == "formal"][:12]
    assert asked
    outcome = run_evaluation(wrong, asked, ["profill", "profill-true-labels"], ["oracle"], today=TODAY,
                             true_labels=true_labels)
    mrr = {a["system"]: a["mrr"] for a in outcome.aggregates}
    assert mrr["profill-true-labels"] > mrr["profill"] + 0.2
    blamed = [r["label_errors"] for r in _rows(outcome, "profill", "oracle")]
    assert sum("admission_year" in b for b in blamed) >= len(asked) // 2


# ---------------------------------------------------------------------------- several processes

def test_worker_count_follows_the_request_the_environment_and_the_shard_size(monkeypatch):
    from eval.parallel import MIN_SHARD, WORKERS_ENV, worker_count

    assert worker_count(10 * MIN_SHARD, 3) == 3
    assert worker_count(MIN_SHARD + 1, 4) == 1  # two shards would each be too small to pay a second engine
    monkeypatch.setenv(WORKERS_ENV, "2")
    assert worker_count(10 * MIN_SHARD) == 2
    monkeypatch.setenv(WORKERS_ENV, "two")
    with pytest.raises(ValueError, match=WORKERS_ENV):
        worker_count(10 * MIN_SHARD)


def test_sharded_outcomes_merge_in_the_runners_order_with_aggregates_over_every_shard():
    from eval.parallel import merge
    from eval.runner import EvalOutcome

    def row(system, instance_id, rank):
        return {"system": system, "setting": "oracle", "instance_id": instance_id, "rank": rank,
                "gold_ranks": [rank] if rank else [], "gold_sources": ["u"], "slice": "all", "rouge_l": 0.0,
                "token_f1": 0.0, "keyword_match": 0.0, "source_match": 0.0, "grounded_correctness": None,
                "seconds": 1.0, "questions_asked": 0, "tier": None}

    def outcome(ids, ranks):
        rows = [row(s, i, r) for s in ("bm25", "dense") for i, r in zip(ids, ranks)]
        aggregates = [runner.aggregate(s, "oracle", [x for x in rows if x["system"] == s]) for s in ("bm25", "dense")]
        skipped = {"system": "urag", "setting": "oracle", "skipped": "why"}
        return EvalOutcome(rows, [*aggregates, skipped], {"k": 10}, {"bm25/oracle": 1.0})

    # a part need not be contiguous: the benchmark's order puts the rows back
    instances = [{"id": i, "query": q} for i, q in (("a", "same text"), ("b", "same text"), ("c", "another"))]
    merged = merge([outcome(["a", "c"], [1, 2]), outcome(["b"], [None])], instances)
    assert [(r["system"], r["instance_id"]) for r in merged.per_query] == [
        ("bm25", "a"), ("bm25", "b"), ("bm25", "c"), ("dense", "a"), ("dense", "b"), ("dense", "c")]
    whole = runner.aggregate("bm25", "oracle", merged.per_query[:3])
    assert merged.aggregates[0] == whole and whole["n"] == 3  # over every shard's rows, not averaged
    assert merged.aggregates[2]["skipped"] == "why"
    assert merged.timings == {"bm25/oracle": 2.0} and merged.params["processes"] == 2
    mrr = next(r for r in merged.intervals if (r["system"], r["metric"]) == ("bm25", "mrr"))
    assert (mrr["instances"], mrr["texts"]) == (3, 2) and mrr["value"] == pytest.approx(0.5)  # every shard's rows
    assert {(t["system"], t["baseline"]) for t in merged.tests} == {("dense", "bm25")}


def test_the_parts_keep_each_questions_instances_together_and_balance_their_sizes():
    from eval.parallel import split

    instances = [{"id": f"{q}-{i}", "query": q} for q, n in (("a", 5), ("b", 1), ("c", 1), ("d", 3), ("e", 2))
                 for i in range(n)]
    parts = split(instances, 2)
    assert sorted(len(p) for p in parts) == [6, 6]  # contiguous halves would be 6 and 6 only by luck
    for part in parts:
        queries = {i["query"] for i in part}
        assert all(i in part for i in instances if i["query"] in queries)  # no question split
    assert sorted(i["id"] for p in parts for i in p) == sorted(i["id"] for i in instances)
    assert split(instances[:1], 4) == [instances[:1]]  # never an empty part


def test_two_processes_give_the_rows_of_one(advisor, instances, demo_warehouse, monkeypatch):
    from eval import parallel

    monkeypatch.setattr(parallel, "MIN_SHARD", 5)
    systems, settings = ["bm25", "profill"], ["deployment", "oracle"]
    one = run_evaluation(advisor, instances, systems, settings)
    shard = parallel.Shard(demo_warehouse.config(), demo_warehouse.builds, advisor.build_id, list(instances),
                           systems, settings, None, None)
    two = parallel.run_sharded(shard, parallel.worker_count(len(instances), 2))

    def without_timing(rows):
        return [{k: v for k, v in r.items() if k not in ("seconds", "seconds_per_query", "slices")} for r in rows]

    assert len(two.per_query) == len(one.per_query)
    assert without_timing(two.per_query) == without_timing(one.per_query)
    assert without_timing(two.aggregates) == without_timing(one.aggregates)


class _CountingRetriever:
    """The engine's retriever, recording the queries it is asked to search."""

    def __init__(self, inner) -> None:
        self.inner, self.searched = inner, []

    def search_batch(self, queries, *args, **kwargs):
        self.searched += list(queries)
        return self.inner.search_batch(queries, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_the_retrieval_memo_keys_a_search_by_what_its_prefix_writes(advisor):
    """soft=True and the set of every known attribute write the same prefix: one search (the FAQ
    tier's check and the documents tier ask for it both ways); a prefix that writes less is another."""
    from eval.systems.memo import CachingRetriever

    counting = _CountingRetriever(advisor.retriever)
    memo = CachingRetriever(counting)
    known = {"department": "CS", "admission_year": 2021}
    question = "졸업하려면 전공 몇 학점 들어야 해요?"
    everything = memo.search(question, known, soft=True)
    same = memo.search(question, known, soft=frozenset(known))
    fewer = memo.search(question, known, soft=frozenset({"department"}))
    assert len(counting.searched) == 2
    assert same.chunk_ids == everything.chunk_ids
    assert fewer.chunk_ids == advisor.retriever.search(question, known, soft=frozenset({"department"})).chunk_ids
    assert memo.search(question, known, soft=False) is not everything and len(counting.searched) == 3
