"""Language knowledge as data: one folder per language (`advisor/language/<code>/`), YAML files a
maintainer reads and edits, this module their one reader (the way spaCy keeps `lang/<code>/` and
Lucene its stop-word and synonym files). Code never spells a word of a language: it asks for a
list by name.

    words("intents", "greeting")            the greeting examples of every language, in order
    load("ko", "questions")["frames"]       one language's file as a dict
    in_turn("router", "examples")           every language's examples, taken in turn
    alternation(words("answers", "asks_date"))   a regular expression of a word list

A file missing for a language is an empty dict: a language that has no example of something simply
contributes none.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from functools import cache
from importlib import resources
from itertools import zip_longest
from typing import Any

import yaml

LANGUAGES = ("ko", "en")


@cache
def load(lang: str, name: str) -> dict:
    """`advisor/language/<lang>/<name>.yaml` as a dict ({} when that language has no such file)."""
    path = resources.files(__name__) / lang / f"{name}.yaml"
    if not path.is_file():
        return {}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise ValueError(f"advisor/language/{lang}/{name}.yaml: expected a mapping at the top")
    return data


@cache
def languages_with(name: str) -> tuple[str, ...]:
    """The codes of the languages that have a file `name`, sorted."""
    root = resources.files(__name__)
    return tuple(sorted(p.name for p in root.iterdir() if p.is_dir() and (p / f"{name}.yaml").is_file()))


def digest(name: str) -> str:
    """A short hash of every language's file `name` (their bytes), for a version that must follow
    an edited word list."""
    hashed = hashlib.sha256()
    for lang in languages_with(name):
        hashed.update(lang.encode() + b"\0" + (resources.files(__name__) / lang / f"{name}.yaml").read_bytes())
    return hashed.hexdigest()[:12]


def words(name: str, key: str, langs: tuple[str, ...] = LANGUAGES) -> tuple[Any, ...]:
    """The list `key` of file `name`, concatenated over `langs` (duplicates dropped, order kept)."""
    out: list = []
    for lang in langs:
        value = load(lang, name).get(key) or []
        if not isinstance(value, list):
            raise ValueError(f"advisor/language/{lang}/{name}.yaml: {key!r} must be a list")
        out += value
    return tuple(dict.fromkeys(out)) if all(isinstance(v, str) for v in out) else tuple(out)


def in_turn(name: str, key: str, langs: tuple[str, ...] = LANGUAGES) -> tuple[Any, ...]:
    """The list `key` of file `name` of every language in `langs`, merged by taking each
    language's next item in turn (ko, en, ko, en, ..., then the rest of the longer list): a list
    that mixes languages keeps them mixed."""
    lists = []
    for lang in langs:
        value = load(lang, name).get(key) or []
        if not isinstance(value, list):
            raise ValueError(f"advisor/language/{lang}/{name}.yaml: {key!r} must be a list")
        lists.append(value)
    missing = object()
    return tuple(item for items in zip_longest(*lists, fillvalue=missing) for item in items if item is not missing)


def alternation(words_: Iterable[str]) -> str:
    """A regular expression that matches any of `words_` as written (each escaped), tried in order."""
    return "|".join(map(re.escape, words_))
