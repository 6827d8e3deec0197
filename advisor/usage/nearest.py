"""The material closest to a question nobody answered: the served build's nearest FAQ entry and the
page its retrieval ranks first. The same FAQ store search and hybrid retrieval serving uses
(advisor/faq/store.py, advisor/retrieval/retriever.py), without a profile: the office asks what
the material holds near this question, for whoever asked it.
"""

from __future__ import annotations

import json
from pathlib import Path

from advisor.config import InstitutionConfig
from advisor.index.layout import BUILD_ID, FAQ_DIR, SERVING_FILE, builds_dir, latest_build_dir

__all__ = ["NearestMaterial", "build_thresholds"]


class NearestMaterial:
    """Opened on a build folder (Kiwi and the build's embedder: a few seconds; open it only when
    there is something to look up)."""

    def __init__(self, build_dir: Path, config: InstitutionConfig, tokenizer=None) -> None:
        from advisor.chunking.token_cache import tokenizer_for
        from advisor.faq.store import FAQStore
        from advisor.index.store import load_build
        from advisor.retrieval.params import params_from
        from advisor.retrieval.retriever import Retriever

        self.build = load_build(build_dir)
        self.build_id = self.build.build_id
        self.tokenizer = tokenizer or tokenizer_for(config)
        faq_dir = Path(build_dir) / FAQ_DIR
        self.faq = FAQStore.load(faq_dir, self.build.schema) if faq_dir.is_dir() else None
        self.retriever = Retriever(self.build, self.tokenizer.query_morphemes,
                                   params_from(self.build.manifest.get("lineage", {}).get("retrieval")))

    def lookup(self, question: str) -> dict:
        """The nearest FAQ entry (question, URL, match score) and first page (title, URL)."""
        found: dict = {"build_id": self.build_id}
        if self.faq is not None and len(self.faq):
            vector = self.build.embedder.embed_queries([question], self.tokenizer.content_morphemes([question]))[0]
            # no profile, no agreement floor: the closest entry, however far, is what the office compares
            matches = self.faq.search(vector, None, k=1, hard=False,
                                      query_tokens=self.tokenizer.key_words([question])[0], min_agreement=0.0)
            if matches:
                best = matches[0]
                found.update(nearest_faq_question=best.entry.question, nearest_faq_url=best.entry.source_url,
                             nearest_faq_score=round(float(best.score), 4))
        result = self.retriever.search(question, None, k=1)
        if result.chunks:
            found.update(nearest_page_title=result.chunks[0].title, nearest_page_url=result.chunks[0].doc_url)
        return found


def served_build(warehouse: Path) -> Path | None:
    """The published build (builds/LATEST), or None before the first one."""
    return latest_build_dir(builds_dir(warehouse))


def build_thresholds(warehouse: Path, build_ids) -> dict:
    """build id -> its serving.json (FAQ threshold and floor) for every id whose folder is still
    kept, and None -> the served build's (for records of builds since pruned)."""
    builds = builds_dir(warehouse)
    out: dict = {}
    # a record's build id names a folder only when it has a build id's shape
    for build_id in {b for b in build_ids if isinstance(b, str) and BUILD_ID.match(b)}:
        path = builds / build_id / SERVING_FILE
        if path.is_file():
            out[build_id] = json.loads(path.read_text(encoding="utf-8"))
    served = served_build(warehouse)
    if served is not None and (served / SERVING_FILE).is_file():
        out[None] = json.loads((served / SERVING_FILE).read_text(encoding="utf-8"))
    return out
