"""What the server may log: method, path and status, nothing that identifies a student; of an
exception, its type and where it was raised, never its message (which may quote what a student sent).

uvicorn's access log line carries the client address and the full path with its query string;
this filter replaces the address with "-", drops the query string, and masks session ids in
paths (a session id is the key to a profile in memory). Request bodies are never logged anywhere.
"""

from __future__ import annotations

import logging
import re
import traceback
from pathlib import Path

ACCESS_LOGGER = "uvicorn.access"
_SESSION_PATH = re.compile(r"^(/v1/sessions/)[^/?]+")


def redact_path(path: str) -> str:
    return _SESSION_PATH.sub(r"\1…", path.split("?", 1)[0])


class AccessLogRedactor(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        # uvicorn's access record: (client_addr, method, path_with_query, http_version, status)
        if isinstance(args, tuple) and len(args) == 5:
            _, method, path, version, status = args
            record.args = ("-", method, redact_path(str(path)), version, status)
        return True


def install_access_log_redaction() -> None:
    """Idempotent; a filter on the logger itself applies whatever handlers are configured."""
    logger = logging.getLogger(ACCESS_LOGGER)
    if not any(isinstance(f, AccessLogRedactor) for f in logger.filters):
        logger.addFilter(AccessLogRedactor())


def where(exc: BaseException) -> str:
    """The exception's type and the line that raised it: enough to debug, without its message
    (which may quote the student's input)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return type(exc).__name__
    last = frames[-1]
    return f"{type(exc).__name__} at {Path(last.filename).name}:{last.lineno} in {last.name}"
