"""How well the coverage report's grouping recovers hand-made groups of questions, per cut distance:
the sweep that chose advisor/usage/coverage.py's CLUSTER_DISTANCE.

    python bench/usage_clusters.py [bench/data/usage_clusters_dev.jsonl]

Each line of the file is {"group": ..., "question": ...}; questions alone in their group are lone
questions the grouping should leave alone. Prints the adjusted Rand index of the grouping against
the file's groups for each distance, for the vectors as the encoder gives them and `centered`.
Choose on the development file only; the tests' seeded set (tests/data/usage_unanswered.jsonl)
is never swept.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import adjusted_rand_score

from advisor.index.embed_e5 import E5Embedder
from advisor.retrieval.glossary import shipped_glossary
from advisor.usage.coverage import SEED_VECTORS, centered, group_by_meaning, seed_background

DEV = Path(__file__).with_name("data") / "usage_clusters_dev.jsonl"


def main(path: Path = DEV) -> None:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    gold = [row["group"] for row in rows]
    encoder = E5Embedder()
    glossary = shipped_glossary()
    vectors = encoder.embed_queries([glossary.translate(row["question"])[0] for row in rows])
    background = seed_background(SEED_VECTORS, encoder.version)
    for name, prepared, distances in (("raw", centered(vectors, None), np.arange(0.08, 0.22, 0.01)),
                                      ("centered", centered(vectors, background), np.arange(0.50, 0.86, 0.02))):
        print(f"{name}: " + ", ".join(f"{d:.2f} {adjusted_rand_score(gold, group_by_meaning(prepared, d)):.2f}"
                                      for d in distances))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEV)
