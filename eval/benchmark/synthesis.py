"""Synthesize the QA benchmark for any institution (docs/method.md §A, evaluation protocol; the
docs/contracts.md §3 format) from an index build's chunk texts and WHO EACH SOURCE APPLIES TO.

Who a source applies to comes from the institution's truth file when the config names one
(`gold_from: truth`, eval/benchmark/truth.py): then no annotation decides anything here, and an annotation
error shows up as a miss of the system that used it. Without a truth file it comes from the
build's own annotations (`gold_from: annotations`), and every report says so.

- Profiles: (first categorical attribute x cohort period) combinations x grades, the other
  attributes varied with a seeded RNG. Cohort periods are where the sources' cohort ranges change
  (curriculum revisions); only combinations that have sources of their own are used.
- Facts (eval/benchmark/facts.py): a quantity with a unit on a line of a source, named by its aspect; the
  line, read by the evaluation's own line reader (eval/benchmark/line_reader.py), is the reference answer.
  Whom a line is for is its source's (or section's) applicability, narrowed by what the line
  itself says ("2017~2018학번 | 136학점"; eval/benchmark/line_scope.py); a line that cannot be placed is
  never a gold.
- Slices:
  - profile_dependent (the paper's benchmark): categories are (aspect, unit) pairs stated in
    several sources for different students; per profile and category, the gold sources are EVERY
    source that applies to the profile and states the fact for it (no tie-break: all are correct),
    asked formally, in the first person and as a yes/no check with a true or false premise
    (`verification_true` when the premise holds), never naming the profile;
  - profile_independent: facts with one answer for everyone (every statement in a source for
    everyone), and FAQ questions whose entry applies to everyone, asked in the FAQ's own words
    (query type `faq_question`; the sites state few facts for everyone, and a slice of six
    questions is evidence of nothing), where asking the student anything is a cost;
  - stated_profile: first-person questions where the student says their department and cohort.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from advisor.index import fields
from advisor.index.layout import benchmark_path
from advisor.index.store import IndexBuild
from eval.benchmark.facts import Fact, facts_of, noun_check, without_words
from eval.benchmark.line_reader import lines_of
from eval.benchmark.line_scope import LineScopeReader, Scope
from eval.benchmark.questions import QUERY_TYPES, ask, names_profile, query_type_of, stating
from eval.benchmark.truth import Truth, applies, chunk_rows, limited

SLICES = ("profile_dependent", "profile_independent", "stated_profile")
FAQ_KIND = "faq"  # an FAQ entry repeats a requirement: a gold source, never what defines a category


# ----------------------------------------------------------------------------- sources

@dataclass(frozen=True)
class Statement:
    """A fact as one chunk states it, for the students its source applies to and its line names."""

    chunk: dict
    fact: Fact
    scope: Scope | None  # None: the line names someone it cannot place

    @property
    def url(self) -> str:
        return self.chunk["doc_url"]

    @property
    def key(self) -> tuple[str, str]:
        return self.fact.aspect, self.fact.unit


class Sources:
    """The build's chunks with their applicability (truth or annotations) and what they state."""

    def __init__(self, build: IndexBuild, tokenizer, truth: Truth | None) -> None:
        self.schema = build.schema
        self.words = profile_words(self.schema)
        chunks = chunk_rows(build)
        self.labels = truth.labels(chunks) if truth is not None else {c["chunk_id"]: c["applies_to"] for c in chunks}
        self.chunks = [c for c in chunks if c["chunk_id"] in self.labels]  # what the truth does not cover is unknown
        self.uncovered = len(chunks) - len(self.chunks)
        self._split = tokenizer.split_sentences
        reader, is_noun = LineScopeReader(self.schema), noun_check(tokenizer.key_words)
        self.statements = [Statement(c, fact, _scope(reader, fact.line, fact.scope_text))
                           for c in self.chunks for fact in facts_of(c["text"], self._split, is_noun, self.words)]
        self._reader = reader
        self._lines: dict[str, list] = {}

    def label(self, chunk: Mapping) -> dict:
        return self.labels[chunk["chunk_id"]]

    def applying_lines(self, chunk: Mapping, profile: Mapping[str, Any]) -> list[str]:
        """The lines of a chunk that apply to the profile (its source does and the line names no one else)."""
        if not applies(self.label(chunk), profile, self.schema):
            return []
        if chunk["chunk_id"] not in self._lines:
            self._lines[chunk["chunk_id"]] = [(line.text, _scope(self._reader, line, line.text))
                                              for line in lines_of(chunk["text"], self._split)]
        return [text for text, scope in self._lines[chunk["chunk_id"]] if scope is not None and scope.fits(profile, self.schema)]


def _scope(reader: LineScopeReader, line, whom: str) -> Scope | None:
    """Whom a statement is for by its own words (`whom`) and its line's caption and heading."""
    context, own = reader.read(line.context), reader.read(whom)
    return None if context is None or own is None else context.then(own)


def profile_words(schema: fields.Schema) -> list[str]:
    words = set()
    for attribute in schema.values():
        if fields.is_categorical(attribute):
            for canonical, aliases in attribute.values.items():
                words.update(w for w in (canonical, attribute.label(canonical), *aliases) if len(w) >= 2)
    return sorted(words, key=len, reverse=True)  # longest first: "컴퓨터학부" before "컴퓨터"


# ----------------------------------------------------------------------------- profiles

def profiles(schema: fields.Schema, labels: Iterable[Mapping], combos: int = 15, grades: int = 4,
             seed: int = 0) -> list[dict]:
    labels = list(labels)
    primary = next((n for n, a in schema.items() if fields.is_categorical(a)), None)
    cohort = next((n for n, a in schema.items() if not fields.is_categorical(a) and a.type == "year"), None)
    grade = next((n for n, a in schema.items() if not fields.is_categorical(a) and a.type == "integer"), None)
    values = list(schema[primary].values) if primary else [None]
    periods = cohort_periods(schema, labels, cohort) if cohort else [None]
    grid = [(v, p) for p in periods for v in values]
    published = _published_combinations(labels, periods, primary, cohort)
    grid = [combo for combo in grid if combo in published] or grid  # a department x cohort with its own sources
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


def _published_combinations(labels: Sequence[Mapping], periods: Sequence[int], primary: str | None,
                            cohort: str | None) -> set[tuple]:
    """(primary value, cohort period) pairs some source is limited to both of: a department did not
    exist before it was founded, and its students would have no sources of their own."""
    if primary is None or cohort is None:
        return set()
    found = set()
    for applies_to in labels:
        values, span = applies_to.get(primary), applies_to.get(cohort)
        if values and span:
            found.update((v, p) for v in values for p in periods if span[0] <= p <= span[1])
    return found


def cohort_periods(schema: fields.Schema, labels: Iterable[Mapping], cohort: str) -> list[int]:
    """One cohort per period: the year ranges of the sources cut the schema's span into periods
    (a curriculum revision starts one); each period is represented by its middle year."""
    attribute = schema[cohort]
    cuts = {attribute.min, attribute.max + 1}
    for applies_to in labels:
        span = applies_to.get(cohort)
        if span:
            cuts.update(c for c in (span[0], span[1] + 1) if attribute.min <= c <= attribute.max + 1)
    edges = sorted(cuts)
    return [(low + high - 1) // 2 for low, high in zip(edges, edges[1:])]


def _spread(low: int, high: int, n: int) -> list[int]:
    if high - low + 1 <= n:
        return list(range(low, high + 1))
    return [low + round(i * (high - low) / (n - 1)) for i in range(n)]


# ----------------------------------------------------------------------------- categories and golds

@dataclass(frozen=True)
class Category:
    aspect: str  # "전공필수"
    unit: str  # "학점"
    topic: str  # the document family most of its sources belong to ("졸업요건")

    @property
    def name(self) -> str:
        return f"{self.topic} · {self.aspect}"

    @property
    def key(self) -> tuple[str, str]:
        return self.aspect, self.unit


@dataclass(frozen=True)
class Gold:
    fact: Fact  # the fact as the first gold source states it (the question and reference answer)
    chunk_id: str  # the chunk that states it so
    urls: list[str]  # every source that applies to the profile and states the fact
    lines: list[dict]  # provenance: {url, line} of each statement


def dependent_categories(sources: Sources) -> list[tuple[Category, int, int]]:
    """(category, distinct answers, sources) for every (aspect, unit) stated in at least two
    profile-limited sources: near-duplicates that answer differently for different students."""
    values: dict[tuple[str, str], set[str]] = defaultdict(set)
    urls: dict[tuple[str, str], set[str]] = defaultdict(set)
    families: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    for st in sources.statements:
        if st.chunk["kind"] == FAQ_KIND or not limited(sources.label(st.chunk)):
            continue
        values[st.key].add(st.fact.value)
        urls[st.key].add(st.url)
        families[st.key][st.url] = family(st.chunk["title"], sources.words)
    found = []
    for key, where in urls.items():
        if len(where) < 2:
            continue  # one source for everyone: nothing to tell apart
        counts = Counter(f for f in families[key].values() if len(f) >= 2)
        topic = min(counts, key=lambda f: (-counts[f], f)) if counts else ""
        if topic and topic != key[0]:  # a question names what it is about; "교수진에서 교수진 기준은?" does not
            found.append((Category(key[0], key[1], topic), len(values[key]), len(where)))
    return found


def gold_for(sources: Sources, statements: Sequence[Statement], profile: Mapping[str, Any]) -> Gold | None:
    """The fact a profile's answer is, and every source that states it for the profile; None when
    the sources that apply disagree, or one of them states it on a line that cannot be placed."""
    applying, unclear = [], []
    for st in statements:
        if not applies(sources.label(st.chunk), profile, sources.schema):
            continue
        if st.scope is None:
            unclear.append(st)
        elif st.scope.fits(profile, sources.schema):
            applying.append(st)
    answers = {st.fact.value for st in applying}
    if len(answers) != 1 or any(st.fact.value not in answers for st in unclear):
        return None
    applying.sort(key=lambda st: (st.chunk["kind"] == FAQ_KIND, st.chunk["collection"] != "static", st.url,
                                  st.chunk["chunk_id"]))
    fact = applying[0].fact
    urls = list(dict.fromkeys(st.url for st in applying))
    urls += [u for u in _restating(sources, fact, profile) if u not in urls]
    lines = [{"url": st.url, "line": st.fact.line.readable} for st in applying]
    return Gold(fact, applying[0].chunk["chunk_id"], urls, lines)


def _restating(sources: Sources, fact: Fact, profile: Mapping[str, Any]) -> list[str]:
    """Sources that apply to the profile and state the same fact in other words on an applying line:
    the aspect, then the quantity within a few characters ("전공기초 17학점"); or an FAQ entry whose
    question names the aspect and whose answer states the quantity ("세종캠퍼스 기숙사비는 얼마인가요?
    … 학기당 112만원")."""
    quantity = re.escape(fact.value) + r"\s*" + re.escape(fact.unit)
    pattern = re.compile(re.escape(fact.aspect) + r"[^\d\n]{0,12}?" + quantity)
    aspect = re.sub(r"\s", "", fact.aspect)
    urls = []
    for chunk in sources.chunks:
        if chunk["doc_url"] in urls:
            continue
        asked = chunk["kind"] == FAQ_KIND and aspect in re.sub(r"\s", "", chunk["text"].split("\n\n", 1)[0])
        wanted = re.compile(quantity) if asked else pattern
        if wanted.search(chunk["text"]) and any(wanted.search(line) for line in sources.applying_lines(chunk, profile)):
            urls.append(chunk["doc_url"])
    return sorted(urls)


def independent_facts(sources: Sources, dependent: Iterable[Category], limit: int) -> list[list[Statement]]:
    """Facts with one answer for everyone: every statement of the (aspect, unit) gives the same
    quantity, at least one is in a source for everyone on a line that names no one, and none is on
    a line that cannot be placed. Each as its statements, the most widely stated first."""
    taken = {c.aspect for c in dependent}
    by_key: dict[tuple[str, str], list[Statement]] = defaultdict(list)
    for st in sources.statements:
        by_key[st.key].append(st)
    found = []
    for key, statements in by_key.items():
        if key[0] in taken or len({st.fact.value for st in statements}) != 1 or any(st.scope is None for st in statements):
            continue
        if any(not limited(sources.label(st.chunk)) and not st.scope.limits for st in statements):
            found.append(statements)
    found.sort(key=lambda sts: (-len({st.url for st in sts}), sts[0].fact.aspect, sts[0].fact.unit))
    return found[:limit]


def everyone_entries(sources: Sources, limit: int, seed: int) -> list[list[dict]]:
    """FAQ entries whose source applies to everyone (their label limits no attribute), as the
    groups of entries that share one question and answer (a site that prints an entry on two pages
    has two right sources), at most `limit`, in a seeded order. A question every student asks the
    same way, answered the same way for all: there asking anything is a cost."""
    by_text: dict[str, dict[str, dict]] = defaultdict(dict)
    for chunk in sources.chunks:
        if chunk["kind"] == FAQ_KIND and "#" in chunk["doc_url"] and chunk["title"].strip() \
                and not limited(sources.label(chunk)):
            by_text[chunk["text"].strip()].setdefault(chunk["doc_url"], chunk)
    groups = [list(entries.values()) for entries in by_text.values()]
    groups.sort(key=lambda g: hashlib.sha256(f"{seed}|{min(c['doc_url'] for c in g)}".encode()).hexdigest())
    return groups[:limit]


def _entry_instance(index: int, entries: Sequence[dict], profile: Mapping, common: Mapping) -> dict:
    """An FAQ question asked in the FAQ's own words (query type `faq_question`): the reference
    answer is the entry's answer, every entry with the same question and answer is gold."""
    first = min(entries, key=lambda c: c["doc_url"])
    answer = first["text"].strip().split("\n\n", 1)[-1].strip()
    return {
        "id": f"f{index:02d}-{_digest(first['doc_url'])}-faq", "query": first["title"].strip(),
        "query_type": "faq_question", "category": "faq", "slice": "profile_independent", "profile": dict(profile),
        "gold_sources": sorted(c["doc_url"] for c in entries), "keywords": [], "reference_answer": answer,
        "premise": None, "written_by": "faq", "gold_chunk_id": first["chunk_id"], "gold_lines": [], **common,
    }


# ----------------------------------------------------------------------------- the benchmark

def synthesize(build: IndexBuild, tokenizer, *, truth: Truth | None = None, seed: int = 0,  # noqa: C901 - one pass over the build's facts, a branch per question kind: split when a kind is added
               n_categories: int = 10, combos: int = 15, grades: int = 4, independent: int = 20,
               stated_categories: int = 3, everyone_faq: int = 60) -> tuple[list[dict], dict]:
    """(instances, report). Instances follow docs/contracts.md §3, plus slice, premise, gold_from,
    gold_chunk_id and gold_lines (provenance)."""
    sources = Sources(build, tokenizer, truth)
    schema = sources.schema
    gold_from = "truth" if truth is not None else "annotations"
    people = profiles(schema, sources.labels.values(), combos, grades, seed)
    found = dependent_categories(sources)
    by_key: dict[tuple[str, str], list[Statement]] = defaultdict(list)
    for st in sources.statements:
        by_key[st.key].append(st)
    golds = {category: [gold_for(sources, by_key[category.key], profile) for profile in people]
             for category, _, _ in found}
    # categories whose answer depends on who asks (more than one answer) first; among them, those
    # most profiles can be asked about, then the most different answers; a profile with no answer
    # in one of them takes the next one
    ranked: list[Category] = []
    for category, _answers, _count in sorted(
            found, key=lambda f: (f[1] < 2, -sum(g is not None for g in golds[f[0]]), -f[1], -f[2], f[0].name)):
        if all(category.name != other.name for other in ranked):  # two units of one aspect: the better one
            ranked.append(category)
    common = {"gold_from": gold_from, "intent": "retrieval"}
    instances, missing = [], Counter()
    for p_index, profile in enumerate(people):
        taken = 0
        for category in ranked:
            if taken == n_categories:
                break
            gold = golds[category][p_index]
            if gold is None:
                missing[category.name] += 1
                continue
            rng = random.Random(f"{seed}|{p_index}|{category.name}")
            stem = f"p{p_index:02d}-{_digest(category.name)}"
            made = [_instance(f"{stem}-{query_type}", "profile_dependent", category.name, query_type, gold, profile,
                              category.topic, rng, common)
                    for query_type in QUERY_TYPES]
            if any(names_profile(i["query"], profile, schema) for i in made):
                continue
            instances.extend(made)
            if taken < stated_categories:
                instances.append(_stated(f"{stem}-stated", category, gold, profile, schema, rng, common))
            taken += 1
    for g_index, statements in enumerate(independent_facts(sources, ranked, independent)):
        fact = statements[0].fact
        topic = family(statements[0].chunk["title"], sources.words)
        if len(topic) < 2 or topic == fact.aspect:
            continue  # a question must say what it is about: "기본 기준은?" is none
        name = f"{topic} · {fact.aspect}"
        rng = random.Random(f"{seed}|general|{name}")
        for t_index, query_type in enumerate(QUERY_TYPES):
            profile = people[(g_index * len(QUERY_TYPES) + t_index) % len(people)] if people else {}
            gold = gold_for(sources, statements, profile)
            if gold is None:
                continue
            instance = _instance(f"g{g_index:02d}-{_digest(name)}-{query_type}", "profile_independent", name,
                                 query_type, gold, profile, topic, rng, common)
            if not names_profile(instance["query"], profile, schema):
                instances.append(instance)
    for f_index, entries in enumerate(everyone_entries(sources, everyone_faq, seed)):
        profile = people[f_index % len(people)] if people else {}
        instance = _entry_instance(f_index, entries, profile, common)
        if not names_profile(instance["query"], profile, schema):
            instances.append(instance)
    names = [c.name for c in ranked]
    used = sorted({i["category"] for i in instances if i["slice"] == "profile_dependent"}, key=names.index)
    report = {"instances": len(instances), "slices": dict(Counter(i["slice"] for i in instances)),
              "profiles": len({i["id"].split("-")[0] for i in instances if i["slice"] == "profile_dependent"}),
              "categories": used, "no_gold": {k: v for k, v in missing.items() if k in used}, "seed": seed,
              "gold_from": gold_from, "truth": None if truth is None else {"path": str(truth.path), "sha256": truth.digest},
              "chunks_without_truth": sources.uncovered if truth is not None else None}
    return instances, report


def _instance(instance_id: str, slice_: str, category: str, query_type: str, gold: Gold, profile: Mapping,
              topic: str, rng: random.Random, common: Mapping) -> dict:
    query, reference, premise = ask(gold.fact, topic, query_type, rng)
    return {
        "id": instance_id, "query": query, "query_type": query_type_of(query_type, premise), "category": category,
        "slice": slice_, "profile": dict(profile), "gold_sources": list(gold.urls), "keywords": [gold.fact.quantity],
        "reference_answer": reference, "premise": premise or None, "written_by": "template",
        "gold_chunk_id": gold.chunk_id, "gold_lines": gold.lines, **common,
    }


def _stated(instance_id: str, category: Category, gold: Gold, profile: Mapping, schema: fields.Schema,
            rng: random.Random, common: Mapping) -> dict:
    """A first-person question in which the student says their department and cohort first."""
    instance = _instance(instance_id, "stated_profile", category.name, "first_person", gold, profile,
                         category.topic, rng, common)
    named = tuple(n for n, a in schema.items() if fields.is_categorical(a))[:1] + tuple(
        n for n, a in schema.items() if not fields.is_categorical(a) and a.type == "year")[:1]
    instance["query"] = stating(instance["query"], profile, tuple(n for n in named if n in profile), schema, rng)
    instance["stated"] = [n for n in named if n in profile]
    return instance


def family(title: str, words: Sequence[str]) -> str:
    """The document family a title names, without whom it is for ("2021학번 컴퓨터학과 졸업요건" ->
    "졸업요건"); "" for a title that is a question (an FAQ entry's): no family to name."""
    return "" if title.rstrip().endswith("?") else without_words(title, words)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:6]


# ----------------------------------------------------------------------------- writing

def write_benchmark(warehouse, build: IndexBuild, tokenizer, seed: int = 0,
                    code: str = "", rewrite=None, rewriter: str = "", truth: Truth | None = None,
                    open_tokenizer=None) -> dict:
    """`<warehouse>/benchmarks/qa.jsonl` for the build (written to a temp file, then renamed), unless
    the file already holds this build's benchmark from this code, truth, seed and rewriter. Returns
    the report. `rewrite(instances) -> (instances, report)`: the LLM's questions and reference
    answers (eval/benchmark/llm_questions.py); `rewriter` names it (model and prompt version) for the stamp.
    `tokenizer` None and `open_tokenizer()` given: the tokenizer is started only when the file
    must be written (Kiwi's seconds are not spent on a re-run that changes nothing)."""
    path = benchmark_path(warehouse)
    meta_path = path.with_suffix(".meta.json")
    stamp = {"build_id": build.build_id, "code": code, "seed": seed, "rewriter": rewriter or "template",
             "truth": None if truth is None else truth.digest}
    if path.exists() and meta_path.exists():
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("stamp") == stamp:
            return {**meta["report"], "path": str(path), "written": False}
    if tokenizer is None:
        tokenizer = open_tokenizer()
    instances, report = synthesize(build, tokenizer, truth=truth, seed=seed)
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
