"""URAG-F FAQ enrichment (docs/method.md §B.5), only when an LLM is configured:

(a) paraphrases of every seed FAQ question, each stored as a new entry with the seed's verbatim
    answer (origin "llm_paraphrase", source_url = the seed entry's URL);
(b) new question/answer pairs from every non-FAQ chunk, answered from that chunk alone (origin
    "llm_generated", source_url = the chunk's doc_url, its annotation carried over).

Every entry is traceable to its source (source_url, chunk_ids), so it can be refreshed when the
source changes; calls go through advisor.llm.batch.CachedJSONTask (lakehouse llm_cache), so a
re-run over unchanged sources makes no request. A failed call is skipped and counted, never
replaced by an invented answer.

The paraphrases are split: even positions go to the store, odd ones are held apart as the
calibration queries of t_FAQ (advisor.faq.calibrate, method "llm_paraphrases"), so the threshold
is never tuned on questions the store contains verbatim.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import duckdb

from advisor.faq.store import FAQ_KIND, FAQEntry
from advisor.index.store import IndexBuild
from advisor.llm.batch import CachedJSONTask
from advisor.llm.client import LLMClient, LLMFailure, LLMUsage
from advisor.llm.jsoncheck import strict_object

PARAPHRASE_TASK, PAIRS_TASK = "faq_paraphrase", "faq_pairs"
PARAPHRASE_PROMPT_VERSION, PAIRS_PROMPT_VERSION = "faq-paraphrase-v1", "faq-pairs-v1"
PARAPHRASE_SCHEMA_NAME, PAIRS_SCHEMA_NAME = "faq_paraphrases", "faq_pairs"
DEFAULT_PARAPHRASES = 5  # per seed question (the paper used about 20; each is a stored entry)
DEFAULT_PAIRS = 3  # at most, per chunk
MAX_CHUNK_CHARS = 2000  # a chunk is at most 800 characters; this only guards odd inputs

PARAPHRASE_SCHEMA = strict_object({"paraphrases": {"type": "array", "items": {"type": "string"}}})
PAIRS_SCHEMA = strict_object({"pairs": {"type": "array", "items": strict_object(
    {"question": {"type": "string"}, "answer": {"type": "string"}})}})

PARAPHRASE_SYSTEM = """\
You help a university's advising assistant recognise the many ways students ask the same \
question. Given one question from the university's FAQ (and its answer, for meaning only), write \
different questions a student might type that ask EXACTLY the same thing, in the question's \
language: vary wording, sentence endings, politeness (formal, casual), word order, synonyms, \
keyword-style queries. Keep every condition the question states (department, admission year, \
grade, major type, status, dates) exactly; never add a condition or drop one; never answer. \
Return JSON {"paraphrases": [...]} with the requested number of distinct questions."""

PARAPHRASE_USER = """\
Number of paraphrases: {n}
FAQ question:
<<<
{question}
>>>
Its answer (for meaning only):
<<<
{answer}
>>>"""

PAIRS_SYSTEM = """\
You write FAQ entries for a university's advising assistant from one passage of its documents. \
Write up to the requested number of question/answer pairs that a student might ask and that the \
passage ANSWERS. Use only the passage: no outside knowledge, no guesses; copy numbers, dates, \
course names and conditions exactly. When the passage applies only to some students (a \
department, an admission-year range, a grade), say so in the question. Write in the passage's \
language. If the passage answers no student question (a navigation list, a bare heading), return \
no pairs. Return JSON {"pairs": [{"question": ..., "answer": ...}]}."""

PAIRS_USER = """\
Maximum number of pairs: {n}
Document title: {title}
Heading path: {headings}
Passage:
<<<
{text}
>>>"""

_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


@dataclass(frozen=True)
class SourceChunk:
    """A non-FAQ chunk that new Q/A pairs are generated from."""

    chunk_id: str
    doc_url: str
    title: str | None
    text: str
    applies_to: dict
    heading_path: tuple[str, ...] = ()


@dataclass
class Enrichment:
    """What URAG-F produced: entries for the store, the held-out paraphrases for calibration
    (seed source_url -> texts), and what was skipped and why."""

    paraphrase_entries: list[FAQEntry] = field(default_factory=list)
    generated_entries: list[FAQEntry] = field(default_factory=list)
    calibration_paraphrases: dict[str, list[str]] = field(default_factory=dict)
    failures: Counter = field(default_factory=Counter)  # "<task>:<reason>" -> sources skipped
    dropped: Counter = field(default_factory=Counter)  # items dropped from valid replies, by reason

    @property
    def entries(self) -> list[FAQEntry]:
        return self.paraphrase_entries + self.generated_entries

    @property
    def failed_sources(self) -> int:
        return sum(self.failures.values())


def _answered(task: CachedJSONTask, sources: Sequence, messages: list[list[dict]], result: Enrichment) -> list[tuple]:
    """(source, reply) for every source the model answered; the others are counted as failures
    (skipped, never replaced by an invented answer)."""
    answered = []
    for source, reply in zip(sources, task.run(messages)):
        if isinstance(reply, LLMFailure):
            result.failures[f"{task.task}:{reply.reason}"] += 1
        else:
            answered.append((source, reply))
    return answered


def source_chunks(build: IndexBuild) -> list[SourceChunk]:
    """Every non-FAQ chunk of the build, in collection and row order."""
    out = []
    for collection in build.collections.values():
        columns = collection.chunks.select("chunk_id", "doc_url", "title", "text", "kind", "heading_path").to_dict(as_series=False)
        for row, kind in enumerate(columns["kind"]):
            if kind == FAQ_KIND:
                continue
            out.append(SourceChunk(
                chunk_id=columns["chunk_id"][row], doc_url=columns["doc_url"][row], title=columns["title"][row],
                text=columns["text"][row], applies_to=collection.applies_to[row],
                heading_path=tuple(columns["heading_path"][row] or ()),
            ))
    return out


class FAQEnricher:
    def __init__(self, client: LLMClient, con: duckdb.DuckDBPyConnection, *,
                 paraphrases_per_question: int = DEFAULT_PARAPHRASES, pairs_per_chunk: int = DEFAULT_PAIRS,
                 hold_out: bool = True):
        if paraphrases_per_question < 0 or pairs_per_chunk < 0:
            raise ValueError("paraphrases_per_question and pairs_per_chunk must be >= 0")
        self.paraphrases_per_question, self.pairs_per_chunk = paraphrases_per_question, pairs_per_chunk
        self.hold_out = hold_out
        self._paraphrase = CachedJSONTask(
            client, con, task=PARAPHRASE_TASK, prompt_version=PARAPHRASE_PROMPT_VERSION,
            schema=PARAPHRASE_SCHEMA, schema_name=PARAPHRASE_SCHEMA_NAME, check=_check_paraphrases)
        self._pairs = CachedJSONTask(
            client, con, task=PAIRS_TASK, prompt_version=PAIRS_PROMPT_VERSION,
            schema=PAIRS_SCHEMA, schema_name=PAIRS_SCHEMA_NAME, check=_check_pairs)

    @property
    def usage(self) -> LLMUsage:
        """Both tasks' cumulative usage (calls, cache hits, retries, failures, tokens)."""
        total = LLMUsage()
        total.add(self._paraphrase.usage)
        total.add(self._pairs.usage)
        return total

    def record_usage(self, run_id: str, asset: str) -> None:
        self._paraphrase.record_usage(run_id, asset)
        self._pairs.record_usage(run_id, asset)

    def enrich(self, seeds: Sequence[FAQEntry], chunks: Sequence[SourceChunk]) -> Enrichment:
        result = Enrichment()
        self.paraphrase(seeds, result)
        self.generate(chunks, result)
        return result

    # ------------------------------------------------------------------ (a) paraphrases
    def paraphrase(self, seeds: Sequence[FAQEntry], into: Enrichment | None = None) -> Enrichment:
        result = into if into is not None else Enrichment()
        seeds = [s for s in seeds if s.origin == "seed"]
        if not seeds or self.paraphrases_per_question == 0:
            return result
        messages = [paraphrase_messages(s, self.paraphrases_per_question) for s in seeds]
        for seed, reply in _answered(self._paraphrase, seeds, messages, result):
            texts = _clean_paraphrases(reply["paraphrases"], seed.question, result.dropped)
            texts = texts[: self.paraphrases_per_question]
            for position, text in enumerate(texts):
                if self.hold_out and position % 2 == 1:
                    result.calibration_paraphrases.setdefault(seed.source_url, []).append(text)
                    continue
                result.paraphrase_entries.append(FAQEntry(
                    entry_id=f"{seed.entry_id}~p{position}", question=text, answer=seed.answer,
                    source_url=seed.source_url, chunk_ids=seed.chunk_ids, applies_to=dict(seed.applies_to),
                    origin="llm_paraphrase", title=seed.question))
        return result

    # ------------------------------------------------------------------ (b) new pairs
    def generate(self, chunks: Sequence[SourceChunk], into: Enrichment | None = None) -> Enrichment:
        result = into if into is not None else Enrichment()
        if not chunks or self.pairs_per_chunk == 0:
            return result
        messages = [pairs_messages(c, self.pairs_per_chunk) for c in chunks]
        for chunk, reply in _answered(self._pairs, chunks, messages, result):
            seen: set[str] = set()
            for position, pair in enumerate(reply["pairs"][: self.pairs_per_chunk]):
                question, answer = " ".join(pair["question"].split()), pair["answer"].strip()
                if _norm(question) in seen:
                    result.dropped["duplicate_question"] += 1
                    continue
                if _numbers_not_in(answer, chunk.text):
                    # a number the passage does not contain was invented: drop the pair
                    result.dropped["ungrounded_number"] += 1
                    continue
                seen.add(_norm(question))
                result.generated_entries.append(FAQEntry(
                    entry_id=f"{chunk.chunk_id}~g{position}", question=question, answer=answer,
                    source_url=chunk.doc_url, chunk_ids=(chunk.chunk_id,), applies_to=dict(chunk.applies_to),
                    origin="llm_generated", title=chunk.title))
        return result


# --------------------------------------------------------------------------- prompts

def paraphrase_messages(seed: FAQEntry, n: int) -> list[dict]:
    return [
        {"role": "system", "content": PARAPHRASE_SYSTEM},
        {"role": "user", "content": PARAPHRASE_USER.format(n=n, question=seed.question.strip(),
                                                           answer=seed.answer.strip()[:MAX_CHUNK_CHARS])},
    ]


def pairs_messages(chunk: SourceChunk, n: int) -> list[dict]:
    return [
        {"role": "system", "content": PAIRS_SYSTEM},
        {"role": "user", "content": PAIRS_USER.format(
            n=n, title=chunk.title or "-", headings=" > ".join(chunk.heading_path) or "-",
            text=chunk.text.strip()[:MAX_CHUNK_CHARS])},
    ]


# --------------------------------------------------------------------------- checks

def _check_paraphrases(data: dict) -> str | None:
    if not any(isinstance(p, str) and p.strip() for p in data["paraphrases"]):
        return "no non-empty paraphrase"
    return None


def _check_pairs(data: dict) -> str | None:
    for i, pair in enumerate(data["pairs"]):
        if not pair["question"].strip() or not pair["answer"].strip():
            return f"pairs/{i}: question and answer must not be empty"
    return None


def _clean_paraphrases(texts: Sequence[str], original: str, dropped: Counter) -> list[str]:
    """Distinct, non-empty, not the original question (ignoring spaces and end punctuation)."""
    out, seen = [], {_norm(original)}
    for text in texts:
        text = " ".join(text.split())
        key = _norm(text)
        if not key:
            dropped["empty_paraphrase"] += 1
        elif key in seen:
            dropped["duplicate_paraphrase"] += 1
        else:
            seen.add(key)
            out.append(text)
    return out


def _norm(text: str) -> str:
    return re.sub(r"[\s?？.!。~,]", "", text).lower()


def _numbers_not_in(answer: str, passage: str) -> list[str]:
    digits = {n.replace(",", "") for n in _NUMBER.findall(passage)}
    return [n for n in _NUMBER.findall(answer) if n.replace(",", "") not in digits and n not in passage]


def describe(enrichment: Enrichment) -> str:
    """One line for a log: counts only (no question text, nothing about any student)."""
    return json.dumps({
        "paraphrase_entries": len(enrichment.paraphrase_entries),
        "generated_entries": len(enrichment.generated_entries),
        "calibration_paraphrases": sum(len(v) for v in enrichment.calibration_paraphrases.values()),
        "failures": dict(enrichment.failures), "dropped": dict(enrichment.dropped),
    }, ensure_ascii=False)
