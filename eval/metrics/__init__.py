"""The evaluation's metrics, ragas' way: one interface (metric.py), a module per metric (mrr.py,
recall.py, success.py, rouge_l.py, token_f1.py, keyword_match.py, source_match.py,
grounded_correctness.py, seconds_per_query.py, questions_per_query.py) and one registry that lists
them (registry.py). Beside them: which source is gold and at which rank (sources.py), the
benchmark's slices (slices.py), a system x setting's aggregate (aggregate.py), the 95% intervals
and paired tests (stats.py), and which attributes' labels cost proFILL an answer (label_errors.py).
"""
