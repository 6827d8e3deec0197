"""Seeded choice among a college's own phrasings.

The phrases stay with each college (its wording is part of what makes it that institution); the
choosing is the same everywhere, and so is which case of a cohort range a phrase is for. Every
choice goes through the caller's seeded ``random.Random``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Mapping, Sequence

from .korean import josa


def pick(rng: random.Random, *options: str) -> str:
    return options[rng.randrange(len(options))]


def form_of(forms: Mapping[str, Sequence[str]], value: str, rng: random.Random, pair: str | None = None) -> str:
    """One of ``value``'s surface forms, with a particle pair ("은/는") attached if given."""
    word = pick(rng, *forms[value])
    return josa(word, pair) if pair else word


@dataclass(frozen=True)
class CohortPhrases:
    """How a college words the admission years [lo, hi] in one kind of place, as templates per
    case over {lo}, {hi} and their two-digit forms {yy_lo}, {yy_hi}. Called like a function:
    ``phrases(lo, hi, rng)``; a case with a single template is fixed text and draws nothing."""

    first: int  # the college's first and last cohorts: a range reaching one is open on that side
    last: int
    every: tuple[str, ...]  # every cohort
    until: tuple[str, ...]  # from the first cohort up to {hi}
    since: tuple[str, ...]  # from {lo} up to the last cohort
    single: tuple[str, ...]  # {lo} == {hi}
    span: tuple[str, ...]  # any other range
    pair: tuple[str, ...] = ()  # two consecutive cohorts, where the college words them apart from a span

    def __call__(self, lo: int, hi: int, rng: random.Random) -> str:
        if lo <= self.first and hi >= self.last:
            templates = self.every
        elif lo <= self.first:
            templates = self.until
        elif hi >= self.last:
            templates = self.since
        elif lo == hi:
            templates = self.single
        elif hi == lo + 1 and self.pair:
            templates = self.pair
        else:
            templates = self.span
        texts = [t.format(lo=lo, hi=hi, yy_lo=f"{lo % 100:02d}", yy_hi=f"{hi % 100:02d}") for t in templates]
        return texts[0] if len(texts) == 1 else pick(rng, *texts)
