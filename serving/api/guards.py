"""ASGI middleware in front of the app: the per-client rate limit on /v1/* and the response
headers every reply carries (no caching of API replies: they can hold a profile)."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from serving.api.errors import send_error
from serving.api.ratelimit import RateLimiter

API_PREFIX = "/v1/"
# on every response, beside the Content-Security-Policy (and Cache-Control on API replies)
SECURITY_HEADERS = ((b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"))

# The page loads only its own files and talks to its own origin, and to the sites its citations
# come from only to check that an original still answers (a no-cors probe: nothing is read; an
# unreachable original opens the build's saved copy). Citation links are plain navigations.
PAGE_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
               "connect-src 'self'{sources}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
# scheme://host[:port] and nothing else: an origin that could close the directive is never written
_ORIGIN = re.compile(r"https?://[A-Za-z0-9.\-]+(?::\d{1,5})?|https?://\[[0-9A-Fa-f:.]+\](?::\d{1,5})?")


def page_policy(source_origins: Iterable[str] = ()) -> str:
    """The Content-Security-Policy of every reply, its connect-src widened to `source_origins`."""
    allowed = sorted({o for o in source_origins if _ORIGIN.fullmatch(o)})
    return PAGE_POLICY.format(sources="".join(f" {o}" for o in allowed))


class RateLimit:
    def __init__(self, app: ASGIApp, limiter: RateLimiter):
        self.app, self.limiter = app, limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(API_PREFIX):
            client = (scope.get("client") or ("unknown",))[0]
            wait = self.limiter.check(client)
            if wait is not None:
                retry_after = self.limiter.retry_after_header(wait)
                await send_error(send, 429, "rate_limited", f"too many requests; try again in {retry_after} s",
                                 ((b"retry-after", retry_after.encode()),))
                return
        await self.app(scope, receive, send)


class SecurityHeaders:
    def __init__(self, app: ASGIApp, source_origins: Callable[[], Iterable[str]] = tuple):
        """`source_origins`: the origins of the served build's sources (asked per reply: a new
        build may cite other sites)."""
        self.app, self.source_origins = app, source_origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        is_api = scope["path"].startswith(API_PREFIX)
        try:
            policy = page_policy(() if is_api else self.source_origins())
        except Exception:  # noqa: BLE001 - no build yet (503 to come): the page talks to its own origin only
            policy = page_policy()

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [*SECURITY_HEADERS, (b"content-security-policy", policy.encode())]
                if is_api:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


class LastResort:
    """The outermost layer: an exception that escaped the app is answered with the API's JSON 500
    (when nothing was sent yet) and never re-raised. Starlette's own error middleware answers
    first and re-raises to the server, whose log would print a traceback, and a traceback's
    messages can quote what a student sent; the app's handler has already logged the type and
    place."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def tracking(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracking)
        except Exception as exc:  # noqa: BLE001 - the last resort, by design
            if scope["type"] != "http":
                raise
            logging.getLogger("serving.api").debug("exception after the error response: %s", type(exc).__name__)
            if not started:
                await send_error(send, 500, "internal_error", "internal error")
