"""`python -m eval.dialogue <warehouse> [config.yaml] [--llm]`: the dialogue benchmark on a warehouse's
latest build, printed as a Markdown metric table. Nothing is written: the lakehouse (one writer at a
time) is the `dialogue_benchmark` asset's; this is for measuring by hand. `--llm`: the configured
LLM (OPENAI_API_KEY / OPENAI_BASE_URL ...) also writes messages and judges the answers."""

from __future__ import annotations

import sys
from pathlib import Path

import duckdb

from advisor.config import load_config
from advisor.index.layout import builds_dir
from eval.dialogue.metrics import markdown
from eval.dialogue.record import run_benchmark
from serving.dialogue.engine import open_advisor


def main(argv: list[str]) -> int:
    use_llm = "--llm" in argv
    argv = [a for a in argv if a != "--llm"]
    if not argv or len(argv) > 2:
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 2
    config = load_config(argv[1] if len(argv) > 1 else None)
    advisor = open_advisor(builds_dir(Path(argv[0])), config)
    client = None
    if use_llm:
        from advisor.llm.client import LLMClient
        from advisor.llm.settings import LLMSettings

        client = LLMClient(LLMSettings.from_env())  # fails loudly when none is configured
    try:
        # in memory: nothing kept (the LLM cache neither: a second --llm run asks again)
        outcome = run_benchmark(duckdb.connect(), advisor, config, "by-hand", llm_client=client,
                                llm_missing="no --llm: the templates wrote every message and nothing was judged")
    finally:
        if client is not None:
            client.close()
    print(f"{config.institution} · build {outcome.build_id} · {outcome.messages} messages\n")
    if outcome.llm_report:
        print(f"LLM: {outcome.llm_report}\n")
    print(markdown(outcome.metrics))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
