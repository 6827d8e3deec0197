"""Running the API for `advisor serve`: the holder over a warehouse's builds and uvicorn."""

from __future__ import annotations

import logging
from pathlib import Path

from advisor.config import InstitutionConfig
from serving.api.app import create_app
from serving.api.holder import AdvisorHolder
from serving.api.protocol import uvicorn_options
from serving.api.settings import ServingSettings

log = logging.getLogger("serving.api")


def builds_holder(builds_root: Path, config: InstitutionConfig, llm_settings=None,
                  reload_interval: float = ServingSettings.reload_interval) -> AdvisorHolder:
    """A holder serving the published build under `builds_root`, swapping to newer ones."""
    from serving.dialogue.engine import open_advisor

    return AdvisorHolder.for_builds(builds_root, lambda root: open_advisor(root, config, llm_settings), reload_interval)


def log_to_stderr() -> None:
    """The `serving` loggers on stderr: build swaps, engine failures, the session store (never
    request content)."""
    served = logging.getLogger("serving")
    if not served.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s:     %(message)s"))
        served.addHandler(handler)
        served.setLevel(logging.INFO)
        served.propagate = False


def run(holder: AdvisorHolder, host: str, port: int, settings: ServingSettings | None = None) -> None:
    """Serves in this process until interrupted. The access log carries method, path and status
    only (see logs.py)."""
    import uvicorn

    log_to_stderr()
    settings = settings or ServingSettings(reload_interval=holder.reload_interval)
    app = create_app(holder, settings)
    # The default config's access log handler prints uvicorn's access record; our filter on that
    # logger rewrites the record first, so the printed line never holds a client address.
    uvicorn.run(app, host=host, port=port, access_log=True, **uvicorn_options(settings))
