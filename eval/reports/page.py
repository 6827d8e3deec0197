"""The evaluation report as one self-contained HTML page, `report.html`, for people to read: every
table at full width, the charts, and a drill-down to each benchmark question.

Pure: the tables (eval/reports/table.py), the charts' files and captions, the per-query and
benchmark-instance frames and the cited chunks' texts in, one HTML string out; no Dagster, no
DuckDB. eval/reports/report.py's `write_report` calls it beside report.md.

Self-contained: the CSS and the little JS are inline, the charts are `data:image/png;base64` URIs,
and nothing names a network resource (no CDN, no web font): the file opens offline, from a mail
attachment or a CI artifact alike.

Untrusted text (questions, answers, chunk texts, URLs) is escaped everywhere: `html.escape` in the
markup, and in the drill-down's JSON every `<`, `>` and `&` as a \\u escape, which the page's
script only ever puts into the DOM as text (`textContent`), never as markup.

The drill-down keeps the page fast with the demo's 1,800 instances x 10 systems: each question is
a closed `<details>` whose body is built from a JSON block only when opened, every string of that
block is stored once (a profile-blind system gives the same answer to a question whoever asks),
and answers and passages are trimmed.

Any ReportTable renders generically: all the columns its Markdown shows (a column marked
`markdown=False` is a records-only field, whose content the notes already say) and its notes, so
a column added to a table appears here without this module changing.
"""

from __future__ import annotations

import base64
import functools
import html
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from eval.reports.data import SETTING_ORDER, SYSTEM_ORDER, _rank_in, main_slice_rows
from eval.reports.table import MISSING, ReportTable
from eval.reports.usage import CHART_CAPTION as USAGE_CHART_CAPTION
from eval.reports.usage import CLUSTERS_HEADING, NO_USAGE, UsageReport, clusters_table, shares_table
from eval.reports.usage import HEADING as USAGE_HEADING
from eval.systems import registry

__all__ = ["ANSWER_CHARS", "PASSAGE_CHARS", "HtmlReport", "drilldown_data", "render_html", "table_html"]

# Trimmed so the drill-down stays a few MB on the demo benchmark; the full texts are in the lakehouse.
ANSWER_CHARS = 240
PASSAGE_CHARS = 300
QUESTION_CHARS = 400
NO_CHANGES = "No previous run of this benchmark to compare with."

# (table name, heading, text under the heading): the report's order. {over} is the main slice.
SECTIONS = (
    ("table1", "Table 1: retrieval and answers per setting and system ({over})",
     "S@k: a gold source within the top k sources; R@k: the share of the instance's gold sources within the "
     "top k (TREC recall); MRR over the first gold source."),
    ("paired_tests", "Paired tests against the baselines", ""),
    ("ablations", "Table 2: ablations (deployment)", ""),
    ("answer_quality", "Answer quality", ""),
    ("slices", "Benchmark slices", ""),
    ("mrr_by_category", "MRR by category ({over})", ""),
    ("mrr_by_query_type", "MRR by query type ({over})", ""),
    ("urag_tiers", "URAG answer tiers", ""),
    ("intent_routing", "Intent routing (held-out split)", ""),
    ("intent_confusion", "Intent confusion (held-out split)", ""),
    ("label_gap", "Annotation error and retrieval error (proFILL against profill-true-labels)",
     "MRR points of proFILL's gap to the same system with the true labels, per attribute whose annotation hid a "
     "gold source or admitted a source above it; beside it, the annotator's accuracy on that attribute."),
)
SUBSECTIONS = {"intent_confusion"}  # an h3 under the section before it
ONLY_WITH_ROWS = {"label_gap"}  # shown when the run has it (a truth file and profill-true-labels)


@dataclass(frozen=True)
class HtmlReport:
    """What the page shows. `lineage`: (label, value) pairs in order; `charts`: (PNG path,
    caption); `chart_key`: lines naming the labels the charts could not draw; `drilldown`:
    `drilldown_data`'s result, or None when the run has no per-question rows to show."""

    title: str
    gold: str
    lineage: Sequence[tuple[str, str]]
    tables: Mapping[str, ReportTable]
    over: str
    table1_caption: str = ""
    charts: Sequence[tuple[Path, str]] = ()
    chart_key: Sequence[str] = ()
    changes: ReportTable | None = None
    drilldown: Mapping | None = None
    caveat: bool = False  # the gold line carries a caveat: shown as a warning
    usage: UsageReport | None = None  # "What students asked" (None: no usage data yet)
    study: str | None = None  # the preference study's section (eval/study.py), None: never run


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


@functools.lru_cache(maxsize=8192)  # answers repeat: the demo's 16,200 rows hold about 2,700 distinct ones
def _trim(text: str | None, limit: int, keep_lines: bool = False) -> str | None:
    """At most `limit` characters, "…" where cut; runs of spaces as one, and newlines too unless
    `keep_lines` (an answer's lines are its sentences; a passage reads as one paragraph)."""
    if text is None:
        return None
    lines = str(text).splitlines() if keep_lines else [str(text)]
    text = "\n".join(joined for line in lines if (joined := " ".join(line.split())))
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-") or "section"


# --- tables ------------------------------------------------------------------------------------


def _is_numeric(column) -> bool:
    return column.kind != "text" or column.right


def table_html(table: ReportTable) -> str:
    """A ReportTable as a full-width HTML table with its notes under it. When the first column's
    value runs over several rows (a setting's systems), each run reads as one group: a line above
    it, the repeated value faded."""
    if not table.rows:
        return f'<p class="empty">{_e(table.empty)}</p>'
    shown = [c for c in table.columns if c.markdown]
    head = "".join(f'<th{_class(["num"] if _is_numeric(c) else [])}>{_e(c.name)}</th>' for c in shown)
    firsts = [shown[0].cell(row) if shown else None for row in table.rows]
    grouped = any(a == b for a, b in zip(firsts, firsts[1:]))
    body = []
    for index, row in enumerate(table.rows):
        repeats = grouped and index > 0 and firsts[index] == firsts[index - 1]
        cells = "".join(_cell_html(column, row, faded=repeats and i == 0) for i, column in enumerate(shown))
        starts_group = grouped and index > 0 and not repeats
        body.append(f"<tr{_class(['group'] if starts_group else [])}>{cells}</tr>")
    notes = "".join(f'<p class="note">{_e(note)}</p>' for note in table.notes)
    return (f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
            f"</div>{notes}")


def _cell_html(column, row: Mapping, faded: bool) -> str:
    text = column.cell(row)
    classes = ["num"] if _is_numeric(column) else []
    if text == MISSING:
        classes.append("missing")
    if faded:
        classes.append("same")
    return f"<td{_class(classes)}>{_e(text)}</td>"


def _class(classes: Sequence[str]) -> str:
    return f' class="{" ".join(classes)}"' if classes else ""


# --- the drill-down's data ----------------------------------------------------------------------


class _Strings:
    """Each distinct string once; rows refer to them by index (-1 = none)."""

    def __init__(self) -> None:
        self.values: list[str] = []
        self._index: dict[str, int] = {}

    def __call__(self, value: str | None) -> int:
        if value is None or value == "":
            return -1
        if value not in self._index:
            self._index[value] = len(self.values)
            self.values.append(value)
        return self._index[value]


def _drilldown_setting(per_query: pl.DataFrame, wanted: str) -> str | None:
    settings = set(per_query["setting"].drop_nulls().to_list()) if "setting" in per_query.columns else set()
    if wanted in settings:
        return wanted
    ordered = sorted(settings, key=lambda s: _rank_in(SETTING_ORDER, s))
    return ordered[0] if ordered else None


def _with_columns(frame: pl.DataFrame, types: Mapping[str, pl.DataType]) -> pl.DataFrame:
    """The frame with every column of `types` (absent ones null), cast to those types."""
    return frame.with_columns(
        [pl.col(name).cast(kind) if name in frame.columns else pl.lit(None, dtype=kind).alias(name)
         for name, kind in types.items()])


_RESULT_TYPES = {"instance_id": pl.String, "system": pl.String, "rank": pl.Int64,
                 "retrieved_urls": pl.List(pl.String), "retrieved_chunk_ids": pl.List(pl.String),
                 "answer": pl.String, "citations": pl.List(pl.String)}
_INSTANCE_TYPES = {"instance_id": pl.String, "query": pl.String, "category": pl.String, "query_type": pl.String,
                   "gold_sources": pl.List(pl.String)}


def _results(per_query: pl.DataFrame, setting: str) -> pl.DataFrame:
    """One row per (instance, system) of the setting: what it ranked first, its rank of the first
    gold, its answer, citations and retrieved chunks."""
    frame = _with_columns(per_query.filter(pl.col("setting") == setting), _RESULT_TYPES)
    return frame.select("instance_id", "system", "rank", pl.col("retrieved_urls").list.first().alias("first_url"),
                        "retrieved_chunk_ids", "answer", "citations")


def _instances(benchmark: pl.DataFrame) -> dict[str, dict]:
    profiles = benchmark["profile"].to_list() if "profile" in benchmark.columns else [None] * benchmark.height
    rows = _with_columns(benchmark, _INSTANCE_TYPES).select(*_INSTANCE_TYPES).to_dicts()
    return {row["instance_id"]: {**row, "profile": _profile_text(profile)} for row, profile in zip(rows, profiles)}


def _profile_text(profile: object) -> str:
    """"department=CS · admission_year=2015 · …" from the instance's profile (JSON text or dict)."""
    if isinstance(profile, str):
        try:
            profile = json.loads(profile)
        except ValueError:
            return profile
    if not isinstance(profile, Mapping) or not profile:
        return "(no profile)"
    return " · ".join(f"{key}={value}" for key, value in profile.items())


def _cited_passage(chunk_ids: Sequence[str] | None, citation: str | None,
                   chunks: Mapping[str, tuple[str, str]]) -> str | None:
    """The text of the first retrieved chunk of the first cited source (the same page, or the
    same FAQ entry when the citation names one), or None when none of the retrieved chunks is."""
    if not citation or not chunk_ids:
        return None
    page = citation.split("#", 1)[0]
    for exact in (True, False):
        for chunk_id in chunk_ids:
            url, text = chunks.get(chunk_id, (None, None))
            if url is not None and (url == citation if exact else url.split("#", 1)[0] == page):
                return text
    return None


def drilldown_data(per_query: pl.DataFrame | None, benchmark: pl.DataFrame | None,
                   chunks: Mapping[str, tuple[str, str]] | None = None,
                   setting: str = registry.DEPLOYMENT) -> dict | None:
    """Per distinct question text of the main slice, in one setting (`setting` when the run has
    it, else the first it has): its instances (profile, gold sources) and, per system, what it
    ranked first, the rank of the first gold, its answer, first citation and the passage cited.
    `chunks`: chunk id -> (document URL, text). None when there is nothing to drill into."""
    if per_query is None or benchmark is None or benchmark.is_empty() or "instance_id" not in per_query.columns:
        return None
    main, _ = main_slice_rows(per_query)
    chosen = _drilldown_setting(main, setting)
    if chosen is None:
        return None
    instances = _instances(benchmark)
    by_instance: dict[str, list[dict]] = {}
    for row in _results(main, chosen).iter_rows(named=True):
        if row["instance_id"] in instances and row["system"] is not None:
            by_instance.setdefault(row["instance_id"], []).append(row)
    if not by_instance:
        return None
    strings, systems = _Strings(), sorted({r["system"] for rows in by_instance.values() for r in rows},
                                          key=lambda s: _rank_in(SYSTEM_ORDER, s))
    questions = [_question_entry(q, by_instance, instances, systems, strings, chunks or {})
                 for q in _questions(by_instance, instances)]
    return {"setting": chosen, "systems": systems, "questions": questions, "strings": strings.values}


def _questions(by_instance: Mapping[str, list], instances: Mapping[str, dict]) -> list[dict]:
    """The distinct question texts with their instance ids, by category, then by their first
    instance's id (the synthesized benchmark numbers a question's instances together)."""
    grouped: dict[str, dict] = {}
    for instance_id in sorted(by_instance):
        instance = instances[instance_id]
        text = instance["query"] or instance_id
        entry = grouped.setdefault(text, {"text": text, "category": instance["category"], "ids": [], "types": []})
        entry["ids"].append(instance_id)
        if instance["query_type"] and instance["query_type"] not in entry["types"]:
            entry["types"].append(instance["query_type"])
    return sorted(grouped.values(), key=lambda q: (q["category"] is None, q["category"] or "", q["ids"][0]))


def _question_entry(question: Mapping, by_instance: Mapping[str, list], instances: Mapping[str, dict],
                    systems: Sequence[str], strings: _Strings, chunks: Mapping[str, tuple[str, str]]) -> dict:
    """The summary fields of one question (rendered into the page) and its instances' rows
    (rendered by the page's script when the question is opened), strings by index."""
    reference = registry.REFERENCE_SYSTEM if registry.REFERENCE_SYSTEM in systems else systems[0]
    rows_out, hits, asked = [], 0, 0
    for instance_id in question["ids"]:
        instance = instances[instance_id]
        results = sorted(by_instance[instance_id], key=lambda r: systems.index(r["system"]))
        for result in results:
            if result["system"] == reference:
                asked += 1
                hits += result["rank"] == 1
        rows_out.append([strings(instance["profile"]), [strings(u) for u in instance["gold_sources"] or []],
                         [_result_entry(r, systems, strings, chunks) for r in results]])
    return {"text": question["text"], "category": question["category"], "types": question["types"],
            "reference": reference, "hits": hits, "asked": asked, "instances": rows_out}


def _result_entry(result: Mapping, systems: Sequence[str], strings: _Strings,
                  chunks: Mapping[str, tuple[str, str]]) -> list:
    citation = (result["citations"] or [None])[0]
    passage = _cited_passage(result["retrieved_chunk_ids"], citation, chunks)
    answer = _trim(result["answer"], ANSWER_CHARS, keep_lines=True)
    return [systems.index(result["system"]), strings(result["first_url"]), result["rank"] or 0, strings(answer),
            strings(citation), strings(_trim(passage, PASSAGE_CHARS))]


# --- the page -----------------------------------------------------------------------------------


def _lineage_html(lineage: Sequence[tuple[str, str]]) -> str:
    items = "".join(f"<dt>{_e(label)}</dt><dd>{_e(value)}</dd>" for label, value in lineage)
    return f'<dl class="lineage">{items}</dl>'


def _changes_html(changes: ReportTable | None) -> str:
    body = f'<p class="empty">{_e(NO_CHANGES)}</p>' if changes is None else table_html(changes)
    return _section("changes", "What changed since the previous run", body)


def _section(anchor: str, heading: str, body: str, intro: str = "", level: int = 2) -> str:
    intro_html = f'<p class="intro">{_e(intro)}</p>' if intro else ""
    return f'<section id="{_e(anchor)}"><h{level}>{_e(heading)}</h{level}>{intro_html}{body}</section>'


def _table_sections(report: HtmlReport) -> list[tuple[str, str, str]]:
    """(anchor, heading, html) of every table in the report's order; tables this module does not
    know follow, headed by their name."""
    known = {name for name, *_ in SECTIONS}
    out = []
    for name, heading, intro in SECTIONS:
        table = report.tables.get(name)
        if table is None or (name in ONLY_WITH_ROWS and not table.rows):
            continue
        body = table_html(table)
        if name == "table1" and report.table1_caption:
            body += f'<p class="caption">{_e(report.table1_caption)}</p>'
        title = heading.format(over=report.over)
        out.append((name, title, _section(name, title, body, intro, 3 if name in SUBSECTIONS else 2)))
    for name, table in report.tables.items():
        if name not in known:
            title = name.replace("_", " ").capitalize()
            out.append((_slug(name), title, _section(_slug(name), title, table_html(table))))
    return out


def _charts_html(charts: Sequence[tuple[Path, str]], chart_key: Sequence[str]) -> str:
    figures = []
    for path, caption in charts:
        encoded = base64.b64encode(Path(path).read_bytes()).decode("ascii")
        figures.append(f'<figure><img src="data:image/png;base64,{encoded}" alt="{_e(caption)}" width="1200" '
                       f'height="700"><figcaption>{_e(caption)}</figcaption></figure>')
    key = ""
    if chart_key:
        items = "".join(f"<li>{_e(k)}</li>" for k in chart_key)
        key = f'<p class="note">Chart labels:</p><ul class="note">{items}</ul>'
    return "".join(figures) + key if figures else '<p class="empty">No charts.</p>'


def _usage_html(usage: UsageReport | None) -> str:
    """What students asked: the tier shares per day (chart and table) and the questions the material
    did not answer, grouped, most asked first; or that there is no usage data yet."""
    if usage is None:
        return _section("usage", USAGE_HEADING, f'<p class="empty">{_e(NO_USAGE)}</p>')
    chart = _charts_html([(usage.chart, USAGE_CHART_CAPTION)], ()) if usage.chart is not None else ""
    body = (chart + table_html(shares_table(usage.days[-31:]))
            + _section("usage-clusters", CLUSTERS_HEADING, table_html(clusters_table(usage.clusters)), level=3))
    return _section("usage", USAGE_HEADING, body)


def _drilldown_html(drilldown: Mapping | None) -> str:
    if drilldown is None:
        return ('<p class="empty">No per-question results to drill into (the run recorded no per-query rows, or its '
                "benchmark instances are not in the lakehouse).</p>")
    questions = drilldown["questions"]
    reference = questions[0]["reference"] if questions else registry.REFERENCE_SYSTEM
    intro = (f"Each distinct question of the main slice in the {drilldown['setting']} setting, with every profile "
             f"it was asked for (P1, P2, …). Open a question for where each system ranked the first gold source "
             f"for each profile; open a profile for its gold sources and, per system, the source it ranked first "
             f"(✓ when gold), its answer and the passage it cited (answers trimmed to {ANSWER_CHARS} characters, "
             f"passages to {PASSAGE_CHARS}).")
    controls = (f'<div class="controls"><input type="search" id="drill-filter" placeholder="Filter the questions" '
                f'aria-label="Filter the questions"><label><input type="checkbox" id="drill-missed"> only where '
                f'{_e(reference)} ranked no gold source first for some profile</label>'
                f'<span id="drill-count">{len(questions)} questions</span></div>')
    items = "".join(_question_summary(i, q) for i, q in enumerate(questions))
    payload = {"systems": drilldown["systems"], "strings": drilldown["strings"],
               "questions": [q["instances"] for q in questions]}
    return (f'<p class="intro">{_e(intro)}</p>{controls}<noscript><p class="note">Opening a question needs '
            f'JavaScript.</p></noscript><div id="drill">{items}</div>'
            f'<script type="application/json" id="drill-data">{_script_json(payload)}</script>')


def _question_summary(index: int, question: Mapping) -> str:
    asked, hits = question["asked"], question["hits"]
    outcome = "hit-all" if asked and hits == asked else "hit-none" if not hits else "hit-some"
    profiles = len(question["instances"])
    meta = [question["category"] or "(no category)", ", ".join(question["types"]) or None,
            f"{profiles} profile{'s' if profiles != 1 else ''}"]
    score = f'{_e(question["reference"])}: gold first for {hits} of {asked}'
    return (f'<details class="q" data-q="{index}" data-miss="{int(hits < asked)}"><summary>'
            f'<span class="qtext">{_e(_trim(question["text"], QUESTION_CHARS))}</span> '
            f'<span class="meta">{_e(" · ".join(m for m in meta if m))} · <span class="{outcome}">{score}</span>'
            f'</span></summary><div class="qbody"></div></details>')


def _script_json(value: object) -> str:
    """JSON safe inside a <script> element: no '<', '>' or '&' can end it or start markup."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _nav(entries: Sequence[tuple[str, str]]) -> str:
    links = "".join(f'<li><a href="#{_e(anchor)}">{_e(title)}</a></li>' for anchor, title in entries)
    return f'<nav><ul>{links}</ul></nav>'


def render_html(report: HtmlReport) -> str:
    """The whole page. Same report, same bytes (no timestamp is added)."""
    tables = _table_sections(report)
    sections = [("changes", "What changed since the previous run", _changes_html(report.changes)),
                *tables,
                ("usage", USAGE_HEADING, _usage_html(report.usage)),
                *([("preference-study", "Preference study", report.study)] if report.study else []),
                ("charts", "Charts", _section("charts", "Charts", _charts_html(report.charts, report.chart_key))),
                ("questions", "Questions, one by one",
                 _section("questions", "Questions, one by one", _drilldown_html(report.drilldown)))]
    gold_class = "gold caveat" if report.caveat else "gold"
    header = (f"<header><h1>{_e(report.title)}</h1><p class=\"{gold_class}\">{_e(report.gold)}</p>"
              f"{_lineage_html(report.lineage)}</header>")
    nav = _nav([(anchor, title) for anchor, title, _ in sections])
    body = "".join(html_text for _, _, html_text in sections)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{_e(report.title)}</title><style>{STYLE}</style></head>"
            f"<body><main>{header}{nav}{body}</main><script>{SCRIPT}</script></body></html>\n")


STYLE = """
:root{--fg:#1c2430;--muted:#5d6776;--line:#dde2e9;--soft:#f4f6f9;--good:#1a7f37;--bad:#b42318;--warn:#8a5a00}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;color:var(--fg);background:#fff;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,
"Noto Sans KR","Apple SD Gothic Neo","Malgun Gothic",NanumGothic,"Noto Sans CJK KR","Helvetica Neue",Arial,sans-serif}
main{max-width:1240px;margin:0 auto;padding:16px 20px 64px}
h1{font-size:1.6rem;margin:.4em 0 .2em}
h2{font-size:1.2rem;margin:1.8em 0 .4em;padding-top:.6em;border-top:2px solid var(--line)}
h3{font-size:1.05rem;margin:1.2em 0 .4em}
p{margin:.4em 0}
.gold{font-weight:600}
.gold.caveat{color:var(--warn);background:#fff6e0;border-left:4px solid #e0a100;padding:4px 8px}
.intro,.note,.caption,.empty{color:var(--muted);font-size:.9rem}
ul.note{margin:.2em 0;padding-left:1.4em}
.lineage{display:grid;grid-template-columns:max-content 1fr;gap:0 14px;font-size:.85rem;margin:.6em 0}
.lineage dt{color:var(--muted)}
.lineage dd{margin:0;overflow-wrap:anywhere;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
nav ul{list-style:none;padding:0;margin:.8em 0;display:flex;flex-wrap:wrap;gap:4px 14px;font-size:.88rem}
nav a{color:#2450a6;text-decoration:none}
nav a:hover{text-decoration:underline}
.table-wrap{width:100%;overflow-x:auto}
table{width:100%;border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums}
th,td{padding:3px 6px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top;overflow-wrap:break-word}
th{background:var(--soft);font-weight:600;vertical-align:bottom}
.num{text-align:right}
td.num{white-space:nowrap}
td.missing{color:#a0a8b4}
td.same{color:#b4bbc5}
tr.group td{border-top:2px solid #c4ccd6}
tbody tr:hover td{background:#f8fafc}
figure{margin:1em 0}
figure img{display:block;max-width:100%;height:auto;border:1px solid var(--line)}
figcaption{color:var(--muted);font-size:.9rem}
.controls{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;margin:.6em 0;font-size:.9rem}
.controls input[type=search]{flex:1 1 320px;padding:4px 8px;font:inherit;border:1px solid #b9c1cc;border-radius:4px}
#drill-count{color:var(--muted)}
details.q{border-bottom:1px solid var(--line)}
details.q>summary{cursor:pointer;padding:5px 2px;list-style-position:outside;margin-left:1.1em}
details.q[open]>summary{background:var(--soft)}
.qtext{font-weight:500}
.meta{color:var(--muted);font-size:.82rem}
.hit-all{color:var(--good)}
.hit-some{color:var(--warn)}
.hit-none{color:var(--bad)}
.qbody{padding:4px 0 12px 1.1em}
details.inst{margin:.2em 0}
details.inst>summary{cursor:pointer;font-size:.85rem;padding:2px 0}
.ibody{padding:2px 0 10px 1em}
.ibody p{font-size:.85rem;margin:.15em 0}
.inst b{color:var(--muted);font-weight:600;margin-right:.5em}
table.matrix{width:auto;max-width:100%;margin:.4em 0 .6em}
table.matrix td:first-child{white-space:nowrap;padding-right:14px}
table.matrix th.num,table.matrix td.rank{text-align:center;min-width:2.4em;padding:2px 4px}
td.r1{background:#dcf3e2;color:var(--good);font-weight:700}
td.r10{background:#fff1cc}
td.rfar{background:#f3f4f6}
td.rnone{background:#fde4e1;color:var(--bad)}
table.sys td:nth-child(1){white-space:nowrap;width:12em}
table.sys td:nth-child(2){width:24%}
table.sys td:nth-child(3),table.sys td:nth-child(4){text-align:center;white-space:nowrap;width:6em}
table.sys td,.url{overflow-wrap:anywhere}
.url{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.8rem}
.yes{color:var(--good);font-weight:700}
.no{color:var(--bad)}
.answer{white-space:pre-line}
.passage{color:var(--muted);font-size:.8rem;border-left:3px solid var(--line);padding-left:6px;margin-top:2px}
"""

# Builds an opened question's rows from the JSON block, as text only (textContent), once; filters
# the list of questions. No library, no network.
SCRIPT = r"""
(function () {
  "use strict";
  var data = null;
  function load() {
    if (!data) { data = JSON.parse(document.getElementById("drill-data").textContent); }
    return data;
  }
  function str(i) { return i < 0 ? "" : data.strings[i]; }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = text; }
    return e;
  }
  function urlSpan(i) {
    var full = str(i), e = el("span", "url", full.replace(/^[a-z][a-z0-9+.\-]*:\/\/[^\/]+/i, "") || full);
    e.title = full;
    return e;
  }
  function line(label, parts) {
    var p = el("p");
    p.appendChild(el("b", null, label));
    parts.forEach(function (part, k) {
      if (k) { p.appendChild(document.createTextNode(", ")); }
      p.appendChild(part);
    });
    return p;
  }
  function resultRow(r) {
    var tr = el("tr"), answer = el("td");
    tr.appendChild(el("td", null, data.systems[r[0]]));
    var first = el("td");
    if (r[1] >= 0) { first.appendChild(urlSpan(r[1])); } else { first.textContent = "(nothing retrieved)"; }
    tr.appendChild(first);
    tr.appendChild(el("td", r[2] === 1 ? "yes" : "no", r[2] === 1 ? "\u2713" : "\u2717"));
    tr.appendChild(el("td", null, r[2] > 0 ? String(r[2]) : "\u2013"));
    answer.appendChild(el("div", "answer", r[3] >= 0 ? str(r[3]) : "(no answer)"));
    if (r[4] >= 0) { answer.appendChild(line("cited", [urlSpan(r[4])])); }
    if (r[5] >= 0) { answer.appendChild(el("div", "passage", str(r[5]))); }
    tr.appendChild(answer);
    return tr;
  }
  function rankCell(rank) {
    var cls = rank === 1 ? "r1" : rank > 0 && rank <= 10 ? "r10" : rank > 0 ? "rfar" : "rnone";
    return el("td", "rank " + cls, rank > 0 ? String(rank) : "\u2013");
  }
  function matrix(instances) {
    // systems x profiles: where each system ranked the first gold source, for every profile
    var table = el("table", "matrix"), head = el("tr"), tbody = el("tbody");
    head.appendChild(el("th", null, "first gold at"));
    instances.forEach(function (inst, k) {
      var th = el("th", "num", "P" + (k + 1));
      th.title = str(inst[0]);
      head.appendChild(th);
    });
    table.appendChild(el("thead")).appendChild(head);
    data.systems.forEach(function (system, s) {
      var tr = el("tr"), seen = false;
      tr.appendChild(el("td", null, system));
      instances.forEach(function (inst) {
        var r = inst[2].filter(function (row) { return row[0] === s; })[0];
        seen = seen || !!r;
        tr.appendChild(r ? rankCell(r[2]) : el("td", "rank", ""));
      });
      if (seen) { tbody.appendChild(tr); }
    });
    table.appendChild(tbody);
    return table;
  }
  function renderInstance(details) {
    var body = details.querySelector(".ibody");
    if (body.childElementCount) { return; }
    var inst = data.questions[Number(details.dataset.q)][Number(details.dataset.i)];
    var table = el("table", "sys"), head = el("tr"), tbody = el("tbody");
    body.appendChild(line("gold", inst[1].map(urlSpan)));
    ["system", "ranked first", "gold?", "first gold at", "answer, cited source and passage"].forEach(function (h) {
      head.appendChild(el("th", null, h));
    });
    table.appendChild(el("thead")).appendChild(head);
    inst[2].forEach(function (r) { tbody.appendChild(resultRow(r)); });
    table.appendChild(tbody);
    body.appendChild(table);
  }
  function render(details) {
    var body = details.querySelector(".qbody");
    if (body.childElementCount) { return; }
    var instances = load().questions[Number(details.dataset.q)];
    body.appendChild(matrix(instances));
    instances.forEach(function (inst, k) {
      var d = el("details", "inst"), summary = el("summary");
      d.dataset.q = details.dataset.q;
      d.dataset.i = String(k);
      summary.appendChild(el("b", null, "P" + (k + 1)));
      summary.appendChild(document.createTextNode(str(inst[0])));
      d.appendChild(summary);
      d.appendChild(el("div", "ibody"));
      body.appendChild(d);
      if (instances.length === 1) { d.open = true; renderInstance(d); }
    });
  }
  document.addEventListener("toggle", function (event) {
    var t = event.target;
    if (!t.open || !t.matches) { return; }
    if (t.matches("details.q")) { render(t); } else if (t.matches("details.inst")) { renderInstance(t); }
  }, true);
  var filter = document.getElementById("drill-filter"), missed = document.getElementById("drill-missed");
  if (!filter) { return; }
  function apply() {
    var words = filter.value.trim().toLowerCase(), shown = 0;
    document.querySelectorAll("details.q").forEach(function (d) {
      var keep = (!words || d.querySelector("summary").textContent.toLowerCase().indexOf(words) >= 0)
        && (!missed.checked || d.dataset.miss === "1");
      d.hidden = !keep;
      shown += keep ? 1 : 0;
    });
    document.getElementById("drill-count").textContent = shown + " questions";
  }
  filter.addEventListener("input", apply);
  missed.addEventListener("change", apply);
})();
"""
