"""One conversation's state, in memory only (docs/method.md §A online step 9: the profile lives for the
session and is discarded afterwards). Plain data: it survives an index-build swap unchanged."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Pending:
    """A question waiting for profile answers before it can be answered."""

    message: str
    intent: str
    stage: str  # "query": asked what the question needs | "evidence": asked what a selected source depends on
    asked: tuple[str, ...]
    questions_so_far: int = 0  # profile questions asked for this message (the student's burden)
    # what the question depends on (stated in it, needed by its candidates, asked, or what its
    # evidence is limited on): the soft prefix writes only these known values
    relevant: frozenset[str] = frozenset()
    trace: dict = field(default_factory=dict)  # what happened, for evaluation (never sent over HTTP)
    # what is searched: the message without the words that state the student's own profile
    # (those are in the profile now); the message itself when it states nothing
    search_text: str = ""
    # the attributes the candidate answers differ by (serving/dialogue/variants.py): a general FAQ
    # entry does not answer such a question for everyone
    differing: frozenset[str] = frozenset()

    @property
    def query(self) -> str:
        return self.search_text or self.message


@dataclass
class Session:
    known: dict[str, Any] = field(default_factory=dict)  # attribute -> canonical value
    declined: set[str] = field(default_factory=set)  # attributes the student said they don't know
    pending: Pending | None = None
    turns: int = 0

    def settled(self, attribute: str) -> bool:
        return attribute in self.known or attribute in self.declined
