"""The student-facing HTTP API (docs/contracts.md §4) and its web page.

`create_app(holder_or_loader, settings)` builds the app around an AdvisorHolder (or a zero-argument
loader returning an Advisor, wrapped in one that loads once); tests inject a fake Advisor and a
clock. Bad input always gets a 4xx with {"error": {...}}; an engine failure gets a 500 whose log
line names only the exception type and where it was raised, never what the student sent.
"""

from __future__ import annotations

import importlib.util
import logging
import re
import time
import traceback
from collections.abc import Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Response
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from serving.api.bodylimit import BodySizeLimit
from serving.api.errors import ApiError, api_error_response, error_response
from serving.api.guards import LastResort, RateLimit, SecurityHeaders
from serving.api.holder import AdvisorHolder
from serving.api.logs import install_access_log_redaction
from serving.api.models import (ERROR_RESPONSES, AnswerReply, AskReply, ChatRequest, ErrorBody, Health,
                                IndexInfo, SourceOut)
from serving.api.ratelimit import RateLimiter
from serving.api.sessions import open_session_store
from serving.api.study import install_study
from serving.api.settings import ServingSettings
from serving.api.usage import install_usage
from serving.dialogue.engine import DialogueInputError

log = logging.getLogger("serving.api")

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
# Swagger UI (5.x: it reads OpenAPI 3.1) as the fastapi-offline package ships it
SWAGGER_UI_DIR = Path(importlib.util.find_spec("fastapi_offline").origin).parent / "static"
NO_BUILD = "no index build is loaded yet (run `advisor materialize`, then wait for the server to pick it up)"
# Chunk ids are 16 hex digits (advisor/chunking/chunker.py); a little slack for other id schemes, nothing
# that could be a path, markup or a very long string.
CHUNK_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


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
    async def lifespan(_app: FastAPI):
        holder.start()
        try:
            yield
        finally:
            holder.stop()

    app = _GuardedFastAPI(
        outer=lambda inner: LastResort(SecurityHeaders(inner, source_origins=lambda: _source_origins(serving_advisor()))),
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
    app.state.holder, app.state.sessions, app.state.settings = holder, sessions, settings
    _install_error_handlers(app)
    usage = install_usage(app, settings)  # POST /v1/feedback; the question log of the answers below

    def serving_advisor() -> Any:
        advisor = holder.current()  # taken once: this request keeps this Advisor through a swap
        if advisor is None:
            raise ApiError(503, "no_build", NO_BUILD)
        return advisor

    @app.post("/v1/chat", response_model=AskReply | AnswerReply, responses=ERROR_RESPONSES,
              summary="Ask a question, or answer the profile questions of the last reply")
    def chat(body: ChatRequest) -> JSONResponse:
        message, profile = _checked_turn(body, settings)
        advisor = serving_advisor()
        try:
            if body.session_id is None:  # stored once it has answered: a failed first turn leaves nothing
                session = advisor.new_session()
                reply = advisor.respond(session, message=message, profile=profile)
                session_id = sessions.add(session)
                waiting = None
            else:
                session_id = body.session_id
                # one request at a time per session, across workers when the store is shared;
                # different sessions run in parallel
                with sessions.checkout(session_id) as entry:
                    if entry is None:
                        raise ApiError(404, "unknown_session",
                                       "this conversation expired or was forgotten; start a new one", "session_id")
                    waiting = usage.before_turn(entry.session, message)
                    reply = advisor.respond(entry.session, message=message, profile=profile)
        except ApiError:  # 404 above; 503 session_store_unavailable from a shared store
            raise
        except DialogueInputError as exc:
            raise ApiError(422, "invalid_input", str(exc), getattr(exc, "field", None)) from None
        except Exception as exc:
            log.error("engine failure on /v1/chat: %s", _where(exc))
            raise ApiError(500, "engine_error", "the assistant failed to answer; please try again") from None
        usage.answered(waiting, message, reply, advisor)
        return JSONResponse(_with_snapshots(reply.as_api(session_id), advisor))

    @app.delete("/v1/sessions/{session_id}", status_code=204, responses={404: ERROR_RESPONSES[404]},
                summary="Forget a conversation (and its profile) now")
    def forget(session_id: str) -> Response:
        if not sessions.delete(session_id):  # SessionStoreUnavailable: 503
            raise ApiError(404, "unknown_session", "no such conversation (expired or already forgotten)", "session_id")
        return Response(status_code=204)

    @app.get("/v1/index", response_model=IndexInfo, responses={503: ERROR_RESPONSES[503]},
             summary="The index build being served")
    def index_info() -> JSONResponse:
        return JSONResponse(jsonable_encoder(serving_advisor().index_info()))

    @app.get("/v1/sources/{chunk_id}", response_model=SourceOut,
             responses={code: ERROR_RESPONSES[code] for code in (404, 422, 503)},
             summary="The saved copy of a cited document (by the citation's chunk_id)")
    def source(chunk_id: str) -> JSONResponse:
        if not CHUNK_ID.fullmatch(chunk_id):
            raise ApiError(422, "invalid_chunk_id", "a chunk id is 1-64 letters, digits, '-' or '_'", "chunk_id")
        advisor = serving_advisor()
        snapshots = _snapshots(advisor)
        if snapshots is None:
            raise ApiError(404, "no_snapshots", "the index build being served keeps no saved copies of its sources "
                                                "(it was built before they existed); open the original URL")
        snapshot = snapshots.get(chunk_id)
        if snapshot is None:
            raise ApiError(404, "unknown_chunk", "no source with this chunk id in the index build being served",
                           "chunk_id")
        return JSONResponse(snapshot.as_api(advisor.build_id))

    @app.get("/healthz", response_model=Health, responses={503: ERROR_RESPONSES[503]},
             summary="200 when an index build is loaded")
    async def healthz() -> JSONResponse:
        # async: answered on the event loop, never queued behind dialogue work in the thread pool
        advisor = serving_advisor()
        return JSONResponse({"status": "ok", "build_id": advisor.build_id})

    @app.get("/", include_in_schema=False)
    def page() -> HTMLResponse:
        # the page checks a message's length before sending it, against this server's own limit
        html = (WEB_DIR / "index.html").read_text(encoding="utf-8")
        return HTMLResponse(html.replace("{{max_message_chars}}", str(settings.max_message_chars)))

    @app.get("/docs", include_in_schema=False)
    def api_reference() -> FileResponse:
        return FileResponse(WEB_DIR / "docs.html", media_type="text/html; charset=utf-8")

    install_study(app)  # /study and /v1/study*: 404 unless the institution config enables the study
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


def _source_origins(advisor: Any) -> tuple[str, ...]:
    """The sites the served build's documents come from (the page probes them before opening an
    original), or () for an engine that does not say."""
    origins = getattr(advisor, "source_origins", None)
    return tuple(origins()) if callable(origins) else ()


def _snapshots(advisor: Any):
    """The advisor's source snapshots, or None (a build without them, or an engine that keeps none)."""
    sources = getattr(advisor, "sources", None)
    return sources() if callable(sources) else None


def _with_snapshots(body: dict, advisor: Any) -> dict:
    """Each citation gets the path of its saved copy (an added field: clients that do not know it
    ignore it), or null when the build keeps none for it."""
    citations = body.get("citations") or []
    snapshots = _snapshots(advisor) if citations else None
    for citation in citations:
        chunk_id = citation.get("chunk_id") or ""
        citation["snapshot"] = (f"/v1/sources/{chunk_id}" if snapshots is not None and chunk_id in snapshots
                                else None)
    return body


def _checked_turn(body: ChatRequest, settings: ServingSettings) -> tuple[str | None, dict | None]:
    if (body.message is None) == (body.profile is None):
        raise ApiError(422, "message_or_profile", "send exactly one of `message` and `profile`",
                       "message" if body.message is None else None)
    if body.message is not None:
        message = body.message.strip()
        if not message:
            raise ApiError(422, "empty_message", "the message is empty", "message")
        if len(message) > settings.max_message_chars:
            raise ApiError(422, "message_too_long",
                           f"the message is longer than {settings.max_message_chars} characters", "message")
        return message, None
    if body.session_id is None:
        raise ApiError(422, "session_required", "profile answers need the session_id of the conversation", "session_id")
    if not body.profile:
        raise ApiError(422, "empty_profile", "profile needs at least one attribute -> value", "profile")
    return None, dict(body.profile)


def _where(exc: BaseException) -> str:
    """The exception's type and the line that raised it: enough to debug, without its message
    (which may quote the student's input)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return type(exc).__name__
    last = frames[-1]
    return f"{type(exc).__name__} at {Path(last.filename).name}:{last.lineno} in {last.name}"


def _field_and_problems(errors: list[dict]) -> tuple[str | None, str]:
    """The field at fault (dotted) and what is wrong with it. A value failing a union (str | int |
    null) gives one error per member, located one step deeper: they are reported as one."""
    locations = [tuple(str(p) for p in e.get("loc", ()) if p != "body") for e in errors] or [()]
    group = [i for i, loc in enumerate(locations) if loc[:1] == locations[0][:1]]
    prefix = list(locations[group[0]])
    for i in group[1:]:
        shared = 0
        while shared < min(len(prefix), len(locations[i])) and prefix[shared] == locations[i][shared]:
            shared += 1
        prefix = prefix[:shared]
    problems = "; ".join(dict.fromkeys(errors[i].get("msg", "invalid") for i in group)) if errors else "invalid request"
    return ".".join(prefix) or None, problems


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def on_api_error(_request, exc: ApiError) -> JSONResponse:
        return api_error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def on_invalid_request(request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        first = errors[0] if errors else {}
        if first.get("type") == "json_invalid":
            return error_response(400, "malformed_json", "the request body is not valid JSON")
        field, problems = _field_and_problems(errors)
        if field is None and not _is_json(request.headers.get("content-type")):
            # a body sent as text, a form or nothing named: the usual answer is 415, not a schema error
            return error_response(415, "unsupported_media_type",
                                  "send the request body as JSON (Content-Type: application/json)")
        kind = first.get("type", "")
        if kind == "extra_forbidden":
            message = f"unknown field `{field}`"
        elif field is None:  # the body as a whole: absent, not an object, or not sent as JSON
            message = "the request body must be a JSON object (Content-Type: application/json)"
        else:  # pydantic's messages, never the offending input itself
            message = f"{field}: {problems}" if field else problems
        return error_response(422, "invalid_request", message, field)

    @app.exception_handler(StarletteHTTPException)
    async def on_http_error(_request, exc: StarletteHTTPException) -> JSONResponse:
        codes = {404: "not_found", 405: "method_not_allowed"}
        return error_response(exc.status_code, codes.get(exc.status_code, "http_error"), str(exc.detail),
                              headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def on_unexpected(_request, exc: Exception) -> JSONResponse:
        log.error("unexpected error: %s", _where(exc))
        return error_response(500, "internal_error", "internal error")


def _is_json(content_type: str | None) -> bool:
    """application/json or a +json type, parameters aside; no Content-Type at all is let through
    to the schema check (a client that sends JSON without saying so gets the schema's answer)."""
    if not content_type:
        return True
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or media.endswith("+json")


__all__ = ["create_app", "ServingSettings", "AdvisorHolder", "ErrorBody"]
