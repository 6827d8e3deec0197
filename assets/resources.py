"""Resources of the code location: the institution's config, the warehouse (lakehouse + files) and
the LLM endpoint. What comes from the environment is passed as Dagster's `EnvVar` (`from_environment`):
resolved when a run starts, and the UI names the variable instead of showing its value (the key's
included). The variables themselves, their defaults and meanings are advisor/settings.py's."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
from dagster import ConfigurableResource, EnvVar, Failure
from dagster_duckdb import DuckDBResource

from advisor.config import InstitutionConfig, load_config
from advisor.ingest.raw_store import RawStore
from advisor.lakehouse import LAKEHOUSE_FILE, ensure_schema
from advisor.settings import (
    EmbeddingEnvironment,
    EnvironmentGroup,
    InstitutionEnvironment,
    LLMEnvironment,
    read,
    set_variables,
)


def _given_or_environment(given: str | None, group: type[EnvironmentGroup], field: str) -> str:
    """`given` (an argument), else the field's variable as an EnvVar when it is set, else its default."""
    if given:
        return str(given)
    variable = set_variables(group).get(field)
    return EnvVar(variable) if variable else str(group.model_fields[field].default or "")


class InstitutionResource(ConfigurableResource):
    """The institution config file; empty means $ADVISOR_CONFIG, else the bundled demo college."""

    config_path: str = ""

    @classmethod
    def from_environment(cls, config_path: str | None = None) -> "InstitutionResource":
        return cls(config_path=_given_or_environment(config_path, InstitutionEnvironment, "config"))

    def load(self) -> InstitutionConfig:
        return load_config(self.config_path or None)


class WarehouseResource(ConfigurableResource):
    """The warehouse folder: the DuckDB lakehouse file plus content-addressed raw bytes and
    generated files. Connections go through dagster-duckdb, which waits out a lock held by
    another process (a researcher's DuckDB shell) instead of failing at once."""

    path: str

    @classmethod
    def from_environment(cls, path: str | None = None) -> "WarehouseResource":
        return cls(path=_given_or_environment(path, InstitutionEnvironment, "warehouse"))

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


EMBEDDING_PREFIX = "embedding_"


class LLMResource(ConfigurableResource):
    """The OpenAI-compatible endpoint, resolved when a run starts. A field is one of the LLM
    variables (LLMEnvironment: OPENAI_API_KEY, OPENAI_BASE_URL, ADVISOR_LLM_MODEL ...) as its raw
    text; None reads the variable from the run's environment, so `LLMResource()` is the environment's
    endpoint too. Unconfigured is a normal state: the offline backends run and nothing pretends to be
    an LLM result."""

    api_key: str | None = None
    base_url: str | None = None
    model: str | None = None
    concurrency: str | None = None
    timeout: str | None = None
    max_retries: str | None = None
    backoff: str | None = None
    invalid_output_retries: str | None = None
    # the `openai` embedder's model and dimensions (EmbeddingEnvironment: ADVISOR_EMBEDDING_*), on the
    # same endpoint: `embedding_` and the variable's field
    embedding_model: str | None = None
    embedding_dimensions: str | None = None

    @classmethod
    def from_environment(cls) -> "LLMResource":
        """The variables set now, as EnvVars (the code location's resource: the UI shows their names)."""
        fields = {field: EnvVar(variable) for field, variable in set_variables(LLMEnvironment).items()}
        fields.update({EMBEDDING_PREFIX + field: EnvVar(variable)
                       for field, variable in set_variables(EmbeddingEnvironment).items()})
        return cls(**fields)

    def settings(self):
        from advisor.llm.settings import LLMSettings

        given = {field: getattr(self, field) for field in LLMEnvironment.model_fields if getattr(self, field) is not None}
        return read(LLMSettings, given=given)  # ValueError names the variable

    def embedding(self) -> tuple[str, int | None]:
        """The `openai` embedder's (model, dimensions): these fields, else the variables, else the defaults."""
        given = {field: value for field in EmbeddingEnvironment.model_fields
                 if (value := getattr(self, EMBEDDING_PREFIX + field)) is not None}
        embedding = read(EmbeddingEnvironment, given=given)  # ValueError names the variable
        return embedding.model, embedding.dimensions

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
