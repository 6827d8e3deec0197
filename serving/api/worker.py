"""`advisor serve --workers N`: uvicorn starts N processes and imports FACTORY in each (it needs an
import string to start several). The factory rebuilds what `serve` was given from one environment
variable the parent process set (`run_workers`): the config file, the builds folder and the serving
settings; the LLM endpoint is read from the environment, as the parent did. The workers share
conversations through the settings' session store (serving/api/sessions/).
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

from fastapi import FastAPI

from advisor.config import load_config
from advisor.settings import WorkerEnvironment, read, variable_name
from serving.api.app import create_app
from serving.api.protocol import uvicorn_options
from serving.api.server import builds_holder, log_to_stderr
from serving.api.settings import ServingSettings

ENVIRONMENT = variable_name(WorkerEnvironment, "serve_worker")  # set by the parent for its workers; not an operator's knob
FACTORY = "serving.api.worker:create_worker_app"


def describe(config_path: str | Path | None, builds_root: Path, settings: ServingSettings) -> str:
    """What a worker needs, as the value of ENVIRONMENT. No config path: the worker resolves it as
    the parent did ($ADVISOR_CONFIG, else the demo college)."""
    return json.dumps({"config": str(Path(config_path).resolve()) if config_path else None,
                       "builds": str(Path(builds_root).resolve()), "settings": dataclasses.asdict(settings)})


def create_worker_app() -> FastAPI:
    from advisor.llm.settings import LLMSettings

    described = read(WorkerEnvironment).serve_worker
    if described is None:
        raise RuntimeError(f"${ENVIRONMENT} is unset: this factory runs in the workers `advisor serve --workers N` starts")
    spec = json.loads(described)
    settings = ServingSettings(**{name: tuple(value) if isinstance(value, list) else value
                                  for name, value in spec["settings"].items()})
    llm_settings = LLMSettings.from_env()
    log_to_stderr()
    holder = builds_holder(Path(spec["builds"]), load_config(spec["config"]),
                           llm_settings if llm_settings.configured else None, settings.reload_interval)
    holder.refresh()  # loaded before this worker accepts requests (a worker still loading takes none)
    return create_app(holder, settings)


def run_workers(config_path: str | Path | None, builds_root: Path, host: str, port: int,
                settings: ServingSettings) -> None:
    """Serves with `settings.workers` processes until interrupted; each builds its own app and
    engine (create_worker_app)."""
    import uvicorn

    log_to_stderr()
    # written, not read: uvicorn's worker processes inherit this process's environment
    os.environ[ENVIRONMENT] = describe(config_path, builds_root, settings)
    # the same uvicorn options as one process gets (server.run): the limits hold in every worker
    uvicorn.run(FACTORY, factory=True, workers=settings.workers, host=host, port=port, access_log=True,
                **uvicorn_options(settings))
