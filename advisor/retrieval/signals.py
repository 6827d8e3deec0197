"""The two retrieval signals over one collection, each with the hard filter applied INSIDE the
search (so a selective filter never empties the top-k the way post-filtering would).

Both return [(row, score)] best first, ties broken by row, so a filtered ranking is exactly the
unfiltered one with the ineligible rows removed.
"""

from __future__ import annotations

import numpy as np
import tantivy

from advisor.index import fields
from advisor.index.store import Collection

Ranking = list[tuple[int, float]]


def bm25(collection: Collection, tokens: list[str], limit: int, filter_query: tantivy.Query | None = None) -> Ranking:
    """BM25 over the pre-tokenized morphemes: one SHOULD term clause per query token (repeats kept,
    as tantivy's own query parser does), the filter as a zero-score MUST clause."""
    terms = [part for token in tokens for part in token.lower().split()]
    if not terms or limit <= 0 or not len(collection):
        return []
    schema = collection.tantivy_schema
    text = tantivy.Query.boolean_query(
        [(tantivy.Occur.Should, tantivy.Query.term_query(schema, fields.BODY_FIELD, t)) for t in terms])
    query = text if filter_query is None else tantivy.Query.boolean_query([
        (tantivy.Occur.Must, text),
        (tantivy.Occur.Must, tantivy.Query.const_score_query(filter_query, 0.0)),
    ])
    hits = collection.searcher.search(query, limit, count=False).hits
    rows = collection.searcher.fast_field_values(fields.ROW_FIELD, [address for _, address in hits])
    return sorted(((int(row), float(score)) for (score, _), row in zip(hits, rows)), key=lambda h: (-h[1], h[0]))


def dense_scores(collection: Collection, query_vector: np.ndarray) -> np.ndarray:
    """Cosine similarity of every row with the query (rows and query are unit length)."""
    return np.asarray(collection.vectors @ np.asarray(query_vector, dtype=np.float32))


def dense_exact(scores: np.ndarray, limit: int, mask: np.ndarray | None = None) -> Ranking:
    """Top `limit` of precomputed scores over the eligible rows: exact, so filtering loses nothing."""
    rows = np.arange(len(scores)) if mask is None else np.flatnonzero(mask)
    return _top(rows, scores[rows], limit)


def dense_exact_rows(collection: Collection, query_vector: np.ndarray, limit: int, rows: np.ndarray) -> Ranking:
    """Exact top `limit` among `rows` only, scoring just those rows (not every row, as
    dense_scores does): for few eligible rows in a large collection."""
    return _top(rows, np.asarray(collection.vectors[rows] @ np.asarray(query_vector, dtype=np.float32)), limit)


def _top(rows: np.ndarray, scores: np.ndarray, limit: int) -> Ranking:
    """The `limit` best (row, score) of parallel arrays, best first, ties by row."""
    if not len(rows) or limit <= 0:
        return []
    if len(rows) > limit:  # partial selection first; only the top `limit` are fully sorted
        keep = np.argpartition(-scores, limit - 1)[:limit]
        # argpartition breaks ties at the cut arbitrarily: widen to every row tied with the cut
        cut = scores[keep].min()
        keep = np.flatnonzero(scores >= cut)
        rows, scores = rows[keep], scores[keep]
    order = np.lexsort((rows, -scores))[:limit]
    return list(zip(rows[order].tolist(), scores[order].tolist()))


def dense_ann(collection: Collection, query_vector: np.ndarray, limit: int, mask: np.ndarray | None, overfetch: int) -> Ranking:
    """HNSW (usearch) top candidates, filtered afterwards: approximate, and a selective filter can
    leave fewer than `limit` (usearch's Python API has no filtered search)."""
    if collection.ann is None or limit <= 0:
        return []
    count = min(len(collection), limit if mask is None else limit * overfetch)
    matches = collection.ann.search(np.asarray(query_vector, dtype=np.float32), count)
    hits = [(int(key), 1.0 - float(distance)) for key, distance in zip(matches.keys, matches.distances)
            if mask is None or mask[int(key)]]
    return sorted(hits, key=lambda h: (-h[1], h[0]))[:limit]


def language_balanced(ranking: Ranking, languages: np.ndarray) -> Ranking:
    """A dense ranking with each language's offset removed: a passage's cosine minus the mean cosine
    of the ranking's passages in its language. For a question in another language than most of the
    material: a multilingual encoder scores passages in the question's language higher whatever
    they say (development sets: an English question's few English summary pages outranked the
    Korean page that answers it), so passages are compared by how far each stands above its own
    language's level. Standardizing by each language's spread as well ranked better on one
    college and put a Korean home page's English link list above the English page that answers
    "do international students need health insurance?" (a small group's best stands out less
    than a large group's). Ties by row, as every ranking."""
    if not ranking:
        return ranking
    rows = np.fromiter((row for row, _ in ranking), dtype=np.int64, count=len(ranking))
    scores = np.fromiter((score for _, score in ranking), dtype=np.float64, count=len(ranking))
    written_in = languages[rows]
    above = np.empty_like(scores)
    for language in np.unique(written_in):
        group = written_in == language
        above[group] = scores[group] - scores[group].mean()
    order = np.lexsort((rows, -above))
    return list(zip(rows[order].tolist(), above[order].tolist()))
