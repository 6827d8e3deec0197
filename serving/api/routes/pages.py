"""The student page (GET /) and the API reference (GET /docs); neither is in the OpenAPI document.

The page is index.html with what the server owns written into it, read and filled once per app:
the message limit (its form's `data-max-message-chars`, ServingSettings.max_message_chars) and the
"don't know" option's label per language (the body's `data-unknown-option`, from
advisor/language/<code>/templates.yaml), so the page keeps no copy of either."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse

from serving.api.deps import PageDep
from serving.api.settings import ServingSettings
from serving.dialogue import templates

WEB_DIR = Path(__file__).resolve().parent.parent.parent / "web"
# The languages of the page's own words (app.js picks one per question): the fixed replies' two
# (serving.answer.language.reply_language)
PAGE_LANGUAGES = ("ko", "en")

router = APIRouter(include_in_schema=False)


def student_page(settings: ServingSettings) -> str:
    """index.html with its {{placeholders}} filled in (HTML-escaped)."""
    values = {"max_message_chars": str(settings.max_message_chars),
              "unknown_option": json.dumps({code: templates.text("unknown_option", code) for code in PAGE_LANGUAGES},
                                           ensure_ascii=False)}
    html = (WEB_DIR / "index.html").read_text(encoding="utf-8")
    for name, value in values.items():
        html = html.replace("{{" + name + "}}", escape(value, quote=True))
    return html


@router.get("/")
def page(html: PageDep) -> HTMLResponse:
    return HTMLResponse(html)


@router.get("/docs")
def api_reference() -> FileResponse:
    return FileResponse(WEB_DIR / "docs.html", media_type="text/html; charset=utf-8")
