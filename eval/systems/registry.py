"""The evaluation's systems and settings, in one registry (docs/contracts.md §1 names). Every list of
names is read from here: the runner's, the reports' order (`SYSTEMS` is in that order), the
`--out` file's tiered rows, the pipeline's offline default, the fleet's headline (the reference
system's deployment MRR), bench/retrieval.py's systems and the command line's check; a name written
out anywhere else is found by tests/test_eval_runner.py.

Each system is an object with a name, properties, and one interface (as BEIR's and pyserini's
retrievers share one):

- `answers(run, setting)`: one SystemAnswer (eval/systems/offline.py) per benchmark instance of the run,
  in order: the ranked sources (to the top 50), the answer with its citations, the dialogue's
  burden. The runner calls this (a system batches what it can);
- `answer(run, instance, setting)`: one question's SystemAnswer;
- `search(run, instance, setting)`: one question's ranked chunks, best first.

The properties decide where a system runs (`skip_reason`): `needs_llm`; `asks` (asks the student,
so a student who does not know changes its results); `oracle_only` (needs the profile up front);
`needs_truth` (runs over the truth-relabelled build); `needs_urag_index`. And how it is reported:
`tiered` (its aggregate has answer-tier shares), `ablation_of` (the system it ablates).

This module stays light (no serving stack): the reports and the command line read names and
properties; a system's code is imported when it runs. `run` is eval.runner.Run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

# the answer tiers a `tiered` system's aggregate shares out, the dialogue's (a stdlib-only module)
from advisor.tiers import TIERS as TIERS

DEPLOYMENT, DONT_KNOW, ORACLE = "deployment", "deployment-dont-know", "oracle"
SETTINGS = (DEPLOYMENT, DONT_KNOW, ORACLE)

SKIPPED_NO_LLM = "needs an LLM; none configured"
SKIPPED_NEEDS_PROFILE = "needs the profile up front: oracle setting only"
SKIPPED_ASKS_NOTHING = "asks the student nothing: its results are the deployment ones"
SKIPPED_NO_TRUTH = "needs a truth file (the config's pipeline.annotation_truth)"
SKIPPED_NO_URAG_INDEX = "the index build has no URAG-D index: materialize index_build again"


@dataclass(frozen=True, kw_only=True)
class System:
    name: str
    needs_llm: bool = False
    asks: bool = False
    oracle_only: bool = False
    needs_truth: bool = False
    needs_urag_index: bool = False
    tiered: bool = False
    ablation_of: str | None = None

    @property
    def ablation(self) -> bool:
        return self.ablation_of is not None

    def skip_reason(self, setting: str, run) -> str | None:
        """Why this system cannot run in `setting` of `run`, or None."""
        if self.needs_llm and run.llm_client is None:
            return SKIPPED_NO_LLM
        if self.oracle_only and setting != ORACLE:
            return SKIPPED_NEEDS_PROFILE
        if setting == DONT_KNOW and not self.asks:
            return SKIPPED_ASKS_NOTHING
        if self.needs_truth and not run.true_labels:
            return SKIPPED_NO_TRUTH
        if self.needs_urag_index and not run.advisor.build.augmented:
            return SKIPPED_NO_URAG_INDEX
        return None

    def answers(self, run, setting: str) -> list:
        raise NotImplementedError

    def answer(self, run, instance, setting: str):
        return self.answers(run.only([instance]), setting)[0]

    def search(self, run, instance, setting: str) -> list:
        return self.answer(run, instance, setting).candidates


@dataclass(frozen=True, kw_only=True)
class Baseline(System):
    """bm25 / dense / hybrid: the shared retriever, profile-blind; the oracle appends the profile's wording."""

    mode: str

    def answers(self, run, setting: str) -> list:
        from eval.systems.offline import run_baseline, with_share

        engine, oracle = run.engine(), setting == ORACLE
        shared = run.prefetch(engine, engine.retriever, self.mode, oracle)
        return [with_share(run_baseline(engine, self.mode, inst["query"], run.hidden[inst["id"]], oracle, run.today),
                           shared) for inst in run.progressing(self.name, setting)]


@dataclass(frozen=True, kw_only=True)
class Filtered(System):
    """hybrid+filter: the profile as a hard filter on the annotations, no prefix, no asking."""

    mode: str = "hybrid"

    def answers(self, run, setting: str) -> list:
        from eval.systems.offline import run_filtered

        engine = run.engine()
        return [run_filtered(engine, inst["query"], run.hidden[inst["id"]], run.today, self.mode)
                for inst in run.progressing(self.name, setting)]


@dataclass(frozen=True, kw_only=True)
class Profill(System):
    """The dialogue engine with a simulated student; `off`: the engine's mechanisms (DialogueSettings
    fields) this variant turns off."""

    off: tuple[str, ...] = ()

    def settings(self, base):
        return replace(base, **dict.fromkeys(self.off, False))

    def answers(self, run, setting: str) -> list:
        from eval.systems.offline import run_profill

        engine = run.engine(self.settings(run.advisor.settings), true_labels=self.needs_truth)
        share = run.dont_know_share if setting == DONT_KNOW else 0.0
        return [run_profill(engine, inst["query"], run.hidden[inst["id"]], setting == ORACLE, run.today, share,
                            inst["id"]) for inst in run.progressing(self.name, setting)]


@dataclass(frozen=True, kw_only=True)
class Urag(System):
    """URAG: the FAQ tier, else documents from the URAG-D index, else the fallback; no profiling
    (the oracle appends the profile's wording, as for the other profile-blind systems)."""

    def answers(self, run, setting: str) -> list:
        from eval.systems.offline import run_urag, with_share

        engine, augmented, oracle = run.engine(), run.augmented(), setting == ORACLE
        shared = run.prefetch(engine, augmented, "hybrid", oracle)
        return [with_share(run_urag(engine, augmented, inst["query"], run.hidden[inst["id"]], oracle, run.today),
                           shared) for inst in run.progressing(self.name, setting)]


@dataclass(frozen=True, kw_only=True)
class Hyde(System):
    """HyDE: dense retrieval with an LLM-written hypothetical passage."""

    def answers(self, run, setting: str) -> list:
        from eval.systems.llm import hyde_answers

        return hyde_answers(run, setting == ORACLE)


@dataclass(frozen=True, kw_only=True)
class Reranked(System):
    """`base`'s ranked chunks with the top 20 reordered by the LLM (profile-blind)."""

    base: str

    def answers(self, run, setting: str) -> list:
        from eval.systems.llm import reranked_answers

        return reranked_answers(run, run.answers(self.base, setting), dialogue=isinstance(BY_NAME[self.base], Profill))


SYSTEMS: tuple[System, ...] = (
    Baseline(name="bm25", mode="bm25"),
    Baseline(name="dense", mode="dense"),
    Baseline(name="hybrid", mode="hybrid"),
    Filtered(name="hybrid+filter", oracle_only=True),
    Reranked(name="hybrid+rerank", base="hybrid", needs_llm=True),
    Hyde(name="hyde", needs_llm=True),
    Reranked(name="hyde+rerank", base="hyde", needs_llm=True),
    Profill(name="profill", asks=True),
    Reranked(name="profill+rerank", base="profill", needs_llm=True, asks=True),
    Profill(name="profill-true-labels", asks=True, needs_truth=True),
    Profill(name="profill-no-hard-filter", asks=True, ablation_of="profill", off=("hard_filter",)),
    Profill(name="profill-no-soft-prefix", asks=True, ablation_of="profill", off=("soft_prefix",)),
    Profill(name="profill-no-reretrieval", asks=True, ablation_of="profill", off=("evidence_follow_up",)),
    Urag(name="urag", needs_urag_index=True, tiered=True),
)
BY_NAME: dict[str, System] = {s.name: s for s in SYSTEMS}
NAMES = tuple(BY_NAME)
OFFLINE = tuple(s.name for s in SYSTEMS if not s.needs_llm)  # what the pipeline evaluates by default
ABLATIONS = tuple(s.name for s in SYSTEMS if s.ablation)
REFERENCE_SYSTEM = "profill"  # the system the ablations and the true-label system are compared with
TRUE_LABEL_SYSTEM = next(s.name for s in SYSTEMS if s.needs_truth)
TIERED = tuple(s.name for s in SYSTEMS if s.tiered)
# The systems that are one retrieval (a mode of the shared retriever; Filtered: under the profile as
# a hard filter), with no dialogue and no LLM: what bench/retrieval.py times against a naive one.
RETRIEVAL_SYSTEMS: tuple[Baseline | Filtered, ...] = tuple(s for s in SYSTEMS if isinstance(s, (Baseline, Filtered)))


def checked_names(given, allowed: Sequence[str], what: str) -> tuple[str, ...]:
    """`given` (a name or names) in order without repeats; an unknown name, or none, is a ValueError
    naming them (the command line and the pipeline prefix it with where the names came from)."""
    names = tuple(dict.fromkeys([given] if isinstance(given, str) else given))
    unknown = [n for n in names if n not in allowed]
    if unknown:
        raise ValueError(f"unknown {what}(s) {', '.join(unknown)}; expected some of {', '.join(allowed)}")
    if not names:
        raise ValueError(f"give at least one {what} of {', '.join(allowed)}")
    return names


def system(name: str) -> System:
    try:
        return BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown system {name!r}; expected one of {list(NAMES)}") from None
