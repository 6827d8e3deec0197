"""The serving knobs, in one place, with the defaults the API contract promises.

`advisor serve` sets them from its options, each of which falls back to an environment variable
(`from_env`), so an operator can configure a container without changing its command. Those four
(rate limit, trusted proxies, session store, workers) are advisor/settings.py's `ServeEnvironment`:
their names, defaults and checks live there, and ServingSettings takes them from it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import ValidationError

from advisor.message_limit import MAX_MESSAGE_CHARS
from advisor.settings import ServeEnvironment, read

_VARIABLE_DEFAULTS = ServeEnvironment()  # the defaults of the knobs a variable can set


@dataclass(frozen=True)
class ServingSettings:
    ttl: float = 30 * 60  # seconds a session may stay idle before it is forgotten
    max_sessions: int = 10_000  # when full, the least recently used session is evicted
    # longer is rejected with 422 message_too_long before the engine sees it; the page is told it when
    # served. At most the engine's own limit, which would refuse the rest as invalid_input.
    max_message_chars: int = MAX_MESSAGE_CHARS
    max_body_bytes: int = 16 * 1024  # checked before the JSON is parsed
    rate_per_minute: int = _VARIABLE_DEFAULTS.rate_per_minute  # requests per client IP to /v1/*; 0 disables the limit
    reload_interval: float = 5.0  # seconds between two cheap checks of builds/LATEST
    # addresses or networks of reverse proxies whose X-Forwarded-For / -Proto are believed; from
    # anyone else (127.0.0.1 included) they are ignored, so no client can choose its rate bucket
    trusted_proxies: tuple[str, ...] = _VARIABLE_DEFAULTS.trusted_proxies
    max_header_bytes: int = 16 * 1024  # request line + headers; larger gets 431
    # where sessions live: "memory" (this process only), or a Redis URL (redis://host:port/db,
    # rediss://, unix://) that every worker and replica shares (serving/api/sessions.py)
    session_store: str = _VARIABLE_DEFAULTS.session_store
    workers: int = _VARIABLE_DEFAULTS.workers  # processes `advisor serve` runs; more than one needs a shared session_store
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
        try:  # the knobs a variable can set are checked where they are declared
            ServeEnvironment(**{name: getattr(self, name) for name in ServeEnvironment.model_fields})
        except ValidationError as exc:
            problems = "; ".join(f"ServingSettings.{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            raise ValueError(problems) from None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **given) -> "ServingSettings":
        """Settings from the given values (options the user passed; None = not passed), else the
        environment (ServeEnvironment's variables), else the defaults. ValueError names the bad variable."""
        values = {k: v for k, v in given.items() if v is not None}
        environment = read(ServeEnvironment, environ, skip=values)  # an option given wins: its variable is not read
        return cls(**{**{name: getattr(environment, name) for name in ServeEnvironment.model_fields}, **values})
