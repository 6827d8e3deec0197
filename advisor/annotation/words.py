"""The words the rules annotator reads document structure with, as regular expressions. The words
are data (`advisor/language/<code>/annotation.yaml`, read by `advisor.language` like every other
word list); what each list means is written in the files. Every language's list is used, so a rule
asks for ``takers`` and gets them in every language. ``DIGEST`` hashes the files, so the rules
annotator's version follows an edited word list.
"""

from __future__ import annotations

import re

from advisor import language

FILE = "annotation"
DIGEST = language.digest(FILE)


def words(key: str) -> tuple[str, ...]:
    """The words of one list, every language's (a list no file names is empty)."""
    return language.words(FILE, key)


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
