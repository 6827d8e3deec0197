"""Evaluation stage: the blind preference study's figures (eval/study.py) from the votes `/study`
recorded under `<warehouse>/usage/votes/`: per-question vote splits, the non-tie win rate and an
exact two-sided binomial test in the lakehouse, and the paper's Figure 3 as an SVG under
`<warehouse>/reports/`. No votes is a normal state: empty tables, and the metadata says so."""

from dagster import AssetExecutionContext, MaterializeResult, MetadataValue

from advisor.usage.logfiles import ReadReport, read_records
from advisor.versioning import code_version
from assets.lineage import record_lineage
from assets.resources import InstitutionResource, WarehouseResource
from assets.stage import begin, stage_asset
from eval import study

GROUP = "evaluation"
STUDY_CODE = code_version(study)


@stage_asset(GROUP, kinds={"duckdb", "python"}, code_version=STUDY_CODE)
def preference_study(context: AssetExecutionContext, institution: InstitutionResource,
                     warehouse: WarehouseResource) -> MaterializeResult:
    """The blind preference study (/study): per question the votes for proFILL, ties and the baseline (dense
    retrieval with the profile in the query), the non-tie win rate and a two-sided exact binomial test, from the
    votes under <warehouse>/usage; tables preference_study_questions and preference_study, and the Figure 3 chart
    (reports/preference_study.svg)."""
    config, started = begin(context, institution, "counting the preference study's votes")
    report = ReadReport()
    records = list(read_records(warehouse.root / "usage", "votes", report))
    questions, overall = study.study_tables(records, [q.id for q in config.study.questions])
    chart = study.write_chart(questions, warehouse.root / "reports")
    with warehouse.connect() as con:
        study.write_tables(con, context.run_id, questions, overall)
        metadata = {"dagster/row_count": len(questions), "votes": overall["votes"],
                    "participants": overall["participants"], "win_rate": _short(overall["win_rate"]),
                    "p_value": _short(overall["p_value"]), "skipped_lines": report.skipped_lines, "chart": str(chart)}
        record_lineage(context, con, config, asset="preference_study", started_at=started, code_version=STUDY_CODE,
                       row_count=len(questions), counts={"rows_added": len(questions)}, metadata=metadata)
    if not overall["votes"]:
        context.log.info(study.NO_VOTES)
    return MaterializeResult(metadata={
        **{k: v for k, v in metadata.items() if v is not None and k != "chart"},
        "chart": MetadataValue.path(str(chart)),
        "summary": MetadataValue.md(f"{study.markdown(questions, overall)}\n\n[Figure 3 (SVG)](file://{chart})"),
    })


def _short(value: float | None) -> float | None:
    """Four significant digits: enough to read, and a tiny p-value stays tiny (not rounded to 0)."""
    return None if value is None else float(f"{value:.4g}")
