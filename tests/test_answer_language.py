"""Answers that read well in the asker's language (issue 27, item 6), offline and without a build:
the product's own words (row glue, variant labels) in the student's language while the material is
quoted as it is; a table answers with the student's row, not every row in one run-on sentence; a
"don't know" answer lists every variant the documents state."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from advisor import language
from advisor.chunking.token_cache import tokenizer_for
from advisor.config import load_config
from advisor.retrieval import RetrievalResult, RetrievedChunk
from serving.answer import extractive_answer
from serving.answer.extractive import own_rows
from serving.dialogue.assembly import label_variants
from serving.dialogue.engine import DialogueSettings, ExtractiveAnswerer, LLMTasks
from serving.dialogue.session import Pending, Session
from serving.dialogue.tiers.documents import DocumentsTier
from serving.dialogue.tiers.faq import FAQTier

CONFIG = load_config()
ROOT = Path(__file__).resolve().parents[1]
HANGUL = re.compile(r"[\uac00-\ud7a3]")


@pytest.fixture(scope="module")
def kiwi():
    return tokenizer_for(CONFIG)


def chunk(text: str, url: str = "https://u.example/graduation", rank: int = 1, applies_to: dict | None = None,
          heading: tuple[str, ...] = ()) -> RetrievedChunk:
    return RetrievedChunk(rank=rank, chunk_id=f"c{rank}-{url}", score=1.0 / rank, bm25_rank=rank, dense_rank=rank,
                          collection="static", doc_url=url, title="졸업요건", text=text,
                          applies_to=applies_to or {}, kind="page", heading_path=heading)


# a summary table whose rows are cohorts, and one whose columns are (the business college's shape)
BY_ROW = ("## 입학년도별 졸업 이수학점\n\n입학년도별 졸업 이수학점 요약\n"
          "- 입학년도: 2016학번까지 | 졸업 이수학점: 140학점 | 교양: 45학점\n"
          "- 입학년도: 2017~2018학번 | 졸업 이수학점: 136학점 | 교양: 42학점\n"
          "- 입학년도: 2019~2021학번 | 졸업 이수학점: 133학점 | 교양: 40학점\n"
          "- 입학년도: 2022학번 이후 | 졸업 이수학점: 130학점 | 교양: 36학점")
BY_COLUMN = ("## 공통 졸업 기준\n\n입학년도별 공통 졸업 기준\n"
             "- 구분: 졸업 이수학점 | 2016학번까지: 140학점 | 2017~2018학번: 136학점 | 2019~2021학번: 133학점 | "
             "2022학번 이후: 130학점\n"
             "- 구분: 교양 | 2016학번까지: 45학점 | 2017~2018학번: 42학점 | 2019~2021학번: 40학점 | 2022학번 이후: 36학점")
OTHER_ROWS = ("140학점", "136학점", "130학점")


def answer(kiwi, query, known, evidence):
    return extractive_answer(query, evidence, known, CONFIG, kiwi.content_morphemes, kiwi.split_sentences)


def product_words(text: str, evidence) -> str:
    """What is left of an answer once every piece of the material in it is taken out (the cells,
    headers, captions and lines it quotes) and the citation markers: the product's own words."""
    pieces = set()
    for c in evidence:
        for line in c.text.splitlines():
            line = line.strip().lstrip("#- ").strip()
            pieces.add(line)
            for cell in line.split(" | "):
                pieces.update(part.strip() for part in cell.split(": "))
    for piece in sorted(pieces, key=len, reverse=True):
        if piece:
            text = text.replace(piece, " ")
    return re.sub(r"\[\d+\]", " ", text)


# ----------------------------------------------------------------------------- the asker's language

def test_an_english_question_gets_no_korean_glue_around_a_korean_table(kiwi):
    evidence = [chunk(BY_ROW)]
    english = answer(kiwi, "How many credits do I need to graduate?", {"admission_year": 2020}, evidence)
    assert "133학점" in english.text and not HANGUL.search(product_words(english.text, evidence)), english.text
    assert english.language_note == "This answer is quoted from Korean-language material."
    korean = answer(kiwi, "졸업하려면 몇 학점 필요해요?", {"admission_year": 2020}, evidence)
    assert "입니다" in product_words(korean.text, evidence)  # a Korean reader gets the sentence glue


def test_variant_labels_are_in_the_askers_language():
    text = "60학점 [1] 66학점 [2] 신청은 포털에서 [3]"
    cited = [{"admission_year": [2019, 2022], "department": ["CS"]}, {"admission_year": [2023, 2026]}, {}]
    english = label_variants(text, cited, ["department", "admission_year"], CONFIG.profile, "en")
    assert english.splitlines() == ["Department of Computer Science admission year 2019–2022: 60학점 [1]",
                                    "admission year 2023 and later: 66학점 [2]", "Everyone: 신청은 포털에서 [3]"]
    korean = label_variants(text, cited, ["department", "admission_year"], CONFIG.profile, "ko")
    assert korean.splitlines()[0] == "컴퓨터학과 2019–2022학번: 60학점 [1]" and korean.splitlines()[2].startswith("공통: ")


def test_the_product_texts_exist_in_korean_and_english_and_code_spells_none():
    for name in ("templates", "grammar"):
        korean, english = language.load("ko", name), language.load("en", name)
        if name == "templates":
            assert set(korean) == set(english)
        assert english
    # every Korean word the dialogue and the answer write comes from advisor/language/<code>/:
    # no string literal in their code holds Hangul (docstrings and comments may quote examples)
    for path in [*ROOT.glob("serving/dialogue/**/*.py"), *ROOT.glob("serving/answer/*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and node.body and isinstance(node.body[0], ast.Expr)
                      and isinstance(node.body[0].value, ast.Constant)}
        spelled = [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
                   and isinstance(node.value, str) and id(node) not in docstrings and HANGUL.search(node.value)]
        assert not spelled, (path, spelled)


# ----------------------------------------------------------------------------- the student's row

@pytest.mark.parametrize("table", [BY_ROW, BY_COLUMN], ids=["rows", "columns"])
def test_a_table_answers_with_the_students_row_and_not_the_others(kiwi, table):
    evidence = [chunk(table)]
    reply = answer(kiwi, "졸업 이수학점은 몇 학점인가요?", {"admission_year": 2020}, evidence)
    assert "133학점" in reply.text, reply.text
    assert not any(value in reply.text for value in OTHER_ROWS), reply.text
    # the header it needs: whose row (or column) it is, and what the value counts
    assert "2019~2021학번" in reply.text and "졸업 이수학점" in reply.text


def test_a_table_without_the_students_row_is_a_list_not_one_paragraph(kiwi):
    reply = answer(kiwi, "졸업 이수학점은 몇 학점인가요?", {}, [chunk(BY_ROW)])
    lines = reply.text.splitlines()
    assert len(lines) >= 4 and all(sum(value in line for value in ("140학점", "136학점", "133학점", "130학점")) <= 1
                                   for line in lines), reply.text


def test_a_stored_faq_table_keeps_the_students_row_under_its_caption():
    stored = "네. 입학년도별 졸업학점은 다음과 같습니다.\n\n" + BY_ROW.split("\n\n", 1)[1]
    mine = own_rows(stored, {"admission_year": 2020}, CONFIG)
    assert "입학년도별 졸업 이수학점 요약" in mine and "2019~2021학번 | 졸업 이수학점: 133학점" in mine
    assert not any(value in mine for value in OTHER_ROWS)
    assert own_rows(stored, {}, CONFIG) == stored  # nobody's row known: the whole table
    assert own_rows(stored, {"admission_year": 2030}, CONFIG).count("\n- ") == 4  # no row fits: whole


# ----------------------------------------------------------------------------- every variant

SECTIONS = {  # one page, one section per major type (the demo's department graduation pages)
    "intensive": "## 심화전공\n\n심화전공 이수 학점\n- 구분: 전공필수 | 기준: 25학점\n- 구분: 전공 | 기준: 65학점 이상",
    "double": "## 이중전공\n\n이중전공 이수 학점\n- 구분: 전공필수 | 기준: 21학점\n- 구분: 전공 | 기준: 40학점 이상",
    "convergence": "## 융합전공\n\n융합전공 이수 학점\n- 구분: 전공필수 | 기준: 15학점\n- 구분: 전공 | 기준: 35학점 이상",
}
CS_2021 = {"department": ["CS"], "admission_year": [2021, 2022]}


def section(value: str, rank: int) -> RetrievedChunk:
    return chunk(SECTIONS[value], rank=rank, applies_to={**CS_2021, "major_type": [value]}, heading=(value,))


class _Retriever:
    """The page's sections, the one for the student's major type first (as a profile filter would)."""

    def search(self, query, known, **kwargs):
        ordered = sorted(SECTIONS, key=lambda value: value != (known or {}).get("major_type"))
        return RetrievalResult(query=query, query_text=query, mode="hybrid", time_sensitive=False,
                               chunks=[section(value, rank) for rank, value in enumerate(ordered, 1)],
                               profile=dict(known or {}))


class _Reader:
    schema, language = CONFIG.profile, CONFIG.language

    def qualifies(self, message, evidence, as_asked=None):
        return all("전공필수" in c.text for c in evidence)

    def answerability(self, message, evidence):
        return 1.0

    def facts_reader(self, query):
        return lambda c: frozenset(re.findall(r"\d+", c.text))


def test_dont_know_lists_every_variant_the_page_states(kiwi):
    tier = DocumentsTier(_Retriever(), SimpleNamespace(k=5), DialogueSettings(), _Reader(),
                         ExtractiveAnswerer(CONFIG, kiwi), LLMTasks(), CONFIG)
    session = Session(known={"department": "CS", "admission_year": 2021}, declined={"major_type"})
    pending = Pending(message="전공필수 몇 학점이에요?", intent="retrieval", stage="evidence", asked=())
    # the evidence held one section of the page (one per document section): the others are found
    reply = tier.reply([section("double", 1)], session, pending)
    lines = reply.answer.splitlines()
    for label, credits in (("심화전공", "25학점"), ("이중전공", "21학점"), ("융합전공", "15학점")):
        assert any(line.startswith(f"{label}: ") and credits in line for line in lines), reply.answer
    assert len(reply.citations) == 3 and reply.trace is not None
    assert pending.trace["every_variant"]["values"] == ["intensive", "double", "convergence"]

    english = Pending(message="How many major required credits do I need?", intent="retrieval", stage="evidence",
                      asked=(), search_text="전공필수 몇 학점")
    reply = tier.reply([section("double", 1)], session, english)
    assert [line.split(": ")[0] for line in reply.answer.splitlines() if ": " in line][:1] == ["intensive major"]
    assert not HANGUL.search(reply.disclaimer or "")


def test_the_faq_yields_when_its_entries_miss_variants_the_documents_state():
    entry = SimpleNamespace(applies_to={**CS_2021, "major_type": ["double"]}, answer="제1전공 40학점", question="q")
    qualifying = [SimpleNamespace(entry=entry, score=0.9)]
    session = Session(known={"department": "CS", "admission_year": 2021}, declined={"major_type"})
    pending = Pending(message="전공 몇 학점?", intent="retrieval", stage="evidence", asked=())
    stated = {"intensive": [1], "double": [1], "convergence": [1]}
    faq = FAQTier(None, {}, None, _Reader(), DialogueSettings(), config=CONFIG,
                  variant_sections=lambda pending, session, name: stated)
    assert faq.misses_variants(qualifying, session, pending)
    stated = {"double": [1]}  # the documents state no other: the entry's answer is every variant
    assert not faq.misses_variants(qualifying, session, pending)
