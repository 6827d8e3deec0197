"""PDF text extraction, on real PDFs drawn with reportlab."""

from __future__ import annotations

import io
import random

import pytest
from pypdf import PdfReader, PdfWriter
from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas

from advisor.ingest.errors import DocumentError
from advisor.ingest.pdf_text import extract_pdf, tidy_page_text

FONT = "HYSMyeongJo-Medium"
pdfmetrics.registerFont(UnicodeCIDFont(FONT))

PAGE_1 = [
    "2024학년도 졸업요건 안내",
    "",
    "컴퓨터학과 학생은 졸업을 위하여 전공 72학점 이상과 교양 30학점 이상을 모두",
    "이수하여야 하며, 복수전공자는 별도의 기준을 따릅니다.",
]
PAGE_2 = [
    "교과목 구분표",
    "CS201 자료구조 및 알고리즘 설계 (전공필수, 이론과 실습 병행) 3 2학년",
    "CS301 운영체제와 시스템 프로그래밍 (전공필수, 이론과 실습 병행) 3 3학년",
    "1. 재수강은 C+ 이하 과목만 가능합니다.",
    "2. 최대 B+까지 인정됩니다.",
]
PAGE_3 = [
    "Students  admitted   in 2021 or later must complete the graduation require-",
    "ments listed on the previous pages before applying.",
]


def make_pdf(pages: list[list[str]], title: str | None = None) -> bytes:
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4, invariant=1)
    if title:
        pdf.setTitle(title)
    for lines in pages:
        pdf.setFont(FONT, 10)
        for n, line in enumerate(lines):
            if line:
                pdf.drawString(60, 780 - 16 * n, line)
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


@pytest.fixture(scope="module")
def three_pages() -> bytes:
    return make_pdf([PAGE_1, PAGE_2, PAGE_3])


def page_texts(parsed) -> list[str]:
    return [parsed.text[start:end] for _, start, end in parsed.page_spans]


def test_pages_and_spans_line_up(three_pages):
    parsed = extract_pdf(three_pages)
    assert parsed.n_pages == 3
    assert [number for number, _, _ in parsed.page_spans] == [1, 2, 3]
    first, second, third = page_texts(parsed)
    assert parsed.text == f"{first}\n\n{second}\n\n{third}"
    assert first == (
        "2024학년도 졸업요건 안내\n"
        "컴퓨터학과 학생은 졸업을 위하여 전공 72학점 이상과 교양 30학점 이상을 모두 "
        "이수하여야 하며, 복수전공자는 별도의 기준을 따릅니다."
    )
    # Table rows and numbered items keep their own lines, even when as wide as the text.
    assert second.split("\n") == PAGE_2
    # Runs of spaces collapse; a word hyphenated across lines is rejoined.
    assert third == (
        "Students admitted in 2021 or later must complete the graduation requirements "
        "listed on the previous pages before applying."
    )


def test_title_from_metadata_or_first_line(three_pages):
    # reportlab writes "untitled" when no title is set: not a meaningful title.
    assert PdfReader(io.BytesIO(three_pages)).metadata.title == "untitled"
    assert extract_pdf(three_pages).title == "2024학년도 졸업요건 안내"
    assert extract_pdf(make_pdf([PAGE_1], title="졸업요건 (2024)")).title == "졸업요건 (2024)"
    assert extract_pdf(make_pdf([PAGE_1], title="Microsoft Word - 졸업요건_최종.hwp")).title == "2024학년도 졸업요건 안내"


def test_blank_page_gets_an_empty_span():
    parsed = extract_pdf(make_pdf([PAGE_1, [], PAGE_3]))
    assert parsed.n_pages == 3
    (_, _, end_1), (_, start_2, end_2), (_, start_3, _) = parsed.page_spans
    assert start_2 == end_2 == end_1
    assert start_3 == end_1 + 2 and "\n\n\n" not in parsed.text


def _encrypted(data: bytes, user: str, owner: str) -> bytes:
    writer = PdfWriter(clone_from=io.BytesIO(data))
    writer.encrypt(user_password=user, owner_password=owner, algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_user_password_is_encrypted_pdf(three_pages):
    with pytest.raises(DocumentError) as err:
        extract_pdf(_encrypted(three_pages, user="secret", owner="owner"))
    assert err.value.reason == "encrypted_pdf"


def test_owner_password_only_is_readable(three_pages):
    locked = _encrypted(three_pages, user="", owner="owner")
    assert PdfReader(io.BytesIO(locked)).is_encrypted
    assert extract_pdf(locked).text == extract_pdf(three_pages).text


@pytest.mark.parametrize(
    "mangle",
    [
        lambda data: data[: len(data) // 2],  # truncated download
        lambda data: data[:-30],  # only the trailer lost
        lambda data: random.Random(3).randbytes(len(data)),  # not a PDF at all
        lambda data: b"%PDF-1.4\n" + random.Random(4).randbytes(2000),  # a header, then junk
        lambda data: b"",
    ],
)
def test_broken_bytes_are_corrupt_pdf(three_pages, mangle):
    with pytest.raises(DocumentError) as err:
        extract_pdf(mangle(three_pages))
    assert err.value.reason == "corrupt_pdf"


def test_pdf_without_text_layer_is_empty_text():
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4, invariant=1)
    pdf.rect(100, 100, 300, 400, fill=1)  # stands in for a scanned page image
    pdf.showPage()
    pdf.save()
    with pytest.raises(DocumentError) as err:
        extract_pdf(buffer.getvalue())
    assert err.value.reason == "empty_text"
    assert "scanned" in str(err.value)


def test_tidy_keeps_short_lines_apart():
    raw = "학점\n구분\n\n\n\n비고   사항\r\n끝"
    assert tidy_page_text(raw) == "학점\n구분\n\n비고 사항\n끝"


def test_running_heads_feet_and_page_numbers_are_dropped():
    from advisor.ingest.pdf_text import strip_running_lines

    bodies = ["제1장 총칙\n목적을 정한다.", "제2장 졸업\n130학점 이상", "제3장 학적\n휴학은 6학기까지", "제4장 부칙\n시행일"]
    pages = [f"한빛대학교 · 학사운영규정\n- {n} -\n{body}\n{n} / 4" for n, body in enumerate(bodies, 1)]
    assert strip_running_lines(pages) == bodies
    # two pages are too few to call a line 'running'; only bare page numbers go
    assert strip_running_lines(["표지 제목\n본문 A\n1", "표지 제목\n본문 B\n2"]) == ["표지 제목\n본문 A", "표지 제목\n본문 B"]
