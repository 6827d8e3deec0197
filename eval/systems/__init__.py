"""The evaluated systems: their one registry (registry.py: names, properties, settings), the
offline systems (offline.py), those that need an LLM and the answer judges (llm.py), the simulated
student (simulate.py) and the per-run caches the systems share (memo.py)."""
