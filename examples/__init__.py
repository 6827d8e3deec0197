"""The example institutions: fictional colleges whose websites are generated, so the pipeline has
something real-looking to crawl, and whose truth files say what each page holds for whom.

Each folder here with an ``institution.yaml`` is one institution, named by its folder
(``advisor.config.example_names()``): its config, the generator of its website (``build_site``;
``python -m examples.<name> ROOT``) and the truth file the generator writes beside the site.
``site_kit/`` is what the generators share. The library imports none of this (an import-linter
contract); a config names its example in ``local_site.generate`` and the crawl asset passes
``generate_site`` to ``advisor.ingest.local_site``.
"""

from __future__ import annotations

import datetime
import importlib
from pathlib import Path

from advisor.config import example_names


def generate_site(name: str, root: Path, as_of: datetime.date) -> Path:
    """Build the example institution ``name``'s site (and truth file) under ``root`` as of
    ``as_of``; returns the folder to serve."""
    if name not in example_names():
        raise ValueError(f"unknown example institution {name!r}; known: {', '.join(example_names())}")
    generator = importlib.import_module(f"{__name__}.{name}")  # only the one asked for: its imports are heavy
    generator.build_site(root, as_of=as_of)
    return root / generator.SITE_DIR_NAME
