"""Annotation that reads structure: labels that list one audience's facets, a department that only
hosts a program, requirement tables with their header paths and captions, and near-duplicate
sibling pages told apart by the token they differ in. The made-up School of Engineering of
test_annotation_rules.py, with its own wording (not the demo's, not any measured site's)."""

from datetime import date

import pytest

from advisor.annotation.model import ChunkContext
from advisor.annotation.rules import RulesAnnotator
from advisor.annotation.siblings import CorpusDocument
from advisor.annotation.structure import table_labels
from advisor.chunking.chunker import chunk_document
from advisor.config import Selectors
from advisor.ingest.html_text import extract_page
from tests.test_annotation_rules import BASE, ctx, make_config, record


@pytest.fixture()
def annotator():
    return RulesAnnotator(make_config())


# ----------------------------------------------------------------------------- class 1: facets in a label


@pytest.mark.parametrize("separator", [" · ", "·", " | ", " / ", ", ", " - "])
def test_a_label_lists_the_facets_of_one_audience(annotator, separator):
    heading = f"2017학년도 입학생{separator}복수전공 과정"
    r = record(annotator, ctx("전공 42학점을 이수합니다.", title="전자공학과 교과과정",
                              headings=["전자공학과 교과과정", heading]))
    assert r["cohort"] == [2017, 2017]
    assert r["program"] == ["double"]
    assert r["department"] == ["EE"]


def test_facets_of_several_kinds_in_one_caption(annotator):
    r = record(annotator, ctx("표 참고", title="건설환경공학과 2016학번 · 3학년 · 베이캠퍼스 실습 안내"))
    assert (r["department"], r["cohort"], r["year_of_study"], r["campus"]) == (["CE"], [2016, 2016], [3, 3], ["bay"])


def test_two_groups_of_people_side_by_side_are_still_alternatives(annotator):
    r = record(annotator, ctx("일정을 안내합니다.", title="신입생·교환학생 오리엔테이션"))
    assert r["year_of_study"] is None and r["status"] is None
    r = record(annotator, ctx("신입생·교환학생은 첫 주에 등록합니다.", title="등록 안내"))  # prose too
    assert r["year_of_study"] is None and r["status"] is None


def test_a_conjunction_joins_alternatives_even_in_a_label(annotator):
    r = record(annotator, ctx("일정", title="2019학번 및 부전공 이수자 간담회"))
    assert r["cohort"] is None and r["program"] is None


# ----------------------------------------------------------------------------- class 2: a program's host


def test_the_takers_of_a_departments_program_are_not_its_students(annotator):
    lead = "건설환경공학과 부전공 이수 학생은 전공기초 9학점을 먼저 들어야 합니다."
    r = record(annotator, ctx(lead, title="부전공 이수 안내"))
    assert r["department"] is None  # whoever takes the minor: their department is not said
    assert r["program"] == ["minor"]
    r = record(annotator, ctx(lead, title="부전공 이수 안내", crumbs=["Home", "기계공학과"]))
    assert r["department"] == ["ME"]  # the page's own context still holds


@pytest.mark.parametrize("phrase", ["전자공학과 복수전공자는", "전자공학과 복수전공생에게", "전자공학과 복수전공 과정 수강생은",
                                    "Electrical Engineering minor students"])
def test_takers_in_other_words(annotator, phrase):
    r = record(annotator, ctx(f"{phrase} 설계 과목을 추가로 이수합니다.", title="이수 안내"))
    assert r["department"] is None


def test_a_hosted_program_itself_is_still_for_the_other_departments(annotator):
    r = record(annotator, ctx("서류를 제출합니다.", title="전자공학과 부전공 신청 안내"))
    assert r["department"] == ["CE", "ME"]
    r = record(annotator, ctx("전자공학과 부전공을 신청하려면 서류를 냅니다.", title="신청 안내"))
    assert r["department"] == ["CE", "ME"]  # no taker named: the program's audience


# ----------------------------------------------------------------------------- class 3: tables

REQUIREMENTS = """<html><body><main>
<h1>기계공학과 졸업 이수 요건</h1>
<p>입학년도와 전공 과정에 따라 이수 요건이 다릅니다.</p>
<h2>전공 학점</h2>
<h4>2018학년도 입학생 · 단일전공</h4>
<table><caption>전공 이수 학점 (2018학년도 입학생)</caption>
<thead>
<tr><td></td><th colspan="2">이론</th><th colspan="2">설계</th></tr>
<tr><td></td><th>과목</th><th>학점</th><th>과목</th><th>학점</th></tr>
</thead>
<tbody>
<tr><th rowspan="2">전공필수</th><td>열역학</td><td>3</td><td>기계설계</td><td>3</td></tr>
<tr><td>유체역학</td><td>3</td><td>캡스톤설계</td><td>4</td></tr>
<tr><th>전공선택</th><td colspan="2">21학점 이상</td><td colspan="2">6학점 이상</td></tr>
</tbody></table>
</main></body></html>"""


def _chunks(html: str, url: str, max_chars: int = 800):
    page = extract_page(html, url, Selectors())
    doc = {"doc_id": "d", "url": url, "kind": "page", "title": page.title, "breadcrumbs": page.breadcrumbs,
           "text": page.text, "source": "site"}
    return page, chunk_document(doc, lambda text: [text], max_chars)


def test_a_table_keeps_its_header_path():
    page, _ = _chunks(REQUIREMENTS, BASE + "/me/grad.html")
    assert "전공 이수 학점 (2018학년도 입학생)\n" in page.text  # the caption heads the rows
    assert "- 전공필수 | 이론 과목: 열역학 | 이론 학점: 3 | 설계 과목: 기계설계 | 설계 학점: 3" in page.text
    assert "- 전공필수 | 이론 과목: 유체역학 | 이론 학점: 3 | 설계 과목: 캡스톤설계 | 설계 학점: 4" in page.text
    assert "- 전공선택 | 이론: 21학점 이상 | 설계: 6학점 이상" in page.text


def test_a_tables_heading_and_caption_say_whom_its_rows_are_for(annotator):
    page, chunks = _chunks(REQUIREMENTS, BASE + "/me/grad.html")
    (table,) = [c for c in chunks if "열역학" in c.text]
    assert table.heading_path[-1] == "2018학년도 입학생 · 단일전공"
    r = record(annotator, ctx(table.text, url="/me/grad.html", title=page.title, headings=table.heading_path))
    assert r["cohort"] == [2018, 2018] and r["program"] == ["single"] and r["department"] == ["ME"]


def test_a_caption_alone_is_a_label(annotator):
    text = "## 교과목\n\n전공 교과목 (2021~2022학년도 입학생)\n- 구분: 전공필수 | 과목: 회로이론 | 학점: 3"
    assert table_labels(text, ["교과목"]) == ["전공 교과목 (2021~2022학년도 입학생)"]
    r = record(annotator, ctx(text, title="전자공학과 교과목", headings=["전자공학과 교과목", "교과목"]))
    assert r["cohort"] == [2021, 2022]
    prose_first = "## 교과목\n\n아래 표를 보세요.\n\n전공 교과목 (2021~2022학년도 입학생)\n- 구분: 전공필수 | 과목: 회로이론 | 학점: 3"
    assert table_labels(prose_first, ["교과목"]) == []  # only the table a chunk opens with


GROUPED = "".join([
    "<html><body><main><h1>전자공학과 교과과정</h1>",
    "<table><caption>전공 교과목</caption>",
    "<thead><tr><th>구분</th><th>교과목</th><th>학점</th><th>비고</th></tr></thead><tbody>",
    '<tr><th colspan="4">2015~2017학년도 입학생</th></tr>',
    *(f"<tr><td>전공선택</td><td>회로 응용 설계 {n}</td><td>3</td><td>실험 포함, 팀 프로젝트</td></tr>" for n in range(14)),
    '<tr><th colspan="4">2018학년도 이후 입학생</th></tr>',
    *(f"<tr><td>전공선택</td><td>반도체 소자 특론 {n}</td><td>3</td><td>영어 강의, 팀 프로젝트</td></tr>" for n in range(14)),
    "</tbody></table></main></body></html>",
])


def test_a_long_table_repeats_its_caption_and_group_row_in_every_chunk(annotator):
    page, chunks = _chunks(GROUPED, BASE + "/ee/curriculum.html", max_chars=500)
    table = [c for c in chunks if "학점: 3" in c.text]
    assert len(table) >= 4
    for chunk in table:
        lines = [line for line in chunk.text.split("\n") if line and not line.startswith("# ")]
        assert lines[:2] in (["전공 교과목", "- 2015~2017학년도 입학생"], ["전공 교과목", "- 2018학년도 이후 입학생"])
        r = record(annotator, ctx(chunk.text, url="/ee/curriculum.html", title=page.title))
        assert r["cohort"] == ([2015, 2017] if "회로 응용" in chunk.text else [2018, 2024])


# ----------------------------------------------------------------------------- class 4: siblings

HANDBOOK = "# 설계 실습 안내 ({year})\n\n설계 실습은 팀 단위로 진행하며 결과 보고서를 제출합니다. 평가는 발표와 보고서로 합니다."


def _annotated(annotator, documents, url):
    annotator.read_corpus(documents)
    doc = next(d for d in documents if d.url == url)
    return record(annotator, ctx(doc.text, url=url.removeprefix(BASE), title=doc.title))


def test_pages_that_differ_only_in_a_year_are_for_those_cohorts(annotator):
    docs = [CorpusDocument(f"{BASE}/lab/handbook.php?y={y}", "page", f"설계 실습 안내 ({y})", HANDBOOK.format(year=y))
            for y in (2014, 2016, 2019)]
    before = annotator.version
    assert _annotated(annotator, docs, docs[0].url)["cohort"] == [2014, 2014]
    assert annotator.version != before  # the facets are an input: the version follows them
    assert _annotated(annotator, docs, docs[1].url)["cohort"] == [2016, 2016]
    assert _annotated(annotator, docs, docs[2].url)["cohort"] == [2019, 2019]


def test_pages_that_differ_only_in_a_department_are_for_it(annotator):
    text = "# {dept} 실험실 안전 수칙\n\n실험실에서는 보호구를 착용하고, 사고가 나면 즉시 조교에게 알립니다."
    docs = [CorpusDocument(f"{BASE}/safety/{n}.html", "page", f"{dept} 실험실 안전 수칙", text.format(dept=dept))
            for n, dept in enumerate(["기계공학과", "건설환경공학과"])]
    assert _annotated(annotator, docs, docs[1].url)["department"] == ["CE"]


def test_a_hosted_program_page_keeps_its_own_reading(annotator):
    text = "# {dept} 복수전공 안내\n\n선발 인원과 신청 서류를 안내합니다. 서류는 학과 사무실에 냅니다."
    docs = [CorpusDocument(f"{BASE}/double/{n}.html", "page", f"{dept} 복수전공 안내", text.format(dept=dept))
            for n, dept in enumerate(["기계공학과", "전자공학과"])]
    assert _annotated(annotator, docs, docs[0].url)["department"] == ["CE", "EE"]  # the title replaces the facet


def test_years_that_are_times_or_dated_posts_are_not_cohorts(annotator):
    text = "# 현장 견학 ({year}년 5월)\n\n견학은 버스로 이동하며 점심이 제공됩니다. 신청은 학과 사무실에서 받습니다."
    docs = [CorpusDocument(f"{BASE}/trip/{y}.html", "page", f"현장 견학 ({y}년 5월)", text.format(year=y))
            for y in (2020, 2022)]
    assert _annotated(annotator, docs, docs[0].url)["cohort"] is None
    dated = [CorpusDocument(f"{BASE}/board/{y}.html", "notice", f"설계 실습 안내 ({y})", HANDBOOK.format(year=y), dated=True)
             for y in (2020, 2022)]
    assert _annotated(annotator, dated, dated[0].url)["cohort"] is None


def test_different_texts_are_not_siblings(annotator):
    docs = [CorpusDocument(f"{BASE}/lab/{y}.html", "page", f"설계 실습 안내 ({y})", HANDBOOK.format(year=y) + extra)
            for y, extra in ((2014, ""), (2016, " 보고서 양식은 학과 홈페이지에 있으며, 표절 검사를 거쳐 제출하고, 늦으면 감점합니다."))]
    assert _annotated(annotator, docs, docs[0].url)["cohort"] is None


def test_without_a_corpus_nothing_changes():
    fresh = RulesAnnotator(make_config())
    assert fresh.facets == {}
    r = record(fresh, ChunkContext(chunk_id="c", text=HANDBOOK.format(year=2014), doc_url=f"{BASE}/lab/x.html",
                                   doc_title="설계 실습 안내 (2014)", kind="page", collection="static",
                                   published_on=date(2024, 3, 1)))
    assert r["cohort"] is None
