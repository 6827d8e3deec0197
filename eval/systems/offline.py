"""The offline systems of the evaluation (docs/method.md §A "Systems", §B; docs/contracts.md §1 names):
how each answers one question. Their names, properties and wiring are in eval/systems/registry.py.

Every system answers one benchmark instance in one setting and returns a `SystemAnswer`: the
ranked sources its answer came from (extended to the top 50 for MRR / Recall@50), the answer with
its citations, and the dialogue's burden. Metrics are computed by the runner, the same way for all.

- bm25 / dense / hybrid: the shared Retriever, profile-blind (soft=False, hard=False); in the
  oracle setting the profile's wording is appended to the query text (the paper's baselines).
  Answer: the extractive answer over the top 3 chunks.
- hybrid+filter: a generic RAG stack with metadata filters: the known profile as a hard filter
  on the annotations, no soft prefix, no asking; it needs the profile up front (oracle only).
- profill and its ablations: the real dialogue engine with a simulated student (eval/systems/simulate.py),
  an ablation being the engine with one mechanism turned off in its settings;
  profill-true-labels: the same over the build's chunks relabelled with the TRUE applicability
  (eval/benchmark/truth.py), so its gap to profill is what annotation errors cost.
- urag: URAG (docs/method.md §B): the FAQ tier, else documents from the index over the URAG-D
  augmented chunk texts (top K = 2), else the fallback; no profiling (oracle: the profile's
  wording appended to the query, as for the other profile-blind systems).

A system runs against an "advisor": the dialogue engine, composed either from the served
collaborators (the plain reference path) or from EvalMemo's caching ones (the fast path); both
give identical answers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Mapping

from advisor.intents import TEMPLATE_ROUTES
from advisor.retrieval.results import RetrievedChunk
from eval.systems.simulate import converse
from serving.answer.fallback import fallback_answer
from serving.dialogue import templates
from serving.dialogue.baseline import profiled_query

ANSWER_K = 10  # chunks per retrieval, as served (the paper's 7 + 3)
RANK_DEPTH = 50  # MRR / Recall@50 look this deep
EVIDENCE_TOP = 3  # the baselines answer from their top 3 chunks
URAG_DOC_K = 2  # URAG tier 2: the top K = 2 chunks


@dataclass
class SystemAnswer:
    answer: str
    citations: list[str]  # cited source URLs, in citation order
    tier: str | None
    answer_method: str | None
    ranked_urls: list[str]  # source URL per ranked item, best first (the gold rank is read here)
    candidates: list[RetrievedChunk] = field(default_factory=list)  # the ranked chunks (rerankers reorder them)
    top_chunk_ids: list[str] = field(default_factory=list)  # the answer retrieval's top 10
    questions: list[str] = field(default_factory=list)  # profile attributes asked, in order
    questions_asked: int = 0
    seconds: float = 0.0
    known: dict = field(default_factory=dict)  # the profile the answer was made for (never stored)
    query_text: str = ""  # what the system searched with (the baselines' oracle appends the profile)
    time_sensitive: bool | None = None
    llm_calls: int = 0
    llm_tokens: int = 0


def with_share(answer: SystemAnswer, shared: float) -> SystemAnswer:
    """`answer` charged its share of a batched step's seconds."""
    answer.seconds += shared
    return answer


def extend(first: list[RetrievedChunk], more: list[RetrievedChunk], depth: int = RANK_DEPTH) -> list[RetrievedChunk]:
    """`first` followed by the chunks of `more` not already in it, cut at `depth` chunks."""
    seen = {c.chunk_id for c in first}
    return (list(first) + [c for c in more if c.chunk_id not in seen])[:max(depth, len(first))]


def baseline_query(query: str, hidden: Mapping[str, Any], oracle: bool, advisor) -> str:
    """The baselines' query text: in the oracle setting the profile in words (the soft prefix's
    wording, schema labels) appended after the question."""
    if not oracle or not hidden:
        return query
    return profiled_query(query, hidden, advisor.schema)  # the preference study's baseline writes it alike


def answer_from_chunks(advisor, query: str, chunks: list[RetrievedChunk], known: Mapping[str, Any],
                       tier: str = "documents") -> tuple[str, list[str], str]:
    """The extractive answer over `chunks`: (text, cited URLs, method)."""
    if not chunks:
        text, method, _ = fallback_answer(query, advisor.config, None)
        return text, [], method
    composed = advisor.offline_answer(query, chunks, known)
    return composed.text, [chunks[i].doc_url for i in (composed.cited or [0])], composed.method


def run_baseline(advisor, mode: str, query: str, hidden: Mapping[str, Any], oracle: bool, today: date) -> SystemAnswer:
    started = time.perf_counter()
    text = baseline_query(query, hidden, oracle, advisor)
    served = advisor.retriever.search(text, None, mode=mode, k=ANSWER_K, soft=False, hard=False, today=today)
    deep = advisor.retriever.search(text, None, mode=mode, k=RANK_DEPTH, soft=False, hard=False, today=today)
    ranked = extend(served.chunks, deep.chunks)
    answer, cited, method = answer_from_chunks(advisor, text, served.chunks[:EVIDENCE_TOP], {})
    return SystemAnswer(answer, cited, "documents" if served.chunks else "fallback", method,
                        [c.doc_url for c in ranked], ranked, served.chunk_ids, seconds=time.perf_counter() - started,
                        query_text=text, time_sensitive=served.time_sensitive)


def run_profill(advisor, query: str, hidden: Mapping[str, Any], oracle: bool, today: date, dont_know: float = 0.0,
                key: str = "") -> SystemAnswer:
    """One dialogue through the engine (its settings carry the variant's switches); the simulated
    student answers "don't know" to a `dont_know` share of the questions (drawn per `key`)."""
    started = time.perf_counter()
    reply, asked = converse(advisor, query, hidden, oracle, today, dont_know, key)
    trace = reply.trace
    ranked: list[RetrievedChunk] = []
    top_ids: list[str] = []
    urls_first: list[str] = []
    if reply.tier != "template":
        last = trace.get("last_retrieval")
        deep = advisor.retrieve(trace.get("search_text") or query, reply.profile_used, k=RANK_DEPTH,
                                soft=trace.get("prefix_attributes", True),
                                time_sensitive=trace.get("time_sensitive_llm"), today=today)
        ranked = extend(last.chunks if last is not None else [], deep.chunks)
        top_ids = last.chunk_ids if last is not None else deep.chunk_ids[:ANSWER_K]
        if reply.tier == "faq":  # the verbatim FAQ answer's own source is what the student got first
            urls_first = [c.url for c in reply.citations]
    return SystemAnswer(
        reply.answer, [c.url for c in reply.citations], reply.tier, reply.answer_method,
        urls_first + [c.doc_url for c in ranked], ranked, top_ids, asked, int(trace.get("questions_asked", 0)),
        time.perf_counter() - started, dict(reply.profile_used), query,
        trace.get("time_sensitive_llm"))


def run_filtered(advisor, query: str, hidden: Mapping[str, Any], today: date, mode: str = "hybrid") -> SystemAnswer:
    """hybrid+filter: the profile as a hard filter on the annotations, the question's own words."""
    started = time.perf_counter()
    served = advisor.retriever.search(query, hidden, mode=mode, k=ANSWER_K, soft=False, hard=True, today=today)
    deep = advisor.retriever.search(query, hidden, mode=mode, k=RANK_DEPTH, soft=False, hard=True, today=today)
    ranked = extend(served.chunks, deep.chunks)
    answer, cited, method = answer_from_chunks(advisor, query, served.chunks[:EVIDENCE_TOP], hidden)
    return SystemAnswer(answer, cited, "documents" if served.chunks else "fallback", method,
                        [c.doc_url for c in ranked], ranked, served.chunk_ids, seconds=time.perf_counter() - started,
                        known=dict(hidden), query_text=query, time_sensitive=served.time_sensitive)


def run_urag(advisor, augmented, query: str, hidden: Mapping[str, Any], oracle: bool, today: date) -> SystemAnswer:
    """URAG's tiers with no profiling: intent templates, the FAQ tier (no profile, the build's
    calibrated threshold), else the documents from the top K = 2 chunks of the URAG-D index
    (`augmented`: a retriever over the augmented collections; hybrid, as the other baselines) when
    they hold the question's key words (the engine's evidence check stands in for URAG's t_Doc,
    which belongs to another embedder's cosine scale), else the fallback (offline: the honest
    no-answer)."""
    started = time.perf_counter()
    route, routing = advisor.route(query)
    if route in TEMPLATE_ROUTES and routing.get("sure", True):
        text = templates.text(route, advisor.language, institution=advisor.config.institution)
        return SystemAnswer(text, [], "template", "template", [], seconds=time.perf_counter() - started,
                            query_text=query)
    text = baseline_query(query, hidden, oracle, advisor)
    served = augmented.search(text, None, mode="hybrid", k=ANSWER_K, soft=False, hard=False, today=today)
    deep = augmented.search(text, None, mode="hybrid", k=RANK_DEPTH, soft=False, hard=False, today=today)
    ranked = extend(served.chunks, deep.chunks)
    urls = [c.doc_url for c in ranked]
    common = {"candidates": ranked, "top_chunk_ids": served.chunk_ids, "query_text": text,
              "time_sensitive": served.time_sensitive}
    best = faq_tier(advisor, text)
    if best is not None:
        entry = best.entry
        return SystemAnswer(entry.answer, [entry.source_url], "faq", "faq_verbatim", [entry.source_url] + urls,
                            seconds=time.perf_counter() - started, **common)
    evidence = served.chunks[:URAG_DOC_K]
    if evidence and advisor.qualifies(query, evidence):
        # the documents note is the reply's disclaimer, not part of the scored answer text
        answer, cited, method = answer_from_chunks(advisor, query, evidence, {})
        return SystemAnswer(answer, cited, "documents", method, urls,
                            seconds=time.perf_counter() - started, **common)
    fallback, method, _ = fallback_answer(query, advisor.config, None)
    return SystemAnswer(fallback, [], "fallback", method, urls, seconds=time.perf_counter() - started, **common)


def true_label_advisor(advisor, labels: Mapping[str, Mapping]):
    """The advisor's engine over the same build and FAQ store relabelled with `labels` (chunk id
    -> true applicability): the same tokenizer, router, LLM tasks, thresholds and settings; the
    retriever and the FAQ tier over the relabelled chunks and entries."""
    from advisor.index.relabel import relabelled
    from serving.dialogue.engine import Advisor

    faq_store = advisor.faq_store.relabelled(labels) if advisor.faq_store is not None else None
    return Advisor(relabelled(advisor.build, labels), advisor.config, tokenizer=advisor.tokenizer,
                   router=advisor.router, stated=advisor.stated, faq_store=faq_store, thresholds=advisor.thresholds,
                   llm=advisor.llm, extractive=advisor.extractive, settings=advisor.settings)


def faq_tier(advisor, query: str):
    """The best FAQ entry at or above the build's threshold for a profile-less student, or None:
    the engine's own FAQ search (one implementation, read and scored as the build calibrated it)."""
    threshold = advisor.thresholds.get("faq_threshold")
    if advisor.faq_store is None or threshold is None:
        return None
    matches = advisor.faq_search(query, None, hard=False)
    return matches[0] if matches and matches[0].score >= threshold else None
