"""Fitting the FAQ match scorer (`advisor.faq.match.Scorer`) for one build, at build time.

The scorer is a logistic model over the pairwise features of `advisor/faq/match.py`, fitted on
generated (query, entry) pairs of THIS build: a paraphrase of an entry's question with that entry is
a positive; the same query with the other close entries, a document-only question or an off-topic
question with any entry, a negative. Positives and negatives get equal total weight, so the score's
scale does not depend on how many entries an institution has. The queries it is fitted on are
disjoint from those the threshold is calibrated on (`advisor/faq/calibrate.py` splits them).

Also here: the institution's aliases as key-word folds, and off-topic probes of a generic kind
(campus life no advising corpus covers), split in two disjoint halves.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from advisor import language
from advisor.faq.match import FEATURES, Scorer
from advisor.faq.store import FAQStore

Tokenize = Callable[[list[str]], list[list[str]]]

NEGATIVES_PER_QUERY = 8  # the closest wrong entries of each query (the ones that could win)
L2 = 1.0  # ridge on the weights (not the bias): a few hundred pairs, six features
NEWTON_STEPS = 30


# --------------------------------------------------------------------------- aliases

def aliases_from_config(config, key_words: Tokenize) -> dict[str, str]:
    """key word -> canonical term, from every categorical profile attribute's value aliases (and
    button labels): each alias that Kiwi reads as ONE key word folds onto "<attribute>:<value>", so
    컴공 and 컴퓨터학과 match each other. A word that is an alias of two values is left alone."""
    from advisor.config import CategoricalAttribute

    pairs: list[tuple[str, str]] = []
    for name, attribute in config.profile.items():
        if not isinstance(attribute, CategoricalAttribute):
            continue
        for value, aliases in attribute.values.items():
            for alias in {*aliases, value, attribute.labels.get(value, "")}:
                if alias and alias.strip():
                    pairs.append((alias.strip(), f"{name}:{value}".lower()))
    if not pairs:
        return {}
    words = key_words([alias for alias, _ in pairs])
    seen: dict[str, set[str]] = {}
    for (_, canonical), tokens in zip(pairs, words):
        if len(tokens) == 1:
            seen.setdefault(tokens[0], set()).add(canonical)
    return {word: next(iter(terms)) for word, terms in sorted(seen.items()) if len(terms) == 1}


# --------------------------------------------------------------------------- off-topic probes

# Campus-life and everyday topics an advising corpus does not cover, each with the word a store
# would have to contain to cover it (advisor/language/<code>/probes.yaml). Two disjoint halves: one
# fits the scorer, the other helps choose the threshold.
OFFTOPIC_TOPICS: tuple[tuple[str, str], ...] = tuple(
    tuple(pair) for group in language.in_turn("probes", "offtopic") for pair in group)


def offtopic_probes(half: int, covered: Callable[[str], bool]) -> list[str]:
    """The off-topic questions of `half` (0 or 1) whose topic word the institution does not cover."""
    return [text for i, (topic, text) in enumerate(OFFTOPIC_TOPICS) if i % 2 == half and not covered(topic)]


# --------------------------------------------------------------------------- answer probes

_PROBE_FRAMES_KO = tuple(language.load("ko", "probes")["answer_probe_frames"])
_PROBE_FRAMES_EN = tuple(language.load("en", "probes")["answer_probe_frames"])


def answer_probe(question_words: Sequence[str], answer_words: Sequence[str], weight: Callable[[str], float],
                 korean: bool, key: str) -> str | None:
    """A student who names the situation in the answer's words rather than the question's: the
    question's key words less one, plus the answer's two rarest key words the question lacks, in a
    casual frame. Deterministic for `key`. None when the answer adds no word."""
    rng = random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))
    question = list(dict.fromkeys(question_words))
    extra = [w for w in dict.fromkeys(answer_words) if w not in question and not w.isdigit()]
    if not extra:
        return None
    extra = sorted(extra, key=lambda w: -weight(w))[:2]
    if len(question) >= 2:
        question.pop(rng.randrange(len(question)))
    words = question + extra
    frames = _PROBE_FRAMES_KO if korean else _PROBE_FRAMES_EN
    return frames[rng.randrange(len(frames))].format(" ".join(words))


# --------------------------------------------------------------------------- pairs and fit

def training_pairs(store: FAQStore, embedder, key_words: Tokenize, content: Tokenize,
                   queries: Sequence[tuple[str, str | None, Mapping]]) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels of (query, entry) pairs. queries: (text, gold source_url or None for a
    query no entry answers, the asking student's profile). Per query: every eligible entry of the
    gold, and the NEGATIVES_PER_QUERY other entries closest by cosine or shared words."""
    if not queries:
        return np.zeros((0, len(FEATURES))), np.zeros(0)
    texts = [q[0] for q in queries]
    vectors = embedder.embed_queries(texts, content(texts))
    words = key_words(texts)
    rows_x, rows_y = [], []
    for (_, gold, profile), vector, query_words in zip(queries, vectors, words):
        eligible = store.eligible_rows(profile)
        if eligible.size == 0:
            continue
        cosines = store.cosines(vector)
        candidates = store.candidates(cosines, query_words, eligible)
        features = store.features(cosines, query_words, candidates)
        gold_rows = np.array([store.entries[r].source_url == gold for r in candidates])
        closeness = features[:, 0] + features[:, 1] + features[:, 4]
        wrong = np.flatnonzero(~gold_rows)
        wrong = wrong[np.argsort(-closeness[wrong], kind="stable")[:NEGATIVES_PER_QUERY]]
        keep = np.concatenate([np.flatnonzero(gold_rows), wrong])
        rows_x.append(features[keep])
        rows_y.append(gold_rows[keep].astype(float))
    if not rows_x:
        return np.zeros((0, len(FEATURES))), np.zeros(0)
    return np.vstack(rows_x), np.concatenate(rows_y)


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = L2, steps: int = NEWTON_STEPS) -> Scorer:
    """Class-balanced, L2-regularized logistic regression by Newton's method (deterministic, no
    library). Needs both classes."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    positives, negatives = float(y.sum()), float(len(y) - y.sum())
    if positives == 0 or negatives == 0:
        raise ValueError("fitting the FAQ scorer needs positive and negative pairs")
    sample = np.where(y == 1, len(y) / (2 * positives), len(y) / (2 * negatives))
    design = np.hstack([np.ones((len(x), 1)), x])
    beta = np.zeros(design.shape[1])
    ridge = np.full(design.shape[1], l2)
    ridge[0] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(design @ beta, -50, 50)))
        gradient = design.T @ (sample * (p - y)) + ridge * beta
        hessian = (design * (sample * p * (1 - p))[:, None]).T @ design + np.diag(ridge) + 1e-9 * np.eye(len(beta))
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return Scorer(weights=tuple(float(b) for b in beta[1:]), bias=float(beta[0]))


def fit_scorer(store: FAQStore, embedder, key_words: Tokenize, content: Tokenize,
               queries: Sequence[tuple[str, str | None, Mapping]]) -> tuple[Scorer | None, dict]:
    """The scorer fitted on `queries` (see training_pairs), and a summary of what it saw; None for
    the scorer when the pairs are all of one kind (an FAQ of one or two entries has no wrong match
    to learn from): the store then keeps the plain rule, cosine plus key-word agreement."""
    x, y = training_pairs(store, embedder, key_words, content, queries)
    if len(y) == 0 or y.min() == y.max():
        return None, {"pairs": int(len(y)), "positive_pairs": int(y.sum()), "queries": len(queries),
                      "skipped": "the pairs are all matching or all not: too few FAQ entries to fit a score"}
    scorer = fit_logistic(x, y)
    return scorer, {"pairs": int(len(y)), "positive_pairs": int(y.sum()), "queries": len(queries),
                    "features": list(FEATURES), "l2": L2}

