"""The rules annotator on a made-up institution (not the demo college): an English-named School of
Engineering with three departments, a campus attribute, cohorts 2010–2024 and a program type."""

from datetime import date

import pytest

from advisor.annotation.model import ChunkContext
from advisor.annotation.rules import RulesAnnotator
from advisor.config import parse_config

BASE = "https://eng.example.ac.kr"

PROFILE = {
    "department": {
        "type": "categorical",
        "question": "소속 학과는?",
        "values": {
            "ME": ["기계공학과", "Mechanical Engineering", "ME"],
            "EE": ["전자공학과", "전기전자공학부", "Electrical Engineering", "EE"],
            "CE": ["건설환경공학과", "Civil Engineering"],
        },
    },
    "campus": {
        "type": "categorical",
        "question": "어느 캠퍼스에 다니나요?",
        "values": {"main": ["본캠퍼스", "main campus"], "bay": ["베이캠퍼스", "Bay campus"]},
    },
    "program": {
        "type": "categorical",
        "question": "이수 과정은?",
        "values": {"single": ["단일전공"], "double": ["복수전공", "double major"], "minor": ["부전공"]},
    },
    "cohort": {"type": "year", "question": "입학년도는?", "min": 2010, "max": 2024},
    "year_of_study": {"type": "integer", "question": "몇 학년인가요?", "min": 1, "max": 4},
    "status": {
        "type": "categorical",
        "question": "학적 상태는?",
        "values": {"enrolled": ["재학생"], "leave": ["휴학생"], "returning": ["복학생"], "exchange": ["교환학생"]},
    },
}


def make_config(profile=PROFILE):
    return parse_config({
        "institution": "School of Engineering",
        "sources": [{"name": "site", "kind": "html", "seeds": [BASE + "/"]}],
        "profile": profile,
    })


@pytest.fixture(scope="module")
def annotator():
    return RulesAnnotator(make_config())


def ctx(text="", *, url="/page.html", title="", crumbs=(), headings=(), lead="", kind="page",
        alias_urls=(), alias_contexts=()):
    return ChunkContext(
        chunk_id="c", text=text, doc_url=BASE + url, doc_title=title, kind=kind, collection="static",
        breadcrumbs=tuple(crumbs), heading_path=tuple(headings), published_on=date(2024, 3, 1), doc_lead=lead,
        alias_urls=tuple(alias_urls), alias_contexts=tuple(tuple(a) for a in alias_contexts),
    )


def record(annotator, context):
    (result,) = annotator.annotate([context])
    return result.applies_to


# ----------------------------------------------------------------------------- inheritance


def test_breadcrumbs_restrict_a_chunk_that_never_names_its_department(annotator):
    r = record(annotator, ctx("실험실 안전교육은 매 학기 초에 진행합니다.", crumbs=["Home", "학과", "기계공학과", "안전"],
                              title="실험실 안내"))
    assert r["department"] == ["ME"]
    assert r["cohort"] is None and r["year_of_study"] is None


def test_title_gives_department_and_curriculum_cohorts(annotator):
    r = record(annotator, ctx("## 전공필수\n\n회로이론, 전자기학, 신호및시스템.", title="전자공학과 2018–2019학년도 교육과정",
                              headings=["전자공학과 2018–2019학년도 교육과정", "전공필수"]))
    assert r["department"] == ["EE"]
    assert r["cohort"] == [2018, 2019]


def test_a_section_heading_restricts_the_chunks_under_it(annotator):
    r = record(annotator, ctx("## 복수전공 이수자\n\n제1전공 42학점을 이수합니다.", title="졸업 요건",
                              crumbs=["Home", "학사"], headings=["졸업 요건", "복수전공 이수자"]))
    assert r["program"] == ["double"]


def test_url_segments_and_file_name_years(annotator):
    r = record(annotator, ctx("표는 아래와 같습니다.", url="/dept/me/curriculum-2016-2017.html", title="Curriculum"))
    assert r["department"] == ["ME"]
    assert r["cohort"] == [2016, 2017]


def test_url_identifiers_are_compared_whole(annotator):
    r = record(annotator, ctx("공지", url="/members/page.html", title="공지"))  # "me" inside "members"
    assert r["department"] is None


def test_nearer_context_overrides_outer_context(annotator):
    r = record(annotator, ctx(
        "## 2016학번\n\n졸업학점은 140학점입니다.",
        crumbs=["Home", "전자공학과"], title="기계공학과 졸업요건 (2015–2016학년도 입학생)",
        headings=["기계공학과 졸업요건 (2015–2016학년도 입학생)", "2016학번"],
    ))
    assert r["department"] == ["ME"]  # title beats breadcrumbs
    assert r["cohort"] == [2016, 2016]  # heading beats title


def test_prose_refines_but_never_contradicts_a_heading(annotator):
    r = record(annotator, ctx("## 단일전공\n\n복수전공이나 부전공 없이 본 학과만 이수하는 학생에게 적용합니다.",
                              title="졸업요건", headings=["졸업요건", "단일전공"]))
    assert r["program"] == ["single"]


def test_the_lead_sentence_narrows_an_open_context(annotator):
    lead = "# 2024학년도 2학기 튜터 모집\n\n[공지] 작성자: 학사팀 · 작성일: 2024.08.01\n\n3학년 이상 재학생을 대상으로 튜터를 모집합니다."
    r = record(annotator, ctx(lead, title="2024학년도 2학기 튜터 모집", lead=lead, kind="notice"))
    assert r["year_of_study"] == [3, 4]
    assert r["status"] is None  # "재학생" after a grade just means "students"
    assert r["cohort"] is None  # 2024학년도 is the event's year


def test_details_below_the_lead_do_not_restrict(annotator):
    text = ("# 수강신청 안내\n\n수강신청은 학기 시작 2주 전에 진행합니다.\n\n"
            "- 휴학생은 수강신청을 할 수 없습니다.\n- 2019학번부터는 19학점까지 신청합니다.")
    r = record(annotator, ctx(text, title="수강신청 안내", lead=text))
    assert r["status"] is None and r["cohort"] is None


def test_faq_duplicates_apply_to_every_copy(annotator):
    r = record(annotator, ctx(
        "노트북이 필요한가요?\n\n실습실 컴퓨터를 쓸 수 있습니다.", url="/faq/me.html#q3", title="노트북이 필요한가요?",
        crumbs=["Home", "FAQ", "기계공학과"], headings=["기계공학과 FAQ"], kind="faq",
        alias_urls=[BASE + "/faq/ee.html#q7"], alias_contexts=[["Home", "FAQ", "전자공학과"]],
    ))
    assert r["department"] == ["EE", "ME"]


def test_faq_question_is_read_as_a_label(annotator):
    r = record(annotator, ctx("휴학 중에도 복수전공을 신청할 수 있나요?\n\n아니요. 휴학생은 신청할 수 없습니다.",
                              title="휴학 중에도 복수전공을 신청할 수 있나요?", kind="faq", crumbs=["Home", "FAQ"]))
    assert r["status"] == ["leave"]
    assert r["program"] == ["double"]


# ----------------------------------------------------------------------------- general material


def test_history_page_mentioning_departments_stays_null(annotator):
    text = "# 공과대학 연혁\n\n1975년 공과대학이 문을 열었고 1980년 전자공학과 신설로 세 학과 체제가 되었습니다."
    r = record(annotator, ctx(text, title="공과대학 연혁", crumbs=["Home", "대학소개"], lead=text))
    assert all(v is None for v in r.values())


def test_listing_every_value_does_not_restrict(annotator):
    text = "기계공학과, 전자공학과, 건설환경공학과 학생 모두 신청할 수 있습니다."
    r = record(annotator, ctx(text, title="공학 설계 경진대회"))
    assert r["department"] is None
    r = record(annotator, ctx("학기당 최대 학점", title="2015학번 이전 · 2016학번 이후 최대 학점"))
    assert r["cohort"] is None  # complementary ranges cover every cohort


def test_other_cohorts_differ_is_not_a_restriction(annotator):
    r = record(annotator, ctx("입학년도에 따라 졸업요건이 다릅니다.", title="졸업요건 안내"))
    assert r["cohort"] is None


def test_dates_and_event_years_stay_null(annotator):
    r = record(annotator, ctx("2024년 2월 5일부터 신청합니다.", title="2024학년도 1학기 수강신청 안내"))
    assert all(v is None for v in r.values())


def test_explicitly_general_heading_under_a_cohort_page(annotator):
    r = record(annotator, ctx("## 공통 사항\n\n입학년도와 관계없이 모든 학생에게 적용합니다.",
                              title="2018학번 졸업요건", headings=["2018학번 졸업요건", "입학년도와 관계없이 적용되는 사항"]))
    assert r["cohort"] is None


def test_organizer_is_not_the_audience(annotator):
    r = record(annotator, ctx("## 로봇융합 연계전공\n\n운영 학과: 기계공학과 · 전자공학과.", crumbs=["Home", "기계공학과"],
                              title="기계공학과 참여 연계전공", headings=["기계공학과 참여 연계전공", "로봇융합 연계전공"]))
    assert r["department"] is None


def test_a_hosted_second_major_is_for_the_other_departments(annotator):
    r = record(annotator, ctx("선발 인원은 30명입니다.", crumbs=["Home", "전자공학과"], title="전자공학과 복수전공 신청 안내"))
    assert r["department"] == ["CE", "ME"]
    assert r["program"] == ["double"]


def test_groups_joined_across_attributes_do_not_restrict(annotator):
    r = record(annotator, ctx("신입생 및 복학생은 첫 학기에 휴학할 수 없다.", title="제8조(휴학 제한)"))
    assert r["year_of_study"] is None and r["status"] is None


def test_status_changes_name_their_applicants(annotator):
    r = record(annotator, ctx("1월 중 포털에서 신청합니다.", title="휴학 신청은 언제 하나요?", kind="faq"))
    assert r["status"] == ["enrolled"]
    r = record(annotator, ctx("기간 안에 신청하세요.", title="복학 신청 안내"))
    assert r["status"] == ["leave", "returning"]
    r = record(annotator, ctx("출국 전 상담하세요.", title="교환학생이 휴학하면 어떻게 되나요?", kind="faq"))
    assert r["status"] == ["exchange"]  # the actor is named: not "enrolled"


# ----------------------------------------------------------------------------- attributes by type


def test_an_extra_categorical_attribute_works_from_its_aliases(annotator):
    r = record(annotator, ctx("셔틀은 08:00에 출발합니다.", title="베이캠퍼스 셔틀버스 안내"))
    assert r["campus"] == ["bay"]


def test_english_pages(annotator):
    r = record(annotator, ctx("## Students admitted in 2012–2013\n\nTotal credits: 130.", title="Mechanical Engineering: Overview",
                              headings=["Mechanical Engineering: Overview", "Students admitted in 2012–2013"]))
    assert r["department"] == ["ME"]
    assert r["cohort"] == [2012, 2013]


def test_latin_aliases_need_word_boundaries(annotator):
    r = record(annotator, ctx("MEMS 연구실 세미나", title="MEMS 세미나"))
    assert r["department"] is None


def test_a_config_without_grade_needs_no_code_change():
    profile = {k: v for k, v in PROFILE.items() if k != "year_of_study"}
    annotator = RulesAnnotator(make_config(profile))
    r = record(annotator, ctx("3학년 이상을 대상으로 합니다.", title="기계공학과 캡스톤 안내"))
    assert set(r) == set(profile)
    assert r["department"] == ["ME"]


def test_a_generic_integer_attribute_stays_null():
    profile = dict(PROFILE, credits={"type": "integer", "question": "이수한 학점은?", "min": 0, "max": 150})
    annotator = RulesAnnotator(make_config(profile))
    r = record(annotator, ctx("3학년 이상을 대상으로 합니다.", title="튜터 모집"))
    assert r["credits"] is None
    assert r["year_of_study"] == [3, 4]


# ----------------------------------------------------------------------------- protocol


def test_annotator_protocol_fields(annotator):
    (result,) = annotator.annotate([ctx("", title="기계공학과 2020학번 졸업요건")])
    assert annotator.name == "rules"
    assert result.applies_to["cohort"] == [2020, 2020]
    assert result.needs == ("department", "cohort")


def test_version_follows_the_profile_schema():
    a, b = RulesAnnotator(make_config()), RulesAnnotator(make_config())
    assert a.version == b.version
    changed = dict(PROFILE, cohort={"type": "year", "question": "입학년도는?", "min": 2012, "max": 2024})
    assert RulesAnnotator(make_config(changed)).version != a.version


def test_enrolled_after_another_group_just_means_its_students(annotator):
    r = record(annotator, ctx("전자공학과 재학생 누구나 참석할 수 있습니다.", title="학생 간담회"))
    assert r["department"] == ["EE"] and r["status"] is None
    r = record(annotator, ctx("재학생을 대상으로 성적우수장학금을 지급합니다.", title="성적우수장학금"))
    assert r["status"] == ["enrolled"]


def test_a_year_of_study_as_a_time_is_not_an_audience(annotator):
    r = record(annotator, ctx("1학년 2학기 말에 전공을 선택하며, 전공기초는 1~2학년에 개설됩니다.", title="전공 선택 안내"))
    assert r["year_of_study"] is None
    r = record(annotator, ctx("4학년 학생은 졸업작품을 제출하세요.", title="졸업작품 제출"))
    assert r["year_of_study"] == [4, 4]


# ----------------------------------------------------------------------------- where the lead is


def test_lead_sentence_skips_title_byline_and_interjections():
    from advisor.annotation.structure import lead_sentence

    text = "# 튜터 모집\n\n[학사] 작성자: 학사팀 · 작성일: 2024.03.02 · 조회수 12\n\n네. 3학년 이상을 대상으로 합니다. 둘째 문장."
    assert lead_sentence(text, ["튜터 모집"]) == "3학년 이상을 대상으로 합니다."


def test_no_lead_when_a_list_table_or_section_comes_first():
    from advisor.annotation.structure import lead_sentence

    assert lead_sentence("- 휴학생은 신청할 수 없습니다.\n- 둘째 항목") == ""
    assert lead_sentence("심화전공 이수 학점\n- 구분: 전공 | 기준: 60학점") == ""
    assert lead_sentence("공과대학 규정\n제1장 총칙\n제1조(목적)\n이 규정은 학생에게 적용한다.", ["규정"]) == ""


def test_wrapped_regulation_prose_is_joined():
    from advisor.annotation.structure import lead_sentence

    text = "제5조(복학생 장학금)\n1년 이상 휴학한 후 복학한 학생에게 등록금의 30%를\n지급한다. 평점 기준이 있다."
    assert lead_sentence(text, ["제5조(복학생 장학금)"]) == "1년 이상 휴학한 후 복학한 학생에게 등록금의 30%를 지급한다."


def test_target_statements_but_not_table_columns():
    from advisor.annotation.structure import target_statements

    text = "안내합니다(대상: 2021학번 이후 입학자).\n신청 자격: 3학년 이상\n- 유형: 단기 | 대상: 4학년"
    assert target_statements(text) == ["2021학번 이후 입학자", "3학년 이상"]


def test_a_document_opening_with_an_eligibility_section_has_a_scope():
    from advisor.annotation.structure import scope_sentence

    regulation = "공과대학 현장실습 지침\n제1장 총칙\n제1조(목적)\n이 지침은 ... 정한다.\n제2조(참여 대상)\n현장실습은 3학년 이상이 참여할 수 있다."
    assert scope_sentence(regulation, "현장실습 지침") == "현장실습은 3학년 이상이 참여할 수 있다."
    page = "# 장학 안내\n\n장학금 종류를 안내합니다.\n\n## 성적우수장학\n\n재학생에게 지급합니다."
    assert scope_sentence(page, "장학 안내") == ""


def test_document_scope_restricts_every_chunk_of_it(annotator):
    lead = "# 로봇공학 연계과정 안내\n\n연계과정 제도를 소개합니다.\n\n## 신청 자격\n\n3학년 이상 학생이 신청할 수 있습니다.\n\n## 이수 학점"
    r = record(annotator, ctx("## 이수 학점\n\n36학점을 이수합니다.", title="로봇공학 연계과정 안내", lead=lead,
                              headings=["로봇공학 연계과정 안내", "이수 학점"]))
    assert r["year_of_study"] == [3, 4]


def test_moving_into_a_department_is_for_the_other_departments(annotator):
    r = record(annotator, ctx("1~2학년 학생이 신청할 수 있습니다.", title="다른 학과에서 기계공학과로 전과할 수 있나요?", kind="faq"))
    assert r["department"] == ["CE", "EE"]
    r = record(annotator, ctx("전공필수를 새로 이수해야 합니다.", title="기계공학과로 전과한 학생의 졸업요건", kind="faq"))
    assert r["department"] == ["ME"]  # transferred already: now its own students


def test_during_ones_studies_is_not_the_enrolled_status(annotator):
    r = record(annotator, ctx("일반휴학은 재학 중 통산 6학기까지 할 수 있습니다.", title="휴학 기간", kind="page"))
    assert r["status"] is None
    r = record(annotator, ctx("재학 중인 학생만 신청할 수 있습니다.", title="장학금 안내"))
    assert r["status"] == ["enrolled"]


def test_a_key_value_row_naming_the_audience_restricts(annotator):
    table = "해외 대학 교환학생을 선발합니다.\n\n세부 내용\n- 구분: 지원 대상 | 내용: 3학년 이상\n- 구분: 정원 | 내용: 20명"
    assert record(annotator, ctx(table, title="교환학생 선발"))["year_of_study"] == [3, 4]
    programs = "프로그램 안내\n- 프로그램: 단기연수 | 대상: 3학년 | 기간: 4주\n- 프로그램: 인턴십 | 대상: 4학년 | 기간: 8주"
    assert record(annotator, ctx(programs, title="해외 프로그램"))["year_of_study"] is None  # a column, per row
