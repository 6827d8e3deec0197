"""`advisor ask`: one question run in the terminal through the same engine the API serves. The
profile questions it asks are answered at the terminal (numbered options, Enter = don't know), or
with "don't know" when stdin is not a terminal, which is said on stderr so a script's output is
never silently profile-blind. `advisor ask --server` asks a running server instead (remote.py).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from cli.exit_codes import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK
from serving.answer.language import reply_language
from serving.dialogue import templates


class BadInput(ValueError):
    """A command-line value that cannot be used; the message names it."""


def parse_profile_args(pairs: list[str]) -> dict[str, str]:
    """`--profile attr=value` pairs -> {attr: value}; values stay strings (the engine canonicalizes)."""
    profile: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name or not value:
            raise BadInput(f"--profile {pair!r}: expected attr=value")
        if name in profile:
            raise BadInput(f"--profile {name}: given twice")
        profile[name] = value
    return profile


@dataclass
class Terminal:
    # Looked up when a Terminal is made, not when this module is imported (tests and callers
    # may have replaced the process's streams by then).
    stdin: TextIO = field(default_factory=lambda: sys.stdin)
    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)
    # the language of the terminal's own words ("don't know", "choose 1-3"): the asker's, read from
    # the question as the engine reads it (`converse` sets it)
    language: str = "ko"

    @property
    def interactive(self) -> bool:
        return self.stdin.isatty()

    def answer(self, question) -> Any:
        """The chosen option's value, or None for "don't know"."""
        if not self.interactive:
            unknown = templates.text("unknown_option", self.language)
            print(f"(stdin is not a terminal: answering '{unknown}' to \"{question.question}\")", file=self.stderr)
            return None
        print(f"\n{question.question}", file=self.stdout)
        for number, option in enumerate(question.options, start=1):
            print(f"  {number}) {option.label}", file=self.stdout)
        print(f"  Enter) {templates.text('unknown_option', self.language)}", file=self.stdout)
        while True:
            print("> ", end="", file=self.stdout, flush=True)
            line = self.stdin.readline()
            if not line or not line.strip():  # end of input, or Enter
                return None
            choice = line.strip()
            if choice.isdigit() and 1 <= int(choice) <= len(question.options):
                return question.options[int(choice) - 1].value
            print(f"  {templates.text('choose_option', self.language, count=len(question.options))}", file=self.stdout)


def converse(advisor, question: str, profile: dict, terminal: Terminal, max_rounds: int | None = None):
    """Runs one question to its answer; DialogueInputError propagates (the caller names the field)."""
    session = advisor.new_session(profile or None)
    terminal.language = reply_language(question, getattr(advisor, "language", "ko"))
    reply = advisor.respond(session, message=question)
    # The engine asks each attribute at most once or twice per question; the cap only guards
    # against a loop if it ever did not.
    rounds_left = max_rounds if max_rounds is not None else 2 * len(getattr(advisor, "schema", {}) or {}) + 2
    while reply.type == "ask":
        if rounds_left <= 0:
            raise RuntimeError("the assistant kept asking profile questions without answering")
        rounds_left -= 1
        answers = {q.attribute: terminal.answer(q) for q in reply.questions}
        reply = advisor.respond(session, profile=answers)
    return reply


def print_answer(reply, out: TextIO) -> None:
    print(reply.answer, file=out)
    print(file=out)
    method = f" · {reply.answer_method}" if reply.answer_method else ""
    print(f"— tier: {reply.tier}{method}", file=out)
    if reply.disclaimer:
        print(f"— note: {reply.disclaimer}", file=out)
    if reply.citations:
        print("Sources:", file=out)
        for number, citation in enumerate(reply.citations, start=1):
            print(f"  [{number}] {citation.title or citation.url}", file=out)
            print(f"      {citation.url}", file=out)


def ask_command(question: str, profile_pairs: list[str], config, builds_root: Path, llm_settings,
                terminal: Terminal | None = None) -> int:
    from serving.dialogue.engine import DialogueInputError, NoBuildError, open_advisor

    terminal = terminal or Terminal()
    try:
        profile = parse_profile_args(profile_pairs)
    except BadInput as exc:
        print(f"error: {exc}", file=terminal.stderr)
        return EXIT_BAD_INPUT
    try:
        advisor = open_advisor(builds_root, config, llm_settings)
    except NoBuildError:
        print(f"error: no index build under {builds_root}: run `advisor materialize` first", file=terminal.stderr)
        return EXIT_FAILED
    try:
        reply = converse(advisor, question, profile, terminal)
    except DialogueInputError as exc:
        where = "--profile" if str(getattr(exc, "field", "")).startswith("profile") else "question"
        print(f"error: {where}: {exc}", file=terminal.stderr)
        return EXIT_BAD_INPUT
    print_answer(reply, terminal.stdout)
    return EXIT_OK
