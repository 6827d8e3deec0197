"""Composing the answer: the offline extractive answer (verbatim units that fit the profile), the
grounded LLM answer through a real local OpenAI-protocol server, and the disclaimed fallback."""

from __future__ import annotations

import json
import re

import pytest

from advisor.chunking.token_cache import tokenizer_for
from advisor.config import load_config, parse_config
from advisor.llm.client import LLMClient, LLMFailure
from advisor.retrieval import RetrievedChunk
from examples.demo_college.facts import contains_fact, fact_cases
from serving.answer import ComposedAnswer, LLMAnswerer, extractive_answer, fallback_answer, is_yes_no, readable
from serving.answer.fallback import texts_for
from tests.openai_server import error, malformed, reply, settings_for

CONFIG = load_config()


@pytest.fixture(scope="module")
def kiwi():
    return tokenizer_for(CONFIG)


def chunk(text: str, url: str = "https://u.example/page", rank: int = 1, kind: str = "page",
          applies_to: dict | None = None, title: str = "안내") -> RetrievedChunk:
    return RetrievedChunk(rank=rank, chunk_id=f"c{rank}", score=1.0 / rank, bm25_rank=rank, dense_rank=rank,
                          collection="static", doc_url=url, title=title, text=text,
                          applies_to=applies_to or {}, kind=kind)


COHORT_TABLE = (
    "## 전공 이수 요건\n\n"
    "전공 이수 요건은 입학년도에 따라 다릅니다.\n\n"
    "학번별 전공 이수 학점\n"
    "- 학번: 2019–2020학년도 입학생 | 요건: 전공 72학점 이상\n"
    "- 학번: 2021–2023학년도 입학생 | 요건: 전공 66학점 이상\n\n"
    "졸업논문은 4학년 2학기에 제출합니다."
)
LEAVE = "## 휴학 신청\n\n휴학은 학기 시작 전까지 포털에서 신청합니다.\n\n- 휴학 기간: 1회 최대 2개 학기"
EVIDENCE = [chunk(LEAVE, "https://u.example/leave", 1), chunk(COHORT_TABLE, "https://u.example/curriculum", 2)]


def answer_for(kiwi, query, known, evidence=EVIDENCE, config=CONFIG, **kw) -> ComposedAnswer:
    return extractive_answer(query, evidence, known, config, kiwi.content_morphemes, kiwi.split_sentences, **kw)


def assert_verbatim(answer: ComposedAnswer, evidence) -> None:
    """Every snippet line is in its cited chunk's text; every answer line is an evidence line as
    `readable` shows it (a row as a sentence), optionally followed by its table's caption in
    parentheses, or a short list's caption and items on one line; every number is the material's."""
    squash = lambda s: " ".join(s.split())  # noqa: E731
    for index in answer.cited:
        source = squash(evidence[index].text)
        for line in answer.snippets[index].splitlines():
            assert squash(line) in source, line
    raw = {squash(line.strip()) for c in evidence for line in c.text.splitlines()}
    shown = {readable(line) for c in evidence for line in c.text.splitlines()}
    everything = " ".join(squash(c.text) for c in evidence)
    for line in answer.text.splitlines():
        line = re.sub(r"\s*\[\d+\]$", "", line)
        if line in ("자료에 따르면:", "According to the sources:"):
            continue
        context = re.search(r" \(([^()]*(?:\([^()]*\))?[^()]*)\)(\.?)$", line)
        if context and context.group(1) in raw:  # "… 66학점 이상입니다 (학번별 전공 이수 학점)."
            line = line[:context.start()] + context.group(2)
        caption, _, items = line.partition(": ")
        listed = caption in raw and all(readable(item) in shown for item in items.split(", "))
        assert line in shown or line in everything or listed, line
    numbers = set(re.findall(r"\d+", re.sub(r"\[\d+\]", "", answer.text)))
    assert numbers <= set(re.findall(r"\d+", everything)), numbers


# ----------------------------------------------------------------------------- extractive

def test_extractive_keeps_the_row_for_the_students_cohort_and_cites_its_chunk(kiwi):
    answer = answer_for(kiwi, "전공은 몇 학점 들어야 하나요?", {"admission_year": 2022})
    assert answer.method == "extractive"
    assert "2021–2023학년도 입학생" in answer.text and "66학점" in answer.text
    assert "2019–2020" not in answer.text and "72학점" not in answer.text
    assert answer.cited == [1]
    assert "학번별 전공 이수 학점" in answer.snippets[1]  # the row keeps its caption
    assert_verbatim(answer, EVIDENCE)

    other = answer_for(kiwi, "전공은 몇 학점 들어야 하나요?", {"admission_year": 2019})
    assert "72학점" in other.text and "66학점" not in other.text


def test_extractive_without_profile_shows_every_row_as_a_sentence(kiwi):
    answer = answer_for(kiwi, "전공은 몇 학점 들어야 하나요?", {})
    assert "72학점" in answer.text and "66학점" in answer.text
    assert "2021–2023학년도 입학생은 전공 66학점 이상입니다" in answer.text  # whom it is for, then the fact
    assert "학번:" not in answer.text and "요건:" not in answer.text  # not "header: value, header: value"
    assert " | " not in answer.text and "\n- " not in "\n" + answer.text
    assert_verbatim(answer, EVIDENCE)


def test_extractive_answers_a_yes_no_question_with_the_sources_not_a_verdict(kiwi):
    answer = answer_for(kiwi, "22학번도 전공 66학점이 맞나요?", {"admission_year": 2022})
    assert answer.text.startswith("자료에 따르면")
    assert "66학점" in answer.text
    assert not re.search(r"\b(네|예|아니요|아니오)\b", answer.text)
    assert_verbatim(answer, EVIDENCE)


def test_extractive_prefers_the_chunk_that_answers_and_respects_max_sentences(kiwi):
    answer = answer_for(kiwi, "휴학 신청은 어디서 하나요?", {}, max_sentences=1)
    assert answer.cited == [0]
    assert "포털에서 신청" in answer.text
    assert len(answer.text.splitlines()) == 1


def test_extractive_never_answers_empty_when_evidence_exists(kiwi):
    answer = answer_for(kiwi, "점심 메뉴 추천해 주세요", {})
    assert answer.text.strip() and answer.cited == [0]
    assert answer.note  # says why: nothing matched the question
    with pytest.raises(ValueError, match="evidence"):
        answer_for(kiwi, "전공 학점?", {}, evidence=[])


def test_extractive_skips_a_chunk_annotated_for_other_students(kiwi):
    other_department = chunk("데이터과학과 전공은 60학점 이상 이수해야 합니다.", rank=1,
                             applies_to={"department": ["DS"]})
    answer = answer_for(kiwi, "전공은 몇 학점 들어야 하나요?", {"department": "CS", "admission_year": 2022},
                        evidence=[other_department, EVIDENCE[1]])
    assert answer.cited == [1] and "60학점" not in answer.text


def test_extractive_faq_question_is_context_not_answer(kiwi):
    faq = chunk("졸업논문은 언제 내나요?\n\n4학년 2학기 11월 말까지 학과 사무실에 제출합니다.", kind="faq")
    answer = answer_for(kiwi, "졸업논문 제출 기한이 언제예요?", {}, evidence=[faq])
    assert "11월 말까지" in answer.text and "언제 내나요" not in answer.text


def test_extractive_reads_another_institutions_schema():
    """Nothing about the demo college: another schema's aliases and cohort attribute drive the drop."""
    config = parse_config({
        "institution": "School of Engineering",
        "sources": [{"name": "site", "kind": "html", "seeds": ["https://eng.example.ac.kr/"]}],
        "profile": {
            "campus": {"type": "categorical", "question": "캠퍼스는?",
                       "values": {"main": ["본캠퍼스"], "bay": ["베이캠퍼스"]}},
            "cohort": {"type": "year", "question": "입학년도는?", "min": 2010, "max": 2024},
        },
    })
    text = ("## 실험실 안전교육\n\n안전교육 이수 기준\n"
            "- 대상: 본캠퍼스 재학생 | 시간: 연 6시간 이수\n"
            "- 대상: 베이캠퍼스 재학생 | 시간: 연 4시간 이수")
    evidence = [chunk(text)]
    tokenize = lambda texts: [t.split() for t in texts]  # noqa: E731 - any tokenizer the caller uses
    split = lambda t: [t]  # noqa: E731
    answer = extractive_answer("안전교육 몇 시간 이수 필요", evidence, {"campus": "bay"}, config, tokenize, split)
    assert "4시간" in answer.text and "6시간" not in answer.text


@pytest.mark.parametrize("query, expected", [
    ("2021학번도 캡스톤디자인이 필수인가요?", True),
    ("휴학 중에도 장학금 신청이 가능한가요?", True),
    ("졸업하려면 전공을 몇 학점 들어야 하나요?", False),
    ("휴학 신청은 언제까지 하나요?", False),
    ("Can I take a leave of absence twice?", True),
    ("How many credits do I need?", False),
])
def test_yes_no_questions(query, expected):
    assert is_yes_no(query) is expected


# ----------------------------------------------------------------------------- demo college

def _demo_setup(demo_warehouse):
    from advisor.retrieval import Retriever, latest_build_dir, load_build, params_from

    config = demo_warehouse.config()
    tokenizer = tokenizer_for(config)
    build = load_build(latest_build_dir(demo_warehouse.builds))
    retriever = Retriever(build, tokenizer.content_morphemes, params_from(build.manifest["lineage"]["retrieval"]))
    manifest = demo_warehouse.root / "demo_college" / "manifest.jsonl"
    assert manifest.exists(), manifest
    rows = [json.loads(line) for line in manifest.read_text(encoding="utf-8").splitlines()]
    return config, tokenizer, retriever, rows


# Question wordings per fact of the demo's ground truth (the facts are read from the manifest).
def test_extractive_on_the_demo_build_contains_the_gold_fact(demo_warehouse):
    config, tokenizer, retriever, manifest = _demo_setup(demo_warehouse)
    pairs = [
        ("졸업하려면 전공을 몇 학점 들어야 하나요?",
         {"department": "DS", "admission_year": 2023, "major_type": "intensive", "grade": 3},
         "/departments/ds/graduation-2023.html", "major_credits", "intensive"),
        ("교양은 몇 학점 들어야 하나요?", {"department": "CS", "admission_year": 2017, "major_type": "double"},
         "/departments/cs/graduation-2017-2018.html", "ge_credits", "double"),
        ("전공필수 과목이 뭔가요?", {"department": "AI", "admission_year": 2022, "major_type": "intensive", "grade": 2},
         "/departments/ai/graduation-2021-2022.html", "required_courses", "intensive"),
    ]
    by_path = {row["path"]: row for row in manifest}
    for query, profile, path, key, major_type in pairs:
        section = next(s for s in by_path[path]["sections"] if s["applies_to"]["major_type"] == [major_type])
        value = section["facts"][key]
        expected = [f"{value}학점"] if isinstance(value, int) else value
        result = retriever.search(query, profile)
        evidence = result.chunks[:3]
        answer = extractive_answer(query, evidence, result.profile, config, tokenizer.content_morphemes,
                                   tokenizer.split_sentences)
        assert contains_fact(answer.text, expected), (query, expected, answer.text)
        assert any(evidence[i].doc_url.endswith(path) for i in answer.cited), answer.cited
        assert_verbatim(answer, evidence)


def test_extractive_fact_rate_on_a_sample_of_the_demo_facts(demo_warehouse):
    """Measured 0.92 on these 100 queries (0.917 on 400; the gold source is in the top 3 for 0.92)."""
    config, tokenizer, retriever, manifest = _demo_setup(demo_warehouse)
    cases = fact_cases(manifest, 100)
    assert len(cases) == 100
    results = retriever.search_batch([c["query"] for c in cases], [c["profile"] for c in cases])
    hits = 0
    for case, result in zip(cases, results):
        answer = extractive_answer(case["query"], result.chunks[:3], result.profile, config,
                                   tokenizer.content_morphemes, tokenizer.split_sentences)
        hits += contains_fact(answer.text, case["expected"])
    print(f"extractive fact-in-answer rate: {hits / len(cases):.3f} over {len(cases)} queries")
    assert hits / len(cases) >= 0.8


# ----------------------------------------------------------------------------- LLM

LLM_EVIDENCE = [chunk(LEAVE, "https://u.example/leave", 1, title="휴학"),
                chunk(COHORT_TABLE, "https://u.example/curriculum", 2, title="전공 이수 요건",
                      applies_to={"department": ["CS"]})]


def test_llm_answer_with_valid_citations_is_renumbered_to_cited_order(openai_server):
    openai_server.script(reply({"answer": "2021–2023학년도 입학생은 전공 66학점 이상을 이수해야 합니다 [2]. "
                                          "휴학과는 관계없습니다 [1].", "citations": [2, 1]}))
    with LLMClient(settings_for(openai_server)) as client:
        answerer = LLMAnswerer(client)
        answer = answerer.answer("전공 몇 학점?", LLM_EVIDENCE, {"department": "CS", "admission_year": 2022}, CONFIG)
    assert isinstance(answer, ComposedAnswer) and answer.method == "llm"
    assert answer.cited == [1, 0]
    assert "합니다 [1]." in answer.text and "없습니다 [2]." in answer.text  # [k] refers to cited[k-1]
    assert "66학점" in answer.snippets[1]
    assert answerer.usage.calls == 1
    prompt = openai_server.requests[0]["messages"][-1]["content"]
    assert "[1] 휴학" in prompt and "[2] 전공 이수 요건" in prompt and "https://u.example/curriculum" in prompt
    assert "컴퓨터학과" in prompt and "2022" in prompt  # the profile in words, with the schema's labels
    body = openai_server.requests[0]
    assert body["response_format"]["json_schema"]["strict"] is True


@pytest.mark.parametrize("bad", [
    {"answer": "전공 66학점입니다 [3].", "citations": [3]},  # out of range
    {"answer": "전공 66학점입니다 [2].", "citations": []},  # no citation
    {"answer": "전공 66학점입니다 [1][2].", "citations": [2]},  # a marker not listed
])
def test_llm_answer_with_invalid_citations_is_retried_then_fails(openai_server, bad):
    openai_server.script(reply(bad), reply(bad))
    with LLMClient(settings_for(openai_server)) as client:
        result = LLMAnswerer(client).answer("전공 몇 학점?", LLM_EVIDENCE, {}, CONFIG)
    assert isinstance(result, LLMFailure) and result.reason == "llm_invalid_output"
    assert len(openai_server.requests) == 2  # the first attempt and one retry (invalid_output_retries=1)


def test_llm_answer_malformed_json_fails(openai_server):
    openai_server.script(malformed('{"answer": "전공'), malformed('{"answer": "전공'))
    with LLMClient(settings_for(openai_server)) as client:
        result = LLMAnswerer(client).answer("전공 몇 학점?", LLM_EVIDENCE, {}, CONFIG)
    assert isinstance(result, LLMFailure) and result.reason == "llm_invalid_output"


def test_llm_answer_retries_a_429_then_succeeds(openai_server):
    openai_server.script(error(429, retry_after="0"), reply({"answer": "포털에서 신청합니다 [1].", "citations": [1]}))
    with LLMClient(settings_for(openai_server)) as client:
        answer = LLMAnswerer(client).answer("휴학 신청은 어디서?", LLM_EVIDENCE, {}, CONFIG)
    assert isinstance(answer, ComposedAnswer) and answer.cited == [0]
    assert "포털에서 신청" in answer.snippets[0]
    assert len(openai_server.requests) == 2


# ----------------------------------------------------------------------------- fallback

def test_fallback_without_a_client_is_an_honest_no_answer():
    text, method, disclaimer = fallback_answer("기숙사 식당 메뉴는?", CONFIG, None)
    assert method == "fallback" and text and disclaimer
    assert disclaimer != texts_for(CONFIG)["llm_disclaimer"]  # never the "answered from general knowledge" one
    assert CONFIG.institution in text
    english = CONFIG.model_copy(update={"language": "en"})
    text_en, method_en, _ = fallback_answer("What is on the dorm menu?", english, None)
    assert method_en == "fallback" and "Sorry" in text_en
    with pytest.raises(ValueError):
        fallback_answer("  ", CONFIG, None)


def test_the_offline_no_answer_is_in_the_students_language():
    assert fallback_answer("Where is the dorm cafeteria menu?", CONFIG, None)[0].startswith("Sorry")  # a Korean institution
    assert fallback_answer("기숙사 식당 메뉴는?", CONFIG, None)[0].startswith("죄송합니다")
    assert fallback_answer("GPA 몇 점이어야 해?", CONFIG, None)[0].startswith("죄송합니다")  # Korean with an English word
    english = CONFIG.model_copy(update={"language": "en"})
    assert fallback_answer("기숙사 식당 메뉴는?", english, None)[0].startswith("죄송합니다")  # a Korean student, anywhere


def test_fallback_with_a_client_is_the_llms_answer_with_the_disclaimer(openai_server):
    openai_server.script(reply({"answer": "일반적으로 기숙사 식당 메뉴는 생활관 홈페이지에 공지됩니다. 학과 사무실에 확인하세요."}))
    with LLMClient(settings_for(openai_server)) as client:
        text, method, disclaimer = fallback_answer("기숙사 식당 메뉴는?", CONFIG, client)
    assert method == "llm" and "생활관" in text
    assert disclaimer == texts_for(CONFIG)["llm_disclaimer"] and "일반 지식" in disclaimer
    assert openai_server.requests[0]["messages"][-1]["content"] == "기숙사 식당 메뉴는?"


def test_fallback_with_a_failing_client_does_not_claim_llm(openai_server):
    openai_server.script(*[error(500)] * 3)
    english = CONFIG.model_copy(update={"language": "en"})
    with LLMClient(settings_for(openai_server)) as client:
        text, method, disclaimer = fallback_answer("What is on the dorm menu?", english, client)
    assert method == "fallback"
    assert disclaimer == texts_for(english)["no_answer_disclaimer"] and "general knowledge" not in disclaimer
    assert len(openai_server.requests) == 3  # tried (max_retries=2) before giving up
