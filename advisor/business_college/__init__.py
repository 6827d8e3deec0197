"""A second bundled institution: a fictional 새빛대학교 경영경제대학 website, generated
deterministically, unlike the demo college in schema, markup, URLs, encodings and wording.

``build_site(root, as_of)`` writes the static site under ``root/site`` (named as a
``wget --mirror --adjust-extension`` copy names files, query strings included) and the
ground-truth manifest to ``root/manifest.jsonl``. The same ``as_of`` gives byte-identical files,
and files whose bytes did not change are not rewritten. No Dagster, no network.
"""

from __future__ import annotations

import datetime
from collections import Counter
from pathlib import Path

from advisor.demo_college import SiteSummary
from advisor.demo_college.writer import sync_tree, write_if_changed

from . import (
    college, dept_curriculum, dept_exam, dept_misc, dept_requirements, english, faq, haksa, legacy, notices, pdfs,
    site_files,
)
from .catalog import DEPARTMENTS
from .manifest import dumps
from .model import Output

SITE_DIR_NAME = "site"
MANIFEST_NAME = "manifest.jsonl"


def generate(as_of: datetime.date) -> Output:
    """The whole site in memory (files and ground truth), without touching the disk."""
    out = Output()
    latest = notices.build(out, as_of)
    college.build(out, as_of, latest)
    haksa.build(out, as_of)
    dept_misc.index_page(out, as_of)
    for dept in DEPARTMENTS:
        dept_requirements.build(out, as_of, dept)
        dept_curriculum.build(out, as_of, dept)
        dept_misc.build(out, as_of, dept)
        dept_exam.build(out, as_of, dept)
    english.build(out, as_of)
    legacy.build(out, as_of)
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
        root=root, site_dir=site_dir, manifest_path=manifest_path, as_of=as_of, sources=len(out.docs),
        by_kind=dict(Counter(d.kind for d in out.docs)), by_source=dict(Counter(d.source for d in out.docs)),
        expired_notices=sum(bool(d.expired) for d in out.docs),
        duplicate_faq=sum(d.duplicate_of is not None for d in out.docs),
        files=len(out.files), written=result.written, unchanged=result.unchanged, deleted=result.deleted,
    )


__all__ = ["SITE_DIR_NAME", "MANIFEST_NAME", "SiteSummary", "build_site", "generate"]
