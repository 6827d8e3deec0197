"""Building the dialogue's replies (docs/contracts.md §4): citations, an answer's parts labelled with
whom their sources apply to, the notes on what the answer was found without and on the language of
its material, and the trace the evaluation reads."""

from __future__ import annotations

import re

from advisor.config import english_name
from advisor.index import fields
from serving.answer.language import language_of, material_note, reply_language
from serving.dialogue import templates, variants
from serving.dialogue.session import Pending, Session
from serving.dialogue.types import Citation, Reply


def template_reply(text: str, intent: str, session: Session, trace: dict, method: str = "template") -> Reply:
    """An answer from the templates (serving/dialogue/templates.py), no tier searched."""
    return Reply("answer", answer=text, intent=intent, tier="template", answer_method=method,
                 profile_used=dict(session.known), trace=trace)


def faq_citation(entry) -> Citation:
    """An FAQ entry cited by its question."""
    return Citation(url=entry.source_url, title=entry.title or entry.question, snippet=entry.question,
                    chunk_id=entry.chunk_ids[0] if entry.chunk_ids else "")


def passage_citation(chunk, snippet: str | None) -> Citation:
    """A retrieved passage cited by what the answer took from it (else its first line)."""
    return Citation(url=chunk.doc_url, title=chunk.title, snippet=snippet or first_line(chunk.text),
                    chunk_id=chunk.chunk_id)


def label_variants(text: str, cited_applies_to: list, names: list[str], schema, language: str) -> str:
    """Each part of an answer prefixed with whom its source applies to ("2019–2022학번: … [1]"): a part
    is the text up to its citation marker(s), and [n] is the n-th cited source. A source limited on
    none of `names` is labelled as applying to everyone, when another part is labelled."""
    matches = list(re.finditer(r"\s*(.*?(?:\[\d+\])+)", text, flags=re.DOTALL))
    if not matches:
        return text
    parts, tail = [m.group(1) for m in matches], text[matches[-1].end():]
    labels = []
    for part in parts:
        number = int(re.search(r"\[(\d+)\]", part).group(1))
        applies_to = cited_applies_to[number - 1] if 0 < number <= len(cited_applies_to) else {}
        labels.append(variants.audience_label(applies_to, names, schema, language))
    if not any(labels):
        return text
    everyone = templates.text("everyone_label", language)
    lines = [f"{label or everyone}: {part.strip()}" for label, part in zip(labels, parts)]
    return "\n".join(lines) + tail


def declined(annotations, session: Session, schema: fields.Schema) -> list[str]:
    """The attributes the student answered "don't know" that these sources are limited on."""
    return [name for name in schema if name in session.declined
            and any(a.get(name) is not None for a in annotations)]


def declined_note(names: list[str], message: str, schema: fields.Schema, language: str) -> str | None:
    """The note that the answer was found without the `names` the student did not know."""
    if not names:
        return None
    if in_english(message, language):  # the attributes by name, not by the institution's questions
        return templates.text("declined_note", "en", attributes=", ".join(english_name(n) for n in names))
    return templates.text("declined_note", reply_language(message, language),
                          attributes=", ".join(short_question(schema[n].question) for n in names))


def in_english(message: str, language: str) -> bool:
    """Did a student write English to an institution that does not? (Then its questions and
    notes are worded in English rather than in its own words.)"""
    return language != "en" and reply_language(message, language) == "en"


def quoted_note(message: str, answer: str, language: str) -> str | None:
    """The note that a stored answer is quoted from material in another language than the question's."""
    return material_note(language_of(message, language), language_of(answer, language))


def first_line(text: str) -> str:
    return next((line.strip("#- ").strip() for line in text.splitlines() if line.strip()), "")[:200]


def short_question(question: str) -> str:
    """A profile question without its parenthesis and question mark: how a note names the attribute."""
    return question.split("(")[0].strip().rstrip("?").strip()


def pending_trace(pending: Pending) -> dict:
    """What the evaluation reads of a question's dialogue: its trace, the profile questions it cost
    and the attributes written into the prefix."""
    trace = dict(pending.trace)
    trace["questions_asked"] = pending.questions_so_far
    trace["prefix_attributes"] = pending.relevant
    return trace
