"""Kiwi content morphemes, user words, sentence splitting and the tokenizer version."""

from __future__ import annotations

import re

import pytest

from advisor.chunking.kiwi_tokens import (
    KiwiTokenizer,
    get_tokenizer,
    tokenizer_version,
    user_words_from_config,
)
from advisor.config import load_config


@pytest.fixture(scope="module")
def words() -> list[str]:
    return user_words_from_config(load_config())


@pytest.fixture(scope="module")
def tok(words) -> KiwiTokenizer:
    return get_tokenizer(words)  # cached: shared with test_chunking in the same pytest process


@pytest.fixture(scope="module")
def plain() -> KiwiTokenizer:
    return get_tokenizer(())


# --------------------------------------------------------------------------- user words

def test_user_words_from_config_lists_every_alias_once_sorted(words):
    for alias in ("컴퓨터학과", "데이터과학과", "심화전공", "복학생", "외국인 유학생", "Computer Science"):
        assert alias in words
    assert words == sorted(set(words))
    assert not any(w != w.strip() or not w for w in words)


def test_get_tokenizer_is_cached_per_word_set(tok, words):
    assert get_tokenizer(reversed(words)) is tok
    assert get_tokenizer([*words, words[0], f"  {words[1]} "]) is tok


def test_kiwi_rejections_and_odd_words_never_crash(plain):
    odd = KiwiTokenizer(["", "   ", "!!!", "a b", "컴퓨터학과", "컴퓨터학과"], num_workers=0)
    assert odd.user_words == ("!!!", "a b", "컴퓨터학과")
    assert "컴퓨터학과" in odd.accepted_words
    assert "a b" not in odd.accepted_words  # English: Kiwi keeps it as words anyway
    assert odd.content_morphemes(["컴퓨터학과 학생"]) == [["컴퓨터학과", "학생"]]


# --------------------------------------------------------------------------- content morphemes

def test_content_morphemes_drop_particles_and_endings(tok):
    [tokens] = tok.content_morphemes(["졸업하려면 전공을 몇 학점 들어야 하나요?"])
    assert tokens[:3] == ["졸업", "전공", "학점"]
    for noise in ("을", "려면", "나요", "하", "몇", "?"):
        assert noise not in tokens
    [tokens] = tok.content_morphemes(["TOEIC 650점 이상이어야 한다."])
    assert tokens == ["toeic", "650", "이상"]  # 점 is a bound noun (NNB): dropped


def test_user_words_stay_whole_and_are_needed(tok, plain):
    text = "컴퓨터학과 휴학생은 복학생이 된다"
    with_words = tok.content_morphemes([text])[0]
    without = plain.content_morphemes([text])[0]
    assert with_words[:3] == ["컴퓨터학과", "휴학생", "복학생"]
    assert without[:2] == ["컴퓨터", "학과"]
    assert "휴학생" not in without


def test_spaced_alias_gives_the_same_tokens_with_or_without_the_space(tok):
    spaced, glued = tok.content_morphemes(["외국인 유학생 장학금", "외국인유학생 장학금"])
    assert spaced == glued == ["외국인", "유학생", "장학금"]


def test_latin_is_lowercased_and_kiwis_word_cuts_repaired(tok):
    [tokens] = tok.content_morphemes(["Students need 130 credits. A GPA of 2.5 and COSE101."])
    assert tokens == ["students", "need", "130", "credits", "a", "gpa", "of", "2.5", "and", "cose101"]
    assert all(" " not in t and t == t.lower() for t in tokens)


def test_batch_equals_one_by_one_and_keeps_order(tok):
    texts = ["졸업요건은 130학점이다.", "", "데이터과학과 이중전공", "휴학 신청 기간은 언제인가요?"] * 5
    batch = tok.content_morphemes(texts)
    assert batch == [tok.content_morphemes([t])[0] for t in texts]
    assert batch[1] == [] and batch[2] == ["데이터과학과", "이중전공"]


def test_tagged_morphemes_carry_the_tags(tok):
    [tagged] = tok.tagged_morphemes(["전공 과목을 들어야 한다"])
    assert ("전공", "NNG") in tagged
    assert any(tag.startswith("VV") for _, tag in tagged)


class _CountingKiwi:
    """Kiwi with its calls counted (everything else passed through)."""

    def __init__(self, kiwi) -> None:
        self.kiwi, self.calls = kiwi, 0

    def tokenize(self, texts):
        self.calls += 1
        return self.kiwi.tokenize(texts)

    def split_into_sents(self, text):
        self.calls += 1
        return self.kiwi.split_into_sents(text)


def test_serving_sized_calls_are_answered_from_recent_texts_and_copies_are_returned(tok, monkeypatch):
    counting = _CountingKiwi(tok._kiwi)
    monkeypatch.setattr(tok, "_kiwi", counting)
    message = "캐시 확인용 문장: 복수전공 신청은 언제 하나요?"
    first = tok.content_morphemes([message])
    # the same message read three ways (content, key words, query words) costs one Kiwi call
    assert tok.key_words([message]) and tok.query_morphemes([message]) and counting.calls == 1
    first[0].append("changed")  # a caller's list is its own
    assert tok.content_morphemes([message]) == [first[0][:-1]] and counting.calls == 1
    # a small batch tokenizes only what it has not seen, once per distinct text, in order
    other = "캐시 확인용 두 번째: 휴학 기간"
    together = tok.content_morphemes([other, message, other])
    assert counting.calls == 2
    assert together == [tok.content_morphemes([other])[0], first[0][:-1], tok.content_morphemes([other])[0]]
    text = "캐시 확인용 본문입니다. 두 문장입니다."
    sentences = tok.split_sentences(text)
    sentences.append("changed")
    assert tok.split_sentences(text) == sentences[:-1] and counting.calls == 3


def test_a_builds_large_batches_are_not_remembered(tok, monkeypatch):
    from advisor.chunking import kiwi_tokens

    counting = _CountingKiwi(tok._kiwi)
    monkeypatch.setattr(tok, "_kiwi", counting)
    texts = [f"큰 배치 문장 {i}번" for i in range(kiwi_tokens.SMALL_CALL + 1)]
    tok.content_morphemes(texts)
    tok.content_morphemes(texts[:1])
    assert counting.calls == (2 if tok.num_workers else len(texts) + 1)  # the lone text was not kept


def test_spacing_is_restored_without_changing_the_letters(tok):
    text = "휴학중에융합전공신청돼요?"
    spaced = tok.spaced(text)
    assert " " in spaced and spaced.replace(" ", "") == text


# --------------------------------------------------------------------------- sentences

def test_split_sentences_returns_substrings_in_order(tok):
    text = ("졸업하려면 평점 2.0 이상이어야 합니다. TOEIC 650점 이상이 필요합니다!\n"
            "Students must earn 130 credits. Dr. Kim advises e.g. double majors. 끝으로 확인하세요.")
    sentences = tok.split_sentences(text)
    assert sentences == [
        "졸업하려면 평점 2.0 이상이어야 합니다.",
        "TOEIC 650점 이상이 필요합니다!",
        "Students must earn 130 credits.",
        "Dr. Kim advises e.g. double majors.",
        "끝으로 확인하세요.",
    ]
    cursor = 0
    for sentence in sentences:  # exact substrings, in order, so offsets can be kept
        found = text.index(sentence, cursor)
        assert text[cursor:found].strip() == ""
        cursor = found + len(sentence)
    assert text[cursor:].strip() == ""


def test_split_sentences_does_not_split_inside_numbers(tok):
    for text in ("평점 2.0 이상", "TOEIC 650점, 3.5 이상", "2024. 3. 1.부터 시행한다.", "v2.1 버전"):
        sentences = tok.split_sentences(text)
        assert "".join(sentences).replace(" ", "") == text.replace(" ", "")
        for number in re.findall(r"\d+\.\d+", text):
            assert any(number in s for s in sentences)
    assert tok.split_sentences("   ") == []


# --------------------------------------------------------------------------- version

def test_version_follows_the_word_set(tok, words, plain):
    assert tok.version == tokenizer_version(words) == tokenizer_version(reversed(words))
    assert plain.version == tokenizer_version(())
    assert tok.version != plain.version
    assert tokenizer_version([*words, "융합보안학과"]) != tok.version
    assert re.fullmatch(r"[0-9a-f]{12}", tok.version)


def test_query_morphemes_drop_the_question_frame_only(tok):
    framed, bare = tok.query_morphemes(["졸업 이수학점은 어떻게 되나요? 알려주세요", "졸업 이수학점"])
    assert framed == bare == tok.content_morphemes(["졸업 이수학점"])[0]
    # what the student does or can do stays ("받을 수 있는"), and a frame alone is kept whole
    assert "받" in tok.query_morphemes(["제가 받을 수 있는 장학금이 있나요?"])[0]
    assert tok.query_morphemes(["어떻게 되나요?"])[0] == tok.content_morphemes(["어떻게 되나요?"])[0] != []
