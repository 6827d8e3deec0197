"""Files every build has besides documents: robots.txt, the stylesheet, the admin login page."""

from __future__ import annotations

import datetime

from .chrome import STYLESHEET, para
from .model import Output
from .pages import Page

ROBOTS = """\
# 새빛대학교 경영경제대학
User-agent: *
Disallow: /admin/
Disallow: /bbs/search.php
"""


def build(out: Output, as_of: datetime.date) -> None:
    out.add_file("/robots.txt", ROBOTS)
    out.add_file("/common/css/sub.css", STYLESHEET)
    # Linked from every page's header and disallowed by robots.txt: a polite crawler never fetches it.
    pg = Page("/admin/login.php")
    pg.add(para("관리자 전용 페이지입니다."))
    pg.publish(out, as_of, source=None, title="관리자 로그인", crumbs=[("관리자", None)])
