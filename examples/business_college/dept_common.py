"""What every department page shares: URLs, the left menu, crumbs and the year selector."""

from __future__ import annotations

from examples.site_kit.markup import Markup, a, join, tag

from .catalog import Department, Period, periods_for, requirement_pages
from .chrome import Crumbs, SideMenu
from .model import applies
from .pages import Page
from .wording import cohort

SOURCE = "department-pages"


def dept_path(dept: Department, page: str, period: Period | None = None, campus: str | None = None) -> str:
    """``/major/business/require.php?year=2022&campus=sejong``: one page per period (and campus)."""
    query = [f"year={period.key}"] if period else []
    query += [f"campus={campus}"] if campus else []
    return f"/major/{dept.slug}/{page}.php" + ("?" + "&".join(query) if query else "")


def period_page(dept: Department, page: str, period: Period, campus: str | None = None) -> tuple[Page, str]:
    """The department's ``page`` for one curriculum period (and campus), applying to those cohorts
    only, and its phrase naming them: the first words drawn from the page's generator."""
    limits = applies(major=dept.code, campus=campus, entry_year=(period.first, period.last))
    pg = Page(dept_path(dept, page, period, campus), limits)
    return pg, cohort(period.first, period.last, pg.rng)


def side_menu(dept: Department) -> SideMenu:
    newest = periods_for(dept)[-1]
    campus = requirement_pages(dept)[0]
    return (dept.name, [
        (dept_path(dept, "intro"), "학과소개"), (dept_path(dept, "professor"), "교수진"),
        (dept_path(dept, "curriculum", newest), "교육과정"), (dept_path(dept, "require", newest, campus), "졸업요건"),
        (dept_path(dept, "cert", newest), "전공역량 인증"), (dept_path(dept, "exam", newest), "졸업시험"),
        (dept_path(dept, "career"), "진로·취업"),
    ])


def crumbs(dept: Department, *rest: tuple[str, str | None]) -> Crumbs:
    return [("학과·전공", "/major/index.php"), (dept.name, dept_path(dept, "intro")), *rest]


# Curricula of the cohorts before the 2017 reorganization live only on the old site (legacy.py).
LEGACY_CURRICULA = {"BUS": "/old/curri_bus.htm", "ECN": "/old/curri_econ.htm"}


def is_legacy(dept: Department, page: str, period: Period) -> bool:
    return page == "curriculum" and dept.code in LEGACY_CURRICULA and period == periods_for(dept)[0]


def year_selector(dept: Department, current: Period, page: str, campus: str | None = None) -> Markup:
    """The "입학년도 선택" row of links to the other periods' pages of the same kind."""
    links = []
    for q in periods_for(dept):
        if q == current:
            links.append(tag("li", tag("strong", f"{q.label}학년도")))
        elif is_legacy(dept, page, q):
            links.append(tag("li", a(LEGACY_CURRICULA[dept.code], f"{q.label}학년도(구 홈페이지)")))
        else:
            links.append(tag("li", a(dept_path(dept, page, q, campus), f"{q.label}학년도")))
    return tag("div", tag("span", "입학년도 선택", class_="label"), tag("ul", *links), class_="year-select")


def campus_switch(dept: Department, period: Period, current: str) -> Markup:
    links = [a(dept_path(dept, "require", period, c), f"{'서울' if c == 'seoul' else '세종'}캠퍼스 기준")
             for c in dept.campuses if c != current]
    return tag("p", "다른 캠퍼스: ", join(links, " · "), class_="campus-switch")
