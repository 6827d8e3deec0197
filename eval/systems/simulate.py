"""The simulated student of the deployment setting (docs/contracts.md §3): the system starts with no
profile and every profile question it asks is answered from the instance's hidden profile, or
"don't know" (None) for an attribute the profile lacks. A real student often does not know their
curriculum period or status by its official name: with `dont_know` = s, the student also answers
"don't know" to a share s of the questions (which ones is a fixed draw per instance and attribute,
so every system meets the same student)."""

from __future__ import annotations

import hashlib
from datetime import date
from typing import Any, Callable, Mapping

from advisor.index import fields
from serving.dialogue.profiling import DialogueInputError, canonical_answer

MAX_TURNS = 8  # the engine asks at most twice per question; more means a loop, not a dialogue


class BenchmarkProfileError(ValueError):
    """An instance's hidden profile does not fit the institution's profile schema."""


def hidden_profile(instance: Mapping[str, Any], schema: fields.Schema) -> dict[str, Any]:
    """The instance's profile restricted to the schema's attributes, canonical; a value the schema
    cannot hold (an unknown department, a year out of range) is a clear error, never dropped."""
    profile = instance.get("profile") or {}
    if not isinstance(profile, Mapping):
        raise BenchmarkProfileError(f"instance {instance.get('id')!r}: profile must be an object, got {profile!r}")
    hidden = {}
    for name, value in profile.items():
        if name not in schema or value is None:
            continue  # an attribute this institution does not ask about cannot be asked
        try:
            hidden[name] = canonical_answer(name, value, schema)
        except DialogueInputError as problem:
            raise BenchmarkProfileError(f"instance {instance.get('id')!r}: {problem}") from None
    return hidden


def unsure(key: str, attribute: str, share: float) -> bool:
    """Whether the student of instance `key` answers "don't know" about `attribute`: a uniform draw
    in [0, 1) fixed by the pair, below `share`."""
    draw = int(hashlib.sha256(f"{key}|{attribute}".encode()).hexdigest()[:8], 16) / 0x1_0000_0000
    return draw < share


def converse(advisor, query: str, hidden: Mapping[str, Any], oracle: bool, today: date, dont_know: float = 0.0,
             key: str = ""):
    """The final reply of one question: oracle = the whole profile given up front; otherwise the
    student answers what is asked (with `dont_know` > 0, "don't know" to that share of questions,
    drawn per `key` and attribute). Returns (reply, questions asked as attribute names)."""
    session = advisor.new_session(dict(hidden) if oracle and hidden else None)
    reply = advisor.respond(session, message=query, today=today)
    reply, _ = answer_questions(
        advisor, session, reply, today, query,
        lambda attribute: None if unsure(key, attribute, dont_know) else hidden.get(attribute))
    asked = [q["attribute"] for q in reply.trace.get("questions", [])]
    return reply, asked


def answer_questions(advisor, session, reply, today: date, query: str,
                     answer: Callable[[str], Any]) -> tuple[Any, int]:
    """Answers every profile question of `reply` with `answer(attribute)` (None: "don't know"),
    turn after turn, until the engine answers. Returns (the final reply, questions asked)."""
    asked, turns = 0, 1
    while reply.type == "ask":
        if turns >= MAX_TURNS:
            raise RuntimeError(f"the dialogue kept asking after {MAX_TURNS} turns for {query!r}")
        asked += len(reply.questions)
        reply = advisor.respond(session, profile={q.attribute: answer(q.attribute) for q in reply.questions},
                                today=today)
        turns += 1
    return reply, asked
