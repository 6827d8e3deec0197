"""ASGI middleware in front of the app: the per-client rate limit on /v1/* and the response
headers every reply carries (no caching of API replies: they can hold a profile)."""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from serving.api.errors import error_body
from serving.api.ratelimit import RateLimiter

API_PREFIX = "/v1/"

# The page loads only its own files and talks only to its own origin; citation links are plain
# navigations, which CSP leaves alone.
PAGE_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
               "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


class RateLimit:
    def __init__(self, app: ASGIApp, limiter: RateLimiter):
        self.app, self.limiter = app, limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(API_PREFIX):
            client = (scope.get("client") or ("unknown",))[0]
            wait = self.limiter.check(client)
            if wait is not None:
                retry_after = self.limiter.retry_after_header(wait)
                payload = json.dumps(error_body(
                    "rate_limited", f"too many requests; try again in {retry_after} s")).encode()
                await send({"type": "http.response.start", "status": 429, "headers": [
                    (b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
                    (b"retry-after", retry_after.encode())]})
                await send({"type": "http.response.body", "body": payload})
                return
        await self.app(scope, receive, send)


class SecurityHeaders:
    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        is_api = scope["path"].startswith(API_PREFIX)

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
                            (b"content-security-policy", PAGE_POLICY.encode())]
                if is_api:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
