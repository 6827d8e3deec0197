"""A student's words in the build's own words (advisor/retrieval/vocabulary.py): abbreviations read
from the build's compounds, synonyms from the thesaurus, and never over the institution's own words."""

from __future__ import annotations

from advisor.retrieval.vocabulary import CorpusVocabulary, load_thesaurus

TEXTS = [
    "융합전공 지원은 포털에서 합니다. 융합전공 이수요건은 학과마다 다릅니다.",
    "국가장학금 문의는 한국장학재단으로 하세요. 국가장학금은 소득 분위로 정합니다.",
    "컴퓨터학과 졸업요건. 컴퓨터학과 사무실은 3층입니다.",
    "학위복 대여는 2월 졸업식에만 가능합니다. 현장실습은 학점으로 인정합니다.",
]
TOKENS = [
    ["융합전공", "지원", "포털", "융합전공", "이수", "요건", "학과"],
    ["국가", "장학금", "문의", "한국", "장학", "재단", "국가", "장학금", "소득", "분위"],
    ["컴퓨터학과", "졸업", "요건", "컴퓨터학과", "사무실", "층"],
    ["학위", "복", "대여", "졸업식", "현장", "실습", "학점", "인정"],
]
GROUPS = [("학위복", "졸업가운"), ("현장실습", "인턴십"), ("졸업식", "학위수여식")]


def vocabulary(groups=GROUPS) -> CorpusVocabulary:
    return CorpusVocabulary(iter(TEXTS), iter(TOKENS), groups)


def test_an_abbreviation_is_expanded_to_the_compound_the_documents_use():
    v = vocabulary()
    for student, build in (("융전", "융합전공"), ("국장", "국가장학금"), ("컴과", "컴퓨터학과")):
        text, rewrites = v.rewrite(f"{student} 문의는 어디서", key_words=[student] if student != "컴과" else ["컴"])
        assert text.startswith(build) and [(r.student_word, r.build_word, r.rule) for r in rewrites] == [
            (student, build, "abbreviation")]


def test_a_word_the_documents_use_is_never_rewritten():
    v = vocabulary()
    # "국장" is inside 한국장학재단 as text, but no morpheme of the documents: still an abbreviation;
    # "장학" is a morpheme of theirs: left alone, whatever it could abbreviate
    assert v.rewrite("장학 문의", key_words=["장학", "문의"]) == ("장학 문의", [])
    assert v.rewrite("졸업식 언제", key_words=["졸업식"]) == ("졸업식 언제", [])  # their word, not the group's other


def test_a_two_syllable_pair_across_a_word_and_its_ending_is_not_an_abbreviation():
    # "중인데": the tokenizer reads 중 + 이 + ㄴ데, so "중인" is no key word and never looked up
    assert vocabulary().rewrite("휴학 중인데 가능해요", key_words=["휴학"]) == ("휴학 중인데 가능해요", [])


def test_a_synonym_becomes_the_member_the_documents_use_with_a_space_before_a_particle():
    text, rewrites = vocabulary().rewrite("졸업가운은 어디서 빌려요? 인턴십 학점도", key_words=[])
    assert text == "학위복 은 어디서 빌려요? 현장실습 학점도"
    assert {(r.student_word, r.build_word) for r in rewrites} == {("졸업가운", "학위복"), ("인턴십", "현장실습")}


def test_a_thesaurus_word_is_never_read_as_an_abbreviation():
    # "분실" (loss) is no morpheme of these documents, and 분석 실습 is a compound of theirs
    v = CorpusVocabulary(["분석 실습 안내. 분석 실습 신청"], [["분석", "실습", "안내", "분석", "실습", "신청"]],
                         [("분실", "잃어버리")])
    assert v.rewrite("학생증 분실 어떻게 해요", key_words=["학생증", "분실"]) == ("학생증 분실 어떻게 해요", [])
    assert CorpusVocabulary(["분석 실습 안내. 분석 실습 신청"], [["분석", "실습", "안내", "분석", "실습", "신청"]],
                            []).rewrite("분실 신고", key_words=["분실"])[0] == "분석실습 신고"


def test_a_member_found_only_inside_a_longer_member_counts_as_unused():
    # the documents say 학과 사무실; a student's 과사무실 is their word only inside it
    v = CorpusVocabulary(["학과 사무실은 3층입니다. 학과 사무실 전화"], [["학과", "사무실", "층", "학과", "사무실", "전화"]],
                         [("학과사무실", "과사무실", "과사")])
    text, rewrites = v.rewrite("과사무실 어디예요", key_words=["과", "사무실"])
    assert text == "학과사무실 어디예요" and [r.build_word for r in rewrites] == ["학과사무실"]
    # used on its own somewhere, it is the institution's word and stays
    own = CorpusVocabulary(["과사무실은 3층, 학과사무실 전화"], [["과", "사무실", "층"]], [("학과사무실", "과사무실")])
    assert own.rewrite("과사무실 어디예요", key_words=["과", "사무실"])[1] == []


def test_spacing_does_not_matter_and_the_longest_member_wins():
    v = CorpusVocabulary(["공인외국어 성적을 제출합니다"], [["공인", "외국어", "성적", "제출"]],
                         [("공인외국어", "영어점수", "영어 성적"), ("성적", "점수")])
    text, rewrites = v.rewrite("영어 점수 내야 돼요?", key_words=["영어", "점수"])
    assert text == "공인외국어 내야 돼요?" and len(rewrites) == 1  # not also 점수 -> 성적 inside it


def test_an_unknown_word_with_no_compound_is_left_alone():
    # out-of-scope words ("맛집", "학식") have no compound in the documents to stand for
    assert vocabulary().rewrite("학식 맛집 추천", key_words=["학식", "맛집", "추천"]) == ("학식 맛집 추천", [])


def test_the_shipped_thesaurus_has_interchangeable_groups_and_a_member_twice_only_narrower_first():
    groups = [tuple(m.replace(" ", "") for m in g) for g in load_thesaurus()]
    assert len(groups) >= 30 and all(len(g) >= 2 for g in groups)
    for i, group in enumerate(groups):
        for later in groups[i + 1:]:
            if set(group) & set(later):  # the same word in two groups: the narrower group comes first
                assert set(group) < set(later), (group, later)


def test_a_word_in_two_groups_takes_the_nearer_synonym_when_the_documents_use_it():
    groups = [("그만두", "관두"), ("중단", "그만두", "관두")]
    colloquial = CorpusVocabulary(["현장실습을 중도에 그만두면 학점이 없습니다. 중단 사유를 적습니다."], [[]], groups)
    formal = CorpusVocabulary(["실습 중단 사유를 적습니다."], [[]], groups)
    assert colloquial.rewrite("실습 관두면?")[0] == "실습 그만두 면?"
    assert formal.rewrite("실습 관두면?")[0] == "실습 중단 면?"
    assert formal.rewrite("실습 그만두면?")[0] == "실습 중단 면?"


def test_the_index_is_built_once_even_when_asked_from_several_threads():
    import threading

    calls = []

    def texts():
        calls.append(1)
        yield from TEXTS

    v = CorpusVocabulary(texts(), iter(TOKENS), GROUPS)
    threads = [threading.Thread(target=v.rewrite, args=("졸업가운 대여",)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == [1] and v.rewrite("졸업가운 대여")[0] == "학위복 대여"


def test_english_synonyms_are_whole_words_and_follow_the_documents():
    groups = [("student id", "student card", "id card"), ("exam", "test")]
    v = CorpusVocabulary(["How do I get a student ID? Take the test in person. An example of the form."], [[]], groups)
    assert v.rewrite("how can I get my Student Card?")[0] == "how can I get my student id?"
    assert v.rewrite("covid kept me from my exam")[0] == "covid kept me from my test"
    assert v.rewrite("an example please") == ("an example please", [])  # "exam" is not inside "example"
    assert v.count("exam") == 0 and v.count("test") == 1  # ... nor counted inside it
    # a word the documents use is theirs: nothing to rewrite
    own = CorpusVocabulary(["Midterm exams are in week 8."], [[]], groups)
    assert own.rewrite("when are the exams") == ("when are the exams", [])


def test_an_english_inflection_the_documents_never_use_becomes_the_form_they_do():
    v = CorpusVocabulary(["Who handles startup questions? You cannot take the test twice. Credits from studies abroad."],
                         [[]], [])
    for student, build in (("startups", "startup"), ("taking", "take"), ("credit", "credits"), ("study", "studies")):
        text, rewrites = v.rewrite(f"about {student} please")
        assert text == f"about {build} please" and [(r.student_word, r.build_word, r.rule) for r in rewrites] == [
            (student, build, "inflection")]
    # a form the documents use, a word with no inflection they use, and short words stay
    assert v.rewrite("who handles the test") == ("who handles the test", [])
    assert v.rewrite("borrowing a laptop") == ("borrowing a laptop", [])
    assert v.inflection("tests") == "test" and v.inflection("us") is None


def test_the_remembered_counts_stay_bounded_whatever_students_type(monkeypatch):
    import advisor.retrieval.vocabulary as vocabulary_module

    monkeypatch.setattr(vocabulary_module, "MAX_COUNTED", 5)
    v = CorpusVocabulary(["take the test"], [[]], [])
    for i in range(40):
        assert v.count(f"word{i}") == 0
        assert len(v._counts) <= 5
    assert v.count("test") == 1 and v.count("test") == 1  # remembered or recounted, the same


def test_compact_text_keeps_the_spaces_between_english_words_only():
    from advisor.retrieval.vocabulary import compact

    assert compact("영어 점수  Student  Card GPA 3.5") == "영어점수student card gpa3.5"
