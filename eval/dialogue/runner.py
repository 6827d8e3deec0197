"""Every benchmark message sent once through the real dialogue engine, as a student who knows
nothing about their profile would: a fresh session per message, "don't know" (None) to every
profile question, until the engine answers. One result row per message."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import date

from eval.dialogue.messages import Message
from eval.systems.simulate import answer_questions


@dataclass(frozen=True)
class Result:
    message_id: str
    text: str
    category: str
    register: str
    expected_intent: str | None
    expected_behaviour: str
    gold_from: str
    expected_faq: str | None  # the entry's source_url the FAQ tier should answer from
    routed_intent: str | None  # the router's decision on the first turn
    reply_kind: str  # template | question (the engine asked first) | answer
    tier: str | None  # the final reply's tier: template | faq | documents | fallback
    answer_method: str | None
    faq_cited: str | None  # the FAQ entry cited first (its source_url), when the FAQ tier answered
    first_citation: str | None  # the URL cited first by the final answer, whatever the tier
    verbatim: bool  # the final answer holds the expected entry's answer text, unchanged
    questions_asked: int  # profile questions asked before the answer
    seconds: float
    # added with the LLM judge (judge.py); defaults keep every older constructor working
    answer: str = ""  # the final reply's text, what the judge reads
    cited_chunk_ids: tuple[str, ...] = ()  # the final reply's citations, in order
    judge_answers: bool | None = None  # the judge: the reply responds to the message (None: not judged)
    judge_supported: bool | None = None  # ... every claim is in the cited text (None: nothing cited / not judged)
    judge_admits_unknown: bool | None = None  # ... the reply says it does not know (out-of-scope: the right move)
    judge_reason: str | None = None
    judge_model: str | None = None
    judge_failure: str | None = None  # the LLM failure's reason code when judging this row failed

    def as_dict(self) -> dict:
        row = asdict(self)
        row["cited_chunk_ids"] = list(self.cited_chunk_ids)
        return row


def run(advisor, messages: Sequence[Message], today: date | None = None,
        answers: Mapping[str, str] | None = None) -> list[Result]:
    """One Result per message. `answers`: source_url -> the FAQ entry's answer text, for the
    verbatim check (None: read from the engine's FAQ store)."""
    if answers is None:
        store = getattr(advisor, "faq_store", None)
        answers = {}
        for entry in (store.entries if store is not None else []):
            if entry.origin == "seed":
                answers.setdefault(entry.source_url, entry.answer)
    today = today or advisor.as_of()  # the build's day: results do not drift with the calendar
    return [_converse(advisor, message, today, answers) for message in messages]


def _converse(advisor, message: Message, today: date, answers: Mapping[str, str]) -> Result:
    started = time.perf_counter()
    session = advisor.new_session()
    reply = advisor.respond(session, message=message.text, today=today)
    routed = reply.intent
    kind = "question" if reply.type == "ask" else ("template" if reply.tier == "template" else "answer")
    reply, asked = answer_questions(advisor, session, reply, today, message.text, lambda attribute: None)
    first = reply.citations[0].url if reply.citations else None
    expected_answer = answers.get(message.faq_source) if message.faq_source else None
    return Result(
        message_id=message.message_id, text=message.text, category=message.category, register=message.register,
        expected_intent=message.intent, expected_behaviour=message.behaviour, gold_from=message.gold_from,
        expected_faq=message.faq_source, routed_intent=routed, reply_kind=kind, tier=reply.tier,
        answer_method=reply.answer_method, faq_cited=first if reply.tier == "faq" else None, first_citation=first,
        # the FAQ tier writes entries' answers unchanged, alone or each labelled by whom it is for
        verbatim=bool(expected_answer) and reply.tier == "faq" and expected_answer.strip() in reply.answer,
        questions_asked=asked, seconds=round(time.perf_counter() - started, 4), answer=reply.answer or "",
        cited_chunk_ids=tuple(c.chunk_id for c in reply.citations if c.chunk_id),
    )
