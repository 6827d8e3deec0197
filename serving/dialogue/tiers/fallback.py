"""URAG tier 3 (docs/method.md §B.3): the disclaimed fallback when no evidence addresses the question
for this student; when documents answer it for other students, it says for whom there is material."""

from __future__ import annotations

from advisor.index import fields
from serving.answer.language import reply_language
from serving.dialogue import variants
from serving.dialogue.tiers.documents import DocumentsTier
from serving.dialogue.turn import Turn
from serving.dialogue.types import Reply
from serving.dialogue.understanding import MessageReader


class FallbackTier:
    """The fallback answer (serving/answer/fallback.py): with an LLM, a short general one under a
    disclaimer; else an honest no-answer that says where to ask. Never a passage about something else."""

    def __init__(self, documents: DocumentsTier, reader: MessageReader, doc_limits, llm, config, settings) -> None:
        self.documents, self.reader, self.doc_limits = documents, reader, doc_limits
        self.llm, self.config, self.settings = llm, config, settings
        self.schema, self.language = reader.schema, reader.language

    def try_answer(self, turn: Turn) -> Reply:
        """Always an answer: the last tier."""
        from serving.answer.fallback import fallback_answer

        pending = turn.pending
        uncovered = self._uncovered(turn, reply_language(pending.message, self.language))
        audience = " ".join(value for value, _ in uncovered.values()) if uncovered else None
        covered = "; ".join(text for _, text in uncovered.values()) if uncovered else None
        text, method, disclaimer = fallback_answer(pending.message, self.config, self.llm.client,
                                                   contact=self.config.contact,
                                                   audience=audience, covered=covered)
        trace = {"fallback_reason": "uncovered_profile" if uncovered else "unanswerable"}
        return Reply("answer", answer=text, tier="fallback", answer_method=method, disclaimer=disclaimer, trace=trace)

    def _uncovered(self, turn: Turn, language: str) -> dict | None:
        """When the student's own evidence does not answer: the attributes the question depends on
        whose known value no answering document covers, read from a deeper retrieval for anyone:
        {name: (the student's value as text, the covered values as text)}; None when that is not
        why (nothing answers for anyone either, or the values are covered)."""
        pending, session = turn.pending, turn.session
        names = [name for name in self.schema if name in pending.relevant and session.known.get(name) is not None]
        if not names:
            return None
        deep = self.documents.retrieve(pending.query, session.known, soft=pending.relevant, hard=False,
                                       k=max(self.settings.coverage_depth, self.documents.k), today=turn.today,
                                       time_sensitive=pending.trace.get("time_sensitive_llm"))
        found = variants.variants_by_attribute(deep.chunks, self.doc_limits, self.schema,
                                               self.reader.facts_reader(pending.query))
        missing = {}
        for name in names:
            answering = [v for v in found.get(name, []) if v.addressed]
            value = session.known[name]
            if answering and not variants.is_covered(value, answering, self.schema[name]):
                missing[name] = (self._value_text(name, value, language),
                                 self._covered_text(name, answering, language))
        return missing or None

    def _value_text(self, name: str, value, language: str) -> str:
        """The student's value as a label in their language ("2016학번", "admission year 2016")."""
        attribute = self.schema[name]
        return variants.value_label(name, [value] if fields.is_categorical(attribute) else value, attribute, language)

    def _covered_text(self, name: str, found, language: str) -> str:
        """The values the answering documents cover, as text: consecutive numbers as one range."""
        attribute = self.schema[name]
        values = variants.covered_values(found, attribute)
        if fields.is_categorical(attribute):
            return ", ".join(variants.value_label(name, [v], attribute, language) for v in values)
        runs, start = [], None
        for i, number in enumerate(values):  # consecutive numbers as one range: "2019–2026학번"
            start = number if start is None else start
            if i + 1 == len(values) or values[i + 1] != number + 1:
                runs.append(variants.range_text(start, number, attribute, language))
                start = None
        return ", ".join(runs)
