"""A second bundled institution: a fictional 새빛대학교 경영경제대학 website, generated
deterministically, unlike the demo college in schema, markup, URLs, encodings and wording.

``build_site(root, as_of)`` writes the static site under ``root/site`` (named as a
``wget --mirror --adjust-extension`` copy names files, query strings included) and the
ground-truth manifest to ``root/manifest.jsonl``. The same ``as_of`` gives byte-identical files,
and files whose bytes did not change are not rewritten. No Dagster, no network.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from advisor.site_kit.build import MANIFEST_NAME, SITE_DIR_NAME, SiteSummary, write_site

from . import (
    college, dept_curriculum, dept_exam, dept_misc, dept_requirements, english, faq, haksa, legacy, notices, pdfs,
    site_files,
)
from .catalog import DEPARTMENTS
from .model import Output, file_for


def generate(as_of: datetime.date) -> Output:
    """The whole site in memory (files and ground truth), without touching the disk."""
    out = Output(file_for)
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
    return write_site(root, as_of, generate(as_of))


__all__ = ["SITE_DIR_NAME", "MANIFEST_NAME", "SiteSummary", "build_site", "generate"]
