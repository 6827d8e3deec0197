"""The institution config (docs/contracts.md §2): one YAML file describes one institution.

Validation errors name the offending field (``sources[1].kind: ...``) so an IT team adapting the
file to its own site sees at once what to fix.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from datetime import date
from pathlib import Path
from typing import Annotated, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_serializer, model_validator

from advisor import clock
from advisor.message_limit import MAX_MESSAGE_CHARS
from advisor.settings import config_path

# The example institutions: examples/<name>/ holds one's institution.yaml beside the generator of
# its website (docs/architecture.md). The library finds them as files and never imports them; the
# folder's name is the institution's only name (what `local_site.generate` says). In a checkout and
# in an installed copy alike, examples/ sits beside advisor/.
EXAMPLES_DIR = Path(__file__).resolve().parents[1] / "examples"


def example_config(name: str) -> Path:
    return EXAMPLES_DIR / name / "institution.yaml"


def example_names() -> tuple[str, ...]:
    """The example institutions, by folder: those with an institution.yaml."""
    return tuple(sorted(p.parent.name for p in EXAMPLES_DIR.glob("*/institution.yaml")))


DEMO_CONFIG_PATH = example_config("demo_college")  # the default institution


class ConfigError(ValueError):
    """A config file that cannot be used; the message names the file and the field."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _require_unique(names: list[str], what: str) -> None:
    """A config error naming every repeated one, when `names` holds one twice."""
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"{what} must be unique; repeated: {', '.join(repeated)}")


class Selectors(_Strict):
    """CSS selectors for one source's pages; ``None`` means "use the sensible defaults"."""

    content: str | None = None  # the page's main text
    title: str | None = None  # the page's title
    date: str | None = None  # the date a page or post was written or updated
    breadcrumb: str | None = None  # where the page sits in the site (its section names)
    faq_item: str | None = None  # faq sources: one element per question-answer pair
    faq_question: str | None = None  # faq sources: the question inside an item
    faq_answer: str | None = None  # faq sources: the answer inside an item
    remove: tuple[str, ...] = ()  # extra boilerplate to drop, on top of the defaults

    @model_validator(mode="after")
    def _selectors_parse(self) -> "Selectors":
        from selectolax.lexbor import LexborHTMLParser, SelectolaxError

        probe = LexborHTMLParser("<p></p>")
        for name, value in self.model_dump().items():
            for selector in value if isinstance(value, tuple) else [value]:
                if selector is None:
                    continue
                try:
                    probe.css(selector)
                except SelectolaxError:
                    raise ValueError(f"{name}: invalid CSS selector {selector!r}") from None
        return self


class Source(_Strict):
    """One part of the institution's material: where crawling starts and what becomes a document."""

    name: Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]+$")]  # unique among the sources
    kind: Literal["html", "pdf", "board", "faq"]  # how its pages are read: pages, PDF files, a notice board, an FAQ
    seeds: Annotated[tuple[str, ...], Field(min_length=1)]  # http(s) URLs crawling starts from
    allow: tuple[str, ...] = ()  # regexes a URL must match to be crawled; empty = seeds' prefixes
    documents: tuple[str, ...] = ()  # regexes of URLs that become documents; empty = all crawled
    collection: Literal["static", "dynamic"] = "static"  # dynamic: notices, which age and expire
    selectors: Selectors = Selectors()
    max_pages: Annotated[int, Field(gt=0)] = 2000  # pages fetched at most per crawl
    expire_after_days: Annotated[int, Field(gt=0)] | None = None  # older posts are kept but marked expired

    @field_validator("seeds")
    @classmethod
    def _seeds_are_http(cls, seeds: tuple[str, ...]) -> tuple[str, ...]:
        for seed in seeds:
            if not re.match(r"^https?://[^/]+", seed):
                raise ValueError(f"seed {seed!r} is not an http(s) URL")
        return seeds

    @field_validator("allow", "documents")
    @classmethod
    def _patterns_compile(cls, patterns: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"pattern {pattern!r} is not a valid regex: {exc}") from None
        return patterns

    def allow_patterns(self) -> tuple[str, ...]:
        return self.allow or tuple("^" + re.escape(seed) for seed in self.seeds)


class CrawlSettings(_Strict):
    """How the crawler fetches (every source alike)."""

    user_agent: str = "profile-advisor-crawler/0.1 (+https://github.com/profile-advisor)"  # sent with every request
    concurrency: Annotated[int, Field(ge=1, le=64)] = 4  # parallel requests
    delay_seconds: Annotated[float, Field(ge=0)] = 0.5  # politeness: min gap between requests to a host
    timeout_seconds: Annotated[float, Field(gt=0)] = 20.0  # per request
    retries: Annotated[int, Field(ge=0, le=10)] = 3  # on 5xx, timeouts and connection errors
    backoff_seconds: Annotated[float, Field(ge=0)] = 1.0  # first retry wait; doubles each time
    max_bytes: Annotated[int, Field(gt=0)] = 25 * 1024 * 1024  # size cap per response
    max_redirects: Annotated[int, Field(ge=0, le=20)] = 5  # per request
    respect_robots: bool = True  # obey the site's robots.txt


class LocalSite(_Strict):
    """A static copy of a site served on loopback while crawling (the demo college, or a mirror)."""

    generate: str | None = None  # an example institution (example_names()): build its site into `directory` first
    directory: str = "demo_college"  # relative paths are under the warehouse
    host: str = "127.0.0.1"  # loopback only
    port: Annotated[int, Field(gt=0, lt=65536)] = 8765  # where the copy is served while crawling

    @field_validator("generate")
    @classmethod
    def _an_example(cls, name: str | None) -> str | None:
        if name is not None and name not in example_names():
            raise ValueError(f"unknown example institution {name!r}; known: {', '.join(example_names())}")
        return name

    @field_validator("host")
    @classmethod
    def _loopback_only(cls, host: str) -> str:
        if not (host.startswith("127.") or host in {"localhost", "::1"}):
            raise ValueError("a local site is served on loopback only (127.0.0.0/8, localhost, ::1)")
        return host


class PipelineSettings(_Strict):
    """Which backend each model-backed step uses. `auto`: the LLM when one is configured
    (OPENAI_API_KEY / OPENAI_BASE_URL), else the offline backend."""

    annotator: Literal["auto", "rules", "llm"] = "auto"  # who says whom each chunk applies to
    augmentation: Literal["auto", "extractive", "llm"] = "auto"  # URAG-D: the chunks' augmented text
    embedder: Literal["auto", "e5", "lsa", "openai"] = "auto"  # auto: openai with an LLM endpoint, else e5
    # URAG-F: LLM paraphrases of the FAQ questions and Q/A pairs generated from the documents,
    # added to the FAQ store (`off`: the institution's own FAQ only; offline there is no other)
    faq_enrichment: Literal["auto", "off", "llm"] = "auto"
    chunk_max_chars: Annotated[int, Field(ge=200, le=4000)] = 800  # a chunk's length at most, in characters
    keep_builds: Annotated[int, Field(ge=1, le=100)] = 5  # index builds kept for comparison
    # A ground-truth file (JSON lines: per document URL, whom it truly applies to), read ONLY by the
    # evaluation: annotation accuracy, the benchmark's gold sources and the true-label system.
    # Relative paths are under the warehouse. The bundled colleges write one.
    annotation_truth: str | None = None


class EvaluationSettings(_Strict):
    """How the evaluation's simulated student behaves (eval/systems/simulate.py)."""

    # the `deployment-dont-know` setting: the share of profile questions the student cannot answer
    dont_know_share: Annotated[float, Field(ge=0, le=1)] = 0.2


class RetrievalSettings(_Strict):
    """Retrieval knobs (docs/method.md §A online steps 5-6); unset fields keep the method's values.
    Written into each index build, so serving and evaluation use what the institution chose. These
    defaults are also advisor.retrieval.RetrievalParams' (the dialogue's k is static_k + dynamic_k)."""

    rrf_k: Annotated[int, Field(gt=0)] = 60  # reciprocal rank fusion constant (the paper's k = 60)
    static_k: Annotated[int, Field(ge=0)] = 7  # aggregation to ten chunks: 7 static + 3 dynamic ...
    dynamic_k: Annotated[int, Field(ge=0)] = 3  # ... reversed (3 + 7) for time-sensitive queries
    half_life_days: Annotated[float, Field(gt=0)] = 90.0  # recency: score x 0.5 ** (age_days / half-life)
    candidates: Annotated[int, Field(gt=0)] = 100  # per signal and collection: the lists fused / re-weighted
    # dense search: true exact over the eligible rows, false the HNSW index, null by size: exact for
    # a collection of at most dense_exact_max_rows chunks, HNSW above (topped up exactly when a
    # filter leaves it short). bench/retrieval.py measures both and HNSW's recall@10: exact costs
    # ~7 ms a query at 100k chunks, and HNSW's recall there can be poor, so the limit is high.
    dense_exact: bool | None = None
    dense_exact_max_rows: Annotated[int, Field(ge=0)] = 500_000  # see dense_exact
    time_words: tuple[str, ...] | None = None  # None: the built-in Korean/English list
    specificity: bool = True  # soft augmentation's ranking of documents written for the student
    prefix_in_bm25: bool = False  # True: the paper's profile prefix in both searches, not dense only


def hnsw_above(dense_exact: bool | None, max_rows: int) -> int | None:
    """The row count above which dense search uses HNSW rather than exact search (None: never):
    the one rule the index writer (build the index or not) and the retriever (search it or not) share."""
    if dense_exact is None:
        return max_rows
    return None if dense_exact else 0


class _Asked(_Strict):
    """What every profile attribute has beside its question: its English wording (optional)."""

    question_en: str | None = None  # asked of a student who writes English; unset: made from the name

    def english_question(self, name: str) -> str:
        """What a student who writes English is asked: `question_en`, else a question made from the
        attribute's name ("admission_year" -> "What is your admission year?")."""
        return self.question_en or f"What is your {english_name(name)}?"

    @model_serializer(mode="wrap")
    def _without_unset_wording(self, handler):
        # an unset `question_en` is left out of the dump, so that configs without it hash (lineage,
        # the annotator's version) exactly as before the field existed: no re-annotation for it
        data = handler(self)
        if isinstance(data, dict) and data.get("question_en") is None:
            data.pop("question_en", None)
        return data


class CategoricalAttribute(_Asked):
    type: Literal["categorical"]  # one of named values (a department, a major type)
    question: str  # what the student is asked (the profile's order is the order of asking)
    values: dict[str, tuple[str, ...]]  # canonical value -> aliases seen in text
    labels: dict[str, str] = {}  # canonical value -> button label; defaults to the first alias

    @field_validator("values")
    @classmethod
    def _non_empty(cls, values: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        if not values:
            raise ValueError("a categorical attribute needs at least one value")
        return values

    def label(self, value: str) -> str:
        return self.labels.get(value) or (self.values[value][0] if self.values[value] else value)

    def english_label(self, value: str) -> str:
        """The button label for a student who writes English: the value's first English alias that
        is not a code ("Department of Computer Science", not "CS"), else the label."""
        return next((a for a in self.values[value] if _ENGLISH_ALIAS.fullmatch(a) and not a.isupper()),
                    None) or self.label(value)


class RangeAttribute(_Asked):
    type: Literal["year", "integer"]  # year: a cohort (chunks carry an inclusive [min, max] range)
    question: str  # what the student is asked (the profile's order is the order of asking)
    min: int  # the smallest value a student may give
    max: int  # the largest
    # how a value is written ("{value}" + unit: "3학년", "21학번"); unset: the word the question
    # asks in ("현재 몇 학년인가요?" -> 학년), else 학번 for a cohort year
    unit: str | None = None

    @model_validator(mode="after")
    def _ordered(self) -> "RangeAttribute":
        if self.min > self.max:
            raise ValueError(f"min ({self.min}) is greater than max ({self.max})")
        return self

    def value_text(self, value: int) -> str:
        """A value as a student reads and writes it: "3학년", "21학번" (the soft prefix, the options)."""
        unit = self.unit if self.unit is not None else question_unit(self.question) or ("학번" if self.type == "year" else "")
        return f"{value}{unit}"


_ENGLISH_ALIAS = re.compile(r"[A-Za-z][A-Za-z0-9 .&'()/-]*")


def english_name(name: str) -> str:
    """An attribute's name as English words ("admission_year" -> "admission year")."""
    return name.replace("_", " ")


def question_unit(question: str) -> str:
    """The unit a question asks a number in: the word after "몇" ("몇 학년인가요?" -> "학년")."""
    match = re.search(r"몇\s*([가-힣]+?)(?:인가요|이신가요|이에요|예요|입니까|이세요|째|을|를|이|은|는|\s|\?|$)", question)
    return match.group(1) if match else ""


Attribute = Annotated[CategoricalAttribute | RangeAttribute, Field(discriminator="type")]


# sections that only `advisor serve` reads: changing them must not make the pipeline rebuild
SERVING_ONLY = {"usage", "study"}


class UsageSettings(_Strict):
    """What `advisor serve` keeps for the advising office under `<warehouse>/usage/` (advisor/usage):
    the anonymized question log (scrubbed text, language, tier, score, method, hour; never a profile
    value, session id or address) and the answers' feedback. Serving settings: they change nothing
    the pipeline builds, so they are not part of the config's fingerprint."""

    question_log: bool = True  # the scrubbed questions too, not only the feedback
    retention_days: Annotated[int, Field(ge=1, le=3650)] = 90  # day folders older than this are deleted


class StudyQuestion(_Strict):
    """One question of the preference study, asked under one profile (attribute -> value)."""

    # ASCII: the id names the question in the vote records, the tables and the chart's labels
    id: Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]{1,40}$")]
    question: Annotated[str, Field(min_length=1, max_length=MAX_MESSAGE_CHARS)]  # a student's message
    profile: Annotated[dict[str, str | int], Field(min_length=1)]  # attribute -> value, as the profile schema allows


class StudySettings(_Strict):
    """The blind pairwise preference study of `/study` (docs/contracts.md §2, §4): participants see
    two answers to each question, the engine's and the baseline's (dense retrieval with the profile
    written into the query), in counterbalanced positions, and vote A, B or tie. Off by default;
    a serving setting, so not part of the config's fingerprint."""

    enabled: bool = False  # serve the study at /study
    # the one thing a participant is asked about themselves: a categorical profile attribute
    department_attribute: str = "department"
    questions: tuple[StudyQuestion, ...] = ()  # what every participant is asked, in this order

    @field_validator("questions")
    @classmethod
    def _unique_ids(cls, questions: tuple[StudyQuestion, ...]) -> tuple[StudyQuestion, ...]:
        _require_unique([q.id for q in questions], "question ids")
        return questions


def _study_problems(study: StudySettings, profile: dict[str, "CategoricalAttribute | RangeAttribute"]) -> list[str]:
    """What in `study` does not fit the profile schema, each named by its field."""
    problems = []
    department = profile.get(study.department_attribute)
    if study.enabled and not isinstance(department, CategoricalAttribute):
        problems.append(f"department_attribute: {study.department_attribute!r} is not a categorical attribute "
                        f"of the profile ({', '.join(profile) or 'none'})")
    if study.enabled and not study.questions:
        problems.append("questions: an enabled study needs at least one question")
    for i, question in enumerate(study.questions):
        for name, value in question.profile.items():
            where = f"questions[{i}].profile.{name}"
            attribute = profile.get(name)
            if attribute is None:
                problems.append(f"{where}: not a profile attribute ({', '.join(profile)})")
            elif isinstance(attribute, CategoricalAttribute):
                if value not in attribute.values:
                    problems.append(f"{where}: {value!r} is not one of {', '.join(attribute.values)}")
            elif isinstance(value, bool) or not isinstance(value, int) or not attribute.min <= value <= attribute.max:
                problems.append(f"{where}: {value!r} is not a whole number from {attribute.min} to {attribute.max}")
    return problems


class InstitutionConfig(_Strict):
    institution: str  # its name, as students know it
    language: str = "ko"  # ko (Kiwi morphemes) | en | …; templates are Korean unless en
    timezone: str = "Asia/Seoul"  # an IANA zone: "today" for notice expiry, recency and the nightly schedule
    # Where a student goes when the material has no answer (the fallback says so): an office, a
    # phone number, an address; one line, shown as written.
    contact: Annotated[str, Field(min_length=1, max_length=300)] | None = None
    sources: Annotated[tuple[Source, ...], Field(min_length=1)]  # where its material lives; names unique
    profile: dict[str, Attribute]  # the profile schema: attribute -> its kind and question
    crawl: CrawlSettings = CrawlSettings()
    pipeline: PipelineSettings = PipelineSettings()
    retrieval: RetrievalSettings = RetrievalSettings()
    evaluation: EvaluationSettings = EvaluationSettings()
    local_site: LocalSite | None = None
    usage: UsageSettings = UsageSettings()
    study: StudySettings = StudySettings()

    @model_validator(mode="after")
    def _study_fits_profile(self) -> "InstitutionConfig":
        problems = _study_problems(self.study, self.profile)
        if problems:
            # one line per problem, each named from the top ("study.questions[0].profile.grade: ...")
            raise ValueError("\n  ".join(f"study.{p}" for p in problems))
        return self

    @field_validator("sources")
    @classmethod
    def _unique_names(cls, sources: tuple[Source, ...]) -> tuple[Source, ...]:
        _require_unique([s.name for s in sources], "source names")
        return sources

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, tz: str) -> str:
        try:
            ZoneInfo(tz)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown timezone {tz!r}") from None
        return tz

    def today(self) -> date:
        """'Today' where the institution is: notice expiry, the recency of notices and the dialogue
        follow its calendar, not the server's."""
        return clock.today(self.timezone)

    def source(self, name: str) -> Source:
        for source in self.sources:
            if source.name == name:
                return source
        raise KeyError(name)

    def fingerprint(self) -> str:
        """A stable hash of the config's content (not its file's formatting), for lineage."""
        canonical = json.dumps(self.model_dump(mode="json", exclude=SERVING_ONLY), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _field_path(loc: tuple) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part in {"categorical", "year", "integer"}:  # discriminator tags add no information
            continue
        else:
            path += f".{part}" if path else str(part)
    return path or "(top level)"


def _problem(error: dict) -> str:
    if not error["loc"] and error["msg"].startswith("Value error, study."):
        return error["msg"].removeprefix("Value error, ")  # a check across sections names its own fields
    return f"{_field_path(error['loc'])}: {error['msg']}"


def parse_config(data: object, origin: str = "<config>") -> InstitutionConfig:
    if not isinstance(data, dict):
        raise ConfigError(f"{origin}: expected a mapping at the top level, got {type(data).__name__}")
    try:
        return InstitutionConfig.model_validate(data)
    except ValidationError as exc:
        problems = "\n".join(f"  {_problem(e)}" for e in exc.errors())
        raise ConfigError(f"{origin}: invalid institution config\n{problems}") from None


def load_config(path: str | os.PathLike | None = None) -> InstitutionConfig:
    """Load `path`, else $ADVISOR_CONFIG, else the bundled demo college."""
    path = Path(config_path(path) or DEMO_CONFIG_PATH)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: config file is not UTF-8 ({exc.reason})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    return parse_config(data, str(path))
