"""Choose t_FAQ, the URAG tier-1 threshold, for the embedder in use (docs/method.md §B.6).

The paper's 0.9 belongs to its own embedding model: cosines of an LSA model, a hashing model or
another API model sit on different scales. So the threshold is swept and the one maximizing the
MRR of the TWO-TIER system on generated queries is kept:

- FAQ queries: paraphrases of every seed FAQ question (gold: the entry's URL), asked by a student
  the entry applies to;
- document queries: questions made from the titles / headings of non-FAQ chunks (gold: the
  chunk's doc_url). The FAQ tier should let them through, unless the entry it would answer with
  states what those chunks state (`answer_stated`): an office's FAQ often restates its pages
  ("학기제 현장실습은 무엇인가요?" beside the field-practice page's "학기제 현장실습" section), and such
  an entry answers the heading's question as well as the page does;
- off-topic queries: campus life no advising corpus covers (`advisor.faq.fit.OFFTOPIC_TOPICS`);
  the FAQ tier must let them through too (scored 1 when it does, 0 when it answers).

Every generated query belongs to one of two disjoint splits (paraphrases by position, documents
and off-topic topics by half): the "fit" split fits the match scorer (`advisor/faq/fit.py`), the
"calibrate" split chooses the threshold, so the threshold is chosen on paraphrases the scorer
never saw. `Calibration.split` records which was used.

At threshold t, a query whose best eligible FAQ match scores >= t is answered by the FAQ tier
(reciprocal rank 1 when that entry's source_url is the gold, else 0: a verbatim answer is right or
wrong, there is no second rank); every other query goes to the document tier (1 / rank of the gold
doc_url in the profile-aware retrieval, 0 when absent). Every query is searched ONCE; each
threshold is then arithmetic over the stored outcomes.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from advisor.faq.fit import answer_probe, fit_scorer, offtopic_probes
from advisor.faq.match import Scorer
from advisor.faq.paraphrase import paraphrases, question_forms
from advisor.faq.store import FAQ_KIND, FAQMatch, FAQStore
from advisor.index import fields
from advisor.index.store import IndexBuild
from advisor.intents.seeds import site_key  # the same site on another host or port: the same splits

PAPER_THRESHOLD = 0.9
GRID_START, GRID_STOP, GRID_STEP = 0.50, 0.995, 0.005
TIE_TOLERANCE = 1e-12
METHODS = ("rule_paraphrases", "llm_paraphrases")
OFFTOPIC = "offtopic"
_HANGUL = re.compile(r"[\uac00-\ud7a3]")  # an entry with a Hangul syllable is Korean
# A scored store's threshold: the lowest at which this share of the FAQ tier's answers on held-out
# queries is right. The scorer's score means "this entry answers it", so a precision target is the
# transferable rule; the two-tier MRR barely rewards a verbatim answer (the document tier usually
# finds the FAQ page too) and so pushed the threshold to the top of the grid.
MIN_PRECISION = 0.90
MRR_TOLERANCE = 0.01  # what the two-tier MRR may lose to more verbatim answers
# An FAQ answer a document query's own chunks state is a right answer to it (`answer_stated`):
# most of the answer's key words and all its numbers in those chunks
STATED_SHARE, STATED_MIN_WORDS = 0.8, 3
FIT, CALIBRATE = 0, 1  # the two splits: position parity of a paraphrase, half of documents / off-topic

Tokenize = Callable[[list[str]], list[list[str]]]


@dataclass(frozen=True)
class CalibrationQuery:
    text: str
    gold: str  # the source URL whose content answers it
    profile: dict  # the asking student (canonical values)
    kind: str  # "faq" (a paraphrased FAQ question) | "document" (answer only in the documents) | "offtopic"
    gold_text: str = ""  # a document query's: the text of the chunks it was made from


@dataclass(frozen=True)
class QueryOutcome:
    """What the two tiers do with one query, independent of the threshold."""

    kind: str
    faq_score: float | None  # cosine of the best eligible FAQ entry (None: no eligible entry)
    faq_correct: bool  # that entry's source_url is the gold
    doc_rr: float  # 1 / rank of the gold in the document tier (0: not retrieved)


@dataclass(frozen=True)
class SweepPoint:
    threshold: float
    mrr: float  # of the two-tier system
    faq_share: float  # share of queries the FAQ tier answers
    faq_precision: float | None  # share of those FAQ answers that are right (None: it answered none)
    queries: int
    faq_recall: float | None = None  # share of the FAQ paraphrases answered verbatim with their entry (None: none asked)


@dataclass
class Calibration:
    threshold: float
    floor: float | None  # below the threshold, down to here: an entry answers when retrieval ranks it first
    points: list[SweepPoint]
    queries: int
    method: str  # "rule_paraphrases" | "llm_paraphrases"
    faq_queries: int = 0
    document_queries: int = 0
    mrr_faq_off: float | None = None  # the document tier alone (no FAQ tier)
    seconds: float | None = None
    offtopic_queries: int = 0
    split: dict = field(default_factory=dict)  # which generated queries fitted the scorer / chose the threshold
    scorer: dict | None = None  # the fitted match scorer (advisor.faq.match.Scorer.as_dict) and its fit
    outcomes: list[QueryOutcome] = field(default_factory=list, repr=False)

    def point(self, threshold: float) -> SweepPoint:
        """The sweep point of `threshold` (computed from the stored outcomes if off the grid)."""
        for p in self.points:
            if math.isclose(p.threshold, threshold, abs_tol=1e-9):
                return p
        if not self.outcomes:
            raise KeyError(f"threshold {threshold} is not on the grid and no outcomes are stored")
        return point_at(self.outcomes, threshold)

    @property
    def chosen(self) -> SweepPoint:
        return self.point(self.threshold)

    def as_dict(self) -> dict:
        """JSON-able summary (for a build manifest or an evaluation row)."""
        data = {k: v for k, v in asdict(self).items() if k != "outcomes"}
        data["chosen"] = asdict(self.chosen)
        return data


# --------------------------------------------------------------------------- the sweep

FAQSearch = Callable[[Sequence[CalibrationQuery]], Sequence[FAQMatch | None]]
DocRank = Callable[[Sequence[CalibrationQuery]], Sequence[int | None]]


def evaluate(queries: Sequence[CalibrationQuery], faq_search: FAQSearch, doc_rank: DocRank,
             stated: Callable[[str, str], bool] | None = None) -> list[QueryOutcome]:
    """Each query through both tiers once. faq_search: the best eligible FAQ match per query (None
    when nothing is eligible); doc_rank: the 1-based rank of the gold in the documents (None: absent);
    stated(answer, gold_text): does a document query's own text state that FAQ answer (None: never,
    only the gold URL is right)."""
    queries = list(queries)
    best = list(faq_search(queries))
    ranks = list(doc_rank(queries))
    if not len(best) == len(ranks) == len(queries):
        raise ValueError("faq_search and doc_rank must return one result per query")
    outcomes = []
    for query, match, rank in zip(queries, best, ranks):
        if rank is not None and rank < 1:
            raise ValueError(f"ranks are 1-based, got {rank}")
        outcomes.append(QueryOutcome(
            kind=query.kind,
            faq_score=None if match is None else float(match.score),
            faq_correct=match is not None and (match.entry.source_url == query.gold or (
                stated is not None and query.kind == "document" and stated(match.entry.answer, query.gold_text))),
            # an off-topic query is right wherever the FAQ tier lets it go (no entry answers it)
            doc_rr=1.0 if query.kind == OFFTOPIC else (0.0 if rank is None else 1.0 / rank),
        ))
    return outcomes


def point_at(outcomes: Sequence[QueryOutcome], threshold: float) -> SweepPoint:
    if not outcomes:
        raise ValueError("no queries to compute an MRR on")
    total, answered, correct, paraphrases, paraphrases_right = 0.0, 0, 0, 0, 0
    for o in outcomes:
        paraphrases += o.kind == "faq"
        if o.faq_score is not None and o.faq_score >= threshold:
            answered += 1
            correct += o.faq_correct
            paraphrases_right += o.faq_correct and o.kind == "faq"
            total += 1.0 if o.faq_correct else 0.0
        else:
            total += o.doc_rr
    n = len(outcomes)
    return SweepPoint(threshold=threshold, mrr=total / n, faq_share=answered / n,
                      faq_precision=correct / answered if answered else None, queries=n,
                      faq_recall=paraphrases_right / paraphrases if paraphrases else None)


def sweep(queries: Sequence[CalibrationQuery], faq_search: FAQSearch, doc_rank: DocRank,
          thresholds: Sequence[float]) -> list[SweepPoint]:
    """The two-tier MRR (and the FAQ tier's share and precision) at every threshold."""
    outcomes = evaluate(queries, faq_search, doc_rank)
    return [point_at(outcomes, t) for t in thresholds]


def choose(points: Sequence[SweepPoint]) -> float:
    """The threshold of maximum MRR; on a tie the HIGHER one (verbatim answers only when sure)."""
    if not points:
        raise ValueError("no sweep points to choose from")
    best = max(p.mrr for p in points)
    return max(p.threshold for p in points if p.mrr >= best - TIE_TOLERANCE)


def choose_precise(points: Sequence[SweepPoint], min_precision: float = MIN_PRECISION,
                   mrr_tolerance: float = MRR_TOLERANCE) -> float:
    """The LOWEST threshold whose verbatim answers are at least `min_precision` right on the held-out
    queries (FAQ paraphrases, document and off-topic questions) AND whose two-tier MRR is within
    `mrr_tolerance` of the best threshold's: as many verbatim answers as the precision allows, as
    long as answering them does not cost the system the right documents (an FAQ entry that
    intercepts a question the documents answer better for this student). Not raised where the
    generated paraphrases stop gaining (`faq_recall` flat): a student's wording scores lower than
    a rule paraphrase, so the lower threshold still answers students the rules no longer tell
    apart. None qualifies: the maximum-MRR one (`choose`)."""
    if not points:
        raise ValueError("no sweep points to choose from")
    best = max(p.mrr for p in points)
    precise = [p.threshold for p in points if p.faq_precision is not None and p.faq_precision >= min_precision
               and p.mrr >= best - mrr_tolerance]
    return min(precise) if precise else choose(points)


def choose_separating(outcomes: Sequence[QueryOutcome], grid: Sequence[float],
                      min_precision: float = MIN_PRECISION) -> float:
    """For a fixed encoder fusion (advisor.faq.match.encoder_fusion): the LOWEST threshold at which
    no off-topic probe is answered from the FAQ and the FAQ paraphrases it answers are at least
    `min_precision` their own entry. Document questions an entry answers do not count against it:
    an office's FAQ restates its pages, and a student's wording scores well below a rule
    paraphrase, so the threshold the two-tier MRR of generated queries prefers turned away most
    real paraphrases (development sets: 8 of 60 answered verbatim on the demo college). None
    qualifies: the highest threshold of the grid."""
    def answered(o: QueryOutcome, t: float) -> bool:
        return o.faq_score is not None and o.faq_score >= t

    for threshold in sorted(grid):
        if any(answered(o, threshold) for o in outcomes if o.kind == OFFTOPIC):
            continue
        paraphrases = [o for o in outcomes if o.kind == "faq" and answered(o, threshold)]
        if paraphrases and sum(o.faq_correct for o in paraphrases) / len(paraphrases) >= min_precision:
            return threshold
    return max(grid)


def threshold_grid(start: float = GRID_START, stop: float = GRID_STOP, step: float = GRID_STEP) -> list[float]:
    if step <= 0 or start > stop:
        raise ValueError("a threshold grid needs step > 0 and start <= stop")
    count = int(round((stop - start) / step)) + 1
    return [round(start + i * step, 6) for i in range(count)]


def grid_for(scores: Sequence[float | None]) -> list[float]:
    """The default grid, widened downwards when this embedder's best-match cosines sit lower
    (5th percentile below 0.5): a threshold must be able to reach the scores that occur."""
    observed = np.array([s for s in scores if s is not None], dtype=float)
    start = GRID_START
    if observed.size:
        start = min(GRID_START, max(0.0, math.floor(float(np.percentile(observed, 5)) * 100) / 100))
    return threshold_grid(start, GRID_STOP, GRID_STEP)


# --------------------------------------------------------------------------- queries

def student_for(applies_to: Mapping, schema: fields.Schema) -> dict:
    """A student an annotation applies to: per constrained attribute its first value, or the
    range's lower end; unconstrained attributes stay unknown."""
    profile = {}
    for name, attribute in schema.items():
        value = applies_to.get(name)
        if value:
            profile[name] = value[0] if fields.is_categorical(attribute) else int(value[0])
    return profile


def faq_queries(store: FAQStore, paraphrases_of: Callable[[str, str], Sequence[str]]) -> list[CalibrationQuery]:
    """Paraphrases of every seed question; paraphrases_of(source_url, question) -> texts."""
    out = []
    for entry in store.entries:
        if entry.origin != "seed":
            continue
        profile = student_for(entry.applies_to, store.schema)
        for text in paraphrases_of(entry.source_url, entry.question):
            out.append(CalibrationQuery(text, entry.source_url, profile, "faq"))
    return out


def document_queries(build: IndexBuild, seed: int = 0, half: int | None = None) -> list[CalibrationQuery]:
    """One question per distinct (document, topic) of the non-FAQ chunks, the topic being the
    document title with the chunk's deepest heading when that adds something; its gold_text is
    the text of every chunk of that topic. `half` (0 or 1): only the documents of that half (split
    by a hash of the URL)."""
    topics: dict[tuple[str, str], tuple[str, dict, list[str]]] = {}  # (doc_url, topic) -> (question, profile, texts)
    for collection in build.collections.values():
        chunks = collection.chunks
        for row, (doc_url, title, kind, headings, text) in enumerate(zip(
                chunks["doc_url"].to_list(), chunks["title"].to_list(), chunks["kind"].to_list(),
                chunks["heading_path"].to_list(), chunks["text"].to_list())):
            if kind == FAQ_KIND or (half is not None and _stable_index(f"split\x00{site_key(doc_url)}", 2) != half):
                continue
            topic = _topic(title, list(headings or ()))
            if not topic:
                continue
            if (doc_url, topic) not in topics:
                forms = question_forms(topic)
                pick = _stable_index(f"{seed}\x00{site_key(doc_url)}\x00{topic}", len(forms))
                topics[(doc_url, topic)] = (forms[pick], student_for(collection.applies_to[row], build.schema), [])
            topics[(doc_url, topic)][2].append(text or "")
    return [CalibrationQuery(question, doc_url, profile, "document", "\n".join(texts))
            for (doc_url, _), (question, profile, texts) in topics.items()]


def answer_stated(key_words: Tokenize) -> Callable[[str, str], bool]:
    """stated(answer, text): does `text` state the FAQ `answer`: at least STATED_SHARE of the
    answer's distinct key words (Kiwi) in it, every number among them, and at least
    STATED_MIN_WORDS of them (a bare "네, 가능합니다." states nothing checkable)."""

    def stated(answer: str, text: str) -> bool:
        answer_words, text_words = (set(words) for words in key_words([answer, text]))
        if len(answer_words) < STATED_MIN_WORDS:
            return False
        numbers = {w for w in answer_words if any(ch.isdigit() for ch in w)}
        return numbers <= text_words and len(answer_words & text_words) >= STATED_SHARE * len(answer_words)

    return stated


def _topic(title: str | None, headings: list[str]) -> str:
    title = " ".join((title or "").split())
    last = " ".join(headings[-1].split()) if headings else ""
    if last and last not in title and title not in last:
        return f"{title} {last}".strip()
    return title or last


def _stable_index(key: str, size: int) -> int:
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") % size


def _batch_tokens(tokenize: Tokenize, texts: list[str]) -> Tokenize:
    """`tokenize` with `texts` done in one call up front (Kiwi is much faster on a batch); other
    texts still go through `tokenize`."""
    known = dict(zip(texts, tokenize(texts))) if texts else {}

    def cached(batch: list[str]) -> list[list[str]]:
        missing = [t for t in batch if t not in known]
        if missing:
            known.update(zip(missing, tokenize(missing)))
        return [known[t] for t in batch]

    return cached


def _cap(queries: list[CalibrationQuery], limit: int, seed: int) -> list[CalibrationQuery]:
    if len(queries) <= limit:
        return queries
    rng = random.Random(seed)
    keep = sorted(rng.sample(range(len(queries)), limit))
    return [queries[i] for i in keep]


# --------------------------------------------------------------------------- the two tiers

def store_search(store: FAQStore, embedder, tokenize: Tokenize, keywords: Tokenize | None = None) -> FAQSearch:
    """Tier 1 over `store`: the query embedded as it is (no profile prefix: questions are
    compared with questions), entries conflicting with the student's profile dropped."""

    def search(queries: Sequence[CalibrationQuery]) -> list[FAQMatch | None]:
        if not queries:
            return []
        texts = [q.text for q in queries]
        tokens = tokenize(texts)
        vectors = embedder.embed_queries(texts, tokens)
        words = keywords(texts) if keywords is not None else tokens
        best = []
        for query, vector, query_tokens in zip(queries, vectors, words):
            matches = store.search(vector, query.profile, k=1, hard=True, query_tokens=query_tokens)
            best.append(matches[0] if matches else None)
        return best

    return search


def retriever_rank(retriever, k: int | None = None) -> DocRank:
    """Tier 2: the rank of the gold doc_url in the profile-aware hybrid retrieval (top k; None: the
    retriever's own static_k + dynamic_k, as the dialogue retrieves)."""

    def rank(queries: Sequence[CalibrationQuery]) -> list[int | None]:
        if not queries:
            return []
        results = retriever.search_batch([q.text for q in queries], [q.profile for q in queries], k=k)
        ranks = []
        for query, result in zip(queries, results):
            ranks.append(next((c.rank for c in result.chunks if c.doc_url == query.gold), None))
        return ranks

    return rank


def calibrate(build: IndexBuild, store: FAQStore, tokenize: Tokenize, retriever, seed: int = 0,
              max_queries: int = 800, paraphrases_per_question: int = 2,
              llm_paraphrases: Mapping[str, Sequence[str]] | None = None,
              thresholds: Sequence[float] | None = None, k: int | None = None, keywords: Tokenize | None = None,
              fit: bool = True, scorer: Scorer | None = None) -> Calibration:
    """Fit the match scorer on one split of generated queries, then sweep t_FAQ on the other and
    choose it (see the module docstring). The result's `scorer` is what `save_scorer` writes
    beside the store; a store without key words (an old build) is calibrated unscored, as before.

    llm_paraphrases: source_url -> LLM paraphrases of that seed question that are NOT in the
    store (advisor.faq.enrichment holds them apart); when given, half of them (odd positions)
    replace the rule paraphrases of the calibration split (method "llm_paraphrases"), the other
    half join the fit split. max_queries caps each split's FAQ and other queries at half each (a
    side with fewer leaves its room to the other). keywords: what the store's key words were
    made with (None: `tokenize`). scorer: a fixed scorer to calibrate the threshold of, instead of
    fitting one (a pretrained encoder's fusion, advisor.faq.match.encoder_fusion)."""
    started = time.perf_counter()
    store.check_embedder(build.embedder)
    if max_queries < 2:
        raise ValueError("max_queries must be at least 2")
    key_words = keywords or tokenize
    method = "llm_paraphrases" if llm_paraphrases else "rule_paraphrases"
    fixed, scorer = scorer, None
    halves = (CALIBRATE,) if fixed is not None else (FIT, CALIBRATE)  # a fixed scorer needs no fit split
    splits = {half: _split_queries(build, store, tokenize, key_words, half, seed, paraphrases_per_question,
                                   llm_paraphrases, max_queries) for half in halves}
    if fixed is not None and store.lexicon is not None:
        store = store.with_scorer(fixed)
        scorer = {**fixed.as_dict(), "fit": {"fixed": "encoder fusion (advisor.faq.match.encoder_fusion)"}}
    elif fixed is None and fit and store.lexicon is not None:
        fitted, info = fit_scorer(store, build.embedder, key_words, tokenize,
                                  [(q.text, q.gold if q.kind == "faq" else None, q.profile) for q in splits[FIT]])
        if fitted is not None:
            store = store.with_scorer(fitted)
            scorer = {**fitted.as_dict(), "fit": info}
    queries = splits[CALIBRATE]
    if not queries:
        raise ValueError("no calibration queries: the build has no FAQ entries and no documents")
    outcomes = evaluate(queries, store_search(store, build.embedder, tokenize, key_words), retriever_rank(retriever, k),
                        answer_stated(key_words))
    grid = list(thresholds) if thresholds is not None else grid_for([o.faq_score for o in outcomes])
    points = [point_at(outcomes, t) for t in grid]
    count = lambda kind: sum(q.kind == kind for q in queries)  # noqa: E731
    split = {"objective": f"lowest threshold with FAQ precision >= {MIN_PRECISION} and two-tier MRR within {MRR_TOLERANCE} of the best" if scorer is not None
             else "maximum two-tier MRR", "fitted_on": "fit" if scorer is not None else None, "calibrated_on": "calibrate",
             "rule": "paraphrases at even positions fit the scorer, odd positions choose the threshold; "
                     "documents and off-topic topics split in halves",
             "fit_queries": len(splits.get(FIT, [])) if scorer is not None else 0, "calibrate_queries": len(queries)}
    threshold = choose_precise(points) if scorer is not None else choose(points)
    floor = None
    if fixed is not None and scorer is not None:
        floor = min(threshold, choose_separating(outcomes, grid))
        split["floor_objective"] = (f"lowest threshold answering no off-topic probe with FAQ paraphrase precision "
                                    f">= {MIN_PRECISION}: an entry between it and the threshold answers only when "
                                    "it is also what retrieval ranks first")
    return Calibration(
        threshold=threshold, floor=floor, points=points, queries=len(queries), method=method,
        faq_queries=count("faq"), document_queries=count("document"), offtopic_queries=count(OFFTOPIC),
        mrr_faq_off=point_at(outcomes, math.inf).mrr, seconds=time.perf_counter() - started, outcomes=outcomes,
        split=split, scorer=scorer,
    )


def _split_queries(build: IndexBuild, store: FAQStore, tokenize: Tokenize, key_words: Tokenize, half: int, seed: int,
                   per_question: int, llm_paraphrases: Mapping[str, Sequence[str]] | None,
                   max_queries: int) -> list[CalibrationQuery]:
    """The generated queries of one split (FIT or CALIBRATE), capped."""
    seeds = [e for e in store.entries if e.origin == "seed"]
    cached = _batch_tokens(tokenize, [e.question for e in seeds])
    given = {url: [t for t in texts if t and t.strip()] for url, texts in (llm_paraphrases or {}).items()}
    own_half = lambda texts: list(texts)[half::2]  # noqa: E731

    def llm_half(url: str) -> list[str]:
        texts = given.get(url, [])
        if len(texts) < 2:  # a lone held-out paraphrase chooses the threshold; rules fit the scorer
            return texts if half == CALIBRATE else []
        return own_half(texts)

    def paraphrases_of(url: str, question: str) -> list[str]:
        rule = own_half(paraphrases(question, 2 * per_question, seed, cached))
        if not given:
            return rule
        return llm_half(url) if half == CALIBRATE else rule + llm_half(url)

    faq = faq_queries(store, paraphrases_of)
    if not (given and half == CALIBRATE):  # held-out LLM paraphrases alone choose the threshold
        faq += _answer_probes(store, seeds, key_words, half, seed)
    documents = document_queries(build, seed, half)
    off = _offtopic_queries(store, key_words, half)
    faq = _cap(faq, max(max_queries // 2, max_queries - len(documents) - len(off)), seed)
    off = off[: max(0, (max_queries - len(faq)) // 4) or 0] if documents else off[: max_queries - len(faq)]
    documents = _cap(documents, max(0, max_queries - len(faq) - len(off)), seed)
    return faq + documents + off


def _answer_probes(store: FAQStore, seeds: Sequence, key_words: Tokenize, half: int, seed: int) -> list[CalibrationQuery]:
    """One answer probe (advisor.faq.fit.answer_probe) per seed entry and split."""
    if not seeds:
        return []
    question_words = key_words([e.question for e in seeds])
    answer_words = key_words([e.answer for e in seeds])
    weight = store.lexicon.weight if store.lexicon is not None else (lambda word: 1.0)
    out = []
    for entry, question, answer in zip(seeds, question_words, answer_words):
        korean = _HANGUL.search(entry.question) is not None
        text = answer_probe(question, answer, weight, korean, f"{seed}\x00{half}\x00{site_key(entry.source_url)}")
        if text:
            out.append(CalibrationQuery(text, entry.source_url, student_for(entry.applies_to, store.schema), "faq"))
    return out


def _offtopic_queries(store: FAQStore, key_words: Tokenize, half: int) -> list[CalibrationQuery]:
    """The off-topic probes of `half` whose topic no entry's question or answer mentions."""
    def covered(topic: str) -> bool:
        words = key_words([topic])[0]
        return store.lexicon is not None and bool(store.lexicon.rows_sharing(words))

    return [CalibrationQuery(text, "", {}, OFFTOPIC) for text in offtopic_probes(half, covered)]
