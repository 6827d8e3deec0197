"""A real HTTP server on 127.0.0.1 serving crafted pages, including the bad cases a crawler meets."""

from __future__ import annotations

import hashlib
import http.server
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field


@dataclass
class Route:
    status: int = 200
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    headers: dict = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering (timeouts)
    fail_first: int = 0  # answer 503 this many times before the real answer
    conditional: bool = True  # honour If-None-Match with an ETag of the body


class _Handler(http.server.BaseHTTPRequestHandler):
    """Answers from `site`'s routes (the subclass CraftedSite.__enter__ makes sets it)."""

    site: CraftedSite

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        site, path = self.site, self.path
        site.hits[path] += 1
        site.request_times[path].append(time.monotonic())
        site.request_headers[path].append(dict(self.headers))
        route = site.routes.get(path)
        if route is None:
            return self._send(404, b"not found", "text/plain")
        if route.delay:
            time.sleep(route.delay)
        if site.hits[path] <= route.fail_first:
            return self._send(503, b"busy", "text/plain")
        etag = '"' + hashlib.md5(route.body).hexdigest() + '"'
        if route.conditional and route.status == 200 and self.headers.get("If-None-Match") == etag:
            return self._send(304, b"", None, {"ETag": etag})
        headers = dict(route.headers)
        if route.conditional and route.status == 200:
            headers["ETag"] = etag
        self._send(route.status, route.body, route.content_type, headers)

    def _send(self, status, body, content_type, headers=None) -> None:
        try:
            self.send_response(status)
            if content_type:
                self.send_header("Content-Type", content_type)
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if body:
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout or size cap): expected in these tests


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


class CraftedSite:
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.hits: Counter = Counter()
        self.request_times: dict[str, list[float]] = defaultdict(list)
        self.request_headers: dict[str, list[dict]] = defaultdict(list)
        self._server: http.server.ThreadingHTTPServer | None = None

    def page(self, path: str, html: str, **kwargs) -> None:
        self.routes[path] = Route(body=html.encode("utf-8"), **kwargs)

    def add(self, path: str, **kwargs) -> None:
        self.routes[path] = Route(**kwargs)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def url(self, path: str) -> str:
        return self.base + path

    def __enter__(self) -> "CraftedSite":
        handler = type("Handler", (_Handler,), {"site": self})
        self._server = _Server(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def make_pdf(pages: list[str], title: str = "문서") -> bytes:
    """A real multi-page PDF with Korean text (reportlab's built-in CID font needs no font file)."""
    import io

    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfgen import canvas

    pdfmetrics.registerFont(UnicodeCIDFont("HYSMyeongJo-Medium"))
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, invariant=1)
    pdf.setTitle(title)
    for text in pages:
        pdf.setFont("HYSMyeongJo-Medium", 12)
        y = 800
        for line in text.splitlines():
            pdf.drawString(60, y, line)
            y -= 18
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()
