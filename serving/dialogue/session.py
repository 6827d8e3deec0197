"""One conversation's state, held for the session only (docs/method.md §A online step 9: the profile
lives for the session and is discarded afterwards). Plain data: it survives an index-build swap
unchanged, and `to_dict` / `from_dict` carry it through a shared session store as JSON."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# The shape of `Session.to_dict`; a record of another shape (another release's) is refused, never misread.
FORMAT = 1
# The trace entries the engine reads back on a later turn: its single time-sensitivity decision per
# question (an LLM call when configured), whether the question was searched in glossary terms
# (the answer is then matched to the passages in them) and, if so, the question as asked.
# Everything else in a trace is for evaluation and is not stored.
TRACE_STATE = ("time_sensitive_llm", "glossary", "as_asked")


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
    # what the FAQ tier compares with the entries' questions: the search text before the profile
    # words were taken out, since an entry's question names its group as the student does ("신입생은
    # 첫 학기에 몇 학점까지 들을 수 있나요?"); empty: the query
    faq_text: str = ""
    # the attributes the candidate answers differ by (serving/dialogue/variants.py): a general FAQ
    # entry does not answer such a question for everyone
    differing: frozenset[str] = frozenset()
    # ... of them, those by which the candidate PAGES differ (FAQ entries left out): a general FAQ
    # entry yields to the page written for this student, not to other entries on other questions
    pages_differing: frozenset[str] = frozenset()
    # the template the router leaned to when it was not sure (serving/dialogue/engine.py): the tiers
    # answer such a message only on strong evidence (the FAQ's threshold, the question's own words)
    leaning: str | None = None
    # the values the question itself names, as its topic or as the asker's ("서울캠 라운지 예약",
    # "AI학과 졸업 프로젝트"): attribute -> the options, or [low, high]. What it is about: never asked,
    # and one option named scopes this question's search (`scoped`) without entering the profile
    named: dict = field(default_factory=dict)

    @property
    def query(self) -> str:
        return self.search_text or self.message

    @property
    def as_asked(self) -> str | None:
        """The question as asked when the query is its glossary rendering into the institution's
        terms, else None: the encoder compares that with passages, not the two-language mix its
        calibration never saw (it reads either language as it is)."""
        return self.trace.get("as_asked")

    def unnamed(self, attributes) -> list[str]:
        """Of `attributes` (what a question depends on), those the question does not name itself:
        the ones worth asking the student."""
        return [name for name in attributes if name not in self.named]

    def scoped(self, known: Mapping[str, Any]) -> dict[str, Any]:
        """`known` (the student's profile) with the one option the question names of an attribute
        it does not settle: whom this question is about, for its search alone."""
        named = {name: values[0] for name, values in self.named.items()
                 if len(values) == 1 and isinstance(values[0], str)}
        return {**named, **known}

    @property
    def faq_query(self) -> str:
        return self.faq_text or self.query

    def to_dict(self) -> dict:
        return {"message": self.message, "intent": self.intent, "stage": self.stage, "asked": list(self.asked),
                "questions_so_far": self.questions_so_far, "relevant": sorted(self.relevant),
                "trace": {name: self.trace[name] for name in TRACE_STATE if name in self.trace},
                "search_text": self.search_text, "faq_text": self.faq_text, "differing": sorted(self.differing),
                "pages_differing": sorted(self.pages_differing), "named": dict(self.named)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Pending:
        return cls(message=data["message"], intent=data["intent"], stage=data["stage"], asked=tuple(data["asked"]),
                   questions_so_far=int(data["questions_so_far"]), relevant=frozenset(data["relevant"]),
                   trace=dict(data["trace"]), search_text=data["search_text"], faq_text=data.get("faq_text", ""),
                   differing=frozenset(data["differing"]),
                   pages_differing=frozenset(data.get("pages_differing", data["differing"])),
                   named=dict(data.get("named", {})))


@dataclass
class Session:
    known: dict[str, Any] = field(default_factory=dict)  # attribute -> canonical value
    declined: set[str] = field(default_factory=set)  # attributes the student said they don't know
    pending: Pending | None = None
    turns: int = 0
    # the last question answered, as searched (its profile words taken out): a follow-up that only
    # names other values ("그럼 2023학번은요?") asks it again for them (serving/dialogue/typed.py)
    last_question: str = ""

    def settled(self, attribute: str) -> bool:
        return attribute in self.known or attribute in self.declined

    def to_dict(self) -> dict:
        """JSON-able (known values are option strings or whole numbers); `from_dict` gives it back."""
        return {"format": FORMAT, "known": dict(self.known), "declined": sorted(self.declined),
                "pending": None if self.pending is None else self.pending.to_dict(), "turns": self.turns,
                "last_question": self.last_question}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Session:
        """ValueError for a record that is not `to_dict`'s current shape."""
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            raise ValueError(f"not a session record of format {FORMAT}")
        try:
            pending = None if data["pending"] is None else Pending.from_dict(data["pending"])
            return cls(known=dict(data["known"]), declined=set(data["declined"]), pending=pending,
                       turns=int(data["turns"]), last_question=str(data.get("last_question", "")))
        except (KeyError, TypeError):
            raise ValueError("a session record with a missing or malformed field") from None
