"""LLMSettings and LLMClient against a real local server speaking the OpenAI protocol."""

from __future__ import annotations

import socket
import time

import pytest

from advisor.llm.client import JSONRequest, LLMClient, LLMFailure
from advisor.llm.jsoncheck import hand_check, schema_error
from advisor.llm.settings import LLMNotConfigured, LLMSettings, price_of
from tests.openai_server import Behaviour, error, hang, malformed, reply, settings_for

SCHEMA = {
    "type": "object",
    "properties": {
        "size": {"type": ["array", "null"], "items": {"type": "integer", "minimum": 1, "maximum": 4},
                 "minItems": 2, "maxItems": 2},
        "color": {"type": ["array", "null"], "items": {"type": "string", "enum": ["red", "blue"]}},
    },
    "required": ["size", "color"],
    "additionalProperties": False,
}
MESSAGES = [{"role": "system", "content": "annotate"}, {"role": "user", "content": "a red box"}]
GOOD = {"size": [1, 2], "color": ["red"]}


def ask(settings, **kwargs):
    with LLMClient(settings, **kwargs) as client:
        return client.complete_json(MESSAGES, SCHEMA, "box")


# --- settings ---------------------------------------------------------------------------------

def test_settings_without_key_or_base_url_are_not_configured_and_say_so():
    settings = LLMSettings.from_env({})
    assert not settings.configured
    assert (settings.model, settings.concurrency, settings.timeout) == ("gpt-4o-mini", 4, 60.0)
    assert (settings.max_retries, settings.backoff) == (4, 1.0)
    assert "no LLM configured" in settings.describe()
    with pytest.raises(LLMNotConfigured, match="rule-based"):
        LLMClient(settings)


def test_settings_with_key_use_openai_and_hide_the_key():
    settings = LLMSettings.from_env({"OPENAI_API_KEY": "sk-secret-123", "ADVISOR_LLM_MODEL": "gpt-4o"})
    assert settings.configured and settings.endpoint == "https://api.openai.com/v1"
    assert settings.model == "gpt-4o"
    assert "sk-secret-123" not in repr(settings) and "sk-secret-123" not in settings.describe()


def test_settings_with_base_url_only_are_configured_for_a_local_server():
    settings = LLMSettings.from_env({
        "OPENAI_BASE_URL": "http://127.0.0.1:8000/v1", "OPENAI_API_KEY": "  ",  # blank = unset
        "ADVISOR_LLM_CONCURRENCY": "8", "ADVISOR_LLM_TIMEOUT": "2.5",
        "ADVISOR_LLM_MAX_RETRIES": "0", "ADVISOR_LLM_BACKOFF": "0.25",
    })
    assert settings.configured and settings.api_key is None
    assert settings.describe() == "LLM gpt-4o-mini at http://127.0.0.1:8000/v1"
    assert (settings.concurrency, settings.timeout, settings.max_retries, settings.backoff) == (8, 2.5, 0, 0.25)


def test_invalid_settings_name_the_environment_variable():
    with pytest.raises(ValueError, match="ADVISOR_LLM_CONCURRENCY"):
        LLMSettings.from_env({"ADVISOR_LLM_CONCURRENCY": "zero"})
    with pytest.raises(ValueError, match="ADVISOR_LLM_TIMEOUT"):
        LLMSettings.from_env({"ADVISOR_LLM_TIMEOUT": "-1"})


def test_cost_is_priced_for_known_models_and_none_for_unknown_ones():
    mini = LLMSettings(model="gpt-4o-mini")
    assert mini.cost_usd(1_000_000, 1_000_000) == pytest.approx(0.75)
    assert LLMSettings(model="gpt-4.1-nano").cost_usd(2_000_000, 0) == pytest.approx(0.20)
    assert price_of("gpt-4o-mini-2024-07-18") == price_of("gpt-4o-mini") != price_of("gpt-4o")
    assert LLMSettings(model="qwen2.5:7b").cost_usd(1000, 1000) is None


# --- client: success and the request sent ------------------------------------------------------

def test_success_sends_model_messages_and_strict_schema(openai_server):
    openai_server.script(reply(GOOD, prompt_tokens=120, completion_tokens=30))
    result, usage = ask(settings_for(openai_server, model="my-local-model"))
    assert result == GOOD
    assert (usage.calls, usage.retries, usage.failures) == (1, 0, 0)
    assert (usage.prompt_tokens, usage.completion_tokens) == (120, 30)
    [body] = openai_server.requests
    assert body["model"] == "my-local-model"
    assert body["messages"] == MESSAGES
    assert body["response_format"] == {
        "type": "json_schema", "json_schema": {"name": "box", "strict": True, "schema": SCHEMA}}
    assert body["temperature"] == 0


def test_base_url_without_key_works_against_a_keyless_server(openai_server):
    openai_server.script(reply(GOOD))
    settings = LLMSettings.from_env({"OPENAI_BASE_URL": openai_server.base_url, "ADVISOR_LLM_TIMEOUT": "0.5"})
    assert ask(settings)[0] == GOOD


def test_fenced_json_from_a_lenient_server_is_accepted(openai_server):
    openai_server.script(Behaviour(content='```json\n{"size": null, "color": ["blue"]}\n```'))
    assert ask(settings_for(openai_server))[0] == {"size": None, "color": ["blue"]}


# --- client: retries ----------------------------------------------------------------------------

def test_429_then_success_is_retried_after_the_servers_retry_after(openai_server):
    openai_server.script(error(429, retry_after_ms="200"), reply(GOOD, prompt_tokens=50, completion_tokens=10))
    started = time.monotonic()
    result, usage = ask(settings_for(openai_server))
    assert result == GOOD
    assert time.monotonic() - started >= 0.2  # retry-after-ms honoured over the 1 ms backoff
    assert (usage.calls, usage.retries, usage.failures) == (2, 1, 0)
    assert (usage.prompt_tokens, usage.completion_tokens) == (50, 10)


def test_backoff_doubles_between_retries():
    waits = []
    settings = LLMSettings(base_url="http://127.0.0.1:9/v1", backoff=0.1, max_retries=3, timeout=0.5)
    client = LLMClient(settings, sleep=waits.append)
    assert [client._wait(n, None) for n in (1, 2, 3)] == pytest.approx([0.11, 0.22, 0.44], rel=0.1)
    assert client._wait(1, 5.0) >= 5.0  # the server's retry-after wins when longer


def test_timeout_then_success(openai_server):
    openai_server.script(hang(6.0), reply(GOOD))
    started = time.monotonic()
    result, usage = ask(settings_for(openai_server, timeout=0.3))
    assert result == GOOD
    assert (usage.calls, usage.retries) == (2, 1)
    assert time.monotonic() - started < 5.0  # gave up on the hung request instead of waiting it out


def test_persistent_timeouts_fail_as_llm_timeout(openai_server):
    openai_server.script(*[hang(1.0)] * 2)
    result, usage = ask(settings_for(openai_server, timeout=0.2, max_retries=1))
    assert isinstance(result, LLMFailure) and result.reason == "llm_timeout"
    assert (usage.calls, usage.retries, usage.failures) == (2, 1, 1)


def test_persistent_500_fails_as_llm_http_500_after_max_retries(openai_server):
    openai_server.script(*[error(500)] * 5)
    result, usage = ask(settings_for(openai_server, max_retries=3))
    assert result.reason == "llm_http_500" and "4 attempts" in result.detail
    assert len(openai_server.requests) == 4
    assert (usage.calls, usage.retries, usage.failures, usage.failure_reasons) == (4, 3, 1, {"llm_http_500": 1})


def test_a_client_error_is_not_retried(openai_server):
    openai_server.script(error(400), reply(GOOD))
    result, usage = ask(settings_for(openai_server))
    assert result.reason == "llm_http_400"
    assert (usage.calls, usage.retries) == (1, 0)


def test_an_exhausted_quota_is_not_retried(openai_server):
    openai_server.script(error(429, code="insufficient_quota"), reply(GOOD))
    result, usage = ask(settings_for(openai_server))
    assert result.reason == "llm_http_429" and "insufficient_quota" in result.detail
    assert usage.calls == 1


def test_an_unreachable_server_fails_as_llm_connection():
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = LLMSettings(base_url=f"http://127.0.0.1:{port}/v1", timeout=0.5, backoff=0.001, max_retries=2)
    result, usage = ask(settings)
    assert result.reason == "llm_connection"
    assert (usage.calls, usage.retries, usage.failures) == (3, 2, 1)


# --- client: invalid output ---------------------------------------------------------------------

def test_malformed_json_then_valid_succeeds_and_counts_both_calls_tokens(openai_server):
    openai_server.script(malformed(prompt_tokens=100, completion_tokens=7), reply(GOOD, prompt_tokens=100, completion_tokens=9))
    result, usage = ask(settings_for(openai_server))
    assert result == GOOD
    assert (usage.calls, usage.retries, usage.prompt_tokens, usage.completion_tokens) == (2, 1, 200, 16)
    first, second = openai_server.requests
    assert first["messages"] == second["messages"]  # the same prompt again


@pytest.mark.parametrize("bad", [
    {"size": [1, 9], "color": None},  # out of range
    {"size": [1], "color": None},  # a range needs two ends
    {"size": None, "color": ["green"]},  # not a canonical value
    {"size": None},  # a required property missing
    {"size": None, "color": None, "shape": "box"},  # an extra property
])
def test_always_invalid_output_fails_as_llm_invalid_output(openai_server, bad):
    openai_server.script(*[reply(bad)] * 3)
    result, usage = ask(settings_for(openai_server, invalid_output_retries=2))
    assert result.reason == "llm_invalid_output" and "schema violation" in result.detail
    assert (usage.calls, usage.retries, usage.failures) == (3, 2, 1)


def test_a_truncated_reply_is_invalid_output(openai_server):
    openai_server.script(*[Behaviour(content='{"size": null, "color": null}', finish_reason="length")] * 2)
    result, _ = ask(settings_for(openai_server))
    assert result.reason == "llm_invalid_output" and "cut off" in result.detail


def test_an_extra_check_rejects_output_like_a_schema_violation(openai_server):
    openai_server.script(reply({"size": None, "color": None}), reply(GOOD))
    with LLMClient(settings_for(openai_server)) as client:
        result, usage = client.complete_json(MESSAGES, SCHEMA, "box", check=lambda d: None if d["color"] else "no color")
    assert result == GOOD and usage.retries == 1


# --- client: concurrency ------------------------------------------------------------------------

def test_many_requests_run_concurrently_up_to_the_limit_and_keep_their_order(openai_server):
    for i in range(6):
        openai_server.script(Behaviour(content=f'{{"size": [{i % 4 + 1}, 4], "color": null}}', delay=0.15), when=f"item {i}")
    requests = [JSONRequest([{"role": "user", "content": f"item {i}"}], SCHEMA, "box") for i in range(6)]
    with LLMClient(settings_for(openai_server, concurrency=2)) as client:
        answers = client.complete_json_many(requests)
    assert [result["size"] for result, _ in answers] == [[i % 4 + 1, 4] for i in range(6)]
    assert openai_server.max_in_flight == 2  # concurrent, and never past the limit


# --- the fallback schema check ------------------------------------------------------------------

@pytest.mark.parametrize("instance", [
    GOOD, {"size": None, "color": None}, {"size": [0, 2], "color": None}, {"size": [1, 2, 3], "color": None},
    {"size": None, "color": ["red", "green"]}, {"size": None}, {"size": None, "color": None, "x": 1},
    {"size": "1-2", "color": None}, {"size": [True, 2], "color": None},
])
def test_the_hand_check_agrees_with_jsonschema(instance):
    assert (hand_check(instance, SCHEMA) is None) == (schema_error(instance, SCHEMA) is None)


def test_without_jsonschema_the_hand_check_is_used(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "jsonschema", None)  # makes `import jsonschema` fail
    assert schema_error(GOOD, SCHEMA) is None
    assert "color/0" in schema_error({"size": None, "color": ["green"]}, SCHEMA)
