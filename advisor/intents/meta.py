"""Two message kinds recognized from their form alone, the same at every institution: a message
that is only greeting words, and a question about the assistant itself (a meta-question: what it
is, what it can do, when it answers, whether to trust it, what it keeps).

Why rules beside the classifier: the classifier learns from one institution's seeds and documents,
so on an unseen institution it confuses "넌 로봇이야?" with smalltalk and "주말에도 대답해줘?" with a
question about weekends. These rules use no institution's vocabulary, only words about greeting and
about the assistant, and they fire only when EVERY part of the message is such a word (plus
particles, endings and fillers): one word the lexicon does not know ("AI 융합전공", "로봇공학과",
"leave of absence") and the rule stays silent, leaving the message to the classifier. That is
what keeps information questions that merely mention AI, robots or "you" as information.

Matching is spacing-insensitive: Korean words are matched inside the message with its spaces
removed ("넌뭘물어보면대답해줘" decomposes like "넌 뭘 물어보면 대답해 줘").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Container
from functools import lru_cache

MAX_RULE_CHARS = 80  # longer messages carry a real request: leave them to the classifier


def _alternation(words) -> str:
    # longest first, so "안녕하세요" is tried before "안녕"
    return "|".join(re.escape(w) for w in sorted(set(words), key=lambda w: (-len(w), w)))


# --- normalization ----------------------------------------------------------------------------

_JAMO_FILLER = re.compile(r"^(?:[ㅋㅎㅠㅜㄷㄱ]+|ㅇㅇ+)$")  # laughter, tears: mood, not content
_SCRIPT_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[\uac00-\ud7a3])|(?<=[\uac00-\ud7a3])(?=[a-z])")


def normalize(text: str) -> str:
    """Lower case, symbols and emoji to spaces, Latin and Hangul separated ("너chatbot이야" ->
    "너 chatbot 이야"), spaces collapsed."""
    text = unicodedata.normalize("NFC", text).lower()
    text = "".join(ch if (ch.isalnum() or ch.isspace()) else " " for ch in text)
    text = _SCRIPT_BOUNDARY.sub(" ", text)
    return re.sub(r"\s+", " ", text).strip()


def _tokens(text: str) -> list[str]:
    return [t for t in normalize(text).split() if not _JAMO_FILLER.match(t)]


def _is_hangul(token: str) -> bool:
    return re.search(r"[\uac00-\ud7a3\u3131-\u318e]", token) is not None


# --- the shared function words: particles, endings, fillers -------------------------------------

PARTICLES = (
    "은", "는", "이", "가", "을", "를", "에", "에도", "에서", "에서도", "도", "로", "으로", "로도", "으로도", "랑",
    "이랑", "하고", "한테", "한테도", "께", "께서", "의", "만", "까지", "부터", "이나", "나", "라도", "이라도", "처럼",
)
ENDINGS = (
    "야", "이야", "이니", "니", "냐", "이냐", "임", "이에요", "예요", "에요", "이세요", "세요", "인가요", "가요", "나요",
    "니까", "습니까", "입니까", "ㅂ니까", "어", "아", "여", "요", "용", "지", "죠", "이지", "해", "해요", "해여",
    "해줘", "해줄", "해주", "해주는", "해주나요", "해주세요", "해주시나요", "해줄래", "줘", "줘요", "줄", "주", "주나요",
    "주시나요", "주세요", "주니", "줄래", "줄래요", "는", "건가요", "건가", "거야", "거니", "거예요", "건지", "게",
    "데", "는데", "인데", "은데", "면", "으면", "하면", "하는", "하나요", "해도", "돼", "돼요", "되나요", "되니",
    "되는", "된", "하니", "합니까", "합니다", "니다", "다", "ㄴ가요", "는지", "인지", "이지요", "잖아", "이잖아",
    "는거", "는건", "거", "건", "게", "네", "네요", "군요", "구나", "라", "이라", "래", "래요", "대", "대요",
    "하지", "하죠", "했어", "했어요", "된거", "된거야", "있", "있어", "있어요", "있나요", "있니", "잇", "잇어",
    "져", "져요", "지나요", "없", "없어", "없어요", "없나요", "었", "었어", "었어요", "었니", "었나요", "셨", "셨어요", "셨나요", "음",
    "됨", "함", "을까", "을까요", "ㄹ까요", "까요",
    # honorific endings ("누구신가요", "상담원이세요")
    "신가요", "이신가요", "세요", "이세요", "으세요", "시죠", "십니까", "이십니까", "신지", "시나요", "셔요",
    # the casual 요 -> 여 people type
    "여", "세여", "나여", "가여", "인가여", "에여", "예여", "해여", "줘여", "주세여", "있어여", "되나여", "하나여",
)
FILLERS_KO = ("혹시", "근데", "그런데", "그럼", "그러면", "진짜", "정말", "좀", "다", "또", "그냥", "저기", "저기요",
              "아", "음", "오", "와", "헐", "그래서", "혹시나", "궁금", "궁금해", "궁금해요", "궁금한데", "한번",
              "제발", "님", "씨", "요즘", "지금", "나", "내", "저", "제", "우리", "얘", "얘기")


# --- greetings --------------------------------------------------------------------------------

# words that make a message a greeting (an anchor is needed: "좋은", "잘", "님" alone greet nobody)
GREETING_ANCHORS_KO = (
    "안녕", "안녕하세요", "안뇽", "안냥", "안녀", "안녕하십니까", "하이", "하이루", "헬로", "헬로우", "ㅎㅇ", "반가",
    "반갑", "방가", "처음", "뵙", "오랜만", "굿모닝", "굿이브닝", "여보세요", "수고하십니다", "아침", "오후", "저녁",
)
GREETING_WORDS_KO = GREETING_ANCHORS_KO + (
    "하세요", "하세여", "하세염", "하십니까", "하신가요", "하셨어요", "워", "워요", "워여", "웡", "워용", "습니다",
    "습니당", "습니다요", "좋은", "이에요", "입니다", "예요", "이예요", "겠습니다", "뵙겠습니다", "뵙네요", "뵈어요",
    "만나서", "잘", "부탁", "부탁해", "부탁해요", "부탁드려요", "부탁드립니다", "드립니다", "드려요", "지냈어",
    "지냈어요", "지내셨어요", "지내셨나요", "계세요", "수고", "많으십니다", "인사", "인사드립니다", "인사드려요",
    "다들", "여러분", "챗봇", "봇", "님", "아", "야", "요", "여", "네", "오", "헤이", "하이하이", "안녕안녕", "반가워",
    "반가워요", "반갑습니다", "방가방가", "만나", "서", "뵈", "어요", "해요", "요오",
)
GREETING_ANCHORS_EN = ("hello", "hi", "hey", "hiya", "howdy", "yo", "greetings", "morning", "afternoon", "evening",
                       "meet", "hallo", "helo", "hellooo", "heyy", "hii")
GREETING_WORDS_EN = GREETING_ANCHORS_EN + (
    "good", "nice", "to", "see", "you", "pleased", "there", "everyone", "all", "bot", "chatbot", "assistant", "again",
    "glad", "and", "oh", "ok",
)
_GREETING_KO = re.compile(rf"(?:{_alternation(GREETING_WORDS_KO)})+")
_GREETING_ANCHOR = re.compile(rf"(?:{_alternation(GREETING_ANCHORS_KO)})(?!히)")
# a greeting prefix of a no-space message must end like a finished greeting ("안녕하세요기숙사..."),
# so that "하이브리드" or "반가운 소식" is never cut after its first syllables
_FINISHED = re.compile(r"(?:요|다|까|녕|뇽|냥|워|웡|여|염|용|ㅇ|님|봇|가|세요)$")


def _token_reader(words_ko: re.Pattern, anchors_ko: re.Pattern, words_en: Container[str], anchors_en: Container[str]):
    """read(token) -> (the token is of the lexicon only, it holds one of its anchors): a Korean token
    as a run of the lexicon's words (`words_ko` matches it whole), an English one as one word."""

    def read(token: str) -> tuple[bool, bool]:
        if _is_hangul(token):
            whole = words_ko.fullmatch(token) is not None
            return whole, whole and anchors_ko.search(token) is not None
        return token in words_en, token in anchors_en

    return read


_greeting_token = _token_reader(_GREETING_KO, _GREETING_ANCHOR, GREETING_WORDS_EN, GREETING_ANCHORS_EN)


def _only_words_of(text: str, read_token) -> bool:
    """Is every word of `text` one `read_token` knows, and one at least an anchor of its lexicon?
    `read_token(token)` -> (the token is of the lexicon, it holds an anchor)."""
    tokens = _tokens(text)
    if not tokens or len(text) > MAX_RULE_CHARS:
        return False
    anchored = False
    for token in tokens:
        whole, anchor = read_token(token)
        if not whole:
            return False
        anchored |= anchor
    return anchored


def is_greeting_only(text: str) -> bool:
    """Only greeting / social words (with addressees, fillers, emoji): "안녕하세요, 반가워요",
    "하이하이반가워", "hey there, good evening". A goodbye ("안녕히 계세요") is not a greeting."""
    return _only_words_of(text, _greeting_token)


def strip_greeting(text: str) -> str | None:
    """What follows a leading greeting ("안녕하세요, 휴학은 어떻게 해요?" -> "휴학은 어떻게 해요?",
    no-space "안녕하세요기숙사입사신청언제해요" -> "기숙사입사신청언제해요"); None when the message
    does not start with a greeting or is nothing but one."""
    raw = text.strip()
    # symbols (not letters) to spaces, one for one, so offsets in `flat` are offsets in `raw`
    flat = "".join(ch if (ch.isalnum() or ch.isspace()) else " " for ch in raw.lower())
    if len(flat) != len(raw):
        return None
    position, anchored = 0, False
    for match in re.finditer(r"\S+", flat):
        token = match.group()
        whole, anchor = _greeting_token(token)
        if whole:
            position, anchored = match.end(), anchored or anchor
            continue
        if _is_hangul(token):
            head = _GREETING_KO.match(token)
            # the longest finished greeting at the token's start, if any
            while head is not None and not _FINISHED.search(head.group()):
                head = _GREETING_KO.match(token[: len(head.group()) - 1]) if len(head.group()) > 1 else None
            # the anchor is looked for with the syllable after the head: "안녕히 계세요" says goodbye
            if head is not None and _GREETING_ANCHOR.search(token[: len(head.group()) + 1]):
                position, anchored = match.start() + len(head.group()), True
        break
    rest = raw[position:].strip(" \t\n,.!~;:·-")
    if not anchored or not re.search(r"\w", rest) or rest == raw:
        return None
    return rest


# --- meta-questions ---------------------------------------------------------------------------

# the assistant referred to: pronouns of address and names for a bot
REFERENCE_KO = ("챗", "너", "넌", "너는", "너가", "니가", "네가", "니", "너도", "너한테", "너랑", "너희", "너네", "당신", "당신은",
                "챗봇", "봇", "로봇", "인공지능", "에이아이", "ai", "gpt", "지피티", "chatbot", "bot", "이거", "이건",
                "이챗봇", "이봇", "이서비스", "서비스", "여기")
# what is asked of it: identity, capability, availability, reliability, privacy, language
IDENTITY_KO = ("똑똑", "사람", "인간", "로봇", "봇", "챗봇", "인공지능", "에이아이", "ai", "기계", "프로그램", "누구", "정체", "이름",
               "누가", "만들", "만든", "만들었", "만들어졌", "만들어진", "상담원", "직원", "진짜", "실제", "gpt", "지피티", "chatbot", "bot", "몇", "살",
               "나이", "모델", "엔진", "버전", "번역", "기계번역", "담당", "어느", "공식", "무료", "유료", "공짜", "돈",
               "똑똑하다", "챗gpt", "챗지피티", "chatgpt", "애", "하는애", "대학", "대학교", "학교", "달라",
               "다른", "차이", "비교", "랑",
               # whom it serves ("너 학생들 도와주는 봇 맞지?")
               "학생", "학생들")
CAPABILITY_KO = ("할", "수", "줄", "뭘", "뭐", "머", "뭔", "무엇", "무슨", "어떤", "어떻게", "어디까지", "알", "아는", "알아",
                 "도와", "도와줄", "도움", "대답", "답", "답변", "답장", "답해", "답할", "응답", "물어", "물어보", "물어봐",
                 "물어볼", "질문", "기능", "사용법", "쓰는", "써", "이용", "범위", "가능", "못", "잘", "말", "정보",
                 "알려", "알려줄", "해줄", "할수", "종류", "분야", "주제", "역할", "용도",
                 # what one can look up through it ("이 챗봇으로 어떤 것들을 확인할 수 있어요?")
                 "확인", "것", "것들", "들")
AVAILABILITY_KO = ("주말", "밤", "새벽", "휴일", "공휴일", "24", "시간", "24시간", "언제든", "언제든지", "언제나", "항상", "늘",
                   "방학", "아무때나", "쉬는", "날", "쉬어", "쉬니", "꺼져", "켜져", "계속", "매일", "답장", "외",
                   "시", "시까지", "몇시", "몇시까지")
RELIABILITY_KO = ("정확", "정확한", "정확해", "믿", "믿어", "믿을", "틀", "틀려", "틀린", "틀리", "틀리면", "틀릴", "잘못",
                  "출처", "최신", "실시간", "확실", "맞", "맞아", "맞지", "맞는", "아니", "아니지", "아니야",
                  # what then ("답변 틀리면 어떡해")
                  "어떡해", "어떡하", "어떡하지", "어떡하죠",
                  # how fresh its information is and what it answers from
                  "업데이트", "업데이트된", "갱신", "갱신된", "언제", "기준", "근거", "자료", "보고", "참고",
                  "됐", "됐어", "됐어요", "됐나요", "됐니", "됐냐", "되었", "되었나요", "되었어요",
                  "어디", "어디야", "어디서", "어디예요", "어디에요")
PRIVACY_KO = ("기억", "저장", "개인정보", "기록", "대화", "내용", "남아", "보관", "입력", "입력한", "삭제", "지워",
              # what the student told it
              "내가", "제가", "한", "말", "했던", "말한", "아까", "방금", "전에", "학번", "알려주면", "알려주")
# asking for a person instead: a hand-over is a question about what the assistant can do
HANDOVER_KO = ("연결", "연결해", "바꿔", "바꿔줘", "바꿔주세요", "넘겨", "상담", "상담사", "선생님", "사람이랑", "직접", "통화",
               "얘기", "이야기", "말고", "싶어요", "싶어")
LANGUAGE_KO = ("영어", "한국어", "중국어", "일본어", "외국어", "언어", "english", "korean")
_META_WORDS_KO = (REFERENCE_KO + IDENTITY_KO + CAPABILITY_KO + AVAILABILITY_KO + RELIABILITY_KO + PRIVACY_KO
                  + LANGUAGE_KO + HANDOVER_KO + PARTICLES + ENDINGS + FILLERS_KO)

# predicates looked for in the message with its spaces removed
_REFERENCE = re.compile(r"(?:너(?!무)|넌|니가|네가|당신|챗봇|봇|로봇|인공지능|에이아이|ai|gpt|지피티|이거|이건|여기|서비스)")
_IDENTITY = re.compile(r"(?:chatbot|bot|똑똑|사람|인간|로봇|봇|인공지능|에이아이|ai|기계|프로그램|누구|정체|이름|누가|만들|만든|상담원|직원|gpt|지피티|"
                       r"번역|담당|공식|무료|유료|공짜|"
                       r"몇살|나이|모델|엔진|버전|어떤대학|무슨대학|어느대학|어떤학교|무슨학교|어느학교|뭐가달라|뭐가다른|차이)")
# what is left of "챗봇 맞죠?" once the bot is named: a confirmation that it is one
_CONFIRMS = re.compile(r"^(?:맞|맞죠|맞지|맞아|맞나|맞나요|맞아요|맞습니까|인가요|이신가요|신가요|이세요|세요|이에요|예요|에요|임|이지|지)$")
_BOT_NOUN = re.compile(r"(?:챗봇|봇|로봇|인공지능|에이아이|ai|gpt|지피티|chatbot|bot)")
_CAPABILITY = re.compile(r"(?:할수있|할수잇|할줄|수있|수잇|뭘알|뭐알|아는|알아|도와|도움|대답|답변|답장|답해|답할|답하|응답|물어|"
                         r"질문|기능|사용법|쓰는법|어떻게써|어떻게쓰|이용|범위|가능|어디까지|역할|용도|종류|분야|주제)")
_AVAILABILITY = re.compile(r"(?:주말|밤|새벽|휴일|24시간|언제든|언제나|항상|방학|아무때나|쉬는날|계속|매일|몇시까지)")
_RELIABILITY = re.compile(r"(?:정확|믿|틀|출처|최신|실시간|확실|업데이트|갱신|근거|자료|참고)")
_PRIVACY = re.compile(r"(?:기억|저장|개인정보|기록|보관|입력|삭제|지워)")
# a person asked for instead of the assistant ("사람 상담원 바꿔주세요", "상담 선생님이랑 연결해줄 수 있어?")
_HANDOVER = re.compile(r"(?:사람|상담원|상담사|선생님|직원).*(?:연결|바꿔|넘겨|통화|얘기|이야기)")
_LANGUAGE = re.compile(r"(?:영어|한국어|중국어|일본어|외국어|언어|english|korean)")
# verbs whose subject can only be the assistant: who answers, who is asked
_ANSWERING = re.compile(r"(?:대답|답변|답장|답해|답하|답할|응답|물어|질문|대화|채팅|한말|했던말|말한거|faq|"
                        # the information it answers from, asked how fresh or where from ("정보가 최신인가요?")
                        r"정보가|정보는|정보야|정보예요|정보에요|정보인가|정보출처|정보의)")
# "너 뭐야" / "넌 누구니": identity asked with a bare pronoun and a question word
_WHAT_ARE_YOU = re.compile(r"^(?:너|넌|너는|니|당신|당신은)(?:대체|도대체)?(?:뭐|무엇|뭔데|누구|뭐하는애|뭐하는거|뭐하는앤|뭐하는놈)"
                           r"(?:야|니|냐|이야|이니|이냐|인가요|입니까|예요|에요|세요|이세요|신가요|지)?$")
# a Korean promissory ending: the speaker's own intention ("물어볼게요", "또 올께")
_PROMISE = re.compile(r"(?:게|께)(?:요)?$")
_HANDOVER_EN_VERBS = frozenset({"talk", "speak", "connect", "transfer", "chat"})
_HANDOVER_EN_PEOPLE = frozenset({"human", "person", "real", "someone"})  # "my advisor" alone asks about advising
_ASKED_OF_IT = (_IDENTITY, _CAPABILITY, _AVAILABILITY, _RELIABILITY, _PRIVACY, _LANGUAGE, _HANDOVER)

REFERENCE_EN = {"you", "u", "ya", "your", "yourself", "bot", "chatbot", "assistant", "robot", "ai", "gpt", "this", "it",
                "here"}
PREDICATE_EN = {
    "human", "person", "real", "robot", "bot", "ai", "machine", "computer", "program", "who", "what", "made", "built",
    "yourself",  # "tell me about yourself"
    "created", "make", "name", "help", "know", "answer", "answers", "reply", "respond", "work", "available",
    "online", "weekend", "weekends", "night", "nights", "24", "7", "anytime", "always", "holiday", "holidays",
    "accurate", "trust", "reliable", "remember", "save", "store", "keep", "data", "privacy", "english", "korean",
    "language", "languages", "speak", "understand", "questions", "things", "topics", "capable", "able", "use",
    "chatbot", "assistant", "alive", "sentient", "day", "hours", "do", "does",
    # the conversation and what becomes of it; where answers come from and how fresh they are
    "chat", "conversation", "message", "input", "type", "record", "log", "delete", "private", "secure", "safe",
    "source", "come", "date", "current", "latest", "update", "correct", "wrong", "mistake", "right", "smart",
    "clever", "intelligent", "learn", "train", "model", "llm", "chatgpt", "openai", "free", "cost", "sleep",
    "info", "information", "sources", "updated", "different", "difference", "official", "faq", "ask",
    "talk", "connect", "transfer", "advisor", "counselor", "staff", "someone",
    # who runs it and how much of the institution it knows
    "run", "runs", "operated", "operates", "school", "college", "university", "everything",
}
FUNCTION_EN = {
    "are", "is", "am", "want", "r", "a", "an", "the", "can", "could", "will", "would", "did", "me", "i", "my", "with",
    "on", "in", "at", "or", "and", "to", "of", "for", "all", "also", "really", "actually", "even", "still", "hey",
    "so", "ok", "please", "be", "there", "any", "anything", "about", "how", "which", "kind", "sort", "much", "many",
    "ever", "s", "re", "not", "just", "only", "tell", "describe", "introduce", "kinds", "types", "type", "stuff", "should", "may", "by", "too",
    "well", "that", "sure", "if", "exactly", "every", "during", "over", "through", "real", "hi", "hello",
    "else", "other", "otherwise", "like", "get", "give", "reply", "from", "things",
    "where", "when", "why", "our", "we", "us", "have", "has", "been", "up", "out", "than", "don", "doesn", "isn",
    "aren", "t", "cannot", "won", "it", "its", "what's", "whats",
}
_META_KO = re.compile(rf"(?:{_alternation(_META_WORDS_KO)})+")
_META_EN = frozenset(REFERENCE_EN | PREDICATE_EN | FUNCTION_EN)

# how one uses the assistant: with the words above, everything a question about it is made of
USAGE_KO = ("메뉴", "가이드", "도움말", "예시", "예", "사용", "방법", "서비스", "설명", "소개", "보여", "보여줘", "처음",
            "써보", "써봐", "써보는", "시작", "목록", "리스트", "명령어", "제공", "지원", "다뤄", "다루", "안내", "하면",
            "되", "돼", "봐야", "해야", "하는", "거", "것", "게", "뭐부터", "부터", "까지", "어디", "무엇을", "대해", "관해",
            "물어봐야", "질문해", "질문할", "받을", "받아", "받", "줄수", "주실", "줄래", "싶", "싶어", "싶어요", "잘하는",
            "가능한", "걸", "다른", "얼마나", "빨리", "만한", "말해", "말해봐", "일", "수집", "운영", "운영되는", "언제",
            "언제까지", "인", "하나", "하나요", "제공하나", "지원하나", "이용할", "써야", "쓰면", "쓰는지")
USAGE_EN = {"help", "menu", "guide", "example", "examples", "use", "usage", "feature", "features", "services",
            "service", "offer", "show", "cover", "start", "commands", "list", "works", "role", "purpose", "function",
            "functions", "ask", "question", "questions", "topic", "topics", "answer", "this", "for", "do", "i", "you",
            "we", "it", "here", "first", "should", "need", "want", "with", "can", "what", "how", "where", "thing",
            "things", "know", "support", "supports", "kind", "capabilities", "assist", "explain", "introduce",
            "give", "some", "talking", "talk", "machine", "online", "time", "all", "me", "am"}
_ASSISTANT_KO = re.compile(rf"(?:{_alternation(_META_WORDS_KO + USAGE_KO + GREETING_WORDS_KO)})+")


_ENGLISH_ASSISTANT = REFERENCE_EN | PREDICATE_EN | FUNCTION_EN | USAGE_EN | set(GREETING_WORDS_EN)


def only_assistant_words(text: str, known: frozenset[str] = frozenset()) -> bool:
    """Every word of the message is one people use to greet, to ask about the assistant or how to
    use it ("메뉴 보여줘", "처음인데 뭐부터 물어봐야 돼", "show me some examples"). A word outside
    ("휴학", "스튜디오", "deadline") means the message is about something else: the university.
    `known`: more such words, e.g. the institution's name as its own seeds spell it."""
    return bool(_tokens(text)) and not words_outside_assistant_lexicon(text, known)


def words_outside_assistant_lexicon(text: str, known: frozenset[str] = frozenset()) -> list[str]:
    """The message's words that only_assistant_words does not know: the candidates for what else
    the message is about ("넌 휴학 신청 방법 알아?" -> ["휴학", "신청", "방법"])."""
    return [t for t in _tokens(text) if not _assistant_word(t, known)]


def _english_stem(token: str, vocabulary: frozenset[str] | set[str]) -> str:
    """The vocabulary's word for an inflected token ("stored" -> "store", "answers" -> "answer",
    "remembering" -> "remember"): the lexicon lists base forms only. The token when it is a word
    of the vocabulary itself or has no base form in it."""
    if token in vocabulary:
        return token
    for suffix, replacement in (("ing", ""), ("ied", "y"), ("ies", "y"), ("ed", "e"), ("ed", ""), ("es", ""),
                                ("s", ""), ("d", "")):
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            base = token[: -len(suffix)] + replacement
            if base in vocabulary:
                return base
    return token


def _assistant_word(token: str, known: frozenset[str]) -> bool:
    if token in known or _english_stem(token, _ENGLISH_ASSISTANT) in _ENGLISH_ASSISTANT:
        return True
    if not (_is_hangul(token) or token in _META_WORDS_KO):
        return False
    if _ASSISTANT_KO.fullmatch(token):
        return True
    # a known word with particles or endings attached ("한빛대학교에", "한빛대학교챗봇은")
    return any(token.startswith(word) and _ASSISTANT_KO.fullmatch(token[len(word):]) for word in known)


def unexplained_words(texts) -> list[str]:
    """The words of `texts` that only_assistant_words does not know, sorted: recorded with a model
    trained on an institution's greeting / ability seeds, where they are mostly its names."""
    words = {t for text in texts for t in _tokens(text)}
    return sorted(w for w in words if not _assistant_word(w, frozenset()))


@lru_cache(maxsize=4096)
def is_meta_question(text: str) -> bool:
    """A question about the assistant itself, in any register: "넌 로봇이야?", "주말에도 대답해줘?",
    "니가 할수 잇는게 머야", "are you a human?", "can you answer in English?". Silent (False) on any
    message with a word outside the lexicon: "AI 융합전공 신청 방법", "can you tell me the leave of
    absence deadline" stay with the classifier."""
    if len(text) > MAX_RULE_CHARS:
        return False
    tokens = _tokens(text)
    if not tokens:
        return False
    hangul = [t for t in tokens if _is_hangul(t)]  # Latin words ("AI", "chatbot") go by the English lexicon
    latin = [_english_stem(t, _META_EN) for t in tokens if t not in hangul]
    if any(not _META_KO.fullmatch(t) for t in hangul):
        return False
    if any(t not in _META_EN for t in latin):
        return False
    compact = "".join(hangul)
    if _PROMISE.search(compact) and "?" not in text:
        return False  # "다음에 또 물어볼게요": the student's plan, nothing asked of the assistant
    if _WHAT_ARE_YOU.match(compact) or _HANDOVER.search(compact):
        return True
    if _HANDOVER_EN_VERBS & set(latin) and _HANDOVER_EN_PEOPLE & set(latin):
        return True  # "can I talk to a real advisor?": a person asked for instead of the assistant
    if hangul and _LANGUAGE.search(compact) and (_CAPABILITY.search(compact) or re.search(r"돼|되", compact)):
        # "중국어 가능해요?", "영어도 돼?": every word about the assistant, and a language asked of it
        return True
    # Latin names of a bot, and of the FAQ it answers from, count in the Korean frame ("너 gpt야?",
    # "ai 맞죠?", "FAQ 말고 다른 것도 알아?")
    compact = "".join(t for t in tokens if _is_hangul(t) or _BOT_NOUN.fullmatch(t) or t == "faq")
    reference = _REFERENCE.search(compact)
    if reference is not None and _BOT_NOUN.fullmatch(reference.group()) and _CONFIRMS.match(
            compact[: reference.start()] + compact[reference.end():]):
        return True  # "챗봇 맞죠?": is it a bot
    referred = reference is not None or any(t in REFERENCE_EN for t in latin)
    if reference is not None:
        # the word that names the assistant is not also what is asked of it: "저기요 챗봇님"
        # greets, "챗봇아 뭐 하고 있었어" chats; "너 로봇이야", "AI야 사람이야" ask
        compact = compact[: reference.start()] + " " + compact[reference.end():]
    answering = _ANSWERING.search(compact) is not None or any(
        t in {"answer", "answers", "reply", "respond"} for t in latin)
    asked = any(p.search(compact) for p in _ASKED_OF_IT) or any(
        t in PREDICATE_EN - {"do", "does"} for t in latin) or (
        # "what can you do": a capability asked with English auxiliaries only
        {"can", "do"} <= set(latin) or {"what", "do"} <= set(latin))
    english_only = not hangul
    if english_only:
        # "you" alone ("how are you", "thank you") is no question about the assistant
        return referred and asked and any(t in PREDICATE_EN for t in latin) and (
            _asks_something_en(latin) or "?" in text)
    return asked and (referred or answering)


def _asks_something_en(tokens: list[str]) -> bool:
    """An English meta-question asks: it has a question word, an auxiliary or a request to tell
    ("tell me about yourself") first, or "you" followed by a predicate ("you work weekends?")."""
    return tokens[0] in {"are", "r", "is", "do", "does", "can", "could", "will", "would", "who", "what", "how",
                         "tell", "describe", "introduce",
                         "which", "did", "where", "when", "why"} or "who" in tokens or "what" in tokens


# --- what it is, named with the institution; what it can see --------------------------------------

# "정보대학 챗봇 맞나요?", "학교에서 운영하는 챗봇인가요?", "너 행정실 직원이야?", "is this the official
# chatbot of the college?": what the assistant is, asked with the institution's or an office's name,
# words no lexicon can list. The message ends by naming the bot (or a person, when a word addresses
# the assistant) and confirming; whatever comes before qualifies the bot. "조교도 직원이에요?" has no
# addressee and stays a question; "AI 챗봇 공모전 있나요?" ends elsewhere.
_BOT_CONFIRMED = re.compile(_BOT_NOUN.pattern + r"(?:이|인)?"
                            r"(?:맞|맞죠|맞지|맞아|맞나|맞나요|맞아요|맞습니까|가요|인가요|이에요|예요|에요|야|이야|임|이지|지|죠|냐|이냐|니|이니)$")
_PERSON_CONFIRMED = re.compile(r"(?:직원|사람|상담원|상담사|선생님|조교|교직원)(?:이|인)?"
                               r"(?:맞|맞죠|맞나요|맞아요|가요|인가요|이에요|예요|에요|야|이야|임|이지|냐|이냐|니|이니|세요|이세요|신가요|이신가요)$")
_ADDRESSED = re.compile(r"^(?:너|넌|너는|니가|네가|당신|당신은|거기|여기)")
_WHAT_IT_IS_EN = re.compile(r"^(?:is this|is it|are you|r u|are u)(?: (?:the|a|an|really|actually|just))?(?: [\w']+){0,2} "
                            r"(?:chatbot|bot|assistant|ai|robot|staff|human|person|employee|member)\b")
_FACT_EN = re.compile(r"\b(?:when|how|where|why|which|what)\b")


def asks_what_it_is(text: str) -> bool:
    """Does the message ask whether the assistant is some institution's bot or a person of an office?"""
    if len(text) > MAX_RULE_CHARS:
        return False
    tokens = _tokens(text)
    hangul = "".join(t for t in tokens if _is_hangul(t) or _BOT_NOUN.fullmatch(t))
    if hangul and _FACT_WORD.search(hangul) is None and (
            _BOT_CONFIRMED.search(hangul) or (_ADDRESSED.match(hangul) and _PERSON_CONFIRMED.search(hangul))):
        return True
    normalized = normalize(text)
    return not any(_is_hangul(t) for t in tokens) and _WHAT_IT_IS_EN.search(normalized) is not None and not (
        _FACT_EN.search(normalized))


# "너 포털 정보도 볼 수 있어?", "can you see my grades?", "are you connected to the school portal?": whether
# the assistant can look into a student's records or the university's systems. It cannot; the
# ability reply says what it answers from. Only with a word addressing the assistant: "내 성적 볼 수
# 있어?" may ask how the student sees them, and stays a question.
_ACCESS_KO = re.compile(r"(?:볼수있|볼수잇|봐줄수|봐줘|조회|접근|연결돼|연결되|연동|확인할수있|확인해줄|확인가능|열람|들어가볼)")
_RECORDS_KO = re.compile(r"(?:포털|시스템|내|제|나의|저의|개인|기록|성적표|학적부|계정|데이터베이스|db)")
_ACCESS_EN = re.compile(r"\b(?:you|u)\b.*\b(?:see|view|access|check|look up|look at|pull up|read|connected|linked|log into|login)\b"
                        r".*\b(?:my|portal|system|systems|records?|account|transcript|grades?|database)\b")


def asks_about_its_access(text: str) -> bool:
    """Does the message ask whether the assistant can see a student's records or the university's systems?"""
    if len(text) > MAX_RULE_CHARS:
        return False
    tokens = _tokens(text)
    hangul = "".join(t for t in tokens if _is_hangul(t))
    if hangul:
        return (_ADDRESSED.match(hangul) is not None and _ACCESS_KO.search(hangul) is not None
                and _RECORDS_KO.search(hangul) is not None)
    normalized = normalize(text)  # "can you tell me how to check my grades?" asks how the student does
    return _ACCESS_EN.search(normalized) is not None and _FACT_EN.search(normalized) is None


# --- social requests --------------------------------------------------------------------------------

# Asking the assistant for a social act rather than for information: cheer, comfort, praise,
# congratulate, a joke ("나 좀 응원해줘", "칭찬 좀 해주세요", "cheer me up please"). The classifier
# reads the request frame ("…해줘", "…해주세요") as a question and sends them to answering (0.7-0.95
# sure, on both bundled institutions' models). A closed class of the language, the same everywhere;
# as with the other rules, one word outside it and the message is left to the classifier ("시험
# 응원 이벤트 언제 해요?", "wish me luck on the TOEIC").
SOCIAL_ANCHORS_KO = ("응원", "위로", "칭찬", "축하", "격려", "파이팅", "화이팅", "힘내", "토닥", "토닥토닥", "농담", "덕담",
                     "재밌는", "재미있는", "웃긴", "웃겨")
SOCIAL_WORDS_KO = SOCIAL_ANCHORS_KO + (
    "한마디", "말", "말해", "이야기", "얘기", "소리", "생일", "나", "날", "저", "저를", "나를", "날좀", "한번", "해", "해줘",
    "해줄래", "해주세요", "해줘요", "해주라", "해줄수", "한다고", "한다", "하는", "좀", "라고", "이라고", "받고", "받고싶어",
    "싶어", "싶어요", "주세요", "줘", "줄래", "해봐", "해봐요", "해보세요", "부탁", "부탁해", "부탁해요", "부탁드려요")
SOCIAL_ANCHORS_EN = frozenset({"cheer", "comfort", "encourage", "encouragement", "congratulate", "congrats", "praise",
                               "compliment", "joke", "jokes", "funny", "laugh", "motivate", "motivation", "hug", "luck"})
SOCIAL_WORDS_EN = SOCIAL_ANCHORS_EN | {"me", "up", "please", "say", "something", "tell", "a", "some", "give", "make",
                                       "wish", "can", "could", "would", "you", "i", "need", "little", "bit", "just",
                                       "word", "words", "of", "pls", "plz", "one", "another", "the"}
_SOCIAL_KO = re.compile(rf"(?:{_alternation(SOCIAL_WORDS_KO + PARTICLES + ENDINGS)})+")
_SOCIAL_ANCHOR_KO = re.compile(_alternation(SOCIAL_ANCHORS_KO))


_social_token = _token_reader(_SOCIAL_KO, _SOCIAL_ANCHOR_KO, SOCIAL_WORDS_EN, SOCIAL_ANCHORS_EN)


def is_social_request(text: str) -> bool:
    """A request for cheer, comfort, praise, congratulations or a joke, and nothing else: smalltalk."""
    return _only_words_of(text, _social_token)


# --- leaving ------------------------------------------------------------------------------------------

# Taking leave ("나 이제 갈게", "오늘은 여기까지 할게요", "또 올게요 ㅎㅎ"): the student is done. The
# classifier has "bye" and "수고하세요" in its seeds but read "나 이제 갈게" as a question on both bundled
# institutions. A closed class; one word of a topic ("이제 휴학 신청하러 갈게") and the rule is silent.
LEAVING_ANCHORS_KO = ("갈게", "갈께", "가볼게", "가볼께", "가보겠", "들어갈게", "들어가볼게", "나갈게", "이만", "올게",
                      "올께", "잘있어", "빠이", "또봐", "담에봐", "다음에봐", "여기까지")
LEAVING_WORDS_KO = LEAVING_ANCHORS_KO + (
    "나", "저", "이제", "먼저", "오늘은", "오늘", "할게", "할께", "하겠습니다", "할게요", "잘", "있어", "있어요", "계세요",
    "다음에", "담에", "또", "봐", "봐요", "뵐게요", "다시", "그럼", "그럼이만", "안녕", "안녕히", "ㅂㅂ", "감사", "감사해요",
    "감사합니다", "고마워", "고마워요", "습니다", "볼게", "볼게요")
LEAVING_ANCHORS_EN = frozenset({"bye", "goodbye", "gtg", "ttyl", "cya", "leaving", "later", "off"})
LEAVING_WORDS_EN = LEAVING_ANCHORS_EN | {
    "ok", "okay", "i", "im", "i'm", "m", "gotta", "go", "going", "now", "see", "you", "ya", "u", "talk", "to", "thanks",
    "thank", "bye-bye", "for", "today", "that's", "thats", "all", "it", "then", "well"}
_LEAVING_KO = re.compile(rf"(?:{_alternation(LEAVING_WORDS_KO + PARTICLES + ENDINGS + FILLERS_KO)})+")
_LEAVING_ANCHOR_KO = re.compile(_alternation(LEAVING_ANCHORS_KO))


_leaving_token = _token_reader(_LEAVING_KO, _LEAVING_ANCHOR_KO, LEAVING_WORDS_EN, LEAVING_ANCHORS_EN)


def takes_leave(text: str) -> bool:
    """Does the message only take leave ("나 이제 갈게", "ok gotta go, bye")?"""
    return _only_words_of(text, _leaving_token)


# --- personal chat ------------------------------------------------------------------------------------

# How the student's or the assistant's day went, meals, sleep, moods ("점심 맛있게 드셨어요?", "요즘 잘
# 지내세요?", "i caught a cold", "going to sleep now"). The classifier has such chat in its seeds in 반말
# ("밥 먹었어"), and reads the honorific question ("…드셨어요?", "…보내셨나요?") or an English remark
# as a question: answering then meets "not in my material", or worse, an unrelated passage. Korean:
# a verb of everyday life with a word of the day, a meal or manner, and nothing else; English: a
# state of body or mood with everyday words, and nothing else. One word of the university ("점심시간에도
# 행정실 운영하나요?", "i'm sick, can I get an excused absence?") and the rule is silent.
DAY_VERBS_KO = ("드셨", "드시", "드세", "먹었", "먹어", "먹", "주무셨", "주무시", "주무세", "잤", "자", "지내셨", "지내세", "지냈",
                "지내", "보내셨", "보내세", "보냈", "쉬셨", "쉬세", "쉬었", "수고", "어떠셨", "어땠", "하셨", "했")
DAY_WORDS_KO = ("오늘", "하루", "주말", "점심", "저녁", "아침", "요즘", "어제", "밤", "새벽", "이번", "주", "휴일", "연휴", "밥",
                "식사", "간식", "잘", "맛있게", "맛있는", "푹", "좋은", "즐거운", "재밌게", "편히", "뭐", "뭘", "어떻게", "많이",
                "많으셨", "다들")
DAY_ENDINGS_KO = ("하세요", "셨어요", "셨나요", "셨어", "으셨어요")  # honorific endings the shared list lacks
_DAY_KO = re.compile(rf"(?:{_alternation(DAY_VERBS_KO + DAY_WORDS_KO + DAY_ENDINGS_KO + PARTICLES + ENDINGS + FILLERS_KO)})+")
_DAY_VERB_KO = re.compile(_alternation(DAY_VERBS_KO))
_DAY_WORD_KO = re.compile(_alternation(DAY_WORDS_KO))
DAY_STATES_EN = frozenset({
    "tired", "sleepy", "sleep", "sleeping", "nap", "bed", "hungry", "starving", "bored", "boring", "stressed",
    "exhausted", "sick", "cold", "flu", "headache", "happy", "sad", "excited", "gym", "raining", "rain", "rainy",
    "sunny", "snowing", "pizza", "coffee", "lunch", "dinner", "breakfast", "cat", "dog", "cute", "lazy"})
DAY_WORDS_EN = DAY_STATES_EN | {
    "i", "im", "m", "so", "very", "really", "just", "got", "back", "from", "the", "a", "an", "today", "tonight",
    "now", "again", "rn", "it", "its", "s", "is", "was", "feeling", "feel", "had", "long", "day", "week",
    "weekend", "monday", "mondays", "friday", "time", "for", "going", "to", "my", "love", "caught", "huh", "ugh",
    "lol", "haha", "too", "kinda", "little", "bit", "of", "gonna", "need", "some", "such", "what", "all", "out"}


def is_personal_chat(text: str) -> bool:
    """Chat about the day, meals, sleep or moods, and nothing else: smalltalk."""
    tokens = _tokens(text)
    if not tokens or len(text) > MAX_RULE_CHARS:
        return False
    hangul = [t for t in tokens if _is_hangul(t)]
    if hangul:
        if len(hangul) != len(tokens) or any(not _DAY_KO.fullmatch(t) for t in hangul):
            return False
        compact = "".join(hangul)
        return _DAY_VERB_KO.search(compact) is not None and _DAY_WORD_KO.search(compact) is not None
    return all(t in DAY_WORDS_EN for t in tokens) and any(t in DAY_STATES_EN for t in tokens)


# --- "I have a question" -------------------------------------------------------------------------------

# Announcing a question without asking it ("질문 있어요", "궁금한 게 있는데요", "문의드릴 게 있습니다",
# "I have a question", "can I ask something?"): a student's usual opener. It names no topic, so the
# classifier sent it to answering, where one generic word matched an entry ("I have a question" ->
# the scholarship entry whose answer says "for any questions", at 0.95 on the real FAQ) or met
# "not in my material". Like leave to ask, it is about the assistant: the ability reply says what
# to ask. A closed class; one word of a topic ("질문 있는데 휴학은요?") and the rule is silent.
ANNOUNCE_ANCHORS_KO = ("질문", "궁금", "문의", "여쭤", "여쭙", "여쭈", "물어볼", "물어보")
ANNOUNCE_WORDS_KO = ANNOUNCE_ANCHORS_KO + (
    "한", "하나", "하나만", "몇", "가지", "좀", "게", "거", "것", "점", "사항", "있", "있어", "있는데", "있습니다", "있어서",
    "있다", "생겨서", "생겼어", "드릴", "드려", "드립니다", "드리고", "드리려고", "드리려", "왔어", "왔습니다", "왔는데",
    "해서", "할게", "할께", "하려고", "하고", "싶어", "싶은데", "싶습니다", "싶어서", "잠깐", "잠시", "저", "제가", "저기",
    "혹시", "려고", "려구", "는데", "데", "볼", "봐", "보고", "해도", "될까", "되나", "돼", "괜찮")
ANNOUNCE_ANCHORS_EN = frozenset({"question", "questions", "ask", "query", "asking"})
ANNOUNCE_WORDS_EN = ANNOUNCE_ANCHORS_EN | {
    "i", "have", "got", "a", "quick", "small", "short", "few", "some", "one", "two", "can", "could", "may", "you",
    "something", "anything", "please", "just", "need", "to", "want", "wanted", "would", "like", "if", "i've", "ive",
    "there", "hi", "hello", "hey", "so", "um", "uh", "ok", "okay", "another", "more", "again"}
_ANNOUNCE_KO = re.compile(rf"(?:{_alternation(ANNOUNCE_WORDS_KO + PARTICLES + ENDINGS + FILLERS_KO)})+")
_ANNOUNCE_ANCHOR_KO = re.compile(_alternation(ANNOUNCE_ANCHORS_KO))


_announce_token = _token_reader(_ANNOUNCE_KO, _ANNOUNCE_ANCHOR_KO, ANNOUNCE_WORDS_EN, ANNOUNCE_ANCHORS_EN)


# a question put off ("다음에 또 물어볼게요": the fillers 다 + 음 + 에 read it whole): leaving, smalltalk
_LATER = re.compile(r"(?:다음에|담에|나중에|이따|내일)")


def announces_a_question(text: str) -> bool:
    """Does the message only announce that a question follows ("질문 있어요", "I have a question")?"""
    return _only_words_of(text, _announce_token) and _LATER.search("".join(_tokens(text))) is None


# --- may I ask about X? ------------------------------------------------------------------------------

# asking leave to ask ("장학금 관련해서도 물어봐도 돼?", "졸업 관련 질문도 받아요?"): about the assistant,
# whatever the topic, unlike a capability question that asks for content ("넌 휴학 신청 방법 알아?")
_LEAVE_TO_ASK = re.compile(
    r"(?:물어봐도|물어봐두|물어보면|여쭤봐도|여쭤보면|질문해도|질문해두|질문하면|질문드려도|물어볼수있|질문할수있)"
    r"(?:돼|되|될|괜찮|가능|받|답|대답|알려)"
    r"|(?:질문|물음)(?:도|만)?(?:받|가능|할수있|해도)"
    # what it knows of a subject ("학사 관련해서 아는 거 있어?")
    r"|(?:아는거|아는게|알고있는거|알고있는게)(?:있|좀|많)")
# someone else asked ("교수님께 질문해도 되나요?"): a question about the university, not the assistant
_OTHER_ADDRESSEE = re.compile(r"(?<!너)(?<!당신)(?<!봇)(?:께|에게|한테)")
# a question word asking for a fact: then the message asks for content, not leave
_FACT_WORD = re.compile(r"(?:언제|어떻게|어케|얼마|몇|어디|왜|무엇|뭐|뭘|누구|누가|어느|무슨|어떤)")
# before the frame, the topic scoped as a subject matter ("장학금 관련해서도", "기숙사 얘기도", "장학금도")
# or the assistant addressed ("너한테"): "수업 중에 질문해도 돼요?" asks about class, not about the assistant
_SUBJECT_MATTER = re.compile(r"(?:관련|대해|관해|얘기|이야기|같은것|같은거|쪽|도|너|넌|여기|챗봇|봇)")
_LEAVE_TO_ASK_EN = re.compile(r"\b(?:can|could|may) i ask(?: you)?(?: something)? about\b"
                              r"|\b(?:can|could) you help(?: me)? with\b"
                              r"|\b(?:do|can|could|will) you (?:take|answer) questions (?:about|on)\b")


def asks_leave_to_ask(text: str) -> bool:
    """Does the message ask whether it may ask about something ("기숙사 얘기도 물어봐도 돼?", "can I
    ask you about scholarships?") rather than ask it? No fact question word may come with it."""
    if len(text) > MAX_RULE_CHARS:
        return False
    normalized = normalize(text)
    if _LEAVE_TO_ASK_EN.search(normalized):
        return _FACT_EN.search(normalized) is None
    compact = "".join(t for t in _tokens(text) if _is_hangul(t))
    frame = _LEAVE_TO_ASK.search(compact)
    return (frame is not None and _SUBJECT_MATTER.search(compact[:frame.start()]) is not None
            and _FACT_WORD.search(compact) is None and _OTHER_ADDRESSEE.search(compact) is None)


# --- does a message ask for something? ------------------------------------------------------------

# question words and the endings of a question or a request, in any register ("어디서 봐요",
# "어떡하죠", "바꾸는 법", "신청 가능?", "알려줘"); English question words and auxiliaries first
_ASKING_KO = re.compile(
    r"(?:어디|언제|어떻게|어떡|어케|어떤|어느|뭐|뭔|뭘|무엇|무슨|몇|얼마|누구|누가|왜|"
    r"나요|까요|가요|을까|ㄹ까|할까|는지|인지|죠$|지요$|니$|냐$|나$|래$|래요$|"
    r"주세요|줘|주실|주시|싶어요|싶은데|싶습니다|하려면|으려면|려면|방법|법$|가능|되나|돼$|되요$|될까|"
    r"있나|없나|있어$|있어요$|수 ?있|해야|하나$|하나요)")
_ASKING_EN = frozenset({"what", "where", "when", "how", "who", "which", "why", "can", "could", "do", "does", "is",
                        "are", "will", "should", "may", "please", "need", "want"})


def asks_something(text: str) -> bool:
    """Does the message ask a question or make a request, rather than only remark or react ("아파서
    기말고사 못 봤어요 어떡하죠" asks; "오늘 시험 망했어 ㅠㅠ" does not)? A question mark, a question
    word, or the ending of a question or a request."""
    if "?" in text or "？" in text:
        return True
    tokens = _tokens(text)
    if not tokens:
        return False
    if any(t in _ASKING_EN for t in tokens[:2]) or any(t in ("what", "where", "when", "how") for t in tokens):
        return True
    return _ASKING_KO.search(" ".join(t for t in tokens if _is_hangul(t))) is not None


# --- does a message report a reason for missing something? ----------------------------------------

# Illness, injury, bereavement and duties that excuse a student from an exam or a class: stated
# beside something the university rules on ("코로나 걸려서 시험 못 봤어요", "입원해서 수업 못 갔어요"),
# a request for the procedure (make-up exam, excused absence) without a question word. "시험 못
# 봤어" alone may mean "did badly" and stays a remark
_ABSENCE_KO = re.compile(r"아파|아팠|아픈|아프|코로나|감기|독감|몸살|장염|입원|수술|병원|다쳐|다쳤|부상|확진|격리|"
                         r"교통사고|장례|상을당|조문|예비군|병결|결석")
_ABSENCE_EN = frozenset({"sick", "ill", "covid", "flu", "hospital", "hospitalized", "injured", "surgery", "funeral",
                         "quarantine", "quarantined", "absent", "absence"})


def reports_absence(text: str) -> bool:
    """Does the message give a reason a student missed, or will miss, an exam or a class (illness,
    injury, a funeral, military training)?"""
    tokens = _tokens(text)
    if any(t in _ABSENCE_EN for t in tokens):
        return True
    return _ABSENCE_KO.search("".join(t for t in tokens if _is_hangul(t))) is not None
