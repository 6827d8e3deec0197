"""What the token-overlap metrics (ROUGE-L, token F1) share: token lists checked, and F1 from an
overlap count."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["f1", "token_list"]


def token_list(tokens: Sequence[str], what: str) -> list[str]:
    # A bare string would silently be scored character by character.
    if isinstance(tokens, str):
        raise TypeError(f"{what} must be a list of tokens, not a string (tokenize before scoring)")
    return list(tokens)


def f1(overlap: int, n_candidate: int, n_reference: int) -> float:
    if overlap == 0:
        return 0.0
    precision = overlap / n_candidate
    recall = overlap / n_reference
    return 2 * precision * recall / (precision + recall)
