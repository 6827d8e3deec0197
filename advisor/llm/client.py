"""A JSON-returning LLM client for any OpenAI-compatible endpoint, with observable retries.

Why the synchronous `openai.OpenAI` client in a thread pool rather than `AsyncOpenAI`: every
caller (the Annotator protocol, Dagster assets, the CLI) is synchronous, and an `AsyncOpenAI`
binds its connection pool to the event loop it first ran in, so one long-lived client breaks across
repeated `asyncio.run` calls, and `asyncio.run` itself fails inside an already-running loop
(uvicorn, notebooks). Threads cost nothing here: the work is waiting on HTTP, with a handful of
requests in flight.

Retries are our own loop (the SDK's are switched off) so each one is counted and the final failure
carries a stable reason code: llm_http_<status>, llm_timeout, llm_connection, llm_invalid_output,
llm_error.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, NamedTuple

from advisor.llm.jsoncheck import schema_error
from advisor.llm.settings import LLMSettings

if TYPE_CHECKING:  # the SDK is imported by a client that is made: offline runs never pay for it
    import openai

MAX_WAIT_SECONDS = 60.0  # cap on one backoff, whatever the server's retry-after says
RETRYABLE_STATUS = {408, 409, 429}  # plus every 5xx: the same set the SDK itself retries
PLACEHOLDER_KEY = "not-needed"  # local servers ignore the key, but the SDK insists on one

Check = Callable[[dict], str | None]  # an extra semantic check: a problem message, or None


@dataclass(frozen=True)
class LLMFailure:
    reason: str  # stable code, see the module docstring
    detail: str = ""


@dataclass
class LLMUsage:
    calls: int = 0  # HTTP requests sent, retries included: what the provider bills
    cache_hits: int = 0
    retries: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failure_reasons: dict[str, int] = field(default_factory=dict)

    def add(self, other: "LLMUsage") -> None:
        self.calls += other.calls
        self.cache_hits += other.cache_hits
        self.retries += other.retries
        self.failures += other.failures
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        for reason, count in other.failure_reasons.items():
            self.failure_reasons[reason] = self.failure_reasons.get(reason, 0) + count

    def count_failure(self, reason: str) -> None:
        self.failures += 1
        self.failure_reasons[reason] = self.failure_reasons.get(reason, 0) + 1


class JSONRequest(NamedTuple):
    messages: list[dict]
    schema: dict
    schema_name: str
    check: Check | None = None


@dataclass
class _RetryBudget:
    used: int = 0


@dataclass(frozen=True)
class _Transient:
    """A failed attempt worth repeating after a wait."""

    reason: str
    detail: str
    retry_after: float | None = None


class LLMClient:
    def __init__(self, settings: LLMSettings, *, sleep: Callable[[float], None] = time.sleep):
        settings.require_configured()  # fail loudly: never pretend an LLM ran
        self.settings = settings
        self._sleep = sleep
        self._slots = threading.BoundedSemaphore(settings.concurrency)  # holds across all callers
        key = settings.api_key.get_secret_value() if settings.api_key else PLACEHOLDER_KEY
        import openai

        self._openai = openai.OpenAI(
            api_key=key, base_url=settings.endpoint, timeout=settings.timeout, max_retries=0
        )

    @property
    def model(self) -> str:
        return self.settings.model

    def close(self) -> None:
        self._openai.close()

    def __enter__(self) -> "LLMClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def complete_json_many(self, requests: Sequence[JSONRequest]) -> list[tuple[dict | LLMFailure, LLMUsage]]:
        """`complete_json` for each request, `concurrency` at a time, results in request order."""
        if not requests:
            return []
        with ThreadPoolExecutor(max_workers=min(self.settings.concurrency, len(requests))) as pool:
            return list(pool.map(lambda request: self.complete_json(*request), requests))

    def complete_json(
        self, messages: list[dict], schema: dict, schema_name: str, check: Check | None = None
    ) -> tuple[dict | LLMFailure, LLMUsage]:
        """Ask for a JSON object fitting `schema`; transport errors and invalid output are retried
        on separate budgets (max_retries, invalid_output_retries)."""
        usage = LLMUsage()
        response_format = {
            "type": "json_schema",
            "json_schema": {"name": schema_name, "strict": True, "schema": schema},
        }
        budget = _RetryBudget()  # transport retries count across the invalid-output retries too
        invalid_retries = 0
        while True:
            outcome = self._with_retries(lambda: self._send(messages, response_format, usage), usage, budget)
            if isinstance(outcome, LLMFailure):
                return _failed(usage, outcome)
            data, problem = _parse(outcome, schema, check)
            if problem is None:
                return data, usage
            if invalid_retries >= self.settings.invalid_output_retries:
                return _failed(usage, LLMFailure("llm_invalid_output", problem))
            invalid_retries += 1  # same prompt again: sampling or a flaky server may do better
            usage.retries += 1

    def _with_retries(self, send, usage: LLMUsage, budget: "_RetryBudget"):
        """`send()` until it is not a _Transient (429, 5xx, timeout, connection error), backing off
        between attempts, at most max_retries times: the outcome, or a final LLMFailure."""
        while True:
            outcome = send()
            if not isinstance(outcome, _Transient):
                return outcome
            if budget.used >= self.settings.max_retries:
                return LLMFailure(outcome.reason, f"{outcome.detail} ({budget.used + 1} attempts)")
            budget.used += 1
            usage.retries += 1
            self._sleep(self._wait(budget.used, outcome.retry_after))

    def _send(self, messages: list[dict], response_format: dict, usage: LLMUsage):
        """One HTTP request: the completion, a _Transient, or a final LLMFailure."""
        extra = {} if self.settings.temperature is None else {"temperature": self.settings.temperature}
        completion = self._request(usage, lambda: self._openai.chat.completions.create(
            model=self.settings.model, messages=messages, response_format=response_format, **extra))
        if isinstance(completion, (_Transient, LLMFailure)):
            return completion
        if completion.usage is not None:  # some local servers omit usage
            usage.prompt_tokens += completion.usage.prompt_tokens or 0
            usage.completion_tokens += completion.usage.completion_tokens or 0
        return completion

    def _request(self, usage: LLMUsage, call):
        """Run one SDK call within the concurrency limit, counting it; transport errors become a
        _Transient (retried by the caller) or a final LLMFailure, with the shared reason codes."""
        import openai  # loaded by __init__ already: a dictionary lookup

        with self._slots:
            usage.calls += 1
            try:
                return call()
            except openai.APITimeoutError:
                return _Transient("llm_timeout", f"no response within {self.settings.timeout:g} s")
            except openai.APIConnectionError as exc:
                return _Transient("llm_connection", str(exc.__cause__ or exc))
            except openai.APIStatusError as exc:
                return _status_outcome(exc)
            except openai.OpenAIError as exc:
                return LLMFailure("llm_error", f"{type(exc).__name__}: {exc}"[:300])

    def embed(self, texts: Sequence[str], model: str, dimensions: int | None = None
              ) -> tuple[list[list[float]] | LLMFailure, LLMUsage]:
        """One embeddings request for `texts` (vectors in input order, as the server sent them, not
        normalised), on complete_json's transport rules: 429 / 5xx / timeouts / connection errors
        retried up to max_retries with backoff, the same reason codes, usage counted per request.
        Batching and caching are the caller's (advisor/index/embed_openai.py)."""
        usage = LLMUsage()
        outcome = self._with_retries(lambda: self._send_embeddings(list(texts), model, dimensions, usage),
                                     usage, _RetryBudget())
        if isinstance(outcome, LLMFailure):
            return _failed(usage, outcome)
        return outcome, usage

    def _send_embeddings(self, texts: list[str], model: str, dimensions: int | None, usage: LLMUsage):
        """One HTTP request: the vectors, a _Transient, or a final LLMFailure."""
        extra = {} if dimensions is None else {"dimensions": dimensions}
        response = self._request(usage, lambda: self._openai.embeddings.create(
            model=model, input=texts, encoding_format="float", **extra))
        if isinstance(response, (_Transient, LLMFailure)):
            return response
        if response.usage is not None:  # embeddings bill input tokens only; some servers omit usage
            usage.prompt_tokens += response.usage.prompt_tokens or 0
        data = sorted(response.data or [], key=lambda item: item.index)
        if [item.index for item in data] != list(range(len(texts))):
            # not retried: a server answering the wrong count will do it again
            return LLMFailure("llm_invalid_output", f"asked for {len(texts)} embeddings, got {len(data)}")
        return [list(item.embedding) for item in data]

    def _wait(self, retry_number: int, retry_after: float | None) -> float:
        delay = self.settings.backoff * 2 ** (retry_number - 1)
        if retry_after is not None:
            delay = max(delay, retry_after)
        # jitter spreads the retries of concurrent workers that failed together
        return min(delay, MAX_WAIT_SECONDS) * random.uniform(1.0, 1.2)


def _failed(usage: LLMUsage, failure: LLMFailure) -> tuple[LLMFailure, LLMUsage]:
    usage.count_failure(failure.reason)
    return failure, usage


def _status_outcome(exc: openai.APIStatusError) -> _Transient | LLMFailure:
    code = exc.status_code
    detail = str(exc.message)[:300]
    if getattr(exc, "code", None) == "insufficient_quota":  # a 429 that no wait will cure
        return LLMFailure(f"llm_http_{code}", f"insufficient_quota: {detail}")
    if code in RETRYABLE_STATUS or code >= 500:
        return _Transient(f"llm_http_{code}", detail, _retry_after(exc.response.headers))
    return LLMFailure(f"llm_http_{code}", detail)  # 400/401/403/404: repeating cannot help


def _retry_after(headers) -> float | None:
    """Seconds the server asked us to wait: retry-after-ms (OpenAI), else retry-after."""
    try:
        if ms := headers.get("retry-after-ms"):
            return float(ms) / 1000
        if value := headers.get("retry-after"):
            try:
                return float(value)
            except ValueError:
                return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        pass  # an unreadable header: fall back to our own backoff
    return None


_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


def _parse(completion, schema: dict, check: Check | None) -> tuple[dict | None, str | None]:
    """The reply's JSON object, or a message saying why it is unusable."""
    if not completion.choices:
        return None, "the response has no choices"
    choice = completion.choices[0]
    if getattr(choice.message, "refusal", None):
        return None, f"the model refused: {choice.message.refusal}"[:300]
    if choice.finish_reason == "length":
        return None, "the reply was cut off (finish_reason=length)"
    content = (choice.message.content or "").strip()
    if fenced := _FENCE.match(content):  # servers that ignore response_format often fence JSON
        content = fenced.group(1)
    try:
        data = json.loads(content)
    except json.JSONDecodeError as exc:
        return None, f"malformed JSON ({exc.msg} at {exc.pos}): {content[:80]!r}"
    if not isinstance(data, dict):
        return None, f"expected a JSON object, got {type(data).__name__}"
    problem = schema_error(data, schema) or (check(data) if check else None)
    return (None, f"schema violation: {problem}") if problem else (data, None)

