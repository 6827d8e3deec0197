"""The business college (the second bundled institution): determinism, a manifest consistent with
the pages it describes, real EUC-KR bytes, a config whose schema differs from the demo's, the
loopback server's wget-mirror lookups, and (with `business_warehouse`) the pipeline on it."""

from __future__ import annotations

import datetime
import io
import json
import re
import urllib.error
import urllib.request
from collections import Counter, deque
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlsplit

import pytest
from pypdf import PdfReader
from selectolax.lexbor import LexborHTMLParser as HTMLParser

from advisor.config import DEMO_CONFIG_PATH, example_config, load_config
from examples.business_college import MANIFEST_NAME, build_site
from examples.business_college.catalog import DEPARTMENTS, periods_for, requirement, requirement_pages
from examples.business_college.model import file_for
from tests.test_demo_college import (
    assert_applies_to,
    assert_rebuild_rewrites_nothing,
    assert_rebuilt_byte_identical,
    read_build,
)

AS_OF = datetime.date(2026, 12, 1)
CONFIG_PATH = example_config("business_college")
HOST = "127.0.0.1:8766"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return read_build(tmp_path_factory.mktemp("business"), build_site, AS_OF)


@pytest.fixture(scope="module")
def config():
    return load_config(CONFIG_PATH)


def _page(site: Path, url_path: str) -> HTMLParser:
    data = (site / file_for(url_path)).read_bytes()
    return HTMLParser(data.decode("cp949" if url_path.startswith("/old/") else "utf-8"))


# ----------------------------------------------------------------------------- determinism


def test_two_builds_are_byte_identical(built, tmp_path):
    assert_rebuilt_byte_identical(built, build_site, AS_OF, tmp_path)


def test_rebuild_in_place_rewrites_nothing_and_removes_stale_files(tmp_path):
    assert_rebuild_rewrites_nothing(build_site, AS_OF, tmp_path, "bbs/view.php?bo=notice&no=1.html")


def test_a_later_month_keeps_posts_at_their_urls(built, tmp_path):
    _, _, manifest = built
    build_site(tmp_path, datetime.date(2027, 1, 1))
    now = {m["path"]: m for m in manifest if m["kind"] == "board"}
    then = {m["path"]: m for m in map(json.loads, (tmp_path / MANIFEST_NAME).read_text("utf-8").splitlines())}
    shared = set(now) & set(then)
    assert len(shared) > 0.8 * len(now)
    assert all(now[p]["title"] == then[p]["title"] and now[p]["date"] == then[p]["date"] for p in shared)


@pytest.mark.parametrize("as_of", [datetime.date(2025, 1, 1), datetime.date(2027, 7, 1), datetime.date(2027, 12, 1)])
def test_any_month_of_the_documented_span_builds(as_of, tmp_path):
    """A post in a year past the schema's last cohort (the config not extended yet) is written for
    first-years, not for a cohort the schema cannot hold (that crashed the July 2027 build)."""
    summary = build_site(tmp_path, as_of)
    records = [json.loads(line) for line in (tmp_path / MANIFEST_NAME).read_text("utf-8").splitlines()]
    assert summary.sources == len(records) > 250
    assert all(r["applies_to"]["entry_year"] is None or r["applies_to"]["entry_year"][1] <= 2026 for r in records)


# ----------------------------------------------------------------------------- the manifest


def test_counts_and_kinds(built, config):
    summary, _, manifest = built
    kinds, sources = Counter(m["kind"] for m in manifest), Counter(m["source"] for m in manifest)
    assert 280 <= summary.sources == len(manifest) <= 500
    assert set(sources) == {s.name for s in config.sources}  # every source has documents
    assert kinds["pdf"] == 3 and kinds["board"] >= 60 and kinds["faq"] >= 80
    assert 0 < sum(bool(m["expired"]) for m in manifest) < kinds["board"]
    assert {m["lang"] for m in manifest} == {"ko", "en"}


def test_every_manifest_path_is_a_generated_file(built):
    _, site, manifest = built
    for m in manifest:
        assert (site / file_for(m["path"])).is_file(), m["path"]


def test_every_applies_to_is_valid_for_the_schema(built, config):
    _, _, manifest = built
    for m in manifest:
        for record in [m["applies_to"], *(s["applies_to"] for s in m["sections"])]:
            assert_applies_to(record, config.profile)
    limited = Counter(n for m in manifest for r in [m["applies_to"], *(s["applies_to"] for s in m["sections"])]
                      for n, v in r.items() if v is not None)
    assert all(limited[name] >= 15 for name in config.profile), limited


TITLE_OF = {"board": "h3.view-subject", "archive": "td#main_text p.title"}


def test_titles_and_section_headings_are_what_the_pages_render(built):
    _, site, manifest = built
    for m in manifest:
        if m["kind"] == "pdf":
            reader = PdfReader(io.BytesIO((site / file_for(m["path"])).read_bytes()))
            assert len(reader.pages) >= 3 and reader.metadata.title == m["title"]
            flat = re.sub(r"\s+", "", "\n".join(p.extract_text() for p in reader.pages))
            assert all(re.sub(r"\s+", "", s["heading"]) in flat for s in m["sections"]), m["path"]
            continue
        tree = _page(site, m["path"])
        if m["kind"] == "faq":
            anchor = m["path"].split("#")[1]
            items = tree.css("div.faq-wrap > article.faq-item")
            item = items[int(anchor[4:]) - 1] if anchor.startswith("faq-") else tree.css_first(f"#{anchor}")
            assert not anchor.startswith("faq-") or "id" not in item.attributes
            assert item.css_first("h3.faq-q button").text(deep=True).removeprefix("Q") == m["title"]
            continue
        selector = TITLE_OF.get(m["kind"], TITLE_OF.get(m["source"], "div.sub-title h2"))
        assert tree.css_first(selector).text() == m["title"], m["path"]
        headings = {n.text() for n in tree.css("div.cont_area h3, div.cont_area h4")}
        assert all(s["heading"] in headings for s in m["sections"]), m["path"]


def test_board_dates_are_text_and_expiry_follows_the_date(built):
    _, site, manifest = built
    posts = [m for m in manifest if m["kind"] == "board"]
    for m in posts:
        tree = _page(site, m["path"])
        assert tree.css_first("time") is None
        date = datetime.date.fromisoformat(m["date"])
        assert date.strftime("%Y.%m.%d") in tree.css_first("ul.view-info li.date").text()
        age = (AS_OF - date).days
        assert m["expired"] == (age > 365) and not 334 < age <= 365


def test_faq_duplicates_repeat_the_canonical_copy_verbatim(built):
    _, site, manifest = built
    by_path = {m["path"]: m for m in manifest}

    def item_html(path: str) -> str:
        page, anchor = path.split("#")
        return _page(site, page).css_first(f"#{anchor}").html.replace(f'id="{anchor}"', "")

    duplicates = [m for m in manifest if m["duplicate_of"]]
    assert duplicates
    for m in duplicates:
        canonical = by_path[m["duplicate_of"]]
        assert canonical["duplicate_of"] is None and canonical["path"] < m["path"]
        assert item_html(m["path"]) == item_html(canonical["path"])


def test_departments_founded_later_have_no_documents_for_earlier_cohorts(built):
    _, _, manifest = built
    first = {d.code: d.first_cohort for d in DEPARTMENTS}
    for m in manifest:
        for record in [m["applies_to"], *(s["applies_to"] for s in m["sections"])]:
            majors, years = record["major"], record["entry_year"]
            if majors and years and len(majors) == 1:
                assert years[0] >= first[majors[0]], m["path"]


def test_near_duplicates_differ_in_their_numbers(built):
    for dept in DEPARTMENTS:
        majors = [requirement(dept, q, requirement_pages(dept)[0]).major for q in periods_for(dept)]
        assert all(a != b for a, b in zip(majors, majors[1:])), dept.code
    business = DEPARTMENTS[0]
    for q in periods_for(business):
        seoul, sejong = (requirement(business, q, c) for c in ("seoul", "sejong"))
        assert seoul.major != sejong.major and sejong.internship_hours and not seoul.internship_hours


def test_legacy_pages_are_cp949_bytes_and_declare_it(built):
    _, site, manifest = built
    legacy = [m for m in manifest if m["source"] == "archive"]
    assert legacy
    for m in legacy:
        data = (site / file_for(m["path"])).read_bytes()
        with pytest.raises(UnicodeDecodeError):
            data.decode("utf-8")
        text = data.decode("cp949")
        assert re.search(r'<meta[^>]+charset=euc-kr', text, re.I) and m["title"] in text


# ----------------------------------------------------------------------------- the config


def test_config_loads_and_its_schema_differs_from_the_demo(config):
    demo = load_config(DEMO_CONFIG_PATH)
    assert config.local_site and config.local_site.generate == "business_college" and config.local_site.port == 8766
    assert config.pipeline.annotation_truth == "business_college/manifest.jsonl"
    ours, theirs = config.profile, demo.profile
    assert ours[next(iter(ours))].type == "categorical"  # a department-like attribute first
    assert set(ours) - set(theirs) and set(theirs) - set(ours)  # attributes added and dropped
    assert list(ours) != list(theirs)
    [year] = [a for a in ours.values() if a.type == "year"]
    assert (year.min, year.max) != (theirs["admission_year"].min, theirs["admission_year"].max)
    status = next(a for n, a in ours.items() if a.type == "categorical" and "재학생" in sum(a.values.values(), ()))
    assert set(status.values) != set(theirs["student_status"].values)
    for dept in DEPARTMENTS:  # every surface form the site uses is an alias the config knows
        assert set(dept.aliases) <= set(ours["major"].values[dept.code])


def _crawl(site: Path, source) -> set[str]:
    """What a crawler of ``source`` fetches: BFS over links matching its allow patterns."""
    allow = [re.compile(p) for p in source.allow_patterns()]
    seen, queue = set(source.seeds), deque(source.seeds)
    while queue:
        url = queue.popleft()
        path = url.split(HOST, 1)[1]
        if path.endswith((".pdf", ".hwp")):
            continue
        for node in _page(site, path).css("a[href]"):
            link = urldefrag(urljoin(url, node.attributes["href"]))[0]
            if link not in seen and any(p.search(link) for p in allow) and "/admin/" not in link:
                seen.add(link)
                queue.append(link)
    return seen


def test_a_crawl_of_each_source_finds_exactly_its_manifest_documents(built, config):
    _, site, manifest = built
    for source in config.sources:
        fetched = {u for u in _crawl(site, source) if not source.documents or any(re.search(p, u) for p in source.documents)}
        expected = {m["path"] for m in manifest if m["source"] == source.name}
        if source.kind == "faq":
            found = set()
            for url in fetched:
                path = url.split(HOST, 1)[1]
                for n, item in enumerate(_page(site, path).css(source.selectors.faq_item), 1):
                    found.add(f"{path}#{item.attributes.get('id') or f'faq-{n}'}")
        else:
            found = {u.split(HOST, 1)[1] for u in fetched}
        assert found == expected, (source.name, sorted(found ^ expected)[:5])


# ----------------------------------------------------------------------------- the loopback server


def test_the_loopback_server_serves_a_wget_mirror(built):
    from advisor.ingest.local_site import serve_directory

    _, site, manifest = built
    post = next(m["path"] for m in manifest if m["kind"] == "board")
    with serve_directory(site) as base:
        def get(path: str) -> tuple[int, str, bytes]:
            try:
                with urllib.request.urlopen(base.rstrip("/") + path) as response:
                    return response.status, response.headers["Content-Type"], response.read()
            except urllib.error.HTTPError as error:
                return error.code, "", b""

        status, kind, body = get(post)
        assert status == 200 and kind == "text/html" and body == (site / file_for(post)).read_bytes()
        assert get("/index.php")[:2] == (200, "text/html")  # index.php.html
        assert get("/common/css/sub.css?v=3")[0] == 200  # a query a static file ignores
        assert get("/data/files/leave_form.hwp")[1] != "text/html"
        assert get(urlsplit(post).path + "?bo=notice&no=999999")[0] == 404
        # a query is part of a file NAME, never a path: this is robots.txt itself
        assert get("/robots.txt?x=/../../etc/passwd")[2] == (site / "robots.txt").read_bytes()


# ----------------------------------------------------------------------------- the pipeline on it


@pytest.fixture(scope="module")
def lakehouse(business_warehouse):
    import duckdb

    con = duckdb.connect(str(business_warehouse.root / "lakehouse.duckdb"), read_only=True)
    config = business_warehouse.config()
    base = re.match(r"^https?://[^/]+", config.sources[0].seeds[0]).group(0)
    manifest = {m["path"]: m for m in map(json.loads, (business_warehouse.root / "business_college" / MANIFEST_NAME)
                                          .read_text("utf-8").splitlines())}
    yield con, config, base, manifest
    con.close()


def _rows(con, sql: str, *params) -> list[dict]:
    cursor = con.execute(sql, list(params))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def test_pipeline_finds_every_manifest_document_from_every_source(lakehouse):
    con, config, base, manifest = lakehouse
    docs = {d["url"].removeprefix(base): d for d in _rows(con, "SELECT url, source, title, lang, status FROM documents")}
    assert set(docs) == set(manifest)
    assert {d["source"] for d in docs.values() if d["status"] == "active"} == {s.name for s in config.sources}
    assert all(docs[p]["title"] == m["title"] and docs[p]["lang"] == m["lang"] for p, m in manifest.items())
    assert {m["lang"] for m in manifest.values() if m["source"] == "english-pages"} == {"en"}


def test_euc_kr_pages_are_decoded(lakehouse):
    con, _, base, manifest = lakehouse
    raws = _rows(con, "SELECT url, encoding FROM raw_documents WHERE source = 'archive'")
    assert raws and all(r["encoding"] == "cp949" for r in raws)
    for doc in _rows(con, "SELECT url, title, text FROM documents WHERE source = 'archive'"):
        assert "\ufffd" not in doc["text"] and len(re.findall(r"[가-힣]", doc["text"])) > 50
        assert doc["title"] == manifest[doc["url"].removeprefix(base)]["title"]


def test_board_dates_and_expiry(lakehouse):
    con, _, base, manifest = lakehouse
    notices = _rows(con, "SELECT url, published_on, status FROM documents WHERE kind = 'notice'")
    assert len(notices) == sum(m["kind"] == "board" for m in manifest.values())
    for doc in notices:
        truth = manifest[doc["url"].removeprefix(base)]
        assert doc["published_on"].isoformat() == truth["date"]
        assert (doc["status"] == "expired") == truth["expired"]
    assert {d["status"] for d in notices} == {"active", "expired"}


def test_faq_entries_and_duplicates(lakehouse):
    con, _, base, manifest = lakehouse
    faq = {d["url"].removeprefix(base): d for d in _rows(con, "SELECT url, status, duplicate_of FROM documents WHERE kind = 'faq'")}
    assert any("#faq-" in p for p in faq) and any("#faq-" not in p for p in faq)
    for path, truth in manifest.items():
        if truth["kind"] == "faq":
            expected = base + truth["duplicate_of"] if truth["duplicate_of"] else None
            assert faq[path]["duplicate_of"] == expected and (faq[path]["status"] == "duplicate") == bool(expected)


def test_unreadable_files_are_recorded_not_fatal(lakehouse):
    con, *_ = lakehouse
    failures = _rows(con, "SELECT url, reason FROM ingest_failures")
    assert [f["reason"] for f in failures if f["url"].endswith(".hwp")] == ["unsupported_content_type"]


def test_annotation_accuracy_is_measured_on_every_attribute(lakehouse):
    con, config, _, _ = lakehouse
    rows = _rows(con, """SELECT attribute, n, exact_match, precision, recall FROM annotation_accuracy
                         WHERE run_id = (SELECT max_by(run_id, measured_at) FROM annotation_accuracy)""")
    chunks = con.execute("SELECT count(*) FROM chunks").fetchone()[0]
    assert {r["attribute"] for r in rows} == set(config.profile)
    assert all(r["n"] == chunks and r["exact_match"] >= 0.9 and r["recall"] >= 0.9 for r in rows), rows
    built = {r["asset"] for r in _rows(con, "SELECT DISTINCT asset FROM materializations")}
    assert {"annotation_accuracy", "index_build"} <= built and not built & {"qa_benchmark", "evaluation"}
