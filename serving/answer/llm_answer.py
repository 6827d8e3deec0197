"""The grounded LLM answer (docs/method.md §A online step 9, §B tier 2): the model sees the question, the
student's known profile in words and the numbered evidence, and must answer from the evidence only,
citing [n] after each claim. Output that cites nothing, cites outside 1..n or leaves a marker in
the text unlisted is invalid: the client retries it, then gives up with an LLMFailure, and the
caller answers extractively instead (never presenting that as the LLM's answer).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from advisor.config import CategoricalAttribute, InstitutionConfig
from advisor.llm.client import LLMClient, LLMFailure, LLMUsage
from advisor.retrieval import RetrievedChunk
from serving.answer.language import english_name, language_of, material_note
from serving.answer.units import ComposedAnswer, marker, readable, split_units

PROMPT_VERSION = "answer-v2"  # v2: the answer language named (questions in another language than the material)
SCHEMA_NAME = "grounded_answer"
SCHEMA = {
    "type": "object",
    "properties": {
        "answer": {"type": "string"},
        "citations": {"type": "array", "items": {"type": "integer"}},
    },
    "required": ["answer", "citations"],
    "additionalProperties": False,
}
SYSTEM = (
    "You are the academic-advising assistant of a university. Answer the student's question using "
    "ONLY the numbered evidence. Write in the language named on the \"Answer in\" line (the language "
    "of the question), even when the evidence is in another language: translate what the evidence "
    "says, keeping its numbers, dates and names exactly. Be concise (a few sentences "
    "or a short list), the sentence that answers first. Put the evidence number in square brackets, like [1], right after each claim "
    "it supports. Parts of the evidence may address other students (another department, admission "
    "year, major type, grade or status): follow only what applies to this student's profile and "
    "ignore the rest. If the evidence does not answer the question, or only partly, say what is "
    "missing instead of guessing. Return JSON: {\"answer\": the text, \"citations\": the evidence "
    "numbers you used}."
)
_MARKERS = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
_SENTENCE_END = re.compile(r"(?<=[.?!。])\s+")


class LLMAnswerer:
    """method "llm". `usage` accumulates what the calls cost (for the evaluation's usage table)."""

    def __init__(self, client: LLMClient, split_sentences: Callable[[str], list[str]] | None = None):
        self.client = client
        # Kiwi splits Korean sentences better; a punctuation split is enough to pick a snippet
        self.split_sentences = split_sentences or _split_on_punctuation
        self.usage = LLMUsage()

    def answer(self, query: str, evidence: Sequence[RetrievedChunk], known: Mapping[str, Any],
               config: InstitutionConfig) -> ComposedAnswer | LLMFailure:
        if not evidence:
            raise ValueError("LLMAnswerer.answer needs at least one evidence chunk (use fallback_answer without)")
        messages = [{"role": "system", "content": SYSTEM},
                    {"role": "user", "content": prompt(query, evidence, known, config)}]
        result, usage = self.client.complete_json(messages, SCHEMA, SCHEMA_NAME, check=citation_check(len(evidence)))
        self.usage.add(usage)
        if isinstance(result, LLMFailure):
            return result
        return self._compose(result, evidence, language_of(query, config.language))

    def _compose(self, result: dict, evidence: Sequence[RetrievedChunk], student: str) -> ComposedAnswer:
        text = result["answer"].strip()
        used = [n for numbers in _MARKERS.findall(text) for n in _numbers(numbers)]
        cited: list[int] = []
        for number in [*used, *result["citations"]]:  # order of use in the text, then the rest listed
            if number - 1 not in cited:
                cited.append(number - 1)
        renumber = {index + 1: position + 1 for position, index in enumerate(cited)}
        text = _MARKERS.sub(lambda m: "".join(marker(renumber[n]) for n in _numbers(m.group(1))), text)
        snippets = {index: self._snippet(evidence[index], text) for index in cited}
        material = language_of(" ".join(evidence[i].text for i in cited), default=student)
        return ComposedAnswer(text, cited, snippets, "llm", language_note=material_note(student, material, translated=True))

    def _snippet(self, chunk: RetrievedChunk, answer: str) -> str:
        """The chunk's sentence (or row) sharing the most with the answer, else its first line."""
        units = [u for u in split_units(chunk.text, self.split_sentences, chunk.kind == "faq") if u.kind != "list"]
        if not units:
            return chunk.text.strip().splitlines()[0] if chunk.text.strip() else ""
        answer_grams = _bigrams(answer)
        best = max(units, key=lambda u: (len(_bigrams(readable(u.text)) & answer_grams), -u.position))
        if not _bigrams(readable(best.text)) & answer_grams:
            best = units[0]
        return "\n".join(best.lines)


def citation_check(n: int) -> Callable[[dict], str | None]:
    """The client's semantic check: a problem message makes it retry, then fail."""

    def check(data: dict) -> str | None:
        citations = data["citations"]
        if not data["answer"].strip():
            return "the answer is empty"
        if not citations:
            return "no citations: every answer must cite the evidence it uses"
        outside = sorted({c for c in citations if not 1 <= c <= n})
        if outside:
            return f"citations {outside} are outside 1..{n}"
        unlisted = sorted({c for group in _MARKERS.findall(data["answer"]) for c in _numbers(group)} - set(citations))
        if unlisted:
            return f"markers {unlisted} in the answer are not listed in citations"
        return None

    return check


def prompt(query: str, evidence: Sequence[RetrievedChunk], known: Mapping[str, Any],
           config: InstitutionConfig) -> str:
    """The user message: question, profile in words, numbered evidence (title, URL, text)."""
    answer_in = english_name(language_of(query, config.language))
    parts = [f"Question: {query}", f"Answer in: {answer_in}", f"Student profile: {profile_in_words(known, config)}",
             "Evidence:"]
    for number, chunk in enumerate(evidence, 1):
        header = f"[{number}] {chunk.title or ''} ({chunk.doc_url})".replace("  ", " ")
        audience = _audience(chunk.applies_to or {}, config)
        if audience:
            header += f"\nApplies to: {audience}"
        parts.append(f"{header}\n{chunk.text.strip()}")
    return "\n\n".join(parts)


def profile_in_words(known: Mapping[str, Any], config: InstitutionConfig) -> str:
    """"컴퓨터학과, admission_year 2021, grade 3": labels for categorical values, in schema order."""
    words = []
    for name, attribute in config.profile.items():
        if name not in known:
            continue
        value = known[name]
        if isinstance(attribute, CategoricalAttribute) and value in attribute.values:
            words.append(f"{name}: {attribute.label(value)}")
        else:
            words.append(f"{name}: {value}")
    return ", ".join(words) if words else "nothing known yet"


def _audience(applies_to: Mapping[str, Any], config: InstitutionConfig) -> str:
    words = []
    for name, attribute in config.profile.items():
        value = applies_to.get(name)
        if not value:
            continue
        if isinstance(attribute, CategoricalAttribute):
            labels = (attribute.label(v) if v in attribute.values else str(v) for v in value)
            words.append(f"{name}: " + " / ".join(labels))
        else:
            low, high = value
            words.append(f"{name}: {low}" if low == high else f"{name}: {low}-{high}")
    return ", ".join(words)


def _numbers(group: str) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", group)]


def _bigrams(text: str) -> set[str]:
    squashed = re.sub(r"\s+", "", text.lower())
    return {squashed[i:i + 2] for i in range(len(squashed) - 1)}


def _split_on_punctuation(text: str) -> list[str]:
    return [piece for piece in _SENTENCE_END.split(text) if piece.strip()]
