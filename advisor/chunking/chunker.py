"""Documents -> chunks: self-contained pieces of at most 800 characters (docs/method.md §A.3).

A chunk lies inside one section (its heading path says what it is about and, later, whom it
applies to). Within a section, whole blocks (paragraphs, lists, tables) are packed greedily; a
block too long for a chunk is cut between sentences, list items or table rows, and only a single
sentence or row longer than a chunk is cut mid-way (at whitespace).

The body of every chunk is an exact slice of the document text starting at `start_offset`
(citations can highlight it); a repeated context line (a table's caption, with the row across the
table that heads the rows below it; an FAQ's question) may precede that slice, separated by a
newline.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from advisor.chunking.model import MAX_CHUNK_CHARS, Chunk
from advisor.ingest.rows import is_group_row, is_table_row

SplitSentences = Callable[[str], list[str]]
_Heading = tuple[int, str, bool]  # (level, text for the heading path, the line is also content)

HOME_CRUMBS = frozenset({"홈", "home", "메인", "main", "처음으로"})
# A caption repeated above every continuation chunk must stay small next to the rows it labels.
MAX_CARRY_SHARE = 4  # at most max_chars // 4 characters


@dataclass(frozen=True)
class _Piece:
    start: int
    end: int
    carry: str = ""  # repeated above this piece when it opens a chunk (caption, FAQ question)
    glue: bool = False  # a heading or caption: a chunk may not end on it


@dataclass
class _Section:
    path: tuple[str, ...]
    heading: _Piece | None  # the heading line, opening the section's first chunk
    blocks: list[tuple[int, int]] = field(default_factory=list)  # (start, end) of each block
    carry: str = ""  # FAQ: the question, atop every chunk
    open_block: bool = False  # while parsing: the next non-blank line extends the last block


# --------------------------------------------------------------------------- entry point

def chunk_document(
    doc: Mapping, split_sentences: SplitSentences, max_chars: int = MAX_CHUNK_CHARS
) -> list[Chunk]:
    """Cut one `documents` row into chunks, in document order."""
    text = doc.get("text") or ""
    if not text.strip():
        return []
    kind = doc.get("kind")
    title = (doc.get("title") or "").strip()
    title_line = _pdf_title_line(text, title) if kind == "pdf" else None
    if kind == "faq":
        sections = _faq_sections(doc, text, max_chars)
    else:
        sections = _sections(text, pdf=kind == "pdf", title_line=title_line)
    drafts = _drafts(sections, text, split_sentences, max_chars)
    if not drafts:  # only headings: the document must still be findable
        drafts = [((), p.start, text[p.start:p.end]) for p in _cut(text, *strip_span(text, 0, len(text)), max_chars)]
    titles = {_norm(title)} | ({_norm(title_line[1])} if title_line else set())
    return [_make_chunk(doc, position, path, start, body, titles)
            for position, (path, start, body) in enumerate(drafts)]


def _drafts(
    sections: list[_Section], text: str, split_sentences: SplitSentences, max_chars: int
) -> list[tuple[tuple[str, ...], int, str]]:
    """(heading path, start offset, text) of every chunk, section by section."""
    drafts = []
    pending: list[_Section] = []  # sections with a heading and no text of their own
    for section in sections:
        if not section.blocks:
            # No chunk of its own: its heading line opens the next section's first chunk instead.
            pending += [section] if section.heading else []
            continue
        lead = [s.heading for s in _enclosing_tail(pending, section.path)]
        packed = _pack(section, lead, text, split_sentences, max_chars)
        drafts += [(section.path, start, body) for start, body in packed]
        pending = []
    return drafts


def _enclosing_tail(pending: list[_Section], path: tuple[str, ...]) -> list[_Section]:
    """The run of empty sections just before a section that enclose it ("## 졸업요건" right
    before "### 심화전공"): their heading lines lead into its first chunk. A chunk is one slice of
    the text, so an empty sibling in between ends the run."""
    tail: list[_Section] = []
    for section in reversed(pending):
        if path[:len(section.path)] != section.path:
            break
        tail.insert(0, section)
    return tail


def _make_chunk(
    doc: Mapping, position: int, path: tuple[str, ...], start: int, body: str, titles: set[str]
) -> Chunk:
    url = doc.get("url") or ""
    return Chunk(
        chunk_id=chunk_id(url, position, body),
        doc_id=doc.get("doc_id") or "",
        doc_url=url,
        position=position,
        text=body,
        heading_path=path,
        page=page_at(doc.get("page_spans"), start),
        start_offset=start,
        topic=topic(doc),
        subtopic=next((h for h in reversed(path) if _norm(h) not in titles), ""),
        title=(doc.get("title") or "").strip(),
    )


def chunk_id(doc_url: str, position: int, text: str) -> str:
    """Stable across re-runs; an edit changes the ids of that document's chunks only."""
    return hashlib.sha256(f"{doc_url}\x00{position}\x00{text}".encode()).hexdigest()[:16]


def topic(doc: Mapping) -> str:
    """Breadcrumbs without the home item and without the page itself; else the source name."""
    title = _norm(doc.get("title") or "")
    crumbs = [c.strip() for c in doc.get("breadcrumbs") or [] if c and c.strip()]
    crumbs = [c for c in crumbs if c.lower() not in HOME_CRUMBS]
    if crumbs and _norm(crumbs[-1]) == title:
        crumbs.pop()
    return " > ".join(crumbs) or (doc.get("source") or "")


def page_at(page_spans: Sequence[Mapping] | None, offset: int) -> int | None:
    """The PDF page holding `offset` (the blank line between pages counts as the next page)."""
    if not page_spans:
        return None
    spans = sorted((s["start_offset"], s["end_offset"], s["page"])
                   for s in page_spans if s["end_offset"] > s["start_offset"])  # empty pages: none
    for _start, end, page in spans:
        if offset < end:
            return page
    return spans[-1][2] if spans else None


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


# --------------------------------------------------------------------------- structure

_MD_HEADING = re.compile(r"^(#{1,6})\s+(\S.*?)(?:\s+#+)?\s*$")


def _lines(text: str):
    """(offset, line) for every line."""
    offset = 0
    for line in text.split("\n"):
        yield offset, line
        offset += len(line) + 1


def strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    """``text[start:end]`` without its leading and trailing white space, as offsets into ``text``
    (the sentence splitter in kiwi_tokens trims its spans the same way)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _sections(text: str, pdf: bool, title_line: tuple[int, str] | None = None) -> list[_Section]:
    """Split the text at heading lines; a section's blocks are runs of non-blank lines."""
    detect = _pdf_heading_detector(text) if pdf else _markdown_heading
    sections = [_Section((), None)]
    stack: list[tuple[int, str]] = []  # (level, name) of the enclosing headings
    lines = list(_lines(text))
    for i, (offset, line) in enumerate(lines):
        if title_line and offset == title_line[0]:
            heading = (0, title_line[1], False)  # a PDF's title line: its h1
        else:
            heading = detect(line, _neighbours(lines, i), stack) if line.strip() else None
        span = strip_span(text, offset, offset + len(line))
        if heading is None:
            _add_line(sections[-1], text, span, continues=pdf)
        else:
            sections.append(_open_section(stack, heading, span))
    return sections


def _open_section(stack: list[tuple[int, str]], heading: _Heading, span: tuple[int, int]) -> _Section:
    level, name, inline = heading
    while stack and (stack[-1][0] >= level or _other_number(stack[-1][1], name)):
        stack.pop()
    stack.append((level, name))
    path = tuple(n for _, n in stack)
    if inline:  # "제1조(목적) 이 규정은 ...": the line is the section's first content too
        return _Section(path, None, [span], open_block=True)
    return _Section(path, _Piece(*span, glue=True))


def _add_line(section: _Section, text: str, span: tuple[int, int], continues: bool) -> None:
    """A blank line ends the open block (in a PDF, not after unfinished text: a page join)."""
    start, end = span
    if start == end:
        if section.open_block and not (continues and _continues(text, section.blocks[-1][1])):
            section.open_block = False
    elif section.open_block:
        section.blocks[-1] = (section.blocks[-1][0], end)
    else:
        section.blocks.append((start, end))
        section.open_block = True


def _neighbours(lines: list[tuple[int, str]], i: int) -> tuple[str, str]:
    """The nearest non-blank lines before and after line i."""
    before = next((ln.strip() for _, ln in reversed(lines[max(0, i - 3):i]) if ln.strip()), "")
    after = next((ln.strip() for _, ln in lines[i + 1:i + 4] if ln.strip()), "")
    return before, after


def _pdf_title_line(text: str, title: str) -> tuple[int, str] | None:
    """(offset, line) of a PDF's first line when it states the document's title (the metadata
    title often shortens it: "학사운영규정" for "한빛대학교 정보대학 학사운영규정")."""
    first = next(((o, ln.strip()) for o, ln in _lines(text) if ln.strip()), None)
    words = title.split()
    if first is None or not words or len(first[1]) > 80 or _NOT_A_TITLE_END.search(first[1]):
        return None
    offset, line = first
    return (offset + text[offset:].index(line), line) if all(w in line for w in words) else None


# How a sentence (or a clause closing in a bracket or quote) ends; a line ending otherwise goes on.
_ENDS_SENTENCE = re.compile(r"(?:[.!?。]|다|요)[\"'”’)\]」』]*$")


def _continues(text: str, end: int) -> bool:
    """A PDF's blank lines are mostly page joins: one after unfinished text joins the pages'
    text into one block rather than ending a paragraph mid-sentence."""
    return not _ENDS_SENTENCE.search(text[max(0, end - 10):end])


def _other_number(parent: str, child: str) -> bool:
    """"3-1. ..." does not belong under "2. ...": the document skipped the "3." title."""
    p, c = re.match(r"(\d+)\.\s", parent), re.match(r"(\d+)[-.]\d", child)
    return bool(p and c and p.group(1) != c.group(1))


def _markdown_heading(line: str, _neighbours, _stack) -> _Heading | None:
    match = _MD_HEADING.match(line)
    return (len(match.group(1)), match.group(2).strip(), False) if match else None


# PDFs have no Markdown. Korean regulations mark their structure in the text itself; anything
# else that looks like a title is accepted only when short and not part of a numbered list.
_PART = re.compile(r"^제\s*\d+\s*(편|장|절|관)(?:\s+(\S.*))?$")
# "제4조(졸업 이수학점)" alone, or followed by a space and the article's text; never "제4조에 따라".
_ARTICLE = re.compile(r"^(제\s*\d+\s*조(?:의\s*\d+)?)\s*(\([^()]{1,40}\))?(.*)$")
_ANNEX = re.compile(r"^\[\s*(?:별표|별지|서식)\s*[\d\-]*\s*\].{0,60}$")
_ADDENDA = re.compile(r"^부\s*칙(?:\s*[(<〈\[].{0,40})?$")
# "Ⅱ. 졸업요건", "1. 목적", "3-1. 교육과정", "2.1. 신청"; not "3.5 이상" (a number in a table).
_NUMBERED = re.compile(
    r"^(?:([IVX]{1,4}|[\u2160-\u216b])\.|(\d{1,2})\.|(\d{1,2}(?:[-.]\d{1,2})+)\.)\s+\S*[A-Za-z\uac00-\ud7a3]"
)
_LIST_LINE = re.compile(r"^(?:\d{1,3}[.)]|\(\d{1,3}\)|[가-하][.)]|[-•·*])\s")
_NOT_A_TITLE_END = re.compile(r"(?:[.:;!?。]|다|요|함|음|것)$")  # sentences and list items end so
_PART_LEVEL = {"편": 1, "장": 2, "절": 3, "관": 4}  # 부칙 and attachments: 1 (top level)
_ARTICLE_LEVEL = 5


def _pdf_heading_detector(text: str):
    # In a regulation, "1. ..." lines are items (호) of an article, never titles.
    numbered_titles = not re.search(r"^제\s*\d+\s*조", text, re.M)

    def detect(line: str, neighbours: tuple[str, str], stack: list[tuple[int, str]]) -> _Heading | None:
        line = line.strip()
        if len(line) > 80:
            return None
        if (m := _PART.match(line)) and len(line) <= 40 and not _NOT_A_TITLE_END.search(line):
            return _PART_LEVEL[m.group(1)], line, False
        if (m := _ARTICLE.match(line)) and (m.group(2) or not m.group(3).strip()) and m.group(3)[:1] in ("", " "):
            inline = bool(m.group(3).strip())
            return _ARTICLE_LEVEL, (m.group(1) + (m.group(2) or "")) if inline else line, inline
        if _ANNEX.match(line):
            # Inside an article "[별표 1] ..." captions the table the article refers to ("다음 표와
            # 같다"): keep them together. Otherwise it opens an attachment, a top-level section.
            return None if any(level == _ARTICLE_LEVEL for level, _ in stack) else (1, line, False)
        if _ADDENDA.match(line):
            return 1, line, False
        if numbered_titles and _is_numbered_title(line, neighbours):
            return _numbered_level(line), line, False
        return None

    return detect


def _is_numbered_title(line: str, neighbours: tuple[str, str]) -> bool:
    if not _NUMBERED.match(line) or len(line) > 40 or _NOT_A_TITLE_END.search(line) or ":" in line or "|" in line:
        return False
    # "1. 성적증명서\n2. 재학증명서" is a list, not two titles.
    return not any(_LIST_LINE.match(n) for n in neighbours)


def _numbered_level(line: str) -> int:
    m = _NUMBERED.match(line)
    return 1 if m.group(1) else 2 if m.group(2) else 3


def _faq_sections(doc: Mapping, text: str, max_chars: int) -> list[_Section]:
    """One chunk when it fits; else the question opens the first chunk and is repeated atop the
    others, so every piece of a long answer still says what it answers."""
    start, end = strip_span(text, 0, len(text))
    if end - start <= max_chars:
        return [_Section((), None, [(start, end)])]
    question = (doc.get("question") or "").strip()
    if question and text.startswith(question, start):
        q_end = start + len(question)
    else:  # the question is the first block (text = question + blank line + answer)
        blank = text.find("\n\n", start)
        q_end = strip_span(text, start, blank if blank >= 0 else end)[1]
    carry = text[start:q_end] if q_end - start <= max_chars // 2 else ""
    section = _Section((), _Piece(start, q_end, glue=True), carry=carry)
    for offset, line in _lines(text[q_end:end]):
        _add_line(section, text, strip_span(text, q_end + offset, q_end + offset + len(line)), continues=False)
    return [section]


# --------------------------------------------------------------------------- packing

def _pack(
    section: _Section, lead: list[_Piece], text: str, split_sentences: SplitSentences, max_chars: int
) -> list[tuple[int, str]]:
    """(start_offset, chunk text) for the section: whole blocks first, else their pieces. `lead`:
    headings to open the first chunk with, before the section's own."""
    out: list[tuple[int, str]] = []
    current: list[_Piece] = lead + ([section.heading] if section.heading else [])
    for start, end in section.blocks:
        whole = _Piece(start, end, carry=section.carry)
        if _fits(current + [whole], max_chars):
            current.append(whole)
            continue
        if _has_content(current) and _fits([whole], max_chars):
            out.append(_emit(current, text, max_chars))  # the block moves whole to a new chunk
            current = [whole]
            continue
        for piece in _block_pieces(text, start, end, split_sentences, max_chars, section.carry):
            if _fits(current + [piece], max_chars):
                current.append(piece)
                continue
            content, glued = _split_glued_tail(current)
            if content:
                out.append(_emit(content, text, max_chars))
            # A heading or caption moves along with the piece it introduces, if there is room.
            current = glued + [piece] if _fits(glued + [piece], max_chars) else [piece]
    if _has_content(current):
        out.append(_emit(current, text, max_chars))
    return out


def _span(pieces: list[_Piece]) -> int:
    return pieces[-1].end - pieces[0].start


def _fits(pieces: list[_Piece], max_chars: int) -> bool:
    if not pieces:
        return True
    carry = pieces[0].carry
    return _span(pieces) + (len(carry) + 1 if carry else 0) <= max_chars


def _has_content(pieces: list[_Piece]) -> bool:
    return any(not p.glue for p in pieces)


def _split_glued_tail(pieces: list[_Piece]) -> tuple[list[_Piece], list[_Piece]]:
    cut = len(pieces)
    while cut and pieces[cut - 1].glue:
        cut -= 1
    return pieces[:cut], pieces[cut:]


def _emit(pieces: list[_Piece], text: str, max_chars: int) -> tuple[int, str]:
    body = text[pieces[0].start:pieces[-1].end]
    carry = pieces[0].carry
    if carry and len(carry) + 1 + len(body) <= max_chars:  # a row too long for its caption goes alone
        body = carry + "\n" + body
    return pieces[0].start, body


# --------------------------------------------------------------------------- block pieces

_ITEM = re.compile(r"^(?:[-*•]|\d{1,3}[.)])\s")


def _block_pieces(
    text: str, start: int, end: int, split_sentences: SplitSentences, max_chars: int, forced_carry: str
) -> list[_Piece]:
    """A too-long block as pieces that each fit in a chunk: list items and table rows (led by
    their caption), else sentences; a piece still too long is cut at whitespace."""
    limit = max_chars - (len(forced_carry) + 1 if forced_carry else 0)
    out = []
    for piece, is_item in _raw_pieces(text, start, end, split_sentences, max_chars):
        carry = forced_carry or piece.carry
        if is_item and piece.end - piece.start > limit:  # a long item: its sentences first
            parts = _sentences(text, piece.start, piece.end, split_sentences)
        else:
            parts = [piece]
        out.extend(_Piece(p.start, p.end, carry, piece.glue) for part in parts
                   for p in _cut(text, part.start, part.end, limit))
    return out


def _raw_pieces(text: str, start: int, end: int, split_sentences: SplitSentences, max_chars: int):
    """(piece, is_item) for a block: its items (after their caption) if it is a list or a table,
    else its sentences."""
    groups = _line_groups(text, start, end)
    first_item = next((i for i, g in enumerate(groups) if g[2]), None)
    if first_item is None:
        return [(p, False) for p in _sentences(text, start, end, split_sentences)]
    pieces = []
    lead = groups[:first_item]
    caption = text[lead[0][0]:lead[-1][1]] if lead else ""
    if lead and len(caption) <= max_chars // MAX_CARRY_SHARE:
        pieces.append((_Piece(lead[0][0], lead[-1][1], glue=True), False))  # the caption leads the rows
    else:
        caption = ""
        pieces.extend((p, False) for s, e, _ in lead for p in _sentences(text, s, e, split_sentences))
    table = any(is_item and is_table_row(text[s:e].split("\n", 1)[0]) for s, e, is_item in groups)
    carry = caption
    for s, e, is_item in groups[first_item:]:
        if is_item and table and is_group_row(text[s:e]):
            # A row across the table ("- 2025학년도 이후 입학생") heads the rows below it: it leads
            # them like the caption, and is repeated with it above a chunk that starts among them.
            pieces.append((_Piece(s, e, carry=caption, glue=True), False))
            heading = (caption + "\n" if caption else "") + text[s:e]
            carry = heading if len(heading) <= max_chars // MAX_CARRY_SHARE else caption
        elif is_item:
            pieces.append((_Piece(s, e, carry=carry), True))
        else:  # a note after the list: ordinary text
            pieces.extend((p, False) for p in _sentences(text, s, e, split_sentences))
    return pieces


def _line_groups(text: str, start: int, end: int) -> list[tuple[int, int, bool]]:
    """(start, end, is_item): an item line with its indented continuation lines, or a plain line."""
    groups: list[list] = []
    for offset, line in _lines(text[start:end]):
        s, e = strip_span(text, start + offset, start + offset + len(line))
        if s == e:
            continue
        if groups and line[:1].isspace():
            groups[-1][1] = e  # continuation (nested list, wrapped cell)
        else:
            groups.append([s, e, bool(_ITEM.match(line))])
    return [tuple(g) for g in groups]


def _sentences(text: str, start: int, end: int, split_sentences: SplitSentences) -> list[_Piece]:
    """Sentence pieces covering text[start:end] (located in the text: offsets stay exact)."""
    chunk = text[start:end]
    pieces: list[_Piece] = []
    cursor = 0
    for sentence in split_sentences(chunk):
        sentence = sentence.strip()
        found = chunk.find(sentence, cursor) if sentence else -1
        if found < 0:
            continue
        sentence_end = found + len(sentence)
        if pieces and chunk[cursor:found].strip():  # text the splitter skipped: keep it
            pieces[-1] = _Piece(pieces[-1].start, start + found)
        elif not pieces and chunk[:found].strip():
            found = 0
        pieces.append(_Piece(*strip_span(text, start + found, start + sentence_end)))
        cursor = sentence_end
    if not pieces:
        return [_Piece(start, end)]
    if chunk[cursor:].strip():
        pieces[-1] = _Piece(pieces[-1].start, end)
    return _rejoin_page_breaks(text, [_Piece(*strip_span(text, p.start, p.end)) for p in pieces])


def _rejoin_page_breaks(text: str, pieces: list[_Piece]) -> list[_Piece]:
    """Kiwi ends a sentence at a blank line. Inside a block that only happens where a PDF's pages
    were joined (see `_continues`): a sentence unfinished there goes on after it."""
    out: list[_Piece] = []
    for piece in pieces:
        if out and "\n\n" in text[out[-1].end:piece.start] and _continues(text, out[-1].end):
            out[-1] = _Piece(out[-1].start, piece.end)
        else:
            out.append(piece)
    return out


def _cut(text: str, start: int, end: int, limit: int) -> list[_Piece]:
    """Cut a too-long sentence or row at the last whitespace before `limit` (a line break if there
    is one in the second half of the window: it is the more natural seam)."""
    pieces = []
    while end - start > limit:
        window = text[start:start + limit + 1]
        at = window.rfind("\n", limit // 2)
        if at <= 0:
            at = max((m.start() for m in re.finditer(r"\s", window)), default=-1)
        if at <= 0:
            at = limit  # no whitespace at all: a hard cut is the only way to keep the bound
        pieces.append(_Piece(*strip_span(text, start, start + at)))
        start = strip_span(text, start + at, end)[0]
    if start < end:
        pieces.append(_Piece(start, end))
    return [p for p in pieces if p.end > p.start]
