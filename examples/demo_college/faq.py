"""FAQ pages under /faq/: each entry is a source of its own, addressed by ``page#id``.

Markup: ``<dl class="faq"><div class="faq-item" id="..."><dt>Q</dt><dd>A</dd></div>...</dl>``.
One page (general.html) has no ids, so its entries are addressed ``#faq-N`` (1-based position).
"""

from __future__ import annotations

import datetime

from examples.site_kit.markup import a, join, p, tag, ul

from .catalog import DEPARTMENTS
from .faq_entries import PAGES, Entry, department, shared
from .layout import render
from .model import Doc, Output

SOURCE = "faq"
CRUMB = ("자주 묻는 질문", "/faq/")


def _pages() -> list[tuple[str, str, list[Entry], str | None]]:
    sh = shared()
    pages = [(file, title, build(sh), prefix) for file, title, build, prefix in PAGES]
    pages += [(f"{d.slug}.html", d.name, department(d), d.slug) for d in DEPARTMENTS]
    return pages


def _nav(pages, current: str):
    links = [tag("li", a(f"/faq/{file}", title) if file != current else tag("strong", title)) for file, title, _, _ in pages]
    return tag("nav", tag("ul", *links), class_="faq-nav", aria_label="FAQ 분류")


def build(out: Output, as_of: datetime.date) -> None:
    pages = _pages()
    first_copy: dict[str, str] = {}  # share key -> path of the entry's first appearance
    for file, title, entries, prefix in pages:
        items = []
        for n, entry in enumerate(entries, 1):
            anchor = f"{prefix}-{n:02d}" if prefix else f"faq-{n}"
            path = f"/faq/{file}#{anchor}"
            items.append(tag("div", tag("dt", entry.question), tag("dd", entry.answer), class_="faq-item",
                             id=anchor if prefix else None))
            original = first_copy.setdefault(entry.share, path) if entry.share else path
            out.docs.append(Doc(path=path, source=SOURCE, kind="faq", title=entry.question, topic=entry.topic,
                                applies_to=entry.applies_to, duplicate_of=None if original == path else original))
        heading = f"자주 묻는 질문: {title}" if prefix not in {d.slug for d in DEPARTMENTS} else f"{title} 자주 묻는 질문"
        body = join([
            _nav(pages, file),
            p(f"{title} 관련 자주 묻는 질문 {len(entries)}개입니다. 답변은 입학년도·학년·학적 상태에 따라 다를 수 있으니 "
              "본인에게 해당하는 내용을 확인하세요."),
            tag("dl", *items, class_="faq"),
            p("찾는 답이 없으면 학사지원팀(02-3290-3010)이나 학과 사무실로 문의하세요."),
        ])
        out.add_file(f"/faq/{file}", render(heading, [CRUMB, (title, None)], body, as_of))
    index = join([p("분류를 선택하세요."), ul([a(f"/faq/{file}", f"{title} ({len(entries)})") for file, title, entries, _ in pages])])
    out.add_file("/faq/", render("자주 묻는 질문", [("자주 묻는 질문", None)], index, as_of))
