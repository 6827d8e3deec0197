"""Korean PDFs with reportlab's built-in CID font (no font file; pypdf reads the text back), in
this college's style: a running head on the right, "- N / M -" style footers, tables with a
caption above. ``invariant=1`` pins dates and ids, so the same blocks give the same bytes."""

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
from reportlab.platypus import KeepTogether, PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

FONT = "HYGothic-Medium"
pdfmetrics.registerFont(UnicodeCIDFont(FONT))
_STYLES = {
    "title": ParagraphStyle("title", fontName=FONT, fontSize=17, leading=24, spaceAfter=12, alignment=1),
    "h1": ParagraphStyle("h1", fontName=FONT, fontSize=13, leading=19, spaceBefore=10, spaceAfter=5),
    "h2": ParagraphStyle("h2", fontName=FONT, fontSize=11, leading=16, spaceBefore=6, spaceAfter=3),
    "p": ParagraphStyle("p", fontName=FONT, fontSize=10, leading=15, spaceAfter=4),
    "cell": ParagraphStyle("cell", fontName=FONT, fontSize=9, leading=12),
}


@dataclass(frozen=True)
class Block:
    kind: str  # title | h1 | h2 | p | table | pagebreak
    text: str = ""
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


def grid(caption: str, head: Sequence[str], rows: Sequence[Sequence[object]]) -> Block:
    return Block("table", caption, tuple(head), tuple(tuple(str(c) for c in r) for r in rows))


def page_break() -> Block:
    return Block("pagebreak")


def _table(block: Block, width: float):
    cells = [[Paragraph(escape(c), _STYLES["cell"]) for c in row] for row in (block.head, *block.rows)]
    table = Table(cells, colWidths=[width / len(block.head)] * len(block.head), repeatRows=1)
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.4, colors.black),
                               ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#dfe9e3"))]))
    return KeepTogether([Paragraph(escape(block.text), _STYLES["p"]), table])


def render_pdf(blocks: Sequence[Block], doc_title: str, running_head: str, author: str) -> bytes:
    buffer = io.BytesIO()
    doc = SimpleDocTemplate(buffer, pagesize=A4, invariant=1, title=doc_title, author=author,
                            leftMargin=22 * mm, rightMargin=22 * mm, topMargin=24 * mm, bottomMargin=20 * mm)

    def decorate(canvas, document):
        canvas.saveState()
        canvas.setFont(FONT, 8)
        canvas.drawRightString(A4[0] - 22 * mm, A4[1] - 13 * mm, running_head)
        canvas.drawCentredString(A4[0] / 2, 11 * mm, f"- {document.page} -")
        canvas.restoreState()

    flow: list = []
    for block in blocks:
        if block.kind == "pagebreak":
            flow.append(PageBreak())
        elif block.kind == "table":
            flow += [_table(block, doc.width), Spacer(1, 5)]
        else:
            flow.append(Paragraph(escape(block.text), _STYLES[block.kind]))
    doc.build(flow, onFirstPage=decorate, onLaterPages=decorate)
    return buffer.getvalue()
