"""The student-facing HTTP API (FastAPI) and its web page; see app.create_app.

The names below are imported on first use: `advisor ask --server` uses this package's small
modules (remote.py, terminal.py) without paying for FastAPI."""

from __future__ import annotations

import importlib

_EXPORTS = {"create_app": "serving.api.app", "AdvisorHolder": "serving.api.holder",
            "ServingSettings": "serving.api.settings"}
__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
