"""What a build produces: site files, and one ground-truth record per source document.

The records are the manifest's format, the same for every college (advisor/annotation/accuracy.py
reads them all); only the URL scheme, ``Output.file_for``, is the college's own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass
class Section:
    heading: str  # exactly as rendered (an HTML heading's text, or a PDF heading line)
    applies_to: dict[str, Any]
    topic: str | None = None
    facts: dict[str, Any] | None = None


@dataclass
class Doc:
    """One manifest line: a source the pipeline should turn into a document."""

    path: str  # URL path, with its query if any; FAQ entries carry their #fragment
    source: str  # the config's source name
    kind: str  # html | pdf | board | faq
    title: str
    topic: str
    applies_to: dict[str, Any]
    lang: str = "ko"
    sections: list[Section] = field(default_factory=list)
    date: str | None = None
    expired: bool | None = None
    duplicate_of: str | None = None
    facts: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path, "source": self.source, "kind": self.kind, "title": self.title,
            "topic": self.topic, "lang": self.lang, "date": self.date, "expired": self.expired,
            "duplicate_of": self.duplicate_of, "applies_to": self.applies_to,
            "sections": [{k: v for k, v in vars(s).items() if v is not None} for s in self.sections],
            "facts": self.facts,
        }


@dataclass
class Output:
    """Everything one build produced: files (path under site/ -> bytes) and records."""

    file_for: Callable[[str], str]  # the college's URL scheme: the file under site/ that serves a URL
    files: dict[str, bytes] = field(default_factory=dict)
    docs: list[Doc] = field(default_factory=list)

    def add_file(self, url_path: str, data: bytes | str) -> None:
        self._put(self.file_for(url_path), data.encode("utf-8") if isinstance(data, str) else data)

    def extend(self, other: Output) -> None:
        for rel, data in other.files.items():
            self._put(rel, data)
        self.docs.extend(other.docs)

    def _put(self, rel: str, data: bytes) -> None:
        if rel in self.files:
            raise ValueError(f"two generators wrote {rel}")
        self.files[rel] = data
