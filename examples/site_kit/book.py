"""A PDF document under construction: its blocks and its ground truth, published together."""

from __future__ import annotations

from .model import Doc, Output, Section
from .pdf import Block, PdfStyle, h1, h2, render_pdf
from .schema import Limit, ProfileSchema


class Book:
    """A PDF's blocks, whom it applies to, and the headings whose content applies to fewer students."""

    def __init__(self, schema: ProfileSchema, **limits: Limit):
        """A book for the students ``limits`` describe (everyone, given none)."""
        self.schema = schema
        self.base = schema.applies(**limits)
        self.blocks: list[Block] = []
        self.sections: list[Section] = []

    def add(self, *blocks: Block) -> None:
        self.blocks.extend(blocks)

    def heading(self, text: str, level: int = 2, topic: str | None = None, **limits: Limit) -> None:
        """A chapter (1) or article (2) heading; with ``limits`` it is recorded as a section."""
        self.blocks.append(h1(text) if level == 1 else h2(text))
        if limits:
            self.sections.append(Section(text, self.schema.narrow(self.base, **limits), topic=topic))

    def publish(self, out: Output, path: str, style: PdfStyle, *, source: str, title: str, topic: str,
                running_head: str) -> None:
        """Render the PDF at ``path`` and record it as a document."""
        out.add_file(path, render_pdf(self.blocks, style, title, running_head))
        out.docs.append(Doc(path=path, source=source, kind="pdf", title=title, topic=topic,
                            applies_to=self.base, sections=self.sections))
