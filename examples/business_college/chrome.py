"""Page chrome of the college's CMS: ``div#wrap`` > ``div#header`` (logo, ``ul.gnb``), a left menu
``div#lnb``, ``div#contents`` with a ``div.location`` trail, the page title in
``div.sub-title h2`` and the content in ``div.cont_area``, then ``div#footer``.

No ``<main>``, ``<nav>``, ``<header>`` or ``<footer>`` element anywhere (an older template than the
demo college's): a cleaner has to be told where the content is.
"""

from __future__ import annotations

import datetime

from examples.site_kit import markup
from examples.site_kit import updated as stamp
from examples.site_kit.markup import Markup, a, join, tag

SITE_NAME = "새빛대학교 경영경제대학"
SITE_NAME_EN = "Saebit University College of Business & Economics"
FOOTER = ("서울캠퍼스 (02707) 서울특별시 성북구 새빛로 88 상경관 · 02-940-2000",
          "세종캠퍼스 (30016) 세종특별자치시 조치원읍 새빛길 12 글로벌관 · 044-860-2000")

MENU = (  # (href, Korean, English)
    ("/college/greeting.php", "대학소개", "About"),
    ("/haksa/calendar.php", "학사안내", "Academics"),
    ("/major/index.php", "학과·전공", "Departments"),
    ("/bbs/list.php?bo=notice", "학사공지", "Notices"),
    ("/bbs/list.php?bo=career", "장학·취업", "Scholarships & Careers"),
    ("/bbs/list.php?bo=major", "학과소식", "Department News"),
    ("/guide/faq.php?cat=haksa", "FAQ", "FAQ"),
    ("/data/index.php", "자료실", "Documents"),
    ("/eng/index.html", "ENGLISH", "ENGLISH"),
)

Crumbs = list[tuple[str, str | None]]  # (label, href) after HOME; the last one is the page itself
SideMenu = tuple[str, list[tuple[str, str]]]  # (menu title, [(href, label)])


def _gnb(english: bool) -> Markup:
    return tag("ul", Markup("\n"), *(tag("li", a(href, en if english else ko)) for href, ko, en in MENU), class_="gnb")


def _location(crumbs: Crumbs, english: bool) -> Markup:
    parts: list[object] = [tag("span", a("/index.php", "HOME"), class_="home")]
    for i, (label, href) in enumerate(crumbs):
        parts.append(" > ")
        last = i == len(crumbs) - 1
        parts.append(tag("strong", label) if last else tag("span", a(href, label) if href else label))
    return tag("div", *parts, class_="location")


def _lnb(side: SideMenu | None, current: str) -> Markup | None:
    if side is None:
        return None
    title, links = side
    items = [tag("li", a(href, label), class_="on" if href == current else None) for href, label in links]
    return tag("div", tag("h2", title, class_="lnb-title"), tag("ul", Markup("\n"), *items), id="lnb")


def _page_info(updated: datetime.date) -> Markup:
    """The CMS's "page manager" box under the content (outside ``div.cont_area``: the cleaned text
    does not change): the office in charge and the day the page was last revised."""
    return tag("div", tag("span", "담당부서: 학사지원팀", class_="dept"), " | ",
               tag("span", "최종수정일 : ", tag("em", stamp.korean(updated)), class_="date"), class_="page-manager")


def render(path: str, title: str, crumbs: Crumbs, body: Markup, as_of: datetime.date, *,
           side: SideMenu | None = None, lang: str = "ko", updated: datetime.date | None = None) -> str:
    """A whole page; ``body`` goes into ``div.cont_area`` under the page's title; ``updated``: the
    day the page says it was last revised (none said when None)."""
    english = lang == "en"
    site = SITE_NAME_EN if english else SITE_NAME
    head = tag("head", tag("meta", charset="utf-8"),
               tag("meta", http_equiv="X-UA-Compatible", content="IE=edge"),
               tag("title", f"{title} - {site}"),
               tag("link", rel="stylesheet", href="/common/css/sub.css"))
    header = tag("div", tag("h1", a("/index.php", site), class_="logo"), _gnb(english),
                 tag("div", a("/eng/index.html", "ENG") if not english else a("/index.php", "KOR"), " ",
                     a("/admin/login.php", "관리자"), class_="util"), id="header")
    contents = tag("div", _location(crumbs, english), tag("div", tag("h2", title), class_="sub-title"),
                   tag("div", Markup("\n"), body, class_="cont_area"),
                   _page_info(updated) if updated is not None else None, id="contents")
    container = tag("div", Markup("\n"), _lnb(side, path), contents, id="container")
    footer = tag("div", *(tag("p", line, class_="addr") for line in FOOTER),
                 tag("p", f"COPYRIGHT © {as_of.year} SAEBIT UNIVERSITY. ALL RIGHTS RESERVED.", class_="copy"),
                 id="footer")
    skip = tag("div", a("#container", "Skip to content" if english else "본문 바로가기"), id="skip")
    page = tag("body", Markup("\n"), skip, tag("div", Markup("\n"), header, container, footer, id="wrap"))
    return "<!DOCTYPE html>\n" + tag("html", Markup("\n"), head, page, lang=lang)


def table(caption: object, head: list[object], rows: list[list[object]], *, row_headers: bool = False,
          cls: str = "tbl-type01") -> Markup:
    """A data table in this CMS's class; ``row_headers`` makes each row's first cell a th."""
    return markup.table(caption, head, rows, row_headers, class_=cls)


def h3(text: str) -> Markup:
    return tag("h3", text, class_="tit-dep3")


def h4(text: str) -> Markup:
    return tag("h4", text, class_="tit-dep4")


def bullets(items: list[object]) -> Markup:
    return markup.ul(items, class_="list-dot")


para = markup.p


def notes(items: list[object]) -> Markup:
    """"※" remarks, as a paragraph per line (not a list)."""
    return join(tag("p", "※ ", i, class_="txt-note") for i in items)


STYLESHEET = """\
body { font-family: "Nanum Gothic", "Malgun Gothic", sans-serif; margin: 0; color: #333; }
#header { background: #123b2c; color: #fff; padding: 10px 30px; }
#header a { color: #fff; text-decoration: none; }
.gnb { list-style: none; display: flex; gap: 24px; padding: 0; }
#container { display: flex; max-width: 1200px; margin: 0 auto; }
#lnb { width: 200px; border-right: 1px solid #ddd; }
#contents { flex: 1; padding: 20px 30px 60px; line-height: 1.75; }
.location { font-size: 12px; color: #888; }
.sub-title h2 { font-size: 26px; border-bottom: 2px solid #123b2c; }
.tbl-type01 { border-collapse: collapse; width: 100%; border-top: 2px solid #123b2c; }
.tbl-type01 th, .tbl-type01 td { border: 1px solid #ddd; padding: 6px 10px; }
.txt-note { color: #b00; font-size: 13px; }
.faq-a[hidden] { display: none; }
#footer { background: #2d2d2d; color: #bbb; padding: 20px 30px; font-size: 12px; }
#skip a { position: absolute; left: -9999px; }
"""
