"""Table expectations with Great Expectations 1.x, for the assets' checks.

dagster-ge requires GX < 1.0, so checks call GX directly: an ephemeral context, a pandas data
source, one suite per frame. GX takes ~5 s to import, so it is imported here, lazily, only when a
check runs (never at code-location load).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl


@dataclass(frozen=True)
class ExpectationOutcome:
    name: str  # the expectation type and its column, e.g. expect_column_values_to_be_unique(chunk_id)
    success: bool
    unexpected_count: int
    examples: list


def validate(name: str, frame: pl.DataFrame, expectations: list) -> list[ExpectationOutcome]:
    """Run GX expectations (built by `expectations_module()` calls) against a polars frame."""
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    batch = (
        context.data_sources.add_pandas(f"{name}_source")
        .add_dataframe_asset(name)
        .add_batch_definition_whole_dataframe("whole")
        .get_batch(batch_parameters={"dataframe": frame.to_pandas()})
    )
    suite = gx.ExpectationSuite(name=name)
    for expectation in expectations:
        suite.add_expectation(expectation)
    outcomes = []
    for result in batch.validate(suite).results:
        config = result.expectation_config
        column = config.kwargs.get("column", "")
        outcomes.append(ExpectationOutcome(
            name=f"{config.type}({column})",
            success=bool(result.success),
            unexpected_count=int(result.result.get("unexpected_count") or 0),
            examples=[str(v)[:80] for v in (result.result.get("partial_unexpected_list") or [])[:5]],
        ))
    return outcomes


def expectations_module():
    """`gx.expectations`, imported on demand."""
    import great_expectations as gx

    return gx.expectations
