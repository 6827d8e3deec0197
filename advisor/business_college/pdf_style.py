"""The look of this college's PDFs: a gothic font, the running head on the right, tables with a
black grid, a green header row and the caption as a plain paragraph above."""

from __future__ import annotations

from reportlab.lib import colors
from reportlab.lib.units import mm

from advisor.site_kit.pdf import PdfStyle, cid_font, paragraph_styles

from .chrome import SITE_NAME

FONT = cid_font("HYGothic-Medium")

PDF_STYLE = PdfStyle(
    font=FONT,
    paragraphs=paragraph_styles(FONT, {  # size, leading, space before, space after
        "title": (17, 24, 0, 12),
        "h1": (13, 19, 10, 5),
        "h2": (11, 16, 6, 3),
        "p": (10, 15, 0, 4),
        "cell": (9, 12, 0, 0),
        "caption": (10, 15, 0, 4),  # a plain paragraph
    }),
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
