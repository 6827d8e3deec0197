"""The hand-written examples of the routes no document can supply (greeting, ability, smalltalk,
leaving) and of information questions put to the assistant itself, read from the language data
(`advisor/language/<code>/intents.yaml`) and varied by rule into the classifier's training data:
each form with the openers, addressees and endings a student puts around it, and the spellings
people type. The institution's own name (from its config) is the only specific word.

A form and all its variants form one `group`: the dataset keeps a group in one split, so the
held-apart part measures unseen wordings, not unseen punctuation of a wording seen in training.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from advisor import language

# variants kept per hand-written form: enough variety, and no form dominates the dataset
PER_FORM = {"greeting": 9, "ability": 9, "smalltalk": 6, "leaving": 6, "information": 2}
SEED_ROUTES = tuple(PER_FORM)
INSTITUTION_SLOT = "{inst}"
_HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")


@dataclass(frozen=True)
class Seed:
    text: str
    intent: str  # a route: greeting | ability | smalltalk | leaving | information
    group: str  # the hand-written form it was varied from


def seed_examples(institution: str) -> list[Seed]:
    """Every seed message, deterministic, without duplicates."""
    names = institution_names(institution)
    seeds: list[Seed] = []
    for lang in language.LANGUAGES:
        data = language.load(lang, "intents")
        for route in SEED_ROUTES:
            for group in data.get(route) or ():
                seeds += _group_seeds(route, group, names, lang)
    return _unique(seeds)


def _group_seeds(route: str, group: dict, names: Sequence[str], lang: str) -> list[Seed]:
    out = []
    openers, addressees, endings = (group.get(key) or [""] for key in ("openers", "addressees", "endings"))
    for form in group.get("forms") or ():
        plain = INSTITUTION_SLOT not in form  # a named form takes no opener or addressee
        for filled in fill_institution(form, names):
            variants = _variants(filled, openers if plain else [""], addressees if plain else [""], endings, lang)
            out += [Seed(text, route, group=form) for text in _pick(variants, form, PER_FORM[route])]
    return out


def question_openers(route: str) -> tuple[str, ...]:
    """What students put before a real question (a greeting, a remark) that leaves it a question:
    prepended to information examples as hard negatives for the template routes."""
    return tuple(opener for lang in language.LANGUAGES
                 for opener in (language.load(lang, "intents").get("question_openers") or {}).get(route) or ())


def institution_names(institution: str) -> list[str]:
    """The names a student might call the institution: the config's name, its parenthesised
    alternative ("한빛대학교 정보대학 (Hanbit University ...)") and its first word when that is the
    university's own name (it ends as the language data's university words do)."""
    parts = [p.strip() for p in re.split(r"[()]", institution) if p.strip()]
    names = list(parts)
    endings = language.words("intents", "university_words")
    for part in parts:
        first = part.split()[0]
        if first != part and first.endswith(endings):
            names.append(first)
    return list(dict.fromkeys(names)) or [institution.strip()]


def fill_institution(template: str, names: Sequence[str]) -> list[str]:
    """The template with each of the institution's names, or the template itself when it has no
    slot. Hangul templates take Hangul names, the others Latin ones, where there is a choice."""
    if INSTITUTION_SLOT not in template:
        return [template]
    hangul = has_hangul(template.replace(INSTITUTION_SLOT, ""))
    fitting = [n for n in names if has_hangul(n) == hangul] or list(names)
    return [template.replace(INSTITUTION_SLOT, name) for name in fitting]


def _variants(form: str, openers: Iterable[str], addressees: Iterable[str], endings: Iterable[str],
              lang: str) -> list[str]:
    """Every decorated variant of one form, spelling variants included, in a stable order."""
    out = []
    for spelling in spellings(form, lang):
        for opener in openers:
            for addressee in addressees:
                if addressee and len(spelling.split()) > 1:
                    continue  # addressees go with short greetings ("안녕 챗봇", not "만나서 반갑습니다 챗봇님")
                for ending in endings:
                    out.append(_tidy(f"{opener}{spelling}{addressee}{ending}"))
    return out


def spellings(form: str, lang: str) -> list[str]:
    """The form as written, plus the variants people type: its language's spelling rewrites (a
    casual ending, a space dropped or added), English in sentence case."""
    out = [form]
    for pattern, replacement in language.load(lang, "intents").get("spellings") or ():
        varied = re.sub(pattern, replacement, form, count=1)
        if varied != form:
            out.append(varied)
    if not has_hangul(form) and form[:1].isalpha():
        out.append(form[:1].upper() + form[1:])
    return list(dict.fromkeys(out))


def _pick(variants: list[str], form: str, count: int) -> list[str]:
    """`count` variants, the plain form always among them, the rest drawn by a seeded shuffle
    (seeded by the form: the same on every machine and run)."""
    unique = list(dict.fromkeys(variants))
    plain, rest = unique[:1], unique[1:]
    random.Random(stable_hash(form)).shuffle(rest)
    return plain + rest[: count - 1]


def _unique(seeds: list[Seed]) -> list[Seed]:
    seen, out = set(), []
    for seed in seeds:
        if seed.text not in seen:
            seen.add(seed.text)
            out.append(seed)
    return out


def stable_hash(text: str) -> int:
    """A hash that does not change between processes (Python's str hash is salted)."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def site_key(url_or_text: str) -> str:
    """A URL without its scheme and host, for hashing: the same site served from another host or
    port (a mirror, a staging copy, the demo on a free port) must get the same splits and draws."""
    parts = urlsplit(url_or_text)
    if not (parts.scheme and parts.netloc):
        return url_or_text
    return urlunsplit(("", "", parts.path or "/", parts.query, parts.fragment))


def _tidy(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def has_hangul(text: str) -> bool:
    return _HANGUL.search(text) is not None
