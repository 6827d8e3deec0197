"""Profile values typed instead of picked: answers to a pending profile question, and follow-ups
after an answer ("그럼 2020학번은요?"). The reader is tested on its own, then the conversation on
the small hand-made build of test_dialogue_asking (near-duplicate pages per cohort: 60 credits for
2019-2022, 66 for 2023 on)."""

from __future__ import annotations

import pytest

from advisor.config import parse_config
from serving.dialogue import typed
from serving.dialogue.session import Session
from tests.test_dialogue_asking import CONFIG, CREDITS, advisor  # noqa: F401  (the module's fixture)

SCHEMA = dict(CONFIG.profile)


@pytest.fixture(scope="module")
def readers(advisor):  # noqa: F811
    return advisor.stated.reader.extractors


@pytest.mark.parametrize("message, values, rest", [
    ("2021학번이요", {"cohort": 2021}, "이요"),
    ("21", {"cohort": 2021}, ""),
    ("2024", {"cohort": 2024}, ""),
    ("휴학생이에요", {"status": "on_leave"}, "이에요"),
    ("학번은 2020이고 복학생이요", {"cohort": 2020, "status": "returning"}, "학번은 이고 이요"),
    # two values of one attribute compare them; a number outside every range is no value
    ("재학생이랑 휴학생 차이", {}, "재학생이랑 휴학생 차이"),
    ("1987", {}, "1987"),
])
def test_a_typed_message_gives_the_values_it_names(readers, message, values, rest):
    found = typed.read(message, SCHEMA, readers)
    assert found.values == values and found.rest == rest


def test_dont_know_declines_only_the_attributes_just_asked_that_it_names_no_value_of(readers):
    assert typed.read("잘 모르겠어요", SCHEMA, readers, declinable=["cohort"]).values == {"cohort": None}
    assert typed.read("휴학생인데 학번은 기억 안 나요", SCHEMA, readers, declinable=["cohort", "status"]).values == {
        "cohort": None, "status": "on_leave"}
    assert typed.read("I'm not sure", SCHEMA, readers).values == {}  # nothing asked: nothing declined


def test_the_question_just_asked_may_be_answered_with_the_first_syllables_of_a_value(readers):
    assert typed.read("휴학이요", SCHEMA, readers, declinable=["status"]).values == {"status": "on_leave"}
    assert typed.read("휴학이요", SCHEMA, readers).values == {}  # not asked: "휴학" is a topic
    assert typed.read("학", SCHEMA, readers, declinable=["status"]).values == {}  # one syllable says nothing


def test_an_english_alias_is_a_whole_word():
    schema = dict(parse_config({
        "institution": "x", "sources": [{"name": "s", "kind": "html", "seeds": ["http://x/"]}],
        "profile": {"department": {"type": "categorical", "question": "학과는?",
                                   "values": {"AI": ["AI", "인공지능학과"], "CS": ["컴퓨터학과"]}}}}).profile)
    assert typed.read("AI학과는요?", schema, {}).values == {"department": "AI"}
    assert typed.read("send me a mail", schema, {}).values == {}
    assert typed.retarget("컴퓨터학과 졸업요건 알려줘", {"department": "AI"}, schema) == "AI 졸업요건 알려줘"


def test_a_follow_up_retargets_the_value_the_last_question_named():
    assert typed.retarget("재학생 장학금 얼마야?", {"status": "returning"}, SCHEMA) == "복학생 장학금 얼마야?"
    assert typed.retarget("장학금 얼마야?", {"status": "returning", "cohort": 2020}, SCHEMA) == "장학금 얼마야?"


# ----------------------------------------------------------------------------- the conversation

def test_a_typed_answer_to_a_profile_question_is_read_as_the_button(advisor):  # noqa: F811
    session = advisor.new_session()
    assert advisor.respond(session, message=CREDITS).type == "ask"
    reply = advisor.respond(session, message="2023학번이요")
    assert reply.type == "answer" and "66학점" in reply.answer and "60학점" not in reply.answer
    assert reply.trace["typed_answers"] == ["cohort"] and reply.profile_used == {"cohort": 2023}


def test_a_bare_number_answers_the_one_attribute_it_fits(advisor):  # noqa: F811
    session = advisor.new_session()
    advisor.respond(session, message=CREDITS)
    reply = advisor.respond(session, message="2019")
    assert reply.type == "answer" and "60학점" in reply.answer


def test_a_typed_dont_know_gets_every_variant_labelled(advisor):  # noqa: F811
    session = advisor.new_session()
    advisor.respond(session, message=CREDITS)
    reply = advisor.respond(session, message="잘 모르겠어요 ㅠ")
    assert reply.type == "answer" and "60학점" in reply.answer and "66학점" in reply.answer
    assert "cohort" in session.declined


def test_a_new_question_while_a_profile_question_is_pending_is_answered_as_one(advisor):  # noqa: F811
    session = advisor.new_session()
    advisor.respond(session, message=CREDITS)
    reply = advisor.respond(session, message="계절학기는 몇 학점까지 들을 수 있어?")
    assert reply.type == "answer" and "6학점" in reply.answer and "typed_answers" not in reply.trace


def test_a_follow_up_asks_the_last_question_again_for_the_values_it_names(advisor):  # noqa: F811
    session = advisor.new_session()
    advisor.respond(session, message=CREDITS)
    assert "66학점" in advisor.respond(session, profile={"cohort": 2024}).answer
    reply = advisor.respond(session, message="그럼 2020학번은요?")
    assert reply.type == "answer" and "60학점" in reply.answer and "66학점" not in reply.answer
    assert reply.trace["follow_up"] == ["cohort"] and reply.profile_used == {"cohort": 2020}


def test_values_alone_before_any_answer_are_no_follow_up(advisor):  # noqa: F811
    reply = advisor.respond(advisor.new_session(), message="2020학번이에요")
    assert "follow_up" not in reply.trace


def test_a_follow_up_of_a_question_that_only_named_a_value_is_asked_once(advisor):  # noqa: F811
    session = advisor.new_session()
    if advisor.respond(session, message="복학생").type == "ask":
        advisor.respond(session, profile={"status": "returning"})
    assert session.last_question == "복학생"
    reply = advisor.respond(session, message="재학생은요?")  # asks "재학생" once; never follows itself up
    assert reply.trace["follow_up"] == ["status"] and session.known["status"] == "enrolled"


def test_the_last_question_travels_with_a_shared_session_and_an_older_record_reads_without_it():
    session = Session(known={"cohort": 2020}, last_question="전공 몇 학점?")
    assert Session.from_dict(session.to_dict()).last_question == "전공 몇 학점?"
    older = {key: value for key, value in session.to_dict().items() if key != "last_question"}
    assert Session.from_dict(older).last_question == ""
