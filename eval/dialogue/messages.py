"""The dialogue benchmark's messages: what a student of any institution might send, each with the
behaviour expected of the assistant.

Categories (`category`) and what is expected of each:
- greeting / ability / smalltalk: the template of that intent, no profile question;
- faq: a seed FAQ entry asked in a student's own words; answered by the FAQ tier from that entry;
- retrieval: a question about a document's title or heading; answered (documents tier);
- profile_independent: a question from an FAQ entry or a document whose annotation restricts no
  attribute; no profile question asked;
- out_of_scope: campus life the corpus does not cover; the disclaimed fallback (or a template),
  never an answer presented as found.

Every message is written in one register (`register`): polite, banmal, typo, nospace, emoji,
english, mixed (Korean and English). The wordings below are this module's own, written to differ
from advisor/intents/seeds.py, advisor/intents/dataset.py and advisor/faq/paraphrase.py (a test
checks that no message equals a training example or a calibration paraphrase): the benchmark asks
whether routing and the FAQ tier generalize to words they never saw. Only topic extraction
(`topic_phrase`, the particles) is shared with the dataset: that is reading the institution's
titles, not wording a message.

Deterministic: the same build and institution give the same messages, ids and order, from
whatever host and port the site is served (the draws key on a URL's path: seeds.site_key).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from advisor.faq.store import FAQEntry, faq_entries_from_build
from advisor.index.store import IndexBuild
from advisor.intents.dataset import particles_for, topic_phrase
from advisor.intents.seeds import fill_institution, institution_names, site_key

CATEGORIES = ("greeting", "ability", "smalltalk", "faq", "retrieval", "profile_independent", "out_of_scope")
REGISTERS = ("polite", "banmal", "typo", "nospace", "emoji", "english", "mixed")
# expected behaviour: template (the intent's canned reply), faq_entry (the FAQ tier, from the
# entry), answer (answered from the material), no_question (answered or not, but nothing asked),
# fallback (not presented as found)
BEHAVIOURS = ("template", "faq_entry", "answer", "no_question", "fallback")
GOLD_TEMPLATES = "templates"  # the expected intent / behaviour is the generator's own template
GOLD_FAQ_STORE = "faq_store"  # the expected entry is a seed entry of the build's FAQ store

# how many of each message made from the institution's material (a few hundred messages in all:
# one pass through the engine stays well under a minute)
FAQ_MESSAGES = 60
RETRIEVAL_MESSAGES = 40
PROFILE_INDEPENDENT_MESSAGES = 30


@dataclass(frozen=True)
class Message:
    message_id: str
    text: str
    category: str  # CATEGORIES
    register: str  # REGISTERS
    intent: str | None  # the intent a router should give (None: out_of_scope, any non-answer will do)
    behaviour: str  # BEHAVIOURS
    gold_from: str  # templates | faq_store
    faq_source: str | None = None  # faq / profile-independent FAQ messages: the entry's source_url
    source_url: str | None = None  # the document or FAQ entry the message was written from
    template: str = ""  # the frame or hand-written form it came from

    def as_dict(self) -> dict:
        return asdict(self)


# ---------------------------------------------------------------------------- hand-written intents

# (register, text); "{inst}" takes the institution's names. typo / nospace forms are derived below.
GREETINGS = (
    ("polite", "안녕하세요, 반가워요"), ("polite", "안녕하세요~ 오늘 처음 들어와 봤어요"),
    ("polite", "좋은 아침이네요, 잘 부탁드려요"), ("polite", "{inst} 도우미님 안녕하세요, 반갑습니다"),
    ("banmal", "안녕 반가워~ 잘 부탁해"), ("banmal", "하이 오랜만이다"), ("banmal", "ㅎㅇㅎㅇ 나 왔어"),
    ("emoji", "안녕하세요 😊"), ("emoji", "하이하이 👋👋"), ("emoji", "반가워요 🙌"),
    ("english", "hey, good to see you!"), ("english", "hello, nice meeting you"),
    ("mixed", "hi 반가워요~"), ("mixed", "hello 처음 뵙겠습니다"),
)
ABILITY = (
    ("polite", "주말에도 대답해 주시나요?"), ("polite", "밤늦게 물어봐도 답해 주시는 건가요?"),
    ("polite", "여기서는 어떤 걸 상담받을 수 있는지 궁금해요"), ("polite", "답변은 어떤 자료를 보고 해 주시는 거예요?"),
    ("polite", "제가 입력한 정보가 어디 저장되나요?"), ("polite", "사람 상담원이 직접 답하는 건가요?"),
    ("banmal", "넌 로봇이야?"), ("banmal", "주말에도 대답해줘?"), ("banmal", "너한테 뭘 물어보면 대답해줌?"),
    ("banmal", "니가 하는 대답은 어디서 가져온 거야?"), ("banmal", "너 사람이 답하는 거 아니지?"),
    ("emoji", "너 AI야? 🤖"), ("emoji", "뭐 도와줄 수 있어? 🤔"), ("emoji", "새벽에도 답해줘요? 🌙"),
    ("english", "what exactly can you do for me?"), ("english", "are you a real person or a bot?"),
    ("english", "do you answer on weekends too?"), ("english", "where do your answers come from?"),
    ("mixed", "너 AI 챗봇 맞지?"), ("mixed", "이 bot은 뭐까지 해줘요?"), ("mixed", "주말에도 reply 해줘?"),
    ("polite", "{inst} 도우미는 어떤 질문에 답해 주나요?"),
)
SMALLTALK = (
    ("polite", "오늘 하루 정말 길었네요"), ("polite", "답변 감사해요, 큰 도움 됐어요"),
    ("polite", "요즘 날씨가 많이 쌀쌀해졌네요"), ("polite", "이번 주는 정신이 하나도 없어요"),
    ("banmal", "오늘 진짜 너무 피곤하네"), ("banmal", "고마워 덕분에 해결했어"), ("banmal", "나 방금 과제 냈다"),
    ("banmal", "오늘 점심 진짜 맛있었어"),
    ("emoji", "고마워요 😄"), ("emoji", "과제 끝!! 🎉"), ("emoji", "비 오니까 기분이 좀 그렇네 ☔"),
    ("english", "thanks a lot, that helped"), ("english", "ugh, such a long day today"),
    ("english", "i just finished my midterm"),
    ("mixed", "오늘 너무 tired 하다"), ("mixed", "thanks 덕분에 살았어요"), ("mixed", "과제 finally 끝냈다"),
)
# (register, text, the word that must not occur in the corpus for the message to be out of scope)
OUT_OF_SCOPE = (
    ("banmal", "근처 맛집 추천해줘", "맛집"), ("polite", "동아리 회식 장소로 괜찮은 곳 있을까요?", "회식"),
    ("polite", "학교 앞 카페 중에 콘센트 많은 곳 아세요?", "카페"), ("banmal", "기숙사 근처 헬스장 한 달에 얼마야?", "헬스장"),
    ("banmal", "이번 축제에 연예인 누구 와?", "연예인"), ("polite", "캠퍼스 주변 자취방 월세 시세가 어떤가요?", "월세"),
    ("typo", "학교근처 피씨방 추천좀 해줭", "피씨방"), ("nospace", "시험끝나고갈만한노래방있어?", "노래방"),
    ("emoji", "학교 앞 술집 중에 단체석 있는 데? 🍻", "술집"), ("english", "any good places to eat near campus?", "restaurant"),
    ("english", "where can I buy a cheap used bike around here?", "bike"), ("mixed", "근처 hair shop 괜찮은 데 있어?", "미용실"),
    ("polite", "학교 근처 미용실 잘하는 곳 추천해 주세요", "미용실"), ("banmal", "오늘 학식 메뉴 뭐 나와?", "학식"),
    ("mixed", "주말에 갈만한 brunch 카페 알려줘", "브런치"),
)

# ---------------------------------------------------------------------------- frames around topics

# {x} a topic phrase (title / heading); particles from advisor.intents.dataset.particles_for
RETRIEVAL_FRAMES = (
    ("polite", "{x} 관련해서 여쭤볼 게 있는데요, 자세히 안내 부탁드려요"),
    ("polite", "{x}에 대해 정리해서 설명해 주실 수 있나요?"),
    ("banmal", "{x} 이거 어떻게 되는 거야?"), ("banmal", "{x} 좀 정리해서 말해줘"),
    ("typo", "{x} 어케 되는지 알려주셈"), ("nospace", "{x}{eun}어떻게되는건지"),
    ("emoji", "{x} 내용 좀 부탁드려요 🙏"), ("emoji", "{x} 뭔지 하나도 모르겠어요 😭"),
    ("english", "could you walk me through {x}?"), ("english", "what should I know about {x}?"),
    ("mixed", "{x} 관련 info 좀 주세요"), ("mixed", "{x} details 알려줄 수 있어?"),
)
# {q} the FAQ question without its end punctuation; {c} its casual (banmal) form
FAQ_FRAMES = (
    ("polite", "다름이 아니라 {q} 궁금해서 여쭤봐요"), ("polite", "선배가 그러는데 잘 모르겠어서요, {q}"),
    ("banmal", "{c} 아는 사람?"), ("banmal", "야 {c}"),
    ("typo", "{c} 알려주셈"), ("nospace", "{c}"),
    ("emoji", "{q} 🙏"), ("emoji", "{c} 😥"),
    ("english", "quick one from the FAQ topic: {q}"), ("english", "can u tell me — {q}"),
    ("mixed", "{q} plz 알려주세요"), ("mixed", "{c} asap 알려줘"),
)

# Casual endings of polite questions: (ending pattern, replacement). Order matters: longest first.
_CASUAL = (
    (r"할 수 있나요$", "할 수 있어"), (r"있나요$", "있어"), (r"없나요$", "없어"), (r"하나요$", "해"),
    (r"되나요$", "돼"), (r"나요$", "니"), (r"합니까$", "해"),
    (r"궁금합니다$", "궁금해"), (r"궁금해요$", "궁금해"), (r"주세요$", "줘"), (r"해요$", "해"), (r"가요$", "가"),
    (r"요$", ""),
)
# A student's own words for the question words and constructions of an FAQ (not the calibration's
# synonym table, advisor/faq/paraphrase.py): the first two that apply
_REWORDS = (
    (r"언제", "언제쯤"), (r"어떻게(?! ?되)", "어떤 식으로"), (r"무엇(?=[이을은]|\s|$)", "뭐"), (r"어디(?:에서|서)", "어느 곳에서"),
    (r"몇 학점", "학점 몇"), (r"몇 과목", "과목 몇 개"), (r"얼마인가요", "얼마 정도인가요"), (r"필요한가요", "꼭 있어야 하나요"),
    (r"있나요", "있는지요"),
)
# Typos students make: (pattern, replacement), the first two that apply
_TYPOS = (
    (r"어떻게", "어케"), (r"습니다", "슴다"), (r"좀", "쫌"), (r"뭐", "머"), (r"했", "햇"), (r"있", "잇"),
    (r"되", "돼"), (r"요(?=\W*$)", "용"), (r"\?$", "??"),
)


# ---------------------------------------------------------------------------- generation

def generate(build: IndexBuild, institution: str, faq_entries: Sequence[FAQEntry] | None = None) -> list[Message]:
    """Every benchmark message for `build` (its seed FAQ entries, chunk titles and headings,
    annotations) and the institution's name, in a stable order."""
    names = institution_names(institution)
    entries = sorted((e for e in (faq_entries if faq_entries is not None else faq_entries_from_build(build))
                      if e.origin == "seed"), key=lambda e: e.source_url)
    documents = _documents(build)
    corpus = " ".join(d["text"] for d in documents).lower() + " " + " ".join(e.answer for e in entries).lower()
    messages: list[Message] = []
    for category, forms in (("greeting", GREETINGS), ("ability", ABILITY), ("smalltalk", SMALLTALK)):
        messages += _hand_written(category, forms, names)
    messages += _faq_messages(entries)
    messages += _retrieval_messages(documents)
    messages += _profile_independent(entries, documents)
    messages += _out_of_scope(corpus)
    return _unique(messages)


def _hand_written(category: str, forms: Sequence[tuple[str, str]], names: Sequence[str]) -> list[Message]:
    out = []
    for register, form in forms:
        text = fill_institution(form, names)[0]
        out.append(_message(text, category, register, category, "template", GOLD_TEMPLATES, template=form))
        if register in ("polite", "banmal") and _pick("derive|" + form, 2) == 0:
            # half the plain forms are also sent mistyped or run together, as students type them
            kind = "typo" if _pick("kind|" + form, 2) == 0 else "nospace"
            derived = typo(text) if kind == "typo" else nospace(text)
            out.append(_message(derived, category, kind, category, "template", GOLD_TEMPLATES, template=form))
    return out


def _faq_messages(entries: Sequence[FAQEntry]) -> list[Message]:
    # A question several entries share (one per department's FAQ page) has no single right entry
    # for a student whose department is unknown: only questions of one entry are gold.
    questions = Counter(_norm(e.question) for e in entries)
    single = [e for e in entries if questions[_norm(e.question)] == 1]
    chosen = sorted(single, key=lambda e: _hash("faq|" + site_key(e.source_url)))[:FAQ_MESSAGES]
    out = []
    for entry in sorted(chosen, key=lambda e: e.source_url):
        register, frame = FAQ_FRAMES[_pick("faqframe|" + site_key(entry.source_url), len(FAQ_FRAMES))]
        out.append(_message(faq_text(entry.question, frame, register), "faq", register, "faq", "faq_entry",
                            GOLD_FAQ_STORE, faq_source=entry.source_url, source_url=entry.source_url, template=frame))
    return out


def _retrieval_messages(documents: Sequence[dict]) -> list[Message]:
    topics = _topics(d for d in documents if d["kind"] != "faq")
    chosen = sorted(topics, key=lambda t: _hash("doc|" + site_key(t[0]) + "|" + t[1]))[:RETRIEVAL_MESSAGES]
    out = []
    for url, phrase in sorted(chosen):
        register, frame = RETRIEVAL_FRAMES[_pick("docframe|" + site_key(url) + phrase, len(RETRIEVAL_FRAMES))]
        text = frame.format(x=phrase, **particles_for(phrase))
        out.append(_message(text, "retrieval", register, "retrieval", "answer", GOLD_TEMPLATES, source_url=url,
                            template=frame))
    return out


def _profile_independent(entries: Sequence[FAQEntry], documents: Sequence[dict]) -> list[Message]:
    """Questions whose source restricts no attribute: the answer is the same for everyone, so
    nothing should be asked. Half from such FAQ entries, half from such documents."""
    open_entries = [e for e in entries if all(v is None for v in e.applies_to.values())]
    open_docs = [d for d in documents if d["kind"] != "faq" and d["open"]]
    half = PROFILE_INDEPENDENT_MESSAGES // 2
    out = []
    for entry in sorted(open_entries, key=lambda e: _hash("pi|" + site_key(e.source_url)))[:half]:
        # a different frame than the faq category's draw for the same entry
        register, frame = FAQ_FRAMES[(_pick("faqframe|" + site_key(entry.source_url), len(FAQ_FRAMES)) + 5) % len(FAQ_FRAMES)]
        out.append(_message(faq_text(entry.question, frame, register), "profile_independent", register, "faq",
                            "no_question", GOLD_FAQ_STORE, faq_source=entry.source_url, source_url=entry.source_url,
                            template=frame))
    topics = sorted(_topics(open_docs), key=lambda t: _hash("pidoc|" + site_key(t[0]) + "|" + t[1]))
    for url, phrase in topics[:PROFILE_INDEPENDENT_MESSAGES - len(out)]:
        register, frame = RETRIEVAL_FRAMES[(_pick("docframe|" + site_key(url) + phrase, len(RETRIEVAL_FRAMES)) + 7)
                                           % len(RETRIEVAL_FRAMES)]
        out.append(_message(frame.format(x=phrase, **particles_for(phrase)), "profile_independent", register,
                            "retrieval", "no_question", GOLD_TEMPLATES, source_url=url, template=frame))
    return out


def _out_of_scope(corpus: str) -> list[Message]:
    """The campus-life questions whose key word the institution's material never mentions (a
    question the corpus does answer is not out of scope, whatever its template says)."""
    return [_message(text, "out_of_scope", register, None, "fallback", GOLD_TEMPLATES, template=text)
            for register, text, word in OUT_OF_SCOPE if word.lower() not in corpus]


def faq_text(question: str, frame: str, register: str) -> str:
    """An FAQ question in `frame`: {q} the question without end punctuation or a trailing note,
    {c} its casual form; the typo and nospace registers are derived from the casual form."""
    plain = reworded(re.sub(r"\s*\([^()]*\)\s*$", "", question.strip().rstrip("?？.!。~ ")).strip())
    casual = casual_form(plain)
    text = frame.format(q=plain, c=casual)
    if register == "typo":
        text = typo(text)
    elif register == "nospace":
        text = nospace(text).rstrip("?") + "?"
    return text


def reworded(question: str) -> str:
    """The question in a student's own words where a rule applies (언제 -> 언제쯤, 어떻게 -> 어떤 식으로, …)."""
    applied = 0
    for pattern, replacement in _REWORDS:
        if applied < 2 and re.search(pattern, question):
            question = re.sub(pattern, replacement, question, count=1)
            applied += 1
    return question


def casual_form(question: str) -> str:
    """A polite Korean question in 반말: 하나요 -> 해, 있나요 -> 있어, 인가요 -> 야, …"""
    if match := re.search(r"(?:인가요|입니까)$", question):
        stem = question[: match.start()]
        return stem + ("이야?" if particles_for(stem)["i"] == "이" else "야?")  # 무엇이야, 전공이야 / 뭐야
    for pattern, replacement in _CASUAL:
        if re.search(pattern, question):
            asks = not replacement.endswith("줘")  # "알려 줘" is a request, not a question
            return re.sub(pattern, replacement, question) + ("?" if asks else "")
    return question + "?"


def typo(text: str) -> str:
    """Two of the typos students make (어케, 슴다, 쫌, …), the first that apply."""
    applied = 0
    for pattern, replacement in _TYPOS:
        if applied == 2:
            break
        if re.search(pattern, text):
            text = re.sub(pattern, replacement, text, count=1)
            applied += 1
    return text if applied else text + "ㅋ"


def nospace(text: str) -> str:
    return re.sub(r"\s+", "", text)


# ---------------------------------------------------------------------------- the build's material

def _documents(build: IndexBuild) -> list[dict]:
    """Every chunk's doc_url, kind, title, headings, text and whether its annotation is open (no
    attribute restricted), in (doc_url, chunk_id) order."""
    rows = []
    for collection in build.collections.values():
        for chunk in collection.chunks.select("chunk_id", "doc_url", "kind", "title", "heading_path", "text",
                                              "applies_to").iter_rows(named=True):
            applies = json.loads(chunk["applies_to"]) if isinstance(chunk["applies_to"], str) else chunk["applies_to"]
            rows.append({**chunk, "open": all(v is None for v in (applies or {}).values())})
    return sorted(rows, key=lambda r: (r["doc_url"], r["chunk_id"]))


def _topics(documents: Iterable[dict]) -> list[tuple[str, str]]:
    """(doc_url, topic phrase) per document: its title's phrase, else its first heading's."""
    by_url: dict[str, str] = {}
    for doc in documents:
        if doc["doc_url"] in by_url:
            continue
        candidates = [doc.get("title")] + list(doc.get("heading_path") or [])
        phrase = next((p for p in map(topic_phrase, candidates) if p), "")
        if phrase:
            by_url[doc["doc_url"]] = phrase
    return sorted(by_url.items())


# ---------------------------------------------------------------------------- helpers

def _message(text: str, category: str, register: str, intent: str | None, behaviour: str, gold_from: str,
             **extra) -> Message:
    text = re.sub(r"\s+", " ", text).strip()
    return Message(message_id(text, category), text, category, register, intent, behaviour, gold_from, **extra)


def message_id(text: str, category: str) -> str:
    return hashlib.sha256(f"{category}\x1f{text}".encode()).hexdigest()[:16]


def _unique(messages: Iterable[Message]) -> list[Message]:
    seen, out = set(), []
    for message in messages:
        if message.text.casefold() not in seen:
            seen.add(message.text.casefold())
            out.append(message)
    return out


def _norm(text: str) -> str:
    return re.sub(r"[\s?？.!。~]", "", text)


def _hash(key: str) -> int:
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")


def _pick(key: str, size: int) -> int:
    return _hash(key) % size


def messages_hash(messages: Sequence[Message]) -> str:
    """A fingerprint of the whole message set (its texts and expectations)."""
    payload = json.dumps([m.as_dict() for m in messages], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]
