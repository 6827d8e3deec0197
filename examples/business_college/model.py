"""This college's side of the ground truth: its profile schema, and its URL scheme (files named as
a `wget --mirror --adjust-extension` copy names them).

The records themselves (``Doc``, ``Section``, ``Output``) are the kit's, the same for every college.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from examples.site_kit.model import Doc, Output, Section
from examples.site_kit.schema import Limit, ProfileSchema

# The profile schema of institution.yaml, in its order; ground truth uses exactly these names.
SCHEMA = ProfileSchema(
    attributes=("major", "campus", "entry_year", "academic_status", "year_level"),
    categorical={
        "major": ("BUS", "ACT", "ITR", "ECN"),
        "campus": ("seoul", "sejong"),
        "academic_status": ("attending", "on_leave", "returning", "transfer", "foreign", "overtime"),
    },
    ranges={"entry_year": (2014, 2026), "year_level": (1, 4)},
)
applies, narrow = SCHEMA.applies, SCHEMA.narrow

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


__all__ = ["SCHEMA", "Doc", "Limit", "Output", "Section", "applies", "file_for", "narrow"]
