"""The dialogue benchmark (issue 12, part 1): messages of every intent in many registers, generated
for any institution from its index build and config (messages.py), sent once each through the real
engine (runner.py), scored (metrics.py) and recorded in the lakehouse (record.py).

Its gold comes from two places only, named on every row (`gold_from`): the generator's own
templates (greeting / ability / smalltalk / out-of-scope wordings, and the frames around topics)
and the FAQ store's entries (which entry an FAQ paraphrase must be answered from). Its templates
are disjoint from the intent dataset's seeds and rewrites and from the FAQ calibration's
paraphrases, so it measures generalization, not recall of training text.

It is DEVELOPMENT data now (issue 25): its messages were read and tuned on. The measure that
stays unseen is the locked test sets (eval/testsets/, run by eval/sets/).

realfaq.py renders a real college FAQ (kept outside the project; its path is an argument) as an
institution for those sets.
"""
