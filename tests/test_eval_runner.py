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
from eval.benchmark_io import read_benchmark
from eval import runner
from eval.runner import DONT_KNOW, SETTINGS, SKIPPED_NO_LLM, SYSTEMS, run_evaluation
from eval.simulate import converse
from eval.systems import ANSWER_K, RANK_DEPTH, extend
from eval.truth import Truth, truth_file
from serving.dialogue.engine import open_advisor
from advisor.retrieval import conflicts, known_profile
from tests.openai_server import Behaviour, malformed, openai_server, reply, settings_for  # noqa: F401

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
    from eval.benchmark import chunk_rows

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
            # Table 1's row is over the paper's slice (the profile-dependent questions)
            main = sum(i.get("slice") == "profile_dependent" for i in instances) or len(instances)
            assert AGGREGATE_KEYS <= set(row) and row["skipped"] is None and row["n"] == main
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
    from eval.benchmark import chunk_rows
    from eval.systems import true_label_advisor

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
