"""The offline dense embedder: LSA trained on the corpus at index-build time (docs/method.md §A.5).

The reference system embeds with text-embedding-3-small; without a network we still want a dense
index that is more than noise. LSA over two TF-IDF views does that:
- content morphemes from Kiwi (unigrams + bigrams): the same terms BM25 sees;
- character 2-4-grams inside each word of the raw text: spelling variants, unsplit compounds and
  words with particles still attached (휴학생은 / 휴학) share features where the morphemes differ.
Each view is TF-IDF weighted (sublinear tf, smoothed idf), L2-normalised and weighted, the views are
concatenated, and a truncated SVD projects them to `dim` dimensions, which merges co-occurring
terms so a paraphrase lands near the text it paraphrases.

The TF-IDF step is our own code rather than scikit-learn's vectorizers: the saved model is then
plain data (vocabularies in JSON, arrays in npz, no pickled callables), and chunks and queries go
through one function, so vectors after `load` are bit-identical to those at training time.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from advisor.index.embed_common import normalize_rows, write_meta

NAME = "lsa"
FORMAT = 1  # bump when the feature extraction or file layout changes
VOCAB_FILE = "lsa_vocab.json"
ARRAYS_FILE = "lsa.npz"
CHAR_NGRAMS = (2, 3, 4)
# Below this many texts every feature is kept: in a tiny corpus a term seen once may be the only
# thing tying a query to its text. Above it, bigrams and char n-grams seen in one text only are
# dropped: they cannot link two texts and would inflate the saved projection.
PRUNE_FROM_DOCS = 200

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class LSAParams:
    dim: int = 256
    seed: int = 0
    word_weight: float = 0.6  # share of the morpheme view; the char view gets the rest (squared)
    sv_power: float = 1.0  # scale SVD dimensions by sigma**p: 1 = classic LSA (measured best), 0 = whitened
    n_iter: int = 7  # randomized SVD power iterations
    uses_tokens: bool = True  # False: words are split by a regex instead of Kiwi morphemes


# --------------------------------------------------------------------------- features

def word_features(tokens: Sequence[str]) -> list[str]:
    """Unigrams and adjacent bigrams of the content morphemes (bigrams keep 전공 필수 apart from
    필수 전공 … and from the two words far apart)."""
    tokens = [t for t in tokens if t]
    return tokens + [f"{a} {b}" for a, b in zip(tokens, tokens[1:])]


def char_features(text: str) -> list[str]:
    """Character n-grams within each word, padded with a space at each end (like scikit-learn's
    char_wb) so word starts and ends are features of their own. NFKC folds full-width forms."""
    grams: list[str] = []
    for word in _WORD.findall(unicodedata.normalize("NFKC", text).lower()):
        padded = f" {word} "
        for n in CHAR_NGRAMS:
            grams.extend(padded[i:i + n] for i in range(len(padded) - n + 1))
    return grams


def regex_tokens(text: str) -> list[str]:
    """Words for a model trained without Kiwi tokens."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).lower())


# --------------------------------------------------------------------------- TF-IDF

@dataclass
class _View:
    """One TF-IDF view: its vocabulary (column order) and idf weights."""

    terms: list[str]
    idf: np.ndarray  # float32, one per term

    @classmethod
    def fit(cls, docs: Sequence[Sequence[str]], min_df_for: callable) -> "_View":
        df = Counter(term for doc in docs for term in set(doc))
        n = len(docs)
        terms = sorted(t for t, count in df.items() if count >= min_df_for(t))  # sorted: deterministic
        # smoothed idf, as scikit-learn's: ln((1 + n) / (1 + df)) + 1, never zero
        idf = np.array([math.log((1 + n) / (1 + df[t])) + 1.0 for t in terms], dtype=np.float32)
        return cls(terms, idf)

    def rows(self, docs: Sequence[Sequence[str]]) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per doc, (columns, values): sublinear tf x idf, L2-normalised; unknown terms ignored.
        A doc's row depends on that doc alone, whatever else is in the batch."""
        index, idf = self._index, self.idf
        out = []
        for doc in docs:
            counts = Counter(index[t] for t in doc if t in index)
            cols = np.array(sorted(counts), dtype=np.int64)  # fixed order: the same sums every time
            values = np.array([1.0 + math.log(counts[c]) for c in cols.tolist()], dtype=np.float32) * idf[cols]
            norm = np.float32(np.sqrt(np.dot(values, values)))
            out.append((cols, values / norm if norm > 0 else values))
        return out

    def matrix(self, docs: Sequence[Sequence[str]]) -> sp.csr_matrix:
        """The same rows as one sparse matrix (for training)."""
        rows = self.rows(docs)
        indptr = np.cumsum([0] + [len(cols) for cols, _ in rows])
        cols = np.concatenate([c for c, _ in rows]) if rows else np.zeros(0, dtype=np.int64)
        values = np.concatenate([v for _, v in rows]) if rows else np.zeros(0, dtype=np.float32)
        return sp.csr_matrix((values, cols, indptr), shape=(len(docs), len(self.terms)), dtype=np.float32)

    @cached_property
    def _index(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self.terms)}


# --------------------------------------------------------------------------- the embedder

class LSAEmbedder:
    name = NAME

    def __init__(self, params: LSAParams, word: _View, char: _View, projection: np.ndarray,
                 singular_values: np.ndarray, n_docs: int) -> None:
        self.params = params
        self._word, self._char = word, char
        self._projection = np.ascontiguousarray(projection, dtype=np.float32)  # (dim, n_features), as saved
        # (n_features, dim) contiguous: sparse x @ this reads whole rows, no copy per call
        self._projection_t = np.ascontiguousarray(self._projection.T)
        self.singular_values = singular_values
        self.n_docs = n_docs
        self.dim = int(projection.shape[0])
        self.version = self._fingerprint()

    # ---------------------------------------------------------------- training
    @classmethod
    def train(cls, texts: Sequence[str], tokens: Sequence[Sequence[str]] | None = None,
              dim: int = 256, seed: int = 0, **overrides) -> "LSAEmbedder":
        """Fit on the corpus. `tokens` are the texts' Kiwi content morphemes (queries must then be
        embedded with tokens made the same way); without them words are split by a regex."""
        from sklearn.decomposition import TruncatedSVD  # import cost only when training

        params = LSAParams(dim=dim, seed=seed, uses_tokens=tokens is not None, **overrides)
        texts = list(texts)
        if len(texts) < 2:
            raise ValueError(f"LSA needs at least two texts to train on, got {len(texts)}")
        words = [word_features(t) for t in _tokens_for(params, texts, tokens)]
        chars = [char_features(t) for t in texts]
        prune = len(texts) >= PRUNE_FROM_DOCS
        word = _View.fit(words, lambda t: 2 if prune and " " in t else 1)  # keep every unigram
        char = _View.fit(chars, lambda t: 2 if prune else 1)
        x = _combine(params, word.matrix(words), char.matrix(chars))
        k = max(1, min(dim, len(texts) - 1, x.shape[1] - 1))  # SVD rank is bounded by the corpus
        svd = TruncatedSVD(n_components=k, algorithm="randomized", n_iter=params.n_iter, random_state=seed)
        svd.fit(x.astype(np.float64))
        sigma = svd.singular_values_
        # sigma**(p-1) on top of x @ V.T (= U sigma) gives U sigma**p
        weights = np.power(np.maximum(sigma, 1e-12), params.sv_power - 1.0)
        projection = (svd.components_ * weights[:, None]).astype(np.float32)
        return cls(params, word, char, projection, sigma.astype(np.float32), len(texts))

    # ---------------------------------------------------------------- embedding
    def embed(self, texts: Sequence[str], tokens: Sequence[Sequence[str]] | None = None) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("pass a list of texts: embed([query])")
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self.params.uses_tokens and tokens is None:
            raise ValueError("this LSA model was trained on Kiwi tokens: pass the texts' tokens, made the same way")
        words = self._word.rows([word_features(t) for t in _tokens_for(self.params, texts, tokens)])
        chars = self._char.rows([char_features(t) for t in texts])
        w, c = _view_weights(self.params)
        offset = len(self._word.terms)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        # one small product per text over the projection rows of its features: no sparse-matrix
        # set-up per call (most of a single query's cost), and row i depends only on text i, so a
        # query embeds the same alone or in a batch
        for i, ((word_cols, word_values), (char_cols, char_values)) in enumerate(zip(words, chars)):
            cols = np.concatenate([word_cols, char_cols + offset])
            values = np.concatenate([word_values * w, char_values * c])
            out[i] = values @ self._projection_t[cols]
        return normalize_rows(out)

    def embed_queries(self, texts: Sequence[str], tokens: Sequence[Sequence[str]] | None = None) -> np.ndarray:
        """Questions are embedded as any text is."""
        return self.embed(texts, tokens)

    # ---------------------------------------------------------------- persistence
    def save(self, directory: Path) -> None:
        directory = Path(directory)
        vocab = {"word": self._word.terms, "char": self._char.terms}
        write_meta(directory, self.name, self.version, self.dim, {
            "format": FORMAT, "params": _params_dict(self.params), "n_docs": self.n_docs,
            "n_word_features": len(self._word.terms), "n_char_features": len(self._char.terms)})
        (directory / VOCAB_FILE).write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
        np.savez(directory / ARRAYS_FILE, word_idf=self._word.idf, char_idf=self._char.idf,
                 projection=self._projection, singular_values=self.singular_values)

    @classmethod
    def load(cls, directory: Path, meta: dict) -> "LSAEmbedder":
        directory = Path(directory)
        if meta.get("format") != FORMAT:
            raise ValueError(f"{directory}: LSA model format {meta.get('format')}, this code reads {FORMAT}: rebuild the index")
        vocab = json.loads((directory / VOCAB_FILE).read_text(encoding="utf-8"))
        with np.load(directory / ARRAYS_FILE, allow_pickle=False) as arrays:
            word = _View(vocab["word"], arrays["word_idf"])
            char = _View(vocab["char"], arrays["char_idf"])
            embedder = cls(LSAParams(**meta["params"]), word, char, arrays["projection"],
                           arrays["singular_values"], int(meta["n_docs"]))
        if embedder.version != meta.get("version"):
            raise ValueError(f"{directory}: LSA files do not match their recorded version (corrupt or mixed files)")
        return embedder

    def _fingerprint(self) -> str:
        """Hash of everything that decides the vectors: equal versions embed identically."""
        h = hashlib.sha256()
        h.update(json.dumps([FORMAT, _params_dict(self.params)], sort_keys=True).encode())
        for view in (self._word, self._char):
            h.update("\x00".join(view.terms).encode())
            h.update(view.idf.tobytes())
        h.update(self._projection.tobytes())
        return f"lsa-{h.hexdigest()[:12]}"


def _params_dict(params: LSAParams) -> dict:
    return {k: getattr(params, k) for k in LSAParams.__dataclass_fields__}


def _tokens_for(params: LSAParams, texts: list[str], tokens: Sequence[Sequence[str]] | None) -> Iterable[Sequence[str]]:
    if not params.uses_tokens:
        return [regex_tokens(t) for t in texts]
    if isinstance(tokens, str) or len(tokens) != len(texts):
        raise ValueError("tokens must be one list of morphemes per text")
    return tokens


def _view_weights(params: LSAParams) -> tuple[np.float32, np.float32]:
    """The morpheme and char views' weights; squared they sum to 1, so a full row has unit length."""
    return (np.float32(params.word_weight), np.float32(math.sqrt(max(0.0, 1.0 - params.word_weight ** 2))))


def _combine(params: LSAParams, word: sp.csr_matrix, char: sp.csr_matrix) -> sp.csr_matrix:
    """The two views side by side, weighted."""
    w, c = _view_weights(params)
    return sp.hstack([word * w, char * c], format="csr", dtype=np.float32)
