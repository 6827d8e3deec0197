"""The offline intent classifier: TF-IDF over character n-grams (1-4, within word boundaries,
robust to Korean endings, spacing and typos) plus word unigrams, into a linear model.

Two linear models are trained and the one with the better macro F1 on a validation part of the
training data is kept (both scores are recorded): logistic regression, and a linear SVM whose
scores are calibrated into probabilities. The validation part is chosen by source (FAQ entry,
document) so it measures unseen sources, as the held-apart test split does.
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

from advisor.intents import INTENTS, coarse
from advisor.intents.dataset import IntentExample
from advisor.intents.meta import unexplained_words
from advisor.intents.metrics import intent_report
from advisor.intents.not_sure import choose_threshold
from advisor.intents.seeds import form_key, site_key, stable_hash
from advisor.versioning import code_version

if TYPE_CHECKING:  # scikit-learn is imported where it is used: importing the pipeline's definitions
    # (every `advisor materialize`, every Dagster code-location load) need not pay its second
    from sklearn.pipeline import Pipeline
    from threadpoolctl import ThreadpoolController

MODEL_FILE = "intent_classifier.joblib"
META_FILE = "intent_classifier.json"
MODELS = ("logreg", "linear_svc")
VALIDATION_PERCENT = 20
# one BLAS / OpenMP thread: on small sparse problems their thread pools fight each other, and
# training was ~7x slower with two threads than with one on a 2-core machine
THREADS = 1
_THREADPOOLS: ThreadpoolController | None = None  # found once: scanning the loaded libraries costs ~8 ms


def _sklearn_version() -> str:
    import sklearn

    return sklearn.__version__


def _one_thread():
    global _THREADPOOLS
    if _THREADPOOLS is None:
        from threadpoolctl import ThreadpoolController

        _THREADPOOLS = ThreadpoolController()
    return _THREADPOOLS.limit(limits=THREADS)
MIN_EXAMPLES_PER_INTENT = 3  # the SVM's probability calibration needs 3 folds per class
COARSE_LABELS = ("greeting", "ability", "smalltalk", "information")


@dataclass(frozen=True)
class Prediction:
    intent: str
    confidence: float  # the predicted intent's probability
    scores: dict[str, float]  # every intent's probability


def make_pipeline(model: str) -> Pipeline:
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import FeatureUnion, Pipeline
    from sklearn.svm import LinearSVC

    features = FeatureUnion([
        ("chars", TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 4), sublinear_tf=True, lowercase=True)),
        ("words", TfidfVectorizer(analyzer="word", token_pattern=r"(?u)\b\w+\b", sublinear_tf=True, lowercase=True)),
    ])
    if model == "logreg":
        estimator = LogisticRegression(C=10.0, max_iter=3000, class_weight="balanced")
    elif model == "linear_svc":
        estimator = CalibratedClassifierCV(
            LinearSVC(C=0.5, class_weight="balanced"), cv=3, method="sigmoid", ensemble=False)  # one SVM to score with
    else:
        raise ValueError(f"unknown model {model!r}; expected one of {', '.join(MODELS)}")
    return Pipeline([("features", features), ("model", estimator)])


class IntentClassifier:
    def __init__(self, pipeline: Pipeline, meta: dict):
        self._pipeline = pipeline
        self.meta = meta

    @property
    def version(self) -> str:
        return self.meta["version"]

    @property
    def classes(self) -> tuple[str, ...]:
        return tuple(self._pipeline.classes_)

    @classmethod
    def train(cls, examples: Sequence[IntentExample], models: Sequence[str] = MODELS) -> "IntentClassifier":
        """Train on every example given (pass the train split); pick the model by validation
        macro F1, then refit it on all of them."""
        examples = list(examples)
        _check_trainable(examples)
        with _one_thread():
            return cls._train(examples, models)

    @classmethod
    def _train(cls, examples: list[IntentExample], models: Sequence[str]) -> "IntentClassifier":
        fit, held = _validation_split(examples)
        selection = {}
        for model in models:
            if len({e.intent for e in fit}) < 2 or not held:
                selection[model] = None  # too little data to compare: keep the first model
                continue
            pipeline = make_pipeline(model).fit([e.text for e in fit], [e.intent for e in fit])
            predicted = list(pipeline.predict([e.text for e in held]))
            truth = [e.intent for e in held]
            selection[model] = {
                "macro_f1": round(_macro_f1(truth, predicted, INTENTS), 4),
                "coarse_macro_f1": round(_macro_f1([coarse(t) for t in truth], [coarse(p) for p in predicted],
                                                   COARSE_LABELS), 4),
                "validation_examples": len(held),
            }
        scored = {m: s["macro_f1"] for m, s in selection.items() if s is not None}
        chosen = max(scored, key=lambda m: (scored[m], -list(models).index(m))) if scored else models[0]
        not_sure = _not_sure(chosen, fit, held)
        pipeline = make_pipeline(chosen).fit([e.text for e in examples], [e.intent for e in examples])
        digest = hashlib.sha256("\n".join(sorted(e.example_id for e in examples)).encode())
        digest.update(f"{chosen}|{code_version(sys.modules[__name__])}|{_sklearn_version()}".encode())
        meta = {
            "version": f"intent-{chosen}-{digest.hexdigest()[:12]}",
            "model": chosen,
            "classes": list(pipeline.classes_),
            "training_counts": dict(sorted(Counter(e.intent for e in examples).items())),
            "selection": selection,
            "not_sure": not_sure,
            # words of its greeting / ability examples beyond the assistant lexicon (advisor/intents/meta.py),
            # in practice the institution's names: "한빛대 챗봇은 뭘 할 수 있어" stays a question about the assistant
            "assistant_words": unexplained_words(e.text for e in examples if e.intent in ("greeting", "ability")),
            "sklearn_version": _sklearn_version(),
        }
        return cls(pipeline, meta)

    @property
    def assistant_words(self) -> frozenset[str]:
        return frozenset(self.meta.get("assistant_words") or ())

    @property
    def not_sure_threshold(self) -> float:
        """Below this probability a template intent is not trusted (see advisor/intents/not_sure.py);
        0 for a model saved before the threshold existed (every template prediction trusted)."""
        return float((self.meta.get("not_sure") or {}).get("threshold", 0.0))

    def predict(self, texts: Sequence[str]) -> list[Prediction]:
        if isinstance(texts, str):
            raise TypeError("predict takes a list of texts, not one string")
        texts = list(texts)
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"texts[{i}] is {type(text).__name__}, not str")
        if not texts:
            return []
        with _one_thread():
            # the pipeline's steps called directly: the same transforms and model, without
            # Pipeline.predict_proba's per-call wrapping (~1.2 ms of a 2.5 ms single-message call)
            features = texts
            for _, step in self._pipeline.steps[:-1]:
                features = step.transform(features)
            probabilities = self._pipeline.steps[-1][1].predict_proba(features)
        classes = self.classes
        out = []
        for row in probabilities:
            scores = {intent: round(float(p), 6) for intent, p in zip(classes, row)}
            best = max(scores, key=scores.get)
            out.append(Prediction(best, scores[best], scores))
        return out

    def save(self, directory: Path | str) -> Path:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        import joblib

        joblib.dump(self._pipeline, directory / MODEL_FILE)
        (directory / META_FILE).write_text(json.dumps(self.meta, ensure_ascii=False, indent=2), encoding="utf-8")
        return directory

    @classmethod
    def load(cls, directory: Path | str) -> "IntentClassifier":
        """A saved classifier. Only load directories this project wrote: joblib files are pickles."""
        directory = Path(directory)
        model_path, meta_path = directory / MODEL_FILE, directory / META_FILE
        missing = [p.name for p in (model_path, meta_path) if not p.exists()]
        if missing:
            raise FileNotFoundError(f"no intent classifier in {directory}: missing {', '.join(missing)}")
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("sklearn_version") != _sklearn_version():
            raise RuntimeError(
                f"the intent classifier in {directory} was saved with scikit-learn {meta.get('sklearn_version')}, "
                f"this is {_sklearn_version()}: retrain it (pickles do not carry across versions reliably)")
        import joblib

        return cls(joblib.load(model_path), meta)


def evaluate(classifier: IntentClassifier, examples: Sequence[IntentExample]) -> dict:
    """Per-intent precision / recall / F1, macro F1, accuracy and confusion counts; the same under
    "coarse" for the 4-way labels (faq and retrieval merged into information)."""
    examples = list(examples)
    if not examples:
        raise ValueError("evaluate needs at least one example")
    truth = [e.intent for e in examples]
    predicted = [p.intent for p in classifier.predict([e.text for e in examples])]
    labels = [i for i in INTENTS if i in set(truth) | set(predicted)]
    result = _metrics(truth, predicted, labels)
    coarse_labels = [c for c in COARSE_LABELS if c in {coarse(i) for i in labels}]
    result["coarse"] = _metrics([coarse(t) for t in truth], [coarse(p) for p in predicted], coarse_labels)
    return result


def _metrics(truth: list[str], predicted: list[str], labels: list[str]) -> dict:
    """advisor.intents.metrics.intent_report rounded for the manifest, with the confusion counts."""
    report = intent_report(truth, predicted, labels)
    from sklearn.metrics import confusion_matrix

    matrix = confusion_matrix(truth, predicted, labels=labels)
    return {
        "n": report["n"],
        "accuracy": round(report["accuracy"], 4),
        "macro_f1": round(report["macro_f1"], 4),
        "per_class": {label: {"precision": round(scores["precision"], 4), "recall": round(scores["recall"], 4),
                              "f1": round(scores["f1"], 4), "support": scores["support"]}
                      for label, scores in report["per_class"].items()},
        "confusion": {t: {p: int(matrix[i][j]) for j, p in enumerate(labels)} for i, t in enumerate(labels)},
    }


def _macro_f1(truth: list[str], predicted: list[str], labels: Sequence[str]) -> float:
    present = [label for label in labels if label in set(truth)]
    from sklearn.metrics import precision_recall_fscore_support

    _, _, f1, _ = precision_recall_fscore_support(truth, predicted, labels=present, zero_division=0)
    return float(f1.mean())


def _not_sure(model: str, fit: list[IntentExample], held: list[IntentExample]) -> dict:
    """The chosen model, fitted on the fit part only, scored on the held part (other sources, other
    hand-written forms): the threshold below which its template predictions are not trusted."""
    if len({e.intent for e in fit}) < 2 or not held:
        return {"threshold": 0.0, "reason": "too little data to hold a part out"}
    pipeline = make_pipeline(model).fit([e.text for e in fit], [e.intent for e in fit])
    classes = list(pipeline.classes_)
    probabilities = [dict(zip(classes, map(float, row))) for row in pipeline.predict_proba([e.text for e in held])]
    return choose_threshold([e.intent for e in held], probabilities)


def _validation_split(examples: list[IntentExample]) -> tuple[list[IntentExample], list[IntentExample]]:
    """A stable part of the training data to compare models on and to choose the "not sure"
    threshold on: by source where there is one, else by hand-written form (every decorated
    variant of a seed with its form), so the part held measures wordings the model never saw."""
    fit, held = [], []
    for e in examples:
        key = e.source_url or form_key(e.text)
        (held if stable_hash("validation|" + site_key(key)) % 100 < VALIDATION_PERCENT else fit).append(e)
    return fit, held


def _check_trainable(examples: list[IntentExample]) -> None:
    tally = Counter(e.intent for e in examples)
    unknown = set(tally) - set(INTENTS)
    if unknown:
        raise ValueError(f"unknown intents in the training examples: {sorted(unknown)}")
    if len(tally) < 2:
        raise ValueError(f"need examples of at least two intents to train, got {dict(tally)}")
    short = {intent: n for intent, n in tally.items() if n < MIN_EXAMPLES_PER_INTENT}
    if short:
        raise ValueError(f"need at least {MIN_EXAMPLES_PER_INTENT} examples per intent, got {short}")
