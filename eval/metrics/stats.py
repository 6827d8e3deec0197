"""How sure a figure is: 95% confidence intervals and paired significance tests over an evaluation
run's per-query rows (docs/method.md §A "Statistics"; the lakehouse's eval_intervals and eval_tests).

The unit of analysis is the distinct question text, not the benchmark instance. The benchmark asks
the same text under many hidden profiles (the demo: 1,800 main-slice instances, about 400 texts),
and those instances are not independent draws: treating them as such would make every interval
too narrow and every difference look real. So:

- an interval is a cluster bootstrap: resample the distinct question texts with replacement, take
  the mean over every instance of the texts drawn (a ratio estimator: a text asked under 15
  profiles weighs 15 times a text asked once, as in the point estimate), percentile interval;
- a paired test compares two systems on the same instances, grouped per text: a sign-flip
  randomization test that flips each text's summed difference as one (so its statistic is the
  instance-weighted mean difference the tables report; two-sided, exact when the texts are few
  enough to enumerate), Holm-corrected over the family of comparisons of one setting and metric;
- win / tie / loss count the texts where the system's per-text mean is above, equal to or below the
  baseline's.

Judged@k reads the benchmark's own judgements: a source is judged for an instance when some
instance of the same question text names it as gold (for this profile it is relevant, for the
others it is the near-duplicate that applies to someone else); every other source is unjudged.
A low Judged@k says the gold is too incomplete to call a system's other picks wrong.

Pure numpy; seeded, so the same rows give the same intervals and p-values in every run.
tests/test_stats.py cross-checks the test against scipy.stats.permutation_test and the interval
against scipy.stats.bootstrap.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from eval.metrics import registry
from eval.metrics.slices import main_slice, slice_of
from eval.systems.registry import DEPLOYMENT

__all__ = [
    "BASELINES",
    "MIN_TEXTS",
    "TEST_METRICS",
    "JUDGED",
    "cluster_bootstrap",
    "holm",
    "instance_scores",
    "interval_metrics",
    "paired_randomization",
    "run_statistics",
    "win_tie_loss",
]

LEVEL = 0.95
RESAMPLES = 2000  # bootstrap draws per interval
PERMUTATIONS = 10000  # sign flips per test (p resolution 1e-4)
ALPHA = 0.05  # after Holm's correction
SEED = 26  # fixed: the same rows give the same figures
MIN_TEXTS = 30  # a slice with fewer distinct question texts is marked too small to mean anything
JUDGED_K = 10
JUDGED = f"judged@{JUDGED_K}"
TEST_METRICS = ("mrr", "success@10")
BASELINES = ("bm25", "hybrid")  # every other system of a setting is compared with each
BOOTSTRAP_METHOD = "cluster bootstrap over distinct question texts, percentile"
TEST_METHOD = ("paired sign-flip randomization over per-text summed differences (instance-weighted mean), "
               "two-sided; Holm per setting x metric")


# --- per instance ------------------------------------------------------------------------------


def interval_metrics() -> tuple[str, ...]:
    """The metrics an interval is computed for: those the metric registry marks `interval`, and
    judged@k."""
    return (*(m.name for m in registry.METRICS if m.interval), JUDGED)


def instance_scores(row: Mapping, judged: "JudgedPool | None" = None) -> dict[str, float | None]:
    """The interval metrics of one per-query row (None: not measured for this row): each metric's
    own per-query value (eval/metrics/registry.py), and judged@k. `judged`: the sources the
    benchmark judges for the row's question text (module docstring)."""
    scores: dict[str, float | None] = {m.name: m.value(row) for m in registry.METRICS if m.interval}
    scores[JUDGED] = None
    if "rank" in row and judged is not None:
        top = list(dict.fromkeys(row.get("retrieved_urls") or []))[:JUDGED_K]
        scores[JUDGED] = sum(map(judged.judges, top)) / len(top) if top else None
    return scores


@dataclass
class JudgedPool:
    """The gold sources of every instance of one question text, split as eval.metrics.sources.source_matches
    reads them: an FAQ-entry gold (page#id) judges that URL only, a page gold every chunk of it."""

    entries: set[str]
    pages: set[str]

    @classmethod
    def of(cls, golds) -> "JudgedPool":
        golds = set(golds)
        return cls({g for g in golds if "#" in g}, {g for g in golds if "#" not in g})

    def judges(self, url: str) -> bool:
        return url in self.entries or url.split("#", 1)[0] in self.pages


# --- the three procedures ----------------------------------------------------------------------


def cluster_bootstrap(values: Sequence[float], clusters: Sequence[object], *, resamples: int = RESAMPLES,
                      level: float = LEVEL, seed: int = SEED) -> tuple[float, float]:
    """Percentile interval of the mean of `values` when whole clusters (question texts) are
    resampled with replacement. With one value per cluster it is the ordinary bootstrap."""
    if len(values) != len(clusters) or not len(values):
        raise ValueError(f"need as many cluster labels as values, and at least one: {len(values)} / {len(clusters)}")
    _, ids = np.unique(np.asarray([str(c) for c in clusters]), return_inverse=True)
    sums = np.bincount(ids, weights=np.asarray(values, dtype=float))
    counts = np.bincount(ids).astype(float)
    drawn = _cluster_draws(len(sums), resamples, seed)
    means = (drawn @ sums) / (drawn @ counts)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return float(low), float(high)


def paired_randomization(differences: Sequence[float], *, permutations: int = PERMUTATIONS,
                         seed: int = SEED) -> float:
    """Two-sided p-value of "the mean difference is 0" by flipping the sign of each paired
    difference: exact (every sign pattern) when 2^n <= permutations, else `permutations` random
    patterns with the observed one counted ((hits + 1) / (permutations + 1))."""
    d = np.asarray(differences, dtype=float)
    if not d.size:
        raise ValueError("no paired differences")
    observed = abs(d.mean())
    if not observed:
        return 1.0
    tolerance = 1e-12 * max(1.0, observed)
    if 2 ** d.size <= permutations:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=d.size)))
        return float(np.mean(np.abs(signs @ d) / d.size >= observed - tolerance))
    hits = int(np.sum(np.abs(_sign_flips(d.size, permutations, seed) @ d) / d.size >= observed - tolerance))
    return (hits + 1) / (permutations + 1)


# One draw per size, shared by every interval or test of that size in a run: drawing is most of the
# cost, and sharing changes no single interval's or test's distribution (the same seed would draw
# the same matrix anyway).
@lru_cache(maxsize=8)
def _cluster_draws(clusters: int, resamples: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).multinomial(clusters, np.full(clusters, 1.0 / clusters), size=resamples)


@lru_cache(maxsize=8)
def _sign_flips(size: int, permutations: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).choice((-1.0, 1.0), size=(permutations, size))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error), in the order given."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted, running = [0.0] * len(p_values), 0.0
    for position, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - position) * p_values[i]))
        adjusted[i] = running
    return adjusted


def win_tie_loss(system: Sequence[float], baseline: Sequence[float], tie: float = 1e-9) -> tuple[int, int, int]:
    differences = np.asarray(system, dtype=float) - np.asarray(baseline, dtype=float)
    return int(np.sum(differences > tie)), int(np.sum(np.abs(differences) <= tie)), int(np.sum(differences < -tie))


# --- one run -----------------------------------------------------------------------------------


def _per_text_sums(scores: Mapping[str, float], texts: Mapping[str, str]) -> dict[str, tuple[float, int]]:
    """question text -> (sum of its instances' scores, how many)."""
    sums: dict[str, tuple[float, int]] = {}
    for instance_id, value in scores.items():
        total, count = sums.get(texts[instance_id], (0.0, 0))
        sums[texts[instance_id]] = (total + value, count + 1)
    return sums


def _judged_pools(rows: Sequence[Mapping], texts: Mapping[str, str]) -> dict[str, JudgedPool]:
    golds: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        golds[texts[row["instance_id"]]].update(row.get("gold_sources") or [])
    return {text: JudgedPool.of(sources) for text, sources in golds.items()}


def _intervals(scored: Sequence[tuple[Mapping, str, dict]]) -> list[dict]:
    by_group: dict[tuple[str, str, str], list[tuple[str, dict]]] = defaultdict(list)
    for row, text, scores in scored:
        by_group[(row["system"], row["setting"], slice_of(row))].append((text, scores))
    out = []
    for (system, setting, slice_name), group in by_group.items():
        distinct = len({text for text, _ in group})
        for metric in interval_metrics():
            present = [(text, s[metric]) for text, s in group if s[metric] is not None]
            if not present:
                continue
            values = [v for _, v in present]
            low, high = cluster_bootstrap(values, [t for t, _ in present])
            out.append({"system": system, "setting": setting, "slice": slice_name, "metric": metric,
                        "value": sum(values) / len(values), "lower": low, "upper": high, "level": LEVEL,
                        "instances": len(present), "texts": len({t for t, _ in present}),
                        "too_small": distinct < MIN_TEXTS, "resamples": RESAMPLES, "method": BOOTSTRAP_METHOD})
    return out


def _paired(system: Mapping[str, float], baseline: Mapping[str, float], texts: Mapping[str, str]) -> dict:
    """One system against one baseline on the instances both answered. The test flips the sign of
    each text's summed difference, so its statistic is the instance-weighted mean difference the
    table reports (a text asked under 15 profiles weighs 15); wins / ties / losses are per text."""
    paired = [i for i in system if i in baseline]
    by_text = _per_text_sums({i: system[i] - baseline[i] for i in paired}, texts)
    order = sorted(by_text)  # a fixed order: the seeded sign flips pair with the same texts in every run
    sums = np.array([by_text[t][0] for t in order])
    counts = np.array([by_text[t][1] for t in order], dtype=float)
    wins, ties, losses = win_tie_loss(sums / counts, np.zeros(len(by_text)))
    system_value = sum(system[i] for i in paired) / len(paired)
    baseline_value = sum(baseline[i] for i in paired) / len(paired)
    return {"system_value": system_value, "baseline_value": baseline_value,
            "difference": system_value - baseline_value,
            "p_value": paired_randomization(sums * len(by_text) / len(paired)),  # mean = sum of sums / instances
            "wins": wins, "ties": ties, "losses": losses, "instances": len(paired), "texts": len(by_text),
            "permutations": PERMUTATIONS, "method": TEST_METHOD}


def _tests(scored: Sequence[tuple[Mapping, str, dict]], texts: Mapping[str, str], main: str) -> list[dict]:
    """Every system against every baseline, per setting and metric, over the main slice, Holm over
    each setting x metric. A baseline that did not run in a setting because it asks nothing
    (deployment-dont-know) is read from deployment, where its rows are the same."""
    scores: dict[tuple[str, str, str], dict[str, float]] = defaultdict(dict)  # (system, setting, metric) -> rows
    for row, _, per_metric in scored:
        if slice_of(row) == main:
            for metric in TEST_METRICS:
                scores[(row["system"], row["setting"], metric)][row["instance_id"]] = per_metric[metric]
    out = []
    for setting in dict.fromkeys(setting for _, setting, _ in scores):
        for metric in TEST_METRICS:
            family = []
            for baseline in BASELINES:
                baseline_setting = setting if (baseline, setting, metric) in scores else DEPLOYMENT
                reference = scores.get((baseline, baseline_setting, metric))
                for (system, system_setting, system_metric), values in scores.items():
                    if (reference and (system_setting, system_metric) == (setting, metric)
                            and not _mirrored(system, baseline) and any(i in reference for i in values)):
                        family.append({"setting": setting, "slice": main, "metric": metric, "system": system,
                                       "baseline": baseline, "baseline_setting": baseline_setting,
                                       **_paired(values, reference, texts)})
            for row, adjusted in zip(family, holm([r["p_value"] for r in family])):
                row["p_holm"], row["significant"], row["family_size"] = adjusted, adjusted < ALPHA, len(family)
            out.extend(family)
    return out


def _mirrored(system: str, baseline: str) -> bool:
    """A baseline against itself, or against a baseline listed after it (hybrid vs bm25 is kept,
    bm25 vs hybrid would be the same test again)."""
    return system in BASELINES and BASELINES.index(system) <= BASELINES.index(baseline)


def run_statistics(rows: Sequence[Mapping], texts: Mapping[str, str]) -> tuple[list[dict], list[dict]]:
    """(eval_intervals rows, eval_tests rows) of one run's per-query rows; `texts`: instance id ->
    question text (the resampling unit). Intervals for every system x setting x slice x metric,
    tests over the main slice (eval.metrics.slices.main_slice)."""
    if not rows:
        return [], []
    missing = {row["instance_id"] for row in rows} - set(texts)
    if missing:
        raise ValueError(f"no question text for instances {sorted(missing)[:5]}")
    main = main_slice({slice_of(row) for row in rows})
    pools = _judged_pools(rows, texts)
    scored = [(row, texts[row["instance_id"]], instance_scores(row, pools[texts[row["instance_id"]]]))
              for row in rows]
    return _intervals(scored), _tests(scored, texts, main)
