"""The QA benchmark: synthesized from an index build and who each source applies to (synthesis.py:
the facts on a document's lines, facts.py, read by the evaluation's own line reader, line_reader.py
with its language data in reading/, and whom a line is for, line_scope.py; the questions,
questions.py, or an LLM's rewording, llm_questions.py), the institution's truth file (truth.py),
where the gold came from (provenance.py) and the benchmark file's format (file.py;
docs/contracts.md §3)."""
