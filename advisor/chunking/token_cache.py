"""The tokenizer the institution's config asks for, and its cache in the lakehouse.

One Kiwi setup is shared by chunks, indexes and queries; its content morphemes are computed once
per text (and tokenizer version) and kept in `chunk_tokens`, since Kiwi is the slow step.
"""

from __future__ import annotations

import duckdb

from advisor.chunking import kiwi_tokens
from advisor.config import InstitutionConfig
from advisor.lakehouse import insert_rows
from advisor.versioning import text_hash


def tokenizer_for(config: InstitutionConfig) -> kiwi_tokens.KiwiTokenizer:
    """The one tokenizer setup shared by chunks, indexes and queries (the config's aliases as
    user words, so 컴퓨터학과 stays one token)."""
    return kiwi_tokens.get_tokenizer(kiwi_tokens.user_words_from_config(config))


def tokenizer_version_for(config: InstitutionConfig) -> str:
    """The tokenizer's version without starting Kiwi (1.5-3.5 s): enough to see nothing changed."""
    return kiwi_tokens.tokenizer_version(kiwi_tokens.user_words_from_config(config))


def cached_tokens(
    con: duckdb.DuckDBPyConnection, tokenizer: kiwi_tokens.KiwiTokenizer, texts: list[str], report=None
) -> list[list[tuple[str, str]]]:
    """(form, tag) content morphemes for `texts`, from the cache where possible; new ones are
    stored. Kiwi is the slow step of the whole annotation stage, so no text is tokenized twice.
    `report` (a ChunkReport, optional) counts the tokens computed and those found cached."""
    hashes = [text_hash(t) for t in texts]
    known = {
        h: list(zip(tokens, tags))
        for h, tokens, tags in con.execute(
            "SELECT text_hash, tokens, tags FROM chunk_tokens WHERE tokenizer_version = ? AND text_hash IN (SELECT unnest(?))",
            [tokenizer.version, sorted(set(hashes))],
        ).fetchall()
    }
    missing = {h: t for h, t in zip(hashes, texts) if h not in known}
    if missing:
        computed = tokenizer.tagged_morphemes(list(missing.values()))
        insert_rows(con, "chunk_tokens", [
            {"text_hash": h, "tokenizer_version": tokenizer.version,
             "tokens": [form for form, _ in tagged], "tags": [tag for _, tag in tagged]}
            for h, tagged in zip(missing, computed)
        ])
        known.update(zip(missing, computed))
    if report is not None:
        report.tokens_computed += len(missing)
        report.tokens_cached += len(set(hashes)) - len(missing)
    return [known[h] for h in hashes]
