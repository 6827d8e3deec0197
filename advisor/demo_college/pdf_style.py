"""The look of this college's PDFs: a serif (명조) font, the running head on the left, tables with
a light-blue header row and a caption in its own style."""

from __future__ import annotations

from reportlab.lib import colors
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm

from advisor.site_kit.pdf import PdfStyle, cid_font

FONT = cid_font("HYSMyeongJo-Medium")

PDF_STYLE = PdfStyle(
    font=FONT,
    paragraphs={
        "title": ParagraphStyle("title", fontName=FONT, fontSize=18, leading=26, spaceAfter=10, alignment=1),
        "h1": ParagraphStyle("h1", fontName=FONT, fontSize=14, leading=20, spaceBefore=8, spaceAfter=6),
        "h2": ParagraphStyle("h2", fontName=FONT, fontSize=11.5, leading=17, spaceBefore=6, spaceAfter=4),
        "p": ParagraphStyle("p", fontName=FONT, fontSize=10, leading=15, spaceAfter=4),
        "cell": ParagraphStyle("cell", fontName=FONT, fontSize=9, leading=12),
        "caption": ParagraphStyle("caption", fontName=FONT, fontSize=9, leading=12, spaceBefore=4, spaceAfter=2),
    },
    author="한빛대학교 정보대학",
    margins=(20 * mm, 20 * mm, 22 * mm, 20 * mm),
    running_head_side="left",
    running_head_from_top=12 * mm,
    page_number_from_bottom=10 * mm,
    table_style=(
        ("GRID", (0, 0), (-1, -1), 0.5, colors.grey),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8eef5")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
    ),
    table_gap=4,
    running_head_as_subject=True,
)
