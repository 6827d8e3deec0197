"""What the dialogue needs besides the indexes, made inside a build before it is published
(build.write_build's `finalize`), so a published build is a complete serving artifact:

    <build>/faq/           the URAG tier-1 store: FAQ entries (seed + LLM enrichment), question and answer
                           vectors, the institution's aliases, and the match scorer fitted for this build
    <build>/intent/        the intent classifier, trained here on the lakehouse's intent_examples with the
                           build's encoder
    <build>/serving.json   the FAQ threshold calibrated for this build's embedder, and how it was chosen

The threshold must be calibrated per build: it depends on the embedder (the paper's 0.9 belongs
to text-embedding-3-small; an LSA model trained on this corpus has its own cosine scale).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Callable, Sequence

from advisor.faq.calibrate import Calibration, calibrate
from advisor.faq.fit import aliases_from_config
from advisor.faq.match import Scorer, encoder_fusion
from advisor.faq.store import FAQStore, faq_entries_from_build, save_scorer, write_faq_store
from advisor.index.embedders import PRETRAINED_EMBEDDERS
from advisor.index.layout import FAQ_DIR, INTENT_DIR, SERVING_FILE
from advisor.index.store import load_build
from advisor.index_build.semantic import semantic_thresholds
from advisor.intents import seed_vectors
from advisor.intents.classifier import IntentClassifier, evaluate, sample
from advisor.retrieval import Retriever, params_from

MAX_EVALUATED = 400  # held-apart examples the build scores its router on (each costs an encoding)


def prepare_serving(build_dir: Path, config, tokenizer, intent_examples: Sequence,
                    enrich: Callable | None = None) -> tuple[dict, list[dict]]:
    """Write the FAQ store, the intent model and serving.json into `build_dir`. `enrich(build)`
    (URAG-F, with an LLM) returns an advisor.faq.enrichment.Enrichment: its entries join the
    store, and its held-apart paraphrases calibrate the threshold instead of rule paraphrases.
    Returns (summary for the manifest, the threshold sweep's rows for the lakehouse)."""
    build_dir = Path(build_dir)
    faq_counts, calibration, enriched = prepare_faq(build_dir, config, tokenizer, enrich)
    build = load_build(build_dir)
    # a corpus model (LSA) gives a message's words it never saw no direction: the router's vector
    # model needs a pretrained encoder, else its n-gram model decides alone
    encoder = build.embedder if build.embedder.name in PRETRAINED_EMBEDDERS else None
    if encoder is not None:
        seed_vectors.warm(encoder)  # the seeds every institution shares, encoded once and shipped
    intent = _train_intents(build_dir / INTENT_DIR, intent_examples, encoder)
    semantic = semantic_thresholds(build, build.embedder)
    serving = {"faq_threshold": calibration.threshold, "faq_floor": calibration.floor,
               "calibration": calibration_summary(calibration),
               "intent": intent, "semantic_answerability": semantic["thresholds"], "semantic_calibration": semantic}
    (build_dir / SERVING_FILE).write_text(json.dumps(serving, ensure_ascii=False, indent=2), encoding="utf-8")
    sweep = [{**asdict(point), "chosen": point.threshold == calibration.threshold} for point in calibration.points]
    return {**serving, "faq": {**faq_counts, **enriched}}, sweep


def prepare_faq(build_dir: Path, config, tokenizer, enrich: Callable | None = None) -> tuple[dict, Calibration, dict]:
    """The FAQ half of prepare_serving: write the store (with the config's aliases), fit its match
    scorer and calibrate its threshold on disjoint generated queries, save the scorer beside the
    store. Returns (the store's counts, the calibration, the enrichment's summary)."""
    build = load_build(build_dir)
    tokenize = tokenizer.content_morphemes
    seeds = faq_entries_from_build(build)
    enrichment = enrich(build, seeds) if enrich is not None else None
    entries = seeds + (enrichment.entries if enrichment is not None else [])
    aliases = aliases_from_config(config, tokenizer.key_words)
    faq_counts = write_faq_store(build_dir / FAQ_DIR, entries, build.embedder, tokenize, tokenizer.key_words, aliases)
    store = FAQStore.load(build_dir / FAQ_DIR, build.schema)
    retriever = Retriever(build, tokenize, params_from(build.manifest["lineage"].get("retrieval")))
    # a pretrained encoder's cosines are fused with fixed weights; another embedder's are fitted
    fixed = encoder_fusion() if build.embedder.name in PRETRAINED_EMBEDDERS else None
    calibration = calibrate(build, store, tokenize, retriever, keywords=tokenizer.key_words,
                            llm_paraphrases=enrichment.calibration_paraphrases if enrichment is not None else None,
                            scorer=fixed)
    if calibration.scorer is not None:
        save_scorer(build_dir / FAQ_DIR, Scorer.from_dict(calibration.scorer),
                    {**calibration.scorer["fit"], "split": calibration.split})
    enriched = {"enrichment": "llm" if enrichment is not None else "off", "aliases": len(aliases)}
    if enrichment is not None:
        enriched["enrichment_failures"] = dict(enrichment.failures)
    return faq_counts, calibration, enriched


def calibration_summary(calibration: Calibration) -> dict:
    """What serving.json records of the calibration: the queries, the split, the scorer, the choice."""
    return {"method": calibration.method, "queries": calibration.queries,
            "faq_queries": calibration.faq_queries, "document_queries": calibration.document_queries,
            "offtopic_queries": calibration.offtopic_queries, "mrr_faq_off": calibration.mrr_faq_off,
            "split": calibration.split, "scorer": calibration.scorer,
            "chosen": next((asdict(p) for p in calibration.points if p.threshold == calibration.threshold), None)}


def _train_intents(directory: Path, examples: Sequence, embedder) -> dict:
    """Train on the train split (its vector model on `embedder`'s vectors), measure on the
    held-apart test split, save."""
    if not examples:
        return {"trained": False, "reason": "no intent examples in the lakehouse (materialize intent_dataset)"}
    train = [e for e in examples if e.split == "train"]
    test = [e for e in examples if e.split == "test"]
    classifier = IntentClassifier.train(train, embedder)
    classifier.save(directory)
    held_out = evaluate(classifier, sample(test, MAX_EVALUATED)) if test else {}
    return {"trained": True, "version": classifier.version, "train": len(train), "test": len(test),
            "held_out": {k: held_out[k] for k in ("accuracy", "macro_f1") if k in held_out}}
