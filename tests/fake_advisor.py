"""Test doubles for the serving tests: a small deterministic Advisor with the engine's interface
(serving/dialogue/engine.py), a builds folder that fake builds are published into, and a uvicorn
server run in a thread on a free loopback port.

FakeAdvisor's behaviour, so tests can rely on it:
- a message containing "학점" needs every schema attribute: the reply asks for the unsettled ones
  (one question per attribute, its options from the schema); other messages are answered at once;
- an answer names the build ("[<build_id>] …") and cites one source URL of that build;
- a message containing "BOOM" raises RuntimeError quoting the message (an engine bug that leaks input);
- a message containing "SLOW" takes `slow_seconds`; overlapping calls on one session are counted
  in `overlaps` (the API must serialize them).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn

from advisor.index.layout import LATEST, latest_build_id
from serving.answer.language import reply_language
from serving.dialogue.engine import DialogueInputError, NoBuildError
from serving.dialogue.types import Citation, Option, Question, Reply
from tests.conftest import free_port

# attribute -> (question, [(value, label), ...]); deliberately not the demo college's attributes
DEFAULT_SCHEMA: dict[str, tuple[str, list[tuple[Any, str]]]] = {
    "campus": ("어느 캠퍼스 소속인가요?", [("north", "북캠퍼스"), ("south", "남캠퍼스")]),
    "year_level": ("몇 학년인가요?", [(n, f"{n}학년") for n in range(1, 5)]),
}


@dataclass
class FakeSession:
    known: dict[str, Any] = field(default_factory=dict)
    declined: set[str] = field(default_factory=set)
    pending: str | None = None
    active: int = 0  # calls running on this session right now


class FakeAdvisor:
    def __init__(self, build_id: str, schema: dict | None = None, slow_seconds: float = 0.05):
        self.build_id, self.schema, self.slow_seconds = build_id, schema or DEFAULT_SCHEMA, slow_seconds
        self.overlaps = 0
        self._count_lock = threading.Lock()

    def index_info(self) -> dict:
        return {"build_id": self.build_id, "built_at": "2026-03-15T10:15:02+00:00",
                "counts": {"static": 3, "dynamic": 1}, "embedder": "fake", "annotator": "fake"}

    def new_session(self, profile: dict | None = None) -> FakeSession:
        session = FakeSession()
        if profile:
            self._apply(session, profile)
        return session

    def respond(self, session: FakeSession, message: str | None = None, profile: dict | None = None) -> Reply:
        if (message is None) == (profile is None):
            raise DialogueInputError("message", "send either a message or profile answers")
        with self._count_lock:
            session.active += 1
            if session.active > 1:
                self.overlaps += 1
        asked = message if message is not None else (session.pending or "")
        try:
            reply = self._respond(session, message, profile)
            reply.language = reply_language(asked, "ko")  # as the engine says it
            return reply
        finally:
            with self._count_lock:
                session.active -= 1

    def _respond(self, session: FakeSession, message: str | None, profile: dict | None) -> Reply:
        if profile is not None:
            self._apply(session, profile)
            if session.pending is None:
                return self._answer(session, "(no question pending)")
            message = session.pending
        if "BOOM" in message:
            raise RuntimeError(f"engine broke on {message!r}")
        if "SLOW" in message:
            time.sleep(self.slow_seconds)
        unsettled = [a for a in self.schema if a not in session.known and a not in session.declined]
        if "학점" in message and unsettled:
            session.pending = message
            return Reply("ask", intent="retrieval", questions=[
                Question(attribute=a, question=self.schema[a][0],
                         options=[Option(v, label) for v, label in self.schema[a][1]]) for a in unsettled])
        session.pending = None
        return self._answer(session, message)

    def _answer(self, session: FakeSession, message: str) -> Reply:
        url = f"http://fake.example/{self.build_id}/guide.html"
        return Reply("answer", answer=f"[{self.build_id}] {len(message)}자 질문에 대한 답변입니다.", intent="retrieval",
                     tier="documents", answer_method="extractive", disclaimer="문서에서 찾은 내용입니다.",
                     citations=[Citation(url=url, title="안내 문서", snippet="안내 문서의 한 구절", chunk_id="c1")],
                     profile_used=dict(session.known))

    def _apply(self, session: FakeSession, answers: dict) -> None:
        for name, value in answers.items():
            if name not in self.schema:
                raise DialogueInputError(f"profile.{name}", f"unknown attribute; expected one of {sorted(self.schema)}")
            if value is not None and value not in [v for v, _ in self.schema[name][1]]:
                raise DialogueInputError(f"profile.{name}", f"{value!r} is not an option")
        for name, value in answers.items():
            if value is None:
                session.declined.add(name)
            else:
                session.known[name] = value


def open_fake(builds_root: Path, load_seconds: float = 0.0) -> FakeAdvisor:
    """open_advisor's stand-in: the published fake build, taking `load_seconds` to load."""
    build_id = latest_build_id(builds_root)
    if build_id is None:
        raise NoBuildError(f"no index build published under {builds_root}")
    time.sleep(load_seconds)
    return FakeAdvisor(build_id)


def publish_fake_build(builds_root: Path, build_id: str) -> None:
    """Atomically points LATEST at a new (empty) build folder, as the pipeline's publish does."""
    builds_root.mkdir(parents=True, exist_ok=True)
    (builds_root / build_id).mkdir(exist_ok=True)
    tmp = builds_root / f"{LATEST}.tmp-test"
    tmp.write_text(build_id + "\n", encoding="utf-8")
    os.replace(tmp, builds_root / LATEST)


class ManualClock:
    """An injectable monotonic clock that moves only when told to."""

    def __init__(self, start: float = 1_000.0):
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@contextlib.contextmanager
def running_server(app, **config):
    """Serves `app` with uvicorn in a thread on 127.0.0.1:<free port>; yields the base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None,
                                           lifespan="on", **config))
    thread = threading.Thread(target=server.run, name=f"uvicorn-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError(f"uvicorn did not start on port {port}")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def wait_for(predicate, timeout: float = 30.0, interval: float = 0.02):
    """Polls `predicate` until it returns something truthy (returned), or fails after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        time.sleep(interval)
