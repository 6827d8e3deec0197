"""The answer tiers, in the order a turn tries them: a template when the intent router is sure,
then URAG's FAQ tier, the documents tier and the fallback (docs/method.md). A reply's `tier` is one
of them (serving/dialogue/types.py), the evaluation shares a tiered system's answers out over them
(eval/systems/registry.py), and the usage coverage counts what students were answered by
(advisor/usage/coverage.py); the library owns the names because all of them may import it."""

TIERS = ("template", "faq", "documents", "fallback")
