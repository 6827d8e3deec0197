"""The demo college: determinism, make-up, link integrity, and an exact ground-truth manifest."""

from __future__ import annotations

import datetime
import io
import json
import re
from collections import Counter, deque
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlparse

import pytest
from pypdf import PdfReader
from selectolax.lexbor import LexborHTMLParser as HTMLParser

from advisor.config import example_config, load_config
from examples.demo_college import MANIFEST_NAME, SITE_DIR_NAME, SiteSummary, build_site
from examples.demo_college.catalog import DEPARTMENTS, PERIODS, name_in, periods_for, requirement
from examples.demo_college.dept_rules import RULE_PAGES, rule_facts, rule_path, rule_values, staircase
from examples.demo_college.model import file_for

AS_OF = datetime.date(2026, 3, 1)
BASE = "http://127.0.0.1:8765"
CONFIG_PATH = example_config("demo_college")


# Checks of any bundled college (the business college's tests use them too): the kit names the
# site folder and the manifest alike for every college.


def read_build(root: Path, build, as_of: datetime.date) -> tuple[SiteSummary, Path, list[dict]]:
    """Build a college under ``root``: its summary, its site folder and its manifest records."""
    summary = build(root, as_of)
    manifest = [json.loads(line) for line in (root / MANIFEST_NAME).read_text("utf-8").splitlines()]
    return summary, root / SITE_DIR_NAME, manifest


def snapshot(site: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(site)): (p.read_bytes(), p.stat().st_mtime_ns) for p in site.rglob("*") if p.is_file()}


def assert_rebuilt_byte_identical(built, build, as_of: datetime.date, root: Path) -> None:
    """A second build of ``as_of`` under ``root`` holds the same bytes as ``built``."""
    summary, site, _ = built
    other = build(root, as_of)
    assert other.sources == summary.sources
    ours = {k: v[0] for k, v in snapshot(site).items()}
    theirs = {k: v[0] for k, v in snapshot(root / SITE_DIR_NAME).items()}
    assert ours == theirs
    assert (root / MANIFEST_NAME).read_bytes() == (site.parent / MANIFEST_NAME).read_bytes()


def assert_rebuild_rewrites_nothing(build, as_of: datetime.date, root: Path, stale_file: str) -> Path:
    """Build twice in place with a stale file planted in between: the second build writes nothing,
    keeps every mtime (the manifest's too) and deletes only the stale file, whose path it returns."""
    build(root, as_of)
    site = root / SITE_DIR_NAME
    stale = site / stale_file
    stale.parent.mkdir(exist_ok=True)
    stale.write_text("stale")
    before = snapshot(site)
    manifest_mtime = (root / MANIFEST_NAME).stat().st_mtime_ns
    again = build(root, as_of)
    assert again.written == 0 and again.deleted == 1
    del before[stale_file]
    assert snapshot(site) == before  # same bytes and same mtimes
    assert (root / MANIFEST_NAME).stat().st_mtime_ns == manifest_mtime
    return stale


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return read_build(tmp_path_factory.mktemp("demo"), build_site, AS_OF)


@pytest.fixture(scope="module")
def config():
    return load_config(CONFIG_PATH)


def _html(site: Path, url_path: str) -> HTMLParser:
    return HTMLParser((site / file_for(url_path)).read_text("utf-8"))


def test_config_loads_and_matches_the_schema(config):
    assert [s.name for s in config.sources] == ["college-pages", "department-pages", "regulations", "notices", "faq"]
    assert list(config.profile) == ["department", "major_type", "admission_year", "grade", "student_status"]
    assert config.local_site and config.local_site.generate == "demo_college" and config.local_site.port == 8765
    assert config.source("notices").expire_after_days == 365
    for dept in DEPARTMENTS:  # every surface form the site uses is an alias the config knows
        assert set(dept.aliases) <= set(config.profile["department"].values[dept.code])


def test_two_builds_are_byte_identical(built, tmp_path):
    assert_rebuilt_byte_identical(built, build_site, AS_OF, tmp_path)


def test_rebuild_in_place_rewrites_nothing_and_removes_stale_files(tmp_path):
    stale = assert_rebuild_rewrites_nothing(build_site, AS_OF, tmp_path, "old/gone.html")
    assert not stale.parent.exists()  # the folder only the stale file was in goes too


def test_a_later_month_keeps_old_posts_at_their_urls(built, tmp_path):
    _, site, manifest = built
    later = build_site(tmp_path, datetime.date(2026, 4, 1))
    assert later.written > 0
    now = {m["path"]: m for m in manifest if m["kind"] == "board"}
    then = {json.loads(line)["path"]: json.loads(line)
            for line in (tmp_path / MANIFEST_NAME).read_text("utf-8").splitlines()}
    shared = set(now) & set(then)
    assert len(shared) > 100
    assert all(now[p]["title"] == then[p]["title"] and now[p]["date"] == then[p]["date"] for p in shared)


def test_counts_follow_the_reference_corpus(built):
    summary, _, manifest = built
    kinds = Counter(m["kind"] for m in manifest)
    sources = Counter(m["source"] for m in manifest)
    assert summary.sources == len(manifest) >= 500
    assert 4 <= kinds["pdf"] <= 6
    # per period (22 department x period pairs): curriculum, requirements and 3 cohort-rule pages;
    # then the department index and 15 pages x 3 departments
    assert 150 <= sources["department-pages"] <= 160
    assert 120 <= kinds["board"] <= 160
    assert 25 <= sum(m["expired"] for m in manifest if m["kind"] == "board") <= 35
    assert 260 <= kinds["faq"] <= 300
    assert 5 <= sum(m["duplicate_of"] is not None for m in manifest) <= 8
    assert len(PERIODS) == 8 and len(periods_for(DEPARTMENTS[2])) == 6  # AI has no cohorts before 2019


def test_every_pdf_has_pages_of_korean_text_and_its_headings(built):
    _, site, manifest = built
    pdfs = [m for m in manifest if m["kind"] == "pdf"]
    for record in pdfs:
        reader = PdfReader(io.BytesIO((site / file_for(record["path"])).read_bytes()))
        assert len(reader.pages) >= 3, record["path"]
        text = "\n".join(page.extract_text() for page in reader.pages)
        assert len(re.findall(r"[가-힣]", text)) > 500
        flat = re.sub(r"\s+", "", text)
        for section in record["sections"]:
            assert re.sub(r"\s+", "", section["heading"]) in flat, (record["path"], section["heading"])


def test_every_page_has_the_chrome_and_one_h1(built):
    _, site, _ = built
    for page in site.rglob("*.html"):
        tree = HTMLParser(page.read_text("utf-8"))
        assert tree.css_first('meta[charset="utf-8"]') is not None, page
        assert tree.css_first("header nav.gnb") and tree.css_first("nav.breadcrumb") and tree.css_first("footer")
        assert len(tree.css("main#content h1")) == 1, page
        assert tree.css_first('footer a[href="/admin/"]') is not None


def test_every_internal_link_resolves_to_a_file(built):
    _, site, _ = built
    for page in site.rglob("*.html"):
        url = "/" + str(page.relative_to(site))
        for node in HTMLParser(page.read_text("utf-8")).css("a[href], link[href]"):
            href = node.attributes["href"]
            target = urlparse(urljoin(BASE + url, href))
            if target.netloc != "127.0.0.1:8765" or not target.path:
                continue
            assert (site / file_for(target.path)).is_file(), (url, href)


def test_robots_disallows_admin(built):
    _, site, _ = built
    robots = (site / "robots.txt").read_text()
    assert "User-agent: *" in robots and "Disallow: /admin/" in robots
    assert (site / "admin" / "index.html").is_file()


def _crawl(site: Path, source) -> set[str]:
    """What a crawler of ``source`` fetches: BFS over links matching its allow patterns."""
    allow = [re.compile(p) for p in source.allow_patterns()]
    seen, queue = set(source.seeds), deque(source.seeds)
    while queue:
        url = queue.popleft()
        path = urlparse(url).path
        if not path.endswith(".html") and not path.endswith("/"):
            continue
        for node in _html(site, path).css("a[href]"):
            link = urldefrag(urljoin(url, node.attributes["href"]))[0]
            if link not in seen and "/admin/" not in link and any(p.search(link) for p in allow):
                seen.add(link)
                queue.append(link)
    return seen


def test_a_crawl_of_each_source_finds_exactly_its_manifest_documents(built, config):
    _, site, manifest = built
    for source in config.sources:
        fetched = _crawl(site, source)
        docs = {u for u in fetched if not source.documents or any(re.search(p, u) for p in source.documents)}
        expected = {m["path"] for m in manifest if m["source"] == source.name}
        if source.kind == "faq":
            found = set()
            for url in docs:
                items = _html(site, urlparse(url).path).css(source.selectors.faq_item)
                for n, item in enumerate(items, 1):
                    found.add(urlparse(url).path + "#" + (item.attributes.get("id") or f"faq-{n}"))
                    assert item.css_first("dt").text().strip() and item.css_first("dd").text().strip()
        else:
            found = {urlparse(u).path for u in docs}
        assert found == expected, (source.name, sorted(found ^ expected)[:5])


def test_manifest_records_are_well_formed(built, config):
    _, site, manifest = built
    schema = config.profile
    titles = {}
    for m in manifest:
        page = _html(site, m["path"]) if m["kind"] != "pdf" else None
        if m["kind"] == "faq":
            fragment = m["path"].split("#")[1]
            if fragment.startswith("faq-"):
                items = page.css("dl.faq > div.faq-item")
                item = items[int(fragment[4:]) - 1]
                assert "id" not in item.attributes
            else:
                item = page.css_first(f"#{fragment}")
            assert item.css_first("dt").text() == m["title"]
            titles[m["path"]] = (item.css_first("dt").html, item.css_first("dd").html)
        elif page is not None:
            assert page.css_first("main#content h1").text() == m["title"]
            headings = {n.text() for n in page.css("main#content h2, main#content h3")}
            assert all(s["heading"] in headings for s in m["sections"]), m["path"]
        if m["kind"] == "board":
            assert page.css_first("main#content time[datetime]").attributes["datetime"] == m["date"]
            age = (AS_OF - datetime.date.fromisoformat(m["date"])).days
            assert m["expired"] == (age > 365) and not 334 < age <= 365  # no post near the boundary
        for record in [m["applies_to"], *(s["applies_to"] for s in m["sections"])]:
            assert_applies_to(record, schema)
    for m in manifest:  # exact duplicates really are the same question and answer
        if m["duplicate_of"]:
            assert titles[m["path"]] == titles[m["duplicate_of"]]


def assert_applies_to(record: dict, schema) -> None:
    """A manifest's audience record (an example college's, tests/test_business_college.py's too):
    every profile attribute in the schema's order, each None, values of the schema in its order,
    or a range inside the schema's, narrower than the whole."""
    assert list(record) == list(schema)
    for name, value in record.items():
        if value is None:
            continue
        attribute = schema[name]
        if attribute.type == "categorical":
            assert value and value == [v for v in attribute.values if v in value], (name, value)
        else:
            low, high = value
            assert attribute.min <= low <= high <= attribute.max and (low, high) != (attribute.min, attribute.max)


def test_near_duplicates_differ_in_their_numbers(built):
    _, site, manifest = built
    for dept in DEPARTMENTS:
        for major_type in ("intensive", "double", "convergence"):
            credits = [requirement(dept, q, major_type).major for q in periods_for(dept)]
            assert all(a != b for a, b in zip(credits, credits[1:])), (dept.code, major_type, credits)
        for q in periods_for(dept):  # types differ within a page, and the page states each number
            reqs = [requirement(dept, q, t) for t in ("intensive", "double", "convergence")]
            assert len({r.major for r in reqs}) == 3
            text = _html(site, f"/departments/{dept.slug}/graduation-{q.slug}.html").css_first("main").text()
            assert all(f"{r.major}학점 이상" in text for r in reqs)
    for q in PERIODS[2:]:  # same period, different departments
        assert len({requirement(d, q, "intensive").major for d in DEPARTMENTS}) == 3
    graduation = [m for m in manifest if "/graduation-" in m["path"]]
    assert len(graduation) == 22 and all(len(m["sections"]) == 3 for m in graduation)
    credits = [s["facts"]["major_credits"] for m in graduation for s in m["sections"]]
    assert len(credits) == 66 and len(set(credits)) > 30


def test_profile_specific_sources_exist_for_every_kind(built):
    _, _, manifest = built
    limited = Counter()
    for m in manifest:
        for record in [m["applies_to"], *(s["applies_to"] for s in m["sections"])]:
            for name, value in record.items():
                if value is not None:
                    limited[name] += 1
    assert all(limited[name] >= 20 for name in ("department", "major_type", "admission_year", "grade", "student_status"))
    assert {m["lang"] for m in manifest} == {"ko", "en"}


def _rule_prefix(dept, page) -> str:
    """Where a department's pages of one rule start, whichever period they are for."""
    return f"/departments/{dept.slug}/{page.file.removesuffix('.html')}"


def test_cohort_rule_pages_are_one_page_per_department_and_period(built):
    _, site, manifest = built
    by_path = {m["path"]: m for m in manifest}
    rule_docs = {m["path"] for m in manifest
                 if any(m["path"].startswith(_rule_prefix(d, page)) for d in DEPARTMENTS for page in RULE_PAGES)}
    expected = {rule_path(d, page, q) for d in DEPARTMENTS for page in RULE_PAGES for q in periods_for(d)}
    assert rule_docs == expected  # no page left holding every cohort
    for dept in DEPARTMENTS:
        periods = periods_for(dept)
        for page in RULE_PAGES:
            facts = rule_facts(dept, page)
            for q in periods:
                record = by_path[rule_path(dept, page, q)]
                assert record["applies_to"]["department"] == [dept.code]
                assert record["applies_to"]["admission_year"] == [q.first, q.last]
                assert q.label in record["title"] and name_in(dept, q.first) in record["title"]
                [only] = record["sections"]
                assert only["applies_to"] == record["applies_to"] and only["facts"] == facts[q]
                tree = _html(site, record["path"])
                [block] = tree.css("main#content section")
                assert block.css_first("h2").text() == only["heading"]
                rows = {r.css_first("th").text(): r.css_first("td").text() for r in block.css("tbody tr")}
                for rule in page.rules:
                    assert not re.search(r"\d", rule.label)  # a label is what is asked, not a number
                    assert rows[rule.label].startswith(f"{facts[q][rule.key]}{rule.unit}"), (record["path"], rule.key)
                links = {n.attributes["href"] for n in tree.css("main#content a[href]")}
                assert links == {rule_path(dept, page, other) for other in periods if other != q}


def test_the_department_menu_links_each_rule_page_once_for_the_newest_cohort(built):
    _, site, _ = built
    for dept in DEPARTMENTS:
        menu = {n.attributes["href"] for n in _html(site, f"/departments/{dept.slug}/").css("main#content a[href]")}
        for page in RULE_PAGES:
            linked = {href for href in menu if href.startswith(_rule_prefix(dept, page))}
            assert linked == {rule_path(dept, page, periods_for(dept)[-1])}


def test_cohort_rules_differ_between_periods_and_departments():
    for page in RULE_PAGES:
        for rule in page.rules:
            series = {dept.code: dict(zip(periods_for(dept), rule_values(dept, rule))) for dept in DEPARTMENTS}
            for code, values in series.items():
                assert len(set(values.values())) >= 2, (code, rule.key)  # a revision changed it
            shared = set.intersection(*(set(v) for v in series.values()))
            assert any(len({series[c][q] for c in series}) > 1 for q in shared), rule.key


def test_staircase_moves_one_choice_at_a_time_and_rejects_too_little_room():
    choices = (3, 4, 6, 8, 10)
    for key in ("a", "b", "c", "d", "e", "f"):
        values = staircase(key, choices, 8)
        assert values == staircase(key, choices, 8) and len(set(values)) >= 2
        steps = [choices.index(b) - choices.index(a) for a, b in zip(values, values[1:])]
        assert all(abs(d) <= 1 for d in steps) and not ({1, -1} <= set(steps))  # one direction only
    with pytest.raises(ValueError, match="x"):
        staircase("x", (1,), 8)
    with pytest.raises(ValueError, match="y"):
        staircase("y", (1, 2), 1)


def test_a_limit_admitting_everyone_is_recorded_as_none():
    from examples.demo_college.model import applies

    record = applies(department=("CS", "DS", "AI"), admission_year=(2010, 2030), grade=(2, 3))
    assert record["department"] is None and record["admission_year"] is None and record["grade"] == [2, 3]


@pytest.mark.parametrize(("word", "pair", "expected"), [
    ("2019학번", "은/는", "은"), ("2021년도 입학자", "은/는", "는"), ("학사지원팀", "으로/로", "으로"),
    ("캡스톤디자인(전공필수)", "을/를", "을"), ("2020", "이/가", "이"), ("캡스톤디자인Ⅱ", "과/와", "와"), ("HCI", "을/를", "를"),
])
def test_particles_follow_the_last_syllable(word, pair, expected):
    from examples.demo_college.phrasing import particle

    assert particle(word, pair) == expected


def test_every_fact_question_has_an_english_wording_and_an_english_answer_can_state_the_fact():
    from examples.demo_college.facts import CREDIT_QUESTIONS, CURRICULUM_QUESTIONS, ENGLISH_QUESTIONS, states_fact

    korean = {q for questions in (*CREDIT_QUESTIONS.values(), *CURRICULUM_QUESTIONS.values()) for q in questions}
    assert korean == set(ENGLISH_QUESTIONS)
    assert states_fact("For 2021–2022, total credits is 130 and general education is 36.", ["130학점"])
    assert not states_fact("Credits by year\n- 2015: 140\n- 2021: 130", ["130학점"])  # every cohort's row
    assert not states_fact("total credits is 1300", ["130학점"])
