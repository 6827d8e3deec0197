"""What the API keeps for the advising office (issue 27): a "questions" record per answer of
POST /v1/chat and a "feedback" record per POST /v1/feedback (routes/chat.py, routes/feedback.py),
appended under `<warehouse>/usage` (advisor/usage/logfiles.py; the pipeline reads them). Off
unless the settings name a usage folder (`advisor serve` does, from the institution config's
`usage` section).

A record never holds a profile value, a session id or an address: the question is scrubbed of
identifiers (scrub.py) and of the profile values it states or the session holds, and the answer is
named by its random `answer_id`. Logging never fails or holds up an answer: a write that fails is
said once on the server's log, by its type alone, and the answer goes out.

Records are built and written by one writer thread per recorder, not by the request's thread: with
32 clients the file calls made on each request's own thread raised the template answers' p95 by
1.34x (`bench/load.py --log-ratio`), although one record costs 0.05-0.33 ms. A request only appends
to a deque (no lock, no thread woken); the writer wakes WRITE_EVERY_SECONDS, builds what has piled
up and appends it with one write per file. A record waits in memory only until then (`close`, at
the app's shutdown, and `flush`, for tests that read the files, write at once).
"""

from __future__ import annotations

import logging
import re
import threading
from collections import deque
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from advisor.language.script import language_of
from advisor.usage.logfiles import UsageLog, hour_of
from serving.api.scrub import DEFAULT_LANGUAGE, locale, scrub
from serving.api.settings import ServingSettings

log = logging.getLogger("serving.api.usage")

USAGE_DIR = "usage"  # under the warehouse, beside builds/
QUEUE_LIMIT = 10_000  # records waiting for the writer: beyond it they are dropped (said once), not kept in memory
WRITE_EVERY_SECONDS = 0.25  # the writer's wake-ups: a handful a second, whatever the traffic


class LogBacklogFull(RuntimeError):
    """QUEUE_LIMIT records are waiting: the disk does not keep up."""


class FeedbackRequest(BaseModel):
    """Whether an answer helped, and why not: nothing about who asked."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"answer_id": "3f2a9c0d41b84e6f9a7c5d2e1b0f8a6c", "helpful": False, "reason": "outdated"}]})

    answer_id: str = Field(pattern="^[0-9a-f]{32}$", description="the `answer_id` of the answer (32 hex digits)")
    helpful: StrictBool
    reason: Literal["wrong", "outdated", "not_my_case", "unclear", "other"] | None = Field(
        None, description="why it did not help (optional)")


class UsageRecorder:
    """One per app. `usage_dir` None: nothing is written (feedback is still answered 204)."""

    def __init__(self, usage_dir: str | Path | None, question_log: bool = True, retention_days: int = 90,
                 now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)):
        self.log = UsageLog(Path(usage_dir)) if usage_dir is not None else None
        self.question_log, self.retention_days, self.now = question_log, retention_days, now
        self._pruned_on = None
        self._warned: set[str] = set()
        self._pending: deque[tuple[str, Callable[[datetime], dict], datetime]] = deque()
        self._writer: threading.Thread | None = None
        self._writer_lock = threading.Lock()
        self._drain_lock = threading.Lock()  # one batch at a time: the writer's, or a flush's
        self._closing = threading.Event()
        self._prune()

    @classmethod
    def for_settings(cls, settings: ServingSettings,
                     now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> "UsageRecorder":
        return cls(settings.usage_dir, settings.question_log, settings.usage_retention_days, now)

    @property
    def logs_questions(self) -> bool:
        return self.log is not None and self.question_log

    def before_turn(self, session: Any, message: str | None) -> str | None:
        """The question an answer to this turn answers, read before the engine moves the session
        on: the message, or the one still waiting for its profile answers (a profile turn, or
        answers typed as a message)."""
        if not self.logs_questions:
            return None
        pending = getattr(session, "pending", None)
        waiting = getattr(pending, "message", pending)
        return waiting if isinstance(waiting, str) else None

    def answered(self, waiting: str | None, message: str | None, reply: Any, advisor: Any) -> None:
        """Appends the "questions" record of an answer reply (never for "ask" replies)."""
        if not self.logs_questions or getattr(reply, "type", None) != "answer":
            return
        trace = getattr(reply, "trace", None) or {}
        question = waiting if waiting is not None and (message is None or "typed_answers" in trace) else message
        if not question:
            return
        self._write("questions", lambda now: question_record(question, reply, advisor, now))

    def feedback(self, body: FeedbackRequest) -> None:
        if self.log is not None:
            self._write("feedback", lambda now: {"answer_id": body.answer_id, "helpful": body.helpful,
                                                 "reason": body.reason, "hour": hour_of(now)})

    def flush(self) -> None:
        """Writes every record queued so far, in the caller's thread (after a batch the writer is on)."""
        self._drain()

    def close(self) -> None:
        """Stops the writer thread and writes what is left (the app's shutdown); a later record
        starts a new one."""
        with self._writer_lock:
            writer, self._writer = self._writer, None
            if writer is not None:
                self._closing.set()
                writer.join()
                self._closing.clear()
        self._drain()

    def _write(self, kind: str, record: Callable[[datetime], dict]) -> None:
        """Queues `record(now)` for the writer thread, which builds it there: scrubbing costs the
        answer nothing, and an error in it cannot fail the answer."""
        if len(self._pending) >= QUEUE_LIMIT:  # the answer goes out, the record does not
            self._warn_once(LogBacklogFull())
            return
        self._pending.append((kind, record, self.now()))
        if self._writer is None:
            with self._writer_lock:
                if self._writer is None:
                    self._writer = threading.Thread(target=self._write_forever, name="usage-writer", daemon=True)
                    self._writer.start()

    def _write_forever(self) -> None:
        while not self._closing.wait(WRITE_EVERY_SECONDS):
            self._drain()

    def _drain(self) -> None:
        with self._drain_lock:
            batch = []
            while self._pending:
                batch.append(self._pending.popleft())
            if batch:
                self._append(batch)

    def _append(self, batch: list[tuple[str, Callable[[datetime], dict], datetime]]) -> None:
        if self.log is None:  # nothing is queued without a folder; said for the type checker
            return
        by_kind: dict[str, list[tuple[dict, datetime]]] = {}
        for kind, record, now in batch:
            try:
                by_kind.setdefault(kind, []).append((record(now), now))
            except Exception as exc:  # noqa: BLE001 - one record that cannot be built loses only itself
                self._warn_once(exc)
        try:
            self._prune(batch[-1][2])
            for kind, records in by_kind.items():
                self.log.append_many(kind, records)
        except Exception as exc:  # noqa: BLE001 - the server goes on whatever the log does
            self._warn_once(exc)

    def _prune(self, now: datetime | None = None) -> None:
        """Day folders past the retention: at startup, then at most once per (UTC) day."""
        if self.log is None:
            return
        today = (now or self.now()).astimezone(timezone.utc).date()
        if self._pruned_on == today:
            return
        self._pruned_on = today
        try:
            self.log.prune(self.retention_days, today)
        except Exception as exc:  # noqa: BLE001
            self._warn_once(exc)

    def _warn_once(self, exc: BaseException) -> None:
        # the type only: an OSError's message names the file, another exception's may quote the question
        name = type(exc).__name__
        if name not in self._warned:
            self._warned.add(name)
            log.warning("usage log: a record could not be written (%s); answers go on, this is said once", name)


def question_record(question: str, reply: Any, advisor: Any, now: datetime) -> dict:
    institution = getattr(advisor, "language", None) or DEFAULT_LANGUAGE
    return {"answer_id": reply.answer_id,
            "question": without_profile(scrub(question, institution), advisor, getattr(reply, "profile_used", {}),
                                        institution),
            "language": language_of(question, institution), "intent": reply.intent, "tier": reply.tier,
            "answer_method": reply.answer_method, "score": tier_score(reply), "answered": reply.tier != "fallback",
            "hour": hour_of(now), "build_id": getattr(advisor, "build_id", None)}


def without_profile(question: str, advisor: Any, profile: Mapping[str, Any], institution: str) -> str:
    """`question` without the profile values it states (the engine's own reading: "컴퓨터학과
    21학번인데요" are who asks, not what) and without the session's values written as they are
    stored (an option's value typed as such)."""
    placeholder = (locale(institution) or locale(DEFAULT_LANGUAGE)).placeholder("profile")
    stated = getattr(advisor, "stated", None)
    if stated is not None:
        values = stated.read(question)
        if values:
            rest = stated.without(question, values)
            # `without` gives the message back when nothing but the profile is left: all of it goes
            question = placeholder if rest == question else f"{placeholder} {rest}"
    schema = getattr(getattr(advisor, "config", None), "profile", None) or {}
    for name, value in (profile or {}).items():
        if isinstance(value, str):
            # the value, its label and the words the institution's pages use for it
            attribute = schema.get(name)
            words = {value, *getattr(attribute, "values", {}).get(value, ())}
            if hasattr(attribute, "label"):
                words.add(attribute.label(value))
            for word in sorted((w for w in words if len(w) >= 2), key=len, reverse=True):
                # a particle may follow ("컴퓨터학과요"), a letter or digit may not ("DSP" is no "DS")
                question = re.sub(rf"(?<!\w){re.escape(word)}(?![A-Za-z0-9])", placeholder, question,
                                  flags=re.IGNORECASE)
        elif isinstance(value, int) and not isinstance(value, bool) and value >= 1000:  # a year; small numbers are everywhere
            question = re.sub(rf"(?<!\d){value}(?!\d)", placeholder, question)
    return question


def tier_score(reply: Any) -> float | None:
    """The answering tier's own top score: the FAQ entry's match score, the first retrieved
    passage's fused score for a documents answer; None for templates and the fallback."""
    trace = getattr(reply, "trace", None) or {}
    score = None
    if reply.tier == "faq":
        score = trace.get("faq_score")
    elif reply.tier == "documents":
        chunks = getattr(trace.get("last_retrieval"), "chunks", None)
        score = chunks[0].score if chunks else None
    return round(float(score), 4) if score is not None else None
