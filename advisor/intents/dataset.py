"""The intent-routing dataset: the hand-written seeds of every route (greeting, ability, smalltalk,
leaving, and information questions put to the assistant; advisor/intents/seeds.py), the FAQ's own
questions, and questions written from the documents' titles, headings and key words with the
language data's frames (`advisor/language/<code>/questions.yaml`): what the build's classifier
learns to tell a canned reply from an information question with. Read from and written to the
lakehouse (`intent_examples`).

Splits are stable and leak-free by construction: an FAQ / document example is in the test split
when its SOURCE is (hash of the FAQ entry's or document's URL), so held-apart questions come from
held-apart sources; a seed is in the test split when its hand-written form is (all its variants
with it). Texts are unique across the whole dataset, so no text is in both splits.

Nothing depends on the demo college's departments or wording: phrases come from whatever the
institution's own titles, headings and keywords say.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

import duckdb

from advisor import language
from advisor.config import InstitutionConfig
from advisor.intents import DATASET_LABELS, seeds
from advisor.intents.seeds import has_hangul, site_key, stable_hash
from advisor.lakehouse import insert_rows, scalar, transaction
from advisor.versioning import code_version

TEST_PERCENT = 20
ORIGINS = ("seed", "faq_question", "document_question")
# a text reachable under two labels keeps the first of these (faq wins over retrieval)
LABEL_PRIORITY = ("faq", "retrieval", "ability", "greeting", "smalltalk", "leaving")
MAX_HEADINGS_PER_DOCUMENT = 4  # long regulations have dozens: cap so no document dominates
OPENER_PERCENT = {"greeting": 25, "smalltalk": 12}  # share of sources that also get an opened question
ENGLISH_FRAME_PERCENT = 10


@dataclass(frozen=True)
class IntentExample:
    example_id: str
    text: str
    intent: str  # greeting | ability | smalltalk | leaving (seeds), faq | retrieval (questions)
    origin: str  # seed | faq_question | document_question
    source_url: str | None  # the FAQ entry / document it was made from (None for seeds)
    split: str  # train | test

    def row(self, dataset_version: str, run_id: str) -> dict:
        return {**asdict(self), "dataset_version": dataset_version, "run_id": run_id}


# --- building ----------------------------------------------------------------------------------

def build_intent_examples(
    config: InstitutionConfig, faq_questions: Sequence[tuple[str, str]], documents: Sequence[dict]
) -> list[IntentExample]:
    """The whole dataset, deterministic for the same inputs (ids, texts, splits, order).

    faq_questions: (question, source_url) per FAQ entry. documents: non-FAQ chunk (or document)
    dicts with doc_url, title, heading_path and keywords (or an indexed_text whose first line is
    "topic > subtopic | title | kw1, kw2, ...")."""
    faq_questions = _checked_faq(faq_questions)
    names = seeds.institution_names(config.institution)
    candidates: list[tuple[str, str, str, str | None, str]] = []  # text, intent, origin, source, split key
    for question, url in faq_questions:
        rng = random.Random(stable_hash("faq|" + site_key(url) + "|" + question))
        candidates += [(text, "faq", "faq_question", url, url) for text in [question, *_opened(question, url, names, rng)]]
    for topic in document_topics(documents):
        url = topic.doc_url
        candidates += [(text, "retrieval", "document_question", url, url) for text in document_questions(topic, names)]
    return _deduplicated(candidates + _seed_candidates(config.institution))


def seed_intent_examples(institution: str) -> list[IntentExample]:
    """The hand-written seeds alone, as `build_intent_examples` makes them for `institution`."""
    return _deduplicated(_seed_candidates(institution))


def _seed_candidates(institution: str) -> list[tuple[str, str, str, str | None, str]]:
    return [(seed.text, "retrieval" if seed.intent == "information" else seed.intent, "seed", None, "seed:" + seed.group)
            for seed in seeds.seed_examples(institution)]


def _deduplicated(candidates: list[tuple[str, str, str, str | None, str]]) -> list[IntentExample]:
    rank = {intent: i for i, intent in enumerate(LABEL_PRIORITY)}
    unknown = {c[1] for c in candidates} - set(DATASET_LABELS)
    if unknown:
        raise ValueError(f"unknown intents {sorted(unknown)}")
    origin_rank = {origin: i for i, origin in enumerate(ORIGINS[1:] + ORIGINS[:1])}  # seeds last
    # the order of the inputs must not matter: which duplicate survives is decided by label, then
    # origin (an FAQ's own question before a document question), then source and text
    ordered = sorted(candidates, key=lambda c: (rank[c[1]], origin_rank[c[2]], c[3] or "", c[0]))
    seen: set[str] = set()
    kept = []
    for text, intent, origin, source, split_key in ordered:
        text = _tidy(text)
        key = text.casefold()
        if not text or key in seen:
            continue
        seen.add(key)
        kept.append(IntentExample(example_id(text, intent), text, intent, origin, source, split_for(split_key)))
    return kept


def example_id(text: str, intent: str) -> str:
    return hashlib.sha256(f"{text}\x1f{intent}".encode()).hexdigest()[:16]


def split_for(key: str) -> str:
    """test for a stable ~TEST_PERCENT % of keys (source URLs, seed forms), train otherwise."""
    return "test" if stable_hash("split|" + site_key(key)) % 100 < TEST_PERCENT else "train"


def _checked_faq(faq_questions: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    out = []
    for i, item in enumerate(faq_questions):
        if not (isinstance(item, (tuple, list)) and len(item) == 2):
            raise ValueError(f"faq_questions[{i}] must be a (question, source_url) pair, got {item!r}")
        question, url = item
        if not isinstance(question, str) or not isinstance(url, str) or not url.strip():
            raise ValueError(f"faq_questions[{i}]: question and source_url must be strings, url non-empty: {item!r}")
        if question.strip():
            out.append((_tidy(question), url.strip()))
    return out


def _opened(question: str, source_url: str, names: Sequence[str], rng: random.Random) -> list[str]:
    """Sometimes the question again behind a greeting or a remark (the language data's question
    openers): still a question, a hard negative for the template routes."""
    out = []
    for route in ("greeting", "smalltalk"):
        openers = seeds.question_openers(route)
        if openers and stable_hash(f"{route}|{site_key(source_url)}|{question}") % 100 < OPENER_PERCENT[route]:
            opener = rng.choice(openers)
            out.append(rng.choice(seeds.fill_institution(opener, names)) + question)
    return out


# --- questions from documents -------------------------------------------------------------------

@dataclass(frozen=True)
class DocumentTopic:
    """What a document is about, gathered over its chunks."""

    doc_url: str
    title: str
    headings: tuple[str, ...]  # distinct, sorted, the title excluded
    keywords: tuple[str, ...]  # most frequent over its chunks first


def document_topics(documents: Sequence[dict]) -> list[DocumentTopic]:
    """One topic per document URL, in URL order, from chunk (or document) dicts."""
    by_url: dict[str, dict] = {}
    for i, doc in enumerate(documents):
        if not isinstance(doc, dict) or not str(doc.get("doc_url") or "").strip():
            raise ValueError(f"documents[{i}] must be a dict with a non-empty doc_url, got {str(doc)[:120]!r}")
        url = doc["doc_url"].strip()
        title, keywords = doc.get("title"), doc.get("keywords")
        if (title is None or keywords is None) and doc.get("indexed_text"):
            parsed_title, parsed_keywords = _parse_indexed_header(doc["indexed_text"])
            title = title if title is not None else parsed_title
            keywords = keywords if keywords is not None else parsed_keywords
        entry = by_url.setdefault(url, {"titles": Counter(), "headings": set(), "keywords": Counter()})
        if title and title.strip():
            entry["titles"][title.strip()] += 1
        entry["headings"].update(h.strip() for h in (doc.get("heading_path") or []) if h and h.strip())
        entry["keywords"].update(k for k in (keywords or []) if k)
    topics = []
    for url in sorted(by_url):  # sorted throughout: the chunks' order must not change the result
        entry = by_url[url]
        title = min(entry["titles"].items(), key=lambda kv: (-kv[1], kv[0]))[0] if entry["titles"] else ""
        headings = tuple(sorted(h for h in entry["headings"] if h != title))
        keywords = tuple(k for k, _ in sorted(entry["keywords"].items(), key=lambda kv: (-kv[1], kv[0])))
        topics.append(DocumentTopic(url, title, headings, keywords))
    return topics


def _parse_indexed_header(indexed_text: str) -> tuple[str, list[str]]:
    parts = indexed_text.split("\n", 1)[0].split(" | ")
    if len(parts) < 3:
        return "", []
    return parts[1], [k.strip() for k in parts[2].split(",") if k.strip()]


def document_questions(topic: DocumentTopic, names: Sequence[str] = ()) -> list[str]:
    """Questions a student might ask that this document answers: from its title (a formal and a
    first-person one), its headings, and its keywords; frames drawn per document (seeded)."""
    rng = random.Random(stable_hash("doc|" + site_key(topic.doc_url)))
    title = topic_phrase(topic.title)
    questions = []
    if title:
        questions.append(_framed(title, "formal", rng))
        questions.append(_framed(title, "first_person", rng))
    headings = list(dict.fromkeys(p for p in map(topic_phrase, topic.headings) if p and p != title))
    rng.shuffle(headings)
    for heading in headings[:MAX_HEADINGS_PER_DOCUMENT]:
        if len(heading.replace(" ", "")) <= 4 and title:
            heading = f"{title} {heading}"  # a bare "유의사항" says nothing: "휴학 신청 유의사항"
        questions.append(_framed(heading, rng.choice(("formal", "first_person")), rng))
    generic = set(language.words("questions", "generic_keywords"))
    keywords = [k for k in topic.keywords if len(k) >= 2 and not k.isdigit() and k not in generic][:3]
    frames = _frames("keywords", "ko")
    if len(keywords) >= 2 and frames:
        questions.append(rng.choice(frames).format(x=" ".join(rng.sample(keywords, 2))))
    if title and names and stable_hash("inst|" + site_key(topic.doc_url)) % 100 < 10:
        # the institution's name also appears in real questions, not only in greetings
        questions.append(_framed(f"{rng.choice(list(names))} {title}", "formal", rng))
    if questions:
        questions += _opened(questions[0], topic.doc_url, names, rng)
    return questions


def _frames(kind: str, lang: str) -> list[str]:
    return (language.load(lang, "questions").get("frames") or {}).get(kind) or []


def question_frames(phrase: str, kind: str = "formal") -> list[str]:
    """The frames of `kind` in the phrase's language, filled with it (every form, for a caller
    that picks its own)."""
    lang = "ko" if has_hangul(phrase) else "en"
    frames = _frames(kind, lang) or _frames("formal", lang)
    return [frame.format(x=phrase, **particles_for(phrase)) for frame in frames]


def _framed(phrase: str, kind: str, rng: random.Random) -> str:
    if not has_hangul(phrase) or rng.randrange(100) < ENGLISH_FRAME_PERCENT:
        lang = "en"
    else:
        lang = "ko"
        if phrase.split()[-1].endswith(language.words("questions", "action_nouns")) and rng.randrange(2) == 0:
            kind = "action"  # a phrase ending in an action noun (신청, 수강 ...) is also something to do
    frames = _frames(kind, lang) or _frames("formal", lang)
    return rng.choice(frames).format(x=phrase, **particles_for(phrase))


def topic_phrase(text: str | None) -> str:
    """A title or heading as a phrase a student would say: notice tags ([장학]), parentheses, course
    codes, years, the language data's noise (article numbers, cohorts, terms) and a last word that
    only says it is a notice removed."""
    t = (text or "").strip()
    t = re.sub(r"^\s*\[[^\]]*\]\s*", "", t)
    t = re.sub(r"\([^)]*\)|\[[^\]]*\]|【[^】]*】", " ", t)
    t = re.sub(r"^[A-Z]{2,6}\s?\d{2,4}[A-Z]?\b\s*", "", t)
    for pattern in language.words("questions", "topic_noise"):
        t = re.sub(pattern, " ", t)
    t = re.sub(r"\b(?:19|20)\d{2}\b", " ", t)
    if ":" in t:
        t = max((part for part in t.split(":") if part.strip()), key=len, default="")
    t = re.sub(r"[–—|/]", " ", t)
    t = re.sub(r"\s+", " ", t).strip(" -·,.:")
    trailing = language.words("questions", "trailing_words")
    if trailing:
        t = re.sub(r"\s+(" + "|".join(map(re.escape, trailing)) + r")$", "", t)
    dangling = language.words("questions", "dangling_words")
    if dangling and re.search(r"\b(" + "|".join(map(re.escape, dangling)) + r")$", t, re.IGNORECASE):
        return ""  # an English phrase that lost its object ("Students admitted in 2024")
    if len(t.replace(" ", "")) < 2 or not re.search(r"[^\W\d_]", t):
        return ""
    return t if len(t) <= 40 else " ".join(t.split()[:5])


def particles_for(word: str) -> dict[str, str]:
    """The Korean particles that fit after `word` ({eun}: 은/는 …, from the language data), by
    whether its last letter or digit ends in a consonant."""
    batchim, rieul = _final_consonant(word)
    data = language.load("ko", "grammar")
    out = {}
    for name, (after_consonant, after_vowel) in (data.get("particles") or {}).items():
        # 으로 is 로 after ㄹ as after a vowel
        out[name] = after_consonant if batchim and not (rieul and name == "ro") else after_vowel
    return out


def _final_consonant(word: str) -> tuple[bool, bool]:
    """(has a final consonant, that consonant is ㄹ), judged on the last letter or digit."""
    tail = re.sub(r"[^0-9A-Za-z\uac00-\ud7a3]+$", "", word)
    if not tail:
        return False, False
    last = tail[-1]
    if 0xAC00 <= ord(last) <= 0xD7A3:  # a Hangul syllable: its final consonant by Unicode arithmetic
        final = (ord(last) - 0xAC00) % 28
        return final != 0, final == 8
    data = language.load("ko", "grammar")
    if last.isdigit():
        return last in data.get("digits_with_final_consonant", ""), last in data.get("digits_ending_in_rieul", "")
    return last.lower() in "lmnbkpt", last.lower() == "l"


def _tidy(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


# --- the lakehouse ------------------------------------------------------------------------------

def read_faq_questions(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    """(question, source_url) of every FAQ entry. A consolidated duplicate keeps its own wording
    but its canonical entry's URL, so both wordings land in the same split."""
    rows = con.execute(
        """SELECT coalesce(nullif(trim(question), ''), title) AS question, coalesce(duplicate_of, url) AS source_url
           FROM documents WHERE kind = 'faq' AND status IN ('active', 'duplicate')
             AND coalesce(nullif(trim(question), ''), title) IS NOT NULL
           ORDER BY url""").fetchall()
    return [(question, url) for question, url in rows]


def read_documents(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """The non-FAQ chunks' topic fields (doc_url, title, heading_path, keywords)."""
    frame = con.sql(
        """SELECT doc_url, title, heading_path, keywords FROM chunks WHERE kind <> 'faq'
           ORDER BY doc_url, position""").pl()
    return frame.to_dicts()


def dataset_version(config: InstitutionConfig, faq_questions: Sequence[tuple[str, str]], documents: Sequence[dict]) -> str:
    """A fingerprint of the code that builds the dataset and of everything it is built from."""
    payload = {
        "code": code_version(seeds, sys.modules[__name__]),
        "institution": config.institution,
        "faq": sorted([list(pair) for pair in faq_questions]),
        "documents": sorted(json.dumps(d, sort_keys=True, ensure_ascii=False, default=str) for d in documents),
    }
    digest = hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()
    return digest[:16]


def stored_version(con: duckdb.DuckDBPyConnection) -> str | None:
    """The dataset_version of the stored rows (None when the table is empty)."""
    return scalar(con, "SELECT any_value(dataset_version) FROM intent_examples")


def write_intent_examples(
    con: duckdb.DuckDBPyConnection, examples: Iterable[IntentExample], version: str, run_id: str
) -> bool:
    """Replace every row of `intent_examples` in one transaction; False (nothing written) when the
    stored rows already are this version."""
    examples = list(examples)
    if stored_version(con) == version and scalar(con, "SELECT count(*) FROM intent_examples") == len(examples):
        return False
    with transaction(con):
        con.execute("DELETE FROM intent_examples")
        insert_rows(con, "intent_examples", [e.row(version, run_id) for e in examples])
    return True


def load_intent_examples(con: duckdb.DuckDBPyConnection) -> list[IntentExample]:
    """The stored dataset, in a stable order."""
    rows = con.execute(
        "SELECT example_id, text, intent, origin, source_url, split FROM intent_examples ORDER BY example_id"
    ).fetchall()
    return [IntentExample(*row) for row in rows]


def counts(examples: Iterable[IntentExample]) -> dict[str, int]:
    """Examples per intent and per intent/split, for metadata and reports."""
    tally: Counter = Counter()
    for e in examples:
        tally[e.intent] += 1
        tally[f"{e.intent}/{e.split}"] += 1
        tally[e.split] += 1
    return {key: tally[key] for key in sorted(tally)}


@dataclass(frozen=True)
class RefreshOutcome:
    version: str
    written: bool  # False: the stored rows already were this version, nothing rewritten
    examples: list[IntentExample]


def refresh_intent_examples(con: duckdb.DuckDBPyConnection, config: InstitutionConfig, run_id: str) -> RefreshOutcome:
    """Rebuild `intent_examples` from the lakehouse's FAQ entries and chunks, unless unchanged."""
    faq_questions, documents = read_faq_questions(con), read_documents(con)
    version = dataset_version(config, faq_questions, documents)
    if stored_version(con) == version:
        return RefreshOutcome(version, False, load_intent_examples(con))
    examples = build_intent_examples(config, faq_questions, documents)
    written = write_intent_examples(con, examples, version, run_id)
    return RefreshOutcome(version, written, examples)
