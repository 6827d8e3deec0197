"""Answers a student reads at a glance (issue 12 part 6): the answering sentence first, a table's
rows as sentences, no fact twice, and questions in another language than the material's."""

from __future__ import annotations

# Development examples written for this change (not the held-out benchmark): question, profile,
# the fact the answer must state. /tmp measurement scripts run them against the bundled builds.
DEV_DEMO = [
    ("팀 구성 최대 인원은 몇 명인가요?", {"department": "AI", "admission_year": 2023}, ["4명"]),
    ("인접 학과 과목은 몇 학점까지 인정되나요?", {"department": "DS", "admission_year": 2019}, ["9학점"]),
    ("융합전공자는 전공필수 몇 학점 들어야 돼?", {"department": "CS", "admission_year": 2019,
                                               "major_type": "convergence"}, ["12학점"]),
    ("국가장학금 신청 기간이 언제예요?", {}, ["5월 26일"]),
    ("졸업 이수학점은 몇 학점인가요?", {"department": "CS", "admission_year": 2019, "major_type": "convergence"},
     ["134학점"]),
    ("지도교수 면담은 몇 번 해야 해요?", {"department": "AI", "admission_year": 2023}, ["8회"]),
    ("How many credits can I register for per semester?", {"admission_year": 2022}, ["19 credits"]),
    ("What tuition reduction do I get with TOPIK level 4?", {}, ["30%"]),
    ("How many major credits do I need?", {"department": "CS", "admission_year": 2024, "major_type": "intensive"},
     ["60 credits"]),
    ("What TOPIK level do I need to graduate?", {}, ["TOPIK level 4"]),
    ("How many times must I meet my thesis advisor?", {"department": "AI", "admission_year": 2023}, ["8회"]),
]
DEV_BUSINESS = [
    ("경영학과 졸업학점 몇 학점이야?", {"major": "BUS", "campus": "sejong", "entry_year": 2020}, ["133학점"]),
    ("현장실습 몇 시간 해야 돼?", {"major": "BUS", "campus": "sejong", "entry_year": 2020}, ["120시간"]),
    ("경영역량 인증제 비교과 활동 포인트 기준은?", {"major": "BUS", "entry_year": 2025}, ["100점"]),
    ("글로벌하우스 기숙사비 얼마예요?", {"campus": "sejong"}, ["112만원"]),
    ("회계 종합시험은 몇 과목인가요?", {"major": "ACT", "entry_year": 2024}, ["4과목"]),
    ("경제학과 교양 몇 학점 들어야 해요?", {"major": "ECN", "campus": "sejong", "entry_year": 2015}, ["36학점"]),
    ("How much is the dorm fee at Sejong Campus?", {"campus": "sejong"}, ["1120,000"]),
    ("What TOPIK level do I need before graduation?", {"entry_year": 2023}, ["TOPIK level 4"]),
    ("How long can I take a leave of absence because of my visa?", {"entry_year": 2023}, ["2 consecutive semesters"]),
    ("What tuition reduction do I get with TOPIK level 5?", {}, ["50%"]),
    ("How many credits do I need to graduate?", {"major": "BUS", "campus": "sejong", "entry_year": 2020}, ["133학점"]),
]


import re  # noqa: E402

import pytest  # noqa: E402

from advisor.chunking.token_cache import tokenizer_for  # noqa: E402
from advisor.config import load_config  # noqa: E402
from advisor.llm.client import LLMClient  # noqa: E402
from advisor.retrieval import RetrievedChunk  # noqa: E402
from serving.answer import ComposedAnswer, LLMAnswerer, LLMTranslator, extractive_answer, language_of, material_note  # noqa: E402
from serving.answer.rows import has_final_consonant, row_sentence  # noqa: E402
from serving.answer.units import header_cells, readable  # noqa: E402
from tests.openai_server import error, reply, settings_for  # noqa: E402
from tests.test_answer import assert_verbatim  # noqa: E402

CONFIG = load_config()


@pytest.fixture(scope="module")
def kiwi():
    return tokenizer_for(CONFIG)


def chunk(text: str, rank: int = 1, kind: str = "page", url: str | None = None) -> RetrievedChunk:
    return RetrievedChunk(rank=rank, chunk_id=f"c{rank}", score=1.0 / rank, bm25_rank=rank, dense_rank=rank,
                          collection="static", doc_url=url or f"https://u.example/{rank}", title="안내", text=text,
                          applies_to={}, kind=kind)


def answer_for(kiwi, query, evidence, known=None, **kw) -> ComposedAnswer:
    return extractive_answer(query, evidence, known or {}, CONFIG, kiwi.content_morphemes, kiwi.split_sentences, **kw)


def first_line(answer: ComposedAnswer) -> str:
    return next(line for line in answer.text.splitlines() if line not in ("자료에 따르면:", "According to the sources:"))


# ----------------------------------------------------------------------------- a row as a sentence

@pytest.mark.parametrize("row, sentence", [
    ("- 구분: 2023학번 이후 | 기준: 66학점", "2023학번 이후는 66학점입니다."),
    ("- 학번: 2019–2020학년도 입학생 | 요건: 전공 72학점 이상", "2019–2020학년도 입학생은 전공 72학점 이상입니다."),
    ("- 교과목: 디지털리터러시 | 학점: 2", "디지털리터러시의 학점은 2입니다."),  # a bare number keeps its header
    ("- 구분: 전공(전공필수 포함) | 기준: 39학점 이상", "전공(전공필수 포함)은 39학점 이상입니다."),
    ("- 입학년도: 24학번~ | 졸업학점: 128학점 | 교양: 30학점", "24학번~의 졸업학점은 128학점, 교양은 30학점입니다."),
    ("- 구분: 신청 | 내용: 포털에서 신청합니다.", "신청은 포털에서 신청합니다."),
    ("- 구분: 졸업학점 | 기준: 133학점 이상 | 비고: -", "졸업학점은 133학점 이상입니다."),  # an empty cell says nothing
    ("- TOPIK level: Level 4 | Tuition reduction: 30%", "For Level 4, tuition reduction is 30%."),
    ("- Major type: Double major | Major credits: 36 credits | GPA: 2.0",
     "For Double major, major credits is 36 credits and GPA is 2.0."),
])
def test_a_row_reads_as_a_sentence_built_from_its_headers_and_cells(row, sentence):
    assert readable(row) == sentence
    for _, value in header_cells(row):  # the material's values, verbatim
        if value not in ("-",):
            assert value.rstrip(".") in sentence


@pytest.mark.parametrize("word, final", [("학점", True), ("기준", True), ("교양", True), ("요건", True), ("비고", False),
                                         ("2학년", True), ("2학기", False), ("12", False), ("13", True), ("전공(전공필수 포함)", True),
                                         ("Level 4", False), ("TOPIK", None)])
def test_the_particle_follows_how_the_word_ends_when_read_aloud(word, final):
    assert has_final_consonant(word) is final


def test_a_row_without_values_is_not_a_sentence():
    assert row_sentence([("구분", "-"), ("기준", "")]) == ""


# ----------------------------------------------------------------------------- the sentence that answers first

TABLE = ("## 졸업논문 지도\n\n"
         "2023학년도 입학생 졸업작품 지도 기준\n"
         "- 구분: 지도교수 면담 | 기준: 8회 이상\n"
         "- 구분: 팀 구성 최대 인원 | 기준: 4명\n"
         "- 구분: 중간발표 | 기준: 1회\n\n"
         "지도 기준은 입학년도마다 다릅니다.")


def test_the_answer_leads_with_the_row_that_answers_as_a_sentence_not_the_caption(kiwi):
    evidence = [chunk(TABLE)]
    answer = answer_for(kiwi, "팀 구성 최대 인원은 몇 명인가요?", evidence)
    assert first_line(answer).startswith("팀 구성 최대 인원은 4명입니다")
    assert "(2023학년도 입학생 졸업작품 지도 기준)" in first_line(answer)  # whose table it is, after the fact
    assert "8회" not in answer.text and "구분:" not in answer.text  # the rows that do not answer stay out
    assert "4명" in answer.snippets[0] and "2023학년도 입학생 졸업작품 지도 기준" in answer.snippets[0]
    assert_verbatim(answer, evidence)


COHORTS = ("## 전공 이수 학점\n\n학번별 전공 이수 학점\n"
           "- 구분: 2019–2022학번 | 기준: 60학점\n"
           "- 구분: 2023학번 이후 | 기준: 66학점")


def test_only_the_students_row_of_a_table_and_every_row_labelled_when_unknown(kiwi):
    evidence = [chunk(COHORTS)]
    known = answer_for(kiwi, "전공 몇 학점 들어야 돼?", evidence, {"admission_year": 2024})
    assert first_line(known).startswith("2023학번 이후는 66학점입니다") and "60학점" not in known.text
    unknown = answer_for(kiwi, "전공 몇 학점 들어야 돼?", evidence)
    assert "2019–2022학번은 60학점입니다" in unknown.text and "2023학번 이후는 66학점입니다" in unknown.text
    assert_verbatim(unknown, evidence)


def test_sources_are_ordered_by_the_unit_that_answers_best(kiwi):
    vague = chunk("## 졸업 안내\n\n졸업 요건은 학과 사무실에 문의하세요.", rank=1)
    exact = chunk(TABLE, rank=2)
    answer = answer_for(kiwi, "지도교수 면담은 몇 번 해야 해요?", [vague, exact])
    assert answer.cited[0] == 1 and first_line(answer).startswith("지도교수 면담은 8회 이상입니다")
    assert first_line(answer).endswith("[1]") or "[1]" in answer.text.splitlines()[0]


# ----------------------------------------------------------------------------- no repetition

def test_an_faq_sentence_and_the_table_row_saying_the_same_fact_appear_once(kiwi):
    faq = chunk("회계 종합시험은 몇 과목인가요?\n\n2024학년도 이후 입학자의 회계 종합시험은 4과목입니다.", rank=1, kind="faq")
    table = chunk("## 회계 종합시험\n\n회계 종합시험 기준\n- 구분: 시험 과목 | 기준: 4과목\n- 구분: 합격 기준 | 기준: 과목당 60점 이상",
                  rank=2)
    answer = answer_for(kiwi, "회계 종합시험은 몇 과목인가요?", [faq, table])
    assert answer.text.count("4과목") == 1, answer.text
    assert len(answer.cited) == len(set(answer.cited)) and all(i in answer.snippets for i in answer.cited)
    assert_verbatim(answer, [faq, table])


def test_the_same_notice_on_two_pages_appears_once(kiwi):
    one = chunk("## 휴학 신청\n\n휴학은 학기 시작 전까지 학사 포털에서 신청합니다.", rank=1)
    two = chunk("## 학적 안내\n\n휴학은 학기 시작 전까지 학사포털에서 신청합니다.", rank=2)
    answer = answer_for(kiwi, "휴학 신청은 어디서 해요?", [one, two])
    assert len(answer.text.splitlines()) == 1 and answer.cited == [0]


def test_different_facts_with_the_same_amount_are_both_kept(kiwi):
    table = chunk("## 졸업 요건\n\n이수 학점 기준\n- 구분: 교양 | 기준: 42학점\n- 구분: 전공 | 기준: 42학점")
    answer = answer_for(kiwi, "교양이랑 전공 각각 몇 학점이야?", [table])
    assert "교양은 42학점입니다" in answer.text and "전공은 42학점입니다" in answer.text


# ----------------------------------------------------------------------------- questions in another language

KOREAN_LEAVE = chunk("## 휴학\n\n휴학은 연속 2개 학기까지 할 수 있습니다.", rank=1)
ENGLISH_LEAVE = chunk("# Leave of absence\n\nYou may take a leave of absence for at most 2 consecutive semesters.",
                      rank=2)


@pytest.mark.parametrize("text, language", [
    ("휴학은 몇 학기까지 가능해?", "ko"), ("How long can I take a leave of absence?", "en"),
    ("TOPIK 4급 있으면 장학금 얼마?", "ko"), ("休学は何学期までできますか?", "ja"), ("休学可以休几个学期?", "zh"),
    ("Tôi có thể nghỉ học bao lâu?", "vi"), ("2024", "ko"),
])
def test_language_of_reads_the_script(text, language):
    assert language_of(text, default="ko") == language


def test_an_english_question_prefers_english_material_and_needs_no_note(kiwi):
    answer = answer_for(kiwi, "How long can I take a leave of absence?", [KOREAN_LEAVE, ENGLISH_LEAVE])
    assert first_line(answer).startswith("You may take a leave of absence for at most 2 consecutive semesters")
    assert answer.language_note is None


def test_an_english_question_answered_from_korean_material_says_so_in_english(kiwi):
    answer = answer_for(kiwi, "Can I take a leave of absence for 2 semesters?", [KOREAN_LEAVE])
    assert "2개 학기" in answer.text  # quoted, not translated: offline nothing is paraphrased
    assert answer.text.startswith("According to the sources:")  # the glue in the student's language
    assert answer.language_note == "This answer is quoted from Korean-language material."
    korean = answer_for(kiwi, "휴학은 몇 학기까지 돼?", [KOREAN_LEAVE])
    assert korean.language_note is None


def test_notes_name_the_material_in_the_students_language():
    assert material_note("ko", "en") == "이 답은 영어 자료에서 그대로 인용했습니다."
    assert "Korean" in material_note("en", "ko", translated=True) and "translated" in material_note("en", "ko", True)
    assert "韓国語" in material_note("ja", "ko")
    assert material_note("fr", "ko") == material_note("en", "ko")  # an unknown language gets the English note
    assert material_note("ko", "ko") is None


# ----------------------------------------------------------------------------- with an LLM

def test_translator_puts_a_foreign_question_in_the_institutions_language(openai_server):
    openai_server.script(reply({"translation": "2021학번은 휴학을 몇 학기까지 할 수 있나요?"}))
    with LLMClient(settings_for(openai_server)) as client:
        translator = LLMTranslator(client)
        assert translator.for_retrieval("휴학 몇 학기까지 돼?", CONFIG) is None  # already Korean: no call
        assert len(openai_server.requests) == 0
        out = translator.for_retrieval("How many semesters of leave can a 2021 student take?", CONFIG)
    assert out == "2021학번은 휴학을 몇 학기까지 할 수 있나요?"
    body = openai_server.requests[0]
    assert body["response_format"]["json_schema"]["strict"] is True
    assert body["response_format"]["json_schema"]["schema"]["required"] == ["translation"]
    assert "Korean" in body["messages"][0]["content"]
    assert translator.usage.calls == 1


@pytest.mark.parametrize("bad", [
    {"translation": "How many semesters?"},  # not in the target language
    {"translation": "휴학은 몇 학기까지 할 수 있나요?"},  # the cohort's number lost
    {"translation": "  "},
])
def test_translator_rejects_a_bad_translation_and_returns_none(openai_server, bad):
    openai_server.script(reply(bad), reply(bad))
    with LLMClient(settings_for(openai_server)) as client:
        out = LLMTranslator(client).for_retrieval("How many semesters of leave can a 2021 student take?", CONFIG)
    assert out is None and len(openai_server.requests) == 2  # tried again once, then gave up


def test_translator_failure_returns_none_never_raises(openai_server):
    openai_server.script(*[error(500)] * 3)
    with LLMClient(settings_for(openai_server)) as client:
        assert LLMTranslator(client).translate("Where do I apply?", "ko") is None

    class Broken:
        def complete_json(self, *args, **kwargs):
            raise RuntimeError("connection reset")

    assert LLMTranslator(Broken()).translate("Where do I apply?", "ko") is None


def test_llm_answer_is_asked_in_the_students_language_and_notes_the_korean_material(openai_server):
    openai_server.script(reply({"answer": "You can take at most 2 semesters of leave in a row [1].", "citations": [1]}))
    with LLMClient(settings_for(openai_server)) as client:
        answer = LLMAnswerer(client).answer("How long can I take a leave of absence?", [KOREAN_LEAVE], {}, CONFIG)
    assert isinstance(answer, ComposedAnswer) and answer.cited == [0]
    assert answer.language_note == "This answer is translated from Korean-language material."
    prompt = openai_server.requests[0]["messages"][-1]["content"]
    assert "Answer in: English" in prompt
    system = openai_server.requests[0]["messages"][0]["content"]
    assert "Answer in" in system and re.search(r"numbers, dates and names exactly", system)


def test_llm_answer_to_a_korean_question_has_no_language_note(openai_server):
    openai_server.script(reply({"answer": "연속 2개 학기까지 휴학할 수 있습니다 [1].", "citations": [1]}))
    with LLMClient(settings_for(openai_server)) as client:
        answer = LLMAnswerer(client).answer("휴학 몇 학기까지 돼?", [KOREAN_LEAVE], {}, CONFIG)
    assert answer.language_note is None
    assert "Answer in: Korean" in openai_server.requests[0]["messages"][-1]["content"]
