"""Shared fixtures. `demo_warehouse`: the whole pipeline materialized once per test session on
the demo college (served on a free port), for the tests of everything that reads an index build
(dialogue, API, web page)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
import yaml

from advisor.config import DEMO_CONFIG_PATH
from eval.sets.build import BUSINESS_CONFIG_PATH, config_on_port

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


DEMO_SELECTION = "not key:evaluation and not key:evaluation_report"


@pytest.fixture(scope="session")
def demo_warehouse(tmp_path_factory) -> DemoWarehouse:
    from cli.main import main

    directory = tmp_path_factory.mktemp("demo")
    config_path = config_on_port(DEMO_CONFIG_PATH, directory, free_port())
    warehouse = directory / "warehouse"
    mp = pytest.MonkeyPatch()
    mp.delenv("DAGSTER_HOME", raising=False)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):  # the offline backends, whatever the shell has
        mp.delenv(name, raising=False)
    try:
        # everything but the evaluation (minutes of retrieval; tests run it on their own subsets)
        assert main(["materialize", "--config", str(config_path), "--warehouse", str(warehouse),
                     "--select", DEMO_SELECTION]) == 0
    finally:
        mp.undo()
    return DemoWarehouse(warehouse, config_path)


# ----------------------------------------------------------------------------- the business college

BUSINESS_SELECTION = "not key:qa_benchmark and not key:evaluation and not key:evaluation_report"


@pytest.fixture(scope="session")
def business_warehouse(tmp_path_factory) -> DemoWarehouse:
    """The pipeline on the second bundled institution, offline, up to the index build (everything
    but the benchmark and the evaluation)."""
    from cli.main import main

    directory = tmp_path_factory.mktemp("business")
    config_path = config_on_port(BUSINESS_CONFIG_PATH, directory, free_port())
    warehouse = directory / "warehouse"
    mp = pytest.MonkeyPatch()
    mp.delenv("DAGSTER_HOME", raising=False)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        mp.delenv(name, raising=False)
    try:
        assert main(["materialize", "--config", str(config_path), "--warehouse", str(warehouse),
                     "--select", BUSINESS_SELECTION]) == 0
    finally:
        mp.undo()
    return DemoWarehouse(warehouse, config_path)
