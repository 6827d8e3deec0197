"""How well the coverage report's grouping recovers hand-made groups of questions, per variant and
cut distance: the sweep that chose advisor/usage/coverage.py's CLUSTER_DISTANCE and LEXICAL_SHARE.

    python bench/usage_clusters.py [bench/data/usage_clusters_dev.jsonl]

Each line of the file is {"group": ..., "question": ...}; questions alone in their group are lone
questions the grouping should leave alone. Prints the adjusted Rand index of the grouping against
the file's groups for each cut distance, per variant: e5's `centered` vectors alone (the former
method) or mixed with the questions' topic terms in a share, under average or complete linkage.
Choose on the development file only; the tests' held-out set (tests/data/usage_unanswered_v2.jsonl)
is never swept.
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


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEV)
