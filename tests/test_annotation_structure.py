"""Annotation that reads structure: labels that list one audience's facets, a department that only
hosts a program, requirement tables with their header paths and captions, and near-duplicate
sibling pages told apart by the token they differ in. The made-up School of Engineering of
test_annotation_rules.py, with its own wording (not the demo's, not any measured site's)."""

import pytest

from advisor.annotation.rules import RulesAnnotator
from tests.test_annotation_rules import ctx, make_config, record


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
