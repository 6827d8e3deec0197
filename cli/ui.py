"""`advisor ui` (`make ui`): the Dagster UI and its daemon over one warehouse.

It starts what `dagster dev` starts (the webserver and the daemon that runs schedules, sensors and
queued runs) itself, because `dagster dev` now warns on every start that it is superseded by `dg dev`,
which needs a `dg` project layout this repository does not use. Both run with the warehouse's own
Dagster home as their working folder: started from the repository root, Dagster would warn that the
root's dagster.yaml (the template cli/dagster_home.py re-roots) is not the one in use.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from advisor.settings import DagsterEnvironment, InstitutionEnvironment, child_environment, variable_name
from cli.dagster_home import prepare_dagster_home

ROOT = Path(__file__).resolve().parents[1]
CODE_LOCATION = ("-m", "pipelines.definitions", "-d", str(ROOT))


def commands(host: str, port: int) -> tuple[list[str], list[str]]:
    """(webserver, daemon) command lines, with this interpreter's own Dagster scripts."""
    scripts = Path(sys.executable).parent
    return ([str(scripts / "dagster-webserver"), *CODE_LOCATION, "-h", host, "-p", str(port)],
            [str(scripts / "dagster-daemon"), "run", *CODE_LOCATION])


def _interrupted(_signum, _frame) -> None:
    raise KeyboardInterrupt


def create_instance_storage(home: Path) -> None:
    """Creates the instance's storage in `home` before anything that uses it starts.

    The webserver, its code server and the daemon start together. On a fresh home each of them would
    create the SQLite storage and stamp its schema version; two stamps leave the version table with
    two heads, and the code server then fails to load (seen in CI). Opening the instance once here
    makes the storage, so the children only read it."""
    from dagster import DagsterInstance

    with DagsterInstance.from_config(str(home)):
        pass


def run_ui(warehouse: Path, config: str | None, host: str, port: int) -> int:
    """Serves until interrupted (or until the webserver stops); the daemon stops with it."""
    home = prepare_dagster_home(warehouse)
    create_instance_storage(home)
    environment = child_environment(**{variable_name(DagsterEnvironment, "home"): str(home),
                                       variable_name(InstitutionEnvironment, "warehouse"): str(Path(warehouse).resolve())})
    if config:
        environment[variable_name(InstitutionEnvironment, "config")] = str(Path(config).resolve())
    webserver_command, daemon_command = commands(host, port)
    # a service manager stops us with SIGTERM: handled as Ctrl-C, so both children stop too
    signal.signal(signal.SIGTERM, _interrupted)
    daemon = subprocess.Popen(daemon_command, cwd=home, env=environment)
    try:
        webserver = subprocess.Popen(webserver_command, cwd=home, env=environment)
        try:
            return webserver.wait()
        except KeyboardInterrupt:
            webserver.send_signal(signal.SIGINT)
            return webserver.wait()
    finally:
        if daemon.poll() is None:
            daemon.send_signal(signal.SIGINT)
            try:
                daemon.wait(timeout=30)
            except subprocess.TimeoutExpired:
                daemon.kill()
