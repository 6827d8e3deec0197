"""The HTTP/1.1 layer under the app, and what uvicorn is told (docs/contracts.md §4).

uvicorn answers what never reaches the app (a garbage request line, `Content-Length: abc`, a NUL
in a header) with a text/plain 400, and its default parser (httptools) takes headers of any size
for any time: one 64 MB header was accepted, and 1,100 slow-drip connections were held for 40 s.
`GuardedH11Protocol` is uvicorn's h11 protocol with three changes:
- every error it answers itself is the API's JSON error, with the security headers;
- the request line and headers together are limited to `max_header_bytes` (431), and a refused
  client still sending gets to read the answer (a lingering close) instead of a reset;
- a client has HEADER_TIMEOUT seconds from its first byte (or from connecting) to finish its
  request line and headers (408), so slow drips cannot hold connections.
h11 is pure Python and slower than httptools; at this API's request sizes the difference is small
next to the dialogue's own work (bench/ measures it).
"""

from __future__ import annotations

import asyncio
import json

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from serving.api.errors import error_body
from serving.api.guards import SECURITY_HEADERS, page_policy
from serving.api.settings import ServingSettings

HEADER_TIMEOUT = 10.0  # seconds for the request line and headers
# After refusing a request, what the client is still sending is read and dropped for this long (or
# this much) before the socket closes: closing with its bytes unread makes the kernel send a reset,
# and a client still writing (a 1 MB header sent in pieces) loses the JSON answer with it.
LINGER_SECONDS = 2.0
LINGER_BYTES = 8 * 1024 * 1024
_REASONS = {400: b"Bad Request", 408: b"Request Timeout", 414: b"URI Too Long",
            431: b"Request Header Fields Too Large"}


def error_bytes(status: int, code: str, message: str) -> bytes:
    """A whole HTTP/1.1 error response that closes the connection, written straight to the socket
    (h11 cannot send a response before it has parsed a request)."""
    body = json.dumps(error_body(code, message)).encode()
    head = [f"HTTP/1.1 {status} ".encode() + _REASONS.get(status, b"Error"),
            b"content-type: application/json", b"content-length: " + str(len(body)).encode(),
            b"connection: close", b"cache-control: no-store",
            *(name + b": " + value for name, value in SECURITY_HEADERS),
            b"content-security-policy: " + page_policy().encode()]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


def _head_size(buffered: bytes) -> int:
    """Bytes of request line and headers in what has arrived (all of it until the blank line)."""
    end = buffered.find(b"\r\n\r\n")
    return len(buffered) if end < 0 else end


class GuardedH11Protocol(H11Protocol):
    header_timeout = HEADER_TIMEOUT

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._header_timer: asyncio.TimerHandle | None = None
        self._arm_header_timer()  # a connection that never sends a byte is closed too

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if getattr(self, "_linger_budget", None) is not None:  # refused: drop what still arrives
            self._linger_budget -= len(data)
            if self._linger_budget <= 0:
                self.transport.close()
            return
        waiting_for_headers = self.conn.their_state is h11.IDLE
        if waiting_for_headers:
            if self._header_timer is None:
                self._arm_header_timer()
            limit = self.config.h11_max_incomplete_event_size
            if limit is not None and _head_size(self.conn.trailing_data[0] + data) > limit:
                line_done = 0 <= (self.conn.trailing_data[0] + data).find(b"\r\n") <= limit
                self._refuse(431 if line_done else 414, "headers_too_large" if line_done else "uri_too_long",
                             f"the request line and headers are larger than {limit} bytes")
                return
        try:
            super().data_received(data)
        except UnicodeDecodeError:  # a request target with bytes outside ASCII
            self._refuse(400, "bad_request", "the request target is not ASCII (percent-encode it)")
            return
        if self.conn.their_state is not h11.IDLE:
            self._disarm_header_timer()

    def send_400_response(self, msg: str) -> None:
        self._refuse(400, "bad_request", "the request is not valid HTTP/1.1")

    def _refuse(self, status: int, code: str, message: str) -> None:
        self._disarm_header_timer()
        if self.transport.is_closing():
            return
        self.transport.write(error_bytes(status, code, message))
        if not self.transport.can_write_eof():
            self.transport.close()
            return
        self.transport.write_eof()  # the answer is complete; the client reads it while still sending
        self._linger_budget = LINGER_BYTES
        self.loop.call_later(LINGER_SECONDS, self.transport.close)

    def _arm_header_timer(self) -> None:
        self._disarm_header_timer()
        self._header_timer = self.loop.call_later(self.header_timeout, self._headers_too_slow)

    def _disarm_header_timer(self) -> None:
        timer = getattr(self, "_header_timer", None)
        if timer is not None:
            timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self.conn.their_state is h11.IDLE and (self.cycle is None or self.cycle.response_complete):
            if self.conn.trailing_data[0]:
                self._refuse(408, "request_timeout", f"the request headers took longer than {self.header_timeout:g} s")
            elif not self.transport.is_closing():
                self.transport.close()  # nothing sent: nothing to answer


def uvicorn_options(settings: ServingSettings) -> dict:
    """Keyword arguments for uvicorn.run / uvicorn.Config."""
    return {
        "http": GuardedH11Protocol,
        "h11_max_incomplete_event_size": settings.max_header_bytes,
        # uvicorn believes X-Forwarded-For from 127.0.0.1 by default: any local process could pick
        # its own rate-limit bucket. Only the configured proxies are believed, none by default.
        "proxy_headers": bool(settings.trusted_proxies),
        "forwarded_allow_ips": list(settings.trusted_proxies) or None,
        "server_header": False,
    }
