"""Intent routing: the dataset (seeds from the language data, FAQ questions, document questions), the
offline classifier (encoder vectors and character n-grams) measured on held-apart sources and on
real FAQ questions of another university, the Dagster asset that stores the dataset, and the LLM
router through a real local OpenAI server."""

from __future__ import annotations

import json
import shutil
from collections import Counter, defaultdict
from pathlib import Path

import duckdb
import pytest

from advisor.config import load_config
from advisor.index.layout import INTENT_DIR, builds_dir
from advisor.index.store import latest_build_dir, load_build
from advisor.intents import DATASET_LABELS, INTENTS, ROUTES, route_of
from advisor.intents import dataset as intent_data
from advisor.intents.classifier import IntentClassifier, choose_threshold, evaluate
from advisor.intents.dataset import IntentExample, build_intent_examples, example_id
from advisor.intents.llm_router import SCHEMA_NAME, LLMIntentRouter
from advisor.intents.seeds import seed_examples
from advisor.lakehouse import LAKEHOUSE_FILE, connect
from advisor.llm.client import LLMClient
from tests.hashing_embedder import HashingEmbedder
from tests.openai_server import error, malformed, reply, settings_for

REALDATA = Path(__file__).parents[2] / "shared/realdata/hobit-faq.jsonl"

# Floors: the held-out scores measured on the demo college's build minus a margin.
TEMPLATE_F1_FLOOR = 0.90
INFORMATION_F1_FLOOR = 0.95
REAL_KOREAN_SHARE_FLOOR = 0.95
REAL_ENGLISH_SHARE_FLOOR = 0.90


# --- an institution nobody tuned for ---------------------------------------------------------

OTHER_INSTITUTION = "Westbrook Institute of Nursing (웨스트브룩 간호대학)"
OTHER_FAQ = [
    ("기숙사 입사 신청은 언제 하나요?", "https://westbrook.example/faq#dorm-1"),
    ("임상실습 복장 규정이 있나요?", "https://westbrook.example/faq#clinical-2"),
    ("국가고시 응시 자격은 어떻게 되나요?", "https://westbrook.example/faq#exam-3"),
    ("실습 결석 시 보충은 어떻게 하나요?", "https://westbrook.example/faq#absence-4"),
    ("성적증명서를 발급받고 싶어요", "https://westbrook.example/faq#cert-5"),
    ("How do I apply for a leave of absence?", "https://westbrook.example/faq#leave-6"),
]
OTHER_DOCUMENTS = [
    {"doc_url": "https://westbrook.example/rules/clinical", "title": "임상실습 운영 규정",
     "heading_path": ["임상실습 운영 규정", "제5조(실습 시간)"], "keywords": ["임상실습", "실습시간", "병동"]},
    {"doc_url": "https://westbrook.example/rules/clinical", "title": "임상실습 운영 규정",
     "heading_path": ["임상실습 운영 규정", "제9조(실습 평가)"], "keywords": ["평가", "실습일지", "병동"]},
    {"doc_url": "https://westbrook.example/notice/17", "title": "[장학] 2027학년도 1학기 간호장학금 신청 안내",
     "heading_path": ["[장학] 2027학년도 1학기 간호장학금 신청 안내"], "keywords": ["간호장학금", "신청서", "마감"]},
    {"doc_url": "https://westbrook.example/pages/dorm", "title": "Dormitory life",
     "heading_path": ["Dormitory life", "Quiet hours"], "keywords": ["dormitory", "quiet", "curfew"]},
    {"doc_url": "https://westbrook.example/pages/board-exam",
     "indexed_text": "학사 > 국가고시 | 간호사 국가고시 준비 | 국가고시, 모의고사, 특강\n모의고사는 매년 ..."},
]


@pytest.fixture(scope="module")
def other_config():
    return load_config().model_copy(update={"institution": OTHER_INSTITUTION})


def test_seeds_give_hundreds_per_route_without_duplicates_and_use_the_institution_name():
    seeds = seed_examples(OTHER_INSTITUTION)
    per_route = Counter(s.intent for s in seeds)
    assert set(per_route) == {"greeting", "ability", "smalltalk", "leaving", "information"}
    assert min(per_route[r] for r in ("greeting", "ability", "smalltalk", "leaving")) >= 300, per_route
    assert len({s.text for s in seeds}) == len(seeds)
    greetings = [s.text for s in seeds if s.intent == "greeting"]
    assert any("웨스트브룩 간호대학" in t for t in greetings) and any("Westbrook Institute" in t for t in greetings)
    assert not any("Westbrook" in s.text or "웨스트브룩" in s.text for s in seeds if s.intent == "smalltalk")
    assert {s.intent for s in seeds if s.text.isascii()} >= {"greeting", "ability", "smalltalk", "leaving"}
    assert seed_examples(OTHER_INSTITUTION) == seeds  # deterministic


def test_dataset_on_another_institution_splits_by_source_and_lets_faq_win(other_config):
    examples = build_intent_examples(other_config, OTHER_FAQ, OTHER_DOCUMENTS)
    assert {e.intent for e in examples} == set(DATASET_LABELS)
    assert len({e.text.casefold() for e in examples}) == len(examples)
    splits_per_source = defaultdict(set)
    for e in examples:
        if e.source_url:
            splits_per_source[e.source_url].add(e.split)
        assert e.example_id == example_id(e.text, e.intent)
    assert all(len(splits) == 1 for splits in splits_per_source.values())
    # a text reachable as both faq and retrieval (an FAQ question that is also an information seed) is kept once, as faq
    shared = [e for e in examples if e.text == "How do I apply for a leave of absence?"]
    assert [(e.intent, e.origin) for e in shared] == [("faq", "faq_question")]
    retrieval_sources = {e.source_url for e in examples if e.intent == "retrieval" and e.origin == "document_question"}
    assert retrieval_sources == {d["doc_url"] for d in OTHER_DOCUMENTS}  # indexed_text-only chunks too
    faq_texts = [e.text for e in examples if e.intent == "faq"]
    assert {q for q, _ in OTHER_FAQ} <= set(faq_texts)
    assert not any("2027" in e.text or "제5조" in e.text or "[장학]" in e.text
                   for e in examples if e.origin == "document_question")
    assert build_intent_examples(other_config, OTHER_FAQ, OTHER_DOCUMENTS) == examples


def test_dataset_does_not_depend_on_the_host_the_site_is_served_from(other_config):
    # the demo college is served on a free port in every run; a mirror or staging copy has another
    # host: the same pages must give the same examples and the same train/test split
    def moved(url: str) -> str:
        return url.replace("https://westbrook.example", "http://127.0.0.1:51234")

    here = build_intent_examples(other_config, OTHER_FAQ, OTHER_DOCUMENTS)
    there = build_intent_examples(other_config, [(q, moved(u)) for q, u in OTHER_FAQ],
                                  [{**d, "doc_url": moved(d["doc_url"])} for d in OTHER_DOCUMENTS])
    assert [(e.text, e.intent, e.split) for e in here] == [(e.text, e.intent, e.split) for e in there]
    assert {e.source_url for e in there if e.source_url} <= {moved(u) for u in
                                                            [u for _, u in OTHER_FAQ] + [d["doc_url"] for d in OTHER_DOCUMENTS]}


def test_titles_become_phrases_and_questions_in_their_language():
    assert intent_data.topic_phrase("[학사] 2027학년도 2학기 휴학 신청 안내") == "휴학 신청"
    assert intent_data.topic_phrase("NURS201 기본간호학 (3학점)") == "기본간호학"
    assert intent_data.topic_phrase("Students admitted in") == ""
    assert intent_data.particles_for("휴학")["eun"] == "은" and intent_data.particles_for("장학금 신청")["eul"] == "을"
    assert intent_data.particles_for("학과 사무")["eun"] == "는" and intent_data.particles_for("2021")["ro"] == "로"
    korean = intent_data.question_frames("휴학 신청")
    assert korean and all("휴학 신청" in q for q in korean)
    assert any(q.startswith("휴학 신청은") for q in korean)  # the particle that fits
    assert all(q.isascii() for q in intent_data.question_frames("leave of absence"))


def test_bad_dataset_input_gets_a_clear_error(other_config):
    with pytest.raises(ValueError, match=r"faq_questions\[0\]"):
        build_intent_examples(other_config, [("only a question",)], [])
    with pytest.raises(ValueError, match=r"documents\[1\].*doc_url"):
        build_intent_examples(other_config, [], [OTHER_DOCUMENTS[0], {"title": "no url"}])


def test_faq_and_retrieval_are_one_route():
    assert [route_of(i) for i in DATASET_LABELS] == ["greeting", "ability", "information", "smalltalk",
                                                     "information", "leaving"]
    with pytest.raises(ValueError, match="unknown intent"):
        route_of("weather")


# --- the classifier on a small synthetic dataset -------------------------------------------------

SMALL = {
    "greeting": ["안녕하세요", "안녕", "하이", "반가워요", "hello", "hi there", "좋은 아침이에요", "안녕하세요!",
                 "hey", "반갑습니다", "헬로", "안녕 챗봇"],
    "ability": ["뭘 할 수 있어?", "무엇을 물어볼 수 있나요?", "what can you do?", "기능 알려줘", "사용법 알려줘",
                "어떤 질문에 답할 수 있나요?", "how do I use this?", "도움말", "뭐 하는 챗봇이야?",
                "어떤 도움을 받을 수 있나요?", "할 수 있는 게 뭐야?", "what can I ask you?"],
    "faq": ["학생증 재발급은 어디서 하나요?", "기숙사 신청은 언제 하나요?", "성적증명서 발급 방법은?",
            "도서관 운영 시간은 어떻게 되나요?", "주차 등록은 어떻게 하나요?", "분실물은 어디에 맡기나요?"],
    "retrieval": ["졸업하려면 전공을 몇 학점 들어야 하나요?", "휴학 신청 기간이 언제예요?", "전공필수 과목 알려주세요",
                  "이중전공 신청 자격이 어떻게 되나요?", "복학 절차를 알고 싶어요", "장학금 선발 기준이 궁금해요"],
    "smalltalk": ["고마워", "배고프다", "심심해", "시험 망했어 ㅠㅠ", "과제 너무 많아", "오늘 날씨 어때?",
                  "thanks", "피곤해", "ㅋㅋㅋ", "대박"],
    "leaving": ["잘 가", "안녕히 계세요", "bye", "see you tomorrow", "다음에 또 올게요", "이제 가볼게요"],
}


def small_examples() -> list[IntentExample]:
    return [IntentExample(example_id(t, intent), t, intent, "seed", None, "train")
            for intent, texts in SMALL.items() for t in texts]


@pytest.fixture(scope="module")
def small_classifier() -> IntentClassifier:
    return IntentClassifier.train(small_examples(), HashingEmbedder(64))


def test_small_classifier_predicts_probabilities_over_the_routes(small_classifier):
    predictions = small_classifier.predict(["안녕하세요~", "졸업 학점이 궁금해요", ""])
    assert len(predictions) == 3
    for p in predictions:
        assert set(p.scores) == set(ROUTES)
        assert abs(sum(p.scores.values()) - 1.0) < 1e-3
        assert p.confidence == max(p.scores.values()) and p.scores[p.route] == p.confidence
        assert p.sure == (p.confidence >= small_classifier.threshold)
    meta = small_classifier.meta
    expected = Counter(route_of(i) for i, texts in SMALL.items() for _ in texts)
    assert meta["training_counts"] == dict(sorted(expected.items()))
    from advisor.intents.classifier import _form

    forms = {(e.intent, _form(e.text)) for e in small_examples()}  # one encoded example per hand-written form
    assert meta["encoder"] == HashingEmbedder.version and meta["encoded_examples"] == len(forms)
    assert small_classifier.version.startswith("intent-")


def test_save_and_load_give_identical_predictions(small_classifier, tmp_path):
    texts = ["안녕!", "뭘 물어봐야 돼?", "휴학은 어떻게 해요?", "배불러", "기숙사 신청", "hello bot"]
    small_classifier.save(tmp_path / "model")
    loaded = IntentClassifier.load(tmp_path / "model", HashingEmbedder(64))
    assert loaded.predict(texts) == small_classifier.predict(texts)
    assert loaded.version == small_classifier.version
    saved = json.loads((tmp_path / "model" / "intent_classifier.json").read_text(encoding="utf-8"))
    assert saved["version"] == small_classifier.version and saved["routes"] == list(ROUTES)
    other = HashingEmbedder(64)
    other.version = "another model"
    with pytest.raises(RuntimeError, match="trained on"):
        IntentClassifier.load(tmp_path / "model", other)  # vectors of another model mean nothing to it
    with pytest.raises(FileNotFoundError, match="no intent classifier"):
        IntentClassifier.load(tmp_path / "empty")


def test_without_an_encoder_the_ngram_model_decides_alone(small_classifier, tmp_path):
    small_classifier.save(tmp_path / "model")
    alone = IntentClassifier.load(tmp_path / "model")  # no embedder given
    assert alone.encoder_model is None
    assert alone.predict(["안녕하세요!"])[0].route == "greeting"


def test_evaluate_reports_per_route(small_classifier):
    examples = small_examples()
    result = evaluate(small_classifier, examples)
    assert result["n"] == len(examples) and set(result["per_class"]) <= set(ROUTES)
    assert sum(sum(row.values()) for row in result["confusion"].values()) == len(examples)
    assert result["per_class"]["information"]["support"] == len(SMALL["faq"]) + len(SMALL["retrieval"])


def test_the_threshold_is_where_template_replies_stop_being_wrong():
    from advisor.intents.classifier import Prediction

    def predicted(route: str, confidence: float) -> Prediction:
        return Prediction(route, confidence, {route: confidence}, True)

    truth = ["greeting", "information", "ability", "information"]
    guesses = [predicted("greeting", 0.9), predicted("greeting", 0.55), predicted("ability", 0.8),
               predicted("smalltalk", 0.4)]
    chosen = choose_threshold(truth, guesses)
    # sure from 0.8: the wrong template replies (0.55, 0.4) go to the tiers, the right ones stay
    assert chosen["threshold"] == 0.8 and chosen["cost"] == 0.0 and chosen["cost_at_0"] == 2.0
    assert chosen["sure_template_precision"] == 1.0
    with pytest.raises(ValueError, match="labels but"):
        choose_threshold(truth[:1], guesses)


def test_classifier_rejects_bad_input(small_classifier):
    with pytest.raises(TypeError, match="list of texts"):
        small_classifier.predict("안녕")
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        small_classifier.predict(["안녕", None])
    with pytest.raises(ValueError, match="at least two routes"):
        IntentClassifier.train([e for e in small_examples() if e.intent == "greeting"])
    one_leaving = [e for e in small_examples() if e.intent != "leaving"] + [
        IntentExample(example_id("하나뿐인 인사", "leaving"), "하나뿐인 인사", "leaving", "seed", None, "train")]
    with pytest.raises(ValueError, match="at least 2 examples"):
        IntentClassifier.train(one_leaving)


# --- the demo college's dataset, measured --------------------------------------------------------

@pytest.fixture(scope="module")
def demo_inputs(demo_warehouse):
    con = duckdb.connect(str(demo_warehouse.root / LAKEHOUSE_FILE), read_only=True)
    try:
        return demo_warehouse.config(), intent_data.read_faq_questions(con), intent_data.read_documents(con)
    finally:
        con.close()


@pytest.fixture(scope="module")
def demo_examples(demo_inputs) -> list[IntentExample]:
    return build_intent_examples(*demo_inputs)


@pytest.fixture(scope="module")
def demo_classifier(demo_warehouse) -> IntentClassifier:
    """The classifier the demo's build trained, over the build's encoder (as serving loads it)."""
    directory = latest_build_dir(builds_dir(demo_warehouse.root))
    return IntentClassifier.load(directory / INTENT_DIR, load_build(directory).embedder)


def test_demo_dataset_is_large_balanced_unique_and_deterministic(demo_inputs, demo_examples):
    config, faq_questions, documents = demo_inputs
    assert faq_questions and documents
    per_intent = Counter(e.intent for e in demo_examples)
    assert len(demo_examples) >= 1600 and min(per_intent[i] for i in DATASET_LABELS) >= 150, per_intent
    assert len({e.text for e in demo_examples}) == len(demo_examples)
    train = {e.text for e in demo_examples if e.split == "train"}
    test = {e.text for e in demo_examples if e.split == "test"}
    assert train and test and not train & test
    assert 0.1 <= len(test) / len(demo_examples) <= 0.3
    for intent in ("faq", "retrieval"):  # held-apart questions come from held-apart sources
        sources = defaultdict(set)
        for e in demo_examples:
            if e.intent == intent and e.source_url:
                sources[e.source_url].add(e.split)
        assert all(len(s) == 1 for s in sources.values())
        assert {next(iter(s)) for s in sources.values()} == {"train", "test"}
    origins = Counter(e.origin for e in demo_examples)
    assert set(origins) == {"seed", "faq_question", "document_question"}
    again = build_intent_examples(config, list(reversed(faq_questions)), list(reversed(documents)))
    assert sorted((e.example_id, e.split) for e in again) == sorted((e.example_id, e.split) for e in demo_examples)


def test_classifier_generalizes_to_held_apart_sources(demo_examples, demo_classifier):
    test = intent_data_sample([e for e in demo_examples if e.split == "test"])
    per_class = evaluate(demo_classifier, test)["per_class"]
    for route in ("greeting", "ability", "smalltalk"):
        assert per_class[route]["f1"] >= TEMPLATE_F1_FLOOR, (route, per_class[route])
    assert per_class["information"]["f1"] >= INFORMATION_F1_FLOOR, per_class["information"]
    assert demo_classifier.meta["encoder"] and demo_classifier.encoder_model is not None


def intent_data_sample(examples: list[IntentExample]) -> list[IntentExample]:
    """A stable third of the examples (each costs an encoding)."""
    from advisor.intents.classifier import sample

    return sample(examples, max(300, len(examples) // 3))


def test_real_faq_questions_of_another_university_route_to_information(demo_classifier):
    if not REALDATA.exists():
        pytest.skip(f"real FAQ data not found at {REALDATA} (a clone without ../shared)")
    entries = [json.loads(line) for line in REALDATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert entries and {"question_ko", "question_en"} <= set(entries[0])
    for field, floor in (("question_ko", REAL_KOREAN_SHARE_FLOOR), ("question_en", REAL_ENGLISH_SHARE_FLOOR)):
        questions = [e[field] for e in entries if e.get(field)]
        predictions = demo_classifier.predict(questions)
        share = sum(p.route == "information" for p in predictions) / len(predictions)
        missed = [(q, p.route) for q, p in zip(questions, predictions) if p.route != "information"]
        assert share >= floor, (field, share, missed)


# --- the asset ------------------------------------------------------------------------------------

def test_asset_replaces_the_table_and_skips_an_unchanged_rebuild(demo_warehouse, demo_examples, tmp_path):
    from dagster import materialize

    from assets.intents import intent_dataset
    from assets.resources import InstitutionResource, WarehouseResource

    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    shutil.copy(demo_warehouse.root / LAKEHOUSE_FILE, warehouse / LAKEHOUSE_FILE)
    con = connect(warehouse)  # the pipeline may have built the dataset already: start from none
    con.execute("DELETE FROM intent_examples")
    con.close()
    resources = {"institution": InstitutionResource(config_path=str(demo_warehouse.config_path)),
                 "warehouse": WarehouseResource(path=str(warehouse))}

    def run() -> dict:
        result = materialize([intent_dataset], resources=resources)
        assert result.success
        return result.asset_materializations_for_node("intent_dataset")[0].metadata

    first = run()
    assert first["rewritten"].value is True and first["dagster/row_count"].value == len(demo_examples)
    con = duckdb.connect(str(warehouse / LAKEHOUSE_FILE), read_only=True)
    try:
        stored = intent_data.load_intent_examples(con)
        versions = con.execute("SELECT DISTINCT dataset_version, run_id FROM intent_examples").fetchall()
    finally:
        con.close()
    assert sorted(stored, key=lambda e: e.example_id) == sorted(demo_examples, key=lambda e: e.example_id)
    assert len(versions) == 1 and versions[0][0] == first["dataset_version"].value
    second = run()
    assert second["rewritten"].value is False and second["dataset_version"].value == first["dataset_version"].value
    assert second["dagster/row_count"].value == len(demo_examples)


# --- the LLM router -------------------------------------------------------------------------------

def test_llm_router_through_the_real_client(openai_server):
    openai_server.script(reply({"intent": "greeting"}), when="[A]")
    openai_server.script(error(429, retry_after="0"), reply({"intent": "retrieval"}), when="[B]")
    openai_server.script(malformed('{"intent": "faq"'), malformed("not json"), when="[C]")
    openai_server.script(reply({"intent": "weather"}), reply({"intent": "chitchat"}), when="[D]")
    with LLMClient(settings_for(openai_server)) as client:
        routed = LLMIntentRouter(client).route(["[A] 안녕하세요", "[B] 휴학 신청은 언제?", "[C] 고마워", "[D] 날씨 어때"])
    assert routed == ["greeting", "retrieval", None, None]
    assert len(openai_server.requests_containing("[B]")) == 2  # the 429, then the retry
    assert len(openai_server.requests_containing("[C]")) == 2  # malformed twice: invalid-output retry spent
    body = openai_server.requests_containing("[A]")[0]
    schema = body["response_format"]["json_schema"]
    assert schema["name"] == SCHEMA_NAME and schema["strict"] is True
    assert schema["schema"]["properties"]["intent"]["enum"] == list(INTENTS)
    assert body["messages"][0]["role"] == "system" and body["messages"][-1]["content"] == "[A] 안녕하세요"


# --- seeds and validation for routing that transfers (see also tests/test_routing_transfer.py) ----

def test_questions_about_the_assistant_itself_are_ability_seeds_not_smalltalk():
    seeds = seed_examples(OTHER_INSTITUTION)
    by_form = defaultdict(set)
    for s in seeds:
        by_form[s.group].add(s.intent)
    for form in ("너 로봇이야", "너 사람이야", "너 이름이 뭐야", "are you a robot", "what's your name"):
        assert by_form[form] == {"ability"}, form
    assert not [s.text for s in seeds if s.intent == "smalltalk" and ("로봇" in s.text or "robot" in s.text)]


def test_validation_keeps_every_variant_of_a_seed_form_on_one_side():
    from advisor.intents.classifier import _form, _validation_split

    seeds = seed_examples(OTHER_INSTITUTION)
    examples = [IntentExample(example_id(s.text, s.intent), s.text, s.intent, "seed", None, "train") for s in seeds]
    fit, held = _validation_split(examples)
    assert fit and held and len(held) <= 400  # held examples are encoded: capped
    assert not {_form(e.text) for e in fit} & {_form(e.text) for e in held}
