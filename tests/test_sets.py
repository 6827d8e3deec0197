"""The message sets (eval/sets/): the shipped sets are well formed, locked and keyed to their
institutions' ground truth; the lock refuses an edited set; the scores count what the student got;
and a run builds the institution, converses and records a `testset_runs` row. What must hold
whatever the system's quality; the locked sets themselves are never run here."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from advisor.config import load_config
from advisor.faq.store import faq_entries_from_build
from advisor.index.store import latest_build_dir, load_build
from cli.main import main
from eval.sets import lock
from eval.sets.build import REAL_FAQ_FILE
from eval.sets.converse import Outcome, entry_key
from eval.sets.items import Item, SetFormatError, read_items
from eval.sets.run import entry_copies, run_sets
from eval.sets.score import is_gold, meets, score
from eval.systems.simulate import hidden_profile

needs_realdata = pytest.mark.skipif(not REAL_FAQ_FILE.exists(),
                                    reason=f"real FAQ data not found at {REAL_FAQ_FILE} (a clone without ../shared)")


# ---------------------------------------------------------------------------- the shipped sets

def test_the_test_sets_are_locked_as_committed():
    hashes = lock.checked()  # raises when a file differs from its lock
    assert set(hashes) == {"demo", "business", "realfaq"}


@pytest.mark.parametrize("folder", [lock.TESTSETS, lock.DEVSETS], ids=["test", "development"])
def test_every_set_is_well_formed(folder):
    for path in lock.set_files(folder).values():
        items = read_items(path)
        kinds = {item.kind for item in items}
        assert {"faq", "greeting", "ability", "out_of_scope"} <= kinds, path.name
        assert {item.lang for item in items} == {"ko", "en"}, path.name


def _truth(root: Path, config) -> dict[str, dict]:
    path = root / config.pipeline.annotation_truth  # the truth file the example's generator writes
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {row["path"]: row for row in rows}


def _inside(value, limit) -> bool:
    if limit is None:
        return True
    return value in limit if isinstance(limit[0], str) else limit[0] <= value <= limit[1]


@pytest.mark.parametrize("name", ["demo", "business"])
def test_bundled_golds_and_profiles_come_from_the_ground_truth(name, demo_warehouse, business_warehouse):
    warehouse = {"demo": demo_warehouse, "business": business_warehouse}[name]
    config = load_config(warehouse.config_path)
    truth, schema = _truth(warehouse.root, config), config.profile
    for folder in (lock.TESTSETS, lock.DEVSETS):
        for item in read_items(folder / f"{name}.jsonl"):
            hidden_profile({"id": item.id, "profile": item.profile}, schema)  # canonical values of the schema
            if item.gold is None:
                continue
            page = truth[item.gold]
            assert (page["kind"] == "faq") == (item.kind == "faq"), item.id
            assert not page["duplicate_of"] and not page["expired"], item.id
            limits = page["applies_to"]
            assert all(_inside(value, limits[attribute]) for attribute, value in item.profile.items()), item.id
            assert item.profile_independent == all(v is None for v in limits.values()), item.id


@pytest.mark.parametrize("name", ["demo", "business"])
def test_an_answer_from_the_kept_copy_of_a_gold_entry_is_right(name, demo_warehouse, business_warehouse):
    """The bundled sites repeat some FAQ entries on a second page and the pipeline keeps one copy
    (the first by URL), not always the one a set names as gold (its first appearance, by the
    ground truth): citing the kept copy is answering from the gold entry."""
    warehouse = {"demo": demo_warehouse, "business": business_warehouse}[name]
    copies = entry_copies(warehouse.config(), warehouse.root)
    kept = {entry_key(e.source_url) for e in faq_entries_from_build(load_build(latest_build_dir(warehouse.builds)))}
    golds = [item for folder in (lock.TESTSETS, lock.DEVSETS) for item in read_items(folder / f"{name}.jsonl")
             if item.kind == "faq" and item.gold in copies]
    assert golds
    cited = {}
    for item in golds:
        [cited[item.id]] = ["http://127.0.0.1:9" + url for url in kept & copies[item.gold]]  # one copy kept
        assert is_gold(item, cited[item.id], copies), item.id
    if name == "demo":  # there the copy kept of some gold entry is another page's
        assert any(not is_gold(item, cited[item.id]) for item in golds)


@needs_realdata
def test_real_faq_golds_are_its_entries():
    ids = {json.loads(line)["id"] for line in REAL_FAQ_FILE.read_text(encoding="utf-8").splitlines()}
    for folder in (lock.TESTSETS, lock.DEVSETS):
        golds = [item.gold for item in read_items(folder / "realfaq.jsonl") if item.kind == "faq"]
        assert golds and set(golds) <= ids


# ---------------------------------------------------------------------------- format and lock

def _row(**overrides) -> str:
    row = {"id": "x-1", "kind": "faq", "lang": "ko", "register": "polite", "text": "졸업 학점?", "gold": "/faq#1",
           "profile": {}, "profile_independent": True}
    return json.dumps({**row, **overrides}, ensure_ascii=False)


@pytest.mark.parametrize("overrides, problem", [
    ({"kind": "chitchat"}, "kind 'chitchat'"),
    ({"gold": None}, "needs gold"),
    ({"kind": "greeting"}, "has no gold"),
    ({"text": ""}, "missing text"),
    ({"profile": ["CS"]}, "profile must be an object"),
])
def test_a_malformed_item_is_refused_with_its_line(tmp_path, overrides, problem):
    path = tmp_path / "s.jsonl"
    path.write_text(_row(id="ok") + "\n" + _row(**overrides) + "\n", encoding="utf-8")
    with pytest.raises(SetFormatError, match=rf"s\.jsonl:2: .*{problem}"):
        read_items(path)


def test_the_lock_refuses_an_edited_an_unlocked_and_a_missing_set(tmp_path):
    (tmp_path / "a.jsonl").write_text(_row() + "\n", encoding="utf-8")
    lock.write_lock(tmp_path)
    assert set(lock.checked(tmp_path)) == {"a"}
    (tmp_path / "a.jsonl").write_text(_row(text="졸업 학점은?") + "\n", encoding="utf-8")
    with pytest.raises(lock.LockError, match="a.jsonl: changed since it was locked"):
        lock.checked(tmp_path)
    lock.write_lock(tmp_path)
    (tmp_path / "b.jsonl").write_text(_row() + "\n", encoding="utf-8")
    with pytest.raises(lock.LockError, match="b.jsonl: not in the lock"):
        lock.checked(tmp_path)
    (tmp_path / "b.jsonl").unlink()
    (tmp_path / "a.jsonl").unlink()
    with pytest.raises(lock.LockError, match="a.jsonl: locked but missing"):
        lock.checked(tmp_path)


# ---------------------------------------------------------------------------- scores

def _outcome(kind, tier, cited=None, gold=None, template=None, lang="ko", asked=0, independent=None,
             answer="") -> Outcome:
    item = Item(id=f"{kind}-{tier}-{cited}", kind=kind, lang=lang, register="polite", text="x", gold=gold,
                profile_independent=independent)
    return Outcome(item=item, routed_intent=None, tier=tier, template=template, first_citation=cited, answer=answer,
                   questions_asked=asked)


def test_scores_count_what_the_student_got():
    base = "http://127.0.0.1:9/"
    outcomes = [
        _outcome("faq", "faq", base + "faq/a.html#1", "/faq/a.html#1", independent=True, answer="답 하나"),
        _outcome("faq", "faq", base + "faq/a.html#3", "/faq/a.html#2", independent=True),  # the wrong entry
        _outcome("faq", "documents", base + "faq/a.html#4", "/faq/a.html#4", asked=1, independent=True),
        _outcome("faq", "faq", base + "faq/en.html#faq-7", 7, lang="en"),  # the real FAQ: either page
        _outcome("faq", "documents", base + "faq.php?cat=b#3", "/faq.php?cat=a#3", lang="en"),  # the query counts
        _outcome("document", "documents", base + "p/x.html", "/p/x.html", lang="en", independent=False, asked=2),
        _outcome("greeting", "template", template="greeting"),
        _outcome("leaving", "template", template="smalltalk"),  # "I see" is no goodbye
        _outcome("out_of_scope", "documents", base + "p/y.html"),
        _outcome("out_of_scope", "fallback"),
    ]
    answers = {base + "faq/a.html#1": "답 하나", base + "faq/a.html#2": "답 둘"}
    metrics = score(outcomes, answers)
    assert metrics["faq_right_first_ko"] == (2 / 3, 3)
    assert metrics["faq_verbatim_ko"] == (1 / 3, 3)
    # the ground truth says #3 is a copy of #2 (the same entry on another page): answering from it is right
    copied = score(outcomes, {**answers, base + "faq/a.html#3": "답 둘"}, {"/faq/a.html#2": {"/faq/a.html#2", "/faq/a.html#3"}})
    assert copied["faq_right_first_ko"] == (1.0, 3) and copied["faq_verbatim_ko"] == (1 / 3, 3)
    assert metrics["faq_right_first_en"] == (0.5, 2)
    assert metrics["document_page_first_en"] == (1.0, 1)
    assert metrics["routing"] == (2 / 5, 5)  # greeting right, leaving wrong; FAQ: 1 of 3 from the FAQ tier
    assert metrics["routing_leaving"] == (0.0, 1)
    assert metrics["out_of_scope_answered_as_found"] == (0.5, 2)
    assert metrics["profile_question_on_independent"] == (1 / 3, 3)
    assert metrics["english_over_korean"] == ((2 / 3) / (2 / 3), 3)
    assert meets("routing", 0.96) and not meets("out_of_scope_answered_as_found", 0.5) and meets("x", 1) is None


# ---------------------------------------------------------------------------- end to end

SMALL_SET = [
    {"id": "s-faq-1", "kind": "faq", "lang": "ko", "register": "polite", "text": "학생증은 어떻게 만들어요?",
     "gold": 153, "profile": {}, "profile_independent": True},
    {"id": "s-faq-2", "kind": "faq", "lang": "en", "register": "english", "text": "where can I get a student card",
     "gold": 153, "profile": {}, "profile_independent": True},
    {"id": "s-greeting-1", "kind": "greeting", "lang": "ko", "register": "polite", "text": "안녕하세요 반갑습니다",
     "gold": None, "profile": {}, "profile_independent": None},
    {"id": "s-oos-1", "kind": "out_of_scope", "lang": "ko", "register": "banmal", "text": "학교 앞 맛집 추천해줘",
     "gold": None, "profile": {}, "profile_independent": None},
]


@pytest.mark.e2e
@needs_realdata
def test_a_run_builds_the_institution_converses_and_records_each_set(tmp_path):
    sets = tmp_path / "sets"
    sets.mkdir()
    (sets / "realfaq.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in SMALL_SET),
                                        encoding="utf-8")
    lock.write_lock(sets)
    lakehouse = tmp_path / "lakehouse.duckdb"
    said = []
    done = run_sets("test", None, tmp_path / "work", lambda: duckdb.connect(str(lakehouse)), folder=sets,
                    say=said.append)
    assert [r.name for r in done] == ["realfaq"] and any("building" in line for line in said)
    result = done[0]
    assert [o.item.id for o in result.outcomes] == [r["id"] for r in SMALL_SET]  # each asked once, in order
    assert all(o.tier in ("template", "faq", "documents", "fallback") for o in result.outcomes)
    assert result.metrics["faq_right_first_ko"][1] == 1 and result.metrics["out_of_scope_answered_as_found"][1] == 1
    con = duckdb.connect(str(lakehouse), read_only=True)
    row = con.execute("SELECT set_name, purpose, file_hash, items, build_id, metrics FROM testset_runs").fetchall()
    con.close()
    assert row[0][:5] == ("realfaq", "test", lock.file_hash(sets / "realfaq.jsonl"), 4, result.build_id)
    assert json.loads(row[0][5])["routing"]["n"] == 2  # the greeting and the Korean FAQ message

    (sets / "realfaq.jsonl").write_text(_row() + "\n", encoding="utf-8")  # edited after the lock
    with pytest.raises(lock.LockError):
        run_sets("test", None, tmp_path / "work", lambda: duckdb.connect(str(lakehouse)), folder=sets)


def test_the_command_wants_exactly_one_set_kind_and_known_names(capsys):
    assert main(["eval", "--testsets", "--devsets"]) == 2
    assert "exactly one of" in capsys.readouterr().err
    assert main(["eval", "--devsets", "nowhere"]) == 2
    assert "no development set named nowhere" in capsys.readouterr().err
