"""FAQ pages at ``/guide/faq.php?cat=<category>``: an accordion of ``article.faq-item`` elements,
the question a ``<button>`` inside an ``h3``, the answer a ``div.faq-a`` (collapsed with
``hidden``). Items carry an id on most pages; the campus page has none (its URLs are ``#faq-N``),
and on the international page some items have one and some do not."""

from __future__ import annotations

import datetime
import re

from examples.site_kit.markup import Markup, a, tag

from .chrome import para
from .faq_entries import PAGES, Entry
from .model import Doc, Output
from .pages import Page

SOURCE = "faq"


def faq_path(cat: str) -> str:
    return f"/guide/faq.php?cat={cat}"


def _menu(current: str) -> Markup:
    items = [tag("li", a(faq_path(cat), title), class_="on" if cat == current else None) for cat, title, _, _ in PAGES]
    return tag("div", tag("ul", *items), class_="faq-cate")


def _item(entry: Entry, anchor: str | None) -> Markup:
    question = tag("h3", tag("button", tag("span", "Q", class_="ico-q", aria_hidden="true"), entry.question,
                             type="button", class_="btn-toggle", aria_expanded="false"), class_="faq-q")
    answer = tag("div", tag("span", "A", class_="ico-a", aria_hidden="true"), entry.answer, class_="faq-a", hidden="hidden")
    return tag("article", question, answer, class_="faq-item", id=anchor)


def _anchor(prefix: str, n: int, entry: Entry) -> str | None:
    return f"{prefix}-{n:02d}" if prefix and entry.anchored else None


def _path(cat: str, prefix: str, n: int, entry: Entry) -> str:
    """``page#id``, or ``page#faq-N`` (N the 1-based position) for an item without an id."""
    return f"{faq_path(cat)}#{_anchor(prefix, n, entry) or f'faq-{n}'}"


def _lang(entry: Entry) -> str:
    return "en" if not re.search(r"[가-힣]", entry.question) else "ko"


def build(out: Output, as_of: datetime.date) -> None:
    pages = [(cat, title, make(), prefix) for cat, title, make, prefix in PAGES]
    copies: dict[str, list[str]] = {}  # share key -> paths of its copies
    seen: dict[tuple[str, str], str | None] = {}  # (question, answer) -> share key
    for cat, _, entries, prefix in pages:
        for n, entry in enumerate(entries, 1):
            if entry.share:
                copies.setdefault(entry.share, []).append(_path(cat, prefix, n, entry))
            text = (entry.question, str(entry.answer))
            if text in seen and (seen[text] is None or seen[text] != entry.share):
                # a verbatim repeat is consolidated by the pipeline: the manifest must say so
                raise ValueError(f"FAQ entry repeated without a share key: {entry.question}")
            seen[text] = entry.share
    for cat, title, entries, prefix in pages:
        items = []
        for n, entry in enumerate(entries, 1):
            anchor = _anchor(prefix, n, entry)
            path = _path(cat, prefix, n, entry)
            items.append(_item(entry, anchor))
            original = min(copies[entry.share]) if entry.share else path
            out.docs.append(Doc(path=path, source=SOURCE, kind="faq", title=entry.question, topic=entry.topic,
                                applies_to=entry.applies_to, lang=_lang(entry),
                                duplicate_of=None if original == path else original))
        pg = Page(faq_path(cat))
        pg.add(_menu(cat), para(f"{title} 분야 자주 묻는 질문 {len(entries)}건입니다. 질문을 누르면 답변이 열립니다."),
               tag("div", Markup("\n"), *items, class_="faq-wrap"),
               para("원하는 답이 없으면 소속 캠퍼스 행정실로 문의하세요."))
        pg.publish(out, as_of, source=None, title=f"자주 묻는 질문 - {title}", crumbs=[("FAQ", faq_path("haksa")), (title, None)])
