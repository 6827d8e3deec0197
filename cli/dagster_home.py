"""The Dagster instance for a warehouse: run history and logs live beside the data they made.

The repository's `dagster.yaml` is the one source of the instance settings (storage under
`warehouse/`, telemetry off, one run at a time). For a warehouse elsewhere, the same settings are
written into `<warehouse>/dagster/dagster.yaml` with the `warehouse/` paths re-rooted.
"""

from __future__ import annotations

import os
from pathlib import Path

import yaml

from advisor.settings import DagsterEnvironment, read, variable_name

REPO_INSTANCE_YAML = Path(__file__).resolve().parents[1] / "dagster.yaml"
_FALLBACK = {  # an installed package without the repository's file
    "storage": {"sqlite": {"base_dir": "warehouse/dagster/storage"}},
    "run_coordinator": {"module": "dagster._core.run_coordinator", "class": "QueuedRunCoordinator"},
    "concurrency": {"runs": {"max_concurrent_runs": 1}, "pools": {"default_limit": 1}},
    "telemetry": {"enabled": False},
}


def _reroot(node: object, warehouse: Path) -> object:
    if isinstance(node, dict):
        return {
            key: (str(warehouse / value.removeprefix("warehouse/"))
                  if key == "base_dir" and isinstance(value, str) and value.startswith("warehouse/")
                  else _reroot(value, warehouse))
            for key, value in node.items()
        }
    return node


def prepare_dagster_home(warehouse: Path) -> Path:
    """Write the instance config for `warehouse` and point DAGSTER_HOME at it (unless the user
    already chose a DAGSTER_HOME)."""
    chosen = read(DagsterEnvironment).home
    if chosen:
        return Path(chosen)
    warehouse = Path(warehouse).resolve()
    settings = yaml.safe_load(REPO_INSTANCE_YAML.read_text()) if REPO_INSTANCE_YAML.exists() else _FALLBACK
    home = warehouse / "dagster"
    home.mkdir(parents=True, exist_ok=True)
    text = yaml.safe_dump(_reroot(settings, warehouse), sort_keys=False)
    target = home / "dagster.yaml"
    if not target.exists() or target.read_text() != text:
        target.write_text(text)
    # written, not read: Dagster (DagsterInstance.get()) and the processes this one starts find it there
    os.environ[variable_name(DagsterEnvironment, "home")] = str(home)
    return home
