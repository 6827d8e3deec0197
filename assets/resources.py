"""Resources of the code location: the institution's config and the warehouse (lakehouse + files)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
from dagster import ConfigurableResource, Failure
from dagster_duckdb import DuckDBResource

from advisor.config import InstitutionConfig, load_config
from advisor.ingest.raw_store import RawStore
from advisor.lakehouse import LAKEHOUSE_FILE, ensure_schema


class InstitutionResource(ConfigurableResource):
    """The institution config file; empty means $ADVISOR_CONFIG, else the bundled demo college."""

    config_path: str = ""

    def load(self) -> InstitutionConfig:
        return load_config(self.config_path or None)


class WarehouseResource(ConfigurableResource):
    """The warehouse folder: the DuckDB lakehouse file plus content-addressed raw bytes and
    generated files. Connections go through dagster-duckdb, which waits out a lock held by
    another process (a researcher's DuckDB shell) instead of failing at once."""

    path: str

    @property
    def root(self) -> Path:
        return Path(self.path).resolve()

    @contextmanager
    def connect(self) -> Iterator[duckdb.DuckDBPyConnection]:
        self.root.mkdir(parents=True, exist_ok=True)
        with DuckDBResource(database=str(self.root / LAKEHOUSE_FILE)).get_connection() as con:
            try:
                ensure_schema(con)
                yield con
            finally:
                con.close()  # also when the step fails, so the file is free for the next opener

    def raw_store(self) -> RawStore:
        return RawStore(self.root)


class LLMResource(ConfigurableResource):
    """The OpenAI-compatible endpoint, from the environment (OPENAI_API_KEY, OPENAI_BASE_URL,
    ADVISOR_LLM_MODEL ...), resolved when a run starts. Unconfigured is a normal state: the
    offline backends run and nothing pretends to be an LLM result."""

    def settings(self):
        from advisor.llm.settings import LLMSettings

        return LLMSettings.from_env()

    def configured(self) -> bool:
        return self.settings().configured

    def wanted(self, choice: str, step: str) -> bool:
        """Whether a step whose config says `choice` (auto | llm | an offline backend) uses the LLM.
        Asking for the LLM without one configured is an error, not a silent fallback."""
        if choice == "llm" and not self.configured():
            raise Failure(f"pipeline.{step} is 'llm' but no LLM is configured: set OPENAI_API_KEY "
                          "(and OPENAI_BASE_URL for a local server), or choose the offline backend")
        return choice == "llm" or (choice == "auto" and self.configured())

    def client(self):
        from advisor.llm.client import LLMClient

        return LLMClient(self.settings())
