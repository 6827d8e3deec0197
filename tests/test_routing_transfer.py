"""Routing that transfers (issue 12, part 2): the rules for greetings and questions about the
assistant, the calibrated "not sure", the router with and without an LLM, and routing measured
on development messages about an institution no model was trained on.

The development messages below are written for an invented institution (Pinecrest College of
Design / 파인크레스트 디자인대학), in seven registers (polite, 반말, typos, no spaces, emoji, English,
mixed), with hard negatives (information questions that mention AI, robots, "you", weekends or
start with a greeting). They are not seeds: no seed form in advisor/intents/seeds.py repeats them.
DEV was used while writing the rules; DEV_FRESH was written before the rules and first run at the
end, as the honest check (both are kept as regression tests).
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

import duckdb
import pytest

from advisor.config import load_config
from advisor.intents import INTENTS, coarse
from advisor.intents import dataset as intent_data
from advisor.intents.classifier import IntentClassifier
from advisor.intents.dataset import IntentExample, build_intent_examples, example_id
from advisor.intents.meta import (asks_leave_to_ask, is_greeting_only, is_meta_question, only_assistant_words,
                                  strip_greeting)
from advisor.intents.route import certain_intent
from advisor.intents.not_sure import MISSED_TEMPLATE_COST, choose_threshold, coarse_decision, decide
from advisor.intents.seeds import ADDRESSED_INFO_QUESTIONS_KO, ENGLISH_INFO_QUESTIONS, form_key, seed_examples
from advisor.lakehouse import LAKEHOUSE_FILE
from serving.dialogue.router import IntentRouter

ROOT = Path(__file__).parents[1]
BUNDLED = {  # the two bundled institutions' lakehouses as `make demo` / `make business` leave them
    "demo": (ROOT / "warehouse", None),
    "business": (ROOT / "warehouse" / "business", ROOT / "advisor" / "business_college" / "institution.yaml"),
}
# floors for a router trained on one bundled institution, measured on messages about another
# (measured: 0.97-0.99 on DEV, 1.00 on DEV_FRESH; the raw classifier before this work: 0.72-0.80)
ROUTER_ACCURACY_FLOOR = 0.93
ROUTER_INTENT_RECALL_FLOOR = 0.85

# (text, expected coarse intent, register)
DEV = [
    # greeting
    ("안녕하세요, 반가워요", "greeting", "polite"),
    ("안녕하십니까 처음 뵙네요", "greeting", "polite"),
    ("좋은 저녁입니다!", "greeting", "polite"),
    ("안녕 반가웡", "greeting", "banmal"),
    ("하이 방가워", "greeting", "banmal"),
    ("ㅎㅇㅎㅇ", "greeting", "banmal"),
    ("안녀하세요", "greeting", "typo"),
    ("안뇽하세여 반가워여", "greeting", "typo"),
    ("안녕하세요반갑습니다", "greeting", "nospace"),
    ("하이하이반가워", "greeting", "nospace"),
    ("다들 안녕하세요 👋😊", "greeting", "emoji"),
    ("🙌 헬로우 반가워~", "greeting", "emoji"),
    ("Hello, nice to see you!", "greeting", "english"),
    ("hey hey, good evening", "greeting", "english"),
    ("hi 반가워요", "greeting", "mixed"),
    ("안녕 bot!", "greeting", "mixed"),
    # ability (meta-questions about the assistant)
    ("혹시 사람이 답하는 건가요?", "ability", "polite"),
    ("주말에도 답변해 주시나요?", "ability", "polite"),
    ("넌 로봇이야?", "ability", "banmal"),
    ("주말에도 대답해줘?", "ability", "banmal"),
    ("너 AI 맞지?", "ability", "banmal"),
    ("니가 할수 잇는게 머야", "ability", "typo"),
    ("너 사람임??", "ability", "typo"),
    ("넌뭘물어보면대답해줘", "ability", "nospace"),
    ("너로봇이니", "ability", "nospace"),
    ("너 24시간 대답해? 🤖", "ability", "emoji"),
    ("넌 뭘 도와줄 수 있어? 🤔", "ability", "emoji"),
    ("are you a human?", "ability", "english"),
    ("do you answer on weekends?", "ability", "english"),
    ("who made you?", "ability", "english"),
    ("너 chatbot이야?", "ability", "mixed"),
    ("AI야 사람이야?", "ability", "mixed"),
    ("밤에도 답장해 주나요?", "ability", "polite"),
    ("넌 정확한 정보만 말해?", "ability", "banmal"),
    ("can you answer in English?", "ability", "english"),
    # smalltalk
    ("오늘 정말 감사했어요", "smalltalk", "polite"),
    ("덕분에 많이 배웠습니다", "smalltalk", "polite"),
    ("아 졸려 죽겠다", "smalltalk", "banmal"),
    ("과제 하기 싫어", "smalltalk", "banmal"),
    ("고마어 ㅎㅎ", "smalltalk", "typo"),
    ("배고파여", "smalltalk", "typo"),
    ("오늘너무피곤하다", "smalltalk", "nospace"),
    ("알겠어고마워", "smalltalk", "nospace"),
    ("시험 끝났다 🎉🎉", "smalltalk", "emoji"),
    ("ㅠㅠ 발표 망함 😭", "smalltalk", "emoji"),
    ("thanks a lot, that helped", "smalltalk", "english"),
    ("I'm so tired today", "smalltalk", "english"),
    ("ㅇㅋ thx", "smalltalk", "mixed"),
    ("오늘 midterm 망함", "smalltalk", "mixed"),
    # information (faq / retrieval), including hard negatives
    ("실기 포트폴리오 제출 마감일이 언제인가요?", "information", "polite"),
    ("AI 융합전공 신청 방법 알려주세요", "information", "polite"),
    ("로봇공학과 졸업요건이 어떻게 되나요?", "information", "polite"),
    ("안녕하세요, 휴학 신청은 어디서 하나요?", "information", "polite"),
    ("디자인 스튜디오 야간 사용 가능해?", "information", "banmal"),
    ("주말에도 도서관 열어?", "information", "banmal"),
    ("챗봇 말고 학과 사무실 전화번호 뭐야?", "information", "banmal"),
    ("졸업작품 전시 일정 알려줘", "information", "banmal"),
    ("장학금 신청 기간 언재야", "information", "typo"),
    ("수강정정 어떻케 해요", "information", "typo"),
    ("복수전공신청자격이뭐예요", "information", "nospace"),
    ("안녕하세요기숙사입사신청언제해요", "information", "nospace"),
    ("성적 이의신청 답변은 언제 와요? 😥", "information", "emoji"),
    ("🎓 졸업 학점 몇 점 필요해?", "information", "emoji"),
    ("can you tell me the leave of absence deadline?", "information", "english"),
    ("Where do I submit my portfolio for the studio course?", "information", "english"),
    ("Hi, how many credits can I transfer from another school?", "information", "english"),
    ("Do you know when the dorm application opens?", "information", "english"),
    ("AI 수업 prerequisite 있어요?", "information", "mixed"),
    ("capstone 전시 장소 어디예요", "information", "mixed"),
    ("인공지능 교양 과목 뭐 있어?", "information", "banmal"),
    ("넌 휴학 신청 방법 알아?", "information", "banmal"),
]
DEV_FRESH = [
    ("안녕하세요 잘 부탁드립니다", "greeting", "polite"),
    ("좋은 오후입니다 😀", "greeting", "emoji"),
    ("헬로우 챗봇님 반가워요", "greeting", "mixed"),
    ("yo hi", "greeting", "english"),
    ("안녕안녕반가워요", "greeting", "nospace"),
    ("안냥하세요", "greeting", "typo"),
    ("당신은 누구신가요?", "ability", "polite"),
    ("이 챗봇은 어떤 질문까지 답해주나요?", "ability", "polite"),
    ("너 진짜 사람 아니지?", "ability", "banmal"),
    ("새벽에 물어봐도 답해줘?", "ability", "banmal"),
    ("너는누가만들었어", "ability", "nospace"),
    ("너 영어로도 대답 가능해?", "ability", "banmal"),
    ("are you a bot or a real person", "ability", "english"),
    ("what kind of things can you help me with?", "ability", "english"),
    ("r u available 24/7?", "ability", "english"),
    ("넌 인공지능이야? 🤖", "ability", "emoji"),
    ("챗봇아 너 내 개인정보 저장해?", "ability", "banmal"),
    ("니 답변 믿어도 돼?", "ability", "typo"),
    ("감사합니당", "smalltalk", "typo"),
    ("오늘 비 와서 우울하네요", "smalltalk", "polite"),
    ("ok cool thanks", "smalltalk", "english"),
    ("잘자 내일봐", "smalltalk", "nospace"),
    ("ㅋㅋㅋ 웃기네 😂", "smalltalk", "emoji"),
    ("로봇 동아리 가입은 어떻게 해요?", "information", "polite"),
    ("AI대학원 입학 설명회 언제야", "information", "nospace"),
    ("인공지능학과 전공필수 과목 알려줘", "information", "banmal"),
    ("Can you tell me how to apply for a scholarship?", "information", "english"),
    ("Hello! when is the tuition payment deadline?", "information", "english"),
    ("안녕~ 전과하려면 학점 몇 점 필요해?", "information", "banmal"),
    ("주말에 실습실 이용 가능한가요?", "information", "polite"),
    ("24시간 열람실 어디 있어요?", "information", "polite"),
    ("교수님 상담 예약 어떻게 해 ㅠㅠ", "information", "emoji"),
    ("Are there any AI courses for non-majors?", "information", "english"),
    ("졸업 전시 포폴 제출 어디에 해요", "information", "typo"),
    ("학생증 재발급 얼마 들어요?", "information", "polite"),
]
# written after DEV_FRESH passed, to find what it missed: hand-overs to a person, how fresh the
# answers are, the assistant compared with others, the conversation recalled, and information
# questions that share those words (the rules for these were written on this set: it is DEV now)
DEV_FRESH2 = [
    ("상담 선생님이랑 직접 연결해 줄 수 있어요?", "ability", "polite"),
    ("사람 상담원 바꿔줘", "ability", "banmal"),
    ("can I talk to a real person?", "ability", "english"),
    ("I want to speak to someone from staff", "ability", "english"),
    ("여기 정보는 언제 업데이트된 거예요?", "ability", "polite"),
    ("이 정보 출처가 어디야?", "ability", "banmal"),
    ("너 챗gpt랑 뭐가 달라?", "ability", "mixed"),
    ("너뭐하는애야", "ability", "nospace"),
    ("내가 아까 한 말 기억해?", "ability", "banmal"),
    ("너 어떤 대학 정보 알아?", "ability", "banmal"),
    ("너는 무슨 모델 써? 🤖", "ability", "emoji"),
    ("답변이 틀리면 어디에 말해요?", "ability", "polite"),
    ("이 서비스는 무료인가요?", "ability", "polite"),
    ("답변 근거가 뭐예요?", "ability", "polite"),
    ("챗봇 말고 직원이랑 얘기하고 싶어요", "ability", "polite"),
    ("어떤 자료 보고 대답하는 거야?", "ability", "banmal"),
    ("넌 어느 학교 담당이야?", "ability", "banmal"),
    ("너 기계번역이야?", "ability", "banmal"),
    ("너 똑똑하다 근데 진짜 사람 아니지?", "ability", "banmal"),
    ("Is this chatbot official?", "ability", "english"),
    ("can you make mistakes?", "ability", "english"),
    ("너 몇 시까지 해?", "ability", "banmal"),
    ("심화전공이랑 이중전공 차이가 뭐예요?", "information", "polite"),
    ("학과 사무실 직원이랑 통화하려면 번호가 뭐예요", "information", "polite"),
    ("교환학생 정보는 언제 업데이트돼요?", "information", "polite"),
    ("how do I speak with my academic advisor?", "information", "english"),
    ("I want to talk to someone about my leave of absence", "information", "english"),
    ("이중전공 신청 시기가 언제인가요", "information", "polite"),
    ("도서관 어디야?", "information", "banmal"),
    ("도서관 몇 시까지 해?", "information", "banmal"),
    ("다음에 또 물어볼게요", "smalltalk", "polite"),
    ("무료 셔틀버스 있어요?", "information", "polite"),
    ("공식 홈페이지 주소 알려줘", "information", "banmal"),
    ("학번 변경 어떻게 해요?", "information", "polite"),
    ("담당 교수님 연락처", "information", "polite"),
]
ALL_DEV = DEV + DEV_FRESH + DEV_FRESH2
REGISTERS = {"polite", "banmal", "typo", "nospace", "emoji", "english", "mixed"}


def test_dev_messages_cover_every_register_and_are_not_seeds():
    for intent in ("greeting", "ability", "smalltalk", "information"):
        registers = {reg for _, gold, reg in ALL_DEV if gold == intent}
        assert len(registers) >= 6, (intent, registers)
    assert {reg for _, _, reg in ALL_DEV} == REGISTERS
    # no dev message is a seed's text (up to case, spaces and punctuation); a few share a seed's
    # form under decoration ("안녕하세요 👋😊"): greetings are a closed set, and the rules ignore seeds
    def bare(text: str) -> str:
        return re.sub(r"\W+", "", text.lower())

    seeds = [s.text for s in seed_examples("Pinecrest College of Design (파인크레스트 디자인대학)")]
    seeds = {bare(t) for t in seeds + list(ENGLISH_INFO_QUESTIONS + ADDRESSED_INFO_QUESTIONS_KO)}
    assert not [text for text, _, _ in ALL_DEV if bare(text) in seeds]
    shared_forms = {form_key(t) for t in seeds} & {form_key(text) for text, _, _ in ALL_DEV}
    assert len(shared_forms) <= len(ALL_DEV) // 10


# --- the rules --------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [t for t, gold, _ in ALL_DEV if gold == "ability"] + [
    "너 뭐야?", "넌 누구니", "who are you", "what can you do?", "is this a bot?", "are you an AI?", "AI 맞지?",
    # inflected English folds to the lexicon's base forms; the conversation and the answers' sources
    "do you remember our chat", "are your answers up to date?", "where do your answers come from?",
    "do you store the messages I typed?", "너 똑똑해?", "너한테 입력한 거 지워져?",
    # a bot named in Latin inside a Korean frame, a bot confirmed, age, a language alone, a "?" alone
    "너 gpt야?", "챗봇 맞죠?", "너 몇 살이야", "너 말 믿어도 됨?", "중국어 가능해요?", "영어도 돼?", "u a human?",
    "상담 시간 외에도 답변 가능?",
    # when its material was last updated, and whom it serves
    "너 업데이트 언제 됐어?", "너 정보 언제 업데이트됐어?", "넌 정보대학 학생만 도와주니?", "너 학생들 도와주는 봇이야?",
    # how to use it, who runs it, how much of the institution it knows
    "너 어떻게 쓰는 거야 ㅋㅋ", "is this run by the school?", "do you know everything about the college?",
    # what can be looked up through it, when it was made, how live it is, what to ask first, what if it errs
    "혹시 이 챗봇으로 어떤 것들을 확인할 수 있는지 알 수 있을까요?", "너 언제 만들어졌어", "이거 실시간 정보야?",
    "뭐부터 물어보면 돼요", "답변 틀리면 어떡해",
    # the FAQ it answers from; "here" for the service
    "FAQ 말고 다른 것도 알아?", "FAQ에 없는 건 못 물어봐?", "Do you only know the FAQ?", "which topics can I ask about here?",
    "tell me about yourself", "introduce yourself"])
def test_questions_about_the_assistant_are_recognized_in_any_register(text):
    assert is_meta_question(text)


@pytest.mark.parametrize("text", [t for t, gold, _ in ALL_DEV if gold != "ability"] + [
    "너무 피곤해", "너 귀엽다", "how are you", "thank you", "see you", "I love you", "챗봇아 뭐 하고 있었어?",
    "저기요 챗봇님", "AI가 뭔지 설명하는 교양 과목 있어?", "로봇공학과 주말 특강 답변 언제 와요?",
    # no word refers to the assistant: whose data, whose records, is not said
    "is my data stored", "where are grades recorded?", "제가 입력한 거 저장돼요?",
    "챗봇아 안녕", "중국어 강의 있어요?", "영어 성적 몇 점 필요해요?",
    # the same words about the student's own affairs
    "너 장학금 신청 됐어?", "봇아 내 휴학 처리 됐어?", "학생증 언제 됐어?", "학생 식당 몇 시까지 해?",
    "is the library run by the school?", "do you know the college scholarship deadline?", "졸업논문 어떻게 쓰는 거야",
    "수강신청 실시간 확인 돼?", "시험 답 틀리면 어떡해", "뭐부터 해야 돼요", "성적 확인 어떻게 해요?",
    "FAQ 어디서 봐요?", "FAQ에 휴학 내용 있어?", "where is the FAQ?", "who should I ask about scholarships?",
    "is the office here open?", "tell me about the scholarship", "describe the leave process"])
def test_messages_that_merely_mention_the_assistant_are_not_meta_questions(text):
    assert not is_meta_question(text)


@pytest.mark.parametrize("text", [
    "장학금 관련해서도 물어봐도 돼?", "졸업 관련 질문도 받아요?", "전공 관련해서 질문해도 되나요?", "기숙사 얘기도 물어봐도 돼?",
    "너한테 수강신청 물어봐도 돼?", "장학금도 물어봐도 돼요?", "can I ask you about scholarships?",
    "can you help me with course registration?", "정보대학 관련 질문만 받아?",
    "너 학사 관련해서 아는 거 있어?", "휴학에 대해 아는 거 있어?"])
def test_asking_leave_to_ask_about_a_topic_is_about_the_assistant(text):
    assert asks_leave_to_ask(text) and certain_intent(text) == ("ability", "leave_to_ask")


@pytest.mark.parametrize("text", [
    "궁금한 거 있어요", "질문이 있습니다", "문의드릴 게 있는데요", "저 궁금한 게 있는데요", "여쭤볼 게 있어서 왔어요",
    "질문 하나만 할게요", "안녕하세요 문의드립니다", "혹시 질문 좀 해도 될까요", "I have a question", "hello can i ask something",
    "i have a quick question", "quick question"])
def test_announcing_a_question_without_asking_it_is_about_the_assistant(text):
    from advisor.intents.meta import announces_a_question

    assert certain_intent(text) in (("ability", "announces_question"), ("ability", "meta_question"))
    assert announces_a_question(strip_greeting(text) or text)


@pytest.mark.parametrize("text", [
    "질문 있는데 휴학은요?", "I have a question about scholarships", "장학금 문의드립니다", "궁금한 거 있어요 졸업요건",
    "문의처가 어디예요?", "수업 질문 있어요", "can I ask my professor a question?", "문의 전화번호 알려줘",
    "다음에 또 물어볼게요", "나중에 질문할게요"])  # a topic named, or the question put off
def test_a_question_with_a_topic_or_put_off_is_no_announcement(text):
    from advisor.intents.meta import announces_a_question

    assert not announces_a_question(text)


@pytest.mark.parametrize("text", [
    "교수님께 질문해도 되나요?", "조교한테 물어봐도 되나요?",  # someone else asked
    "수업 중에 질문해도 돼요?", "수업시간에 질문도 가능한가요",  # no subject matter: about class
    "면접에서 어떤 질문도 받나요?", "휴학 언제까지 물어봐도 돼?", "can you help me with when to apply?",  # a fact asked
    "성적 이의신청 문의도 가능한가요?", "졸업요건 알려줘", "시험 문제 물어보면 답해줘?",
    "너 휴학 신청 언제인지 아는 거 있어?", "교수님이 아는 거 있을까?"])
def test_questions_that_only_contain_asking_words_are_not_leave_to_ask(text):
    assert not asks_leave_to_ask(text)


@pytest.mark.parametrize("text", [
    "나 좀 응원해줘", "칭찬 좀 해주세요", "위로 좀 해줄래", "축하 좀 해줘!", "생일 축하한다고 해줘", "힘내라고 말해줘 ㅠㅠ",
    "재밌는 얘기 해줘", "농담 한마디만 해봐", "응원해주세요🙏", "나좀위로해줘", "cheer me up please", "tell me a joke",
    "congratulate me!", "can you say something funny?", "wish me luck", "응원 한마디 plz"])
def test_asking_for_cheer_comfort_or_a_joke_is_smalltalk(text):
    assert certain_intent(text) == ("smalltalk", "social_request")


@pytest.mark.parametrize("text", [
    "응원단 가입은 어떻게 해요?", "졸업 축하 행사 언제야?", "위로금 신청 방법 알려줘", "축하금 받을 수 있나요?",
    "칭찬 장학금 있어요?", "재밌는 교양 수업 추천해줘", "wish me luck on the TOEIC", "tell me a joke about the registrar",
    "격려 장학금 기준이 뭐예요?", "나 좀 도와줘", "좀 알려주세요", "힘들어요"])
def test_requests_that_only_use_social_words_are_left_to_the_classifier(text):
    assert certain_intent(text) is None or certain_intent(text)[1] != "social_request"


@pytest.mark.parametrize("text, rule", [
    ("정보대학 챗봇 맞나요?", "what_it_is"), ("고려대 공식 챗봇이에요?", "what_it_is"),
    ("학교에서 운영하는 챗봇인가요?", "what_it_is"), ("너 행정실 직원이야?", "what_it_is"), ("이거 학과 공식 봇이야?", "what_it_is"),
    ("are you a staff member?", "what_it_is"), ("너 포털 정보도 볼 수 있어?", "its_access"),
    ("넌 내 성적 조회할 수 있어?", "its_access"), ("can you see my grades?", "its_access"),
    ("are you connected to the school portal?", "its_access"),
    ("Can you answer questions about the College of Informatics?", "leave_to_ask")])
def test_what_the_assistant_is_and_what_it_can_see_are_asked_of_it_whatever_names_come_with(text, rule):
    assert certain_intent(text) == ("ability", rule)


@pytest.mark.parametrize("text", [
    "조교도 직원이에요?", "교수님도 사람이야?", "AI 챗봇 공모전 있나요?", "챗봇 경진대회 언제야?", "AI 융합전공 챗봇 만들기 수업 있나요?",
    "is this course taught by a human?", "is the AI major hard?", "are the staff available on weekends?",
    # no word addresses the assistant, or the student asks how they do it themselves
    "내 성적 볼 수 있어?", "성적 조회 어떻게 해요?", "포털 연결이 안 돼요", "how can I see my grades?",
    "where can I access the portal?", "can you tell me how to check my grades?", "can you check the scholarship deadline for me?"])
def test_offices_people_and_records_named_in_a_question_about_the_university_stay_questions(text):
    assert certain_intent(text) is None


@pytest.mark.parametrize("text", [
    "나 이제 갈게", "오늘은 여기까지 할게요", "또 올게요 ㅎㅎ", "그럼 이만", "저 먼저 가볼게요~", "ok gotta go, bye",
    "i'm off", "see you later", "ttyl"])
def test_taking_leave_is_smalltalk(text):
    assert certain_intent(text) == ("smalltalk", "leaving")


@pytest.mark.parametrize("text", [
    "이제 휴학 신청하러 갈게", "먼저 수강신청 할게요", "수업 들으러 갈게", "다음에 또 물어볼게요",
    "I'm off campus, can I still register?", "is the office open later today?"])
def test_leaving_for_something_the_university_rules_on_is_not_taking_leave(text):
    assert certain_intent(text) is None or certain_intent(text)[1] != "leaving"


@pytest.mark.parametrize("text", [
    "점심 맛있게 드셨어요?", "저녁은 드셨나요?", "오늘 하루 잘 보내셨어요?", "요즘 잘 지내시죠?", "주말 잘 보내셨나요? 😊",
    "오늘도 수고 많으셨어요", "밥 먹었어?", "어제 푹 잤어", "going to sleep now", "i caught a cold", "so hungry rn",
    "i'm so tired today", "feeling sleepy lol"])
def test_chat_about_the_day_meals_or_moods_is_smalltalk(text):
    assert certain_intent(text) == ("smalltalk", "personal_chat")


@pytest.mark.parametrize("text", [
    "점심시간에도 행정실 운영하나요?", "주말에 시험 보나요?", "저녁 수업도 있나요?", "하루만 결석해도 되나요?", "오늘 휴강인가요?",
    "방학 중에 기숙사에서 지낼 수 있어요?", "휴학하고 쉬고 싶은데 어떻게 해요?", "잘 지내려면 학점 몇 점 필요해요?", "보내주세요",
    "is the office open on saturday?", "i'm sick, can I get an excused absence?", "can I nap in the library?"])
def test_questions_that_use_everyday_words_are_left_to_the_classifier(text):
    assert certain_intent(text) is None or certain_intent(text)[1] != "personal_chat"


@pytest.mark.parametrize("text", [t for t, gold, _ in ALL_DEV if gold == "greeting" and t != "yo hi"])
def test_greeting_words_only_make_a_greeting(text):
    assert is_greeting_only(text)


@pytest.mark.parametrize("text", [t for t, gold, _ in ALL_DEV if gold != "greeting"] + [
    "안녕히 계세요", "좋은 하루 보내세요", "see you", "하이브리드 수업 있어요?", "반가운 소식이 있나요?"])
def test_goodbyes_chat_and_questions_are_not_greetings(text):
    assert not is_greeting_only(text)


@pytest.mark.parametrize(("text", "rest"), [
    ("안녕하세요, 휴학 신청은 어디서 하나요?", "휴학 신청은 어디서 하나요?"),
    ("안녕하세요기숙사입사신청언제해요", "기숙사입사신청언제해요"),
    ("Hi, how many credits can I transfer?", "how many credits can I transfer?"),
    ("하이~ 넌 뭘 할 수 있어?", "넌 뭘 할 수 있어?"),
    ("안녕하세요 👋", None),  # nothing but the greeting
    ("하이브리드 수업 있어요?", None),  # 하이 is not cut off a word
    ("휴학 신청 안녕", None),  # the greeting must come first
    ("안녕히 계세요", None),  # a goodbye, not a greeting with "히 계세요" after it
    ("안녕히가세요 다음에 또 올게요", None),
])
def test_a_leading_greeting_is_stripped_from_a_question(text, rest):
    assert strip_greeting(text) == rest


def test_only_assistant_words_needs_every_word_about_the_assistant():
    assert only_assistant_words("메뉴 보여줘") and only_assistant_words("show me some examples")
    assert not only_assistant_words("넌 휴학 신청 방법 알아?")
    assert not only_assistant_words("디자인 스튜디오 야간 사용 가능해?")
    # the institution's name, known from its own seeds, attaches like any word
    assert not only_assistant_words("파인크레스트에 대해 뭘 물어볼 수 있나요")
    assert only_assistant_words("파인크레스트에 대해 뭘 물어볼 수 있나요", frozenset({"파인크레스트"}))


# --- the calibrated "not sure" ---------------------------------------------------------------------

def _scores(**given: float) -> dict[str, float]:
    rest = (1.0 - sum(given.values())) / (len(INTENTS) - len(given))
    return {i: given.get(i, rest) for i in INTENTS}


def test_faq_and_retrieval_count_together_against_a_template():
    assert coarse_decision(_scores(smalltalk=0.4, faq=0.3, retrieval=0.28)) == ("faq", pytest.approx(0.58))
    assert coarse_decision(_scores(ability=0.7))[0] == "ability"
    assert decide(_scores(smalltalk=0.45, retrieval=0.3, faq=0.1), threshold=0.5) == ("retrieval", 0.45, True)
    assert decide(_scores(smalltalk=0.45, retrieval=0.3, faq=0.1), threshold=0.4)[0] == "smalltalk"


def test_threshold_is_chosen_where_unsure_templates_are_wrong():
    # sure templates are right, unsure ones are questions: the threshold lands between them
    truth = ["smalltalk"] * 10 + ["retrieval"] * 4 + ["greeting"] * 5
    probabilities = ([_scores(smalltalk=0.9)] * 10 + [_scores(smalltalk=0.45, retrieval=0.3)] * 4
                     + [_scores(greeting=0.8)] * 5)
    chosen = choose_threshold(truth, probabilities)
    assert 0.45 < chosen["threshold"] <= 0.8
    assert chosen["cost"]["chosen"] == 0 < chosen["cost"]["at_0"] == 4
    assert chosen["templates_chosen"]["precision"] == 1.0 > chosen["templates_at_0"]["precision"]
    # one wrong template against three right ones at the same confidence: keep them (a missed
    # template costs MISSED_TEMPLATE_COST, a wrong one 1)
    truth = ["smalltalk"] * 3 + ["retrieval"]
    kept = choose_threshold(truth, [_scores(smalltalk=0.5, retrieval=0.2)] * 4)
    assert 3 * MISSED_TEMPLATE_COST > 1 and kept["threshold"] == 0.0
    with pytest.raises(ValueError, match="labels"):
        choose_threshold(["greeting"], [])


SMALL = {
    "greeting": ["안녕하세요", "안녕", "하이", "반가워요", "hello", "hi there", "좋은 아침이에요", "hey", "반갑습니다"],
    "ability": ["뭘 할 수 있어?", "무엇을 물어볼 수 있나요?", "what can you do?", "기능 알려줘", "사용법 알려줘",
                "어떤 질문에 답할 수 있나요?", "how do I use this?", "도움말", "뭐 하는 챗봇이야?"],
    "faq": ["학생증 재발급은 어디서 하나요?", "기숙사 신청은 언제 하나요?", "성적증명서 발급 방법은?",
            "도서관 운영 시간은 어떻게 되나요?", "주차 등록은 어떻게 하나요?", "분실물은 어디에 맡기나요?"],
    "retrieval": ["졸업하려면 전공을 몇 학점 들어야 하나요?", "휴학 신청 기간이 언제예요?", "전공필수 과목 알려주세요",
                  "이중전공 신청 자격이 어떻게 되나요?", "복학 절차를 알고 싶어요", "장학금 선발 기준이 궁금해요"],
    "smalltalk": ["고마워", "배고프다", "심심해", "시험 망했어 ㅠㅠ", "과제 너무 많아", "thanks", "좋은 하루", "피곤해", "잘 가"],
}


@pytest.fixture(scope="module")
def small_classifier() -> IntentClassifier:
    examples = [IntentExample(example_id(t, i), t, i, "seed", None, "train") for i, texts in SMALL.items() for t in texts]
    return IntentClassifier.train(examples)


def test_the_threshold_and_assistant_words_are_saved_with_the_model(small_classifier, tmp_path):
    meta = small_classifier.meta
    assert meta["not_sure"]["threshold"] == small_classifier.not_sure_threshold >= 0.0
    assert meta["not_sure"]["validation_examples"] > 0
    assert isinstance(meta["assistant_words"], list)
    loaded = IntentClassifier.load(small_classifier.save(tmp_path / "model"))
    assert loaded.not_sure_threshold == small_classifier.not_sure_threshold
    assert loaded.assistant_words == small_classifier.assistant_words
    # a model saved before the threshold existed trusts every template prediction
    old = IntentClassifier(loaded._pipeline, {k: v for k, v in meta.items() if k not in ("not_sure", "assistant_words")})
    assert old.not_sure_threshold == 0.0 and old.assistant_words == frozenset()


# --- the router, with and without an LLM ---------------------------------------------------------

class ScriptedLLM:
    """An LLM router that says `intent` to everything (None: the call failed), counting calls."""

    def __init__(self, intent: str | None):
        self.intent, self.asked = intent, []

    def route(self, texts):
        self.asked += list(texts)
        return [self.intent for _ in texts]


def test_certain_rules_decide_the_same_with_or_without_an_llm(small_classifier):
    llm = ScriptedLLM("smalltalk")
    with_llm, offline = IntentRouter(small_classifier, llm), IntentRouter(small_classifier)
    for text, intent in (("넌 로봇이야?", "ability"), ("안녕하세요, 반가워요", "greeting"),
                         ("hi! are you a human?", "ability"), ("주말에도 대답해줘?", "ability")):
        assert with_llm.route(text) == offline.route(text) == (intent, with_llm.route(text)[1])
        assert with_llm.route(text)[1]["router"] == "rule"
    assert llm.asked == []  # the rules needed no call
    assert with_llm.route("휴학 신청 기간이 언제예요?") == ("smalltalk", {"router": "llm"})  # the LLM's own call
    assert llm.asked == ["휴학 신청 기간이 언제예요?"]
    failed = IntentRouter(small_classifier, ScriptedLLM(None)).route("졸업 학점이 궁금해요")
    assert failed[1]["router"] == "classifier" and failed[1]["llm_failed"] is True
    assert IntentRouter().route("아무 말") == ("retrieval", {"router": "none"})


def test_a_greeting_followed_by_a_question_stays_a_question(small_classifier):
    intent, trace = IntentRouter(small_classifier).route("안녕하세요! 졸업하려면 전공 몇 학점 들어야 하나요?")
    assert coarse(intent) == "information"
    assert trace["after_greeting"] == "졸업하려면 전공 몇 학점 들어야 하나요?"


def test_an_unsure_template_goes_to_answering(small_classifier):
    router = IntentRouter(small_classifier)
    router.classifier = IntentClassifier(small_classifier._pipeline, {**small_classifier.meta,
                                                                      "not_sure": {"threshold": 1.01}})
    intent, trace = router.route("배고프다")  # smalltalk, but nothing is sure enough now
    assert coarse(intent) == "information" and trace["unsure_of"] == "smalltalk"


# --- transfer: trained on one institution, asked about another ------------------------------------

def _measure(route, messages) -> tuple[float, dict[str, float], list]:
    hits, totals, wrong = Counter(), Counter(), []
    for text, gold, _ in messages:
        got = coarse(route(text))
        totals[gold] += 1
        hits[gold] += got == gold
        if got != gold:
            wrong.append((text, gold, got))
    return sum(hits.values()) / len(messages), {i: hits[i] / totals[i] for i in totals}, wrong


def _check_transfer(classifier: IntentClassifier):
    router = IntentRouter(classifier)
    for messages in (DEV, DEV_FRESH, DEV_FRESH2):
        accuracy, recall, wrong = _measure(lambda m: router.route(m)[0], messages)
        raw_accuracy, _, _ = _measure(lambda m: classifier.predict([m])[0].intent, messages)
        assert accuracy >= ROUTER_ACCURACY_FLOOR, (accuracy, wrong)
        assert min(recall.values()) >= ROUTER_INTENT_RECALL_FLOOR, (recall, wrong)
        assert accuracy >= raw_accuracy, (accuracy, raw_accuracy)
    # precision: information messages about the unseen institution almost never get a template
    # reply (measured: 0 or 1 of 34, "주말에도 도서관 열어?" as smalltalk from the business college)
    questions = [m for m in ALL_DEV if m[1] == "information"]
    templated = [text for text, _, _ in questions if coarse(router.route(text)[0]) != "information"]
    assert len(templated) <= 1, templated


@pytest.fixture(scope="module", params=sorted(BUNDLED))
def bundled_classifier(request, tmp_path_factory) -> IntentClassifier:
    """The classifier as a build trains it, on a bundled institution's lakehouse (a copy: the
    pipeline may hold the file)."""
    root, config_path = BUNDLED[request.param]
    if not (root / LAKEHOUSE_FILE).exists():
        pytest.skip(f"no lakehouse at {root} (run `make demo` / `make business`)")
    copy = tmp_path_factory.mktemp(request.param) / LAKEHOUSE_FILE
    shutil.copy(root / LAKEHOUSE_FILE, copy)
    con = duckdb.connect(str(copy), read_only=True)
    try:
        faq, documents = intent_data.read_faq_questions(con), intent_data.read_documents(con)
    finally:
        con.close()
    examples = build_intent_examples(load_config(config_path), faq, documents)
    return IntentClassifier.train([e for e in examples if e.split == "train"])


def test_router_trained_on_a_bundled_institution_transfers_to_another(bundled_classifier):
    _check_transfer(bundled_classifier)


def test_router_trained_on_a_small_unrelated_institution_transfers(tmp_path):
    """Always runs (no lakehouse needed): a nursing school with a handful of FAQ entries and pages."""
    from tests.test_intents import OTHER_DOCUMENTS, OTHER_FAQ, OTHER_INSTITUTION

    config = load_config().model_copy(update={"institution": OTHER_INSTITUTION})
    examples = build_intent_examples(config, OTHER_FAQ, OTHER_DOCUMENTS)
    classifier = IntentClassifier.train([e for e in examples if e.split == "train"])
    assert "웨스트브룩" in " ".join(classifier.meta["assistant_words"])  # its name, from its own seeds
    router = IntentRouter(classifier)
    assert router.route("웨스트브룩 간호대학 챗봇은 뭘 할 수 있어?")[0] == "ability"
    accuracy, recall, wrong = _measure(lambda m: router.route(m)[0], ALL_DEV)
    assert accuracy >= ROUTER_ACCURACY_FLOOR - 0.05, (accuracy, wrong)


class _Predicting:
    """A classifier that predicts one intent with certainty, whatever the text (what classify() is
    given to decide on)."""

    not_sure_threshold, assistant_words = 0.0, frozenset()

    def __init__(self, intent: str):
        self.intent, self.seen = intent, []

    def predict(self, texts):
        from advisor.intents.classifier import Prediction

        self.seen += list(texts)
        scores = {i: (0.96 if i == self.intent else 0.01) for i in ("greeting", "ability", "smalltalk", "faq", "retrieval")}
        return [Prediction(self.intent, scores[self.intent], scores) for _ in texts]


def test_a_greeting_followed_by_chat_is_a_greeting_and_by_a_request_a_question():
    from advisor.intents.route import classify

    chat = _Predicting("smalltalk")
    assert classify("안녕하세요 오늘 처음 들어와 봤어요", chat)[0] == "greeting"
    assert chat.seen == ["오늘 처음 들어와 봤어요"]  # the rest after the greeting is what was classified
    assert classify("오늘 처음 들어와 봤어요", chat)[0] == "smalltalk"  # no greeting: chat stays chat
    assert coarse(classify("안녕하세요 장학금 신청은 언제 하나요?", _Predicting("faq"))[0]) == "information"


def test_an_ability_prediction_goes_to_answering_only_when_it_names_the_institutions_topic():
    from advisor.intents.route import classify

    sure = _Predicting("ability")
    topics = {"휴학", "신청"}
    names_a_topic = lambda text: any(word in text for word in topics)  # noqa: E731 - the build's vocabulary
    assert classify("챗봇이 헷갈릴 수도 있나요?", sure, names_a_topic)[0] == "ability"  # no topic word: about the assistant
    intent, trace = classify("넌 휴학 신청 방법 알아?", sure, names_a_topic)
    assert coarse(intent) == "information" and trace["not_about_the_assistant"]
    # without the build's vocabulary, any word outside the assistant lexicon counts (the library's default)
    assert coarse(classify("챗봇이 헷갈릴 수도 있나요?", sure)[0]) == "information"
    # only words outside the lexicon are looked up: documents that also say "answer" or "date"
    # do not make a question about the assistant's answers a question about them
    asked = []
    everything_is_a_topic = lambda text: asked.append(text) or True  # noqa: E731
    assert classify("are your answers up to date, bot?", sure, everything_is_a_topic)[0] == "ability"
    assert asked == []
    assert coarse(classify("넌 휴학 신청 방법 알아?", sure, everything_is_a_topic)[0]) == "information"
    assert asked == ["휴학 신청"]  # "방법" is a word of the lexicon ("사용 방법")


@pytest.mark.parametrize("text", ["아파서 기말고사 못 봤어요 어떡하죠", "학적부 증명사진 바꾸는 법", "교과과정표 어디서 봐요",
                                  "창업 때문에 휴학하려는데 문의처가 어디예요", "등록금 환불 가능?", "what is the deadline"])
def test_requests_ask_something(text):
    from advisor.intents.meta import asks_something

    assert asks_something(text)


@pytest.mark.parametrize("text", ["오늘 시험 망했어 ㅠㅠ", "휴학하고 싶다 진짜", "배고프다", "ㅋㅋㅋㅋ", "thanks a lot"])
def test_remarks_do_not_ask_anything(text):
    from advisor.intents.meta import asks_something

    assert not asks_something(text)


def test_a_smalltalk_prediction_goes_to_answering_only_as_a_request_about_the_institutions_topic():
    from advisor.intents.route import classify

    chat = _Predicting("smalltalk")
    names_a_topic = lambda text: "휴학" in text or "사진" in text  # noqa: E731 - the build's vocabulary
    intent, trace = classify("학적부 증명사진 바꾸는 법", chat, names_a_topic)
    assert coarse(intent) == "information" and trace["request_about_a_topic"]
    assert classify("휴학하고 싶다 진짜", chat, names_a_topic)[0] == "smalltalk"  # a remark, not a request
    assert classify("주말에 뭐 하지?", chat, names_a_topic)[0] == "smalltalk"  # a question about nothing the build covers
    # without a build to ask, smalltalk stays smalltalk: every unknown word would look like a topic
    assert classify("학적부 증명사진 바꾸는 법", chat)[0] == "smalltalk"


@pytest.mark.parametrize("text", ["코로나 걸려서 시험 못 봤어요", "입원해서 수업 못 갔어요", "예비군 때문에 결석했습니다",
                                  "I was sick and missed the exam", "할머니 장례 때문에 시험 못 봐요"])
def test_a_reason_for_missing_an_exam_or_class_is_reported(text):
    from advisor.intents.meta import reports_absence

    assert reports_absence(text)


@pytest.mark.parametrize("text", ["오늘 시험 못 봤어 너무 어려웠어", "시험 망했어 ㅠㅠ", "수업 너무 졸려요", "I failed my exam lol"])
def test_a_bad_day_is_no_reason_for_missing_anything(text):
    from advisor.intents.meta import reports_absence

    assert not reports_absence(text)


def test_a_reason_for_missing_something_the_institution_rules_on_goes_to_answering():
    from advisor.intents.route import classify

    chat = _Predicting("smalltalk")
    names_a_topic = lambda text: "시험" in text  # noqa: E731 - the build's vocabulary
    intent, trace = classify("코로나 걸려서 시험 못 봤어요", chat, names_a_topic)
    assert coarse(intent) == "information" and trace["request_about_a_topic"]
    assert classify("감기 걸려서 너무 힘들어", chat, names_a_topic)[0] == "smalltalk"  # nothing the build covers
    assert classify("오늘 시험 못 봤어 너무 어려웠어", chat, names_a_topic)[0] == "smalltalk"  # a bad day, no reason
    assert classify("코로나 걸려서 시험 못 봤어요", chat)[0] == "smalltalk"  # no build to ask
