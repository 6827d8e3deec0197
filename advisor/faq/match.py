"""How well a student's wording matches an FAQ entry: pairwise features and the one score that
combines them (docs/method.md §B.1). Serving code: no build-time imports.

A paraphrase shares little with the entry's QUESTION ("출입증 잃어버렸는데 새로 받으려면?" vs
"학생증 재발급 절차는?") but often shares words with its ANSWER, and the institution names the same
department or status in several ways. So an entry is compared with the query on both texts, dense and
lexical, after the institution's own aliases are folded onto one term:

    cos_question   cosine of the query vector with the question vector
    cos_answer     cosine with the answer vector (a store without answer vectors: cos_question)
    query_in_q     IDF-weighted share of the query's key words found in the question
    q_in_query     IDF-weighted share of the question's key words found in the query
    query_in_qa    IDF-weighted share of the query's key words found in question + answer
    bm25_qa        BM25 of the query over question + answer, divided by the query's own maximum
                   (every query word matched at the highest term frequency), so it lies in [0, 1]

All features lie in [0, 1] (cosines clipped at 0), whatever the institution; a logistic model fitted
per build (`advisor/faq/fit.py`) turns them into one probability-like score, so the threshold is
chosen on a scale that means the same thing in every build.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

FEATURES = ("cos_question", "cos_answer", "query_in_q", "q_in_query", "query_in_qa", "bm25_qa")
BM25_K1, BM25_B = 1.2, 0.75


@dataclass(frozen=True)
class Scorer:
    """sigmoid(bias + weights . features): the probability-like match score of a (query, entry) pair."""

    weights: tuple[float, ...]
    bias: float
    features: tuple[str, ...] = FEATURES

    def __post_init__(self) -> None:
        if len(self.weights) != len(self.features):
            raise ValueError(f"scorer: {len(self.weights)} weights for {len(self.features)} features")

    def score(self, matrix: np.ndarray) -> np.ndarray:
        z = self.bias + np.asarray(matrix, dtype=np.float64) @ np.asarray(self.weights, dtype=np.float64)
        return 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))

    def as_dict(self) -> dict:
        return {"features": list(self.features), "weights": list(self.weights), "bias": self.bias}

    @classmethod
    def from_dict(cls, data: Mapping) -> "Scorer":
        return cls(weights=tuple(float(w) for w in data["weights"]), bias=float(data["bias"]),
                   features=tuple(data["features"]))


# With a pretrained encoder the score is a fixed fusion, not fitted: both cosines (what the wording
# means, against the entry's question and against the whole entry) plus a tenth of each lexical view
# of the whole entry (its key words, BM25), centred so that 0.5 falls near where paraphrases and
# unrelated questions of the development sets part (cos_question + cos_answer ~ 1.85). A scorer
# fitted on rule paraphrases, which share the question's words, learned to trust words over meaning:
# paraphrases in other words that e5 put first scored 0.002-0.2 (development traces, demo college).
# The build's threshold is still calibrated on this scale (advisor/faq/calibrate.py).
ENCODER_FUSION_WEIGHTS = (10.0, 10.0, 0.0, 0.0, 1.0, 1.0)
ENCODER_FUSION_BIAS = -18.5


def encoder_fusion() -> "Scorer":
    return Scorer(weights=ENCODER_FUSION_WEIGHTS, bias=ENCODER_FUSION_BIAS)


def fold_aliases(tokens: Sequence[str], aliases: Mapping[str, str]) -> list[str]:
    """Every alias replaced by its canonical term (컴공 / 컴퓨터학과 -> one term); order kept."""
    return [aliases.get(t, t) for t in tokens]


class Lexicon:
    """The entries' key words (question; question + answer), alias-folded, with their IDF over the
    entries' question + answer texts and BM25's length statistics."""

    def __init__(self, question_terms: Sequence[Sequence[str]], answer_terms: Sequence[Sequence[str]] | None,
                 aliases: Mapping[str, str] | None = None) -> None:
        self.aliases = dict(aliases or {})
        self.question = [frozenset(fold_aliases(t, self.aliases)) for t in question_terms]
        answers = answer_terms if answer_terms is not None else [()] * len(self.question)
        self.both_tf: list[dict[str, int]] = []
        for question, answer in zip(question_terms, answers):
            tf: dict[str, int] = {}
            for term in fold_aliases([*question, *answer], self.aliases):
                tf[term] = tf.get(term, 0) + 1
            self.both_tf.append(tf)
        self.lengths = np.array([sum(tf.values()) for tf in self.both_tf], dtype=np.float64)
        self.mean_length = float(self.lengths.mean()) if len(self.lengths) and self.lengths.mean() > 0 else 1.0
        frequency: dict[str, int] = {}
        for tf in self.both_tf:
            for term in tf:
                frequency[term] = frequency.get(term, 0) + 1
        n = len(self.both_tf)
        self.idf = {term: math.log((n + 1) / (df + 1)) + 1.0 for term, df in frequency.items()}
        self.unseen_idf = math.log(n + 1) + 1.0  # a word no entry has: as rare as can be
        self.postings: dict[str, list[int]] = {}
        for row, tf in enumerate(self.both_tf):
            for term in tf:
                self.postings.setdefault(term, []).append(row)

    def weight(self, term: str) -> float:
        return self.idf.get(term, self.unseen_idf)

    def rows_sharing(self, terms: Sequence[str]) -> set[int]:
        return {row for term in set(terms) for row in self.postings.get(term, ())}

    def features(self, query_terms: Sequence[str], rows: np.ndarray, cos_question: np.ndarray,
                 cos_answer: np.ndarray) -> np.ndarray:
        """The FEATURES of the query against each of `rows` (cosines given, aligned with rows)."""
        query = frozenset(fold_aliases(query_terms, self.aliases))
        out = np.zeros((len(rows), len(FEATURES)), dtype=np.float64)
        out[:, 0] = np.clip(cos_question, 0.0, 1.0)
        out[:, 1] = np.clip(cos_answer, 0.0, 1.0)
        if not query:
            return out
        query_weight = sum(self.weight(t) for t in query)
        # the query's own BM25 ceiling: every word matched with tf -> infinity at average length
        ceiling = sum(self.weight(t) * (BM25_K1 + 1) for t in query)
        for i, row in enumerate(rows):
            question, tf = self.question[row], self.both_tf[row]
            shared_q = sum(self.weight(t) for t in query & question)
            question_weight = sum(self.weight(t) for t in question)
            out[i, 2] = shared_q / query_weight
            out[i, 3] = shared_q / question_weight if question_weight else 0.0
            out[i, 4] = sum(self.weight(t) for t in query if t in tf) / query_weight
            norm = BM25_K1 * (1 - BM25_B + BM25_B * self.lengths[row] / self.mean_length)
            bm25 = sum(self.weight(t) * tf[t] * (BM25_K1 + 1) / (tf[t] + norm) for t in query if t in tf)
            out[i, 5] = min(1.0, bm25 / ceiling)
        return out

