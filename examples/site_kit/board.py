"""Which of its yearly posts a notice board still shows at ``as_of``. Each college numbers, words
and lays out its posts its own way."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

# Posts expire ``expire_days`` after their date, and the pipeline may run up to a month after
# as_of: a post that close to expiry is left out, so that none turns from live to expired in
# between (the manifest says which it is).
MONTH_DAYS = 31


@dataclass(frozen=True)
class Post:
    """One post on a board; a college adds its URL (``path``) and whatever else it tells apart."""

    number: int  # derived from (year, kind), so a post keeps its URL from one month's build to the next
    date: datetime.date
    draft: Any  # the college's text of the post
    views: int


def postings_shown(as_of: datetime.date, years: int, dates: Sequence[tuple[int, int]], expire_days: int,
          keep_expired: Callable[[int, int], bool]) -> Iterator[tuple[int, int, datetime.date]]:
    """(year, rank, date) of every posting still on the board, year by year: the post of rank
    ``rank`` goes up on ``dates[rank]`` (month, day) each year. None is in the future or older
    than ``years`` years; of the expired ones the board keeps those ``keep_expired(rank, age)``
    allows (old posts were mostly cleaned up, by kind, so the choice never flickers)."""
    recent_max_age, expired_from = expire_days - MONTH_DAYS, expire_days + 1
    for year in range(as_of.year - years, as_of.year + 1):
        for rank, (month, day) in enumerate(dates):
            date = datetime.date(year, month, day)
            age = (as_of - date).days
            if age < 0 or age > years * 365 or recent_max_age < age < expired_from:
                continue
            if age >= expired_from and not keep_expired(rank, age):
                continue
            yield year, rank, date
