"""The ground-truth manifest: one JSON line per source document, sorted by path.

Only evaluation reads it (to score an annotator against exact applicability); the pipeline
never does, and it lives outside site/ so the server never serves it.
"""

from __future__ import annotations

import json

from .model import Doc


def dumps(docs: list[Doc]) -> bytes:
    paths = [d.path for d in docs]
    if len(paths) != len(set(paths)):
        raise ValueError("two documents share a path")
    lines = [json.dumps(d.to_json(), ensure_ascii=False) for d in sorted(docs, key=lambda d: d.path)]
    return ("\n".join(lines) + "\n").encode("utf-8")


def load(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]
