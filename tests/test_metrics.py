"""eval/metrics.py: cross-checked against reference implementations, plus hand examples.

MRR / Recall@k against ir_measures (pytrec_eval backend), ROUGE-L against rouge-score, intent
metrics against scikit-learn's classification_report. The reference packages are the `test` extra
of pyproject.toml.
"""

from __future__ import annotations

import math
import random
import re

import pytest

from eval.metrics import (
    RECALL_CUTOFFS,
    aggregate,
    gold_rank,
    grounded_correctness,
    intent_report,
    keyword_match,
    mrr,
    recall_at,
    rouge_l,
    source_match,
    source_matches,
    token_f1,
)

TOL = 1e-9


# --- retrieval: cross-check against ir_measures / pytrec_eval --------------------------------


def _random_runs(seed: int, n_queries: int = 200):
    """Random retrieval runs: each query ranks distinct sources; its chunk list repeats sources.

    Returns (source_rankings, chunk_lists, golds). The chunk list interleaves extra chunks of
    already-seen sources, so its first-seen order equals the source ranking: gold_rank must undo
    the repetition to agree with the reference, which only sees distinct documents.
    """
    rng = random.Random(seed)
    pool = [f"http://u.example/doc{i}.html" for i in range(120)]
    source_rankings, chunk_lists, golds = {}, {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        gold = rng.choice(pool)
        others = [u for u in pool if u != gold]
        ranking = rng.sample(others, rng.randint(1, 70))
        if rng.random() < 0.7:  # about 30% of queries never retrieve their gold
            ranking.insert(rng.randint(0, len(ranking)), gold)
        chunks = []
        for url in ranking:
            chunks.append(url)
            for _ in range(rng.randint(0, 2)):  # a later chunk of a source already seen
                chunks.append(rng.choice(chunks))
        source_rankings[qid], chunk_lists[qid], golds[qid] = ranking, chunks, gold
    return source_rankings, chunk_lists, golds


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_mrr_and_recall_match_ir_measures_pytrec_eval(seed):
    ir_measures = pytest.importorskip("ir_measures")
    source_rankings, chunk_lists, golds = _random_runs(seed)

    qrels = {qid: {gold: 1} for qid, gold in golds.items()}
    # Strictly decreasing scores: no ties, so the reference's tie-breaking never matters.
    run = {qid: {url: float(len(r) - i) for i, url in enumerate(r)} for qid, r in source_rankings.items()}
    measures = [ir_measures.RR] + [ir_measures.R @ k for k in RECALL_CUTOFFS]
    evaluator = ir_measures.pytrec_eval.evaluator(measures, qrels)
    per_query = {(m.query_id, str(m.measure)): m.value for m in evaluator.iter_calc(run)}
    means = {str(m): v for m, v in evaluator.calc_aggregate(run).items()}

    ranks = {qid: gold_rank(chunk_lists[qid], [golds[qid]]) for qid in golds}
    assert any(r is None for r in ranks.values()) and any(r is not None for r in ranks.values())
    assert any(r is not None and r > 10 for r in ranks.values())
    for qid, rank in ranks.items():
        assert abs(mrr([rank]) - per_query[(qid, "RR")]) < TOL
        for k in RECALL_CUTOFFS:
            assert abs(recall_at([rank], k) - per_query[(qid, f"R@{k}")]) < TOL

    all_ranks = list(ranks.values())
    assert abs(mrr(all_ranks) - means["RR"]) < TOL
    for k in RECALL_CUTOFFS:
        assert abs(recall_at(all_ranks, k) - means[f"R@{k}"]) < TOL


def test_gold_rank_counts_each_source_once():
    a, b, c = "http://x/a.html", "http://x/b.html", "http://x/c.html"
    assert gold_rank([a, a, a, b, a, c], [c]) == 3
    assert gold_rank([a, b, a, b], [b]) == 2
    assert gold_rank([a, b], [c]) is None
    assert gold_rank([], [c]) is None
    # several golds: the first one reached counts
    assert gold_rank([a, b, c], [c, b]) == 2


def test_gold_rank_applies_the_fragment_rule():
    page, entry = "http://x/faq.html", "http://x/faq.html#faq-2"
    ranked = ["http://x/a.html", "http://x/faq.html#faq-1", "http://x/faq.html#faq-2"]
    assert gold_rank(ranked, [page]) == 2  # a page gold matches any entry of that page
    assert gold_rank(ranked, [entry]) == 3  # an entry gold only itself
    assert gold_rank(["http://x/faq.html"], [entry]) is None


def test_mrr_and_recall_by_hand():
    ranks = [1, 2, None, 10]
    assert mrr(ranks) == pytest.approx((1 + 0.5 + 0 + 0.1) / 4)
    assert recall_at(ranks, 1) == pytest.approx(0.25)
    assert recall_at(ranks, 5) == pytest.approx(0.5)
    assert recall_at(ranks, 10) == pytest.approx(0.75)


@pytest.mark.parametrize("bad", [[], [0], [-1], [1.5], [True], ["1"]])
def test_bad_ranks_are_rejected(bad):
    with pytest.raises(ValueError):
        mrr(bad)


def test_bad_k_is_rejected():
    with pytest.raises(ValueError):
        recall_at([1], 0)


# --- ROUGE-L: cross-check against rouge-score ------------------------------------------------


def _rouge_score_tokens(text: str) -> list[str]:
    # rouge-score's default tokenizer (no stemming): lowercase, non-[a-z0-9] -> space, split.
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).split()


_WORDS = (
    "The student must complete 72 credits in the major before graduation . Don't forget "
    "U.S. exchange-programs , co-op internships and a capstone ! Is the GPA 3.5 or 3.0 ? "
    "apply early to the Office of Academic Affairs ; deadlines : 2024-03-01 ... "
).split()


def test_rouge_l_matches_rouge_score_on_random_english_pairs():
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    rng = random.Random(7)
    checked = 0
    for _ in range(600):
        reference = " ".join(rng.choices(_WORDS, k=rng.randint(0, 30)))
        candidate = " ".join(rng.choices(_WORDS, k=rng.randint(0, 30)))
        ref_tokens, cand_tokens = _rouge_score_tokens(reference), _rouge_score_tokens(candidate)
        if not ref_tokens and not cand_tokens:
            continue  # the one documented difference, tested below
        expected = scorer.score(reference, candidate)["rougeL"].fmeasure
        assert abs(rouge_l(cand_tokens, ref_tokens) - expected) < TOL
        checked += 1
    assert checked > 500


def test_rouge_l_edge_cases():
    assert rouge_l([], []) == 1.0
    assert rouge_l(["a"], []) == 0.0
    assert rouge_l([], ["a"]) == 0.0
    assert rouge_l(["a", "b", "c"], ["a", "b", "c"]) == 1.0
    # LCS "a c" of length 2: P = 2/3, R = 2/2 -> F = 0.8; word order matters, unlike token F1
    assert rouge_l(["a", "b", "c"], ["a", "c"]) == pytest.approx(0.8)
    assert rouge_l(["b", "a"], ["a", "b"]) == pytest.approx(0.5)
    with pytest.raises(TypeError):
        rouge_l("a b", ["a", "b"])


# --- token F1, keyword match -----------------------------------------------------------------


def test_token_f1_by_hand():
    # overlap {학점: 1, 전공: 1}: P = 2/4, R = 2/3 -> F = 2PR / (P + R) = 4/7
    assert token_f1(["전공", "72", "학점", "학점"], ["전공", "학점", "이수"]) == pytest.approx(4 / 7)
    assert token_f1(["b", "a"], ["a", "b"]) == 1.0  # a bag: order does not matter
    assert token_f1(["x"], ["y"]) == 0.0
    assert token_f1([], []) == 1.0
    assert token_f1([], ["a"]) == 0.0
    with pytest.raises(TypeError):
        token_f1(["a"], "a")


def test_keyword_match_ignores_case_and_whitespace():
    answer = "전공 72 학점 이상과 GPA 3.0을 충족해야 합니다."
    assert keyword_match(answer, ["72학점"]) == 1.0
    assert keyword_match("전공 72학점", ["72 학점"]) == 1.0
    assert keyword_match(answer, ["gpa 3.0", "캡스톤", "72학점", "졸업논문"]) == 0.5
    assert keyword_match(answer, []) is None
    with pytest.raises(ValueError):
        keyword_match(answer, ["  "])
    with pytest.raises(TypeError):
        keyword_match(answer, "72학점")


# --- source match, grounded correctness ------------------------------------------------------


def test_source_match_cited_retrieved_or_neither():
    gold = ["http://x/curriculum-2021.html"]
    other = "http://x/other.html"
    assert source_match(gold, cited_urls=[other, gold[0]], retrieved_urls=[other, gold[0]]) == 1.0
    assert source_match(gold, cited_urls=[other], retrieved_urls=[other, gold[0]]) == 0.5
    assert source_match(gold, cited_urls=[other], retrieved_urls=[other]) == 0.0
    assert source_match(gold, cited_urls=[], retrieved_urls=[]) == 0.0


def test_source_match_fragment_rule_both_ways():
    page = "http://x/faq.html"
    entry = "http://x/faq.html#tuition"
    # a page gold: a chunk of that page with a fragment still counts
    assert source_match([page], cited_urls=[entry], retrieved_urls=[]) == 1.0
    # an FAQ-entry gold: only that exact entry counts, not the page nor a sibling entry
    assert source_match([entry], cited_urls=[page], retrieved_urls=["http://x/faq.html#faq-3"]) == 0.0
    assert source_match([entry], cited_urls=[page], retrieved_urls=[entry]) == 0.5
    assert source_matches(page, "http://x/faq.html#anything")
    assert not source_matches(entry, page)
    assert not source_matches(page, "http://x/faq.html?x=1")


def test_source_match_rejects_missing_gold():
    with pytest.raises(ValueError):
        source_match([], ["http://x/a"], [])
    with pytest.raises(TypeError):
        gold_rank(["http://x/a"], "http://x/a")


def test_grounded_correctness_propagates_missing_judgement():
    assert grounded_correctness(None, 1.0) is None
    assert grounded_correctness(None, 0.0) is None
    assert grounded_correctness(0.64, 1.0) == pytest.approx(0.8)
    assert grounded_correctness(1.0, 0.5) == pytest.approx(math.sqrt(0.5))
    assert grounded_correctness(1.0, 0.0) == 0.0
    with pytest.raises(ValueError):
        grounded_correctness(1.5, 1.0)
    with pytest.raises(ValueError):
        grounded_correctness(0.5, None)


# --- aggregate -------------------------------------------------------------------------------

# The aggregate fields of one `--out` result row (interfaces.md §1), without system/setting/skipped.
OUT_FIELDS = {
    "n", "mrr", "recall@1", "recall@5", "recall@10", "recall@50", "rouge_l", "token_f1",
    "keyword_match", "source_match", "grounded_correctness", "seconds_per_query",
    "questions_per_query",
}


def test_aggregate_means_skip_missing_values():
    rows = [
        {"rank": 1, "rouge_l": 0.2, "token_f1": 0.4, "keyword_match": None, "source_match": 1.0,
         "grounded_correctness": None, "seconds": 0.5, "questions": 2},
        {"rank": None, "rouge_l": 0.4, "token_f1": 0.0, "keyword_match": 1.0, "source_match": 0.0,
         "grounded_correctness": None, "seconds": 1.5, "questions": 0},
        {"rank": 4, "rouge_l": None, "token_f1": 0.2, "keyword_match": 0.5, "source_match": 0.5,
         "grounded_correctness": None, "seconds": 1.0, "questions": 1},
    ]
    result = aggregate(rows)
    assert set(result) == OUT_FIELDS
    assert result["n"] == 3
    assert result["mrr"] == pytest.approx((1 + 0 + 0.25) / 3)  # a None rank scores 0, not skipped
    assert result["recall@1"] == pytest.approx(1 / 3)
    assert result["recall@5"] == pytest.approx(2 / 3)
    assert result["rouge_l"] == pytest.approx(0.3)  # mean over the two rows that have one
    assert result["token_f1"] == pytest.approx(0.2)
    assert result["keyword_match"] == pytest.approx(0.75)
    assert result["source_match"] == pytest.approx(0.5)
    assert result["grounded_correctness"] is None  # no judge anywhere: missing, not 0
    assert result["seconds_per_query"] == pytest.approx(1.0)
    assert result["questions_per_query"] == pytest.approx(1.0)


def test_aggregate_without_retrieval_or_rows():
    result = aggregate([{"seconds": 2.0}, {"seconds": 4.0}])
    assert result["mrr"] is None and result["recall@50"] is None
    assert result["seconds_per_query"] == pytest.approx(3.0)
    assert result["rouge_l"] is None
    empty = aggregate([])
    assert set(empty) == OUT_FIELDS
    assert empty["n"] == 0 and all(empty[f] is None for f in OUT_FIELDS - {"n"})


def test_aggregate_rejects_bad_values():
    with pytest.raises(ValueError):
        aggregate([{"rouge_l": "0.3"}])
    with pytest.raises(ValueError):
        aggregate([{"seconds": float("nan")}])
    with pytest.raises(ValueError):
        aggregate([{"rank": 0}])
    with pytest.raises(TypeError):
        aggregate({"rank": 1})


# --- intent routing: cross-check against scikit-learn ----------------------------------------


def test_intent_report_matches_sklearn_classification_report():
    from sklearn.metrics import classification_report

    rng = random.Random(11)
    labels = ["retrieval", "greeting", "out_of_scope", "calculation"]
    gold = [rng.choice(labels[:3]) for _ in range(300)]  # "calculation" has no support
    predicted = [g if rng.random() < 0.7 else rng.choice(labels[:2] + ["fallback"]) for g in gold]

    report = intent_report(gold, predicted, labels)
    expected = classification_report(gold, predicted, labels=labels, output_dict=True, zero_division=0)
    assert list(report["per_class"]) == labels
    for label in labels:
        for ours, theirs in (("precision", "precision"), ("recall", "recall"), ("f1", "f1-score"), ("support", "support")):
            assert abs(report["per_class"][label][ours] - expected[label][theirs]) < TOL
    assert abs(report["macro_f1"] - expected["macro avg"]["f1-score"]) < TOL
    assert report["accuracy"] == pytest.approx(sum(g == p for g, p in zip(gold, predicted)) / len(gold))
    assert report["n"] == 300


def test_intent_report_by_hand():
    report = intent_report(["a", "a", "b", "b"], ["a", "b", "b", "b"], ["a", "b"])
    assert report["accuracy"] == pytest.approx(0.75)
    assert report["per_class"]["a"] == pytest.approx({"precision": 1.0, "recall": 0.5, "f1": 2 / 3, "support": 2})
    assert report["per_class"]["b"] == pytest.approx({"precision": 2 / 3, "recall": 1.0, "f1": 0.8, "support": 2})
    assert report["macro_f1"] == pytest.approx((2 / 3 + 0.8) / 2)
    # labels default to every label seen
    assert list(intent_report(["b", "a"], ["a", "c"], None)["per_class"]) == ["a", "b", "c"]


def test_intent_report_rejects_bad_input():
    with pytest.raises(ValueError):
        intent_report(["a"], ["a", "b"], ["a", "b"])
    with pytest.raises(ValueError):
        intent_report(["a", "z"], ["a", "a"], ["a", "b"])  # gold label outside the classes
    with pytest.raises(ValueError):
        intent_report([], [], ["a"])
