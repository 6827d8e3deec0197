"""English questions to institutions that write in Korean, offline (issue 12, part 6): the student's
own row of an English table, the Korean pages when they answer as well as the English summary does,
English verbs of asking that are no topic, and FAQ scores in a language the FAQ barely has."""

from __future__ import annotations

import pytest

from serving.dialogue.answerability import contains
from serving.dialogue.engine import open_advisor

PROFILE = {"department": "CS", "admission_year": 2021, "major_type": "intensive", "grade": 3}


@pytest.fixture(scope="module")
def demo(demo_warehouse):
    return open_advisor(demo_warehouse.builds, demo_warehouse.config())


@pytest.fixture(scope="module")
def business(business_warehouse):
    return open_advisor(business_warehouse.builds, business_warehouse.config())


def ask(advisor, message, profile=None):
    session = advisor.new_session(dict(profile or {}))
    reply = advisor.respond(session, message=message)
    while reply.type == "ask":
        reply = advisor.respond(session, profile={q.attribute: None for q in reply.questions})
    return reply


def test_an_english_word_is_in_a_text_where_a_word_begins_with_it():
    assert contains("Graduates must pass", "graduate")
    assert not contains("International undergraduates must", "graduate")
    assert contains("학위복 대여", "대여") and contains("GPA 3.0", "gpa")


def test_english_verbs_of_asking_are_not_what_a_question_is_about(demo):
    assert demo._key_words("how many credits must I complete?") == ("credits",)
    assert demo._key_words("what happens if I need to take leave?") == ("leave",)


def test_an_english_table_answers_with_the_students_own_row(demo):
    reply = ask(demo, "How many credits do I need in total to graduate?", PROFILE)
    # the student's cohort row (an English table writes 2021–2022, a Korean page or entry 21~22학번)
    assert reply.tier in ("documents", "faq") and ("2021–2022" in reply.answer or "21~22학번" in reply.answer)
    assert "2015–2016" not in reply.answer and "2026" not in reply.answer.splitlines()[0]


def test_the_korean_pages_answer_what_the_english_summary_only_mentions(demo):
    reply = ask(demo, "how many major foundation credits must I complete?", PROFILE)
    # the Korean material states the number (an entry or a page for the student), not the summary
    assert reply.tier in ("documents", "faq") and "전공기초" in reply.answer
    assert reply.disclaimer.endswith("This answer is quoted from Korean-language material.")


def test_an_entry_in_a_language_the_faq_barely_has_must_share_the_questions_words(business):
    english = [e for e in business.faq_store.entries if e.question.isascii()]
    assert 0 < len(english) < 10  # the business college's FAQ has one English entry
    for message in ("how do I change my major?", "can I retake a course I failed?",
                    "do I need to take an English test to graduate?"):
        reply = ask(business, message)
        assert not (reply.tier == "faq" and reply.citations[0].url == english[0].source_url), message
    # a question it does answer still gets it
    reply = ask(business, english[0].question)
    assert reply.tier == "faq" and reply.citations[0].url == english[0].source_url


def test_an_english_question_is_ranked_by_the_encoder_and_a_korean_one_by_both_signals(demo):
    """BM25 reads only the words the documents are written in: a question searched in English words
    (those the glossary has no Korean term for) is ranked by the encoder alone; one the glossary
    renders in the institution's terms, like a Korean question, by both signals."""
    english = ask(demo, "Where can I get some advice about my career plans?", PROFILE)
    glossed = ask(demo, "How many credits do I need in total to graduate?", PROFILE)
    korean = ask(demo, "졸업하려면 총 몇 학점 들어야 해요?", PROFILE)
    assert english.trace["last_retrieval"].mode == "dense"
    assert glossed.trace["search_text"].isascii() is False and glossed.trace["last_retrieval"].mode == "hybrid"
    assert korean.trace["last_retrieval"].mode == "hybrid"


def test_an_english_question_finds_the_korean_page_that_answers_it_not_the_english_summary(demo):
    """The encoder scores the few English summary pages higher for any English question; with each
    language's level taken out (signals.language_balanced), the Korean page that lists the labs
    ranks above the department's English summary, and a Korean question keeps the plain cosines."""
    retriever = demo.retriever
    english = [c.doc_url for c in retriever.search(
        "Who supervises the natural language processing lab in the AI department?", {}, mode="dense").chunks]
    labs = next(i for i, url in enumerate(english) if url.endswith("/departments/ai/labs.html"))
    assert labs <= 1 and all(not url.endswith("/en.html") for url in english[:labs + 1])
    korean = "인공지능학과 자연어처리 연구실 지도교수가 누구예요?"
    assert not retriever._prepare([korean], [None], "dense", True)[0].foreign
    scores = [c.score for c in retriever.search(korean, {}, mode="dense").chunks]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0.5  # cosines, not heights above a level


def test_every_reply_says_the_language_its_own_words_are_in(demo):
    """The page draws its badge, labels and "don't know" in the reply's `language`: the engine's
    reading of the message, so the page keeps no rule of its own (an English question with a
    Korean word is English, as a third of the letters being Hangul makes Korean)."""
    for message, language in (("How many credits do I need to graduate?", "en"),
                              ("졸업하려면 전공 몇 학점 들어야 해요?", "ko"),
                              ("can I take 학점교류 courses at another university?", "en")):
        session = demo.new_session()
        reply = demo.respond(session, message=message)
        assert reply.language == language, (message, reply.type)
        while reply.type == "ask":  # the answer to the questions keeps the question's language
            reply = demo.respond(session, profile={q.attribute: None for q in reply.questions})
            assert reply.language == language and reply.as_api("s")["language"] == language
