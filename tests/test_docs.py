"""The project's own docs (docs/) stay true to the tree: every lakehouse table and view, with its
columns, is documented in docs/lakehouse.md and nothing gone is; the SQL there runs on the
schema; every repository path, module and link the docs name exists; and every reference to the
docs from the code names a page and a section that exist."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
LAKEHOUSE_DOC = DOCS / "lakehouse.md"
PACKAGES = ("advisor", "serving", "eval", "assets", "pipelines", "cli", "examples")
TOP_DIRS = (*PACKAGES, "bench", "tests", "docs")
TOP_FILES = ("README.md", "Makefile", "pyproject.toml", "dagster.yaml")
# Column groups docs/lakehouse.md defines once ("Conventions", "Evaluation") and then names.
COLUMN_GROUPS = {
    "the validity columns": ("valid_from", "valid_from_run_id", "valid_to", "valid_to_run_id"),
    "the lineage columns": ("build_id", "annotator", "embedder", "code_version", "config_hash", "benchmark",
                            "benchmark_hash"),
}
FILE_NAME = re.compile(r"\.(?:json|jsonl|md|py|yaml|yml|npy|npz|parquet|usearch|html|js|css|duckdb)$")
SECTION = re.compile(r"^### `(?P<name>\w+)`(?P<view> \(view\))?\s*$", re.M)


def _doc_pages() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


def _without_fences(text: str) -> str:
    return re.sub(r"```.*?```", "", text, flags=re.S)


# ----------------------------------------------------------------------------- the lakehouse


@pytest.fixture(scope="module")
def schema():
    """The whole lakehouse schema on an empty in-memory database: the pipeline's tables, history
    and views, then the evaluation's tables."""
    from advisor.lakehouse import ensure_schema
    from eval.store import ensure_schema as ensure_eval_schema

    con = duckdb.connect()
    ensure_schema(con)
    ensure_eval_schema(con)
    yield con
    con.close()


def _relations(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[str, list[str]]]:
    """name -> (BASE TABLE | VIEW, its columns in order)."""
    kinds = dict(con.execute("SELECT table_name, table_type FROM information_schema.tables "
                             "WHERE table_schema = 'main'").fetchall())
    columns: dict[str, list[str]] = {}
    for name, column in con.execute("SELECT table_name, column_name FROM information_schema.columns "
                                    "WHERE table_schema = 'main' ORDER BY table_name, ordinal_position").fetchall():
        columns.setdefault(name, []).append(column)
    return {name: (kind, columns.get(name, [])) for name, kind in kinds.items()}


def _documented() -> dict[str, tuple[bool, str]]:
    """name -> (documented as a view, the text of its section)."""
    text = LAKEHOUSE_DOC.read_text(encoding="utf-8")
    found = list(SECTION.finditer(text))
    sections = {}
    for i, match in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(text)
        body = text[match.end():end].split("\n## ", 1)[0]
        sections[match["name"]] = (bool(match["view"]), body)
    return sections


def test_the_schema_has_tables_and_views(schema):
    relations = _relations(schema)
    assert {"raw_documents", "chunks", "eval_runs", "materializations"} <= set(relations)
    assert any(kind == "VIEW" for kind, _ in relations.values())


def test_every_table_and_view_is_documented(schema):
    missing = sorted(set(_relations(schema)) - set(_documented()))
    assert not missing, f"add a '### `name`' section to docs/lakehouse.md for: {', '.join(missing)}"


def test_no_table_or_view_is_documented_that_the_schema_lacks(schema):
    gone = sorted(set(_documented()) - set(_relations(schema)))
    assert not gone, f"docs/lakehouse.md documents tables or views the schema does not create: {', '.join(gone)}"


def test_views_are_documented_as_views(schema):
    relations, documented = _relations(schema), _documented()
    wrong = sorted(name for name, (is_view, _) in documented.items()
                   if name in relations and is_view != (relations[name][0] == "VIEW"))
    assert not wrong, f"mark views, and only views, with ' (view)' in docs/lakehouse.md: {', '.join(wrong)}"


def test_every_column_is_documented(schema):
    relations, documented = _relations(schema), _documented()
    text = LAKEHOUSE_DOC.read_text(encoding="utf-8")
    for group, columns in COLUMN_GROUPS.items():
        assert all(f"`{c}`" in text for c in columns), f"docs/lakehouse.md must define {group}"
    problems = []
    for name, (_, columns) in sorted(relations.items()):
        if name not in documented:
            continue  # reported by test_every_table_and_view_is_documented
        body = documented[name][1]
        same_as = re.search(r"[Ss]ame columns as `(\w+)`", body)
        if same_as:
            expected = relations.get(same_as[1], ("", []))[1]
            if columns != expected:
                problems.append(f"{name}: not the same columns as {same_as[1]}")
            continue
        named = set(re.findall(r"`(\w+)`", body))
        for group, grouped in COLUMN_GROUPS.items():
            if group in " ".join(body.split()):
                named |= set(grouped)
        undocumented = [c for c in columns if c not in named]
        if undocumented:
            problems.append(f"{name}: {', '.join(undocumented)}")
    assert not problems, "columns missing from docs/lakehouse.md:\n" + "\n".join(problems)


def _sql_statements(text: str) -> list[str]:
    statements = []
    for block in re.findall(r"```sql\n(.*?)```", text, re.S):
        for statement in block.split(";"):
            lines = [line for line in statement.strip().splitlines() if line.strip()]
            if lines and not all(line.lstrip().startswith("--") for line in lines):
                statements.append(statement.strip())
    return statements


def test_the_docs_sql_runs_on_the_schema(schema):
    statements = [(page.name, s) for page in _doc_pages() for s in _sql_statements(page.read_text(encoding="utf-8"))]
    assert len(statements) >= 5
    for page, statement in statements:
        try:
            schema.execute(statement).fetchall()
        except duckdb.Error as exc:
            pytest.fail(f"docs/{page}: a query does not run on the lakehouse schema: {exc}\n{statement}")


def test_every_documented_query_is_bounded_and_says_what_it_returns_on_the_demo():
    # a reader pastes a query into DuckDB: it must not print half a million rows, and a query that
    # returns nothing on the demo must say so, and why, instead of looking broken
    pages = [*_doc_pages(), ROOT / "README.md"]
    statements = [(page.relative_to(ROOT), s) for page in pages for s in _sql_statements(page.read_text(encoding="utf-8"))]
    unbounded = [f"{page}: {s.splitlines()[-1]}" for page, s in statements
                 if not re.search(r"\bLIMIT\s+\d+\s*$", s, re.I)]
    unsaid = [f"{page}: {s.splitlines()[0]}" for page, s in statements
              if not re.search(r"^--.*\bon the demo\b", s, re.I | re.M)]
    assert len({page for page, _ in statements}) >= 2  # the README's queries are read too
    assert not unbounded, "end each documented query with LIMIT n:\n" + "\n".join(unbounded)
    assert not unsaid, "say in a comment what each query returns on the demo:\n" + "\n".join(unsaid)


# ----------------------------------------------------------------------------- names in the docs


def _module_file(parts: list[str]) -> Path | None:
    path = ROOT.joinpath(*parts)
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    return None


def _missing_reference(token: str) -> str | None:
    """Why an inline-code token of the docs does not name something in the repository, or None
    (also for tokens that are not repository names)."""
    token = token.strip()
    if token in TOP_FILES:
        return None if (ROOT / token).exists() else "no such file"
    if re.fullmatch(r"[\w.\-/*]+", token) and "/" in token and token.split("/", 1)[0] in TOP_DIRS:
        path = token.rstrip("/")
        if "*" in path:
            return None if list(ROOT.glob(path)) else "no file matches"
        return None if (ROOT / path).exists() else "no such file or folder"
    if re.fullmatch(r"\w+\.py", token):
        found = [p for top in TOP_DIRS for p in (ROOT / top).rglob(token)]
        return None if found else "no module of that name"
    if re.fullmatch(rf"(?:{'|'.join(PACKAGES)})(?:\.\w+)+", token) and not FILE_NAME.search(token):
        parts = token.split(".")
        for cut in range(len(parts), 0, -1):
            module = _module_file(parts[:cut])
            if module is None:
                continue
            rest = parts[cut:]
            if not rest:
                return None
            if re.search(rf"\b{re.escape(rest[0])}\b", module.read_text(encoding="utf-8")):
                return None
            return f"{module.relative_to(ROOT)} has no {rest[0]!r}"
        return "no such module"
    return None


def test_every_repository_name_in_the_docs_exists():
    problems = []
    for page in _doc_pages():
        text = _without_fences(page.read_text(encoding="utf-8"))
        for token in sorted(set(re.findall(r"`([^`\n]+)`", text))):
            why = _missing_reference(token)
            if why:
                problems.append(f"docs/{page.name}: `{token}`: {why}")
    assert not problems, "\n".join(problems)


def test_every_class_member_the_docs_name_exists():
    """`Class.member` in the pages about the code (tech-notes.md names the dependencies' own)."""
    sources = [p for top in PACKAGES for p in (ROOT / top).rglob("*.py")]
    problems = []
    for page in _doc_pages():
        if page.name == "tech-notes.md":
            continue
        text = _without_fences(page.read_text(encoding="utf-8"))
        for name, member in sorted(set(re.findall(r"`([A-Z][A-Za-z0-9]*)\.([a-z_]\w*)`", text))):
            homes = [s for s in sources if re.search(rf"^class {name}\b", s.read_text(encoding="utf-8"), re.M)]
            if not homes:
                problems.append(f"docs/{page.name}: `{name}.{member}`: no class {name}")
            elif not any(re.search(rf"\b{member}\b", s.read_text(encoding="utf-8")) for s in homes):
                problems.append(f"docs/{page.name}: `{name}.{member}`: {name} has no {member!r}")
    assert not problems, "\n".join(problems)


def test_every_relative_link_in_the_docs_exists():
    problems = []
    for page in [*_doc_pages(), ROOT / "README.md"]:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            if not (page.parent / target.split("#", 1)[0]).exists():
                problems.append(f"{page.relative_to(ROOT)}: link to {target}")
    assert not problems, "\n".join(problems)


def test_the_package_tree_matches_the_repository():
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    tree = re.search(r"## Packages\n.*?```\n(.*?)```", text, re.S)
    assert tree, "docs/architecture.md has no package tree under '## Packages'"
    stack: list[str] = []
    problems, entries = [], 0
    for line in tree[1].splitlines():
        match = re.match(r"^( *)([\w.-]+(?:/|\.py))(?:\s|$)", line)
        if not match:
            continue  # a description continued on the next line
        level = len(match[1]) // 2
        stack = stack[:level] + [match[2].rstrip("/")]
        entries += 1
        if not ROOT.joinpath(*stack).exists():
            problems.append("/".join(stack))
    assert entries >= 10
    assert not problems, f"docs/architecture.md's package tree names what does not exist: {', '.join(problems)}"


def test_the_docs_index_lists_every_page():
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    unlisted = [p.name for p in _doc_pages() if p.name != "README.md" and f"({p.name})" not in index]
    assert not unlisted, f"docs/README.md does not link to: {', '.join(unlisted)}"


# ----------------------------------------------------------------------------- references to the docs

CITING = (*PACKAGES, "bench", "tests")
DOC_REFERENCE = re.compile(r"docs/([\w-]+\.md)(?: (§[^\s,;:)\"']+(?: online steps? \d+)?))?")


def _citing_files() -> list[Path]:
    files = [ROOT / "README.md"]
    for top in CITING:
        files += sorted((ROOT / top).rglob("*.py"))
    return [f for f in files if f.name != Path(__file__).name]


def _section_exists(page: str, section: str, text: str) -> bool:
    if page == "contracts.md":
        number = re.fullmatch(r"§(\d+)", section)
        return bool(number) and re.search(rf"^## {number[1]}\. ", text, re.M) is not None
    label = re.sub(r"[.,]$", "", section)
    label = re.sub(r"-\d+$", "", label)  # "§A online steps 3-4": the first step names the place
    label = label.replace("steps", "step")
    return label in text


def test_references_from_the_code_name_existing_pages_and_sections():
    problems = []
    for path in _citing_files():
        source = path.read_text(encoding="utf-8")
        for match in DOC_REFERENCE.finditer(source):
            page, section = match[1], match[2]
            where = f"{path.relative_to(ROOT)}: {match[0]}"
            if not (DOCS / page).is_file():
                problems.append(f"{where}: no docs/{page}")
            elif section and not _section_exists(page, section, (DOCS / page).read_text(encoding="utf-8")):
                problems.append(f"{where}: no such section in docs/{page}")
    assert not problems, "\n".join(problems)


def test_no_reference_to_documents_outside_the_repository():
    """Specs and notes that only the original authors had are cited as docs/ pages instead; the
    real-data tests may name ../shared/realdata, which they skip without."""
    stale = re.compile(r"(?<![\w/])(?:method\.md|interfaces\.md|tech[- ]notes(?!\.md))|shared/spec|shared/notes")
    problems = []
    for path in _citing_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if stale.search(re.sub(r"\[[^\]]*\]\(docs/[^)]*\)", "", line)):  # a link into docs/ is no stale name
                problems.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not problems, "\n".join(problems)


# ----------------------------------------------------------------------------- examples in the contracts


def _contracts_section(number: int) -> str:
    text = (DOCS / "contracts.md").read_text(encoding="utf-8")
    start = re.search(rf"^## {number}\. ", text, re.M)
    assert start, f"docs/contracts.md has no section {number}"
    rest = text[start.end():]
    end = re.search(r"^## \d+\. ", rest, re.M)
    return rest[:end.start()] if end else rest


def test_the_config_example_in_the_contracts_is_valid():
    import yaml

    from advisor.config import parse_config

    example = re.search(r"```yaml\n(.*?)```", _contracts_section(2), re.S)
    assert example, "docs/contracts.md §2 has no YAML example"
    config = parse_config(yaml.safe_load(example[1]), "docs/contracts.md §2")
    assert config.sources and config.profile


def test_the_benchmark_example_in_the_contracts_is_valid(tmp_path):
    import json

    from eval.benchmark.file import read_benchmark

    example = re.search(r"```json\n(.*?)```", _contracts_section(3), re.S)
    assert example, "docs/contracts.md §3 has no JSON example"
    path = tmp_path / "example.jsonl"
    path.write_text(json.dumps(json.loads(example[1]), ensure_ascii=False) + "\n", encoding="utf-8")
    (instance,) = read_benchmark(path)
    assert instance["gold_sources"]
