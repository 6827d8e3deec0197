"""An FAQ entry as every college's FAQ pages list it; each college lays the pages out its own way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .markup import Markup


@dataclass
class Entry:
    question: str
    answer: Markup
    applies_to: dict[str, Any]
    topic: str
    share: str | None = None  # the same key on two pages: one entry, repeated verbatim
    anchored: bool = True  # False: the item has no id (its URL is #faq-N), where a college does that
