"""Per-chunk keywords by TF-IDF over the chunk collection (docs/method.md §A.3: prepended to the chunk
so lexical matching sees its distinctive terms even when the chunk only implies them)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from advisor.chunking.model import Chunk

# Verb and adjective stems (듣, 받, 다루) are content words for BM25 but poor keywords.
_PREDICATE_TAGS = ("VV", "VA")
_NUMBER = re.compile(r"^[\d.,\-–~/%]+$")

Token = str | tuple[str, str]  # a form, or (form, tag) from KiwiTokenizer.tagged_morphemes


def _term(token: Token) -> str | None:
    """The keyword candidate a token gives, or None: no single characters, no pure numbers, and
    (when tags are known) no verb or adjective stems."""
    form, tag = (token, "") if isinstance(token, str) else token
    if len(form) < 2 or _NUMBER.match(form) or tag.startswith(_PREDICATE_TAGS):
        return None
    return form


def assign_keywords(
    chunks: Sequence[Chunk], tokens: Sequence[Sequence[Token]], k: int = 5, background: Sequence[Sequence[Token]] = ()
) -> list[Chunk]:
    """Each chunk with its `k` most distinctive terms: (sublinear) term frequency in the chunk times
    smoothed inverse document frequency across `chunks` plus `background` (the tokens of the rest
    of the corpus, counted for IDF only). Ties go to the earlier term in the chunk, then
    alphabetical order, so the result depends only on the input."""
    if len(chunks) != len(tokens):
        raise ValueError(f"{len(chunks)} chunks but {len(tokens)} token lists")
    terms = [[t for t in map(_term, toks) if t] for toks in tokens]
    others = [[t for t in map(_term, toks) if t] for toks in background]
    df = Counter(t for chunk_terms in terms + others for t in set(chunk_terms))
    n = len(chunks) + len(others)
    return [replace(chunk, keywords=_top(chunk_terms, df, n, k)) for chunk, chunk_terms in zip(chunks, terms)]


def _top(terms: list[str], df: Counter, n: int, k: int) -> tuple[str, ...]:
    tf = Counter(terms)
    first = {}
    for i, term in enumerate(terms):
        first.setdefault(term, i)
    # Sublinear TF: a table's column labels repeat on every row and would otherwise crowd out
    # the rarer terms that make the chunk findable. Smoothed IDF (as scikit-learn's): a term
    # present in every chunk still scores above zero.
    score = {t: (1 + math.log(c)) * (math.log((1 + n) / (1 + df[t])) + 1) for t, c in tf.items()}
    ranked = sorted(tf, key=lambda t: (-round(score[t], 9), first[t], t))
    return tuple(ranked[:k])
