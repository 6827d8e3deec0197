"""eval/metrics/: each metric cross-checked against a reference implementation, plus hand examples.

MRR / success@k / recall@k against ir_measures (pytrec_eval backend: RR, Success@k, R@k), ROUGE-L
against rouge-score, intent metrics against scikit-learn's classification_report. The reference
packages are the `test` extra of pyproject.toml.
"""

from __future__ import annotations

import math
import random
import re

import pytest

from advisor.intents.metrics import intent_report
from eval.metrics.aggregate import aggregate, sliced_aggregate
from eval.metrics.grounded_correctness import grounded_correctness
from eval.metrics.keyword_match import keyword_match
from eval.metrics.mrr import mrr
from eval.metrics.recall import query_recall, recall_at
from eval.metrics.registry import CUTOFFS
from eval.metrics.rouge_l import rouge_l
from eval.metrics.source_match import source_match
from eval.metrics.sources import gold_rank, gold_ranks, source_matches
from eval.metrics.success import success_at
from eval.metrics.token_f1 import token_f1

TOL = 1e-9


# --- retrieval: cross-check against ir_measures / pytrec_eval --------------------------------


def _random_cases(seed: int, n_queries: int = 300):  # noqa: C901 - a generator of random edge cases, a branch per case kind
    """Random retrieval runs with one to four gold sources per query, pages and FAQ entries.

    Returns {qid: (chunk_list, golds, reference_run)}. The generator knows what it inserted: each
    item of a query's distinct-source ranking is labelled with the gold it was put there to match
    (a page gold: the page itself, or an FAQ entry on that page; an FAQ-entry gold: that exact
    entry), or with nothing (other pages, and the traps: a sibling entry of an entry gold, the bare
    page of an entry gold). The reference run names the first item matching each gold by the
    gold's id and every other item by an id no gold has, so TREC's one-document-one-judgement
    counts each gold once, at its first match. The chunk list repeats sources, so the functions
    must count distinct sources to agree with the reference.
    """
    rng = random.Random(seed)
    pages = [f"http://u.example/doc{i}.html" for i in range(60)]
    faq_pages = [f"http://u.example/faq{j}.html" for j in range(8)]
    cases = {}
    for q in range(n_queries):
        entry_pages = rng.sample(faq_pages, 4)
        golds: list[str] = []
        for _ in range(rng.choice([1, 1, 2, 3, 4])):
            kind = rng.random()
            if kind < 0.4:
                golds.append(rng.choice(pages))
            elif kind < 0.6:
                golds.append(entry_pages[0])  # an FAQ page as a whole: any entry on it matches
            else:
                golds.append(f"{rng.choice(entry_pages[1:])}#e{rng.randint(1, 6)}")  # one FAQ entry
        golds = list(dict.fromkeys(golds))
        labelled: list[tuple[str, str | None]] = []
        for gold in golds:
            if rng.random() < 0.75:
                if "#" in gold:
                    labelled.append((gold, gold))
                else:  # the page, or one or two FAQ entries / chunks of it
                    for _ in range(rng.choice([1, 1, 2])):
                        labelled.append((rng.choice([gold, f"{gold}#e{rng.randint(1, 9)}"]), gold))
            if "#" in gold and rng.random() < 0.5:  # traps: neither matches an entry gold
                page, entry = gold.split("#")
                labelled.append((f"{page}#e{int(entry[1:]) + 10}", None))
                labelled.append((page, None))
        others = [p for p in pages if p not in golds]
        labelled += [(u, None) for u in rng.sample(others, rng.randint(0, 50))]
        rng.shuffle(labelled)
        ranking, seen = [], set()
        for url, gold in labelled:  # distinct sources, first occurrence kept (with its label)
            if url not in seen:
                seen.add(url)
                ranking.append((url, gold))
        if not ranking:
            ranking = [(rng.choice(others), None)]
        reference_ids, credited = [], set()
        for url, gold in ranking:
            if gold is not None and gold not in credited:
                credited.add(gold)
                reference_ids.append(gold)
            else:
                reference_ids.append("x:" + url)
        chunks = []
        for url, _ in ranking:
            chunks.append(url)
            for _ in range(rng.randint(0, 2)):  # a later chunk of a source already seen
                chunks.append(rng.choice(chunks))
        run = {doc: float(len(reference_ids) - i) for i, doc in enumerate(reference_ids)}  # no ties
        cases[f"q{q}"] = (chunks, golds, run)
    return cases


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_mrr_success_and_recall_match_ir_measures_pytrec_eval(seed):
    ir_measures = pytest.importorskip("ir_measures")
    cases = _random_cases(seed)
    qrels = {qid: dict.fromkeys(golds, 1) for qid, (_, golds, _) in cases.items()}
    run = {qid: reference for qid, (_, _, reference) in cases.items()}
    measures = [ir_measures.RR] + [ir_measures.R @ k for k in CUTOFFS] + [ir_measures.Success @ k for k in CUTOFFS]
    evaluator = ir_measures.pytrec_eval.evaluator(measures, qrels)
    reference = {(m.query_id, str(m.measure)): m.value for m in evaluator.iter_calc(run)}
    means = {str(m): v for m, v in evaluator.calc_aggregate(run).items()}

    firsts, found, counts = [], [], []
    for qid, (chunks, golds, _) in cases.items():
        ranks = gold_ranks(chunks, golds)
        assert ranks == sorted(ranks) and gold_rank(chunks, golds) == (ranks[0] if ranks else None)
        firsts.append(gold_rank(chunks, golds))
        found.append(ranks)
        counts.append(len(golds))
        assert abs(mrr([firsts[-1]]) - reference[(qid, "RR")]) < TOL, qid
        for k in CUTOFFS:
            assert abs(success_at([firsts[-1]], k) - reference[(qid, f"Success@{k}")]) < TOL, (qid, k)
            assert abs(query_recall(ranks, len(golds), k) - reference[(qid, f"R@{k}")]) < TOL, (qid, k)

    # the cases exercise what matters: misses, late hits, several golds partly found
    assert any(r is None for r in firsts) and any(r is not None and r > 10 for r in firsts)
    assert any(0 < len(r) < c for r, c in zip(found, counts)) and any(len(r) > 1 for r in found)
    assert abs(mrr(firsts) - means["RR"]) < TOL
    for k in CUTOFFS:
        assert abs(success_at(firsts, k) - means[f"Success@{k}"]) < TOL
        assert abs(recall_at(found, counts, k) - means[f"R@{k}"]) < TOL
    assert recall_at(found, counts, 1) < success_at(firsts, 1)  # several golds: recall is not success


def test_gold_rank_counts_each_source_once():
    a, b, c = "http://x/a.html", "http://x/b.html", "http://x/c.html"
    assert gold_rank([a, a, a, b, a, c], [c]) == 3
    assert gold_rank([a, b, a, b], [b]) == 2
    assert gold_rank([a, b], [c]) is None
    assert gold_rank([], [c]) is None
    # several golds: the first one reached counts
    assert gold_rank([a, b, c], [c, b]) == 2


def test_gold_ranks_one_per_gold_matched_sorted():
    a, b, c, d = "http://x/a.html", "http://x/b.html", "http://x/c.html", "http://x/d.html"
    assert gold_ranks([a, a, b, c, b], [c, a, d]) == [1, 3]  # d not retrieved; chunks of a page count once
    assert gold_ranks([a], [d]) == []
    assert gold_ranks([a, b], [b, b]) == [2]  # a gold listed twice is one gold


def test_gold_ranks_applies_the_fragment_rule():
    page, entry = "http://x/faq.html", "http://x/faq.html#faq-2"
    ranked = ["http://x/a.html", "http://x/faq.html#faq-1", "http://x/faq.html#faq-2"]
    assert gold_ranks(ranked, [page]) == [2]  # a page gold matches any entry of that page, once
    assert gold_ranks(ranked, [entry]) == [3]  # an entry gold only itself
    assert gold_ranks(["http://x/faq.html"], [entry]) == []
    # a page gold and an entry on it are two golds; the entry matches both
    assert gold_ranks(["http://x/a.html", entry], [page, entry]) == [2, 2]


def test_mrr_success_and_recall_by_hand():
    ranks = [1, 2, None, 10]
    assert mrr(ranks) == pytest.approx((1 + 0.5 + 0 + 0.1) / 4)
    assert success_at(ranks, 1) == pytest.approx(0.25)
    assert success_at(ranks, 5) == pytest.approx(0.5)
    assert success_at(ranks, 10) == pytest.approx(0.75)
    # two queries: 3 golds with 2 found at ranks 1 and 7; 1 gold not found
    assert query_recall([1, 7], 3, 5) == pytest.approx(1 / 3)
    assert query_recall([1, 7], 3, 10) == pytest.approx(2 / 3)
    assert recall_at([[1, 7], []], [3, 1], 10) == pytest.approx((2 / 3 + 0) / 2)


@pytest.mark.parametrize("bad", [[], [0], [-1], [1.5], [True], ["1"]])
def test_bad_ranks_are_rejected(bad):
    with pytest.raises(ValueError):
        mrr(bad)


def test_bad_k_and_recall_inputs_are_rejected():
    with pytest.raises(ValueError):
        success_at([1], 0)
    with pytest.raises(ValueError):
        query_recall([1, 2], 1, 5)  # more golds found than there are
    with pytest.raises(ValueError):
        query_recall([1], 0, 5)
    with pytest.raises(ValueError):
        recall_at([[1]], [1, 2], 5)


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

# The aggregate fields of one `--out` result row (docs/contracts.md §1), without system/setting/skipped.
OUT_FIELDS = {
    "n", "mrr", "recall@1", "recall@5", "recall@10", "recall@50", "success@1", "success@5", "success@10",
    "success@50", "rouge_l", "token_f1", "keyword_match", "source_match", "grounded_correctness",
    "seconds_per_query", "questions_per_query",
}
G1, G2, G3 = "http://x/g1.html", "http://x/g2.html", "http://x/g3.html"


def test_aggregate_means_skip_missing_values():
    rows = [
        {"rank": 1, "gold_ranks": [1, 9], "gold_sources": [G1, G2, G3], "rouge_l": 0.2, "token_f1": 0.4,
         "keyword_match": None, "source_match": 1.0, "grounded_correctness": None, "seconds": 0.5,
         "questions_asked": 2},
        {"rank": None, "gold_ranks": [], "gold_sources": [G1], "rouge_l": 0.4, "token_f1": 0.0, "keyword_match": 1.0,
         "source_match": 0.0, "grounded_correctness": None, "seconds": 1.5, "questions_asked": 0},
        {"rank": 4, "gold_ranks": [4], "gold_sources": [G1, G1], "rouge_l": None, "token_f1": 0.2,
         "keyword_match": 0.5, "source_match": 0.5, "grounded_correctness": None, "seconds": 1.0, "questions_asked": 1},
    ]
    result = aggregate(rows)
    assert set(result) == OUT_FIELDS
    assert result["n"] == 3
    assert result["mrr"] == pytest.approx((1 + 0 + 0.25) / 3)  # a None rank scores 0, not skipped
    assert result["success@1"] == pytest.approx(1 / 3)
    assert result["success@5"] == pytest.approx(2 / 3)
    # recall: 1/3 of the first query's golds by rank 1 and 5, 2/3 by 10; the third's one gold by 5
    assert result["recall@1"] == pytest.approx((1 / 3 + 0 + 0) / 3)
    assert result["recall@5"] == pytest.approx((1 / 3 + 0 + 1) / 3)
    assert result["recall@10"] == pytest.approx((2 / 3 + 0 + 1) / 3)
    assert result["rouge_l"] == pytest.approx(0.3)  # mean over the two rows that have one
    assert result["token_f1"] == pytest.approx(0.2)
    assert result["keyword_match"] == pytest.approx(0.75)
    assert result["source_match"] == pytest.approx(0.5)
    assert result["grounded_correctness"] is None  # no judge anywhere: missing, not 0
    assert result["seconds_per_query"] == pytest.approx(1.0)
    assert result["questions_per_query"] == pytest.approx(1.0)


def test_aggregate_without_retrieval_or_rows():
    result = aggregate([{"seconds": 2.0}, {"seconds": 4.0}])
    assert result["mrr"] is None and result["recall@50"] is None and result["success@50"] is None
    assert result["seconds_per_query"] == pytest.approx(3.0)
    assert result["rouge_l"] is None
    empty = aggregate([])
    assert set(empty) == OUT_FIELDS
    assert empty["n"] == 0 and all(empty[f] is None for f in OUT_FIELDS - {"n"})
    # first hits without gold ranks (rows of an older runner): success is known, recall is not
    only_first = aggregate([{"rank": 2}, {"rank": None}])
    assert only_first["success@5"] == pytest.approx(0.5) and only_first["recall@5"] is None


def test_aggregate_rejects_bad_values():
    with pytest.raises(ValueError):
        aggregate([{"rouge_l": "0.3"}])
    with pytest.raises(ValueError):
        aggregate([{"seconds": float("nan")}])
    with pytest.raises(ValueError):
        aggregate([{"rank": 0}])
    with pytest.raises(TypeError):
        aggregate({"rank": 1})
    with pytest.raises(ValueError, match="first of"):  # rank must be the first gold rank
        aggregate([{"rank": 3, "gold_ranks": [1, 3], "gold_sources": [G1, G2]}])
    with pytest.raises(ValueError, match="some rows"):
        aggregate([{"rank": 1, "gold_ranks": [1], "gold_sources": [G1]}, {"rank": 1}])
    with pytest.raises(ValueError):  # more golds found than the instance has
        aggregate([{"rank": 1, "gold_ranks": [1, 2], "gold_sources": [G1]}])


def _sliced_row(slice_, rank, questions):
    row = {"rank": rank, "gold_ranks": [] if rank is None else [rank], "gold_sources": [G1],
           "questions_asked": questions}
    return row if slice_ is None else {**row, "slice": slice_}


def test_sliced_aggregate_headlines_the_profile_dependent_slice():
    rows = [_sliced_row("profile_dependent", 1, 2), _sliced_row("profile_dependent", None, 2),
            _sliced_row("profile_independent", 2, 1), _sliced_row("stated_profile", 1, 0)]
    result = sliced_aggregate(rows)
    assert result["slice"] == "profile_dependent" and result["n"] == 2
    assert result["mrr"] == pytest.approx(0.5) and result["questions_per_query"] == pytest.approx(2.0)
    assert list(result["slices"]) == ["profile_dependent", "profile_independent", "stated_profile"]
    independent = result["slices"]["profile_independent"]
    assert independent["n"] == 1 and independent["mrr"] == pytest.approx(0.5)
    assert independent["questions_per_query"] == pytest.approx(1.0)
    assert result["slices"]["profile_dependent"] == {k: v for k, v in result.items() if k not in ("slice", "slices")}


def test_sliced_aggregate_without_the_main_slice_covers_every_instance():
    rows = [_sliced_row(None, 1, 0), _sliced_row(None, 4, 0)]
    result = sliced_aggregate(rows)
    assert result["slice"] == "all" and result["n"] == 2 and result["mrr"] == pytest.approx(0.625)
    assert list(result["slices"]) == ["all"]
    other = sliced_aggregate([_sliced_row("profile_independent", 1, 0), _sliced_row(None, None, 0)])
    assert other["slice"] == "all" and other["n"] == 2 and set(other["slices"]) == {"profile_independent", "all"}


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
