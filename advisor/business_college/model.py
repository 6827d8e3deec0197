"""What a build produces: site files (named as a `wget --mirror --adjust-extension` copy names
them) and one ground-truth record per source document, over THIS college's profile schema."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

# The profile schema of institution.yaml, in its order; ground truth uses exactly these names.
ATTRIBUTES = ("major", "campus", "entry_year", "academic_status", "year_level")
CATEGORICAL = {
    "major": ("BUS", "ACT", "ITR", "ECN"),
    "campus": ("seoul", "sejong"),
    "academic_status": ("attending", "on_leave", "returning", "transfer", "foreign", "overtime"),
}
RANGES = {"entry_year": (2014, 2026), "year_level": (1, 4)}

Limit = tuple | list | str | None


def applies(**limits: Limit) -> dict[str, Any]:
    """An applicability record over every attribute; an attribute not given does not limit.

    Categorical values come out in schema order and ranges are clipped to the schema's bounds
    (a range covering all of it is None), so two records meaning the same thing compare equal.
    """
    unknown = set(limits) - set(ATTRIBUTES)
    if unknown:
        raise ValueError(f"not attributes of this schema: {sorted(unknown)}")
    record: dict[str, Any] = {}
    for name in ATTRIBUTES:
        value = limits.get(name)
        if value is None:
            record[name] = None
        elif name in CATEGORICAL:
            values = {value} if isinstance(value, str) else set(value)
            if values - set(CATEGORICAL[name]):
                raise ValueError(f"{name}: unknown values {sorted(values - set(CATEGORICAL[name]))}")
            kept = [v for v in CATEGORICAL[name] if v in values]
            record[name] = None if len(kept) == len(CATEGORICAL[name]) else kept
        else:
            low_bound, high_bound = RANGES[name]
            low, high = max(value[0], low_bound), min(value[1], high_bound)
            if low > high:
                raise ValueError(f"{name}: empty range {value}")
            record[name] = None if (low, high) == (low_bound, high_bound) else [low, high]
    return record


def narrow(base: dict[str, Any], **overrides: Limit) -> dict[str, Any]:
    """``base`` with some attributes replaced: a section keeps its document's other limits."""
    merged = {k: (tuple(v) if isinstance(v, list) else v) for k, v in base.items()}
    merged.update(overrides)
    return applies(**merged)


@dataclass
class Section:
    heading: str  # exactly as rendered (an h3/h4 text, or a PDF heading line)
    applies_to: dict[str, Any]
    topic: str | None = None


@dataclass
class Doc:
    """One manifest line: a source the pipeline should turn into a document."""

    path: str  # URL path with its query; FAQ entries carry their #fragment
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


# Files served under their own name: HTML files already named so, and everything that is not HTML.
_KEEP_NAME = (".html", ".htm", ".pdf", ".hwp", ".css", ".txt", ".gif", ".png", ".jpg")


def file_for(url_path: str) -> str:
    """The file under site/ for a URL, named as ``wget --mirror --adjust-extension`` saves it:
    ``/bbs/view.php?bo=notice&no=12`` -> ``bbs/view.php?bo=notice&no=12.html``, directories ->
    ``index.html``; names ending in .html/.htm and files that are not HTML (.pdf, .hwp ...) keep theirs."""
    parts = urlsplit(url_path.split("#", 1)[0])
    path = parts.path.lstrip("/")
    if path == "" or path.endswith("/"):
        return path + "index.html"
    name = path + (f"?{parts.query}" if parts.query else "")
    if path.lower().endswith(_KEEP_NAME) and not parts.query:
        return name
    return name + ".html"  # an HTML page (.php ...): wget appends .html


@dataclass
class Output:
    """Everything one build produced: files (path under site/ -> bytes) and records."""

    files: dict[str, bytes] = field(default_factory=dict)
    docs: list[Doc] = field(default_factory=list)

    def add_file(self, url_path: str, data: bytes | str) -> None:
        rel = file_for(url_path)
        if rel in self.files:
            raise ValueError(f"two generators wrote {rel}")
        self.files[rel] = data.encode("utf-8") if isinstance(data, str) else data
