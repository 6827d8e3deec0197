"""Query-driven profiling (docs/method.md §A online steps 3-4): which profile attributes a question needs,
which values it states itself, the questions to ask (predefined options, never free text) and
the validation of the student's answers.

Which attributes a question needs is read from what it retrieves: if most of the best candidates
belong to documents that as a whole apply only to some departments, cohorts, ... then the answer
depends on those attributes. Only DOCUMENT-level constraints count here (every chunk of the
document is limited on the attribute: a curriculum page of one department and cohort); a
constraint that varies inside a document (the double-major section of a graduation page) decides
which passage applies, and is asked later, by evidence-driven profiling, only when a selected
passage depends on it. That is the paper's two-step flow: department and cohort first, then the
major type once the curriculum retrieved shows it matters.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import replace
from typing import Any, Iterable, Mapping, Sequence

from advisor import language
from advisor.annotation.expressions import PROCEDURE_WORDS
from advisor.annotation.model import ChunkContext
from advisor.annotation.rules import RulesAnnotator
from advisor.config import InstitutionConfig
from advisor.index import fields
from advisor.retrieval.results import RetrievedChunk
from serving.dialogue.caching import method_cache
from serving.dialogue.session import Session
from serving.dialogue.types import Option, Question


class DialogueInputError(ValueError):
    """Bad input from the student or client (the API answers 4xx); `field` names what was wrong."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field


# ----------------------------------------------------------------------------- needed attributes

def document_constraints(chunk_stores: Iterable[Sequence[tuple[str, Mapping]]]) -> dict[str, dict[str, frozenset]]:
    """doc_url -> {attribute: the values its chunks are limited to} for the attributes every chunk
    of the document is limited on. An FAQ entry is a document of its own (its URL has the entry's
    #id), so all its limits count."""
    seen: dict[str, dict[str, set]] = {}
    for store in chunk_stores:
        for doc_url, applies_to in store:
            limits = {name: _key(value) for name, value in applies_to.items() if value is not None}
            if doc_url not in seen:
                seen[doc_url] = {name: {key} for name, key in limits.items()}
            else:
                seen[doc_url] = {name: keys | {limits[name]} for name, keys in seen[doc_url].items() if name in limits}
    return {url: {name: frozenset(keys) for name, keys in limits.items()} for url, limits in seen.items()}


def values_with_documents(annotations: Iterable[Mapping], schema: fields.Schema) -> dict[str, list]:
    """Per attribute, the values some chunk is written for (a categorical value it lists, a year
    inside its range), in schema order: the only values worth a button. An attribute no chunk is
    limited on is left out (every value is offered)."""
    found: dict[str, set] = defaultdict(set)
    for applies_to in annotations:
        for name, value in applies_to.items():
            if value is None or name not in schema:
                continue
            attribute = schema[name]
            if fields.is_categorical(attribute):
                found[name] |= set(value)
            else:
                found[name] |= set(range(max(int(value[0]), attribute.min), min(int(value[-1]), attribute.max) + 1))
    out = {}
    for name, values in found.items():
        attribute = schema[name]
        order = list(attribute.values) if fields.is_categorical(attribute) else range(attribute.min, attribute.max + 1)
        out[name] = [v for v in order if v in values]
    return out


def _key(value) -> tuple:
    return tuple(value)


def unsettled(attributes: Iterable[str], schema: fields.Schema, session: Session) -> list[str]:
    """Those of `attributes` the session has not settled, in schema order: what to ask."""
    wanted = set(attributes)
    return [name for name in schema if name in wanted and not session.settled(name)]


def relevant_attributes(candidates: Sequence[RetrievedChunk], doc_limits: Mapping[str, Mapping[str, frozenset]],
                        schema: fields.Schema, share: float = 1 / 3) -> list[str]:
    """Attributes that a share of the candidates' documents (the question's neighbourhood in the
    corpus) are limited on, in schema order (the order questions are asked): what the question MAY
    depend on. A document counts once, limited on an attribute when all of it is (a curriculum page
    of one cohort, an FAQ entry) or when its retrieved sections are written for different values
    of it (one page with a section per cohort): one long page's many sections must not outvote
    the near-duplicates that differ by whom they apply to. Every document of the neighbourhood
    weighs the same: with an encoder the nearest few are often near-duplicates for one attribute
    (FAQ entries per cohort), and a rank weighting let them hide the department the rest differ by.
    The engine then keeps those whose variants state different key facts
    (serving/dialogue/variants.py `differ`)."""
    documents: dict[str, dict[str, set]] = {}
    for chunk in candidates:
        documents.setdefault(chunk.doc_url, {name: set(keys) for name, keys in doc_limits.get(chunk.doc_url, {}).items()})
    if not documents:
        return []
    for url, varying in _varying_sections(candidates).items():
        for name, keys in varying.items():
            documents[url].setdefault(name, set()).update(keys)
    counts: dict[str, int] = defaultdict(int)
    values: dict[str, set] = defaultdict(set)
    for limits in documents.values():
        for name, keys in limits.items():
            counts[name] += 1
            values[name] |= keys
    # near-duplicates for DIFFERENT students make an attribute matter; documents all written for
    # the same students (or one stray limited page) do not
    return [name for name in schema if counts[name] / len(documents) >= share and len(values[name]) >= 2]


def _varying_sections(candidates: Sequence[RetrievedChunk]) -> dict[str, dict[str, set]]:
    """doc_url -> {attribute: values} where the document's retrieved sections are written for at
    least two different values of the attribute (a page with a section per cohort)."""
    sections: dict[str, dict[str, set]] = defaultdict(lambda: defaultdict(set))
    for chunk in candidates:
        for name, value in chunk.applies_to.items():
            if value is not None:
                sections[chunk.doc_url][name].add(_key(value))
    return {url: {name: keys for name, keys in by_name.items() if len(keys) >= 2}
            for url, by_name in sections.items() if any(len(keys) >= 2 for keys in by_name.values())}


def sections_as_documents(candidates: Sequence[RetrievedChunk], doc_limits: Mapping[str, Mapping[str, frozenset]]
                          ) -> tuple[list[RetrievedChunk], dict[str, dict[str, frozenset]]]:
    """The candidates with each section of a page whose sections are written for different
    students (relevant_attributes) made a document of its own, limited as the section is, and the
    document limits to go with them: the variants the answers may differ by include a page's
    per-cohort sections, not only whole pages per cohort."""
    varying = _varying_sections(candidates)
    if not varying:
        return list(candidates), dict(doc_limits)
    limits = {url: dict(by_name) for url, by_name in doc_limits.items()}
    out = []
    for chunk in candidates:
        names = [name for name in varying.get(chunk.doc_url, {}) if chunk.applies_to.get(name) is not None]
        if not names:
            out.append(chunk)
            continue
        own = replace(chunk, doc_url=chunk.chunk_id)
        limits[own.doc_url] = {**doc_limits.get(chunk.doc_url, {}),
                               **{name: frozenset({_key(chunk.applies_to[name])}) for name in names}}
        out.append(own)
    return out, limits


def limited_in(evidence: Sequence[RetrievedChunk], schema: fields.Schema, wanted=lambda name: True) -> list[str]:
    """Attributes a selected chunk is limited on that `wanted` accepts (the applicability check of
    docs/method.md §A online step 7 asks for the unsettled ones), most supported first, then schema order."""
    counts: dict[str, int] = defaultdict(int)
    for chunk in evidence:
        for name, value in chunk.applies_to.items():
            if value is not None and name in schema and wanted(name):
                counts[name] += 1
    order = list(schema)
    return sorted(counts, key=lambda n: (-counts[n], order.index(n)))


# ----------------------------------------------------------------------------- questions

def question_for(name: str, schema: fields.Schema, reason: str, offered: Sequence | None = None,
                 english: bool = False) -> Question:
    """The question with its options: every value of the attribute, or only those `offered` (the
    values the candidate documents cover: no button the material cannot answer), in schema order.
    `english`: for a student who writes English at an institution that does not (the question in
    English, the values by their English aliases, numbers bare)."""
    attribute = schema[name]
    if fields.is_categorical(attribute):
        values = list(attribute.values)
    else:
        values = list(range(attribute.min, attribute.max + 1))
    if offered is not None:
        wanted = set(offered)
        values = [v for v in values if v in wanted] or values
    if english:
        label = attribute.english_label if fields.is_categorical(attribute) else str
        return Question(attribute=name, question=attribute.english_question(name),
                        options=[Option(v, label(v)) for v in values], reason=reason)
    if fields.is_categorical(attribute):
        options = [Option(value, attribute.label(value)) for value in values]
    else:
        options = [Option(v, attribute.value_text(v)) for v in values]
    return Question(attribute=name, question=attribute.question, options=options, reason=reason)


# ----------------------------------------------------------------------------- answers

def canonical_answer(name: str, value: Any, schema: fields.Schema) -> Any:
    """The canonical value of an answer (an option's value, an alias or a label), or
    DialogueInputError. None means "I don't know"."""
    if name not in schema:
        raise DialogueInputError(f"profile.{name}", f"unknown attribute; expected one of {sorted(schema)}")
    if value is None:
        return None
    attribute = schema[name]
    if fields.is_categorical(attribute):
        text = str(value).strip()
        for canonical, aliases in attribute.values.items():
            if text == canonical or text in aliases or attribute.labels.get(canonical) == text:
                return canonical
        raise DialogueInputError(f"profile.{name}", f"{value!r} is not one of {sorted(attribute.values)}")
    if isinstance(value, bool):
        raise DialogueInputError(f"profile.{name}", f"needs a whole number, got {value!r}")
    try:
        number = int(str(value).strip())
    except ValueError:
        raise DialogueInputError(f"profile.{name}", f"needs a whole number, got {value!r}") from None
    if not attribute.min <= number <= attribute.max:
        raise DialogueInputError(f"profile.{name}", f"{number} is outside {attribute.min}..{attribute.max}")
    return number


def apply_answers(session: Session, answers: Mapping[str, Any], schema: fields.Schema) -> None:
    """Validate every answer first, then record them all (a bad answer changes nothing)."""
    if not isinstance(answers, Mapping) or not answers:
        raise DialogueInputError("profile", "expected a non-empty object of attribute -> value")
    canonical = {name: canonical_answer(name, value, schema) for name, value in answers.items()}
    for name, value in canonical.items():
        if value is None:
            session.known.pop(name, None)
            session.declined.add(name)
        else:
            session.known[name] = value
            session.declined.discard(name)


# ----------------------------------------------------------------------------- stated values

# A categorical value counts as stated only when the student says it of themselves ("컴퓨터학과
# 학생인데", "저는 복학생이에요"): a bare mention ("휴학 신청 방법") is the topic, not the asker.
# Between the value and the words that make it the student's, only more of who they are ("컴퓨터학과
# 21학번인데", "이중전공생이에요"): any other words make the value the topic of a question ("심화전공이랑
# 이중전공 차이가 뭐예요?" ends in 예요, but says nothing of the asker).
# (the wordings: advisor/language/<code>/profile.yaml)
_WHO_ELSE = r"(?:\s*(?:" + "|".join(language.words("profile", "more_of_who")) + "))*"
_SELF_AFTER = _WHO_ELSE + r"\s*(?:" + "|".join(language.words("profile", "said_of_oneself")) + ")"
# "전" / "난" are words of their own ("전 휴학생이에요"), never the first syllable of one ("전공이랑")
_SELF_BEFORE = (r"(?<!\w)(?:(?:" + "|".join(language.words("profile", "self_subjects")) + r")\s*|(?:"
                + "|".join(language.words("profile", "self_words")) + r")\s+)(?:\S+\s+)?")


class StatedValues:
    """Profile values the question itself states (docs/method.md §A online step 3)."""

    def __init__(self, config: InstitutionConfig):
        self.config = config
        self.reader = RulesAnnotator(config)
        self._categorical = []
        for name, attribute in config.profile.items():
            if fields.is_categorical(attribute):
                for canonical, aliases in attribute.values.items():
                    for alias in {canonical, *aliases, attribute.label(canonical)}:
                        if len(alias) < 2:
                            continue
                        escaped = re.escape(alias)
                        pattern = re.compile(rf"(?:{_SELF_BEFORE}{escaped}|{escaped}{_SELF_AFTER})", re.IGNORECASE)
                        self._categorical.append((name, canonical, pattern))
        # what the annotator reads in a message: `read` and `named` both need it, for every question
        self._audiences = method_cache(self._read_audiences, 1024)

    def _read_audiences(self, message: str) -> Mapping[str, Any]:
        """The annotator's record of `message` read as a passage. A procedure says whom a DOCUMENT
        is for, never who the student is: "학위수여식 언제예요" asks about commencement, it does not
        say "I am in my final year"; blanked, offsets kept."""
        context = ChunkContext(chunk_id="query", text=_without_procedures(message), doc_url="", doc_title="",
                               kind="page", collection="static")
        return self.reader.annotate_one(context).applies_to

    def read(self, message: str) -> dict[str, Any]:
        stated: dict[str, Any] = {}
        for name, canonical, pattern in self._categorical:
            if name not in stated and pattern.search(message):
                stated[name] = canonical
        applies_to = self._audiences(message)
        for name, attribute in self.config.profile.items():
            value = applies_to.get(name)
            if not fields.is_categorical(attribute) and value and value[0] == value[-1]:
                stated.setdefault(name, int(value[0]))  # "21학번", "3학년": one value, not a range
        return stated

    def named(self, message: str) -> dict[str, list]:
        """The values `message` names, whoever they are said of: the audiences the annotator reads
        in a passage, read in the question (attribute -> options, or [low, high])."""
        return {name: list(value) for name, value in self._audiences(message).items() if value is not None}

    def without(self, message: str, stated: Mapping[str, Any]) -> str:
        """The message without the words that state `stated` ("컴퓨터학과 21학번인데요, 전공 몇 학점?" ->
        "요, 전공 몇 학점?"): who asks goes to the profile, and searched as words it would pull in
        every page that names the department or a year. The message itself when nothing is left."""
        spans = [m.span() for name, canonical, pattern in self._categorical if stated.get(name) == canonical
                 for m in pattern.finditer(message)]
        for name, extractor in self.reader.extractors.items():
            if name in stated and hasattr(extractor, "ranges_in"):
                spans += [(r.start, r.end) for r in extractor.ranges_in(_without_procedures(message))
                          if r.low == r.high == stated[name]]
        kept, end = [], 0
        for start, stop in sorted(spans):
            kept.append(message[end:max(start, end)])
            end = max(end, stop)
        rest = re.sub(r"\s+", " ", "".join(kept) + message[end:]).strip(" ,.")
        return rest if re.search(r"[\uac00-\ud7a3A-Za-z]{2}", rest) else message


def _without_procedures(text: str) -> str:
    """`text` with the names of procedures blanked out (same length, so offsets still hold)."""
    return PROCEDURE_WORDS.sub(lambda m: " " * len(m.group()), text)
