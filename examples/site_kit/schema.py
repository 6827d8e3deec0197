"""A college's profile schema and the applicability records written over it.

Each college names its own attributes (institution.yaml's ``profile``, in order); ground truth
uses exactly those names, so the records are built here from the schema rather than by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

Limit = tuple | list | str | None  # values of a categorical attribute, or an inclusive (low, high) range


@dataclass(frozen=True)
class ProfileSchema:
    attributes: tuple[str, ...]  # in institution.yaml's order: a record lists them in this order
    categorical: Mapping[str, tuple[str, ...]]  # attribute -> its values, in schema order
    ranges: Mapping[str, tuple[int, int]]  # attribute -> (min, max)

    def applies(self, **limits: Limit) -> dict[str, Any]:
        """An applicability record over every attribute; an attribute not given does not limit.

        Categorical values come out in schema order and ranges are clipped to the schema's bounds;
        a limit that admits every value is None, so two records meaning the same thing compare equal.
        """
        unknown = set(limits) - set(self.attributes)
        if unknown:
            raise ValueError(f"not attributes of this schema: {sorted(unknown)}")
        return {name: self._limit(name, limits.get(name)) for name in self.attributes}

    def narrow(self, base: dict[str, Any], **overrides: Limit) -> dict[str, Any]:
        """``base`` with some attributes replaced: a section keeps its document's other limits."""
        merged = {k: (tuple(v) if isinstance(v, list) else v) for k, v in base.items()}
        merged.update(overrides)
        return self.applies(**merged)

    def _limit(self, name: str, value: Limit) -> list | None:
        if value is None:
            return None
        if name in self.categorical:
            allowed = self.categorical[name]
            values = {value} if isinstance(value, str) else set(value)
            if values - set(allowed):
                raise ValueError(f"{name}: unknown values {sorted(values - set(allowed))}")
            kept = [v for v in allowed if v in values]
            return None if len(kept) == len(allowed) else kept
        low_bound, high_bound = self.ranges[name]
        low, high = max(value[0], low_bound), min(value[1], high_bound)
        if low > high:
            raise ValueError(f"{name}: empty range {value}")
        return None if (low, high) == (low_bound, high_bound) else [low, high]
