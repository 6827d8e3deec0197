"""The evaluation report renderer (eval/reports/report.py, eval/reports/table.py) on small synthetic
frames: table layout and rounding, "–" for what was not computed, skipped systems footnoted (and in
a column of the typed records), ablation deltas, per-query breakdowns over the main slice, the
slice, tier and intent tables, gold provenance, valid 1200x700 PNGs, a deterministic report.md, and
the same tables as Dagster metadata (assets/report_metadata.py). report.html: tests/test_report_html.py."""

from __future__ import annotations

import json
import math
import random

import polars as pl
import pytest
from PIL import Image

from eval.metrics import stats
from eval.reports.report import (
    CHART_FILES,
    MISSING,
    breakdown_markdown,
    charts,
    confusion_table,
    intent_table,
    slice_table,
    table1,
    table1_caption,
    table1_markdown,
    table2_markdown,
    tier_table,
    write_report,
)

METRICS = ("mrr", "recall@1", "recall@5", "recall@10", "recall@50", "success@1", "success@5", "success@10",
           "success@50", "rouge_l", "token_f1", "keyword_match", "source_match", "grounded_correctness",
           "seconds_per_query", "questions_per_query")


def aggregate_row(system: str, setting: str, value: float = 0.5, **overrides) -> dict:
    row = {"system": system, "setting": setting, "n": 10, **dict.fromkeys(METRICS, value), "skipped": None}
    row.update(overrides)
    return row


def skipped_row(system: str, setting: str, reason: str) -> dict:
    return {"system": system, "setting": setting, "n": None, **dict.fromkeys(METRICS), "skipped": reason}


def table_rows(markdown: str) -> list[list[str]]:
    """The body rows of the first Markdown table in `markdown`, as lists of cell texts."""
    lines = [line for line in markdown.splitlines() if line.startswith("|")]
    first_table = []
    for line in lines:
        first_table.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return first_table[2:]  # drop the header and the alignment row


def header(markdown: str) -> list[str]:
    line = next(line for line in markdown.splitlines() if line.startswith("|"))
    return [cell.strip() for cell in line.strip("|").split(" | ")]


def footnotes(markdown: str) -> list[str]:
    return [line for line in markdown.splitlines() if line and not line.startswith("|")]


# --- Table 1 ---------------------------------------------------------------------------------


def test_table1_orders_settings_then_systems_as_the_paper_with_unknown_ones_last():
    systems = ["urag", "profill", "bm25", "my-new-system", "hyde+rerank", "profill-no-reretrieval", "hyde",
               "dense", "profill-no-hard-filter", "hybrid+rerank", "abc-system", "profill-no-soft-prefix",
               "profill+rerank", "hybrid", "profill-true-labels", "hybrid+filter"]
    settings = ("oracle", "deployment", "pilot", "deployment-dont-know")
    rows = [aggregate_row(s, setting) for setting in settings for s in systems]
    random.Random(7).shuffle(rows)

    order = [(r[0], r[1]) for r in table_rows(table1_markdown(pl.DataFrame(rows)))]

    paper = ["bm25", "dense", "hybrid", "hybrid+filter", "hybrid+rerank", "hyde", "hyde+rerank", "profill",
             "profill+rerank", "profill-true-labels", "profill-no-hard-filter", "profill-no-soft-prefix",
             "profill-no-reretrieval", "urag", "abc-system", "my-new-system"]
    assert order == [(setting, s) for setting in ("deployment", "deployment-dont-know", "oracle", "pilot")
                     for s in paper]


def test_table1_rounds_metrics_to_three_decimals_and_times_to_two():
    row = aggregate_row("profill", "deployment", **{
        "mrr": 0.59349, "success@1": 0.4916, "success@5": 0.71849, "success@10": 0.99951, "recall@10": 0.87654,
        "recall@50": 1.0, "source_match": 0.7494, "grounded_correctness": 0.0004, "seconds_per_query": 6.2049,
        "questions_per_query": 1.355})
    markdown = table1_markdown(pl.DataFrame([row]))

    assert header(markdown) == ["setting", "system", "MRR", "S@1", "S@5", "S@10", "R@10", "R@50", "source match",
                                "GC", "s/q", "questions/q"]
    cells = table_rows(markdown)[0]
    expected = [f"{row[c]:.3f}" for c in ("mrr", "success@1", "success@5", "success@10", "recall@10", "recall@50",
                                          "source_match", "grounded_correctness")]
    expected += [f"{row['seconds_per_query']:.2f}", f"{row['questions_per_query']:.2f}"]
    assert cells[2:] == expected
    assert cells[2] == "0.593" and cells[5] == "1.000" and cells[6] == "0.877" and cells[10] == "6.20"


def test_null_nan_and_absent_metrics_print_as_a_dash_without_a_reason_in_the_cells():
    frame = pl.DataFrame([aggregate_row("bm25", "deployment", grounded_correctness=None, mrr=math.nan)])
    frame = frame.drop("recall@50")  # a metric column nobody computed at all

    markdown = table1_markdown(frame)
    cells = dict(zip(header(markdown), table_rows(markdown)[0]))

    assert cells["GC"] == MISSING and cells["MRR"] == MISSING and cells["R@50"] == MISSING
    assert cells["S@1"] == "0.500"
    assert f"{MISSING} = not computed." in footnotes(markdown)
    assert not any(line.startswith("Skipped") for line in footnotes(markdown))


def test_skipped_systems_keep_their_row_and_are_footnoted_with_their_reasons():
    rows = [aggregate_row("bm25", "deployment"), aggregate_row("bm25", "oracle"),
            skipped_row("hyde", "deployment", "needs an LLM; none configured"),
            skipped_row("hyde", "oracle", "needs an LLM; none configured"),
            skipped_row("urag", "oracle", "no FAQ entries in this build")]
    markdown = table1_markdown(pl.DataFrame(rows))

    body = table_rows(markdown)
    hyde = [r for r in body if r[1] == "hyde"]
    assert len(hyde) == 2 and all(cell == MISSING for r in hyde for cell in r[2:])
    assert not any("LLM" in cell for r in body for cell in r)  # the reason lives in the footnote only

    skipped_line = [line for line in footnotes(markdown) if line.startswith("Skipped")]
    assert len(skipped_line) == 1
    assert "hyde (deployment; oracle): needs an LLM; none configured" in skipped_line[0]
    assert "urag (oracle): no FAQ entries in this build" in skipped_line[0]
    assert "bm25" not in skipped_line[0]

    # the typed records (a Dagster table) carry the reason in a column of their own
    records = {(r["setting"], r["system"]): r for r in table1(pl.DataFrame(rows)).records()}
    assert records[("oracle", "urag")]["skipped"] == "no FAQ entries in this build"
    assert records[("oracle", "urag")]["MRR"] is None and records[("oracle", "bm25")]["skipped"] is None
    assert records[("oracle", "bm25")]["S@1"] == 0.5


def test_systems_skipped_alike_share_one_footnote_entry():
    rows = [aggregate_row("profill", "deployment-dont-know"),
            skipped_row("bm25", "deployment-dont-know", "asks the student nothing"),
            skipped_row("dense", "deployment-dont-know", "asks the student nothing"),
            skipped_row("dense", "deployment", "index missing")]
    (line,) = [line for line in footnotes(table1_markdown(pl.DataFrame(rows))) if line.startswith("Skipped")]
    assert line == ("Skipped: dense (deployment): index missing · bm25, dense (deployment-dont-know): asks the "
                    "student nothing.")


def test_table1_gets_an_embedder_column_only_when_embedders_differ():
    one = [aggregate_row("dense", "deployment", embedder="e-small")]
    assert "embedder" not in header(table1_markdown(pl.DataFrame(one)))

    two = [aggregate_row("dense", "deployment", embedder="e-small"),
           aggregate_row("dense", "deployment", embedder="e-large")]
    markdown = table1_markdown(pl.DataFrame(two))
    assert header(markdown)[:3] == ["setting", "system", "embedder"]
    assert [r[2] for r in table_rows(markdown)] == ["e-large", "e-small"]


def test_markdown_cells_escape_pipes():
    markdown = table1_markdown(pl.DataFrame([aggregate_row("a|b", "deployment")]))
    assert table_rows(markdown)[0][1] == "a\\|b"


def test_bad_aggregates_get_clear_errors():
    with pytest.raises(TypeError, match="polars.DataFrame"):
        table1_markdown([aggregate_row("bm25", "deployment")])
    with pytest.raises(ValueError, match="system"):
        table1_markdown(pl.DataFrame([{"setting": "deployment", "mrr": 0.1}]))
    with pytest.raises(ValueError, match="more than one row"):
        table1_markdown(pl.DataFrame([aggregate_row("bm25", "deployment"), aggregate_row("bm25", "deployment")]))


# --- Table 2 ---------------------------------------------------------------------------------


def test_table2_without_embedders_lists_profill_and_ablations_with_deltas():
    mrr = {"profill": 0.596, "profill-no-hard-filter": 0.311, "profill-no-soft-prefix": 0.247,
           "profill-no-reretrieval": 0.5804}
    rows = [aggregate_row(s, "deployment", mrr=v) for s, v in mrr.items()]
    rows += [aggregate_row("profill", "oracle", mrr=0.9), aggregate_row("bm25", "deployment", mrr=0.1)]
    markdown = table2_markdown(pl.DataFrame(rows))

    assert header(markdown) == ["system", "MRR", "Δ vs profill"]
    body = table_rows(markdown)
    assert [r[0] for r in body] == list(mrr)  # only profill and its ablations, oracle ignored
    assert body[0][1:] == [f"{mrr['profill']:.3f}", "reference"]
    for system, cells in zip(list(mrr)[1:], body[1:]):
        assert cells[1] == f"{mrr[system]:.3f}"
        assert float(cells[2]) == pytest.approx(mrr[system] - mrr["profill"], abs=5e-4)
    assert body[1][2] == "-0.285" and body[3][2] == "-0.016"


def test_table2_per_embedder_compares_within_the_same_embedder_and_dashes_what_is_missing():
    rows = [
        aggregate_row("profill", "deployment", mrr=0.6, embedder="small"),
        aggregate_row("profill-no-hard-filter", "deployment", mrr=0.3, embedder="small"),
        aggregate_row("profill-no-soft-prefix", "deployment", mrr=0.65, embedder="small"),
        aggregate_row("profill", "deployment", mrr=0.8, embedder="large"),
        aggregate_row("profill-no-hard-filter", "deployment", mrr=0.5, embedder="large"),
        aggregate_row("profill-no-reretrieval", "deployment", mrr=0.7, embedder="hash"),  # no profill here
        skipped_row("profill-no-soft-prefix", "deployment", "embedder not built") | {"embedder": "large"},
    ]
    markdown = table2_markdown(pl.DataFrame(rows))

    assert header(markdown) == ["system", "MRR (hash)", "Δ vs profill (hash)", "MRR (large)",
                                "Δ vs profill (large)", "MRR (small)", "Δ vs profill (small)"]
    body = {r[0]: r[1:] for r in table_rows(markdown)}
    assert body["profill"] == [MISSING, "reference", "0.800", "reference", "0.600", "reference"]
    assert body["profill-no-hard-filter"] == [MISSING, MISSING, "0.500", "-0.300", "0.300", "-0.300"]
    assert body["profill-no-soft-prefix"] == [MISSING, MISSING, MISSING, MISSING, "0.650", "+0.050"]
    assert body["profill-no-reretrieval"] == ["0.700", MISSING, MISSING, MISSING, MISSING, MISSING]
    assert any("profill-no-soft-prefix (deployment, large): embedder not built" in line for line in footnotes(markdown))


def test_table2_never_prints_negative_zero():
    rows = [aggregate_row("profill", "deployment", mrr=0.5),
            aggregate_row("profill-no-reretrieval", "deployment", mrr=0.49999)]
    body = table_rows(table2_markdown(pl.DataFrame(rows)))
    assert body[3][2] == "+0.000"


# --- breakdowns ------------------------------------------------------------------------------


def per_query_rows(ranks: dict[tuple[str, str, str, str], list[int | None]]) -> pl.DataFrame:
    rows = []
    for (system, setting, category, query_type), rank_list in ranks.items():
        for rank in rank_list:
            rows.append({"system": system, "setting": setting, "category": category, "query_type": query_type,
                         "rank": rank, "source_match": 1.0, "seconds": 0.1, "questions": 1})
    return pl.DataFrame(rows, schema_overrides={"rank": pl.Int64})


def expected_mrr(ranks: list[int | None]) -> str:
    return f"{sum(1 / r for r in ranks if r is not None) / len(ranks):.3f}"


def test_breakdown_by_category_computes_mrr_per_setting_with_unretrieved_as_zero():
    ranks = {
        ("profill", "deployment", "graduation", "formal"): [1, 2, None],
        ("profill", "deployment", "scholarship", "yes_no"): [4, 4],
        ("bm25", "deployment", "graduation", "formal"): [None, 3],
        ("profill", "oracle", "scholarship", "formal"): [1],
    }
    markdown = breakdown_markdown(per_query_rows(ranks), "category")

    assert header(markdown) == ["setting", "category", "n", "bm25", "profill"]  # systems in the paper's order
    body = {(r[0], r[1]): r[2:] for r in table_rows(markdown)}
    assert list(body) == [("deployment", "graduation"), ("deployment", "scholarship"), ("deployment", "all"),
                          ("oracle", "scholarship"), ("oracle", "all")]
    assert body[("deployment", "graduation")] == ["3", expected_mrr([None, 3]), expected_mrr([1, 2, None])]
    assert body[("deployment", "scholarship")] == ["2", MISSING, expected_mrr([4, 4])]
    assert body[("deployment", "all")] == ["5", expected_mrr([None, 3]), expected_mrr([1, 2, None, 4, 4])]
    assert body[("oracle", "scholarship")] == ["1", MISSING, "1.000"]
    assert "– = no query of this category for this system." in footnotes(markdown)


def test_breakdown_by_query_type_groups_by_query_type():
    ranks = {("dense", "deployment", "a", "formal"): [2], ("dense", "deployment", "b", "formal"): [None],
             ("dense", "deployment", "a", "yes_no"): [1]}
    markdown = breakdown_markdown(per_query_rows(ranks), "query_type")
    assert header(markdown) == ["setting", "query type", "n", "dense"]
    assert table_rows(markdown) == [["deployment", "formal", "2", expected_mrr([2, None])],
                                    ["deployment", "yes_no", "1", "1.000"],
                                    ["deployment", "all", "3", expected_mrr([2, None, 1])]]


def test_breakdown_rejects_bad_input():
    frame = per_query_rows({("dense", "deployment", "a", "formal"): [1]})
    with pytest.raises(ValueError, match="by must be one of"):
        breakdown_markdown(frame, "department")
    with pytest.raises(ValueError, match="1-based"):
        breakdown_markdown(frame.with_columns(pl.lit(0).alias("rank")), "category")
    with pytest.raises(ValueError, match="lacks required column"):
        breakdown_markdown(frame.drop("category"), "category")


# --- slices, tiers, intents, provenance -----------------------------------------------------


def test_slice_table_orders_slices_and_rounds():
    rows = [{"system": "profill", "setting": "oracle", "slice": "profile_independent", "n": 20, **dict.fromkeys(METRICS, 0.25)},
            {"system": "profill", "setting": "deployment", "slice": "stated_profile", "n": 5, **dict.fromkeys(METRICS, 0.5)},
            {"system": "profill", "setting": "deployment", "slice": "profile_dependent", "n": 40,
             **dict.fromkeys(METRICS, 0.91234), "questions_per_query": 2.345},
            {"system": "bm25", "setting": "deployment", "slice": "profile_dependent", "n": 40,
             **dict.fromkeys(METRICS, 0.1)}]
    markdown = slice_table(pl.DataFrame(rows)).markdown()
    assert header(markdown) == ["setting", "system", "slice", "n", "MRR", "S@1", "S@10", "R@10", "source match",
                                "questions/q"]
    body = table_rows(markdown)
    assert [(r[0], r[1], r[2]) for r in body] == [("deployment", "bm25", "profile_dependent"),
                                                  ("deployment", "profill", "profile_dependent"),
                                                  ("deployment", "profill", "stated_profile"),
                                                  ("oracle", "profill", "profile_independent")]
    assert body[1][3:] == ["40", "0.912", "0.912", "0.912", "0.912", "0.912", "2.35"]
    assert "No per-slice results" in slice_table(None).markdown()


def test_tier_table_reads_the_runner_shape_and_dashes_unused_tiers():
    tiers = {"template": 0.0, "faq": 0.25, "documents": 0.5, "fallback": 0.25,
             "accuracy": {"template": None, "faq": 1.0, "documents": 0.5, "fallback": 0.0}}
    rows = [aggregate_row("urag", "deployment", tiers=json.dumps(tiers)), aggregate_row("bm25", "deployment")]
    markdown = tier_table(pl.DataFrame(rows)).markdown()
    body = table_rows(markdown)
    assert [r[:3] for r in body] == [["deployment", "urag", t] for t in ("template", "faq", "documents", "fallback")]
    assert body[0][3:] == ["0.000", MISSING] and body[1][3:] == ["0.250", "1.000"]
    assert f"{MISSING} = no answer came from this tier." in footnotes(markdown)


def test_intent_tables():
    intents = pl.DataFrame([
        {"intent": "faq", "precision": 0.5, "recall": 1.0, "f1": 2 / 3, "support": 1, "n": 4, "accuracy": 0.75,
         "macro_f1": 0.7, "router": "intent-logreg-x"},
        {"intent": "retrieval", "precision": 1.0, "recall": 0.6667, "f1": 0.8, "support": 3, "n": 4,
         "accuracy": 0.75, "macro_f1": 0.7, "router": "intent-logreg-x"}])
    markdown = intent_table(intents).markdown()
    assert table_rows(markdown) == [["faq", "0.500", "1.000", "0.667", "1"], ["retrieval", "1.000", "0.667", "0.800", "3"]]
    assert "4 held-out examples; accuracy 0.750, macro F1 0.700 (router intent-logreg-x)." in markdown
    predictions = pl.DataFrame({"intent": ["faq", "retrieval", "retrieval", "retrieval"],
                                "predicted": ["faq", "faq", "retrieval", "retrieval"]})
    confusion = confusion_table(predictions).markdown()
    assert header(confusion) == ["gold \\ predicted", "faq", "retrieval", "n"]
    assert table_rows(confusion) == [["faq", "1", "0", "1"], ["retrieval", "1", "2", "3"]]


def test_table1_caption_says_what_the_numbers_are_over_and_where_the_gold_came_from():
    dependent = [aggregate_row("bm25", "deployment", slice="profile_dependent")]
    caption = table1_caption(pl.DataFrame(dependent), "annotations")
    assert "profile_dependent slice" in caption
    assert "Gold sources from: annotations" in caption and "cannot show up as a miss" in caption
    plain = table1_caption(pl.DataFrame([aggregate_row("bm25", "deployment", slice="all")]), "truth")
    assert "every instance" in plain and "truth" in plain and "caveat" not in plain
    assert "unknown" in table1_caption(pl.DataFrame([aggregate_row("bm25", "deployment")]), None)


# --- charts and the whole report -------------------------------------------------------------


@pytest.fixture(scope="module")
def evaluation():
    """A small two-setting evaluation with a skipped system, non-ASCII category names, two slices
    (the second with its own category that the main-slice breakdowns must leave out), URAG tiers,
    per-slice aggregates and an intent evaluation."""
    rng = random.Random(3)
    systems = ["bm25", "dense", "hyde", "profill", "profill-no-hard-filter", "urag"]
    aggregates, per_query, slices = [], [], []
    tiers = json.dumps({"template": 0.0, "faq": 0.5, "documents": 0.5, "fallback": 0.0,
                        "accuracy": {"template": None, "faq": 1.0, "documents": 0.5, "fallback": None}})
    for setting in ("deployment", "oracle"):
        for system in systems:
            if system == "hyde":
                aggregates.append(skipped_row(system, setting, "needs an LLM; none configured"))
                continue
            aggregates.append(aggregate_row(system, setting, value=rng.random(), slice="profile_dependent",
                                            tiers=tiers if system == "urag" else None))
            for slice_ in ("profile_dependent", "profile_independent"):
                slices.append({"system": system, "setting": setting, "slice": slice_, "n": 24,
                               **{m: rng.random() for m in METRICS}})
            for i in range(24):
                independent = i >= 18
                per_query.append({"system": system, "setting": setting, "instance_id": f"q{i}",
                                  "category": "general-only" if independent else ["졸업", "scholarship", "전과"][i % 3],
                                  "query_type": ["formal", "first_person", "yes_no"][i % 3 - 1],
                                  "slice": "profile_independent" if independent else "profile_dependent",
                                  "rank": rng.choice([None, 1, 2, 7]), "source_match": 0.5, "seconds": 0.01,
                                  "questions": i % 2})
    intents = pl.DataFrame([{"intent": i, "precision": 0.9, "recall": 0.8, "f1": 0.85, "support": 5, "n": 10,
                             "accuracy": 0.9, "macro_f1": 0.85, "router": "r1"} for i in ("faq", "retrieval")])
    predictions = pl.DataFrame({"intent": ["faq"] * 5 + ["retrieval"] * 5,
                                "predicted": ["faq"] * 4 + ["retrieval"] * 6})
    return (pl.DataFrame(aggregates), pl.DataFrame(per_query, schema_overrides={"rank": pl.Int64}),
            pl.DataFrame(slices), intents, predictions)


def test_charts_are_valid_1200x700_pngs_with_fixed_names(evaluation, tmp_path):
    aggregates, per_query, slices, _, _ = evaluation
    paths = charts(aggregates, per_query, tmp_path / "new" / "charts", slices)

    assert [p.name for p in paths] == list(CHART_FILES)
    for path in paths:
        with Image.open(path) as image:
            image.verify()
        with Image.open(path) as image:
            assert image.format == "PNG"
            assert image.size == (1200, 700)


def test_charts_are_drawn_again_only_when_what_they_show_changed(evaluation, tmp_path, monkeypatch):
    """A no-change re-run of the report keeps its pictures (drawing them is seconds of matplotlib)."""
    import eval.reports.charts as report_charts

    aggregates, per_query, slices, _, _ = evaluation
    drawn = []
    real = report_charts.draw_charts
    monkeypatch.setattr(report_charts, "draw_charts", lambda *args: drawn.append(1) or real(*args))
    first = charts(aggregates, per_query, tmp_path, slices)
    assert charts(aggregates, per_query, tmp_path, slices) == first and len(drawn) == 1
    charts(aggregates, per_query.head(3), tmp_path, slices)  # other inputs: drawn again
    assert len(drawn) == 2
    first[0].unlink()  # a picture gone: drawn again, whatever the stamp says
    charts(aggregates, per_query.head(3), tmp_path, slices)
    assert len(drawn) == 3 and first[0].is_file()
    # equal frames in another memory layout are the same inputs: the key is the rows' content
    split = pl.concat([per_query.head(3).head(1), per_query.head(3).tail(2)], rechunk=False)
    assert split.n_chunks() > 1
    charts(aggregates, split, tmp_path, slices)
    assert len(drawn) == 3


def test_charts_still_written_when_there_are_no_per_query_rows(evaluation, tmp_path):
    aggregates, per_query, _, _, _ = evaluation
    paths = charts(aggregates, per_query.clear(), tmp_path)
    assert [p.name for p in paths] == list(CHART_FILES) and all(p.stat().st_size > 0 for p in paths)


def test_write_report_is_deterministic_and_links_its_charts(evaluation, tmp_path):
    aggregates, per_query, slices, intents, predictions = evaluation
    lineage = {"build_id": "build-42", "annotator": "rules", "embedder": "hash-256", "code_version": "abc123",
               "config_hash": "cfg9", "benchmark": "bench.jsonl", "instances": 120, "gold_from": "annotations"}
    intervals, tests = stats.run_statistics(per_query.to_dicts(), {i: f"text {i}" for i in per_query["instance_id"]})
    extra = {"slices": slices, "intents": intents, "predictions": predictions, "intervals": pl.DataFrame(intervals),
             "tests": pl.DataFrame(tests)}

    first = write_report(aggregates, per_query, tmp_path / "a" / "b", "Evaluation", lineage, **extra)
    second = write_report(aggregates, per_query, tmp_path / "c", "Evaluation", dict(reversed(lineage.items())),
                          **extra)

    text = first["markdown"].read_text(encoding="utf-8")
    assert text == second["markdown"].read_text(encoding="utf-8")
    assert first["markdown"] == tmp_path / "a" / "b" / "report.md"
    with_statistics = table1(aggregates, extra["intervals"], extra["tests"]).markdown()
    assert first["table1"] == with_statistics != table1_markdown(aggregates) and first["table1"] in text
    assert "MRR 95% CI" in with_statistics and "ΔMRR vs bm25" in with_statistics
    assert text.startswith("# Evaluation\n\nGold sources from: annotations (caveat: gold sources were chosen")
    for line in ("- build id: build-42", "- annotator: rules", "- embedder: hash-256", "- code version: abc123",
                 "- config hash: cfg9", "- benchmark: bench.jsonl", "- benchmark size: 120",
                 "- gold from: annotations"):
        assert line in text
    assert table2_markdown(aggregates) in text
    # the breakdowns are over the main slice: the profile-independent category is not in them
    main = per_query.filter(pl.col("slice") == "profile_dependent")
    assert breakdown_markdown(main, "category") in text and breakdown_markdown(main, "query_type") in text
    assert "general-only" not in text and "(the profile_dependent slice)" in text
    for name, table in first["tables"].items():
        assert table.rows and table.markdown() in text, name  # every table has rows here, and is in the report
    assert "| deployment | urag | faq | 0.500 | 1.000 |" in text
    assert "### Intent confusion" in text and first["body"] in text and "## Charts" not in first["body"]
    for path in first["charts"]:
        assert path.parent == first["markdown"].parent and path.exists()
        assert f"]({path.name})" in text  # linked relatively, so the folder can move
    # The charts cannot draw Hangul without a CJK font: the report names the stand-in labels.
    assert "= 졸업" in text and "= 전과" in text


def test_write_report_rejects_an_empty_title_and_non_dict_lineage(evaluation, tmp_path):
    aggregates, per_query, *_ = evaluation
    with pytest.raises(ValueError, match="title"):
        write_report(aggregates, per_query, tmp_path, "  ", {})
    with pytest.raises(TypeError, match="lineage"):
        write_report(aggregates, per_query, tmp_path, "Evaluation", ["build-1"])


# --- the same tables as Dagster metadata -------------------------------------------------------


def test_report_tables_become_dagster_tables(evaluation, tmp_path):
    """(The charts are no longer metadata entries: the evaluation_report asset links report.html,
    which has them inline; tests/test_report_html.py.)"""
    from dagster import TableMetadataValue

    from assets.report_metadata import table_value

    aggregates, per_query, slices, intents, predictions = evaluation
    written = write_report(aggregates, per_query, tmp_path, "Evaluation", {}, slices=slices, intents=intents,
                           predictions=predictions)
    table = written["tables"]["table1"]
    value = table_value(table)
    assert isinstance(value, TableMetadataValue)
    assert [c.name for c in value.schema.columns] == [c.name for c in table.columns]
    assert {c.type for c in value.schema.columns} == {"string", "float"}
    records = [r.data for r in value.records]
    assert records == table.records() and len(records) == aggregates.height
    profill = next(r for r in records if r["system"] == "profill" and r["setting"] == "deployment")
    source = aggregates.filter((pl.col("system") == "profill") & (pl.col("setting") == "deployment")).row(0, named=True)
    assert profill["MRR"] == round(source["mrr"], 3) and profill["s/q"] == round(source["seconds_per_query"], 2)


def test_a_slice_of_too_few_question_texts_shows_its_size_and_no_figures():
    from eval.reports.report import slice_table

    slices = pl.DataFrame([{"system": "bm25", "setting": "oracle", "slice": name, "n": n, "mrr": 0.625,
                            "success@1": 0.5, "success@10": 1.0, "recall@10": 1.0, "source_match": 0.75,
                            "questions_per_query": 0.0} for name, n in (("profile_dependent", 900),
                                                                      ("profile_independent", 6))])
    intervals = pl.DataFrame([{"system": "bm25", "setting": "oracle", "slice": name, "metric": metric, "value": 0.625,
                               "lower": 0.6, "upper": 0.65, "instances": n, "texts": texts, "too_small": texts < 30}
                              for name, n, texts in (("profile_dependent", 900, 300), ("profile_independent", 6, 6))
                              for metric in ("mrr", "judged@10")])
    rows = {r["slice"]: r for r in slice_table(slices, intervals).records()}
    assert rows["profile_dependent"]["MRR"] == 0.625 and rows["profile_dependent"]["MRR 95% CI"] == "0.600–0.650"
    assert rows["profile_independent"]["MRR"] is None and rows["profile_independent"]["texts"] == 6
    assert rows["profile_independent"]["evidence"] == "too small (6 texts)"
    assert rows["profile_dependent"]["Judged@10"] == 0.625 and rows["profile_independent"]["Judged@10"] is None


def test_what_changed_lists_the_figures_that_left_the_previous_interval():
    from eval.reports.report import changes_table

    comparison = pl.DataFrame([
        {"system": "profill", "setting": "deployment", "slice": "profile_dependent", "metric": "mrr", "before": 0.9,
         "before_lower": 0.88, "before_upper": 0.92, "after": 0.95, "after_lower": 0.93, "after_upper": 0.97,
         "change": 0.05, "moved": True, "too_small": False},
        {"system": "bm25", "setting": "deployment", "slice": "profile_dependent", "metric": "mrr", "before": 0.2,
         "before_lower": 0.18, "before_upper": 0.22, "after": 0.21, "after_lower": 0.19, "after_upper": 0.23,
         "change": 0.01, "moved": False, "too_small": False}])
    flipped = pl.DataFrame({"setting": ["deployment"] * 3, "system": ["profill"] * 3,
                            "flip": ["now first", "now first", "no longer first"]})
    table = changes_table(comparison, flipped, "run-1")
    assert [(r["system"], r["change"]) for r in table.records()] == [("profill", "+0.050")]
    assert "profill (deployment) 1 no longer first; profill (deployment) 2 now first" in table.markdown()
    assert changes_table(None, None, None).markdown() == "No previous run of this benchmark to compare with."
