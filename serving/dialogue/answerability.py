"""Does the evidence address the question? (docs/method.md §A online step 7, §B.2-§B.3)

Tier 2 answers only from evidence that covers what the question is about. The question's key
words (nouns, names, numbers, roots) are weighted by their IDF over the build's own chunks, so the
measure is the institution's, not a vocabulary list: a word the corpus never uses ("맛집", "셔틀"
on a corpus without them) weighs the most, and evidence that lacks it cannot be about the
question; a word on every page ("학생", "안내") weighs little. The evidence answers when it
covers at least `MIN_COVERAGE` of the question's key-word weight.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Iterable, Sequence

from advisor import language
from advisor.language.script import language_of

# Chosen on the development questions of both bundled institutions (tests/test_dialogue_asking.py):
# in-scope questions cover 0.52-1.0 of their weight in their evidence, out-of-scope ones 0-0.48 (a
# generic word like "시간" or "위치" found, the topic word not).
MIN_COVERAGE = 0.5
# What a question asks with, not about: interrogatives are nouns to Kiwi ("얼마", "언제") and rare in
# documents, so left in they would weigh most and make every "얼마예요?" look out of scope.
QUESTION_WORDS = frozenset(language.words("question_words", "interrogatives"))
# The words of a request's frame, not of its topic: the Korean nouns of "…관련하여 안내 부탁드립니다",
# the English verbs of "how do I get …" (Kiwi tags every Latin word alike). Topical nouns such as
# 기준, 방법, 기간 stay ("졸업 기준" is a topic).
REQUEST_WORDS = frozenset(language.words("key_words", "request_frame"))
NOT_TOPICS = QUESTION_WORDS | REQUEST_WORDS
# Words that name an aspect of any topic, never a topic of their own: "신청 기간", "방법", "서류",
# "how do I apply?". A question made only of these (and of NOT_TOPICS) asks about nothing in
# particular, and any passage with the word would "cover" it ("방법 알려줘" met a course description
# of reinforcement-learning methods); a topic beside them ("휴학 신청 기간") and the question is one.
ASPECT_WORDS = frozenset(language.words("key_words", "aspects"))


def names_no_topic(key_words: Sequence[str]) -> bool:
    """Does a question whose key words (numbers and NOT_TOPICS left out) are `key_words` name no
    topic, only aspects of one or nothing at all ("신청 기간 알려줘", "how do I apply?")?"""
    return all(word.lower() in ASPECT_WORDS or word.lower() in NOT_TOPICS for word in key_words)


class TermWeights:
    """IDF of morphemes over a build's chunks: log((N + 1) / (df + 1)) + 1 (smoothed; a morpheme
    no chunk holds gets the largest weight). `language`: the one the chunks are written in (what
    an unseen word means depends on it: `coverage`)."""

    def __init__(self, token_lists: Iterable[Sequence[str]], language: str | None = None):
        self.language = language
        df: Counter[str] = Counter()
        n = 0
        for tokens in token_lists:
            n += 1
            df.update({t.lower() for t in tokens})
        self.chunks = n
        self._df = df

    def idf(self, word: str) -> float:
        return math.log((self.chunks + 1) / (self._df.get(word.lower(), 0) + 1)) + 1.0

    def seen(self, word: str) -> bool:
        return self._df.get(word.lower(), 0) > 0


def contains(text: str, word: str, message: str = "") -> bool:
    """A key word is in a text when it occurs in it (Kiwi's forms are substrings of the surface:
    "수강신청" holds "수강" and "신청"), case-insensitive. A one-character word is too short for
    that ("실" is inside "사무실" and "실습", which says nothing about "보건실"): it must occur as the
    compound the message wrote it in ("보건실", "정보관"), or as a word of its own. An English word
    must begin a word of the text ("graduate" is in "graduates", not in "undergraduates")."""
    word, text = word.lower(), text.lower()
    if len(word) > 1 and word.isascii() and word.isalpha():
        # an English word begins a word of the text: "graduates" holds "graduate", "undergraduates"
        # does not (a suffix is an inflection; a prefix makes another word)
        return re.search(rf"(?<![a-z]){re.escape(word)}", text) is not None
    if len(word) > 1:
        return word in text
    for compound in _compounds(word, message.lower()):
        if compound in text:
            return True
    return re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", text) is not None


def _compounds(word: str, message: str) -> list[str]:
    """The message's words that end in `word` once what follows it is cut ("정보관이" -> "정보관")."""
    out = []
    for run in re.findall(r"\w+", message):
        at = run.find(word)
        if at > 0:
            out.append(run[:at + 1])
    return out


# A word the corpus never uses weighs this much more than the rarest word of the question the corpus
# does use. Not the corpus-wide maximum: an unseen filler ("준비 중인데", "부탁드립니다") would then
# outweigh every topic word the question shares with the documents; yet more than any known word, so
# a question with one known word and one unknown topic ("보건실 위치") is not covered by the known one.
UNSEEN_FACTOR = 1.5
# ... and a word in the corpus's own language that it never uses weighs this much: the corpus would
# write that topic with that word, so lacking it, it lacks the topic ("주차 등록" against pages that
# name 등록 and the campus: 0.58 of the weight covered at 1.5, 0.46 at 2.5). A word in another
# language (an English question to Korean pages) is unseen because the pages write it in theirs.
# Chosen on the development sets (docs/method.md): 2.0 and 3.5 each did worse on one college.
UNSEEN_OWN_LANGUAGE_FACTOR = 2.5


def coverage(key_words: Sequence[str], texts: Sequence[str], weights: TermWeights, message: str = "") -> float:
    """The IDF-weighted share of the distinct `key_words` (of `message`) found in any of `texts`
    (0..1; 1.0 for a question without key words, which this measure cannot judge). A word the
    corpus never uses weighs UNSEEN_FACTOR times the question's rarest known word, or
    UNSEEN_OWN_LANGUAGE_FACTOR times when it is written in the corpus's language (the corpus
    maximum when it knows none)."""
    words = list(dict.fromkeys(w.lower() for w in key_words if w.strip()))
    if not words:
        return 1.0
    known = [weights.idf(w) for w in words if weights.seen(w)]
    rarest = max(known) if known else None

    def unseen(word: str) -> float:
        own = weights.language is not None and language_of(word, "") == weights.language
        return (UNSEEN_OWN_LANGUAGE_FACTOR if own else UNSEEN_FACTOR) * rarest

    weight = {w: (weights.idf(w) if weights.seen(w) or rarest is None else unseen(w)) for w in words}
    total = sum(weight.values())
    found = sum(weight[w] for w in words if any(contains(t, w, message) for t in texts))
    return found / total
