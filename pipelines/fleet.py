"""Many institutions in one code location: one partition of `institution_build` per config file.

`ADVISOR_FLEET_CONFIGS` names a folder of institution configs (`<key>.yaml`), `ADVISOR_FLEET_ROOT`
the folder that holds one warehouse per institution (`<root>/<key>/`). The sensor
`institution_configs` adds a partition of the dynamic partitions definition `institution` for
every config it finds and requests a run whenever a config is new or its bytes changed (the file's
hash is the run key, so Dagster itself remembers what was requested). A run of partition `<key>`
is the institution's whole pipeline, exactly as `advisor materialize --config <key>.yaml
--warehouse <root>/<key>` does it, in a subprocess: its own Dagster instance, run history and
materialize lock inside that warehouse, so institutions never share a DuckDB writer. How many
institutions build at once is the fleet instance's run queue (deploy/dagster.fleet.yaml: a tag
concurrency limit on FLEET_TAG, one run per partition at a time), not code here.
"""

import hashlib
import subprocess
import sys
import time
from pathlib import Path

from dagster import (
    AssetExecutionContext,
    Config,
    ConfigurableResource,
    DefaultSensorStatus,
    Definitions,
    DynamicPartitionsDefinition,
    Failure,
    MaterializeResult,
    MetadataValue,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    asset,
    define_asset_job,
    sensor,
)

from advisor.settings import (
    DagsterEnvironment,
    FleetEnvironment,
    InstitutionEnvironment,
    child_environment,
    fleet_root,
    read,
)

FLEET_TAG = "advisor/fleet"  # every fleet run carries it; deploy/dagster.fleet.yaml limits runs by it
TAIL = 3000  # characters of the materialize's output kept: its run summary (stdout) and errors (stderr)

institutions = DynamicPartitionsDefinition(name="institution")


class FleetResource(ConfigurableResource):
    """Where the institutions' configs are, and where their warehouses go."""

    configs: str
    root: str

    def config_files(self) -> dict[str, Path]:
        folder = Path(self.configs)
        return {p.stem: p for p in sorted(folder.glob("*.yaml"))} if folder.is_dir() else {}

    def config_file(self, key: str) -> Path:
        return Path(self.configs) / f"{key}.yaml"

    def warehouse(self, key: str) -> Path:
        return Path(self.root).resolve() / key


class InstitutionBuildConfig(Config):
    select: str | None = None  # a Dagster asset selection passed as `--select` (default: every asset)


def _child_env() -> dict[str, str]:
    """The environment of the institution's materialize: the fleet's own settings removed, so it
    keeps its history in its own warehouse (`<warehouse>/dagster/`) and builds the single-institution
    code location, not this one."""
    return child_environment(DagsterEnvironment, InstitutionEnvironment, FleetEnvironment)


@asset(
    partitions_def=institutions,
    group_name="fleet",
    code_version="1",
    kinds={"duckdb"},
    description="One institution's whole pipeline (`advisor materialize`) into its own warehouse "
                "under the fleet root, with Table 1 of its latest evaluation as metadata.",
)
def institution_build(context: AssetExecutionContext, config: InstitutionBuildConfig,
                      fleet: FleetResource) -> MaterializeResult:
    key = context.partition_key
    config_file, warehouse = fleet.config_file(key), fleet.warehouse(key)
    if not config_file.is_file():
        raise Failure(f"no config {config_file} for institution {key!r} (removed from the folder?)")
    command = [sys.executable, "-m", "cli.main", "materialize", "--config", str(config_file.resolve()),
               "--warehouse", str(warehouse), "--wait"]  # --wait: queue behind a hand-started materialize
    if config.select:
        command += ["--select", config.select]
    context.log.info(" ".join(command))
    config_hash, started = _config_hash(config_file), time.monotonic()
    with subprocess.Popen(command, env=_child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as child:
        try:
            stdout, stderr = child.communicate()
        except BaseException:  # the run was terminated (UI, daemon): stop the build it started too;
            child.terminate()  # the institution's next materialize marks that run failed (cli/run_lock.py)
            child.wait()
            raise
    seconds = round(time.monotonic() - started, 1)
    if child.returncode != 0:
        raise Failure(
            description=f"advisor materialize for {key!r} exited {child.returncode} after {seconds} s",
            metadata={"exit_code": child.returncode, "stderr": MetadataValue.text(stderr[-TAIL:]),
                      "summary": MetadataValue.text(stdout[-TAIL:]),
                      "warehouse": MetadataValue.path(str(warehouse))},
        )
    context.log.info(stdout[-TAIL:])  # the run summary `advisor materialize` prints
    return MaterializeResult(metadata={
        "exit_code": 0, "seconds": seconds, "warehouse": MetadataValue.path(str(warehouse)),
        "config_sha256": config_hash, **_headline(warehouse, key)})


def _headline(warehouse: Path, key: str) -> dict:
    """The institution's counts and Table 1 of its latest evaluation run, from its lakehouse."""
    from eval.reports.fleet import attach_fleet, overview, table1_rows
    from eval.reports.report import table1_markdown
    from eval.systems.registry import DEPLOYMENT, REFERENCE_SYSTEM

    # the same queries `advisor fleet compare` runs over every institution, over this one
    with attach_fleet(warehouse.parent, keys={key}) as fleet:
        rows = overview(fleet).to_dicts()
        table1 = table1_rows(fleet)
    if not rows:
        return {}
    row = rows[0]
    metadata = {"institution": row["institution"] or "", "documents": row["documents"] or 0,
                "chunks": row["chunks"] or 0, "build_id": row["build_id"] or "",
                "eval_run_id": row["eval_run_id"] or ""}
    if table1.height:
        metadata["table1"] = MetadataValue.md(table1_markdown(table1.drop("key", "institution", "run_id",
                                                                          "finished_at")))
        reference = table1.filter((table1["system"] == REFERENCE_SYSTEM) & (table1["setting"] == DEPLOYMENT))
        if reference.height and reference["mrr"][0] is not None:
            metadata[f"{REFERENCE_SYSTEM}_{DEPLOYMENT}_mrr"] = float(reference["mrr"][0])  # profill_deployment_mrr
    return metadata


def _config_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


fleet_job = define_asset_job("fleet_build", selection=[institution_build], partitions_def=institutions,
                             tags={FLEET_TAG: "institution"},
                             description="Build one institution of the fleet (one partition per config).")


@sensor(job=fleet_job, minimum_interval_seconds=60, default_status=DefaultSensorStatus.RUNNING)
def institution_configs(context: SensorEvaluationContext, fleet: FleetResource) -> SensorResult:
    """A partition per config file in the fleet's folder; a run per new or changed config."""
    files = fleet.config_files()
    known = set(context.instance.get_dynamic_partitions(institutions.name))
    new_keys = [key for key in files if key not in known]
    runs = [RunRequest(run_key=f"{key}:{_config_hash(path)}", partition_key=key, tags={FLEET_TAG: "institution"})
            for key, path in files.items()]  # a run key seen before is dropped by Dagster: unchanged configs
    return SensorResult(run_requests=runs,
                        dynamic_partitions_requests=[institutions.build_add_request(new_keys)] if new_keys else [])


def fleet_definitions(configs: str, root: str) -> Definitions:
    return Definitions(assets=[institution_build], jobs=[fleet_job], sensors=[institution_configs],
                       resources={"fleet": FleetResource(configs=configs, root=root)})


def fleet_from_environment() -> Definitions | None:
    """The fleet when ADVISOR_FLEET_CONFIGS is set (ADVISOR_FLEET_ROOT defaults to `<warehouse>/fleet`),
    else None: the single-institution code location stays as it is."""
    configs = read(FleetEnvironment).configs
    if not configs:
        return None
    return fleet_definitions(str(Path(configs).resolve()), str(fleet_root().resolve()))
