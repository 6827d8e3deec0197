"""Progress reporting from long asset steps, without a Dagster dependency in the pure code.

The CLI installs a sink that draws a progress display; elsewhere (the Dagster UI's runs) the
default sink is silent and the assets' own logs and metadata tell the story.
"""

from __future__ import annotations

from collections.abc import Callable

ProgressSink = Callable[[str, str], None]  # (stage, message)

_sink: ProgressSink | None = None


def set_sink(sink: ProgressSink | None) -> None:
    global _sink
    _sink = sink


def report(stage: str, message: str) -> None:
    if _sink is not None:
        _sink(stage, message)
