"""``python -m examples.demo_college ROOT [--as-of YYYY-MM-DD]``: build the site and print counts."""

from __future__ import annotations

from examples.site_kit.cli import run

from . import build_site


def main() -> None:
    run(build_site, "demo college", __doc__)


if __name__ == "__main__":
    main()
