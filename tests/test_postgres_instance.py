"""The production instance (deploy/dagster.postgres.yaml) on a real PostgreSQL server that the
test starts on a free loopback port: the instance loads as documented, a real `advisor
materialize` records its run there, and the dead-run recovery of cli/run_lock.py works on it."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from cli.run_lock import RUN_TAG, WAREHOUSE_TAG, recover_dead_runs, this_process
from tests.conftest import demo_config_on_port, free_port

REPO = Path(__file__).resolve().parents[1]
INSTANCE_YAML = REPO / "deploy" / "dagster.postgres.yaml"
POOL = "lakehouse"


def _postgres_bin() -> Path | None:
    """Debian's server binaries (not on PATH there), else whatever PATH has."""
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name),
                            reverse=True):
        if (Path(candidate) / "initdb").exists():
            return Path(candidate)
    found = shutil.which("initdb")
    return Path(found).resolve().parent if found else None


def _as_server_user() -> list[str]:
    """initdb and postgres refuse to run as root: then they run as the `postgres` OS user."""
    return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []


@pytest.fixture(scope="module")
def postgres_server():
    """A throwaway PostgreSQL server (trust auth, loopback only, fsync off): the DAGSTER_PG_*
    variables that reach it, database aside. Stopped and removed afterwards."""
    bindir = _postgres_bin()
    if bindir is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found: `make postgres` installs them")
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no `postgres` OS user to run the server as")
        if shutil.which("runuser") is None:
            pytest.skip("running as root without `runuser` to start the server as `postgres`")
    # not under pytest's tmp dir: that is private to this user, and the server runs as `postgres`
    root = Path(tempfile.mkdtemp(prefix="advisor-pg-"))
    data, sockets = root / "data", root / "sockets"
    sockets.mkdir()
    if os.geteuid() == 0:
        record = pwd.getpwnam("postgres")
        for path in (root, sockets):
            os.chown(path, record.pw_uid, record.pw_gid)
    port = free_port()
    run = _as_server_user()
    try:
        subprocess.run([*run, str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres",
                        "-E", "UTF8", "--no-locale", "--no-sync"], check=True, capture_output=True, timeout=120)
        options = f"-c listen_addresses=127.0.0.1 -p {port} -k {sockets} -c fsync=off -c full_page_writes=off"
        subprocess.run([*run, str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(root / "server.log"),
                        "-w", "-t", "60", "start"], check=True, capture_output=True, timeout=90)
        yield {"DAGSTER_PG_HOST": "127.0.0.1", "DAGSTER_PG_PORT": str(port), "DAGSTER_PG_USER": "postgres",
               "DAGSTER_PG_PASSWORD": ""}
    except subprocess.CalledProcessError as exc:
        log = root / "server.log"
        raise AssertionError(f"{exc.cmd[len(run)]} failed: {exc.stderr.decode(errors='replace')[-2000:]}"
                             + (log.read_text()[-2000:] if log.exists() else "")) from exc
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run([*run, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                           capture_output=True, timeout=60)
        shutil.rmtree(root, ignore_errors=True)


_databases = iter(range(1, 1000))


@pytest.fixture
def postgres(postgres_server) -> dict:
    """An empty database of its own on the test server: the DAGSTER_PG_* variables for it."""
    import psycopg2

    name = f"dagster_{next(_databases)}"
    connection = psycopg2.connect(host=postgres_server["DAGSTER_PG_HOST"], port=int(postgres_server["DAGSTER_PG_PORT"]),
                                  user=postgres_server["DAGSTER_PG_USER"], dbname="postgres")
    connection.autocommit = True
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE DATABASE {name}")
    connection.close()
    return {**postgres_server, "DAGSTER_PG_DB": name}


@pytest.fixture
def postgres_home(postgres, tmp_path, monkeypatch):
    """A DAGSTER_HOME holding the production instance file, as the README sets it up, with the
    DAGSTER_PG_* variables of the test server in this process's environment."""
    home = tmp_path / "dagster-home"
    home.mkdir()
    shutil.copy(INSTANCE_YAML, home / "dagster.yaml")
    for name, value in postgres.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    return home


def _sql_rows(postgres: dict, sql: str) -> list[tuple]:
    """Straight from the server's tables, not through Dagster."""
    import psycopg2

    connection = psycopg2.connect(host=postgres["DAGSTER_PG_HOST"], port=int(postgres["DAGSTER_PG_PORT"]),
                                  user=postgres["DAGSTER_PG_USER"], dbname=postgres["DAGSTER_PG_DB"])
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql)
            return cursor.fetchall()
    finally:
        connection.close()


def test_the_production_instance_is_what_its_file_documents(postgres_home):
    from dagster import DagsterInstance
    from dagster._core.launcher import DefaultRunLauncher
    from dagster._core.run_coordinator import QueuedRunCoordinator
    from dagster_postgres import PostgresEventLogStorage, PostgresRunStorage, PostgresScheduleStorage

    with DagsterInstance.from_config(str(postgres_home)) as instance:
        assert isinstance(instance.run_storage, PostgresRunStorage)
        assert isinstance(instance.event_log_storage, PostgresEventLogStorage)
        assert isinstance(instance.schedule_storage, PostgresScheduleStorage)
        assert isinstance(instance.run_coordinator, QueuedRunCoordinator)
        assert isinstance(instance.run_launcher, DefaultRunLauncher)
        assert instance.event_log_storage.supports_global_concurrency_limits
        assert instance.get_concurrency_config().pool_config.default_pool_limit == 1
        assert instance.get_concurrency_config().run_queue_config.max_concurrent_runs == 1
        assert instance.run_monitoring_enabled
        assert instance.run_monitoring_settings["free_slots_after_run_end_seconds"] > 0
        assert not instance.telemetry_enabled
        # artifacts and compute logs stay on this host, under DAGSTER_HOME
        assert Path(instance.root_directory).resolve() == postgres_home.resolve()
        logs = Path(instance.compute_log_manager.inst_data.config_dict["base_dir"])
        assert logs.resolve() == (postgres_home / "storage").resolve()


def test_an_unset_variable_is_refused_by_name(postgres_home, monkeypatch):
    from dagster import DagsterInstance

    monkeypatch.delenv("DAGSTER_PG_HOST")
    with pytest.raises(Exception, match="DAGSTER_PG_HOST"):
        DagsterInstance.from_config(str(postgres_home))


def test_dead_runs_are_failed_and_their_slots_freed_on_postgres(postgres, postgres_home, tmp_path):
    """cli/run_lock.py's recovery on Postgres storage: the dead run of this warehouse is failed
    and its slot freed; a live one, the UI's, and another warehouse's (whose process this host
    cannot see) are left alone."""
    from dagster import DagsterInstance, DagsterRunStatus
    from dagster._core.test_utils import create_run_for_test

    warehouse = tmp_path / "warehouse"
    ours = {WAREHOUSE_TAG: str(warehouse)}
    with DagsterInstance.from_config(str(postgres_home)) as instance:
        storage = instance.event_log_storage
        storage.set_concurrency_slots(POOL, 1)
        host = this_process().partition("@")[2]
        dead = create_run_for_test(instance, status=DagsterRunStatus.STARTED,
                                   tags={RUN_TAG: f"{_dead_pid()}@{host}", **ours})
        alive = create_run_for_test(instance, status=DagsterRunStatus.STARTED, tags={RUN_TAG: this_process(), **ours})
        from_ui = create_run_for_test(instance, status=DagsterRunStatus.STARTED)
        elsewhere = create_run_for_test(instance, status=DagsterRunStatus.STARTED,
                                        tags={RUN_TAG: "4242@another-host", WAREHOUSE_TAG: "/srv/other"})
        assert storage.claim_concurrency_slot(POOL, dead.run_id, "chunks").is_claimed
        assert not storage.claim_concurrency_slot(POOL, alive.run_id, "documents").is_claimed

        lines = recover_dead_runs(instance, warehouse)

        assert len(lines) == 1 and dead.run_id[:8] in lines[0] and "pool slots freed" in lines[0]
        assert instance.get_run_by_id(dead.run_id).status == DagsterRunStatus.FAILURE
        for left_alone in (alive, from_ui, elsewhere):
            assert instance.get_run_by_id(left_alone.run_id).status == DagsterRunStatus.STARTED
        assert dead.run_id not in storage.get_concurrency_run_ids()
        assert storage.claim_concurrency_slot(POOL, alive.run_id, "documents").is_claimed  # the slot is free again
        assert recover_dead_runs(instance, warehouse) == []  # idempotent
    # and it is in the server's tables, not anywhere on disk
    assert _sql_rows(postgres, f"SELECT status FROM runs WHERE run_id = '{dead.run_id}'") == [("FAILURE",)]


@pytest.mark.e2e
def test_materialize_records_its_run_in_postgres(postgres, postgres_home, tmp_path):
    """A real `advisor materialize` with DAGSTER_HOME at the production instance: exit 0, its run
    and events in Postgres, no SQLite instance written into the warehouse."""
    config = demo_config_on_port(tmp_path, free_port(), max_pages=4)
    warehouse = tmp_path / "warehouse"
    completed = subprocess.run(
        [sys.executable, "-m", "cli", "materialize", "--config", str(config), "--warehouse", str(warehouse),
         "--select", "raw_documents"],
        cwd=REPO, env=dict(os.environ), capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert not (warehouse / "dagster" / "dagster.yaml").exists()  # the user's DAGSTER_HOME was kept

    from dagster import DagsterInstance, DagsterRunStatus

    with DagsterInstance.from_config(str(postgres_home)) as instance:
        runs = instance.get_runs()
        assert len(runs) == 1 and runs[0].status == DagsterRunStatus.SUCCESS
        assert runs[0].tags[WAREHOUSE_TAG] == str(warehouse.resolve()) and RUN_TAG in runs[0].tags
        assert instance.get_latest_materialization_event(_key("raw_documents")) is not None
        run_id = runs[0].run_id
        assert not instance.event_log_storage.get_concurrency_run_ids()  # nothing left holding the pool
    assert _sql_rows(postgres, "SELECT run_id, status FROM runs") == [(run_id, "SUCCESS")]


def _key(name: str):
    from dagster import AssetKey

    return AssetKey(name)


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid
