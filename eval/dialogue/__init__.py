"""The dialogue benchmark (issue 12, part 1): messages of every intent in many registers, generated
for any institution from its index build and config (messages.py), sent once each through the real
engine (runner.py), scored (metrics.py) and recorded in the lakehouse (record.py).

Its gold comes from two places only, named on every row (`gold_from`): the generator's own
templates (greeting / ability / smalltalk / out-of-scope wordings, and the frames around topics)
and the FAQ store's entries (which entry an FAQ paraphrase must be answered from). Its templates
are disjoint from the intent dataset's seeds and rewrites and from the FAQ calibration's
paraphrases, so it measures generalization, not recall of training text.

realfaq.py is a separate, held-out check on material nobody on the project wrote: a real college
FAQ (kept outside the project; its path is an argument) built as a throwaway institution and asked
in students' own words (realfaq_questions.jsonl, hand-written, gold keyed by the FAQ's entry ids).
"""
