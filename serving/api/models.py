"""Request and response models of the HTTP API (docs/contracts.md §4), for validation and OpenAPI."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, field_validator

ProfileValue = StrictStr | StrictInt | None  # an option's value; null means "don't know"
NOT_UNICODE = "contains a lone surrogate (\\ud800-\\udfff), which is not a character"


def _is_unicode(text: str) -> bool:
    """JSON's \\uXXXX escapes can spell half a surrogate pair, which no UTF-8 text holds: refused
    here, before the engine (or a log, or a response) has to encode it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class ChatRequest(BaseModel):
    """Either a message (`session_id` null starts a new conversation) or the answers to the profile
    questions of the last `ask` reply (then `session_id` is required). Exactly one of `message`
    and `profile`."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"session_id": None, "message": "졸업하려면 전공 몇 학점 들어야 해요?"},
        {"session_id": "…", "profile": {"department": "CS", "admission_year": 2021}},
    ]})

    session_id: StrictStr | None = Field(None, description="null or absent: start a new conversation")
    message: StrictStr | None = Field(None, description="the student's question (non-empty, length-limited)")
    profile: dict[str, ProfileValue] | None = Field(
        None, description="attribute -> an option's value from the questions asked; null = don't know")

    @field_validator("session_id", "message")
    @classmethod
    def _text_is_unicode(cls, value: str | None) -> str | None:
        if value is not None and not _is_unicode(value):
            raise ValueError(NOT_UNICODE)
        return value

    @field_validator("profile")
    @classmethod
    def _profile_is_unicode(cls, value: dict | None) -> dict | None:
        for key, answer in (value or {}).items():
            if not _is_unicode(key) or (isinstance(answer, str) and not _is_unicode(answer)):
                raise ValueError(NOT_UNICODE)
        return value


class OptionOut(BaseModel):
    value: Any
    label: str


class QuestionOut(BaseModel):
    attribute: str
    question: str
    options: list[OptionOut]
    reason: str | None = Field(None, description="query: the question needs it | evidence: a selected source depends on it")


class CitationOut(BaseModel):
    url: str
    title: str | None
    snippet: str
    chunk_id: str
    snapshot: str | None = Field(None, description="extension: the path of the saved copy (GET /v1/sources/{chunk_id}); "
                                                   "null when the build keeps none for this source")
    published_on: str | None = Field(None, description="the source's own posted date as it states it (ISO date: a "
                                                       "notice's date, a page's 작성일 / 'Posted'), or null")
    updated_on: str | None = Field(None, description="the source's own last-updated date as it states it (ISO date: "
                                                     "최종수정일 / 'Last updated'), or null")
    fetched_at: str | None = Field(None, description="when the crawl fetched the source (ISO 8601, UTC), or null")


class SourceChunkOut(BaseModel):
    start: int | None = Field(None, description="where the cited passage starts in `text` (null: not located)")
    end: int | None
    text: str | None = Field(None, description="the passage itself, text[start:end]")


class SourceOut(BaseModel):
    """The saved copy of a cited document, as the crawl fetched and cleaned it (plain text with its
    structure: headings, list items, table rows), for when the original page is unreachable."""

    chunk_id: str
    build_id: str
    url: str = Field(description="the original source URL (FAQ entries: page URL + #anchor)")
    title: str | None
    source: str | None = Field(None, description="the configured source it was crawled from")
    kind: str | None = Field(None, description="page | pdf | notice | faq")
    fetched_at: str | None = Field(None, description="when the crawl fetched it (ISO 8601, UTC)")
    published_on: str | None = Field(None, description="its own posted date as it states it (a notice's date), or null")
    updated_on: str | None = Field(None, description="its own last-updated date as it states it, or null")
    text: str
    chunk: SourceChunkOut


REPLY_LANGUAGE = ("extension: the language of the reply's own words (questions, labels, headings, notes): "
                  "ko | en, as the server reads the student's message")


class AskReply(BaseModel):
    """Profile questions, asked only for the attributes this query needs; answer them with
    `{"session_id", "profile": {attribute: value | null}}`."""

    session_id: str
    type: Literal["ask"]
    questions: list[QuestionOut]
    language: str | None = Field(None, description=REPLY_LANGUAGE)


class AnswerReply(BaseModel):
    session_id: str
    type: Literal["answer"]
    answer: str
    intent: str | None
    tier: Literal["template", "faq", "documents", "fallback"] | None
    citations: list[CitationOut]
    profile_used: dict[str, Any]
    answer_method: str | None = Field(None, description="template | clarify | faq_verbatim | extractive | llm | fallback")
    disclaimer: str | None = Field(None, description="shown with fallback answers (and notes on document answers)")
    answer_id: str | None = Field(None, pattern="^[0-9a-f]{32}$",
                                  description="extension: this answer's random id (32 hex digits), for POST /v1/feedback")
    language: str | None = Field(None, description=REPLY_LANGUAGE)


class ErrorDetail(BaseModel):
    code: str
    message: str
    field: str | None = Field(None, description="the request field at fault, e.g. message or profile.grade")


class ErrorBody(BaseModel):
    error: ErrorDetail


class IndexInfo(BaseModel):
    model_config = ConfigDict(extra="allow")

    build_id: str
    built_at: str | None = None
    counts: dict[str, int] = Field(default_factory=dict, description="chunks per collection (static, dynamic)")


class Health(BaseModel):
    status: Literal["ok"]
    build_id: str


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody, "description": text} for code, text in {
        404: "unknown, expired or forgotten session",
        413: "request body too large",
        415: "the body is not sent as JSON (Content-Type: application/json)",
        422: "invalid request (the `field` names what was wrong)",
        429: "too many requests from this client (see Retry-After)",
        500: "the engine failed",
        503: "no index build loaded yet (`no_build`), or the shared session store is unreachable "
             "(`session_store_unavailable`)",
    }.items()
}
