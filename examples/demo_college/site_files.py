"""Files every build has besides documents: robots.txt, the stylesheet and the admin page."""

from __future__ import annotations

import datetime

from examples.site_kit.markup import join, p, tag

from .layout import STYLESHEET, render
from .model import Output

ROBOTS = """\
# 한빛대학교 정보대학
User-agent: *
Disallow: /admin/
"""


def build(out: Output, as_of: datetime.date) -> None:
    out.add_file("/robots.txt", ROBOTS)
    out.add_file("/assets/site.css", STYLESHEET)
    # Linked from every footer and disallowed by robots.txt: a polite crawler never fetches it.
    login = tag("form", tag("p", tag("label", "아이디 ", tag("input", name="user"))),
                tag("p", tag("label", "비밀번호 ", tag("input", name="password", type="password"))),
                method="post", action="/admin/")
    out.add_file("/admin/", render("관리자 로그인", [("관리자", None)],
                                   join([p("홈페이지 관리자 전용 페이지입니다."), login]), as_of))
