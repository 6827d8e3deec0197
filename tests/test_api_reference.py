"""The API reference page (/docs): Swagger UI from the installed fastapi-offline package over
the app's own /openapi.json, rendered in Chromium with every request outside the server refused
(as on a machine without internet) and the page's Content-Security-Policy in force."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from serving.api import AdvisorHolder, ServingSettings, create_app
from tests.fake_advisor import FakeAdvisor, running_server

CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def base():
    holder = AdvisorHolder(lambda: FakeAdvisor("docs"))
    assert holder.refresh()
    with running_server(create_app(holder, ServingSettings(rate_per_minute=0))) as url:
        yield url


def test_the_reference_and_its_files_are_served_by_the_app(base):
    page = httpx.get(base + "/docs")
    assert page.status_code == 200 and "/docs/assets/swagger-ui-bundle.js" in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    script = httpx.get(base + "/docs/assets/swagger-ui-bundle.js")
    assert script.status_code == 200 and "SwaggerUIBundle" in script.text[:200_000]
    assert httpx.get(base + "/docs/assets/nothing.js").status_code == 404


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (`make test` installs it as root)")
def test_the_reference_renders_offline_under_the_page_policy(base):
    playwright_api = pytest.importorskip("playwright.sync_api")
    own = urlsplit(base).netloc
    outside, refused_by_policy = [], []
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})

            def offline(route):
                if urlsplit(route.request.url).netloc == own:
                    route.continue_()
                else:  # nothing but the server answers: a CDN reference would fail here
                    outside.append(route.request.url)
                    route.abort()

            page.route("**/*", offline)
            page.on("console", lambda m: refused_by_policy.append(m.text)
                    if "Content Security Policy" in m.text else None)
            page.goto(base + "/docs")
            chat = page.locator('.opblock-summary-path[data-path="/v1/chat"]')
            chat.wait_for(timeout=15_000)
            assert page.locator(".opblock").count() >= 4  # chat, sessions, index, sources, ...
            chat.click()
            page.wait_for_selector("text=ChatRequest", timeout=5_000)
        finally:
            browser.close()
    assert outside == [] and refused_by_policy == []
