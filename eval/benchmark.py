"""Synthesize the QA benchmark from an index build's annotated chunks (method.md §A, evaluation
protocol; interfaces.md §3 format). Nothing here reads the demo college's ground truth: any
institution's build gives a benchmark the same way.

- Profiles: (first categorical attribute x cohort period) combinations x grades, the other
  attributes varied with a seeded RNG. Cohort periods are where the chunks' cohort ranges change
  (curriculum revisions), so the combinations meet different documents.
- Categories: what students ask whose answer depends on who asks. A fact is a quantity with a unit
  on a line of a profile-limited document ("전공필수 | 21학점"), named by its aspect (the row's
  label or the sentence's section: "전공필수"). A category is an (aspect, unit) published in several
  near-duplicate documents for different students; categories are ranked by how many profiles
  have an answer, then by how many different answers there are, then by documents. Its topic in
  the questions is the document family (the title without profile words: "졸업요건") most of its
  documents share, so the question says nothing about whose document it is.
- Instances: per profile and category, the most specific chunk holding a fact of the category that
  applies to the profile is the gold source; other sources that apply to the profile and state
  the same fact on one line (an FAQ entry repeating a requirement page) are listed after it as
  equally correct. The question asks for the fact in three ways (formal, first person, a yes/no
  check with a true or false premise) without ever naming the profile.
- Validation: the gold chunk is in the build and holds the keyword; a question that names a
  profile value is dropped.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping, Sequence

from advisor.config import InstitutionConfig
from advisor.index import fields
from advisor.index.store import IndexBuild
from serving.answer.extractive import unit_fits
from serving.answer.units import readable, row_cells, split_units
from serving.faq.store import FAQ_KIND
from serving.retrieval.profile import conflicts

QUERY_TYPES = ("formal", "first_person", "verification")
# Quantities an advising answer turns on; years and dates are left out (they are what a cohort or a
# notice is, not what a student asks for), as are bare numbers.
_FACT = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d+)?)\s*(학점|과목|학기|개월|시간|%|점|명|만\s?원|회)")
_NOISE = re.compile(r"\[[^\]]*\]|제\s*\d+\s*[조항장절]|\d{2,4}\s*[–~-]\s*\d{2,4}|\d+\s*(?:학년도|학년|학기|년|월|일|차)|\d+"
                    r"|학년도|입학생|입학자|학번|이후|이전|까지|부터|대상|[()\[\]{}<>:|·,./–~-]")
_LEADING_PARTICLE = re.compile(r"^(?:의|및|과|와|에|을|를|은|는|이|가|도)\s+")


@dataclass(frozen=True)
class Fact:
    aspect: str  # what is asked about ("전공(전공필수 포함)" -> "전공")
    value: str  # "65"
    unit: str  # "학점"
    line: str  # the readable line it comes from (the reference answer)


# ----------------------------------------------------------------------------- profiles

def profiles(build: IndexBuild, combos: int = 15, grades: int = 4, seed: int = 0) -> list[dict]:
    schema = build.schema
    primary = next((n for n, a in schema.items() if fields.is_categorical(a)), None)
    cohort = next((n for n, a in schema.items() if not fields.is_categorical(a) and a.type == "year"), None)
    grade = next((n for n, a in schema.items() if not fields.is_categorical(a) and a.type == "integer"), None)
    values = list(schema[primary].values) if primary else [None]
    periods = cohort_periods(build, cohort) if cohort else [None]
    grid = [(v, p) for p in periods for v in values]
    published = _published_combinations(build, primary, cohort)
    grid = [combo for combo in grid if combo in published] or grid  # a department x cohort with its own documents
    chosen = [grid[round(j * len(grid) / combos)] for j in range(min(combos, len(grid)))]
    grade_values = _spread(schema[grade].min, schema[grade].max, grades) if grade else [None]
    rng = random.Random(seed)
    result = []
    for value, period in chosen:
        for level in grade_values:
            profile = {}
            for name, attribute in schema.items():
                if name == primary:
                    profile[name] = value
                elif name == cohort:
                    profile[name] = period
                elif name == grade:
                    profile[name] = level
                elif fields.is_categorical(attribute):
                    profile[name] = rng.choice(list(attribute.values))
                else:
                    profile[name] = rng.randint(attribute.min, attribute.max)
            result.append({k: v for k, v in profile.items() if v is not None})
    return result


def _published_combinations(build: IndexBuild, primary: str | None, cohort: str | None) -> set[tuple]:
    """(primary value, cohort period) pairs some chunk is limited to both of: a department did not
    exist before it was founded, and its students would have no documents of their own."""
    if primary is None or cohort is None:
        return set()
    periods = cohort_periods(build, cohort)
    found = set()
    for collection in build.collections.values():
        for applies_to in collection.applies_to:
            values, span = applies_to.get(primary), applies_to.get(cohort)
            if values and span:
                found.update((v, p) for v in values for p in periods if span[0] <= p <= span[1])
    return found


def cohort_periods(build: IndexBuild, cohort: str) -> list[int]:
    """One cohort per period: the year ranges annotated on chunks cut the schema's span into
    periods (a curriculum revision starts one); each period is represented by its middle year."""
    attribute = build.schema[cohort]
    cuts = {attribute.min, attribute.max + 1}
    for collection in build.collections.values():
        for applies_to in collection.applies_to:
            span = applies_to.get(cohort)
            if span:
                cuts.update(c for c in (span[0], span[1] + 1) if attribute.min <= c <= attribute.max + 1)
    edges = sorted(cuts)
    return [(low + high - 1) // 2 for low, high in zip(edges, edges[1:])]


def _spread(low: int, high: int, n: int) -> list[int]:
    if high - low + 1 <= n:
        return list(range(low, high + 1))
    return [low + round(i * (high - low) / (n - 1)) for i in range(n)]


# ----------------------------------------------------------------------------- categories

def profile_words(schema: fields.Schema) -> list[str]:
    words = set()
    for attribute in schema.values():
        if fields.is_categorical(attribute):
            for canonical, aliases in attribute.values.items():
                words.update(w for w in (canonical, attribute.label(canonical), *aliases) if len(w) >= 2)
    return sorted(words, key=len, reverse=True)  # longest first: "컴퓨터학부" before "컴퓨터"


def category_of(title: str, words: Sequence[str]) -> str:
    text = title or ""
    for word in words:
        text = text.replace(word, " ")
    text = _NOISE.sub(" ", text)
    return re.sub(r"\s+", " ", text).strip()


def chunk_rows(build: IndexBuild) -> list[dict]:
    """Every chunk of the build as a dict (id, URL, title, text, kind, headings, applies_to)."""
    rows = []
    for collection in build.collections.values():
        columns = collection.chunks.select("chunk_id", "doc_url", "title", "text", "kind", "heading_path").to_dict(as_series=False)
        for row, chunk_id in enumerate(columns["chunk_id"]):
            rows.append({"chunk_id": chunk_id, "doc_url": columns["doc_url"][row], "title": columns["title"][row] or "",
                         "text": columns["text"][row], "kind": columns["kind"][row],
                         "heading_path": list(columns["heading_path"][row] or ()), "applies_to": collection.applies_to[row]})
    return rows


@dataclass(frozen=True)
class Category:
    aspect: str  # "전공필수"
    unit: str  # "학점"
    topic: str  # the document family most of its documents belong to ("졸업요건")

    @property
    def name(self) -> str:
        return f"{self.topic} · {self.aspect}" if self.topic and self.topic != self.aspect else self.aspect


def _profile_limited(chunk: dict) -> bool:
    return chunk["kind"] != FAQ_KIND and any(v is not None for v in chunk["applies_to"].values())


def candidate_categories(facts_by_chunk: Mapping[str, list["Fact"]], chunks: Sequence[dict],
                         words: Sequence[str]) -> list[tuple[Category, int, int]]:
    """(category, distinct answers, documents) for every (aspect, unit) stated in at least two
    profile-limited documents: near-duplicates that answer differently for different students."""
    values: dict[tuple[str, str], set[str]] = defaultdict(set)
    documents: dict[tuple[str, str], set[str]] = defaultdict(set)
    families: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    for chunk in chunks:
        for fact in facts_by_chunk.get(chunk["chunk_id"], ()):
            key = (fact.aspect, fact.unit)
            values[key].add(fact.value)
            documents[key].add(chunk["doc_url"])
            families[key][chunk["doc_url"]] = category_of(chunk["title"], words)
    found = []
    for key, urls in documents.items():
        if len(urls) < 2:
            continue  # one document for everyone: nothing to tell apart
        counts = Counter(f for f in families[key].values() if len(f) >= 2)
        topic = min(counts, key=lambda f: (-counts[f], f)) if counts else ""
        if topic != key[0]:  # "교수진에서 교수진 기준은?" asks nothing
            found.append((Category(key[0], key[1], topic), len(values[key]), len(urls)))
    return found


# ----------------------------------------------------------------------------- facts and questions

def stated_facts(chunk: dict, tokenizer, words) -> list[tuple[Fact, Any]]:
    """(fact, the unit it is on) for every fact of the chunk, whoever its lines apply to. The
    aspect is a table row's label (not a numbered one: "1학년" indexes a course table), or in a
    sentence the noun phrase the quantity is of."""
    found = []
    for unit in split_units(chunk["text"], tokenizer.split_sentences):
        if unit.kind == "row":
            cells = row_cells(unit.text)
            for i, cell in enumerate(cells):
                match = _FACT.search(cell)
                if match and i > 0:
                    label = cells[0].split(":", 1)[-1]
                    aspect = "" if re.search(r"\d", label) else _clean_aspect(label, words)
                    if aspect:  # a label says what its row is of (Kiwi misreads some: 캡스톤, 이수)
                        found.append((Fact(aspect, match.group(1), match.group(2).replace(" ", ""), readable(unit.text)), unit))
                    break
        elif unit.kind in ("sentence", "item"):
            match = _FACT.search(unit.text)
            aspect = _aspect_before(unit.text[:match.start()], words, tokenizer) if match else ""
            if match and aspect:
                found.append((Fact(aspect, match.group(1), match.group(2).replace(" ", ""), unit.text.strip()), unit))
    squeezed = re.sub(r"\s", "", chunk["text"])
    return [(f, u) for f, u in found if f"{f.value}{f.unit}" in squeezed]


def _clean_aspect(text: str, words: Sequence[str]) -> str:
    """A short Korean noun phrase, or "" (codes, names in Latin letters and fragments are no aspect)."""
    text = re.sub(r"\([^)]*\)", " ", text.lstrip("#- "))
    aspect = _LEADING_PARTICLE.sub("", category_of(text, words))[:30].strip()
    if re.search(r"[A-Za-z]", aspect) or len(re.sub(r"[^가-힣]", "", aspect)) < 2:
        return ""
    return aspect


# words that qualify a quantity rather than say what it is of ("매 학기 5명", "이상 등록금 70%")
_QUALIFIERS = frozenset({"매", "직전", "이상", "이하", "미만", "초과", "최대", "최소", "총", "각", "약", "학기", "매년",
                         "매학기", "학기당", "연간", "기준", "내외", "이내", "평점", "당", "별도", "추가", "모두", "합계"})
_PARTICLE_END = re.compile(r"(?:은|는|이|가|을|를|의|로|으로|에서|에|과|와|도|만|까지)$")


@lru_cache(maxsize=8192)
def _is_noun(tokenizer, word: str) -> bool:
    """Whether a word is made of nouns only (Kiwi; "개설되며" is no aspect). Cached: a benchmark asks
    about the same few hundred words again and again."""
    return "".join(tokenizer.key_words([word])[0]) == word


def _aspect_before(text: str, words: Sequence[str], tokenizer) -> str:
    """What a quantity in a sentence is of: a "label:" before it, else the noun phrase that ends
    right before it or is the subject of its clause ("영어 졸업요건: TOEIC 650점" -> "영어 졸업요건";
    "복수전공자는 전공 36학점" -> "전공"; "전공필수는 총 8과목" -> "전공필수"; "매 학기 5명" -> "").
    Profile words are who asks, not what."""
    text = re.sub(r"\([^)]*\)", " ", text)
    clause = re.split(r"[,(·]", text)[-1]
    if ":" in clause:
        return _clean_aspect(clause.rsplit(":", 1)[0].split(":")[-1], words)
    for word in words:
        clause = clause.replace(word, " ")
    phrase: list[str] = []
    for word in reversed(clause.split()):
        base = _PARTICLE_END.sub("", word) if len(word) > 2 else word
        if not phrase and (re.search(r"\d", word) or base in _QUALIFIERS):
            continue  # "총", "매 학기", "1~2학년": between the noun phrase and the quantity
        if base != word and (phrase or not re.search(r"(?:은|는|이|가|도)$", word)):
            break  # a particle ends the noun phrase before this one; only a subject is what is counted
        if not (re.fullmatch(r"[가-힣]+", base) and _is_noun(tokenizer, base)) or base in _QUALIFIERS or len(phrase) == 2:
            break
        phrase.insert(0, base)
    return _clean_aspect(" ".join(phrase), words) if phrase else ""


def _particle(word: str, pair: str) -> str:
    """은/는, 이/가, 을/를 by the last syllable's final consonant (a digit or Latin: the second form)."""
    last = word[-1:] if word else ""
    has_final = "가" <= last <= "힣" and (ord(last) - 0xAC00) % 28 != 0
    first, second = pair.split("/")
    return first if has_final else second


FORMAL = ("{topic}에서 {aspect} 기준은 어떻게 됩니까?", "{aspect}{eun} 얼마로 정해져 있습니까?",
          "{topic} 관련하여 {aspect} 기준을 알려 주십시오.", "{aspect} 요건이 무엇인지 안내 부탁드립니다.")
FIRST_PERSON = ("제가 {topic} 때문에 그러는데 {aspect}{eun} 어떻게 되나요?", "저는 {aspect}{eul} 얼마나 채워야 하나요?",
                "제 경우에 {aspect} 기준이 궁금해요.", "{topic} 준비 중인데 저한테 {aspect}{eun} 몇이에요?")
VERIFY = ("{aspect}{eun} {value}{unit}{i} 맞나요?", "{topic}에서 {aspect} 기준이 {value}{unit} 아닌가요?",
          "제 {aspect}{eun} {value}{unit}인 걸로 아는데 맞죠?")


def questions(fact: Fact, topic: str, query_type: str, rng: random.Random) -> tuple[str, str, str]:
    """(query, reference answer, premise) for one query type; premise: "" | "true" | "false"."""
    if query_type != "verification":
        template = rng.choice(FORMAL if query_type == "formal" else FIRST_PERSON)
        return _fill(template, fact, topic, fact.value), fact.line, ""
    true_premise = rng.random() < 0.5
    value = fact.value if true_premise else _other_number(fact.value, rng)
    lead = "네" if true_premise else "아니요"
    return _fill(rng.choice(VERIFY), fact, topic, value), f"{lead}. {fact.line}", "true" if true_premise else "false"


def _fill(template: str, fact: Fact, topic: str, value: str) -> str:
    quantity = f"{value}{fact.unit}"
    return template.format(topic=topic, aspect=fact.aspect, value=value, unit=fact.unit,
                           eun=_particle(fact.aspect, "은/는"), eul=_particle(fact.aspect, "을/를"),
                           i=_particle(quantity, "이/가"))


def _other_number(value: str, rng: random.Random) -> str:
    number = float(value)
    delta = max(1, round(abs(number) * rng.choice((0.1, 0.2, 0.3))))
    other = number + delta if rng.random() < 0.5 or number - delta <= 0 else number - delta
    return str(int(other)) if "." not in value else f"{other:.1f}"


def names_profile(query: str, profile: Mapping[str, Any], schema: fields.Schema) -> bool:
    """Whether the question would give away the profile (a value's alias or label, the cohort)."""
    for name, value in profile.items():
        attribute = schema[name]
        if fields.is_categorical(attribute):
            if any(w and w in query for w in (value, attribute.label(value), *attribute.values.get(value, ()))
                   if len(w) >= 2):
                return True
        elif attribute.type == "year" and (str(value) in query or f"{value % 100}학번" in query):
            return True
    return False


# ----------------------------------------------------------------------------- the benchmark

def synthesize(build: IndexBuild, config: InstitutionConfig, tokenizer, *, seed: int = 0,
               n_categories: int = 10, combos: int = 15, grades: int = 4) -> tuple[list[dict], dict]:
    """(instances, report). Instances follow interfaces.md §3 (plus premise and gold_chunk_id)."""
    schema = build.schema
    words = profile_words(schema)
    chunks = chunk_rows(build)
    stated = {c["chunk_id"]: stated_facts(c, tokenizer, words) for c in chunks}
    limited = [c for c in chunks if _profile_limited(c)]
    facts = {c["chunk_id"]: [fact for fact, _ in stated[c["chunk_id"]]] for c in limited}
    found = candidate_categories(facts, limited, words)
    people = profiles(build, combos, grades, seed)
    # each profile's eligible chunks, most specific first, once (not again for every category)
    eligible = [sorted((c for c in limited if not conflicts(c["applies_to"], profile, schema)),
                       key=lambda c: (-sum(v is not None for v in c["applies_to"].values()), c["chunk_id"]))
                for profile in people]
    golds = {category: [_gold(chunks_for, stated, category, profile, config)
                        for chunks_for, profile in zip(eligible, people)]
             for category, _, _ in found}
    # categories whose answer depends on who asks (more than one answer) first; among them, those
    # most profiles can be asked about, then the most different answers; a profile with no answer
    # in one of them takes the next one
    ranked: list[Category] = []
    for category, answers, documents in sorted(
            found, key=lambda f: (f[1] < 2, -sum(g is not None for g in golds[f[0]]), -f[1], -f[2], f[0].name)):
        if all(category.name != other.name for other in ranked):  # two units of one aspect: the better one
            ranked.append(category)
    instances, missing = [], defaultdict(int)
    for p_index, profile in enumerate(people):
        taken = 0
        for category in ranked:
            if taken == n_categories:
                break
            gold = golds[category][p_index]
            if gold is None:
                missing[category.name] += 1
                continue
            chunk, fact = gold
            rng = random.Random(f"{seed}|{p_index}|{category.name}")
            alternates = _equivalent_sources(chunks, fact, profile, schema, config, tokenizer, exclude=chunk["doc_url"])
            made = []
            for query_type in QUERY_TYPES:
                query, reference, premise = questions(fact, category.topic or fact.aspect, query_type, rng)
                if names_profile(query, profile, schema):
                    break
                made.append(_instance(p_index, category.name, query_type, query, reference, premise, profile,
                                      chunk, fact, alternates))
            if len(made) == len(QUERY_TYPES):
                instances.extend(made)
                taken += 1
    names = [c.name for c in ranked]
    used = sorted({i["category"] for i in instances}, key=names.index)
    report = {"instances": len(instances), "profiles": len({i["id"].split("-")[0] for i in instances}),
              "categories": used, "no_gold": {k: v for k, v in missing.items() if k in used}, "seed": seed}
    return instances, report


def _gold(eligible: list[dict], stated: Mapping[str, list], category: Category, profile: Mapping[str, Any],
          config) -> tuple[dict, Fact] | None:
    """The first of the profile's eligible chunks (most specific first) with a fact of the category
    on a line that applies to the profile, and that fact (the first such line, in reading order)."""
    for chunk in eligible:
        for fact, unit in stated[chunk["chunk_id"]]:
            if (fact.aspect, fact.unit) == (category.aspect, category.unit) and unit_fits(unit, profile, config):
                return chunk, fact
    return None


def _equivalent_sources(chunks: Sequence[dict], fact: Fact, profile: Mapping[str, Any], schema, config,
                        tokenizer, exclude: str) -> list[str]:
    """Other sources that apply to the profile and state the same fact on a line that applies to
    it too: the aspect, then the quantity within a few characters ("전공기초 17학점"), not in a row
    for another cohort of a university-wide table."""
    pattern = re.compile(re.escape(fact.aspect) + r"[^\d\n]{0,12}?" + re.escape(fact.value) + r"\s*" + re.escape(fact.unit))
    urls = []
    for chunk in chunks:
        url = chunk["doc_url"]
        if url == exclude or url in urls or not pattern.search(chunk["text"]) \
                or conflicts(chunk["applies_to"], profile, schema):
            continue
        if any(pattern.search(unit.text) and unit_fits(unit, profile, config)
               for unit in split_units(chunk["text"], tokenizer.split_sentences)):
            urls.append(url)
    return sorted(urls)


def _instance(p_index, category, query_type, query, reference, premise, profile, chunk, fact, alternates) -> dict:
    digest = hashlib.sha256(f"{p_index}|{category}".encode()).hexdigest()[:6]
    return {
        "id": f"p{p_index:02d}-{digest}-{query_type}", "query": query, "query_type": query_type,
        "category": category, "profile": dict(profile), "gold_sources": [chunk["doc_url"], *alternates],
        "keywords": [f"{fact.value}{fact.unit}"], "reference_answer": reference, "intent": "retrieval",
        "premise": premise or None, "gold_chunk_id": chunk["chunk_id"], "written_by": "template",
    }


# ----------------------------------------------------------------------------- writing

BENCHMARK_DIR = "benchmarks"
BENCHMARK_FILE = "qa.jsonl"


def write_benchmark(warehouse, build: IndexBuild, config: InstitutionConfig, tokenizer, seed: int = 0,
                    code: str = "", rewrite=None, rewriter: str = "") -> dict:
    """`<warehouse>/benchmarks/qa.jsonl` for the build (written to a temp file, then renamed), unless
    the file already holds this build's benchmark from this code, seed and rewriter. Returns the
    report. `rewrite(instances) -> (instances, report)`: the LLM's questions and reference answers
    (eval/llm_benchmark.py); `rewriter` names it (model and prompt version) for the stamp."""
    import json
    import os
    from pathlib import Path

    path = Path(warehouse) / BENCHMARK_DIR / BENCHMARK_FILE
    meta_path = path.with_suffix(".meta.json")
    stamp = {"build_id": build.build_id, "code": code, "seed": seed, "rewriter": rewriter or "template"}
    if path.exists() and meta_path.exists():
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("stamp") == stamp:
            return {**meta["report"], "path": str(path), "written": False}
    instances, report = synthesize(build, config, tokenizer, seed=seed)
    if rewrite is not None and instances:
        instances, report["rewritten"] = rewrite(instances)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp-{os.getpid()}")
    tmp.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in instances), encoding="utf-8")
    os.replace(tmp, path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    report = {**report, "benchmark_hash": digest, "build_id": build.build_id}
    meta_path.write_text(json.dumps({"stamp": stamp, "report": report}, ensure_ascii=False), encoding="utf-8")
    return {**report, "path": str(path), "written": True}
