"""HTML page -> title, breadcrumbs, links and structured text that both a person and a chunker read.

The text keeps the page's structure in light Markdown: headings as ``#``, lists as ``- item``,
and every table row as one self-contained line (``- 과목명: 자료구조 | 학점: 3``) so that a chunk
cut anywhere in a table still says what each value means: its header path, every header level
above a cell ("이론 학점: 3" under "이론" over "학점"), after the row's own headers on its left;
rowspan and colspan cells stand in every slot they cover. The caption (and any row across the
whole table above the header) is the line right above the rows, where the chunker and the
annotator read it as the table's label.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from urllib.parse import urldefrag, urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode, SelectolaxError

from advisor.config import Selectors
from advisor.ingest.dates import find_date, parse_date
from advisor.ingest.errors import DocumentError
from advisor.ingest.page_dates import page_dates
from advisor.ingest.rows import CELLS, labelled, row_line
from advisor.language.script import language_of

DEFAULT_CONTENT = ("main", "article", "[role=main]", "#content", ".content")
DEFAULT_BREADCRUMB = "nav.breadcrumb, .breadcrumb, [aria-label=breadcrumb], .location"
DEFAULT_REMOVE = (
    "script, style, noscript, template, iframe, svg, form, nav, header, footer, aside, "
    "[role=navigation], [aria-hidden=true]"
)


@dataclass(frozen=True)
class ParsedPage:
    title: str
    breadcrumbs: list[str]
    headings: list[str]
    text: str
    date: dt.date | None  # when it was posted: the source's date selector, else as the page states it
    lang: str
    # the configured content selector matched nothing with text, so the text came from this
    # fallback instead (a default content selector, or "body"); None when it matched or none is set
    content_fallback: str | None = None
    updated: dt.date | None = None  # when it was last updated, as the page states it (page_dates.py)


# --------------------------------------------------------------------------- small helpers

_SPACES = re.compile(r"[ \t\n\r\f\v\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
_INVISIBLE = re.compile(r"[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
_BLANK_RUNS = re.compile(r"\n{3,}")


def _collapse(text: str) -> str:
    """HTML whitespace collapsing: any run of whitespace is one space."""
    return _SPACES.sub(" ", _INVISIBLE.sub("", text))


def css(node: LexborNode | LexborHTMLParser, selector: str) -> list[LexborNode]:
    """Descendants matching `selector`, with a config-friendly error for a bad selector.

    (Lexbor's own ``node.css`` also returns the node itself when it matches.)
    """
    try:
        found = node.css(selector)
    except SelectolaxError:
        raise ValueError(f"invalid CSS selector {selector!r}") from None
    return [n for n in found if not same(n, node)] if isinstance(node, LexborNode) else found


def css_first(node: LexborNode | LexborHTMLParser, selector: str) -> LexborNode | None:
    found = css(node, selector)
    return found[0] if found else None


def same(a: LexborNode | None, b: LexborNode | None) -> bool:
    """Node identity. (``==`` on selectolax nodes compares serialized HTML: slow, and two
    identical cells would count as one node.)"""
    return a is not None and b is not None and a.mem_id == b.mem_id


def _contains(ancestor: LexborNode, node: LexborNode) -> bool:
    while node is not None:
        if same(node, ancestor):
            return True
        node = node.parent
    return False


# Old sites leave tags unclosed (<font> by the thousand) and the parser nests each inside the last.
# The renderer recurses per level, so below this depth a subtree is read as plain text instead.
MAX_DEPTH = 100
_NOT_TEXT = ("script", "style", "noscript", "template")


def flatten_deep(root: LexborNode, max_depth: int = MAX_DEPTH) -> None:
    """Replace every subtree deeper than `max_depth` levels below `root` by its text (in place)."""
    depth = {root.mem_id: 0}
    too_deep = []
    for node in root.traverse():
        parent = node.parent
        level = depth.get(parent.mem_id, 0) + 1 if parent is not None else 0
        depth[node.mem_id] = level
        if level == max_depth and node.child is not None:
            too_deep.append(node)
    for node in too_deep:  # all at one level, so none is inside another
        if node.tag in _NOT_TEXT:
            node.decompose()
            continue
        for junk in css(node, ", ".join(_NOT_TEXT)):
            junk.decompose()
        node.replace_with(" " + node.text(separator=" ") + " ")


def detect_lang(text: str) -> str:
    """"ko" when Hangul is a large share of the letters (advisor.language.script's rule: a third,
    a Hangul syllable being one letter where an English word is several), else "en"."""
    return "ko" if language_of(text, "en") == "ko" else "en"


# --------------------------------------------------------------------------- the renderer

_INLINE = frozenset(
    "a abbr b bdi bdo big cite code data del dfn em font i img ins kbd label mark nobr q rp rt "
    "ruby s samp small span strike strong sub sup time tt u var wbr".split()
)
# Never text: scripts and styles, but also form controls whose labels ("검색", "더보기") are noise.
_SKIP = frozenset(
    "script style noscript template head title meta link iframe svg object embed canvas "
    "button select option input textarea map area audio video".split()
)
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_LIST_MARKER = re.compile(r"^(?:- |\d+\. )")


class _Renderer:
    """Walks a subtree, gathering inline text into paragraphs and emitting block strings."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self._inline: list[str] = []

    def flush(self) -> None:
        text = _tidy_inline("".join(self._inline))
        self._inline = []
        if text:
            self.blocks.append(text)

    def block(self, text: str) -> None:
        self.flush()
        if text:
            self.blocks.append(text)

    def walk(self, node: LexborNode) -> None:
        for child in node.iter(include_text=True):
            tag = child.tag
            if tag == "-text":
                self._inline.append(_collapse(child.text_content or ""))
            elif tag is None or tag.startswith("-") or tag in _SKIP:
                continue
            elif tag == "br":
                self._inline.append("\n")
            elif tag in _INLINE:
                self.walk(child)
            elif tag in _HEADINGS:
                heading = inline_text(child)
                self.block(f"{'#' * _HEADINGS[tag]} {heading}" if heading else "")
            elif (render := _WHOLE_BLOCKS.get(tag)) is not None:
                self.block(render(child))
            elif tag == "table":
                self._table(child)
            else:  # p, div, section ... and unknown elements: a paragraph break is the safer guess
                self.flush()
                self.walk(child)
                self.flush()

    def _table(self, table: LexborNode) -> None:
        if _is_layout_table(table):
            # A table used for page layout holds paragraphs, not data: read its cells in order.
            self.flush()
            for cell in css(table, "td, th"):
                if same(_nearest_table(cell), table):
                    self.walk(cell)
                    self.flush()
        else:
            self.block(_render_table(table))


def _tidy_inline(text: str) -> str:
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return _BLANK_RUNS.sub("\n\n", "\n".join(lines)).strip()


def _blocks(node: LexborNode) -> list[str]:
    renderer = _Renderer()
    renderer.walk(node)
    renderer.flush()
    return renderer.blocks


def render_text(node: LexborNode) -> str:
    """The structured text of a subtree: blocks separated by one blank line."""
    text = "\n\n".join(_blocks(node))
    return _BLANK_RUNS.sub("\n\n", text).strip()


def inline_text(node: LexborNode) -> str:
    """A subtree's text on one line (headings, questions, breadcrumb items)."""
    return _SPACES.sub(" ", " ".join(_blocks(node))).strip()


def _compact(node: LexborNode) -> list[str]:
    """A subtree's text as non-empty lines, without blank lines (list items, definitions)."""
    return [line for block in _blocks(node) for line in block.split("\n") if line.strip()]


def _render_pre(node: LexborNode) -> str:
    lines = [_INVISIBLE.sub("", line).rstrip() for line in node.text().split("\n")]
    return "\n".join(lines).strip("\n")


# --------------------------------------------------------------------------- lists and dl

def _render_list(node: LexborNode) -> str:
    ordered = node.tag == "ol"
    number = _int_attr(node, "start", 1, low=-(10**6))
    lines: list[str] = []
    for child in node.iter(include_text=True):
        tag = child.tag
        if tag in ("ul", "ol"):
            # Malformed but common: a list directly inside a list belongs to the item before it.
            lines.extend("  " + line for line in _render_list(child).split("\n") if line)
            continue
        if tag == "-text":
            body = [_collapse(child.text_content or "").strip()]
        elif tag is None or tag.startswith("-") or tag in _SKIP:
            continue
        else:
            body = _compact(child)
        body = [line for line in body if line]
        marker = f"{number}. " if ordered else "- "
        if tag == "li":  # an empty item still takes its number, as in a browser
            number += 1
        if not body:
            continue
        lines.append(marker + body[0])
        lines.extend("  " + line for line in body[1:])
    return "\n".join(lines)


def _dl_parts(node: LexborNode):
    """The dl's children, looking through the div wrappers HTML allows around dt/dd."""
    for child in node.iter(include_text=True):
        if child.tag == "div":
            yield from _dl_parts(child)
        elif child.tag == "-text" or (child.tag and not child.tag.startswith("-") and child.tag not in _SKIP):
            yield child


def _render_dl(node: LexborNode) -> str:
    lines: list[str] = []
    term, defined = "", True
    for part in _dl_parts(node):
        if part.tag == "dt":
            if term and not defined:
                lines.append(term)
            term, defined = inline_text(part), False
            continue
        if part.tag == "-text":  # stray text in a malformed list: keep it, unlabelled
            body = [_collapse(part.text_content or "").strip()]
        else:
            body = _compact(part)
        body = [line for line in body if line]
        if not body:
            continue
        if not term or part.tag != "dd":
            lines.extend(body)
        elif len(body) == 1:
            lines.append(f"{term}: {body[0]}")
        else:
            lines.append(f"{term}:")
            lines.extend("  " + line for line in body)
        defined = defined or part.tag == "dd"
    if term and not defined:
        lines.append(term)
    return "\n".join(lines)


# The block elements a reader of their own renders whole (a table: _Renderer._table)
_WHOLE_BLOCKS = {**dict.fromkeys(("ul", "ol", "menu", "dir"), _render_list), "dl": _render_dl, "pre": _render_pre}


# --------------------------------------------------------------------------- tables

@dataclass(frozen=True)
class _Cell:
    text: str
    is_th: bool
    origin: tuple[int, int]  # the (row, col) of the cell element, shared by its spanned copies
    spanned_col: bool  # a copy made by colspan (not rowspan): printed once, under its first column


def _int_attr(node: LexborNode, name: str, default: int, low: int = 0, high: int = 10**6) -> int:
    match = re.match(r"\s*(-?\d+)", node.attributes.get(name) or "")
    return min(max(int(match.group(1)), low), high) if match else default


def _nearest_table(node: LexborNode) -> LexborNode | None:
    node = node.parent
    while node is not None and node.tag != "table":
        node = node.parent
    return node


def _table_rows(table: LexborNode) -> tuple[str, list[LexborNode], int]:
    """(caption, rows in order, how many leading rows come from thead)."""
    caption, head, rows = "", [], []
    for child in table.iter():
        if child.tag == "caption":
            caption = inline_text(child)
        elif child.tag in ("thead", "tbody", "tfoot"):
            section = [tr for tr in child.iter() if tr.tag == "tr"]
            (head if child.tag == "thead" else rows).extend(section)
        elif child.tag == "tr":
            rows.append(child)
    return caption, head + rows, len(head)


def _cell_text(cell: LexborNode) -> str:
    """One line per cell: <br>-broken lines joined by a space, list items and blocks by "; "."""
    pieces: list[str] = []
    for block in _blocks(cell):
        for n, line in enumerate(block.split("\n")):
            line = line.strip()
            if not line:
                continue
            if n == 0 or _LIST_MARKER.match(line) or not pieces:
                pieces.append(_LIST_MARKER.sub("", line))
            else:
                pieces[-1] += " " + line
    return "; ".join(pieces)


def _grid(rows: list[LexborNode]) -> list[list[_Cell | None]]:
    """Lay cells out on a grid, copying rowspan/colspan cells into every slot they cover."""
    slots: dict[tuple[int, int], _Cell] = {}
    width = 0
    for r, tr in enumerate(rows):
        c = 0
        for cell in tr.iter():
            if cell.tag not in ("td", "th"):
                continue
            while (r, c) in slots:
                c += 1
            colspan = _int_attr(cell, "colspan", 1, low=1, high=100)
            rowspan = _int_attr(cell, "rowspan", 1, low=0, high=len(rows) - r) or len(rows) - r
            text = _cell_text(cell)
            for dc in range(colspan):
                for dr in range(rowspan):
                    slots[(r + dr, c + dc)] = _Cell(text, cell.tag == "th", (r, c), dc > 0)
            c += colspan
            width = max(width, c)
    return [[slots.get((r, c)) for c in range(width)] for r in range(len(rows))]


def _is_layout_table(table: LexborNode) -> bool:
    if (table.attributes.get("role") or "").lower() in ("presentation", "none"):
        return True
    if css_first(table, "table") is not None:
        return True
    _, rows, _ = _table_rows(table)
    return all(sum(1 for c in tr.iter() if c.tag in ("td", "th")) <= 1 for tr in rows)


def _header_count(grid: list[list[_Cell | None]], from_thead: int) -> int:
    if from_thead:
        return from_thead
    count = 0
    for row in grid:
        # An empty corner cell (often a td above the row headers) does not make a row data.
        cells = [cell for cell in row if cell is not None and (cell.is_th or cell.text)]
        if not cells or not all(cell.is_th for cell in cells) or (len(cells) < 2 and len(cells) < len(row)):
            break
        count += 1
    return count if count < len(grid) else min(count, 1)


def _spans_row(row: list[_Cell | None]) -> bool:
    """A row that is one cell across the whole table, e.g. a section title such as "1학년"."""
    origins = {cell.origin for cell in row if cell is not None}
    return len(row) > 1 and len(origins) == 1 and all(cell is not None for cell in row)


def _header_stacks(header_rows: list[list[_Cell | None]], width: int) -> list[list[str]]:
    """Per column, its header text in each header row ("" where there is none)."""
    return [[row[c].text if row[c] is not None else "" for row in header_rows] for c in range(width)]


def _label(stacks: list[list[str]], first: int, last: int) -> str:
    """The label for columns first..last: multi-row headers stack ("학점" over "이론" gives
    "학점 이론"); a cell spanning several columns keeps only the header parts they share."""
    parts: list[str] = []
    for level in zip(*stacks[first : last + 1]):
        if level[0] and all(text == level[0] for text in level) and level[0] not in parts:
            parts.append(level[0])
    return " ".join(parts)


def _row_line(row: list[_Cell | None], stacks: list[list[str]] | None) -> str:
    cells = [(c, cell) for c, cell in enumerate(row) if cell is not None and not cell.spanned_col and cell.text]
    if not cells:
        return ""
    if _spans_row(row):
        return row_line([cells[0][1].text])
    if stacks is None:
        # No header row: leading th cells label the rest of the row ("학과: 컴퓨터학과").
        labels = [cell.text for _, cell in cells if cell.is_th]
        values = [cell.text for _, cell in cells if not cell.is_th]
        if labels and values and all(cell.is_th for _, cell in cells[: len(labels)]):
            return row_line([labelled(" ".join(labels), CELLS.join(values))])
        return row_line([cell.text for _, cell in cells])
    parts = []
    for c, cell in cells:
        last = c
        while last + 1 < len(row) and row[last + 1] is not None and row[last + 1].origin == cell.origin:
            last += 1
        label = _label(stacks, c, last)
        if not label and cell.is_th and c == cells[0][0]:
            # a row header across the row-header columns ("구분" over "세부"): the outer one's label
            label = _label(stacks, c, c)
        parts.append(labelled(label, cell.text) if label and label != cell.text else cell.text)
    return row_line(parts)


def _render_table(table: LexborNode) -> str:
    caption, rows, from_thead = _table_rows(table)
    grid = _grid(rows)
    lines = [caption] if caption else []
    n_head = _header_count(grid, from_thead)
    header_rows = grid[:n_head]
    # A header row that is one title across the table is a caption, not column labels.
    while header_rows and _spans_row(header_rows[0]) and len(header_rows) < len(grid):
        lines.append(header_rows[0][0].text)
        header_rows = header_rows[1:]
    body = grid[n_head:]
    if not body:  # only headers: print them as a row
        body, header_rows = header_rows, []
    stacks = _header_stacks(header_rows, len(grid[0])) if header_rows else None
    lines.extend(line for line in (_row_line(row, stacks) for row in body) if line)
    return "\n".join(line for line in lines if line)


# --------------------------------------------------------------------------- boilerplate

def remove_boilerplate(root: LexborNode, extra: tuple[str, ...] = ()) -> None:
    """Delete navigation, scripts, forms ... under `root` (in place)."""
    total = len(root.text(strip=True))
    doomed: dict[int, LexborNode] = {}
    for selector in (DEFAULT_REMOVE, *extra):
        for node in css(root, selector):
            # ASP.NET and some CMSs wrap the whole page in one <form>: that form is the page.
            if node.tag == "form" and total and len(node.text(strip=True)) > total / 2:
                continue
            doomed[node.mem_id] = node
    # Delete only the outermost matches: a node inside one already deleted is gone with it, and
    # touching it afterwards would touch freed memory.
    outermost = [node for node in doomed.values() if not _has_doomed_ancestor(node, doomed)]
    for node in outermost:
        node.decompose()


def _has_doomed_ancestor(node: LexborNode, doomed: dict[int, LexborNode]) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.mem_id in doomed:
            return True
        parent = parent.parent
    return False


# --------------------------------------------------------------------------- page parts

_CRUMB_SEPARATORS = re.compile(r"\s*(?:>|›|»|/|→|▶|▸|〉|＞)\s*")
_CRUMB_ATOMS = frozenset(("li", "a", "span", "strong", "em", "b"))
_CRUMB_LABELS = re.compile(r"^(?:현재\s*위치|위치|you are here|location)\s*:?$", re.I)


def _crumb_atom_text(node: LexborNode) -> str:
    """An item's text, leaving out the dropdown menus some sites hang under each item."""
    words: list[str] = []

    def gather(n: LexborNode) -> None:
        for child in n.iter(include_text=True):
            if child.tag == "-text":
                words.append(_collapse(child.text_content or ""))
            elif child.tag and not child.tag.startswith("-") and child.tag not in ("ul", "ol", "button", *_SKIP):
                gather(child)

    gather(node)
    text = _collapse("".join(words)).strip()
    if not text:  # an icon-only "home" link
        img = css_first(node, "img[alt]")
        text = node.attributes.get("aria-label") or node.attributes.get("title") or (img.attributes.get("alt") if img else "") or ""
    return _CRUMB_SEPARATORS.sub(" ", f" {text.strip()} ").strip() if text else ""


def _breadcrumb_items(node: LexborNode) -> list[str]:
    items: list[str] = []

    def walk(n: LexborNode) -> None:
        for child in n.iter(include_text=True):
            if child.tag == "-text":
                items.extend(part.strip() for part in _CRUMB_SEPARATORS.split(_collapse(child.text_content or "")))
            elif child.tag in _CRUMB_ATOMS:
                items.append(_crumb_atom_text(child))
            elif child.tag and not child.tag.startswith("-") and child.tag not in _SKIP:
                walk(child)

    walk(node)
    crumbs: list[str] = []
    for item in items:
        if item and not _CRUMB_LABELS.match(item) and (not crumbs or crumbs[-1] != item):
            crumbs.append(item)
    return crumbs


def _content_root(tree: LexborHTMLParser, selector: str | None) -> tuple[LexborNode, str]:
    """The content element and the selector that found it ("body" for the whole page).
    A configured selector that matches nothing falls back to the defaults (sites mix templates);
    the caller reports the fallback."""
    for candidate in ((selector,) if selector else ()) + DEFAULT_CONTENT:
        node = css_first(tree, candidate)
        if node is not None and node.text(strip=True):
            return node, candidate
    return (tree.body, "body") if tree.body is not None else (tree.root, "html")


_TITLE_SUFFIX = (" | ", " :: ", " - ", " – ", " — ")


def _strip_site_suffix(title: str) -> str:
    """"졸업요건 | 컴퓨터학과" -> "졸업요건": the page's own title comes first, the site's last."""
    for separator in _TITLE_SUFFIX:
        head, found, _ = title.rpartition(separator)
        if found and head.strip():
            return head.strip()
    return title


def _read_date(tree: LexborHTMLParser, selector: str | None) -> dt.date | None:
    node = css_first(tree, selector) if selector else None
    if node is None:
        return None
    attr = node.attributes.get("datetime") or node.attributes.get("content")  # <time>, <meta>
    if attr and (date := parse_date(attr)):
        return date
    text = inline_text(node)
    return parse_date(text) or find_date(text)


def extract_page(html: str, url: str, selectors: Selectors) -> ParsedPage:
    """Parse one HTML page. Raises DocumentError("empty_text") when its content has no text."""
    tree = LexborHTMLParser(html)
    flatten_deep(tree.root)
    # Title, breadcrumbs and date first: they may sit in elements removed as boilerplate below.
    configured_title = css_first(tree, selectors.title) if selectors.title else None
    title = inline_text(configured_title) if configured_title is not None else ""
    crumb_node = css_first(tree, selectors.breadcrumb or DEFAULT_BREADCRUMB)
    breadcrumbs = _breadcrumb_items(crumb_node) if crumb_node is not None else []
    stated = page_dates(tree)  # a "최종수정일" box may sit outside the content area
    date = _read_date(tree, selectors.date) or stated.posted

    content, found_by = _content_root(tree, selectors.content)
    if crumb_node is not None and not same(crumb_node, content) and _contains(content, crumb_node):
        crumb_node.decompose()
    remove_boilerplate(content, selectors.remove)

    text = render_text(content)
    if not text:
        raise DocumentError("empty_text", f"no text in the content of {url}")
    headings = [h for h in (inline_text(n) for n in css(content, "h1, h2, h3, h4, h5, h6")) if h]
    if not title:
        first_h1 = next((t for t in (inline_text(n) for n in css(content, "h1")) if t), "")
        title_tag = tree.css_first("title")
        page_title = _strip_site_suffix(_collapse(title_tag.text()).strip()) if title_tag else ""
        title = first_h1 or page_title or (headings[0] if headings else "")
    fallback = found_by if selectors.content and found_by != selectors.content else None
    return ParsedPage(title, breadcrumbs, headings, text, date, detect_lang(title + "\n" + text), fallback,
                      stated.updated)


def extract_links(html: str, base_url: str) -> list[str]:
    """Absolute http(s) URLs of the page's links, fragments stripped, in order, without repeats."""
    tree = LexborHTMLParser(html)
    base = base_url
    base_node = tree.css_first("base[href]")
    if base_node is not None:
        base = urljoin(base_url, _clean_href(base_node.attributes.get("href")))
    links: list[str] = []
    seen: set[str] = set()
    for anchor in tree.css("a[href]"):
        href = _clean_href(anchor.attributes.get("href"))
        if not href or href.startswith("#"):  # same-document links
            continue
        try:
            absolute = urldefrag(urljoin(base, href)).url
            parts = urlsplit(absolute)
        except ValueError:  # e.g. an unbalanced "[" in the host
            continue
        if parts.scheme in ("http", "https") and parts.netloc and absolute not in seen:
            seen.add(absolute)
            links.append(absolute)
    return links


def _clean_href(href: str | None) -> str:
    # Browsers drop tabs and newlines anywhere in a URL, and surrounding spaces.
    return re.sub(r"[\t\n\r]", "", href or "").strip()
