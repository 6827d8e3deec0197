"""Shared fixtures. `demo_warehouse` and `business_warehouse`: the pipeline materialized once per
test session on each bundled college (served on a free port), for the tests of everything that
reads an index build (dialogue, API, web page); built in the background while the tests that need
no build run (`BackgroundBuild`)."""

from __future__ import annotations

import fcntl
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
import yaml

from advisor.config import DEMO_CONFIG_PATH
from eval.sets.build import BUSINESS_CONFIG_PATH, config_copy_path, config_on_port

# the `openai_server` fixture (a real OpenAI-compatible HTTP server on 127.0.0.1) for every test module
pytest_plugins = ["tests.openai_server"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def demo_config_on_port(directory: Path, port: int, max_pages: int | None = None, embedder: str = "lsa") -> Path:
    """The demo college's own config, its site moved to `port` (and each source capped), embedded
    with `embedder`: LSA unless said otherwise, since these builds test the pipeline's mechanics
    (the encoder costs minutes per build; `demo_warehouse` builds with the offline default)."""
    path = config_on_port(DEMO_CONFIG_PATH, directory, port, max_pages)
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    config.setdefault("pipeline", {})["embedder"] = embedder
    path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


class DemoWarehouse:
    def __init__(self, root: Path, config_path: Path) -> None:
        self.root, self.config_path = root, config_path

    @property
    def builds(self) -> Path:
        return self.root / "builds"

    def config(self):
        from advisor.config import load_config

        return load_config(self.config_path)


DEMO_SELECTION = "not key:evaluation and not key:evaluation_report"  # the evaluation: tests run their own subsets
BUSINESS_SELECTION = "not key:qa_benchmark and not key:evaluation and not key:evaluation_report"
# the offline backends, whatever the shell has; and each build's own Dagster instance
_NOT_INHERITED = ("DAGSTER_HOME", "OPENAI_API_KEY", "OPENAI_BASE_URL")


def offline_env() -> dict[str, str]:
    """This process's environment for an `advisor` child process, without `_NOT_INHERITED`."""
    return {k: v for k, v in os.environ.items() if k not in _NOT_INHERITED}


# A folder to keep the builds in across test sessions (a developer's loop, or several worktrees
# testing one change of code that does not touch the build): each is built once, by whichever
# session gets there first, and reused until its folder is deleted. CI never sets it.
KEPT_BUILDS = "ADVISOR_TEST_KEPT_BUILDS"


class BackgroundBuild:
    """A bundled college materialized by `advisor materialize` in a child process, started when
    the tests that need it are collected: the encoder's minutes of building overlap the tests that
    need no build (collected first, `pytest_collection_modifyitems`) instead of adding to them."""

    def __init__(self, name: str, config_source: Path, selection: str, after: "BackgroundBuild | None" = None):
        kept = os.environ.get(KEPT_BUILDS)
        self.kept = kept is not None
        self.directory = Path(kept) / name if self.kept else Path(tempfile.mkdtemp(prefix=f"advisor-{name}-"))
        self.directory.mkdir(parents=True, exist_ok=True)
        self.config_path = config_copy_path(config_source, self.directory)  # written by `_build`
        self._config_source = config_source
        self.warehouse = self.directory / "warehouse"
        self.log = self.directory / "materialize.log"
        self.command = [sys.executable, "-m", "cli.main", "materialize", "--config", str(self.config_path),
                        "--warehouse", str(self.warehouse), "--select", selection]
        self.process: subprocess.Popen | None = None
        self.reused = False  # a kept build (KEPT_BUILDS) made by an earlier session
        self._after = after  # one build at a time: two would share two cores
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        if self._after is not None:
            self._after._thread.join()
        if not self.kept:
            self._build()
            return
        # several test sessions may share the kept folder: one builds, the others wait and reuse it
        with (self.directory / "build.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if (self.directory / "built").exists():
                self.reused = True
                return
            shutil.rmtree(self.warehouse, ignore_errors=True)
            self._build()
            if self.process.returncode == 0:
                (self.directory / "built").touch()

    def _build(self) -> None:
        config_on_port(self._config_source, self.directory, free_port())
        with self.log.open("wb") as log:
            # one encoder thread: the tests run on the other core meanwhile (two threads would only
            # wait on each other and on the tests)
            env = {**offline_env(), "OMP_NUM_THREADS": "1"}
            self.process = subprocess.Popen(self.command, stdout=log, stderr=subprocess.STDOUT, env=env,
                                            cwd=Path(__file__).resolve().parents[1])
            self.process.wait()

    def result(self) -> DemoWarehouse:
        self._thread.join()
        if not self.reused and (self.process is None or self.process.returncode != 0):
            tail = self.log.read_text(encoding="utf-8", errors="replace")[-3000:] if self.log.exists() else ""
            pytest.fail(f"{' '.join(self.command)} failed:\n{tail}")
        return DemoWarehouse(self.warehouse, self.config_path)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
        if not self.kept:
            shutil.rmtree(self.directory, ignore_errors=True)


_BUILDS: dict[str, BackgroundBuild] = {}
_BUILT = {"demo_warehouse": (DEMO_CONFIG_PATH, DEMO_SELECTION),
          "business_warehouse": (BUSINESS_CONFIG_PATH, BUSINESS_SELECTION)}


def pytest_collection_modifyitems(session, config, items) -> None:
    """Start the builds the collected tests need, one after the other, and run the tests that need
    none first."""
    previous = None
    for name in _BUILT:
        if any(name in item.fixturenames for item in items):
            previous = _BUILDS[name] = BackgroundBuild(name.split("_")[0], *_BUILT[name], after=previous)
    # stable, so each group keeps its order: no build, then the demo's, then the business college's
    # (built last, while the demo's tests run)
    items.sort(key=lambda item: max((rank + 1 for rank, name in enumerate(_BUILT) if name in item.fixturenames),
                                    default=0))


def _built(name: str) -> DemoWarehouse:
    if name not in _BUILDS:  # asked for by a test that did not name it (request.getfixturevalue)
        _BUILDS[name] = BackgroundBuild(name.split("_")[0], *_BUILT[name])
    return _BUILDS[name].result()


def pytest_configure(config) -> None:
    """`pytest -n N` (pytest-xdist): the workers share one build of each college, made by whichever
    worker gets there first (the KEPT_BUILDS lock), in a folder this controller removes at the end."""
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput") \
            and KEPT_BUILDS not in os.environ:
        # set before the workers start: they inherit this process's environment
        os.environ[KEPT_BUILDS] = _SHARED_BUILDS["folder"] = tempfile.mkdtemp(prefix="advisor-builds-")


_SHARED_BUILDS: dict[str, str] = {}


def pytest_sessionfinish(session, exitstatus) -> None:
    for build in _BUILDS.values():
        build.stop()
    if "folder" in _SHARED_BUILDS:  # the controller of `pytest -n N`, after its workers
        shutil.rmtree(_SHARED_BUILDS.pop("folder"), ignore_errors=True)
        os.environ.pop(KEPT_BUILDS, None)


@pytest.fixture(scope="session")
def demo_warehouse() -> DemoWarehouse:
    """The whole pipeline on the demo college but the evaluation, offline (a BackgroundBuild)."""
    return _built("demo_warehouse")


@pytest.fixture(scope="session")
def business_warehouse() -> DemoWarehouse:
    """The pipeline on the second bundled institution, offline, up to the index build (everything
    but the benchmark and the evaluation; a BackgroundBuild)."""
    return _built("business_warehouse")
