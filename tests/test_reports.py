"""The evaluation report renderer (eval/reports.py) on small synthetic frames: table layout and
rounding, "–" for what was not computed, skipped systems footnoted, ablation deltas, per-query
breakdowns, valid 1200x700 PNGs, and a deterministic report.md."""

from __future__ import annotations

import math
import random

import polars as pl
import pytest
from PIL import Image

from eval.reports import (
    CHART_FILES,
    MISSING,
    breakdown_markdown,
    charts,
    table1_markdown,
    table2_markdown,
    write_report,
)

METRICS = ("mrr", "recall@1", "recall@5", "recall@10", "recall@50", "rouge_l", "token_f1", "keyword_match",
           "source_match", "grounded_correctness", "seconds_per_query", "questions_per_query")


def aggregate_row(system: str, setting: str, value: float = 0.5, **overrides) -> dict:
    row = {"system": system, "setting": setting, "n": 10, **{m: value for m in METRICS}, "skipped": None}
    row.update(overrides)
    return row


def skipped_row(system: str, setting: str, reason: str) -> dict:
    return {"system": system, "setting": setting, "n": None, **{m: None for m in METRICS}, "skipped": reason}


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
               "profill+rerank", "hybrid"]
    rows = [aggregate_row(s, setting) for setting in ("oracle", "deployment", "pilot") for s in systems]
    random.Random(7).shuffle(rows)

    order = [(r[0], r[1]) for r in table_rows(table1_markdown(pl.DataFrame(rows)))]

    paper = ["bm25", "dense", "hybrid", "hybrid+rerank", "hyde", "hyde+rerank", "profill", "profill+rerank",
             "profill-no-hard-filter", "profill-no-soft-prefix", "profill-no-reretrieval", "urag",
             "abc-system", "my-new-system"]
    assert order == [(setting, s) for setting in ("deployment", "oracle", "pilot") for s in paper]


def test_table1_rounds_metrics_to_three_decimals_and_times_to_two():
    row = aggregate_row("profill", "deployment", **{
        "mrr": 0.59349, "recall@1": 0.4916, "recall@5": 0.71849, "recall@10": 0.99951, "recall@50": 1.0,
        "source_match": 0.7494, "grounded_correctness": 0.0004, "seconds_per_query": 6.2049,
        "questions_per_query": 1.355})
    markdown = table1_markdown(pl.DataFrame([row]))

    assert header(markdown) == ["setting", "system", "MRR", "R@1", "R@5", "R@10", "R@50", "source match",
                                "GC", "s/q", "questions/q"]
    cells = table_rows(markdown)[0]
    expected = [f"{row[c]:.3f}" for c in ("mrr", "recall@1", "recall@5", "recall@10", "recall@50",
                                          "source_match", "grounded_correctness")]
    expected += [f"{row['seconds_per_query']:.2f}", f"{row['questions_per_query']:.2f}"]
    assert cells[2:] == expected
    assert cells[2] == "0.593" and cells[5] == "1.000" and cells[9] == "6.20"


def test_null_nan_and_absent_metrics_print_as_a_dash_without_a_reason_in_the_cells():
    frame = pl.DataFrame([aggregate_row("bm25", "deployment", grounded_correctness=None, mrr=math.nan)])
    frame = frame.drop("recall@50")  # a metric column nobody computed at all

    markdown = table1_markdown(frame)
    cells = dict(zip(header(markdown), table_rows(markdown)[0]))

    assert cells["GC"] == MISSING and cells["MRR"] == MISSING and cells["R@50"] == MISSING
    assert cells["R@1"] == "0.500"
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

    deployment, oracle = markdown.split("**oracle**")
    assert header(deployment) == ["system", "graduation", "scholarship", "all", "n"]
    body = {r[0]: r[1:] for r in table_rows(deployment)}
    assert list(body) == ["bm25", "profill"]  # the paper's system order
    assert body["profill"] == [expected_mrr([1, 2, None]), expected_mrr([4, 4]), expected_mrr([1, 2, None, 4, 4]), "5"]
    assert body["bm25"] == [expected_mrr([None, 3]), MISSING, expected_mrr([None, 3]), "2"]
    assert table_rows(oracle) == [["profill", "1.000", "1.000", "1"]]


def test_breakdown_by_query_type_groups_by_query_type():
    ranks = {("dense", "deployment", "a", "formal"): [2], ("dense", "deployment", "b", "formal"): [None],
             ("dense", "deployment", "a", "yes_no"): [1]}
    markdown = breakdown_markdown(per_query_rows(ranks), "query_type")
    assert header(markdown) == ["system", "formal", "yes_no", "all", "n"]
    assert table_rows(markdown) == [["dense", expected_mrr([2, None]), "1.000", expected_mrr([2, None, 1]), "3"]]


def test_breakdown_rejects_bad_input():
    frame = per_query_rows({("dense", "deployment", "a", "formal"): [1]})
    with pytest.raises(ValueError, match="by must be one of"):
        breakdown_markdown(frame, "department")
    with pytest.raises(ValueError, match="1-based"):
        breakdown_markdown(frame.with_columns(pl.lit(0).alias("rank")), "category")
    with pytest.raises(ValueError, match="lacks required column"):
        breakdown_markdown(frame.drop("category"), "category")


# --- charts and the whole report -------------------------------------------------------------


@pytest.fixture(scope="module")
def evaluation():
    """A small two-setting evaluation with a skipped system and non-ASCII category names."""
    rng = random.Random(3)
    systems = ["bm25", "dense", "hyde", "profill", "profill-no-hard-filter"]
    aggregates, per_query = [], []
    for setting in ("deployment", "oracle"):
        for system in systems:
            if system == "hyde":
                aggregates.append(skipped_row(system, setting, "needs an LLM; none configured"))
                continue
            aggregates.append(aggregate_row(system, setting, value=rng.random()))
            for i in range(24):
                per_query.append({"system": system, "setting": setting,
                                  "category": ["졸업", "scholarship", "전과"][i % 3],
                                  "query_type": ["formal", "first_person", "yes_no"][i % 3 - 1],
                                  "rank": rng.choice([None, 1, 2, 7]), "source_match": 0.5, "seconds": 0.01,
                                  "questions": i % 2})
    return pl.DataFrame(aggregates), pl.DataFrame(per_query, schema_overrides={"rank": pl.Int64})


def test_charts_are_valid_1200x700_pngs_with_fixed_names(evaluation, tmp_path):
    aggregates, per_query = evaluation
    paths = charts(aggregates, per_query, tmp_path / "new" / "charts")

    assert [p.name for p in paths] == list(CHART_FILES)
    for path in paths:
        with Image.open(path) as image:
            image.verify()
        with Image.open(path) as image:
            assert image.format == "PNG"
            assert image.size == (1200, 700)


def test_charts_still_written_when_there_are_no_per_query_rows(evaluation, tmp_path):
    aggregates, per_query = evaluation
    paths = charts(aggregates, per_query.clear(), tmp_path)
    assert [p.name for p in paths] == list(CHART_FILES) and all(p.stat().st_size > 0 for p in paths)


def test_write_report_is_deterministic_and_links_its_charts(evaluation, tmp_path):
    aggregates, per_query = evaluation
    lineage = {"build_id": "build-42", "annotator": "rules", "embedder": "hash-256", "code_version": "abc123",
               "config_hash": "cfg9", "benchmark": "bench.jsonl", "instances": 120}

    first = write_report(aggregates, per_query, tmp_path / "a" / "b", "Evaluation", lineage)
    second = write_report(aggregates, per_query, tmp_path / "c", "Evaluation", dict(reversed(lineage.items())))

    text = first["markdown"].read_text(encoding="utf-8")
    assert text == second["markdown"].read_text(encoding="utf-8")
    assert first["markdown"] == tmp_path / "a" / "b" / "report.md"
    assert first["table1"] == table1_markdown(aggregates) and first["table1"] in text
    assert text.startswith("# Evaluation\n")
    for line in ("- build id: build-42", "- annotator: rules", "- embedder: hash-256", "- code version: abc123",
                 "- config hash: cfg9", "- benchmark: bench.jsonl", "- benchmark size: 120"):
        assert line in text
    assert table2_markdown(aggregates) in text
    assert breakdown_markdown(per_query, "category") in text and breakdown_markdown(per_query, "query_type") in text
    for path in first["charts"]:
        assert path.parent == first["markdown"].parent and path.exists()
        assert f"]({path.name})" in text  # linked relatively, so the folder can move
    # The charts cannot draw Hangul without a CJK font: the report names the stand-in labels.
    assert "= 졸업" in text and "= 전과" in text


def test_write_report_rejects_an_empty_title_and_non_dict_lineage(evaluation, tmp_path):
    aggregates, per_query = evaluation
    with pytest.raises(ValueError, match="title"):
        write_report(aggregates, per_query, tmp_path, "  ", {})
    with pytest.raises(TypeError, match="lineage"):
        write_report(aggregates, per_query, tmp_path, "Evaluation", ["build-1"])
