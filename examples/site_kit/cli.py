"""The ``python -m examples.<college> ROOT [--as-of YYYY-MM-DD]`` entry every college shares."""

from __future__ import annotations

import argparse
import datetime
import time
from pathlib import Path
from typing import Callable

from advisor import clock

from .build import MANIFEST_NAME, SITE_DIR_NAME, SiteSummary


def run(build_site: Callable[[Path, datetime.date], SiteSummary], label: str, description: str | None,
        argv: list[str] | None = None) -> None:
    """Build the site named ``label`` ("demo college") and print what it holds."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("root", type=Path, help=f"directory to write {SITE_DIR_NAME}/ and {MANIFEST_NAME} into")
    parser.add_argument("--as-of", type=datetime.date.fromisoformat,
                        default=clock.today().replace(day=1), help="the site's today (default: 1st of this month)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    summary = build_site(args.root, args.as_of)
    elapsed = time.perf_counter() - started
    print(f"{label} as of {summary.as_of} -> {summary.site_dir} ({elapsed:.2f} s)")
    print(f"  sources: {summary.sources}  by kind: {summary.by_kind}")
    print(f"  by source: {summary.by_source}")
    print(f"  expired notices: {summary.expired_notices}  exact FAQ duplicates: {summary.duplicate_faq}")
    print(f"  files: {summary.files} (written {summary.written}, unchanged {summary.unchanged}, deleted {summary.deleted})")
