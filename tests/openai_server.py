"""A real HTTP server on 127.0.0.1 speaking the OpenAI chat-completions protocol, for tests.

Each request takes the next scripted behaviour: from the queue whose `when` text appears in the
request's last message, else from the general queue, else from `default(body)`. Unscripted
requests get a 418, a status no client retries, so a test missing a script fails at once and
clearly. Every request body is recorded.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest


@dataclass(frozen=True)
class Behaviour:
    status: int = 200
    content: str | None = None  # the assistant message content (200 only)
    headers: dict = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering: longer than the client's timeout = a timeout
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = "stop"
    error_code: str | None = None  # the error body's "code" (e.g. insufficient_quota)


def reply(obj: object, prompt_tokens: int = 100, completion_tokens: int = 20) -> Behaviour:
    """A well-formed reply whose content is `obj` as JSON."""
    return Behaviour(content=json.dumps(obj, ensure_ascii=False), prompt_tokens=prompt_tokens,
                     completion_tokens=completion_tokens)


def malformed(text: str = '{"department": ["CS"', prompt_tokens: int = 100, completion_tokens: int = 20) -> Behaviour:
    return Behaviour(content=text, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)


def error(status: int, retry_after: str | None = None, code: str | None = None, **headers: str) -> Behaviour:
    if retry_after is not None:
        headers["retry-after"] = retry_after
    return Behaviour(status=status, headers={k.replace("_", "-"): v for k, v in headers.items()}, error_code=code)


def hang(seconds: float) -> Behaviour:
    """Answer only after `seconds`: past the client's timeout it never sees this reply."""
    return Behaviour(content="{}", delay=seconds)


class FakeOpenAIServer:
    def __init__(self) -> None:
        self.requests: list[dict] = []  # every request body, in arrival order
        self.embedding_requests: list[dict] = []  # every /v1/embeddings body (kept apart from chat)
        self._embedding_queue: deque[Behaviour] = deque()
        self.default: Callable[[dict], Behaviour] | None = None
        self.in_flight = self.max_in_flight = 0
        self._queues: dict[str | None, deque[Behaviour]] = {None: deque()}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: http.server.ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def script(self, *behaviours: Behaviour, when: str | None = None) -> None:
        """Queue behaviours for the next requests (those whose last message contains `when`)."""
        with self._lock:
            self._queues.setdefault(when, deque()).extend(behaviours)

    def script_embeddings(self, *behaviours: Behaviour) -> None:
        """Queue behaviours for the next /v1/embeddings requests; unscripted ones succeed with
        `embedding_vector` of each input. A 200 Behaviour's content, if set, replaces the data
        list (JSON) to simulate a misbehaving server."""
        with self._lock:
            self._embedding_queue.extend(behaviours)

    def requests_containing(self, text: str) -> list[dict]:
        return [body for body in self.requests if text in _last_message(body)]

    def start(self) -> "FakeOpenAIServer":
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers still sleeping in a hang()
        self._server.shutdown()
        self._server.server_close()

    def _next_embedding(self, body: dict) -> Behaviour:
        with self._lock:
            self.embedding_requests.append(body)
            return self._embedding_queue.popleft() if self._embedding_queue else Behaviour()

    def _next(self, body: dict) -> Behaviour:
        last = _last_message(body)
        with self._lock:
            self.requests.append(body)
            for when, queue in self._queues.items():
                if when is not None and queue and when in last:
                    return queue.popleft()
            if self._queues[None]:
                return self._queues[None].popleft()
        if self.default is not None:
            return self.default(body)
        return Behaviour(status=418)


def _last_message(body: dict) -> str:
    messages = body.get("messages") or [{}]
    content = messages[-1].get("content", "")
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


class _Handler(http.server.BaseHTTPRequestHandler):
    fake: FakeOpenAIServer
    protocol_version = "HTTP/1.1"  # keep-alive, as the real API
    disable_nagle_algorithm = True  # headers and body go out as two writes: no 40 ms stall between

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        if self.path == "/v1/embeddings":
            behaviour, payload = self.fake._next_embedding(body), _embedding_payload
        elif self.path == "/v1/chat/completions":
            behaviour, payload = self.fake._next(body), _payload
        else:
            return self._send(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}}, {})
        with self.fake._lock:
            self.fake.in_flight += 1
            self.fake.max_in_flight = max(self.fake.max_in_flight, self.fake.in_flight)
        try:
            if behaviour.delay:
                self.fake._stopping.wait(behaviour.delay)
            self._send(behaviour.status, payload(behaviour, body), behaviour.headers)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test): nothing to answer
        finally:
            with self.fake._lock:
                self.fake.in_flight -= 1

    def _send(self, status: int, payload: dict, headers: dict) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def _payload(behaviour: Behaviour, body: dict) -> dict:
    if behaviour.status != 200:
        return {"error": {"message": f"scripted {behaviour.status}", "type": "server_error", "code": behaviour.error_code}}
    return {
        "id": f"chatcmpl-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "unknown"),
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": behaviour.content, "refusal": None},
            "finish_reason": behaviour.finish_reason,
            "logprobs": None,
        }],
        "usage": {
            "prompt_tokens": behaviour.prompt_tokens,
            "completion_tokens": behaviour.completion_tokens,
            "total_tokens": behaviour.prompt_tokens + behaviour.completion_tokens,
        },
    }


EMBEDDING_DIM = 8  # the fake's vector size when the request names no `dimensions`


def embedding_vector(text: str, dim: int = EMBEDDING_DIM) -> list[float]:
    """The fake's embedding of `text`: deterministic from its hash, deliberately not unit length
    (clients must normalise), never all zero."""
    digest = hashlib.sha256(text.encode()).digest()
    return [(digest[i % len(digest)] - 127.5) / 10 for i in range(dim)]


def _embedding_payload(behaviour: Behaviour, body: dict) -> dict:
    if behaviour.status != 200:
        return _payload(behaviour, body)
    inputs = body.get("input")
    inputs = [inputs] if isinstance(inputs, str) else list(inputs or [])
    dim = body.get("dimensions") or EMBEDDING_DIM
    data = [{"object": "embedding", "index": i, "embedding": embedding_vector(text, dim)}
            for i, text in enumerate(inputs)]
    if behaviour.content is not None:
        data = json.loads(behaviour.content)
    tokens = sum(len(text) for text in inputs)  # one "token" per character: easy to check
    return {"object": "list", "data": data, "model": body.get("model", "unknown"),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}


@pytest.fixture
def openai_server():
    server = FakeOpenAIServer().start()
    yield server
    server.stop()


def settings_for(server: FakeOpenAIServer, **overrides):
    """LLMSettings read from an environment pointing at `server` (as a user would configure a
    local endpoint), with tiny backoffs and a short timeout so tests stay fast."""
    from advisor.llm.settings import LLMSettings

    settings = LLMSettings.from_env({
        "OPENAI_BASE_URL": server.base_url,
        "OPENAI_API_KEY": "sk-test-dummy",
        "ADVISOR_LLM_TIMEOUT": "0.5",
        "ADVISOR_LLM_BACKOFF": "0.001",
        "ADVISOR_LLM_MAX_RETRIES": "2",
        "ADVISOR_LLM_INVALID_RETRIES": "1",
    })
    return settings.model_copy(update=overrides)
