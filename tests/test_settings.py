"""One Settings owns every environment variable (advisor/settings.py): the docs are generated from
it, no other module reads the environment, the contract's names and defaults hold, and the facts
with one owner ("today", the build's file names) keep it."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

from advisor import reference
from advisor.settings import (
    EmbeddingEnvironment,
    InstitutionEnvironment,
    LLMEnvironment,
    ServeEnvironment,
    Settings,
    child_environment,
    config_path,
    fleet_root,
    read,
    warehouse_path,
)

ROOT = Path(__file__).resolve().parents[1]
CODE = ("advisor", "serving", "eval", "assets", "pipelines", "cli", "bench", "examples")
OWNER = ROOT / "advisor" / "settings.py"


@functools.cache
def _code_files() -> list[Path]:
    return [p for top in CODE if (ROOT / top).is_dir() for p in sorted((ROOT / top).rglob("*.py"))]


@functools.cache
def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


# --- the reference is the object's ---------------------------------------------------------------


def test_the_docs_tables_are_the_objects_own():
    """docs/contracts.md's variables (§1) and config fields (§2) are what the objects say now:
    after a change to a field, `python -m advisor.reference` rewrites them."""
    text = reference.CONTRACTS.read_text(encoding="utf-8")
    assert reference.render(text) == text, "docs/contracts.md is stale: run python -m advisor.reference"
    table = reference.settings_table()
    assert all(f"| `{name}` |" in table for name in Settings.variables())
    assert "| `retrieval.static_k` | integer (≥ 0) | 7 |" in reference.config_table()


def test_every_variable_is_documented_with_a_meaning():
    for name, (group, field) in Settings.variables().items():
        assert group.model_fields[field].description, name


# The user contract (docs/contracts.md §1, README): these names and defaults never change; new ones may come.
CONTRACT = {
    "ADVISOR_CONFIG": None, "ADVISOR_WAREHOUSE": "warehouse", "OPENAI_API_KEY": None, "OPENAI_BASE_URL": None,
    "ADVISOR_LLM_MODEL": "gpt-4o-mini", "ADVISOR_LLM_CONCURRENCY": 4, "ADVISOR_LLM_TIMEOUT": 60,
    "ADVISOR_LLM_MAX_RETRIES": 4, "ADVISOR_LLM_BACKOFF": 1, "ADVISOR_LLM_INVALID_RETRIES": 2,
    "ADVISOR_EMBEDDING_MODEL": "text-embedding-3-small", "ADVISOR_EMBEDDING_DIMENSIONS": None,
    "ADVISOR_WORKERS": 1, "ADVISOR_SESSION_STORE": "memory", "ADVISOR_RATE_LIMIT": 60,
    "ADVISOR_TRUSTED_PROXIES": (), "ADVISOR_SERVER": None, "ADVISOR_EVAL_WORKERS": None,
    "ADVISOR_FLEET_CONFIGS": None, "ADVISOR_FLEET_ROOT": None, "DAGSTER_HOME": None,
}


def test_the_contracts_names_and_defaults_hold():
    variables = Settings.variables()
    defaults = Settings.from_env({})
    for name, default in CONTRACT.items():
        assert name in variables, f"{name} is a user contract: keep it"
        group, field = variables[name]
        group_name = next(n for n, g in Settings.groups().items() if g is group)
        assert getattr(getattr(defaults, group_name), field) == default, name


def test_the_unset_texts_say_what_the_code_does():
    from advisor.llm.settings import LLMSettings
    from eval.parallel import MAX_WORKERS

    table = reference.settings_table()
    assert f"one per core, at most {MAX_WORKERS}" in table
    assert "| `OPENAI_BASE_URL` |" in table and f"`{LLMSettings().endpoint}` |" in table


# --- reading -------------------------------------------------------------------------------------


def test_values_are_read_when_asked_blank_is_unset_and_errors_name_the_variable(monkeypatch):
    monkeypatch.setenv("ADVISOR_WAREHOUSE", "  /srv/w  ")
    monkeypatch.setenv("ADVISOR_CONFIG", "   ")
    assert warehouse_path() == Path("/srv/w") and config_path() is None
    assert warehouse_path("given") == Path("given") and config_path("c.yaml") == "c.yaml"  # an option wins
    monkeypatch.delenv("ADVISOR_WAREHOUSE")
    monkeypatch.delenv("ADVISOR_FLEET_ROOT", raising=False)
    assert warehouse_path() == Path("warehouse") and fleet_root() == Path("warehouse") / "fleet"
    assert read(LLMEnvironment, {"ADVISOR_LLM_TIMEOUT": " 2.5 "}).timeout == 2.5
    with pytest.raises(ValueError, match="ADVISOR_LLM_CONCURRENCY"):
        read(LLMEnvironment, {"ADVISOR_LLM_CONCURRENCY": "300"})
    with pytest.raises(ValueError, match="ADVISOR_EMBEDDING_DIMENSIONS"):
        Settings.from_env({"ADVISOR_EMBEDDING_DIMENSIONS": "-3"})
    # an option given is not read from its variable, so a bad one cannot fail it
    assert read(ServeEnvironment, {"ADVISOR_RATE_LIMIT": "lots"}, skip={"rate_per_minute"}).rate_per_minute == 60
    assert read(LLMEnvironment, {"ADVISOR_LLM_MODEL": "a"}, given={"model": "b"}).model == "b"


def test_a_child_process_gets_the_environment_without_what_it_decides_itself(monkeypatch):
    monkeypatch.setenv("ADVISOR_WAREHOUSE", "/parent")
    monkeypatch.setenv("SOMETHING_ELSE", "kept")
    child = child_environment(InstitutionEnvironment, DAGSTER_HOME="/child-home")
    assert "ADVISOR_WAREHOUSE" not in child and child["SOMETHING_ELSE"] == "kept"
    assert child["DAGSTER_HOME"] == "/child-home"


# --- no other reader ------------------------------------------------------------------------------

# The few legitimate uses of the process environment outside advisor/settings.py, each a write (or
# a library's own variable), never a reading of one of ours: (file, the expression).
ALLOWED = {
    # the e5 encoder's OpenMP threads sleep when idle, unless the user chose otherwise
    ("advisor/index/embed_e5.py", 'os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")'),
    # Dagster and the processes `advisor materialize` starts find the instance it prepared
    ("cli/dagster_home.py", 'os.environ[variable_name(DagsterEnvironment, "home")]'),
    # uvicorn's worker processes inherit what the parent hands them
    ("serving/api/worker.py", "os.environ[ENVIRONMENT]"),
    # the encoder bench sets and reports OpenMP's thread count, a library's variable
    ("bench/encoder.py", 'os.environ["OMP_NUM_THREADS"]'),
    ("bench/encoder.py", 'os.environ.get("OMP_NUM_THREADS", f"default ({os.cpu_count()})")'),
}


def _environment_uses(path: Path) -> list[str]:
    """Every use of os.environ / os.getenv / os.putenv in a file, as the expression that uses it."""
    source = _text(path)
    if not re.search(r"\b(environ|getenv|putenv|unsetenv)\b", source):
        return []
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    uses = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "os":
            uses += [f"from os import {a.name}" for a in node.names if a.name in ("environ", "getenv", "putenv")]
        if not (isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "putenv", "unsetenv")
                and isinstance(node.value, ast.Name) and node.value.id == "os"):
            continue
        use = parents.get(node)
        if isinstance(use, ast.Attribute):  # os.environ.get(...): the call
            use = parents.get(use, use)
        uses.append(ast.get_source_segment(source, use if isinstance(use, (ast.Call, ast.Subscript)) else node))
    return uses


def test_no_module_but_the_settings_reads_the_environment():
    found = {(str(p.relative_to(ROOT)), use) for p in _code_files() if p != OWNER for use in _environment_uses(p)}
    assert found - ALLOWED == set(), "read the environment through advisor/settings.py (a Settings field)"
    assert ALLOWED - found == set(), "an allowed use is gone: drop it from ALLOWED"


def test_every_variable_the_code_names_is_a_setting():
    """A name like ADVISOR_X or OPENAI_X anywhere in the code (a help text, a message, a drop list)
    is one Settings knows: a new variable starts there, with its default and meaning."""
    known = set(Settings.variables())
    named = {(str(p.relative_to(ROOT)), name) for p in _code_files()
             for name in re.findall(r"\b((?:ADVISOR|OPENAI)_[A-Z][A-Z_]*[A-Z])\b", _text(p))}
    assert {(path, name) for path, name in named if name not in known} == set()


# --- Dagster takes them as EnvVars ----------------------------------------------------------------


def test_the_resources_take_environment_values_as_envvars_and_never_show_the_key(monkeypatch, tmp_path):
    from dagster import EnvVar
    from dagster._core.remote_representation.external_data import RepositorySnap
    from dagster._serdes import serialize_value

    from assets.resources import LLMResource, WarehouseResource
    from pipelines.definitions import build_definitions

    # a field per LLM variable, and per variable of the `openai` embedder on the same endpoint
    assert set(LLMResource.model_fields) == set(LLMEnvironment.model_fields) | {
        f"embedding_{field}" for field in EmbeddingEnvironment.model_fields}
    for name in ("OPENAI_BASE_URL", "ADVISOR_CONFIG", "ADVISOR_FLEET_CONFIGS", "ADVISOR_EMBEDDING_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-42")
    monkeypatch.setenv("ADVISOR_EMBEDDING_DIMENSIONS", "256")
    monkeypatch.setenv("ADVISOR_WAREHOUSE", str(tmp_path))
    defs = build_definitions()
    llm, warehouse = defs.resources["llm"], defs.resources["warehouse"]
    assert isinstance(llm.api_key, EnvVar) and llm.api_key.env_var_name == "OPENAI_API_KEY" and llm.base_url is None
    assert isinstance(warehouse.path, EnvVar) and warehouse.path.env_var_name == "ADVISOR_WAREHOUSE"
    assert isinstance(llm.embedding_dimensions, EnvVar) and llm.embedding_model is None
    assert llm.embedding_dimensions.env_var_name == "ADVISOR_EMBEDDING_DIMENSIONS"
    assert LLMResource(embedding_model="m", embedding_dimensions="64").embedding() == ("m", 64)
    assert LLMResource().embedding() == ("text-embedding-3-small", 256)  # the variable, as the fields are unset
    with pytest.raises(ValueError, match="ADVISOR_EMBEDDING_DIMENSIONS"):
        LLMResource(embedding_dimensions="-3").embedding()
    assert build_definitions(warehouse="given").resources["warehouse"].path == "given"  # an argument wins
    snapshot = serialize_value(RepositorySnap.from_def(defs.get_repository_def()))  # what the UI is sent
    assert "OPENAI_API_KEY" in snapshot and "sk-secret-42" not in snapshot
    settings = LLMResource(api_key="sk-x", model=" gpt-4o ").settings()  # resolved fields, read as the variables are
    assert settings.configured and settings.model == "gpt-4o" and "sk-x" not in repr(settings)
    assert WarehouseResource.from_environment("w").path == "w"


# --- facts with one owner -------------------------------------------------------------------------


def test_today_is_read_in_one_place():
    """advisor/clock.py says what day it is; a `date.today()` elsewhere would be a second clock
    (the institution's day follows its timezone, InstitutionConfig.today)."""
    clock = ROOT / "advisor" / "clock.py"
    pattern = re.compile(r"\bdate\.today\(|\.now\(ZoneInfo\(|\.now\(\)\.date\(")
    found = [f"{p.relative_to(ROOT)}:{n}" for p in _code_files() if p != clock
             for n, line in enumerate(_text(p).splitlines(), 1) if pattern.search(line)]
    assert found == []


def test_build_file_names_are_the_layouts():
    """A path built with one of an index build's file names (`warehouse / "builds"`) outside
    advisor/index/layout.py would be a second owner: take the name from the layout."""
    from advisor.faq import store
    from advisor.index import layout

    names = {value for key, value in vars(layout).items() if key.isupper() and isinstance(value, str)}
    names |= {store.ENTRIES_FILE, store.VECTORS_FILE}
    owners = {ROOT / "advisor" / "index" / "layout.py", ROOT / "advisor" / "faq" / "store.py"}
    quoted = re.compile("|".join(re.escape(repr(name)[1:-1]) for name in names))
    found = []
    for path in _code_files():
        if path in owners or not quoted.search(_text(path)):
            continue
        for node in ast.walk(ast.parse(_text(path))):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
                found += [f"{path.relative_to(ROOT)}:{node.lineno}: {side.value!r}" for side in (node.left, node.right)
                          if isinstance(side, ast.Constant) and side.value in names]
    assert found == []
