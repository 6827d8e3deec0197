"""The message sets stay apart from everything the system learned from, checked fuzzily
(eval/sets/disjoint.py: character 3-gram Jaccard >= 0.5 or normalized edit similarity >= 0.8 after
removing spaces, punctuation and emoji; equality under 4 characters).

Every TEST-set message is compared with: the intent seeds (every institution's), the intent
examples each bundled build trained its router on, the FAQ entries' own questions (both bundled
colleges and the real FAQ), the FAQ calibration's paraphrases and document questions, every string
literal and data-file line of the code (lexicons, glossaries, templates, frames) and of the tests,
the dialogue and QA benchmarks (development data), and the development sets. DEVELOPMENT messages
are compared with the test sets. A failure names the item id and the text it copies, never the
test item's own text (reading it would make it development data).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import duckdb
import pytest

from advisor.config import load_config
from advisor.faq.calibrate import document_queries
from advisor.faq.paraphrase import paraphrases
from advisor.faq.store import faq_entries_from_build
from advisor.index.layout import builds_dir
from advisor.index.store import latest_build_dir, load_build
from advisor.intents.seeds import seed_examples
from eval.dialogue import messages as dialogue_messages
from eval.sets import build as set_build
from eval.sets import lock
from eval.sets.disjoint import ReferenceIndex, collisions
from eval.sets.items import read_items

ROOT = Path(__file__).resolve().parents[1]
CODE_DIRS = ("advisor", "serving", "eval", "cli", "assets", "pipelines", "bench")
DATA_SUFFIXES = (".txt", ".yaml", ".yml", ".tsv", ".json")
PARAPHRASES_PER_QUESTION = 8


def _literals(path: Path) -> list[str]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError:
        return []
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]


def _code_texts():
    for folder in (*CODE_DIRS, "tests"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix == ".py":
                for text in _literals(path):
                    yield text, f"literal in {path.relative_to(ROOT)}"
            elif path.suffix in DATA_SUFFIXES and "testsets" not in path.parts and "devsets" not in path.parts:
                for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                    yield line, f"line of {path.relative_to(ROOT)}"


def _build_texts(warehouse: Path, config_path: Path):
    config = load_config(config_path)
    build = load_build(latest_build_dir(builds_dir(warehouse)))
    con = duckdb.connect(str(warehouse / "lakehouse.duckdb"), read_only=True)
    try:
        for (text, origin) in con.execute("SELECT text, origin FROM intent_examples").fetchall():
            yield text, f"intent example ({origin})"
    finally:
        con.close()
    entries = faq_entries_from_build(build)
    for entry in entries:
        yield entry.question, "FAQ question"
        for text in paraphrases(entry.question, PARAPHRASES_PER_QUESTION):
            yield text, "FAQ calibration paraphrase"
    for query in document_queries(build):
        yield query.text, "calibration document question"
    for message in dialogue_messages.generate(build, config.institution, entries):
        yield message.text, "dialogue benchmark (development)"
    benchmark = warehouse / "benchmarks" / "qa.jsonl"
    if benchmark.is_file():
        for line in benchmark.read_text(encoding="utf-8").splitlines():
            yield json.loads(line)["query"], "QA benchmark (development)"
    for seed in seed_examples(config.institution):
        yield seed.text, "intent seed"


def _real_faq_texts():
    if not set_build.REAL_FAQ_FILE.is_file():
        return
    for line in set_build.REAL_FAQ_FILE.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        for lang in ("ko", "en"):
            yield entry[f"question_{lang}"], "real FAQ question"
            for text in paraphrases(entry[f"question_{lang}"], PARAPHRASES_PER_QUESTION):
                yield text, "FAQ calibration paraphrase"


def _set_messages(folder: Path) -> list[tuple[str, str]]:
    return [(item.id, item.text) for path in lock.set_files(folder).values() for item in read_items(path)]


@pytest.fixture(scope="module")
def learned_from(demo_warehouse, business_warehouse) -> ReferenceIndex:
    return ReferenceIndex([*_code_texts(), *_build_texts(demo_warehouse.root, demo_warehouse.config_path),
                           *_build_texts(business_warehouse.root, business_warehouse.config_path), *_real_faq_texts(),
                           *((text, "development set") for _, text in _set_messages(lock.DEVSETS))])


def _report(found) -> str:
    return "\n".join(f"{c.message_id} ~ {c.reference!r} ({c.origin}; jaccard {c.jaccard}, ratio {c.ratio})"
                     for c in found[:40])


def test_no_test_message_is_a_near_copy_of_what_the_system_learned_from(learned_from):
    assert len(learned_from) > 5_000  # the references were gathered, not silently empty
    found = collisions(_set_messages(lock.TESTSETS), learned_from)
    assert not found, f"{len(found)} test messages are near-copies:\n{_report(found)}"


def test_no_development_message_is_a_near_copy_of_a_test_message():
    tests = ReferenceIndex((text, "test set") for _, text in _set_messages(lock.TESTSETS))
    found = collisions(_set_messages(lock.DEVSETS), tests)
    # the development item is named; the test text it copies is not shown
    assert not found, "development messages near a test message: " + ", ".join(c.message_id for c in found)


def test_the_measure_catches_variants_and_spares_paraphrases():
    index = ReferenceIndex([("뭘 할 수 있어", "seed"), ("학생증 발급은 어떻게 하나요?", "FAQ question"), ("hi", "seed")])
    assert collisions([("a", "뭘 할 수 있어요??")], index)  # an ending and punctuation
    assert collisions([("b", "학생증발급은 어떻게하나요")], index)  # spacing
    assert collisions([("c", "HI!")], index)  # short: equal after normalization
    assert not collisions([("d", "학생증 잃어버렸는데 새로 받으려면 어디로 가요")], index)  # a paraphrase
    assert not collisions([("e", "hello")], index)
