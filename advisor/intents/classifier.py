"""The offline router's classifier: which ROUTE a message takes (greeting, ability, smalltalk,
leaving, or information), from two linear models trained per build on its intent dataset:

- logistic regression over the build's encoder vector of the message (`embed_queries`: e5, what
  the message means, in any language: "좋은 아침이에요 공강이라 들렀어요" is a greeting because it
  reads like one, not because a word list holds its words);
- logistic regression over TF-IDF character n-grams within words, and word unigrams (how it is
  written: endings, typos, spacing, emoticons).

Their probabilities are combined by a geometric mean (a route both models find likely wins), and a
"sure" threshold is chosen on a part of the training data neither model was fitted on (other
sources, other hand-written forms): below it the router is not sure, and the dialogue lets the
tiers' evidence decide (docs/method.md §A online step 2).

Encoding every example costs the encoder's time, so the vector model sees each hand-written form
with one of its variants and at most MAX_ENCODED_QUESTIONS of the build's questions; the n-gram
model sees every example.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from advisor.intents import ROUTES, TEMPLATE_ROUTES, route_of
from advisor.intents.dataset import IntentExample
from advisor.intents.metrics import intent_report
from advisor.intents.seeds import site_key, stable_hash
from advisor.versioning import code_version

if TYPE_CHECKING:  # scikit-learn is imported where it is used: loading the pipeline's definitions
    # (every `advisor materialize`) need not pay for it
    from sklearn.pipeline import Pipeline

ENCODER_FILE = "intent_encoder_model.npz"
NGRAM_FILE = "intent_ngram_model.joblib"
META_FILE = "intent_classifier.json"
VALIDATION_PERCENT = 20
MAX_ENCODED_QUESTIONS = 400  # the build's FAQ and document questions the vector model sees
VARIANTS_ENCODED = 1  # per hand-written form: its plain form (the n-gram model sees the decorations)
MAX_HELD = 400  # validation examples the threshold is chosen on (each costs an encoding)
ENCODER_C, NGRAM_C = 4.0, 10.0
# Below this a template route is never sure: its answer is left to the tiers' evidence first (a
# template message they cannot answer still gets its template). The validation part is drawn from
# the same hand-written forms as the training part and over-trusts the model; the floor was chosen
# on the development sets (docs/method.md §A online step 2).
SURE_FLOOR = 0.75
MISSED_TEMPLATE_COST = 0.5  # a template message left to the tiers costs half a wrong template reply
THREADS = 1  # one BLAS thread: on these small problems thread pools fight each other
MIN_EXAMPLES_PER_ROUTE = 2


@dataclass(frozen=True)
class Prediction:
    route: str
    confidence: float  # the route's combined probability
    scores: dict[str, float]  # every route's combined probability
    sure: bool  # confidence at or above the classifier's threshold


def make_ngram_pipeline() -> Pipeline:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import FeatureUnion, Pipeline

    features = FeatureUnion([
        ("chars", TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 4), sublinear_tf=True, lowercase=True)),
        ("words", TfidfVectorizer(analyzer="word", token_pattern=r"(?u)\b\w+\b", sublinear_tf=True, lowercase=True)),
    ])
    return Pipeline([("features", features),
                     ("model", LogisticRegression(C=NGRAM_C, max_iter=3000, class_weight="balanced"))])


class _EncoderModel:
    """Multinomial logistic regression over unit vectors, kept as plain arrays (no pickle)."""

    def __init__(self, coef: np.ndarray, intercept: np.ndarray, classes: Sequence[str]) -> None:
        self.coef, self.intercept, self.classes = coef.astype(np.float32), intercept.astype(np.float32), tuple(classes)

    @classmethod
    def fit(cls, vectors: np.ndarray, labels: Sequence[str]) -> "_EncoderModel":
        from sklearn.linear_model import LogisticRegression

        model = LogisticRegression(C=ENCODER_C, max_iter=3000, class_weight="balanced").fit(vectors, labels)
        return cls(model.coef_, model.intercept_, model.classes_)

    def probabilities(self, vectors: np.ndarray) -> np.ndarray:
        z = np.asarray(vectors, dtype=np.float32) @ self.coef.T + self.intercept
        if z.shape[1] == 1:  # two classes: sklearn keeps one row of weights
            z = np.hstack([-z, z])
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(axis=1, keepdims=True)


class IntentClassifier:
    def __init__(self, encoder_model: _EncoderModel | None, ngram: Pipeline, meta: dict, embedder=None) -> None:
        """`embedder`: the build's, which made the vector model's training vectors (None: the
        n-gram model alone)."""
        self.encoder_model, self.ngram, self.meta, self.embedder = encoder_model, ngram, meta, embedder

    @property
    def version(self) -> str:
        return self.meta["version"]

    @property
    def threshold(self) -> float:
        """The confidence a template route needs to answer on its own: the validation's threshold,
        and never below SURE_FLOOR."""
        return max(float(self.meta.get("threshold", 0.0)), SURE_FLOOR)

    # ------------------------------------------------------------------ training
    @classmethod
    def train(cls, examples: Sequence[IntentExample], embedder=None) -> "IntentClassifier":
        """Train on every example given (pass the train split), choose the sure threshold on a
        validation part first, then refit on all of them."""
        examples = list(examples)
        _check_trainable(examples)
        with _one_thread():
            fit, held = _validation_split(examples)
            validation = {"examples": len(held)}
            if held and len({route_of(e.intent) for e in fit}) >= 2:
                probe = cls._fit(fit, embedder)
                predicted = probe.predict([e.text for e in held], threshold=0.0)
                validation.update(choose_threshold([route_of(e.intent) for e in held], predicted))
            model = cls._fit(examples, embedder)
        digest = hashlib.sha256("\n".join(sorted(e.example_id for e in examples)).encode())
        digest.update(f"{code_version(sys.modules[__name__])}|{getattr(embedder, 'version', None)}".encode())
        model.meta = {
            "version": f"intent-{digest.hexdigest()[:12]}",
            "routes": list(ROUTES),
            "training_counts": dict(sorted(Counter(route_of(e.intent) for e in examples).items())),
            "encoder": getattr(embedder, "version", None),
            "encoded_examples": model.meta["encoded_examples"],
            "threshold": validation.get("threshold", 0.0),
            "validation": validation,
            "sklearn_version": _sklearn_version(),
        }
        return model

    @classmethod
    def _fit(cls, examples: list[IntentExample], embedder) -> "IntentClassifier":
        texts, labels = [e.text for e in examples], [route_of(e.intent) for e in examples]
        ngram = make_ngram_pipeline().fit(texts, labels)
        encoder_model, encoded = None, 0
        if embedder is not None:
            chosen = _encoded_subset(examples)
            vectors = embedder.embed_queries([e.text for e in chosen])
            encoder_model = _EncoderModel.fit(vectors, [route_of(e.intent) for e in chosen])
            encoded = len(chosen)
        return cls(encoder_model, ngram, {"encoded_examples": encoded}, embedder)

    # ------------------------------------------------------------------ prediction
    def predict(self, texts: Sequence[str], threshold: float | None = None) -> list[Prediction]:
        if isinstance(texts, str):
            raise TypeError("predict takes a list of texts, not one string")
        texts = list(texts)
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"texts[{i}] is {type(text).__name__}, not str")
        if not texts:
            return []
        threshold = self.threshold if threshold is None else threshold
        probabilities = self._probabilities(texts)
        out = []
        for row in probabilities:
            scores = {route: round(float(p), 6) for route, p in zip(ROUTES, row)}
            best = max(scores, key=scores.get)
            out.append(Prediction(best, scores[best], scores, scores[best] >= threshold))
        return out

    def _probabilities(self, texts: list[str]) -> np.ndarray:
        """Rows over ROUTES: the geometric mean of the two models' probabilities, renormalized."""
        with _one_thread():
            features = texts
            for _, step in self.ngram.steps[:-1]:  # the steps called directly: no per-call wrapping
                features = step.transform(features)
            ngram = _aligned(self.ngram.steps[-1][1].predict_proba(features), self.ngram.classes_)
        if self.encoder_model is None or self.embedder is None:
            return ngram
        encoder = _aligned(self.encoder_model.probabilities(self.embedder.embed_queries(texts)),
                           self.encoder_model.classes)
        combined = np.sqrt(np.maximum(ngram, 1e-9) * np.maximum(encoder, 1e-9))
        return combined / combined.sum(axis=1, keepdims=True)

    # ------------------------------------------------------------------ persistence
    def save(self, directory: Path | str) -> Path:
        import joblib

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        joblib.dump(self.ngram, directory / NGRAM_FILE)
        if self.encoder_model is not None:
            np.savez(directory / ENCODER_FILE, coef=self.encoder_model.coef, intercept=self.encoder_model.intercept,
                     classes=np.array(self.encoder_model.classes))
        (directory / META_FILE).write_text(json.dumps(self.meta, ensure_ascii=False, indent=2), encoding="utf-8")
        return directory

    @classmethod
    def load(cls, directory: Path | str, embedder=None) -> "IntentClassifier":
        """A saved classifier, its vector model run with `embedder` (the build's: the one it was
        trained with). Only load directories this project wrote: the n-gram model is a pickle."""
        import joblib

        directory = Path(directory)
        missing = [name for name in (NGRAM_FILE, META_FILE) if not (directory / name).exists()]
        if missing:
            raise FileNotFoundError(f"no intent classifier in {directory}: missing {', '.join(missing)} "
                                    "(a build made by an older version: rebuild the index, advisor materialize)")
        meta = json.loads((directory / META_FILE).read_text(encoding="utf-8"))
        if meta.get("sklearn_version") != _sklearn_version():
            raise RuntimeError(
                f"the intent classifier in {directory} was saved with scikit-learn {meta.get('sklearn_version')}, "
                f"this is {_sklearn_version()}: rebuild the index (advisor materialize)")
        encoder_model = None
        if (directory / ENCODER_FILE).exists() and embedder is not None:
            if meta.get("encoder") != getattr(embedder, "version", None):
                raise RuntimeError(f"the intent classifier in {directory} was trained on {meta.get('encoder')!r} "
                                   f"vectors, not {getattr(embedder, 'version', None)!r}")
            arrays = np.load(directory / ENCODER_FILE)
            encoder_model = _EncoderModel(arrays["coef"], arrays["intercept"], [str(c) for c in arrays["classes"]])
        return cls(encoder_model, joblib.load(directory / NGRAM_FILE), meta, embedder)


def evaluate(classifier: IntentClassifier, examples: Sequence[IntentExample]) -> dict:
    """Per-route precision / recall / F1, macro F1 and accuracy, with the confusion counts."""
    examples = list(examples)
    if not examples:
        raise ValueError("evaluate needs at least one example")
    truth = [route_of(e.intent) for e in examples]
    predicted = [p.route for p in classifier.predict([e.text for e in examples], threshold=0.0)]
    labels = [r for r in ROUTES if r in set(truth) | set(predicted)]
    report = intent_report(truth, predicted, labels)
    confusion = Counter(zip(truth, predicted))
    return {
        "n": report["n"], "accuracy": round(report["accuracy"], 4), "macro_f1": round(report["macro_f1"], 4),
        "per_class": {label: {"precision": round(scores["precision"], 4), "recall": round(scores["recall"], 4),
                              "f1": round(scores["f1"], 4), "support": scores["support"]}
                      for label, scores in report["per_class"].items()},
        "confusion": {t: {p: confusion[(t, p)] for p in labels} for t in labels},
    }


def choose_threshold(truth: Sequence[str], predicted: Sequence[Prediction]) -> dict:
    """The sure threshold (lowest among equally good ones) minimizing the cost of the template
    replies on held-out examples: a wrong template reply costs 1 (the student's question is lost),
    a template message left to the tiers MISSED_TEMPLATE_COST (the tiers usually find nothing and
    the leaning template answers; sometimes a passage is quoted instead)."""
    if len(truth) != len(predicted):
        raise ValueError(f"{len(truth)} labels but {len(predicted)} predictions")
    candidates = sorted({0.0} | {round(p.confidence, 4) for p in predicted if p.route in TEMPLATE_ROUTES})

    def cost(threshold: float) -> float:
        total = 0.0
        for gold, p in zip(truth, predicted):
            if p.route not in TEMPLATE_ROUTES:
                continue
            if p.confidence >= threshold:
                total += gold != p.route
            elif gold in TEMPLATE_ROUTES:
                total += MISSED_TEMPLATE_COST
        return total

    costs = {t: cost(t) for t in candidates}
    threshold = min(candidates, key=lambda t: (costs[t], t))
    sure = [(g, p) for g, p in zip(truth, predicted) if p.route in TEMPLATE_ROUTES and p.confidence >= threshold]
    return {"threshold": threshold, "cost_at_0": costs[0.0], "cost": costs[threshold],
            "sure_template_precision": round(sum(g == p.route for g, p in sure) / len(sure), 4) if sure else None}


def _encoded_subset(examples: list[IntentExample]) -> list[IntentExample]:
    """What the vector model is fitted on: VARIANTS_ENCODED variants of each hand-written form,
    and at most MAX_ENCODED_QUESTIONS of the build's questions (a seeded sample)."""
    questions = [e for e in examples if e.origin != "seed"]
    return encoded_seeds(examples) + sample(questions, MAX_ENCODED_QUESTIONS)


def encoded_seeds(examples: Sequence[IntentExample]) -> list[IntentExample]:
    """The seeds among `examples` the vector model encodes: VARIANTS_ENCODED of each form, the
    first by id (whatever order the examples come in)."""
    forms: dict[str, list[IntentExample]] = {}
    for e in sorted(examples, key=lambda e: e.example_id):
        if e.origin == "seed":
            forms.setdefault(_group_key(e), []).append(e)
    return [e for group in forms.values() for e in group[:VARIANTS_ENCODED]]


def _group_key(e: IntentExample) -> str:
    return e.source_url or e.example_id if e.origin != "seed" else e.intent + "|" + _form(e.text)


def _form(text: str) -> str:
    """A seed's text without case, punctuation, spaces and symbols: its variants mostly share it."""
    return "".join(ch for ch in text.lower() if ch.isalnum())[:12]


def _validation_split(examples: list[IntentExample]) -> tuple[list[IntentExample], list[IntentExample]]:
    """A stable part of the training data to choose the threshold on: by source where there is
    one, else by the seed's form, so the part held measures wordings the models never saw."""
    fit, held = [], []
    for e in examples:
        key = e.source_url or _form(e.text)
        (held if stable_hash("validation|" + site_key(key)) % 100 < VALIDATION_PERCENT else fit).append(e)
    return fit, sample(held, MAX_HELD)


def sample(examples: list[IntentExample], n: int) -> list[IntentExample]:
    """At most n of the examples, a stable draw (by id), in their order."""
    if len(examples) <= n:
        return examples
    keep = set(sorted((stable_hash(e.example_id), e.example_id) for e in examples)[:n])
    return [e for e in examples if (stable_hash(e.example_id), e.example_id) in keep]


def _aligned(probabilities: np.ndarray, classes: Sequence[str]) -> np.ndarray:
    """Columns reordered to ROUTES (a route the model never saw: probability 0)."""
    out = np.zeros((probabilities.shape[0], len(ROUTES)), dtype=np.float64)
    for j, route in enumerate(classes):
        out[:, ROUTES.index(str(route))] = probabilities[:, j]
    return out


def _check_trainable(examples: list[IntentExample]) -> None:
    tally = Counter(route_of(e.intent) for e in examples)  # raises on an unknown label
    if len(tally) < 2:
        raise ValueError(f"need examples of at least two routes to train, got {dict(tally)}")
    short = {route: n for route, n in tally.items() if n < MIN_EXAMPLES_PER_ROUTE}
    if short:
        raise ValueError(f"need at least {MIN_EXAMPLES_PER_ROUTE} examples per route, got {short}")


def _sklearn_version() -> str:
    import sklearn

    return sklearn.__version__


_THREADPOOLS = None


def _one_thread():
    global _THREADPOOLS
    if _THREADPOOLS is None:
        from threadpoolctl import ThreadpoolController

        _THREADPOOLS = ThreadpoolController()
    return _THREADPOOLS.limit(limits=THREADS)
