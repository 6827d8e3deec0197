"""One materialization per warehouse, and no run left behind by a killed one (cli/run_lock.py):
the lock, the dead-run recovery on a real Dagster instance, and a real `advisor materialize`
killed with SIGKILL mid-run, then run again."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest

from cli.exit_codes import EXIT_RUN_IN_PROGRESS
from cli.main import main
from cli.run_lock import RUN_TAG, RunInProgress, exclusive_warehouse, recover_dead_runs, this_process
from tests.conftest import demo_config_on_port, free_port

POOL = "lakehouse"


def _dead_pid() -> int:
    """A pid that belonged to a process that has ended."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_second_holder_is_told_who_holds_the_warehouse(tmp_path):
    with (exclusive_warehouse(tmp_path), pytest.raises(RunInProgress, match=rf"pid {os.getpid()} on .*started"),
          exclusive_warehouse(tmp_path)):
        pass
    with exclusive_warehouse(tmp_path):  # released at the end of the block
        pass


def test_waiting_says_so_once_and_proceeds_when_the_holder_ends(tmp_path, monkeypatch):
    monkeypatch.setattr("cli.run_lock.WAIT_POLL_SECONDS", 0.05)
    told, entered = [], threading.Event()
    holding = threading.Event()

    def hold():
        with exclusive_warehouse(tmp_path):
            holding.set()
            time.sleep(0.4)

    holder = threading.Thread(target=hold)
    holder.start()
    holding.wait(5)
    with exclusive_warehouse(tmp_path, wait=True, on_wait=told.append):
        entered.set()
    holder.join()
    assert entered.is_set() and len(told) == 1 and isinstance(told[0], RunInProgress)


def test_the_lock_dies_with_its_holder(tmp_path):
    """SIGKILL leaves no stale lock: the kernel releases a dead process's flock."""
    code = ("import sys, time; from cli.run_lock import exclusive_warehouse\n"
            f"with exclusive_warehouse({str(tmp_path)!r}):\n    print('held', flush=True); time.sleep(60)\n")
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                             cwd=Path(__file__).parents[1])
    assert child.stdout.readline().strip() == "held"
    with pytest.raises(RunInProgress, match=f"pid {child.pid}"), exclusive_warehouse(tmp_path):
        pass
    child.send_signal(signal.SIGKILL)
    child.wait()
    with exclusive_warehouse(tmp_path):
        pass


def test_dead_runs_are_failed_and_their_slots_freed_live_ones_and_the_uis_left_alone(tmp_path):
    from dagster import DagsterRunStatus
    from dagster._core.test_utils import create_run_for_test, instance_for_test

    with instance_for_test(temp_dir=str(tmp_path)) as instance:
        storage = instance.event_log_storage
        storage.set_concurrency_slots(POOL, 1)
        dead = create_run_for_test(instance, status=DagsterRunStatus.STARTED,
                                   tags={RUN_TAG: f"{_dead_pid()}@{this_process().partition('@')[2]}"})
        alive = create_run_for_test(instance, status=DagsterRunStatus.STARTED, tags={RUN_TAG: this_process()})
        from_ui = create_run_for_test(instance, status=DagsterRunStatus.STARTED)
        assert storage.claim_concurrency_slot(POOL, dead.run_id, "chunks").is_claimed
        # the slot is held: another run's step cannot claim it (what spun forever before)
        assert not storage.claim_concurrency_slot(POOL, alive.run_id, "documents").is_claimed

        lines = recover_dead_runs(instance)

        assert len(lines) == 1 and dead.run_id[:8] in lines[0] and "pool slots freed" in lines[0]
        assert instance.get_run_by_id(dead.run_id).status == DagsterRunStatus.FAILURE
        assert instance.get_run_by_id(alive.run_id).status == DagsterRunStatus.STARTED
        assert instance.get_run_by_id(from_ui.run_id).status == DagsterRunStatus.STARTED
        assert dead.run_id not in storage.get_concurrency_run_ids()
        assert recover_dead_runs(instance) == []  # idempotent


@pytest.mark.e2e
def test_a_materialize_killed_mid_run_does_not_block_the_next(tmp_path, monkeypatch):
    """kill -9 while a step holds the lakehouse pool slot; the next materialize says what it
    recovered and completes, with no manual step (before: it spun in the slot claim forever)."""
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    config = demo_config_on_port(tmp_path, free_port(), max_pages=6)
    warehouse = tmp_path / "warehouse"
    command = [sys.executable, "-m", "cli", "materialize", "--config", str(config), "--warehouse", str(warehouse),
               "--select", "raw_documents"]
    environment = {k: v for k, v in os.environ.items() if k != "DAGSTER_HOME"}
    first_log = tmp_path / "first.log"
    with first_log.open("wb") as log:
        first = subprocess.Popen(command, cwd=Path(__file__).parents[1], env=environment,
                                 stdout=subprocess.DEVNULL, stderr=log)
    try:
        claimed = _wait_for_a_claimed_slot(warehouse, first)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    assert claimed, f"the first run never claimed its pool slot (exit {first.returncode}):\n" + \
        first_log.read_text(encoding="utf-8", errors="replace")[-2000:]

    # a concurrent start is refused at once while a holder lives; here the holder is dead
    second = subprocess.run(command, cwd=Path(__file__).parents[1], env=environment, capture_output=True,
                            text=True, timeout=300)
    assert second.returncode == 0, second.stderr[-2000:]
    assert "recovered:" in second.stderr and "marked failed" in second.stderr


def _wait_for_a_claimed_slot(warehouse: Path, process: subprocess.Popen, timeout: float = 120.0) -> bool:
    """Polls the run's event-log index read-only. Opening a DagsterInstance here would initialise
    its storage, a write racing the run's own (the run then failed on a locked database)."""
    index = warehouse / "dagster" / "storage" / "history" / "runs" / "index.db"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with closing(sqlite3.connect(f"file:{index}?mode=ro", uri=True, timeout=1)) as index_db:
                held = index_db.execute("select count(*) from concurrency_slots "
                                        "where run_id is not null and not deleted").fetchone()[0]
            if held:
                return True
        except sqlite3.OperationalError:  # not created yet, or being written
            pass
        time.sleep(0.05)
    return False


def test_a_second_materialize_on_a_held_warehouse_exits_at_once(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    warehouse = tmp_path / "warehouse"
    with exclusive_warehouse(warehouse):
        started = time.monotonic()
        assert main(["materialize", "--warehouse", str(warehouse), "--select", "raw_documents"]) == EXIT_RUN_IN_PROGRESS
        assert time.monotonic() - started < 30  # said at once, not after the other run
    assert "already running on this warehouse" in capsys.readouterr().err


def test_make_ui_serves_the_clis_warehouse_without_warnings(tmp_path):
    """`make ui` (`advisor ui`): with ADVISOR_WAREHOUSE set, the webserver and the daemon use that
    warehouse's Dagster home (its run storage appears there), and they start without a warning a
    user cannot act on (`dagster dev` is superseded; a dagster.yaml in the working folder)."""
    import httpx

    from tests.fake_advisor import free_port

    environment = {k: v for k, v in os.environ.items() if k != "DAGSTER_HOME"}
    environment["ADVISOR_WAREHOUSE"] = str(tmp_path / "elsewhere")
    port = free_port()
    root = Path(__file__).parents[1]
    ui = subprocess.Popen([str(Path(sys.executable).parent / "advisor"), "ui", "--port", str(port)], env=environment,
                          cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/server_info", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert ui.poll() is None and time.monotonic() < deadline, "the Dagster UI did not start"
            time.sleep(0.5)
        home = (tmp_path / "elsewhere" / "dagster").resolve()
        assert str(home / "storage") in (home / "dagster.yaml").read_text()
        assert any((home / "storage").iterdir())  # the instance in use is this warehouse's
    finally:
        ui.send_signal(signal.SIGTERM)  # as a service manager stops it: the webserver and daemon stop too
        output = ui.communicate(timeout=60)[0]
    assert "warn" not in output.lower(), output
    with pytest.raises(httpx.HTTPError):
        httpx.get(f"http://127.0.0.1:{port}/server_info", timeout=2)
    assert "ui: $(STAMP)\n\t$(BIN)/advisor ui" in (root / "Makefile").read_text()


def test_the_ui_makes_the_instance_storage_before_its_processes_start_together(tmp_path, monkeypatch):
    """`advisor ui` starts the webserver, its code server and the daemon at once. On a fresh home
    each would create the SQLite storage and stamp its schema version, and two stamps break the
    code server ("more than one head", seen in CI). After `create_instance_storage`, three
    processes opening the instance at the same moment all succeed and leave one version each."""
    from cli.dagster_home import prepare_dagster_home
    from cli.ui import create_instance_storage

    monkeypatch.setenv("DAGSTER_HOME", "")  # unset for prepare_dagster_home; what it sets is undone after
    home = prepare_dagster_home(tmp_path / "warehouse")
    create_instance_storage(home)
    opening = f"from dagster import DagsterInstance\nwith DagsterInstance.from_config({str(home)!r}): pass"
    together = [subprocess.Popen([sys.executable, "-c", opening], stderr=subprocess.PIPE, text=True) for _ in range(3)]
    errors = [process.communicate(timeout=120)[1] for process in together]
    assert all(process.returncode == 0 for process in together), errors
    databases = sorted(home.rglob("*.db"))
    assert any(database.name == "schedules.db" for database in databases)
    for database in databases:
        with closing(sqlite3.connect(database)) as connection:
            assert len(connection.execute("SELECT * FROM alembic_version").fetchall()) == 1, database
