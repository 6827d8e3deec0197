"""What every college's catalog is built on, whatever its numbers: curriculum-revision periods."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Period:
    """A curriculum-revision period: the cohorts (admission years) one curriculum applies to.
    A college subclasses it to say how its URLs and pages name a period."""

    first: int
    last: int

    def covers(self, year: int) -> bool:
        return self.first <= year <= self.last

    def span(self, dash: str) -> str:
        """The one year of a single-cohort period, else the first and last joined by ``dash``."""
        return str(self.first) if self.first == self.last else f"{self.first}{dash}{self.last}"
