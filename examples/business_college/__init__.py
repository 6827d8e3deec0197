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

from examples.site_kit.build import MANIFEST_NAME, SITE_DIR_NAME, SiteSummary, generate_site, write_site

from . import (
    college,
    dept_curriculum,
    dept_exam,
    dept_misc,
    dept_requirements,
    english,
    faq,
    haksa,
    legacy,
    notices,
    pdfs,
    site_files,
)
from .catalog import DEPARTMENTS
from .model import Output, file_for


def generate(as_of: datetime.date) -> Output:
    """The whole site in memory (files and ground truth), without touching the disk."""
    return generate_site(
        file_for, as_of, DEPARTMENTS,
        college=(_boards_and_college_pages, haksa.build, dept_misc.index_page),
        per_department=(dept_requirements.build, dept_curriculum.build, dept_misc.build, dept_exam.build),
        rest=(english.build, legacy.build, pdfs.build, faq.build, site_files.build),
    )


def _boards_and_college_pages(out: Output, as_of: datetime.date) -> None:
    college.build(out, as_of, notices.build(out, as_of))  # the home page lists the newest posts


def build_site(root: Path, as_of: datetime.date) -> SiteSummary:
    return write_site(root, as_of, generate(as_of))


__all__ = ["SITE_DIR_NAME", "MANIFEST_NAME", "SiteSummary", "build_site", "generate"]
