"""The advising dialogue (docs/method.md §A online steps 2-9, §B tiers): one engine for the HTTP API,
`advisor ask` and the evaluation.

    advisor = open_advisor(builds_root, config)
    session = advisor.new_session()
    reply = advisor.respond(session, message="졸업하려면 전공 몇 학점 들어야 해요?")   # -> ask department, cohort
    reply = advisor.respond(session, profile={"department": "CS", "admission_year": 2021})  # -> ask major type
    reply = advisor.respond(session, profile={"major_type": "double"})               # -> answer with citations

A message goes: intent routing -> templates (greeting, ability, smalltalk) | answering. Answering:
the message is read (understanding.py: spacing restored, the build's own words, stated values taken
from it, an English question in the institution's terms); the attributes the question needs are
asked (only those, with options); then the URAG tiers (tiers/), each `try_answer(turn)`: tier 1
(faq.py), an FAQ entry's stored answer, verbatim, when its question is close enough for the
calibrated threshold and it applies to the student; else tier 2 (documents.py): profile-aware
retrieval (soft prefix + hard filter), evidence selection, ONE evidence-driven follow-up question
when a selected source depends on an attribute still unknown, re-retrieval, and an answer with
citations; else tier 3 (fallback.py): the disclaimed fallback. A tier that must ask first names the
attributes (`Ask`); the engine asks them and runs the tiers again when the answers come back.
Replies are put together by assembly.py.

The engine is composed from its collaborators (tokenizer, embedder, retriever, router, FAQ store,
LLM tasks, extractive answerer), all constructor arguments: `open_advisor` builds the served ones,
and the evaluation passes caching ones (eval/systems/memo.py) through the same constructor. The
ablations of the evaluation are settings (`DialogueSettings`), not different code.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass, replace
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from advisor.config import InstitutionConfig
from advisor.faq.store import FAQ_KIND
from advisor.index.layout import FAQ_DIR, SERVING_FILE
from advisor.index.sources import UNKNOWN_DATES, SourceDates, SourceSnapshots, load_source_dates, load_sources
from advisor.index.store import IndexBuild, latest_build_dir, load_build
from advisor.intents import TEMPLATE_ROUTES, intent_of
from advisor.message_limit import MAX_MESSAGE_CHARS
from advisor.retrieval import Retriever, params_from
from advisor.retrieval.results import RetrievalResult
from serving.answer.language import reply_language
from serving.dialogue import profiling, templates, typed, variants
from serving.dialogue.answerability import names_no_topic
from serving.dialogue.assembly import in_english, label_variants, pending_trace, template_reply
from serving.dialogue.evidence import evidence_attributes, select_evidence
from serving.dialogue.profiling import DialogueInputError, StatedValues
from serving.dialogue.router import IntentRouter
from serving.dialogue.session import Pending, Session
from serving.dialogue.tiers.documents import DocumentsTier
from serving.dialogue.tiers.fallback import FallbackTier
from serving.dialogue.tiers.faq import FAQTier
from serving.dialogue.turn import Ask, Turn
from serving.dialogue.types import Reply
from serving.dialogue.understanding import UNSPACED_SYLLABLES, MessageReader

# label_variants and UNSPACED_SYLLABLES live in assembly.py and understanding.py; named here for the
# callers that import them from the engine
__all__ = ["Advisor", "DialogueInputError", "DialogueSettings", "EmptyMessage", "ExtractiveAnswerer", "LLMTasks",
           "MessageTooLong", "NoBuildError", "Session", "UNSPACED_SYLLABLES", "checked_message", "label_variants",
           "open_advisor"]



class NoBuildError(RuntimeError):
    """No index build has been published yet (run `advisor materialize`)."""


@dataclass(frozen=True)
class DialogueSettings:
    k: int | None = None  # chunks per retrieval; None: the build's retrieval settings, static_k + dynamic_k
    # An attribute is needed up front when at least this share of the candidates' documents
    # depends on it: a third means "a substantial part of the likely answers differ by it".
    need_share: float = 1 / 3
    faq_candidates: int = 20  # URAG: the top 20 FAQ entries are considered
    # One evidence-driven follow-up turn per message (the paper's step 8), for documents and FAQ
    # entries alike; False is the "without re-retrieval" ablation: answer from the first retrieval.
    evidence_follow_up: bool = True
    # The soft profile prefix written into the query, and the hard filter dropping sources (chunks
    # and FAQ entries) that conflict with the profile; False is the ablation without it.
    soft_prefix: bool = True
    hard_filter: bool = True
    # How deep the unfiltered retrieval reads which values of an asked attribute have documents
    # (the options offered): deeper than the candidates, so a cohort whose page ranks 12th still
    # gets its button.
    coverage_depth: int = 40


@dataclass(frozen=True)
class LLMTasks:
    """What the engine asks an LLM, each None offline (then the rules and the extractive answer
    decide): the grounded answer, the time-sensitivity decision, the profile initialization, the
    translation of a question into the institution's language for retrieval; the client itself
    for the fallback answer."""

    client: Any = None
    answerer: Any = None  # .answer(message, evidence, known, config) -> composed answer | failure
    time_classifier: Any = None  # .classify([message]) -> [True | False | None]
    profile_init: Any = None  # .initialize(message) -> (needed attributes, stated values) | None
    translator: Any = None  # .for_retrieval(message, config) -> the message in the institution's language | None

    @classmethod
    def from_client(cls, client, config: InstitutionConfig) -> "LLMTasks":
        if client is None:
            return cls()
        from advisor.llm.profile_init import LLMProfileInitializer
        from advisor.llm.time_sensitivity import LLMTimeClassifier
        from serving.answer.llm_answer import LLMAnswerer
        from serving.answer.translate import LLMTranslator

        return cls(client, LLMAnswerer(client), LLMTimeClassifier(client), LLMProfileInitializer(client, config),
                   LLMTranslator(client))


class ExtractiveAnswerer:
    """The offline answer: the evidence's best-fitting sentences, verbatim, with citations."""

    def __init__(self, config: InstitutionConfig, tokenizer) -> None:
        self.config, self.tokenizer = config, tokenizer

    def answer(self, message: str, evidence, known: Mapping[str, Any], search_text: str | None = None):
        from serving.answer.extractive import extractive_answer

        return extractive_answer(message, evidence, known, self.config, self.tokenizer.content_morphemes,
                                 self.tokenizer.split_sentences, search_text=search_text)


class Advisor:
    def __init__(self, build: IndexBuild, config: InstitutionConfig, *, tokenizer, embedder=None, retriever=None,
                 router: IntentRouter | None = None, stated: StatedValues | None = None, faq_store=None,
                 thresholds: Mapping | None = None, llm: LLMTasks = LLMTasks(), extractive=None,
                 settings: DialogueSettings = DialogueSettings()):
        """`build`'s chunks answered for `config`'s students. Collaborators left out are the plain
        ones: the build's embedder, a Retriever over the build (with `tokenizer`), the rules for
        stated values, no intent model (every message a question), no FAQ store, no LLM."""
        self.build, self.config, self.settings = build, config, settings
        self.schema = build.schema
        self.language = config.language
        self.params = params_from(build.manifest.get("lineage", {}).get("retrieval"))
        self.tokenizer = tokenizer  # one Kiwi per process; it serializes its own calls (thread-safe)
        self.embedder = embedder if embedder is not None else build.embedder  # the FAQ tier's query vectors
        self.retriever = retriever if retriever is not None else Retriever(build, tokenizer.query_morphemes,
                                                                             self.params)
        self.llm = llm
        self.router = router or IntentRouter()
        self.faq_store = faq_store
        self.stated = stated or StatedValues(config)
        self.extractive = extractive or ExtractiveAnswerer(config, tokenizer)
        self.doc_limits = profiling.document_constraints(
            zip(c.chunks["doc_url"].to_list(), c.applies_to) for c in build.collections.values())
        self.values_with_documents = profiling.values_with_documents(
            (applies_to for c in build.collections.values() for applies_to in c.applies_to), self.schema)
        # Each part holds its collaborators, never the Advisor: a swapped-out engine is freed by
        # reference counting alone (tests/test_swap_memory.py). Their caches are per Advisor, so a
        # build swap (a new embedder) never reuses an old message's reading or vector.
        self.reader = MessageReader(build, config, tokenizer, self.stated, self.embedder,
                                    (thresholds or {}).get("semantic_answerability"))
        self.documents = DocumentsTier(self.retriever, self.params, settings, self.reader, self.extractive, llm,
                                       config)
        self.faq = FAQTier(faq_store, dict(thresholds or {}), self.embedder, self.reader, settings,
                           self.documents.first_passage, config,
                           # the documents list every variant in the offline answer only
                           self.documents.variant_sections if llm.answerer is None else None)
        self.fallback = FallbackTier(self.documents, self.reader, self.doc_limits, llm, config, settings)
        # The source snapshots are read on first use: only opened citations need them, not answering.
        self._sources_lock = threading.Lock()
        self._sources: SourceSnapshots | None = None
        self._sources_loaded = False
        self._dates: dict[str, SourceDates] | None = None  # chunk id -> its document's dates, on first citation
        self._origins: tuple[str, ...] | None = None

    # ------------------------------------------------------------------ public API
    @property
    def build_id(self) -> str:
        return self.build.build_id

    @property
    def llm_client(self):
        return self.llm.client

    @property
    def thresholds(self) -> dict:
        """The build's calibrated thresholds (load_thresholds): the FAQ tier answers at `faq_threshold`."""
        return self.faq.thresholds

    @thresholds.setter
    def thresholds(self, thresholds: Mapping) -> None:
        self.faq.thresholds = thresholds

    def index_info(self) -> dict:
        manifest = self.build.manifest
        return {
            "build_id": self.build_id, "built_at": manifest.get("built_at"), "counts": dict(manifest.get("counts", {})),
            "embedder": manifest.get("embedder", {}).get("name"), "annotator": manifest.get("lineage", {}).get("annotator"),
            "faq_entries": len(self.faq_store) if self.faq_store is not None else 0,
            "faq_threshold": self.thresholds.get("faq_threshold"),
        }

    def as_of(self) -> date:
        """The day the build was made, in the institution's timezone (the config's today for a
        build that does not say): the evaluation's "today", so that its results (notices' recency
        and expiry) are the build's and do not drift with the calendar it is run on."""
        built_at = self.build.manifest.get("built_at")
        if not built_at:
            return self.config.today()
        stamp = datetime.fromisoformat(built_at)
        stamp = stamp if stamp.tzinfo else stamp.replace(tzinfo=timezone.utc)
        return stamp.astimezone(ZoneInfo(self.config.timezone)).date()

    def sources(self) -> SourceSnapshots | None:
        """The build's saved copies of its source documents (by chunk id); None for a build written
        before snapshots existed."""
        with self._sources_lock:
            if not self._sources_loaded:
                try:
                    self._sources = load_sources(self.build.directory)
                except Exception as exc:  # noqa: BLE001 - an unreadable file must not fail answers
                    logging.getLogger(__name__).error("source snapshots unreadable: %s", type(exc).__name__)
                    self._sources = None
                self._sources_loaded = True
            return self._sources

    def source_dates(self) -> dict[str, SourceDates]:
        """chunk id -> the dates of the document it was cut from (posted and updated as the page
        states them, fetched); {} for a build without source snapshots."""
        with self._sources_lock:
            if self._dates is None:
                try:
                    self._dates = load_source_dates(self.build.directory)
                except Exception as exc:  # noqa: BLE001 - an unreadable file must not fail answers
                    logging.getLogger(__name__).error("source dates unreadable: %s", type(exc).__name__)
                    self._dates = {}
            return self._dates

    def _dated(self, reply: Reply) -> Reply:
        """Every citation with its source's dates: one place, whichever tier cited it."""
        if reply.citations:
            dates = self.source_dates()
            reply.citations = [replace(c, **dates.get(c.chunk_id, UNKNOWN_DATES).as_api()) for c in reply.citations]
        return reply

    def source_origins(self) -> tuple[str, ...]:
        """The sites (scheme://host[:port]) the build's documents come from: the page may check
        that an original still answers before opening it."""
        if self._origins is None:
            urls = {url for c in self.build.collections.values() for url in c.chunks["doc_url"].unique().to_list()}
            self._origins = tuple(sorted({f"{part.scheme}://{part.netloc}" for part in map(urlsplit, urls)
                                          if part.scheme in ("http", "https") and part.netloc}))
        return self._origins

    def new_session(self, profile: Mapping[str, Any] | None = None) -> Session:
        session = Session()
        if profile:
            profiling.apply_answers(session, profile, self.schema)
        return session

    def respond(self, session: Session, message: str | None = None, profile: Mapping[str, Any] | None = None,
                today: date | None = None) -> Reply:
        """Exactly one of `message` (a new question) or `profile` (answers to the asked questions;
        None = "don't know"). Raises DialogueInputError on bad input, leaving the session as it was."""
        if (message is None) == (profile is None):
            raise DialogueInputError("message", "send either a message or profile answers, not both or neither")
        started = time.perf_counter()
        today = today or self.config.today()
        asked = message if message is not None else (session.pending.message if session.pending else "")
        if profile is not None:
            reply = self._on_answers(session, profile, today)
        else:
            reply = self._on_message(session, checked_message(message), today)
        session.turns += 1
        reply = self._dated(reply)
        reply.language = reply_language(asked, self.language)
        reply.trace["seconds"] = time.perf_counter() - started
        return reply

    def route(self, message: str) -> tuple[str, dict]:
        """The message's route as the dialogue routes it (greeting, ability, smalltalk, leaving,
        information), and how it was decided (the trace's `sure`)."""
        return self.router.route(message)

    def retrieve(self, query: str, known: Mapping[str, Any] | None, *, soft, k: int | None = None,
                 hard: bool = True, time_sensitive: bool | None = None, today: date | None = None) -> RetrievalResult:
        """The dialogue's hybrid retrieval with the settings' mechanisms (DocumentsTier.retrieve)."""
        return self.documents.retrieve(query, known, soft=soft, k=k, hard=hard, time_sensitive=time_sensitive,
                                       today=today)

    def faq_search(self, query: str, known: Mapping[str, Any] | None, hard: bool = True) -> list:
        """The FAQ entries closest to `query` (best first, scored; no threshold), those that
        conflict with `known` left out when `hard`."""
        return self.faq.search(query, known, hard)

    def qualifies(self, message: str, evidence) -> bool:
        """The answerability check before tier 2 (MessageReader.qualifies)."""
        return self.reader.qualifies(message, evidence)

    def answerability(self, message: str, evidence) -> float:
        """The IDF-weighted share of the message's key words the evidence holds (0 without key words)."""
        return self.reader.answerability(message, evidence)

    def offline_answer(self, message: str, evidence, known: Mapping[str, Any], search_text: str | None = None):
        """The extractive answer from `evidence` (also the evaluation's baselines' answer);
        `search_text`: what the passages are matched against, when not the message itself."""
        return self.documents.offline_answer(message, evidence, known, search_text)

    # ------------------------------------------------------------------ turns
    def _on_answers(self, session: Session, answers: Mapping[str, Any], today: date) -> Reply:
        profiling.apply_answers(session, answers, self.schema)
        pending = session.pending
        if pending is None:
            return template_reply(templates.text("smalltalk", self.language), "smalltalk", session,
                                  {"template": "smalltalk"})
        turn = Turn(session, pending, today)
        missing = [name for name in pending.asked if not session.settled(name)]
        if missing:  # partial answers: ask the rest again (not counted twice)
            return self._ask(turn, missing, count=False)
        return self._answer(turn)

    def _on_message(self, session: Session, message: str, today: date, follow_up: bool = True) -> Reply:
        if (answers := self.reader.typed_answers(session, message)) is not None:
            # "컴퓨터학과요", "21학번", "잘 모르겠어요" typed instead of a button pressed
            reply = self._on_answers(session, answers, today)
            reply.trace["typed_answers"] = sorted(answers)
            return reply
        session.pending = None
        if follow_up and (values := self.reader.follow_up(session, message)) is not None:
            # "그럼 2023학번은요?" right after an answer: the last question again, for those values
            profiling.apply_answers(session, values, self.schema)
            question = typed.retarget(session.last_question, values, self.schema)
            reply = self._on_message(session, question, today, follow_up=False)
            reply.trace["follow_up"] = sorted(values)
            return reply
        spaced = self._spaced(message)
        route, routing = self.route(spaced or message)
        if route in TEMPLATE_ROUTES and routing.get("sure", True):
            return self._template(route, message, session, routing)
        if route not in TEMPLATE_ROUTES and names_no_topic(self._key_words(spaced or message)):
            # "신청 기간 알려줘", "how do I apply?": an aspect of no topic in particular; any passage with
            # the word would look like an answer, so ask what it is about instead
            text = templates.text("clarify", reply_language(message, self.language))
            return template_reply(text, "retrieval", session,
                                  {"routing": routing, "no_topic": True, "template": "clarify"}, method="clarify")
        pending = Pending(message=message, intent="retrieval", stage="query", asked=())
        pending.trace = {"routing": routing, "questions": [], "retrievals": []}
        turn = Turn(session, pending, today)
        if route in TEMPLATE_ROUTES:
            # the router leans to a template but is not sure: what the tiers' evidence answers without
            # asking anything is answered, the rest gets the template ("좋은 아침이에요 공강이라
            # 들렀어요" matches no entry and no passage; "넌 휴학 신청 방법 알아?" does)
            return self._answer_or_template(turn, spaced, route, routing)
        return self._on_question(turn, spaced)

    def _template(self, route: str, message: str, session: Session, routing: dict) -> Reply:
        """The route's canned reply (a goodbye for leaving, "I see" for other smalltalk)."""
        text = templates.text(route, reply_language(message, self.language), institution=self.config.institution)
        return template_reply(text, intent_of(route), session, {"routing": routing, "template": route})

    def _answer_or_template(self, turn: Turn, spaced: str | None, route: str, routing: dict) -> Reply:
        self._read_question(turn, spaced)
        turn.pending.stage = "evidence"  # the tiers may answer, not ask: a greeting is no question to profile
        turn.pending.trace["leaning"] = turn.pending.leaning = route
        if self._key_words(turn.pending.query):
            for tier in (self.faq, self.documents):
                outcome = tier.try_answer(turn)
                if isinstance(outcome, Reply):
                    return self._finish(turn, outcome)
        turn.session.pending = None
        return self._template(route, turn.pending.message, turn.session, routing)

    def _on_question(self, turn: Turn, spaced: str | None) -> Reply:
        """A question read, then answered from the FAQ at once when an entry applies to whoever asks;
        else what its answer depends on is asked (only that) before the tiers."""
        session, pending = turn.session, turn.pending
        initialized = self._read_question(turn, spaced)
        qualifying = self.faq.matches(pending, session)
        faq_first = self.faq.answers_first(qualifying, session, pending)
        if faq_first and initialized is not None:
            return self._finish(turn, self._faq_reply(qualifying, session, pending))
        if not self._key_words(pending.query):
            # nothing the question is about (a greeting, thanks, a frame alone): no profile question
            # can make it answerable; the tiers decide (the fallback, unless an FAQ entry matched)
            pending.trace["uninformative"] = True
            return self._answer(turn)
        if initialized is not None:
            pending.relevant |= set(initialized[0])
        elif (reply := self._profile_from_candidates(turn, qualifying, faq_first)) is not None:
            return reply
        needed = pending.unnamed(profiling.unsettled(pending.relevant, self.schema, session))
        if needed:
            return self._ask(turn, needed)
        return self._answer(turn)

    def _read_question(self, turn: Turn, spaced: str | None) -> tuple | None:
        """The question as it is searched: its spacing restored, in the build's words, without the
        profile values it states (taken into the session), and in the institution's language or
        terms when asked in another. Returns the LLM's profile initialization (needed attributes,
        stated values); None without an LLM."""
        pending = turn.pending
        if spaced:
            pending.search_text = pending.trace["spaced"] = spaced
        self.reader.in_build_words(pending)  # "데과 이중전공" is read and searched as "데이터과학과 이중전공"
        pending.named = self.stated.named(pending.query)
        initialized = self.llm.profile_init.initialize(pending.message) if self.llm.profile_init is not None else None
        stated = self.stated.read(pending.query) if initialized is None else initialized[1]
        self._take_stated(turn, self.reader.stated_values(stated))
        pending.trace["profiling"] = "rules" if initialized is None else "llm"
        translated = self.llm.translator.for_retrieval(pending.query, self.config) if self.llm.translator else None
        if translated:
            # the paper's flow for a question in another language: searched in the institution's
            # language, answered in the student's (the answerer gets the message as asked)
            pending.search_text = pending.trace["search_text"] = translated
            pending.faq_text = ""  # the entries are compared in the institution's language
            self.reader.in_build_words(pending)
        elif (glossed := self._glossed(turn)) is not None:
            pending.search_text = pending.trace["search_text"] = glossed
            pending.faq_text = ""
            self.reader.in_build_words(pending)
        return initialized

    def _take_stated(self, turn: Turn, taken: Mapping[str, Any]) -> None:
        """The values the question states about the student, taken into the session and the prefix;
        the question is then searched without them (the FAQ compares it with them)."""
        session, pending = turn.session, turn.pending
        for name, value in taken.items():
            session.known[name] = value
            session.declined.discard(name)
        pending.relevant |= set(taken)
        if taken:
            pending.faq_text = pending.query
            pending.search_text = self.stated.without(pending.query, taken)
            pending.trace["search_text"] = pending.search_text

    def _glossed(self, turn: Turn) -> str | None:
        """The question in the institution's terms (MessageReader.glossed), unless an FAQ entry
        answers it as written or what it retrieves as written covers it better."""
        session, pending = turn.session, turn.pending
        return self.reader.glossed(pending, lambda: bool(self.faq.matches(pending, session)),
                                   lambda query: self.documents.best_coverage(query, session.known, turn.today))

    def _profile_from_candidates(self, turn: Turn, qualifying: list, faq_first: bool) -> Reply | None:
        """What the question depends on, read from what it retrieves for anyone (the student's own
        filter would hide the near-duplicates that differ by department or cohort) and written into
        the pending question. A reply instead when nobody's documents answer it, or when an FAQ
        entry answers it after all."""
        session, pending = turn.session, turn.pending
        candidates = self.documents.retrieve_for(turn, hard=False)
        if not self.documents.answerable_for_anyone(pending, candidates.chunks):
            # what nobody's documents answer is not worth a profile question: straight to the
            # tiers (the FAQ, or the disclaimed fallback)
            pending.trace["unanswerable"] = True
            return self._answer(turn)
        self._mark_differing(turn, candidates.chunks, qualifying)
        if faq_first and not self.faq.too_general(qualifying[0], pending):
            return self._finish(turn, self._faq_reply(qualifying, session, pending))
        if self.settings.evidence_follow_up:
            # what the best passages for anyone depend on, where the session already knows it
            # (an earlier answer, or every value up front): written now, as the evidence
            # question would have made it, instead of being filtered by silently
            pending.relevant |= set(evidence_attributes(select_evidence(candidates.chunks), self.schema,
                                                        lambda name: name in session.known))
        return None

    def _mark_differing(self, turn: Turn, candidates, qualifying: list) -> None:
        """The attributes the candidates are limited on and those their answers differ by, in the
        pending question (what to ask, what to write into the prefix, when a general FAQ entry yields)."""
        session, pending = turn.session, turn.pending
        limited = profiling.relevant_attributes(candidates, self.doc_limits, self.schema, self.settings.need_share)
        # ... and only where the candidate answers differ by it: near-duplicates for different
        # students that state the same key facts do not make the answer depend on whom it is for
        sectioned, section_limits = profiling.sections_as_documents(candidates, self.doc_limits)
        found = variants.variants_by_attribute(sectioned, section_limits, self.schema,
                                               self.reader.facts_reader(pending.query))
        differing = [name for name in limited if variants.differ(found.get(name, []))]
        pending.trace["limited_attributes"], pending.trace["differing_attributes"] = limited, differing
        # asked: only what the answers differ by; written into the prefix: also what the candidates
        # are limited on and the session already knows (it costs the student nothing)
        pending.relevant |= set(differing) | {name for name in limited if name in session.known}
        pending.differing = frozenset(differing)
        if qualifying:
            pages = [c for c in candidates if c.kind != FAQ_KIND]
            by_page = variants.variants_by_attribute(pages, self.doc_limits, self.schema,
                                                     self.reader.facts_reader(pending.query))
            pending.pages_differing = frozenset(name for name in differing
                                                if variants.differ(by_page.get(name, [])))

    def _ask(self, turn: Turn, attributes: list[str], count: bool = True, reason: str = "query") -> Reply:
        session, pending = turn.session, turn.pending
        pending.asked = tuple(attributes)
        pending.relevant |= set(attributes)
        if count:
            pending.questions_so_far += len(attributes)
            # setdefault: a session restored from a shared store keeps no evaluation trace (session.py)
            pending.trace.setdefault("questions", []).extend({"attribute": a, "reason": reason} for a in attributes)
        session.pending = pending
        english = in_english(pending.message, self.language)
        questions = [profiling.question_for(a, self.schema, reason, self.values_with_documents.get(a), english)
                     for a in attributes]
        return Reply("ask", questions=questions, intent=pending.intent, trace=pending_trace(pending))

    def _answer(self, turn: Turn) -> Reply:
        """The tiers in order, once the question's needs are settled: the FAQ, the documents, the
        fallback. The first two may still ask ONE evidence question."""
        for tier in (self.faq, self.documents):
            outcome = tier.try_answer(turn)
            if isinstance(outcome, Ask):
                turn.pending.stage = "evidence"  # re-retrieval happens when the answers come back
                return self._ask(turn, outcome.attributes, reason="evidence")
            if outcome is not None:
                return self._finish(turn, outcome)
        return self._finish(turn, self.fallback.try_answer(turn))

    def _finish(self, turn: Turn, reply: Reply) -> Reply:
        session, pending = turn.session, turn.pending
        session.pending = None
        session.last_question = pending.query
        reply.intent = "faq" if reply.tier == "faq" else pending.intent
        reply.profile_used = dict(session.known)
        reply.trace.update(pending_trace(pending))
        return reply

    # ------------------------------------------------------------------ the parts, as the flow reads them
    def _key_words(self, text: str) -> tuple[str, ...]:
        """What `text` is about (MessageReader.key_words)."""
        return self.reader.key_words(text)

    def _spaced(self, message: str) -> str | None:
        """The message with its spacing restored, when written without (MessageReader.spaced)."""
        return self.reader.spaced(message)

    def _faq_reply(self, matches, session: Session, pending: Pending) -> Reply:
        """The best FAQ entry's answer verbatim, labelled when the student did not know (FAQTier.reply)."""
        return self.faq.reply(matches, session, pending)


class EmptyMessage(DialogueInputError):
    def __init__(self) -> None:
        super().__init__("message", "is empty")


class MessageTooLong(DialogueInputError):
    def __init__(self, max_chars: int) -> None:
        super().__init__("message", f"is longer than {max_chars} characters")
        self.max_chars = max_chars


def checked_message(message, max_chars: int = MAX_MESSAGE_CHARS) -> str:
    """The message as the engine reads it (trimmed), or EmptyMessage / MessageTooLong: the one check
    of a message, for the engine and for the API (with its own max_message_chars, at most this)."""
    if not isinstance(message, str):
        raise DialogueInputError("message", "must be a string")
    message = message.strip()
    if not message:
        raise EmptyMessage()
    if len(message) > max_chars:
        raise MessageTooLong(max_chars)
    return message


# ---------------------------------------------------------------------------- loading

def load_thresholds(build_dir: Path) -> dict:
    path = Path(build_dir) / SERVING_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def open_advisor(builds_root: Path, config: InstitutionConfig, llm_settings=None, *, tokenizer=None,
                 settings: DialogueSettings = DialogueSettings()) -> Advisor:
    """The published build (builds_root/LATEST) with everything serving needs from it."""
    directory = latest_build_dir(Path(builds_root))
    if directory is None:
        raise NoBuildError(f"no index build published under {builds_root}: run `advisor materialize` first")
    build = load_build(directory)
    if tokenizer is None:
        from advisor.chunking.token_cache import tokenizer_for

        tokenizer = tokenizer_for(config)
    client = None
    if llm_settings is not None:
        from advisor.llm.client import LLMClient

        client = LLMClient(llm_settings)
    faq_store = None
    if (directory / FAQ_DIR).is_dir():
        from advisor.faq.store import FAQStore

        faq_store = FAQStore.load(directory / FAQ_DIR, build.schema)
    return Advisor(build, config, tokenizer=tokenizer, llm=LLMTasks.from_client(client, config),
                   router=IntentRouter.from_build(directory, client, build.embedder), faq_store=faq_store,
                   thresholds=load_thresholds(directory), settings=settings)
