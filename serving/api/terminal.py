"""`advisor ask` and `advisor serve`: the command-line front ends of the dialogue engine.

`ask` runs one question through the same engine the API serves: the profile questions it asks are
answered at the terminal (numbered options, Enter = don't know), or with "don't know" when stdin
is not a terminal, which is said on stderr so a script's output is never silently profile-blind.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from serving.answer.language import reply_language
from serving.dialogue import templates

EXIT_OK, EXIT_NO_BUILD, EXIT_BAD_INPUT = 0, 1, 2


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
        return EXIT_NO_BUILD
    try:
        reply = converse(advisor, question, profile, terminal)
    except DialogueInputError as exc:
        where = "--profile" if str(getattr(exc, "field", "")).startswith("profile") else "question"
        print(f"error: {where}: {exc}", file=terminal.stderr)
        return EXIT_BAD_INPUT
    print_answer(reply, terminal.stdout)
    return EXIT_OK


def serve_command(config, builds_root: Path, llm_settings, host: str, port: int, err: TextIO | None = None,
                  settings=None, config_path: str | Path | None = None) -> int:
    """Serves until interrupted; `config_path` (the file `config` came from, None for the default)
    is what the workers load when `settings.workers` > 1."""
    from serving.api.server import builds_holder, run
    from serving.api.sessions import SessionStoreError, open_session_store
    from serving.api.settings import ServingSettings

    err = err or sys.stderr  # looked up now: the caller may have replaced the process's stream
    settings = settings or ServingSettings()
    try:  # reachable and keeping nothing on disk: said now, not at the first student's second turn
        store = open_session_store(settings.session_store, settings.ttl, settings.max_sessions)
    except SessionStoreError as exc:
        print(f"error: {exc}", file=err)
        return EXIT_BAD_INPUT
    problem = workers_problem(settings.workers, store.shared)
    del store  # checked; the app opens its own (each worker its own)
    if problem:
        print(f"error: {problem}", file=err)
        return EXIT_BAD_INPUT
    holder = builds_holder(builds_root, config, llm_settings, settings.reload_interval)
    holder.refresh()  # load now, so a broken build is reported before the server starts
    advisor = holder.current()
    if advisor is None:
        reason = f" ({holder.last_error})" if holder.last_error else ""
        print(f"warning: no index build loaded from {builds_root}{reason}; /healthz answers 503 until "
              "`advisor materialize` publishes one", file=err)
    else:
        workers = f" with {settings.workers} workers" if settings.workers > 1 else ""
        print(f"serving index build {advisor.build_id} on http://{host}:{port}/{workers}", file=err)
    if settings.workers == 1:
        run(holder, host, port, settings)
    else:
        from serving.api.worker import run_workers

        del holder, advisor  # checked; each worker loads its own engine
        run_workers(config_path, builds_root, host, port, settings)
    return EXIT_OK


def workers_problem(workers: int, shared_sessions: bool) -> str | None:
    """Why `workers` processes cannot serve, or None; `shared_sessions`: does the session store
    share conversations between processes?"""
    if workers < 1:
        return f"--workers must be at least 1, got {workers}"
    if workers > 1 and not shared_sessions:
        return (f"--workers {workers} needs a shared session store (--session-store redis://host:port/db, or "
                "$ADVISOR_SESSION_STORE): the memory store is per process, so a conversation's next turn "
                "landing on another worker would be answered 404 unknown_session")
    return None
