"""Facts the library owns for every layer above it, each with a test that a copy has not crept back:
the answer tiers (advisor/tiers.py) and where the warehouse keeps the synthesized benchmark
(advisor/index/layout.py, benchmark_path)."""

from __future__ import annotations

import ast
import functools
import typing
from pathlib import Path

from advisor.index import layout
from advisor.tiers import TIERS

ROOT = Path(__file__).resolve().parent.parent
CODE = ("advisor", "serving", "eval", "bench", "cli", "assets", "pipelines", "examples")


def _code_files() -> list[Path]:
    return [p for top in CODE for p in sorted((ROOT / top).rglob("*.py"))]


@functools.cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"


# ------------------------------------------------------------------------------- the answer tiers

def _lists_the_tiers(node: ast.AST) -> bool:
    """A tuple, list or set of strings holding every tier name: a copy of the list."""
    if not isinstance(node, ast.Tuple | ast.List | ast.Set):
        return False
    strings = {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set(TIERS) <= strings


def test_the_tiers_are_listed_once():
    """The API's response model spells the names as a Literal (a static type must, for the type
    checker and the OpenAPI schema): it is held to the owner's list here instead."""
    from serving.api.models import AnswerReply

    owner = ROOT / "advisor" / "tiers.py"
    model = ROOT / "serving" / "api" / "models.py"
    found = [_where(path, node) for path in _code_files() if path not in (owner, model)
             for node in ast.walk(_tree(path)) if _lists_the_tiers(node)]
    assert found == []
    literal = next(arg for arg in typing.get_args(AnswerReply.model_fields["tier"].annotation) if arg is not type(None))
    assert typing.get_args(literal) == TIERS


def test_every_tier_a_reply_is_given_is_one_of_the_tiers_and_each_is_given():
    """`tier="..."` wherever a reply or a system's answer is made (serving, eval)."""
    given: dict[str, list[str]] = {}
    for path in _code_files():
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.keyword) and node.arg == "tier" and isinstance(node.value, ast.Constant):
                given.setdefault(node.value.value, []).append(_where(path, node.value))
    assert set(given) == set(TIERS), given


def test_the_layers_above_take_the_owners_tiers():
    from advisor.usage import coverage
    from eval.systems import registry
    from serving.dialogue import types

    assert types.TIERS is registry.TIERS is coverage.TIERS is TIERS


# ------------------------------------------------------------------------------- the benchmark's path

def _docstrings(tree: ast.Module) -> set[int]:
    owners = [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef))]
    return {id(body[0].value) for body in (o.body for o in owners)
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)}


def test_the_benchmark_file_is_named_by_the_layout_only():
    """A string that names the benchmark file (prose in a docstring aside) outside the layout is a
    second owner: take `benchmark_path(warehouse)`."""
    owner = ROOT / "advisor" / "index" / "layout.py"
    found = []
    for path in _code_files():
        tree = _tree(path)
        if path == owner or layout.BENCHMARK_FILE not in path.read_text(encoding="utf-8"):
            continue
        prose = _docstrings(tree)
        found += [_where(path, node) for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose
                  and layout.BENCHMARK_FILE in node.value]
    assert found == []


def test_the_benchmark_is_where_the_contract_says(tmp_path):
    contracts = (ROOT / "docs" / "contracts.md").read_text(encoding="utf-8")
    relative = layout.benchmark_path(tmp_path).relative_to(tmp_path).as_posix()
    assert f"`<warehouse>/{relative}`" in contracts
    assert relative == "benchmarks/qa.jsonl"  # the documented place: moving it is a contract change
