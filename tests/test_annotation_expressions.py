"""Korean administrative expressions of whom a text applies to (advisor.annotation.expressions)."""

import pytest

from advisor.annotation.expressions import expand_year, find_cohorts, find_curriculum_years, find_grades

LOW, HIGH = 2015, 2026  # a schema's cohort span


def cohorts(text, low=LOW, high=HIGH):
    return [(m.low, m.high) for m in find_cohorts(text, low, high)]


def grades(text, low=1, high=4):
    return [(m.low, m.high) for m in find_grades(text, low, high)]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2019~2021학번", [(2019, 2021)]),
        ("2019-2021학번", [(2019, 2021)]),
        ("2019–2021학번 학생", [(2019, 2021)]),
        ("2019·2020학번", [(2019, 2020)]),
        ("2020학년도 이후 입학자", [(2020, 2026)]),
        ("2020학년도 이전에 입학한 학생", [(2015, 2020)]),
        ("2023학번부터 적용", [(2023, 2026)]),
        ("21학번 이전", [(2015, 2021)]),
        ("21학번 이하", [(2015, 2021)]),
        ("2018년도 입학생까지", [(2015, 2018)]),
        ("2015–2016학년도 입학생", [(2015, 2016)]),
        ("2017학년도 입학생부터 2018학년도 입학생까지", [(2017, 2018)]),
        ("2021학번부터 2026학번까지의 학생", [(2021, 2026)]),
        ("2022학년도 신입생", [(2022, 2022)]),
        ("'22학번", [(2022, 2022)]),
        ("’19학번 선배", [(2019, 2019)]),
        ("15학번 이후", [(2015, 2026)]),
        ("24~25학번", [(2024, 2025)]),
        ("2024~25학번", [(2024, 2025)]),
        ("2021년 이후 입학자", [(2021, 2026)]),
        ("2019년 입학", [(2019, 2019)]),
        ("2016학번까지", [(2015, 2016)]),
        ("- 입학년도: 2019~2021 | 전공학점: 66", [(2019, 2021)]),
        ("학번: 2017-2018 | 졸업학점: 136", [(2017, 2018)]),
        ("Students admitted in 2024–2025", [(2024, 2025)]),
        ("course registration for students admitted 2015–2020", [(2015, 2020)]),
        ("students admitted from 2021 onward", [(2021, 2026)]),
        ("students admitted before 2019", [(2015, 2018)]),
        ("Admitted in: 2021–2022 | Total credits: 130", [(2021, 2022)]),  # a table's key
        ("readmitted in 2021", []),
    ],
)
def test_cohort_phrasings(text, expected):
    assert cohorts(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "2024년 3월 2일까지 신청하세요",  # a date
        "2026학년도 1학기 수강신청 안내",  # the academic year of an event
        "2026학년도 학사일정",
        "2026학년도 입학식",
        "졸업까지 130학점, 학기당 19학점",  # counts
        "4학기 이상 등록",
        "2026 신입생 학업 설계 상담 주간",  # a bare year at a title's head is the event's
        "정원 40 입학생",
        "1987년 설립된 학과",
        "전화 02-3290-3010",
    ],
)
def test_years_that_are_not_cohorts(text):
    assert cohorts(text) == []


def test_two_digit_years_map_into_the_schema():
    assert expand_year("21", 2015, 2026) == 2021
    assert expand_year("98", 1990, 2010) == 1998
    assert expand_year("05", 1990, 2010) == 2005
    assert expand_year("25", 2015, 2026, previous=2024) == 2025
    assert cohorts("98학번 이전", 1990, 2010) == [(1990, 1998)]


def test_several_cohorts_keep_their_spans():
    text = "2020학번 이전 입학자는 21학점, 2021학번부터는 19학점까지 신청할 수 있습니다."
    found = find_cohorts(text, LOW, HIGH)
    assert [(m.low, m.high) for m in found] == [(2015, 2020), (2021, 2026)]
    assert text[found[0].start:found[0].end] == "2020학번 이전"
    assert found[1].start > found[0].end


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2021–2022학년도 컴퓨터학과 교육과정", [(2021, 2022, "curriculum")]),
        ("전자공학과 교과과정 (2017–2018학년도)", [(2017, 2018, "curriculum")]),
        ("졸업이수요건 – 2023학년도", [(2023, 2023, "curriculum")]),
        ("홈 > 졸업요건 > 2019학년도", [(2019, 2019, "curriculum")]),
        ("2023학년도 교육과정 개편에 따른 대체 교과목", [(2015, 2022, "revision")]),
        ("2021–2022학년도 개편 관련 대체 인정", [(2015, 2020, "revision")]),
        ("2026학년도 학사일정", []),
        ("2026학년도 1학기 교육과정 운영", []),
        ("2026학년도 연구실 안전교육", []),
    ],
)
def test_curriculum_years(text, expected):
    assert [(m.low, m.high, m.form) for m in find_curriculum_years(text, LOW, HIGH)] == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("3학년 이상", [(3, 4)]),
        ("3~4학년", [(3, 4)]),
        ("4학년 재학생", [(4, 4)]),
        ("1학년 1학기", [(1, 1)]),
        ("2학년부터", [(2, 4)]),
        ("2학년 이하", [(1, 2)]),
        ("1·2학년", [(1, 2)]),
        ("2, 3학년을 대상으로", [(2, 3)]),
        ("1학년 2학기부터 2학년 재학생까지 신청", [(1, 2)]),
        ("고학년", [(3, 4)]),
        ("신입생 수강신청", [(1, 1)]),
        ("2026학번 신입생 OT", [(1, 1)]),
        ("8월 졸업예정자 졸업사정 안내", [(4, 4), (4, 4)]),
        ("졸업유예 신청", [(4, 4)]),
        ("third-year students", [(3, 3)]),
        ("open to seniors", [(4, 4)]),
    ],
)
def test_grade_phrasings(text, expected):
    assert grades(text) == expected


def test_lower_years_with_their_explanation_are_one_range():
    found = grades("저학년(1~2학년)")
    assert set(found) == {(1, 2)}


@pytest.mark.parametrize(
    "text",
    ["2026학년도 1학기", "3학점", "4학기", "2개 학기 이상", "학년별 권장 이수 순서", "12학년", "7학년"],
)
def test_numbers_that_are_not_grades(text):
    assert grades(text) == []


def test_grade_words_follow_the_schema_span():
    assert grades("고학년", 1, 6) == [(4, 6)]
    assert grades("졸업예정자", 1, 5) == [(5, 5)]


def test_student_id_numbers_and_keys_without_colon():
    assert cohorts("학번: 2021123456") == []
    assert cohorts("입학년도 2019년 이전 학생") == [(2015, 2019)]


STATUSES = {"enrolled": ("재학생",), "leave": ("휴학생", "on leave"), "returning": ("복학생",),
            "transfer": ("편입생",), "foreign": ("외국인 유학생", "유학생")}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("복학생 수강신청", [("returning", "복학생")]),
        ("복학 예정자는 기간 내에 신청", [("returning", "복학 예정자")]),
        ("휴학 중인 학생을 위한 안내", [("leave", "휴학 중인 학생")]),
        ("휴학 중에도 신청할 수 있나요?", [("leave", "휴학 중")]),
        ("편입학생도 첫 학기에는", [("transfer", "편입학생")]),
        ("군휴학생 복학 안내", [("leave", "휴학생")]),
        ("외국인유학생 장학금", [("foreign", "외국인유학생")]),
        ("Students on leave may not register", [("leave", "on leave")]),
    ],
)
def test_status_phrasings(text, expected):
    from advisor.annotation.expressions import find_statuses

    assert [(m.value, m.text) for m in find_statuses(text, STATUSES)] == expected


@pytest.mark.parametrize("text", ["휴학 신청 기간", "복학 절차", "편입 전형 일정", "재학증명서 발급"])
def test_status_procedures_are_not_person_mentions(text):
    from advisor.annotation.expressions import find_statuses

    assert find_statuses(text, STATUSES) == []


@pytest.mark.parametrize(
    "text, expected",
    [
        ("24학번~ 졸업요건", [(2024, 2026)]),  # a tilde with no year after it leaves the range open
        ("2024학년도 입학생~", [(2024, 2026)]),
        ("~2016학번 학생", [(2015, 2016)]),
        ("적용: ~'16학번", [(2015, 2016)]),
        ("2024학번 ~2026학번", [(2024, 2026)]),  # a closed range written with a spaced tilde
        ("2019~2021학번", [(2019, 2021)]),
        ("2017학년도에 입학한 학생", [(2017, 2017)]),
        ("2016학년도 이전에 입학한 구 상경대학 학생", [(2015, 2016)]),
        ("2026학년도 경영경제대학 신입생 여러분", [(2026, 2026)]),
    ],
)
def test_open_tilde_ranges_and_longer_entrant_phrases(text, expected):
    assert cohorts(text) == expected


@pytest.mark.parametrize("text", ["2020년에 입학한 뒤 3년 동안 학생회", "2026학년도 입학식 안내"])
def test_entrant_phrases_need_their_person_noun(text):
    assert cohorts(text) == []
