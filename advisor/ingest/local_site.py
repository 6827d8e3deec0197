"""Serve a static site folder on loopback while the crawler runs.

The crawler then exercises the same HTTP path (status codes, conditional GET, robots.txt) on a
bundled site as on a real university site. ETags are content hashes and Last-Modified comes from
file mtimes, so an unchanged site answers a re-crawl with 304s.

The folder may be a mirror saved by ``wget --mirror [--adjust-extension]``: a dynamic page
``/bbs/view.php?no=12`` is then the file ``bbs/view.php?no=12`` (or ``…?no=12.html``), and
``/index.php`` may be ``index.php.html``. Such names are looked up only when no plain file
matches, so an ordinary static folder is served exactly as before.
"""

from __future__ import annotations

import email.utils
import hashlib
import http.server
import io
import threading
from contextlib import contextmanager
from datetime import date
from functools import partial
from pathlib import Path
from typing import Callable, Iterator
from urllib.parse import unquote, urlsplit

from advisor.config import LocalSite


class _StaticHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # quiet: the crawler logs fetches
        pass

    def send_head(self):  # type: ignore[override]
        path = Path(self.translate_path(self.path))
        query = unquote(urlsplit(self.path).query)
        if path.is_dir():
            if not self.path.split("?", 1)[0].endswith("/"):
                return super().send_head()  # SimpleHTTPRequestHandler's redirect to "dir/"
            path = path / "index.html"
        path = _mirrored(path, query)
        if path is None:
            self.send_error(404, "File not found")
            return None
        data = path.read_bytes()
        etag = '"' + hashlib.sha256(data).hexdigest()[:32] + '"'
        last_modified = email.utils.formatdate(int(path.stat().st_mtime), usegmt=True)
        if self._not_modified(etag, int(path.stat().st_mtime)):
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", last_modified)
            self.end_headers()
            return None
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Length", str(len(data)))
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", last_modified)
        self.end_headers()
        return io.BytesIO(data)

    def _not_modified(self, etag: str, mtime: int) -> bool:
        if_none_match = self.headers.get("If-None-Match")
        if if_none_match is not None:  # RFC 9110: If-None-Match wins over If-Modified-Since
            return etag in [tag.strip() for tag in if_none_match.split(",")]
        since = self.headers.get("If-Modified-Since")
        if since:
            try:
                return mtime <= email.utils.parsedate_to_datetime(since).timestamp()
            except (TypeError, ValueError):
                return False
        return False


def _mirrored(path: Path, query: str) -> Path | None:
    """The file that holds ``path`` (+ ``?query``): the name wget gives the page with its query,
    else the plain file (a static site ignores queries such as ``?v=3``), else ``name.html``."""
    candidates = []
    if query and not any(c in query for c in "/\\\0"):  # a file name, never a way out of the folder
        candidates += [path.with_name(f"{path.name}?{query}"), path.with_name(f"{path.name}?{query}.html")]
    candidates += [path, path.with_name(path.name + ".html")]
    return next((c for c in candidates if c.is_file()), None)


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


@contextmanager
def serve_directory(directory: Path, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve `directory` on host:port (0 = any free port); yields the base URL, stops on exit."""
    if not Path(directory).is_dir():
        raise FileNotFoundError(f"local site directory {directory} does not exist")
    handler = partial(_StaticHandler, directory=str(directory))
    try:
        server = _Server((host, port), handler)
    except OSError as exc:
        raise OSError(f"cannot serve the local site on {host}:{port}: {exc.strerror}") from exc
    thread = threading.Thread(target=server.serve_forever, name="local-site", daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# Builds the site of the example institution it names under a folder, dated as given; returns the
# folder to serve. The caller passes it (examples.generate_site): the library imports no example.
SiteGenerator = Callable[[str, Path, date], Path]


@contextmanager
def local_site(settings: LocalSite | None, warehouse: Path, today: date,
               generate: SiteGenerator | None = None) -> Iterator[str | None]:
    """Build (when the config names an example institution, with ``generate``) and serve the
    config's local site for the length of a crawl.

    An example's site is re-dated on the first of each month, so its boards stay current while
    staying byte-identical — and answering 304s — for every run within a month.
    """
    if settings is None:
        yield None
        return
    root = Path(settings.directory)
    if not root.is_absolute():
        root = Path(warehouse) / root
    if settings.generate is not None:
        if generate is None:
            raise ValueError(f"local_site.generate names {settings.generate!r} but no site generator was given")
        root = generate(settings.generate, root, today.replace(day=1))
    with serve_directory(root, settings.host, settings.port) as base_url:
        yield base_url
