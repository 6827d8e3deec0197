"""One HTML page and its ground-truth record, built top to bottom."""

from __future__ import annotations

import datetime
from typing import Any

from examples.site_kit.markup import Markup, join, tag

from .chrome import Crumbs, SideMenu, h3, h4, render
from .model import Doc, Limit, Output, Section, applies, narrow
from .wording import rng_for


class Page:
    """A page's body parts and its sections (the headed parts that apply to a narrower group)."""

    def __init__(self, path: str, base: dict[str, Any] | None = None):
        self.path, self.rng = path, rng_for(path)
        self.base = base if base is not None else applies()
        self.parts: list[Markup] = []
        self.sections: list[Section] = []

    def add(self, *parts: Markup | None) -> None:
        self.parts.extend(p for p in parts if p is not None)

    def block(self, heading: str, *body: Markup | None, level: int = 3, topic: str | None = None,
              **limits: Limit) -> None:
        """A headed block; with ``limits`` it is recorded as a section for those students."""
        head = h3(heading) if level == 3 else h4(heading)
        self.parts.append(tag("div", Markup("\n"), head, *(b for b in body if b is not None), class_="cont-box"))
        if limits:
            self.sections.append(Section(heading, narrow(self.base, **limits), topic=topic))

    def publish(self, out: Output, as_of: datetime.date, *, source: str | None, title: str, crumbs: Crumbs,
                side: SideMenu | None = None, topic: str = "general", lang: str = "ko",
                facts: dict[str, Any] | None = None, updated: datetime.date | None = None) -> None:
        """Render the page; record it as a document unless ``source`` is None (navigation only).
        ``updated``: the day the page says it was last revised."""
        out.add_file(self.path, render(self.path, title, crumbs, join(self.parts), as_of, side=side, lang=lang,
                                       updated=updated))
        if source is not None:
            out.docs.append(Doc(path=self.path, source=source, kind="html", title=title, topic=topic,
                                applies_to=self.base, sections=self.sections, lang=lang, facts=facts))
