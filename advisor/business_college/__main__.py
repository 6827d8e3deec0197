"""``python -m advisor.business_college ROOT [--as-of YYYY-MM-DD]``: build the site, print counts."""

from __future__ import annotations

import argparse
import datetime
import time
from pathlib import Path

from . import build_site


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("root", type=Path, help="directory to write site/ and manifest.jsonl into")
    parser.add_argument("--as-of", type=datetime.date.fromisoformat,
                        default=datetime.date.today().replace(day=1), help="the site's today (default: 1st of this month)")
    args = parser.parse_args()
    started = time.perf_counter()
    summary = build_site(args.root, args.as_of)
    print(f"business college as of {summary.as_of} -> {summary.site_dir} ({time.perf_counter() - started:.2f} s)")
    print(f"  sources: {summary.sources}  by kind: {summary.by_kind}")
    print(f"  by source: {summary.by_source}")
    print(f"  expired notices: {summary.expired_notices}  exact FAQ duplicates: {summary.duplicate_faq}")
    print(f"  files: {summary.files} (written {summary.written}, unchanged {summary.unchanged}, deleted {summary.deleted})")


if __name__ == "__main__":
    main()
