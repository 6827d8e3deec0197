"""`advisor serve`: the HTTP API (serving/api) in this process, or in several workers, over a
warehouse's published builds; what cannot work is said before anything starts."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from cli.exit_codes import EXIT_BAD_INPUT, EXIT_OK


def serve_command(config, builds_root: Path, llm_settings, host: str, port: int, err: TextIO | None = None,
                  settings=None, config_path: str | Path | None = None) -> int:
    """Serves until interrupted; `config_path` (the file `config` came from, None for the default)
    is what the workers load when `settings.workers` > 1."""
    from serving.api.server import builds_holder, run
    from serving.api.sessions import SessionStoreError, open_session_store
    from serving.api.settings import ServingSettings

    err = err or sys.stderr  # looked up now: the caller may have replaced the process's stream
    settings = settings or ServingSettings()
    try:  # reachable and keeping nothing on disk: said now, not at the first student's second turn
        store = open_session_store(settings.session_store, settings.ttl, settings.max_sessions)
    except SessionStoreError as exc:
        print(f"error: {exc}", file=err)
        return EXIT_BAD_INPUT
    problem = workers_problem(settings.workers, store.shared)
    del store  # checked; the app opens its own (each worker its own)
    if problem:
        print(f"error: {problem}", file=err)
        return EXIT_BAD_INPUT
    holder = builds_holder(builds_root, config, llm_settings, settings.reload_interval)
    holder.refresh()  # load now, so a broken build is reported before the server starts
    advisor = holder.current()
    if advisor is None:
        reason = f" ({holder.last_error})" if holder.last_error else ""
        print(f"warning: no index build loaded from {builds_root}{reason}; /healthz answers 503 until "
              "`advisor materialize` publishes one", file=err)
    else:
        workers = f" with {settings.workers} workers" if settings.workers > 1 else ""
        print(f"serving index build {advisor.build_id} on http://{host}:{port}/{workers}", file=err)
    if settings.workers == 1:
        run(holder, host, port, settings)
    else:
        from serving.api.worker import run_workers

        del holder, advisor  # checked; each worker loads its own engine
        run_workers(config_path, builds_root, host, port, settings)
    return EXIT_OK


def workers_problem(workers: int, shared_sessions: bool) -> str | None:
    """Why `workers` processes cannot serve, or None; `shared_sessions`: does the session store
    share conversations between processes?"""
    if workers < 1:
        return f"--workers must be at least 1, got {workers}"
    if workers > 1 and not shared_sessions:
        return (f"--workers {workers} needs a shared session store (--session-store redis://host:port/db, or "
                "$ADVISOR_SESSION_STORE): the memory store is per process, so a conversation's next turn "
                "landing on another worker would be answered 404 unknown_session")
    return None
