"""URAG tier 2 (docs/method.md §B.2, §A online steps 5-9): profile-aware retrieval (soft prefix +
hard filter), evidence selection, ONE evidence-driven follow-up question when a selected source
depends on an attribute still unknown (re-retrieval follows the answers), and an answer with
citations."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date
from typing import Any, Mapping

from advisor.index import fields
from advisor.retrieval.results import RetrievalResult
from serving.answer.language import language_of, reply_language, sources_say
from serving.dialogue import assembly, templates, variants
from serving.dialogue.answerability import MIN_COVERAGE
from serving.dialogue.evidence import evidence_attributes, follow_up_attributes, select_evidence
from serving.dialogue.session import Pending, Session
from serving.dialogue.turn import Ask, Turn
from serving.dialogue.types import Reply
from serving.dialogue.understanding import MessageReader


class DocumentsTier:
    """Retrieval over the build's chunks and answers from the evidence it selects."""

    def __init__(self, retriever, params, settings, reader: MessageReader, extractive, llm, config) -> None:
        self.retriever, self.params, self.settings, self.reader = retriever, params, settings, reader
        self.extractive, self.llm, self.config = extractive, llm, config
        self.schema, self.language = reader.schema, reader.language

    def try_answer(self, turn: Turn) -> Reply | Ask | None:
        """The answer from the evidence; first, once per message, what a selected source depends on
        (`Ask`); None when no evidence addresses the question for this student."""
        pending, session = turn.pending, turn.session
        result, evidence = self._retrieved_evidence(turn)
        evidence = self._reselected(pending, result, evidence)
        answerability = self.reader.answerability(pending.query, evidence) if evidence else 0.0
        pending.trace["answerability"] = round(answerability, 3)
        if not evidence or not self._qualifies(pending, evidence):
            return None
        if pending.leaning and answerability < MIN_COVERAGE:
            return None  # a message the router took for chat is answered only in its own words
        follow_up = pending.unnamed(self._evidence_question(pending, session, result, evidence))
        if follow_up and turn.may_follow_up and self.settings.evidence_follow_up:
            return Ask(follow_up)
        return self.reply(evidence, session, pending)

    # ------------------------------------------------------------------ retrieval
    @property
    def k(self) -> int:
        """Chunks per retrieval: the settings' depth, else the build's."""
        return self.settings.k or self.params.k

    def retrieve(self, query: str, known: Mapping[str, Any] | None, *, soft, k: int | None = None,
                 hard: bool = True, time_sensitive: bool | None = None, today: date | None = None) -> RetrievalResult:
        """The dialogue's hybrid retrieval (k: the settings' depth unless given) with the settings'
        mechanisms: `soft` (the attributes the prefix may write, or True/False) and `hard` are
        turned off where an ablation says so."""
        return self.retriever.search(query, known, mode=self.mode_for(query), k=k or self.k,
                                     soft=soft if self.settings.soft_prefix else False,
                                     hard=hard and self.settings.hard_filter, time_sensitive=time_sensitive,
                                     today=today)

    def mode_for(self, query: str) -> str:
        """Hybrid for a search text in the institution's language; the encoder alone for one in
        another (an English question with the glossary's Korean terms): BM25 reads only the words
        the documents are written in, and the English words it keeps find the English summary
        pages by their words (development sets, English messages, gold first: business 0.286 ->
        0.333 of 21, demo unchanged of 28; profile questions on profile-independent questions
        0.129 -> 0.065 of 31 on the demo)."""
        return "hybrid" if language_of(query, self.language) == self.language else "dense"

    def retrieve_for(self, turn: Turn, hard: bool = True) -> RetrievalResult:
        """The pending question retrieved for the student, its prefix the attributes it depends on;
        recorded in its trace."""
        pending = turn.pending
        # one LLM decision per question, not per retrieval (a shared session store keeps it: session.TRACE_STATE)
        if "time_sensitive_llm" not in pending.trace:
            classifier = self.llm.time_classifier
            pending.trace["time_sensitive_llm"] = (classifier.classify([pending.message])[0]
                                                   if classifier is not None else None)
        time_sensitive = pending.trace["time_sensitive_llm"]  # None: the word rule decides
        result = self.retrieve(pending.query, pending.scoped(turn.session.known), soft=pending.relevant, hard=hard,
                               time_sensitive=time_sensitive, today=turn.today)
        retrieved = {"profile": dict(result.profile), "chunk_ids": result.chunk_ids,
                     "doc_urls": [c.doc_url for c in result.chunks]}
        pending.trace.setdefault("retrievals", []).append(retrieved)
        if hard:  # what the student's answer is drawn from, not the candidates read for anyone
            pending.trace["last_retrieval"] = result
        return result

    def first_passage(self, query: str, known: Mapping[str, Any] | None) -> str | None:
        """The document URL the student's retrieval ranks first (profile written and filtered)."""
        chunks = self.retrieve(query, known, soft=True).chunks
        return chunks[0].doc_url if chunks else None

    def best_coverage(self, query: str, known: Mapping[str, Any], today: date) -> float:
        """How well what `query` retrieves for anyone covers it: its best sections, or its best passage."""
        chunks = self.retrieve(query, known, soft=False, hard=False, today=today).chunks
        if not chunks:
            return 0.0
        return max(self.reader.answerability(query, select_evidence(chunks)),
                   max(self.reader.answerability(query, [chunk]) for chunk in chunks))

    def answerable_for_anyone(self, pending: Pending, chunks) -> bool:
        """Would the answerability check pass on what the question retrieves for anyone (its best
        sections, or any one passage)?"""
        return (self._qualifies(pending, select_evidence(chunks))
                or any(self._qualifies(pending, [chunk]) for chunk in chunks))

    def _qualifies(self, pending: Pending, evidence) -> bool:
        """The answerability check (MessageReader.qualifies) of the pending question's search text."""
        return self.reader.qualifies(pending.query, evidence, pending.as_asked)

    # ------------------------------------------------------------------ evidence
    def _retrieved_evidence(self, turn: Turn) -> tuple[RetrievalResult, list]:
        """The retrieval for the student and its selected evidence; retrieved again when the evidence
        depends on something the session knows that the prefix did not write."""
        pending, session = turn.pending, turn.session
        result = self.retrieve_for(turn)
        evidence = self._evidence(pending, result.chunks)
        known_but_unwritten = evidence_attributes(evidence, self.schema, lambda name: name in session.known
                                                  and name not in pending.relevant)
        if known_but_unwritten and turn.may_follow_up and self.settings.evidence_follow_up:
            # nothing to ask, but retrieve again with it in the prefix, as after an evidence question
            pending.relevant |= set(known_but_unwritten)
            result = self.retrieve_for(turn)
            evidence = self._evidence(pending, result.chunks)
        return result, evidence

    def _evidence(self, pending: Pending, chunks) -> list:
        """The selected evidence, in retrieval's order whatever language the question is in."""
        return select_evidence(chunks)

    def _reselected(self, pending: Pending, result: RetrievalResult, evidence: list) -> list:
        """When the best sections do not cover the question, the passages that do: a lower-ranked
        passage that does is better evidence than none (a notice ranked 7th that names every key word)."""
        if evidence and not self._qualifies(pending, evidence):
            covering = [c for c in result.chunks if self._qualifies(pending, [c])]
            if covering:
                pending.trace["evidence_reselected"] = True
                return select_evidence(covering)
        return evidence

    def _evidence_question(self, pending: Pending, session: Session, result: RetrievalResult, evidence) -> list[str]:
        """The unsettled attributes the evidence depends on that are worth a question. None when the
        passages limited on it do not answer the question at all, or when those for different
        students say the same for it; nor when the passage the answer leads with is written for
        everyone and answers it ("재학증명서 어떻게 발급받아요?": 무인발급기나 인터넷으로, whichever
        campus's machine the sections below locate)."""
        follow_up = follow_up_attributes(evidence, session, self.schema)
        if follow_up and self._leads_for_everyone(pending, evidence):
            pending.trace["evidence_for_everyone"] = True
            follow_up = []
        return [name for name in follow_up if variants.worth_asking(
            self._chunk_variants(result.chunks, name, self.reader.facts_reader(pending.query)))]

    def _leads_for_everyone(self, pending: Pending, evidence) -> bool:
        """Is the first evidence passage limited to no one, and does it address the question alone?"""
        lead = evidence[0]
        return all(value is None for value in lead.applies_to.values()) and self._qualifies(pending, [lead])

    def _chunk_variants(self, chunks, name: str, facts_of) -> list:
        """The variants of `name` among retrieved chunks, each chunk its own group member (within a
        document, sections differ by major type or grade: the evidence's level)."""
        per_chunk = [replace(c, doc_url=c.chunk_id) for c in chunks if c.applies_to.get(name) is not None]
        limits = {c.doc_url: {name: frozenset({tuple(c.applies_to[name])})} for c in per_chunk}
        found = variants.variants_by_attribute(per_chunk, limits, {name: self.schema[name]}, facts_of)
        return found.get(name, [])

    # ------------------------------------------------------------------ the answer
    def reply(self, evidence, session: Session, pending: Pending) -> Reply:
        """The answer composed from the evidence (the LLM's, else the extractive one), citing what it
        used, each part labelled with whom its source is for when the student did not know it."""
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
        cited_applies_to = [evidence[i].applies_to for i in cited]
        declined = assembly.declined(cited_applies_to, session, self.schema)
        student = reply_language(pending.message, self.language)  # the product's words are in the student's
        if declined and self.llm.answerer is None and (every := self._every_variant(evidence, cited, session,
                                                                                    pending, declined)):
            # the student does not know a value the cited pages state variants for: every variant
            # they state, each under whom it is for (not the few that ranked into the evidence)
            labelled, evidence, composed = every
            cited = composed.cited
            cited_applies_to = [evidence[i].applies_to for i in cited]
        else:
            labelled = declined
        citations = [assembly.passage_citation(evidence[i], composed.snippets.get(i)) for i in cited]
        text = composed.text
        if declined:
            # the student does not know the value the sources differ by: each part says whom it is
            # for; "according to the sources:" heads them all, once
            lead = sources_say(student)
            parts = [part.removeprefix(lead + "\n") for part in text.split("\n" + lead + "\n")]
            text = assembly.label_variants("\n".join(parts).removeprefix(lead + "\n"), cited_applies_to, labelled,
                                           self.schema, student)
            if composed.text.startswith(lead + "\n") or len(parts) > 1:
                text = f"{lead}\n{text}"
        notes = [templates.text("documents_note", student)]
        if composed.language_note:  # an answer quoted or translated from material in another language
            notes.append(composed.language_note)
        if declined:
            notes.append(assembly.declined_note(declined, pending.message, self.schema, self.language))
        return Reply("answer", answer=text, tier="documents", answer_method=composed.method,
                     citations=citations, disclaimer=" ".join(notes),
                     trace={"evidence": [c.chunk_id for c in evidence], "answer_note": note or composed.note})

    # ------------------------------------------------------------------ "don't know": every variant
    def variant_sections(self, pending: Pending, session: Session, name: str, pages=frozenset()) -> dict:
        """Per value of the categorical attribute `name` (which the student does not know), in the
        schema's order, the passages written for that value that answer the question, as retrieved
        for a student who had it, those of the documents `pages` first (the cited pages: the
        variants they state are told from them). Values no such passage is written for are left out."""
        attribute = self.schema[name]
        if not fields.is_categorical(attribute):
            return {}
        found = {}
        for value in attribute.values:
            known = {**pending.scoped(session.known), name: value}
            chunks = self.retrieve(pending.query, known, soft=set(pending.relevant) | {name}).chunks
            # a passage for the value that holds the question's key words itself, not one that
            # only comes close in meaning (a merit scholarship for a question about TOPIK levels)
            own = [c for c in chunks if value in (c.applies_to.get(name) or ()) and self._qualifies(pending, [c])
                   and self.reader.answerability(pending.query, [c]) >= MIN_COVERAGE]
            if own:
                found[value] = sorted(own, key=lambda c: c.doc_url not in pages)  # stable: rank order kept
        return found

    def _every_variant(self, evidence, cited: list[int], session: Session, pending: Pending, declined: list[str]):
        """(the attribute, its evidence, the composed answer) answering for every value of the first
        declined categorical attribute that the documents state (from the cited pages where they
        state it), one part per value in the schema's order; None when fewer than two are stated or
        they all say the same (the answer as composed says it all)."""
        pages = {evidence[i].doc_url for i in cited}
        for name in declined:
            sections = self.variant_sections(pending, session, name, pages)
            if len(sections) < 2:
                continue
            glossed = pending.query if pending.trace.get("glossary") else None
            chosen, parts = [], []
            for value, chunks in sections.items():
                part = self.offline_answer(pending.message, chunks[:1], {**session.known, name: value}, glossed)
                if not part.cited:
                    continue
                chosen.append(chunks[0])
                parts.append(part)
            facts_of = self.reader.facts_reader(pending.query)
            stated = [variants.Variant((c.applies_to.get(name)[0],), facts_of(c) or frozenset(), True) for c in chosen]
            if len({_unmarked(part.text) for part in parts}) < 2 or not variants.differ(stated):
                continue  # every variant says the same: the answer does not depend on it after all
            # one part per value, each citing its own passage: [k] is the k-th chosen passage
            text = "\n".join(re.sub(r"\[\d+\]", f"[{k}]", part.text) for k, part in enumerate(parts, 1))
            snippets = {k: part.snippets.get(0, "") for k, part in enumerate(parts)}
            pending.trace["every_variant"] = {"attribute": name, "values": list(sections)}
            return name, chosen, replace(parts[0], text=text, cited=list(range(len(parts))), snippets=snippets)
        return None

    def offline_answer(self, message: str, evidence, known: Mapping[str, Any], search_text: str | None = None):
        """The extractive answer from `evidence` (also the evaluation's baselines' answer);
        `search_text`: what the passages are matched against, when not the message itself."""
        return self.extractive.answer(message, evidence, known, search_text)


def _unmarked(text: str) -> str:
    """An answer's text without its citation markers."""
    return re.sub(r"\s*\[\d+\]", "", text).strip()
