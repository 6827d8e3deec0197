"""The offline annotator: whom each chunk applies to, by rules over the institution config.

No LLM and no site-specific wording: the rules come from the config (each attribute's type,
aliases and range) and from Korean administrative language in general (cues.py).

How a chunk's record is built (docs/method.md §A.4):

1. Context levels, outermost first: what the document's near-duplicate siblings show (the token
   its text differs from theirs in: siblings.py), the URL, the breadcrumbs, the document title, the
   document's lead sentence and scope (an eligibility section opening it: "## 지원 자격", "제2조(참여 대상)"),
   the headings above the chunk, the caption and group rows of the table the chunk opens with
   (repeated above every chunk of a long table), and the chunk's own lead sentence and "대상: …"
   statements (structure.py says where those are).
2. Each level is read for every attribute. Labels (URL, breadcrumbs, title, headings, captions)
   name whom a page or section is for, so any value they name counts and a nearer label REPLACES
   an outer one (heading beats title beats breadcrumbs: "경영학과 > 경영학과 복수전공 안내" is for
   the students of the other departments). A label may list several facets of its one audience, separated
   ("2019학년도 입학자 · 연계전공 트랙", "3학년 | 휴학생"): each counts. Prose (the lead sentences)
   only REFINES: it narrows an open or wider context ("3학년 이상을 대상으로 …") but never
   contradicts a label, because a sentence mentions people for many reasons ("이중전공이나
   융합전공 없이 …" under a "심화전공" heading).
3. Consolidated FAQ duplicates stand for every copy: the record is the union over the copies'
   contexts (the same Q&A on three department pages applies to all three).

What keeps general material null:
- a text that names every value of an attribute (a table of all cohorts, "심화전공, 이중전공,
  융합전공 중 하나") does not restrict it; complementary ranges ("2020학번 이전 … 2021학번부터 …")
  span the whole domain and cancel out the same way;
- only leads count in prose, so details and exceptions further down do not restrict a chunk;
- mentions that are not an audience are dropped (cues.py): organizers ("기계공학과 참여
  융합전공"), a program's host when its takers are the subject ("통계학과 복수전공 이수 학생은 …":
  whoever takes it, of whatever department), exclusions ("휴학 중에는 신청할 수 없습니다"), times
  ("4학년에 개설"), history ("2019학년도에 첫 신입생을 맞았습니다"), and groups of people joined
  across attributes ("신입생 및 편입생", "신입생·편입생 안내": an OR the record cannot express,
  so neither restricts);
- "모든 학번", "입학년도와 관계없이" say explicitly that the cohort does not matter, and a label
  comparing values ("심화전공과 이중전공은 무엇이 다른가요?") addresses none of them; prose below
  such a label cannot narrow it again;
- years are cohorts only with a cohort word (expressions.py): dates and event years are not.

Attributes are handled by type, so a config with other attributes needs no code change:
- categorical: alias matching (lexicon.py), plus status changes named by their action
  ("휴학 신청" is done by enrolled students) when the config's aliases have those stems;
- year: cohort expressions (unless the attribute plainly asks for another year, e.g. graduation);
- integer: read as a year of study (학년) when its name or question says so ("grade", "학년",
  "year of study"); any other integer attribute has no generic reading and stays null, which
  never hides a chunk from anyone.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from dataclasses import dataclass
from typing import Sequence
from urllib.parse import urlsplit

from advisor.annotation import cues, expressions, lexicon, siblings, structure, words
from advisor.annotation.model import Applicability, ChunkAnnotation, ChunkContext, needs_of, normalize
from advisor.config import CategoricalAttribute, InstitutionConfig, RangeAttribute
from advisor.versioning import code_version

Value = frozenset | tuple  # a set of canonical values, or an inclusive (low, high)
_GENERAL = frozenset({"<general>"})  # state: a label said the attribute does not matter

# A year attribute is the admission cohort (docs/contracts.md §2) unless it plainly asks for another year.
_OTHER_YEAR = re.compile(r"졸업\s*(?:년도|연도|예정)|graduat|출생|birth", re.IGNORECASE)
_GRADE_ATTRIBUTE = re.compile(r"grade|year[_ ]?of[_ ]?study|class[_ ]?year|school[_ ]?year|학년(?!도)", re.IGNORECASE)
_URL_COHORT_WORDS = {"curriculum", "curricula", "graduation", "requirements", "requirement", "catalog",
                     "catalogue", "cohort", "cohorts", "admitted"}

# ----------------------------------------------------------------------------- mentions


@dataclass
class Mention:
    """One place where a text names students of an attribute.

    role: "audience" (they are whom the text is for), "hosted" (a second major/department
    change hosted by that value: the audience is the OTHER values), "organizer" (runs the
    program), "general" (the attribute explicitly does not matter), or, until cues.settle_roles
    decides, "excluded" and "action" (a status change: its actor's status)."""

    start: int
    end: int
    value: Value | None
    role: str = "audience"


@dataclass(frozen=True)
class Finding:
    """What one piece of context says about one attribute. ``value`` None: explicitly general.
    ``strong``: prose that may contradict a label (a hosted second major)."""

    value: Value | None
    strong: bool = False


class _Categorical:
    def __init__(self, attribute: CategoricalAttribute):
        self.all = frozenset(attribute.values)
        self.matcher = lexicon.AliasMatcher(attribute.values)
        self.actions = cues.status_actions(attribute.values)

    def mentions(self, text: str, mode: str) -> list[Mention]:
        out = []
        for m in self.matcher.find(text):
            before, after = text[max(0, m.start - 40):m.start], text[m.end:m.end + 40]
            role = cues.categorical_role(before, after, person=m.person, prose=mode == "lead", generic=m.text)
            if role:
                out.append(Mention(m.start, m.end, frozenset({m.value}), role))
        # "휴학 신청" names its applicants' status (settled against named subjects later)
        out += [Mention(s, e, frozenset(v), "action") for s, e, v in cues.find_status_actions(text, self.actions)]
        if len({v for m in out if m.role == "audience" for v in m.value}) > 1 and cues.COMPARISON.search(text):
            return [Mention(0, len(text), None, "general")]  # values compared, not addressed
        return out

    def finding(self, mentions: list[Mention]) -> Finding | None:
        if any(m.role == "general" for m in mentions):
            return Finding(None)
        named = frozenset().union(*(m.value for m in mentions if m.role == "audience"))
        hosted = frozenset().union(*(m.value for m in mentions if m.role == "hosted"))
        if named:
            return None if named >= self.all else Finding(named)
        if hosted and hosted < self.all:
            return Finding(self.all - hosted, strong=True)
        if any(m.role == "organizer" for m in mentions):
            return Finding(None)  # named only as an organizer: the page is not for its students
        return None

    def from_url(self, segment: str, tokens: list[str]) -> Value | None:
        value = self.matcher.find_in_identifier(segment.rsplit(".", 1)[0])
        return frozenset({value}) if value else None


class _Range:
    """A year (cohort) or grade attribute: the hull of the ranges the text names."""

    def __init__(self, attribute: RangeAttribute, kind: str):
        self.kind = kind
        self.low, self.high = attribute.min, attribute.max

    def _matches(self, text: str) -> list[expressions.RangeMatch]:
        if self.kind == "grade":
            return expressions.find_grades(text, self.low, self.high)
        found = expressions.find_cohorts(text, self.low, self.high)
        # A curriculum's year names its cohorts, a revision's year the cohorts before it; both
        # only when the text names no cohort itself ("25학번 … 2024–2025학년도 교육과정").
        return found or expressions.find_curriculum_years(text, self.low, self.high)

    def ranges_in(self, text: str) -> list[expressions.RangeMatch]:
        """Every cohort or grade range the text names, with its span, whatever its role."""
        return self._matches(text)

    def mentions(self, text: str, mode: str) -> list[Mention]:
        general = cues.GRADE_GENERAL if self.kind == "grade" else cues.COHORT_GENERAL
        out = [Mention(m.start(), m.end(), None, "general") for m in general.finditer(text)]
        for r in self._matches(text):
            before, after = text[max(0, r.start - 40):r.start], text[r.end:r.end + 40]
            role = cues.range_role(before, after, grade=self.kind == "grade", prose=mode == "lead")
            if role:
                out.append(Mention(r.start, r.end, (r.low, r.high), role))
        return out

    def finding(self, mentions: list[Mention]) -> Finding | None:
        if any(m.role == "general" for m in mentions):
            return Finding(None)
        ranges = [m.value for m in mentions if m.role == "audience"]
        if not ranges:
            return None
        low = max(self.low, min(r[0] for r in ranges))
        high = min(self.high, max(r[1] for r in ranges))
        if low > high or (low, high) == (self.low, self.high):
            return None  # outside the schema, or every value listed: no restriction
        return Finding((low, high))

    def from_url(self, segment: str, tokens: list[str]) -> Value | None:
        """A year in a file name is a cohort next to a curriculum word ("curriculum-2021-2022")."""
        if self.kind != "cohort" or not _URL_COHORT_WORDS & {t.lower() for t in tokens}:
            return None
        years = [int(t) for t in tokens if re.fullmatch(r"(?:19|20)\d{2}", t)]
        years = [y for y in years if self.low - 15 <= y <= self.high + 15]
        if not years:
            return None
        low, high = max(self.low, min(years)), min(self.high, max(years))
        return (low, high) if low <= high and (low, high) != (self.low, self.high) else None


def _subset(inner: Value, outer: Value) -> bool:
    if isinstance(inner, frozenset):
        return inner <= outer
    return outer[0] <= inner[0] and inner[1] <= outer[1]


def _union(a: Value | None, b: Value | None) -> Value | None:
    if a is None or b is None or a is _GENERAL or b is _GENERAL:
        return None
    if isinstance(a, frozenset):
        return a | b
    return (min(a[0], b[0]), max(a[1], b[1]))


# ----------------------------------------------------------------------------- annotator


class RulesAnnotator:
    """The `Annotator` protocol without an LLM. ``version`` hashes the rule code and the
    config's profile schema, so a change of either re-annotates everything."""

    name = "rules"

    def __init__(self, config: InstitutionConfig):
        self.config = config
        self.extractors: dict[str, _Categorical | _Range] = {}
        for name, attribute in config.profile.items():
            if isinstance(attribute, CategoricalAttribute):
                self.extractors[name] = _Categorical(attribute)
            elif attribute.type == "year":
                if not _OTHER_YEAR.search(f"{name} {attribute.question}"):
                    self.extractors[name] = _Range(attribute, "cohort")
            elif _GRADE_ATTRIBUTE.search(f"{name} {attribute.question}"):
                self.extractors[name] = _Range(attribute, "grade")
            # any other integer attribute: no generic reading, stays null
        self._cache: dict[tuple[str, str], dict[str, Finding]] = {}
        schema = json.dumps(config.model_dump(mode="json")["profile"], sort_keys=True, ensure_ascii=False)
        code = code_version(sys.modules[__name__], cues, expressions, lexicon, siblings, structure, words)
        self._base_version = f"{code}|{words.DIGEST}|{schema}"
        self.version = hashlib.sha256(self._base_version.encode()).hexdigest()[:12]
        self.facets: siblings.Facets = {}

    def read_corpus(self, documents: Sequence[siblings.CorpusDocument]) -> None:
        """Read the build's documents for what no chunk shows alone: near-duplicate siblings, whose
        differing tokens say whom each is for (siblings.py). The facets are part of every chunk's
        input, so the version follows them: a new sibling re-annotates."""
        reader = siblings.SiblingReader(
            {name: ex.matcher for name, ex in self.extractors.items() if isinstance(ex, _Categorical)},
            {name: (ex.low, ex.high) for name, ex in self.extractors.items()
             if isinstance(ex, _Range) and ex.kind == "cohort"},
            audience=self._names_audience,
        )
        self.facets = reader.facets(documents)
        found = siblings.digest(self.facets)
        self.version = hashlib.sha256(f"{self._base_version}|{found}".encode()).hexdigest()[:12]

    def _names_audience(self, name: str, text: str, start: int, end: int) -> bool:
        """Whether the value at text[start:end] is an audience where it stands: its line read as a
        label, the roles settled as for any label ("전자공학과 복수전공 안내" is for the other
        departments: there 전자공학과 is no audience)."""
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", end)
        line = text[line_start:line_end if line_end >= 0 else len(text)]
        mentions = {n: ex.mentions(line, "label") for n, ex in self.extractors.items()}
        cues.settle_roles(mentions, line, label=True)
        return any(m.role == "audience" and m.start <= start - line_start < m.end for m in mentions.get(name, ()))

    def annotate(self, contexts: Sequence[ChunkContext]) -> list[ChunkAnnotation]:
        return [self.annotate_one(context) for context in contexts]

    def annotate_one(self, context: ChunkContext) -> ChunkAnnotation:
        # A duplicate's own page headings are unknown (only its breadcrumbs are kept), and the
        # chunk's heading path is its own page's: duplicates are read without headings.
        records = [self._record(context, url, crumbs, own=i == 0) for i, (url, crumbs) in enumerate(_copies(context))]
        merged = records[0]
        for record in records[1:]:
            merged = {name: _union(merged[name], record[name]) for name in merged}
        applies_to = normalize(_as_applicability(merged), self.config)
        return ChunkAnnotation(applies_to, needs_of(applies_to))

    def _record(self, context: ChunkContext, url: str | None, crumbs: tuple[str, ...], own: bool) -> dict:
        """One copy of a chunk, read level by level from the outside in."""
        state: dict[str, Value | None] = dict.fromkeys(self.extractors)
        title = context.doc_title or ""
        headings = [h for h in context.heading_path if structure.squash(h) != structure.squash(title)] if own else []
        skip = [title, *context.heading_path]
        for name, value in self.facets.get(url or "", {}).items():  # outermost: the page overrides it
            if name in state:
                state[name] = value
        if url:
            self._read_url(state, url)
        self._read(state, " > ".join(crumbs), "label")
        self._read(state, title, "label")
        self._read(state, structure.lead_sentence(context.doc_lead, [title]), "lead")
        self._read(state, structure.scope_sentence(context.doc_lead, title), "lead")
        for heading in headings:
            self._read(state, heading, "label")
        for label in structure.table_labels(context.text, skip):  # a caption heads its rows
            self._read(state, label, "label")
        self._read(state, structure.lead_sentence(context.text, skip), "lead")
        for statement in structure.target_statements(context.text):
            self._read(state, statement, "lead")
        return state

    def _findings(self, text: str, mode: str) -> dict[str, Finding]:
        """What `text` says about each attribute. Titles, breadcrumbs and document leads repeat
        for every chunk of a document, so results are cached."""
        key = (text, mode)
        if key not in self._cache:
            mentions = {name: ex.mentions(text, mode) for name, ex in self.extractors.items()}
            cues.settle_roles(mentions, text, label=mode == "label")
            found = {name: ex.finding(mentions[name]) for name, ex in self.extractors.items()}
            if len(self._cache) > 50_000:
                self._cache.clear()
            self._cache[key] = {name: f for name, f in found.items() if f is not None}
        return self._cache[key]

    def _read(self, state: dict, text: str, mode: str) -> None:
        if not text:
            return
        for name, finding in self._findings(text, mode).items():
            current = state[name]
            if mode == "label":
                # a nearer label replaces an outer one; "explicitly general" is remembered so
                # that prose below it cannot narrow it again ("모든 전공 유형 공통 사항")
                state[name] = _GENERAL if finding.value is None else finding.value
            elif finding.value is not None and (
                finding.strong or current is None or (current is not _GENERAL and _subset(finding.value, current))
            ):
                state[name] = finding.value  # prose narrows, never contradicts

    def _read_url(self, state: dict, url: str) -> None:
        for segment in (s for s in urlsplit(url).path.split("/") if s):
            tokens = [t for t in re.split(r"[-_.]", segment) if t]
            for name, extractor in self.extractors.items():
                value = extractor.from_url(segment, tokens)
                if value is not None:
                    state[name] = value


def _copies(context: ChunkContext) -> list[tuple[str | None, tuple[str, ...]]]:
    """The chunk's own (URL, breadcrumbs) and those of its consolidated duplicates. The store
    lists duplicates' breadcrumbs in URL order; URLs are paired with them only when the counts
    agree, else a duplicate is read from its breadcrumbs alone."""
    copies = [(context.doc_url, tuple(context.breadcrumbs))]
    aliases = sorted(context.alias_urls)
    contexts = list(context.alias_contexts)
    if len(aliases) == len(contexts):
        copies += [(url, tuple(crumbs)) for url, crumbs in zip(aliases, contexts)]
    else:
        copies += [(None, tuple(crumbs)) for crumbs in contexts]
    return copies


def _as_applicability(state: dict[str, Value | None]) -> Applicability:
    out: Applicability = {}
    for name, value in state.items():
        if value is None or value is _GENERAL:
            out[name] = None
        elif isinstance(value, frozenset):
            out[name] = sorted(value)
        else:
            out[name] = [value[0], value[1]]
    return out
