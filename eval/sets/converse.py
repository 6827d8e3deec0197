"""Each item of a set sent once through the real dialogue engine, in a fresh session: the simulated
student answers every profile question from the item's `profile` ("don't know" for what it lacks),
until the engine answers. One Outcome per item: what the student got, nothing judged yet."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from urllib.parse import urlsplit

from eval.sets.items import Item
from eval.systems.simulate import answer_questions, hidden_profile


@dataclass(frozen=True)
class Outcome:
    item: Item
    routed_intent: str | None  # the intent of the first reply
    tier: str | None  # the final reply's tier: template | faq | documents | fallback
    template: str | None  # which template answered (greeting, ability, smalltalk, leaving, clarify), if one did
    first_citation: str | None  # the URL the final answer cites first
    answer: str
    questions_asked: int


def converse(advisor, items: Sequence[Item], today: date | None = None) -> list[Outcome]:
    today = today or advisor.as_of()  # the build's day: results do not drift with the calendar
    return [_one(advisor, item, today) for item in items]


def _one(advisor, item: Item, today: date) -> Outcome:
    profile = hidden_profile({"id": item.id, "profile": item.profile}, advisor.schema)
    session = advisor.new_session()
    first = advisor.respond(session, message=item.text, today=today)
    reply, asked = answer_questions(advisor, session, first, today, item.text, profile.get)
    template = reply.trace.get("template") if reply.tier == "template" else None
    return Outcome(item=item, routed_intent=first.intent, tier=reply.tier, template=template,
                   first_citation=reply.citations[0].url if reply.citations else None,
                   answer=reply.answer or "", questions_asked=asked)


def entry_key(url: str | None) -> str | None:
    """A cited URL as the sets name FAQ entries and pages: its path, query and fragment, without
    the scheme and host (the loopback port differs from build to build)."""
    if not url:
        return None
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "") + (f"#{parts.fragment}" if parts.fragment else "")
