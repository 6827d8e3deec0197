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
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from fastapi import FastAPI, Query, Response
from fastapi.responses import FileResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from advisor.retrieval.profile import known_profile, profile_prefix
from advisor.usage.logfiles import UsageLog, hour_of
from serving.api.errors import ApiError
from serving.api.models import ERROR_RESPONSES
from serving.dialogue.baseline import dense_rag_answer

log = logging.getLogger("serving.api.study")

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
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


def install_study(app: FastAPI, usage_root: Path | None = None, *,
                  now=lambda: datetime.now(timezone.utc)) -> None:
    """The study's page and routes on `app` (create_app), reading the served Advisor's config from
    app.state.holder. Votes go to `usage_root`, else to the usage records of `advisor serve`
    (app.state.usage, serving/api/usage.py: the same file per process), else the served warehouse's
    usage folder."""
    holder = app.state.holder
    pairs = StudyPairs()
    rows = itertools.count()
    rows_lock = threading.Lock()
    logs: dict[Path, UsageLog] = {}

    def enabled_study():
        advisor = holder.current()
        study = getattr(getattr(advisor, "config", None), "study", None)
        if study is None or not study.enabled:
            raise ApiError(404, "study_not_enabled", NOT_ENABLED)
        return advisor, study

    def usage_log(advisor) -> UsageLog:
        recorder_log = getattr(getattr(app.state, "usage", None), "log", None)
        if usage_root is None and recorder_log is not None:
            return recorder_log
        root = Path(usage_root or _usage_root(advisor))
        with rows_lock:
            return logs.setdefault(root, UsageLog(root))

    study_errors = {code: ERROR_RESPONSES[code] for code in (404, 422, 500)}

    @app.get("/study", include_in_schema=False)
    def study_page() -> FileResponse:
        enabled_study()
        return FileResponse(WEB_DIR / "study.html", media_type="text/html; charset=utf-8")

    @app.get("/v1/study", response_model=StudyOut, responses=study_errors,
             summary="The preference study's questions, each with its two answers in this participant's order")
    def study(participant: str = Query(pattern=PARTICIPANT, description="the page's random participant id"),
              row: int | None = Query(None, ge=0, le=MAX_ROW,
                                      description="the row given earlier; absent: a new participant")) -> JSONResponse:
        advisor, config = enabled_study()
        if row is None:
            with rows_lock:
                row = next(rows) % (MAX_ROW + 1)
        schema = advisor.schema
        department = advisor.config.profile[config.department_attribute]
        questions = []
        for index, question in enumerate(config.questions):
            try:
                pair = pairs.pair(advisor, question)
            except Exception as exc:
                log.error("study answers failed for %s: %s", question.id, type(exc).__name__)
                raise ApiError(500, "engine_error", "the study's answers could not be made; please try again") from None
            first = position_a(row, index)
            second = BASELINE if first == PROFILL else PROFILL
            questions.append({"id": question.id, "question": question.question, "profile": dict(question.profile),
                              "profile_text": profile_prefix(known_profile(question.profile, schema), schema),
                              "a": pair[first], "b": pair[second]})
        return JSONResponse({
            "build_id": advisor.build_id, "participant": participant, "row": row,
            "department": {"attribute": config.department_attribute, "question": department.question,
                           "options": [{"value": v, "label": department.label(v)} for v in department.values]},
            "questions": questions})

    @app.post("/v1/study/votes", status_code=204, responses=study_errors, summary="Record one vote of the study")
    def vote(body: VoteRequest) -> Response:
        advisor, config = enabled_study()
        index = next((i for i, q in enumerate(config.questions) if q.id == body.study_id), None)
        if index is None:
            raise ApiError(422, "unknown_study_question", "no study question with this id", "study_id")
        if body.department is not None and body.department not in advisor.config.profile[config.department_attribute].values:
            raise ApiError(422, "unknown_department", "department must be one of the options' values, or null",
                           "department")
        first = position_a(body.row, index)
        moment = now()
        usage_log(advisor).append("votes", {
            "study_id": body.study_id, "participant": body.participant, "position_a": first, "vote": body.vote,
            "winner": winner(body.vote, first), "department": body.department, "hour": hour_of(moment)}, now=moment)
        return Response(status_code=204)


__all__ = ["install_study", "position_a", "winner", "StudyPairs"]
