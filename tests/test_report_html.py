"""The evaluation report as one self-contained HTML page (eval/reports/page.py, written by
eval.reports.report.write_report) and `advisor report` (cli/report.py): untrusted text escaped, no network
resource named, any ReportTable rendered with all its columns and notes, the per-question
drill-down's data; and the page in Chromium at desktop width with the network blocked (Debian's
/usr/bin/chromium, as tests/test_web.py): every table fits, the charts load, the drill-down opens,
the load event fires within 2 s. One small evaluation rendered once, one browser for the module."""

from __future__ import annotations

import json
import re
import time
from datetime import datetime, timezone
from pathlib import Path

import polars as pl
import pytest

from eval.reports.page import NO_CHANGES, HtmlReport, drilldown_data, render_html, table_html
from eval.reports.report import write_report
from eval.reports.table import Column, ReportTable

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
               "--disable-sync", "--no-first-run"]
DESKTOP = {"width": 1280, "height": 800}
HOSTILE_QUESTION = '<script>alert("q")</script> 졸업학점은 몇 학점인가요?'
HOSTILE_ANSWER = '</script><img src=x onerror=alert(1)> 130학점입니다. [1]'
METRICS = ("mrr", "recall@1", "recall@5", "recall@10", "recall@50", "success@1", "success@5", "success@10",
           "success@50", "rouge_l", "token_f1", "keyword_match", "source_match", "grounded_correctness",
           "seconds_per_query", "questions_per_query")
SYSTEMS = ("bm25", "profill", "urag")
SITE = "http://college.example"


def _instances() -> list[dict]:
    """Four questions asked for two profiles each (profile_dependent), one asked for everyone."""
    texts = [HOSTILE_QUESTION, "전공필수는 몇 과목인가요?", "교양은 몇 학점 들어야 해요?", "영어 졸업요건이 뭐예요?"]
    instances = []
    for q, text in enumerate(texts):
        for p, (department, year) in enumerate((("CS", 2019), ("AI", 2023))):
            instances.append({"instance_id": f"q{q}-p{p}", "query": text, "query_type": "formal",
                              "category": ["졸업요건", "교육과정"][q % 2], "slice": "profile_dependent",
                              "profile": json.dumps({"department": department, "admission_year": year}),
                              "gold_sources": [f"{SITE}/{department.lower()}/{year}.html"]})
    instances.append({"instance_id": "g0", "query": "휴학 신청은 어떻게 해요?", "query_type": "formal",
                      "category": "학사", "slice": "profile_independent", "profile": None,
                      "gold_sources": [f"{SITE}/leave.html"]})
    return instances


def _result(instance: dict, system: str, setting: str, position: int) -> dict:
    gold = instance["gold_sources"][0]
    rank = 1 if system == "profill" or setting == "oracle" else [2, None, 5][position % 3]
    retrieved = [f"{SITE}/other/{i}.html" for i in range(4)]
    if rank:
        retrieved.insert(rank - 1, gold)
    answer = HOSTILE_ANSWER if instance["query"] == HOSTILE_QUESTION else f"{system} 답변 {position}: " + "가" * 400
    return {"system": system, "setting": setting, "instance_id": instance["instance_id"],
            "category": instance["category"], "query_type": instance["query_type"], "slice": instance["slice"],
            "gold_sources": instance["gold_sources"], "rank": rank, "retrieved_urls": retrieved,
            "retrieved_chunk_ids": [f"chunk-{url.rsplit('/', 1)[1]}" for url in retrieved],
            "answer": answer, "citations": retrieved[:1], "source_match": 1.0 if rank == 1 else 0.0,
            "seconds": 0.01, "questions": 1 if system == "profill" and setting == "deployment" else 0}


def small_evaluation() -> dict:
    """write_report's inputs for 3 systems x 2 settings over _instances(), with the chunks' texts."""
    instances = _instances()
    per_query = [_result(instance, system, setting, i) for setting in ("deployment", "oracle")
                 for system in SYSTEMS for i, instance in enumerate(instances)]
    tiers = json.dumps({"template": 0.1, "faq": 0.3, "documents": 0.6, "fallback": 0.0,
                        "accuracy": {"template": 1.0, "faq": 0.9, "documents": 0.5, "fallback": None}})
    aggregates = [{"system": s, "setting": t, "n": 8, **dict.fromkeys(METRICS, 0.5 + 0.1 * i), "skipped": None,
                   "slice": "profile_dependent", "tiers": tiers if s == "urag" else None}
                  for t in ("deployment", "oracle") for i, s in enumerate(SYSTEMS)]
    slices = [{"system": s, "setting": t, "slice": name, "n": n, **dict.fromkeys(METRICS, 0.4)}
              for t in ("deployment", "oracle") for s in SYSTEMS
              for name, n in (("profile_dependent", 8), ("profile_independent", 1))]
    intents = pl.DataFrame([{"intent": i, "precision": 0.9, "recall": 0.8, "f1": 0.85, "support": 5, "n": 10,
                             "accuracy": 0.9, "macro_f1": 0.85, "router": "r1"} for i in ("faq", "retrieval")])
    predictions = pl.DataFrame({"intent": ["faq"] * 5 + ["retrieval"] * 5,
                                "predicted": ["faq"] * 4 + ["retrieval"] * 6})
    urls = {url for row in per_query for url in row["retrieved_urls"]}
    chunks = {f"chunk-{url.rsplit('/', 1)[1]}": (url, f"<b>{url}</b> 의 본문 " + "나" * 500) for url in urls}
    return {"aggregates": pl.DataFrame(aggregates), "per_query": pl.DataFrame(per_query),
            "benchmark": pl.DataFrame(instances), "chunks": chunks,
            "extra": {"slices": pl.DataFrame(slices), "intents": intents, "predictions": predictions}}


@pytest.fixture(scope="module")
def evaluation() -> dict:
    return small_evaluation()


@pytest.fixture(scope="module")
def rendered(evaluation, tmp_path_factory) -> dict:
    """The report written once for the module: write_report's result and the page's text."""
    directory = tmp_path_factory.mktemp("report")
    written = write_report(evaluation["aggregates"], evaluation["per_query"], directory, "Evaluation <of> a college",
                           {"build_id": "b1", "gold_from": "annotations"}, benchmark=evaluation["benchmark"],
                           chunks=evaluation["chunks"], **evaluation["extra"])
    return {**written, "text": written["html"].read_text(encoding="utf-8")}


def drill_json(text: str) -> dict:
    found = re.search(r'<script type="application/json" id="drill-data">(.*?)</script>', text, re.S)
    assert found, "no drill-down data in the page"
    return json.loads(found.group(1))


# --- the page's text ---------------------------------------------------------------------------


def test_write_report_writes_the_html_beside_the_markdown_and_the_same_inputs_give_the_same_bytes(
        evaluation, rendered):
    assert rendered["html"] == rendered["markdown"].with_name("report.html") and rendered["html"].is_file()
    again = write_report(evaluation["aggregates"], evaluation["per_query"], rendered["html"].parent,
                         "Evaluation <of> a college", {"gold_from": "annotations", "build_id": "b1"},
                         benchmark=evaluation["benchmark"], chunks=evaluation["chunks"], **evaluation["extra"])
    assert again["html"].read_text(encoding="utf-8") == rendered["text"]


def test_questions_answers_and_titles_are_escaped(rendered):
    text = rendered["text"]
    assert "<script>alert" not in text and "<img src=x" not in text and "<b>http" not in text
    assert "&lt;script&gt;alert(&quot;q&quot;)&lt;/script&gt;" in text  # the summary shows it as text
    assert "<title>Evaluation &lt;of&gt; a college</title>" in text
    # the drill-down's JSON can neither end its <script> element nor start markup
    block = re.search(r'id="drill-data">(.*?)</script>', text, re.S).group(1)
    assert "<" not in block and ">" not in block
    assert HOSTILE_ANSWER in drill_json(text)["strings"]  # and it decodes back to the very text


def test_the_page_names_no_network_resource(rendered):
    text = rendered["text"]
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", text, re.I)
    assert not re.search(r"<link\b|@import|url\(", text, re.I)  # no stylesheet, font or CSS image from outside
    assert re.findall(r'src="([a-z]+):', text) == ["data"] * 5  # the five charts, inline
    assert not re.search(r"<script[^>]*\bsrc=", text, re.I)


def test_the_page_has_every_section_and_says_when_there_is_no_previous_run(rendered):
    text = rendered["text"]
    for heading in ("What changed since the previous run", "Table 1: retrieval and answers", "Table 2: ablations",
                    "Answer quality", "Benchmark slices", "MRR by category", "MRR by query type",
                    "URAG answer tiers", "Intent routing", "Charts", "Questions, one by one"):
        assert f">{heading}" in text, heading
    assert NO_CHANGES in text
    assert "Gold sources from: annotations (caveat:" in text and 'class="gold caveat"' in text
    assert "Annotation error and retrieval error" not in text  # no label gap in this run: no section


def test_any_report_table_renders_with_all_its_shown_columns_and_notes():
    """A column added to a table (an interval, a p-value) appears without the renderer changing."""
    table = ReportTable((Column("system", "system", "text"), Column("MRR", "mrr"),
                         Column("MRR 95% CI", "ci", "text", right=True), Column("p (paired)", "p", decimals=4),
                         Column("why skipped", "skipped", "text", markdown=False)),
                        ({"system": "profill", "mrr": 0.97149, "ci": "[0.960, 0.981]", "p": 0.00012},
                         {"system": "bm25", "mrr": None, "ci": None, "p": None, "skipped": "<no LLM>"}),
                        notes=("CI: bootstrap over questions.", "p < 0.05 & more"))
    page = table_html(table)
    assert re.findall(r"<th(?: [^>]*)?>(.*?)</th>", page) == ["system", "MRR", "MRR 95% CI", "p (paired)"]
    assert ">0.971<" in page and ">[0.960, 0.981]<" in page and ">0.0001<" in page and ">–<" in page
    assert '<p class="note">CI: bootstrap over questions.</p>' in page and "p &lt; 0.05 &amp; more" in page
    assert "no LLM" not in page  # a records-only column is said in the notes, as in the Markdown


def test_rows_sharing_their_first_value_read_as_groups_and_other_tables_stay_plain():
    columns = (Column("setting", "setting", "text"), Column("system", "system", "text"))
    grouped = table_html(ReportTable(columns, tuple({"setting": t, "system": s} for t in ("deployment", "oracle")
                                                    for s in ("bm25", "profill"))))
    assert grouped.count('class="same"') == 2 and grouped.count('<tr class="group">') == 1
    plain = table_html(ReportTable(columns[1:], ({"system": "bm25"}, {"system": "profill"})))
    assert 'class="same"' not in plain and 'class="group"' not in plain


def test_the_changes_table_is_shown_when_given():
    changes = ReportTable((Column("system", "system", "text"), Column("Δ MRR", "delta")),
                          ({"system": "profill", "delta": 0.0123},), notes=("Against run r0.",))
    text = render_html(HtmlReport(title="Evaluation", gold="Gold sources from: truth.", lineage=(), tables={},
                                  over="every instance", changes=changes))
    assert NO_CHANGES not in text and ">Δ MRR<" in text and ">0.012<" in text and "Against run r0." in text
    assert "No per-question results to drill into" in text  # no drill-down data: said, not broken


def test_drilldown_groups_the_main_slice_by_question_with_what_each_system_ranked_first_and_cited(evaluation):
    data = drilldown_data(evaluation["per_query"], evaluation["benchmark"], evaluation["chunks"])
    strings = data["strings"]
    assert data["setting"] == "deployment" and data["systems"] == list(SYSTEMS)
    assert [q["text"] for q in data["questions"]] == ["전공필수는 몇 과목인가요?", "영어 졸업요건이 뭐예요?",
                                                      HOSTILE_QUESTION, "교양은 몇 학점 들어야 해요?"]  # by category
    question = data["questions"][2]
    assert len(question["instances"]) == 2 and (question["reference"], question["hits"], question["asked"]) == (
        "profill", 2, 2)
    profile, gold, rows = question["instances"][0]
    assert strings[profile] == "department=CS · admission_year=2019"
    assert [strings[g] for g in gold] == [f"{SITE}/cs/2019.html"]
    bm25, profill = rows[0], rows[1]
    assert data["systems"][bm25[0]] == "bm25" and strings[bm25[1]] == f"{SITE}/other/0.html" and bm25[2] == 2
    assert strings[profill[1]] == f"{SITE}/cs/2019.html" and profill[2] == 1
    assert strings[profill[3]] == HOSTILE_ANSWER and strings[profill[4]] == f"{SITE}/cs/2019.html"
    passage = strings[profill[5]]
    assert passage.startswith(f"<b>{SITE}/cs/2019.html</b> 의 본문") and len(passage) == 300 and passage.endswith("…")
    long_answer = strings[data["questions"][0]["instances"][0][2][0][3]]
    assert len(long_answer) == 240 and long_answer.endswith("…")
    # the profile-independent question is not in the main slice
    assert all(q["text"] != "휴학 신청은 어떻게 해요?" for q in data["questions"])
    # a setting the run does not have: the first one it has
    assert drilldown_data(evaluation["per_query"], evaluation["benchmark"], setting="pilot")["setting"] == "deployment"
    assert drilldown_data(evaluation["per_query"], None) is None


def test_the_drilldown_stores_each_string_once(evaluation):
    """A profile-blind system's answer to a question is the same whoever asks: stored once."""
    data = drilldown_data(evaluation["per_query"], evaluation["benchmark"], evaluation["chunks"])
    assert len(data["strings"]) == len(set(data["strings"]))


# --- in Chromium at 1280 x 800, offline ----------------------------------------------------------


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium at /usr/bin/chromium (`make test` installs it as root: "
                    "apt-get install chromium chromium-driver fonts-nanum)")
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def desktop_page(browser, rendered):
    """The report at 1280 x 800 with every request that is not the file itself (or an inline
    data: URI) refused and remembered."""
    context = browser.new_context(viewport=DESKTOP)
    attempted = []

    def refuse_the_network(route):
        if route.request.url.startswith(("file:", "data:")):
            route.continue_()
        else:
            attempted.append(route.request.url)
            route.abort()

    context.route("**/*", refuse_the_network)
    page = context.new_page()
    page.goto(rendered["html"].as_uri(), wait_until="load")
    yield page, attempted
    context.close()


def overflowing_tables(page) -> list:
    """[table's scrollWidth, its container's clientWidth] of every visible table wider than its container."""
    return page.evaluate("""() => [...document.querySelectorAll('table')]
        .filter(t => t.offsetParent !== null)
        .map(t => [t.scrollWidth, t.parentElement.clientWidth])
        .filter(([table, container]) => table > container)""")


def test_the_page_loads_offline_within_two_seconds(desktop_page):
    page, attempted = desktop_page
    load = page.evaluate("performance.getEntriesByType('navigation')[0].loadEventStart")
    assert 0 < load <= 2000, f"load event at {load:.0f} ms"
    assert attempted == []


def test_every_table_fits_at_1280_px_and_the_page_does_not_scroll_sideways(desktop_page):
    page, _ = desktop_page
    assert page.locator("table").count() == 9  # every table of the report has rows here
    assert overflowing_tables(page) == []
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")


def test_the_charts_load(desktop_page):
    page, _ = desktop_page
    widths = page.evaluate("[...document.images].map(i => i.complete ? i.naturalWidth : 0)")
    assert widths == [1200] * 5
    shown = page.evaluate("[...document.images].map(i => i.getBoundingClientRect().width)")
    assert all(0 < w <= DESKTOP["width"] for w in shown)  # max-width: 100%


def test_the_drilldown_opens_and_shows_untrusted_text_as_text(desktop_page):
    page, attempted = desktop_page
    question = page.locator("details.q").filter(has_text="졸업학점은")
    question.locator("summary").click()
    matrix = question.locator("table.matrix")
    matrix.wait_for(timeout=5000)
    assert matrix.locator("tbody tr").count() == len(SYSTEMS)
    assert question.locator("summary .qtext").inner_text().startswith('<script>alert("q")</script>')
    question.locator("details.inst summary").first.click()
    table = question.locator("details.inst table.sys").first
    table.wait_for(timeout=5000)
    cells = table.locator("tbody tr").first.locator("td")
    assert cells.nth(0).inner_text() == "bm25" and cells.nth(2).inner_text() == "✗" and cells.nth(3).inner_text() == "2"
    assert HOSTILE_ANSWER in table.inner_text()  # the hostile answer as text: no <img> was made of it
    assert question.locator("img").count() == 0 and attempted == []
    assert overflowing_tables(page) == []
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")


def test_the_filter_hides_questions_that_do_not_match(desktop_page):
    page, _ = desktop_page
    page.fill("#drill-filter", "전공필수")
    assert page.locator("details.q:visible").count() == 1
    assert page.locator("#drill-count").inner_text() == "1 questions"
    page.fill("#drill-filter", "")
    assert page.locator("details.q:visible").count() == 4


# --- advisor report ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def recorded_warehouse(tmp_path_factory, evaluation) -> tuple[Path, str]:
    """A warehouse whose lakehouse holds the small evaluation as one run."""
    from types import SimpleNamespace

    from advisor.lakehouse import connect
    from eval import store

    warehouse = tmp_path_factory.mktemp("warehouse")
    instances = [{"id": r["instance_id"], **{k: v for k, v in r.items() if k != "instance_id"},
                  "profile": json.loads(r["profile"]) if r["profile"] else None}
                 for r in evaluation["benchmark"].to_dicts()]
    aggregates = [{**row, "slices": None} for row in evaluation["aggregates"].to_dicts()]
    per_query = [{**row, "questions": [], "questions_asked": row["questions"]}
                 for row in evaluation["per_query"].to_dicts()]
    meta = store.RunMeta(benchmark="bench.jsonl", benchmark_hash="h1", instances=len(instances), build_id="b1",
                         annotator="rules", embedder="lsa", code_version="c1", config_hash="f1",
                         systems=SYSTEMS, settings=("deployment", "oracle"), started_at=datetime.now(timezone.utc),
                         institution="Test College")
    with connect(warehouse) as con:
        run_id = store.record_run(con, outcome=SimpleNamespace(per_query=per_query, aggregates=aggregates, params={}),
                                  run_meta=meta, instances=instances)
    return warehouse, run_id


def advisor(*args: str, capsys) -> tuple[int, str, str]:
    from cli.main import main

    code = main(["report", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_advisor_report_renders_a_missing_page_once_and_prints_its_path(recorded_warehouse, capsys, monkeypatch):
    warehouse, run_id = recorded_warehouse
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    page = warehouse / "reports" / run_id / "report.html"

    code, out, err = advisor("--warehouse", str(warehouse), capsys=capsys)
    assert code == 0 and out.strip() == str(page) and page.is_file() and "rendered" in err
    text = page.read_text(encoding="utf-8")
    assert "Evaluation of Test College" in text and "전공필수는 몇 과목인가요?" in text
    written_at = page.stat().st_mtime_ns
    time.sleep(0.01)
    code, out, err = advisor("--warehouse", str(warehouse), "--run-id", run_id, "--open", capsys=capsys)
    assert code == 0 and out.strip() == str(page) and "rendered" not in err
    assert page.stat().st_mtime_ns == written_at and opened == [page.as_uri()]


def test_advisor_report_without_a_lakehouse_or_a_run_exits_2_with_one_line(recorded_warehouse, tmp_path, capsys):
    from advisor.lakehouse import connect

    code, out, err = advisor("--warehouse", str(tmp_path / "none"), capsys=capsys)
    assert code == 2 and not out and "no lakehouse" in err and len(err.strip().splitlines()) == 1
    connect(tmp_path / "empty").close()
    code, out, err = advisor("--warehouse", str(tmp_path / "empty"), capsys=capsys)
    assert code == 2 and "no evaluation run" in err and len(err.strip().splitlines()) == 1
    code, _, err = advisor("--warehouse", str(recorded_warehouse[0]), "--run-id", "nope", capsys=capsys)
    assert code == 2 and "'nope'" in err and len(err.strip().splitlines()) == 1
