"""What every session store shares: the interface the API uses, the entry a turn gets, the
errors, and the ids handed out."""

from __future__ import annotations

import re
import secrets
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from serving.api.errors import ApiError

MEMORY = "memory"
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
# what `new_session_id` makes (secrets.token_urlsafe(24)); anything else is unknown without a look-up
SESSION_ID = re.compile(r"[A-Za-z0-9_-]{32}")


def new_session_id() -> str:
    return secrets.token_urlsafe(24)  # 192 random bits


@dataclass
class SessionEntry:
    """A checked-out session: the body of `checkout` may change `session` in place or replace it."""

    session: Any  # the engine's Session (serving/dialogue/session.py)


class SessionStore(Protocol):
    shared: bool  # True when other processes see the same sessions (several workers need it)

    def add(self, session: Any) -> str:
        """Stores a new session; its id."""

    def checkout(self, session_id: str) -> AbstractContextManager[SessionEntry | None]:
        """Locks the session, yields it (None when unknown, expired or forgotten), and stores it
        back on exit, its idle time starting again."""

    def delete(self, session_id: str) -> bool:
        """Forgets a session now; False when there was none."""


class SessionStoreUnavailable(ApiError):
    """The shared store cannot be reached: the request fails with 503, not 500."""

    def __init__(self) -> None:
        super().__init__(503, "session_store_unavailable",
                         "conversations cannot be reached right now; please try again shortly")


class SessionStoreError(ValueError):
    """A session store that must not be used as configured (unreachable at start, persisting
    profiles to disk, an unknown setting); the message says what to change."""
