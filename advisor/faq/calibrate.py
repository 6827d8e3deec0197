"""Choose t_FAQ, the URAG tier-1 threshold, for the embedder in use (docs/method.md §B.6).

The paper's 0.9 belongs to its own embedding model: cosines of an LSA model, a hashing model or
another API model sit on different scales. So the threshold is swept and the one maximizing the
MRR of the TWO-TIER system on generated queries is kept:

- FAQ queries: paraphrases of every seed FAQ question (gold: the entry's URL), asked by a student
  the entry applies to;
- document queries: questions made from the titles / headings of non-FAQ chunks (gold: the
  chunk's doc_url), whose answer is not in the FAQ, so the FAQ tier should let them through.

At threshold t, a query whose best eligible FAQ match scores >= t is answered by the FAQ tier
(reciprocal rank 1 when that entry's source_url is the gold, else 0: a verbatim answer is right or
wrong, there is no second rank); every other query goes to the document tier (1 / rank of the gold
doc_url in the profile-aware retrieval, 0 when absent). Every query is searched ONCE; each
threshold is then arithmetic over the stored outcomes.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from advisor.index import fields
from advisor.index.store import IndexBuild
from advisor.faq.paraphrase import paraphrases, question_forms
from advisor.faq.store import FAQ_KIND, FAQMatch, FAQStore

PAPER_THRESHOLD = 0.9
GRID_START, GRID_STOP, GRID_STEP = 0.50, 0.99, 0.01
TIE_TOLERANCE = 1e-12
METHODS = ("rule_paraphrases", "llm_paraphrases")

Tokenize = Callable[[list[str]], list[list[str]]]


@dataclass(frozen=True)
class CalibrationQuery:
    text: str
    gold: str  # the source URL whose content answers it
    profile: dict  # the asking student (canonical values)
    kind: str  # "faq" (a paraphrased FAQ question) | "document" (answer only in the documents)


@dataclass(frozen=True)
class QueryOutcome:
    """What the two tiers do with one query, independent of the threshold."""

    kind: str
    faq_score: float | None  # cosine of the best eligible FAQ entry (None: no eligible entry)
    faq_correct: bool  # that entry's source_url is the gold
    doc_rr: float  # 1 / rank of the gold in the document tier (0: not retrieved)


@dataclass(frozen=True)
class SweepPoint:
    threshold: float
    mrr: float  # of the two-tier system
    faq_share: float  # share of queries the FAQ tier answers
    faq_precision: float | None  # share of those FAQ answers that are right (None: it answered none)
    queries: int


@dataclass
class Calibration:
    threshold: float
    points: list[SweepPoint]
    queries: int
    method: str  # "rule_paraphrases" | "llm_paraphrases"
    faq_queries: int = 0
    document_queries: int = 0
    mrr_faq_off: float | None = None  # the document tier alone (no FAQ tier)
    seconds: float | None = None
    outcomes: list[QueryOutcome] = field(default_factory=list, repr=False)

    def point(self, threshold: float) -> SweepPoint:
        """The sweep point of `threshold` (computed from the stored outcomes if off the grid)."""
        for p in self.points:
            if math.isclose(p.threshold, threshold, abs_tol=1e-9):
                return p
        if not self.outcomes:
            raise KeyError(f"threshold {threshold} is not on the grid and no outcomes are stored")
        return point_at(self.outcomes, threshold)

    @property
    def chosen(self) -> SweepPoint:
        return self.point(self.threshold)

    def as_dict(self) -> dict:
        """JSON-able summary (for a build manifest or an evaluation row)."""
        data = {k: v for k, v in asdict(self).items() if k != "outcomes"}
        data["chosen"] = asdict(self.chosen)
        return data


# --------------------------------------------------------------------------- the sweep

FAQSearch = Callable[[Sequence[CalibrationQuery]], Sequence[FAQMatch | None]]
DocRank = Callable[[Sequence[CalibrationQuery]], Sequence[int | None]]


def evaluate(queries: Sequence[CalibrationQuery], faq_search: FAQSearch, doc_rank: DocRank) -> list[QueryOutcome]:
    """Each query through both tiers once. faq_search: the best eligible FAQ match per query (None
    when nothing is eligible); doc_rank: the 1-based rank of the gold in the documents (None: absent)."""
    queries = list(queries)
    best = list(faq_search(queries))
    ranks = list(doc_rank(queries))
    if not len(best) == len(ranks) == len(queries):
        raise ValueError("faq_search and doc_rank must return one result per query")
    outcomes = []
    for query, match, rank in zip(queries, best, ranks):
        if rank is not None and rank < 1:
            raise ValueError(f"ranks are 1-based, got {rank}")
        outcomes.append(QueryOutcome(
            kind=query.kind,
            faq_score=None if match is None else float(match.score),
            faq_correct=match is not None and match.entry.source_url == query.gold,
            doc_rr=0.0 if rank is None else 1.0 / rank,
        ))
    return outcomes


def point_at(outcomes: Sequence[QueryOutcome], threshold: float) -> SweepPoint:
    if not outcomes:
        raise ValueError("no queries to compute an MRR on")
    total, answered, correct = 0.0, 0, 0
    for o in outcomes:
        if o.faq_score is not None and o.faq_score >= threshold:
            answered += 1
            correct += o.faq_correct
            total += 1.0 if o.faq_correct else 0.0
        else:
            total += o.doc_rr
    n = len(outcomes)
    return SweepPoint(threshold=threshold, mrr=total / n, faq_share=answered / n,
                      faq_precision=correct / answered if answered else None, queries=n)


def sweep(queries: Sequence[CalibrationQuery], faq_search: FAQSearch, doc_rank: DocRank,
          thresholds: Sequence[float]) -> list[SweepPoint]:
    """The two-tier MRR (and the FAQ tier's share and precision) at every threshold."""
    outcomes = evaluate(queries, faq_search, doc_rank)
    return [point_at(outcomes, t) for t in thresholds]


def choose(points: Sequence[SweepPoint]) -> float:
    """The threshold of maximum MRR; on a tie the HIGHER one (verbatim answers only when sure)."""
    if not points:
        raise ValueError("no sweep points to choose from")
    best = max(p.mrr for p in points)
    return max(p.threshold for p in points if p.mrr >= best - TIE_TOLERANCE)


def threshold_grid(start: float = GRID_START, stop: float = GRID_STOP, step: float = GRID_STEP) -> list[float]:
    if step <= 0 or start > stop:
        raise ValueError("a threshold grid needs step > 0 and start <= stop")
    count = int(round((stop - start) / step)) + 1
    return [round(start + i * step, 6) for i in range(count)]


def grid_for(scores: Sequence[float | None]) -> list[float]:
    """The default grid, widened downwards when this embedder's best-match cosines sit lower
    (5th percentile below 0.5): a threshold must be able to reach the scores that occur."""
    observed = np.array([s for s in scores if s is not None], dtype=float)
    start = GRID_START
    if observed.size:
        start = min(GRID_START, max(0.0, math.floor(float(np.percentile(observed, 5)) * 100) / 100))
    return threshold_grid(start, GRID_STOP, GRID_STEP)


# --------------------------------------------------------------------------- queries

def student_for(applies_to: Mapping, schema: fields.Schema) -> dict:
    """A student an annotation applies to: per constrained attribute its first value, or the
    range's lower end; unconstrained attributes stay unknown."""
    profile = {}
    for name, attribute in schema.items():
        value = applies_to.get(name)
        if value:
            profile[name] = value[0] if fields.is_categorical(attribute) else int(value[0])
    return profile


def faq_queries(store: FAQStore, paraphrases_of: Callable[[str, str], Sequence[str]]) -> list[CalibrationQuery]:
    """Paraphrases of every seed question; paraphrases_of(source_url, question) -> texts."""
    out = []
    for entry in store.entries:
        if entry.origin != "seed":
            continue
        profile = student_for(entry.applies_to, store.schema)
        for text in paraphrases_of(entry.source_url, entry.question):
            out.append(CalibrationQuery(text, entry.source_url, profile, "faq"))
    return out


def document_queries(build: IndexBuild, seed: int = 0) -> list[CalibrationQuery]:
    """One question per distinct (document, topic) of the non-FAQ chunks, the topic being the
    document title with the chunk's deepest heading when that adds something."""
    out, seen = [], set()
    for collection in build.collections.values():
        chunks = collection.chunks
        for row, (doc_url, title, kind, headings) in enumerate(zip(
                chunks["doc_url"].to_list(), chunks["title"].to_list(), chunks["kind"].to_list(),
                chunks["heading_path"].to_list())):
            if kind == FAQ_KIND:
                continue
            topic = _topic(title, list(headings or ()))
            if not topic or (doc_url, topic) in seen:
                continue
            seen.add((doc_url, topic))
            forms = question_forms(topic)
            pick = _stable_index(f"{seed}\x00{doc_url}\x00{topic}", len(forms))
            profile = student_for(collection.applies_to[row], build.schema)
            out.append(CalibrationQuery(forms[pick], doc_url, profile, "document"))
    return out


def _topic(title: str | None, headings: list[str]) -> str:
    title = " ".join((title or "").split())
    last = " ".join(headings[-1].split()) if headings else ""
    if last and last not in title and title not in last:
        return f"{title} {last}".strip()
    return title or last


def _stable_index(key: str, size: int) -> int:
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") % size


def _batch_tokens(tokenize: Tokenize, texts: list[str]) -> Tokenize:
    """`tokenize` with `texts` done in one call up front (Kiwi is much faster on a batch); other
    texts still go through `tokenize`."""
    known = dict(zip(texts, tokenize(texts))) if texts else {}

    def cached(batch: list[str]) -> list[list[str]]:
        missing = [t for t in batch if t not in known]
        if missing:
            known.update(zip(missing, tokenize(missing)))
        return [known[t] for t in batch]

    return cached


def _cap(queries: list[CalibrationQuery], limit: int, seed: int) -> list[CalibrationQuery]:
    if len(queries) <= limit:
        return queries
    rng = random.Random(seed)
    keep = sorted(rng.sample(range(len(queries)), limit))
    return [queries[i] for i in keep]


# --------------------------------------------------------------------------- the two tiers

def store_search(store: FAQStore, embedder, tokenize: Tokenize, keywords: Tokenize | None = None) -> FAQSearch:
    """Tier 1 over `store`: the query embedded as it is (no profile prefix: questions are
    compared with questions), entries conflicting with the student's profile dropped."""

    def search(queries: Sequence[CalibrationQuery]) -> list[FAQMatch | None]:
        if not queries:
            return []
        texts = [q.text for q in queries]
        tokens = tokenize(texts)
        vectors = embedder.embed(texts, tokens)
        words = keywords(texts) if keywords is not None else tokens
        best = []
        for query, vector, query_tokens in zip(queries, vectors, words):
            matches = store.search(vector, query.profile, k=1, hard=True, query_tokens=query_tokens)
            best.append(matches[0] if matches else None)
        return best

    return search


def retriever_rank(retriever, k: int | None = None) -> DocRank:
    """Tier 2: the rank of the gold doc_url in the profile-aware hybrid retrieval (top k; None: the
    retriever's own static_k + dynamic_k, as the dialogue retrieves)."""

    def rank(queries: Sequence[CalibrationQuery]) -> list[int | None]:
        if not queries:
            return []
        results = retriever.search_batch([q.text for q in queries], [q.profile for q in queries], k=k)
        ranks = []
        for query, result in zip(queries, results):
            ranks.append(next((c.rank for c in result.chunks if c.doc_url == query.gold), None))
        return ranks

    return rank


def calibrate(build: IndexBuild, store: FAQStore, tokenize: Tokenize, retriever, seed: int = 0,
              max_queries: int = 800, paraphrases_per_question: int = 2,
              llm_paraphrases: Mapping[str, Sequence[str]] | None = None,
              thresholds: Sequence[float] | None = None, k: int | None = None, keywords: Tokenize | None = None) -> Calibration:
    """Sweep t_FAQ on generated queries and choose it (see the module docstring).

    llm_paraphrases: source_url -> LLM paraphrases of that seed question that are NOT in the
    store (advisor.faq.enrichment holds them apart); when given they replace the rule
    paraphrases (method "llm_paraphrases"). max_queries caps FAQ and document queries at half
    each (a side with fewer leaves its room to the other)."""
    started = time.perf_counter()
    store.check_embedder(build.embedder)
    if max_queries < 2:
        raise ValueError("max_queries must be at least 2")
    if llm_paraphrases:
        method = "llm_paraphrases"
        given = {url: [t for t in texts if t and t.strip()] for url, texts in llm_paraphrases.items()}
        faq = faq_queries(store, lambda url, question: given.get(url, ()))
    else:
        method = "rule_paraphrases"
        cached = _batch_tokens(tokenize, [e.question for e in store.entries if e.origin == "seed"])
        faq = faq_queries(store, lambda url, question: paraphrases(question, paraphrases_per_question, seed, cached))
    documents = document_queries(build, seed)
    half = max_queries // 2
    faq = _cap(faq, max(half, max_queries - len(documents)), seed)
    documents = _cap(documents, max_queries - len(faq), seed)
    queries = faq + documents
    if not queries:
        raise ValueError("no calibration queries: the build has no FAQ entries and no documents")
    outcomes = evaluate(queries, store_search(store, build.embedder, tokenize, keywords), retriever_rank(retriever, k))
    grid = list(thresholds) if thresholds is not None else grid_for([o.faq_score for o in outcomes])
    points = [point_at(outcomes, t) for t in grid]
    return Calibration(
        threshold=choose(points), points=points, queries=len(queries), method=method,
        faq_queries=len(faq), document_queries=len(documents),
        mrr_faq_off=point_at(outcomes, math.inf).mrr, seconds=time.perf_counter() - started, outcomes=outcomes,
    )
