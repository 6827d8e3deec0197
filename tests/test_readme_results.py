"""`python -m eval.reports.readme_results`: the README's results block generated from a lakehouse built here
(record_run on synthetic rows), and the README's own evaluation SQL run against such a lakehouse."""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import duckdb
import pytest

from advisor.config import load_config
from advisor.lakehouse import LAKEHOUSE_FILE
from eval import store
from eval.reports.readme_results import BEGIN, END, main
from tests.test_eval_store import fake_run_evaluation, make_instances, make_meta

ROOT = Path(__file__).resolve().parent.parent
README = """# Project

Intro that must stay.

{begin}
hand-copied numbers
{end}

Text after the block must stay too.
"""


@pytest.fixture(scope="module")
def config():
    return load_config()


def _warehouse(root: Path, config, institution: str, gold_from: str, seed: int, finished: datetime):
    """A warehouse folder whose lakehouse holds one recorded evaluation run."""
    root.mkdir(parents=True)
    instances = make_instances(config, 9, sliced=True, gold_from=gold_from)
    outcome = fake_run_evaluation(None, instances, systems=("bm25", "hyde", "profill", "urag"),
                                  settings=("deployment", "deployment-dont-know", "oracle"), seed=seed)
    meta = make_meta(instances=9, institution=institution, finished_at=finished)
    con = duckdb.connect(str(root / LAKEHOUSE_FILE))
    try:
        store.record_run(con, outcome=outcome, run_meta=meta, instances=instances)
    finally:
        con.close()
    return outcome, meta


def _block(text: str) -> str:
    return text[text.index(BEGIN) + len(BEGIN):text.index(END)]


def _table_rows(block: str) -> dict[tuple[str, str], list[str]]:
    rows = [[c.strip() for c in line.strip("|").split(" | ")] for line in block.splitlines() if line.startswith("| ")]
    return {(r[0], r[1]): r[2:] for r in rows if r[0] not in ("setting",)}


def test_the_block_is_table1_of_each_warehouse_stamped_with_its_run(config, tmp_path, capsys):
    day = datetime(2026, 12, 1, 9, 30, tzinfo=timezone.utc)
    first, first_meta = _warehouse(tmp_path / "a", config, "College A", "annotations", 1, day)
    second, second_meta = _warehouse(tmp_path / "b", config, "College B", "truth", 2, day + timedelta(days=1))
    readme = tmp_path / "README.md"
    readme.write_text(README.format(begin=BEGIN, end=END), encoding="utf-8")

    argv = ["--warehouse", str(tmp_path / "a"), "--warehouse", str(tmp_path / "b"), "--readme", str(readme)]
    assert main(argv) == 0
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("# Project\n\nIntro that must stay.\n\n" + BEGIN + "\n")
    assert text.endswith(END + "\n\nText after the block must stay too.\n")
    block = _block(text)
    assert "hand-copied" not in block
    assert f"`.venv/bin/python -m eval.reports.readme_results {' '.join(argv)}`" in block  # the command itself
    part_a, part_b = block.split("### Results on College B")
    for part, meta, gold, date in ((part_a, first_meta, "annotations", "2026-12-01"),
                                   (part_b, second_meta, "truth", "2026-12-02")):
        assert meta.run_id in part and meta.build_id in part and date in part and f"gold from: {gold}" in part
        assert f"Gold sources from: {gold}" in part and "profile_dependent slice" in part
    assert "cannot show up as a miss" in part_a and "cannot show up as a miss" not in part_b

    # the numbers are the recorded aggregates of the main slice, rounded as Table 1 rounds them
    for part, outcome in ((part_a, first), (part_b, second)):
        rows = _table_rows(part)
        for aggregate in outcome.aggregates:
            cells = rows[(aggregate["setting"], aggregate["system"])]
            if aggregate["skipped"]:
                assert cells[0] == "–" and aggregate["skipped"] in part
                continue
            assert cells[:6] == [f"{aggregate[k]:.3f}" for k in ("mrr", "success@1", "success@5", "success@10",
                                                                 "recall@10", "recall@50")]
    assert "| deployment-dont-know | profill |" in part_a
    assert "written between the markers" in capsys.readouterr().out

    # the same runs give the same bytes; --check agrees, and notices a hand edit
    assert main(argv) == 0 and readme.read_text(encoding="utf-8") == text
    assert main([*argv, "--check"]) == 0
    readme.write_text(text.replace(first_meta.run_id, "edited by hand"), encoding="utf-8")
    assert main([*argv, "--check"]) == 1
    assert "edited by hand" in readme.read_text(encoding="utf-8")  # --check changes nothing


def test_the_module_runs_as_documented(config, tmp_path):
    _warehouse(tmp_path / "w", config, "College A", "annotations", 1, datetime.now(timezone.utc))
    readme = tmp_path / "README.md"
    readme.write_text(README.format(begin=BEGIN, end=END), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "eval.reports.readme_results", "--warehouse", str(tmp_path / "w"),
                           "--readme", str(readme)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "### Results on College A" in _block(readme.read_text(encoding="utf-8"))


def test_errors_name_the_problem(config, tmp_path, capsys):
    _warehouse(tmp_path / "w", config, "College A", "truth", 1, datetime.now(timezone.utc))
    readme = tmp_path / "README.md"
    readme.write_text("# no markers\n", encoding="utf-8")
    assert main(["--warehouse", str(tmp_path / "w"), "--readme", str(readme)]) == 2
    assert BEGIN in capsys.readouterr().err and readme.read_text(encoding="utf-8") == "# no markers\n"
    readme.write_text(README.format(begin=END, end=BEGIN), encoding="utf-8")
    assert main(["--warehouse", str(tmp_path / "w"), "--readme", str(readme)]) == 2
    assert main(["--warehouse", str(tmp_path / "none"), "--readme", str(readme)]) == 1
    assert "no lakehouse" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    con = duckdb.connect(str(tmp_path / "empty" / LAKEHOUSE_FILE))
    store.ensure_schema(con)  # the tables, but no run in them
    con.close()
    readme.write_text(README.format(begin=BEGIN, end=END), encoding="utf-8")
    assert main(["--warehouse", str(tmp_path / "empty"), "--readme", str(readme)]) == 1
    assert "no evaluation run" in capsys.readouterr().err


def test_the_readme_has_one_results_block_and_its_evaluation_sql_runs(config, tmp_path):
    """The project README: its markers are in place, and every SQL query of its Evaluation section
    runs on a lakehouse recorded by this version of the store."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert text.count(BEGIN) == 1 and text.count(END) == 1 and text.index(BEGIN) < text.index(END)
    section = text[text.index("## Evaluation"):]
    section = section[:section.index("\n## ", 1)]
    queries = [q.strip() for block in re.findall(r"```sql\n(.*?)```", section, re.S) for q in block.split(";")]
    queries = [q for q in queries if q and not all(line.startswith("--") for line in q.splitlines())]
    assert len(queries) >= 5
    _warehouse(tmp_path / "w", config, "College A", "annotations", 1, datetime.now(timezone.utc))
    con = duckdb.connect(str(tmp_path / "w" / LAKEHOUSE_FILE))
    try:
        for query in queries:
            con.execute(query).fetchall()
    finally:
        con.close()
