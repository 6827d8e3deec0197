"""Per-run memoization for the evaluation: the same query meets the same tokenizer, router,
stated-values reader, FAQ search, retrieval and extractive answerer many times over (60 profiles
ask the same questions; 4 proFILL variants x 2 settings replay mostly the same dialogue), and each
of those is a pure function of its inputs. Caching them per run makes a full evaluation minutes,
not an hour, and changes nothing: every cached call returns what the uncached call returns
(tests/test_eval_runner.py checks the cached runner against a plain per-query loop).

`EvalMemo` holds caching wrappers of an engine's collaborators; `EvalMemo.engine(settings)` is a
new Advisor composed from them through its public constructor (an ablation is its settings).
Nothing here outlives the run, and the caches hold queries and profiles only in memory.
"""

from __future__ import annotations

import copy
from datetime import date
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from advisor import clock
from advisor.retrieval import Retriever
from advisor.retrieval.profile import known_profile
from advisor.retrieval.results import RetrievalResult
from advisor.retrieval.retriever import BatchSearcher, augmented, written_names
from serving.dialogue.engine import Advisor, DialogueSettings, ExtractiveAnswerer, LLMTasks


def profile_key(profile: Mapping[str, Any] | None) -> tuple:
    return tuple(sorted((profile or {}).items()))


def compose(advisor: Advisor, settings: DialogueSettings, **collaborators) -> Advisor:
    """An engine over `advisor`'s build with its collaborators, those named replaced, and `settings`."""
    parts = {"tokenizer": advisor.tokenizer, "embedder": advisor.embedder, "retriever": advisor.retriever,
             "router": advisor.router, "stated": advisor.stated, "faq_store": advisor.faq_store,
             "thresholds": advisor.thresholds, "llm": advisor.llm, "extractive": advisor.extractive}
    return Advisor(advisor.build, advisor.config, settings=settings, **{**parts, **collaborators})


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
    """The build's embedder, memoized per (kind, text, tokens): an embedder trained on Kiwi tokens
    embeds a text differently with the retriever's query morphemes than with the FAQ tier's content
    morphemes, and e5 a question differently from a passage, so a vector is reused only for the same
    text read the same way."""

    def __init__(self, embedder) -> None:
        self.inner = embedder
        self._vectors: dict[tuple, np.ndarray] = {}

    def embed(self, texts: Sequence[str], tokens: Sequence[Sequence[str]] | None = None) -> np.ndarray:
        return self._memoized("passage", self.inner.embed, texts, tokens)

    def embed_queries(self, texts: Sequence[str], tokens: Sequence[Sequence[str]] | None = None) -> np.ndarray:
        return self._memoized("query", self.inner.embed_queries, texts, tokens)

    def _memoized(self, kind: str, compute, texts, tokens) -> np.ndarray:
        texts = list(texts)
        keys = [(kind, t, None if tokens is None else tuple(tokens[i])) for i, t in enumerate(texts)]
        missing = list(dict.fromkeys(k for k in keys if k not in self._vectors))
        if missing:
            given = None if tokens is None else [list(k[2]) for k in missing]
            for key, vector in zip(missing, compute([k[1] for k in missing], given)):
                self._vectors[key] = np.array(vector, copy=True)
        return np.stack([self._vectors[k] for k in keys]) if texts else compute([], [])

    def __getattr__(self, name):
        return getattr(self.inner, name)


class _BuildView:
    """The index build with the caching embedder (what the Retriever embeds queries with)."""

    def __init__(self, build, embedder: CachingEmbedder) -> None:
        self._build, self.embedder = build, embedder

    def __getattr__(self, name):
        return getattr(self._build, name)


class CachingRetriever(BatchSearcher):
    """Retriever.search / search_batch memoized by (query, known profile, mode, soft, hard, k,
    time-sensitivity, day)."""

    def __init__(self, retriever) -> None:
        self.inner, self._cache = retriever, {}

    def search_batch(self, queries: Sequence[str], profiles: Sequence[Mapping | None] | None = None,
                     mode: str = "hybrid", k: int | None = None, soft: bool = True, hard: bool = True,
                     time_sensitive: Sequence[bool | None] | None = None, debug: bool = False,
                     today: date | None = None) -> list[RetrievalResult]:
        k = self.inner.params.k if k is None else k  # resolved before keying: k=None and k=params.k are one search
        profiles = list(profiles) if profiles is not None else [None] * len(queries)
        decisions = list(time_sensitive) if time_sensitive is not None else [None] * len(queries)
        if debug:  # debug output is never cached: it is for people, not for evaluation rows
            return self.inner.search_batch(queries, profiles, mode=mode, k=k, soft=soft, hard=hard,
                                           time_sensitive=decisions, debug=True, today=today)
        today = today or clock.today()
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
        # soft as what it does (True and the set of every known attribute are one search)
        return (query, profile_key(known), mode, augmented(soft), written_names(known, soft), hard, k, decision,
                today)

    def __getattr__(self, name):
        return getattr(self.inner, name)


class CachingFAQStore:
    """FAQStore.search memoized by (query vector, known profile, k, hard, query tokens)."""

    def __init__(self, store) -> None:
        self.inner, self._cache = store, {}

    def search(self, query_vector, known: Mapping | None, k: int = 20, hard: bool = True,
               query_tokens: Sequence[str] | None = None, **options):
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


class _MemoPerMessage:
    """One method of `inner` that reads only the message (the router's `route`, the stated-profile
    reader's `read`), memoized; each caller gets its own copy of the cached value; all else passes through."""

    def __init__(self, inner, method: str, copy_of: Callable[[Any], Any]) -> None:
        self.inner, self._cache = inner, {}
        self._read, self._copy = getattr(inner, method), copy_of
        setattr(self, method, self._cached)

    def _cached(self, message: str, *rest):
        # keyed by the message alone: what else the engine passes is fixed for its build (the
        # router's topic predicate), and this memo belongs to one engine
        if message not in self._cache:
            self._cache[message] = self._read(message, *rest)
        return self._copy(self._cache[message])

    def __getattr__(self, name):
        return getattr(self.inner, name)


def _memo_router(router) -> _MemoPerMessage:
    return _MemoPerMessage(router, "route", lambda routed: (routed[0], dict(routed[1])))


def _memo_stated(stated) -> _MemoPerMessage:
    return _MemoPerMessage(stated, "read", dict)


class _MemoAnswers:
    """An answerer's answers per (message, evidence, profile): the systems replay the same
    questions over the same evidence. Extra arguments (the LLM answerer's config) pass through."""

    def __init__(self, answerer) -> None:
        self.inner, self._cache = answerer, {}

    def answer(self, message: str, evidence, known: Mapping[str, Any], *rest):
        key = (message, tuple(c.chunk_id for c in evidence), profile_key(known))
        if key not in self._cache:
            self._cache[key] = self.inner.answer(message, evidence, known, *rest)
        return self._cache[key]


class _MemoClassifier:
    """The per-message time-sensitivity decision, asked once per distinct message in a run."""

    def __init__(self, classifier) -> None:
        self.inner, self._cache = classifier, {}

    def classify(self, queries: Sequence[str]) -> list:
        missing = [q for q in dict.fromkeys(queries) if q not in self._cache]
        if missing:
            for query, decision in zip(missing, self.inner.classify(missing)):
                self._cache[query] = decision
        return [self._cache[q] for q in queries]


class _MemoProfileInit:
    def __init__(self, initializer) -> None:
        self.inner, self._cache = initializer, {}

    def initialize(self, message: str):
        if message not in self._cache:
            self._cache[message] = self.inner.initialize(message)
        return copy.deepcopy(self._cache[message])  # the engine adds to what it gets


def _memo(wrapper, part):
    return None if part is None else wrapper(part)


class EvalMemo:
    """Caching collaborators shared by every system and setting of one evaluation run."""

    def __init__(self, advisor: Advisor, shared: "EvalMemo | None" = None) -> None:
        """`shared`: another run's memo over the same texts (the true-label advisor's over the
        annotated one's): its tokenizer, embedder, routes and stated values are reused; what
        depends on the labels (retrievals, FAQ searches, answers) is not."""
        self.advisor = advisor
        self.tokenizer = shared.tokenizer if shared else CachingTokenizer(advisor.tokenizer)
        self.embedder = shared.embedder if shared else CachingEmbedder(advisor.embedder)
        self.router = shared.router if shared else _memo_router(advisor.router)
        self.stated = shared.stated if shared else _memo_stated(advisor.stated)
        # The same Retriever over the caching tokenizer and embedder: a query text searched with
        # several profiles (hard filter only) or depths (k = 10 and 50) is prepared once.
        self.retriever = self.retriever_over(advisor.build.collections)
        self.faq_store = _memo(CachingFAQStore, advisor.faq_store)
        llm = advisor.llm
        self.llm = LLMTasks(llm.client, _memo(_MemoAnswers, llm.answerer), _memo(_MemoClassifier, llm.time_classifier),
                            _memo(_MemoProfileInit, llm.profile_init))
        # the extractive answer reads its evidence's sentences through the caching tokenizer too
        self.extractive = _MemoAnswers(ExtractiveAnswerer(advisor.config, self.tokenizer))
        self._engines: dict[DialogueSettings, Advisor] = {}

    def retriever_over(self, collections) -> CachingRetriever:
        """A caching retriever over other collections of the build's chunks (the URAG-D ones)."""
        build = _BuildView(self.advisor.build.over(collections), self.embedder)
        return CachingRetriever(Retriever(build, self.tokenizer.query_morphemes, self.advisor.params))

    def engine(self, settings: DialogueSettings) -> Advisor:
        """The run's engine with these settings, every collaborator reading through the caches."""
        if settings not in self._engines:
            self._engines[settings] = compose(
                self.advisor, settings, tokenizer=self.tokenizer, embedder=self.embedder, retriever=self.retriever,
                router=self.router, stated=self.stated, faq_store=self.faq_store, llm=self.llm,
                extractive=self.extractive)
        return self._engines[settings]
