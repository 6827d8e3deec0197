"""The usage assets (assets/usage.py) and their logic (advisor/usage/coverage.py, tables.py): the
question log and feedback read into the lakehouse, the shares per day, the unanswered questions
grouped by meaning, the office's CSV; with no record files at all; and the nearest material."""

from __future__ import annotations

import csv
import hashlib
import json
import re
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import duckdb
import pytest
from dagster import materialize

from advisor.lakehouse import LAKEHOUSE_FILE
from advisor.usage import coverage, tables
from advisor.usage.logfiles import UsageLog
from bench.usage_clusters import LOCKED

SEEDED = Path(__file__).with_name("data") / "usage_unanswered.jsonl"
# The held-out set, written before the grouping was changed for the seeded set's failure (which
# made that set development data) and never swept: locked by its hash, so it cannot be tuned on.
FRESH = Path(__file__).with_name("data") / "usage_unanswered_v2.jsonl"
# A second held-out set, written after FRESH had been run, and before it was run itself: run only by
# `python bench/usage_clusters.py --held-out` (aggregates only, each run recorded), never by the tests.
HELD_OUT = Path(__file__).with_name("data") / "usage_unanswered_v3.jsonl"
DEV = Path(__file__).resolve().parents[1] / "bench" / "data" / "usage_clusters_dev.jsonl"
# Two wordings are "the same question" from this character 3-gram Jaccard up: a question and its
# near copy score 0.5 and more ("How do I apply for a double major?" and an intent seed's "deadline
# to apply for a double major": 0.53), two topics asked in one frame at most 0.37 here.
NEAR_COPY = 0.4
NOW = datetime.now(timezone.utc).replace(hour=10, minute=0, second=0, microsecond=0)


def _question(text: str, tier: str, *, score=None, language="ko", answer_id=None, build_id=None) -> dict:
    return {"answer_id": answer_id or f"{abs(hash((text, tier))) % 16**32:032x}", "question": text,
            "language": language, "intent": "retrieval", "tier": tier, "answer_method": tier, "score": score,
            "answered": tier != "fallback", "hour": NOW.strftime("%Y-%m-%dT%H:00Z"), "build_id": build_id}


def _labelled(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _seeded() -> list[dict]:
    return _labelled(SEEDED)


def _trigrams(text: str) -> set[str]:
    letters = re.sub(r"[\W_]+", "", text.lower())
    return {letters[i:i + 3] for i in range(max(1, len(letters) - 2))}


def _similarity(a: str, b: str) -> float:
    """Character 3-gram Jaccard of two wordings (case, spaces and punctuation ignored)."""
    first, second = _trigrams(a), _trigrams(b)
    return len(first & second) / len(first | second)


def _dialogue_set_messages() -> list[str]:
    """The messages of the dialogue's development and test sets (eval/devsets, eval/testsets)."""
    from eval.sets.lock import DEVSETS, TESTSETS, set_files

    return [json.loads(line)["text"] for folder in (DEVSETS, TESTSETS) for path in set_files(folder).values()
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _intent_seed_forms() -> list[str]:
    from advisor import language
    from advisor.intents.seeds import SEED_ROUTES

    return [form for lang in language.LANGUAGES for route in SEED_ROUTES
            for group in language.load(lang, "intents").get(route) or () for form in group.get("forms") or ()]


# ------------------------------------------------------------------------------------ pure logic
def test_shares_per_day_count_each_tier_over_the_days_questions():
    day1, day2 = date(2026, 12, 1), date(2026, 12, 2)
    rows = ([{"day": day1, "tier": "faq"}] * 2 + [{"day": day1, "tier": "fallback"}]
            + [{"day": day1, "tier": "documents", "low_score": False}]
            + [{"day": day2, "tier": "documents"}] * 3 + [{"day": day2, "tier": "faq", "low_score": True}])
    first, second = coverage.daily_shares(rows)
    assert (first["day"], first["questions"], first["faq"], first["fallback"]) == (day1, 4, 2, 1)
    assert first["share_faq"] == 0.5 and first["share_fallback"] == 0.25 and first["share_documents"] == 0.25
    assert second["share_documents"] == 0.75 and second["share_fallback"] == 0 and second["low_score"] == 1
    window = coverage.window_shares([first, second])
    assert window["questions"] == 8 and window["share_faq"] == 3 / 8
    assert coverage.window_shares([])["share_faq"] is None


def test_low_score_is_an_faq_answer_below_its_builds_threshold():
    thresholds = {"B1": {"faq_threshold": 0.86, "faq_floor": 0.36}, None: {"faq_threshold": 0.5}}
    assert coverage.is_low_score({"tier": "faq", "score": 0.6, "build_id": "B1"}, thresholds)
    assert not coverage.is_low_score({"tier": "faq", "score": 0.9, "build_id": "B1"}, thresholds)
    # a build since pruned: judged by the served build's bar
    assert not coverage.is_low_score({"tier": "faq", "score": 0.6, "build_id": "gone"}, thresholds)
    # documents and templates have no bar on the score they carry
    assert not coverage.is_low_score({"tier": "documents", "score": 0.01, "build_id": "B1"}, thresholds)
    assert not coverage.is_low_score({"tier": "faq", "score": 0.1}, {})


def _fallbacks(labelled: list[dict]) -> list[dict]:
    """Each labelled question logged once, on one day, as a fallback."""
    return [{**_question(item["question"], "fallback"), "day": date(2026, 12, 7)} for item in labelled]


def _clustered(rows: list[dict]) -> list:
    """`rows` grouped as the coverage asset groups them: e5 centered on the shipped seeds' mean,
    Kiwi's key words, English words in the glossary's Korean terms first."""
    from advisor.chunking.kiwi_tokens import get_tokenizer
    from advisor.index.embedders import E5Embedder
    from advisor.retrieval.glossary import shipped_glossary

    encoder = E5Embedder()
    background = coverage.seed_background(coverage.SEED_VECTORS, encoder.version)
    assert background is not None  # the shipped seeds were encoded by this very model
    glossary = shipped_glossary()
    return coverage.cluster_questions(
        rows, lambda texts: coverage.centered(encoder.embed_queries(texts), background), get_tokenizer().key_words,
        lambda text: glossary.translate(text)[0])


def test_seeded_unanswered_questions_group_by_meaning_largest_first():
    """Four topics the demo's FAQ does not cover (dormitory fees, transcripts, student ID cards, the
    shuttle bus), each asked in Korean and in English in other words, as fallbacks; the dormitory
    fees asked most often. Each topic is one group of its own, the dormitory fees ranked first. The
    encoder alone put the transcript and the student-ID questions (both "issue me a document", 발급)
    in one group; the topic terms tell them apart. Since that failure was read, this file is
    development data (bench/data/usage_clusters_dev.jsonl holds it; the grouping was chosen there):
    test_a_fresh_set_groups_by_topic_not_by_frame is the held-out check."""
    seeded = _seeded()
    rows = _fallbacks(seeded)
    # many students ask about the dormitory fees: its two first wordings, three times each
    rows += [{**rows[i], "answer_id": f"{i}" * 32} for i in (0, 0, 1, 1)]
    answered = _question("졸업하려면 몇 학점?", "faq", score=0.95)
    rows.append({**answered, "day": rows[0]["day"]})  # answered well: not listed

    clusters = _clustered(rows)

    group_of = {item["question"]: item["group"] for item in seeded}
    found = [{group_of[text] for text in c.wordings} for c in clusters]
    assert sum(c.size for c in clusters) == len(seeded) + 4  # every fallback, the FAQ answer left out
    assert sorted(map(sorted, found)) == [[group] for group in sorted(set(group_of.values()))], found
    assert found[0] == {"dorm_fee"} and clusters[0].size == 10 and clusters[0].unanswered == 10
    assert clusters[0].examples() == [seeded[0]["question"], seeded[1]["question"], seeded[2]["question"]]
    assert [c.size for c in clusters] == sorted((c.size for c in clusters), reverse=True)


def test_a_fresh_set_groups_by_topic_not_by_frame():
    """The held-out set (FRESH), run once after the grouping was chosen on the development set: six
    topics asked in pairs that share a frame (튜터링 / 버디 프로그램 신청, 강의평가 / 건강검진 언제,
    프린트 / 노트북 대여 어디서), each in Korean and English, and three lone questions. The exact
    partition (each topic one group, each lone question alone) was the aim; the one run gave an
    adjusted Rand index of 0.89, not the exact partition, and the grouping was not tuned on it
    afterwards. So this asserts what is true of the chosen method, a floor just below that run."""
    from sklearn.metrics import adjusted_rand_score

    fresh = _labelled(FRESH)
    clusters = _clustered(_fallbacks(fresh))

    label_of = {text: label for label, cluster in enumerate(clusters) for text in cluster.wordings}
    found = [label_of[item["question"]] for item in fresh]
    score = adjusted_rand_score([item["group"] for item in fresh], found)
    assert score >= 0.85, f"adjusted Rand index {score:.2f}"


@pytest.mark.parametrize("path, earlier, dialogue_sets", [(FRESH, [], False),
                                                                    (HELD_OUT, [FRESH], True)])
def test_the_held_out_sets_are_locked_and_share_no_topic_or_wording_with_what_was_tuned_on(path, earlier,
                                                                                        dialogue_sets):
    """A held-out set is the file it was when written (its hash), its topics are none of the
    development set's, the seeded set's or an earlier held-out set's, and none of its wordings is a
    near copy (NEAR_COPY, over all pairs) of theirs or of the intent seeds' (the seeds' mean
    centers the vectors). The second set is also checked against the dialogue's development and
    test sets; the first was written before that check, and one of its wordings shares a frame
    with a dialogue message ("join the buddy program for international students" / "international
    students join the field internship program": 0.42), a different topic, so it is left as it was."""
    assert hashlib.sha256(path.read_bytes()).hexdigest() == LOCKED[path.name]
    fresh, dev, seeded = _labelled(path), _labelled(DEV), _seeded()
    before = [row for previous in earlier for row in _labelled(previous)]
    assert not {row["group"] for row in fresh} & {row["group"] for row in dev + seeded + before}
    tuned_on = [row["question"] for row in dev + seeded + before] + _intent_seed_forms()
    tuned_on += _dialogue_set_messages() if dialogue_sets else []
    for row in fresh:
        nearest = max(tuned_on, key=lambda text: _similarity(row["question"], text))
        assert _similarity(row["question"], nearest) < NEAR_COPY, (row["question"], nearest)


def test_the_held_out_command_refuses_a_set_that_is_not_the_one_locked(tmp_path):
    from bench.usage_clusters import held_out

    edited = tmp_path / HELD_OUT.name
    edited.write_bytes(HELD_OUT.read_bytes().replace("우산".encode(), "양산".encode()))
    with pytest.raises(SystemExit, match="not a locked held-out set"):
        held_out(edited)


def test_the_csv_opens_in_a_spreadsheet_and_runs_no_formula(tmp_path):
    rows = [{"rank": 1, "questions": 3, "unanswered": 3, "low_score": 0,
             "examples": ["=HYPERLINK(\"x\")", "기숙사비"],
             "languages": ["en", "ko"], "first_day": date(2026, 12, 1), "last_day": date(2026, 12, 2),
             "nearest_faq_question": None, "nearest_faq_score": -0.5}]
    path = tables.write_clusters_csv(tmp_path / "reports" / "c.csv", rows)
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # the BOM Excel needs to read UTF-8
    header, row = list(csv.reader(raw.decode("utf-8-sig").splitlines()))
    record = dict(zip(header, row))
    assert record["example_1"] == "'=HYPERLINK(\"x\")" and record["example_2"] == "기숙사비"
    assert record["example_3"] == "" and record["languages"] == "en ko" and record["nearest_faq_score"] == "-0.5"


# ------------------------------------------------------------------------------- the assets, end to end
def _resources(warehouse: Path):
    from assets.resources import InstitutionResource, WarehouseResource

    return {"institution": InstitutionResource(config_path=""), "warehouse": WarehouseResource(path=str(warehouse))}


def _run(warehouse: Path) -> dict:
    from assets.usage import coverage as coverage_asset
    from assets.usage import feedback, question_log

    result = materialize([question_log, feedback, coverage_asset], resources=_resources(warehouse))
    assert result.success
    return {name: result.asset_materializations_for_node(name)[0].metadata
            for name in ("question_log", "feedback", "coverage")}


def _rows(warehouse: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(warehouse / LAKEHOUSE_FILE), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


EMPTY_RUN: list[dict] = []


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    """A warehouse (no build) materialized once with no usage files at all (EMPTY_RUN), then once
    with two days of questions, feedback on some of the answers, a torn line and a day older than
    the retention window."""
    warehouse = tmp_path_factory.mktemp("usage") / "warehouse"
    EMPTY_RUN.append(_run(warehouse))  # before any record was written: the first thing an institution sees
    for table in tables.TABLES:
        assert _rows(warehouse, f"SELECT count(*) FROM {table}") == [(0,)]
    log = UsageLog(warehouse / "usage")
    yesterday, today = NOW - timedelta(days=1), NOW
    asked = [(yesterday, _question("졸업학점이 몇 학점이에요?", "faq", score=0.93, answer_id="a" * 32)),
             (yesterday, _question("기숙사비는 얼마인가요?", "fallback", answer_id="b" * 32)),
             (today, _question("How much is the dormitory fee?", "fallback", language="en", answer_id="c" * 32)),
             (today, _question("휴학 신청 기간", "documents", score=0.03, answer_id="d" * 32)),
             (today, _question("학식 메뉴 알려줘", "fallback", answer_id="e" * 32)),
             (today, _question("안녕", "template", answer_id="9" * 32))]
    for moment, record in asked:
        log.append("questions", record, now=moment)
    log.append("questions", _question("아주 오래된 질문", "fallback"), now=NOW - timedelta(days=200))
    log.append("feedback", {"answer_id": "a" * 32, "helpful": True, "reason": None, "hour": "x"}, now=today)
    log.append("feedback", {"answer_id": "d" * 32, "helpful": False, "reason": "outdated", "hour": "x"}, now=today)
    log.append("feedback", {"answer_id": "0" * 32, "helpful": False, "reason": "wrong", "hour": "x"}, now=today)
    torn = next((warehouse / "usage" / "questions" / today.date().isoformat()).glob("*.jsonl"))
    with torn.open("ab") as handle:
        handle.write(b'{"answer_id": "half')  # a worker killed mid-write
    first = _run(warehouse)
    return warehouse, first


def test_the_assets_materialize_the_records_of_the_window(logged):
    warehouse, first = logged
    log, fb, cov = first["question_log"], first["feedback"], first["coverage"]
    assert log["dagster/row_count"].value == 6 and log["skipped_lines"].value == 1 and log["pruned_days"].value == 1
    assert not (warehouse / "usage" / "questions" / (NOW - timedelta(days=200)).date().isoformat()).exists()
    stored = _rows(warehouse, "SELECT question, tier, answered, language FROM usage_questions ORDER BY answer_id")
    assert ("How much is the dormitory fee?", "fallback", False, "en") in stored and len(stored) == 6
    # feedback joined to the rated answer's tier through answer_id; one answer not in the log
    assert sorted(_rows(warehouse, "SELECT answer_id, helpful, reason, tier FROM usage_feedback")) == [
        ("0" * 32, False, "wrong", None), ("a" * 32, True, None, "faq"), ("d" * 32, False, "outdated", "documents")]
    assert fb["helpful_share_faq"].value == 1.0 and fb["helpful_share_documents"].value == 0.0
    assert fb["reason_outdated"].value == 1 and fb["unmatched"].value == 1
    days = _rows(warehouse, "SELECT questions, faq, documents, fallback, template, share_fallback "
                            "FROM usage_coverage_daily ORDER BY day")
    assert days == [(2, 1, 0, 1, 0, 0.5), (4, 0, 1, 2, 1, 0.5)]
    assert cov["share_fallback"].value == 0.5 and cov["questions"].value == 6
    clusters = _rows(warehouse, "SELECT rank, questions, unanswered, examples, nearest_faq_question "
                                "FROM usage_clusters ORDER BY rank")
    # the dormitory fee asked in Korean and in English: one group, first; the cafeteria alone
    assert clusters[0][:3] == (1, 2, 2)
    assert set(clusters[0][3]) == {"기숙사비는 얼마인가요?", "How much is the dormitory fee?"}
    assert [c[3] for c in clusters[1:]] == [["학식 메뉴 알려줘"]]
    assert clusters[0][4] is None and "no build" in cov["clustering"].text  # no build in this warehouse
    with (warehouse / "reports" / tables.CLUSTERS_CSV).open(encoding="utf-8-sig") as handle:
        assert len(list(csv.DictReader(handle))) == 2


def test_an_unchanged_log_is_not_read_again(logged):
    warehouse, _ = logged
    again = _run(warehouse)
    assert all(again[name]["reused"].value for name in again)
    assert again["coverage"]["clusters"].value == 2 and again["question_log"]["dagster/row_count"].value == 6
    assert _rows(warehouse, "SELECT count(*) FROM materializations WHERE asset = 'coverage'") == [(3,)]


def test_a_new_record_or_day_changes_what_the_assets_read(tmp_path):
    root = tmp_path / "usage"
    log = UsageLog(root)
    log.append("questions", _question("기숙사비?", "fallback"), now=NOW)
    before = tables.files_fingerprint(root, ["questions"], "code")
    assert tables.files_fingerprint(root, ["questions"], "code") == before  # reading changes nothing
    assert tables.files_fingerprint(root, ["feedback"], "code") != before  # another kind, other files
    log.append("questions", _question("학식?", "fallback"), now=NOW)
    appended = tables.files_fingerprint(root, ["questions"], "code")
    UsageLog(root).append("questions", _question("학식?", "fallback"), now=NOW + timedelta(days=1))
    assert len({before, appended, tables.files_fingerprint(root, ["questions"], "code")}) == 3
    assert tables.files_fingerprint(root, ["questions"], "other code") != tables.files_fingerprint(
        root, ["questions"], "code")


# ------------------------------------------------------------------------- the nearest material
def test_the_nearest_faq_entry_and_page_come_from_the_served_build(demo_warehouse):
    from advisor.index.layout import latest_build_dir
    from advisor.usage.nearest import NearestMaterial

    found_on = NearestMaterial(latest_build_dir(demo_warehouse.builds), demo_warehouse.config())
    asked = found_on.lookup("졸업에 필요한 최저 평점이 있나요?")  # an FAQ entry's own question
    assert asked["nearest_faq_question"] == "졸업에 필요한 최저 평점이 있나요?"
    assert asked["nearest_faq_url"].startswith("http") and asked["nearest_page_url"].startswith("http")
    assert asked["build_id"] == latest_build_dir(demo_warehouse.builds).name
    uncovered = found_on.lookup("기숙사비는 얼마인가요?")
    assert uncovered["nearest_faq_score"] < asked["nearest_faq_score"]  # the closest is farther away


# ------------------------------------------------------------------------------ the evaluation report
def test_the_report_says_what_students_asked_or_that_nothing_was_logged(logged, tmp_path):
    from eval.reports.charts import usage_shares_chart
    from eval.reports.page import HtmlReport, render_html
    from eval.reports.usage import NO_USAGE, UsageReport, read_usage, usage_markdown

    def page(usage):
        return render_html(HtmlReport(title="Evaluation", gold="Gold.", lineage=(), tables={}, over="all", usage=usage))

    empty = duckdb.connect()  # a lakehouse without the usage tables
    assert read_usage(empty) is None
    assert "No usage data yet" in page(None) and NO_USAGE in usage_markdown(None)

    warehouse, _ = logged
    con = duckdb.connect(str(warehouse / LAKEHOUSE_FILE), read_only=True)
    try:
        usage = read_usage(con)
    finally:
        con.close()
    assert [d["questions"] for d in usage.days] == [2, 4] and usage.clusters[0]["rank"] == 1
    chart = usage_shares_chart(usage.days, tmp_path / "usage_shares.png")
    assert chart.read_bytes().startswith(b"\x89PNG")
    text = page(UsageReport(usage.days, usage.clusters, chart))
    assert 'id="usage"' in text and "What students asked" in text and "data:image/png;base64," in text
    assert "How much is the dormitory fee?" in text and "No usage data yet" not in text
    assert ">0.50<" in text  # the first day's fallback share
    markdown = usage_markdown(UsageReport(usage.days, usage.clusters, chart))
    assert "## What students asked" in markdown and "![" in markdown and "기숙사비는 얼마인가요?" in markdown
