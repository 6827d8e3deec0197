"""Render a simple block list (headings, paragraphs, bullet lists, tables) to a Korean PDF.

reportlab's built-in CID font needs no font file and pypdf extracts its text back; ``invariant=1``
pins the creation date and document id, so the same blocks always give the same bytes.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Sequence
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.platypus import (
    KeepTogether, ListFlowable, ListItem, PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table,
    TableStyle,
)

FONT = "HYSMyeongJo-Medium"
pdfmetrics.registerFont(UnicodeCIDFont(FONT))

_STYLES = {
    "title": ParagraphStyle("title", fontName=FONT, fontSize=18, leading=26, spaceAfter=10, alignment=1),
    "h1": ParagraphStyle("h1", fontName=FONT, fontSize=14, leading=20, spaceBefore=8, spaceAfter=6),
    "h2": ParagraphStyle("h2", fontName=FONT, fontSize=11.5, leading=17, spaceBefore=6, spaceAfter=4),
    "p": ParagraphStyle("p", fontName=FONT, fontSize=10, leading=15, spaceAfter=4),
    "cell": ParagraphStyle("cell", fontName=FONT, fontSize=9, leading=12),
    "caption": ParagraphStyle("caption", fontName=FONT, fontSize=9, leading=12, spaceBefore=4, spaceAfter=2),
}


@dataclass(frozen=True)
class Block:
    kind: str  # title | h1 | h2 | p | bullets | table | pagebreak
    text: str = ""
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


def _table(block: Block, width: float):
    cells = [[Paragraph(escape(c), _STYLES["cell"]) for c in row] for row in (block.head, *block.rows)]
    table = Table(cells, colWidths=[width / len(block.head)] * len(block.head), repeatRows=1)
    table.setStyle(TableStyle([
        ("GRID", (0, 0), (-1, -1), 0.5, colors.grey),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8eef5")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
    ]))
    return KeepTogether([Paragraph(escape(block.text), _STYLES["caption"]), table])


def _flowables(blocks: Sequence[Block], width: float) -> list:
    out: list = []
    for block in blocks:
        if block.kind == "pagebreak":
            out.append(PageBreak())
        elif block.kind == "table":
            out += [_table(block, width), Spacer(1, 4)]
        elif block.kind == "bullets":
            items = [ListItem(Paragraph(escape(i), _STYLES["p"]), leftIndent=12) for i in block.items]
            out.append(ListFlowable(items, bulletType="bullet", start="•", bulletFontName=FONT, leftIndent=12))
        else:
            out.append(Paragraph(escape(block.text), _STYLES[block.kind]))
    return out


def render_pdf(blocks: Sequence[Block], doc_title: str, running_head: str) -> bytes:
    """The PDF bytes; every page carries a running head and a page-number footer, like real
    university PDFs (boilerplate a cleaner must cope with)."""
    buffer = io.BytesIO()
    doc = SimpleDocTemplate(buffer, pagesize=A4, invariant=1, title=doc_title, author="한빛대학교 정보대학",
                            subject=running_head, leftMargin=20 * mm, rightMargin=20 * mm,
                            topMargin=22 * mm, bottomMargin=20 * mm)

    def decorate(canvas, document):
        canvas.saveState()
        canvas.setFont(FONT, 8)
        canvas.drawString(20 * mm, A4[1] - 12 * mm, running_head)
        canvas.drawCentredString(A4[0] / 2, 10 * mm, f"- {document.page} -")
        canvas.restoreState()

    doc.build(_flowables(blocks, doc.width), onFirstPage=decorate, onLaterPages=decorate)
    return buffer.getvalue()
