"""/old/: the former 상경대학 site, kept as an archive for the cohorts before the 2017 reorganization.

A 2000s template on purpose: EUC-KR bytes (really cp949) declared by ``<meta http-equiv>``, layout
tables, ``<font>`` and ``<b>`` instead of headings, relative links, ``.htm`` file names, and a
``<title>`` that puts the site before the page ("상경대학 :: 교육과정").
"""

from __future__ import annotations

import datetime
from html import escape

from .catalog import DEPT, PERIODS, Department, curriculum
from .model import Doc, Output, applies

SOURCE = "archive"
ENCODING = "cp949"
OLD = PERIODS[0]  # the cohorts the archive is for (2014~2016)
MENU = (("index.htm", "자료실 처음"), ("curri_bus.htm", "경영학부 교육과정"), ("curri_econ.htm", "경제학부 교육과정"),
        ("transition.htm", "교육과정 경과조치"))


def _page(title: str, body: str) -> bytes:
    menu = "<br>\n".join(f'<a href="{href}"><font color="#333333">· {escape(label)}</font></a>' for href, label in MENU)
    html = f"""<html>
<head>
<meta http-equiv="Content-Type" content="text/html; charset=euc-kr">
<title>상경대학 :: {escape(title)}</title>
</head>
<body bgcolor="#FFFFFF" leftmargin="0" topmargin="0" marginwidth="0" marginheight="0">
<table width="900" border="0" cellspacing="0" cellpadding="0" align="center">
<tr><td colspan="2" height="80" bgcolor="#1F4E79"><font color="#FFFFFF" size="5"><b>새빛대학교 상경대학</b></font></td></tr>
<tr>
<td width="180" valign="top" class="leftmenu" bgcolor="#F2F2F2">
{menu}
<br><br><a href="/index.php">경영경제대학 새 홈페이지</a>
</td>
<td width="720" valign="top" id="main_text">
<p class="title"><font size="4"><b>{escape(title)}</b></font></p>
{body}
</td>
</tr>
<tr><td colspan="2" class="copy" align="center"><font size="2" color="#999999">Copyright(c) 새빛대학교 상경대학. All rights reserved.</font></td></tr>
</table>
</body>
</html>
"""
    return html.encode(ENCODING)  # strict: a character cp949 lacks is a bug here, not a '?'


def _table(head: list[str], rows: list[list[str]]) -> str:
    th = "".join(f'<td bgcolor="#DDE6F0" align="center"><b>{escape(h)}</b></td>' for h in head)
    trs = "\n".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table width="100%" border="1" cellspacing="0" cellpadding="4" bordercolor="#CCCCCC">\n<tr>{th}</tr>\n{trs}\n</table>'


def _curriculum(dept: Department) -> tuple[str, str]:
    cur = curriculum(dept, OLD)
    kinds = {"basic": "전공기초", "required": "전공필수", "elective": "전공선택"}
    rows = [[f"{c.year}-{c.semester}", kinds[c.kind], c.name, str(c.credits)]
            for kind in ("basic", "required", "elective") for c in cur[kind]]
    req = cur["required"]
    body = (f"<p>{OLD.first}~{OLD.last}학번 {dept.former} 학생에게 적용되는 전공 교육과정입니다. "
            f"전공필수는 {len(req)}과목 {sum(c.credits for c in req)}학점입니다.</p>\n"
            f"<p><b>■ 교과목 편성표</b></p>\n" + _table(["학년-학기", "이수구분", "교과목명", "학점"], rows) +
            "\n<p><font color=\"#CC0000\">※ 세종캠퍼스 개설 과목은 세종캠퍼스 학사행정팀에 문의하십시오.</font></p>")
    return f"{dept.former} 교육과정 ({OLD.first}~{OLD.last}학번)", body


def build(out: Output, as_of: datetime.date) -> None:
    base = applies(entry_year=(OLD.first, OLD.last))
    pages: list[tuple[str, str, str, dict, str]] = []
    index_body = ("<p>이 자료실은 2016학년도 이전에 입학한 구 상경대학 학생을 위해 남겨 둔 자료입니다. "
                  "2017학년도 이후 입학생은 경영경제대학 새 홈페이지를 이용하십시오.</p>\n"
                  + "<br>\n".join(f'<a href="{href}">{escape(label)}</a>' for href, label in MENU[1:]))
    pages.append(("index.htm", "구 상경대학 자료실", index_body, base, "archive"))
    for code, file in (("BUS", "curri_bus.htm"), ("ECN", "curri_econ.htm")):
        title, body = _curriculum(DEPT[code])
        pages.append((file, title, body, applies(major=code, entry_year=(OLD.first, OLD.last)), "curriculum"))
    transition = [["경영정보시스템(BUS205)", "비즈니스 애널리틱스(BUS305)"], ["경영통계(BUS103)", "비즈니스 통계(BUS103)"],
                  ["경제통계학(ECN203)", "경제데이터분석(ECN203)"], ["경제사(ECN401)", "경제학 캡스톤(ECN402)"]]
    body = ("<p>2016학년도 이전 입학생이 폐지된 과목을 재수강하거나 이수하지 못한 경우 아래 대체 과목으로 이수합니다.</p>\n"
            "<p><b>■ 대체 교과목</b></p>\n" + _table(["폐지 과목", "대체 과목"], transition) +
            "\n<p>졸업학점은 입학 당시 기준(140학점)을 그대로 적용합니다.</p>")
    pages.append(("transition.htm", "교육과정 개편 경과조치", body, base, "curriculum_changes"))
    for file, title, body, applies_to, topic in pages:
        path = f"/old/{file}"
        out.add_file(path, _page(title, body))
        out.docs.append(Doc(path=path, source=SOURCE, kind="html", title=title, topic=topic, applies_to=applies_to))
