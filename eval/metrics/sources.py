"""Which retrieved source is a gold source, and at which rank: the one rule every metric that reads
sources follows (docs/method.md §A "Evaluation protocol").

- Source identity (`source_matches`): a gold URL without a `#fragment` names a whole page and
  matches any chunk of that page (the chunk URL's fragment is dropped); a gold URL with a fragment
  names one FAQ entry and matches only that exact URL.
- Ranks count distinct retrieved sources (a page split into many chunks is one source).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

__all__ = ["any_gold", "checked_golds", "checked_k", "checked_ranks", "distinct_golds", "gold_rank", "gold_ranks",
           "source_matches", "url_list"]


def source_matches(gold_url: str, url: str) -> bool:
    """True when `url` (a retrieved or cited chunk's source) is the gold source `gold_url`.

    The fragment of `url` is dropped only when the gold has none: a page gold matches every chunk
    of that page (and FAQ entries on it), while an FAQ-entry gold (`page#id`) must match exactly,
    so a neighbouring entry of the same FAQ page does not count.
    """
    if not isinstance(gold_url, str) or not isinstance(url, str):
        raise TypeError(f"source URLs must be strings, got {type(gold_url).__name__} and {type(url).__name__}")
    if "#" in gold_url:
        return url == gold_url
    return url.split("#", 1)[0] == gold_url


def checked_golds(gold_sources: Collection[str]) -> list[str]:
    if isinstance(gold_sources, str):
        raise TypeError("gold_sources must be a collection of URLs, not a single string")
    golds = list(gold_sources)
    if not golds:
        raise ValueError("gold_sources is empty: every benchmark instance needs at least one gold source")
    return golds


def url_list(urls: Sequence[str], what: str) -> list[str]:
    if isinstance(urls, str):
        raise TypeError(f"{what} must be a sequence of URLs, not a single string")
    return list(urls)


def any_gold(golds: Sequence[str], urls: Sequence[str]) -> bool:
    return any(source_matches(g, u) for u in urls for g in golds)


def distinct_golds(gold_sources: Collection[str]) -> list[str]:
    return list(dict.fromkeys(checked_golds(gold_sources)))


def gold_ranks(ranked_urls: Sequence[str], gold_sources: Collection[str]) -> list[int]:
    """Sorted 1-based ranks, among the distinct sources of a ranked chunk list, of the gold sources
    that were retrieved: one per distinct gold source matched, at the first source matching it.

    Several chunks of one page are one source, so ranks count distinct URLs in first-seen order
    (otherwise a page split into many chunks would push every other source down). Two golds can
    share a rank (a page gold and an FAQ entry on that page are both matched by that entry).
    """
    golds = distinct_golds(gold_sources)
    distinct = list(dict.fromkeys(url_list(ranked_urls, "ranked_urls")))
    found = []
    for gold in golds:
        rank = next((r for r, url in enumerate(distinct, start=1) if source_matches(gold, url)), None)
        if rank is not None:
            found.append(rank)
    return sorted(found)


def gold_rank(ranked_urls: Sequence[str], gold_sources: Collection[str]) -> int | None:
    """1-based rank of the first gold source among the distinct sources of a ranked chunk list
    (the rank MRR and success@k use); None when no gold source was retrieved."""
    ranks = gold_ranks(ranked_urls, gold_sources)
    return ranks[0] if ranks else None


def checked_ranks(ranks: Sequence[int | None]) -> list[int | None]:
    checked = list(ranks)
    if not checked:
        raise ValueError("no ranks given: a mean over zero queries is undefined")
    for r in checked:
        if r is None:
            continue
        if isinstance(r, bool) or not isinstance(r, int) or r < 1:
            raise ValueError(f"a rank must be a positive int (1-based) or None, got {r!r}")
    return checked


def checked_k(k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive int, got {k!r}")
    return k
