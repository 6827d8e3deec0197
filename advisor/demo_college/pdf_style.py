"""The look of this college's PDFs: a serif (명조) font, the running head on the left, tables with
a light-blue header row and a caption in its own style."""

from __future__ import annotations

from reportlab.lib import colors
from reportlab.lib.units import mm

from advisor.site_kit.pdf import PdfStyle, cid_font, paragraph_styles

FONT = cid_font("HYSMyeongJo-Medium")

PDF_STYLE = PdfStyle(
    font=FONT,
    paragraphs=paragraph_styles(FONT, {  # size, leading, space before, space after
        "title": (18, 26, 0, 10),
        "h1": (14, 20, 8, 6),
        "h2": (11.5, 17, 6, 4),
        "p": (10, 15, 0, 4),
        "cell": (9, 12, 0, 0),
        "caption": (9, 12, 4, 2),
    }),
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
