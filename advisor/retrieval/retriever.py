"""proFILL retrieval (docs/method.md §A online steps 5-6), one library for serving and evaluation:
soft profile augmentation, hard filtering inside each search, BM25 / dense / hybrid (RRF) per
collection, recency weighting of dynamic chunks and the time-aware 7 + 3 aggregation.

Every search also leaves out the notices past their expiry on its `today` (the chunk store's
`expires_on`: the build's expire_after_days rule, applied again on every day the build is served,
so a server running a months-old build never cites a notice that has since expired)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Set
from dataclasses import dataclass
from datetime import date
from itertools import repeat
from operator import itemgetter
from typing import Any, Callable, Iterable, Mapping, Sequence, Union

import numpy as np

from advisor import clock
from advisor.config import hnsw_above
from advisor.index.store import Collection, IndexBuild
from advisor.language.script import language_of
from advisor.retrieval import fusion, signals
from advisor.retrieval import profile as prof
from advisor.retrieval.params import RetrievalParams
from advisor.retrieval.results import Hit, RetrievalResult, RetrievedChunk

MODES = ("bm25", "dense", "hybrid")
# Soft augmentation: True writes every known value in the prefix, False turns it off, a set of
# attribute names writes only those (the dialogue writes only what the question depends on:
# "외국인 유학생" in front of a question about major credits pulls in documents for international
# students, not the student's own). On, it also adds the specificity ranking (RetrievalParams).
Soft = Union[bool, Set[str]]
BATCH_BLOCK = 256  # queries per tokenizer / embedder call
LANGUAGE_SAMPLE = 400  # the characters of a passage its language is read from (its opening says it)

Tokenize = Callable[[list[str]], list[list[str]]]


@dataclass(frozen=True)
class _Query:
    query: str
    text: str  # prefix + query
    prefix: str
    tokens: list[str]
    vector: np.ndarray | None
    known: prof.Known
    soft: bool = True  # soft augmentation on: the prefix and the specificity ranking
    written: prof.Known | None = None  # the known values the prefix writes: what specificity ranks by
    foreign: bool = False  # written in another language than most of the material (signals.language_balanced)


class BatchSearcher:
    """`search` is a batch of one: a subclass implements `search_batch` (the Retriever, or a cache
    in front of one), so both answer the same call the same way. `k=None`: the retrieval
    settings' static_k + dynamic_k."""

    def search(self, query: str, profile: Mapping[str, Any] | None = None, mode: str = "hybrid",
               k: int | None = None, soft: Soft = True, hard: bool = True, time_sensitive: bool | None = None,
               debug: bool = False, today: date | None = None) -> RetrievalResult:
        return self.search_batch([query], [profile], mode=mode, k=k, soft=soft, hard=hard,
                                 time_sensitive=None if time_sensitive is None else [time_sensitive],
                                 debug=debug, today=today)[0]

    def search_batch(self, queries: Sequence[str], profiles: Sequence[Mapping | None] | None = None,
                     mode: str = "hybrid", k: int | None = None, soft: Soft = True, hard: bool = True,
                     time_sensitive: Sequence[bool | None] | None = None, debug: bool = False,
                     today: date | None = None) -> list[RetrievalResult]:
        raise NotImplementedError


class Retriever(BatchSearcher):
    def __init__(self, build: IndexBuild, tokenize: Tokenize, params: RetrievalParams | None = None) -> None:
        self.build, self.tokenize, self.params = build, tokenize, params or RetrievalParams()
        self.schema = build.schema
        self.collections: dict[str, Collection] = build.collections
        self._eligibility = {n: prof.EligibilityTable(c.applies_to, self.schema) for n, c in self.collections.items()}
        # Plain Python columns: building result objects from a DataFrame row by row is slow.
        self._columns = {n: c.chunks.to_dict(as_series=False) for n, c in self.collections.items()}
        # per collection and attribute: which rows are limited on it (the specificity ranking's count)
        self._limited = {n: {name: np.array([a.get(name) is not None for a in c.applies_to], dtype=bool)
                             for name in self.schema} for n, c in self.collections.items()}
        self._weights_on: tuple[date, np.ndarray] | None = None  # the dynamic rows' recency weights, for one day
        # each row's last citable day as an ordinal (no expiry: the largest int), per collection
        # with any expiring row; and which rows have expired, for one day
        self._expires = {n: e for n, c in self.collections.items() if (e := _expiry_ordinals(c.chunks)) is not None}
        self._expired_on: tuple[date, dict[str, np.ndarray]] | None = None
        # each passage's language, and the one most of the material is written in
        self._languages = {n: np.array([language_of(text[:LANGUAGE_SAMPLE]) for text in c.chunks["text"].to_list()])
                           for n, c in self.collections.items()}
        counts = Counter(code for codes in self._languages.values() for code in codes.tolist())
        self.language = counts.most_common(1)[0][0] if counts else None

    # ------------------------------------------------------------------ public API
    def search_batch(self, queries: Sequence[str], profiles: Sequence[Mapping | None] | None = None,
                     mode: str = "hybrid", k: int | None = None, soft: Soft = True, hard: bool = True,
                     time_sensitive: Sequence[bool | None] | None = None, debug: bool = False,
                     today: date | None = None) -> list[RetrievalResult]:
        """Many queries at once: one tokenizer call and one embedder call per block of queries (the
        evaluation path). Dense scores stay one matrix-vector product per query: a batched matrix
        product rounds differently and reorders near-ties, and evaluation must give exactly what
        serving gives (at thousands of chunks a product takes microseconds anyway). `k` defaults
        to the retrieval settings' static_k + dynamic_k."""
        _check_mode(mode)
        k = self.params.k if k is None else k
        profiles = list(profiles) if profiles is not None else [None] * len(queries)
        decisions = list(time_sensitive) if time_sensitive is not None else [None] * len(queries)
        if not len(profiles) == len(decisions) == len(queries):
            raise ValueError("queries, profiles and time_sensitive must have the same length")
        today = today or clock.today()
        results: list[RetrievalResult] = []
        for start in range(0, len(queries), BATCH_BLOCK):
            block = slice(start, start + BATCH_BLOCK)
            prepared = self._prepare(queries[block], profiles[block], mode, soft)
            for j, q in enumerate(prepared):
                scores = self._dense_scores(q, mode)
                results.append(self._search_one(q, mode, k, hard, decisions[start + j], debug, today, scores))
        return results

    def rank(self, collection: str, query: str, profile: Mapping | None = None, mode: str = "hybrid",
             limit: int | None = None, soft: Soft = True, hard: bool = True, today: date | None = None) -> list[Hit]:
        """One collection's ranking, before recency and aggregation: the unit the filtering
        guarantees are stated on (hard=True equals hard=False minus the conflicting chunks). With
        `today`, the notices expired on that day are left out as a search leaves them out."""
        _check_mode(mode)
        q = self._prepare([query], [profile], mode, soft)[0]
        return self._rank(collection, q, mode, hard, limit or self.params.candidates, today=today)

    def expired(self, collection: str, today: date) -> np.ndarray | None:
        """Which rows of `collection` are notices past their expiry on `today` (None: none are)."""
        cached = self._expired_on
        if cached is None or cached[0] != today:
            ordinal = today.toordinal()
            masks = {n: mask for n, ends in self._expires.items() if (mask := ends < ordinal).any()}
            cached = self._expired_on = (today, masks)  # replaced whole: a search on another thread sees one day
        return cached[1].get(collection)

    def chunk_id(self, collection: str, row: int) -> str:
        return self.collections[collection].chunk_ids[row]

    # ------------------------------------------------------------------ preparation
    def _prepare(self, queries: Sequence[str], profiles: Sequence[Mapping | None], mode: str, soft: Soft) -> list[_Query]:
        known = [prof.known_profile(p, self.schema) for p in profiles]
        written = [_written(kn, soft) for kn in known]
        prefixes = [prof.profile_prefix(w, self.schema) for w in written]
        texts = [f"{prefix} {query}".strip() for prefix, query in zip(prefixes, queries)]
        # the embedder reads the prefixed text; BM25 the question's own words unless the params say
        # otherwise: what is needed is tokenized in one call
        embedded = mode != "bm25"
        own_words = not self.params.prefix_in_bm25 and any(prefixes)
        wanted = (list(texts) if embedded or not own_words else []) + (list(queries) if own_words else [])
        found = self.tokenize(wanted) if wanted else []
        tokens = found[len(found) - len(queries):] if own_words else found
        vectors = (self.build.embedder.embed_queries(texts, found[:len(texts)]) if embedded and texts
                   else [None] * len(texts))
        on = augmented(soft)
        return [_Query(q, t, p, list(tk), v, kn, on, w, language_of(q, self.language or "") != self.language)
                for q, t, p, tk, v, kn, w in zip(queries, texts, prefixes, tokens, vectors, known, written)]

    def _dense_scores(self, q: _Query, mode: str) -> dict[str, np.ndarray]:
        """Cosine of the query with every chunk, once per query (shared by the filtered search and
        the unfiltered one of debug mode)."""
        if mode == "bm25":
            return {}
        return {n: signals.dense_scores(c, q.vector) for n, c in self.collections.items() if self._exact(n)}

    def _exact(self, name: str) -> bool:
        """Exact dense search for this collection, or HNSW (params.dense_exact; None: by size)."""
        collection = self.collections[name]
        above = hnsw_above(self.params.dense_exact, self.params.dense_exact_max_rows)
        return collection.ann is None or above is None or len(collection) <= above

    # ------------------------------------------------------------------ one collection
    def _rank(self, name: str, q: _Query, mode: str, hard: bool, limit: int, scores: np.ndarray | None = None,
              today: date | None = None) -> list[Hit]:
        collection = self.collections[name]
        known = q.known if hard else {}
        expired = self.expired(name, today) if today is not None else None
        signal_limit = max(limit, self.params.candidates) if mode == "hybrid" else limit
        lexical = self._bm25(collection, q.tokens, known, signal_limit, expired) if mode != "dense" else []
        semantic = (self._dense(name, q.vector, known, signal_limit, scores, q.foreign, expired)
                    if mode != "bm25" else [])
        if mode == "bm25":
            return _hits((row, score, rank, None, 1.0) for rank, (row, score) in enumerate(lexical, 1))
        if mode == "dense":
            return _hits((row, score, None, rank, 1.0) for rank, (row, score) in enumerate(semantic, 1))
        rankings = [lexical, semantic]
        if q.soft and q.written and self.params.specificity:
            # only what the question depends on: a student's grade does not make a notice for
            # their grade the answer to a question about the campus map
            rankings.append(self._specific(collection, fusion.rrf(rankings, self.params.rrf_k), q.written, hard))
        fused = fusion.rrf(rankings, self.params.rrf_k)[:limit]
        return [Hit(row, score, bm25_rank=ranks[0], dense_rank=ranks[1]) for row, score, ranks in fused]

    def _specific(self, collection: Collection, fused, known: prof.Known, filtered: bool) -> list[tuple[int, float]]:
        """The candidates written for this student: limited to the student's own value on the most
        known attributes, then in fused order. Chunks limited to none are left out of this
        ranking rather than ranked last (a general page is not penalized, only not promoted)."""
        if not fused:
            return []
        rows = [row for row, _, _ in fused]
        limited_on = self._limited[collection.name]
        counts = np.zeros(len(rows), dtype=np.int64)
        for name in known:
            counts += limited_on[name][rows]
        counts = counts.tolist()
        if not filtered:
            # unfiltered (the no-hard-filter ablation), a limit to someone else's value is no match;
            # after the filter, no candidate has one
            counts = [count - len(prof.conflicts(collection.applies_to[row], known, self.schema)) if count else 0
                      for row, count in zip(rows, counts)]
        ranked = sorted((c for c in zip(rows, counts) if c[1]), key=lambda c: -c[1])  # stable: fused order on ties
        return [(row, float(count)) for row, count in ranked]

    def _bm25(self, collection: Collection, tokens: list[str], known: prof.Known, limit: int,
              expired: np.ndarray | None = None):
        query_filter = prof.tantivy_filter(known, self.schema, collection.tantivy_schema)
        if expired is None:
            return signals.bm25(collection, tokens, limit, query_filter)
        # the index has no expiry field: asking for as many more as there are expired rows, then
        # dropping those, gives exactly the top `limit` of the rest
        found = signals.bm25(collection, tokens, limit + int(expired.sum()), query_filter)
        return [hit for hit in found if not expired[hit[0]]][:limit]

    def _dense(self, name: str, vector, known: prof.Known, limit: int, scores: np.ndarray | None,
               balanced: bool = False, expired: np.ndarray | None = None):
        """The dense ranking of the eligible rows; `balanced`: of the candidate pool, by each
        passage's height above its language's level (signals.language_balanced), cut to `limit`."""
        if not balanced:
            return self._dense_ranking(name, vector, known, limit, scores, expired)
        pool = self._dense_ranking(name, vector, known, max(limit, self.params.candidates), scores, expired)
        return signals.language_balanced(pool, self._languages[name])[:limit]

    def _dense_ranking(self, name: str, vector, known: prof.Known, limit: int, scores: np.ndarray | None,
                       expired: np.ndarray | None = None):
        collection, mask = self.collections[name], self._eligibility[name].mask(known)
        if expired is not None:  # a new array: the eligibility mask is cached
            mask = ~expired if mask is None else mask & ~expired
        if not self._exact(name):
            found = signals.dense_ann(collection, vector, limit, mask, self.params.ann_overfetch)
            if mask is None or len(found) >= limit:
                return found
            # a selective filter left HNSW short: its few eligible rows are cheap to score exactly
            return signals.dense_exact_rows(collection, vector, limit, np.flatnonzero(mask))
        if scores is None:
            scores = signals.dense_scores(collection, vector)
        return signals.dense_exact(scores, limit, mask)

    # ------------------------------------------------------------------ aggregation
    def _search_one(self, q: _Query, mode: str, k: int, hard: bool, time_sensitive: bool | None,
                    debug: bool, today: date, scores: dict[str, np.ndarray]) -> RetrievalResult:
        decided = fusion.is_time_sensitive(q.query, self.params.time_words) if time_sensitive is None else time_sensitive
        limit = max(k, self.params.candidates)
        ranked = {n: self._rank(n, q, mode, hard, self._depth(n, mode, k, limit), scores.get(n), today)
                  for n in self.collections}
        candidates = {n: len(h) for n, h in ranked.items()}
        take = fusion.quotas(k, self.params.static_k, self.params.dynamic_k, decided, candidates)
        if "dynamic" in ranked:  # re-weighting keeps the count, so the quotas come first
            ranked["dynamic"] = self._recency(ranked["dynamic"], today, take["dynamic"])
        chosen = self._merge(ranked, take)
        result = RetrievalResult(
            query=q.query, query_text=q.text, mode=mode, time_sensitive=decided, profile=dict(q.known),
            chunks=[self._chunk(rank, name, hit) for rank, (name, hit) in enumerate(chosen, 1)])
        if debug:
            result.debug = self._debug(q, mode, hard, limit, scores, candidates, take, time_sensitive, today)
        return result

    @staticmethod
    def _depth(name: str, mode: str, k: int, limit: int) -> int:
        """How deep one collection is ranked: the candidate pool, except a single signal's static
        ranking, which nothing reorders afterwards (no fusion, no recency): its top k is enough."""
        return k if mode != "hybrid" and name != "dynamic" else limit

    def _recency(self, hits: list[Hit], today: date, keep: int) -> list[Hit]:
        """The best `keep` of the dynamic ranking re-weighted by age (score, then row). In numpy,
        and Hits made only for those kept: a search re-weights every candidate."""
        if not hits or keep <= 0:
            return []
        rows = np.fromiter(map(itemgetter(0), hits), dtype=np.int64, count=len(hits))
        weights = self._recency_weights(today)[rows]
        scores = fusion.weighted(np.fromiter(map(itemgetter(1), hits), dtype=np.float64, count=len(hits)), weights)
        order = np.lexsort((rows, -scores))[:keep].tolist()
        scores, weights = scores.tolist(), weights.tolist()
        return _hits((hits[i].row, scores[i], hits[i].bm25_rank, hits[i].dense_rank, weights[i]) for i in order)

    def _recency_weights(self, today: date) -> np.ndarray:
        """Every dynamic row's weight on `today`, computed once a day rather than once per hit
        (the pair is replaced whole, so a search on another thread sees one day's or the other's)."""
        cached = self._weights_on
        if cached is None or cached[0] != today:
            weights = [fusion.recency_weight(published, today, self.params.half_life_days)
                       for published in self._columns["dynamic"]["published_on"]]
            cached = self._weights_on = (today, np.array(weights, dtype=np.float64))
        return cached[1]

    def _merge(self, ranked: dict[str, list[Hit]], take: dict[str, int]) -> list[tuple[str, Hit]]:
        # Primary = the collection with the larger share (static unless time-sensitive); it wins ties.
        order = sorted(take, key=lambda n: -take[n])
        chosen = [(n, hit) for n in order for hit in ranked.get(n, [])[:take[n]]]
        if self.params.merge == "primary_first":
            return chosen
        return sorted(chosen, key=lambda c: (-c[1].score, order.index(c[0])))

    def _chunk(self, rank: int, name: str, hit: Hit) -> RetrievedChunk:
        cols, row = self._columns[name], hit.row
        return RetrievedChunk(
            rank=rank, chunk_id=cols["chunk_id"][row], score=hit.score, bm25_rank=hit.bm25_rank,
            dense_rank=hit.dense_rank, collection=name, doc_url=cols["doc_url"][row], title=cols["title"][row],
            text=cols["text"][row], applies_to=self.collections[name].applies_to[row], kind=cols["kind"][row],
            published_on=cols["published_on"][row], heading_path=tuple(cols["heading_path"][row] or ()),
            page=cols["page"][row], recency=hit.recency)

    # ------------------------------------------------------------------ debug
    def _debug(self, q: _Query, mode, hard, limit, scores, candidates, take, time_sensitive, today) -> dict:
        info = {
            "query_text": q.text, "profile_prefix": q.prefix, "query_tokens": q.tokens, "known_profile": dict(q.known),
            "time_sensitive_source": "rule" if time_sensitive is None else "caller", "quotas": take,
            "candidates": candidates,
            "eligible": {n: (len(c) if (m := self._eligibility[n].mask(q.known if hard else {})) is None else int(m.sum()))
                         for n, c in self.collections.items()},
            "filtered_out": [],
            # notices past their expiry on the search's day, left out of every ranking
            "expired": {n: int(m.sum()) for n in self.collections if (m := self.expired(n, today)) is not None},
        }
        if hard and q.known:  # an unfiltered search, only to explain what the filter removed
            for name in self.collections:
                for position, hit in enumerate(self._rank(name, q, mode, False, limit, scores.get(name), today), 1):
                    reasons = prof.conflicts(self.collections[name].applies_to[hit.row], q.known, self.schema)
                    if reasons:
                        info["filtered_out"].append({
                            "chunk_id": self.collections[name].chunk_ids[hit.row], "collection": name,
                            "unfiltered_rank": position, "score": hit.score, "bm25_rank": hit.bm25_rank,
                            "dense_rank": hit.dense_rank, "reasons": [r.as_dict() for r in reasons]})
        return info


def _expiry_ordinals(chunks) -> np.ndarray | None:
    """Each row's `expires_on` as a day ordinal (no expiry: the largest int64), or None when no row
    of the collection expires (or the build predates the column)."""
    if "expires_on" not in chunks.columns or chunks["expires_on"].null_count() == len(chunks):
        return None
    never = np.iinfo(np.int64).max
    return np.array([never if day is None else day.toordinal() for day in chunks["expires_on"].to_list()],
                    dtype=np.int64)


def _hits(fields: Iterable[tuple]) -> list[Hit]:
    """Hits from full tuples, without the keyword-defaults constructor: a search makes hundreds."""
    return list(map(tuple.__new__, repeat(Hit), fields))


def augmented(soft: Soft) -> bool:
    """Is the soft augmentation on? An empty set writes nothing but stays on (the specificity
    ranking still runs)."""
    return soft is True or isinstance(soft, Set)


def written_names(known: prof.Known, soft: Soft) -> frozenset[str]:
    """The known attributes the soft prefix writes: with `augmented(soft)`, all a search's prefix
    depends on (a cache keys a search by them: True and the set of every known name are one)."""
    return frozenset(_written(known, soft))


def _written(known: prof.Known, soft: Soft) -> prof.Known:
    """The known values the soft prefix writes."""
    if soft is True:
        return known
    if not soft:
        return {}
    return {name: value for name, value in known.items() if name in soft}


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
