"""The longest message a student may send, in characters (code points, after trimming), one number
for everything that reads one: the dialogue engine refuses a longer one
(serving/dialogue/engine.py, whoever calls it), the API's `max_message_chars` defaults to it and
its page is given it when served, a preference-study question is one (advisor/config.py), and the
e5 encoder reads a query up to it (advisor/index/embed_e5.py)."""

MAX_MESSAGE_CHARS = 1_000
