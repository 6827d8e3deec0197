"""Render a list of blocks (headings, paragraphs, bullet lists, tables) to a Korean PDF in a
college's house style.

reportlab's built-in CID fonts need no font file and pypdf extracts their text back;
``invariant=1`` pins the creation date and document id, so the same blocks always give the same
bytes.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Literal, Mapping, Sequence
from xml.sax.saxutils import escape

from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.platypus import (
    KeepTogether,
    ListFlowable,
    ListItem,
    PageBreak,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)


@dataclass(frozen=True)
class Block:
    kind: str  # title | h1 | h2 | p | bullets | table | pagebreak
    text: str = ""  # a table's caption
    items: tuple[str, ...] = ()
    head: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()


def title(text: str) -> Block:
    return Block("title", text)


def h1(text: str) -> Block:
    return Block("h1", text)


def h2(text: str) -> Block:
    return Block("h2", text)


def para(text: str) -> Block:
    return Block("p", text)


def bullets(items: Sequence[str]) -> Block:
    return Block("bullets", items=tuple(items))


def grid(caption: str, head: Sequence[str], rows: Sequence[Sequence[object]]) -> Block:
    return Block("table", caption, head=tuple(head), rows=tuple(tuple(str(c) for c in r) for r in rows))


def page_break() -> Block:
    return Block("pagebreak")


def cid_font(name: str) -> str:
    """Register one of reportlab's built-in CID fonts (e.g. "HYGothic-Medium"); returns its name."""
    pdfmetrics.registerFont(UnicodeCIDFont(name))
    return name


def paragraph_styles(font: str, sizes: Mapping[str, tuple[float, float, float, float]]) -> dict[str, ParagraphStyle]:
    """A college's paragraph styles from one table, kind -> (font size, leading, space before,
    space after) in points, all in ``font``; the title is centred."""
    return {kind: ParagraphStyle(kind, fontName=font, fontSize=size, leading=leading, spaceBefore=before,
                                 spaceAfter=after, alignment=1 if kind == "title" else 0)
            for kind, (size, leading, before, after) in sizes.items()}


@dataclass(frozen=True)
class PdfStyle:
    """What makes one college's PDFs look like its own."""

    font: str  # for the running head and page numbers; the paragraph styles name theirs
    paragraphs: Mapping[str, ParagraphStyle]  # title, h1, h2, p, cell (table cells), caption
    author: str
    margins: tuple[float, float, float, float]  # left, right, top, bottom, in points
    running_head_side: Literal["left", "right"]  # aligned to that side's margin
    running_head_from_top: float  # points from the page's top edge to the running head's baseline
    page_number_from_bottom: float  # points from the page's bottom edge to the page number's baseline
    table_style: tuple[tuple, ...]  # reportlab TableStyle commands
    table_gap: float  # points of space after a table
    running_head_as_subject: bool = False  # also write the running head as the PDF's Subject


def render_pdf(blocks: Sequence[Block], style: PdfStyle, doc_title: str, running_head: str) -> bytes:
    """The PDF bytes; every page carries a running head and a page-number footer, like real
    university PDFs (boilerplate a cleaner must cope with)."""
    left, right, top, bottom = style.margins
    buffer = io.BytesIO()
    doc = SimpleDocTemplate(buffer, pagesize=A4, invariant=1, title=doc_title, author=style.author,
                            subject=running_head if style.running_head_as_subject else None,
                            leftMargin=left, rightMargin=right, topMargin=top, bottomMargin=bottom)

    def decorate(canvas, document):
        canvas.saveState()
        canvas.setFont(style.font, 8)
        head_y = A4[1] - style.running_head_from_top
        if style.running_head_side == "left":
            canvas.drawString(left, head_y, running_head)
        else:
            canvas.drawRightString(A4[0] - right, head_y, running_head)
        canvas.drawCentredString(A4[0] / 2, style.page_number_from_bottom, f"- {document.page} -")
        canvas.restoreState()

    doc.build(_flowables(blocks, style, doc.width), onFirstPage=decorate, onLaterPages=decorate)
    return buffer.getvalue()


def _flowables(blocks: Sequence[Block], style: PdfStyle, width: float) -> list:
    out: list = []
    for block in blocks:
        if block.kind == "pagebreak":
            out.append(PageBreak())
        elif block.kind == "table":
            out += [_table(block, style, width), Spacer(1, style.table_gap)]
        elif block.kind == "bullets":
            items = [ListItem(Paragraph(escape(i), style.paragraphs["p"]), leftIndent=12) for i in block.items]
            out.append(ListFlowable(items, bulletType="bullet", start="•", bulletFontName=style.font, leftIndent=12))
        else:
            out.append(Paragraph(escape(block.text), style.paragraphs[block.kind]))
    return out


def _table(block: Block, style: PdfStyle, width: float) -> KeepTogether:
    cells = [[Paragraph(escape(c), style.paragraphs["cell"]) for c in row] for row in (block.head, *block.rows)]
    table = Table(cells, colWidths=[width / len(block.head)] * len(block.head), repeatRows=1)
    table.setStyle(TableStyle(list(style.table_style)))
    return KeepTogether([Paragraph(escape(block.text), style.paragraphs["caption"]), table])
