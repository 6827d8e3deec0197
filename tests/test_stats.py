"""eval/metrics/stats.py: the intervals and paired tests, cross-checked against scipy.stats, and what a run
records of them (eval_intervals, eval_tests, the compare_runs / flipped_questions macros)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

import duckdb
import numpy as np
import polars as pl
import pytest
from scipy import stats as scipy_stats

from eval.metrics import stats


def test_the_paired_test_is_scipys_permutation_test_exactly_when_every_sign_pattern_is_counted():
    rng = np.random.default_rng(3)
    system, baseline = rng.random(11), rng.random(11) - 0.15
    ours = stats.paired_randomization(system - baseline)
    theirs = scipy_stats.permutation_test((system, baseline), lambda x, y: np.mean(x - y), vectorized=False,
                                          permutation_type="samples", alternative="two-sided",
                                          n_resamples=np.inf).pvalue
    assert ours == pytest.approx(theirs, abs=1e-12)
    assert 0.0 < ours < 1.0


def test_the_randomized_paired_test_agrees_with_scipys_within_sampling_error():
    rng = np.random.default_rng(5)
    system = rng.random(80)
    baseline = system - 0.04 + rng.normal(0, 0.2, 80)
    ours = stats.paired_randomization(system - baseline)
    theirs = scipy_stats.permutation_test((system, baseline), lambda x, y, axis: np.mean(x - y, axis=axis),
                                          vectorized=True, permutation_type="samples", n_resamples=9999,
                                          rng=np.random.default_rng(0)).pvalue
    assert ours == pytest.approx(theirs, abs=0.02)


def test_with_one_instance_per_question_the_interval_is_scipys_percentile_bootstrap():
    values = np.random.default_rng(7).random(150)
    low, high = stats.cluster_bootstrap(values, range(150), resamples=5000)
    theirs = scipy_stats.bootstrap((values,), np.mean, method="percentile", n_resamples=5000,
                                   rng=np.random.default_rng(1)).confidence_interval
    assert low == pytest.approx(theirs.low, abs=0.01) and high == pytest.approx(theirs.high, abs=0.01)


def test_asking_a_question_under_more_profiles_does_not_narrow_its_interval():
    # 40 questions, each asked under 15 profiles with the same outcome: 600 instances, 40 texts
    outcomes = np.random.default_rng(11).integers(0, 2, 40).astype(float)
    values = np.repeat(outcomes, 15)
    texts = np.repeat(np.arange(40), 15)
    by_text = stats.cluster_bootstrap(values, texts)
    by_instance = stats.cluster_bootstrap(values, range(len(values)))
    once = stats.cluster_bootstrap(outcomes, range(40))
    assert by_text[1] - by_text[0] == pytest.approx(once[1] - once[0], abs=0.02)
    assert by_instance[1] - by_instance[0] < 0.5 * (by_text[1] - by_text[0])  # what resampling instances claims


def test_holm_adjusts_step_down_and_keeps_the_order_given():
    assert stats.holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert stats.holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def _row(system, setting, instance_id, rank, *, slice_name="profile_dependent", gold="http://x/a",
         retrieved=("http://x/a",)):
    return {"system": system, "setting": setting, "instance_id": instance_id, "rank": rank,
            "gold_ranks": [rank] if rank else [], "gold_sources": [gold], "retrieved_urls": list(retrieved),
            "slice": slice_name, "source_match": 1.0 if rank == 1 else 0.0, "rouge_l": None, "keyword_match": None}


def test_a_run_gets_intervals_per_slice_and_holm_corrected_tests_against_each_baseline():
    texts = {f"i{n}": f"question {n % 40}" for n in range(120)}  # 120 instances, 40 texts
    rows = []
    for n in range(120):
        rows += [_row("bm25", "deployment", f"i{n}", 3 if n % 2 else None),
                 _row("hybrid", "deployment", f"i{n}", 2),
                 _row("profill", "deployment", f"i{n}", 1),
                 _row("profill", "deployment-dont-know", f"i{n}", 1 if n % 3 else 2)]
    rows += [_row("profill", "deployment", "small", 1, slice_name="profile_independent")]
    texts["small"] = "one question only"
    intervals, tests = stats.run_statistics(rows, texts)

    mrr = {(r["system"], r["setting"], r["slice"]): r for r in intervals if r["metric"] == "mrr"}
    bm25 = mrr[("bm25", "deployment", "profile_dependent")]
    assert bm25["value"] == pytest.approx(1 / 6) and bm25["lower"] <= bm25["value"] <= bm25["upper"]
    assert (bm25["instances"], bm25["texts"], bm25["too_small"]) == (120, 40, False)
    assert mrr[("profill", "deployment", "profile_independent")]["too_small"]

    by_key = {(t["setting"], t["metric"], t["system"], t["baseline"]): t for t in tests}
    assert ("deployment", "mrr", "bm25", "bm25") not in by_key  # a baseline is not tested against itself
    win = by_key[("deployment", "mrr", "profill", "bm25")]
    assert win["significant"] and (win["wins"], win["ties"], win["losses"]) == (40, 0, 0)
    assert win["family_size"] == 3 and win["p_holm"] >= win["p_value"]  # hybrid-bm25, profill-bm25, profill-hybrid
    # the baselines ask nothing: in deployment-dont-know they are read from deployment
    dont_know = by_key[("deployment-dont-know", "mrr", "profill", "hybrid")]
    assert dont_know["baseline_setting"] == "deployment" and dont_know["baseline_value"] == pytest.approx(0.5)


def test_judged_at_k_counts_the_sources_some_instance_of_the_same_question_names_as_gold():
    texts = {"a": "same question", "b": "same question"}
    rows = [_row("bm25", "oracle", "a", 2, gold="http://x/2023", retrieved=("http://x/2024", "http://x/2023#s",
                                                                              "http://x/other")),
            _row("bm25", "oracle", "b", None, gold="http://x/2024", retrieved=("http://x/other",))]
    intervals, _ = stats.run_statistics(rows, texts)
    judged = next(r for r in intervals if r["metric"] == "judged@10")
    assert judged["value"] == pytest.approx((2 / 3 + 0.0) / 2)  # 2024 judged (b's gold), 2023#s a chunk of a's


@dataclass
class _Outcome:
    per_query: list[dict]
    aggregates: list[dict]
    params: dict = field(default_factory=dict)
    intervals: list[dict] = field(default_factory=list)
    tests: list[dict] = field(default_factory=list)


def _recorded(con, run_id: str, ranks: dict[str, int | None]) -> str:
    from eval import store

    texts = {i: f"question {i}" for i in ranks}
    rows = [_row(system, "deployment", i, rank if system == "profill" else None)
            for system in ("bm25", "profill") for i, rank in ranks.items()]
    intervals, tests = stats.run_statistics(rows, texts)
    meta = store.RunMeta(benchmark="qa.jsonl", benchmark_hash="h1", instances=len(ranks), build_id="b1",
                         annotator=None, embedder=None, code_version="c1", config_hash="f1",
                         systems=("bm25", "profill"), settings=("deployment",),
                         started_at=datetime.now(timezone.utc), institution="demo", run_id=run_id)
    return store.record_run(con, outcome=_Outcome(rows, [], {}, intervals, tests), run_meta=meta)


def test_a_recorded_run_is_compared_with_the_previous_one_in_sql(tmp_path):
    from eval import store

    con = duckdb.connect(str(tmp_path / "lakehouse.duckdb"))
    ids = [f"i{n}" for n in range(40)]
    first = _recorded(con, "first", {i: (1 if n < 10 else None) for n, i in enumerate(ids)})
    second = _recorded(con, "second", dict.fromkeys(ids, 1))
    assert store.previous_run(con, second) == first and store.previous_run(con, first) is None
    tested = store.tests_frame(con, second).filter(pl.col("system") == "profill")
    assert tested["metric"].to_list() == ["mrr", "success@10"] and all(tested["significant"])

    changes = {(c["system"], c["metric"]): c for c in store.comparison_frame(con, first, second).to_dicts()}
    mrr = changes[("profill", "mrr")]
    assert (mrr["before"], mrr["after"]) == (0.25, 1.0) and mrr["moved"] and mrr["change"] == pytest.approx(0.75)
    assert not changes[("bm25", "mrr")]["moved"]  # 0 then 0
    flipped = store.flipped_frame(con, first, second)
    assert flipped.height == 30 and set(flipped["flip"]) == {"now first"} and set(flipped["system"]) == {"profill"}
