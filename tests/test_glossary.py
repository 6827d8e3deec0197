"""The English-to-Korean glossary (advisor/retrieval/glossary.py): an English question in a Korean
institution's terms, offline. Pure logic; the dialogue's use of it is tested in test_dialogue.py."""

from __future__ import annotations

import pytest

from advisor.retrieval.glossary import Gloss, Glossary, load_glossary

PAIRS = [("leave of absence", "휴학"), ("absence", "결석"), ("major", "전공"), ("double major", "이중전공"),
         ("laptop", "노트북"), ("borrow", "대여"), ("student id card", "학생증"), ("student id", "학생증")]


def test_phrases_are_replaced_longest_first_as_whole_words_with_their_endings():
    glossary = Glossary(PAIRS)
    assert glossary.translate("Can I borrow a laptop?") == (
        "Can I 대여 a 노트북?", [Gloss("borrow", "대여"), Gloss("laptop", "노트북")])
    assert glossary.translate("how long can a leave of absence be?")[0] == "how long can a 휴학 be?"  # not 결석
    assert glossary.translate("double majors and absences")[0] == "이중전공 and 결석"  # plural endings
    assert glossary.translate("I borrowed my Student-ID card")[0] == "I 대여 my 학생증"  # -ed, hyphen, case
    assert glossary.translate("majority of students") == ("majority of students", [])  # whole words only
    assert glossary.translate("Majoring in CS")[0] == "전공 in CS"
    assert glossary.translate("laptop을 borrow하려면?")[0] == "노트북을 대여하려면?"  # Korean particles may follow
    assert glossary.translate("can I borrow a laptop?", keep=lambda g: g.korean != "대여")[0] == "can I borrow a 노트북?"
    # every word of a phrase may be inflected, not only the last (a question rewritten to the documents'
    # "students" still names a student ID card)
    assert glossary.translate("I lost my students ID card")[0] == "I lost my 학생증"


def test_a_phrase_with_several_terms_takes_the_one_chosen():
    glossary = Glossary([("course", "과목 / 교과목 / 수업")])
    assert glossary.translate("which course?")[0] == "which 과목?"  # the first without a chooser
    assert glossary.translate("which course?", choose=lambda terms: terms[-1])[0] == "which 수업?"


def test_the_shipped_glossary_loads_and_knows_the_common_words():
    pairs = dict(load_glossary())
    assert pairs["courses"] == "과목 / 교과목 / 수업"  # offices differ: the build's most used is taken
    assert pairs["leave of absence"] == "휴학" and pairs["tuition"] == "등록금" and pairs["scholarships"] == "장학금"
    assert "grade" not in pairs and "year" not in pairs  # ambiguous words stay out (성적 / 학년)
    assert len(pairs) == len(load_glossary())  # no phrase listed twice


def test_a_malformed_glossary_line_is_refused_with_its_line_number(tmp_path):
    bad = tmp_path / "glossary.txt"
    bad.write_text("# comment\nlaptop = 노트북\nborrow 대여\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"glossary.txt:3"):
        load_glossary(bad)
