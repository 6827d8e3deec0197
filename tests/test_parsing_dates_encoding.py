"""Date parsing and HTML byte decoding."""

from __future__ import annotations

import codecs
import datetime as dt
import random

import pytest

from advisor.ingest.dates import find_date, parse_date
from advisor.ingest.encoding import codec_for, decode_html
from advisor.ingest.errors import DocumentError

MARCH_2 = dt.date(2024, 3, 2)


@pytest.mark.parametrize(
    "text",
    [
        "2024-03-02", "2024.03.02", "2024.3.2.", "2024/03/02", "2024년 3월 2일", "2024년3월2일",
        "24.03.02", "2024-03-02T09:00:00+09:00", "2024-03-02T23:30:00Z", "2024. 3. 2.",
        " 2024.03.02 14:22 ", "2024-03-02 (토)",
    ],
)
def test_parse_date_forms(text):
    assert parse_date(text) == MARCH_2


@pytest.mark.parametrize(
    "text",
    ["2024-02-30", "2023.2.29", "2024.13.01", "24.02.30", "공지사항", "", "2024-03", "1.24.03.02",
     "버전 2024.03.02 릴리스"],
)
def test_parse_date_rejects(text):
    assert parse_date(text) is None


def test_leap_day_and_two_digit_year_century():
    assert parse_date("2024-02-29") == dt.date(2024, 2, 29)
    assert parse_date("99.12.31") == dt.date(2099, 12, 31)


def test_find_date_in_longer_text():
    assert find_date("[학사] 수강신청 안내 | 작성자 학사팀 | 작성일 2024.03.02 | 조회 152") == MARCH_2
    # The first *valid* date wins; a phone number is not a date.
    assert find_date("전화 02-3290-1234, 2024-02-30 정정: 2024년 3월 2일 게시, 2024.4.1. 마감") == MARCH_2
    assert find_date("등록 24.03.02 수정 2024.03.05") == MARCH_2
    assert find_date("날짜가 없는 글입니다. 127.0.0.1") is None


# --------------------------------------------------------------------------- encoding

KOREAN = (
    "<html><head>{meta}<title>졸업요건 안내</title></head><body>"
    "<p>컴퓨터학과 학생은 졸업을 위하여 전공 72학점 이상과 교양 30학점 이상을 이수하여야 합니다. "
    "복수전공을 하는 학생은 주전공과 복수전공 각각 42학점 이상을 이수해야 하며, "
    "졸업논문 또는 졸업시험 중 하나를 통과해야 합니다. 똠방각하 같은 확장 글자도 읽혀야 합니다.</p>"
    "</body></html>"
)


def test_euc_kr_declared_only_in_meta():
    html = KOREAN.format(meta='<meta http-equiv="Content-Type" content="text/html; charset=euc-kr">')
    text, codec = decode_html(html.encode("cp949"), "text/html")
    assert codec == "cp949" and text == html  # "똠" exists only in cp949, EUC-KR's superset


def test_euc_kr_declared_only_in_header():
    html = KOREAN.format(meta="")
    assert decode_html(html.encode("cp949"), "text/html; charset=EUC-KR") == (html, "cp949")
    assert decode_html(html.encode("cp949"), "text/html; charset=ks_c_5601-1987") == (html, "cp949")


def test_undeclared_cp949_is_detected():
    html = KOREAN.format(meta="")
    assert decode_html(html.encode("cp949"), None) == (html, "cp949")


def test_utf8_with_bom_wins_over_declarations():
    html = KOREAN.format(meta='<meta charset="euc-kr">')
    text, codec = decode_html(codecs.BOM_UTF8 + html.encode("utf-8"), "text/html; charset=euc-kr")
    assert (text, codec) == (html, "utf-8")


def test_shift_jis_and_windows_1252():
    html = '<meta charset="Shift_JIS"><p>卒業要件について説明します。</p>'
    assert decode_html(html.encode("shift_jis"), None) == (html, "cp932")
    html = "<p>Café — “résumé” naïve</p>"
    assert decode_html(html.encode("cp1252"), "text/html; charset=windows-1252") == (html, "cp1252")
    # iso-8859-1 is read as its superset windows-1252, as browsers do (the curly quotes).
    assert decode_html(html.encode("cp1252"), "text/html; charset=ISO-8859-1") == (html, "cp1252")


def test_unknown_label_falls_through():
    html = KOREAN.format(meta='<meta charset="x-no-such-charset">')
    assert decode_html(html.encode("utf-8"), "text/html; charset=bogus") == (html, "utf-8")


def test_wrong_label_falls_through():
    # Server says UTF-8 (a common default) but the page is EUC-KR, declared in its meta.
    html = KOREAN.format(meta='<meta charset="euc-kr">')
    assert decode_html(html.encode("cp949"), "text/html; charset=utf-8") == (html, "cp949")
    # Header says EUC-KR but the bytes are UTF-8.
    html = KOREAN.format(meta="")
    assert decode_html(html.encode("utf-8"), "text/html; charset=euc-kr") == (html, "utf-8")


def test_one_bad_byte_keeps_the_declared_charset():
    html = KOREAN.format(meta="")
    body = html.encode("utf-8").replace(b"</p>", b"\xff</p>")  # one stray byte
    text, codec = decode_html(body, "text/html; charset=utf-8")
    assert codec == "utf-8" and text.count("\ufffd") == 1 and "졸업요건" in text
    assert decode_html(body, None) == (text, "utf-8")  # undeclared: still UTF-8, not a guess


def test_binary_junk_is_undecodable():
    junk = random.Random(7).randbytes(4000)
    with pytest.raises(DocumentError) as err:
        decode_html(junk, None)
    assert err.value.reason == "undecodable"


def test_codec_labels():
    assert codec_for("EUC-KR") == codec_for("x-windows-949") == codec_for("ks_c_5601-1987") == "cp949"
    assert codec_for("UTF-8") == "utf-8"
    assert codec_for("nonsense") is None and codec_for(None) is None
