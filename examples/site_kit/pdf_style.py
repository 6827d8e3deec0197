"""A college's PDF style read from its table (``<college>/pdf_style.yaml``): every college's the
same way, so two colleges' PDFs differ only in values."""

from __future__ import annotations

from pathlib import Path

import yaml
from reportlab.lib import colors
from reportlab.lib.units import mm

from .pdf import PdfStyle, cid_font, paragraph_styles


def load_pdf_style(path: Path, author: str) -> PdfStyle:
    """The style at ``path``, its font registered; ``author`` (the PDFs' author) is the college's
    name, which its page chrome owns."""
    style = yaml.safe_load(path.read_text(encoding="utf-8"))
    font = cid_font(style["font"])
    head, table = style["running_head"], style["table"]
    commands = [("GRID", (0, 0), (-1, -1), table["grid"]["width"], _colour(table["grid"]["colour"])),
                ("BACKGROUND", (0, 0), (-1, 0), _colour(table["header_background"]))]
    if table["cells_top_aligned"]:
        commands.append(("VALIGN", (0, 0), (-1, -1), "TOP"))
    return PdfStyle(
        font=font,
        paragraphs=paragraph_styles(font, {kind: tuple(sizes) for kind, sizes in style["paragraphs"].items()}),
        author=author,
        margins=tuple(size * mm for size in style["margins_mm"]),
        running_head_side=head["side"],
        running_head_from_top=head["from_top_mm"] * mm,
        page_number_from_bottom=style["page_number_from_bottom_mm"] * mm,
        table_style=tuple(commands),
        table_gap=table["gap"],
        running_head_as_subject=head["as_subject"],
    )


def _colour(value: str) -> colors.Color:
    """A reportlab colour by name ("grey") or as #rrggbb."""
    return colors.HexColor(value) if value.startswith("#") else getattr(colors, value)
