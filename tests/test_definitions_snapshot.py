"""The whole Dagster code location, pinned as text: every asset with its group, kinds, deps and
partitions, every asset check, job, schedule, sensor and resource, and the executor, as the UI
loads them (`pipelines.definitions.code_location()`, the fleet included), sorted, one a line.

A change to the graph shows in the diff of tests/data/definitions_snapshot.txt. When it is
intended, rewrite the file and commit it with the change:

    .venv/bin/python -m tests.test_definitions_snapshot
"""

from __future__ import annotations

import difflib
import json
import os
import sys
import tempfile
from pathlib import Path
from unittest import mock

SNAPSHOT = Path(__file__).with_name("data") / "definitions_snapshot.txt"
# What the code location reads from the environment: the defaults for the institution (the demo
# college), and a fleet folder so the fleet's part is pinned too
INSTITUTION_VARIABLES = ("ADVISOR_CONFIG", "ADVISOR_WAREHOUSE", "ADVISOR_FLEET_CONFIGS", "ADVISOR_FLEET_ROOT")
FLEET_HEADER = "# with ADVISOR_FLEET_CONFIGS set (the fleet in the same code location), what changes:"


def render(defs) -> list[str]:
    """One sorted line per definition; values that depend on the machine (paths, secrets) left out."""
    repository = defs.get_repository_def()
    graph = defs.resolve_asset_graph()
    lines = []
    for spec in defs.resolve_all_asset_specs():
        deps = ", ".join(sorted(dep.asset_key.to_user_string() for dep in spec.deps))
        partitions = f" partitions={type(spec.partitions_def).__name__}" if spec.partitions_def else ""
        lines.append(f"asset {spec.key.to_user_string()} group={spec.group_name} "
                     f"kinds={','.join(sorted(spec.kinds))} deps=[{deps}]{partitions}")
    for key in graph.asset_check_keys:
        blocking = " blocking" if graph.get_check_spec(key).blocking else ""
        lines.append(f"check {key.asset_key.to_user_string()}:{key.name}{blocking}")
    for job in defs.resolve_all_job_defs():
        if job.name.startswith("__"):
            continue  # Dagster's implicit job of every asset
        assets = ", ".join(sorted(key.to_user_string() for key in job.asset_layer.selected_asset_keys))
        partitions = f" partitions={type(job.partitions_def).__name__}" if job.partitions_def else ""
        lines.append(f"job {job.name} assets=[{assets}] tags={json.dumps(job.tags, sort_keys=True)} "
                     f"run_config={json.dumps(job.run_config, sort_keys=True)}{partitions}")
    for schedule in repository.schedule_defs:
        lines.append(f"schedule {schedule.name} job={schedule.job_name} cron={schedule.cron_schedule!r} "
                     f"timezone={schedule.execution_timezone} default={schedule.default_status.value}")
    for sensor in repository.sensor_defs:
        lines.append(f"sensor {sensor.name} job={sensor.job_name} every={sensor.minimum_interval_seconds}s "
                     f"default={sensor.default_status.value}")
    for key, resource in defs.resources.items():
        lines.append(f"resource {key} {type(resource).__name__}")
    lines.append(f"executor {defs.executor.name}")
    return sorted(lines)


def snapshot_text() -> str:
    """The code location of one institution, then what changes in it when it holds a fleet too
    ("-" a line gone, "+" a line added)."""
    from pipelines.definitions import code_location

    with tempfile.TemporaryDirectory() as folder, mock.patch.dict(os.environ):
        for name in INSTITUTION_VARIABLES:
            os.environ.pop(name, None)
        alone = render(code_location())
        os.environ["ADVISOR_FLEET_CONFIGS"] = folder
        os.environ["ADVISOR_FLEET_ROOT"] = str(Path(folder) / "fleet")
        with_fleet = render(code_location())
    changes = sorted([f"- {line}" for line in set(alone) - set(with_fleet)]
                     + [f"+ {line}" for line in set(with_fleet) - set(alone)],
                     key=lambda line: (line[2:].split(" ", 2)[:2], line[0] == "+", line))  # a definition's - before its +
    return "\n".join([*alone, "", FLEET_HEADER, *changes]) + "\n"


def test_the_code_location_matches_its_snapshot():
    expected = SNAPSHOT.read_text(encoding="utf-8")
    actual = snapshot_text()
    diff = "\n".join(difflib.unified_diff(expected.splitlines(), actual.splitlines(), "snapshot", "now", lineterm=""))
    assert actual == expected, (
        "the Dagster definitions changed; if that is intended, run `.venv/bin/python -m "
        f"tests.test_definitions_snapshot` and commit tests/data/definitions_snapshot.txt:\n{diff}")


def test_the_rendering_names_what_it_pins():
    """The renderer reads every kind of definition (an empty section would pin nothing)."""
    institution, fleet = SNAPSHOT.read_text(encoding="utf-8").split(f"\n{FLEET_HEADER}\n")
    kinds = {line.split(" ", 1)[0] for line in institution.splitlines() if line}
    assert kinds == {"asset", "check", "job", "schedule", "sensor", "resource", "executor"}
    assert {line.split(" ", 2)[1] for line in fleet.splitlines()} >= {"asset", "job", "sensor", "resource"}


if __name__ == "__main__":
    SNAPSHOT.write_text(snapshot_text(), encoding="utf-8")
    print(f"wrote {SNAPSHOT}", file=sys.stderr)
