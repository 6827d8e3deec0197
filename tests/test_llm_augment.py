"""LLMAugmenter (URAG-D) against a real local OpenAI-protocol server, with the cache in DuckDB."""

from __future__ import annotations

import duckdb
import pytest

from advisor.annotation.model import ChunkContext
from advisor.chunking.llm_augment import PROMPT_VERSION, SCHEMA, Augmentation, LLMAugmenter
from advisor.llm.client import LLMClient, LLMFailure
from tests.openai_server import error, reply, settings_for

CONTEXT = ChunkContext(
    chunk_id="c1", text="위 과목 중 3과목 이상 이수해야 한다.", doc_url="https://college.example/ds/2022",
    doc_title="데이터과학과 2022학번 교육과정", kind="page", collection="static",
    breadcrumbs=("학부", "데이터과학과"), heading_path=("전공선택",),
    doc_lead="데이터과학과 2022학번 입학생에게 적용되는 교육과정입니다.",
)
GOOD = {"summary": "데이터과학과 2022학번의 전공선택 이수 요건이다.",
        "rewritten": "데이터과학과 2022학번 교육과정의 전공선택 과목 중 3과목 이상 이수해야 한다."}


@pytest.fixture
def con():
    con = duckdb.connect()
    yield con
    con.close()


def augmenter(server, con, **settings) -> LLMAugmenter:
    return LLMAugmenter(LLMClient(settings_for(server, **settings)), con)


def test_success_returns_summary_and_rewrite_from_the_documents_context(openai_server, con):
    openai_server.script(reply(GOOD, prompt_tokens=400, completion_tokens=80))
    llm = augmenter(openai_server, con)
    [result] = llm.augment([CONTEXT])
    assert result == Augmentation(GOOD["summary"], GOOD["rewritten"])
    assert result.text == GOOD["summary"] + "\n" + GOOD["rewritten"]

    [body] = openai_server.requests
    assert body["response_format"]["json_schema"] == {"name": "chunk_augmentation", "strict": True, "schema": SCHEMA}
    user = body["messages"][-1]["content"]
    for part in ("데이터과학과 2022학번 교육과정", "학부 > 데이터과학과", "입학생에게 적용되는", "3과목 이상"):
        assert part in user
    assert (llm.usage.calls, llm.usage.prompt_tokens, llm.usage.completion_tokens) == (1, 400, 80)
    assert llm.cost_usd == pytest.approx((400 * 0.15 + 80 * 0.60) / 1e6)
    assert llm.version == f"{PROMPT_VERSION}+gpt-4o-mini"


def test_a_second_run_is_served_from_the_cache(openai_server, con):
    openai_server.script(reply(GOOD))
    first = augmenter(openai_server, con).augment([CONTEXT])
    rerun = augmenter(openai_server, con)
    assert rerun.augment([CONTEXT]) == first
    assert len(openai_server.requests) == 1
    assert (rerun.usage.calls, rerun.usage.cache_hits) == (0, 1)
    assert con.sql("SELECT task, prompt_version FROM llm_cache").fetchall() == [("augment", PROMPT_VERSION)]

    openai_server.script(reply(GOOD))
    newer = LLMAugmenter(LLMClient(settings_for(openai_server)), con, prompt_version="augment-v2")
    assert newer.augment([CONTEXT]) == first
    assert len(openai_server.requests) == 2 and newer.usage.cache_hits == 0


def test_an_empty_summary_is_retried_as_invalid_output(openai_server, con):
    openai_server.script(reply({"summary": " ", "rewritten": "x"}), reply(GOOD))
    llm = augmenter(openai_server, con)
    [result] = llm.augment([CONTEXT])
    assert result.summary == GOOD["summary"] and llm.usage.retries == 1


def test_failures_are_reported_and_not_cached(openai_server, con):
    openai_server.script(error(500), error(500), error(500), reply(GOOD))
    llm = augmenter(openai_server, con, max_retries=2)
    [result] = llm.augment([CONTEXT])
    assert isinstance(result, LLMFailure) and result.reason == "llm_http_500"
    assert llm.usage.failures == 1
    [again] = llm.augment([CONTEXT])
    assert again.rewritten == GOOD["rewritten"]
    llm.record_usage(run_id="r1", asset="augmented_chunks")
    assert con.sql("SELECT task, calls, retries, failures FROM llm_usage").fetchall() == [("augment", 4, 2, 1)]
