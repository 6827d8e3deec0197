"""The advising dialogue (docs/method.md §A online steps 2-9, §B tiers): one engine for the HTTP API,
`advisor ask` and the evaluation.

    advisor = open_advisor(builds_root, config)
    session = advisor.new_session()
    reply = advisor.respond(session, message="졸업하려면 전공 몇 학점 들어야 해요?")   # -> ask department, cohort
    reply = advisor.respond(session, profile={"department": "CS", "admission_year": 2021})  # -> ask major type
    reply = advisor.respond(session, profile={"major_type": "double"})               # -> answer with citations

A message goes: intent routing -> templates (greeting, ability, smalltalk) | answering. Answering:
stated values are taken from the message; the attributes the question needs are asked (only those,
with options); then URAG tier 1 (an FAQ entry's stored answer, verbatim, when its question is close
enough for the calibrated threshold and it applies to the student); else tier 2: profile-aware
retrieval (soft prefix + hard filter), evidence selection, ONE evidence-driven follow-up question
when a selected source depends on an attribute still unknown, re-retrieval, and an answer with
citations; else tier 3: the disclaimed fallback.

The engine is composed from its collaborators (tokenizer, embedder, retriever, router, FAQ store,
LLM tasks, extractive answerer), all constructor arguments: `open_advisor` builds the served ones,
and the evaluation passes caching ones (eval/memo.py) through the same constructor. The
ablations of the evaluation are settings (`DialogueSettings`), not different code.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
import weakref
from collections import Counter
from dataclasses import asdict, dataclass, replace
from datetime import date
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlsplit

from advisor.config import InstitutionConfig, english_name
from advisor.index import fields
from advisor.faq.store import FAQ_KIND
from advisor.index.layout import FAQ_DIR, SERVING_FILE
from advisor.index.sources import SourceSnapshots, load_sources
from advisor.index.store import IndexBuild, latest_build_dir, load_build
from advisor.retrieval import Retriever, params_from
from advisor.retrieval.results import RetrievalResult
from advisor.chunking.kiwi_tokens import ENGLISH_FUNCTION_WORDS
from advisor.retrieval.glossary import shipped_glossary
from advisor.retrieval.vocabulary import CorpusVocabulary
from serving.answer.language import language_of, material_note, own_language_first, reply_language
from serving.dialogue import profiling, templates, typed, variants
from serving.dialogue.answerability import MIN_COVERAGE, NOT_TOPICS, TermWeights, contains, coverage, names_no_topic
from serving.dialogue.evidence import evidence_attributes, follow_up_attributes, select_evidence
from serving.dialogue.profiling import DialogueInputError, StatedValues
from serving.dialogue.router import IntentRouter
from serving.dialogue.session import Pending, Session
from serving.dialogue.types import Citation, Reply

__all__ = ["Advisor", "DialogueInputError", "DialogueSettings", "ExtractiveAnswerer", "LLMTasks", "NoBuildError",
           "Session", "open_advisor"]

TEMPLATE_INTENTS = ("greeting", "ability", "smalltalk")
# The longest message a student may send, whoever calls (the HTTP API, `advisor ask`, the evaluation); the API's
# max_message_chars defaults to it, so its contract and the engine's own check are one number.
MAX_MESSAGE_CHARS = 1_000
MAX_FAQ_VARIANTS = 4  # labelled FAQ answers at most, for a student who does not know their value


class NoBuildError(RuntimeError):
    """No index build has been published yet (run `advisor materialize`)."""


@dataclass(frozen=True)
class DialogueSettings:
    k: int | None = None  # chunks per retrieval; None: the build's retrieval settings, static_k + dynamic_k
    # An attribute is needed up front when at least this rank-weighted share of the candidates
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


# What a glossed English question drops: function words and what it asks with (answerability.NOT_TOPICS)
_ENGLISH_FRAME = ENGLISH_FUNCTION_WORDS | NOT_TOPICS
# Entries in a question's language the dense model must have seen to tell them apart (see
# Advisor._scored_in_its_language): a few, not one or two.
MIN_ENTRIES_TO_COMPARE = 10


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
        # A message is read (Kiwi) and embedded once, however many tiers and turns look at it; per
        # Advisor, so a build swap (a new embedder) never reuses an old vector.
        self._message_terms = _memo(self._read_message, 1024)
        self._faq_vector = _memo(self._embed_message, 1024)
        # what a passage states for a question: read for every candidate when deciding what to ask,
        # again for the evidence question and the "no material for you" check (and, in the
        # evaluation, by every system variant that retrieves the same passages)
        self._key_facts = _memo(self._read_key_facts, 16384)
        # a turn searches the FAQ for its question more than once (before profiling, in the tiers)
        self._faq_found = _memo(self._search_faq, 1024)
        self.llm = llm
        self.router = router or IntentRouter()
        self.faq_store = faq_store
        self.thresholds = dict(thresholds or {})
        self.stated = stated or StatedValues(config)
        self.extractive = extractive or ExtractiveAnswerer(config, tokenizer)
        self.doc_limits = profiling.document_constraints(
            zip(c.chunks["doc_url"].to_list(), c.applies_to) for c in build.collections.values())
        # the names of the profile's values ("컴퓨터학과", "복수전공"): they say whom a passage is for,
        # not what it states (serving/dialogue/variants.py)
        self.audience_words = tuple({word for attribute in self.schema.values() if fields.is_categorical(attribute)
                                     for value, aliases in attribute.values.items()
                                     for word in (value, *aliases, attribute.label(value)) if len(word) >= 2})
        self.values_with_documents = profiling.values_with_documents(
            (applies_to for c in build.collections.values() for applies_to in c.applies_to), self.schema)
        # IDF of the build's own morphemes: what the answerability check weighs a question's words by
        self.term_weights = TermWeights(tokens for c in build.collections.values() if "tokens" in c.chunks.columns
                                        for tokens in c.chunks["tokens"].to_list())
        # English administration words in Korean terms, for English questions asked offline
        self.glossary = shipped_glossary()
        # the build's own words for a student's abbreviations and synonyms (read on first use)
        self.vocabulary = CorpusVocabulary(
            (text for c in build.collections.values() if "text" in c.chunks.columns for text in c.chunks["text"].to_list()),
            (tokens for c in build.collections.values() if "tokens" in c.chunks.columns
             for tokens in c.chunks["tokens"].to_list()))
        # The source snapshots are read on first use: only opened citations need them, not answering.
        self._sources_lock = threading.Lock()
        self._sources: SourceSnapshots | None = None
        self._sources_loaded = False
        self._origins: tuple[str, ...] | None = None

    # ------------------------------------------------------------------ public API
    @property
    def build_id(self) -> str:
        return self.build.build_id

    @property
    def llm_client(self):
        return self.llm.client

    def index_info(self) -> dict:
        manifest = self.build.manifest
        return {
            "build_id": self.build_id, "built_at": manifest.get("built_at"), "counts": dict(manifest.get("counts", {})),
            "embedder": manifest.get("embedder", {}).get("name"), "annotator": manifest.get("lineage", {}).get("annotator"),
            "faq_entries": len(self.faq_store) if self.faq_store is not None else 0,
            "faq_threshold": self.thresholds.get("faq_threshold"),
        }

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
        if profile is not None:
            reply = self._on_answers(session, profile, today)
        else:
            reply = self._on_message(session, _checked(message), today)
        session.turns += 1
        reply.trace["seconds"] = time.perf_counter() - started
        return reply

    # ------------------------------------------------------------------ turns
    def _on_answers(self, session: Session, answers: Mapping[str, Any], today: date) -> Reply:
        profiling.apply_answers(session, answers, self.schema)
        pending = session.pending
        if pending is None:
            return Reply("answer", answer=templates.text("smalltalk", self.language), intent="smalltalk",
                         tier="template", answer_method="template", profile_used=dict(session.known),
                         trace={"template": "smalltalk"})
        missing = [name for name in pending.asked if not session.settled(name)]
        if missing:  # partial answers: ask the rest again (not counted twice)
            return self._ask(session, pending, missing, count=False)
        return self._answer(session, pending, today)

    def _on_message(self, session: Session, message: str, today: date, follow_up: bool = True) -> Reply:
        if (answers := self._typed_answers(session, message)) is not None:
            # "컴퓨터학과요", "21학번", "잘 모르겠어요" typed instead of a button pressed
            reply = self._on_answers(session, answers, today)
            reply.trace["typed_answers"] = sorted(answers)
            return reply
        session.pending = None
        if follow_up and (values := self._follow_up(session, message)) is not None:
            # "그럼 2023학번은요?" right after an answer: the last question again, for those values
            profiling.apply_answers(session, values, self.schema)
            question = typed.retarget(session.last_question, values, self.schema)
            reply = self._on_message(session, question, today, follow_up=False)
            reply.trace["follow_up"] = sorted(values)
            return reply
        spaced = self._spaced(message)
        intent, routing = self.route(spaced or message)
        if intent in TEMPLATE_INTENTS:
            reply_key = "leaving" if routing.get("rule") == "leaving" else intent  # "I see" answers no goodbye
            return Reply("answer", answer=templates.text(reply_key, reply_language(message, self.language),
                                                         institution=self.config.institution),
                         intent=intent, tier="template", answer_method="template", profile_used=dict(session.known),
                         trace={"routing": routing, "template": reply_key})
        if names_no_topic(self._key_words(spaced or message)):
            # "신청 기간 알려줘", "how do I apply?": an aspect of no topic in particular; any passage with
            # the word would look like an answer, so ask what it is about instead
            return Reply("answer", answer=templates.text("clarify", reply_language(message, self.language)),
                         intent=intent, tier="template", answer_method="clarify", profile_used=dict(session.known),
                         trace={"routing": routing, "no_topic": True, "template": "clarify"})
        pending = Pending(message=message, intent=intent, stage="query", asked=())
        pending.trace = {"routing": routing, "questions": [], "retrievals": []}
        if spaced:
            pending.search_text = pending.trace["spaced"] = spaced
        self._in_build_words(pending)  # "데과 이중전공" is read and searched as "데이터과학과 이중전공"
        initialized = self.llm.profile_init.initialize(message) if self.llm.profile_init is not None else None
        stated = self.stated.read(pending.query) if initialized is None else initialized[1]
        taken = {}
        for name, value in stated.items():
            try:
                value = profiling.canonical_answer(name, value, self.schema)
            except DialogueInputError:
                continue  # an LLM's value outside the schema: dropped, never guessed
            if value is not None:
                session.known[name] = taken[name] = value
                session.declined.discard(name)
                pending.relevant |= {name}
        if taken:
            pending.faq_text = pending.query
            pending.search_text = self.stated.without(pending.query, taken)
            pending.trace["search_text"] = pending.search_text
        pending.trace["profiling"] = "rules" if initialized is None else "llm"
        translated = self.llm.translator.for_retrieval(pending.query, self.config) if self.llm.translator else None
        if translated:
            # the paper's flow for a question in another language: searched in the institution's
            # language, answered in the student's (the answerer gets the message as asked)
            pending.search_text = pending.trace["search_text"] = translated
            pending.faq_text = ""  # the entries are compared in the institution's language
            self._in_build_words(pending)
        elif (glossed := self._glossed(pending, session, today)) is not None:
            pending.search_text = pending.trace["search_text"] = glossed
            pending.faq_text = ""
            self._in_build_words(pending)
        qualifying = self._faq_matches(pending, session)
        # URAG's FAQ first: every close FAQ entry applies to whoever asks; nothing to ask (unless
        # the documents show that the answer differs by who asks: below). When the best entry was
        # asked in its own words, entries for some students that answer other questions ("경제학과
        # 세종캠퍼스도 졸업시험을 보나요?" beside "졸업시험에 떨어지면 어떻게 되나요?") do not count
        considered = qualifying[:1] if qualifying and self._asked_as_written(qualifying[0].entry, pending) else qualifying
        faq_first = qualifying and not any(self._faq_open(m.entry, session, pending, qualifying) for m in considered)
        if faq_first and initialized is not None:
            return self._finish(session, pending, self._faq_reply(qualifying, session, pending))
        if not self._key_words(pending.query):
            # nothing the question is about (a greeting, thanks, a frame alone): no profile question
            # can make it answerable; the tiers decide (the fallback, unless an FAQ entry matched)
            pending.trace["uninformative"] = True
            return self._answer(session, pending, today)
        if initialized is not None:
            pending.relevant |= set(initialized[0])
        else:
            # what the question depends on is read from what it retrieves for anyone: the student's
            # own filter would hide the near-duplicates that differ by department or cohort
            candidates = self._retrieve(pending, session, today, hard=False)
            if not self._answerable_for_anyone(pending.query, candidates.chunks):
                # what nobody's documents answer is not worth a profile question: straight to the
                # tiers (the FAQ, or the disclaimed fallback)
                pending.trace["unanswerable"] = True
                return self._answer(session, pending, today)
            limited = profiling.relevant_attributes(candidates.chunks, self.doc_limits, self.schema,
                                                    self.settings.need_share)
            # ... and only where the candidate answers differ by it: near-duplicates for different
            # students that state the same key facts do not make the answer depend on whom it is for
            found = variants.variants_by_attribute(candidates.chunks, self.doc_limits, self.schema,
                                                   self._facts_reader(pending.query))
            differing = [name for name in limited if variants.differ(found.get(name, []))]
            pending.trace["limited_attributes"], pending.trace["differing_attributes"] = limited, differing
            # asked: only what the answers differ by; written into the prefix: also what the candidates
            # are limited on and the session already knows (it costs the student nothing)
            pending.relevant |= set(differing) | {name for name in limited if name in session.known}
            pending.differing = frozenset(differing)
            if qualifying:
                pages = [c for c in candidates.chunks if c.kind != FAQ_KIND]
                by_page = variants.variants_by_attribute(pages, self.doc_limits, self.schema,
                                                         self._facts_reader(pending.query))
                pending.pages_differing = frozenset(name for name in differing
                                                    if variants.differ(by_page.get(name, [])))
            if faq_first and not self._too_general(qualifying[0].entry, pending):
                return self._finish(session, pending, self._faq_reply(qualifying, session, pending))
            if self.settings.evidence_follow_up:
                # what the best passages for anyone depend on, where the session already knows it
                # (an earlier answer, or every value up front): written now, as the evidence
                # question would have made it, instead of being filtered by silently
                pending.relevant |= set(evidence_attributes(select_evidence(candidates.chunks), self.schema,
                                                            lambda name: name in session.known))
        needed = profiling.unsettled(pending.relevant, self.schema, session)
        if needed:
            return self._ask(session, pending, needed)
        return self._answer(session, pending, today)

    def _ask(self, session: Session, pending: Pending, attributes: list[str], count: bool = True,
             reason: str = "query") -> Reply:
        pending.asked = tuple(attributes)
        pending.relevant |= set(attributes)
        if count:
            pending.questions_so_far += len(attributes)
            # setdefault: a session restored from a shared store keeps no evaluation trace (session.py)
            pending.trace.setdefault("questions", []).extend({"attribute": a, "reason": reason} for a in attributes)
        session.pending = pending
        english = self._in_english(pending.message)
        questions = [profiling.question_for(a, self.schema, reason, self.values_with_documents.get(a), english)
                     for a in attributes]
        return Reply("ask", questions=questions, intent=pending.intent, trace=_trace(pending))

    def _chunk_variants(self, chunks, name: str, facts_of) -> list:
        """The variants of `name` among retrieved chunks, each chunk its own group member (within a
        document, sections differ by major type or grade: the evidence's level)."""
        per_chunk = [replace(c, doc_url=c.chunk_id) for c in chunks if c.applies_to.get(name) is not None]
        limits = {c.doc_url: {name: frozenset({tuple(c.applies_to[name])})} for c in per_chunk}
        found = variants.variants_by_attribute(per_chunk, limits, {name: self.schema[name]}, facts_of)
        return found.get(name, [])

    def _answer(self, session: Session, pending: Pending, today: date) -> Reply:
        """The tiers, once the question's needs are settled. May still ask ONE evidence question."""
        can_follow_up = pending.stage == "query"
        qualifying = self._faq_matches(pending, session)
        if qualifying:
            faq = qualifying[0]
            unsettled = self._faq_open(faq.entry, session, pending, qualifying)
            if unsettled and can_follow_up and self.settings.evidence_follow_up:
                pending.stage = "evidence"
                return self._ask(session, pending, unsettled, reason="evidence")
            return self._finish(session, pending, self._faq_reply(qualifying, session, pending))

        result = self._retrieve(pending, session, today)
        evidence = self._evidence(pending, result.chunks)
        known_but_unwritten = evidence_attributes(evidence, self.schema, lambda name: name in session.known
                                                  and name not in pending.relevant)
        if known_but_unwritten and can_follow_up and self.settings.evidence_follow_up:
            # the evidence depends on something the session already knows: nothing to ask, but
            # retrieve again with it in the prefix, as after an evidence question
            pending.relevant |= set(known_but_unwritten)
            result = self._retrieve(pending, session, today)
            evidence = self._evidence(pending, result.chunks)
        if evidence and not self.qualifies(pending.query, evidence):
            # the best sections do not cover the question; a lower-ranked passage that does is
            # better evidence than none (a notice ranked 7th that names every key word)
            covering = [c for c in result.chunks if self.qualifies(pending.query, [c])]
            if covering:
                evidence = select_evidence(covering)
                pending.trace["evidence_reselected"] = True
        pending.trace["answerability"] = round(self.answerability(pending.query, evidence), 3) if evidence else 0.0
        if not evidence or not self.qualifies(pending.query, evidence):
            # nothing addresses the question for this student: when documents for other students
            # do, say for whom there is material; never a passage about something else
            uncovered = self._uncovered(pending, session, today)
            return self._finish(session, pending, self._fallback(pending, session, uncovered=uncovered))
        follow_up = follow_up_attributes(evidence, session, self.schema)
        # no question when the passages limited on it do not answer the question at all, or when
        # those for different students say the same for it; nor when the passage the answer leads
        # with is written for everyone and answers it ("재학증명서 어떻게 발급받아요?": 무인발급기나
        # 인터넷으로, whichever campus's machine the sections below locate)
        if follow_up and self._leads_for_everyone(pending, evidence):
            pending.trace["evidence_for_everyone"] = True
            follow_up = []
        follow_up = [name for name in follow_up
                     if variants.worth_asking(self._chunk_variants(result.chunks, name, self._facts_reader(pending.query)))]
        if follow_up and can_follow_up and self.settings.evidence_follow_up:
            pending.stage = "evidence"  # re-retrieval happens when the answers come back
            return self._ask(session, pending, follow_up, reason="evidence")
        return self._finish(session, pending, self._documents_reply(evidence, session, pending))

    def _finish(self, session: Session, pending: Pending, reply: Reply) -> Reply:
        session.pending = None
        session.last_question = pending.query
        reply.intent = pending.intent
        reply.profile_used = dict(session.known)
        reply.trace.update(_trace(pending))
        return reply

    # ------------------------------------------------------------------ typed profile values
    def _typed_answers(self, session: Session, message: str) -> dict | None:
        """The answers a message gives to the profile questions pending, when it gives some and says
        nothing else (serving/dialogue/typed.py); None otherwise: a new question."""
        pending = session.pending
        if pending is None or not pending.asked:
            return None
        return self._values_only(message, declinable=pending.asked)

    def _follow_up(self, session: Session, message: str) -> dict | None:
        """Profile values a message names and nothing else, right after an answer ("데이터과학과는?",
        "그럼 2023학번은요?"): None when there was no answer yet or the message says more."""
        return self._values_only(message) if session.last_question else None

    def _values_only(self, message: str, declinable=()) -> dict | None:
        """The profile values the message names, when what is left of it names no topic: words that
        name an attribute ("학번은", "cohort"), the profile questions' own words and frames are none."""
        found = typed.read(message, self.schema, self.stated.reader.extractors, declinable=declinable)
        allowed = typed.ATTRIBUTE_WORDS | self._question_words
        if found.values and all(word.lower() in allowed for word in self._key_words(found.rest)):
            return found.values
        return None

    @cached_property
    def _question_words(self) -> frozenset[str]:
        return frozenset(w.lower() for attribute in self.schema.values() for w in self._key_words(attribute.question))

    # ------------------------------------------------------------------ retrieval and tiers
    def retrieve(self, query: str, known: Mapping[str, Any] | None, *, soft, k: int | None = None,
                 hard: bool = True, time_sensitive: bool | None = None, today: date | None = None) -> RetrievalResult:
        """The dialogue's hybrid retrieval (k: the settings' depth unless given) with the settings'
        mechanisms: `soft` (the attributes the prefix may write, or True/False) and `hard` are
        turned off where an ablation says so."""
        return self.retriever.search(query, known, mode="hybrid", k=k or self.settings.k or self.params.k,
                                     soft=soft if self.settings.soft_prefix else False,
                                     hard=hard and self.settings.hard_filter, time_sensitive=time_sensitive,
                                     today=today)

    def faq_search(self, query: str, known: Mapping[str, Any] | None, hard: bool = True) -> list:
        """The FAQ entries closest to `query` (best first, scored; no threshold), those that
        conflict with `known` left out when `hard`."""
        if self.faq_store is None:
            return []
        return list(self._faq_found(query, tuple(sorted((known or {}).items())), hard))

    def _search_faq(self, query: str, known: tuple, hard: bool) -> tuple:
        return tuple(self.faq_store.search(self._faq_vector(query), dict(known), k=self.settings.faq_candidates,
                                           hard=hard, query_tokens=self._message_terms(query)[1]))

    def _retrieve(self, pending: Pending, session: Session, today: date, hard: bool = True) -> RetrievalResult:
        # one LLM decision per question, not per retrieval (a shared session store keeps it: session.TRACE_STATE)
        if "time_sensitive_llm" not in pending.trace:
            classifier = self.llm.time_classifier
            pending.trace["time_sensitive_llm"] = (classifier.classify([pending.message])[0]
                                                   if classifier is not None else None)
        time_sensitive = pending.trace["time_sensitive_llm"]  # None: the word rule decides
        result = self.retrieve(pending.query, session.known, soft=pending.relevant, hard=hard,
                               time_sensitive=time_sensitive, today=today)
        retrieved = {"profile": dict(result.profile), "chunk_ids": result.chunk_ids,
                     "doc_urls": [c.doc_url for c in result.chunks]}
        pending.trace.setdefault("retrievals", []).append(retrieved)
        pending.trace["last_retrieval"] = result
        return result

    def _evidence(self, pending: Pending, chunks) -> list:
        """The selected evidence, passages in the question's language first when it is not the
        institution's (an English page for an English question), unless those do not address it."""
        if pending.trace.get("glossary"):
            # searched in the institution's terms because the English pages do not answer it
            return select_evidence(chunks)
        preferred = own_language_first(chunks, pending.message, self.language)
        evidence = select_evidence(preferred)
        if preferred != list(chunks) and not self.qualifies(pending.query, evidence):
            evidence = select_evidence(chunks)
        return evidence

    def _leads_for_everyone(self, pending: Pending, evidence) -> bool:
        """Is the first evidence passage limited to no one, and does it address the question alone?"""
        lead = evidence[0]
        return all(value is None for value in lead.applies_to.values()) and self.qualifies(pending.query, [lead])

    def qualifies(self, message: str, evidence) -> bool:
        """The answerability check before tier 2 (serving/dialogue/answerability.py): the evidence
        must cover at least MIN_COVERAGE of the question's key words (nouns, names, numbers,
        roots) weighted by their IDF over this build's chunks, so a word the corpus never uses
        (the topic of an out-of-scope question) weighs most. A question with no key words at all
        is about nothing the documents could answer."""
        return self.answerability(message, evidence) >= MIN_COVERAGE

    def answerability(self, message: str, evidence) -> float:
        """The IDF-weighted share of the message's key words the evidence holds (0 without key words)."""
        words = self._key_words(message)
        if not words:
            return 0.0
        return coverage(words, [f"{chunk.title or ''}\n{chunk.text}" for chunk in evidence], self.term_weights, message)

    def _answerable_for_anyone(self, message: str, chunks) -> bool:
        """Would the answerability check pass on what the question retrieves for anyone (its best
        sections, or any one passage)?"""
        return (self.qualifies(message, select_evidence(chunks))
                or any(self.qualifies(message, [chunk]) for chunk in chunks))

    def route(self, message: str) -> tuple[str, dict]:
        """The message's intent as the dialogue routes it (the router, told what this build's
        documents are about), and how it was decided."""
        return self.router.route(message, self._names_a_topic)

    def _names_a_topic(self, text: str) -> bool:
        """Does the text name something this build's documents are about: a key word (not an
        interrogative) that some chunk uses, in the student's words or the build's ("유학생" where the
        documents say "외국인 학생")? ("휴학" yes; "챗봇", "로봇" in "넌 로봇이야" no.)"""
        if any(self.term_weights.seen(word) for word in self._key_words(text) if len(word) > 1):
            return True
        rewritten, rewrites = self.vocabulary.rewrite(text, self._message_terms(text)[1])
        return bool(rewrites) and any(self.term_weights.seen(word) for word in self._key_words(rewritten)
                                      if len(word) > 1)

    def _key_words(self, message: str) -> tuple[str, ...]:
        """What the question is about, as the answerability check weighs it: its key words without
        numbers (a year or an amount the student states is who they are or what they believe,
        "34학점인 걸로 아는데 맞죠?", not the topic), interrogatives ("얼마", "언제": what it asks with),
        the nouns of a request's frame ("관련하여 안내 부탁드립니다")
        and one-letter forms the build never uses (Kiwi's remnants of endings: "걸", "아")."""
        return tuple(word for word in self._message_terms(message)[1]
                     if not word.isdigit() and word.lower() not in NOT_TOPICS
                     and (len(word) > 1 or self.term_weights.seen(word)))

    def _audience_spans(self, text: str) -> list[tuple[int, int]]:
        """Where `text` says whom it is for in numbers ("2019학번", "3~4학년"): read by the rules
        annotator's range readers, built from the config."""
        return [(r.start, r.end) for extractor in self.stated.reader.extractors.values()
                if hasattr(extractor, "ranges_in") for r in extractor.ranges_in(text)]

    def _facts_reader(self, query: str):
        return lambda chunk: self._key_facts(query, chunk.text, chunk.title or "")

    def _read_key_facts(self, query: str, text: str, title: str):
        return variants.key_facts(text, self._key_words(query), self._audience_spans, self.term_weights, query,
                                  title, self.audience_words)

    def _uncovered(self, pending: Pending, session: Session, today: date) -> dict | None:
        """When the student's own evidence does not answer: the attributes the question depends on
        whose known value no answering document covers, read from a deeper retrieval for anyone:
        {name: (the student's value as text, the covered values as text)}; None when that is not
        why (nothing answers for anyone either, or the values are covered)."""
        names = [name for name in self.schema if name in pending.relevant and session.known.get(name) is not None]
        if not names:
            return None
        deep = self.retrieve(pending.query, session.known, soft=pending.relevant, hard=False,
                             k=max(self.settings.coverage_depth, self.settings.k or self.params.k), today=today,
                             time_sensitive=pending.trace.get("time_sensitive_llm"))
        found = variants.variants_by_attribute(deep.chunks, self.doc_limits, self.schema,
                                               self._facts_reader(pending.query))
        missing = {}
        for name in names:
            answering = [v for v in found.get(name, []) if v.addressed]
            value = session.known[name]
            if answering and not variants.is_covered(value, answering, self.schema[name]):
                missing[name] = (self._value_text(name, value), self._covered_text(name, answering))
        return missing or None

    def _value_text(self, name: str, value) -> str:
        attribute = self.schema[name]
        return attribute.label(value) if fields.is_categorical(attribute) else attribute.value_text(value)

    def _covered_text(self, name: str, found) -> str:
        attribute = self.schema[name]
        values = variants.covered_values(found, attribute)
        if fields.is_categorical(attribute):
            return ", ".join(attribute.label(v) for v in values)
        runs, start = [], None
        for i, number in enumerate(values):  # consecutive numbers as one range: "2019–2026학번"
            start = number if start is None else start
            if i + 1 == len(values) or values[i + 1] != number + 1:
                runs.append(variants.range_text(start, number, attribute, self.language)
                            if start != number else attribute.value_text(number))
                start = None
        return ", ".join(runs)

    def _read_message(self, message: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(content morphemes, key words) of a message."""
        return (tuple(self.tokenizer.content_morphemes([message])[0]), tuple(self.tokenizer.key_words([message])[0]))

    def _embed_message(self, message: str):
        return self.embedder.embed([message], [list(self._message_terms(message)[0])])[0]

    def _spaced(self, message: str) -> str | None:
        """The message with its spacing restored when it is written without spaces (a run of
        UNSPACED_SYLLABLES Hangul syllables or more): the classifier's and the FAQ's character
        n-grams are taken within words, and a sentence with no spaces is one word. None otherwise."""
        if not _UNSPACED.search(message):
            return None
        spaced = self.tokenizer.spaced(message)
        return spaced if spaced != message else None

    def _glossed(self, pending: Pending, session: Session, today: date) -> str | None:
        """Offline, an English question (or the English words of a Korean one) to an institution
        that writes in Korean, with the phrases the glossary knows in the institution's terms
        (advisor/retrieval/glossary.py). None when the institution's language is not Korean, the
        glossary knows none of its words, or, for an English question, the build answers it as
        written: an English FAQ entry or English pages come first for an English question
        (own_language_first), the Korean terms only when they cover it better."""
        student = language_of(pending.message, self.language)
        if self.language != "ko" or student not in ("ko", "en"):
            return None
        if student == "ko":
            # English words in a Korean question ("field practice 지원금 얼마야?"): a phrase becomes the
            # Korean term where the documents write the term more often than the phrase ("GPA" stays
            # where they write GPA), as the thesaurus's synonyms do
            text, found = self.glossary.translate(pending.query, keep=lambda g: self.vocabulary.count(
                g.korean) > self.vocabulary.count(g.english), choose=self._most_used)
            if found:
                pending.trace["glossary"] = [asdict(g) for g in found]
                return text
            return None
        text, found = self.glossary.translate(pending.query, choose=self._most_used)
        if not found or self._faq_matches(pending, session):  # an entry answers it as written
            return None
        # what is left of the English frame ("how do I … for a …") would match every English page
        text = _ENGLISH_WORD.sub(lambda m: "" if m.group().lower() in _ENGLISH_FRAME else m.group(), text)
        text = " ".join(text.split())
        # the question as written keeps its English pages when they cover it better than the
        # Korean terms find passages that do ("I lost my student ID card" matches an English page on
        # "student" only); on a tie the institution's own material answers: an English page is
        # its summary for some students ("Major credits differ by department"), the Korean pages
        # state the student's own figures
        as_written, glossed = (self._best_coverage(q, session, today) for q in (pending.query, text))
        pending.trace["glossary_coverage"] = [round(as_written, 3), round(glossed, 3)]
        if glossed < as_written:
            return None
        pending.trace["glossary"] = [asdict(g) for g in found]
        return text

    def _most_used(self, terms) -> str:
        """Of a glossary phrase's Korean terms, the one this build's documents use most (the first on a tie)."""
        return max(terms, key=self.vocabulary.count)

    def _best_coverage(self, query: str, session: Session, today: date) -> float:
        """How well what `query` retrieves for anyone covers it: its best sections, or its best passage."""
        chunks = self.retrieve(query, session.known, soft=False, hard=False, today=today).chunks
        if not chunks:
            return 0.0
        return max(self.answerability(query, select_evidence(chunks)),
                   max(self.answerability(query, [chunk]) for chunk in chunks))

    def _in_build_words(self, pending: Pending) -> None:
        """The pending query in the build's own words (advisor/retrieval/vocabulary.py): a student's
        abbreviation or synonym the documents never use replaced by the word they do use."""
        rewritten, rewrites = self.vocabulary.rewrite(pending.query, self._message_terms(pending.query)[1])
        if rewrites:
            pending.search_text = pending.trace["search_text"] = rewritten
            pending.trace.setdefault("rewrites", []).extend(asdict(r) for r in rewrites)

    def _faq_open(self, entry, session: Session, pending: Pending, qualifying=()) -> list[str]:
        """What to ask before answering with `entry` verbatim: the unsettled attributes it is limited
        on where its answer is one group's: its own question names the group ("복학생이 받을 수 있는
        장학금이 있나요?", "2019학번부터 2022학번까지의 학생 이중전공 이수 학점은?"), or another
        qualifying entry for other students answers otherwise (the 컴퓨터학과 and 데이터과학과 "학과
        사무실 위치는?"). Never what the student's question names itself ("융합전공 어떻게 신청해요"
        asks about the 융합전공 entry whoever asks, without saying the student is in one). A limit
        read from an answer that states the rule the student asks to learn ("2~3학년 재학생이 신청할
        수 있습니다") or an example ("2015–2018학년도 입학생이 '이산구조'를 이수했으면") is no reason
        to ask: the entry answers anyone, however the documents for different cohorts differ."""
        return [name for name in self._unsettled(entry.applies_to, session)
                if not self._names_group(pending.query, name, entry.applies_to[name])
                and (self._names_group(entry.question, name, entry.applies_to[name])
                     or _siblings_differ(entry, name, qualifying))]

    def _names_group(self, text: str, name: str, values) -> bool:
        """Does `text` name a group of `name` in `values`: one of the categorical values, or a year or
        grade range that overlaps the (low, high) limit (read by the rules annotator's readers, as
        for documents: "1학년 때", "2019학번부터 2022학번까지")?"""
        if fields.is_categorical(self.schema[name]):
            return self._names_value(text, name, values)
        extractor = self.stated.reader.extractors.get(name)
        low, high = values
        return hasattr(extractor, "ranges_in") and any(r.low <= high and low <= r.high
                                                       for r in extractor.ranges_in(text))

    def _names_value(self, text: str, name: str, values) -> bool:
        """Does `text` name one of `values` of a categorical attribute (by any of its aliases)?"""
        attribute = self.schema[name]
        if not fields.is_categorical(attribute):
            return False
        text = text.lower()
        return any(alias.lower() in text for value in values
                   for alias in (value, *attribute.values.get(value, ()), attribute.label(value)) if len(alias) >= 2)

    def _unsettled(self, applies_to: Mapping, session: Session) -> list[str]:
        return [n for n in self.schema if applies_to.get(n) is not None and not session.settled(n)]

    def _faq_matches(self, pending: Pending, session: Session) -> list:
        """FAQ entries close enough to answer verbatim (URAG tier 1): cosine at or above the
        build's calibrated threshold, key words shared, not conflicting with the profile, and not
        a general entry for a question whose documents answer differently for different students."""
        threshold = self.thresholds.get("faq_threshold")
        if self.faq_store is None or threshold is None:
            return []
        matches = self.faq_search(pending.faq_query, session.known, hard=self.settings.hard_filter)
        pending.trace["faq_best"] = None if not matches else {
            "score": round(float(matches[0].score), 4), "source_url": matches[0].entry.source_url}
        return [m for m in matches if m.score >= threshold and not self._too_general(m.entry, pending)
                and self._scored_in_its_language(pending, m.entry)]

    def _scored_in_its_language(self, pending: Pending, entry) -> bool:
        """Can the score of `entry` be trusted for this question? Not when both are written in a
        language the FAQ has only a few entries in: the dense model, trained on mostly the
        institution's text, reads such a language as one direction, and every English question
        was "close" to the business college's one English entry (0.66 for "how do I change my
        major?" against "Can I take classes in English only?"). Such an entry must then pass the
        answerability check a passage must: the question's key words in its question or answer.
        In the institution's language the threshold was calibrated; a question in another
        language matched to an entry in the institution's language shares real words with it."""
        language = language_of(pending.message, self.language)
        if (language == self.language or self._faq_languages[entry.source_url] != language
                or self._faq_language_counts[language] >= MIN_ENTRIES_TO_COMPARE):
            return True
        words = self._key_words(pending.message)  # as asked: in the entry's language, not glossed
        return not words or coverage(words, [f"{entry.question}\n{entry.answer}"], self.term_weights,
                                     pending.message) >= MIN_COVERAGE

    @cached_property
    def _faq_languages(self) -> dict[str, str]:
        """The language each FAQ entry is written in (by its question), by its URL."""
        return {e.source_url: language_of(e.question, self.language) for e in self.faq_store.entries}

    @cached_property
    def _faq_language_counts(self) -> Counter:
        """How many FAQ entries are written in each language."""
        return Counter(self._faq_languages.values())

    def _too_general(self, entry, pending: Pending) -> bool:
        """An entry written for everyone on every attribute the candidate PAGES differ by ("졸업
        학점은 학과마다 다릅니다" for a question whose departments' pages state 130 and 136): the
        page written for this student answers better; the proFILL tier is asked instead. That holds
        for an entry that answers for everyone too, unless it was asked in its own words: one
        whose question lacks some of the student's key words may answer another question in the
        same words (the business college's retake rule, "졸업시험에 떨어지면 어떻게 되나요?", for
        "졸업시험 합격 기준은?"; exempting every entry that does not defer cost that college's
        Table 1 0.04 MRR). Other FAQ entries that differ do not count: they answer other questions
        ("컴퓨터학과 이중전공 졸업요건" beside "융합전공은 따로 졸업요건이 없나요?"), and an FAQ
        made only of entries would never answer from a general one."""
        differing = pending.pages_differing
        if not differing or any(entry.applies_to.get(name) is not None for name in differing):
            return False
        return variants.defers(entry.answer) or not self._asked_as_written(entry, pending)

    def _asked_as_written(self, entry, pending: Pending) -> bool:
        """Does the entry's question hold every key word of the student's?"""
        return all(contains(entry.question, word, pending.query) for word in self._key_words(pending.query))

    def _faq_reply(self, matches, session: Session, pending: Pending) -> Reply:
        """The best entry's answer verbatim. When the student said "don't know" to what it is limited
        on, its answer labelled by whom it applies to, with the close entries for the other values
        each labelled the same way ("2019–2022학번: 60학점 / 2023학번 이후: 66학점"), citing every one:
        never an answer written for some students given as if it were this student's."""
        best = matches[0]
        declined = self._declined([best.entry.applies_to], session)
        shown = self._faq_variants(matches, declined) if declined else [best]
        citations = [Citation(url=m.entry.source_url, title=m.entry.title or m.entry.question, snippet=m.entry.question,
                              chunk_id=m.entry.chunk_ids[0] if m.entry.chunk_ids else "") for m in shown]
        text = best.entry.answer
        if declined:
            text = "\n".join(f"{variants.audience_label(m.entry.applies_to, declined, self.schema, self.language)}: "
                              f"{m.entry.answer}" for m in shown)
        # an English question answered from a Korean entry (or the reverse) says so, as tier 2 does
        quoted = material_note(language_of(pending.message, self.language), language_of(best.entry.answer, self.language))
        notes = [note for note in (quoted, self._declined_note(declined, pending.message)) if note]
        return Reply("answer", answer=text, tier="faq", answer_method="faq_verbatim", citations=citations,
                     disclaimer=" ".join(notes) or None,
                     trace={"faq_entry": best.entry.entry_id, "faq_score": float(best.score),
                            "faq_variants": [m.entry.entry_id for m in shown]})

    def _faq_variants(self, matches, declined: list[str]) -> list:
        """Of the qualifying entries, one per audience on the `declined` attributes, when they are
        limited on them and say different things: the best entry's siblings for other students."""
        shown, labels, answers = [], set(), set()
        for match in matches[:MAX_FAQ_VARIANTS * 2]:
            label = variants.audience_label(match.entry.applies_to, declined, self.schema, self.language)
            if label is None or label in labels or match.entry.answer in answers:
                continue
            shown.append(match)
            labels.add(label)
            answers.add(match.entry.answer)
        return shown[:MAX_FAQ_VARIANTS] if len(shown) > 1 else matches[:1]

    def _documents_reply(self, evidence, session: Session, pending: Pending) -> Reply:
        composed, note = None, None
        if self.llm.answerer is not None:
            outcome = self.llm.answerer.answer(pending.message, evidence, session.known, self.config)
            if hasattr(outcome, "text"):
                composed = outcome
            else:  # an LLM failure: the extractive answer, labelled as such
                note = f"llm_failed:{getattr(outcome, 'reason', 'error')}"
        if composed is None:
            # a glossed question is matched to the Korean passages in its Korean terms, and answered
            # in the student's language (the note says the answer is quoted from Korean material)
            glossed = pending.query if pending.trace.get("glossary") else None
            composed = self.offline_answer(pending.message, evidence, session.known, glossed)
        cited = composed.cited or [0]
        citations = [Citation(url=evidence[i].doc_url, title=evidence[i].title,
                              snippet=composed.snippets.get(i) or _first_line(evidence[i].text),
                              chunk_id=evidence[i].chunk_id) for i in cited]
        cited_applies_to = [evidence[i].applies_to for i in cited]
        declined = self._declined(cited_applies_to, session)
        text = composed.text
        if declined:
            # the student does not know the value the sources differ by: each part says whom it is for
            text = label_variants(text, cited_applies_to, declined, self.schema, self.language)
        notes = [templates.text("documents_note", reply_language(pending.message, self.language))]
        if composed.language_note:  # an answer quoted or translated from material in another language
            notes.append(composed.language_note)
        if declined:
            notes.append(self._declined_note(declined, pending.message))
        return Reply("answer", answer=text, tier="documents", answer_method=composed.method,
                     citations=citations, disclaimer=" ".join(notes),
                     trace={"evidence": [c.chunk_id for c in evidence], "answer_note": note or composed.note})

    def offline_answer(self, message: str, evidence, known: Mapping[str, Any], search_text: str | None = None):
        """The extractive answer from `evidence` (also the evaluation's baselines' answer);
        `search_text`: what the passages are matched against, when not the message itself."""
        return self.extractive.answer(message, evidence, known, search_text)

    def _fallback(self, pending: Pending, session: Session, uncovered: Mapping | None = None) -> Reply:
        from serving.answer.fallback import fallback_answer

        audience = " ".join(value for value, _ in uncovered.values()) if uncovered else None
        covered = "; ".join(text for _, text in uncovered.values()) if uncovered else None
        text, method, disclaimer = fallback_answer(pending.message, self.config, self.llm_client,
                                                   contact=self.config.contact,
                                                   audience=audience, covered=covered)
        trace = {"fallback_reason": "uncovered_profile" if uncovered else "unanswerable"}
        return Reply("answer", answer=text, tier="fallback", answer_method=method, disclaimer=disclaimer, trace=trace)

    def _declined(self, annotations, session: Session) -> list[str]:
        """The attributes the student answered "don't know" that these sources are limited on."""
        return [name for name in self.schema if name in session.declined
                and any(a.get(name) is not None for a in annotations)]

    def _declined_note(self, declined: list[str], message: str) -> str | None:
        if not declined:
            return None
        if self._in_english(message):  # the attributes by name, not by the institution's questions
            return templates.text("declined_note", "en", attributes=", ".join(english_name(n) for n in declined))
        return templates.text("declined_note", reply_language(message, self.language),
                              attributes=", ".join(_short(self.schema[n].question) for n in declined))

    def _in_english(self, message: str) -> bool:
        """Did a student write English to an institution that does not? (Then its questions and
        notes are worded in English rather than in its own words.)"""
        return self.language != "en" and reply_language(message, self.language) == "en"


def _siblings_differ(entry, name: str, qualifying) -> bool:
    """Another qualifying FAQ entry is limited on `name` to other values and answers otherwise."""
    mine = entry.applies_to.get(name)
    return any(m.entry.applies_to.get(name) is not None and m.entry.applies_to.get(name) != mine
               and m.entry.answer != entry.answer for m in qualifying)


def _checked(message) -> str:
    if not isinstance(message, str):
        raise DialogueInputError("message", "must be a string")
    message = message.strip()
    if not message:
        raise DialogueInputError("message", "is empty")
    if len(message) > MAX_MESSAGE_CHARS:
        raise DialogueInputError("message", f"is longer than {MAX_MESSAGE_CHARS} characters")
    return message


def _trace(pending: Pending) -> dict:
    trace = dict(pending.trace)
    trace["questions_asked"] = pending.questions_so_far
    trace["prefix_attributes"] = pending.relevant
    return trace


def label_variants(text: str, cited_applies_to: list, names: list[str], schema, language: str) -> str:
    """Each part of an answer prefixed with whom its source applies to ("2019–2022학번: … [1]"): a part
    is the text up to its citation marker(s), and [n] is the n-th cited source. A source limited on
    none of `names` is labelled as applying to everyone, when another part is labelled."""
    matches = list(re.finditer(r"\s*(.*?(?:\[\d+\])+)", text, flags=re.DOTALL))
    if not matches:
        return text
    parts, tail = [m.group(1) for m in matches], text[matches[-1].end():]
    labels = []
    for part in parts:
        number = int(re.search(r"\[(\d+)\]", part).group(1))
        applies_to = cited_applies_to[number - 1] if 0 < number <= len(cited_applies_to) else {}
        labels.append(variants.audience_label(applies_to, names, schema, language))
    if not any(labels):
        return text
    everyone = templates.text("everyone_label", language)
    lines = [f"{label or everyone}: {part.strip()}" for label, part in zip(labels, parts)]
    return "\n".join(lines) + tail


def _first_line(text: str) -> str:
    return next((line.strip("#- ").strip() for line in text.splitlines() if line.strip()), "")[:200]


def _short(question: str) -> str:
    return question.split("(")[0].strip().rstrip("?").strip()


# ---------------------------------------------------------------------------- loading

def load_thresholds(build_dir: Path) -> dict:
    path = Path(build_dir) / SERVING_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


UNSPACED_SYLLABLES = 9
_UNSPACED = re.compile(rf"[\uac00-\ud7a3]{{{UNSPACED_SYLLABLES},}}")
_ENGLISH_WORD = re.compile(r"[A-Za-z][A-Za-z']*")


def _memo(method, maxsize: int):
    """An LRU cache of a bound method that does not hold its object: `lru_cache(self.method)`
    stored on self is a reference cycle, so a swapped-out Advisor (its build's matrices, ~48 MB
    on the demo) stayed in memory until a full garbage collection."""
    method_ref = weakref.WeakMethod(method)

    @lru_cache(maxsize=maxsize)
    def cached(*args):
        return method_ref()(*args)

    return cached


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
                   router=IntentRouter.from_build(directory, client), faq_store=faq_store,
                   thresholds=load_thresholds(directory), settings=settings)
