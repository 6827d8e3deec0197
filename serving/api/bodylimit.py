"""Rejects request bodies over a size limit (413) before anything parses them.

A declared Content-Length over the limit is refused without reading a byte; otherwise (chunked
uploads, or a client that lies) the body is read up to the limit and replayed to the app, which is
cheap at the API's small limit and means the JSON parser never sees an oversized body.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from serving.api.errors import send_error

_WITH_BODY = {"POST", "PUT", "PATCH", "DELETE"}
# A client still sending its body when the 413 comes and the connection closes sees a broken pipe
# (or a reset), not the 413. Bodies up to this size are read and dropped first, so the client can
# read why; beyond it, reading would cost more than the client deserves.
DRAIN_LIMIT = 4 * 1024 * 1024


async def _drained(receive: Receive) -> bool:
    """Reads and drops the rest of the body, up to DRAIN_LIMIT; False when the client left."""
    size = 0
    while size <= DRAIN_LIMIT:
        message = await receive()
        if message["type"] == "http.disconnect":
            return False
        size += len(message.get("body", b""))
        if not message.get("more_body", False):
            return True
    return True


class BodySizeLimit:
    def __init__(self, app: ASGIApp, max_bytes: int):
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in _WITH_BODY:
            await self.app(scope, receive, send)
            return
        if await self._refused_by_headers(dict(scope["headers"]), receive, send):
            return
        body = await self._read_body(receive, send)
        if body is None:
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: wait for the disconnect, as the server would send

        await self.app(scope, replay, send)

    async def _refused_by_headers(self, headers: dict[bytes, bytes], receive: Receive, send: Send) -> bool:
        """Answers a request its Content-Length already refuses; True when it did (or the client left)."""
        declared = headers.get(b"content-length")
        if declared is None:
            return False
        if b"transfer-encoding" in headers:
            # two framings of one body: what a proxy and this server each read as the body may
            # differ (request smuggling); RFC 9112 §6.1 lets a server refuse it
            await self._reject(send, 400, "bad_request", "Content-Length and Transfer-Encoding together")
            return True
        try:
            too_big = int(declared) > self.max_bytes
        except ValueError:
            await self._reject(send, 400, "bad_request", "Content-Length is not a number")
            return True
        if too_big:
            if int(declared) <= DRAIN_LIMIT and not await _drained(receive):
                return True
            await self._reject_too_large(send)
            return True
        return False

    async def _read_body(self, receive: Receive, send: Send) -> bytes | None:
        """The whole body, read up to the limit; None when it is over the limit (answered 413) or
        the client left."""
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                if message.get("more_body", False) and not await _drained(receive):
                    return None
                await self._reject_too_large(send)
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _reject_too_large(self, send: Send) -> None:
        await self._reject(send, 413, "body_too_large", f"the request body is larger than {self.max_bytes} bytes")

    @staticmethod
    async def _reject(send: Send, status: int, code: str, message: str) -> None:
        await send_error(send, status, code, message, ((b"connection", b"close"),))
