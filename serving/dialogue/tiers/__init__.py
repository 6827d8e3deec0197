"""The URAG tiers (docs/method.md §B.1–§B.3), tried in order on a question whose profile needs are
settled: the FAQ (faq.py), the documents (documents.py), the disclaimed fallback (fallback.py).
Each has `try_answer(turn)`: a reply, `Ask` (its evidence depends on attributes to ask first), or
None (the next tier answers)."""
