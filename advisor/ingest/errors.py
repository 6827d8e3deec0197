"""The one exception the parsers raise for a document that cannot be turned into text.

Callers record ``reason`` (a short stable code, safe to group and count by) next to the URL, and
show ``detail`` to people.
"""

from __future__ import annotations


class DocumentError(Exception):
    """A document that yields no usable text.

    ``reason`` is one of a small set of stable codes: ``corrupt_pdf``, ``encrypted_pdf``,
    ``empty_text``, ``undecodable``.
    """

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason, detail)
        self.reason = reason
        self.detail = detail

    def __str__(self) -> str:
        return f"{self.reason}: {self.detail}" if self.detail else self.reason
