"""Many institutions (issue 13): the fleet's partitions from a folder of configs (pipelines/fleet.py),
its instance's run queue (deploy/dagster.fleet.yaml), and the cross-institution query over every
institution's lakehouse (eval/reports/fleet.py, `advisor fleet compare`)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from dagster import DagsterInstance, build_sensor_context, materialize
from dagster._core.test_utils import instance_for_test

from advisor.config import DEMO_CONFIG_PATH
from advisor.lakehouse import connect
from cli.main import main
from eval import store
from eval.reports.fleet import attach_fleet, catalog_name, overview, table1_rows
from pipelines.fleet import (
    FLEET_TAG,
    FleetResource,
    fleet_definitions,
    institution_build,
    institution_configs,
    institutions,
)
from tests.conftest import demo_config_on_port, free_port
from tests.test_eval_store import fake_run_evaluation, make_instances, make_meta

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "DAGSTER_HOME"):
        monkeypatch.delenv(name, raising=False)


# --- the partitions: one per config file ---------------------------------------------------------


def configs_folder(tmp_path: Path, *keys: str) -> Path:
    folder = tmp_path / "configs"
    folder.mkdir(exist_ok=True)
    for key in keys:
        shutil.copy(DEMO_CONFIG_PATH, folder / f"{key}.yaml")
    (folder / "notes.txt").write_text("not a config")
    return folder


def evaluate(instance, fleet: FleetResource):
    return institution_configs(build_sensor_context(instance=instance, resources={"fleet": fleet}))


def test_sensor_adds_a_partition_per_config_and_requests_a_run_per_new_or_changed_config(tmp_path):
    folder = configs_folder(tmp_path, "alpha", "beta")
    fleet = FleetResource(configs=str(folder), root=str(tmp_path / "root"))
    with instance_for_test() as instance:
        result = evaluate(instance, fleet)
        [request] = result.dynamic_partitions_requests
        assert request.partitions_def_name == "institution" and request.partition_keys == ["alpha", "beta"]
        assert [r.partition_key for r in result.run_requests] == ["alpha", "beta"]
        assert all(r.tags[FLEET_TAG] == "institution" for r in result.run_requests)
        first_keys = [r.run_key for r in result.run_requests]

        instance.add_dynamic_partitions(institutions.name, request.partition_keys)  # what the daemon does
        again = evaluate(instance, fleet)
        assert again.dynamic_partitions_requests == []  # nothing new
        assert [r.run_key for r in again.run_requests] == first_keys  # same bytes: Dagster drops them

        text = (folder / "beta.yaml").read_text(encoding="utf-8")
        (folder / "beta.yaml").write_text(text.replace("timezone: Asia/Seoul", "timezone: Asia/Tokyo"))
        configs_folder(tmp_path, "gamma")
        changed = evaluate(instance, fleet)
        assert changed.dynamic_partitions_requests[0].partition_keys == ["gamma"]
        keys = {r.partition_key: r.run_key for r in changed.run_requests}
        assert keys["alpha"] == first_keys[0] and keys["beta"] != first_keys[1] and "gamma" in keys


def test_the_fleet_joins_the_code_location_only_when_configured(tmp_path, monkeypatch):
    from pipelines.definitions import build_definitions, code_location

    monkeypatch.delenv("ADVISOR_FLEET_CONFIGS", raising=False)
    assert "institution_configs" not in {s.name for s in code_location().sensors}
    monkeypatch.setenv("ADVISOR_FLEET_CONFIGS", str(configs_folder(tmp_path, "alpha")))
    monkeypatch.setenv("ADVISOR_FLEET_ROOT", str(tmp_path / "root"))
    # `advisor materialize` (build_definitions) stays one institution's pipeline: every asset unpartitioned
    assert all(s.partitions_def is None for s in build_definitions().resolve_all_asset_specs())
    defs = code_location()
    assert defs.resolve_sensor_def("institution_configs") is not None
    assert defs.resolve_job_def("fleet_build").tags[FLEET_TAG] == "institution"
    spec = next(s for s in defs.resolve_all_asset_specs() if s.key.to_user_string() == "institution_build")
    assert spec.group_name == "fleet" and spec.description and spec.code_version
    assert {"raw_documents", "documents"} <= {s.key.to_user_string() for s in defs.resolve_all_asset_specs()}


def test_the_fleet_instance_queues_runs_by_tag_and_one_per_institution(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(REPO / "deploy" / "dagster.fleet.yaml", home / "dagster.yaml")
    with DagsterInstance.from_config(str(home)) as instance:
        assert type(instance.run_coordinator).__name__ == "QueuedRunCoordinator"
        queue = instance.get_concurrency_config().run_queue_config
        limits = {limit["key"]: limit for limit in queue.tag_concurrency_limits}
        assert queue.max_concurrent_runs > limits[FLEET_TAG]["limit"]
        assert limits[FLEET_TAG]["limit"] >= 2  # institutions build in parallel
        assert limits["dagster/partition"] == {"key": "dagster/partition", "limit": 1,
                                               "value": {"applyLimitPerUniqueValue": True}}

        # what the daemon's dequeue does with them (its own counter), for the tags a fleet run has
        from dagster._utils.tags import TagConcurrencyLimitsCounter

        counter = TagConcurrencyLimitsCounter(queue.tag_concurrency_limits, [])
        queued = [SimpleNamespace(key=key, tags={FLEET_TAG: "institution", "dagster/partition": key})
                  for key in ("a", "a", "b", "c", "d", "e", "f")]
        started = []
        for run in queued:
            if not counter.is_blocked(run):
                counter.update_counters_with_launched_item(run)
                started.append(run.key)
    # as many institutions as the limit start; the second run of "a" waits for the first
    assert started == list(dict.fromkeys(run.key for run in queued))[: limits[FLEET_TAG]["limit"]]


def test_a_failing_institution_fails_its_partition_with_the_error(tmp_path):
    folder = tmp_path / "configs"
    folder.mkdir()
    (folder / "broken.yaml").write_text("institution: X\nsources: []\nprofile: {}\n")
    fleet = FleetResource(configs=str(folder), root=str(tmp_path / "root"))
    with instance_for_test() as instance:
        instance.add_dynamic_partitions(institutions.name, ["broken"])
        result = materialize([institution_build], partition_key="broken", instance=instance,
                             resources={"fleet": fleet}, raise_on_error=False)
    assert not result.success
    [failure] = [e for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    error = failure.event_specific_data
    assert "exited 2" in error.error.message or "exited 2" in str(error.user_failure_data.description)
    assert "sources" in error.user_failure_data.metadata["stderr"].value


# --- the cross-institution query ------------------------------------------------------------------


def record_runs(warehouse: Path, institution: str, runs: int) -> list[str]:
    from advisor.config import load_config

    config = load_config()
    with connect(warehouse) as con:
        return [store.record_run(con, outcome=fake_run_evaluation(None, make_instances(config), seed=seed,
                                                                  systems=("bm25", "profill")),
                                 run_meta=make_meta(institution=institution, systems=("bm25", "profill")))
                for seed in range(runs)]


def test_one_query_compares_every_institutions_latest_table1(tmp_path, capsys):
    root = tmp_path / "fleet"
    alpha = record_runs(root / "alpha", "Alpha College", runs=2)
    record_runs(root / "Beta-2", "Beta University", runs=1)
    connect(root / "gamma").close()  # built nothing yet: counted, no Table 1
    (root / "dagster").mkdir()  # not an institution: no lakehouse
    with attach_fleet(root) as fleet:
        assert fleet.catalogs == {"Beta-2": "beta_2", "alpha": "alpha", "gamma": "gamma"}
        summary = overview(fleet)
        table1 = table1_rows(fleet)
    assert summary["key"].to_list() == ["Beta-2", "alpha", "gamma"]
    assert summary["institution"].to_list() == ["Beta University", "Alpha College", None]
    assert summary.filter(summary["key"] == "alpha")["eval_run_id"][0] == alpha[-1]  # the latest run
    assert set(table1["key"]) == {"alpha", "Beta-2"}
    assert set(table1.filter(table1["key"] == "alpha")["run_id"]) == {alpha[-1]}
    assert table1.height == 2 * 2 * 2  # institutions x systems x settings
    assert {"mrr", "recall@10", "success@10"} <= set(table1.columns)

    assert main(["fleet", "compare", "--root", str(root)]) == 0
    out = capsys.readouterr().out
    assert "Alpha College" in out and "Beta University" in out and "profill" in out


@pytest.mark.parametrize("key, name", [("demo", "demo"), ("Beta-2", "beta_2"), ("2024 college", "i_2024_college"),
                                       ("새빛", "__")])
def test_catalog_names_are_plain_identifiers(key, name):
    assert catalog_name(key) == name


def test_the_partition_metadata_is_the_same_query_over_one_institution(tmp_path):
    from pipelines.fleet import _headline

    root = tmp_path / "fleet"
    record_runs(root / "alpha", "Alpha College", runs=1)
    record_runs(root / "beta", "Beta University", runs=1)
    metadata = _headline(root / "alpha", "alpha")
    assert metadata["institution"] == "Alpha College"
    assert "| profill" in metadata["table1"].value and 0 <= metadata["profill_deployment_mrr"] <= 1


def test_a_lakehouse_being_written_is_skipped_with_the_reason(tmp_path):
    root = tmp_path / "fleet"
    record_runs(root / "alpha", "Alpha College", runs=1)
    connect(root / "busy").close()
    # another process holds the busy one's write lock, as a running materialize does
    writer = subprocess.Popen([sys.executable, "-c", "import duckdb, sys; con = duckdb.connect(sys.argv[1]); "
                               "print('ready', flush=True); sys.stdin.read()", str(root / "busy" / "lakehouse.duckdb")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "ready"
        with attach_fleet(root) as fleet:
            assert list(fleet.catalogs) == ["alpha"]
            assert "lock" in fleet.skipped["busy"].lower()
            assert overview(fleet)["key"].to_list() == ["alpha"]
    finally:
        writer.communicate("")


# --- end to end: two institutions built as two partitions, then compared ------------------------


@pytest.mark.e2e
def test_two_institutions_build_as_partitions_and_compare(tmp_path):
    folder = tmp_path / "configs"
    folder.mkdir()
    for key in ("north", "south"):  # the demo college on two ports: two institutions with their own sites
        (tmp_path / key).mkdir()
        demo_config_on_port(tmp_path / key, free_port(), max_pages=3).rename(folder / f"{key}.yaml")
    root = tmp_path / "fleet"
    defs = fleet_definitions(str(folder), str(root))
    fleet = FleetResource(configs=str(folder), root=str(root))
    select = "*chunks"  # crawl, clean, chunk: seconds on a few pages
    with instance_for_test() as instance:
        sensor = evaluate(instance, fleet)
        instance.add_dynamic_partitions(institutions.name, sensor.dynamic_partitions_requests[0].partition_keys)
        for request in sensor.run_requests:  # what the daemon launches, one run per partition
            result = defs.resolve_job_def("fleet_build").execute_in_process(
                partition_key=request.partition_key, instance=instance, tags=request.tags,
                run_config={"ops": {"institution_build": {"config": {"select": select}}}})
            assert result.success
            # the tags deploy/dagster.fleet.yaml's run queue limits by
            assert result.dagster_run.tags[FLEET_TAG] == "institution"
            assert result.dagster_run.tags["dagster/partition"] == request.partition_key
            [materialization] = result.asset_materializations_for_node("institution_build")
            assert materialization.partition == request.partition_key
            assert materialization.metadata["exit_code"].value == 0
            assert materialization.metadata["chunks"].value > 0
    assert (root / "north" / "dagster" / "dagster.yaml").is_file()  # each institution's own instance
    with attach_fleet(root) as fleet_db:
        summary = overview(fleet_db)
    assert summary["key"].to_list() == ["north", "south"]
    assert all(n > 0 for n in summary["documents"]) and all(n > 0 for n in summary["chunks"])
