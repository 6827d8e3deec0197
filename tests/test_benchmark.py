"""The QA benchmark synthesized from the demo build: the docs/contracts.md §3 format; gold sources from
the truth file (every source that truly applies to the profile and states the fact), so an
annotation error cannot move them; profile-dependent categories, three query types, the
profile-independent and stated-profile slices; no profile in the question; deterministic. Its own
reading of the documents (nothing shared with the answerer): tests/test_reference_independence.py."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import replace

import pytest

from advisor.chunking.token_cache import tokenizer_for
from advisor.config import load_config, question_unit
from advisor.index.store import latest_build_dir, load_build
from eval.benchmark import facts, questions, synthesis
from eval.benchmark.line_scope import LineScopeReader
from eval.benchmark.truth import Truth, applies, limited, truth_file


@pytest.fixture(scope="module")
def demo(demo_warehouse):
    config = demo_warehouse.config()
    build = load_build(latest_build_dir(demo_warehouse.builds))
    split = tokenizer_for(config)
    truth = Truth.load(truth_file(config, demo_warehouse.root), config)
    instances, report = synthesis.synthesize(build, split, truth=truth)
    return config, build, split, instances, report, truth


def dependent(instances):
    return [i for i in instances if i["slice"] == "profile_dependent"]


def test_format_size_and_slices(demo):
    _, _, _, instances, report, truth = demo
    assert report["gold_from"] == "truth" and report["truth"]["sha256"] == truth.digest
    assert report["profiles"] == 60 and len(report["categories"]) >= 10 and report["instances"] == len(instances)
    ids = [i["id"] for i in instances]
    assert len(set(ids)) == len(ids)
    for instance in instances:
        assert {"id", "query", "query_type", "category", "slice", "profile", "gold_sources", "keywords",
                "reference_answer", "intent", "gold_from", "gold_lines"} <= set(instance)
        assert instance["gold_from"] == "truth" and instance["slice"] in synthesis.SLICES
        assert instance["gold_sources"] and len(set(instance["gold_sources"])) == len(instance["gold_sources"])
        # a yes/no question whose premise holds states the answer: it is a query type of its own
        assert (instance["query_type"] == questions.VERIFICATION_TRUE) == (instance.get("premise") == "true")
    main = dependent(instances)
    assert len(main) == 1800  # 60 profiles x 10 categories x 3 query types, as in the paper
    assert set(Counter(i["id"].rsplit("-", 1)[0] for i in main).values()) == {3}
    kinds = Counter(i["query_type"] for i in main)
    assert kinds["verification"] > 0 and kinds[questions.VERIFICATION_TRUE] > 0
    slices = Counter(i["slice"] for i in instances)
    assert slices["stated_profile"] == 180 and slices["profile_independent"] >= 3


def test_every_gold_source_truly_applies_and_states_the_answer(demo):
    _, build, split, instances, _, truth = demo
    chunks = defaultdict(list)
    for row in synthesis.chunk_rows(build):
        chunks[row["doc_url"]].append(row)
    for instance in instances:
        if instance["query_type"] == "faq_question":
            continue  # test_faq_questions_for_everyone_are_asked_in_the_faqs_words
        keyword = re.sub(r"\s", "", instance["keywords"][0])
        for url in instance["gold_sources"]:
            assert any(applies(truth.of_chunk(c["doc_url"], c["heading_path"]), instance["profile"], build.schema)
                       and keyword in re.sub(r"\s", "", c["text"]) for c in chunks[url]), (instance["id"], url)


def test_golds_come_from_the_truth_not_from_the_annotations(demo):
    """Swap the annotations of two near-duplicate curriculum pages (an annotator's error): the
    truth-based benchmark does not move, the annotation-based one does."""
    config, build, split, instances, _, truth = demo
    urls = sorted({u for i in dependent(instances) for u in i["gold_sources"] if "/graduation-20" in u})
    first, second = urls[0], next(u for u in urls[1:] if u.rsplit("/", 1)[0] == urls[0].rsplit("/", 1)[0])
    collections = {}
    for name, collection in build.collections.items():
        url_of = collection.chunks["doc_url"].to_list()
        label_of = dict(zip(url_of, collection.applies_to))
        swapped = [label_of[second] if u == first else label_of[first] if u == second else a
                   for u, a in zip(url_of, collection.applies_to)]
        collections[name] = replace(collection, applies_to=swapped)
    wrong = build.over(collections)
    again, _ = synthesis.synthesize(wrong, split, truth=truth)
    assert again == instances
    from_annotations, report = synthesis.synthesize(build, split)
    from_wrong, _ = synthesis.synthesize(wrong, split)
    assert report["gold_from"] == "annotations" and all(i["gold_from"] == "annotations" for i in from_annotations)
    moved = {i["id"] for i in from_wrong} ^ {i["id"] for i in from_annotations} or {
        i["id"] for i, j in zip(from_wrong, from_annotations) if i["gold_sources"] != j["gold_sources"]}
    assert moved  # the annotation-based gold follows the annotator's error


def test_categories_are_questions_whose_answer_depends_on_who_asks(demo):
    _, _, _, instances, report, _ = demo
    answers, golds = defaultdict(set), defaultdict(set)
    for instance in dependent(instances):
        answers[instance["category"]].update(instance["keywords"])
        golds[instance["category"]].update(instance["gold_sources"])
    assert set(Counter(i["id"].split("-")[0] for i in dependent(instances) if i["query_type"] == "formal").values()) == {10}
    for category in report["categories"]:
        assert len(golds[category]) >= 2  # near-duplicates for different students
    common = [c for c, _ in Counter(i["category"] for i in dependent(instances)).most_common(7)]
    assert all(len(answers[c]) >= 2 for c in common), {c: answers[c] for c in common}


def test_profile_independent_questions_have_one_answer_for_everyone(demo):
    _, _, _, instances, _, _ = demo
    general = [i for i in instances if i["slice"] == "profile_independent" and i["query_type"] != "faq_question"]
    answers = defaultdict(set)
    for instance in general:
        answers[instance["category"]].add(instance["keywords"][0])
    assert general and all(len(a) == 1 for a in answers.values())
    assert len({json.dumps(i["profile"], sort_keys=True) for i in general}) > 1  # asked by different students


def test_faq_questions_for_everyone_are_asked_in_the_faqs_words(demo):
    # the sites state few facts for everyone: FAQ entries that apply to everyone make the
    # profile-independent slice large enough to be evidence (30 distinct question texts)
    _, build, _, instances, _, truth = demo
    entries = [i for i in instances if i["query_type"] == "faq_question"]
    chunks = {row["doc_url"]: row for row in synthesis.chunk_rows(build)}
    assert len({i["query"] for i in instances if i["slice"] == "profile_independent"}) >= 30
    for instance in entries:
        assert instance["slice"] == "profile_independent" and not instance["keywords"]
        for url in instance["gold_sources"]:
            chunk = chunks[url]
            assert "#" in url and chunk["title"] == instance["query"]
            assert not limited(truth.of_chunk(url, chunk["heading_path"]))  # for every student
            assert instance["reference_answer"] in chunk["text"]


def test_questions_never_name_the_profile_except_where_the_student_states_it(demo):
    _, build, _, instances, _, _ = demo
    for instance in instances:
        names = questions.names_profile(instance["query"], instance["profile"], build.schema)
        assert names == (instance["slice"] == "stated_profile"), instance["query"]
    stated = [i for i in instances if i["slice"] == "stated_profile"]
    assert all(i["stated"] == ["department", "admission_year"] for i in stated)
    assert all(f"{i['profile']['admission_year'] % 100:02d}학번" in i["query"] for i in stated)


def test_varied_phrasing_and_deterministic(demo):
    config, build, split, instances, _, truth = demo
    frames = defaultdict(set)
    for instance in instances:
        frames[instance["query_type"]].add(re.sub(r"[가-힣A-Za-z0-9]+", "w", instance["query"]))
    assert all(len(shapes) >= 3 for shapes in frames.values())  # not one template per type
    again, _ = synthesis.synthesize(build, split, truth=truth)
    assert again == instances


def test_write_benchmark_skips_when_unchanged(demo, tmp_path):
    config, build, split, instances, _, truth = demo
    first = synthesis.write_benchmark(tmp_path, build, split, code="v1", truth=truth)
    assert first["written"] and first["instances"] == len(instances)
    lines = (tmp_path / "benchmarks" / "qa.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == instances
    second = synthesis.write_benchmark(tmp_path, build, split, code="v1", truth=truth)
    opened = []  # what the asset passes: a tokenizer started only when the file must be written
    assert not synthesis.write_benchmark(tmp_path, build, None, code="v1", truth=truth,
                                         open_tokenizer=lambda: opened.append(1) or split)["written"]
    assert opened == []
    assert not second["written"] and second["benchmark_hash"] == first["benchmark_hash"]
    assert synthesis.write_benchmark(tmp_path, build, split, code="v2", truth=truth)["written"]
    assert synthesis.write_benchmark(tmp_path, build, split, code="v2")["gold_from"] == "annotations"
    assert synthesis.write_benchmark(tmp_path, build, None, code="v3", truth=truth,
                                     open_tokenizer=lambda: opened.append(1) or split)["written"]
    assert opened == [1]


# ----------------------------------------------------------------------------- reading lines

SCHEMA = load_config().profile


@pytest.mark.parametrize("text, expected", [
    ("2017~2018학번 | 136학점", {"admission_year": (2017, 2018)}),
    ("- 입학년도: 24~25학번 | 졸업 이수학점: 128학점", {"admission_year": (2024, 2025)}),
    ("'18~'20학번은 별도", {"admission_year": (2018, 2020)}),
    ("2026학년도 입학생부터 126학점", {"admission_year": (2026, 2026)}),
    ("2019년 이전 입학생", {"admission_year": (2015, 2019)}),
    ("2021학번부터 2022학번까지의 학생", {"admission_year": (2021, 2022)}),
    ("2021·2022학번은 아래 요건", {"admission_year": (2021, 2022)}),
    ("컴퓨터학과 심화전공 65학점", {"department": {"CS"}, "major_type": {"intensive"}}),
    ("1~2학년 대상", {"grade": (1, 2)}),
    ("3학년 1학기 개설 과목", {}),  # a course's timing, not whom the line is for
    ("2026학년도 1학기 수강신청 기간은 2026.02.20부터", {}),  # dates are not cohorts
    ("2015년 설립", None),  # a year it cannot place: unclear, never a gold line
    ("편입생 제외", None),  # whom a line excludes is not whom it is for: unclear
])
def test_whom_a_line_names(text, expected):
    scope = LineScopeReader(SCHEMA).read(text)
    if expected is None:
        assert scope is None
    else:
        assert {k: (set(v) if isinstance(v, frozenset) else v) for k, v in scope.limits.items()} == expected


def test_the_unit_an_integer_attribute_is_asked_in():
    assert question_unit("현재 몇 학년인가요?") == "학년" and question_unit("몇 학기째 재학 중인가요?") == "학기"


def split_lines(text):
    return [line for line in re.split(r"(?<=다\.)\s+", text) if line]


@pytest.mark.parametrize("text, found", [
    ("- 구분: 전공필수 | 기준: 26학점", [("전공필수", "26학점")]),
    ("- 입학년도: 2019학번 | 졸업 이수학점: 134학점 | 교양: 40학점", [("졸업 이수학점", "134학점"), ("교양", "40학점")]),
    ("- 날짜: 2026.03.02 | 일정: 1학기 개강", []),  # "1학기" names a semester, it is no quantity of 일정
    ("인증 신청은 4학년 1학기에 합니다.", []),  # the semester of a year is a point in time
    ("- 1학년: 자료구조 3학점", []),  # a numbered label indexes a course table
    ("복수전공자는 전공 36학점 이상을 이수해야 합니다.", [("전공", "36학점")]),
    ("휴학은 통산 6학기를 초과할 수 없습니다.", [("휴학", "6학기")]),
])
def test_facts_on_lines(text, found):
    config = load_config()
    tokenizer = tokenizer_for(config)
    got = facts.facts_of(text, split_lines, facts.noun_check(tokenizer.key_words), synthesis.profile_words(SCHEMA))
    assert [(f.aspect, f.quantity) for f in got] == found


def test_an_llm_rewrites_questions_and_answers_and_every_rewrite_is_checked(demo, tmp_path):
    """Through the real openai client and a local server: good rewrites replace the template,
    a rewrite that names the profile, changes the claim, gives the wrong verdict, or fails (bad
    JSON) keeps the template, and every instance says who wrote it; a re-run is served from the cache."""
    import duckdb

    from advisor.llm.client import LLMClient
    from eval.benchmark import llm_questions
    from tests.openai_server import FakeOpenAIServer, malformed, reply, settings_for

    config, build, _, instances, _, _ = demo
    chosen = {t: [i for i in dependent(instances) if i["query_type"] == t][:2] for t in ("formal", "first_person", "verification")}
    stated = next(i for i in instances if i["slice"] == "stated_profile")
    sample = [i for group in chosen.values() for i in group] + [stated]
    department_label = build.schema["department"].label(sample[1]["profile"]["department"])

    def respond(body):
        prompt = body["messages"][-1]["content"]
        instance = next(i for i in sample if f"Template question: {i['query']}\n" in prompt)
        fact = instance["keywords"][0]
        if instance is sample[1]:
            return reply({"question": f"{department_label} 학생인데 {instance['query']}", "reference_answer": fact})
        if instance is sample[2]:
            return malformed('{"question": "전공')
        if instance["query_type"].startswith("verification"):
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
            written, task, outcome = llm_questions.rewrite_with_llm(sample, build, client, con)
            calls = len(server.requests)
            again, _, _ = llm_questions.rewrite_with_llm(sample, build, client, con)
            # the cache answers everything but the failure, which is asked again
            retried = server.requests[calls:]
            assert retried and all(f"Template question: {sample[2]['query']}\n" in r["messages"][-1]["content"]
                                   for r in retried) and again == written
    finally:
        server.stop()
        con.close()
    assert outcome["names_profile"] == 1 and outcome["changed_claim"] == 1 and outcome["llm_failed"] == 1
    assert outcome["llm"] == len(sample) - 4 and task.usage.calls >= len(sample) - 1, outcome
    assert written[-1] == stated  # the student's own words about who they are are kept, never sent
    assert not any(stated["query"] in r["messages"][-1]["content"] for r in server.requests)
    for before, after in zip(sample, written):
        assert {k: v for k, v in after.items() if k not in ("query", "reference_answer", "written_by")} == \
            {k: v for k, v in before.items() if k not in ("query", "reference_answer", "written_by")}
        if after["written_by"] == "template":
            assert (after["query"], after["reference_answer"]) == (before["query"], before["reference_answer"])
        else:
            assert after["written_by"] == f"llm:{client.model}" and after["query"] != before["query"]
            assert not questions.names_profile(after["query"], after["profile"], build.schema)
    # the offline benchmark says so too (an FAQ question is the FAQ's own words)
    assert all(i["written_by"] == ("faq" if i["query_type"] == "faq_question" else "template") for i in instances)


def test_a_row_of_cohort_columns_is_one_fact_per_cohort():
    config = load_config()
    reader = LineScopeReader(SCHEMA)
    text = "- 구분: 졸업학점 | 2015~2016학번: 140학점 | 2017학번 이후: 136학점 | 비고: 외국인 유학생"
    got = facts.facts_of(text, split_lines, facts.noun_check(tokenizer_for(config).key_words),
                         synthesis.profile_words(SCHEMA))
    assert [(f.aspect, f.quantity) for f in got] == [("졸업학점", "140학점"), ("졸업학점", "136학점")]
    scopes = [reader.read(f.scope_text).limits for f in got]
    assert [s["admission_year"] for s in scopes] == [(2015, 2016), (2017, 2026)]
    assert all(s["student_status"] == {"international"} for s in scopes)  # the note cell still says whom


def test_the_same_synthesis_on_an_institution_unlike_the_demo(business_warehouse):
    """The second bundled institution (another schema, markup and wording): the benchmark comes out
    the same way, every gold source truly applies and states the answer, and FAQ entries that
    answer the question are among the gold (their question names the aspect, their answer the
    quantity)."""
    config = business_warehouse.config()
    build = load_build(latest_build_dir(business_warehouse.builds))
    truth = Truth.load(truth_file(config, business_warehouse.root), config)
    instances, report = synthesis.synthesize(build, tokenizer_for(config), truth=truth)
    assert report["gold_from"] == "truth" and report["profiles"] == 60
    assert len(dependent(instances)) == 1800 and report["slices"]["profile_independent"] > 0
    assert set(instances[0]["profile"]) <= set(config.profile) and "campus" in instances[0]["profile"]
    chunks = defaultdict(list)
    for row in synthesis.chunk_rows(build):
        chunks[row["doc_url"]].append(row)
    for instance in [i for i in instances if i["keywords"]][::7]:  # FAQ questions have no keyword
        keyword = re.sub(r"\s", "", instance["keywords"][0])
        for url in instance["gold_sources"]:
            assert any(applies(truth.of_chunk(c["doc_url"], c["heading_path"]), instance["profile"], build.schema)
                       and keyword in re.sub(r"\s", "", c["text"]) for c in chunks[url]), (instance["id"], url)
    assert any("faq" in url for i in dependent(instances) for url in i["gold_sources"][1:])
