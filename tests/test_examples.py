"""The example institutions (examples/): each is a folder holding its config and the generator of
its website, named by the folder alone, and the library reaches them only as files."""

from __future__ import annotations

import ast
import importlib
from datetime import date
from pathlib import Path

import pytest
import yaml

from advisor.config import (
    DEMO_CONFIG_PATH,
    EXAMPLES_DIR,
    ConfigError,
    LocalSite,
    example_names,
    load_config,
    parse_config,
)
from advisor.ingest.local_site import local_site
from examples import generate_site

REPO = Path(__file__).resolve().parents[1]
CODE = ("advisor", "serving", "eval", "assets", "pipelines", "cli", "bench")  # everything but examples/ and tests/


def test_the_examples_are_the_folders_with_a_config():
    assert example_names() == ("business_college", "demo_college")
    assert DEMO_CONFIG_PATH.parent == EXAMPLES_DIR / "demo_college"  # the default institution is an example
    assert not (EXAMPLES_DIR / "site_kit" / "institution.yaml").exists()  # the kit is no institution


@pytest.mark.parametrize("name", example_names())
def test_an_examples_config_names_its_own_generator_and_reads_the_truth_it_writes(name):
    config = load_config(EXAMPLES_DIR / name / "institution.yaml")
    generator = importlib.import_module(f"examples.{name}")
    assert config.local_site is not None and config.local_site.generate == name
    assert callable(generator.build_site) and (EXAMPLES_DIR / name / "__main__.py").is_file()
    assert config.pipeline.annotation_truth == f"{config.local_site.directory}/{generator.MANIFEST_NAME}"


def test_a_config_may_name_only_an_example():
    data = yaml.safe_load(DEMO_CONFIG_PATH.read_text(encoding="utf-8"))
    data["local_site"]["generate"] = "site_kit"  # a folder of examples/, but no institution
    with pytest.raises(ConfigError, match=r"local_site\.generate: .*'site_kit'.*business_college, demo_college"):
        parse_config(data)
    with pytest.raises(ValueError, match="unknown example institution 'site_kit'"):
        generate_site("site_kit", Path("unused"), date(2026, 12, 1))


def test_the_library_builds_an_example_only_through_the_generator_it_is_given(tmp_path):
    settings = LocalSite(generate="demo_college", directory=str(tmp_path), port=1)
    with pytest.raises(ValueError, match="no site generator"), local_site(settings, tmp_path, date(2026, 12, 7)):
        pass
    asked = []

    def generate(name: str, root: Path, as_of: date) -> Path:
        asked.append((name, root, as_of))
        return tmp_path

    with local_site(settings.model_copy(update={"port": 0}), tmp_path, date(2026, 12, 7), generate) as url:
        assert url.startswith("http://127.0.0.1:")
    assert asked == [("demo_college", tmp_path, date(2026, 12, 1))]  # re-dated on the month's first day


def _names_spelled(path: Path) -> set[str]:
    names = set(example_names())
    return {node.value for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Constant) and node.value in names}


def test_no_module_outside_the_examples_keeps_a_list_of_them():
    """The folder names are the one list of the examples: a module that names one institution (the
    default config, a benchmark's) is fine; one naming several is a copy of the list."""
    copies = {}
    for package in CODE:
        for path in sorted((REPO / package).rglob("*.py")):
            spelled = _names_spelled(path)
            if len(spelled) > 1:
                copies[str(path.relative_to(REPO))] = sorted(spelled)
    assert not copies


def test_the_weekday_letters_are_spelled_once_in_the_examples():
    """site_kit/korean.py owns the weekday letters and the "3월 2일(월)" date: a generator that
    spells them again would let the two colleges' calendars drift apart."""
    examples = Path(__file__).resolve().parents[1] / "examples"
    spelled = [path.relative_to(examples).as_posix() for path in sorted(examples.rglob("*.py"))
               if "월화수목금토일" in path.read_text(encoding="utf-8")]
    assert spelled == ["site_kit/korean.py"]
