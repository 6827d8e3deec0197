"""The student-facing HTTP API (FastAPI) and its web page; see app.create_app (the assembly) and
routes/ (a router per resource).

The names below are imported on first use: importing a small module of this package (settings.py,
sessions/) costs no FastAPI import."""

from __future__ import annotations

import importlib

_EXPORTS = {"create_app": "serving.api.app", "AdvisorHolder": "serving.api.holder",
            "ServingSettings": "serving.api.settings"}
__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
