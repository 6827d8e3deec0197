"""The QA benchmark synthesized from the demo build: the interfaces.md §3 format, one gold source
that applies to the profile and holds the keyword (plus any source stating the same fact for
the same students), categories whose answer depends on who asks, three query types per profile
and category, no profile in the question, deterministic."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict

import pytest

from advisor.chunking.chunks import tokenizer_for
from advisor.index.store import latest_build_dir, load_build
from eval import benchmark
from serving.retrieval.profile import conflicts


@pytest.fixture(scope="module")
def demo(demo_warehouse):
    config = demo_warehouse.config()
    build = load_build(latest_build_dir(demo_warehouse.builds))
    split = tokenizer_for(config)
    instances, report = benchmark.synthesize(build, config, split)
    return config, build, split, instances, report


def test_format_and_size(demo):
    _, _, _, instances, report = demo
    assert report["profiles"] == 60 and len(report["categories"]) >= 10
    assert len(instances) <= 1800 and report["instances"] == len(instances)
    ids = [i["id"] for i in instances]
    assert len(set(ids)) == len(ids)
    for instance in instances:
        assert {"id", "query", "query_type", "category", "profile", "gold_sources", "keywords",
                "reference_answer", "intent"} <= set(instance)
        assert instance["query_type"] in benchmark.QUERY_TYPES and instance["gold_sources"]
        assert len(set(instance["gold_sources"])) == len(instance["gold_sources"])
    triples = Counter((i["id"].rsplit("-", 1)[0]) for i in instances)
    assert set(triples.values()) == {3}  # every profile x category has all three query types
    premises = Counter(i["premise"] for i in instances if i["query_type"] == "verification")
    assert premises["true"] > 0 and premises["false"] > 0


def test_gold_applies_to_the_profile_and_holds_the_keyword(demo):
    _, build, _, instances, _ = demo
    chunks = {}
    for collection in build.collections.values():
        for chunk_id, url, text, applies_to in zip(collection.chunk_ids, collection.chunks["doc_url"].to_list(),
                                                   collection.chunks["text"].to_list(), collection.applies_to):
            chunks[chunk_id] = (url, text, applies_to)
    by_url = defaultdict(list)
    for url, text, applies_to in chunks.values():
        by_url[url].append((text, applies_to))
    for instance in instances:
        url, text, applies_to = chunks[instance["gold_chunk_id"]]
        assert instance["gold_sources"][0] == url
        assert not conflicts(applies_to, instance["profile"], build.schema)
        assert any(v is not None for v in applies_to.values())  # a profile-dependent source
        squeezed = re.sub(r"\s", "", text)
        assert all(re.sub(r"\s", "", k) in squeezed for k in instance["keywords"])
        for other in instance["gold_sources"][1:]:  # equally correct: applies and states the same fact
            assert any(not conflicts(a, instance["profile"], build.schema)
                       and all(re.sub(r"\s", "", k) in re.sub(r"\s", "", t) for k in instance["keywords"])
                       for t, a in by_url[other])


def test_categories_are_questions_whose_answer_depends_on_who_asks(demo):
    _, _, _, instances, report = demo
    answers, golds = defaultdict(set), defaultdict(set)
    for instance in instances:
        answers[instance["category"]].update(instance["keywords"])
        golds[instance["category"]].add(instance["gold_sources"][0])
    assert len(report["categories"]) >= 10
    per_profile = Counter(i["id"].split("-")[0] for i in instances if i["query_type"] == "formal")
    assert set(per_profile.values()) == {10} and len(instances) == 1800  # 60 x 10 x 3, as in the paper
    for category in report["categories"]:
        assert len(golds[category]) >= 2  # near-duplicates for different students
    # the categories most profiles are asked about have different answers for different students
    common = [c for c, _ in Counter(i["category"] for i in instances).most_common(7)]
    assert all(len(answers[c]) >= 2 for c in common), {c: answers[c] for c in common}


def test_question_never_names_the_profile(demo):
    config, build, _, instances, _ = demo
    for instance in instances:
        assert not benchmark.names_profile(instance["query"], instance["profile"], build.schema), instance["query"]
        year = instance["profile"].get("admission_year")
        assert str(year) not in instance["query"]


def test_varied_phrasing_and_deterministic(demo):
    config, build, split, instances, _ = demo
    frames = defaultdict(set)
    for instance in instances:
        frames[instance["query_type"]].add(re.sub(r"[가-힣A-Za-z0-9]+", "w", instance["query"]))
    assert all(len(shapes) >= 3 for shapes in frames.values())  # not one template per type
    again, _ = benchmark.synthesize(build, config, split)
    assert again == instances


def test_write_benchmark_skips_when_unchanged(demo, tmp_path):
    config, build, split, instances, _ = demo
    first = benchmark.write_benchmark(tmp_path, build, config, split, code="v1")
    assert first["written"] and first["instances"] == len(instances)
    lines = (tmp_path / "benchmarks" / "qa.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == instances
    second = benchmark.write_benchmark(tmp_path, build, config, split, code="v1")
    assert not second["written"] and second["benchmark_hash"] == first["benchmark_hash"]
    assert benchmark.write_benchmark(tmp_path, build, config, split, code="v2")["written"]


def test_category_names_drop_profile_mentions():
    words = ["컴퓨터학과", "심화전공", "CS"]
    assert benchmark.category_of("2021–2022학년도 입학생 컴퓨터학과 졸업요건", words) == "졸업요건"
    assert benchmark.category_of("컴퓨터학과 2019학년도 교과과정", words) == "교과과정"
    assert benchmark._clean_aspect("## 심화전공 이수 학점 (2021–2022학년도 입학생)", words) == "이수 학점"
    assert benchmark._clean_aspect("제3조 (졸업)", words) == ""
    assert benchmark.category_of("[현장실습] 2025학년도 2학기 학기제 현장실습 모집 (3~4학년)", words) == "학기제 현장실습 모집"


@pytest.mark.parametrize("before, aspect", [
    ("복수전공자는 전공 ", "전공"),  # the noun phrase right before the quantity
    ("컴퓨터학과 전임교원은 ", "전임교원"),  # a profile word is who asks, not what
    ("전공필수는 총 ", "전공필수"),  # the clause's subject, past a qualifier
    ("- 영어 졸업요건: TOEIC ", "영어 졸업요건"),  # a label
    ("- 4학년 개설 전공선택(심화 과목) ", "개설 전공선택"),  # the parenthesis is left out
    ("졸업생 기부금으로 매 학기 ", ""),  # no subject: "5명" is not of 기부금
    ("평점 4.2 이상 등록금 ", "등록금"),
    ("1학년 ", ""),
])
def test_what_a_quantity_in_a_sentence_is_of(before, aspect):
    from advisor.chunking.chunks import tokenizer_for
    from advisor.config import load_config

    assert benchmark._aspect_before(before, ["컴퓨터학과", "CS"], tokenizer_for(load_config())) == aspect


def test_an_llm_rewrites_questions_and_answers_and_every_rewrite_is_checked(demo, tmp_path):
    """Through the real openai client and a local server: good rewrites replace the template,
    a rewrite that names the profile, changes the claim, gives the wrong verdict, or fails (bad
    JSON) keeps the template, and every instance says who wrote it; a re-run is served from the cache."""
    import duckdb

    from advisor.llm.client import LLMClient
    from eval import llm_benchmark
    from tests.openai_server import FakeOpenAIServer, malformed, reply, settings_for

    config, build, _, instances, _ = demo
    chosen = {t: [i for i in instances if i["query_type"] == t][:2] for t in benchmark.QUERY_TYPES}
    sample = [i for group in chosen.values() for i in group]
    department_label = build.schema["department"].label(sample[1]["profile"]["department"])

    def respond(body):
        prompt = body["messages"][-1]["content"]
        instance = next(i for i in sample if f"Template question: {i['query']}\n" in prompt)
        fact = instance["keywords"][0]
        if instance is sample[1]:
            return reply({"question": f"{department_label} 학생인데 {instance['query']}", "reference_answer": fact})
        if instance is sample[2]:
            return malformed('{"question": "전공')
        if instance["query_type"] == "verification":
            if instance is chosen["verification"][0]:
                return reply({"question": "그거 1000학점 맞아요?", "reference_answer": "네."})  # changed claim
            verdict = "네" if instance["premise"] == "true" else "아니요"
            number = re.search(r"\d+(?:\.\d+)?", instance["query"]).group()
            return reply({"question": f"혹시 {number} 맞나요?", "reference_answer": f"{verdict}, {fact}입니다."})
        return reply({"question": f"다시 묻습니다: {instance['query']}", "reference_answer": f"기준은 {fact}입니다."})

    server = FakeOpenAIServer().start()
    server.default = respond
    con = duckdb.connect(str(tmp_path / "lake.duckdb"))
    try:
        with LLMClient(settings_for(server)) as client:
            written, task, outcome = llm_benchmark.rewrite_with_llm(sample, build, client, con)
            calls = len(server.requests)
            again, _, _ = llm_benchmark.rewrite_with_llm(sample, build, client, con)
            # the cache answers everything but the failure, which is asked again
            retried = server.requests[calls:]
            assert retried and all(f"Template question: {sample[2]['query']}\n" in r["messages"][-1]["content"]
                                   for r in retried) and again == written
    finally:
        server.stop()
        con.close()
    assert outcome["names_profile"] == 1 and outcome["changed_claim"] == 1 and outcome["llm_failed"] == 1
    assert outcome["llm"] == len(sample) - 3 and task.usage.calls >= len(sample)
    for before, after in zip(sample, written):
        assert {k: v for k, v in after.items() if k not in ("query", "reference_answer", "written_by")} == \
            {k: v for k, v in before.items() if k not in ("query", "reference_answer", "written_by")}
        if after["written_by"] == "template":
            assert (after["query"], after["reference_answer"]) == (before["query"], before["reference_answer"])
        else:
            assert after["written_by"] == f"llm:{client.model}" and after["query"] != before["query"]
            assert not benchmark.names_profile(after["query"], after["profile"], build.schema)
    assert all(i["written_by"] == "template" for i in instances)  # the offline benchmark says so too
