"""The Dagster code location: `dagster dev -m pipelines.definitions` (see `make ui`)."""

from __future__ import annotations

from dagster import Definitions, in_process_executor, load_asset_checks_from_modules, load_assets_from_modules

from advisor.config import load_config
from assets import annotation, benchmarks, dialogue, evaluation, indexing, ingestion, intents, study, usage
from assets.resources import InstitutionResource, LLMResource, WarehouseResource
from pipelines.fleet import fleet_from_environment
from pipelines.schedules import nightly_refresh, notices_hourly, notices_job, refresh_job
from pipelines.sensors import config_changed

ASSET_MODULES = [ingestion, annotation, intents, indexing, benchmarks, evaluation, dialogue, usage, study]


def build_definitions(config_path: str | None = None, warehouse: str | None = None) -> Definitions:
    """One institution's pipeline: `config_path` and `warehouse` when given, else the environment's
    ($ADVISOR_CONFIG, $ADVISOR_WAREHOUSE: EnvVars the UI names), else the defaults."""
    timezone = load_config(config_path).timezone
    return Definitions(
        assets=load_assets_from_modules(ASSET_MODULES),
        asset_checks=load_asset_checks_from_modules(ASSET_MODULES),
        jobs=[refresh_job, notices_job],
        schedules=[nightly_refresh(timezone), notices_hourly(timezone)],
        sensors=[config_changed],
        resources={
            "institution": InstitutionResource.from_environment(config_path),
            "warehouse": WarehouseResource.from_environment(warehouse),
            "llm": LLMResource.from_environment(),
        },
        # One process runs the assets one after another: DuckDB allows a single writer, and the
        # multiprocess executor costs ~4x in start-up for this graph (docs/tech-notes.md, Dagster).
        executor=in_process_executor,
    )


def code_location() -> Definitions:
    """What `dagster dev -m pipelines.definitions` loads: the institution of the environment, and
    many institutions (pipelines/fleet.py) when ADVISOR_FLEET_CONFIGS names a folder of configs.
    `advisor materialize` builds one institution's definitions only, whatever the environment."""
    institution = build_definitions()
    fleet = fleet_from_environment()
    return institution if fleet is None else Definitions.merge(institution, fleet)


defs = code_location()
