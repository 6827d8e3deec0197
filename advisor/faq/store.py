"""The URAG FAQ store (docs/method.md §B, tier 1): FAQ entries with their questions and answers
embedded, searched by a match score over question AND answer, dense and lexical
(`advisor/faq/match.py`), answers returned verbatim (no generation).

A store written with a fitted scorer (`scorer.json`) scores every pair with it (a probability-like
score in [0, 1]). A store without one (builds made before the scorer) keeps the old rule: cosine
with the question, key-word agreement >= MIN_AGREEMENT; its build's threshold is on that scale.

Seed entries come from an index build's FAQ chunks (the crawler splits each FAQ page into entries;
a long entry may span several chunks of one doc_url). Enriched entries (URAG-F, LLM paraphrases and
generated pairs) point back to the seed entry or chunk they came from through `source_url` and
`chunk_ids`, so several entries may share one source_url.

Hard filtering uses the proFILL conflict rule of advisor/retrieval/profile.py unchanged: a student
never gets a verbatim answer written for another department or cohort.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import polars as pl

from advisor.faq.match import Lexicon, Scorer, fold_aliases
from advisor.index import fields
from advisor.index.store import IndexBuild
from advisor.retrieval.profile import EligibilityTable, known_profile

ENTRIES_FILE = "entries.parquet"
VECTORS_FILE = "vectors.npy"  # row i = the embedded QUESTION of entries.parquet row i
ANSWER_VECTORS_FILE = "answer_vectors.npy"  # row i = the embedded QUESTION + ANSWER (absent in older builds)
META_FILE = "faq.json"  # which embedder made the vectors, the counts, the institution's aliases
SCORER_FILE = "scorer.json"  # the fitted match scorer and how it was fitted (absent: the old rule)
# At most this many entries per dense signal are scored (plus every entry sharing a key word): the
# others cannot come first. Stores hold hundreds to a few thousand entries.
CANDIDATE_POOL = 100
ORIGINS = ("seed", "llm_generated", "llm_paraphrase")
FAQ_KIND = "faq"

Tokenize = Callable[[list[str]], list[list[str]]]


@dataclass(frozen=True)
class FAQEntry:
    entry_id: str
    question: str
    answer: str
    source_url: str  # the seed entry's URL (page URL + "#id") or the chunk's doc_url it came from
    chunk_ids: tuple[str, ...]
    # Canonical annotation, the union over the entry's chunks; an attribute is null as soon as
    # one chunk leaves it unconstrained (null admits everyone, so the union is null).
    applies_to: dict
    origin: str  # "seed" (the institution's own FAQ) | "llm_generated" | "llm_paraphrase"
    title: str | None = None

    def __post_init__(self) -> None:
        if self.origin not in ORIGINS:
            raise ValueError(f"FAQ entry {self.entry_id!r}: origin must be one of {ORIGINS}, got {self.origin!r}")
        if not self.question.strip() or not self.answer.strip():
            raise ValueError(f"FAQ entry {self.entry_id!r}: question and answer must not be empty")


@dataclass(frozen=True)
class FAQMatch:
    entry: FAQEntry
    score: float  # the scorer's match score in [0, 1] (a store without one: cosine with the question)
    rank: int  # 1-based


# --------------------------------------------------------------------------- seed entries

def faq_entries_from_build(build: IndexBuild) -> list[FAQEntry]:
    """One seed entry per FAQ document of the build (kind == "faq"), in chunk-store order."""
    entries = []
    for collection in build.collections.values():
        faq = collection.chunks.filter(pl.col("kind") == FAQ_KIND).sort("row")
        if faq.is_empty():
            continue
        for (doc_url,), group in faq.group_by(["doc_url"], maintain_order=True):
            entries.append(_seed_entry(doc_url, group.sort("row").to_dicts(), build.schema))
    return entries


def _seed_entry(doc_url: str, chunks: list[dict], schema: fields.Schema) -> FAQEntry:
    title = (chunks[0]["title"] or "").strip()
    question = title or _first_block(chunks[0]["text"])
    parts = [_answer_part(chunk["text"], question) for chunk in chunks]
    answer = "\n".join(part for part in parts if part)
    return FAQEntry(
        entry_id=doc_url, question=question, answer=answer or chunks[0]["text"].strip(), source_url=doc_url,
        chunk_ids=tuple(chunk["chunk_id"] for chunk in chunks),
        applies_to=union_applies_to([json.loads(chunk["applies_to"]) for chunk in chunks], schema),
        origin="seed", title=title or None,
    )


def _first_block(text: str) -> str:
    return text.strip().split("\n\n", 1)[0].strip()


def _answer_part(text: str, question: str) -> str:
    """The chunk's text without the question atop it (the first chunk opens with the question and
    a blank line; the chunker repeats it, with one newline, above every continuation chunk)."""
    body = text.strip()
    if question and body.startswith(question):
        return body[len(question):].strip()
    return body


def union_applies_to(annotations: Sequence[Mapping], schema: fields.Schema) -> dict:
    """Whom an entry applies to when its chunks carry several annotations: per attribute the union
    of values / the covering range, or null when any chunk leaves the attribute unconstrained."""
    if not annotations:
        return dict.fromkeys(schema)
    union: dict = {}
    for name, attribute in schema.items():
        values = [a.get(name) for a in annotations]
        if any(v is None for v in values):
            union[name] = None
        elif fields.is_categorical(attribute):
            union[name] = sorted({item for v in values for item in v})
        else:
            union[name] = [min(v[0] for v in values), max(v[1] for v in values)]
    return union


# --------------------------------------------------------------------------- writing

def write_faq_store(directory: Path, entries: Iterable[FAQEntry], embedder, tokenize: Tokenize,
                    keywords: Tokenize | None = None, aliases: Mapping[str, str] | None = None) -> dict:
    """entries.parquet + vectors.npy (the QUESTIONS embedded) + answer_vectors.npy + faq.json;
    returns the counts. `aliases`: key word -> canonical term (`aliases_from_config`), folded on
    both sides of every lexical comparison."""
    entries = list(entries)
    ids = [e.entry_id for e in entries]
    if len(set(ids)) != len(ids):
        duplicated = sorted({i for i in ids if ids.count(i) > 1})[:5]
        raise ValueError(f"FAQ entry ids must be unique; repeated: {duplicated}")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    questions = [e.question for e in entries]
    tokens = tokenize(questions) if entries else []
    answers = [e.answer for e in entries]
    answer_tokens = tokenize(answers) if entries else []
    if entries:
        # a question compared with a question (the encoder's symmetric use), and with the whole
        # entry, question and answer, as a passage: what a paraphrase that shares no word with the
        # question still shares with the entry
        vectors = np.asarray(embedder.embed_queries(questions, tokens), dtype=np.float32)
        whole = [f"{e.question}\n{e.answer}" for e in entries]
        answer_vectors = np.asarray(embedder.embed(whole, tokenize(whole)), dtype=np.float32)
    else:
        vectors = np.zeros((0, int(getattr(embedder, "dim", 0) or 0)), dtype=np.float32)
        answer_vectors = vectors
    # the words the lexical features compare (KiwiTokenizer.key_words; else the content morphemes)
    words = keywords(questions) if keywords is not None and entries else tokens
    answer_words = keywords(answers) if keywords is not None and entries else answer_tokens
    _entries_frame(entries, words, answer_words).write_parquet(directory / ENTRIES_FILE)
    np.save(directory / VECTORS_FILE, vectors)
    np.save(directory / ANSWER_VECTORS_FILE, answer_vectors)
    counts = {"entries": len(entries), **{origin: sum(e.origin == origin for e in entries) for origin in ORIGINS},
              "sources": len({e.source_url for e in entries})}
    meta = {"embedder": getattr(embedder, "name", None), "embedder_version": getattr(embedder, "version", None),
            "dim": int(vectors.shape[1]) if vectors.ndim == 2 else None, "counts": counts,
            "aliases": dict(sorted((aliases or {}).items()))}
    (directory / META_FILE).write_text(json.dumps(meta, ensure_ascii=False, indent=1), encoding="utf-8")
    return counts


def _entries_frame(entries: Sequence[FAQEntry], tokens: Sequence[Sequence[str]],
                   answer_tokens: Sequence[Sequence[str]]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "entry_id": [e.entry_id for e in entries],
            "question": [e.question for e in entries],
            "answer": [e.answer for e in entries],
            "source_url": [e.source_url for e in entries],
            "chunk_ids": [list(e.chunk_ids) for e in entries],
            "applies_to": [fields.applies_to_json(e.applies_to) for e in entries],
            "origin": [e.origin for e in entries],
            "title": [e.title for e in entries],
            "question_tokens": [list(t) for t in tokens],
            "answer_tokens": [list(t) for t in answer_tokens],
        },
        schema={"entry_id": pl.String, "question": pl.String, "answer": pl.String, "source_url": pl.String,
                "chunk_ids": pl.List(pl.String), "applies_to": pl.String, "origin": pl.String, "title": pl.String,
                "question_tokens": pl.List(pl.String), "answer_tokens": pl.List(pl.String)},
    )


# --------------------------------------------------------------------------- searching

# A verbatim answer must answer (nearly) the same question. Embeddings alone over-rate questions
# that share a frame ("...은 어떻게 되나요?" with an unrelated subject scores high with LSA), so an
# entry also has to share at least this IDF-weighted share of the key words (nouns, names,
# numbers) of the query AND of its own question: what the answer is about. 0 turns it off.
MIN_AGREEMENT = 0.5


class FAQStore:
    def __init__(self, entries: Sequence[FAQEntry], vectors: np.ndarray, schema: fields.Schema, meta: dict | None = None,
                 question_tokens: Sequence[Sequence[str]] | None = None, *, answer_vectors: np.ndarray | None = None,
                 answer_tokens: Sequence[Sequence[str]] | None = None, scorer: Scorer | None = None):
        if len(entries) != len(vectors):
            raise ValueError(f"FAQ store: {len(entries)} entries but {len(vectors)} question vectors")
        if answer_vectors is not None and np.shape(answer_vectors) != np.shape(vectors):
            raise ValueError("FAQ store: answer vectors must match the question vectors' shape")
        self.entries, self.vectors, self.schema = list(entries), np.asarray(vectors, dtype=np.float32), schema
        self.answer_vectors = None if answer_vectors is None else np.asarray(answer_vectors, dtype=np.float32)
        self.meta = meta or {}
        self.scorer = scorer
        self._eligibility = EligibilityTable([e.applies_to for e in self.entries], schema)
        self._tokens, self._answer_tokens = question_tokens, answer_tokens
        self._terms = [frozenset(t) for t in question_tokens] if question_tokens is not None else None
        # what the scorer's lexical features compare (aliases folded); None: no tokens stored
        self.lexicon = (Lexicon(question_tokens, answer_tokens, self.meta.get("aliases"))
                        if question_tokens is not None else None)
        frequency: dict[str, int] = {}
        for terms in self._terms or ():
            for term in terms:
                frequency[term] = frequency.get(term, 0) + 1
        n = len(self.entries)
        self._idf = {term: math.log((n + 1) / (df + 1)) + 1.0 for term, df in frequency.items()}
        self._unseen_idf = math.log(n + 1) + 1.0  # a query word no question has: as rare as can be

    @classmethod
    def load(cls, directory: Path, schema: fields.Schema) -> "FAQStore":
        directory = Path(directory)
        missing = [name for name in (ENTRIES_FILE, VECTORS_FILE) if not (directory / name).exists()]
        if missing:
            raise FileNotFoundError(f"{directory}: not an FAQ store (missing {', '.join(missing)})")
        frame = pl.read_parquet(directory / ENTRIES_FILE)
        entries = [
            FAQEntry(entry_id=r["entry_id"], question=r["question"], answer=r["answer"], source_url=r["source_url"],
                     chunk_ids=tuple(r["chunk_ids"] or ()), applies_to=json.loads(r["applies_to"]),
                     origin=r["origin"], title=r["title"])
            for r in frame.iter_rows(named=True)
        ]
        meta_path = directory / META_FILE
        meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.exists() else {}
        tokens = frame["question_tokens"].to_list() if "question_tokens" in frame.columns else None
        answer_tokens = frame["answer_tokens"].to_list() if "answer_tokens" in frame.columns else None
        answers_path = directory / ANSWER_VECTORS_FILE
        answer_vectors = np.load(answers_path) if answers_path.exists() else None
        scorer_path = directory / SCORER_FILE
        scorer = (Scorer.from_dict(json.loads(scorer_path.read_text(encoding="utf-8"))["scorer"])
                  if scorer_path.exists() and tokens is not None else None)
        return cls(entries, np.load(directory / VECTORS_FILE), schema, meta, tokens, answer_vectors=answer_vectors,
                   answer_tokens=answer_tokens, scorer=scorer)

    def __len__(self) -> int:
        return len(self.entries)

    def _replaced(self, entries: Sequence[FAQEntry], scorer: Scorer | None) -> "FAQStore":
        return FAQStore(entries, self.vectors, self.schema, self.meta, self._tokens, answer_vectors=self.answer_vectors,
                        answer_tokens=self._answer_tokens, scorer=scorer)

    def with_scorer(self, scorer: Scorer | None) -> "FAQStore":
        """The same store scored by `scorer` (None: the old cosine + agreement rule)."""
        if scorer is not None and self.lexicon is None:
            raise ValueError("a scorer needs a store with key words (written by this version)")
        return self._replaced(self.entries, scorer)

    def relabelled(self, labels: Mapping[str, Mapping]) -> "FAQStore":
        """The same entries and vectors, each entry applying to whom `labels` (chunk id -> record)
        says its chunks apply to; an entry none of whose chunks is labelled keeps its own record.
        (The evaluation's true-label system: the FAQ tier filtered by the truth.)"""
        entries = []
        for entry in self.entries:
            given = [labels[c] for c in entry.chunk_ids if c in labels]
            applies_to = union_applies_to(given, self.schema) if given else entry.applies_to
            entries.append(replace(entry, applies_to=applies_to))
        return self._replaced(entries, self.scorer)

    def check_embedder(self, embedder) -> None:
        """Question vectors and query vectors must come from one model, or cosines mean nothing."""
        stored = self.meta.get("embedder_version")
        if stored is not None and stored != getattr(embedder, "version", None):
            raise ValueError(f"FAQ store embedded with {stored!r}, queries with {getattr(embedder, 'version', None)!r}")

    def agreement(self, query_tokens: Sequence[str], row: int) -> float:
        """min(share of the query's key words in the entry's question, share of the question's
        key words in the query), each IDF-weighted over the store's questions; 1.0 when the
        store has no tokens (the check cannot be made)."""
        if self._terms is None:
            return 1.0
        query, question = frozenset(query_tokens), self._terms[row]
        if not query or not question:
            return 0.0
        weight = lambda terms: sum(self._idf.get(t, self._unseen_idf) for t in terms)  # noqa: E731
        shared = weight(query & question)
        return min(shared / weight(query), shared / weight(question))

    def eligible_rows(self, known: Mapping | None) -> np.ndarray:
        """The rows of the entries that do not conflict with the `known` profile."""
        mask = self._eligibility.mask(known_profile(known, self.schema))
        return np.arange(len(self.entries)) if mask is None else np.flatnonzero(mask)

    def cosines(self, query_vector) -> tuple[np.ndarray, np.ndarray]:
        """Cosine of the query with every question and every answer (no answer vectors: the
        question's cosine stands in)."""
        query = np.asarray(query_vector, dtype=np.float32).reshape(-1)
        if query.shape[0] != self.vectors.shape[1]:
            raise ValueError(f"query vector has {query.shape[0]} dimensions, the FAQ store {self.vectors.shape[1]}")
        norm = float(np.linalg.norm(query))
        if norm == 0:
            zeros = np.zeros(len(self.entries), dtype=np.float32)
            return zeros, zeros
        query = query / norm
        questions = self.vectors @ query
        answers = self.answer_vectors @ query if self.answer_vectors is not None else questions
        return questions, answers

    def features(self, cosines: tuple[np.ndarray, np.ndarray], query_tokens: Sequence[str], rows) -> np.ndarray:
        """The scorer's features (advisor.faq.match.FEATURES) of the query against `rows`
        (`cosines`: the query's `cosines()`, computed once per query)."""
        if self.lexicon is None:
            raise ValueError("this FAQ store has no key words: it predates the match features")
        rows = np.asarray(rows, dtype=np.int64)
        questions, answers = cosines
        return self.lexicon.features(query_tokens, rows, questions[rows], answers[rows])

    def candidates(self, cosines: tuple[np.ndarray, np.ndarray], query_tokens: Sequence[str] | None,
                   rows: np.ndarray) -> np.ndarray:
        """Of the eligible `rows`, those worth scoring: the CANDIDATE_POOL closest by question and
        by answer, and every entry sharing a key word with the query (aliases folded)."""
        questions, answers = cosines
        if rows.size <= CANDIDATE_POOL:
            return rows
        keep = set(rows[np.argsort(-questions[rows], kind="stable")[:CANDIDATE_POOL]].tolist())
        keep |= set(rows[np.argsort(-answers[rows], kind="stable")[:CANDIDATE_POOL]].tolist())
        if query_tokens and self.lexicon is not None:
            eligible = set(rows.tolist())
            keep |= self.lexicon.rows_sharing(fold_aliases(query_tokens, self.lexicon.aliases)) & eligible
        return np.array(sorted(keep), dtype=np.int64)

    def search(self, query_vector, known: Mapping | None, k: int = 20, hard: bool = True,
               query_tokens: Sequence[str] | None = None, min_agreement: float = MIN_AGREEMENT) -> list[FAQMatch]:
        """The k entries that match the query best, best first; hard=True first drops the entries
        that conflict with the known profile. With a scorer: scored by it over question and answer
        (`query_tokens`: the query's key words; without them only the dense features speak).
        Without one: cosine with the question, entries below `min_agreement` dropped."""
        if k <= 0 or not self.entries:
            return []
        cosines = self.cosines(query_vector)
        questions = cosines[0]
        rows = self.eligible_rows(known) if hard else np.arange(len(self.entries))
        if rows.size == 0:
            return []
        if self.scorer is not None:
            rows = self.candidates(cosines, query_tokens, rows)
            scores = self.scorer.score(self.features(cosines, query_tokens or (), rows))
            # best score first; ties by the question's cosine, then store order (reproducible)
            order = np.lexsort((rows, -questions[rows], -scores))[:k]
            return [FAQMatch(self.entries[rows[i]], float(scores[i]), rank) for rank, i in enumerate(order, 1)]
        # stable sort on -score: equal scores keep store order, so results are reproducible
        order = rows[np.argsort(-questions[rows], kind="stable")]
        if query_tokens is not None and min_agreement > 0:
            order = [row for row in order if self.agreement(query_tokens, int(row)) >= min_agreement]
        order = order[:k]
        return [FAQMatch(self.entries[row], float(questions[row]), rank) for rank, row in enumerate(order, 1)]


def save_scorer(directory: Path, scorer: Scorer, fitted: Mapping | None = None) -> None:
    """Write the fitted scorer beside the store (`fitted`: how it was fitted, for the record)."""
    data = {"scorer": scorer.as_dict(), "fitted": dict(fitted or {})}
    (Path(directory) / SCORER_FILE).write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
