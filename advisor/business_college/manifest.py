"""The ground-truth manifest: one JSON line per source document, sorted by path, in the demo
college's format (advisor/annotation/accuracy.py reads both). Outside site/: never served."""

from __future__ import annotations

import json

from .model import Doc


def dumps(docs: list[Doc]) -> bytes:
    paths = [d.path for d in docs]
    if len(paths) != len(set(paths)):
        raise ValueError("two documents share a path")
    lines = [json.dumps(d.to_json(), ensure_ascii=False) for d in sorted(docs, key=lambda d: d.path)]
    return ("\n".join(lines) + "\n").encode("utf-8")
