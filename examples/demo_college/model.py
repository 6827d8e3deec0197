"""The demo college's side of the ground truth: its profile schema and its URL scheme.

The records themselves (``Doc``, ``Section``, ``Output``) are the kit's, the same for every college.
"""

from __future__ import annotations

from examples.site_kit.model import Doc, Output, Section
from examples.site_kit.schema import ProfileSchema

# The profile schema of institution.yaml, in order; ground truth uses exactly these names.
SCHEMA = ProfileSchema(
    attributes=("department", "major_type", "admission_year", "grade", "student_status"),
    categorical={
        "department": ("CS", "DS", "AI"),
        "major_type": ("intensive", "double", "convergence"),
        "student_status": ("enrolled", "on_leave", "returning", "transfer", "international"),
    },
    ranges={"admission_year": (2015, 2026), "grade": (1, 4)},
)
applies, narrow = SCHEMA.applies, SCHEMA.narrow


def file_for(url_path: str) -> str:
    """The file under site/ that the loopback server returns for ``url_path``."""
    path = url_path.split("#", 1)[0].lstrip("/")
    if path == "" or path.endswith("/"):
        path += "index.html"
    return path


__all__ = ["SCHEMA", "Doc", "Output", "Section", "applies", "file_for", "narrow"]
