"""What the dialogue engine returns to its callers (the HTTP API, `advisor ask`, the evaluation).

The JSON shape of `Reply.as_api()` is the contract of docs/contracts.md §4 (`POST /v1/chat`); fields
beyond it are optional extensions. `Reply.trace` is for evaluation and debugging only: the API
never serializes it (it can hold the profile).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from secrets import token_hex
from typing import Any, Literal

from advisor.tiers import TIERS as TIERS

INTENTS = ("greeting", "ability", "faq", "smalltalk", "retrieval")
# How an answer's text was made: never present an offline answer as an LLM's (docs/method.md, "What neither paper has")
ANSWER_METHODS = ("template", "clarify", "faq_verbatim", "extractive", "llm", "fallback")


@dataclass(frozen=True)
class Option:
    value: Any  # canonical value (str for categorical, int for year / integer attributes)
    label: str


@dataclass(frozen=True)
class Question:
    attribute: str
    question: str
    options: list[Option]
    reason: str = "query"  # "query": this question needs it | "evidence": a selected source depends on it


@dataclass(frozen=True)
class Citation:
    url: str
    title: str | None
    snippet: str
    chunk_id: str
    # the source's own dates as it states them (ISO dates) and when the crawl fetched it (ISO 8601
    # UTC); None where unknown. Set by the engine for every citation (Advisor._dated).
    published_on: str | None = None
    updated_on: str | None = None
    fetched_at: str | None = None


@dataclass
class Reply:
    type: Literal["ask", "answer"]
    questions: list[Question] = field(default_factory=list)  # type == "ask"
    answer: str = ""  # type == "answer"
    intent: str | None = None
    tier: str | None = None  # one of TIERS
    citations: list[Citation] = field(default_factory=list)
    profile_used: dict = field(default_factory=dict)
    answer_method: str | None = None  # one of ANSWER_METHODS
    disclaimer: str | None = None  # set for the fallback tier (and documents-tier notes)
    trace: dict = field(default_factory=dict)  # evaluation / debugging only; never sent over HTTP
    # Names this answer in feedback and in the question log (extension of §4): random, so it says
    # nothing of the session or of other answers, and no record joins a feedback to a student.
    answer_id: str = field(default_factory=lambda: token_hex(16))
    # The language of the reply's own words (labels, headings, notes, the page's badge): the
    # student's, as the engine reads the message (serving.answer.language.reply_language)
    language: str | None = None

    def as_api(self, session_id: str) -> dict:
        body: dict[str, Any] = {"session_id": session_id, "type": self.type, "language": self.language}
        if self.type == "ask":
            body["questions"] = [asdict(q) for q in self.questions]
            return body
        body.update(answer=self.answer, intent=self.intent, tier=self.tier,
                    citations=[asdict(c) for c in self.citations], profile_used=dict(self.profile_used),
                    answer_method=self.answer_method, disclaimer=self.disclaimer, answer_id=self.answer_id)
        return body
