"""URAG tier 1 (docs/method.md §B.1): an FAQ entry's stored answer, verbatim, when its question is
close enough for the build's calibrated threshold and it applies to the student; the group an entry
is written for asked first when its answer is that group's."""

from __future__ import annotations

from collections import Counter
from functools import cached_property
from typing import Any, Callable, Mapping, NamedTuple

from advisor.index import fields
from serving.answer.extractive import own_rows
from serving.answer.language import language_of, reply_language
from serving.dialogue import assembly, variants
from serving.dialogue.answerability import MIN_COVERAGE, contains, coverage
from serving.dialogue.caching import method_cache
from serving.dialogue.session import Pending, Session
from serving.dialogue.turn import Ask, Turn
from serving.dialogue.types import Reply
from serving.dialogue.understanding import MessageReader


class _EntryPassage(NamedTuple):
    """An FAQ entry read as a passage (its chunk's vector, its question and answer's words)."""

    chunk_id: str
    title: str | None
    text: str


MAX_FAQ_VARIANTS = 4  # labelled FAQ answers at most, for a student who does not know their value
# Entries in a question's language the dense model must have seen to tell them apart (see
# FAQTier._scored_in_its_language): a few, not one or two.
MIN_ENTRIES_TO_COMPARE = 10


class FAQTier:
    """The FAQ store searched with the message's vector and words, and its entries' answers."""

    def __init__(self, store, thresholds: Mapping, embedder, reader: MessageReader, settings,
                 first_passage: Callable[[str, Mapping], str | None] | None = None, config=None,
                 variant_sections: Callable[[Pending, Session, str], Mapping] | None = None) -> None:
        """`first_passage(query, known)`: the document URL retrieval ranks first for the student
        (what an entry between the build's floor and its threshold must be to answer); `config`:
        the institution's (whom a stored table's rows are for; None: answers shown whole);
        `variant_sections(pending, session, name)`: per value of `name`, the passages written for
        it that answer (DocumentsTier.variant_sections; None: the entries' variants are all)."""
        self.store, self.thresholds, self.embedder, self.reader = store, thresholds, embedder, reader
        self.settings, self.first_passage, self.config = settings, first_passage, config
        self.variant_sections = variant_sections
        self.schema, self.language = reader.schema, reader.language
        # a message is embedded once, however many tiers and turns look at it
        self._vector = method_cache(self._embed, 1024)
        # a turn searches the FAQ for its question more than once (before profiling, in the tiers)
        self._found = method_cache(self._search, 1024)

    def try_answer(self, turn: Turn) -> Reply | Ask | None:
        """The best qualifying entry's answer; first, once per message, the group it is written for
        when that is unsettled (`open_attributes`); None when no entry qualifies."""
        qualifying = self.matches(turn.pending, turn.session)
        if not qualifying:
            return None
        # what the question names itself is what it is about, not asked (Pending.named)
        unsettled = turn.pending.unnamed(self.open_attributes(qualifying[0].entry, turn.session, turn.pending, qualifying))
        if unsettled and turn.may_follow_up and self.settings.evidence_follow_up:
            return Ask(unsettled)
        if self.misses_variants(qualifying, turn.session, turn.pending):
            turn.pending.trace["faq_misses_variants"] = True
            return None  # the documents state variants the entries do not: they answer, with every one
        return self.reply(qualifying, turn.session, turn.pending)

    def misses_variants(self, qualifying, session: Session, pending: Pending) -> bool:
        """For a student who does not know a value the best entry is limited on: do the documents
        state the answer for values its labelled sibling entries (`_variants`) do not cover? ("don't
        know" major type, entries for 이중전공 only, the page for 심화, 이중 and 융합전공.)"""
        if self.variant_sections is None:
            return False
        declined = assembly.declined([qualifying[0].entry.applies_to], session, self.schema)
        shown = self._variants(qualifying, declined) if declined else []
        for name in declined:
            covered = {value for m in shown for value in (m.entry.applies_to.get(name) or ())}
            if set(self.variant_sections(pending, session, name)) - covered:
                return True
        return False

    # ------------------------------------------------------------------ search
    def search(self, query: str, known: Mapping[str, Any] | None, hard: bool = True) -> list:
        """The FAQ entries closest to `query` (best first, scored; no threshold), those that
        conflict with `known` left out when `hard`."""
        if self.store is None:
            return []
        return list(self._found(query, tuple(sorted((known or {}).items())), hard))

    def _search(self, query: str, known: tuple, hard: bool) -> tuple:
        return tuple(self.store.search(self._vector(query), dict(known), k=self.settings.faq_candidates,
                                       hard=hard, query_tokens=self.reader.terms(query)[1]))

    def _embed(self, message: str):
        return self.embedder.embed_queries([message], [list(self.reader.terms(message)[0])])[0]

    def matches(self, pending: Pending, session: Session) -> list:
        """FAQ entries close enough to answer verbatim (URAG tier 1): a score at or above the build's
        calibrated threshold, or between its floor and the threshold when retrieval over all the
        material also ranks the entry first for this student (the tiers' evidence decides); the
        answerability check passed, not conflicting with the profile, and not a general entry for
        a question whose documents answer differently for different students."""
        threshold = self.thresholds.get("faq_threshold")
        if self.store is None or threshold is None:
            return []
        matches = self.search(pending.faq_query, pending.scoped(session.known), hard=self.settings.hard_filter)
        pending.trace["faq_best"] = None if not matches else {
            "score": round(float(matches[0].score), 4), "source_url": matches[0].entry.source_url}
        floor = self.thresholds.get("faq_floor")
        if (floor is not None and self.first_passage is not None and matches and not pending.leaning
                and floor <= matches[0].score < threshold):
            first = self.first_passage(pending.query, pending.scoped(session.known))
            pending.trace["faq_first_passage"] = first
            matches = [m for m in matches if m.score >= threshold or m.entry.source_url == first]
            threshold = floor
        return [m for m in matches if m.score >= threshold and not self.too_general(m, pending)
                and self._scored_in_its_language(pending, m.entry) and self.addresses(pending, m.entry)]

    def addresses(self, pending: Pending, entry) -> bool:
        """Does the entry pass the answerability check a passage must (MessageReader.qualifies: the
        question's key words in it, or its meaning as close as no unrelated question comes)? The
        threshold is calibrated on generated probes; a campus-life question the corpus does not
        cover ("학식 메뉴") still lands near some entry about campus life."""
        passages = [_EntryPassage(chunk_id, entry.title, f"{entry.question}\n{entry.answer}")
                    for chunk_id in entry.chunk_ids] or [_EntryPassage("", entry.title, f"{entry.question}\n{entry.answer}")]
        return self.reader.qualifies(pending.faq_query, passages, pending.as_asked)

    def answers_first(self, qualifying: list, session: Session, pending: Pending) -> bool:
        """URAG's FAQ first: every close FAQ entry applies to whoever asks; nothing to ask (unless
        the documents show that the answer differs by who asks). When the best entry was asked in
        its own words, entries for some students that answer other questions ("경제학과 세종캠퍼스도
        졸업시험을 보나요?" beside "졸업시험에 떨어지면 어떻게 되나요?") do not count."""
        as_written = qualifying and self.asked_as_written(qualifying[0].entry, pending)
        considered = qualifying[:1] if as_written else qualifying
        return bool(qualifying) and not any(self.open_attributes(m.entry, session, pending, qualifying)
                                            for m in considered)

    def _scored_in_its_language(self, pending: Pending, entry) -> bool:
        """Can the score of `entry` be trusted for this question? Not when both are written in a
        language the FAQ has only a few entries in: the dense model, trained on mostly the
        institution's text, reads such a language as one direction, and every English question
        was "close" to the business college's one English entry (0.66 for "how do I change my
        major?" against "Can I take classes in English only?"). Such an entry must then pass the
        answerability check a passage must: the question's key words in its question or answer.
        In the institution's language the threshold was calibrated; a question in another
        language matched to an entry in the institution's language shares real words with it."""
        language = language_of(pending.message, self.language)
        if (language == self.language or self._languages[entry.source_url] != language
                or self._language_counts[language] >= MIN_ENTRIES_TO_COMPARE):
            return True
        words = self.reader.key_words(pending.message)  # as asked: in the entry's language, not glossed
        return not words or coverage(words, [f"{entry.question}\n{entry.answer}"], self.reader.term_weights,
                                     pending.message) >= MIN_COVERAGE

    @cached_property
    def _languages(self) -> dict[str, str]:
        """The language each FAQ entry is written in (by its question), by its URL."""
        return {e.source_url: language_of(e.question, self.language) for e in self.store.entries}

    @cached_property
    def _language_counts(self) -> Counter:
        """How many FAQ entries are written in each language."""
        return Counter(self._languages.values())

    def too_general(self, match, pending: Pending) -> bool:
        """An entry written for everyone on every attribute the candidate PAGES differ by ("졸업
        학점은 학과마다 다릅니다" for a question whose departments' pages state 130 and 136): the
        page written for this student answers better; the proFILL tier is asked instead. That holds
        for an entry that answers for everyone too, unless it was asked in its own words: one
        whose question lacks some of the student's key words may answer another question in the
        same words (the business college's retake rule, "졸업시험에 떨어지면 어떻게 되나요?", for
        "졸업시험 합격 기준은?"; exempting every entry that does not defer cost that college's
        Table 1 0.04 MRR). Other FAQ entries that differ do not count: they answer other questions
        ("컴퓨터학과 이중전공 졸업요건" beside "융합전공은 따로 졸업요건이 없나요?"), and an FAQ
        made only of entries would never answer from a general one. An entry that only passed the
        floor (a score below the threshold) is weaker evidence: there FAQ entries for different
        students that differ count too ("졸업하려면 몇 학점 필요해요?" beside the per-cohort credit
        entries is not answered by the general minimum-GPA entry)."""
        entry = match.entry
        below = match.score < self.thresholds.get("faq_threshold", 0.0)
        differing = pending.differing if below else pending.pages_differing
        if not differing or any(entry.applies_to.get(name) is not None for name in differing):
            return False
        return variants.defers(entry.answer) or not self.asked_as_written(entry, pending)

    def asked_as_written(self, entry, pending: Pending) -> bool:
        """Does the entry's question hold every key word of the student's?"""
        return all(contains(entry.question, word, pending.query) for word in self.reader.key_words(pending.query))

    # ------------------------------------------------------------------ whom an entry is for
    def open_attributes(self, entry, session: Session, pending: Pending, qualifying=()) -> list[str]:
        """What to ask before answering with `entry` verbatim: the unsettled attributes it is limited
        on where its answer is one group's: its own question names the group ("복학생이 받을 수 있는
        장학금이 있나요?", "2019학번부터 2022학번까지의 학생 이중전공 이수 학점은?"), or another
        qualifying entry for other students answers otherwise (the 컴퓨터학과 and 데이터과학과 "학과
        사무실 위치는?"). Never what the student's question names itself ("융합전공 어떻게 신청해요"
        asks about the 융합전공 entry whoever asks, without saying the student is in one). A limit
        read from an answer that states the rule the student asks to learn ("2~3학년 재학생이 신청할
        수 있습니다") or an example ("2015–2018학년도 입학생이 '이산구조'를 이수했으면") is no reason
        to ask: the entry answers anyone, however the documents for different cohorts differ."""
        return [name for name in self._unsettled(entry.applies_to, session)
                if not self._names_group(pending.query, name, entry.applies_to[name])
                and (self._names_group(entry.question, name, entry.applies_to[name])
                     or _siblings_differ(entry, name, qualifying))]

    def _names_group(self, text: str, name: str, values) -> bool:
        """Does `text` name a group of `name` in `values`: one of the categorical values, or a year or
        grade range that overlaps the (low, high) limit (read by the rules annotator's readers, as
        for documents: "1학년 때", "2019학번부터 2022학번까지")?"""
        if fields.is_categorical(self.schema[name]):
            return self._names_value(text, name, values)
        extractor = self.reader.stated.reader.extractors.get(name)
        low, high = values
        return hasattr(extractor, "ranges_in") and any(r.low <= high and low <= r.high
                                                       for r in extractor.ranges_in(text))

    def _names_value(self, text: str, name: str, values) -> bool:
        """Does `text` name one of `values` of a categorical attribute (by any of its aliases)?"""
        attribute = self.schema[name]
        if not fields.is_categorical(attribute):
            return False
        text = text.lower()
        return any(alias.lower() in text for value in values
                   for alias in (value, *attribute.values.get(value, ()), attribute.label(value)) if len(alias) >= 2)

    def _unsettled(self, applies_to: Mapping, session: Session) -> list[str]:
        return [n for n in self.schema if applies_to.get(n) is not None and not session.settled(n)]

    # ------------------------------------------------------------------ the reply
    def reply(self, matches, session: Session, pending: Pending) -> Reply:
        """The best entry's answer verbatim. When the student said "don't know" to what it is limited
        on, its answer labelled by whom it applies to, with the close entries for the other values
        each labelled the same way ("2019–2022학번: 60학점 / 2023학번 이후: 66학점"), citing every one:
        never an answer written for some students given as if it were this student's."""
        best = matches[0]
        declined = assembly.declined([best.entry.applies_to], session, self.schema)
        student = reply_language(pending.message, self.language)  # the labels are in the student's language
        shown = self._variants(matches, declined) if declined else [best]
        citations = [assembly.faq_citation(m.entry) for m in shown]
        # a stored answer with a table answers with the student's rows of it, not every cohort's
        own = (lambda text: own_rows(text, session.known, self.config)) if self.config is not None else (lambda t: t)
        text = own(best.entry.answer)
        if declined:
            text = "\n".join(f"{variants.audience_label(m.entry.applies_to, declined, self.schema, student)}: "
                              f"{own(m.entry.answer)}" for m in shown)
        # an English question answered from a Korean entry (or the reverse) says so, as tier 2 does
        quoted = assembly.quoted_note(pending.message, best.entry.answer, self.language)
        notes = [note for note in (quoted, assembly.declined_note(declined, pending.message, self.schema,
                                                                  self.language)) if note]
        return Reply("answer", answer=text, tier="faq", answer_method="faq_verbatim", citations=citations,
                     disclaimer=" ".join(notes) or None,
                     trace={"faq_entry": best.entry.entry_id, "faq_score": float(best.score),
                            "faq_variants": [m.entry.entry_id for m in shown]})

    def _variants(self, matches, declined: list[str]) -> list:
        """Of the qualifying entries, one per audience on the `declined` attributes, when they are
        limited on them and say different things: the best entry's siblings for other students."""
        shown, labels, answers = [], set(), set()
        for match in matches[:MAX_FAQ_VARIANTS * 2]:
            label = variants.audience_label(match.entry.applies_to, declined, self.schema)
            if label is None or label in labels or match.entry.answer in answers:
                continue
            shown.append(match)
            labels.add(label)
            answers.add(match.entry.answer)
        return shown[:MAX_FAQ_VARIANTS] if len(shown) > 1 else matches[:1]


def _siblings_differ(entry, name: str, qualifying) -> bool:
    """Another qualifying FAQ entry is limited on `name` to other values and answers otherwise."""
    mine = entry.applies_to.get(name)
    return any(m.entry.applies_to.get(name) is not None and m.entry.applies_to.get(name) != mine
               and m.entry.answer != entry.answer for m in qualifying)
