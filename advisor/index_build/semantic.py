"""How close an unrelated question gets to this build's corpus: per language, the encoder's cosine
above which a passage answers a question in other words (serving/dialogue/understanding.py,
`answers_in_other_words`; docs/method.md §A online step 7).

Raw encoder cosines are compressed and corpus-dependent (multilingual-e5: unrelated questions reach
0.80-0.86 against a college's pages, paraphrases 0.88-0.93), so no fixed number transfers. Each
build measures its own floor instead: the off-topic probes of each language (everyday questions no
advising corpus covers) are embedded, each finds its closest passage, and the threshold is the
highest of those similarities plus MARGIN. Only for pretrained encoders: LSA gives an unseen word
no direction at all, so its cosines mean nothing here.
"""

from __future__ import annotations

import numpy as np

from advisor.faq.fit import OFFTOPIC_TOPICS
from advisor.index.embedders import PRETRAINED_EMBEDDERS
from advisor.index.store import IndexBuild
from advisor.intents.seeds import has_hangul

# above the closest an unrelated question came; chosen on the development sets (docs/method.md)
MARGIN = 0.015
MIN_PROBES = 5  # a language with fewer probes gets no threshold (the key-word check alone)


def semantic_thresholds(build: IndexBuild, embedder) -> dict:
    """{"thresholds": {language: cosine}, "margin", "probes": {language: count}}; empty thresholds
    for an embedder that is no pretrained encoder or a build without passages."""
    vectors = [np.asarray(c.vectors) for c in build.collections.values() if len(c)]
    if getattr(embedder, "name", None) not in PRETRAINED_EMBEDDERS or not vectors:
        return {"thresholds": {}, "reason": "no pretrained encoder" if vectors else "no passages"}
    passages = np.concatenate(vectors)
    by_language: dict[str, list[str]] = {}
    for _, text in OFFTOPIC_TOPICS:
        by_language.setdefault("ko" if has_hangul(text) else "en", []).append(text)
    thresholds, counts = {}, {}
    for language, probes in sorted(by_language.items()):
        counts[language] = len(probes)
        if len(probes) < MIN_PROBES:
            continue
        closest = (embedder.embed_queries(probes) @ passages.T).max(axis=1)
        thresholds[language] = round(float(closest.max()) + MARGIN, 4)
    return {"thresholds": thresholds, "margin": MARGIN, "probes": counts}
