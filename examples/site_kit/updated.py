"""When a college's academic-rules page says it was last updated ("최종수정일", "Last updated").

Real 학사 pages state it below their content: the office revises them for the new academic year in
February. The day is derived from the page's path and the academic year of ``as_of`` only, so it
stays the same for every build of that year (and the same ``as_of`` still gives byte-identical
files), and it is always before ``as_of``.
"""

from __future__ import annotations

import datetime
import hashlib

ENGLISH_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
                  "October", "November", "December")


def last_updated(path: str, as_of: datetime.date) -> datetime.date:
    """5 to 44 days before 1 March of the academic year ``as_of`` falls in (it starts in March)."""
    year = as_of.year if as_of.month >= 3 else as_of.year - 1
    days = 5 + int(hashlib.sha256(path.encode()).hexdigest()[:8], 16) % 40
    return datetime.date(year, 3, 1) - datetime.timedelta(days=days)


def korean(day: datetime.date) -> str:
    return day.strftime("%Y.%m.%d")


def english(day: datetime.date) -> str:
    return f"{ENGLISH_MONTHS[day.month - 1]} {day.day}, {day.year}"
