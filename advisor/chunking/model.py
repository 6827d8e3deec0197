"""The chunk: the unit that is annotated, indexed, retrieved and cited."""

from __future__ import annotations

from dataclasses import dataclass

MAX_CHUNK_CHARS = 800


@dataclass(frozen=True)
class Chunk:
    chunk_id: str  # from the document URL, position and text: stable across re-runs
    doc_id: str
    doc_url: str
    position: int  # 0-based order within the document
    text: str  # the raw chunk text, at most MAX_CHUNK_CHARS (unless one sentence is longer)
    heading_path: tuple[str, ...]  # the headings the chunk sits under, outermost first
    page: int | None  # PDFs: the page the chunk starts on
    start_offset: int  # where the chunk's text starts in the document's text
    topic: str  # what the document is about (from breadcrumbs / source), for the index prefix
    subtopic: str  # the nearest heading
    title: str  # the document's title
    keywords: tuple[str, ...] = ()

    def indexed_text(self) -> str:
        """What lexical and dense indexes see: a context line, then the chunk (docs/method.md §A.3)."""
        head = " > ".join(p for p in (self.topic, self.subtopic) if p)
        parts = [head, self.title, ", ".join(self.keywords)]
        return " | ".join(p for p in parts if p) + "\n" + self.text
