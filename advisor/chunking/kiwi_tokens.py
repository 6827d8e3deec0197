"""Korean morphemes with Kiwi: one setup shared by documents and queries (docs/method.md §A.5).

BM25 only matches when a query and a chunk are cut into the same morphemes, so both go through the
same `KiwiTokenizer`, built from the institution's profile aliases as user words (without them
컴퓨터학과 becomes 컴퓨터/학과 and 휴학생 loses its 생). `version` names that setup: stored tokens
made with another version must be recomputed.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence

import kiwipiepy
from kiwipiepy import Kiwi

from advisor.chunking.chunker import strip_span
from advisor.config import CategoricalAttribute, InstitutionConfig

# Content morphemes (docs/tech-notes.md, kiwipiepy): nouns, foreign words, numbers, roots, verb and adjective stems.
# Particles (J*), endings (E*), affixes (X*N), symbols and bound nouns (NNB: 점, 개, 것) are noise.
CONTENT_TAGS = ("NNG", "NNP", "SL", "SN", "XR", "VV", "VA")
# Pinned rather than Kiwi's default "none" (= "fastest available"), which may change with a release.
MODEL_TYPE = "cong"
# Bump when the post-processing below changes the tokens it produces (it is part of `version`).
RULES_VERSION = "2"

Tagged = tuple[str, str]  # (form, tag)
SMALL_CALL = 64  # texts per call up to which results are remembered (serving's calls; not a build's)
RECENT_TEXTS = 4096  # texts remembered per kind (~4 KB each at most: ~16 MB)


def _default_workers() -> int:
    # Kiwi parallelises a batch `tokenize(list)` over its worker threads; more threads than cores
    # only adds contention. 0 means single-threaded in kiwipiepy >= 0.21.
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, 8))


class KiwiTokenizer:
    """A Kiwi instance with the institution's user words. ~3.5 s (start-up plus model build on
    2 cores) and ~320 MB: share one per process through `get_tokenizer`. Thread-safe (calls are
    serialised; a batch call is parallel inside Kiwi)."""

    def __init__(self, user_words: Iterable[str] = (), num_workers: int | None = None) -> None:
        self.user_words: tuple[str, ...] = _normalize_words(user_words)
        self.num_workers = _default_workers() if num_workers is None else num_workers
        self._kiwi = Kiwi(num_workers=self.num_workers, model_type=MODEL_TYPE)
        self.accepted_words: tuple[str, ...] = tuple(w for w in self.user_words if self._add_user_word(w))
        self._lock = threading.Lock()  # one Kiwi call at a time: its batch call is already parallel
        # Serving asks for the same texts again and again: one message's morphemes three ways
        # (content, key words, query) and again on the next turn, the same retrieved chunks'
        # sentences for many students. Only small calls are remembered: a build's large batches
        # are each tokenized once (and cached in the lakehouse, token_cache.py).
        self._recent_tokens = _Recent(RECENT_TEXTS)
        self._recent_sentences = _Recent(RECENT_TEXTS)
        # Kiwi builds its model lazily on the first call (~2 s, again after any add_user_word):
        # pay it here, once, rather than on the first query.
        self._kiwi.tokenize("")

    # ------------------------------------------------------------------ setup
    def _add_user_word(self, word: str) -> bool:
        """Add `word` as a proper noun; False when skipped or rejected (never raises)."""
        if _is_latin(word):
            # Kiwi already keeps Latin words whole (tag SL), and its tokens are split back into
            # words below anyway: an English alias as a user word would change nothing.
            return False
        try:
            # A spaced alias ("외국인 유학생") is added as it is: Kiwi then also recognises it written
            # without the space ("외국인유학생"), so no separate spaceless entry is needed, and the
            # token it yields is split back into words (`_words`), so both spellings give the same
            # terms, with each word whole (유학생, not 유학 + 생).
            return bool(self._kiwi.add_user_word(word, "NNP"))
        except (ValueError, RuntimeError, TypeError):
            return False

    @property
    def version(self) -> str:
        """Short hash of everything that decides the tokens: the cache key for stored tokens."""
        return tokenizer_version(self.user_words)

    # ------------------------------------------------------------------ tokens
    def tagged_morphemes(self, texts: Sequence[str]) -> list[list[Tagged]]:
        """(form, tag) of the content morphemes of each text, in order; one batch Kiwi call."""
        if isinstance(texts, str):  # a lone query would otherwise be read as a list of characters
            raise TypeError("pass a list of texts: content_morphemes([query])")
        texts = [t or "" for t in texts]
        if len(texts) > SMALL_CALL:
            return self._tokenize(texts)
        found = {t: tokens for t in texts if (tokens := self._recent_tokens.get(t)) is not None}
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        for text, tokens in zip(missing, self._tokenize(missing)):
            found[text] = self._recent_tokens.put(text, tuple(tokens))
        return [list(found[t]) for t in texts]

    def _tokenize(self, texts: list[str]) -> list[list[Tagged]]:
        if not texts:
            return []
        with self._lock:
            if self.num_workers and len(texts) > 1:
                results = self._kiwi.tokenize(texts)  # a batch runs on the worker threads
            else:  # single-threaded Kiwi (num_workers=0) has no batch mode
                results = [self._kiwi.tokenize(t) for t in texts]
            return [_content(tokens) for tokens in results]

    def content_morphemes(self, texts: Sequence[str]) -> list[list[str]]:
        """The content morphemes of each text (lower-cased), for BM25 and token-level metrics."""
        return [[form for form, _ in tokens] for tokens in self.tagged_morphemes(texts)]

    def key_words(self, texts: Sequence[str]) -> list[list[str]]:
        """What a question is about: its nouns, foreign words, numbers and roots, without the
        predicates every question shares (하다, 되다, 어떻다, 있다)."""
        return [[form for form, tag in tokens if tag.startswith(KEY_TAGS)
                 and not (tag == "SL" and form in ENGLISH_FUNCTION_WORDS)] for tokens in self.tagged_morphemes(texts)]

    def query_morphemes(self, texts: Sequence[str]) -> list[list[str]]:
        """What a query is searched with: its content morphemes without the predicates of the
        question's frame ("어떻게 되나요", "알려 주세요", "궁금해요", "맞나요"), which otherwise match
        every FAQ question better than the one document that answers. A text made only of its
        frame keeps everything."""
        out = []
        for tokens in self.tagged_morphemes(texts):
            forms = [form for form, _ in tokens]
            out.append([f for f in forms if f not in QUESTION_FRAME] or forms)
        return out

    def spaced(self, text: str) -> str:
        """`text` with Kiwi's spacing correction ("휴학중에융합전공신청돼요?" -> "휴학 중에 융합전공
        신청돼요?")."""
        with self._lock:
            return self._kiwi.space(text)

    # ------------------------------------------------------------------ sentences
    def split_sentences(self, text: str) -> list[str]:
        """Sentences of `text` as exact substrings, in order, covering all its non-space text."""
        if not text.strip():
            return []
        if (known := self._recent_sentences.get(text)) is not None:
            return list(known)
        with self._lock:
            sentences = self._kiwi.split_into_sents(text)
        spans = _spans_from_kiwi(text, [(s.start, s.end, s.text) for s in sentences])
        spans = [piece for start, end in spans for piece in _split_latin_sentences(text, start, end)]
        return list(self._recent_sentences.put(text, tuple(text[start:end] for start, end in spans)))


class _Recent:
    """The results for the most recently used texts, at most `size` of them (thread-safe)."""

    def __init__(self, size: int) -> None:
        self._items: OrderedDict[str, tuple] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, text: str) -> tuple | None:
        with self._lock:
            value = self._items.get(text)
            if value is not None:
                self._items.move_to_end(text)
            return value

    def put(self, text: str, value: tuple) -> tuple:
        with self._lock:
            self._items[text] = value
            self._items.move_to_end(text)
            if len(self._items) > self._size:
                self._items.popitem(last=False)
        return value


# --------------------------------------------------------------------------- token post-processing

KEY_TAGS = ("NNG", "NNP", "SL", "SN", "XR")
# English words that say nothing about a topic (articles, pronouns, auxiliaries, prepositions,
# conjunctions: a closed class of the language). Kiwi tags every Latin word SL, so without this list
# "where can I find info about going on exchange?" is mostly about "can", "i", "about" and "on".
ENGLISH_FUNCTION_WORDS = frozenset("""
a an the this that these those it its i me my mine you your yours he him his she her we us our they them their
is am are was were be been being do does did done have has had having can could will would shall should may
might must to of in on at by for from with about into onto over under up down out off than then as so if or and
but not no nor what when where who whom whose which why how there here any some all each every also just very
too more most much many please would've i'm i've i'd it's what's don't doesn't can't
""".split())
# predicates that frame a question rather than say what it is about (Kiwi's lemma forms)
QUESTION_FRAME = frozenset({"어떻", "되", "하", "알리", "알", "궁금", "궁금하", "맞", "그렇", "어떡하", "드리", "부탁", "얼마",
                            "무엇", "정하"})
_EDGE_PUNCT = re.compile(r"^[^\w]+|[^\w]+$")


def _content(tokens) -> list[Tagged]:
    """Keep content morphemes; repair how Kiwi cuts Latin text; lower-case."""
    out: list[Tagged] = []
    last_end = -1  # end offset of the previous kept Latin/number token
    for token in tokens:
        tag = token.tag
        if not tag.startswith(CONTENT_TAGS):
            last_end = -1
            continue
        form = token.form
        latin = tag in ("SL", "SN")
        if latin and out and token.start == last_end and out[-1][1] in ("SL", "SN"):
            # Kiwi sometimes cuts one English word in two ("credits." -> "cr" + "edits."), and a
            # course code "COSE101" comes out as COSE + 101: glue touching Latin/number pieces.
            prev_form, prev_tag = out.pop()
            form = prev_form + form
            tag = "SL" if "SL" in (prev_tag, tag) else "SN"
        last_end = token.start + token.len if latin else -1
        if latin:
            form = _EDGE_PUNCT.sub("", form) if tag == "SL" else form  # "GPA." -> "GPA"; keep "2.5"
        out.extend(_words(form.lower(), tag))
    return out


def _words(form: str, tag: str) -> list[Tagged]:
    """Kiwi's multi-word entries ("데이터 사이언스", spaced user words) come back as one form with
    spaces; index them as their words so a space-separated index sees the same terms."""
    return [(part, tag) for part in form.split() if part]


# --------------------------------------------------------------------------- sentence helpers

def _spans_from_kiwi(text: str, sentences: list[tuple[int, int, str]]) -> list[tuple[int, int]]:
    """Kiwi's sentence offsets, checked against the text, with any stray non-space text between
    sentences attached to its neighbour (so no character is lost)."""
    spans: list[tuple[int, int]] = []
    cursor = 0
    for start, end, sent in sentences:
        if text[start:end] != sent:  # offsets should be exact; if not, find the text instead
            found = text.find(sent, cursor)
            if found < 0:
                continue
            start, end = found, found + len(sent)
        if start < cursor:
            start = cursor
        if end <= start:
            continue
        if spans and text[cursor:start].strip():
            spans[-1] = (spans[-1][0], start)  # stray text: extend the previous sentence over it
        elif not spans and text[:start].strip():
            start = 0
        spans.append((start, end))
        cursor = end
    if not spans:
        return [strip_span(text, 0, len(text))]
    if text[cursor:].strip():
        spans[-1] = (spans[-1][0], len(text))
    return [strip_span(text, s, e) for s, e in spans]


# Kiwi splits Korean well but leaves English running text as one sentence. Split after . ! ? when
# the next word starts with a capital or Hangul, but not after a number ("2.0 이상" has no space
# anyway; "Art. 5" is followed by a digit), an initial ("U.S."), or a known abbreviation.
_LATIN_END = re.compile(r"(?<=[A-Za-z)][.!?])\s+(?=[\"'(\[]?[A-Z\uac00-\ud7a3])")
_ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof st no vol art sec ch fig p pp e.g i.e etc vs cf approx dept univ jan feb mar apr jun "
    "jul aug sep sept oct nov dec inc ltd co".split()
)


def _split_latin_sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    pieces, cursor = [], start
    for match in _LATIN_END.finditer(text, start, end):
        word = re.search(r"(\S+)[.!?]$", text[cursor:match.start()])
        stem = word.group(1).lower() if word else ""
        if stem in _ABBREVIATIONS or re.fullmatch(r"(?:[a-z]\.)*[a-z]", stem):
            continue  # "Dr. Kim", "U.S. Army", "e.g. Math": not a sentence end
        pieces.append((cursor, match.start()))
        cursor = match.end()
    pieces.append((cursor, end))
    return [p for p in pieces if p[1] > p[0]]


# --------------------------------------------------------------------------- words and cache

def _is_latin(word: str) -> bool:
    return not re.search(r"[^\x00-\x7f]", word)


def _normalize_words(words: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted({re.sub(r"\s+", " ", w).strip() for w in words if w and w.strip()}))


def tokenizer_version(user_words: Iterable[str] = ()) -> str:
    """`KiwiTokenizer(user_words).version` without starting Kiwi: lets a caller check whether
    stored tokens are still valid before paying Kiwi's start-up."""
    try:
        import kiwipiepy_model
        model_version = kiwipiepy_model.__version__
    except (ImportError, AttributeError):
        model_version = "?"
    parts = [kiwipiepy.__version__, model_version, MODEL_TYPE, ",".join(CONTENT_TAGS), RULES_VERSION,
             "\n".join(_normalize_words(user_words))]
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:12]


_CACHE: dict[tuple[str, ...], KiwiTokenizer] = {}
_CACHE_LOCK = threading.Lock()


def get_tokenizer(user_words: Iterable[str] = ()) -> KiwiTokenizer:
    """The process's tokenizer for this set of user words (built once: Kiwi is slow to start)."""
    key = _normalize_words(user_words)
    with _CACHE_LOCK:
        tokenizer = _CACHE.get(key)
        if tokenizer is None:
            tokenizer = _CACHE[key] = KiwiTokenizer(key)
        return tokenizer


def user_words_from_config(config: InstitutionConfig) -> list[str]:
    """Every alias (and button label) of every categorical profile attribute, deduplicated and
    sorted: the domain terms Kiwi must keep whole, since students and pages name them."""
    words: set[str] = set()
    for attribute in config.profile.values():
        if isinstance(attribute, CategoricalAttribute):
            for alias in [*itertools.chain.from_iterable(attribute.values.values()), *attribute.labels.values()]:
                if alias and alias.strip():
                    words.add(re.sub(r"\s+", " ", alias).strip())
    return sorted(words)
