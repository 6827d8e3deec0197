"""The QA benchmark synthesized from the demo build: the interfaces.md §3 format, one gold source
that applies to the profile and holds the keyword, three query types per profile and category,
no profile in the question, deterministic; and the same code on a hand-made institution."""

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
    split = tokenizer_for(config).split_sentences
    instances, report = benchmark.synthesize(build, config, split)
    return config, build, split, instances, report


def test_format_and_size(demo):
    _, _, _, instances, report = demo
    assert report["profiles"] == 60 and len(report["categories"]) >= 10
    assert 1200 <= len(instances) <= 1800 and report["instances"] == len(instances)
    ids = [i["id"] for i in instances]
    assert len(set(ids)) == len(ids)
    for instance in instances:
        assert {"id", "query", "query_type", "category", "profile", "gold_sources", "keywords",
                "reference_answer", "intent"} <= set(instance)
        assert instance["query_type"] in benchmark.QUERY_TYPES and len(instance["gold_sources"]) == 1
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
    for instance in instances:
        url, text, applies_to = chunks[instance["gold_chunk_id"]]
        assert instance["gold_sources"] == [url]
        assert not conflicts(applies_to, instance["profile"], build.schema)
        assert any(v is not None for v in applies_to.values())  # a profile-dependent source
        squeezed = re.sub(r"\s", "", text)
        assert all(re.sub(r"\s", "", k) in squeezed for k in instance["keywords"])


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
