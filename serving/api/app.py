"""The student-facing HTTP API (docs/contracts.md §4) and its web page, assembled: middleware,
the routers (one per resource, serving/api/routes/), the exception handlers (handlers.py), and what
the routes share (deps.py), made once here and kept on `app.state`.

`create_app(holder_or_loader, settings)` builds the app around an AdvisorHolder (or a zero-argument
loader returning an Advisor, wrapped in one that loads once); tests inject a fake Advisor and a
clock. Bad input always gets a 4xx with {"error": {...}}; an engine failure gets a 500 whose log
line names only the exception type and where it was raised, never what the student sent.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from serving.api.bodylimit import BodySizeLimit
from serving.api.guards import LastResort, RateLimit, SecurityHeaders
from serving.api.handlers import install_error_handlers
from serving.api.holder import AdvisorHolder
from serving.api.logs import install_access_log_redaction
from serving.api.models import ErrorBody
from serving.api.ratelimit import RateLimiter
from serving.api.routes import ROUTERS
from serving.api.routes.pages import WEB_DIR, student_page
from serving.api.sessions import open_session_store
from serving.api.settings import ServingSettings
from serving.api.study import Study
from serving.api.usage import UsageRecorder

# Swagger UI (5.x: it reads OpenAPI 3.1) as the fastapi-offline package ships it
SWAGGER_UI_DIR = Path(importlib.util.find_spec("fastapi_offline").origin).parent / "static"


class _GuardedFastAPI(FastAPI):
    """FastAPI with our layers outside Starlette's error middleware, which `add_middleware` cannot
    reach: without them a 500 carries no security headers and its exception reaches the server."""

    def __init__(self, *args, outer: Callable[[Any], Any], **kwargs):
        self._outer = outer
        super().__init__(*args, **kwargs)

    def build_middleware_stack(self):
        return self._outer(super().build_middleware_stack())


def create_app(holder_or_loader: AdvisorHolder | Callable[[], Any], settings: ServingSettings | None = None,
               *, clock: Callable[[], float] = time.monotonic) -> FastAPI:
    settings = settings or ServingSettings()
    holder = (holder_or_loader if hasattr(holder_or_loader, "current")
              else AdvisorHolder(holder_or_loader, None, settings.reload_interval))
    sessions = open_session_store(settings.session_store, settings.ttl, settings.max_sessions, clock)
    install_access_log_redaction()

    @asynccontextmanager
    async def lifespan(running: FastAPI):
        holder.start()
        try:
            yield
        finally:
            holder.stop()
            running.state.usage.close()  # the last answers' records reach the disk before the process ends

    app = _GuardedFastAPI(
        outer=lambda inner: LastResort(SecurityHeaders(inner, source_origins=lambda: _source_origins(holder))),
        title="Academic advising assistant",
        version="1",
        description="Profile-aware advising: ask a question; the assistant asks only for the profile "
                    "facts the question needs, then answers with cited sources. Profiles live in memory, "
                    "for the session only.",
        lifespan=lifespan,
        docs_url=None, redoc_url=None,  # FastAPI's pages load scripts from a CDN: ours (/docs) does not
        # FastAPI's own telemetry logs validation failures and exceptions with their messages,
        # which can quote what a student typed.
        telemetry={"logs": False},
    )
    # what the routes share (deps.py)
    app.state.holder, app.state.sessions, app.state.settings = holder, sessions, settings
    # the question log of the chat's answers and POST /v1/feedback's records
    app.state.usage = UsageRecorder.for_settings(settings)
    # /study and /v1/study*: 404 unless the institution config enables the study; votes go to the usage records
    app.state.study = Study(recorder_log=app.state.usage.log)
    app.state.page = student_page(settings)  # read once: the page is the same for every request
    install_error_handlers(app)
    for router in ROUTERS:
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=WEB_DIR), name="static")
    app.mount("/docs/assets", StaticFiles(directory=SWAGGER_UI_DIR), name="api-reference")

    # Added last = runs first: the rate limit and the size limit act before any body is parsed.
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(RateLimit, limiter=_rate_limiter(settings, sessions, clock))
    return app


def _rate_limiter(settings: ServingSettings, sessions: Any, clock: Callable[[], float]) -> RateLimiter:
    """Per process, or shared through the session store's Redis when there is one (several
    workers or replicas then enforce one limit, not one each)."""
    client = getattr(sessions, "client", None)
    if client is not None:
        from serving.api.ratelimit import SharedRateLimiter

        return SharedRateLimiter(settings.rate_per_minute, client)
    return RateLimiter(settings.rate_per_minute, clock)


def _source_origins(holder: AdvisorHolder) -> tuple[str, ...]:
    """The sites the served build's documents come from (the page probes them before opening an
    original), or () before a build is loaded or for an engine that does not say."""
    origins = getattr(holder.current(), "source_origins", None)
    return tuple(origins()) if callable(origins) else ()


__all__ = ["create_app", "ServingSettings", "AdvisorHolder", "ErrorBody"]
