"""The app's exception handlers: every 4xx/5xx in the one error shape (errors.py), a validation
failure as 400 / 415 / 422 naming the field at fault but never quoting the input, and an
unexpected exception as a 500 whose log line names only its type and place."""

from __future__ import annotations

import logging

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from serving.api.errors import ApiError, api_error_response, error_response
from serving.api.logs import where

log = logging.getLogger("serving.api")


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(ApiError, on_api_error)
    app.add_exception_handler(RequestValidationError, on_invalid_request)
    app.add_exception_handler(StarletteHTTPException, on_http_error)
    app.add_exception_handler(Exception, on_unexpected)


async def on_api_error(_request, exc: ApiError) -> JSONResponse:
    return api_error_response(exc)


async def on_invalid_request(request, exc: RequestValidationError) -> JSONResponse:
    errors = exc.errors()
    first = errors[0] if errors else {}
    if first.get("type") == "json_invalid":
        return error_response(400, "malformed_json", "the request body is not valid JSON")
    field, problems = field_and_problems(errors)
    if field is None and not is_json(request.headers.get("content-type")):
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


async def on_http_error(_request, exc: StarletteHTTPException) -> JSONResponse:
    codes = {404: "not_found", 405: "method_not_allowed"}
    return error_response(exc.status_code, codes.get(exc.status_code, "http_error"), str(exc.detail),
                          headers=getattr(exc, "headers", None))


async def on_unexpected(_request, exc: Exception) -> JSONResponse:
    log.error("unexpected error: %s", where(exc))
    return error_response(500, "internal_error", "internal error")


def field_and_problems(errors: list[dict]) -> tuple[str | None, str]:
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


def is_json(content_type: str | None) -> bool:
    """application/json or a +json type, parameters aside; no Content-Type at all is let through
    to the schema check (a client that sends JSON without saying so gets the schema's answer)."""
    if not content_type:
        return True
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or media.endswith("+json")
