"""Reading a student's message against one build (docs/method.md §A online steps 2-4): what it is
about (its key words), its spacing when written without, the build's own words for its
abbreviations and synonyms, its English in the institution's terms, the profile values it states or
types, and the facts a passage states for it. Every tier reads a message through `MessageReader`."""

from __future__ import annotations

import re
from dataclasses import asdict
from functools import cached_property
from typing import Any, Callable, Mapping

from advisor.chunking.kiwi_tokens import ENGLISH_FUNCTION_WORDS
from advisor.config import InstitutionConfig
from advisor.index import fields
from advisor.index.store import IndexBuild
from advisor.retrieval.glossary import shipped_glossary
from advisor.retrieval.vocabulary import CorpusVocabulary
from serving.answer.language import language_of
from serving.dialogue import profiling, typed, variants
from serving.dialogue.answerability import MIN_COVERAGE, NOT_TOPICS, TermWeights, coverage
from serving.dialogue.caching import method_cache
from serving.dialogue.profiling import DialogueInputError, StatedValues
from serving.dialogue.session import Pending, Session

UNSPACED_SYLLABLES = 9
_UNSPACED = re.compile(rf"[\uac00-\ud7a3]{{{UNSPACED_SYLLABLES},}}")
_ENGLISH_WORD = re.compile(r"[A-Za-z][A-Za-z']*")
# What a glossed English question drops: function words and what it asks with (answerability.NOT_TOPICS)
_ENGLISH_FRAME = ENGLISH_FUNCTION_WORDS | NOT_TOPICS
# Topics a paraphrase may name that the corpus never uses (a typo, a student's coinage) and still be
# answered by what it means: one. Chosen on the development sets (docs/method.md §A online step 7).
MAX_UNSEEN = 1


class MessageReader:
    """A message read in one build's terms: its tokens and key words (cached per message), the
    build's IDF weights, vocabulary and glossary, and the rules' readers of profile values."""

    def __init__(self, build: IndexBuild, config: InstitutionConfig, tokenizer, stated: StatedValues,
                 embedder=None, semantic: Mapping[str, float] | None = None) -> None:
        """`embedder`: the build's (the message's vector against its chunks'); `semantic`: the
        build's calibrated similarity above which evidence answers a question in that language
        even in other words (serving.json's `semantic_answerability`; None: key words only)."""
        self.tokenizer, self.stated = tokenizer, stated
        self.schema, self.language = build.schema, config.language
        self.build, self.embedder = build, embedder
        self.semantic = {lang: float(t) for lang, t in (semantic or {}).items() if isinstance(t, (int, float))}
        self._vector = method_cache(self._embed, 1024)
        # A message is read (Kiwi) once, however many tiers and turns look at it
        self.terms = method_cache(self._read, 1024)
        # what a passage states for a question: read for every candidate when deciding what to ask,
        # again for the evidence question and the "no material for you" check (and, in the
        # evaluation, by every system variant that retrieves the same passages)
        self._key_facts = method_cache(self._read_key_facts, 16384)
        # the names of the profile's values ("컴퓨터학과", "복수전공"): they say whom a passage is for,
        # not what it states (serving/dialogue/variants.py)
        self.audience_words = tuple({word for attribute in self.schema.values() if fields.is_categorical(attribute)
                                     for value, aliases in attribute.values.items()
                                     for word in (value, *aliases, attribute.label(value)) if len(word) >= 2})
        # IDF of the build's own morphemes: what the answerability check weighs a question's words by
        self.term_weights = TermWeights((tokens for c in build.collections.values() if "tokens" in c.chunks.columns
                                         for tokens in c.chunks["tokens"].to_list()), self.language)
        # English administration words in Korean terms, for English questions asked offline
        self.glossary = shipped_glossary()
        # the build's own words for a student's abbreviations and synonyms (read on first use)
        self.vocabulary = CorpusVocabulary(
            (text for c in build.collections.values() if "text" in c.chunks.columns for text in c.chunks["text"].to_list()),
            (tokens for c in build.collections.values() if "tokens" in c.chunks.columns
             for tokens in c.chunks["tokens"].to_list()))

    # ------------------------------------------------------------------ what a message is about
    def _read(self, message: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(content morphemes, key words) of a message."""
        return (tuple(self.tokenizer.content_morphemes([message])[0]), tuple(self.tokenizer.key_words([message])[0]))

    def key_words(self, message: str) -> tuple[str, ...]:
        """What the question is about, as the answerability check weighs it: its key words without
        numbers (a year or an amount the student states is who they are or what they believe,
        "34학점인 걸로 아는데 맞죠?", not the topic), interrogatives ("얼마", "언제": what it asks with),
        the nouns of a request's frame ("관련하여 안내 부탁드립니다")
        and one-letter forms the build never uses (Kiwi's remnants of endings: "걸", "아")."""
        return tuple(word for word in self.terms(message)[1]
                     if not word.isdigit() and word.lower() not in NOT_TOPICS
                     and (len(word) > 1 or self.term_weights.seen(word)))

    def spaced(self, message: str) -> str | None:
        """The message with its spacing restored when it is written without spaces (a run of
        UNSPACED_SYLLABLES Hangul syllables or more): the classifier's and the FAQ's character
        n-grams are taken within words, and a sentence with no spaces is one word. None otherwise."""
        if not _UNSPACED.search(message):
            return None
        spaced = self.tokenizer.spaced(message)
        return spaced if spaced != message else None

    def names_a_topic(self, text: str) -> bool:
        """Does the text name something this build's documents are about: a key word (not an
        interrogative) that some chunk uses, in the student's words or the build's ("유학생" where the
        documents say "외국인 학생")? ("휴학" yes; "챗봇", "로봇" in "넌 로봇이야" no.)"""
        if any(self.term_weights.seen(word) for word in self.key_words(text) if len(word) > 1):
            return True
        rewritten, rewrites = self.vocabulary.rewrite(text, self.terms(text)[1])
        return bool(rewrites) and any(self.term_weights.seen(word) for word in self.key_words(rewritten)
                                      if len(word) > 1)

    def qualifies(self, message: str, evidence, as_asked: str | None = None) -> bool:
        """The answerability check before tier 2 (serving/dialogue/answerability.py): the evidence
        covers at least MIN_COVERAGE of the question's key words (nouns, names, numbers, roots)
        weighted by their IDF over this build's chunks, so a word the corpus never uses (the topic
        of an out-of-scope question) weighs most; or it says the same in other words
        (`answers_in_other_words`). A question with no key words at all is about nothing the
        documents could answer. `as_asked`: what the encoder reads instead of `message`
        (Pending.as_asked)."""
        if not self.key_words(message):
            return False
        return (self.answerability(message, evidence) >= MIN_COVERAGE
                or self.answers_in_other_words(as_asked or message, evidence))

    def answers_in_other_words(self, message: str, evidence) -> bool:
        """Is some passage of the evidence as close to the message, for the encoder, as no unrelated
        question gets to this corpus (the build's calibrated threshold for the message's language:
        advisor/index_build/semantic.py)? A paraphrase ("실습할 회사를 따로 구해 와도 돼요?" for "실습
        기관을 직접 찾아도 되나요?") shares meaning, not words. In the institution's language the
        message must not name more than MAX_UNSEEN topics the corpus never uses: "학생식당 점심 메뉴"
        is near every page about campus life, and about none of them."""
        language = language_of(message, self.language)
        threshold = self.semantic.get(language)
        if threshold is None or self.embedder is None or not evidence:
            return False
        if language == self.language:
            unseen = [word for word in self.key_words(message) if len(word) > 1 and not self.term_weights.seen(word)]
            if len(unseen) > MAX_UNSEEN:
                return False
        return self.similarity(message, evidence) >= threshold

    def similarity(self, message: str, evidence) -> float:
        """The encoder's cosine of the message with its closest passage of the evidence (the
        passages' vectors as the build stored them)."""
        rows = [self._row_of.get(chunk.chunk_id) for chunk in evidence]
        vectors = [self.build.collections[name].vectors[row] for name, row in filter(None, rows)]
        if not vectors:
            return 0.0
        query = self._vector(message)
        return max(float(vector @ query) for vector in vectors)

    def _embed(self, message: str):
        return self.embedder.embed_queries([message], [list(self.terms(message)[0])])[0]

    @cached_property
    def _row_of(self) -> dict[str, tuple[str, int]]:
        return {chunk_id: (name, row) for name, collection in self.build.collections.items()
                for row, chunk_id in enumerate(collection.chunk_ids)}

    def answerability(self, message: str, evidence) -> float:
        """The IDF-weighted share of the message's key words the evidence holds (0 without key words)."""
        words = self.key_words(message)
        if not words:
            return 0.0
        return coverage(words, [f"{chunk.title or ''}\n{chunk.text}" for chunk in evidence], self.term_weights, message)

    # ------------------------------------------------------------------ the question in the build's terms
    def in_build_words(self, pending: Pending) -> None:
        """The pending query in the build's own words (advisor/retrieval/vocabulary.py): a student's
        abbreviation or synonym the documents never use replaced by the word they do use."""
        rewritten, rewrites = self.vocabulary.rewrite(pending.query, self.terms(pending.query)[1])
        if rewrites:
            pending.search_text = pending.trace["search_text"] = rewritten
            pending.trace.setdefault("rewrites", []).extend(asdict(r) for r in rewrites)

    def stated_values(self, stated: Mapping[str, Any]) -> dict[str, Any]:
        """The values a question states about the student (read by the rules or the LLM), canonical;
        those outside the schema dropped."""
        taken = {}
        for name, value in stated.items():
            try:
                value = profiling.canonical_answer(name, value, self.schema)
            except DialogueInputError:
                continue  # an LLM's value outside the schema: dropped, never guessed
            if value is not None:
                taken[name] = value
        return taken

    def glossed(self, pending: Pending, answered_as_written: Callable[[], bool],
                coverage_of: Callable[[str], float]) -> str | None:
        """Offline, an English question (or the English words of a Korean one) to an institution
        that writes in Korean, with the phrases the glossary knows in the institution's terms
        (advisor/retrieval/glossary.py). None when the institution's language is not Korean, the
        glossary knows none of its words, or, for an English question, the build answers it as
        written: an English FAQ entry (`answered_as_written`), or what the English question
        retrieves covers it at least as well as what its Korean terms retrieve (`coverage_of` a
        query: how well what it retrieves for anyone covers it)."""
        student = language_of(pending.message, self.language)
        if self.language != "ko" or student not in ("ko", "en"):
            return None
        if student == "ko":
            # English words in a Korean question ("field practice 지원금 얼마야?"): a phrase becomes the
            # Korean term where the documents write the term more often than the phrase ("GPA" stays
            # where they write GPA), as the thesaurus's synonyms do
            text, found = self.glossary.translate(pending.query, keep=lambda g: self.vocabulary.count(
                g.korean) > self.vocabulary.count(g.english), choose=self._most_used)
            if found:
                pending.trace["glossary"] = [asdict(g) for g in found]
                return text
            return None
        text, found = self.glossary.translate(pending.query, choose=self._most_used)
        if not found or answered_as_written():
            return None
        # what is left of the English frame ("how do I … for a …") would match every English page
        text = _ENGLISH_WORD.sub(lambda m: "" if m.group().lower() in _ENGLISH_FRAME else m.group(), text)
        text = " ".join(text.split())
        # the question as written keeps its English pages when they cover it better than the
        # Korean terms find passages that do ("I lost my student ID card" matches an English page on
        # "student" only); on a tie the institution's own material answers: an English page is
        # its summary for some students ("Major credits differ by department"), the Korean pages
        # state the student's own figures
        as_written, glossed = (coverage_of(q) for q in (pending.query, text))
        pending.trace["glossary_coverage"] = [round(as_written, 3), round(glossed, 3)]
        if glossed < as_written:
            return None
        pending.trace["glossary"] = [asdict(g) for g in found]
        pending.trace["as_asked"] = pending.query
        return text

    def _most_used(self, terms) -> str:
        """Of a glossary phrase's Korean terms, the one this build's documents use most (the first on a tie)."""
        return max(terms, key=self.vocabulary.count)

    # ------------------------------------------------------------------ what a passage states for a question
    def facts_reader(self, query: str):
        """chunk -> the key facts it states for `query` (serving/dialogue/variants.py)."""
        return lambda chunk: self._key_facts(query, chunk.text, chunk.title or "")

    def _read_key_facts(self, query: str, text: str, title: str):
        return variants.key_facts(text, self.key_words(query), self._audience_spans, self.term_weights, query,
                                  title, self.audience_words)

    def _audience_spans(self, text: str) -> list[tuple[int, int]]:
        """Where `text` says whom it is for in numbers ("2019학번", "3~4학년"): read by the rules
        annotator's range readers, built from the config."""
        return [(r.start, r.end) for extractor in self.stated.reader.extractors.values()
                if hasattr(extractor, "ranges_in") for r in extractor.ranges_in(text)]

    # ------------------------------------------------------------------ profile values typed
    def typed_answers(self, session: Session, message: str) -> dict | None:
        """The answers a message gives to the profile questions pending, when it gives some and says
        nothing else (serving/dialogue/typed.py); None otherwise: a new question."""
        pending = session.pending
        if pending is None or not pending.asked:
            return None
        return self._values_only(message, declinable=pending.asked)

    def follow_up(self, session: Session, message: str) -> dict | None:
        """Profile values a message names and nothing else, right after an answer ("데이터과학과는?",
        "그럼 2023학번은요?"): None when there was no answer yet or the message says more."""
        return self._values_only(message) if session.last_question else None

    def _values_only(self, message: str, declinable=()) -> dict | None:
        """The profile values the message names, when what is left of it names no topic: words that
        name an attribute ("학번은", "cohort"), the profile questions' own words and frames are none."""
        found = typed.read(message, self.schema, self.stated.reader.extractors, declinable=declinable)
        allowed = typed.ATTRIBUTE_WORDS | self._question_words
        if found.values and all(word.lower() in allowed for word in self.key_words(found.rest)):
            return found.values
        return None

    @cached_property
    def _question_words(self) -> frozenset[str]:
        return frozenset(w.lower() for attribute in self.schema.values() for w in self.key_words(attribute.question))
