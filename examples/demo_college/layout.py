"""Site-wide page chrome: header with the global menu, breadcrumb, footer.

All boilerplate lives outside ``<main id="content">``; a cleaner keeps ``main#content`` and drops
``header``, ``nav.gnb``, ``nav.breadcrumb`` and ``footer``.
"""

from __future__ import annotations

import datetime

from examples.site_kit import updated as stamp
from examples.site_kit.markup import Markup, a, tag

SITE_NAME = "한빛대학교 정보대학"
SITE_NAME_EN = "Hanbit University College of Informatics"
ADDRESS = "서울특별시 성북구 한빛로 145 한빛대학교 정보관 (우 02841)"
PHONE = "02-3290-3000"
FAX = "02-3290-3009"

MENU = (
    ("/index.html", "홈", "Home"),
    ("/about/", "대학소개", "About"),
    ("/academics/", "학사안내", "Academics"),
    ("/departments/", "학과", "Departments"),
    ("/regulations/", "규정·자료실", "Regulations"),
    ("/board/", "공지사항", "Notices"),
    ("/faq/", "자주 묻는 질문", "FAQ"),
    ("/en/", "English", "English"),
)
FOOTER_LINKS = (
    ("/about/privacy.html", "개인정보처리방침", "Privacy policy"),
    ("/about/location.html", "오시는 길", "Directions"),
    ("/about/organization.html", "행정조직", "Offices"),
    ("/admin/", "관리자", "Admin"),  # robots.txt disallows it: a polite crawler never fetches it
)

Crumbs = list[tuple[str, str | None]]  # (label, href); the last crumb is the current page


def _gnb(english: bool) -> Markup:
    items = [tag("li", a(href, en if english else ko)) for href, ko, en in MENU]
    label = "Main menu" if english else "주 메뉴"
    return tag("nav", tag("ul", Markup("\n"), *items), class_="gnb", aria_label=label)


def _breadcrumb(crumbs: Crumbs, english: bool) -> Markup:
    home = ("Home" if english else "홈", "/index.html")
    items = []
    trail = [home, *crumbs]
    for i, (label, href) in enumerate(trail):
        last = i == len(trail) - 1
        items.append(tag("li", label if (last or not href) else a(href, label),
                         aria_current="page" if last else None))
    label = "You are here" if english else "현재 위치"
    return tag("nav", tag("ol", Markup("\n"), *items), class_="breadcrumb", aria_label=label)


def _footer(as_of: datetime.date, english: bool) -> Markup:
    links = [tag("li", a(href, en if english else ko)) for href, ko, en in FOOTER_LINKS]
    return tag(
        "footer",
        tag("ul", Markup("\n"), *links, class_="footer-links"),
        tag("address", f"{ADDRESS} · 대표전화 {PHONE} · 팩스 {FAX}"),
        tag("p", f"© {as_of.year} {SITE_NAME_EN}. All rights reserved.", class_="copyright"),
        class_="site-footer",
    )


def _page_info(updated: datetime.date, english: bool) -> Markup:
    """The office and the day a page was last revised, below the content (outside ``main``, as on
    real university sites: the cleaned text does not change)."""
    if english:
        return tag("div", tag("p", f"Office in charge: Academic Affairs · Last updated: {stamp.english(updated)}"),
                   class_="page-info")
    return tag("div", tag("p", f"담당부서: 정보대학 학사지원팀 · 최종수정일: {stamp.korean(updated)}"), class_="page-info")


def render(
    title: str,
    crumbs: Crumbs,
    body: Markup,
    as_of: datetime.date,
    lang: str = "ko",
    heading: str | None = None,
    updated: datetime.date | None = None,
) -> str:
    """A whole page; ``body`` is the main content after the page's single <h1>; ``updated``: the
    day the page says it was last revised (none said when None)."""
    english = lang == "en"
    site = SITE_NAME_EN if english else SITE_NAME
    head = tag(
        "head",
        tag("meta", charset="utf-8"),
        tag("meta", name="viewport", content="width=device-width, initial-scale=1"),
        tag("title", f"{title} | {site}"),
        tag("link", rel="stylesheet", href="/assets/site.css"),
    )
    header = tag(
        "header",
        tag("p", a("/index.html", site), class_="site-name"),
        _gnb(english),
        class_="site-header",
    )
    main = tag("main", Markup("\n"), tag("h1", heading or title), body, id="content")
    skip = tag("a", "Skip to content" if english else "본문 바로가기", href="#content", class_="skip")
    info = _page_info(updated, english) if updated is not None else None
    page = tag("body", Markup("\n"), skip, Markup("\n"), header, _breadcrumb(crumbs, english),
               main, info, _footer(as_of, english))
    return "<!DOCTYPE html>\n" + tag("html", Markup("\n"), head, page, lang=lang)


STYLESHEET = """\
body { font-family: "Noto Sans KR", "Malgun Gothic", sans-serif; margin: 0; color: #222; }
.site-header { background: #0b3d6e; color: #fff; padding: 0.8rem 1.5rem; }
.site-header a { color: #fff; text-decoration: none; }
.gnb ul { list-style: none; display: flex; gap: 1.2rem; padding: 0; margin: 0.4rem 0 0; }
.breadcrumb ol { list-style: none; display: flex; gap: 0.4rem; padding: 0.6rem 1.5rem; margin: 0; }
.breadcrumb li + li::before { content: ">"; margin-right: 0.4rem; color: #888; }
main { max-width: 960px; margin: 0 auto; padding: 1rem 1.5rem 3rem; line-height: 1.7; }
table { border-collapse: collapse; margin: 1rem 0; width: 100%; }
caption { text-align: left; font-weight: bold; padding: 0.3rem 0; }
th, td { border: 1px solid #ccc; padding: 0.35rem 0.6rem; text-align: left; }
thead th { background: #eef3f8; }
dl.faq dt { font-weight: bold; margin-top: 1.2rem; }
dl.faq dd { margin-left: 1.2rem; }
.post-meta { color: #666; font-size: 0.9rem; }
.page-info { max-width: 960px; margin: 0 auto; padding: 0 1.5rem 1rem; color: #666; font-size: 0.85rem; }
.site-footer { background: #f4f4f4; padding: 1rem 1.5rem; font-size: 0.85rem; color: #555; }
.footer-links { list-style: none; display: flex; gap: 1rem; padding: 0; }
.skip { position: absolute; left: -9999px; }
"""

