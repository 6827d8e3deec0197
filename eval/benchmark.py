"""Synthesize the QA benchmark from an index build's annotated chunks (method.md §A, evaluation
protocol; interfaces.md §3 format). Nothing here reads the demo college's ground truth: any
institution's build gives a benchmark the same way.

- Profiles: (first categorical attribute x cohort period) combinations x grades, the other
  attributes varied with a seeded RNG. Cohort periods are where the chunks' cohort ranges change
  (curriculum revisions), so the combinations meet different documents.
- Categories: documents that apply only to some students, grouped by their title with every
  profile mention taken out ("2021–2022학년도 입학생 컴퓨터학과 졸업요건" -> "졸업요건"); the most
  common groups, by number of documents, are the advising categories.
- Instances: per profile and category, the most specific chunk of that category that applies to
  the profile is the gold source; its answer is a fact with a number and a unit ("65학점") on a
  line that applies to the profile; the question asks for it in three ways (formal, first person,
  a yes/no check with a true or false premise) without ever naming the profile.
- Validation: the gold chunk is in the build and holds the keyword; a question that names a
  profile value is dropped.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from advisor.config import InstitutionConfig
from advisor.index import fields
from advisor.index.store import IndexBuild
from serving.answer.extractive import unit_fits
from serving.answer.units import readable, row_cells, split_units
from serving.retrieval.profile import conflicts

QUERY_TYPES = ("formal", "first_person", "verification")
FAQ_KIND = "faq"
# Quantities an advising answer turns on; years and dates are left out (they are what a cohort or a
# notice is, not what a student asks for), as are bare numbers.
_FACT = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d+)?)\s*(학점|과목|학기|개월|시간|%|점|명|만\s?원|회)")
_NOISE = re.compile(r"제\s*\d+\s*[조항장절]|\d{2,4}\s*[–~-]\s*\d{2,4}|\d+|학년도|입학생|입학자|학번|이후|이전|까지|부터|대상"
                    r"|[()\[\]{}<>:|·,./–~-]")
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


def _chunks(build: IndexBuild) -> list[dict]:
    rows = []
    for collection in build.collections.values():
        columns = collection.chunks.select("chunk_id", "doc_url", "title", "text", "kind", "heading_path").to_dict(as_series=False)
        for row, chunk_id in enumerate(columns["chunk_id"]):
            rows.append({"chunk_id": chunk_id, "doc_url": columns["doc_url"][row], "title": columns["title"][row] or "",
                         "text": columns["text"][row], "kind": columns["kind"][row],
                         "heading_path": list(columns["heading_path"][row] or ()), "applies_to": collection.applies_to[row]})
    return rows


def categories(chunks: Sequence[dict], words: Sequence[str], n: int) -> list[str]:
    """The n categories whose documents differ most by whom they apply to: the number of distinct
    applicability patterns first (a requirement published per department x cohort x major type is
    exactly where a profile-blind answer goes wrong), then the number of documents."""
    documents: dict[str, set[str]] = defaultdict(set)
    patterns: dict[str, set[str]] = defaultdict(set)
    for chunk in chunks:
        if chunk["kind"] != FAQ_KIND and any(v is not None for v in chunk["applies_to"].values()):
            name = category_of(chunk["title"], words)
            if len(name) >= 2:
                documents[name].add(chunk["doc_url"])
                patterns[name].add(repr(sorted(chunk["applies_to"].items())))
    ranked = sorted(documents, key=lambda c: (-len(patterns[c]), -len(documents[c]), c))
    return ranked[:n]


# ----------------------------------------------------------------------------- facts and questions

def facts_in(chunk: dict, profile: Mapping[str, Any], config: InstitutionConfig, split_sentences, words) -> list[Fact]:
    """Facts with a number and unit on the chunk's lines that apply to `profile`."""
    found = []
    for unit in split_units(chunk["text"], split_sentences):
        if unit.kind not in ("row", "sentence", "item") or not unit_fits(unit, profile, config):
            continue
        if unit.kind == "row":
            cells = row_cells(unit.text)
            for i, cell in enumerate(cells):
                match = _FACT.search(cell)
                if match and i > 0:
                    aspect = _clean_aspect(cells[0].split(":", 1)[-1], words)
                    if aspect:
                        found.append(Fact(aspect, match.group(1), match.group(2).replace(" ", ""), readable(unit.text)))
                    break
        elif unit.heading:  # a sentence is about its section
            match = _FACT.search(unit.text)
            aspect = _clean_aspect(unit.heading, words)
            if match and aspect:
                found.append(Fact(aspect, match.group(1), match.group(2).replace(" ", ""), unit.text.strip()))
    return found


def _clean_aspect(text: str, words: Sequence[str]) -> str:
    """A short Korean noun phrase, or "" (codes, names in Latin letters and fragments are no aspect)."""
    text = re.sub(r"\([^)]*\)", " ", text.lstrip("#- "))
    aspect = _LEADING_PARTICLE.sub("", category_of(text, words))[:30].strip()
    if re.search(r"[A-Za-z]", aspect) or len(re.sub(r"[^가-힣]", "", aspect)) < 2:
        return ""
    return aspect


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

def synthesize(build: IndexBuild, config: InstitutionConfig, split_sentences, *, seed: int = 0,
               n_categories: int = 10, combos: int = 15, grades: int = 4) -> tuple[list[dict], dict]:
    """(instances, report). Instances follow interfaces.md §3 (plus premise and gold_chunk_id)."""
    schema = build.schema
    words = profile_words(schema)
    chunks = _chunks(build)
    ranked = categories(chunks, words, n_categories * 3)  # spares: a profile may have no gold in one
    by_category: dict[str, list[dict]] = defaultdict(list)
    for chunk in chunks:
        if chunk["kind"] != FAQ_KIND and any(v is not None for v in chunk["applies_to"].values()):
            by_category[category_of(chunk["title"], words)].append(chunk)
    instances, missing = [], defaultdict(int)
    for p_index, profile in enumerate(profiles(build, combos, grades, seed)):
        taken = 0
        for category in ranked:
            if taken == n_categories:
                break
            rng = random.Random(f"{seed}|{p_index}|{category}")
            gold = _gold(by_category[category], profile, schema, config, split_sentences, words, rng)
            if gold is None:
                missing[category] += 1
                continue
            chunk, fact = gold
            made = []
            for query_type in QUERY_TYPES:
                query, reference, premise = questions(fact, category, query_type, rng)
                if names_profile(query, profile, schema):
                    break
                made.append(_instance(p_index, category, query_type, query, reference, premise, profile, chunk, fact))
            if len(made) == len(QUERY_TYPES):
                instances.extend(made)
                taken += 1
    used = sorted({i["category"] for i in instances}, key=lambda c: ranked.index(c))
    report = {"instances": len(instances), "profiles": len({i["id"].split("-")[0] for i in instances}),
              "categories": used, "no_gold": dict(missing), "seed": seed}
    return instances, report


def _gold(candidates: list[dict], profile: Mapping[str, Any], schema, config, split_sentences, words, rng):
    """The most specific chunk of the category applying to the profile, with a fact for it."""
    eligible = [c for c in candidates if not conflicts(c["applies_to"], profile, schema)]
    eligible.sort(key=lambda c: (-sum(v is not None for v in c["applies_to"].values()), c["chunk_id"]))
    for chunk in eligible:
        facts = [f for f in facts_in(chunk, profile, config, split_sentences, words)
                 if re.sub(r"\s", "", f"{f.value}{f.unit}") in re.sub(r"\s", "", chunk["text"])]
        if facts:
            return chunk, rng.choice(facts)
    return None


def _instance(p_index, category, query_type, query, reference, premise, profile, chunk, fact) -> dict:
    digest = hashlib.sha256(f"{p_index}|{category}".encode()).hexdigest()[:6]
    return {
        "id": f"p{p_index:02d}-{digest}-{query_type}", "query": query, "query_type": query_type,
        "category": category, "profile": dict(profile), "gold_sources": [chunk["doc_url"]],
        "keywords": [f"{fact.value}{fact.unit}"], "reference_answer": reference, "intent": "retrieval",
        "premise": premise or None, "gold_chunk_id": chunk["chunk_id"],
    }


# ----------------------------------------------------------------------------- writing

BENCHMARK_DIR = "benchmarks"
BENCHMARK_FILE = "qa.jsonl"


def write_benchmark(warehouse, build: IndexBuild, config: InstitutionConfig, split_sentences, seed: int = 0,
                    code: str = "") -> dict:
    """`<warehouse>/benchmarks/qa.jsonl` for the build (written to a temp file, then renamed), unless
    the file already holds this build's benchmark from this code and seed. Returns the report."""
    import json
    import os
    from pathlib import Path

    path = Path(warehouse) / BENCHMARK_DIR / BENCHMARK_FILE
    meta_path = path.with_suffix(".meta.json")
    stamp = {"build_id": build.build_id, "code": code, "seed": seed}
    if path.exists() and meta_path.exists():
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("stamp") == stamp:
            return {**meta["report"], "path": str(path), "written": False}
    instances, report = synthesize(build, config, split_sentences, seed=seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp-{os.getpid()}")
    tmp.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in instances), encoding="utf-8")
    os.replace(tmp, path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    report = {**report, "benchmark_hash": digest, "build_id": build.build_id}
    meta_path.write_text(json.dumps({"stamp": stamp, "report": report}, ensure_ascii=False), encoding="utf-8")
    return {**report, "path": str(path), "written": True}
