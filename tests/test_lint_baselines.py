"""What `make lint` lets through only shrinks: the functions over ruff's complexity threshold (each
marked `# noqa: C901` with its reason) and the type errors of .basedpyright/baseline.json are at
most as many as when the checks came in, and the checks are not loosened to make room.

Split a function instead of marking it; fix a type error instead of baselining it. After fixing
some, lower the ceiling here to the new count so it cannot grow back.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODE = ("advisor", "serving", "eval", "assets", "pipelines", "cli", "examples", "bench", "tests")
LIBRARY = ("advisor", "serving", "eval", "assets", "pipelines", "cli", "examples")

MAX_COMPLEXITY = 10
# advisor/ingest/crawler.py's _crawl, advisor/ingest/raw_documents.py's crawl_institution,
# eval/benchmark/synthesis.py's synthesize, eval/benchmark/file.py's read_benchmark, eval/entry.py's
# evaluate, tests/test_metrics.py's _random_cases
COMPLEXITY_MARKERS = 6
TYPE_ERRORS = 389  # entries of .basedpyright/baseline.json (errors and warnings) after eval's regrouping

_MARKER = re.compile(r"noqa:[\w\s,]*\bC901\b")


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_no_more_functions_over_the_complexity_threshold():
    marked = [f"{path.relative_to(ROOT)}:{number}"
              for top in CODE for path in sorted((ROOT / top).rglob("*.py")) if path != Path(__file__)
              for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
              if _MARKER.search(line)]
    assert len(marked) <= COMPLEXITY_MARKERS, f"split the new one instead: {marked}"
    lint = _pyproject()["tool"]["ruff"]["lint"]
    assert "C901" in lint["select"] and lint["mccabe"]["max-complexity"] <= MAX_COMPLEXITY
    ignored = [pattern for pattern, rules in lint.get("per-file-ignores", {}).items() if "C901" in rules]
    assert not ignored, f"a file-wide C901 ignore hides every new tangled function there: {ignored}"


def test_no_more_type_errors_in_the_baseline():
    baseline = json.loads((ROOT / ".basedpyright" / "baseline.json").read_text(encoding="utf-8"))
    entries = sum(len(found) for found in baseline["files"].values())
    assert entries <= TYPE_ERRORS, f"{entries} baselined type errors, more than {TYPE_ERRORS}: fix the new ones"
    checker = _pyproject()["tool"]["basedpyright"]
    assert checker["typeCheckingMode"] in {"basic", "standard", "strict", "recommended", "all"}
    assert set(LIBRARY) <= set(checker["include"]) and not checker.get("exclude")
    assert "basedpyright" in (ROOT / "Makefile").read_text(encoding="utf-8")
