"""The notice board: dated posts over the two years before ``as_of`` and paginated list pages.

Post numbers are derived from (year, kind), not from the build, so a post keeps its URL from one
month's build to the next; later builds only add new posts and drop ones past the window.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from examples.site_kit.board import Post as BoardPost
from examples.site_kit.board import postings_shown
from examples.site_kit.markup import Markup, a, h, join, p, section, table, tag, ul

from .layout import render
from .model import Doc, Output
from .notice_kinds import ANNUAL, Draft
from .phrasing import particle, pick, rng_for

SOURCE = "notices"
PER_PAGE = 12
EPOCH = 2015  # numbering origin: post numbers count kinds per year since then
YEARS = 2  # the board shows two years
EXPIRE_DAYS = 365  # matches expire_after_days in institution.yaml
OLD_KEEP_EVERY = 4  # older posts were mostly cleaned up: only every 4th kind is kept past a year


@dataclass(frozen=True)
class Post(BoardPost):
    draft: Draft

    @property
    def path(self) -> str:
        return f"/board/notice-{self.number:04d}.html"


def posts(as_of: datetime.date) -> list[Post]:
    """The posts on the board at ``as_of``, oldest first."""
    out = []
    dates = [(month, dom) for month, dom, _ in ANNUAL]
    for year, rank, date in postings_shown(as_of, YEARS, dates, EXPIRE_DAYS, _kept):
        number = (year - EPOCH) * len(ANNUAL) + rank + 1
        rng = rng_for(f"notice:{number}")
        out.append(Post(number, date, ANNUAL[rank][2](date, rng), rng.randint(40, 2400)))
    return sorted(out, key=lambda post: post.number)


def _kept(rank: int, _age: int) -> bool:
    return rank % OLD_KEEP_EVERY == 0  # by kind, so it never flickers


# A second paragraph some posts carry, by category, so posts of one kind are not all one template.
EXTRA = {
    "학사": ("처리 결과는 포털의 '학적 변동 내역' 또는 '수강 내역'에서 확인할 수 있습니다.",
             "신청 기간이 지나면 어떠한 경우에도 추가 접수를 받지 않습니다.",
             "자세한 기준은 학사운영규정과 학사안내 페이지를 함께 참고하시기 바랍니다."),
    "장학": ("장학금은 등록금 고지서에서 감면하는 방식으로 지급합니다.",
             "제출 서류가 미비하면 선발에서 제외될 수 있습니다.",
             "다른 교내 장학금과 중복 수혜 시 금액이 큰 장학금 하나만 지급합니다."),
    "현장실습": ("참여 기업 목록은 현장실습지원센터 누리집에서 확인할 수 있습니다.",
                 "실습 종료 후 2주 이내에 실습 보고서를 제출해야 학점이 인정됩니다."),
    "학과": ("행사 관련 문의는 학과 사무실로 해 주세요.", "참석자에게는 비교과 포인트가 부여됩니다."),
    "국제": ("Please contact the International Office if you need this notice in English.",
             "출입국 관련 서류는 국제교류팀에서 발급합니다."),
}


def _facts(draft: Draft, rng) -> Markup:
    if not draft.facts:
        return Markup("")
    if rng.random() < 0.55:
        return table(pick(rng, "세부 내용", "주요 일정", "안내 사항"), ["구분", "내용"],
                     [list(f) for f in draft.facts], row_headers=True)
    return ul([f"{k}: {v}" for k, v in draft.facts])


def _post_body(post: Post, prev: Post | None, nxt: Post | None, list_href: str) -> Markup:
    draft, rng = post.draft, rng_for(f"notice-body:{post.number}")
    meta = tag("p", f"[{draft.category}] 작성자: {draft.author} · 작성일: ",
               tag("time", post.date.strftime("%Y.%m.%d"), datetime=post.date.isoformat()),
               f" · 조회수 {post.views:,}", class_="post-meta")
    parts = [p(draft.intro), _facts(draft, rng)]
    extra = EXTRA.get(draft.category)
    if extra and rng.random() < 0.6:
        parts.append(p(pick(rng, *extra)))
    if draft.notes:
        parts.append(section(h(2, pick(rng, "유의사항", "참고 사항", "알려드립니다")), ul(draft.notes)))
    if draft.link:
        parts.append(p("관련 안내: ", a(*draft.link)))
    parts.append(p(pick(rng, f"문의: {draft.author}", "기간 내에 신청하지 않으면 불이익이 있을 수 있으니 유의하시기 바랍니다.",
                        "학생 여러분의 많은 관심 바랍니다.", f"궁금한 점은 {draft.author}{particle(draft.author, '으로/로')} 문의해 주세요.")))
    nav = [tag("li", "이전글: ", a(prev.path, prev.draft.title)) if prev else None,
           tag("li", "다음글: ", a(nxt.path, nxt.draft.title)) if nxt else None,
           tag("li", a(list_href, "목록"))]
    return join([meta, tag("div", Markup("\n"), *parts, class_="post-body"),
                 tag("nav", tag("ul", *nav), class_="post-nav")])


def _list_href(page: int) -> str:
    return "/board/" if page == 1 else f"/board/page-{page}.html"


def _list_body(rows: list[Post], page: int, pages: int) -> Markup:
    body_rows = [[str(post.number), post.draft.category, a(post.path, post.draft.title), post.draft.author,
                  post.date.strftime("%Y.%m.%d"), f"{post.views:,}"] for post in rows]
    links = [tag("li", Markup(f"<strong>{n}</strong>") if n == page else a(_list_href(n), str(n)))
             for n in range(1, pages + 1)]
    return join([
        p("정보대학 학사·장학·학과 공지사항입니다. 게시 후 2년이 지난 글은 삭제됩니다."),
        table(f"공지사항 목록 ({page}/{pages}쪽)", ["번호", "분류", "제목", "작성자", "작성일", "조회"], body_rows,
              class_="board-list"),
        tag("nav", tag("ul", *links), class_="pagination", aria_label="페이지"),
    ])


def build(out: Output, as_of: datetime.date) -> list[tuple[str, str, str]]:
    """Write the board; returns the five newest posts as (href, title, date) for the home page."""
    board = posts(as_of)
    newest_first = board[::-1]
    pages = max(1, -(-len(board) // PER_PAGE))
    page_of = {post.number: i // PER_PAGE + 1 for i, post in enumerate(newest_first)}
    crumbs = [("공지사항", "/board/")]
    for page in range(1, pages + 1):
        rows = newest_first[(page - 1) * PER_PAGE: page * PER_PAGE]
        title = "공지사항" if page == 1 else f"공지사항 ({page}쪽)"
        out.add_file(_list_href(page), render(title, [("공지사항", None)] if page == 1 else crumbs + [(f"{page}쪽", None)],
                                              _list_body(rows, page, pages), as_of))
    for i, post in enumerate(board):
        prev = board[i - 1] if i > 0 else None
        nxt = board[i + 1] if i + 1 < len(board) else None
        body = _post_body(post, prev, nxt, _list_href(page_of[post.number]))
        out.add_file(post.path, render(post.draft.title, crumbs + [(post.draft.category, None)], body, as_of))
        age = (as_of - post.date).days
        out.docs.append(Doc(path=post.path, source=SOURCE, kind="board", title=post.draft.title,
                            topic=post.draft.topic, applies_to=post.draft.applies_to,
                            date=post.date.isoformat(), expired=age > EXPIRE_DAYS))
    return [(post.path, post.draft.title, post.date.isoformat()) for post in newest_first[:5]]
