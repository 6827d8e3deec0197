"""An FAQ page -> one entry per question, each a source of its own (docs/contracts.md §3).

An entry's URL is the page URL + ``#`` + the item element's ``id``, or ``#faq-N`` (N its 1-based
position among the page's FAQ items) when it has none; benchmarks cite entries by that URL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urldefrag

from selectolax.lexbor import LexborHTMLParser, LexborNode

from advisor.config import Selectors
from advisor.ingest.html_text import css, css_first, flatten_deep, inline_text, remove_boilerplate, render_text, same

# Tried in order when the source sets no faq_item; the first that matches anything wins.
DEFAULT_ITEMS = ("dl.faq > div", ".faq-item", "details")
# Headings come last: a card-style item often has only "<h3>question</h3><p>answer</p>".
DEFAULT_QUESTION = "dt, summary, .question, .faq-q"
FALLBACK_QUESTION = "h2, h3, h4, h5, h6"
DEFAULT_ANSWER = "dd, .answer, .faq-a"

# "Q. ", "Q:", and a "Q" badge element glued to a Korean question ("Q휴학은 ...").
_Q_PREFIX = re.compile(r"^(?:Q\s*[.:)]|Q\s+|Q(?=[\uac00-\ud7a3])|질문\s*[.:)])\s*", re.I)
_A_PREFIX = re.compile(r"^(?:A\s*[.:)]|답변\s*[.:)])\s*", re.I)


@dataclass(frozen=True)
class FaqEntry:
    url: str
    anchor: str
    position: int
    question: str
    answer: str


@dataclass
class _Item:
    """One FAQ item: the element whose id names it, and where its question and answer are."""

    element: LexborNode
    question: LexborNode | None
    answers: list[LexborNode]  # empty: the answer is the element minus its question


def _outermost(nodes: list[LexborNode]) -> list[LexborNode]:
    """Drop matches nested inside other matches (a <details> inside an answer is not an item)."""
    ids = {node.mem_id for node in nodes}
    result = []
    for node in nodes:
        parent = node.parent
        while parent is not None and parent.mem_id not in ids:
            parent = parent.parent
        if parent is None:
            result.append(node)
    return result


def _question_of(element: LexborNode, selector: str | None) -> LexborNode | None:
    if selector:
        return css_first(element, selector)
    return css_first(element, DEFAULT_QUESTION) or css_first(element, FALLBACK_QUESTION)


def _items_by_selector(root: LexborNode, selectors: Selectors) -> list[_Item]:
    candidates = (selectors.faq_item,) if selectors.faq_item else DEFAULT_ITEMS
    for item_selector in candidates:
        elements = _outermost(css(root, item_selector))
        if elements:
            answer_selector = selectors.faq_answer or DEFAULT_ANSWER
            return [
                _Item(el, _question_of(el, selectors.faq_question), css(el, answer_selector)[:1])
                for el in elements
            ]
    return []


def _items_from_dl(root: LexborNode) -> list[_Item]:
    """Every dt with the dd(s) after it, in the page's dl lists."""
    items: list[_Item] = []
    for dl in _outermost(css(root, "dl")):
        current: _Item | None = None
        for part in _dl_children(dl):
            if part.tag == "dt":
                current = _Item(part, part, [])
                items.append(current)
            elif current is not None:
                current.answers.append(part)
    return items


def _dl_children(dl: LexborNode):
    for child in dl.iter():
        if child.tag in ("dt", "dd"):
            yield child
        elif child.tag == "div":
            yield from _dl_children(child)


def _question_text(node: LexborNode) -> str:
    """The question's text. Accordions put it in the toggle ``<button>`` ("<h3><button>Q
    휴학은 …</button></h3>"), whose text the page renderer skips as a control label: here the
    button IS the question, so buttons inside the question element are read as plain text."""
    for button in css(node, "button"):
        button.unwrap()
    return inline_text(node)


def _answer_text(item: _Item) -> str:
    if item.answers:
        text = "\n\n".join(t for t in (render_text(a) for a in item.answers) if t)
    elif item.question is not None and not same(item.question, item.element):
        # e.g. <details>: everything but the <summary> is the answer.
        item.question.decompose()
        item.question = None
        text = render_text(item.element)
    else:
        return ""
    return _A_PREFIX.sub("", text).strip()


def split_faq(html: str, page_url: str, selectors: Selectors) -> list[FaqEntry]:
    """The page's Q/A pairs, in page order; empty when the page has none.

    Items with an empty question or answer are skipped but keep their position, so ``#faq-N``
    always means the N-th item element on the page.
    """
    tree = LexborHTMLParser(html)
    root = tree.body or tree.root
    flatten_deep(tree.root)
    remove_boilerplate(root, selectors.remove)  # an accordion menu in <nav> is not an FAQ
    items = _items_by_selector(root, selectors)
    if not items and not selectors.faq_item:
        items = _items_from_dl(root)

    base = urldefrag(page_url).url
    entries = []
    for position, item in enumerate(items, start=1):
        anchor = (item.element.attributes.get("id") or "").strip() or f"faq-{position}"
        question = _question_text(item.question) if item.question is not None else ""
        question = _Q_PREFIX.sub("", question).strip()
        answer = _answer_text(item) if question else ""
        if question and answer:
            entries.append(FaqEntry(f"{base}#{anchor}", anchor, position, question, answer))
    return entries
