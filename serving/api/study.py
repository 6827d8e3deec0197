"""The blind pairwise preference study (`/study`, docs/contracts.md §4), as in the proFILL paper: for
each question of the institution config's `study` section, asked under its profile, a participant
sees two answers side by side, A and B (the engine's and the baseline's, serving/dialogue/baseline.py),
and votes A, B or tie. Off unless the config enables it: every route is then 404.

Positions are counterbalanced by a Latin square: the server gives each new participant the next
row number of this process (`row`; the page keeps it in sessionStorage with its random participant
id and sends both back), and the engine's answer is A for question i when row + i is even. Any two
consecutive participants therefore see every question both ways, and the row comes back with the
vote, so a vote is read right whichever worker served the page. The page is never told which
answer is which system.

A vote is one "votes" record (advisor/usage/logfiles.py): the question's id, the participant's
random id, which system was A, the vote and its winner, the department the participant chose (or
null) and the hour. No session id, no address, no other profile value.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from advisor.retrieval.profile import known_profile, profile_prefix
from advisor.usage.logfiles import UsageLog, hour_of
from serving.api.errors import ApiError
from serving.dialogue.baseline import dense_rag_answer

log = logging.getLogger("serving.api.study")

PROFILL, BASELINE = "profill", "baseline"
PARTICIPANT = r"^[A-Za-z0-9_-]{8,64}$"
MAX_ROW = 2**31 - 1
MAX_TURNS = 6  # the engine asks at most twice per question; more would be a loop, not a dialogue
NOT_ENABLED = "the preference study is not enabled (the institution config's study.enabled)"


def position_a(row: int, index: int) -> str:
    """Which system's answer is A for the participant of Latin-square `row` at question `index`."""
    return PROFILL if (row + index) % 2 == 0 else BASELINE


def winner(vote: str, first: str) -> str:
    """The system a vote ("a" | "b" | "tie") prefers when `first` was A."""
    if vote == "tie":
        return "tie"
    return first if vote == "a" else (BASELINE if first == PROFILL else PROFILL)


class VoteRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"participant": "4f0c2a9e7b1d4c3a", "row": 7, "study_id": "grad-credits", "vote": "a", "department": "CS"}]})

    participant: StrictStr = Field(pattern=PARTICIPANT, description="the page's random id for this participant")
    row: StrictInt = Field(ge=0, le=MAX_ROW, description="the Latin-square row GET /v1/study gave this participant")
    study_id: StrictStr = Field(max_length=40, description="the question's id")
    vote: Literal["a", "b", "tie"]
    department: StrictStr | None = Field(None, max_length=100,
                                         description="one of the department options' values; null: not said")


class StudyCitationOut(BaseModel):
    url: str
    title: str | None
    snippet: str


class StudyAnswerOut(BaseModel):
    answer: str
    citations: list[StudyCitationOut]


class StudyQuestionOut(BaseModel):
    id: str
    question: str
    profile: dict[str, Any] = Field(description="attribute -> value the question is asked under")
    profile_text: str = Field(description="the profile in words, as the page shows it")
    a: StudyAnswerOut
    b: StudyAnswerOut


class StudyOption(BaseModel):
    value: str
    label: str


class StudyDepartment(BaseModel):
    attribute: str
    question: str
    options: list[StudyOption]


class StudyOut(BaseModel):
    build_id: str
    participant: str
    row: int = Field(description="this participant's Latin-square row: send it back with every vote")
    department: StudyDepartment
    questions: list[StudyQuestionOut]


class StudyPairs:
    """Each question's two answers, made once per (build, question) and kept in memory."""

    def __init__(self) -> None:
        self._pairs: dict[tuple[str, str], dict[str, dict]] = {}
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._guard = threading.Lock()

    def pair(self, advisor, question) -> dict[str, dict]:
        key = (advisor.build_id, question.id)
        with self._guard:
            if key in self._pairs:
                return self._pairs[key]
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:  # many participants opening the page at once make each pair once
            if key not in self._pairs:
                made = {PROFILL: _shown(_engine_answer(advisor, question)),
                        BASELINE: _shown(dense_rag_answer(advisor, question.question, question.profile))}
                with self._guard:
                    # a new build makes the old build's pairs unreachable: keep this build's only
                    for old in [k for k in self._pairs if k[0] != key[0]]:
                        del self._pairs[old]
                        self._locks.pop(old, None)
                    self._pairs[key] = made
            return self._pairs[key]


def _engine_answer(advisor, question):
    """The engine's answer with the profile given up front; a question it still asks is answered
    "don't know" (the participant reads the answer a student with exactly this profile gets)."""
    session = advisor.new_session(dict(question.profile))
    reply = advisor.respond(session, message=question.question)
    for _ in range(MAX_TURNS):
        if reply.type != "ask":
            return reply
        reply = advisor.respond(session, profile={q.attribute: None for q in reply.questions})
    raise RuntimeError(f"the dialogue kept asking for study question {question.id}")


def _shown(reply) -> dict:
    """What the page shows of an answer: its text and sources, nothing that tells the systems apart
    (no tier, method, badge or note)."""
    return {"answer": reply.answer,
            "citations": [{"url": c.url, "title": c.title, "snippet": c.snippet} for c in reply.citations]}


def _usage_root(advisor) -> Path:
    """`<warehouse>/usage`: the served build is `<warehouse>/builds/<build_id>`."""
    return Path(advisor.build.directory).resolve().parent.parent / "usage"


class Study:
    """The study's state in one app (create_app makes it): the answer pairs, the next Latin-square
    row of this process, and where votes go: `usage_root`, else the usage records of `advisor
    serve` (the recorder's log, serving/api/usage.py: the same file per process), else the served
    warehouse's usage folder."""

    def __init__(self, usage_root: Path | None = None, recorder_log: UsageLog | None = None,
                 now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)):
        self.usage_root, self.recorder_log, self.now = usage_root, recorder_log, now
        self.pairs = StudyPairs()
        self._rows = itertools.count()
        self._lock = threading.Lock()
        self._logs: dict[Path, UsageLog] = {}

    def next_row(self) -> int:
        with self._lock:
            return next(self._rows) % (MAX_ROW + 1)

    def questions(self, advisor, config, row: int) -> list[dict]:
        """The config's questions with their two answers in the order of Latin-square `row`."""
        schema = advisor.schema
        shown = []
        for index, question in enumerate(config.questions):
            try:
                pair = self.pairs.pair(advisor, question)
            except Exception as exc:
                log.error("study answers failed for %s: %s", question.id, type(exc).__name__)
                raise ApiError(500, "engine_error", "the study's answers could not be made; please try again") from None
            first = position_a(row, index)
            second = BASELINE if first == PROFILL else PROFILL
            shown.append({"id": question.id, "question": question.question, "profile": dict(question.profile),
                          "profile_text": profile_prefix(known_profile(question.profile, schema), schema),
                          "a": pair[first], "b": pair[second]})
        return shown

    def record_vote(self, advisor, config, body: VoteRequest) -> None:
        """Appends the vote's "votes" record; 422 for a question or department the config does not have."""
        index = next((i for i, q in enumerate(config.questions) if q.id == body.study_id), None)
        if index is None:
            raise ApiError(422, "unknown_study_question", "no study question with this id", "study_id")
        if body.department is not None and body.department not in advisor.config.profile[config.department_attribute].values:
            raise ApiError(422, "unknown_department", "department must be one of the options' values, or null",
                           "department")
        first = position_a(body.row, index)
        moment = self.now()
        self._log(advisor).append("votes", {
            "study_id": body.study_id, "participant": body.participant, "position_a": first, "vote": body.vote,
            "winner": winner(body.vote, first), "department": body.department, "hour": hour_of(moment)}, now=moment)

    def _log(self, advisor) -> UsageLog:
        if self.usage_root is None and self.recorder_log is not None:
            return self.recorder_log
        root = Path(self.usage_root or _usage_root(advisor))
        with self._lock:
            return self._logs.setdefault(root, UsageLog(root))


def enabled_study(advisor) -> Any:
    """The served config's study section; 404 study_not_enabled unless it enables the study (or
    no build is loaded: the study is not there either)."""
    study = getattr(getattr(advisor, "config", None), "study", None)
    if study is None or not study.enabled:
        raise ApiError(404, "study_not_enabled", NOT_ENABLED)
    return study


def department_out(advisor, config) -> dict:
    """The department question the page asks first, with its options."""
    department = advisor.config.profile[config.department_attribute]
    return {"attribute": config.department_attribute, "question": department.question,
            "options": [{"value": v, "label": department.label(v)} for v in department.values]}


__all__ = ["Study", "StudyPairs", "department_out", "enabled_study", "position_a", "winner"]
