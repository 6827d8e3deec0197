"""The two boards (학사공지, 장학·취업): posts of the three years before ``as_of`` at
``/bbs/view.php?bo=<board>&no=<n>``, listed 10 a page at ``/bbs/list.php?bo=<board>&page=<p>``.

The post's date is text in a list item ("등록일 2026.11.03"), never a ``<time>``; its title is an
``h3.view-subject`` inside the post while the page's own title is the board's name. Numbers come
from (year, kind), so a post keeps its URL from one month's build to the next.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from examples.site_kit.board import Post as BoardPost
from examples.site_kit.board import postings_shown
from examples.site_kit.markup import Markup, a, join, tag

from .chrome import bullets, para, table
from .model import Doc, Output
from .notice_kinds import ANNUAL, BOARDS, Draft
from .pages import Page
from .wording import pick, rng_for

SOURCE = "notices"
PER_PAGE = 10
EPOCH = 2010  # numbering origin
EXPIRE_DAYS = 365  # expire_after_days in institution.yaml
YEARS = 3  # the boards show three years
PINNED_RANK = 2  # the registration schedule stays pinned above the list


@dataclass(frozen=True)
class Post(BoardPost):
    draft: Draft
    board: str
    rank: int  # the kind's place in its board's year

    @property
    def path(self) -> str:
        return f"/bbs/view.php?bo={self.board}&no={self.number}"


def posts(as_of: datetime.date) -> list[Post]:
    """Every post on the boards at ``as_of``, oldest first."""
    out = []
    per_board = {b: [k for k in ANNUAL if k[3] == b] for b in BOARDS}
    for name, kinds in per_board.items():
        dates = [(month, day) for month, day, _, _ in kinds]
        for year, rank, date in postings_shown(as_of, YEARS, dates, EXPIRE_DAYS, _kept):
            number = (year - EPOCH) * len(kinds) + rank + 1
            rng = rng_for(f"post:{name}:{number}")
            out.append(Post(number, date, kinds[rank][2](date, rng), rng.randint(35, 2900), board=name, rank=rank))
    return sorted(out, key=lambda p: (p.date, p.board, p.number))


def _kept(rank: int, age: int) -> bool:
    """Older posts were mostly cleaned up: past expiry, every second kind is kept in the second
    year, every third in the third."""
    return rank % (2 if age <= 2 * 365 else 3) == 0


def _list_href(board: str, page: int) -> str:
    return f"/bbs/list.php?bo={board}" + (f"&page={page}" if page > 1 else "")


def _body(post: Post, prev: Post | None, nxt: Post | None) -> Markup:
    draft, rng = post.draft, rng_for(f"post-body:{post.board}:{post.number}")
    info = tag("ul", tag("li", tag("span", "작성자"), f" {draft.author}", class_="writer"),
               tag("li", tag("span", "등록일"), " " + post.date.strftime("%Y.%m.%d")
                   + (f" {9 + post.number % 8:02d}:{post.number * 7 % 60:02d}" if post.number % 3 == 0 else ""), class_="date"),
               tag("li", tag("span", "조회"), f" {post.views:,}", class_="hit"), class_="view-info")
    parts = [para(draft.intro)]
    if draft.details:
        if rng.random() < 0.5:
            parts.append(table("세부 내용", ["구분", "내용"], [list(d) for d in draft.details], row_headers=True))
        else:
            parts.append(bullets([f"{k}: {v}" for k, v in draft.details]))
    parts += [tag("p", "※ ", n, class_="txt-note") for n in draft.notes]
    parts.append(para(pick(rng, f"문의: {draft.author}", "학생 여러분의 많은 관심 바랍니다.", "기한을 꼭 지켜 주시기 바랍니다.")))
    nav = [tag("li", tag("span", "이전글"), " ", a(prev.path, prev.draft.title)) if prev else None,
           tag("li", tag("span", "다음글"), " ", a(nxt.path, nxt.draft.title)) if nxt else None]
    attach = tag("div", tag("span", "첨부파일"), " ",
                 tag("a", "신청서.hwp", href=f"javascript:fileDown('{post.board}','{post.number}')"), class_="view-file")
    return tag("div", Markup("\n"),
               tag("div", tag("h3", draft.title, class_="view-subject"), info, class_="view-head"),
               tag("div", Markup("\n"), *parts, class_="view-cont"),
               attach if post.number % 4 == 0 else None,
               tag("div", a(_list_href(post.board, 1), "목록"), class_="view-btn"),
               tag("ul", *(n for n in nav if n is not None), class_="view-nav"), class_="bbs-view")


def _list_page(out: Output, as_of, board: str, rows: list[Post], pinned: list[Post], page: int, pages: int,
               total: int) -> None:
    def row(post: Post, pin: bool) -> Markup:
        number = tag("span", "공지", class_="ico-notice") if pin else str(post.number)
        return tag("tr", tag("td", number), tag("td", a(post.path, post.draft.title), class_="subject"),
                   tag("td", post.draft.author), tag("td", post.date.strftime("%Y.%m.%d"), class_="date"),
                   tag("td", f"{post.views:,}"), class_="notice" if pin else None)

    body = join([
        tag("p", "전체 ", tag("strong", str(total)), "건", class_="total"),
        tag("table", tag("caption", f"{BOARDS[board]} 목록"),
            tag("thead", tag("tr", *(tag("th", h, scope="col") for h in ("번호", "제목", "작성자", "등록일", "조회")))),
            tag("tbody", *[row(p, True) for p in pinned], *[row(p, False) for p in rows]), class_="bbs-list"),
        tag("div", *(tag("strong", str(n)) if n == page else a(_list_href(board, n), str(n)) for n in range(1, pages + 1)),
            class_="paging"),
    ])
    pg = Page(_list_href(board, page))
    pg.add(body)
    pg.publish(out, as_of, source=None, title=BOARDS[board], crumbs=[(BOARDS[board], None)])


def build(out: Output, as_of: datetime.date) -> list[tuple[str, str, str]]:
    """Write both boards; returns the five newest posts as (href, title, date) for the home page."""
    every = posts(as_of)
    for board in BOARDS:
        board_posts = [p for p in every if p.board == board]
        newest_first = board_posts[::-1]
        pinned = [p for p in newest_first if p.rank == PINNED_RANK][:1] if board == "notice" else []
        pages = max(1, -(-len(newest_first) // PER_PAGE))
        for page in range(1, pages + 1):
            _list_page(out, as_of, board, newest_first[(page - 1) * PER_PAGE: page * PER_PAGE], pinned, page, pages,
                       len(board_posts))
        for i, post in enumerate(board_posts):
            prev = board_posts[i - 1] if i else None
            nxt = board_posts[i + 1] if i + 1 < len(board_posts) else None
            pg = Page(post.path)
            pg.add(_body(post, prev, nxt))
            pg.publish(out, as_of, source=None, title=BOARDS[board], crumbs=[(BOARDS[board], _list_href(board, 1))])
            out.docs.append(Doc(path=post.path, source=SOURCE, kind="board", title=post.draft.title,
                                topic=post.draft.topic, applies_to=post.draft.applies_to, date=post.date.isoformat(),
                                expired=(as_of - post.date).days > EXPIRE_DAYS))
    newest = sorted(every, key=lambda p: p.date, reverse=True)[:5]
    return [(p.path, p.draft.title, p.date.strftime("%Y.%m.%d")) for p in newest]
