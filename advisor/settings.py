"""Every environment variable the project reads, with its default and its meaning: `Settings`.

`Settings` is a tree of small groups, one per thing configured (the institution and its warehouse,
the LLM endpoint, the embedder, `advisor serve`, ...). Each field names its variable (its alias), its
default and its description, so the object documents itself: docs/contracts.md §1's table is
generated from it (advisor/reference.py), and tests/test_settings.py fails when the two differ or
when any other module reads the process environment itself.

Values are read when asked (`read(Group)`), never at import: a test or an operator may change the
environment between two calls. Whitespace around a value is ignored and a blank value counts as
unset; a malformed value is a ValueError that names the variable. A group is read whole, so a bad
value fails the code that needs that group and nothing else.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PositiveInt,
    SecretStr,
    ValidationError,
    field_validator,
)


def variable(name: str, default: Any, description: str, *, unset: str | None = None, **constraints: Any) -> Any:
    """A field read from the environment variable `name`. `unset`: what an unset variable means, in
    the docs, when the default value alone would not say it (None → "the bundled demo college")."""
    extra = {"unset": unset} if unset else None
    return Field(default, alias=name, description=description, json_schema_extra=extra, **constraints)


class EnvironmentGroup(BaseModel):
    """A group of variables; constructed by field name in code, by variable name from the environment."""

    model_config = ConfigDict(frozen=True, validate_by_name=True, validate_by_alias=True)


def _comma_separated(value: Any) -> Any:
    return tuple(part.strip() for part in value.split(",") if part.strip()) if isinstance(value, str) else value


class InstitutionEnvironment(EnvironmentGroup):
    """Which institution, and where its data lives. A command's --config / --warehouse wins over these."""

    config: str | None = variable("ADVISOR_CONFIG", None, "the institution config file (docs/contracts.md §2)",
                                  unset="the bundled demo college")
    warehouse: str = variable("ADVISOR_WAREHOUSE", "warehouse",
                              "the warehouse folder (lakehouse, raw bytes, builds, reports, run history); "
                              "relative to the working directory")


DEFAULT_BASE_URL = "https://api.openai.com/v1"  # the endpoint of a key without a base URL


class LLMEnvironment(EnvironmentGroup):
    """The OpenAI-compatible endpoint (advisor/llm/settings.py: LLMSettings adds what it is not read
    from the environment). Configured when a key or a base URL is set."""

    api_key: SecretStr | None = variable(  # SecretStr: never printed in logs, reprs or Dagster's metadata
        "OPENAI_API_KEY", None, "the LLM endpoint's key (a local server may need none)", unset="unset: offline")
    base_url: str | None = variable("OPENAI_BASE_URL", None,
                                    "an OpenAI-compatible endpoint, e.g. `http://127.0.0.1:11434/v1`",
                                    unset=f"`{DEFAULT_BASE_URL}`")
    model: str = variable("ADVISOR_LLM_MODEL", "gpt-4o-mini", "chat model")
    concurrency: int = variable("ADVISOR_LLM_CONCURRENCY", 4, "requests in flight (1–256)", ge=1, le=256)
    timeout: float = variable("ADVISOR_LLM_TIMEOUT", 60.0, "seconds per request", gt=0)
    max_retries: int = variable("ADVISOR_LLM_MAX_RETRIES", 4, "retries on 408, 409, 429, 5xx, timeouts and "
                                "connection errors, with doubling backoff", ge=0, le=20)
    backoff: float = variable("ADVISOR_LLM_BACKOFF", 1.0, "first retry wait, seconds; doubles each retry", ge=0)
    invalid_output_retries: int = variable("ADVISOR_LLM_INVALID_RETRIES", 2,
                                           "retries of an answer that is not valid JSON for the schema", ge=0, le=10)


class EmbeddingEnvironment(EnvironmentGroup):
    """The `openai` embedder (advisor/index/embed_openai.py); its endpoint is the LLM's."""

    model: str = variable("ADVISOR_EMBEDDING_MODEL", "text-embedding-3-small", "model of the `openai` embedder")
    dimensions: PositiveInt | None = variable("ADVISOR_EMBEDDING_DIMENSIONS", None,
                                              "shortened vectors (text-embedding-3-*), a positive integer",
                                              unset="the model's own")


class ServeEnvironment(EnvironmentGroup):
    """`advisor serve`'s knobs an operator sets per deployment; each of its options wins over its
    variable (serving/api/settings.py: ServingSettings holds these with the knobs no variable sets)."""

    rate_per_minute: int = variable("ADVISOR_RATE_LIMIT", 60,
                                    "requests per minute per client address to /v1/* (§4); 0 turns the limit off",
                                    ge=0)
    trusted_proxies: Annotated[tuple[str, ...], BeforeValidator(_comma_separated)] = variable(
        "ADVISOR_TRUSTED_PROXIES", (), "reverse proxies (addresses or networks, comma-separated) whose "
        "`X-Forwarded-For` / `X-Forwarded-Proto` are believed (§4)", unset="none")
    session_store: str = variable("ADVISOR_SESSION_STORE", "memory",
                                  "where `advisor serve` keeps sessions: `memory`, or a Redis URL "
                                  "`redis://host:port/db` shared by every worker and replica")
    workers: int = variable("ADVISOR_WORKERS", 1, "`advisor serve`'s processes (§4, sessions across processes)")

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, proxies: tuple[str, ...]) -> tuple[str, ...]:
        for proxy in proxies:
            try:
                ipaddress.ip_network(proxy, strict=False)
            except ValueError:
                raise ValueError(f"{proxy!r} is not an IP address or network") from None
        return proxies


class AskEnvironment(EnvironmentGroup):
    """`advisor ask`."""

    server: str | None = variable("ADVISOR_SERVER", None, "extension: the running `advisor serve` (http://host:port) "
                                  "that `advisor ask` asks instead of starting the engine itself",
                                  unset="unset: the engine starts in the command")


class EvalEnvironment(EnvironmentGroup):
    """The evaluation (eval/parallel.py)."""

    workers: int | None = variable("ADVISOR_EVAL_WORKERS", None,
                                   "processes an offline evaluation runs in (a whole number)",
                                   unset="one per core, at most 4")


class FleetEnvironment(EnvironmentGroup):
    """Many institutions in one code location (pipelines/fleet.py)."""

    configs: str | None = variable("ADVISOR_FLEET_CONFIGS", None,
                                   "extension: a folder of institution configs (`<key>.yaml`, §2); when set, the "
                                   "code location `pipelines.definitions` also holds the fleet (one partition of "
                                   "`institution_build` per file; README, \"Many institutions\")",
                                   unset="unset: one institution")
    root: str | None = variable("ADVISOR_FLEET_ROOT", None,
                                "extension: the folder holding one warehouse per institution of the fleet, "
                                "`<root>/<key>/`; also `advisor fleet compare`'s default `--root`",
                                unset="`<warehouse>/fleet`")


class DagsterEnvironment(EnvironmentGroup):
    """The Dagster instance (cli/dagster_home.py); Dagster itself reads it too."""

    home: str | None = variable("DAGSTER_HOME", None,
                                "the Dagster instance folder; one set by the user is used as it is (extension: a "
                                "folder holding `deploy/dagster.postgres.yaml` as `dagster.yaml` is the production "
                                "instance, README)", unset="`<warehouse>/dagster/`, written by `advisor materialize`")


class WorkerEnvironment(EnvironmentGroup):
    """Set by the project for its own child processes; not an operator's knob."""

    serve_worker: str | None = variable("ADVISOR_SERVE_WORKER", None,
                                        "internal: what `advisor serve --workers N` hands each worker process "
                                        "(serving/api/worker.py); never set it yourself", unset="unset")


class Settings(BaseModel):
    """Every environment variable the project reads, by group. `Settings.from_env()` reads them all
    (the docs and the tests do); code reads the one group it needs with `read`."""

    model_config = ConfigDict(frozen=True)

    institution: InstitutionEnvironment
    llm: LLMEnvironment
    embedding: EmbeddingEnvironment
    serve: ServeEnvironment
    ask: AskEnvironment
    evaluation: EvalEnvironment
    fleet: FleetEnvironment
    dagster: DagsterEnvironment
    worker: WorkerEnvironment

    @classmethod
    def groups(cls) -> dict[str, type[EnvironmentGroup]]:
        return {name: field.annotation for name, field in cls.model_fields.items()}

    @classmethod
    def variables(cls) -> dict[str, tuple[type[EnvironmentGroup], str]]:
        """Every variable's name -> (its group, its field), in the documented order."""
        return {field.alias: (group, name) for group in cls.groups().values()
                for name, field in group.model_fields.items() if field.alias}

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> "Settings":
        return cls(**{name: read(group, environ) for name, group in cls.groups().items()})


Group = TypeVar("Group", bound=EnvironmentGroup)


def variable_name(group: type[EnvironmentGroup], field: str) -> str:
    """The environment variable behind `group.field` (for a child process's environment)."""
    return group.model_fields[field].alias


def child_environment(*without: type[EnvironmentGroup], **setting: str) -> dict[str, str]:
    """The environment for a child process: this process's, without the variables of the groups
    `without` (the child decides those itself), with `setting` (variable name -> value) added."""
    dropped = {field.alias for group in without for field in group.model_fields.values() if field.alias}
    return {**{k: v for k, v in os.environ.items() if k not in dropped}, **setting}


def _environ(given: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if given is None else given  # tests pass their own mapping


def set_variables(group: type[EnvironmentGroup], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """field -> variable name, for the group's variables that are set (not blank) now."""
    environ = _environ(environ)
    return {name: field.alias for name, field in group.model_fields.items()
            if field.alias and environ.get(field.alias, "").strip()}


def read(group: type[Group], environ: Mapping[str, str] | None = None, *, skip: Collection[str] = (),
         given: Mapping[str, str] | None = None) -> Group:
    """`group` from the environment (`environ`, else the process's): blank counts as unset; fields
    in `skip` (a command-line option already gave them) are not read; `given` (field -> raw text, as
    a Dagster resource holds them) wins over the environment. ValueError names the variable."""
    environ = _environ(environ)
    given = given or {}
    raw = {name: environ[variable] for name, variable in set_variables(group, environ).items()}
    values = {group.model_fields[name].alias: text.strip() for name, text in {**raw, **given}.items()
              if name not in skip and text.strip()}
    try:
        return group.model_validate(values)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ValueError(f"invalid settings in the environment: {problems}") from None


# What the commands ask: given (an option) wins, then the variable, then the default.

def config_path(given: str | os.PathLike | None = None) -> str | os.PathLike | None:
    """The config file to load: `given`, else $ADVISOR_CONFIG; None means the bundled demo college."""
    return given or read(InstitutionEnvironment).config


def warehouse_path(given: str | os.PathLike | None = None) -> Path:
    """The warehouse folder: `given`, else $ADVISOR_WAREHOUSE, else ./warehouse (not resolved)."""
    return Path(given or read(InstitutionEnvironment).warehouse)


def fleet_root(given: str | os.PathLike | None = None) -> Path:
    """The fleet's root (one warehouse per institution): `given`, else $ADVISOR_FLEET_ROOT, else
    `<warehouse>/fleet` (not resolved)."""
    return Path(given or read(FleetEnvironment).root or warehouse_path() / "fleet")
