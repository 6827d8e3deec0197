"""Hand-written seed messages for the intents no document can supply: greeting, ability, smalltalk.

Each hand-written form (one line below) is varied by rule: decorations (addressees, interjections,
punctuation, emoticons), spacing variants and common typos, so every class gets hundreds of
distinct messages. Everything here is generic to any university: the institution's own name (from
its config) is the only specific word, and it appears in greeting and ability messages only.

A form and all its variants form one `group`: the dataset keeps a group in one split, so the
held-apart test measures unseen wordings, not unseen punctuation of a wording seen in training.

Hard negatives live here too: smalltalk about school life that asks nothing answerable
("시험 망했어 ㅠㅠ"), and the greeting / smalltalk openers that dataset.py prepends to real
information questions ("안녕하세요, 휴학 신청은 어떻게 하나요?" stays faq / retrieval).
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

# variants kept per hand-written form: enough variety, and no form (nor the many smalltalk forms)
# dominates the dataset
PER_FORM = {"greeting": 9, "ability": 9, "smalltalk": 6}

INSTITUTION_SLOT = "{inst}"


@dataclass(frozen=True)
class Seed:
    text: str
    intent: str
    group: str  # the hand-written form it was varied from


# --- greeting --------------------------------------------------------------------------------

GREETING_FORMS_KO = (
    "안녕", "안녕하세요", "안녕하십니까", "안뇽", "안녕안녕", "하이", "하이하이", "ㅎㅇ", "하이루",
    "헬로", "헬로우", "반가워", "반가워요", "반갑습니다", "방가방가", "만나서 반가워", "만나서 반갑습니다",
    "좋은 아침", "좋은 아침이에요", "좋은 아침입니다", "굿모닝", "좋은 오후예요", "좋은 저녁이에요",
    "처음 뵙겠습니다", "처음 왔어요", "오랜만이야", "오랜만이에요", "잘 지냈어", "잘 지내셨어요",
    "저기요", "계세요", "누구 계세요", "여보세요", "수고하십니다", "수고 많으십니다",
    "안녕하신가요", "다들 안녕", "반가워용", "하이 반가워", "안녕 반가워", "처음 인사드려요", "인사드립니다",
    "안녕하세염", "하이염", "헬로헬로", "굿이브닝", "오 안녕", "안녕하세요 처음 이용합니다", "똑똑",
    "{inst} 챗봇 안녕", "안녕하세요 {inst}", "{inst} 챗봇님 안녕하세요", "반가워요 {inst} 챗봇",
)
GREETING_FORMS_EN = (
    "hello", "hello there", "hi", "hi there", "hiya", "hey", "hey there", "good morning", "morning",
    "good afternoon", "good evening", "greetings", "howdy", "yo", "what's up", "nice to meet you",
    "pleased to meet you", "hello hello", "hi hi", "good day", "hey hey", "hi, nice to meet you",
    "hello, anyone there", "is anyone there", "hello {inst}", "hi {inst} bot",
)
GREETING_ADDRESSEES_KO = ("", " 챗봇", " 챗봇님", " 봇아", " 여러분")
GREETING_ADDRESSEES_EN = ("", " bot", " chatbot", " assistant", " everyone")
GREETING_ENDINGS = ("", "!", "~", "!!", ".", "~~", " :)", " ㅎㅎ", "^^", "?")

# --- ability ---------------------------------------------------------------------------------

ABILITY_FORMS_KO = (
    "뭘 할 수 있어", "뭘 할 수 있어요", "무엇을 할 수 있나요", "뭐 할 줄 알아", "할 수 있는 게 뭐야",
    "할 수 있는 게 뭐예요", "어떤 걸 물어볼 수 있나요", "뭘 물어봐야 돼", "뭐 물어봐도 돼",
    "무엇을 물어보면 되나요", "어떤 질문을 할 수 있어요", "어떤 질문에 답할 수 있나요",
    "어떤 기능이 있나요", "무슨 기능 있어", "기능 알려줘", "기능 소개해 주세요", "사용법 알려줘",
    "사용법이 어떻게 되나요", "어떻게 사용하는 거야", "이거 어떻게 써", "이 챗봇 어떻게 써요",
    "뭐 하는 챗봇이야", "무슨 일을 하는 봇인가요", "뭘 도와줄 수 있어", "어떤 도움을 받을 수 있나요",
    "무엇을 도와주실 수 있나요", "어떤 정보를 알려줄 수 있어", "어떤 내용을 안내해 주나요",
    "여기서 뭘 알 수 있어요", "도움말", "도움말 보여줘", "사용 가이드", "어떤 분야를 잘 알아",
    "뭘 물어보면 대답해 줄 수 있어", "할 줄 아는 거 말해봐", "어떤 서비스를 제공하나요",
    "무엇을 물어볼 수 있는지 알려주세요", "네 역할이 뭐야", "역할이 무엇인가요", "이 서비스는 뭐예요",
    "챗봇 기능 설명해줘", "이용 방법 알려주세요", "처음인데 어떻게 이용하면 되나요", "예시 질문 보여줘",
    "어떤 질문 예시가 있어", "무슨 질문까지 받아줘", "어디까지 답해줄 수 있어", "너 뭐 할 수 있는데",
    "무엇을 질문할 수 있나요", "어떤 걸 알려줄 수 있어", "도와줄 수 있는 게 뭐야", "무엇에 대해 답변할 수 있나요",
    "질문 가능한 범위가 어떻게 되나요", "어떤 주제를 다뤄", "이 봇 용도가 뭐야", "어떻게 질문하면 돼",
    "뭐부터 물어보면 돼", "기능 목록", "메뉴 보여줘", "처음 써보는데 뭘 하면 돼",
    "{inst} 챗봇은 뭘 할 수 있어", "{inst}에 대해 뭘 물어볼 수 있나요", "{inst} 챗봇 사용법 알려주세요",
    # what the assistant is, when it answers, whether to trust it, what it keeps, which languages:
    # questions about the assistant itself, not chat (smalltalk) and not about the university
    "너 사람이야", "너 로봇이야", "너 이름이 뭐야", "이름이 뭐예요", "혹시 실제 상담원이세요", "너 누가 만들었어",
    "당신은 인공지능인가요", "사람이랑 대화하는 건가요", "너 진짜 AI야", "챗봇 맞아", "기계가 답하는 거야",
    "언제든지 물어봐도 돼", "공휴일에도 이용할 수 있는 서비스인가요", "24시간 운영되는 챗봇인가요",
    "언제까지 이용 가능해", "항상 켜져 있어", "네 답변 정확해", "믿을 만한 정보야", "틀린 답을 할 수도 있나요",
    "정보 출처가 어디야", "내 질문 기록이 저장되나요", "대화 내용 기억해", "개인정보 수집해",
    "영어로 질문해도 돼", "다른 언어도 지원하나요", "답변은 얼마나 빨리 와",
)
ABILITY_FORMS_EN = (
    "what can you do", "what can I ask you", "how do I use this", "help", "what are your features",
    "what kind of questions can you answer", "how can you help me", "what is this bot for",
    "show me what you can do", "what do you know", "what are you able to do", "what topics do you cover",
    "how does this chatbot work", "give me some example questions", "what services do you offer",
    "what is your role", "what can this assistant help with", "what can the {inst} bot do",
    "are you a robot", "what's your name", "am I talking to a machine", "is this an AI", "who built this bot",
    "are you online all the time", "can I ask you things at night", "do you store my data",
    "how accurate are your answers", "do you speak Korean", "do you understand English",
)
ABILITY_OPENERS_KO = ("", "혹시 ", "근데 ", "저기 ", "너는 ", "넌 ", "챗봇아 ", "안녕하세요, ", "안녕! ")
ABILITY_OPENERS_EN = ("", "hey, ", "so ", "bot, ", "hi, ")
ABILITY_ENDINGS = ("?", "??", "", "?!", "? ㅎㅎ", "~?")

# --- smalltalk -------------------------------------------------------------------------------

# thanks, acknowledgements and goodbyes: a light reply, no answer to look up
SMALLTALK_THANKS_KO = (
    "고마워", "고마워요", "고맙습니다", "감사합니다", "감사해요", "땡큐", "덕분에 살았어", "도움이 됐어요",
    "알겠어", "알겠습니다", "오케이", "ㅇㅋ", "네 알겠어요", "좋아", "좋네요", "굿", "잘했어", "최고야",
    "잘 가", "안녕히 계세요", "다음에 또 올게", "수고하세요", "좋은 하루 보내세요", "좋은 하루", "잘 자",
    "바이바이", "이제 됐어", "아니 괜찮아", "그렇구나", "아하 그렇군요", "음", "ㅋㅋㅋㅋ", "ㅎㅎ", "그렇군",
    "오 신기하다", "대박", "헐", "ㅇㅇ", "응", "아니", "웃기다", "재밌다", "잘 자요", "내일 봐", "다음에 봐요",
    "좋은 주말 보내세요", "고생했어", "수고했어요", "너 귀엽다", "넌 좋겠다",
)
# moods and everyday chat, including school life that asks for nothing answerable (hard negatives)
SMALLTALK_MOOD_KO = (
    "배고프다", "배고파요", "심심해", "심심하다", "졸려", "졸려요", "피곤해", "피곤하다", "힘들다",
    "힘들어요", "우울해", "기분 좋아", "행복해", "스트레스 받아", "외로워", "지루해", "비 온다", "너무 덥다",
    "너무 춥다", "점심 뭐 먹지", "저녁 뭐 먹을까", "치킨 먹고 싶다", "커피 마시고 싶다", "집에 가고 싶다",
    "주말이 좋아", "월요일 싫어", "시험 망했어", "시험 망했어요", "과제 너무 많아", "과제가 너무 많아요",
    "팀플 힘들어", "기말고사 끝났다", "중간고사 잘 봤어", "학교 가기 싫어", "오늘 수업 너무 길었어",
    "교수님이 너무 무서워", "밤새 코딩했어", "도서관에 사람 너무 많다", "학식 맛없어", "학식 맛있었어",
    "종강하고 싶다", "개강 싫어", "레포트 쓰기 귀찮아", "전공 공부 어렵다", "조별과제 또 있어",
    "발표 너무 떨려", "시험 기간이라 너무 피곤해", "과제 마감 때문에 밤샜어", "동기들이랑 놀고 싶다",
    "캠퍼스 너무 예쁘다", "공강이라 심심해", "아침 수업 너무 힘들어", "오늘 시험 봤어",
    "기숙사 너무 시끄러워", "방학 언제 오냐", "출석 부르는 거 깜빡했어", "오늘 기분 최고", "나 오늘 생일이야",
    "비 와서 우울해", "배불러", "운동하기 싫다", "여행 가고 싶다", "오늘 과제 다 끝냈다", "시험 끝나서 행복해",
)
# questions about the bot itself or the world, which no university document answers
SMALLTALK_CHAT_KO = (
    "오늘 날씨 어때", "내일 비 와", "지금 몇 시야", "오늘 무슨 요일이야",
    "너 몇 살이야", "좋아하는 음식 뭐야", "취미가 뭐야",
    "너 똑똑하다", "너 바보야", "사랑해", "농담 해줘", "재밌는 얘기 해줘", "노래 불러줘", "놀아줘",
    "저녁 메뉴 추천해줘", "심심한데 얘기하자", "너 기분 어때", "잘 지내", "뭐 하고 있었어",
    "너도 잠 자", "너는 공부 안 해", "나랑 친구 할래", "아무 말이나 해봐", "너 고양이 좋아해", "점심 먹었어",
    "밥 먹었어", "너 어디 살아", "너 영화 좋아해", "요즘 뭐가 재밌어", "주말에 뭐 할까",
)
SMALLTALK_EN = (
    "thanks", "thank you", "thank you so much", "thx", "ok", "okay got it", "cool", "nice", "great",
    "lol", "bye", "see you", "good night", "i'm hungry", "i'm bored", "i'm tired", "i'm so sleepy",
    "how's the weather", "how old are you", "you are funny",
    "tell me a joke", "exams are killing me", "so much homework", "i failed my exam", "i love you",
    "what time is it", "i miss the weekend", "the cafeteria food was bad today", "have a nice day",
    "awesome", "haha", "wow", "good job", "see you tomorrow", "do you like music", "i'm happy today",
    "never mind", "no worries", "sounds good", "my bad", "love this", "you're the best", "not bad", "ugh",
    "fair enough", "that makes sense", "cheers", "all good", "oh well", "same here", "what a day",
)
SMALLTALK_OPENERS_KO = ("", "아 ", "하 ", "와 ", "진짜 ", "아 진짜 ")
SMALLTALK_ENDINGS_KO = ("", "ㅠㅠ", "ㅋㅋ", "...", "!", " ㅜㅜ", "ㅋㅋㅋ", "~", " ㅎㅎ")
SMALLTALK_CHAT_OPENERS_KO = ("", "근데 ", "야 ", "혹시 ", "챗봇아 ")
SMALLTALK_CHAT_ENDINGS_KO = ("?", "", "??", "? ㅋㅋ", "~")
SMALLTALK_ENDINGS_EN = ("", "!", " :)", "...", " lol", "?")

# --- openers that dataset.py prepends to real information questions (hard negatives) ----------

GREETING_OPENERS = (
    "안녕하세요, ", "안녕하세요! ", "안녕하세요. ", "안녕 ", "하이~ ", "반갑습니다. ", "수고하십니다. ",
    "저기요, ", "hello, ", "hi! ", "안녕하세요 {inst}, ",
)
SMALLTALK_OPENERS = (
    "시험 망했어요 ㅠㅠ ", "과제가 너무 많아서요. ", "고마워요! 그리고 ", "급해요! ", "아 진짜 헷갈려요. ",
    "처음이라 잘 몰라서요. ", "궁금한 게 있어요. ", "질문 하나만 할게요. ", "오늘 교수님이 그러셨는데, ",
)

# every opener, addressee and worded ending the variants add, as lower-case words, longest first
_DECORATIONS = sorted({re.sub(r"[^\w\s]+|[ㅋㅎㅠㅜ]+", " ", d.lower()).strip() for d in (
    ABILITY_OPENERS_KO + ABILITY_OPENERS_EN + SMALLTALK_OPENERS_KO + SMALLTALK_CHAT_OPENERS_KO + GREETING_ADDRESSEES_KO
    + GREETING_ADDRESSEES_EN + SMALLTALK_ENDINGS_EN + ("진짜 ", "정말 ", "아 ", "oh ", "haha "))} - {""}, key=len, reverse=True)

# generic information questions in plain English, for students who do not write Korean
ENGLISH_INFO_QUESTIONS = (
    "How do I apply for a leave of absence?", "How many credits do I need to graduate?",
    "When is the course registration period?", "Where can I find the curriculum?",
    "Can I get a scholarship this semester?", "How do I change my major?",
    "What are the requirements for a double major?", "How do I get my transcript?",
    "When does the semester start?", "Is there a deadline for dropping a class?",
    "How do I return to school after military service?", "Which courses are required for my major?",
    "Can I take a course from another department?", "How do I apply for an internship credit?",
    "What is the English graduation requirement?", "Where is the department office?",
    "How do I request a student ID card?", "Can I retake a course I failed?",
    "What documents do I need for a transfer credit?", "Who do I contact about tuition payment?",
    "I want to take a semester off. What should I do?", "I missed the registration deadline, can I still enroll?",
    "Is the capstone project mandatory?", "How are exchange student credits recognized?",
    "What scholarships are there for international students?", "How do I apply for graduation?",
    "Can I change my name on my student record?", "When is the tuition payment deadline?",
    "What are the office hours of the academic affairs team?", "How do I apply for a minor?",
    # first-person requests and "what if" cases: in English they share words with greetings and
    # ability questions ("I want to ...", "can you ..."), so the retrieval side needs its own
    "I want to drop a course after the deadline", "I'd like to extend my leave of absence",
    "I need a certificate of enrollment in English", "I want to switch my double major to a minor",
    "I'd like to cancel my course registration", "I lost my student ID card, what now?",
    "I want to update my address in the student record", "I need to defer my tuition payment",
    "I'd like to apply for early graduation", "I want to withdraw from the university",
    "What if I fail a required course in my last semester?", "What if I can't attend the final exam?",
    "What if my GPA falls below the probation line?", "What if I miss the return-to-school application?",
    "What happens if I don't meet the English requirement?", "What if two of my classes are at the same time?",
    "I'm studying abroad next semester, how do my credits transfer?", "I'm a transfer student, which credits count?",
    "I'm on academic probation, how many credits can I take?", "I'm back from military service, how do I re-enroll?",
    "Do I have to take chapel or general education courses?", "Does an internship count toward major credits?",
    "Can I take more than 21 credits this semester?", "Can I graduate without a thesis?",
    "Is there a fee for a reissued diploma?", "How do I apply for a refund of my tuition?",
    "How do I get an official transcript sent abroad?", "How do I register for summer session courses?",
    "Where do I submit my medical certificate for an absence?", "Who approves a course substitution?",
    "When are grades posted?", "When can I appeal my grade?", "How is my GPA calculated?",
    "How do I book an appointment with my academic advisor?", "How long can I stay on leave?",
    "My scholarship was cancelled, can I appeal?", "My name is wrong on my diploma",
    "Course registration system shows an error for prerequisites", "Required courses for the class of 2022",
    "Graduation requirements for a single major", "deadline to apply for a double major",
    "minimum credits per semester", "rules for retaking a course", "how to get a student loan",
    # asked of the assistant ("can you", "do you know") but about the university: information
    "Could you tell me where the registrar's office is?", "Can you check if I can still drop a class?",
    "Do you know the deadline for tuition refunds?", "Can you explain the grading policy?",
    "Could you find the form for a course substitution?", "Can you show me the academic calendar?",
)
# the same in Korean: the assistant addressed (너, 챗봇아, 니가), a university matter asked
ADDRESSED_INFO_QUESTIONS_KO = (
    "챗봇아 수강신청 기간 알려줘", "너 장학금 종류 알아?", "니가 보기엔 졸업요건 어떻게 돼?", "챗봇님 성적 정정 절차가 궁금해요",
    "너는 학사일정 알고 있어?", "봇아 전과 조건 좀 찾아줘", "너 계절학기 등록금 얼마인지 알아?",
    "당신이 아는 복학 절차를 설명해 주세요", "AI 관련 교과목 목록 알려주세요", "로봇 관련 전공 과목 뭐 있어?",
    "인공지능 부전공 이수 학점은?", "휴일에 학생회관 문 여는 시간은?", "방학 중 기숙사 식당 운영해요?",
)


def seed_examples(institution: str) -> list[Seed]:
    """Every seed message (greeting, ability, smalltalk), deterministic, without duplicates."""
    names = institution_names(institution)
    seeds: list[Seed] = []
    for forms, openers, endings, intent in (
        (GREETING_FORMS_KO, ("",), GREETING_ENDINGS, "greeting"),
        (GREETING_FORMS_EN, ("",), GREETING_ENDINGS[:7], "greeting"),
        (ABILITY_FORMS_KO, ABILITY_OPENERS_KO, ABILITY_ENDINGS, "ability"),
        (ABILITY_FORMS_EN, ABILITY_OPENERS_EN, ABILITY_ENDINGS[:3], "ability"),
        (SMALLTALK_THANKS_KO, SMALLTALK_OPENERS_KO[:1] + ("진짜 ", "정말 ", "아 "), GREETING_ENDINGS[:8], "smalltalk"),
        (SMALLTALK_MOOD_KO, SMALLTALK_OPENERS_KO, SMALLTALK_ENDINGS_KO, "smalltalk"),
        (SMALLTALK_CHAT_KO, SMALLTALK_CHAT_OPENERS_KO, SMALLTALK_CHAT_ENDINGS_KO, "smalltalk"),
        (SMALLTALK_EN, ("", "oh ", "haha "), SMALLTALK_ENDINGS_EN, "smalltalk"),
    ):
        addressees = _addressees(intent, forms)
        for form in forms:
            plain = INSTITUTION_SLOT not in form  # a named form takes no opener or addressee
            for filled in fill_institution(form, names):
                variants = _variants(filled, openers if plain else ("",), addressees if plain else ("",), endings)
                seeds += [Seed(text, intent, group=form) for text in _pick(variants, form, PER_FORM[intent])]
    return _unique(seeds)


def institution_names(institution: str) -> list[str]:
    """The names a student might call the institution: the config's name, its parenthesised
    alternative ("한빛대학교 정보대학 (Hanbit University ...)") and a Korean university's short name."""
    parts = [p.strip() for p in re.split(r"[()]", institution) if p.strip()]
    names = list(parts)
    for part in parts:
        first = part.split()[0]
        if first != part and re.search(r"(대학교|대학)$", first):
            names.append(first)
    return list(dict.fromkeys(names)) or [institution.strip()]


def fill_institution(template: str, names: Sequence[str]) -> list[str]:
    """The template with each of the institution's names, or the template itself when it has no
    slot. Hangul templates take Hangul names, the others Latin ones, where there is a choice."""
    if INSTITUTION_SLOT not in template:
        return [template]
    hangul = _has_hangul(template.replace(INSTITUTION_SLOT, ""))
    fitting = [n for n in names if _has_hangul(n) == hangul] or list(names)
    return [template.replace(INSTITUTION_SLOT, name) for name in fitting]


def _addressees(intent: str, forms: Sequence[str]) -> tuple[str, ...]:
    if intent != "greeting":
        return ("",)
    return GREETING_ADDRESSEES_KO if forms is GREETING_FORMS_KO else GREETING_ADDRESSEES_EN


def _variants(form: str, openers: Iterable[str], addressees: Iterable[str], endings: Iterable[str]) -> list[str]:
    """Every decorated variant of one form, spelling variants included, in a stable order."""
    out = []
    for spelling in spellings(form):
        for opener in openers:
            if opener and _starts_with_subject(spelling):
                continue  # "너는 너는 뭘 ..." never happens
            for addressee in addressees:
                if addressee and not _is_short(spelling):
                    continue  # "만나서 반갑습니다 챗봇님" is stilted: addressees go with short greetings
                for ending in endings:
                    out.append(_tidy(f"{opener}{spelling}{addressee}{ending}"))
    return out


def spellings(form: str) -> list[str]:
    """The form as written, plus the variants people type: a casual 요 -> 여, spacing dropped or
    added inside a word, English in lower / sentence case."""
    out = [form]
    if re.search(r"요$", form):
        out.append(form[:-1] + "여")
    if " " in form and _has_hangul(form):
        out.append(form.replace(" ", "", 1))  # 학식 맛없어 -> 학식맛없어
    if split := re.match(r"^(\S{2,})(하세요|하십니까|합니다|습니다|하다)$", form):
        out.append(f"{split[1]} {split[2]}")  # 안녕하세요 -> 안녕 하세요, 피곤하다 -> 피곤 하다
    if not _has_hangul(form) and form[:1].isalpha():
        out.append(form[:1].upper() + form[1:])
    return list(dict.fromkeys(out))


def _pick(variants: list[str], form: str, count: int) -> list[str]:
    """`count` variants, the plain form always among them, the rest drawn by a seeded shuffle
    (seeded by the form: the same on every machine and run)."""
    unique = list(dict.fromkeys(variants))
    plain, rest = unique[:1], unique[1:]
    random.Random(stable_hash(form)).shuffle(rest)
    return plain + rest[: count - 1]


def _unique(seeds: list[Seed]) -> list[Seed]:
    seen, out = set(), []
    for seed in seeds:
        if seed.text not in seen:
            seen.add(seed.text)
            out.append(seed)
    return out


def form_key(text: str) -> str:
    """A message reduced to the hand-written form it could be a variant of: case, punctuation,
    emoticons, laughter, the openers, addressees and endings above, spaces and a casual 여 for 요
    removed. The classifier's validation part is split by this key, so the variants of a form fall
    on one side and the "not sure" threshold is chosen on wordings the model did not see."""
    t = " " + re.sub(r"\s+", " ", re.sub(r"[^\w\s]+|[ㅋㅎㅠㅜ]+|_", " ", text.lower())).strip() + " "
    # one decoration at each end at most, the end first ("안녕 챗봇" is the form 안녕, not 챗봇)
    for words in _DECORATIONS:
        if t.endswith(" " + words + " ") and len(t) > len(words) + 3:
            t = t[: -len(words) - 1]
            break
    for words in _DECORATIONS:
        if t.startswith(" " + words + " ") and len(t) > len(words) + 3:
            t = t[len(words) + 1:]
            break
    return re.sub(r"여$", "요", t.replace(" ", ""))


def stable_hash(text: str) -> int:
    """A hash that does not change between processes (Python's str hash is salted)."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def site_key(url_or_text: str) -> str:
    """A URL without its scheme and host, for hashing: the same site served from another host or
    port (a mirror, a staging copy, the demo on a free port) must get the same splits and draws."""
    parts = urlsplit(url_or_text)
    if not (parts.scheme and parts.netloc):
        return url_or_text
    return urlunsplit(("", "", parts.path or "/", parts.query, parts.fragment))


def _tidy(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _has_hangul(text: str) -> bool:
    return re.search(r"[\uac00-\ud7a3\u3131-\u318e]", text) is not None


def _is_short(text: str) -> bool:
    return len(text.split()) == 1


def _starts_with_subject(text: str) -> bool:
    return re.match(r"^(너|넌|네 |이 챗봇|챗봇)", text) is not None
