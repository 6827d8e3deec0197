"""The serving knobs, in one place, with the defaults the API contract promises.

`advisor serve` sets them from its options, each of which falls back to an environment variable
(`from_env`), so an operator can configure a container without changing its command."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, fields

from advisor.message_limit import MAX_MESSAGE_CHARS

# environment variable -> field, for the knobs an operator sets per deployment
ENVIRONMENT = {
    "ADVISOR_RATE_LIMIT": "rate_per_minute",
    "ADVISOR_TRUSTED_PROXIES": "trusted_proxies",
    "ADVISOR_SESSION_STORE": "session_store",
    "ADVISOR_WORKERS": "workers",
}


@dataclass(frozen=True)
class ServingSettings:
    ttl: float = 30 * 60  # seconds a session may stay idle before it is forgotten
    max_sessions: int = 10_000  # when full, the least recently used session is evicted
    # longer is rejected with 422 message_too_long before the engine sees it; the page is told it when
    # served. At most the engine's own limit, which would refuse the rest as invalid_input.
    max_message_chars: int = MAX_MESSAGE_CHARS
    max_body_bytes: int = 16 * 1024  # checked before the JSON is parsed
    rate_per_minute: int = 60  # requests per client IP to /v1/*; 0 disables the limit
    reload_interval: float = 5.0  # seconds between two cheap checks of builds/LATEST
    # addresses or networks of reverse proxies whose X-Forwarded-For / -Proto are believed; from
    # anyone else (127.0.0.1 included) they are ignored, so no client can choose its rate bucket
    trusted_proxies: tuple[str, ...] = ()
    max_header_bytes: int = 16 * 1024  # request line + headers; larger gets 431
    # where sessions live: "memory" (this process only), or a Redis URL (redis://host:port/db,
    # rediss://, unix://) that every worker and replica shares (serving/api/sessions.py)
    session_store: str = "memory"
    workers: int = 1  # processes `advisor serve` runs; more than one needs a shared session_store
    # where the anonymized usage records go (<warehouse>/usage, serving/api/usage.py); None keeps
    # nothing (feedback is accepted and dropped). `advisor serve` sets them from the institution
    # config's `usage` section; an app made without them logs nothing.
    usage_dir: str | None = None
    question_log: bool = True  # with a usage_dir: the scrubbed questions too, not only the feedback
    usage_retention_days: int = 90  # day folders older than this are deleted

    def __post_init__(self) -> None:
        for name in ("ttl", "reload_interval"):
            if getattr(self, name) <= 0:
                raise ValueError(f"ServingSettings.{name} must be positive, got {getattr(self, name)!r}")
        for name in ("max_sessions", "max_message_chars", "max_body_bytes", "max_header_bytes", "usage_retention_days"):
            if getattr(self, name) < 1:
                raise ValueError(f"ServingSettings.{name} must be at least 1, got {getattr(self, name)!r}")
        if self.max_message_chars > MAX_MESSAGE_CHARS:
            raise ValueError(f"ServingSettings.max_message_chars must be at most {MAX_MESSAGE_CHARS} (the engine's "
                             f"limit), got {self.max_message_chars!r}")
        if self.rate_per_minute < 0:
            raise ValueError(f"ServingSettings.rate_per_minute must be >= 0, got {self.rate_per_minute!r}")
        for proxy in self.trusted_proxies:
            try:
                ipaddress.ip_network(proxy, strict=False)
            except ValueError:
                raise ValueError(f"ServingSettings.trusted_proxies: {proxy!r} is not an IP address or network") from None

    @classmethod
    def from_env(cls, environ=os.environ, **given) -> "ServingSettings":
        """Settings from the given values (options the user passed; None = not passed), else the
        environment (ENVIRONMENT), else the defaults. ValueError names the bad variable."""
        values = {k: v for k, v in given.items() if v is not None}
        types = {f.name: f.type for f in fields(cls)}
        for variable, name in ENVIRONMENT.items():
            raw = environ.get(variable, "").strip()
            if name in values or not raw:
                continue
            try:
                kind = str(types[name])
                values[name] = (tuple(p.strip() for p in raw.split(",") if p.strip()) if "tuple" in kind
                                else raw if kind == "str" else int(raw))
            except ValueError:
                raise ValueError(f"{variable}={raw!r} is not a valid {name}") from None
        try:
            return cls(**values)
        except ValueError as exc:
            variables = {v for v, n in ENVIRONMENT.items() if n in str(exc)}
            raise ValueError(f"{exc}" + (f" (from {', '.join(sorted(variables))})" if variables else "")) from None
