"""Adding one HTML page to a build together with its ground-truth record."""

from __future__ import annotations

import datetime
from typing import Any

from examples.site_kit.markup import Markup

from .layout import Crumbs, render
from .model import Doc, Output, Section


def add_page(
    out: Output,
    as_of: datetime.date,
    *,
    path: str,
    source: str | None,
    title: str,
    crumbs: Crumbs,
    body: Markup,
    topic: str = "general",
    applies_to: dict[str, Any] | None = None,
    sections: list[Section] | None = None,
    lang: str = "ko",
    facts: dict[str, Any] | None = None,
    updated: datetime.date | None = None,
) -> None:
    """Render the page; record it as a document unless ``source`` is None (navigation only).
    ``updated``: the day the page says it was last revised."""
    out.add_file(path, render(title, crumbs, body, as_of, lang=lang, updated=updated))
    if source is None:
        return
    if applies_to is None:
        raise ValueError(f"{path}: a document needs its applies_to")
    out.docs.append(Doc(path=path, source=source, kind="html", title=title, topic=topic,
                        applies_to=applies_to, sections=sections or [], lang=lang, facts=facts))
