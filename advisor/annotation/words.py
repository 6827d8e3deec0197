"""The words the rules annotator reads document structure with: data files, one per language
(``words_ko.yaml``, ``words_en.yaml`` beside this module), loaded here and nowhere else.

Each file maps a list's name to its words (what each list means is written in the files); the
lists of every language are merged, so a rule asks for ``takers`` and gets them in every language.
``DIGEST`` hashes the files, so the rules annotator's version follows an edited word list.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import yaml

FILES = tuple(sorted(Path(__file__).parent.glob("words_*.yaml")))


def _load() -> tuple[dict[str, tuple[str, ...]], str]:
    merged: dict[str, list[str]] = {}
    digest = hashlib.sha256()
    for path in FILES:
        raw = path.read_bytes()
        digest.update(path.name.encode() + b"\0" + raw)
        for key, words in (yaml.safe_load(raw) or {}).items():
            known = merged.setdefault(key, [])
            known += [w.strip() for w in words or () if w and w.strip() and w.strip() not in known]
    return {key: tuple(words) for key, words in merged.items()}, digest.hexdigest()[:12]


WORDS, DIGEST = _load()


def words(key: str) -> tuple[str, ...]:
    """The words of one list, every language's (a list no file names is empty)."""
    return WORDS.get(key, ())


def alternation(key: str) -> str:
    """The words of one list as a regex alternation (no group), longest first so that a longer
    word wins at the same place; spaces inside a word are optional, and a Latin word must end a
    word ("students", not the head of "studentship"). Never empty: a list without words matches
    nothing."""
    patterns = []
    for word in sorted(words(key), key=len, reverse=True):
        body = r"\s*".join(re.escape(part) for part in word.split())
        if word[-1].isascii() and word[-1].isalpha():
            body += r"(?![A-Za-z])"
        patterns.append(body)
    return "|".join(patterns) or r"(?!)"
