"""Building a college: its generators in order, then the site written under ``root/site`` and the
manifest beside it."""

from __future__ import annotations

import datetime
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from .manifest import dumps
from .model import Output
from .writer import sync_tree, write_if_changed

SITE_DIR_NAME = "site"
MANIFEST_NAME = "manifest.jsonl"  # outside site/, so the loopback server never serves the truth


@dataclass(frozen=True)
class SiteSummary:
    root: Path
    site_dir: Path
    manifest_path: Path
    as_of: datetime.date
    sources: int  # manifest lines: documents the pipeline should find
    by_kind: dict[str, int] = field(default_factory=dict)  # html | pdf | board | faq
    by_source: dict[str, int] = field(default_factory=dict)  # config source name -> documents
    expired_notices: int = 0
    duplicate_faq: int = 0
    files: int = 0  # files under site/, documents or not
    written: int = 0
    unchanged: int = 0
    deleted: int = 0


def generate_site(file_for: Callable[[str], str], as_of: datetime.date, departments: Iterable[Any], *,
                  college: Sequence[Callable[[Output, datetime.date], None]],
                  per_department: Sequence[Callable[[Output, datetime.date, Any], None]],
                  rest: Sequence[Callable[[Output, datetime.date], None]]) -> Output:
    """A whole site in memory, built in the order every college follows (it is the manifest's
    order): the college-wide pages, each department's pages, then the rest (PDFs, FAQ, ...)."""
    out = Output(file_for)
    for step in college:
        step(out, as_of)
    for dept in departments:
        for dept_step in per_department:
            dept_step(out, as_of, dept)
    for step in rest:
        step(out, as_of)
    return out


def write_site(root: Path, as_of: datetime.date, out: Output) -> SiteSummary:
    """Make ``root`` hold exactly this build, rewriting only files whose bytes changed."""
    root = Path(root)
    site_dir = root / SITE_DIR_NAME
    result = sync_tree(site_dir, out.files)
    manifest_path = root / MANIFEST_NAME
    write_if_changed(manifest_path, dumps(out.docs))
    return SiteSummary(
        root=root,
        site_dir=site_dir,
        manifest_path=manifest_path,
        as_of=as_of,
        sources=len(out.docs),
        by_kind=dict(Counter(d.kind for d in out.docs)),
        by_source=dict(Counter(d.source for d in out.docs)),
        expired_notices=sum(bool(d.expired) for d in out.docs),
        duplicate_faq=sum(d.duplicate_of is not None for d in out.docs),
        files=len(out.files),
        written=result.written,
        unchanged=result.unchanged,
        deleted=result.deleted,
    )
