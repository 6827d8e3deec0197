""""Today", in one place. The institution's day follows its calendar (its timezone: notice expiry,
the recency of notices and the dialogue, `InstitutionConfig.today`); where no institution is at
hand (a retrieval asked without a day, a bench, a generated site's default date) it is the
machine's. tests/test_settings.py keeps any other reading of the date out of the code.
"""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo


def today(timezone: str | None = None) -> date:
    """The date now in `timezone` (an IANA zone), else the machine's local date."""
    return datetime.now(ZoneInfo(timezone)).date() if timezone else date.today()
