"""`advisor ask --server URL`: one question asked of a running `advisor serve`, in well under a
second, instead of starting an engine (Kiwi, the index, the models: seconds) for one answer.

The same dialogue as `advisor ask` (terminal.py), over the HTTP API (docs/contracts.md §4) with the
standard library only: the profile questions are answered at the terminal, and the
conversation is forgotten on the server (DELETE) when the answer has arrived.
"""

from __future__ import annotations

import contextlib
import json
import urllib.error
import urllib.request
from types import SimpleNamespace
from typing import Any

from cli.exit_codes import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK
from cli.terminal import Terminal, print_answer
from serving.answer.language import reply_language

TIMEOUT_SECONDS = 60.0
MAX_ROUNDS = 20  # the server asks each attribute at most twice; this only stops a loop


class RemoteError(Exception):
    # no server to ask: the code of "no index build" (EXIT_FAILED), since nothing could answer either way
    def __init__(self, message: str, code: int = EXIT_FAILED):
        super().__init__(message)
        self.code = code


def _call(base: str, method: str, path: str, body: dict | None = None) -> dict | None:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base.rstrip("/") + path, data=data, method=method,
                                     headers={"content-type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
            raw = response.read()
    except urllib.error.HTTPError as exc:
        error = _error_of(exc)
        code = EXIT_BAD_INPUT if exc.code in (400, 404, 413, 422) else EXIT_FAILED
        raise RemoteError(f"{base} answered {exc.code}: {error}", code) from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise RemoteError(f"cannot reach {base} ({reason}); is `advisor serve` running there?") from None
    return json.loads(raw) if raw else None


def _error_of(exc: urllib.error.HTTPError) -> str:
    try:
        error = json.loads(exc.read())["error"]
        return f"{error['code']}: {error['message']}"
    except (ValueError, KeyError, TypeError):
        return exc.reason or "error"


def _as_objects(value: Any) -> Any:
    """JSON objects as attribute objects, the shape print_answer and Terminal.answer read."""
    if isinstance(value, dict):
        return SimpleNamespace(**{k: _as_objects(v) for k, v in value.items()})
    if isinstance(value, list):
        return [_as_objects(v) for v in value]
    return value


def ask_remote(base: str, question: str, profile: dict[str, str], terminal: Terminal | None = None) -> int:
    """Asks `question` of the server at `base`; the exit code of `advisor ask`."""
    terminal = terminal or Terminal()
    terminal.language = reply_language(question, terminal.language)  # its own words in the asker's language
    if not base.startswith(("http://", "https://")):
        print(f"error: --server {base!r}: expected http://host:port", file=terminal.stderr)
        return EXIT_BAD_INPUT
    session_id = None
    try:
        reply = _call(base, "POST", "/v1/chat", {"message": question})
        session_id = reply["session_id"]
        rounds = 0
        while reply["type"] == "ask":
            rounds += 1
            if rounds > MAX_ROUNDS:
                raise RemoteError("the server kept asking profile questions without answering")
            # what the student gave with --profile answers the questions it covers; the rest are asked
            reply = _answer(base, session_id, reply, lambda q: (
                profile[q.attribute] if q.attribute in profile else terminal.answer(q)))
    except RemoteError as exc:
        print(f"error: {exc}", file=terminal.stderr)
        return exc.code
    finally:
        if session_id is not None:  # the profile lives on the server only while it is needed
            with contextlib.suppress(RemoteError):
                _call(base, "DELETE", f"/v1/sessions/{session_id}")
    print_answer(_as_objects(reply), terminal.stdout)
    return EXIT_OK


def _answer(base: str, session_id: str, reply: dict, choose) -> dict:
    answers = {}
    for question in _as_objects(reply["questions"]):
        chosen = choose(question)
        answers[question.attribute] = _option_value(question, chosen) if chosen is not None else None
    return _call(base, "POST", "/v1/chat", {"session_id": session_id, "profile": answers})


def _option_value(question, chosen: Any) -> Any:
    """An option's own value for what was chosen or given (`--profile year=2021` gives "2021"
    where the option's value is 2021)."""
    for option in question.options:
        if str(option.value) == str(chosen) or option.label == str(chosen):
            return option.value
    return chosen
