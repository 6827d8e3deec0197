"""The `advisor` command's exit codes have one owner (cli/exit_codes.py), which holds the numbers
docs/contracts.md §1 documents, and no command module spells a code as a number or defines its own."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from cli import exit_codes

ROOT = Path(__file__).resolve().parent.parent
CLI = ROOT / "cli"
OWNER = CLI / "exit_codes.py"


def _contract_codes() -> set[int]:
    """The first column of the "Exit codes" table (docs/contracts.md §1)."""
    text = (ROOT / "docs" / "contracts.md").read_text(encoding="utf-8")
    table = text.split("\nExit codes", 1)[1].split("\n\n", 2)[1]
    return {int(m[1]) for m in re.finditer(r"^\| (\d+) \|", table, re.MULTILINE)}


def test_the_codes_are_the_contracts():
    codes = {name: value for name, value in vars(exit_codes).items() if name.startswith("EXIT_")}
    assert codes == {"EXIT_OK": 0, "EXIT_FAILED": 1, "EXIT_BAD_INPUT": 2, "EXIT_RUN_IN_PROGRESS": 3}
    assert set(codes.values()) == _contract_codes() == {0, 1, 2, 3}


def _is_code(node: ast.AST | None) -> bool:
    """An int literal (not a bool), also as a branch of `a if c else b`."""
    if isinstance(node, ast.IfExp):
        return _is_code(node.body) or _is_code(node.orelse)
    return isinstance(node, ast.Constant) and type(node.value) is int


def _spelled_codes(tree: ast.AST) -> list[int]:
    """Lines that define an EXIT_ name, return a number, or hand a number to an error or an exit."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            if any(name.startswith("EXIT_") for name in names):
                found.append(node.lineno)
        elif isinstance(node, ast.Return) and _is_code(node.value):
            found.append(node.lineno)
        elif isinstance(node, ast.Call):
            callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if (callee.endswith("Error") or callee in ("exit", "SystemExit")) and any(
                    _is_code(arg) for arg in [*node.args, *(k.value for k in node.keywords)]):
                found.append(node.lineno)
    return found


def test_no_command_spells_an_exit_code():
    found = [f"{path.relative_to(ROOT)}:{line}" for path in sorted(CLI.rglob("*.py")) if path != OWNER
             for line in _spelled_codes(ast.parse(path.read_text(encoding="utf-8")))]
    assert found == []


def test_the_check_finds_a_spelled_code():
    """The patterns above, each as a copy would bring it back."""
    copies = ["EXIT_OK, EXIT_FAILED = 0, 1", "def f():\n    return 2",
              "def f(ok):\n    return 0 if ok else 1", "raise ReportError(2, 'no run')", "sys.exit(1)"]
    assert [bool(_spelled_codes(ast.parse(copy))) for copy in copies] == [True] * len(copies)
    assert _spelled_codes(ast.parse("def f():\n    return EXIT_OK\nraise ReportError(EXIT_BAD_INPUT, 'x')")) == []
