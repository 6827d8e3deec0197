"""Per-run memoization for the evaluation: the same query meets the same tokenizer, router,
stated-values reader, FAQ search, retrieval and extractive answerer many times over (60 profiles
ask the same questions; 4 proFILL variants x 2 settings replay mostly the same dialogue), and each
of those is a pure function of its inputs. Caching them per run makes a full evaluation minutes,
not an hour, and changes nothing: every cached call returns what the uncached call returns
(tests/test_eval_runner.py checks the cached runner against a plain per-query loop).

`EvalMemo` holds the caches; `EvalMemo.advisor_view(...)` is an Advisor that reads through them,
with the ablation switches (soft prefix / hard filter off) applied to every retrieval it makes.
Nothing here outlives the run, and the caches hold queries and profiles only in memory.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from datetime import date
from typing import Any, Mapping, Sequence

import numpy as np

from serving.dialogue.engine import Advisor, DialogueSettings
from advisor.retrieval import Retriever
from advisor.retrieval.profile import known_profile
from advisor.retrieval.results import RetrievalResult


def profile_key(profile: Mapping[str, Any] | None) -> tuple:
    return tuple(sorted((profile or {}).items()))


class CachingTokenizer:
    """The Kiwi tokenizer's text -> result calls, memoized per text (batches split into misses)."""

    def __init__(self, tokenizer) -> None:
        self.inner = tokenizer
        self._morphemes: dict[str, list[str]] = {}
        self._key_words: dict[str, list[str]] = {}
        self._query_words: dict[str, list[str]] = {}
        self._sentences: dict[str, list[str]] = {}

    def content_morphemes(self, texts: Sequence[str]) -> list[list[str]]:
        return _batched(self._morphemes, self.inner.content_morphemes, texts)

    def key_words(self, texts: Sequence[str]) -> list[list[str]]:
        return _batched(self._key_words, self.inner.key_words, texts)

    def query_morphemes(self, texts: Sequence[str]) -> list[list[str]]:
        return _batched(self._query_words, self.inner.query_morphemes, texts)

    def split_sentences(self, text: str) -> list[str]:
        if text not in self._sentences:
            self._sentences[text] = self.inner.split_sentences(text)
        return list(self._sentences[text])

    def __getattr__(self, name):  # anything else (version, tagged_morphemes ...) as the real one
        return getattr(self.inner, name)


def _batched(cache: dict, compute, texts: Sequence[str]) -> list:
    texts = list(texts)
    missing = list(dict.fromkeys(t for t in texts if t not in cache))
    if missing:
        for text, value in zip(missing, compute(missing)):
            cache[text] = list(value)
    return [list(cache[t]) for t in texts]


class CachingEmbedder:
    """The build's embedder, memoized per text (the FAQ tier embeds each question once per turn)."""

    def __init__(self, embedder) -> None:
        self.inner = embedder
        self._vectors: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str], tokens: Sequence[Sequence[str]] | None = None) -> np.ndarray:
        texts = list(texts)
        missing = [i for i, t in enumerate(texts) if t not in self._vectors]
        if missing:
            unique = list(dict.fromkeys(texts[i] for i in missing))
            first = {t: next(i for i in missing if texts[i] == t) for t in unique}
            given = None if tokens is None else [list(tokens[first[t]]) for t in unique]
            for text, vector in zip(unique, self.inner.embed(unique, given)):
                self._vectors[text] = np.array(vector, copy=True)
        return np.stack([self._vectors[t] for t in texts]) if texts else self.inner.embed([], [])

    def __getattr__(self, name):
        return getattr(self.inner, name)


class _BuildView:
    """The index build with the caching embedder; everything else is the build itself."""

    def __init__(self, build, embedder: CachingEmbedder) -> None:
        self._build, self.embedder = build, embedder

    def __getattr__(self, name):
        return getattr(self._build, name)


class CachingRetriever:
    """Retriever.search / search_batch memoized by (query, known profile, mode, soft, hard, k,
    time-sensitivity, day). `force_soft` / `force_hard` = False turn a mechanism off for every
    search made through this view (the ablations), whatever the caller asks."""

    def __init__(self, retriever, cache: dict, force_soft: bool = True, force_hard: bool = True) -> None:
        self.inner, self._cache = retriever, cache
        self.force_soft, self.force_hard = force_soft, force_hard

    def with_switches(self, soft: bool = True, hard: bool = True) -> "CachingRetriever":
        return CachingRetriever(self.inner, self._cache, soft, hard)

    def search(self, query: str, profile: Mapping | None = None, mode: str = "hybrid", k: int = 10,
               soft: bool = True, hard: bool = True, time_sensitive: bool | None = None, debug: bool = False,
               today: date | None = None) -> RetrievalResult:
        return self.search_batch([query], [profile], mode=mode, k=k, soft=soft, hard=hard,
                                 time_sensitive=None if time_sensitive is None else [time_sensitive],
                                 debug=debug, today=today)[0]

    def search_batch(self, queries: Sequence[str], profiles: Sequence[Mapping | None] | None = None,
                     mode: str = "hybrid", k: int = 10, soft: bool = True, hard: bool = True,
                     time_sensitive: Sequence[bool | None] | None = None, debug: bool = False,
                     today: date | None = None) -> list[RetrievalResult]:
        soft, hard = (soft if self.force_soft else False), hard and self.force_hard  # soft may be a set of names
        profiles = list(profiles) if profiles is not None else [None] * len(queries)
        decisions = list(time_sensitive) if time_sensitive is not None else [None] * len(queries)
        if debug:  # debug output is never cached: it is for people, not for evaluation rows
            return self.inner.search_batch(queries, profiles, mode=mode, k=k, soft=soft, hard=hard,
                                           time_sensitive=decisions, debug=True, today=today)
        today = today or date.today()
        keys = [self._key(q, p, mode, soft, hard, k, d, today) for q, p, d in zip(queries, profiles, decisions)]
        missing: dict[tuple, int] = {}
        for i, key in enumerate(keys):
            if key not in self._cache and key not in missing:
                missing[key] = i
        if missing:
            rows = list(missing.values())
            found = self.inner.search_batch([queries[i] for i in rows], [profiles[i] for i in rows], mode=mode, k=k,
                                            soft=soft, hard=hard, time_sensitive=[decisions[i] for i in rows],
                                            today=today)
            for key, result in zip(missing, found):
                self._cache[key] = result
        return [self._cache[key] for key in keys]

    def _key(self, query, profile, mode, soft, hard, k, decision, today) -> tuple:
        known = known_profile(profile, self.inner.schema)
        if not known:  # with nothing known, the prefix is empty and the filter keeps everything
            soft = hard = True
        return (query, profile_key(known), mode, soft, hard, k, decision, today)

    def __getattr__(self, name):
        return getattr(self.inner, name)


class CachingFAQStore:
    """FAQStore.search memoized by (query vector, known profile, k, hard, query tokens);
    `force_hard=False` searches every entry whatever the profile (the no-hard-filter ablation)."""

    def __init__(self, store, cache: dict, force_hard: bool = True) -> None:
        self.inner, self._cache, self.force_hard = store, cache, force_hard

    def search(self, query_vector, known: Mapping | None, k: int = 20, hard: bool = True,
               query_tokens: Sequence[str] | None = None, **options):
        hard = hard and self.force_hard
        vector = np.asarray(query_vector, dtype=np.float32).reshape(-1)
        key = (vector.tobytes(), profile_key(known if hard else None), k, hard,
               None if query_tokens is None else tuple(query_tokens), tuple(sorted(options.items())))
        if key not in self._cache:
            self._cache[key] = self.inner.search(query_vector, known, k=k, hard=hard, query_tokens=query_tokens,
                                                 **options)
        return list(self._cache[key])

    def __len__(self) -> int:
        return len(self.inner)

    def __getattr__(self, name):
        return getattr(self.inner, name)


class _MemoRouter:
    def __init__(self, router, cache: dict) -> None:
        self.inner, self._cache = router, cache

    def route(self, message: str) -> tuple[str, dict]:
        if message not in self._cache:
            self._cache[message] = self.inner.route(message)
        intent, how = self._cache[message]
        return intent, dict(how)


class _MemoStated:
    def __init__(self, stated, cache: dict) -> None:
        self.inner, self._cache = stated, cache

    def read(self, message: str) -> dict[str, Any]:
        if message not in self._cache:
            self._cache[message] = self.inner.read(message)
        return dict(self._cache[message])

    def without(self, message: str, stated: Mapping[str, Any]) -> str:
        return self.inner.without(message, stated)


class _MemoLLMParts:
    """The engine's per-message LLM decisions (time sensitivity, profile initialization) and its
    LLM answers, asked once per distinct input in a run: the systems replay the same questions."""

    def __init__(self, inner, cache: dict) -> None:
        self.inner, self._cache = inner, cache

    def classify(self, queries: Sequence[str]) -> list:
        missing = [q for q in dict.fromkeys(queries) if ("classify", q) not in self._cache]
        if missing:
            for query, decision in zip(missing, self.inner.classify(missing)):
                self._cache[("classify", query)] = decision
        return [self._cache[("classify", q)] for q in queries]

    def initialize(self, message: str):
        key = ("initialize", message)
        if key not in self._cache:
            self._cache[key] = self.inner.initialize(message)
        return copy.deepcopy(self._cache[key])

    def answer(self, query: str, evidence, known: Mapping[str, Any], config):
        key = ("answer", query, tuple(c.chunk_id for c in evidence), profile_key(known))
        if key not in self._cache:
            self._cache[key] = self.inner.answer(query, evidence, known, config)
        return self._cache[key]

    def __getattr__(self, name):
        return getattr(self.inner, name)


class _MemoAdvisor(Advisor):
    """An Advisor whose extractive answers come from the run's memo (same inputs, same answer)."""

    _answers: dict

    def offline_answer(self, message: str, evidence, known: Mapping[str, Any]):
        key = (message, tuple(c.chunk_id for c in evidence), profile_key(known))
        if key not in self._answers:
            self._answers[key] = super().offline_answer(message, evidence, known)
        return self._answers[key]


class EvalMemo:
    """Caches shared by every system and setting of one evaluation run."""

    def __init__(self, advisor: Advisor, shared: "EvalMemo | None" = None) -> None:
        """`shared`: another run's memo over the same texts (the true-label advisor's over the
        annotated one's): its tokenizer, embedder, routes and stated values are reused; what
        depends on the labels (retrievals, FAQ searches, answers) is not."""
        self.advisor = advisor
        self.tokenizer = shared.tokenizer if shared else CachingTokenizer(advisor._tokenizer)
        self.embedder = shared.embedder if shared else CachingEmbedder(advisor.build.embedder)
        self.build = _BuildView(advisor.build, self.embedder)
        # The same Retriever over the caching tokenizer and embedder: a query text searched with
        # several profiles (hard filter only) or depths (k = 10 and 50) is prepared once.
        self.retriever = self.retriever_over(advisor.build.collections)
        self._faq: dict = {}
        self._routes: dict = shared._routes if shared else {}
        self._stated: dict = shared._stated if shared else {}
        self._answers: dict = {}
        self._llm: dict = {}

    def retriever_over(self, collections) -> CachingRetriever:
        """A caching retriever over other collections of the build's chunks (the URAG-D ones)."""
        build = _BuildView(self.advisor.build.over(collections), self.embedder)
        return CachingRetriever(Retriever(build, self.tokenizer.query_morphemes, self.advisor.retriever.params), {})

    def advisor_view(self, soft: bool = True, hard: bool = True, settings: DialogueSettings | None = None) -> Advisor:
        """The run's Advisor reading through the caches, with the given switches for every retrieval."""
        view = _MemoAdvisor.__new__(_MemoAdvisor)
        view.__dict__.update(copy.copy(self.advisor.__dict__))
        view._answers = self._answers
        view._tokenizer = self.tokenizer
        view.build = self.build
        view.retriever = self.retriever.with_switches(soft, hard)
        view.router = _MemoRouter(self.advisor.router, self._routes)
        view.stated = _MemoStated(self.advisor.stated, self._stated)
        if self.advisor.faq_store is not None:
            view.faq_store = CachingFAQStore(self.advisor.faq_store, self._faq, force_hard=hard)
        for part in ("_llm_answerer", "_time_classifier", "_profile_init"):
            if getattr(self.advisor, part, None) is not None:
                setattr(view, part, _MemoLLMParts(getattr(self.advisor, part), self._llm))
        if settings is not None:
            view.settings = settings
        return view


def plain_view(advisor: Advisor, soft: bool = True, hard: bool = True,
               settings: DialogueSettings | None = None) -> Advisor:
    """The same switches without any cache: the reference path the memoized one must equal."""
    view = copy.copy(advisor)
    if not (soft and hard):
        view.retriever = _SwitchedRetriever(advisor.retriever, soft, hard)
        if advisor.faq_store is not None and not hard:
            view.faq_store = _UnfilteredFAQ(advisor.faq_store)
    if settings is not None:
        view.settings = settings
    return view


class _SwitchedRetriever:
    def __init__(self, retriever, soft: bool, hard: bool) -> None:
        self.inner, self.soft, self.hard = retriever, soft, hard

    def search(self, *args, soft: bool = True, hard: bool = True, **kwargs):
        return self.inner.search(*args, soft=soft if self.soft else False, hard=hard and self.hard, **kwargs)

    def search_batch(self, *args, soft: bool = True, hard: bool = True, **kwargs):
        return self.inner.search_batch(*args, soft=soft if self.soft else False, hard=hard and self.hard, **kwargs)

    def __getattr__(self, name):
        return getattr(self.inner, name)


class _UnfilteredFAQ:
    def __init__(self, store) -> None:
        self.inner = store

    def search(self, query_vector, known, k: int = 20, hard: bool = True, **kwargs):
        return self.inner.search(query_vector, known, k=k, hard=False, **kwargs)

    def __len__(self) -> int:
        return len(self.inner)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def ablation_settings(base: DialogueSettings, reretrieval: bool) -> DialogueSettings:
    return base if reretrieval else replace(base, evidence_follow_up=False)
