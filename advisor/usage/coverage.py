"""What the question log says about the material: how each day's questions were answered (the
share of each tier) and which questions it did not answer well, grouped by meaning and ranked by
how often they were asked: the list an advising office turns into new FAQ entries.

Pure logic (no Dagster, no DuckDB): the `coverage` asset (assets/usage.py) reads the rows and
writes what these functions return.

"Low score" is the engine's own bar, where it has one on the score a record carries:
- an FAQ answer whose score is below the build's calibrated `faq_threshold` (serving.json): the
  FAQ tier answers between its `faq_floor` and the threshold only when retrieval over the whole
  material ranks the entry's page first too (serving/dialogue/tiers/faq.py), an answer on weaker
  evidence than the calibration asked for;
- a documents answer is never "low": its score is the retrieval's fused rank score (reciprocal rank
  fusion, config.retrieval.rrf_k), which compares chunks within one query and has no bar in the
  engine or in config.retrieval; the tier's bar is the answerability check on the evidence
  (serving/dialogue/answerability.py, MIN_COVERAGE), which the record does not carry, and a
  question below it is not answered by the tier at all (it becomes a fallback);
- templates (greetings and the like) have no score.
Unanswered questions are those of tier "fallback" (`answered` false).
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from advisor import language
from advisor.language.script import language_of
from advisor.tiers import TIERS as TIERS  # assets/usage.py names its columns after them

# the intent seeds' encoder vectors, shipped with the package (advisor/intents/seed_vectors.py)
SEED_VECTORS = Path(__file__).resolve().parents[1] / "intents" / "seed_vectors.npz"

# Average-linkage agglomerative clustering over a distance that mixes the encoder's with the
# questions' topic terms (`topic_distances`), cut at CLUSTER_DISTANCE. The encoder alone groups a
# question by its frame more than by its topic: "성적증명서 발급" and "학생증 재발급" (issue me a
# document), "수강신청 언제 해요?" and "휴학 신청 기간" (when do I apply) ended in one group. What a
# question is about is its content nouns, so two questions that name no common topic term are far
# apart whatever their frame. Chosen on a development set written for it
# (bench/data/usage_clusters_dev.jsonl: 83 questions in Korean and English, 17 topics of 3-6
# wordings, most sharing a frame with another, and 10 lone questions), swept by
# bench/usage_clusters.py: adjusted Rand index 0.81-0.83 on the plateau 0.76-0.80 of the cut (its
# middle taken) at LEXICAL_SHARE 0.7, about as high on the neighbouring shares' plateaus (0.80-0.82
# at 0.6 on 0.74-0.76, 0.81 at 0.8 on 0.78-0.82); 0.79 without the thesaurus; against 0.45 for the
# encoder alone at its former cut 0.70 (0.63 at its best cut, 0.42) and 0.78 at best for complete
# linkage, on one cut. Measured on e5's vectors after `centered` (below), English words the
# glossary knows in the institution's Korean terms first. What is left (seen there): two topics
# that share a noun may share a group ("기숙사비" and "기숙사 통금", "성적증명서" and "재학증명서"),
# so may two English questions with the glossary's words for neither topic, and a topic asked in
# words that share nothing ("헬스장", "체력단련실") may be split. On a held-out set written before
# this choice (tests/data/usage_unanswered_v2.jsonl, 28 questions, 6 topics in frame-sharing pairs
# and 3 lone questions), run once: adjusted Rand index 0.89, not its exact partition.
CLUSTER_DISTANCE = 0.78
# The share of the topic terms' distance in the mixed distance (the encoder's is the rest).
LEXICAL_SHARE = 0.7
# Words that name no topic of their own: what a question asks with (interrogatives), the words of
# a request's frame and the aspects of any topic ("신청", "기간", "방법", "apply"): the language
# data's closed classes, as the answerability check reads them (serving/dialogue/answerability.py).
NOT_TOPICS = frozenset(language.words("question_words", "interrogatives") + language.words("key_words", "request_frame")
                       + language.words("key_words", "aspects"))
# The language data files NOT_TOPICS is read from.
WORD_FILES = ("question_words", "key_words")
MAX_EXAMPLES = 3


@dataclass
class Cluster:
    """A group of logged questions that ask the same thing in other words."""

    wordings: Counter  # distinct question text -> how many times it was logged
    unanswered: int = 0
    low_score: int = 0
    languages: set = field(default_factory=set)
    days: list = field(default_factory=list)

    @property
    def size(self) -> int:
        return sum(self.wordings.values())

    def examples(self, limit: int = MAX_EXAMPLES) -> list[str]:
        """Up to `limit` distinct wordings, the most asked first (ties: as first logged)."""
        return [text for text, _ in self.wordings.most_common(limit)]


# ---------------------------------------------------------------------------------------- low score
def is_low_score(row: Mapping, thresholds: Mapping[str, Mapping]) -> bool:
    """Was this answer given below the engine's own bar (see the module's docstring)?
    `thresholds`: build id -> that build's serving.json (faq_threshold, faq_floor); a record whose
    build is gone is judged by the entry under None (the served build's), when given."""
    if row.get("tier") != "faq" or row.get("score") is None:
        return False
    served = thresholds.get(row.get("build_id")) or thresholds.get(None) or {}
    threshold = served.get("faq_threshold")
    return threshold is not None and float(row["score"]) < float(threshold)


def needs_material(row: Mapping) -> bool:
    """Is this question one the office should look at: not answered, or answered below the bar?"""
    return row.get("answered") is False or row.get("tier") == "fallback" or bool(row.get("low_score"))


# ------------------------------------------------------------------------------------------ shares
def daily_shares(rows: Sequence[Mapping]) -> list[dict]:
    """Per day (oldest first): how many questions, how many each tier answered, how many were
    answered below the bar, and each tier's share of the day's questions."""
    per_day: dict = defaultdict(Counter)
    for row in rows:
        counts = per_day[row["day"]]
        counts["questions"] += 1
        if row.get("tier") in TIERS:
            counts[row["tier"]] += 1
        counts["low_score"] += bool(row.get("low_score"))
    out = []
    for day in sorted(per_day):
        counts = per_day[day]
        total = counts["questions"]
        out.append({"day": day, "questions": total, **{tier: counts[tier] for tier in TIERS},
                    "low_score": counts["low_score"],
                    **{f"share_{tier}": counts[tier] / total for tier in TIERS}})
    return out


def window_shares(days: Sequence[Mapping]) -> dict:
    """The same shares over the whole window (what the UI plots across materializations)."""
    total = sum(d["questions"] for d in days)
    counts = {tier: sum(d[tier] for d in days) for tier in TIERS}
    return {"questions": total, **counts,
            **{f"share_{tier}": (counts[tier] / total if total else None) for tier in TIERS}}


def shares_markdown(days: Sequence[Mapping], limit: int = 31) -> str:
    """The newest `limit` days as a Markdown table (the UI's metadata view)."""
    if not days:
        return "No questions logged in the retention window."
    lines = ["| day | questions | FAQ | documents | fallback | template | low score |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for d in list(days)[-limit:]:
        lines.append(f"| {d['day']} | {d['questions']} | {d['share_faq']:.0%} | {d['share_documents']:.0%} | "
                     f"{d['share_fallback']:.0%} | {d['share_template']:.0%} | {d['low_score']} |")
    return "\n".join(lines)


# -------------------------------------------------------------------------------------- clustering
def centered(vectors: np.ndarray, background: np.ndarray | None) -> np.ndarray:
    """Vectors with the `background` direction taken out, renormalized. e5's cosines are compressed
    (any two questions to this assistant score 0.8-0.9: docs/tech-notes.md), because every vector
    shares a large common component; subtracting the mean vector of many unrelated questions (the
    shipped intent seeds, `seed_background`) leaves what tells questions apart. Fixed, not the
    mean of the questions clustered, so a question's neighbours do not depend on what else was asked."""
    vectors = np.asarray(vectors, dtype=np.float32)
    if background is not None:
        vectors = vectors - np.asarray(background, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def seed_background(path: Path, version: str) -> np.ndarray | None:
    """The mean vector of the shipped intent seeds (advisor/intents/seed_vectors.npz) when they
    were encoded by the embedder `version`; None otherwise (another model: no centering)."""
    if not Path(path).is_file():
        return None
    with np.load(path, allow_pickle=False) as data:
        if str(data["version"]) != version:
            return None
        vectors = data["vectors"].astype(np.float32) * data["scales"][:, None]
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors.mean(axis=0)


def words_version() -> str:
    """A short hash of the word lists the grouping reads (NOT_TOPICS' files and the thesaurus): the
    coverage asset's version, so that an edit of them groups the questions anew."""
    from advisor.retrieval.vocabulary import THESAURUS_FILES

    hashed = hashlib.sha256("".join(language.digest(name) for name in WORD_FILES).encode())
    for path in THESAURUS_FILES:
        hashed.update(path.read_bytes())
    return hashed.hexdigest()[:12]


@cache
def _synonyms() -> dict[str, str]:
    """Each word of the retrieval's thesaurus (advisor/retrieval/thesaurus_*.txt: words students and
    offices use for one thing, "기숙사" and "생활관") -> the first member of its first group."""
    from advisor.retrieval.vocabulary import compact, load_thesaurus

    named: dict[str, str] = {}
    for group in load_thesaurus():
        for member in group:
            named.setdefault(compact(member), compact(group[0]))
    return named


def topic_terms(key_words: Sequence[str]) -> dict[str, frozenset[str]]:
    """What a question is about, per language: its key words (the tokenizer's nouns, names, roots
    and English words) without NOT_TOPICS, each as the thesaurus's first word for it, keyed by the
    language each is written in."""
    terms: dict[str, set[str]] = defaultdict(set)
    for word in map(str.lower, key_words):
        if word not in NOT_TOPICS:
            terms[language_of(word, default="")].add(_synonyms().get(word, word))
    return {lang: frozenset(words) for lang, words in terms.items()}


def _same_term(a: str, b: str) -> bool:
    """Kiwi cuts a compound one way in one sentence and another way in the next ("기숙사비", "기숙사"
    + "비"): a term inside the other is the same term, unless it is one character (too short to say)."""
    return a == b or (min(len(a), len(b)) > 1 and (a in b or b in a))


def _term_overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard similarity of two term sets, a term matching its `_same_term`s."""
    shared = min(sum(any(_same_term(x, y) for y in b) for x in a), sum(any(_same_term(y, x) for x in a) for y in b))
    return shared / (len(a) + len(b) - shared)


def lexical_distance(a: Mapping[str, frozenset[str]], b: Mapping[str, frozenset[str]]) -> float | None:
    """1 - the overlap of two questions' topic terms in the languages both write terms in; None when
    there is none: a word the glossary left in English cannot be told apart from a Korean word for
    another topic, so only the encoder judges such a pair."""
    common = a.keys() & b.keys()
    if not common:
        return None
    return 1.0 - _term_overlap(frozenset().union(*(a[k] for k in common)), frozenset().union(*(b[k] for k in common)))


def topic_distances(vectors: np.ndarray, terms: Sequence[Mapping[str, frozenset[str]]] | None,
                    lexical_share: float = LEXICAL_SHARE) -> np.ndarray:
    """Condensed pairwise distances (scipy's order): the cosine distance of the vectors, mixed with
    the `lexical_distance` of the questions' `topic_terms` in the proportion `lexical_share` where
    there is one; the vectors' alone for `terms` None. The terms are compared pair by pair in
    Python: ~7 s for 1,000 distinct wordings on one core, about what e5 takes to encode them."""
    from scipy.spatial.distance import pdist

    encoder = np.nan_to_num(np.clip(pdist(np.asarray(vectors, dtype=np.float64), metric="cosine"), 0.0, None), nan=1.0)
    if terms is None:
        return encoder
    n = len(terms)
    lexical = np.array([lexical_distance(terms[i], terms[j]) for i in range(n) for j in range(i + 1, n)], dtype=float)
    return np.where(np.isnan(lexical), encoder, (1 - lexical_share) * encoder + lexical_share * np.nan_to_num(lexical))


def group_by_meaning(vectors: np.ndarray, terms: Sequence[Mapping[str, frozenset[str]]] | None = None,
                     distance: float = CLUSTER_DISTANCE, lexical_share: float = LEXICAL_SHARE,
                     method: str = "average") -> list[int]:
    """A cluster label per row: agglomerative clustering (`method`: scipy's linkage, average by
    default) over `topic_distances`, cut at `distance` (two groups merge while their members are on
    average closer than that)."""
    n = len(vectors)
    if n <= 1:
        return [0] * n
    from scipy.cluster.hierarchy import fcluster, linkage

    labels = fcluster(linkage(topic_distances(vectors, terms, lexical_share), method=method), distance,
                      criterion="distance")
    return [int(label) - 1 for label in labels]


def cluster_questions(rows: Sequence[Mapping], embed: Callable[[list[str]], np.ndarray],
                      key_words: Callable[[list[str]], list[list[str]]],
                      prepare: Callable[[str], str] = lambda text: text,
                      distance: float = CLUSTER_DISTANCE) -> list[Cluster]:
    """The rows that `needs_material`, grouped by meaning and ranked: the most asked group first
    (ties: more unanswered, then the first example's text). `embed`: texts -> vectors ready to
    compare (e5 vectors `centered`); `key_words`: texts -> their key words (KiwiTokenizer.key_words),
    read for `topic_terms`; `prepare`: a wording to the text embedded and read (the glossary's
    Korean terms for English words). Identical wordings are embedded once and count as often as
    they were logged."""
    wanted = [row for row in rows if needs_material(row) and (row.get("question") or "").strip()]
    wordings = list(dict.fromkeys(row["question"].strip() for row in wanted))
    if not wordings:
        return []
    prepared = [prepare(text) for text in wordings]
    labels = group_by_meaning(embed(prepared), [topic_terms(words) for words in key_words(prepared)], distance)
    label_of = dict(zip(wordings, labels))
    clusters: dict[int, Cluster] = {}
    for row in wanted:
        text = row["question"].strip()
        cluster = clusters.setdefault(label_of[text], Cluster(Counter()))
        cluster.wordings[text] += 1
        cluster.unanswered += row.get("answered") is False or row.get("tier") == "fallback"
        cluster.low_score += bool(row.get("low_score"))
        if row.get("language"):
            cluster.languages.add(row["language"])
        cluster.days.append(row["day"])
    return sorted(clusters.values(), key=lambda c: (-c.size, -c.unanswered, c.examples(1)[0]))


def cluster_rows(clusters: Sequence[Cluster], nearest: Callable[[str], Mapping] | None = None,
                 prepare: Callable[[str], str] = lambda text: text) -> list[dict]:
    """Rows of usage_clusters (without run_id): rank, counts, examples, days, and the nearest FAQ
    entry and page of the served build for the group's most asked wording (`nearest`; None: no
    build, those columns NULL)."""
    rows = []
    for rank, cluster in enumerate(clusters, 1):
        examples = cluster.examples()
        found = dict(nearest(prepare(examples[0]))) if nearest is not None else {}
        rows.append({"rank": rank, "questions": cluster.size, "unanswered": cluster.unanswered,
                     "low_score": cluster.low_score, "examples": examples, "languages": sorted(cluster.languages),
                     "first_day": min(cluster.days), "last_day": max(cluster.days), **found})
    return rows


def clusters_markdown(rows: Sequence[Mapping], limit: int = 20) -> str:
    if not rows:
        return "No unanswered or low-score questions in the retention window."
    lines = ["| # | asked | unanswered | examples | nearest FAQ entry | nearest page |", "|---:|---:|---:|---|---|---|"]
    for row in list(rows)[:limit]:
        examples = " / ".join(row["examples"]).replace("|", "\\|")
        faq = (row.get("nearest_faq_question") or "—").replace("|", "\\|")
        page = (row.get("nearest_page_title") or row.get("nearest_page_url") or "—").replace("|", "\\|")
        lines.append(f"| {row['rank']} | {row['questions']} | {row['unanswered']} | {examples} | {faq} | {page} |")
    return "\n".join(lines)
