"""Intent routing: the dataset (seeds, FAQ questions and rewrites, document questions), the offline
classifier measured on held-apart sources and on real FAQ questions of another university, the
Dagster asset that stores the dataset, and the LLM router through a real local OpenAI server."""

from __future__ import annotations

import json
import shutil
from collections import Counter, defaultdict
from pathlib import Path

import duckdb
import pytest

from advisor.config import load_config
from advisor.intents import INTENTS, coarse
from advisor.intents import dataset as intent_data
from advisor.intents.classifier import IntentClassifier, evaluate
from advisor.intents.dataset import IntentExample, build_intent_examples, example_id
from advisor.intents.llm_router import SCHEMA_NAME, LLMIntentRouter
from advisor.intents.seeds import ENGLISH_INFO_QUESTIONS, seed_examples
from advisor.lakehouse import LAKEHOUSE_FILE, connect
from advisor.llm.client import LLMClient
from tests.openai_server import error, malformed, reply, settings_for

REALDATA = Path(__file__).parents[2] / "shared/realdata/hobit-faq.jsonl"

# Floors: the held-out scores measured on the demo college (greeting 0.94, ability 0.94, smalltalk
# 0.96, information 0.98; real FAQ questions: Korean 1.00, English 0.97) minus a margin.
SEED_CLASS_F1_FLOOR = 0.90
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
    (ENGLISH_INFO_QUESTIONS[0], "https://westbrook.example/faq#leave-6"),  # also a retrieval seed
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


def test_seeds_give_hundreds_per_class_without_duplicates_and_use_the_institution_name():
    seeds = seed_examples(OTHER_INSTITUTION)
    per_intent = Counter(s.intent for s in seeds)
    assert set(per_intent) == {"greeting", "ability", "smalltalk"}
    assert min(per_intent.values()) >= 300, per_intent
    assert len({s.text for s in seeds}) == len(seeds)
    greetings = [s.text for s in seeds if s.intent == "greeting"]
    assert any("웨스트브룩 간호대학" in t for t in greetings) and any("Westbrook Institute" in t for t in greetings)
    assert not any("Westbrook" in s.text or "웨스트브룩" in s.text for s in seeds if s.intent == "smalltalk")
    assert seed_examples(OTHER_INSTITUTION) == seeds  # deterministic


def test_dataset_on_another_institution_splits_by_source_and_lets_faq_win(other_config):
    examples = build_intent_examples(other_config, OTHER_FAQ, OTHER_DOCUMENTS)
    assert {e.intent for e in examples} == set(INTENTS)
    assert len({e.text.casefold() for e in examples}) == len(examples)
    splits_per_source = defaultdict(set)
    for e in examples:
        if e.source_url:
            splits_per_source[e.source_url].add(e.split)
        assert e.example_id == example_id(e.text, e.intent)
    assert all(len(splits) == 1 for splits in splits_per_source.values())
    # a text reachable as both faq and retrieval is kept once, as faq
    shared = [e for e in examples if e.text == ENGLISH_INFO_QUESTIONS[0]]
    assert [(e.intent, e.origin) for e in shared] == [("faq", "faq_question")]
    retrieval_sources = {e.source_url for e in examples if e.intent == "retrieval" and e.origin == "document_question"}
    assert retrieval_sources == {d["doc_url"] for d in OTHER_DOCUMENTS}  # indexed_text-only chunks too
    faq_texts = [e.text for e in examples if e.intent == "faq"]
    assert len(faq_texts) > len(OTHER_FAQ)  # rewrites beside the questions themselves
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


def test_faq_rewrites_keep_the_question_and_change_its_form():
    rewrites = intent_data.faq_rewrites("국가고시 응시 자격은 어떻게 되나요?", "u", [])
    assert rewrites and all("국가고시" in r for r in rewrites)
    assert "국가고시 응시 자격 알려주세요" in intent_data._ending_swaps("국가고시 응시 자격은 어떻게 되나요?")
    assert "간호학과 실습 규정은 어떻게 되나요?" in intent_data._ending_swaps("간호학과 실습 규정을 알려 주세요.")
    assert intent_data.keyword_form("실습 결석 시 보충은 어떻게 하나요?") == "실습 결석 보충"
    assert intent_data.topic_phrase("[학사] 2027학년도 2학기 휴학 신청 안내") == "휴학 신청"
    assert intent_data.topic_phrase("NURS201 기본간호학 (3학점)") == "기본간호학"


def test_bad_dataset_input_gets_a_clear_error(other_config):
    with pytest.raises(ValueError, match=r"faq_questions\[0\]"):
        build_intent_examples(other_config, [("only a question",)], [])
    with pytest.raises(ValueError, match=r"documents\[1\].*doc_url"):
        build_intent_examples(other_config, [], [OTHER_DOCUMENTS[0], {"title": "no url"}])


def test_coarse_merges_faq_and_retrieval_only():
    assert [coarse(i) for i in INTENTS] == ["greeting", "ability", "information", "smalltalk", "information"]
    with pytest.raises(ValueError, match="unknown intent"):
        coarse("weather")


# --- the classifier on a small synthetic dataset -------------------------------------------------

SMALL = {
    "greeting": ["안녕하세요", "안녕", "하이", "반가워요", "hello", "hi there", "좋은 아침이에요", "안녕하세요!",
                 "hey", "반갑습니다", "헬로", "안녕 챗봇"],
    "ability": ["뭘 할 수 있어?", "무엇을 물어볼 수 있나요?", "what can you do?", "기능 알려줘", "사용법 알려줘",
                "어떤 질문에 답할 수 있나요?", "how do I use this?", "도움말", "뭐 하는 챗봇이야?",
                "어떤 도움을 받을 수 있나요?", "할 수 있는 게 뭐야?", "what can I ask you?"],
    "faq": ["학생증 재발급은 어디서 하나요?", "기숙사 신청은 언제 하나요?", "성적증명서 발급 방법은?",
            "도서관 운영 시간은 어떻게 되나요?", "주차 등록은 어떻게 하나요?", "분실물은 어디에 맡기나요?",
            "학과 사무실 전화번호가 뭔가요?", "셔틀버스 시간표는 어디서 보나요?", "와이파이 접속 방법은?",
            "사물함 신청은 언제 하나요?", "열람실 예약은 어떻게 하나요?", "우편물은 어디서 받나요?"],
    "retrieval": ["졸업하려면 전공을 몇 학점 들어야 하나요?", "휴학 신청 기간이 언제예요?", "전공필수 과목 알려주세요",
                  "이중전공 신청 자격이 어떻게 되나요?", "복학 절차를 알고 싶어요", "장학금 선발 기준이 궁금해요",
                  "계절학기 수강 신청 방법", "편입생 학점 인정 기준", "교육과정 변경 내용 알려줘",
                  "캡스톤디자인 이수 요건은?", "현장실습 학점 인정은 몇 학점까지?", "영어 졸업 요건이 뭐예요?"],
    "smalltalk": ["고마워", "배고프다", "심심해", "시험 망했어 ㅠㅠ", "과제 너무 많아", "오늘 날씨 어때?", "너 이름이 뭐야?",
                  "thanks", "좋은 하루", "피곤해", "ㅋㅋㅋ", "잘 가"],
}


def small_examples() -> list[IntentExample]:
    return [IntentExample(example_id(t, intent), t, intent, "seed", None, "train")
            for intent, texts in SMALL.items() for t in texts]


@pytest.fixture(scope="module")
def small_classifier() -> IntentClassifier:
    return IntentClassifier.train(small_examples())


def test_small_classifier_predicts_probabilities_and_records_both_models(small_classifier):
    predictions = small_classifier.predict(["안녕하세요~", "졸업 학점이 궁금해요", ""])
    assert len(predictions) == 3
    for p in predictions:
        assert set(p.scores) == set(INTENTS)
        assert abs(sum(p.scores.values()) - 1.0) < 1e-3
        assert p.confidence == max(p.scores.values()) and p.scores[p.intent] == p.confidence
    meta = small_classifier.meta
    assert meta["model"] in ("logreg", "linear_svc") and set(meta["selection"]) == {"logreg", "linear_svc"}
    assert meta["training_counts"] == {intent: len(texts) for intent, texts in sorted(SMALL.items())}
    assert small_classifier.version.startswith(f"intent-{meta['model']}-")


def test_save_and_load_give_identical_predictions(small_classifier, tmp_path):
    texts = ["안녕!", "뭘 물어봐야 돼?", "휴학은 어떻게 해요?", "배불러", "기숙사 신청", "hello bot"]
    small_classifier.save(tmp_path / "model")
    loaded = IntentClassifier.load(tmp_path / "model")
    assert loaded.predict(texts) == small_classifier.predict(texts)
    assert loaded.version == small_classifier.version and loaded.classes == small_classifier.classes
    saved = json.loads((tmp_path / "model" / "intent_classifier.json").read_text(encoding="utf-8"))
    assert saved["version"] == small_classifier.version and saved["classes"] == list(loaded.classes)
    with pytest.raises(FileNotFoundError, match="no intent classifier"):
        IntentClassifier.load(tmp_path / "empty")


def test_evaluate_reports_per_class_and_coarse_metrics(small_classifier):
    examples = small_examples()
    result = evaluate(small_classifier, examples)
    assert result["n"] == len(examples) and set(result["per_class"]) == set(INTENTS)
    assert sum(sum(row.values()) for row in result["confusion"].values()) == len(examples)
    assert set(result["coarse"]["per_class"]) == {"greeting", "ability", "smalltalk", "information"}
    assert result["coarse"]["per_class"]["information"]["support"] == len(SMALL["faq"]) + len(SMALL["retrieval"])
    # merging the two information intents can only remove errors
    assert result["coarse"]["accuracy"] >= result["accuracy"]


def test_classifier_rejects_bad_input(small_classifier):
    with pytest.raises(TypeError, match="list of texts"):
        small_classifier.predict("안녕")
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        small_classifier.predict(["안녕", None])
    with pytest.raises(ValueError, match="at least two intents"):
        IntentClassifier.train([e for e in small_examples() if e.intent == "greeting"])
    one_faq = [e for e in small_examples() if e.intent != "faq"] + [
        IntentExample(example_id("하나뿐인 질문", "faq"), "하나뿐인 질문", "faq", "seed", None, "train")]
    with pytest.raises(ValueError, match="at least 3 examples"):
        IntentClassifier.train(one_faq)


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
def demo_classifier(demo_examples) -> IntentClassifier:
    return IntentClassifier.train([e for e in demo_examples if e.split == "train"])


def test_demo_dataset_is_large_balanced_unique_and_deterministic(demo_inputs, demo_examples):
    config, faq_questions, documents = demo_inputs
    assert faq_questions and documents
    per_intent = Counter(e.intent for e in demo_examples)
    assert len(demo_examples) >= 1600 and min(per_intent[i] for i in INTENTS) >= 150, per_intent
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
    assert set(origins) == {"seed", "faq_question", "faq_rewrite", "document_question"}
    again = build_intent_examples(config, list(reversed(faq_questions)), list(reversed(documents)))
    assert sorted((e.example_id, e.split) for e in again) == sorted((e.example_id, e.split) for e in demo_examples)


def test_classifier_generalizes_to_held_apart_sources(demo_examples, demo_classifier):
    result = evaluate(demo_classifier, [e for e in demo_examples if e.split == "test"])
    per_class = result["per_class"]
    for intent in ("greeting", "ability", "smalltalk"):
        assert per_class[intent]["f1"] >= SEED_CLASS_F1_FLOOR, (intent, per_class[intent])
    assert result["coarse"]["per_class"]["information"]["f1"] >= INFORMATION_F1_FLOOR, result["coarse"]
    selection = demo_classifier.meta["selection"]
    assert all(selection[m]["macro_f1"] > 0.5 for m in ("logreg", "linear_svc"))


def test_real_faq_questions_of_another_university_route_to_information(demo_classifier):
    if not REALDATA.exists():
        pytest.skip(f"real FAQ data not found at {REALDATA} (a clone without ../shared)")
    entries = [json.loads(line) for line in REALDATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert entries and {"question_ko", "question_en"} <= set(entries[0])
    for field, floor in (("question_ko", REAL_KOREAN_SHARE_FLOOR), ("question_en", REAL_ENGLISH_SHARE_FLOOR)):
        questions = [e[field] for e in entries if e.get(field)]
        predictions = demo_classifier.predict(questions)
        share = sum(coarse(p.intent) == "information" for p in predictions) / len(predictions)
        missed = [(q, p.intent) for q, p in zip(questions, predictions) if coarse(p.intent) != "information"]
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
    from advisor.intents.classifier import _validation_split
    from advisor.intents.seeds import form_key

    seeds = seed_examples(OTHER_INSTITUTION)
    examples = [IntentExample(example_id(s.text, s.intent), s.text, s.intent, "seed", None, "train") for s in seeds]
    fit, held = _validation_split(examples)
    assert fit and held and 0.1 <= len(held) / len(examples) <= 0.3
    assert not {form_key(e.text) for e in fit} & {form_key(e.text) for e in held}
    groups = defaultdict(set)
    side = {e.text: "held" for e in held} | {e.text: "fit" for e in fit}
    for s in seeds:
        groups[s.group].add(side[s.text])
    split_groups = [g for g, sides in groups.items() if len(sides) > 1]
    assert len(split_groups) <= len(groups) // 10, split_groups  # a decoration now and then reads as a form
