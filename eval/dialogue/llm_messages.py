"""More benchmark messages, written by an LLM when one is configured (issue 12, part 1: "with an
LLM configured, the LLM writes more of these messages"). Offline, the templates (messages.py) are
the whole benchmark; this only adds to them.

The gold never comes from the LLM's judgement: it is the construction. Each request asks for one
category (greeting, ability, smalltalk, out-of-scope; an FAQ paraphrase of one NAMED seed entry; a
profile-independent question about one seed entry that restricts no attribute) in each of the seven
registers, and every message it returns carries that category, that entry and `gold_from` =
"llm_written". What the model writes is checked before it is used, item by item (the register is
visible in the text: Hangul or not, spaces or not, an emoji; an FAQ paraphrase must not copy its
question; an out-of-scope question must not echo a title the material covers), and a bad item is
dropped, never repaired into something else. Messages equal to a template message (or to one
another) are dropped too, so the LLM adds wordings, not weight.

Nothing here is institution-specific: the inputs are the build's own seed FAQ entries and chunk
titles and the institution's name, so the same prompts serve any university. These messages are
measured on only: no calibration (FAQ threshold, router) reads them (advisor/ cannot import eval/,
see the import-linter contracts), so they stay held out by construction.

Calls go through the lakehouse cache (advisor.llm.batch.CachedJSONTask): a re-run with the same
build and model sends nothing, and a failed request (429 after its retries, malformed JSON twice) is
not cached, costs only its own messages, and is asked again on the next run.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import duckdb

from advisor.faq.store import FAQEntry, faq_entries_from_build
from advisor.llm.batch import CachedJSONTask
from advisor.llm.client import LLMClient, LLMFailure
from advisor.llm.jsoncheck import strict_object
from eval.dialogue.messages import REGISTERS, Message, message_id

GOLD_LLM = "llm_written"
TASK, PROMPT_VERSION, SCHEMA_NAME = "dialogue_bench_messages", "dialogue-messages-v1", "dialogue_bench_messages"
ENTRY_TASK = "dialogue_bench_entry_messages"  # per FAQ entry: its own llm_usage row
PER_REGISTER = 2  # hand categories: messages per register per category
FAQ_ENTRIES = 12  # seed entries paraphrased (one message per register each)
INDEPENDENT_ENTRIES = 8  # unrestricted seed entries asked about in other words
TITLES_SHOWN = 80  # titles listed to the model as "what the material covers"
MAX_CHARS = 200
ECHO_OVERLAP = 0.6  # an out-of-scope message sharing this much of a covered title's bigrams echoes it
MIN_TITLE_BIGRAMS = 3  # shorter titles ("안내", "FAQ") say nothing about a topic
COPY_OVERLAP = 0.85  # an FAQ paraphrase sharing this much of the entry question's bigrams copies it

REGISTER_GUIDE = {
    "polite": "polite Korean (존댓말), as a student writes to a staff member",
    "banmal": "casual Korean (반말), as to a friend",
    "typo": "Korean typed fast on a phone: a typo or two, sloppy spelling, shortened endings",
    "nospace": "Korean with no spaces at all",
    "emoji": "Korean with one or two emoji",
    "english": "English only, no Korean",
    "mixed": "Korean mixed with a few English words",
}
# category -> (intent a router should give, expected behaviour, what to ask the model for)
HAND = {
    "greeting": ("greeting", "template",
                 "a greeting that opens the conversation with the assistant; no question, no request"),
    "ability": ("ability", "template",
                "a question about the assistant ITSELF, not about the university: what it can do, whether it "
                "is a bot or a person, when or how it answers, whether it remembers or stores things, who made "
                "it, what it cannot do"),
    "smalltalk": ("smalltalk", "template",
                  "small talk that asks for no information: thanks, a reaction, a feeling, a joke, a goodbye"),
    "out_of_scope": (None, "fallback",
                     "a question a student might ask about campus life that NONE of the listed titles covers "
                     "(for example food nearby, clubs, the weather, transport, part-time jobs, dating, sports); "
                     "do not ask about anything a listed title is about"),
}
SYSTEM = """\
You write test messages for the academic-advising chat assistant of {institution}. Each message is \
what one student types, on its own, as the first message of a conversation. Write natural, varied \
messages; never number them, never add quotes or explanations. Registers:
{registers}
Return JSON only, in the schema given."""
HAND_USER = """\
Write {n} different messages for each register. Each message is {what}.
{titles}"""
FAQ_USER = """\
A student needs exactly what this FAQ entry answers, but has not read it. Write one message per \
register in the student's own words: the same need, different words. Do not reuse the entry's \
phrases, do not mention the FAQ.
Question: {question}
Answer (for what the need is; do not quote it): {answer}"""
INDEPENDENT_USER = """\
This FAQ entry's answer is the same for every student. Write one message per register asking about \
something this answer states (a fact, a place, a deadline, a procedure), in a student's words, without \
saying who the student is (no department, year, cohort or status).
Question: {question}
Answer: {answer}"""

_HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
_LATIN = re.compile(r"[A-Za-z]")
_PUNCT = re.compile(r"[\s?？.!。~,'\"`]")


@dataclass
class Report:
    """What the LLM wrote and what was kept, for the asset's metadata and the metric rows."""

    requests: int = 0
    failed: Counter = field(default_factory=Counter)  # request failures by reason (llm_http_429 ...)
    dropped: Counter = field(default_factory=Counter)  # items dropped by reason
    kept: int = 0
    model: str | None = None

    @property
    def failures(self) -> int:
        return sum(self.failed.values())


# no minItems / maxItems: not every server's strict mode takes them; extra items are cut, few are fine
LIST_PER_REGISTER = strict_object({r: {"type": "array", "items": {"type": "string"}} for r in REGISTERS})


ONE_PER_REGISTER = strict_object({r: {"type": "string"} for r in REGISTERS})


def write_messages(client: LLMClient, con: duckdb.DuckDBPyConnection, build, institution: str,
                   templates: Sequence[Message], *, faq_entries: Sequence[FAQEntry] | None = None,
                   per_register: int = PER_REGISTER, faq_count: int = FAQ_ENTRIES,
                   independent_count: int = INDEPENDENT_ENTRIES) -> tuple[list[Message], Report, list[CachedJSONTask]]:
    """The LLM-written messages for `build` (deduplicated against `templates` and one another, in
    a stable order), what happened, and the tasks (for their usage rows)."""
    entries = sorted((e for e in (faq_entries if faq_entries is not None else faq_entries_from_build(build))
                      if e.origin == "seed"), key=lambda e: e.source_url)
    titles = document_titles(build)
    system = SYSTEM.format(institution=institution,
                           registers="\n".join(f"- {r}: {REGISTER_GUIDE[r]}" for r in REGISTERS))
    tag = f"llm:{client.model}:{PROMPT_VERSION}"
    report = Report(model=client.model)
    lists = CachedJSONTask(client, con, task=TASK, prompt_version=PROMPT_VERSION, schema=LIST_PER_REGISTER,
                           schema_name=SCHEMA_NAME)
    singles = CachedJSONTask(client, con, task=ENTRY_TASK, prompt_version=PROMPT_VERSION, schema=ONE_PER_REGISTER,
                             schema_name=SCHEMA_NAME)
    shown = _title_block(titles)
    hand = [(category, [{"role": "system", "content": system}, {"role": "user", "content": HAND_USER.format(
        n=per_register, what=what, titles=shown if category == "out_of_scope" else "")}])
        for category, (_, _, what) in HAND.items()]
    paraphrased = pick(entries, faq_count, "faq")
    unrestricted = [e for e in entries if not any(v is not None for v in (e.applies_to or {}).values())]
    asked = pick([e for e in unrestricted if e not in paraphrased] or unrestricted, independent_count, "independent")
    per_entry = [("faq", e, FAQ_USER) for e in paraphrased] + [("profile_independent", e, INDEPENDENT_USER)
                                                              for e in asked]
    entry_requests = [[{"role": "system", "content": system},
                       {"role": "user", "content": prompt.format(question=e.question, answer=e.answer[:800])}]
                      for _, e, prompt in per_entry]
    report.requests = len(hand) + len(entry_requests)

    candidates: list[Message] = []
    for (category, _), result in zip(hand, lists.run([messages for _, messages in hand])):
        if isinstance(result, LLMFailure):
            report.failed[result.reason] += 1
            continue
        intent, behaviour, _ = HAND[category]
        for register in REGISTERS:
            for text in (result.get(register) or [])[:per_register]:
                candidates.append(_message(text, category, register, intent, behaviour, tag))
    for (category, entry, _), result in zip(per_entry, singles.run(entry_requests)):
        if isinstance(result, LLMFailure):
            report.failed[result.reason] += 1
            continue
        intent, behaviour = ("faq", "faq_entry") if category == "faq" else (None, "no_question")
        for register in REGISTERS:
            candidates.append(_message(result.get(register) or "", category, register, intent, behaviour, tag,
                                       faq_source=entry.source_url, source_url=entry.source_url))
    by_source = {e.source_url: e for e in entries}
    kept = keep(candidates, templates, titles, by_source, report.dropped)
    report.kept = len(kept)
    return kept, report, [lists, singles]


def keep(candidates: Iterable[Message], templates: Sequence[Message], titles: Sequence[str],
         entries: dict[str, FAQEntry], dropped: Counter) -> list[Message]:
    """The candidates that pass their checks and repeat no template nor each other, in order."""
    seen = {normalized(m.text) for m in templates}
    title_grams = [g for g in (bigrams(t) for t in titles) if len(g) >= MIN_TITLE_BIGRAMS]
    out = []
    for message in candidates:
        problem = problem_of(message, title_grams, entries)
        if problem is None and normalized(message.text) in seen:
            problem = "duplicate"
        if problem:
            dropped[problem] += 1
            continue
        seen.add(normalized(message.text))
        out.append(message)
    return out


def problem_of(message: Message, title_grams: Sequence[set], entries: dict[str, FAQEntry]) -> str | None:
    """Why an LLM-written message cannot stand for its category and register, or None."""
    text = message.text
    if not text or len(text) > MAX_CHARS:
        return "empty_or_long"
    if problem := register_problem(text, message.register):
        return problem
    grams = bigrams(text)
    if message.category == "faq" and message.faq_source in entries:
        question = bigrams(entries[message.faq_source].question)
        if question and grams and len(grams & question) / len(question) >= COPY_OVERLAP:
            return "copies_question"
    # most of a covered title inside the message: the model wrote about what the material covers
    if message.category == "out_of_scope" and any(len(grams & g) / len(g) >= ECHO_OVERLAP for g in title_grams):
        return "echoes_title"
    return None


def register_problem(text: str, register: str) -> str | None:
    """The register must be visible in the text: it is what the benchmark slices by."""
    hangul, latin = bool(_HANGUL.search(text)), bool(_LATIN.search(text))
    if register == "english":
        return None if latin and not hangul else "not_english"
    if not hangul:
        return "no_korean"
    if register == "mixed" and not latin:
        return "not_mixed"
    if register == "nospace" and re.search(r"\s", text):
        return "has_spaces"
    if register == "emoji" and not any(_is_emoji(c) for c in text):
        return "no_emoji"
    return None


def _is_emoji(char: str) -> bool:
    return ord(char) >= 0x1F000 or unicodedata.category(char) == "So"


def _message(text: str, category: str, register: str, intent: str | None, behaviour: str, tag: str,
             **extra) -> Message:
    text = re.sub(r"\s+", " ", str(text)).strip()
    return Message(message_id(text, category), text, category, register, intent, behaviour, GOLD_LLM,
                   template=tag, **extra)


def normalized(text: str) -> str:
    """Equal for texts that differ only in case, spacing and end punctuation."""
    return _PUNCT.sub("", text).casefold()


def bigrams(text: str) -> set[str]:
    """Character bigrams of the text without spaces and punctuation: a script-agnostic overlap
    measure (no tokenizer, so no language or institution assumption)."""
    compact = normalized(text)
    return {compact[i:i + 2] for i in range(len(compact) - 1)}


def document_titles(build) -> list[str]:
    """The distinct chunk titles of the build (what the material covers), in a stable order."""
    titles = set()
    for collection in build.collections.values():
        if "title" in collection.chunks.columns:
            titles.update(t.strip() for t in collection.chunks["title"].drop_nulls().to_list() if t and t.strip())
    return sorted(titles)


def _title_block(titles: Sequence[str]) -> str:
    chosen = pick(titles, TITLES_SHOWN, "titles")
    return "The material covers these titles:\n" + "\n".join(f"- {t}" for t in chosen) if chosen else ""


def pick(items: Sequence, n: int, salt: str) -> list:
    """`n` items spread over the whole list, the same on every run (hash order, not position)."""
    ranked = sorted(items, key=lambda item: hashlib.sha256(f"{salt}\x1f{_key(item)}".encode()).hexdigest())
    chosen = set(map(_key, ranked[:n]))
    return [item for item in items if _key(item) in chosen]


def _key(item) -> str:
    return item.source_url if isinstance(item, FAQEntry) else str(item)
