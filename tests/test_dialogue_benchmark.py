"""The dialogue benchmark (eval/dialogue/): its messages (every intent and register, deterministic,
disjoint from what the router and the FAQ calibration train on), its metrics on hand-made rows, and
the whole run on the shared demo build, through the engine and through the Dagster asset."""

from __future__ import annotations

import re
from collections import Counter

import duckdb
import pytest

from eval.dialogue import messages as bench
from eval.dialogue import metrics
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


def test_the_messages_are_the_same_whatever_port_the_site_is_served_from(generated, demo, monkeypatch):
    """The draws key on a URL's path (seeds.site_key), as the intent dataset's splits do: the demo
    served on another port (every test build, a staging copy) is asked the same messages, which
    its shipped vectors can then hold."""
    from dataclasses import replace

    from advisor.faq.store import faq_entries_from_build

    _, config, build = demo
    documents = bench._documents(build)

    def moved(url: str) -> str:
        return re.sub(r"^(https?://[^/:]+)(:\d+)?", r"\1:1", url)

    assert any(moved(d["doc_url"]) != d["doc_url"] for d in documents)
    monkeypatch.setattr(bench, "_documents", lambda _build: [{**d, "doc_url": moved(d["doc_url"])} for d in documents])
    entries = [replace(e, source_url=moved(e.source_url)) for e in faq_entries_from_build(build)]
    assert [m.text for m in bench.generate(build, config.institution, entries)] == [m.text for m in generated]


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
    assert by[("faq_verbatim", "all")] == {"metric": "faq_verbatim", "scope": "all", "value": None, "n": 0,
                                           "missing": None}
    assert by[("out_of_scope_false_answer_rate", "all")]["value"] is None
    assert by[("routing_accuracy", "all")]["value"] == 1.0


# ----------------------------------------------------------------------------- end to end

def test_the_benchmark_runs_through_the_engine_and_is_recorded_once(demo, monkeypatch):
    from eval.dialogue import record
    from eval.dialogue.record import results_frame, run_benchmark
    from serving.dialogue.engine import open_advisor

    warehouse, config, _ = demo
    advisor = open_advisor(warehouse.builds, config)
    # the first eight messages of each category: every kind of message goes through the engine, in
    # a fraction of the time (the whole benchmark runs in the demo build's dialogue_benchmark asset)
    generate = record.messages_module.generate

    def sample(build, institution):
        seen = Counter()
        kept = []
        for message in generate(build, institution):
            seen[message.category] += 1
            if seen[message.category] <= 8:
                kept.append(message)
        return kept

    monkeypatch.setattr(record.messages_module, "generate", sample)
    con = duckdb.connect()
    first = run_benchmark(con, advisor, config, "run-1")
    assert not first.reused and first.messages >= 40
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
    # what the asset does: the engine (Kiwi: seconds) is opened only when the run cannot be reused
    opened = []
    lazily = run_benchmark(con, lambda: opened.append(1) or advisor, config, "run-3", build=advisor.build)
    assert lazily.reused and lazily.run_id == "run-1" and opened == []
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


# ----------------------------------------------------------------------------- with an LLM: messages and judge
# Fast: a tiny stand-in build and engine, the real LLMClient over HTTP against tests/openai_server.py.

from datetime import date  # noqa: E402
from types import SimpleNamespace  # noqa: E402

import polars as pl  # noqa: E402

from advisor.faq.store import FAQEntry  # noqa: E402
from advisor.llm.client import LLMClient  # noqa: E402
from eval.dialogue import judge as judge_module  # noqa: E402
from eval.dialogue import llm_messages  # noqa: E402
from eval.dialogue.messages import Message, message_id  # noqa: E402
from eval.dialogue.runner import Result  # noqa: E402
from serving.dialogue.types import Citation, Reply  # noqa: E402
from tests.openai_server import error, malformed, reply, settings_for  # noqa: E402

# An invented institution (not the demo college): its FAQ, its chunk titles.
ENTRIES = [
    FAQEntry("e1", "출입증을 분실하면 어떻게 재발급받나요?", "학생지원팀에 분실 신고 후 재발급 신청서를 내면 3일 안에 발급됩니다.",
             "http://uni.example/faq#1", ("k1",), {"cohort": None}, "seed"),
    FAQEntry("e2", "도서관 열람실은 몇 시까지 여나요?", "열람실은 평일 23시까지, 주말은 18시까지 엽니다.",
             "http://uni.example/faq#2", ("k2",), {"cohort": None}, "seed"),
    FAQEntry("e3", "졸업 논문 제출 기한은 언제인가요?", "20학번 이후는 11월 말, 그 전 학번은 12월 초까지입니다.",
             "http://uni.example/faq#3", ("k3",), {"cohort": "2020-"}, "seed"),
]
TITLES = ["출입증 재발급 안내", "도서관 열람실 운영 시간", "졸업 논문 제출 요령", "FAQ"]
CHUNK_TEXT = {"k1": "출입증 분실 시 학생지원팀에 신고하고 재발급 신청서를 제출합니다. 3일 안에 발급됩니다.",
              "k2": "열람실 운영: 평일 23시, 주말 18시.", "k3": "졸업 논문은 11월 말까지 제출합니다."}
# Hand-made template messages: the LLM's copies of these must be dropped.
TEMPLATES = [Message(message_id(t, c), t, c, r, i, b, g, f)
             for t, c, r, i, b, g, f in (
                 ("안녕하세요", "greeting", "polite", "greeting", "template", "templates", None),
                 ("넌 뭘 할 수 있어?", "ability", "banmal", "ability", "template", "templates", None),
                 ("고마워요", "smalltalk", "polite", "smalltalk", "template", "templates", None),
                 ("출입증 잃어버렸는데 다시 받으려면?", "faq", "banmal", "faq", "faq_entry", "faq_store",
                  "http://uni.example/faq#1"),
                 ("근처 맛집 추천해줘", "out_of_scope", "banmal", None, "fallback", "templates", None),
             )]
# What a model might write, per register: one good and one bad of each (the bad ones must go).
WRITTEN = {
    "greeting": {"polite": ["안녕하세요!", "처음 뵙겠습니다, 잘 부탁드려요"], "banmal": ["안녕~", "하이 반가워"],
                 "typo": ["안냥하세여", "안뇽하세욤"], "nospace": ["안녕하세요반가워요", "좋은 아침이에요"],
                 "emoji": ["안녕하세요 👋", "안녕하세요 반가워요"], "english": ["Hi there!", "안녕 hello"],
                 "mixed": ["hello 반가워요", "반가워요 여러분"]},
    "ability": {"polite": ["혹시 사람이 답하는 건가요?", "주말에도 답변해 주시나요?"], "banmal": ["너 로봇이야?", "넌 뭘 할 수 있어?"],
                "typo": ["너 머 할수잇어?", "대화 기억햐?"], "nospace": ["너사람이야?", "밤에도대답해줘?"],
                "emoji": ["너 AI야? 🤖", "내 말 저장돼? 🙈"], "english": ["Are you a bot?", "What can you do?"],
                "mixed": ["너 ChatGPT야?", "이거 AI 맞지?"]},
    "smalltalk": {"polite": ["감사합니다!", "오늘 좀 피곤하네요"], "banmal": ["ㅋㅋ 웃기다", "고마워"],
                  "typo": ["고마어ㅠ", "피곤햐"], "nospace": ["도움이됐어요", "배고프다진짜"],
                  "emoji": ["고마워요 🙏", "기분 좋아요 😊"], "english": ["Thanks a lot", "lol"],
                  "mixed": ["thanks 많이 도움 됐어", "오늘 so tired"]},
    "out_of_scope": {"polite": ["학교 근처에 싼 원룸이 있나요?", "도서관 열람실 운영 시간 알려주세요"],
                     "banmal": ["축구 동아리 있어?", "내일 비 와?"], "typo": ["학교앞 맛집 머있어?", "버스 몇번타?"],
                     "nospace": ["근처에헬스장있어?", "알바자리추천해줘"], "emoji": ["학식 맛있어? 🍚", "주차 돼? 🚗"],
                     "english": ["Any good cafes nearby?", "Is there a gym on campus?"],
                     "mixed": ["근처 cafe 추천해줘", "campus 근처 헬스장 있어?"]},
}
PARAPHRASES = {
    "http://uni.example/faq#1": {"polite": "학생증 겸 출입카드를 잃어버렸는데 새로 받을 수 있나요?",
                                 "banmal": "출입증 잃어버렸는데 다시 받으려면?", "typo": "출입증 일어버렷는데 어케 다시받아요",
                                 "nospace": "출입카드분실하면어디로가요", "emoji": "출입증 없어졌어요 😭 어떡하죠",
                                 "english": "I lost my access card, how do I get a new one?",
                                 "mixed": "access card 잃어버렸어요 재발급 어떻게 해요"},
    "http://uni.example/faq#2": {"polite": "열람실 이용 시간이 어떻게 되나요?", "banmal": "열람실 언제 닫아?",
                                 "typo": "열람실 몇시에닫아여", "nospace": "주말에열람실몇시까지해",
                                 "emoji": "열람실 늦게까지 해요? 📚", "english": "When does the reading room close?",
                                 "mixed": "reading room 몇 시까지 열어요?"},
    "http://uni.example/faq#3": {"polite": "졸업 논문은 언제까지 내야 하나요?", "banmal": "졸논 언제까지 내?",
                                 "typo": "졸업논문 언제까지 내야되여", "nospace": "졸업논문마감일알려줘",
                                 "emoji": "논문 마감 언제예요? 😰", "english": "When is the thesis deadline?",
                                 "mixed": "thesis 마감 언제예요"},
}


def fake_build(titles=TITLES):
    chunks = pl.DataFrame({"chunk_id": list(CHUNK_TEXT), "title": titles[:3], "text": list(CHUNK_TEXT.values())})
    return SimpleNamespace(collections={"static": SimpleNamespace(chunks=chunks)}, build_id="b-test")


def _category_of(prompt: str) -> str | None:
    for category, (_, _, what) in llm_messages.HAND.items():
        if what in prompt:
            return category
    return None


def scripted_writer(body: dict):
    """The fake model: answers each request from WRITTEN / PARAPHRASES, the judge with a verdict
    that depends on the reply (so the metrics below can be computed by hand)."""
    prompt = body["messages"][-1]["content"]
    if body["response_format"]["json_schema"]["name"] == judge_module.SCHEMA_NAME:
        admits = "모르" in prompt.split("Assistant's reply:")[1]
        return reply({"reason": "scripted", "answers_message": not admits, "supported": "(none)" not in prompt,
                      "admits_not_knowing": admits})
    if (category := _category_of(prompt)) is not None:
        return reply(WRITTEN[category])
    for entry in ENTRIES:
        if entry.question in prompt:
            return reply(PARAPHRASES[entry.source_url])
    raise AssertionError(f"unscripted prompt {prompt[:80]!r}")


def _client(server, **overrides) -> LLMClient:
    return LLMClient(settings_for(server, **overrides))


def test_register_checks_read_the_register_off_the_text():
    ok = {"polite": "휴학 신청은 어디서 하나요?", "banmal": "휴학 어디서 해?", "typo": "휴학 어디서 하나여",
          "nospace": "휴학어디서해", "emoji": "휴학 어디서 해요? 🤔", "english": "Where do I apply for leave?",
          "mixed": "휴학 apply 어디서 해요?"}
    assert all(llm_messages.register_problem(text, register) is None for register, text in ok.items())
    assert llm_messages.register_problem("휴학 어디서 해?", "english") == "not_english"
    assert llm_messages.register_problem("Where do I apply?", "polite") == "no_korean"
    assert llm_messages.register_problem("휴학 어디서 해?", "mixed") == "not_mixed"
    assert llm_messages.register_problem("휴학 어디서 해?", "nospace") == "has_spaces"
    assert llm_messages.register_problem("휴학 어디서 해?", "emoji") == "no_emoji"


def test_llm_messages_over_http_gold_from_the_construction(openai_server):
    openai_server.default = scripted_writer
    con = duckdb.connect()
    with _client(openai_server) as client:
        written, report, tasks = llm_messages.write_messages(client, con, fake_build(), "새솔대학교", TEMPLATES,
                                                             faq_entries=ENTRIES, faq_count=2, independent_count=1)
    assert report.requests == 4 + 2 + 1 and report.failures == 0  # 4 hand categories, 2 paraphrased, 1 asked about
    assert {m.gold_from for m in written} == {"llm_written"}
    assert {m.category for m in written} == {"greeting", "ability", "smalltalk", "out_of_scope", "faq",
                                             "profile_independent"}
    assert {m.register for m in written} == set(REGISTERS)
    entries = {e.source_url: e for e in ENTRIES}
    for m in written:
        expected = {"greeting": ("greeting", "template"), "ability": ("ability", "template"),
                    "smalltalk": ("smalltalk", "template"), "out_of_scope": (None, "fallback"),
                    "faq": ("faq", "faq_entry"), "profile_independent": (None, "no_question")}[m.category]
        assert (m.intent, m.behaviour) == expected, m
        assert m.message_id == message_id(m.text, m.category) and m.template.startswith("llm:")
        if m.category in ("faq", "profile_independent"):
            assert m.faq_source in entries and m.text in PARAPHRASES[m.faq_source].values()
        if m.category == "profile_independent":  # only from entries that restrict no attribute
            assert all(v is None for v in entries[m.faq_source].applies_to.values())
    texts = [llm_messages.normalized(m.text) for m in written]
    assert len(texts) == len(set(texts))
    assert not set(texts) & {llm_messages.normalized(m.text) for m in TEMPLATES}
    # the bad items are dropped, each for its reason, never relabelled
    assert report.dropped["duplicate"] >= 2  # "넌 뭘 할 수 있어?", the FAQ paraphrase equal to a template
    assert report.dropped["has_spaces"] == 1 and report.dropped["not_english"] == 1
    assert report.dropped["no_emoji"] == 1 and report.dropped["not_mixed"] == 1
    assert report.dropped["echoes_title"] == 1  # "도서관 열람실 운영 시간 알려주세요": the material covers it
    assert "도서관 열람실 운영 시간 알려주세요" not in {m.text for m in written}
    assert report.kept == len(written)
    # a second run is answered from the lakehouse cache: nothing is sent
    sent = len(openai_server.requests)
    with _client(openai_server) as client:
        again, _, tasks = llm_messages.write_messages(client, con, fake_build(), "새솔대학교", TEMPLATES,
                                                      faq_entries=ENTRIES, faq_count=2, independent_count=1)
    assert again == written and len(openai_server.requests) == sent
    assert sum(t.usage.cache_hits for t in tasks) == report.requests


def test_a_429_is_retried_and_malformed_json_loses_only_its_own_request(openai_server):
    openai_server.default = scripted_writer
    ability = llm_messages.HAND["ability"][2]
    openai_server.script(error(429, retry_after="0"), when=ability)  # retried: nothing lost
    openai_server.script(malformed(), malformed(), when=ENTRIES[1].question)  # twice: this request fails
    con = duckdb.connect()
    with _client(openai_server) as client:
        first, report, _ = llm_messages.write_messages(client, con, fake_build(), "새솔대학교", TEMPLATES,
                                                       faq_entries=ENTRIES, faq_count=3, independent_count=0)
    assert dict(report.failed) == {"llm_invalid_output": 1}
    assert {m.category for m in first} >= {"ability", "greeting", "faq"}
    assert not [m for m in first if m.faq_source == ENTRIES[1].source_url]
    assert len(openai_server.requests_containing(ability)) == 2
    # the next run asks again for the failed request only (the others come from the cache)
    sent = len(openai_server.requests)
    with _client(openai_server) as client:
        second, report, _ = llm_messages.write_messages(client, con, fake_build(), "새솔대학교", TEMPLATES,
                                                        faq_entries=ENTRIES, faq_count=3, independent_count=0)
    assert report.failures == 0 and len(openai_server.requests) == sent + 1
    assert set(first) < set(second)
    assert [m for m in second if m.faq_source == ENTRIES[1].source_url]


def _result(text, category, answer, cited=(), tier="documents", gold="templates") -> Result:
    return Result(message_id(text, category), text, category, "polite", None, "answer", gold, None, None, "answer",
                  tier, None, None, None, False, 0, 0.0, answer=answer, cited_chunk_ids=tuple(cited))


def test_the_judge_scores_each_answer_over_http_and_a_failure_stays_null(openai_server):
    openai_server.default = scripted_writer
    results = [
        _result("출입증 재발급은 어디서?", "faq", "학생지원팀에 신고 후 신청서를 내면 됩니다.", ["k1"], "faq"),
        _result("열람실 몇 시까지?", "retrieval", "평일 23시까지 엽니다.", ["k2"]),
        _result("주차장 어디야?", "retrieval", "자료에서 찾지 못했어요. 모르는 내용이에요.", [], "fallback"),
        _result("근처 맛집 알려줘", "out_of_scope", "자료에 없는 내용이라 모르겠어요.", [], "fallback"),
        _result("학교 앞 헬스장 있어?", "out_of_scope", "평일 23시까지 엽니다.", ["k2"]),  # an unrelated passage
        _result("안녕!", "greeting", "안녕하세요! 무엇을 도와드릴까요?", [], "template"),
    ]
    openai_server.script(error(429, retry_after="0"), when="열람실 몇 시까지?")  # retried, then judged
    openai_server.script(malformed("{"), malformed("{"), when="안녕!")  # fails: no verdict, the reason kept
    con = duckdb.connect()
    with _client(openai_server) as client:
        judged, failures, task = judge_module.judge(results, client, con, judge_module.cited_texts(fake_build(), results))
    assert dict(failures) == {"llm_invalid_output": 1}
    by = {r.text: r for r in judged}
    assert by["안녕!"].judge_failure == "llm_invalid_output" and by["안녕!"].judge_answers is None
    assert by["열람실 몇 시까지?"].judge_answers is True and by["열람실 몇 시까지?"].judge_supported is True
    assert by["주차장 어디야?"].judge_supported is None  # nothing cited: not asked, not guessed
    assert by["근처 맛집 알려줘"].judge_admits_unknown is True
    assert by["학교 앞 헬스장 있어?"].judge_admits_unknown is False
    cited = openai_server.requests_containing("출입증 재발급은 어디서?")[0]["messages"][-1]["content"]
    assert CHUNK_TEXT["k1"] in cited  # the judge reads the cited chunk's text
    scores = {(m["metric"], m["scope"]): m for m in metrics.compute(judged)}
    assert scores[("judge_answered_share", "all")]["value"] == pytest.approx(2 / 3)  # 3 judged in scope
    assert scores[("judge_answered_share", "all")]["n"] == 3
    assert scores[("judge_out_of_scope_admits_share", "all")]["value"] == pytest.approx(1 / 2)
    assert scores[("judge_supported_share", "all")]["n"] == 3  # the three answers that cite something
    assert scores[("judge_failure_rate", "all")]["value"] == pytest.approx(1 / 6)
    assert all(m["missing"] is None for m in scores.values() if m["metric"].startswith("judge_"))


def test_without_an_llm_the_judge_metrics_say_missing_with_the_reason():
    rows = [_row("greeting", "template", "greeting"), _row("out_of_scope", "fallback", "retrieval")]
    scores = metrics.compute(rows, llm_missing="no LLM configured")
    judge_rows = [m for m in scores if m["metric"] in metrics.JUDGE_METRICS or m["metric"] == "llm_written_messages"]
    assert len(judge_rows) == len(metrics.JUDGE_METRICS) + 1
    assert all(m["value"] is None and m["n"] == 0 and m["missing"] == "no LLM configured" for m in judge_rows)
    assert "| judge_answered_share | all | – (no LLM configured) | 0 |" in metrics.markdown(scores)
    assert all(m["missing"] is None for m in scores if m not in judge_rows)


# ----------------------------------------------------------------------------- the whole run on a stand-in engine

class StubAdvisor:
    """The engine's interface, with rules that make the expected outcome obvious: greetings get the
    template, anything naming 출입증 the FAQ entry e1, anything else a document answer citing k2."""

    def __init__(self):
        self.build, self.build_id, self.faq_store = fake_build(), "b-test", None
        self.config = SimpleNamespace(today=lambda: date(2026, 3, 2))

    def new_session(self):
        return {}

    def as_of(self):  # the evaluation's "today": the build's day
        return self.config.today()

    def respond(self, session, message=None, profile=None, today=None):
        if any(w in message.casefold() for w in ("안녕", "hi", "hello")):
            return Reply("answer", answer="안녕하세요!", intent="greeting", tier="template")
        if "출입" in message or "access" in message:
            return Reply("answer", answer=ENTRIES[0].answer, intent="faq", tier="faq",
                         citations=[Citation(ENTRIES[0].source_url, None, "", "k1")])
        return Reply("answer", answer="평일 23시까지 엽니다.", intent="retrieval", tier="documents",
                     citations=[Citation("http://uni.example/lib", None, "", "k2")])


@pytest.fixture
def stub(monkeypatch):
    from eval.dialogue import record

    monkeypatch.setattr(record.messages_module, "generate", lambda build, institution: list(TEMPLATES))
    monkeypatch.setattr(llm_messages, "faq_entries_from_build", lambda build: list(ENTRIES))
    config = SimpleNamespace(institution="새솔대학교", fingerprint=lambda: "cfg")
    return record, StubAdvisor(), config


def test_offline_run_records_null_judge_columns_and_the_reason(stub):
    record, advisor, config = stub
    con = duckdb.connect()
    outcome = record.run_benchmark(con, advisor, config, "off-1", llm_missing="use_llm is off")
    frame = record.results_frame(con, "off-1")
    assert frame.height == len(TEMPLATES) and outcome.llm_report is None
    for column in ("judge_answers", "judge_supported", "judge_admits_unknown", "judge_model", "judge_failure"):
        assert frame[column].null_count() == frame.height, column
    assert frame.filter(pl.col("text") == "안녕하세요")["answer"].item() == "안녕하세요!"
    missing = con.execute("SELECT metric, missing FROM dialogue_bench_metrics WHERE run_id = 'off-1' "
                          "AND missing IS NOT NULL").fetchall()
    assert {m for m, _ in missing} == {*metrics.JUDGE_METRICS, "llm_written_messages"}
    assert {reason for _, reason in missing} == {"use_llm is off"}
    assert con.execute("SELECT DISTINCT gold_from FROM dialogue_bench_metrics").fetchone()[0] == "templates+faq_store"
    again = record.run_benchmark(con, advisor, config, "off-2")
    assert again.reused and again.metrics == outcome.metrics


def test_llm_run_adds_written_messages_and_verdicts_and_redoes_only_what_failed(stub, openai_server):
    record, advisor, config = stub
    openai_server.default = scripted_writer
    openai_server.script(error(503), error(503), error(503), when="Student's message:\n<<<\n안녕하세요\n")
    con = duckdb.connect()
    with _client(openai_server) as client:
        first = record.run_benchmark(con, advisor, config, "llm-1", llm_client=client)
    frame = record.results_frame(con, "llm-1")
    written = frame.filter(pl.col("gold_from") == "llm_written")
    assert written.height == first.llm_report["llm_written"] > 0
    assert frame.filter(pl.col("text") == "안녕하세요")["judge_failure"].item() == "llm_http_503"
    assert frame["judge_answers"].null_count() == 1  # the one whose judging failed, nothing else
    assert first.llm_report["judge_failures"] == {"llm_http_503": 1}
    by = {(m["metric"], m["scope"]): m for m in first.metrics}
    assert by[("llm_written_messages", "all")]["value"] == written.height
    assert by[("routing_accuracy_template_faq", "llm_written")]["n"] > 0
    assert by[("judge_failure_rate", "all")]["value"] > 0
    assert con.execute("SELECT DISTINCT gold_from FROM dialogue_bench_metrics").fetchone()[0] == \
        "templates+faq_store+llm_written"
    tasks = {t for (t,) in con.execute("SELECT task FROM llm_usage WHERE run_id = 'llm-1'").fetchall()}
    assert tasks == {llm_messages.TASK, llm_messages.ENTRY_TASK, judge_module.TASK}
    # a run that lost a verdict is not reused: the next one asks for that verdict only
    sent = len(openai_server.requests)
    with _client(openai_server) as client:
        second = record.run_benchmark(con, advisor, config, "llm-2", llm_client=client)
    assert not second.reused and len(openai_server.requests) == sent + 1
    assert record.results_frame(con, "llm-2")["judge_answers"].null_count() == 0
    with _client(openai_server) as client:
        third = record.run_benchmark(con, advisor, config, "llm-3", llm_client=client)
    assert third.reused and third.run_id == "llm-2"


def test_an_older_lakehouse_gains_the_new_columns_and_keeps_its_rows():
    from eval import store as eval_store
    from eval.dialogue import record
    from eval.store.schema import added_columns

    added = [(t, c) for t, c, _ in added_columns() if t.startswith("dialogue_bench_")]
    assert ("dialogue_bench_metrics", "missing") in added and ("dialogue_bench_results", "judge_answers") in added
    con = duckdb.connect()
    eval_store.ensure_schema(con)
    for table, column in added:  # the tables as the first version of the benchmark made them
        con.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    con.execute("INSERT INTO dialogue_bench_metrics (run_id, metric, scope, value, n, build_id, institution, "
                "messages_hash, code_version, fingerprint, gold_from, created_at) VALUES "
                "('old', 'messages', 'all', 3, 3, 'b', 'i', 'h', 'c', 'f', 'templates+faq_store', now())")
    eval_store.ensure_schema(con)
    eval_store.ensure_schema(con)  # idempotent
    columns = {(t, c) for t, c in con.execute("SELECT table_name, column_name FROM information_schema.columns "
                                               "WHERE table_name LIKE 'dialogue_bench_%'").fetchall()}
    assert set(added) <= columns
    assert record.metrics_of(con, "old") == [{"metric": "messages", "scope": "all", "value": 3.0, "n": 3,
                                              "missing": None}]
