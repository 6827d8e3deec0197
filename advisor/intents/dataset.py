"""The intent-routing dataset: seeds for greeting / ability / smalltalk, the FAQ's own questions
(and light rule rewrites of them) for faq, and questions written from the documents' titles,
headings and keywords for retrieval. Read from and written to the lakehouse (`intent_examples`).

Splits are stable and leak-free by construction: a faq / retrieval example is in the test split
when its SOURCE is (hash of the FAQ entry's or document's URL), so held-apart questions come from
held-apart sources; a seed is in the test split when its hand-written form is (all its variants
with it). Texts are unique across the whole dataset, so no text is in both splits.

Question frames are Korean first (formal and first-person), with some English; nothing depends on
the demo college's departments or wording: phrases come from whatever the institution's own
titles, headings and keywords say.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

import duckdb

from advisor.config import InstitutionConfig
from advisor.intents import INTENTS, seeds
from advisor.intents.seeds import site_key, stable_hash
from advisor.lakehouse import insert_rows, scalar, transaction
from advisor.versioning import code_version

TEST_PERCENT = 20
ORIGINS = ("seed", "faq_question", "faq_rewrite", "document_question")
# a text reachable under two labels keeps the first of these (faq wins over retrieval)
LABEL_PRIORITY = ("faq", "retrieval", "ability", "greeting", "smalltalk")
MAX_HEADINGS_PER_DOCUMENT = 4  # long regulations have dozens: cap so no document dominates
FAQ_REWRITES_PER_QUESTION = 3
OPENER_PERCENT = {"greeting": 25, "smalltalk": 12}  # share of sources that also get an opened question
ENGLISH_FRAME_PERCENT = 10


@dataclass(frozen=True)
class IntentExample:
    example_id: str
    text: str
    intent: str
    origin: str  # seed | faq_question | faq_rewrite | document_question
    source_url: str | None  # the FAQ entry / document it was made from (None for seeds)
    split: str  # train | test

    def row(self, dataset_version: str, run_id: str) -> dict:
        return {**asdict(self), "dataset_version": dataset_version, "run_id": run_id}


# --- building ----------------------------------------------------------------------------------

def build_intent_examples(
    config: InstitutionConfig, faq_questions: Sequence[tuple[str, str]], documents: Sequence[dict]
) -> list[IntentExample]:
    """The whole dataset, deterministic for the same inputs (ids, texts, splits, order).

    faq_questions: (question, source_url) per FAQ entry. documents: non-FAQ chunk (or document)
    dicts with doc_url, title, heading_path and keywords (or an indexed_text whose first line is
    "topic > subtopic | title | kw1, kw2, ...")."""
    faq_questions = _checked_faq(faq_questions)
    topics = document_topics(documents)
    names = seeds.institution_names(config.institution)
    candidates: list[tuple[str, str, str, str | None, str]] = []  # text, intent, origin, source, split key
    for question, url in faq_questions:
        candidates.append((question, "faq", "faq_question", url, url))
    for question, url in faq_questions:
        candidates += [(text, "faq", "faq_rewrite", url, url) for text in faq_rewrites(question, url, names)]
    for topic in topics:
        url = topic.doc_url
        candidates += [(text, "retrieval", "document_question", url, url) for text in document_questions(topic, names)]
    for question in seeds.ENGLISH_INFO_QUESTIONS + seeds.ADDRESSED_INFO_QUESTIONS_KO:
        candidates.append((question, "retrieval", "seed", None, question))
    for seed in seeds.seed_examples(config.institution):
        candidates.append((seed.text, seed.intent, "seed", None, "seed:" + seed.group))
    return _deduplicated(candidates)


def _deduplicated(candidates: list[tuple[str, str, str, str | None, str]]) -> list[IntentExample]:
    rank = {intent: i for i, intent in enumerate(LABEL_PRIORITY)}
    unknown = {c[1] for c in candidates} - set(INTENTS)
    if unknown:
        raise ValueError(f"unknown intents {sorted(unknown)}")
    origin_rank = {origin: i for i, origin in enumerate(ORIGINS[1:] + ORIGINS[:1])}  # seeds last
    # the order of the inputs must not matter: which duplicate survives is decided by label, then
    # origin (an FAQ's own question before a rewrite), then source and text
    ordered = sorted(candidates, key=lambda c: (rank[c[1]], origin_rank[c[2]], c[3] or "", c[0]))
    seen: set[str] = set()
    kept = []
    for text, intent, origin, source, split_key in ordered:
        text = _tidy(text)
        key = text.casefold()
        if not text or key in seen:
            continue
        seen.add(key)
        kept.append(IntentExample(example_id(text, intent), text, intent, origin, source, split_for(split_key)))
    return kept


def example_id(text: str, intent: str) -> str:
    return hashlib.sha256(f"{text}\x1f{intent}".encode()).hexdigest()[:16]


def split_for(key: str) -> str:
    """test for a stable ~TEST_PERCENT % of keys (source URLs, seed forms), train otherwise."""
    return "test" if stable_hash("split|" + site_key(key)) % 100 < TEST_PERCENT else "train"


def _checked_faq(faq_questions: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    out = []
    for i, item in enumerate(faq_questions):
        if not (isinstance(item, (tuple, list)) and len(item) == 2):
            raise ValueError(f"faq_questions[{i}] must be a (question, source_url) pair, got {item!r}")
        question, url = item
        if not isinstance(question, str) or not isinstance(url, str) or not url.strip():
            raise ValueError(f"faq_questions[{i}]: question and source_url must be strings, url non-empty: {item!r}")
        if question.strip():
            out.append((_tidy(question), url.strip()))
    return out


# --- FAQ rewrites ------------------------------------------------------------------------------

# (ending of the question, replacements, whether the stem before it is a noun phrase): register
# changes that keep the question's meaning
ENDING_SWAPS = (
    (r"(?:은|는)\s*어떻게\s*되나요\?*$", ("{stem} 알려주세요", "{stem}{eun} 어떻게 돼요?", "{stem} 궁금합니다"), True),
    (r"\s*(?:좀\s*)?알려\s*주세요[.!]*$", ("{stem}{eun} 어떻게 되나요?", "{stem} 알려줘"), True),
    (r"(?:은|는)\?+$", ("{stem} 알려주세요", "{stem}{eun} 어떻게 되나요?", "{stem} 궁금해요"), True),
    (r"할까요\?*$", ("{stem}하나요?", "{stem}해요?"), False),
    (r"하나요\?*$", ("{stem}해요?", "{stem}합니까?", "{stem}해?"), False),
    (r"되나요\?*$", ("{stem}돼요?", "{stem}됩니까?", "{stem}돼?"), False),
    (r"있나요\?*$", ("{stem}있어요?", "{stem}있습니까?", "{stem}있어?"), False),
    (r"없나요\?*$", ("{stem}없어요?", "{stem}없습니까?"), False),
    (r"인가요\?*$", ("{stem}입니까?", "{stem}인지 궁금해요"), False),
    (r"나요\?*$", ("{stem}는지 궁금해요", "{stem}는지 알려주세요"), False),
)
KEYWORD_DROP = {
    "언제", "어떻게", "어디", "어디서", "어디에서", "무엇", "뭐", "뭔가요", "몇", "왜", "누가", "누구", "어떤",
    "무슨", "얼마", "얼마나", "꼭", "혹시", "다", "좀", "못", "안", "수", "있나요", "없나요", "되나요", "하나요",
    "가능한가요", "해야", "하면", "때", "경우", "그리고", "또는", "제가", "저는", "저도", "나는", "것", "거", "뭐야",
    "알려", "주세요", "알려주세요", "궁금해요", "궁금합니다",
}
PARTICLES = ("에서는", "에서", "으로", "에게", "까지", "부터", "에는", "은", "는", "이", "가", "을", "를", "에",
             "의", "로", "와", "과", "도", "만")
# endings of predicates; nouns that merely end in the same syllable (증명서, 필요, 분야) survive
VERB_ENDING = re.compile(r"(습니까|니까|는지|려면|은데|는데|지만|으면|면|냐|죠|(세|에|예|어|아|해|돼|네|까|나|가|지|워|와|줘|봐|래|게|데)요)$")
DOING_ENDING = re.compile(r"^(.{2,}?)(하나요|할까요|하려면|해야|합니까|해요|하면|하는지|하고|할|한|해|되나요|된|될|돼요)$")


def faq_rewrites(question: str, source_url: str, names: Sequence[str] = ()) -> list[str]:
    """Light rule rewrites of one FAQ question: ending / register changes, the question mark
    dropped, "~는 어떻게 되나요" <-> "~ 알려주세요", a keyword-only form; some with a greeting or a
    smalltalk opener in front (hard negatives for the greeting class). Deterministic per source."""
    rng = random.Random(stable_hash("faq|" + site_key(source_url) + "|" + question))
    options = [text for text in _ending_swaps(question) if text != question]
    if question.endswith(("?", "？")):
        options.append(question.rstrip("?？ "))
    options.append("혹시 " + question)
    if keywords := keyword_form(question):
        options.append(keywords)
    options = list(dict.fromkeys(o for o in options if o and o != question))
    rng.shuffle(options)
    chosen = options[:FAQ_REWRITES_PER_QUESTION]
    chosen += _opened(question, source_url, names, rng)
    return chosen


def _ending_swaps(question: str) -> list[str]:
    for pattern, replacements, noun_stem in ENDING_SWAPS:
        match = re.search(pattern, question)
        if not match:
            continue
        stem = question[: match.start()]
        if noun_stem:
            stem = _strip_particle(stem.rstrip())  # "전공필수를 알려 주세요" -> "전공필수는 어떻게 되나요?"
        if not stem.strip():
            return []
        return [r.format(stem=stem, **particles_for(stem)) for r in replacements]
    return []


def keyword_form(question: str) -> str | None:
    """The question reduced to its content words: '전공필수를 못 들으면 졸업할 수 없나요?' ->
    '전공필수 졸업'. A heuristic without a tokenizer (Kiwi stays out of the data build)."""
    words = re.sub(r"[?？!.~,]+", " ", question).split()
    kept = []
    for word in words:
        if word in KEYWORD_DROP:
            continue
        if doing := DOING_ENDING.match(word):
            word = doing[1]  # 수강하나요 -> 수강
        elif VERB_ENDING.search(word) and not re.search(r"[A-Za-z0-9)]$", word):
            continue  # a predicate: 들으면, 궁금해요
        word = _strip_particle(word)
        if word not in KEYWORD_DROP and len(word) >= 2:
            kept.append(word)
    form = " ".join(dict.fromkeys(kept))
    return form if form and form != question and len(kept) >= 1 else None


def _strip_particle(word: str) -> str:
    if re.search(r"(학과|교과|년도)$", word):
        return word  # 과 / 도 here are part of the noun, not particles
    for particle in PARTICLES:
        if word.endswith(particle) and len(word) - len(particle) >= 2:
            return word[: -len(particle)]
    return word


def _opened(question: str, source_url: str, names: Sequence[str], rng: random.Random) -> list[str]:
    """Sometimes the question again behind a greeting or a smalltalk opener."""
    out = []
    for kind, openers in (("greeting", seeds.GREETING_OPENERS), ("smalltalk", seeds.SMALLTALK_OPENERS)):
        if stable_hash(f"{kind}|{site_key(source_url)}|{question}") % 100 < OPENER_PERCENT[kind]:
            opener = rng.choice(openers)
            out.append(rng.choice(seeds.fill_institution(opener, names)) + question)
    return out


# --- questions from documents -------------------------------------------------------------------

@dataclass(frozen=True)
class DocumentTopic:
    """What a document is about, gathered over its chunks."""

    doc_url: str
    title: str
    headings: tuple[str, ...]  # distinct, sorted, the title excluded
    keywords: tuple[str, ...]  # most frequent over its chunks first


def document_topics(documents: Sequence[dict]) -> list[DocumentTopic]:
    """One topic per document URL, in URL order, from chunk (or document) dicts."""
    by_url: dict[str, dict] = {}
    for i, doc in enumerate(documents):
        if not isinstance(doc, dict) or not str(doc.get("doc_url") or "").strip():
            raise ValueError(f"documents[{i}] must be a dict with a non-empty doc_url, got {str(doc)[:120]!r}")
        url = doc["doc_url"].strip()
        title, keywords = doc.get("title"), doc.get("keywords")
        if (title is None or keywords is None) and doc.get("indexed_text"):
            parsed_title, parsed_keywords = _parse_indexed_header(doc["indexed_text"])
            title = title if title is not None else parsed_title
            keywords = keywords if keywords is not None else parsed_keywords
        entry = by_url.setdefault(url, {"titles": Counter(), "headings": set(), "keywords": Counter()})
        if title and title.strip():
            entry["titles"][title.strip()] += 1
        entry["headings"].update(h.strip() for h in (doc.get("heading_path") or []) if h and h.strip())
        entry["keywords"].update(k for k in (keywords or []) if k)
    topics = []
    for url in sorted(by_url):  # sorted throughout: the chunks' order must not change the result
        entry = by_url[url]
        title = min(entry["titles"].items(), key=lambda kv: (-kv[1], kv[0]))[0] if entry["titles"] else ""
        headings = tuple(sorted(h for h in entry["headings"] if h != title))
        keywords = tuple(k for k, _ in sorted(entry["keywords"].items(), key=lambda kv: (-kv[1], kv[0])))
        topics.append(DocumentTopic(url, title, headings, keywords))
    return topics


def _parse_indexed_header(indexed_text: str) -> tuple[str, list[str]]:
    parts = indexed_text.split("\n", 1)[0].split(" | ")
    if len(parts) < 3:
        return "", []
    return parts[1], [k.strip() for k in parts[2].split(",") if k.strip()]


FORMAL_FRAMES = (
    "{x}{eun} 어떻게 되나요?", "{x}에 대해 알려주세요.", "{x} 관련 내용을 알고 싶습니다.", "{x}{eun} 무엇인가요?",
    "{x} 기준이 궁금합니다.", "{x}{eun} 어디에서 확인할 수 있나요?", "{x}에 대한 안내를 받을 수 있을까요?",
    "{x}의 세부 내용을 설명해 주시겠어요?", "{x} 관련 규정이 있나요?", "{x}에 관해 문의드립니다.",
    "{x} 정보를 찾고 있습니다.", "{x}{eun} 누구에게 적용되나요?", "{x} 내용을 요약해 주세요.",
    "{x}에 대해 자세히 알 수 있을까요?", "{x}에는 어떤 종류가 있나요?", "{x}{eul} 받을 수 있나요?",
)
FIRST_PERSON_FRAMES = (
    "제가 {x} 관련해서 알아야 할 게 있을까요?", "저 {x} 때문에 문의드려요. 어떻게 해야 하나요?",
    "저도 {x}에 해당되나요?", "{x} 관련해서 제가 뭘 해야 하나요?", "{x} 궁금해요", "{x} 알려줘", "{x} 어떻게 돼?",
    "나 {x} 좀 알고 싶은데", "{x} 어디서 봐?", "제 경우 {x}{eun} 어떻게 적용되나요?", "{x} 관련해서 질문이 있어요",
    "혹시 {x} 좀 알려주실 수 있나요?", "{x} 뭐야?", "{x}{i} 궁금한데 어디에 물어보면 돼요?",
    "저는 {x}{eul} 잘 모르겠어요. 설명해 주세요", "{x} 나한테도 해당돼?", "{x} 어떻게 확인해요?", "{x} 어떤 게 있어요?",
)
# phrases ending in an action noun (신청, 수강, 제출 ...) also read as something the student does
ACTION_FRAMES = (
    "{x}하려면 어떻게 해야 하나요?", "{x}하고 싶어요", "{x} 하려는데 방법 알려주세요", "{x}할 수 있나요?",
    "{x} 기간이 언제예요?", "저 {x}해야 하는데 뭐부터 하면 될까요?", "{x}하려면 뭐가 필요해요?",
)
ACTION_NOUNS = (
    "신청", "수강", "변경", "취소", "제출", "발급", "이수", "인정", "휴학", "복학", "등록", "지원", "전과", "포기",
    "연장", "참여", "납부", "철회", "정정", "접수", "졸업", "재수강", "재입학", "편입", "상담", "예약", "응시", "수료",
)
ENGLISH_FRAMES = (
    "Tell me about {x}", "What are the rules for {x}?", "Where can I find information on {x}?",
    "How does {x} work?", "I have a question about {x}", "can you explain {x}?",
)
# keywords too general to say what a document is about, in any Korean institution's text
GENERIC_KEYWORDS = {
    "안내", "기준", "구분", "처리", "내역", "인정", "확인", "일반", "학기", "이후", "이전", "대상", "경우", "내용",
    "관련", "사항", "요청", "기간", "방법", "이상", "이하", "결과", "참고", "해당", "포함", "각", "및", "등", "중",
    "궁금", "직전", "아래", "위", "다음", "현재", "기타", "적용", "당시", "차례", "순서", "개요", "명칭",
}
KEYWORD_FRAMES = ("{x}", "{x} 알려줘", "{x} 관련 문의", "{x} 어떻게?", "{x} 질문이요")


def document_questions(topic: DocumentTopic, names: Sequence[str] = ()) -> list[str]:
    """Questions a student might ask that this document answers: from its title (a formal and a
    first-person one), its headings, and its keywords; frames drawn per document (seeded)."""
    rng = random.Random(stable_hash("doc|" + site_key(topic.doc_url)))
    title = topic_phrase(topic.title)
    questions = []
    if title:
        questions.append(_framed(title, FORMAL_FRAMES, rng))
        questions.append(_framed(title, FIRST_PERSON_FRAMES, rng))
    headings = list(dict.fromkeys(p for p in map(topic_phrase, topic.headings) if p and p != title))
    rng.shuffle(headings)
    for heading in headings[:MAX_HEADINGS_PER_DOCUMENT]:
        if len(heading.replace(" ", "")) <= 4 and title:
            heading = f"{title} {heading}"  # "유의사항" alone says nothing: "휴학 신청 유의사항"
        questions.append(_framed(heading, rng.choice((FORMAL_FRAMES, FIRST_PERSON_FRAMES)), rng))
    keywords = [k for k in topic.keywords if len(k) >= 2 and not k.isdigit() and k not in GENERIC_KEYWORDS][:3]
    if len(keywords) >= 2:
        questions.append(rng.choice(KEYWORD_FRAMES).format(x=" ".join(rng.sample(keywords, 2))))
    if title and names and stable_hash("inst|" + site_key(topic.doc_url)) % 100 < 10:
        # the institution's name also appears in real questions, not only in greetings
        questions.append(_framed(f"{rng.choice(list(names))} {title}", FORMAL_FRAMES, rng))
    if questions:
        questions += _opened(questions[0], topic.doc_url, names, rng)
    return questions


def _framed(phrase: str, frames: Sequence[str], rng: random.Random) -> str:
    latin = not seeds._has_hangul(phrase)
    if latin or rng.randrange(100) < ENGLISH_FRAME_PERCENT:
        frames = ENGLISH_FRAMES
    elif phrase.split()[-1].endswith(ACTION_NOUNS) and rng.randrange(2) == 0:
        frames = ACTION_FRAMES
    return rng.choice(frames).format(x=phrase, **particles_for(phrase))


def topic_phrase(text: str | None) -> str:
    """A title or heading as a phrase a student would say: notice tags ([장학]), parentheses,
    article numbers (제17조), course codes, years and semesters, and a trailing 안내 removed."""
    t = (text or "").strip()
    t = re.sub(r"^\s*\[[^\]]*\]\s*", "", t)
    t = re.sub(r"\([^)]*\)|\[[^\]]*\]|【[^】]*】", " ", t)
    t = re.sub(r"^제\s*\d+\s*[조장절](의\s*\d+)?\s*", "", t)
    t = re.sub(r"^[A-Z]{2,6}\s?\d{2,4}[A-Z]?\b\s*", "", t)
    year = r"\d{2,4}\s*(?:학년도|년도|년|학번)?"
    t = re.sub(rf"{year}\s*[–~\-]\s*{year}(?:\s*(?:입학생|입학자|이후|이전|부터|까지))?", " ", t)
    t = re.sub(r"\d{2,4}\s*(?:학년도|년도|년|학번)(?:\s*(?:입학생|입학자|이후|이전|부터|까지))?", " ", t)
    t = re.sub(r"\b(?:19|20)\d{2}\b", " ", t)
    t = re.sub(r"[1-4]\s*학기|상반기|하반기|\d+\s*월", " ", t)
    if ":" in t:
        t = max((part for part in t.split(":") if part.strip()), key=len, default="")
    t = re.sub(r"[–—|/]", " ", t)
    t = re.sub(r"\s+", " ", t).strip(" -·,.:")
    t = re.sub(r"\s+(안내|공지|알림|안내문|공고)$", "", t)
    if re.search(r"\b(in|of|for|to|at|from|on|by)$", t, re.IGNORECASE):
        return ""  # an English phrase that lost its object ("Students admitted in 2024")
    if len(t.replace(" ", "")) < 2 or not re.search(r"[A-Za-z\uac00-\ud7a3]", t):
        return ""
    return t if len(t) <= 40 else " ".join(t.split()[:5])


def particles_for(word: str) -> dict[str, str]:
    """Korean particles that fit after `word` (은/는, 이/가, 을/를, 과/와, 으로/로)."""
    batchim, rieul = _final_consonant(word)
    return {
        "eun": "은" if batchim else "는",
        "i": "이" if batchim else "가",
        "eul": "을" if batchim else "를",
        "gwa": "과" if batchim else "와",
        "ro": "으로" if batchim and not rieul else "로",
    }


def _final_consonant(word: str) -> tuple[bool, bool]:
    """(has a final consonant, that consonant is ㄹ), judged on the last letter or digit."""
    tail = re.sub(r"[^0-9A-Za-z\uac00-\ud7a3]+$", "", word)
    if not tail:
        return False, False
    last = tail[-1]
    if "\uac00" <= last <= "\ud7a3":
        final = (ord(last) - 0xAC00) % 28
        return final != 0, final == 8
    if last.isdigit():
        return last in "013678", last in "178"  # 영 일 삼 육 칠 팔; 일 칠 팔 end in ㄹ
    return last.lower() in "lmnbkpt", last.lower() == "l"


def _tidy(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


# --- the lakehouse ------------------------------------------------------------------------------

def read_faq_questions(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    """(question, source_url) of every FAQ entry. A consolidated duplicate keeps its own wording
    but its canonical entry's URL, so both wordings land in the same split."""
    rows = con.execute(
        """SELECT coalesce(nullif(trim(question), ''), title) AS question, coalesce(duplicate_of, url) AS source_url
           FROM documents WHERE kind = 'faq' AND status IN ('active', 'duplicate')
             AND coalesce(nullif(trim(question), ''), title) IS NOT NULL
           ORDER BY url""").fetchall()
    return [(question, url) for question, url in rows]


def read_documents(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """The non-FAQ chunks' topic fields (doc_url, title, heading_path, keywords)."""
    frame = con.sql(
        """SELECT doc_url, title, heading_path, keywords FROM chunks WHERE kind <> 'faq'
           ORDER BY doc_url, position""").pl()
    return frame.to_dicts()


def dataset_version(config: InstitutionConfig, faq_questions: Sequence[tuple[str, str]], documents: Sequence[dict]) -> str:
    """A fingerprint of the code that builds the dataset and of everything it is built from."""
    payload = {
        "code": code_version(seeds, sys.modules[__name__]),
        "institution": config.institution,
        "faq": sorted([list(pair) for pair in faq_questions]),
        "documents": sorted(json.dumps(d, sort_keys=True, ensure_ascii=False, default=str) for d in documents),
    }
    digest = hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()
    return digest[:16]


def stored_version(con: duckdb.DuckDBPyConnection) -> str | None:
    """The dataset_version of the stored rows (None when the table is empty)."""
    return scalar(con, "SELECT any_value(dataset_version) FROM intent_examples")


def write_intent_examples(
    con: duckdb.DuckDBPyConnection, examples: Iterable[IntentExample], version: str, run_id: str
) -> bool:
    """Replace every row of `intent_examples` in one transaction; False (nothing written) when the
    stored rows already are this version."""
    examples = list(examples)
    if stored_version(con) == version and scalar(con, "SELECT count(*) FROM intent_examples") == len(examples):
        return False
    with transaction(con):
        con.execute("DELETE FROM intent_examples")
        insert_rows(con, "intent_examples", [e.row(version, run_id) for e in examples])
    return True


def load_intent_examples(con: duckdb.DuckDBPyConnection) -> list[IntentExample]:
    """The stored dataset, in a stable order."""
    rows = con.execute(
        "SELECT example_id, text, intent, origin, source_url, split FROM intent_examples ORDER BY example_id"
    ).fetchall()
    return [IntentExample(*row) for row in rows]


def counts(examples: Iterable[IntentExample]) -> dict[str, int]:
    """Examples per intent and per intent/split, for metadata and reports."""
    tally: Counter = Counter()
    for e in examples:
        tally[e.intent] += 1
        tally[f"{e.intent}/{e.split}"] += 1
        tally[e.split] += 1
    return {key: tally[key] for key in sorted(tally)}


@dataclass(frozen=True)
class RefreshOutcome:
    version: str
    written: bool  # False: the stored rows already were this version, nothing rewritten
    examples: list[IntentExample]


def refresh_intent_examples(con: duckdb.DuckDBPyConnection, config: InstitutionConfig, run_id: str) -> RefreshOutcome:
    """Rebuild `intent_examples` from the lakehouse's FAQ entries and chunks, unless unchanged."""
    faq_questions, documents = read_faq_questions(con), read_documents(con)
    version = dataset_version(config, faq_questions, documents)
    if stored_version(con) == version:
        return RefreshOutcome(version, False, load_intent_examples(con))
    examples = build_intent_examples(config, faq_questions, documents)
    written = write_intent_examples(con, examples, version, run_id)
    return RefreshOutcome(version, written, examples)
