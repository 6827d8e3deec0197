"""The dialogue benchmark (eval/dialogue/): its messages (every intent and register, deterministic,
disjoint from what the router and the FAQ calibration train on), its metrics on hand-made rows, and
the whole run on the shared demo build, through the engine and through the Dagster asset."""

from __future__ import annotations

import re

import duckdb
import pytest

from eval.dialogue import messages as bench, metrics
from eval.dialogue.messages import CATEGORIES, REGISTERS


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


@pytest.fixture(scope="module")
def demo(demo_warehouse):
    from advisor.index.store import latest_build_dir, load_build

    config = demo_warehouse.config()
    build = load_build(latest_build_dir(demo_warehouse.builds))
    return demo_warehouse, config, build


@pytest.fixture(scope="module")
def generated(demo):
    _, config, build = demo
    return bench.generate(build, config.institution)


# ----------------------------------------------------------------------------- generation

def test_every_category_and_register_is_present(generated):
    assert {m.category for m in generated} == set(CATEGORIES)
    assert {m.register for m in generated} == set(REGISTERS)
    for category in ("greeting", "ability", "smalltalk", "faq", "retrieval"):
        registers = {m.register for m in generated if m.category == category}
        assert len(registers) >= 5, (category, registers)
    assert 150 <= len(generated) <= 400  # a few hundred: one pass stays well under a minute
    assert len({m.message_id for m in generated}) == len({_norm(m.text) for m in generated}) == len(generated)


def test_expectations_follow_the_category(generated, demo):
    _, _, build = demo
    from advisor.faq.store import faq_entries_from_build

    entries = {e.source_url: e for e in faq_entries_from_build(build)}
    for m in generated:
        if m.category == "faq":
            assert m.behaviour == "faq_entry" and m.gold_from == "faq_store" and m.faq_source in entries
        elif m.category == "profile_independent":
            assert m.behaviour == "no_question"
            if m.faq_source:  # from an FAQ entry that restricts no attribute
                assert all(v is None for v in entries[m.faq_source].applies_to.values())
        elif m.category == "out_of_scope":
            assert m.behaviour == "fallback" and m.intent is None
        else:
            assert m.intent == m.category


def test_generation_is_deterministic(generated, demo):
    _, config, build = demo
    again = bench.generate(build, config.institution)
    assert again == generated
    assert bench.messages_hash(again) == bench.messages_hash(generated)


def test_no_message_is_a_training_example_or_a_calibration_paraphrase(generated, demo):
    """A test of generalization, not of recall: no message equals an example of the intent dataset
    (the lakehouse's intent_examples), a rule paraphrase the FAQ threshold is calibrated on, or a
    document query of that calibration."""
    from advisor.chunking.token_cache import tokenizer_for
    from advisor.faq.calibrate import document_queries
    from advisor.faq.paraphrase import paraphrases
    from advisor.faq.store import faq_entries_from_build

    warehouse, config, build = demo
    con = duckdb.connect(str(warehouse.root / "lakehouse.duckdb"), read_only=True)
    try:
        training = {_norm(t) for (t,) in con.execute("SELECT text FROM intent_examples").fetchall()}
    finally:
        con.close()
    assert len(training) > 500
    tokenize = tokenizer_for(config).content_morphemes
    calibration = {_norm(q.text) for q in document_queries(build)}
    for entry in faq_entries_from_build(build):
        calibration |= {_norm(p) for p in paraphrases(entry.question, 40, 0, tokenize)}
    texts = {_norm(m.text) for m in generated}
    assert not texts & training, sorted(texts & training)
    assert not texts & calibration, sorted(texts & calibration)


def test_register_transforms():
    assert bench.nospace("졸업 학점 알려 줘") == "졸업학점알려줘"
    assert bench.typo("어떻게 신청해요") == "어케 신청해용"
    assert bench.casual_form("휴학은 언제 신청하나요") == "휴학은 언제 신청해?"
    assert bench.casual_form("융합전공은 어떤 전공인가요") == "융합전공은 어떤 전공이야?"
    assert bench.casual_form("전공필수를 알려 주세요") == "전공필수를 알려 줘"


# ----------------------------------------------------------------------------- metrics

def _row(category, tier, routed=None, *, expected_faq=None, cited=None, verbatim=False, asked=0, register="polite"):
    return {"category": category, "register": register, "tier": tier, "routed_intent": routed,
            "expected_faq": expected_faq, "faq_cited": cited if tier == "faq" else None, "first_citation": cited,
            "verbatim": verbatim, "questions_asked": asked}


def test_metrics_on_hand_made_rows():
    rows = [
        _row("greeting", "template", "greeting"),
        _row("greeting", "template", "smalltalk", register="banmal"),  # a greeting taken for smalltalk
        _row("ability", "documents", "retrieval", asked=1),  # a meta-question answered from documents
        _row("smalltalk", "template", "smalltalk"),
        _row("faq", "faq", "faq", expected_faq="u1", cited="u1", verbatim=True),
        _row("faq", "faq", "faq", expected_faq="u2", cited="u9"),  # the wrong entry: wrong, not faq
        _row("faq", "documents", "retrieval", expected_faq="u3", cited="u3"),  # right source, not the FAQ tier
        _row("retrieval", "faq", "faq", cited="u5"),  # a document question the FAQ tier took
        _row("retrieval", "fallback", "retrieval"),
        _row("profile_independent", "documents", "retrieval", asked=2),
        _row("profile_independent", "faq", "faq", asked=0),
        _row("profile_independent", "documents", "retrieval", asked=0),
        _row("out_of_scope", "documents", "retrieval"),
        _row("out_of_scope", "fallback", "retrieval"),
        _row("out_of_scope", "template", "smalltalk"),
    ]
    scores = metrics.compute(rows)
    by = {(m["metric"], m["scope"]): m for m in scores}
    # routed: 9 messages, right: greeting, smalltalk, faq u1, retrieval fallback = 4
    assert by[("routing_accuracy", "all")]["value"] == pytest.approx(4 / 9)
    assert by[("routing_accuracy", "all")]["n"] == 9
    assert by[("routing_recall", "faq")]["value"] == pytest.approx(1 / 3)
    assert by[("routing_precision", "faq")]["value"] == pytest.approx(1 / 2)  # the retrieval one taken by FAQ
    assert by[("routing_precision", "smalltalk")]["value"] == pytest.approx(1 / 2)
    assert by[("routing_recall", "ability")]["value"] == 0.0
    assert by[("routing_recall", "retrieval")]["value"] == pytest.approx(1 / 2)
    assert by[("routing_accuracy_template_faq", "all")]["value"] == pytest.approx(3 / 7)
    assert by[("routing_accuracy", "banmal")]["value"] == 0.0
    assert by[("faq_right_entry_first", "all")]["value"] == pytest.approx(2 / 3)
    assert by[("faq_verbatim", "all")]["value"] == pytest.approx(1 / 3)
    assert by[("profile_independent_asked_share", "all")]["value"] == pytest.approx(1 / 3)
    assert by[("profile_independent_questions_per_message", "all")]["value"] == pytest.approx(2 / 3)
    assert by[("template_intents_asked_share", "all")]["value"] == pytest.approx(1 / 4)
    assert by[("out_of_scope_false_answer_rate", "all")]["value"] == pytest.approx(1 / 3)
    assert "| faq_verbatim | all | 0.333 | 3 |" in metrics.markdown(scores)


def test_metrics_without_messages_of_a_kind_are_null_not_zero():
    scores = metrics.compute([_row("greeting", "template", "greeting")])
    by = {(m["metric"], m["scope"]): m for m in scores}
    assert by[("faq_verbatim", "all")] == {"metric": "faq_verbatim", "scope": "all", "value": None, "n": 0}
    assert by[("out_of_scope_false_answer_rate", "all")]["value"] is None
    assert by[("routing_accuracy", "all")]["value"] == 1.0


# ----------------------------------------------------------------------------- end to end

def test_the_benchmark_runs_through_the_engine_and_is_recorded_once(demo):
    from eval.dialogue.record import results_frame, run_benchmark
    from serving.dialogue.engine import open_advisor

    warehouse, config, _ = demo
    advisor = open_advisor(warehouse.builds, config)
    con = duckdb.connect()
    first = run_benchmark(con, advisor, config, "run-1")
    assert not first.reused and first.messages >= 150
    frame = results_frame(con, "run-1")
    assert frame.height == first.messages
    assert set(frame["reply_kind"]) <= {"template", "question", "answer"}
    assert set(frame["tier"]) <= {"template", "faq", "documents", "fallback"}
    assert set(frame["gold_from"]) == {"templates", "faq_store"}
    # the demo's own FAQ, in other words: the FAQ tier answers a good share verbatim
    faq = frame.filter(frame["category"] == "faq")
    assert faq["verbatim"].sum() > 0 and (faq["first_citation"] == faq["expected_faq"]).sum() > 0
    headline = {m["metric"]: m["value"] for m in first.metrics if m["scope"] == "all"}
    assert 0 < headline["routing_accuracy"] <= 1 and headline["messages"] == first.messages
    again = run_benchmark(con, advisor, config, "run-2")  # same build, code, config: reused
    assert again.reused and again.run_id == "run-1" and again.metrics == first.metrics
    assert con.execute("SELECT count(DISTINCT run_id) FROM dialogue_bench_results").fetchone()[0] == 1


def test_the_asset_recorded_the_benchmark_in_the_demo_lakehouse(demo):
    """The session fixture materializes every asset but the QA evaluation: dialogue_benchmark among them."""
    warehouse, _, _ = demo
    con = duckdb.connect(str(warehouse.root / "lakehouse.duckdb"), read_only=True)
    try:
        metrics_rows = con.execute("SELECT DISTINCT run_id, build_id, gold_from FROM dialogue_bench_metrics").fetchall()
        assets = {a for (a,) in con.execute("SELECT DISTINCT asset FROM materializations").fetchall()}
    finally:
        con.close()
    assert len(metrics_rows) == 1 and metrics_rows[0][2] == "templates+faq_store"
    assert "dialogue_benchmark" in assets
