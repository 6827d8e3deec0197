"""The one error shape of the API: {"error": {"code", "message", "field"?}}, for every 4xx/5xx."""

from __future__ import annotations

import json

from starlette.responses import JSONResponse
from starlette.types import Send


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, field: str | None = None,
                 headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.field, self.headers = status, code, message, field, headers


def printable(text: str) -> str:
    """The text with lone surrogates (which JSON can carry but UTF-8 cannot) as U+FFFD: an error
    that names a field a client sent ("profile.\\ud800") must still be sendable."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def error_body(code: str, message: str, field: str | None = None) -> dict:
    error = {"code": code, "message": printable(message)}
    if field is not None:
        error["field"] = printable(field)
    return {"error": error}


def error_response(status: int, code: str, message: str, field: str | None = None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(error_body(code, message, field), status_code=status, headers=headers)


def api_error_response(exc: ApiError) -> JSONResponse:
    return error_response(exc.status, exc.code, exc.message, exc.field, exc.headers)


async def send_error(send: Send, status: int, code: str, message: str,
                     headers: tuple[tuple[bytes, bytes], ...] = ()) -> None:
    """The error response sent straight from ASGI middleware, where no Response object is at hand
    (the size limit, the rate limit, the last-resort handler)."""
    payload = json.dumps(error_body(code, message)).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()), *headers]})
    await send({"type": "http.response.body", "body": payload})
