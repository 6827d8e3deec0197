"""A question made fit for the question log: identifiers replaced by placeholders.

What is removed, in this order: the identifier shapes of the institution's country (resident
registration and student numbers: `advisor/language/<code>/identifiers.yaml`), e-mail addresses,
then phone numbers as Google's libphonenumber finds them (`phonenumbers.PhoneNumberMatcher`, valid
numbers only) for the institution's region and for the region of the language the question is
written in (an exchange student may write a number of their own country). The placeholders are
the institution's words ("[전화번호]"), since the office reads the log.

Person names are not removed: no maintained library found them offline with a model shipped in a
PyPI package at an acceptable error rate when this was written (README, "What the office sees").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import phonenumbers

from advisor import language as language_data
from advisor.language.script import language_of

# An address's usual shape (RFC 5322's dot-atom, a dotted domain): one shape everywhere, no locale
# knowledge. Generous on purpose: removing a string that is not quite an address costs nothing.
EMAIL = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
                   r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+")
DEFAULT_LANGUAGE = "ko"


@dataclass(frozen=True)
class Locale:
    """One language's identifiers.yaml, compiled."""

    phone_region: str | None
    placeholders: dict[str, str]
    patterns: tuple[tuple[str, re.Pattern], ...]  # (kind, pattern), in the file's order

    def placeholder(self, kind: str) -> str:
        return self.placeholders.get(kind, f"[{kind}]")


@cache
def locale(lang: str) -> Locale | None:
    """The identifier shapes of `lang`, None for a language without a file."""
    data = language_data.load(lang, "identifiers")
    if not data:
        return None
    patterns = tuple((kind, re.compile(expression)) for kind, expressions in (data.get("patterns") or {}).items()
                     for expression in expressions)
    return Locale(data.get("phone_region"), dict(data.get("placeholders") or {}), patterns)


def scrub(text: str, institution_language: str = DEFAULT_LANGUAGE) -> str:
    """`text` with its identifiers replaced by the institution's placeholders."""
    home = locale(institution_language) or locale(DEFAULT_LANGUAGE)
    asked = locale(language_of(text, institution_language)) or home
    for current in (home,) if asked is home else (home, asked):
        for kind, pattern in current.patterns:
            text = pattern.sub(lambda match, kind=kind: _replaced(match, home.placeholder(kind)), text)
    text = EMAIL.sub(home.placeholder("email"), text)
    for region in dict.fromkeys(r for r in (home.phone_region, asked.phone_region) if r):
        text = _without_phone_numbers(text, region, home.placeholder("phone"))
    return text


def _replaced(match: re.Match, placeholder: str) -> str:
    """The match replaced, or only its group `id` when the pattern names one (the words that say
    "this is my student number" stay: they tell the office what was asked)."""
    if "id" not in match.re.groupindex or match.group("id") is None:
        return placeholder
    start, end = match.span("id")
    whole = match.group(0)
    return whole[:start - match.start()] + placeholder + whole[end - match.start():]


def _without_phone_numbers(text: str, region: str, placeholder: str) -> str:
    if not any(character.isdigit() for character in text):
        return text  # the matcher's cost is in its digit scan; most questions have no digit at all
    parts, end = [], 0
    for found in phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.VALID):
        parts += [text[end:found.start], placeholder]
        end = found.end
    return "".join(parts) + text[end:] if parts else text
