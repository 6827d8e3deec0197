"""Chunking documents into self-contained pieces, and TF-IDF keywords."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from advisor.chunking.chunker import chunk_document
from advisor.chunking.keywords import assign_keywords
from advisor.chunking.kiwi_tokens import get_tokenizer, user_words_from_config
from advisor.chunking.model import Chunk
from advisor.config import load_config

MAX = 800


@pytest.fixture(scope="module")
def tok():
    return get_tokenizer(user_words_from_config(load_config()))


@pytest.fixture(scope="module")
def split(tok):
    return tok.split_sentences


# --------------------------------------------------------------------------- documents

TITLE = "2024학년도 컴퓨터학과 졸업요건"
PARAGRAPH = " ".join(
    f"심화전공 학생은 {n}번째 요건으로 전공 과목 {n + 2}개를 이수하여야 하며 평점 2.{n % 10} 이상을 유지해야 합니다."
    for n in range(1, 17)
)
CAPTION = "이중전공 교과목 목록"
ROWS = [f"- 학수번호: COSE{100 + n} | 교과목명: 전공과목{n} | 학점: 3 | 권장 이수시기: {n % 4 + 1}학년 {n % 2 + 1}학기"
        for n in range(30)]
ITEMS = [f"- 유의 사항 {n}: 휴학 중인 학생은 복학 신청 기간에 학사지원팀에 서류를 내야 하며 {n}번 규정을 따릅니다." for n in range(22)]
LONG_SENTENCE = " ".join(f"단어{n}" for n in range(200))  # no sentence end: must be cut at spaces

HTML_TEXT = "\n\n".join([
    f"# {TITLE}",
    "이 페이지는 2024학년도 입학생의 졸업요건을 안내합니다.",
    "## 전공 이수 기준",  # a section with only a heading
    "### 심화전공",
    PARAGRAPH,
    "### 이중전공",
    CAPTION + "\n" + "\n".join(ROWS),
    "## 유의 사항",
    "\n".join(ITEMS),
    LONG_SENTENCE,
    "## 문의",
    "학사지원팀 02-3290-3010으로 문의하세요.",
])

HTML_DOC = {
    "doc_id": "d-html", "url": "http://u.test/cs/grad.html", "source": "department-pages", "kind": "page",
    "title": TITLE, "breadcrumbs": ["홈", "학과", "컴퓨터학과", TITLE], "headings": None,
    "text": HTML_TEXT, "question": None, "answer": None, "page_spans": None,
}


def pdf_doc(pages: list[str], title: str, url: str = "http://u.test/reg.pdf") -> dict:
    """Pages joined as the PDF cleaner joins them (a blank line between), with their spans."""
    text, spans, offset = "", [], 0
    for number, page in enumerate(pages, start=1):
        if text:
            text += "\n\n"
            offset += 2
        spans.append({"page": number, "start_offset": offset, "end_offset": offset + len(page)})
        text += page
        offset += len(page)
    return {"doc_id": "d-pdf", "url": url, "source": "regulations", "kind": "pdf", "title": title,
            "breadcrumbs": None, "headings": None, "text": text, "question": None, "answer": None,
            "page_spans": spans}


LONG_ARTICLE = " ".join(f"휴학생은 {n}학기 이내에 복학하여야 하며 그 기간은 학칙 제{n}조에 따른다." for n in range(1, 26))
PAGE_BREAK = LONG_ARTICLE.index(" ", 600)  # the page ends mid-sentence, between two words
REG_PAGES = [
    "한빛대학교 정보대학 학칙 시행세칙\n제1장 총칙\n제1조(목적)\n이 세칙은 학칙의 시행에 필요한 사항을 정한다.\n"
    "제2조(정의)\n이 세칙에서 사용하는 용어의 뜻은 다음과 같다.\n1. 학생이란 정보대학에 재학하는 사람을 말한다.\n"
    "2. 학기란 수업을 하는 기간을 말한다.",
    "제2장 졸업\n제3조(졸업 학점) 학생은 다음 표의 학점 이상을 이수하여야 한다.\n[별표 1] 학번별 졸업 학점\n입학년도\n"
    "졸업 학점\n2023\n130\n2024\n128\n제4조(영어 요건)\n제4조에 따른 영어 요건은 TOEIC 650점 이상이다.",
    "제3장 휴학과 복학\n제5조(복학)\n" + LONG_ARTICLE[:PAGE_BREAK],
    LONG_ARTICLE[PAGE_BREAK + 1:] + "\n부칙\n이 세칙은 2024년 3월 1일부터 시행한다.",
]

FAQ_QUESTION = "휴학 중에 복학하려면 어떤 절차를 거쳐야 하나요?"
FAQ_ANSWER = "\n\n".join(
    " ".join(f"복학 절차 {p}-{n}: 복학원은 학기 시작 {n}주 전까지 학사지원팀에 제출해야 합니다." for n in range(1, 8))
    for p in range(1, 6)
)
FAQ_DOC = {
    "doc_id": "d-faq", "url": "http://u.test/faq/leave.html#q-3", "source": "faq", "kind": "faq",
    "title": FAQ_QUESTION, "breadcrumbs": ["홈", "자주 묻는 질문", "휴학·복학"], "headings": ["자주 묻는 질문: 휴학·복학"],
    "text": f"{FAQ_QUESTION}\n\n{FAQ_ANSWER}", "question": FAQ_QUESTION, "answer": FAQ_ANSWER, "page_spans": None,
}


# --------------------------------------------------------------------------- helpers

def body(chunk: Chunk, doc: dict) -> str:
    """The chunk's text without a repeated context line: the slice of the document it covers."""
    tail = doc["text"][chunk.start_offset:]
    if tail.startswith(chunk.text):
        return chunk.text
    head, _, rest = chunk.text.partition("\n")
    assert tail.startswith(rest), f"chunk {chunk.position} is not a slice at {chunk.start_offset}"
    return rest


def assert_invariants(chunks: list[Chunk], doc: dict, max_chars: int = MAX) -> None:
    assert chunks, "a document with text yields at least one chunk"
    assert [c.position for c in chunks] == list(range(len(chunks)))
    for chunk in chunks:
        assert 0 < len(chunk.text) <= max_chars and chunk.text.strip() == chunk.text
        body(chunk, doc)
    offsets = [c.start_offset for c in chunks]
    assert offsets == sorted(offsets) and len(set(offsets)) == len(offsets)


def chunks_with(chunks: list[Chunk], needle: str) -> list[Chunk]:
    return [c for c in chunks if needle in c.text]


# --------------------------------------------------------------------------- HTML-style pages

def test_page_invariants_and_metadata(split):
    chunks = chunk_document(HTML_DOC, split)
    assert_invariants(chunks, HTML_DOC)
    assert len(chunks) >= 8
    assert all(c.title == TITLE and c.topic == "학과 > 컴퓨터학과" for c in chunks)
    assert all(c.doc_id == "d-html" and c.doc_url == HTML_DOC["url"] and c.page is None for c in chunks)
    first = chunks[0]
    assert first.text.startswith(f"# {TITLE}\n\n이 페이지는") and first.heading_path == (TITLE,)
    assert first.subtopic == ""  # the h1 is the title: no subtopic


def test_heading_path_and_no_chunk_crosses_a_heading(split):
    chunks = chunk_document(HTML_DOC, split)
    for chunk in chunks:
        lines = chunk.text.split("\n")
        leading = 0
        while leading < len(lines) and (lines[leading].startswith("#") or not lines[leading].strip()):
            leading += 1
        assert not any(line.startswith("#") for line in lines[leading:]), chunk.text[:200]
    paragraph = chunks_with(chunks, "심화전공 학생은")
    assert all(c.heading_path == (TITLE, "전공 이수 기준", "심화전공") and c.subtopic == "심화전공" for c in paragraph)
    # The heading-only section's line opens the next section's first chunk; no chunk of its own.
    assert paragraph[0].text.startswith("## 전공 이수 기준\n\n### 심화전공\n\n심화전공 학생은")
    assert not any(c.text.strip() in ("## 전공 이수 기준", "### 이중전공") for c in chunks)
    inquiry = chunks[-1]
    assert inquiry.heading_path == (TITLE, "문의") and inquiry.text.startswith("## 문의\n\n학사지원팀")


def test_long_paragraph_is_split_between_sentences(split):
    chunks = chunks_with(chunk_document(HTML_DOC, split), "심화전공 학생은")
    assert len(chunks) >= 2 and len(PARAGRAPH) > MAX
    for chunk in chunks:
        assert chunk.text.endswith("합니다."), chunk.text[-40:]  # never mid-sentence
    sentences = list(split(PARAGRAPH))
    assert len(sentences) == 16
    for sentence in sentences:
        assert sum(sentence in c.text for c in chunks) == 1


def test_long_table_is_split_between_rows_with_caption_repeated(split):
    chunks = chunk_document(HTML_DOC, split)
    table = [c for c in chunks if "학수번호: COSE" in c.text]
    assert len(table) >= 3
    assert table[0].text.startswith(f"### 이중전공\n\n{CAPTION}\n- 학수번호: COSE100 ")
    for chunk in table[1:]:
        assert chunk.text.startswith(CAPTION + "\n- 학수번호: ")  # caption repeated
        assert chunk.heading_path == (TITLE, "전공 이수 기준", "이중전공")
    for row in ROWS:  # every row whole, in exactly one chunk
        assert sum(row in c.text.split("\n") for c in table) == 1
    for chunk in table:
        assert all(line in ROWS or line in (CAPTION, "### 이중전공", "") for line in chunk.text.split("\n"))


def test_long_list_is_split_between_items(split):
    chunks = chunk_document(HTML_DOC, split)
    listed = [c for c in chunks if "- 유의 사항" in c.text]
    assert len(listed) >= 2
    for item in ITEMS:
        assert sum(item in c.text.split("\n") for c in listed) == 1
    for chunk in listed:
        assert all(line in ITEMS or line in ("## 유의 사항", "") for line in chunk.text.split("\n"))


def test_a_sentence_longer_than_a_chunk_is_cut_at_whitespace(split):
    chunks = chunk_document(HTML_DOC, split)
    pieces = [c for c in chunks if "단어" in c.text]
    assert len(pieces) >= 2
    assert " ".join(c.text for c in pieces) == LONG_SENTENCE
    for chunk in pieces[:-1]:
        end = chunk.start_offset + len(chunk.text)
        assert HTML_TEXT[end].isspace()  # the cut is at a word boundary
        assert len(chunk.text) > MAX - 20  # and as late as the bound allows


def test_every_sentence_of_the_source_is_in_some_chunk(split):
    def flat(text: str) -> str:
        return re.sub(r"\s+", " ", text).strip()

    for doc in (HTML_DOC, pdf_doc(REG_PAGES, "학칙 시행세칙"), FAQ_DOC):
        chunks = chunk_document(doc, split)
        joined = flat(" ".join(c.text for c in chunks))  # in order: a cut sentence joins up again
        sentences = split(doc["text"])
        assert len(sentences) > 10
        for sentence in sentences:  # headings included: none is lost
            for line in sentence.split("\n"):  # (a table is one "sentence", cut between its rows)
                assert flat(line) in joined, line


@pytest.mark.parametrize("max_chars", [120, 300, 800, 2000])
def test_bound_holds_for_any_size(split, max_chars):
    for doc in (HTML_DOC, pdf_doc(REG_PAGES, "학칙 시행세칙"), FAQ_DOC):
        assert_invariants(chunk_document(doc, split, max_chars=max_chars), doc, max_chars)


def test_short_page_is_one_chunk_and_empty_text_none(split):
    doc = {**HTML_DOC, "text": "# 짧은 안내\n\n휴학은 4학기까지 가능합니다.", "title": "짧은 안내",
           "breadcrumbs": ["Home", "짧은 안내"]}
    [chunk] = chunk_document(doc, split)
    assert chunk.text == doc["text"] and chunk.topic == "department-pages"  # no crumbs left: source
    assert chunk_document({**doc, "text": "  \n\n "}, split) == []
    only_headings = chunk_document({**doc, "text": "# 제목\n\n## 소제목"}, split)
    assert len(only_headings) == 1 and "소제목" in only_headings[0].text


# --------------------------------------------------------------------------- PDFs

def test_pdf_regulation_headings_and_pages(split):
    doc = pdf_doc(REG_PAGES, "학칙 시행세칙")
    chunks = chunk_document(doc, split)
    assert_invariants(chunks, doc)
    root = "한빛대학교 정보대학 학칙 시행세칙"
    by_article = {c.heading_path[-1]: c for c in chunks}
    purpose = by_article["제1조(목적)"]
    assert purpose.heading_path == (root, "제1장 총칙", "제1조(목적)") and purpose.page == 1
    assert purpose.text.startswith(root + "\n제1장 총칙\n제1조(목적)\n이 세칙은")
    assert purpose.subtopic == "제1조(목적)" and purpose.topic == "regulations"
    # Numbered items of an article are not headings.
    definitions = by_article["제2조(정의)"]
    assert "1. 학생이란" in definitions.text and "2. 학기란" in definitions.text
    # An article whose text follows on its line; the [별표] inside it is its table, not a section.
    credits = by_article["제3조(졸업 학점)"]
    assert credits.heading_path == (root, "제2장 졸업", "제3조(졸업 학점)") and credits.page == 2
    assert "[별표 1] 학번별 졸업 학점" in credits.text and "128" in credits.text
    assert credits.text.startswith("제2장 졸업\n제3조(졸업 학점) 학생은")
    assert by_article["제4조(영어 요건)"].text.endswith("TOEIC 650점 이상이다.")  # "제4조에 따른" is text
    addenda = by_article["부칙"]
    assert addenda.heading_path == (root, "부칙") and addenda.page == 4


def test_pdf_pages_follow_the_chunk_start(split):
    doc = pdf_doc(REG_PAGES, "학칙 시행세칙")
    chunks = chunk_document(doc, split)
    returning = [c for c in chunks if c.heading_path[-1] == "제5조(복학)"]
    assert len(returning) >= 2, "the long article spans pages 3 and 4"
    assert returning[0].page == 3 and returning[-1].page == 4
    for chunk in chunks:
        span = next(s for s in doc["page_spans"] if s["start_offset"] <= chunk.start_offset < s["end_offset"])
        assert chunk.page == span["page"]
    for chunk in returning:
        assert chunk.text.endswith("따른다.")  # split between sentences, even across the page break
    broken = LONG_ARTICLE[:PAGE_BREAK].rsplit(". ", 1)[1]  # the sentence the page break cuts
    [across] = [c for c in returning if broken in c.text]
    assert across.text.count("\n\n") == 1 and across.page in (3, 4)


def test_pdf_numbered_titles_but_not_numbered_lists(split):
    pages = [
        "2025학년도 신입생 안내 자료\n신입생 여러분을 환영합니다.\nⅠ. 수강신청\n1학기에는 18학점까지 신청합니다.\n"
        "1. 첫 학기 안내\n첫 학기 수강정정은 개강 후 첫 주에 합니다.",
        "Ⅱ. 졸업요건\n졸업 학점은 128학점입니다.\n3-1. 컴퓨터학과\n전공 60학점을 이수합니다.\n제출 서류\n"
        "1. 성적증명서 1부\n2. 재학증명서 1부\n표의 값 3.5 이상\n4.2 이상",
    ]
    doc = pdf_doc(pages, "2025 신입생 안내 자료")
    chunks = chunk_document(doc, split)
    assert_invariants(chunks, doc)
    paths = [c.heading_path for c in chunks]
    root = "2025학년도 신입생 안내 자료"
    assert paths == [
        (root,),
        (root, "Ⅰ. 수강신청"),
        (root, "Ⅰ. 수강신청", "1. 첫 학기 안내"),
        (root, "Ⅱ. 졸업요건"),
        (root, "Ⅱ. 졸업요건", "3-1. 컴퓨터학과"),
    ]
    assert "2. 재학증명서 1부\n표의 값 3.5 이상\n4.2 이상" in chunks[-1].text
    assert chunks[0].subtopic == "" and chunks[-1].subtopic == "3-1. 컴퓨터학과"


# --------------------------------------------------------------------------- FAQ

def test_long_faq_answer_repeats_the_question(split):
    chunks = chunk_document(FAQ_DOC, split)
    assert_invariants(chunks, FAQ_DOC)
    assert len(chunks) >= 3
    for chunk in chunks:
        assert chunk.text.startswith(FAQ_QUESTION + "\n")
        assert chunk.text.endswith("합니다.")
        assert chunk.topic == "자주 묻는 질문 > 휴학·복학" and chunk.title == FAQ_QUESTION
    assert chunks[0].text.startswith(FAQ_QUESTION + "\n\n복학 절차 1-1")
    for sentence in split(FAQ_ANSWER):
        assert any(sentence in c.text for c in chunks)


def test_short_faq_is_one_chunk(split):
    doc = {**FAQ_DOC, "answer": "학기 시작 전까지 복학원을 내면 됩니다.",
           "text": f"{FAQ_QUESTION}\n\n학기 시작 전까지 복학원을 내면 됩니다."}
    [chunk] = chunk_document(doc, split)
    assert chunk.text == doc["text"] and chunk.start_offset == 0 and chunk.heading_path == ()


# --------------------------------------------------------------------------- ids

def test_chunk_ids_are_stable_and_local_to_the_changed_document(split):
    other = {**HTML_DOC, "doc_id": "d-other", "url": "http://u.test/other.html"}
    before = {doc["url"]: [c.chunk_id for c in chunk_document(doc, split)] for doc in (HTML_DOC, other)}
    again = {doc["url"]: [c.chunk_id for c in chunk_document(doc, split)] for doc in (HTML_DOC, other)}
    assert before == again
    assert all(re.fullmatch(r"[0-9a-f]{16}", i) for ids in before.values() for i in ids)
    assert len({i for ids in before.values() for i in ids}) == sum(map(len, before.values()))  # unique

    edited = {**other, "text": other["text"].replace("02-3290-3010으로", "02-3290-3011로")}
    after = {doc["url"]: [c.chunk_id for c in chunk_document(doc, split)] for doc in (HTML_DOC, edited)}
    assert after[HTML_DOC["url"]] == before[HTML_DOC["url"]]
    assert after[other["url"]][:-1] == before[other["url"]][:-1]  # only the edited chunk changes
    assert after[other["url"]][-1] != before[other["url"]][-1]


# --------------------------------------------------------------------------- keywords

def _chunk(i: int) -> Chunk:
    return Chunk(chunk_id=f"c{i}", doc_id="d", doc_url="u", position=i, text=f"t{i}", heading_path=(),
                 page=None, start_offset=0, topic="", subtopic="", title="")


def test_keywords_prefer_distinctive_terms_and_skip_noise():
    tokens = [
        ["졸업", "학점", "전공", "심화전공", "심화전공", "2024", "2024", "2024", "3", "가", "가"],
        ["졸업", "학점", "전공", "이중전공"],
        ["졸업", "학점", "학점", "학점", "휴학", "복학"],
    ]
    chunks = assign_keywords([_chunk(i) for i in range(3)], tokens, k=3)
    # In one chunk only, twice: first. In two chunks: next. In all three: last, in text order.
    assert chunks[0].keywords == ("심화전공", "전공", "졸업")
    assert chunks[1].keywords == ("이중전공", "전공", "졸업")
    # Repetition counts, sublinearly: 학점 three times, though in every chunk, scores
    # (1 + ln 3) * 1 = 2.10 against 1 * (1 + ln 2) = 1.69 for a term once in one chunk in two.
    assert chunks[2].keywords == ("학점", "휴학", "복학")
    assert all("2024" not in c.keywords and "가" not in c.keywords for c in chunks)
    assert [replace(c, keywords=()) for c in chunks] == [_chunk(i) for i in range(3)]  # nothing else changes


def test_keywords_are_deterministic_with_ties_and_skip_predicates():
    tokens = [["나중", "먼저", "공통"], ["공통", "기타"]]
    first = assign_keywords([_chunk(0), _chunk(1)], tokens, k=2)
    assert first == assign_keywords([_chunk(0), _chunk(1)], tokens, k=2)
    assert first[0].keywords == ("나중", "먼저")  # equal scores: order of appearance
    tagged = [[("이수", "NNG"), ("배우", "VV"), ("배우", "VV"), ("과목", "NNG")]]
    assert assign_keywords([_chunk(0)], tagged, k=5)[0].keywords == ("이수", "과목")
    with pytest.raises(ValueError):
        assign_keywords([_chunk(0)], [], k=5)


def test_keywords_from_real_tokens(tok, split):
    chunks = chunk_document(HTML_DOC, split)
    tagged = tok.tagged_morphemes([c.text for c in chunks])
    with_keywords = assign_keywords(chunks, tagged)
    table = next(c for c in with_keywords if "학수번호: COSE1" in c.text)
    assert len(table.keywords) == 5 and all(len(k) > 1 and not k.isdigit() for k in table.keywords)
    assert ", ".join(table.keywords) in table.indexed_text()
