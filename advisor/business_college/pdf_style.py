"""The look of this college's PDFs: a gothic font, the running head on the right, tables with a
black grid, a green header row and the caption as a plain paragraph above."""

from __future__ import annotations

from reportlab.lib import colors
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm

from advisor.site_kit.pdf import PdfStyle, cid_font

from .chrome import SITE_NAME

FONT = cid_font("HYGothic-Medium")
_PARAGRAPH = ParagraphStyle("p", fontName=FONT, fontSize=10, leading=15, spaceAfter=4)

PDF_STYLE = PdfStyle(
    font=FONT,
    paragraphs={
        "title": ParagraphStyle("title", fontName=FONT, fontSize=17, leading=24, spaceAfter=12, alignment=1),
        "h1": ParagraphStyle("h1", fontName=FONT, fontSize=13, leading=19, spaceBefore=10, spaceAfter=5),
        "h2": ParagraphStyle("h2", fontName=FONT, fontSize=11, leading=16, spaceBefore=6, spaceAfter=3),
        "p": _PARAGRAPH,
        "cell": ParagraphStyle("cell", fontName=FONT, fontSize=9, leading=12),
        "caption": _PARAGRAPH,
    },
    author=SITE_NAME,
    margins=(22 * mm, 22 * mm, 24 * mm, 20 * mm),
    running_head_side="right",
    running_head_from_top=13 * mm,
    page_number_from_bottom=11 * mm,
    table_style=(
        ("GRID", (0, 0), (-1, -1), 0.4, colors.black),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#dfe9e3")),
    ),
    table_gap=5,
)
