"""``python -m examples.business_college ROOT [--as-of YYYY-MM-DD]``: build the site, print counts."""

from __future__ import annotations

from examples.site_kit.cli import run

from . import build_site


def main() -> None:
    run(build_site, "business college", __doc__)


if __name__ == "__main__":
    main()
