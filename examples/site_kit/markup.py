"""Tiny HTML builders: every plain ``str`` is escaped, ``Markup`` passes through untouched.

Pages are assembled from these instead of f-string templates so that no generated text can break
the markup, and attribute order (hence the bytes) is always the same.
"""

from __future__ import annotations

import html
from typing import Iterable, Sequence

Child = "str | Markup | None"

# Elements after which a newline makes the generated source readable (and diffable).
_BLOCK = {
    "p", "div", "ul", "ol", "li", "table", "thead", "tbody", "tr", "caption", "h1", "h2", "h3",
    "h4", "section", "article", "nav", "header", "footer", "main", "dl", "dt", "dd", "aside",
    "head", "body", "html", "title", "meta", "link", "address", "blockquote", "figure",
}
_VOID = {"meta", "link", "br", "hr", "img", "input"}


class Markup(str):
    """A string that is already HTML."""


def esc(value: object) -> Markup:
    if isinstance(value, Markup):
        return value
    return Markup(html.escape(str(value), quote=True))


def join(parts: Iterable[object], sep: str = "") -> Markup:
    return Markup(sep.join(esc(p) for p in parts if p is not None))


def tag(element: str, *children: object, **attrs: object) -> Markup:
    """``tag("a", "text", href="/x", class_="y")``; attributes whose value is None are dropped."""
    rendered = "".join(
        f' {key.rstrip("_").replace("_", "-")}="{html.escape(str(val), quote=True)}"'
        for key, val in attrs.items()
        if val is not None
    )
    tail = "\n" if element in _BLOCK else ""
    if element in _VOID:
        return Markup(f"<{element}{rendered}>{tail}")
    return Markup(f"<{element}{rendered}>{join(children)}</{element}>{tail}")


def p(*children: object, **attrs: object) -> Markup:
    return tag("p", *children, **attrs)


def a(href: str, text: object, **attrs: object) -> Markup:
    return tag("a", text, href=href, **attrs)


def h(level: int, text: object, **attrs: object) -> Markup:
    return tag(f"h{level}", text, **attrs)


def ul(items: Iterable[object], ordered: bool = False, **attrs: object) -> Markup:
    return tag("ol" if ordered else "ul", Markup("\n"), *(tag("li", i) for i in items), **attrs)


def table(
    caption: object,
    head: Sequence[object],
    rows: Iterable[Sequence[object]],
    row_headers: bool = False,
    **attrs: object,
) -> Markup:
    """A data table with caption and thead; ``row_headers`` makes each row's first cell a <th>."""
    thead = tag("thead", tag("tr", *(tag("th", c, scope="col") for c in head)))
    body_rows = []
    for row in rows:
        cells = [
            tag("th", c, scope="row") if (row_headers and i == 0) else tag("td", c)
            for i, c in enumerate(row)
        ]
        body_rows.append(tag("tr", *cells))
    return tag("table", tag("caption", caption), thead, tag("tbody", *body_rows), **attrs)


def section(*children: object, **attrs: object) -> Markup:
    return tag("section", Markup("\n"), *children, **attrs)
