"""The LLM's time-sensitivity decision, through the real client against a local OpenAI server;
a failure yields None so retrieval falls back to the word rule."""

from __future__ import annotations

from advisor.llm.client import LLMClient
from advisor.llm.time_sensitivity import SCHEMA_NAME, LLMTimeClassifier
from advisor.retrieval import TIME_WORDS, is_time_sensitive
from tests.openai_server import error, reply, settings_for


def test_llm_decides_and_failures_fall_back_to_none(openai_server):
    openai_server.script(reply({"time_sensitive": True}), when="다음 주")
    openai_server.script(reply({"time_sensitive": False}), when="전공필수")
    openai_server.script(*[error(500)] * 5, when="장학")
    with LLMClient(settings_for(openai_server)) as client:
        decisions = LLMTimeClassifier(client).classify(
            ["다음 주에 뭐 있어요?", "2021학번 전공필수 과목은?", "장학금 신청 기간"])
    assert decisions == [True, False, None]
    # the LLM overrides the word rule where they disagree ("다음 주" is not in the word list)
    assert not is_time_sensitive("다음 주에 뭐 있어요?", TIME_WORDS)
    body = openai_server.requests_containing("다음 주")[0]
    assert body["response_format"]["json_schema"]["name"] == SCHEMA_NAME
    assert body["messages"][0]["role"] == "system"
