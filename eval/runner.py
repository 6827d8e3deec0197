"""`advisor eval`'s engine: every requested system x setting over the benchmark instances, one
per-query row each (the lakehouse's eval_query_results) and one aggregate per system x setting
(docs/contracts.md §1 `--out` fields). The systems are objects of eval/systems/registry.py (names,
properties, `answers`), their code in eval/systems/offline.py (offline) and eval/systems/llm.py (HyDE,
rerankers, judges); `Run` is what they run against: the instances, the engines, the caches.

Speed: the offline systems x both settings x 1,800 instances run in minutes because the run
shares one EvalMemo (eval/systems/memo.py): its engines are composed from caching collaborators, so
tokenization, embedding, intent routing, stated values, FAQ searches, retrievals and extractive
answers are computed once per distinct input, and the profile-blind baselines are retrieved in
batches. `optimized=False` runs the plain per-query path instead;
both give the same rows (apart from the timings).

Settings: `deployment` (the system starts with no profile and asks; the simulated student answers
from the hidden profile), `deployment-dont-know` (the same student answering "don't know" to a
share of the questions: a real student often does not know their curriculum period by name) and
`oracle` (the whole profile given up front). A system is skipped, with the reason, where it cannot
run (the registry's properties decide): an LLM system offline, `hybrid+filter` without the
profile up front, `profill-true-labels` without a truth file, a system that asks nothing in
`deployment-dont-know` (its rows would be the deployment ones).
"""

from __future__ import annotations

import copy
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any, Callable, Collection, Mapping, Sequence

from advisor.retrieval import Retriever
from eval.metrics import registry as metric_registry
from eval.metrics import stats
from eval.metrics.aggregate import sliced_aggregate
from eval.metrics.metric import JUDGE, NEED_COLUMNS, TOKENS, Query
from eval.metrics.slices import reporting_slice, split_slices
from eval.metrics.sources import gold_ranks
from eval.systems import registry
from eval.systems.llm import (
    HYDE_VERSION,
    JUDGE_SUBSET,
    JUDGE_VERSIONS,
    RERANK_DEPTH,
    RERANK_VERSION,
    LLMTally,
    judge_many,
    judge_subset,
    tokens_of,
)
from eval.systems.memo import CachingTokenizer, EvalMemo, compose
from eval.systems.offline import (
    ANSWER_K,
    EVIDENCE_TOP,
    RANK_DEPTH,
    URAG_DOC_K,
    SystemAnswer,
    baseline_query,
    true_label_advisor,
)
from eval.systems.registry import (  # noqa: F401
    DONT_KNOW,
    SETTINGS,
    SKIPPED_ASKS_NOTHING,
    SKIPPED_NEEDS_PROFILE,
    SKIPPED_NO_LLM,  # (re-exported)
    SKIPPED_NO_TRUTH,
    SKIPPED_NO_URAG_INDEX,
)
from eval.systems.simulate import hidden_profile

__all__ = ["SETTINGS", "SKIPPED_NO_LLM", "SYSTEMS", "EvalOutcome", "Run", "run_evaluation"]

SYSTEMS = registry.NAMES
LLM_SYSTEMS = frozenset(s.name for s in registry.SYSTEMS if s.needs_llm)
ASKING_SYSTEMS = frozenset(s.name for s in registry.SYSTEMS if s.asks)
TIERS = registry.TIERS
PREFETCH_BLOCK = 512  # retrievals per batched prefetch

Progress = Callable[..., None]


@dataclass
class EvalOutcome:
    per_query: list[dict]  # one row per (system, setting, instance) that ran
    aggregates: list[dict]  # one row per (system, setting)
    params: dict  # what the run used
    timings: dict = field(default_factory=dict)  # "system/setting" -> wall seconds (benchmarking)
    intervals: list[dict] = field(default_factory=list)  # eval.metrics.stats: 95% intervals (eval_intervals rows)
    tests: list[dict] = field(default_factory=list)  # eval.metrics.stats: paired tests against baselines (eval_tests)


def run_evaluation(advisor, instances: list[dict], systems=SYSTEMS, settings=SETTINGS, *, llm_client=None,
                   tokenizer=None, progress: Progress | None = None, optimized: bool = True,
                   today: date | None = None, judge_limit: int = JUDGE_SUBSET,
                   true_labels: Mapping[str, Mapping] | None = None,
                   dont_know_share: float | None = None, statistics: bool = True) -> EvalOutcome:
    """`true_labels`: chunk id -> true applicability (eval/benchmark/truth.py), for `profill-true-labels`;
    `dont_know_share`: the DONT_KNOW student's share of "don't know" answers (default: the
    institution config's evaluation.dont_know_share); `statistics`: compute the intervals and
    tests (eval/metrics/stats.py; off for one shard of a sharded run, whose merge computes them)."""
    systems = list(registry.checked_names(systems, SYSTEMS, "system"))
    settings = list(registry.checked_names(settings, SETTINGS, "setting"))
    if dont_know_share is None:
        dont_know_share = advisor.config.evaluation.dont_know_share
    if not 0.0 <= dont_know_share <= 1.0:
        raise ValueError(f"dont_know_share must be in [0, 1], got {dont_know_share!r}")
    instances = _checked_instances(instances)
    hidden = {inst["id"]: hidden_profile(inst, advisor.schema) for inst in instances}
    today = today or advisor.as_of()  # the build's day: results do not drift with the calendar
    run = Run(advisor, instances, hidden, today, llm_client, optimized, tokenizer, progress, true_labels,
              dont_know_share)
    judged = judge_subset(instances, judge_limit) if llm_client is not None else set()

    per_query: list[dict] = []
    aggregates: list[dict] = []
    for system in systems:
        for setting in settings:
            skipped = registry.system(system).skip_reason(setting, run)
            if skipped:
                aggregates.append({"system": system, "setting": setting, "skipped": skipped})
                continue
            started = time.perf_counter()
            answers = run.answers(system, setting)
            rows = [_row(system, setting, inst, answer) for inst, answer in zip(instances, answers)]
            if system == registry.REFERENCE_SYSTEM and run.true_labels:
                run.blame_labels(rows)
            run.score(rows, instances, judged)
            run.timings[f"{system}/{setting}"] = time.perf_counter() - started
            per_query.extend(rows)
            aggregates.append(aggregate(system, setting, rows))
            run.report(f"{system} {setting}", f"{len(rows)} queries")
    intervals, tests = (stats.run_statistics(per_query, {inst["id"]: inst["query"] for inst in instances})
                        if statistics else ([], []))
    return EvalOutcome(per_query, aggregates, run.params(systems, settings, judged), dict(run.timings),
                       intervals, tests)


# ----------------------------------------------------------------------------- the run

class Run:
    """One evaluation run, as the systems see it: the instances and their hidden profiles, the
    day, the LLM, the engines (composed once per settings, from the memo's caching collaborators
    in an optimized run) and every system's answers once computed."""

    def __init__(self, advisor, instances, hidden, today, llm_client, optimized, tokenizer, progress,
                 true_labels=None, dont_know_share: float = 0.0):
        self.advisor, self.instances, self.hidden, self.today = advisor, instances, hidden, today
        self.llm_client, self.optimized, self.progress = llm_client, optimized, progress
        self.true_labels, self.dont_know_share = true_labels, dont_know_share
        self.memo = EvalMemo(advisor) if optimized else None
        self._true: tuple | None = None  # (advisor, memo) over the truth-relabelled build, made when first asked
        self._engines: dict = {}  # (settings, true labels) -> engine of the plain path
        self._augmented = None  # the retriever over the URAG-D index, made when first asked
        self._labels_by_url: dict | None = None  # URL -> (annotation, truth) of its chunks, for blame_labels
        self.tokenizer = tokenizer or advisor.tokenizer
        if optimized:
            self.tokenizer = self.memo.tokenizer if tokenizer is None else CachingTokenizer(tokenizer)
        self.tally = LLMTally()
        self.timings: dict[str, float] = {}
        self._answers: dict[tuple[str, str], list[SystemAnswer]] = {}
        self._by_texts: dict[tuple[str, str, str], float | None] = {}  # (metric, answer, reference) -> value

    def report(self, stage: str, message: str) -> None:
        if self.progress is not None:
            self.progress(stage, message)

    def only(self, instances) -> "Run":
        """This run over other instances (its engines and caches shared, no answers yet)."""
        sub = copy.copy(self)
        sub.instances, sub._answers = list(instances), {}
        sub.hidden = {**self.hidden, **{i["id"]: hidden_profile(i, self.advisor.schema) for i in sub.instances}}
        return sub

    def engine(self, settings=None, true_labels: bool = False):
        """The dialogue engine with `settings` (default: the advisor's), over the truth-relabelled
        build when `true_labels`."""
        settings = settings or self.advisor.settings
        advisor, memo = self._true_labelled() if true_labels else (self.advisor, self.memo)
        if memo is not None:
            return memo.engine(settings)
        if settings == advisor.settings:
            return advisor
        key = (settings, true_labels)
        if key not in self._engines:
            self._engines[key] = compose(advisor, settings)
        return self._engines[key]

    def _true_labelled(self) -> tuple:
        if self._true is None:
            advisor = true_label_advisor(self.advisor, self.true_labels)
            self._true = (advisor, EvalMemo(advisor, self.memo) if self.memo is not None else None)
        return self._true

    def augmented(self):
        """The retriever over the build's URAG-D collections (cached like the others in a memo run)."""
        if self._augmented is None:
            build = self.advisor.build
            if self.memo is not None:
                self._augmented = self.memo.retriever_over(build.augmented)
            else:
                self._augmented = Retriever(build.over(build.augmented), self.advisor.tokenizer.query_morphemes,
                                            self.advisor.params)
        return self._augmented

    # ------------------------------------------------------------------ systems
    def answers(self, system: str, setting: str) -> list[SystemAnswer]:
        """`system`'s answers in `setting`, one per instance (computed once per run)."""
        key = (system, setting)
        if key not in self._answers:
            self._answers[key] = registry.system(system).answers(self, setting)
        return self._answers[key]

    def progressing(self, system: str, setting: str):
        total = len(self.instances)
        for i, inst in enumerate(self.instances, 1):
            if i % 100 == 0 or i == total:
                self.report(f"{system} {setting}", f"{i}/{total}")
            yield inst

    def prefetch(self, engine, retriever, mode: str, oracle: bool) -> float:
        """Batch the profile-blind retrievals (one tokenizer and embedder call per block); returns
        the seconds per query it took, charged to each query's time."""
        if self.memo is None:
            return 0.0
        started = time.perf_counter()
        texts = list(dict.fromkeys(baseline_query(i["query"], self.hidden[i["id"]], oracle, engine)
                                   for i in self.instances))
        for start in range(0, len(texts), PREFETCH_BLOCK):
            block = texts[start:start + PREFETCH_BLOCK]
            for k in (ANSWER_K, RANK_DEPTH):
                retriever.search_batch(block, None, mode=mode, k=k, soft=False, hard=False, today=self.today)
        return (time.perf_counter() - started) / max(len(self.instances), 1)

    # ------------------------------------------------------------------ metrics
    def blame_labels(self, rows: list[dict]) -> None:
        """Each row's `label_errors`: the attributes whose annotation, against the truth, hid a
        gold source or admitted a source ranked above the first gold hit (eval/metrics/label_errors.py)."""
        from eval.benchmark.truth import chunk_rows
        from eval.metrics.label_errors import label_errors, labels_by_url

        if self._labels_by_url is None:
            self._labels_by_url = labels_by_url(chunk_rows(self.advisor.build), self.true_labels)
        for row in rows:
            row["label_errors"] = label_errors(self.hidden[row["instance_id"]], row["gold_sources"],
                                               row["retrieved_urls"], self._labels_by_url, self.advisor.schema)

    def score(self, rows: list[dict], instances: Sequence[Mapping], judged: Collection[str] = frozenset()) -> None:
        """Every scored metric's value on each row (eval/metrics/registry.py, in its order), from
        what the metrics need: the answers' and references' content morphemes (one tokenizer call
        for all rows) and, for the `judged` instances, the LLM judge's answer correctness."""
        scored = metric_registry.scored()
        needs = metric_registry.needs()
        tokens = self._tokens(rows, instances) if TOKENS in needs else {}
        correctness = self.judge(rows, instances, judged) if JUDGE in needs and judged else {}
        for i, (row, inst) in enumerate(zip(rows, instances)):
            if JUDGE in needs:
                row[NEED_COLUMNS[JUDGE]] = correctness.get(i)
            query = Query(inst, row, *tokens.get(i, (None, None)), correctness=correctness.get(i))
            for metric in scored:
                row[metric.name] = self._value(metric, query)

    def _value(self, metric, query: Query) -> float | None:
        # A metric that reads only the two token lists is a function of the answer and reference
        # texts, and systems often give the same answer: computed once per pair.
        if metric.needs != {TOKENS} or query.answer_tokens is None:
            return metric.score(query)
        key = (metric.name, query.row["answer"], query.instance["reference_answer"])
        if key not in self._by_texts:
            self._by_texts[key] = metric.score(query)
        return self._by_texts[key]

    def _tokens(self, rows: list[dict], instances: Sequence[Mapping]) -> dict[int, tuple[list, list]]:
        """Row index -> (answer tokens, reference tokens), for the rows whose instance has a
        reference answer: content morphemes, in one tokenizer call."""
        with_reference = [(i, row, inst) for i, (row, inst) in enumerate(zip(rows, instances))
                          if inst.get("reference_answer")]
        texts = [t for _, row, inst in with_reference for t in (row["answer"], inst["reference_answer"])]
        tokens = self.tokenizer.content_morphemes(texts) if texts else []
        return {i: (tokens[2 * j], tokens[2 * j + 1]) for j, (i, _, _) in enumerate(with_reference)}

    def judge(self, rows: list[dict], instances: Sequence[Mapping], judged: set[str]) -> dict[int, float | None]:
        """Row index -> the LLM judge's answer correctness, for the rows of `judged` instances
        (None where judging failed); each row's LLM calls and tokens include the judge's."""
        picked = [(i, row, inst) for i, (row, inst) in enumerate(zip(rows, instances)) if inst["id"] in judged]
        results = judge_many(self.llm_client, [(inst, row["answer"]) for _, row, inst in picked], self.tally)
        found = {}
        for (i, row, _), (correctness, usage) in zip(picked, results):
            found[i] = correctness
            row["llm_calls"] += usage.calls
            row["llm_tokens"] += tokens_of(usage)
        return found

    # ------------------------------------------------------------------ record
    def params(self, systems, settings, judged) -> dict:
        advisor = self.advisor
        return {
            "k": ANSWER_K, "rank_depth": RANK_DEPTH, "baseline_evidence": EVIDENCE_TOP, "urag_doc_k": URAG_DOC_K,
            "dont_know_share": self.dont_know_share, "true_labels": len(self.true_labels or {}),
            "urag_index": (self.advisor.build.manifest.get("files", {}).get("augmented") or {}).get("method"),
            "rerank_depth": RERANK_DEPTH, "today": self.today.isoformat(), "optimized": self.optimized,
            "systems": list(systems), "settings": list(settings),
            "retrieval": _jsonable(asdict(advisor.params)), "dialogue": asdict(advisor.settings),
            "faq_threshold": advisor.thresholds.get("faq_threshold"),
            "answerer": "llm" if advisor.llm.answerer is not None else "extractive",
            "llm_model": getattr(self.llm_client, "model", None) if self.llm_client is not None else None,
            "judge_model": getattr(self.llm_client, "model", None) if judged else None,
            "judge_subset": len(judged), "prompt_versions": {"hyde": HYDE_VERSION, "rerank": RERANK_VERSION,
                                                             "judges": list(JUDGE_VERSIONS)},
            "llm": self.tally.as_dict() if self.llm_client is not None else None,
            "missing": {m.name: m.missing for m in metric_registry.METRICS  # not computed, and why
                        if JUDGE in m.needs and self.llm_client is None} or None,
            "seconds_note": "evaluation cost per query; with optimized=True, caches are shared across systems",
        }


def _row(system: str, setting: str, inst: Mapping, a: SystemAnswer) -> dict:
    """One query's row: the answer, its sources and the gold's ranks among them (what the retrieval
    metrics read); `Run.score` adds the scored metrics' values."""
    golds = list(inst["gold_sources"])
    retrieved = list(dict.fromkeys(a.ranked_urls))[:RANK_DEPTH]
    ranks = gold_ranks(retrieved, golds)
    return {
        "system": system, "setting": setting, "instance_id": inst["id"], "category": inst.get("category"),
        "query_type": inst.get("query_type"), "slice": reporting_slice(inst), "gold_sources": golds,
        "rank": ranks[0] if ranks else None, "gold_ranks": ranks, "retrieved_urls": retrieved,
        "retrieved_chunk_ids": list(a.top_chunk_ids[:ANSWER_K]), "questions_asked": a.questions_asked,
        "questions": list(a.questions), "answer": a.answer, "citations": list(dict.fromkeys(a.citations)),
        "tier": a.tier, "answer_method": a.answer_method, "seconds": a.seconds, "llm_calls": a.llm_calls,
        "llm_tokens": a.llm_tokens,
    }


def aggregate(system: str, setting: str, rows: list[dict]) -> dict:
    """The system x setting's aggregate over the main slice (profile_dependent when the benchmark
    has it, else every instance; eval.metrics.aggregate.sliced_aggregate), with every slice's aggregate in
    "slices"; a tiered system (urag) also gets its tier shares and accuracy, over the same rows as
    each aggregate."""
    result = {"system": system, "setting": setting, **sliced_aggregate(rows), "skipped": None}
    if registry.system(system).tiered:
        _, main_rows, by_slice = split_slices(rows)
        result["tiers"] = _tiers(main_rows)
        for name, slice_rows in by_slice.items():
            result["slices"][name]["tiers"] = _tiers(slice_rows)
    return result


def _tiers(rows: list[dict]) -> dict:
    """Share of answers per tier, and accuracy per tier (mean source match of its answers; None
    for a tier no answer used)."""
    by_tier: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        by_tier[row["tier"]].append(row["source_match"])
    n = len(rows) or 1
    tiers: dict[str, Any] = {tier: len(by_tier.get(tier, [])) / n for tier in TIERS}
    tiers["accuracy"] = {tier: (sum(v) / len(v) if (v := by_tier.get(tier)) else None) for tier in TIERS}
    return tiers


def _checked_instances(instances) -> list[dict]:
    checked, seen = [], set()
    for i, inst in enumerate(instances):
        if not isinstance(inst, Mapping):
            raise ValueError(f"instance {i}: expected an object, got {type(inst).__name__}")
        for key in ("id", "query", "gold_sources"):
            if not inst.get(key):
                raise ValueError(f"instance {i} ({inst.get('id')!r}): {key!r} is required")
        if not isinstance(inst["query"], str) or not inst["query"].strip():
            raise ValueError(f"instance {inst['id']!r}: query must be a non-empty string")
        if isinstance(inst["gold_sources"], str):
            raise ValueError(f"instance {inst['id']!r}: gold_sources must be a list of URLs")
        if inst["id"] in seen:
            raise ValueError(f"instance id {inst['id']!r} appears twice")
        seen.add(inst["id"])
        checked.append(dict(inst))
    if not checked:
        raise ValueError("the benchmark has no instances")
    return checked


def _jsonable(value):
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value
