"""What a build produces: files to write, and one ground-truth record per source document."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# The profile schema of institution.yaml, in order; ground truth uses exactly these names.
ATTRIBUTES = ("department", "major_type", "admission_year", "grade", "student_status")
CATEGORICAL = {
    "department": ("CS", "DS", "AI"),
    "major_type": ("intensive", "double", "convergence"),
    "student_status": ("enrolled", "on_leave", "returning", "transfer", "international"),
}
RANGES = {"admission_year": (2015, 2026), "grade": (1, 4)}


def applies(
    department: tuple[str, ...] | list[str] | str | None = None,
    major_type: tuple[str, ...] | list[str] | str | None = None,
    admission_year: tuple[int, int] | None = None,
    grade: tuple[int, int] | None = None,
    student_status: tuple[str, ...] | list[str] | str | None = None,
) -> dict[str, Any]:
    """An applicability record over every attribute; None = the attribute does not limit it.

    Categorical values come out in schema order and ranges are clipped to the schema's bounds,
    so two records meaning the same thing compare equal.
    """
    record: dict[str, Any] = {}
    given = dict(
        department=department, major_type=major_type, admission_year=admission_year,
        grade=grade, student_status=student_status,
    )
    for name in ATTRIBUTES:
        value = given[name]
        if value is None:
            record[name] = None
        elif name in CATEGORICAL:
            values = {value} if isinstance(value, str) else set(value)
            unknown = values - set(CATEGORICAL[name])
            if unknown:
                raise ValueError(f"{name}: unknown values {sorted(unknown)}")
            record[name] = [v for v in CATEGORICAL[name] if v in values]
        else:
            lo_bound, hi_bound = RANGES[name]
            lo, hi = max(value[0], lo_bound), min(value[1], hi_bound)
            if lo > hi:
                raise ValueError(f"{name}: empty range {value}")
            record[name] = None if (lo, hi) == (lo_bound, hi_bound) else [lo, hi]
    return record


def narrow(base: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    """``base`` with some attributes replaced: a section inherits its document's constraints."""
    merged = {k: (tuple(v) if isinstance(v, list) else v) for k, v in base.items()}
    merged.update(overrides)
    return applies(**merged)


@dataclass
class Section:
    heading: str  # exactly as rendered (h2/h3 text, or a PDF heading line)
    applies_to: dict[str, Any]
    topic: str | None = None
    facts: dict[str, Any] | None = None


@dataclass
class Doc:
    """One manifest line: a source the pipeline should turn into a document."""

    path: str  # URL path; FAQ entries carry their #fragment
    source: str  # the config source name
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
            "path": self.path,
            "source": self.source,
            "kind": self.kind,
            "title": self.title,
            "topic": self.topic,
            "lang": self.lang,
            "date": self.date,
            "expired": self.expired,
            "duplicate_of": self.duplicate_of,
            "applies_to": self.applies_to,
            "sections": [
                {k: v for k, v in vars(s).items() if v is not None} for s in self.sections
            ],
            "facts": self.facts,
        }


@dataclass
class Output:
    """Everything one generator produced: site files (relative path -> bytes) and records."""

    files: dict[str, bytes] = field(default_factory=dict)
    docs: list[Doc] = field(default_factory=list)

    def add_file(self, url_path: str, data: bytes | str) -> None:
        rel = file_for(url_path)
        if rel in self.files:
            raise ValueError(f"two generators wrote {rel}")
        self.files[rel] = data.encode("utf-8") if isinstance(data, str) else data

    def extend(self, other: "Output") -> None:
        for rel, data in other.files.items():
            if rel in self.files:
                raise ValueError(f"two generators wrote {rel}")
            self.files[rel] = data
        self.docs.extend(other.docs)


def file_for(url_path: str) -> str:
    """The file under site/ that the loopback server returns for ``url_path``."""
    path = url_path.split("#", 1)[0].lstrip("/")
    if path == "" or path.endswith("/"):
        path += "index.html"
    return path
