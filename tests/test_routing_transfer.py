"""Routing that transfers: the router a build trains (encoder vectors and character n-grams, no
rules) measured on development messages about institutions no model was trained on, and the
"not sure" that leaves a doubtful template to the tiers.

The development messages below are written for an invented institution (Pinecrest College of
Design / 파인크레스트 디자인대학), in seven registers (polite, 반말, typos, no spaces, emoji, English,
mixed), with hard negatives (information questions that mention AI, robots, "you", weekends or
start with a greeting). They were written for the rule-based router this one replaced: development
data, read and tuned on. The locked test sets (eval/testsets/) are the honest measure.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from advisor.config import load_config
from advisor.intents import route_of
from advisor.intents.classifier import IntentClassifier
from advisor.intents.dataset import build_intent_examples
from advisor.intents.seeds import seed_examples
from serving.dialogue.router import IntentRouter

# floors for a router trained on one institution, measured on messages about another (development
# data; measured with the demo build's router: see the test)
ROUTER_ACCURACY_FLOOR = 0.90
ROUTER_ROUTE_RECALL_FLOOR = 0.80

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

    def bare(text: str) -> str:
        return re.sub(r"\W+", "", text.lower())

    seeds = {bare(s.text) for s in seed_examples("Pinecrest College of Design (파인크레스트 디자인대학)")}
    assert len([text for text, _, _ in ALL_DEV if bare(text) in seeds]) <= len(ALL_DEV) // 20


def _measure(route, messages) -> tuple[float, dict[str, float], list]:
    hits, totals, wrong = Counter(), Counter(), []
    for text, gold, _ in messages:
        got = route(text)
        totals[gold] += 1
        if got == gold:
            hits[gold] += 1
        else:
            wrong.append((text, gold, got))
    accuracy = sum(hits.values()) / sum(totals.values())
    return accuracy, {g: hits[g] / totals[g] for g in totals}, wrong


def _template_or_information(router: IntentRouter):
    """What the student gets from the router alone: a template when it is sure, else answering
    (the tiers decide; a template the router leans to answers what they cannot)."""
    def route(text: str) -> str:
        chosen, trace = router.route(text)
        if chosen == "leaving":
            chosen = "smalltalk"  # the lists say smalltalk for goodbyes
        return chosen if chosen == "information" or trace["sure"] else "information"
    return route


@pytest.fixture(scope="module")
def demo_router(demo_warehouse) -> IntentRouter:
    from advisor.index.layout import builds_dir
    from advisor.index.store import latest_build_dir, load_build

    directory = latest_build_dir(builds_dir(demo_warehouse.root))
    return IntentRouter.from_build(directory, embedder=load_build(directory).embedder)


def test_router_trained_on_a_bundled_institution_transfers_to_another(demo_router):
    leaning = lambda text: {"leaving": "smalltalk"}.get(demo_router.route(text)[0], demo_router.route(text)[0])  # noqa: E731
    accuracy, recall, wrong = _measure(leaning, ALL_DEV)
    assert accuracy >= ROUTER_ACCURACY_FLOOR, (accuracy, wrong)
    assert min(recall.values()) >= ROUTER_ROUTE_RECALL_FLOOR, (recall, wrong)
    # precision: an information message about the unseen institution almost never gets a template
    # reply the router is sure of (the student would lose the question)
    questions = [m for m in ALL_DEV if m[1] == "information"]
    sure_templates = [text for text, _, _ in questions if _template_or_information(demo_router)(text) != "information"]
    assert len(sure_templates) <= 2, sure_templates


def test_router_trained_on_a_small_unrelated_institution_transfers(tmp_path, demo_warehouse):
    """A nursing school with a handful of FAQ entries and pages: its seeds carry the routes."""
    from advisor.index.layout import builds_dir
    from advisor.index.store import latest_build_dir, load_build
    from tests.test_intents import OTHER_DOCUMENTS, OTHER_FAQ, OTHER_INSTITUTION

    embedder = load_build(latest_build_dir(builds_dir(demo_warehouse.root))).embedder
    config = load_config().model_copy(update={"institution": OTHER_INSTITUTION})
    examples = build_intent_examples(config, OTHER_FAQ, OTHER_DOCUMENTS)
    router = IntentRouter(IntentClassifier.train([e for e in examples if e.split == "train"], embedder))
    assert router.route("웨스트브룩 간호대학 챗봇은 뭘 할 수 있어?")[0] == "ability"
    accuracy, _, wrong = _measure(lambda m: {"leaving": "smalltalk"}.get(router.route(m)[0], router.route(m)[0]),
                                  ALL_DEV)
    assert accuracy >= ROUTER_ACCURACY_FLOOR - 0.05, (accuracy, wrong)


def test_an_unsure_template_is_left_to_the_tiers_and_the_llm_decides_when_it_can():
    class Leaning:
        threshold = 0.9

        def predict(self, texts, threshold=None):
            from advisor.intents.classifier import Prediction

            return [Prediction("greeting", 0.6, {"greeting": 0.6, "information": 0.4}, False) for _ in texts]

    route, trace = IntentRouter(Leaning()).route("안녕하세요 공강이라 들렀어요")
    assert route == "greeting" and trace["sure"] is False and trace["threshold"] == 0.9

    class DecidingLLM:
        def route(self, texts):
            return ["retrieval" for _ in texts]

    assert IntentRouter(Leaning(), DecidingLLM()).route("x") == ("information", {"router": "llm", "sure": True})
    assert route_of("faq") == "information"
    assert IntentRouter().route("아무 말")[0] == "information"  # no model: every message a question
