"""The profile-annotation prompt (docs/method.md §A.4): schema, instructions, few-shot examples.

Everything institution-specific comes from the config's profile schema, so a new institution's
attributes need no code change: the JSON schema, the attribute list with canonical values and
aliases, and even the few-shot examples (built from the schema's own values) follow it.
"""

from __future__ import annotations

from advisor.annotation.model import ChunkContext, needs_of, normalize
from advisor.config import CategoricalAttribute, InstitutionConfig, RangeAttribute
from advisor.llm.few_shot import few_shot_messages
from advisor.llm.jsoncheck import strict_object

PROMPT_VERSION = "annotate-v1"  # bump when the wording or the examples change
SCHEMA_NAME = "chunk_applicability"
LEAD_CHARS = 600  # enough of the document's opening to show its scope, without doubling the cost

SYSTEM = """\
You annotate one chunk of a university's academic-advising documents with WHOM IT APPLIES TO, \
over the student-profile schema below. The documents are mostly in the language "{language}" \
(ko = Korean).

For every attribute, answer one of:
- null: the attribute does not limit who the chunk applies to; it holds for every value. This is \
the default: keep it unless the chunk or its context restricts the attribute.
- categorical attribute: the list of canonical values (the codes before the colon below, never \
the aliases) of the students it applies to. If it applies to every value, answer null.
- year / integer attribute: one inclusive range [low, high] within the attribute's bounds. \
A single value X is [X, X]. "X학번 이후 / X 이상 / from X on" is [X, max]; "X학번까지 / X 이하 / up \
to X" is [min, X]; "X 이전 / X 미만 / before X" is [min, X-1].

Where to look: applicability is often stated only in the context, not in the chunk itself. \
The document title, breadcrumbs, heading path and URL count as much as the chunk: a chunk deep \
inside the page "컴퓨터학과 2021학번 교육과정" applies to that department and cohort even when its \
own text names neither. The document's opening text tells its general scope. A page also \
published elsewhere (its duplicates' breadcrumbs are listed) applies to every place it appears.
Do not restrict on mere mentions: a department named as the contact office, an example, or a \
list covering every value does not limit applicability.

needs: the attributes a student must know before trusting the chunk: every attribute you \
restricted, plus any attribute the content depends on even though it applies to everyone (for \
example a table giving a different requirement per admission year).

Answer with one JSON object holding every attribute and "needs", nothing else.

Profile schema:
{attributes}"""

# How every chunk prompt ends (this one and URAG-D augmentation's): the document's opening text,
# then the chunk itself, each fenced so that neither can pass for an instruction.
CONTEXT_TAIL = """\
Document opening text:
<<<
{lead}
>>>
Chunk:
<<<
{text}
>>>"""

USER = """\
Document title: {title}
URL: {url}
Kind: {kind} ({collection}){published}
Breadcrumbs: {breadcrumbs}
Heading path: {headings}{aliases}
""" + CONTEXT_TAIL


def build_schema(config: InstitutionConfig) -> dict:
    """The strict JSON schema for one annotation, built from the profile schema."""
    if "needs" in config.profile:
        raise ValueError('a profile attribute may not be called "needs": the annotation uses that key')
    properties = {name: _attribute_schema(attr) for name, attr in config.profile.items()}
    properties["needs"] = {"type": "array", "items": {"type": "string", "enum": list(config.profile)}}
    return strict_object(properties)


def _attribute_schema(attribute: CategoricalAttribute | RangeAttribute) -> dict:
    if isinstance(attribute, CategoricalAttribute):
        return {"type": ["array", "null"], "items": {"type": "string", "enum": list(attribute.values)}}
    return {
        "type": ["array", "null"],
        "items": {"type": "integer", "minimum": attribute.min, "maximum": attribute.max},
        "minItems": 2,
        "maxItems": 2,
    }


def build_messages(config: InstitutionConfig, context: ChunkContext) -> list[dict]:
    examples = [(user_message(example), answer) for example, answer in few_shot_examples(config)]
    return few_shot_messages(system_message(config), examples, user_message(context))


def system_message(config: InstitutionConfig) -> str:
    lines = []
    for name, attr in config.profile.items():
        if isinstance(attr, CategoricalAttribute):
            lines.append(f'- {name} (categorical; asked as "{attr.question}"):')
            lines += [f"    {value}: {', '.join(aliases) or value}" for value, aliases in attr.values.items()]
        else:
            lines.append(f'- {name} ({attr.type}, {attr.min}..{attr.max}; asked as "{attr.question}")')
    return SYSTEM.format(language=config.language, attributes="\n".join(lines))


def user_message(context: ChunkContext) -> str:
    aliases = "".join(
        f"\nAlso published at: {url} ({' > '.join(crumbs) or '-'})"
        for url, crumbs in zip(context.alias_urls, context.alias_contexts or [()] * len(context.alias_urls))
    )
    return USER.format(
        **context_fields(context, LEAD_CHARS),
        url=context.doc_url,
        kind=context.kind,
        collection=context.collection,
        published=f", published {context.published_on.isoformat()}" if context.published_on else "",
        aliases=aliases,
    )


def context_fields(context: ChunkContext, lead_chars: int) -> dict[str, str]:
    """What every chunk prompt shows of the chunk and its document, "-" where there is nothing."""
    return {
        "title": context.doc_title or "-",
        "breadcrumbs": " > ".join(context.breadcrumbs) or "-",
        "headings": " > ".join(context.heading_path) or "-",
        "lead": context.doc_lead[:lead_chars].strip() or "-",
        "text": context.text.strip(),
    }


def few_shot_examples(config: InstitutionConfig) -> list[tuple[ChunkContext, dict]]:
    """Three worked examples drawn from the schema's own values (see _Picks)."""
    picks = _Picks(config)
    ko = config.language == "ko"
    examples = [picks.context_only(ko), picks.ranges(ko), picks.depends_on_year(ko), picks.general(ko)]
    return [example for example in examples if example is not None]


class _Picks:
    """Values for the examples: the first categorical value (shown through an alias), a year in
    the middle of the first year attribute, a value in the upper half of the first integer one."""

    def __init__(self, config: InstitutionConfig):
        self.config = config
        self.cat = _first(config, CategoricalAttribute)
        self.year = _first(config, RangeAttribute, "year")
        self.num = _first(config, RangeAttribute, "integer")

    def answer(self, **values) -> dict:
        answer = normalize(values, self.config)  # examples in the same canonical form as results
        return {**answer, "needs": list(needs_of(answer))}

    def context_only(self, ko: bool) -> tuple[ChunkContext, dict] | None:
        """Applicability stated only in the title and breadcrumbs."""
        if not (self.cat and self.year):
            return None
        (cat_name, cat), (year_name, yr) = self.cat, self.year
        value = next(iter(cat.values))
        alias = (cat.values[value] or (value,))[0]
        year = (yr.min + yr.max) // 2
        title = f"{alias} {year}학번 교육과정" if ko else f"{alias}: curriculum for the {year} cohort"
        text = ("전공필수 과목은 아래 표와 같으며, 졸업을 위해 전공 60학점 이상을 이수해야 한다." if ko
                else "The required major courses are listed below; graduation needs 60 major credits.")
        lead = (f"{alias} {year}학번 입학생의 전공 이수 체계를 안내합니다." if ko
                else f"How {alias} students admitted in {year} complete their major.")
        context = _example(title, ("학사안내", alias, "교육과정") if ko else ("Academics", alias, "Curriculum"),
                           ("전공필수",) if ko else ("Required courses",), text, lead=lead)
        return context, self.answer(**{cat_name: [value], year_name: [year, year]})

    def ranges(self, ko: bool) -> tuple[ChunkContext, dict] | None:
        """Open-ended ranges stated in the chunk's own text."""
        if not (self.year and self.num):
            return None
        (year_name, yr), (num_name, num) = self.year, self.num
        year, low = (yr.min + yr.max + 1) // 2, (num.min + num.max + 1) // 2
        text = (f"{year}학번 이후 입학생 중 {low}학년 이상인 학생은 졸업 전까지 영어 졸업인증을 받아야 한다." if ko
                else f"Students admitted in {year} or later, from year {low} on, must pass the English exit test.")
        context = _example("졸업 요건 안내" if ko else "Graduation requirements",
                           ("학사안내", "졸업") if ko else ("Academics", "Graduation"), (), text)
        return context, self.answer(**{year_name: [year, yr.max], num_name: [low, num.max]})

    def depends_on_year(self, ko: bool) -> tuple[ChunkContext, dict] | None:
        """Applies to every cohort, yet the reader must know theirs: null, but needed."""
        if not self.year:
            return None
        year_name, yr = self.year
        year = (yr.min + yr.max + 1) // 2
        text = (f"졸업 이수학점: {yr.min}~{year - 1}학번은 130학점, {year}학번부터는 120학점이다." if ko
                else f"Credits to graduate: 130 for the {yr.min}-{year - 1} cohorts, 120 from {year} on.")
        context = _example("졸업 이수학점" if ko else "Credits to graduate",
                           ("학사안내", "졸업") if ko else ("Academics", "Graduation"), (), text)
        answer = self.answer()
        answer["needs"] = [year_name]
        return context, answer

    def general(self, ko: bool) -> tuple[ChunkContext, dict]:
        """A notice for everyone, mentioning a department only as the contact."""
        contact = ""
        if self.cat:
            cat_name, cat = self.cat
            value = next(iter(cat.values))
            contact = (cat.values[value] or (value,))[0]
        text = (f"중앙도서관은 시험기간 동안 24시간 운영합니다. 문의: {contact} 사무실" if ko
                else f"The central library opens around the clock during exams. Contact: {contact} office")
        return _example("시험기간 도서관 운영 안내" if ko else "Library hours during exams", (), (), text,
                        kind="notice", collection="dynamic"), self.answer()


def _first(config: InstitutionConfig, cls: type, kind: str | None = None):
    for name, attr in config.profile.items():
        if isinstance(attr, cls) and (kind is None or attr.type == kind):
            return name, attr
    return None


def _example(title, breadcrumbs, headings, text, kind="page", collection="static", lead="") -> ChunkContext:
    return ChunkContext(
        chunk_id="example", text=text, doc_url="https://example.edu/" + kind, doc_title=title,
        kind=kind, collection=collection, breadcrumbs=tuple(breadcrumbs), heading_path=tuple(headings),
        doc_lead=lead,
    )
