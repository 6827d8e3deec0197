"""LLMAnnotator against a real local OpenAI-protocol server, with the cache in DuckDB."""

from __future__ import annotations

import duckdb
import pytest
import yaml

from advisor.annotation.llm_annotator import LLMAnnotator
from advisor.annotation.llm_prompt import PROMPT_VERSION, build_messages, build_schema, few_shot_examples
from advisor.annotation.model import AnnotationFailure, ChunkAnnotation, ChunkContext
from advisor.config import DEMO_CONFIG_PATH, parse_config
from advisor.llm.client import LLMClient
from advisor.llm.jsoncheck import schema_error
from tests.openai_server import error, hang, malformed, reply, settings_for


@pytest.fixture(scope="module")
def config():
    """The demo college plus an attribute no code knows about: a new institution's `campus`."""
    data = yaml.safe_load(DEMO_CONFIG_PATH.read_text(encoding="utf-8"))
    data["profile"]["campus"] = {
        "type": "categorical",
        "question": "어느 캠퍼스에 다니나요?",
        "values": {"seoul": ["서울캠퍼스", "안암"], "sejong": ["세종캠퍼스", "Sejong campus"]},
    }
    return parse_config(data)


@pytest.fixture
def con():
    con = duckdb.connect()
    yield con
    con.close()


def chunk(marker: str, **kwargs) -> ChunkContext:
    values = {
        "chunk_id": marker, "text": f"{marker}: 전공필수 과목과 졸업 요건은 아래와 같다.",
        "doc_url": f"https://college.example/cs/curriculum-2021#{marker}", "doc_title": "컴퓨터학과 2021학번 교육과정",
        "kind": "page", "collection": "static", "breadcrumbs": ("학부", "컴퓨터학과", "교육과정"),
        "heading_path": ("전공", "졸업요건"), "doc_lead": "컴퓨터학과 2021학번 입학생에게 적용되는 교육과정입니다.",
    }
    return ChunkContext(**{**values, **kwargs})


def answer(config, **values) -> dict:
    return {**dict.fromkeys(config.profile), "needs": [], **values}


def annotator(config, server, con, **settings) -> LLMAnnotator:
    return LLMAnnotator(config, LLMClient(settings_for(server, **settings)), con)


# --- the request ----------------------------------------------------------------------------------

def test_schema_is_built_from_the_profile_schema_including_a_new_attribute(config):
    schema = build_schema(config)
    assert schema["required"] == [*config.profile, "needs"] and schema["additionalProperties"] is False
    assert schema["properties"]["campus"] == {
        "type": ["array", "null"], "items": {"type": "string", "enum": ["seoul", "sejong"]}}
    assert schema["properties"]["admission_year"] == {
        "type": ["array", "null"], "items": {"type": "integer", "minimum": 2015, "maximum": 2026},
        "minItems": 2, "maxItems": 2}
    assert schema["properties"]["needs"]["items"]["enum"] == list(config.profile)


def test_an_attribute_called_needs_is_refused(config):
    data = config.model_dump(mode="json")
    data["profile"]["needs"] = data["profile"]["campus"]
    with pytest.raises(ValueError, match="needs"):
        build_schema(parse_config(data))


def test_few_shot_examples_are_valid_answers_for_this_schema(config):
    examples = few_shot_examples(config)
    assert len(examples) == 4
    for _, example_answer in examples:
        assert schema_error(example_answer, build_schema(config)) is None


def test_success_sends_the_schema_aliases_and_context_and_normalizes_the_answer(config, openai_server, con):
    openai_server.script(reply(answer(
        config, department=["DS", "CS", "CS"], admission_year=[2021, 2021], grade=[1, 4],
        campus=["sejong"], needs=["grade"],
    ), prompt_tokens=1500, completion_tokens=60))
    llm = annotator(config, openai_server, con)
    [result] = llm.annotate([chunk("A")])

    assert result == ChunkAnnotation(
        applies_to={"department": ["CS", "DS"], "major_type": None, "admission_year": [2021, 2021],
                    "grade": None, "student_status": None, "campus": ["sejong"]},  # whole grade span: None
        needs=("department", "admission_year", "grade", "campus"),  # the model's + the restricted ones
    )
    [body] = openai_server.requests
    assert body["model"] == "gpt-4o-mini"
    assert body["response_format"]["json_schema"] == {
        "name": "chunk_applicability", "strict": True, "schema": build_schema(config)}
    system, *_, user = body["messages"]
    assert "세종캠퍼스" in system["content"] and "sejong" in system["content"]  # aliases from the config
    assert "2015..2026" in system["content"]
    for context_part in ("컴퓨터학과 2021학번 교육과정", "학부 > 컴퓨터학과 > 교육과정", "전공 > 졸업요건",
                         "curriculum-2021#A", "입학생에게 적용되는", "A: 전공필수"):
        assert context_part in user["content"]
    assert llm.name == "llm" and llm.version == f"{PROMPT_VERSION}+gpt-4o-mini"


# --- failures and retries -----------------------------------------------------------------------

def test_429_then_success_is_retried_and_counted(config, openai_server, con):
    openai_server.script(error(429, retry_after="0"), reply(answer(config, campus=["seoul"])))
    llm = annotator(config, openai_server, con)
    [result] = llm.annotate([chunk("A")])
    assert result.applies_to["campus"] == ["seoul"]
    assert (llm.usage.calls, llm.usage.retries, llm.usage.failures) == (2, 1, 0)


def test_timeout_then_success(config, openai_server, con):
    openai_server.script(hang(1.0), reply(answer(config, grade=[3, 4])))
    [result] = annotator(config, openai_server, con, timeout=0.3).annotate([chunk("A")])
    assert result.applies_to["grade"] == [3, 4]


def test_persistent_500_fails_one_chunk_and_the_others_are_annotated(config, openai_server, con):
    openai_server.script(*[error(500)] * 3, when="B: ")
    openai_server.default = lambda body: reply(answer(config, department=["CS"]))
    llm = annotator(config, openai_server, con, max_retries=2)
    results = llm.annotate([chunk("A"), chunk("B"), chunk("C")])

    assert results[1] == AnnotationFailure("llm_http_500", results[1].detail)
    assert "3 attempts" in results[1].detail
    assert [r.applies_to["department"] for r in (results[0], results[2])] == [["CS"], ["CS"]]
    assert len(openai_server.requests_containing("B: ")) == 3
    assert (llm.usage.failures, llm.usage.failure_reasons) == (1, {"llm_http_500": 1})

    # a failure is not cached: the next run asks again for B only
    again = llm.annotate([chunk("A"), chunk("B"), chunk("C")])
    assert len(openai_server.requests) == (1 + 3 + 1) + 1
    assert again[1].applies_to["department"] == ["CS"] and again[0] == results[0]


def test_malformed_json_then_valid_succeeds(config, openai_server, con):
    openai_server.script(malformed(), reply(answer(config, student_status=["on_leave"])))
    [result] = annotator(config, openai_server, con).annotate([chunk("A")])
    assert result.applies_to["student_status"] == ["on_leave"]


def test_always_invalid_output_fails_as_llm_invalid_output(config, openai_server, con):
    out_of_range = answer(config, admission_year=[2010, 2030])
    openai_server.script(*[reply(out_of_range)] * 2)
    llm = annotator(config, openai_server, con)
    [result] = llm.annotate([chunk("A")])
    assert isinstance(result, AnnotationFailure) and result.reason == "llm_invalid_output"
    assert "admission_year" in result.detail
    assert con.sql("SELECT count(*) FROM llm_cache").fetchall() == [(0,)]


# --- the cache ----------------------------------------------------------------------------------

def test_a_second_run_makes_no_calls_and_returns_equal_results(config, openai_server, con):
    openai_server.default = lambda body: reply(answer(config, department=["AI"], needs=["department"]))
    contexts = [chunk(m) for m in "ABC"]
    first = annotator(config, openai_server, con).annotate(contexts)
    assert len(openai_server.requests) == 3

    rerun = annotator(config, openai_server, con)  # a new run, same lakehouse
    assert rerun.annotate(contexts) == first
    assert len(openai_server.requests) == 3
    assert (rerun.usage.calls, rerun.usage.cache_hits, rerun.usage.prompt_tokens) == (0, 3, 0)
    assert rerun.cost_usd == 0.0

    rows = con.sql("SELECT task, prompt_version, model, response->>'$.department[0]' FROM llm_cache").fetchall()
    assert rows == [("annotate", PROMPT_VERSION, "gpt-4o-mini", "AI")] * 3


def test_identical_chunks_in_one_run_are_asked_once(config, openai_server, con):
    openai_server.default = lambda body: reply(answer(config))
    llm = annotator(config, openai_server, con)
    results = llm.annotate([chunk("A"), chunk("A"), chunk("B")])
    assert len(openai_server.requests) == 2 and results[0] == results[1]
    assert llm.usage.cache_hits == 1


def test_a_changed_prompt_version_or_model_misses_the_cache(config, openai_server, con):
    openai_server.default = lambda body: reply(answer(config))
    annotator(config, openai_server, con).annotate([chunk("A")])
    assert len(openai_server.requests) == 1

    client = LLMClient(settings_for(openai_server))
    LLMAnnotator(config, client, con, prompt_version="annotate-v2").annotate([chunk("A")])
    assert len(openai_server.requests) == 2

    annotator(config, openai_server, con, model="gpt-4.1-mini").annotate([chunk("A")])
    assert len(openai_server.requests) == 3 and openai_server.requests[-1]["model"] == "gpt-4.1-mini"

    annotator(config, openai_server, con).annotate([chunk("A")])  # the original: still cached
    assert len(openai_server.requests) == 3


def test_a_changed_profile_schema_misses_the_cache(config, openai_server, con):
    openai_server.default = lambda body: reply({**dict.fromkeys(body["response_format"]["json_schema"]["schema"]["required"]), "needs": []})
    demo = parse_config(yaml.safe_load(DEMO_CONFIG_PATH.read_text(encoding="utf-8")))
    annotator(config, openai_server, con).annotate([chunk("A")])
    [result] = annotator(demo, openai_server, con).annotate([chunk("A")])
    assert len(openai_server.requests) == 2 and "campus" not in result.applies_to


# --- usage and cost -----------------------------------------------------------------------------

def test_usage_and_cost_are_reported_and_recorded(config, openai_server, con):
    openai_server.script(error(503), reply(answer(config), prompt_tokens=2000, completion_tokens=100))
    openai_server.script(reply(answer(config), prompt_tokens=1000, completion_tokens=50), when="B: ")
    llm = annotator(config, openai_server, con)
    llm.annotate([chunk("A")])
    llm.annotate([chunk("A"), chunk("B")])

    usage = llm.usage
    assert (usage.calls, usage.cache_hits, usage.failures, usage.retries) == (3, 1, 0, 1)
    assert (usage.prompt_tokens, usage.completion_tokens) == (3000, 150)
    assert llm.cost_usd == pytest.approx((3000 * 0.15 + 150 * 0.60) / 1e6)

    llm.record_usage(run_id="run-1", asset="chunk_annotations")
    assert con.sql("""SELECT run_id, asset, task, model, calls, cache_hits, retries, failures,
                             prompt_tokens, completion_tokens, round(cost_usd, 9) FROM llm_usage""").fetchall() == [
        ("run-1", "chunk_annotations", "annotate", "gpt-4o-mini", 3, 1, 1, 0, 3000, 150,
         round(llm.cost_usd, 9))]


def test_an_unpriced_model_reports_cost_none(config, openai_server, con):
    openai_server.default = lambda body: reply(answer(config))
    llm = annotator(config, openai_server, con, model="qwen2.5:7b-instruct")
    llm.annotate([chunk("A")])
    assert llm.usage.prompt_tokens == 100 and llm.cost_usd is None
    llm.record_usage(run_id="run-2", asset="chunk_annotations")
    assert con.sql("SELECT cost_usd FROM llm_usage").fetchall() == [(None,)]


def test_messages_are_deterministic_so_the_cache_key_is_stable(config):
    assert build_messages(config, chunk("A")) == build_messages(config, chunk("A"))
    assert build_messages(config, chunk("A")) != build_messages(config, chunk("A", breadcrumbs=("학부", "AI")))


@pytest.mark.parametrize("language", ["ko", "en"])
def test_few_shot_examples_adapt_to_any_schema(language):
    only_campus = parse_config({
        "institution": "Campus-only College", "language": language,
        "sources": [{"name": "pages", "kind": "html", "seeds": ["http://127.0.0.1:8765/"]}],
        "profile": {"campus": {"type": "categorical", "question": "Campus?",
                               "values": {"north": ["North campus"], "south": []}},
                    "level": {"type": "integer", "question": "Level?", "min": 100, "max": 400}},
    })
    examples = few_shot_examples(only_campus)
    assert len(examples) == 1  # only the general notice fits: no year attribute
    context, example_answer = examples[0]
    assert example_answer == {"campus": None, "level": None, "needs": []}
    assert ("North campus" in context.text) and (("문의" in context.text) == (language == "ko"))
    assert "north: North campus" in build_messages(only_campus, chunk("A"))[0]["content"]
