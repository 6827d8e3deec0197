"""The serving knobs, in one place, with the defaults the API contract promises."""

from __future__ import annotations

from dataclasses import dataclass

from serving.dialogue.engine import MAX_MESSAGE_CHARS


@dataclass(frozen=True)
class ServingSettings:
    ttl: float = 30 * 60  # seconds a session may stay idle before it is forgotten
    max_sessions: int = 10_000  # when full, the least recently used session is evicted
    max_message_chars: int = MAX_MESSAGE_CHARS  # longer is rejected with 422 before the engine sees it
    max_body_bytes: int = 16 * 1024  # checked before the JSON is parsed
    rate_per_minute: int = 60  # requests per client IP to /v1/*; 0 disables the limit
    reload_interval: float = 5.0  # seconds between two cheap checks of builds/LATEST

    def __post_init__(self) -> None:
        for name in ("ttl", "reload_interval"):
            if getattr(self, name) <= 0:
                raise ValueError(f"ServingSettings.{name} must be positive, got {getattr(self, name)!r}")
        for name in ("max_sessions", "max_message_chars", "max_body_bytes"):
            if getattr(self, name) < 1:
                raise ValueError(f"ServingSettings.{name} must be at least 1, got {getattr(self, name)!r}")
        if self.rate_per_minute < 0:
            raise ValueError(f"ServingSettings.rate_per_minute must be >= 0, got {self.rate_per_minute!r}")
