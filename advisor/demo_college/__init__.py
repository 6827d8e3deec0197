"""The demo college: a fictional 한빛대학교 정보대학 website, generated deterministically.

``build_site(root, as_of)`` writes the static site under ``root/site`` (HTML pages and PDFs that
the loopback server serves and the pipeline crawls) and the ground-truth manifest to
``root/manifest.jsonl``. The same ``as_of`` always gives byte-identical files, and files whose
bytes did not change are not rewritten. No Dagster, no network.
"""

from __future__ import annotations

import datetime
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from . import college, dept_curriculum, dept_pages, dept_rules, faq, notices, pdfs, site_files
from .catalog import DEPARTMENTS
from .manifest import dumps
from .model import Output
from .writer import sync_tree, write_if_changed

SITE_DIR_NAME = "site"
MANIFEST_NAME = "manifest.jsonl"


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


def generate(as_of: datetime.date) -> Output:
    """The whole site in memory (files and ground truth), without touching the disk."""
    out = Output()
    latest = notices.build(out, as_of)
    college.build(out, as_of, latest)
    dept_pages.index_page(out, as_of)
    for dept in DEPARTMENTS:
        dept_curriculum.build(out, as_of, dept)
        dept_pages.build(out, as_of, dept)
        dept_rules.build(out, as_of, dept)
    pdfs.build(out, as_of)
    faq.build(out, as_of)
    site_files.build(out, as_of)
    return out


def build_site(root: Path, as_of: datetime.date) -> SiteSummary:
    root = Path(root)
    out = generate(as_of)
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


__all__ = ["SITE_DIR_NAME", "MANIFEST_NAME", "SiteSummary", "build_site", "generate"]
