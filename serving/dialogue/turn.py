"""A question being answered, as the URAG tiers see it (docs/method.md §B.1–§B.3), and what a tier
says when it must ask before it answers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from serving.dialogue.session import Pending, Session


@dataclass(frozen=True)
class Turn:
    """One question of a session: the question pending (its profile settled or declined) and the day."""

    session: Session
    pending: Pending
    today: date

    @property
    def may_follow_up(self) -> bool:
        """Has no evidence question been asked for this message yet? (One at most: §A online step 8.)"""
        return self.pending.stage == "query"


@dataclass(frozen=True)
class Ask:
    """A tier's answer "not yet": the attributes its evidence depends on, to ask the student first."""

    attributes: list[str]
