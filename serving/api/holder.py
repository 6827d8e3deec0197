"""Which Advisor the API serves, and the swap to a newly published index build.

A background thread checks the published build id cheaply (one small file read) every
`reload_interval` seconds and, when it changed, loads the new build with `open_advisor` in that
thread, then swaps one reference. A request takes the reference once when it starts and keeps
that Advisor to its end: in-flight requests never see a half-swapped state and never wait for a
load. Sessions are independent of builds (they hold only profile state), so they carry over.
"""

from __future__ import annotations

import gc
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from advisor.index.layout import latest_build_id
from serving.dialogue.engine import NoBuildError

log = logging.getLogger("serving.api.holder")


def _settle_heap() -> None:
    """After a swap: collect what the previous build left, then freeze what is alive (the engine
    just loaded: its columns, vocabularies, models) out of the cyclic garbage collector's view.
    A full collection over a loaded engine took ~90 ms with every request in the process paused,
    and under load one ran every few hundred requests: a p95 of its own. Frozen objects are still
    freed by reference counting; cyclic garbage among them waits for the next swap's collection."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


class AdvisorHolder:
    def __init__(self, load: Callable[[], Any], published_id: Callable[[], str | None] | None = None,
                 reload_interval: float = 5.0):
        """`load()` returns an Advisor for the published build (or raises NoBuildError);
        `published_id()` names the published build cheaply. Without `published_id` the holder
        loads once (retrying while there is no build) and never swaps."""
        self._load, self._published_id = load, published_id
        self.reload_interval = reload_interval
        self._advisor: Any = None
        self._failed_id: str | None = None  # a build that failed to load: not retried until LATEST moves
        self.last_error: str | None = None
        self._refresh_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def for_builds(cls, builds_root: Path, open_advisor: Callable[[Path], Any], reload_interval: float = 5.0) -> "AdvisorHolder":
        """Serves `builds_root`'s published build; `open_advisor(builds_root)` loads it."""
        builds_root = Path(builds_root)
        return cls(lambda: open_advisor(builds_root), lambda: latest_build_id(builds_root), reload_interval)

    def current(self) -> Any:
        """The Advisor to use for one whole request, or None when no build is loaded yet."""
        return self._advisor

    def refresh(self) -> bool:
        """Loads the published build if it is not the one being served; True when it swapped."""
        with self._refresh_lock:
            current = self._advisor
            if self._published_id is None:
                if current is not None:
                    return False
                published = None
            else:
                published = self._published_id()
                if published is None or (current is not None and current.build_id == published):
                    return False
                if published == self._failed_id:
                    return False
            try:
                advisor = self._load()
            except NoBuildError as exc:
                self.last_error = str(exc)  # LATEST names nothing loadable yet: try again next time
                return False
            except Exception as exc:  # a broken build must not take the server down: keep serving the old one
                self._failed_id = published
                self.last_error = f"{type(exc).__name__}: {exc}"
                log.error("could not load index build %s (still serving %s): %s", published,
                          getattr(current, "build_id", None), self.last_error)
                return False
            self._advisor, self._failed_id, self.last_error = advisor, None, None
            current = None  # not kept alive by this frame through the collection below
            _settle_heap()
            log.info("serving index build %s", advisor.build_id)
            return True

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._watch, name="advisor-build-watcher", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None

    def _watch(self) -> None:
        while True:
            try:
                self.refresh()
            except Exception as exc:  # e.g. the builds folder unreadable for a moment; keep watching
                log.error("build watcher: %s: %s", type(exc).__name__, exc)
            if self._stop.wait(self.reload_interval):
                return
