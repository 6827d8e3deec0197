"""How well the coverage report's grouping recovers hand-made groups of questions, per variant and
cut distance: the sweep that chose advisor/usage/coverage.py's CLUSTER_DISTANCE and LEXICAL_SHARE.

    python bench/usage_clusters.py [bench/data/usage_clusters_dev.jsonl]
    python bench/usage_clusters.py --held-out tests/data/usage_unanswered_v3.jsonl

Each line of the file is {"group": ..., "question": ...}; questions alone in their group are lone
questions the grouping should leave alone. Prints the adjusted Rand index of the grouping against
the file's groups for each cut distance, per variant: e5's `centered` vectors alone (the former
method) or mixed with the questions' topic terms in a share, under average or complete linkage.
Choose on the development file only; the held-out sets are never swept.

`--held-out FILE` runs the chosen method (coverage.cluster_questions, as the coverage asset does)
on a locked held-out set, once: it refuses a file whose SHA-256 is not the one LOCKED names,
prints aggregates only (the adjusted Rand index, whether the partition is exact, groups found
against expected) and appends the run to HELD_OUT_RUNS, so how often a set was run is on record.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import adjusted_rand_score

from advisor.chunking.kiwi_tokens import get_tokenizer
from advisor.index.embed_e5 import E5Embedder
from advisor.retrieval.glossary import shipped_glossary
from advisor.usage.coverage import SEED_VECTORS, centered, group_by_meaning, seed_background, topic_terms

DEV = Path(__file__).with_name("data") / "usage_clusters_dev.jsonl"
HELD_OUT_RUNS = Path(__file__).with_name("data") / "usage_clusters_held_out_runs.jsonl"
# the held-out sets (tests/data/), by file name: their SHA-256 when they were written, before any run
LOCKED = {"usage_unanswered_v2.jsonl": "36acdade966c31f1688a5e167743b282f65f1d19a98c321898e635e8ea362c97",
          "usage_unanswered_v3.jsonl": "ddfb82a80de131829f1111f09433ce400c8cca7768ac21d2fed3515f183813cf"}
CUTS = np.round(np.arange(0.40, 0.92, 0.02), 2)
# (name, topic terms used, their share, linkage)
VARIANTS = [("e5 alone, average", False, 0.0, "average"), ("e5 alone, complete", False, 0.0, "complete"),
            *((f"e5 + terms {share}, average", True, share, "average") for share in (0.5, 0.6, 0.7, 0.8)),
            ("e5 + terms 0.7, complete", True, 0.7, "complete")]


def main(path: Path = DEV) -> None:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    gold = [row["group"] for row in rows]
    glossary = shipped_glossary()
    texts = [glossary.translate(row["question"])[0] for row in rows]
    encoder = E5Embedder()
    vectors = centered(encoder.embed_queries(texts), seed_background(SEED_VECTORS, encoder.version))
    terms = [topic_terms(words) for words in get_tokenizer().key_words(texts)]
    print(f"{len(rows)} questions, {len(set(gold))} groups; adjusted Rand index per cut distance")
    print(f"{'':28s}" + " ".join(f"{cut:.2f}" for cut in CUTS))
    for name, lexical, share, method in VARIANTS:
        scores = [adjusted_rand_score(gold, group_by_meaning(vectors, terms if lexical else None, cut, share, method))
                  for cut in CUTS]
        print(f"{name:28s}" + " ".join(f"{score:.2f}" for score in scores))


def held_out(path: Path) -> dict:
    """The chosen method on a locked held-out set: aggregates only, the run recorded."""
    import hashlib
    from datetime import datetime, timezone

    from advisor.usage.coverage import cluster_questions
    from eval.sets.runs import git_version

    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if LOCKED.get(path.name) != digest:
        raise SystemExit(f"{path}: not a locked held-out set (its SHA-256 {digest[:12]}... is not in LOCKED)")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    glossary = shipped_glossary()
    encoder = E5Embedder()
    background = seed_background(SEED_VECTORS, encoder.version)
    records = [{"question": row["question"], "tier": "fallback", "answered": False, "day": "2026-12-07"} for row in rows]
    clusters = cluster_questions(records, lambda texts: centered(encoder.embed_queries(texts), background),
                                 get_tokenizer().key_words, lambda text: glossary.translate(text)[0])
    label_of = {text: label for label, cluster in enumerate(clusters) for text in cluster.wordings}
    gold, found = [row["group"] for row in rows], [label_of[row["question"]] for row in rows]
    exact = adjusted_rand_score(gold, found) == 1.0
    run = {"at": datetime.now(timezone.utc).isoformat(timespec="seconds"), "file": path.name, "sha256": digest,
           "code_version": git_version(), "questions": len(rows), "groups_expected": len(set(gold)),
           "groups_found": len(clusters), "adjusted_rand_index": round(float(adjusted_rand_score(gold, found)), 4),
           "exact_partition": exact}
    with HELD_OUT_RUNS.open("a", encoding="utf-8") as log:
        log.write(json.dumps(run, ensure_ascii=False) + "\n")
    earlier = sum(1 for line in HELD_OUT_RUNS.read_text(encoding="utf-8").splitlines()
                  if line.strip() and json.loads(line)["sha256"] == digest) - 1
    print(f"{path.name}: {run['questions']} questions, {run['groups_expected']} groups expected, "
          f"{run['groups_found']} found; adjusted Rand index {run['adjusted_rand_index']}; exact partition: "
          f"{'yes' if exact else 'no'} (run {earlier + 1} of this set; recorded in {HELD_OUT_RUNS.name})")
    return run


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--held-out":
        held_out(Path(sys.argv[2]))
    else:
        main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEV)
