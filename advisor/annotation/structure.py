"""Where in a text the statement of WHOM it is for usually sits: its lead sentence.

A section or notice says whom it addresses in its first sentence ("3학년 이상을 대상으로 …",
"휴학생은 …", "편입생에게 …"). Later sentences and list items are details and exceptions
("- 복학생은 복학 승인 후 신청할 수 있습니다" inside a general registration notice), so only the
lead counts as the text's own restriction. Markup that is not prose is skipped: the title and
headings the caller already read, board bylines (author/date/views) and captions. A text that
opens with a list or a table, or whose first prose comes only after a new heading, has no lead.
"""

from __future__ import annotations

import re
from typing import Iterable

from advisor.ingest import rows

_HEADING_LINE = re.compile(
    r"^(?:#{1,6}\s|제\s*\d+\s*(?:편|장|절|관|조(?:의\s*\d+)?)(?:\s|\(|$)|부\s*칙$|\[별표\s*\d+\]|\d+(?:-\d+)*\.\s+\S.{0,40}$)"
)
_BYLINE = re.compile(r"작성자|작성일|등록일|조회수|게시일|posted\s+(?:on|by)|\d[\d,]*\s+views\b|views?\s*[:：]", re.IGNORECASE)
_LIST_ITEM = re.compile(r"^(?:[-*•·▪◦○●■□▶►※]|\d+[.)]\s|\(\d+\)|[①-⑳]|[가나다라마바사아자차카타파하]\.\s)")
_TERMINATED = re.compile(r"(?:[.?!。]|[다요음함])[\"')\]]*$")
_MIN_SENTENCE = 8  # shorter first sentences are interjections ("네.", "아니요.")
_MAX_SENTENCE = 250  # a "sentence" longer than this is a run of table cells, not prose
_CAPTION = 40  # an unterminated line up to this long is a caption or a table cell


def squash(text: str) -> str:
    """For comparing headings/titles with lines: no spaces, one dash."""
    return re.sub(r"[\s\u2010-\u2015~-]+", "", text.lstrip("#").strip()).casefold()


def is_heading_line(line: str) -> bool:
    return bool(_HEADING_LINE.match(line.strip()))


def is_byline(line: str) -> bool:
    return bool(_BYLINE.search(line))


def is_list_item(line: str) -> bool:
    return bool(_LIST_ITEM.match(line.strip()))


# A line ending in a particle or a comma is a sentence wrapped onto the next line, not a caption.
_WRAPPED = re.compile(r"(?:을|를|이|가|은|는|의|에|에게|에서|와|과|및|로|으로|며|고|나|[,·])$")


def _is_caption(line: str) -> bool:
    return len(line) <= _CAPTION and not _TERMINATED.search(line) and not _WRAPPED.search(line)


def _blocks(text: str) -> list[list[str]]:
    return [[line.strip() for line in block.splitlines() if line.strip()] for block in re.split(r"\n\s*\n", text)]


def lead_sentence(text: str, skip: Iterable[str] = ()) -> str:
    """The first prose sentence of `text`, or "" when it has none.

    `skip`: lines that are context rather than content (the title, the headings), as a chunk or
    a document's opening often repeats them."""
    skipped = {squash(s) for s in skip if s}
    for block in _blocks(text):
        lines = [line for line in block if squash(line) not in skipped and not is_byline(line)]
        if not lines:
            continue
        first = lines[0]
        if is_heading_line(first) or is_list_item(first):
            return ""  # a section or a list starts before any prose
        if _is_caption(first):
            if len(lines) > 1 and (_is_caption(lines[1]) or is_list_item(lines[1]) or is_heading_line(lines[1])):
                return ""  # a caption over a table or a list
            lines = lines[1:]  # a document's own title line, then its prose
            if not lines:
                continue  # a caption paragraph of its own: the prose follows
        prose = []
        for line in lines:
            if is_heading_line(line) or is_list_item(line):
                break
            prose.append(line)
        return _first_sentence(" ".join(prose))
    return ""


def _first_sentence(paragraph: str) -> str:
    for piece in re.split(r"(?<=[.?!。])\s+", paragraph):
        piece = piece.strip()
        if len(piece) < _MIN_SENTENCE:
            continue  # "네." / "아니요."
        return piece if len(piece) <= _MAX_SENTENCE else ""
    return ""


_TABLE_CAPTION = 80  # a caption line above a table's rows, no blank line between (html_text.py)


def table_labels(text: str, skip: Iterable[str] = ()) -> list[str]:
    """The labels of the table a text opens with, outermost first: its caption lines, then the
    rows across the whole table above its first row ("- 2025학년도 이후 입학생"). They name whom the
    rows below are for, as a heading does; [] when the text opens with anything but a table.
    `skip`: the title and headings, as for `lead_sentence`."""
    skipped = {squash(s) for s in skip if s}
    for block in _blocks(text):
        lines = [line for line in block if squash(line) not in skipped and not is_byline(line)]
        if not lines:
            continue
        labels: list[str] = []
        in_rows = False  # past the caption: only rows from here on
        for line in lines:
            if rows.is_table_row(line):
                return labels
            if rows.is_group_row(line):
                in_rows = True
                labels.append(line[len(rows.ROW):].strip())
            elif in_rows or is_heading_line(line) or is_list_item(line) or not _is_table_caption(line):
                return []
            else:
                labels.append(line)
        return []
    return []


def _is_table_caption(line: str) -> bool:
    return len(line) <= _TABLE_CAPTION and not _TERMINATED.search(line) and not _WRAPPED.search(line)


# "신청 대상: 2020학년도 이후 입학자", "(대상: 2021–2022학년도 입학생)", "지원 자격: 3학년 이상":
# a key that announces whom the text is for, wherever it stands in the text.
_TARGET_WORD = r"(?:신청|지원|참여|참가|적용|모집|수혜|선발|이용)?\s*(?:대상자?|자격)"
_TARGET_KEY = re.compile(rf"(?:^|(?<=[\s(（\[-])){_TARGET_WORD}\s*[:：]\s*(?P<value>[^\n)）\]|]+)")
_TARGET_CELL = re.compile(rf"^{_TARGET_WORD}$")


def target_statements(text: str) -> list[str]:
    """The values of "대상: …" / "자격: …" keys in `text`. In a table, only a key/value row
    ("- 구분: 지원 대상 | 내용: 2학년 이상"): a "대상" column of a wider table describes one row
    (one program among several), not the whole text."""
    found = []
    for line in text.splitlines():
        if rows.CELLS not in line:
            found += [m.group("value").strip() for m in _TARGET_KEY.finditer(line)]
            continue
        cells = rows.cells(line.strip().lstrip("-"))
        if len(cells) == 2:
            key, value = cells[0].rsplit(":", 1)[-1].strip(), cells[1].split(":", 1)[-1].strip()
            if _TARGET_CELL.match(key) and value:
                found.append(value)
    return found


# A document's scope: an eligibility section opening the document ("## 지원 자격", a regulation's
# "제2조(참여 대상)" after its preliminaries) says whom the whole document is for.
_ELIGIBILITY_HEADING = re.compile(
    r"(?:참여|신청|지원|적용|이용|수강|모집)?\s*(?:대상|자격)|적용\s*범위|eligib|who\s+(?:can|may)", re.IGNORECASE
)
_PRELIMINARY_HEADING = re.compile(r"총\s*칙|목\s*적|정\s*의|개\s*요|용어|purpose|overview|definitions?", re.IGNORECASE)


def _heading_text(line: str) -> str:
    text = line.strip().lstrip("#").strip()
    inner = re.match(r"제\s*\d+\s*(?:편|장|절|관|조)\s*(?:\((.*)\)|(.*))$", text)
    return (inner.group(1) or inner.group(2) or "") if inner else text


def scope_sentence(doc_lead: str, title: str = "") -> str:
    """The first sentence of the eligibility section that opens a document (after any
    preliminaries such as "제1조(목적)"), or ""."""
    lines = [line.strip() for line in doc_lead.splitlines() if line.strip() and squash(line) != squash(title)]
    for i, line in enumerate(lines):
        if not is_heading_line(line):
            continue
        heading = _heading_text(line)
        if _PRELIMINARY_HEADING.search(heading):
            continue
        if not _ELIGIBILITY_HEADING.search(heading):
            return ""  # the document's first real section is about something else
        body = "\n".join(lines[i + 1:])
        return lead_sentence(body) if body else ""
    return ""
