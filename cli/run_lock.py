"""One materialization at a time per warehouse, and no run left behind by a killed one.

Why a file lock beside Dagster's own run coordination: `advisor materialize` executes in-process,
which bypasses the run queue, and a process killed with SIGKILL (OOM, reboot, Ctrl-C twice) never
reports its end. Its run stays STARTED and its `lakehouse` pool slot stays claimed, so every later
run waited for that slot forever, silently. An exclusive `flock` on `<warehouse>/dagster/
materialize.lock` is released by the kernel when its holder dies, however it dies. So:

- a second materialize finds the lock held and says at once who holds it (or, with `--wait`,
  waits with a visible message);
- a materialize that gets the lock knows that no other materialize of this warehouse is alive: any
  run of ours still marked in progress is dead. It is marked failed and its pool slots freed, and
  the run says so before it proceeds.

Runs launched from the Dagster UI run in their own processes under Dagster's run coordinator and
are not touched: only runs tagged by this command (RUN_TAG) are ever declared dead. An instance can
hold several warehouses' runs (a shared DAGSTER_HOME, a Postgres instance: deploy/), and the lock
speaks for one warehouse only: a run tagged with another warehouse (WAREHOUSE_TAG) is not ours.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

LOCK_FILE = "materialize.lock"
RUN_TAG = "advisor/materialize_pid"  # pid@host of the materialize process that executes the run
WAREHOUSE_TAG = "advisor/warehouse"  # the resolved warehouse folder the run writes
WAIT_POLL_SECONDS = 2.0


class RunInProgress(Exception):
    """Another `advisor materialize` holds this warehouse."""

    def __init__(self, holder: dict):
        self.holder = holder
        who = f"pid {holder.get('pid', '?')} on {holder.get('host', '?')}" if holder else "another process"
        since = f", started {holder['started']}" if holder.get("started") else ""
        super().__init__(f"a materialization is already running on this warehouse ({who}{since})")


def this_process() -> str:
    return f"{os.getpid()}@{socket.gethostname()}"


def _read_holder(handle) -> dict:
    handle.seek(0)
    try:
        return json.loads(handle.read() or "{}")
    except json.JSONDecodeError:
        return {}


@contextmanager
def exclusive_warehouse(dagster_home: Path, *, wait: bool = False,
                        on_wait: Callable[[RunInProgress], None] | None = None) -> Iterator[None]:
    """Hold the warehouse's materialize lock for the block. Raises RunInProgress when another
    process holds it, unless `wait`: then `on_wait` is told once and the lock is awaited."""
    path = Path(dagster_home) / LOCK_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+", encoding="utf-8") as handle:
        told = False
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                busy = RunInProgress(_read_holder(handle))
                if not wait:
                    raise busy from None
                if not told and on_wait is not None:
                    on_wait(busy)
                    told = True
                time.sleep(WAIT_POLL_SECONDS)
        try:
            handle.seek(0)
            handle.truncate()
            handle.write(json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                     "started": datetime.now(timezone.utc).isoformat(timespec="seconds")}))
            handle.flush()
            yield
        finally:
            handle.seek(0)
            handle.truncate()
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _alive(pid_at_host: str) -> bool:
    pid, _, host = pid_at_host.partition("@")
    if host != socket.gethostname() or not pid.isdigit():
        return False  # not ours to ask; the lock says no materialize of this warehouse is alive
    if int(pid) == os.getpid():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def recover_dead_runs(instance, warehouse: Path | None = None) -> list[str]:
    """With the warehouse lock held: mark every in-progress run this command started on
    `warehouse`, whose process is gone, as failed, and free the pool slots it held; also free
    slots still held by runs that have already finished. Returns one line per recovered run, for
    the user. Runs without a warehouse tag (made before it existed) count as this warehouse's."""
    from dagster import DagsterRunStatus, RunsFilter
    from dagster._core.storage.dagster_run import FINISHED_STATUSES

    in_progress = [DagsterRunStatus.STARTED, DagsterRunStatus.STARTING, DagsterRunStatus.NOT_STARTED,
                   DagsterRunStatus.CANCELING]
    holding = _slot_holders(instance)
    recovered = []
    for run in instance.get_runs(filters=RunsFilter(statuses=in_progress)):
        owner = run.tags.get(RUN_TAG)
        if owner is None or _alive(owner):
            continue  # not started by this command (the UI's runs), or still running
        if warehouse is not None and run.tags.get(WAREHOUSE_TAG, str(warehouse)) != str(warehouse):
            continue  # another warehouse's: our lock says nothing about its process (on another host)
        instance.report_run_failed(run, message=f"the materialize process ({owner}) died without ending "
                                                 "this run; marked failed by the next run")
        line = f"run {run.run_id[:8]} (process {owner}) had died mid-run: marked failed"
        if run.run_id in holding:
            instance.event_log_storage.free_concurrency_slots_for_run(run.run_id)
            line += ", its pool slots freed"
        recovered.append(line)
    if holding:  # what Dagster's daemon would do, were one running: finished runs hold no slot
        for record in instance.get_run_records(filters=RunsFilter(run_ids=sorted(holding),
                                                                  statuses=list(FINISHED_STATUSES))):
            instance.event_log_storage.free_concurrency_slots_for_run(record.dagster_run.run_id)
    return recovered


def _slot_holders(instance) -> set[str]:
    storage = instance.event_log_storage
    return set(storage.get_concurrency_run_ids()) if storage.supports_global_concurrency_limits else set()
