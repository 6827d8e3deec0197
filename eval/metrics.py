"""Evaluation metrics (docs/method.md §A "Evaluation protocol", docs/contracts.md §1 `--out` fields).

Pure functions over plain Python values: no Dagster, no DuckDB, no tokenizer. Generation metrics
take token lists that the caller produced (Kiwi content morphemes for Korean), so the same
function serves any language and the tests can cross-check it against reference implementations.

Conventions:
- A metric that cannot be computed is None, never a made-up number (e.g. no LLM judge means no
  grounded correctness).
- Source identity follows one rule, `source_matches`: a gold URL without a `#fragment` names a
  whole page and matches any chunk of that page (the chunk URL's fragment is dropped); a gold URL
  with a fragment names one FAQ entry and matches only that exact URL.
- Ranks count distinct retrieved sources (a page split into many chunks is one source).
- Retrieval metrics, as TREC / ir_measures define them (cross-checked in tests/test_metrics.py):
  MRR over the first gold hit (RR); success@k: any gold source within the top k (Success@k);
  recall@k: the share of the instance's distinct gold sources within the top k (R@k). With one
  gold source per instance the last two are equal; with several they are not. (Before, the
  project reported success@k under the name recall@k.)
"""

from __future__ import annotations

import math
import unicodedata
from collections import Counter
from collections.abc import Collection, Mapping, Sequence

from advisor.intents.metrics import intent_report  # the build's and the evaluation's one computation

__all__ = [
    "CUTOFFS",
    "RECALL_CUTOFFS",
    "aggregate",
    "gold_rank",
    "gold_ranks",
    "grounded_correctness",
    "intent_report",
    "keyword_match",
    "mrr",
    "query_recall",
    "recall_at",
    "reporting_slice",
    "rouge_l",
    "sliced_aggregate",
    "split_slices",
    "source_match",
    "source_matches",
    "success_at",
    "token_f1",
]

CUTOFFS = (1, 5, 10, 50)  # k of success@k and recall@k
RECALL_CUTOFFS = CUTOFFS  # the former name

# Per-query row keys (input of `aggregate`) -> aggregate field names (docs/contracts.md §1).
_MEAN_FIELDS = {
    "rouge_l": "rouge_l",
    "token_f1": "token_f1",
    "keyword_match": "keyword_match",
    "source_match": "source_match",
    "grounded_correctness": "grounded_correctness",
    "seconds": "seconds_per_query",
    "questions": "questions_per_query",
}


# --- sources ---------------------------------------------------------------------------------


def source_matches(gold_url: str, url: str) -> bool:
    """True when `url` (a retrieved or cited chunk's source) is the gold source `gold_url`.

    The fragment of `url` is dropped only when the gold has none: a page gold matches every chunk
    of that page (and FAQ entries on it), while an FAQ-entry gold (`page#id`) must match exactly,
    so a neighbouring entry of the same FAQ page does not count.
    """
    if not isinstance(gold_url, str) or not isinstance(url, str):
        raise TypeError(f"source URLs must be strings, got {type(gold_url).__name__} and {type(url).__name__}")
    if "#" in gold_url:
        return url == gold_url
    return url.split("#", 1)[0] == gold_url


def _check_gold(gold_sources: Collection[str]) -> list[str]:
    if isinstance(gold_sources, str):
        raise TypeError("gold_sources must be a collection of URLs, not a single string")
    golds = list(gold_sources)
    if not golds:
        raise ValueError("gold_sources is empty: every benchmark instance needs at least one gold source")
    return golds


def _url_list(urls: Sequence[str], what: str) -> list[str]:
    if isinstance(urls, str):
        raise TypeError(f"{what} must be a sequence of URLs, not a single string")
    return list(urls)


def _any_gold(golds: Sequence[str], urls: Sequence[str]) -> bool:
    return any(source_matches(g, u) for u in urls for g in golds)


def _distinct_golds(gold_sources: Collection[str]) -> list[str]:
    return list(dict.fromkeys(_check_gold(gold_sources)))


def gold_ranks(ranked_urls: Sequence[str], gold_sources: Collection[str]) -> list[int]:
    """Sorted 1-based ranks, among the distinct sources of a ranked chunk list, of the gold sources
    that were retrieved: one per distinct gold source matched, at the first source matching it.

    Several chunks of one page are one source, so ranks count distinct URLs in first-seen order
    (otherwise a page split into many chunks would push every other source down). Two golds can
    share a rank (a page gold and an FAQ entry on that page are both matched by that entry).
    """
    golds = _distinct_golds(gold_sources)
    distinct = list(dict.fromkeys(_url_list(ranked_urls, "ranked_urls")))
    found = []
    for gold in golds:
        rank = next((r for r, url in enumerate(distinct, start=1) if source_matches(gold, url)), None)
        if rank is not None:
            found.append(rank)
    return sorted(found)


def gold_rank(ranked_urls: Sequence[str], gold_sources: Collection[str]) -> int | None:
    """1-based rank of the first gold source among the distinct sources of a ranked chunk list
    (the rank MRR and success@k use); None when no gold source was retrieved."""
    ranks = gold_ranks(ranked_urls, gold_sources)
    return ranks[0] if ranks else None


def source_match(gold_sources: Collection[str], cited_urls: Sequence[str], retrieved_urls: Sequence[str]) -> float:
    """1.0 if a gold source is cited, 0.5 if retrieved but not cited, 0.0 otherwise."""
    golds = _check_gold(gold_sources)
    if _any_gold(golds, _url_list(cited_urls, "cited_urls")):
        return 1.0
    if _any_gold(golds, _url_list(retrieved_urls, "retrieved_urls")):
        return 0.5
    return 0.0


# --- retrieval -------------------------------------------------------------------------------


def _check_ranks(ranks: Sequence[int | None]) -> list[int | None]:
    checked = list(ranks)
    if not checked:
        raise ValueError("no ranks given: a mean over zero queries is undefined")
    for r in checked:
        if r is None:
            continue
        if isinstance(r, bool) or not isinstance(r, int) or r < 1:
            raise ValueError(f"a rank must be a positive int (1-based) or None, got {r!r}")
    return checked


def _check_k(k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive int, got {k!r}")
    return k


def mrr(ranks: Sequence[int | None]) -> float:
    """Mean reciprocal rank of the first gold hit; a query whose gold was not retrieved (None)
    contributes 0."""
    checked = _check_ranks(ranks)
    return sum(1.0 / r for r in checked if r is not None) / len(checked)


def success_at(ranks: Sequence[int | None], k: int) -> float:
    """Share of queries with any gold source within the top k distinct sources, from each query's
    first-hit rank (None counts 0)."""
    _check_k(k)
    checked = _check_ranks(ranks)
    return sum(1 for r in checked if r is not None and r <= k) / len(checked)


def query_recall(ranks: Sequence[int], gold_count: int, k: int) -> float:
    """TREC recall@k of one query: the share of its `gold_count` distinct gold sources found
    within the top k, given the ranks of the golds found (`gold_ranks`)."""
    _check_k(k)
    if isinstance(gold_count, bool) or not isinstance(gold_count, int) or gold_count < 1:
        raise ValueError(f"gold_count must be a positive int, got {gold_count!r}")
    found = _check_ranks(ranks) if len(ranks) else []
    if any(r is None for r in found):
        raise ValueError("gold ranks are the ranks of golds found: None has no place among them")
    if len(found) > gold_count:
        raise ValueError(f"{len(found)} gold ranks for {gold_count} gold source(s)")
    return sum(1 for r in found if r <= k) / gold_count


def recall_at(gold_ranks_per_query: Sequence[Sequence[int]], gold_counts: Sequence[int], k: int) -> float:
    """Mean TREC recall@k over queries: per query, the share of its distinct gold sources within
    the top k distinct sources (`query_recall`)."""
    rank_lists, counts = list(gold_ranks_per_query), list(gold_counts)
    if len(rank_lists) != len(counts):
        raise ValueError(f"{len(rank_lists)} rank lists but {len(counts)} gold counts")
    if not rank_lists:
        raise ValueError("no queries given: a mean over zero queries is undefined")
    return sum(query_recall(r, c, k) for r, c in zip(rank_lists, counts)) / len(rank_lists)


# --- generation ------------------------------------------------------------------------------


def _tokens(tokens: Sequence[str], what: str) -> list[str]:
    # A bare string would silently be scored character by character.
    if isinstance(tokens, str):
        raise TypeError(f"{what} must be a list of tokens, not a string (tokenize before scoring)")
    return list(tokens)


def _f1(overlap: int, n_candidate: int, n_reference: int) -> float:
    if overlap == 0:
        return 0.0
    precision = overlap / n_candidate
    recall = overlap / n_reference
    return 2 * precision * recall / (precision + recall)


def _lcs_length(a: list[str], b: list[str]) -> int:
    if len(a) < len(b):
        a, b = b, a  # keep the DP row as short as the shorter sequence
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b, start=1):
            current.append(previous[j - 1] + 1 if x == y else max(previous[j], current[j - 1]))
        previous = current
    return previous[-1]


def rouge_l(candidate_tokens: Sequence[str], reference_tokens: Sequence[str]) -> float:
    """ROUGE-L F-measure (beta = 1), as rouge-score's `rougeL` fmeasure.

    Empty inputs: 1.0 when both are empty (nothing to say, nothing said), 0.0 when only one is.
    rouge-score itself returns 0.0 for both-empty; that case is the only difference.
    """
    candidate = _tokens(candidate_tokens, "candidate_tokens")
    reference = _tokens(reference_tokens, "reference_tokens")
    if not candidate and not reference:
        return 1.0
    if not candidate or not reference:
        return 0.0
    return _f1(_lcs_length(candidate, reference), len(candidate), len(reference))


def token_f1(candidate_tokens: Sequence[str], reference_tokens: Sequence[str]) -> float:
    """SQuAD-style bag-of-tokens F1 (multiset overlap).

    Empty inputs as SQuAD: 1.0 when both are empty, 0.0 when only one is.
    """
    candidate = _tokens(candidate_tokens, "candidate_tokens")
    reference = _tokens(reference_tokens, "reference_tokens")
    if not candidate or not reference:
        return float(candidate == reference)
    overlap = sum((Counter(candidate) & Counter(reference)).values())
    return _f1(overlap, len(candidate), len(reference))


def _squash(text: str) -> str:
    # Korean writes "72 학점" and "72학점" interchangeably, so whitespace must not decide a match.
    return "".join(unicodedata.normalize("NFC", text).casefold().split())


def keyword_match(answer: str, keywords: Sequence[str]) -> float | None:
    """Share of expected keywords found in the answer (case- and whitespace-insensitive).

    None when the instance has no keywords (nothing to measure, not a perfect score).
    """
    if not isinstance(answer, str):
        raise TypeError(f"answer must be a string, got {type(answer).__name__}")
    if isinstance(keywords, str):
        raise TypeError("keywords must be a sequence of strings, not a single string")
    wanted = [_squash(k) for k in keywords]
    if not wanted:
        return None
    if any(not k for k in wanted):
        raise ValueError(f"a keyword is empty or only whitespace: {list(keywords)!r}")
    haystack = _squash(answer)
    return sum(1 for k in wanted if k in haystack) / len(wanted)


def _unit_interval(value: float, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{what} must be a number in [0, 1], got {value!r}")
    return float(value)


def grounded_correctness(answer_correctness: float | None, source_match: float) -> float | None:
    """sqrt(answer correctness x source match); None when no judge scored the answer.

    Without an LLM judge the correctness is missing, and a grounded correctness made from a guess
    would be a fake result, so None propagates.
    """
    grounding = _unit_interval(source_match, "source_match")
    if answer_correctness is None:
        return None
    return math.sqrt(_unit_interval(answer_correctness, "answer_correctness") * grounding)


# --- aggregation -----------------------------------------------------------------------------


def _mean_of_present(rows: Sequence[Mapping], key: str) -> float | None:
    values = []
    for i, row in enumerate(rows):
        value = row.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"row {i}: {key!r} must be a finite number or None, got {value!r}")
        values.append(float(value))
    return sum(values) / len(values) if values else None


def _checked_rows(rows: Sequence[Mapping]) -> list[Mapping]:
    if isinstance(rows, (Mapping, str)):
        raise TypeError("rows must be a sequence of per-query mappings")
    rows = list(rows)
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise TypeError(f"row {i} must be a mapping, got {type(row).__name__}")
    return rows


def _recall_inputs(rows: Sequence[Mapping]) -> tuple[list[list[int]], list[int]] | None:
    """(gold ranks, distinct gold count) per retrieval row, or None when no row carries gold ranks
    (rows written before recall was measured: recall cannot be computed from a first hit)."""
    retrieval = [(i, row) for i, row in enumerate(rows) if "rank" in row]
    with_ranks = [(i, row) for i, row in retrieval if "gold_ranks" in row]
    if not with_ranks:
        return None
    if len(with_ranks) != len(retrieval):
        raise ValueError("some rows have 'gold_ranks' and some do not: recall@k would mix two populations")
    rank_lists, counts = [], []
    for i, row in with_ranks:
        ranks = row["gold_ranks"]
        if isinstance(ranks, (str, Mapping)) or not isinstance(ranks, Sequence):
            raise ValueError(f"row {i}: 'gold_ranks' must be a list of ranks, got {ranks!r}")
        ranks = sorted(_check_ranks(ranks)) if len(ranks) else []
        first = ranks[0] if ranks else None
        if row["rank"] != first:
            raise ValueError(f"row {i}: 'rank' {row['rank']!r} is not the first of 'gold_ranks' {ranks!r}")
        if "gold_sources" not in row:
            raise ValueError(f"row {i}: 'gold_sources' is needed to count the golds recall@k divides by")
        rank_lists.append(ranks)
        counts.append(len(_distinct_golds(row["gold_sources"])))
    return rank_lists, counts


def aggregate(rows: Sequence[Mapping]) -> dict:
    """Aggregate metrics of one system x setting from its per-query rows.

    Row keys: "rank" (first gold hit), "gold_ranks" and "gold_sources" (for recall@k), "rouge_l",
    "token_f1", "keyword_match", "source_match", "grounded_correctness", "seconds", "questions".
    Each aggregate is the mean over the rows where the value is not None, and None when no row has
    one.

    "rank" differs on purpose: a None rank means "gold not retrieved" and scores 0 in MRR,
    success@k and recall@k (gold_rank's contract), so retrieval metrics average over every row
    that carries a "rank" key; they are None only when no row has that key (a system that did not
    retrieve). recall@k is also None when the rows carry no "gold_ranks".
    """
    rows = _checked_rows(rows)
    result: dict = {"n": len(rows)}
    ranks = [row["rank"] for row in rows if "rank" in row]
    result["mrr"] = mrr(ranks) if ranks else None
    recall_inputs = _recall_inputs(rows) if ranks else None
    for k in CUTOFFS:
        result[f"recall@{k}"] = recall_at(*recall_inputs, k) if recall_inputs else None
    for k in CUTOFFS:
        result[f"success@{k}"] = success_at(ranks, k) if ranks else None
    for key, field in _MEAN_FIELDS.items():
        result[field] = _mean_of_present(rows, key)
    return result


# --- slices ----------------------------------------------------------------------------------

MAIN_SLICE = "profile_dependent"  # the paper's benchmark: questions whose answer depends on who asks
UNSLICED = "all"  # the slice of an instance that names none, and the main row of an unsliced benchmark


def optional_label(value, default: str, what: str) -> str:
    """An instance's optional label field ('slice', 'gold_from'): `default` when absent, else a
    non-empty string; anything else is a malformed benchmark."""
    if value is None:
        return default
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty string or absent, got {value!r}")
    return value


def slice_of(row: Mapping) -> str:
    return optional_label(row.get("slice"), UNSLICED, "'slice'")


# Questions whose text states the answer ("is it 20 hours?" when it is): a retriever finds the
# page by the number itself, so they score far above the others (BM25 MRR about 0.41 against
# about 0.19 on the demo) and would flatter the headline. Reported beside it, as their own slice.
ANSWER_IN_QUESTION = "answer_in_question"
ANSWER_IN_QUESTION_TYPES = frozenset({"verification_true"})


def reporting_slice(instance: Mapping) -> str:
    """The slice a result row is reported in: the instance's slice, except that a main-slice
    question whose text states its answer goes to ANSWER_IN_QUESTION (outside the headline)."""
    name = slice_of(instance)
    if name == MAIN_SLICE and instance.get("query_type") in ANSWER_IN_QUESTION_TYPES:
        return ANSWER_IN_QUESTION
    return name


def main_slice(slices: Collection[str]) -> str:
    """The slice a system's headline numbers (Table 1) are computed over: the profile-dependent
    questions when the benchmark has them, else every instance ("all")."""
    return MAIN_SLICE if MAIN_SLICE in set(slices) else UNSLICED


def split_slices(rows: Sequence[Mapping]) -> tuple[str, list[Mapping], dict[str, list[Mapping]]]:
    """(main slice name, the main slice's rows, {slice: rows}) with slices in first-seen order."""
    rows = _checked_rows(rows)
    by_slice: dict[str, list[Mapping]] = {}
    for row in rows:
        by_slice.setdefault(slice_of(row), []).append(row)
    main = main_slice(by_slice)
    return main, (by_slice[main] if main == MAIN_SLICE else rows), by_slice


def sliced_aggregate(rows: Sequence[Mapping]) -> dict:
    """`aggregate` of the main slice's rows, plus "slice" (its name) and "slices": {slice:
    aggregate of that slice's rows}."""
    main, main_rows, by_slice = split_slices(rows)
    return {**aggregate(main_rows), "slice": main,
            "slices": {name: aggregate(slice_rows) for name, slice_rows in by_slice.items()}}
