"""The demo college: a fictional 한빛대학교 정보대학 website, generated deterministically.

``build_site(root, as_of)`` writes the static site under ``root/site`` (HTML pages and PDFs that
the loopback server serves and the pipeline crawls) and the ground-truth manifest to
``root/manifest.jsonl``. The same ``as_of`` always gives byte-identical files, and files whose
bytes did not change are not rewritten. No Dagster, no network.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from examples.site_kit.build import MANIFEST_NAME, SITE_DIR_NAME, SiteSummary, generate_site, write_site

from . import college, dept_curriculum, dept_pages, dept_rules, faq, notices, pdfs, site_files
from .catalog import DEPARTMENTS
from .model import Output, file_for


def generate(as_of: datetime.date) -> Output:
    """The whole site in memory (files and ground truth), without touching the disk."""
    return generate_site(
        file_for, as_of, DEPARTMENTS,
        college=(_board_and_college_pages, dept_pages.index_page),
        per_department=(dept_curriculum.build, dept_pages.build, dept_rules.build),
        rest=(pdfs.build, faq.build, site_files.build),
    )


def _board_and_college_pages(out: Output, as_of: datetime.date) -> None:
    college.build(out, as_of, notices.build(out, as_of))  # the home page lists the newest notices


def build_site(root: Path, as_of: datetime.date) -> SiteSummary:
    return write_site(root, as_of, generate(as_of))


__all__ = ["SITE_DIR_NAME", "MANIFEST_NAME", "SiteSummary", "build_site", "generate"]
