"""The student web page in Chromium (playwright, Debian's /usr/bin/chromium; no browser download):
the whole flow at phone width on the real engine over the demo build, and the page's own
mechanics (don't-know answers, text-only rendering, forgetting a session) on the fake Advisor."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import polars as pl
import pytest

from serving.api import AdvisorHolder, ServingSettings, create_app
from tests.fake_advisor import FakeAdvisor, running_server

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="needs Debian's chromium at /usr/bin/chromium (`make test` installs it as root: "
           "apt-get install chromium chromium-driver fonts-nanum)")

LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
               "--disable-sync", "--no-first-run"]
PHONE = {"width": 360, "height": 740}
PENDING_QUESTION = "fieldset.question:not(.answered)"
LATEST_REPLY = f".msg.answer, {PENDING_QUESTION}, .msg.error"


@pytest.fixture(scope="module")
def pw():
    """One playwright per module (a second sync_playwright inside the first is refused)."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(pw):
    browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
    yield browser
    browser.close()


@pytest.fixture
def phone(browser):
    context = browser.new_context(viewport=PHONE, locale="ko-KR")
    page = context.new_page()
    yield page
    context.close()


class ChatExchanges:
    """The page's /v1/chat traffic, in order. Handlers only store objects: reading a body inside a
    playwright event handler would block the event dispatch; bodies are read when asked for."""

    def __init__(self, page):
        self._responses = []
        page.on("response", lambda r: self._responses.append(r) if r.url.endswith("/v1/chat") else None)

    def __len__(self) -> int:
        return len(self._responses)

    def __getitem__(self, index) -> dict:
        response = self._responses[index]
        return {"request": json.loads(response.request.post_data or "{}"), "status": response.status,
                "reply": response.json()}

    def all(self) -> list[dict]:
        return [self[i] for i in range(len(self))]


def chat_bodies(page) -> ChatExchanges:
    return ChatExchanges(page)


def no_horizontal_overflow(page) -> bool:
    return page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")


def send(page, message: str) -> None:
    """Types `message` into the input and sends it with Enter, as a student does."""
    page.fill("#message", message)
    page.press("#message", "Enter")


def ask_and_answer_everything(page, question: str, max_rounds: int = 6):
    """Types `question`, answers every profile question with its first option, returns the answer."""
    answers_before = page.locator(".msg.answer").count()
    send(page, question)
    for _ in range(max_rounds):
        page.wait_for_selector(LATEST_REPLY, timeout=60_000)
        if page.locator(".msg.answer").count() > answers_before:
            return page.locator(".msg.answer").last
        assert page.locator(".msg.error").count() == 0, page.locator(".msg.error").last.inner_text()
        groups = page.locator(PENDING_QUESTION)
        replies = page.locator(".msg.ask, .msg.answer, .msg.error")
        shown = replies.count()
        for _ in range(groups.count()):
            groups.first.locator("button.option:not(.unknown)").first.click()
        # The reply to these answers is rendered (CSS only: the page's CSP forbids eval). Not "no
        # question pending": a fast reply may already show the next question.
        replies.nth(shown).wait_for(timeout=60_000)
    raise AssertionError(f"no answer after {max_rounds} rounds of questions")


# ------------------------------------------------------------------------------- the real engine

@pytest.fixture(scope="module")
def demo_server(demo_warehouse):
    from serving.dialogue.engine import open_advisor

    config = demo_warehouse.config()
    holder = AdvisorHolder.for_builds(demo_warehouse.builds, lambda root: open_advisor(root, config, None))
    assert holder.refresh(), holder.last_error
    with running_server(create_app(holder, ServingSettings(rate_per_minute=0))) as base:
        yield base, holder.current()


def build_source_urls(advisor) -> set[str]:
    from advisor.index.layout import CHUNKS_FILE

    return set(pl.read_parquet(Path(advisor.build.directory) / CHUNKS_FILE)["doc_url"].to_list())


def test_phone_flow_asks_for_the_profile_and_answers_with_sources(demo_server, phone, tmp_path):
    base, advisor = demo_server
    exchanges = chat_bodies(phone)
    phone.goto(base + "/")
    answer = ask_and_answer_everything(phone, "졸업하려면 전공 몇 학점 들어야 해요?")

    turns = exchanges.all()
    assert any(t["reply"].get("type") == "ask" for t in turns), "a question that depends on the profile asks for it"
    assert all(t["request"].get("profile") for t in turns[1:])  # the buttons sent profile answers

    links = answer.locator(".citations a")
    assert links.count() >= 1
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert set(hrefs) & build_source_urls(advisor)
    assert answer.locator(".tier").inner_text().strip()

    phone.screenshot(path=str(tmp_path / "phone-answer.png"), full_page=True)
    assert (tmp_path / "phone-answer.png").stat().st_size > 0
    assert no_horizontal_overflow(phone)


def test_a_profile_answer_typed_instead_of_pressed_closes_the_question(demo_server, phone):
    base, _advisor = demo_server
    exchanges = chat_bodies(phone)
    phone.goto(base + "/")
    send(phone, "졸업하려면 전공 몇 학점 들어야 해요?")
    first = phone.wait_for_selector(PENDING_QUESTION)
    replies = phone.locator(".msg.ask, .msg.answer, .msg.error")
    shown = replies.count()
    send(phone, "컴퓨터학과 2021학번이요")
    replies.nth(shown).wait_for(timeout=60_000)
    # the typed answer was read as the buttons: the questions it answered are not asked again
    asked_again = [q["attribute"] for q in exchanges.all()[-1]["reply"].get("questions", [])]
    assert "department" not in asked_again and "admission_year" not in asked_again
    assert "answered" in first.get_attribute("class") and first.query_selector("button.option").is_disabled()


def test_an_english_question_is_asked_in_english_with_an_english_dont_know(demo_server, phone):
    base, _advisor = demo_server
    phone.goto(base + "/")
    phone.fill("#message", "how many total credits do I need to graduate?")
    phone.click("#send")
    group = phone.wait_for_selector(PENDING_QUESTION)
    assert group.query_selector("legend").inner_text().startswith("What is your ")
    assert group.query_selector("button.option.unknown").inner_text() == "I don't know"


def test_new_conversation_button_forgets_the_session(demo_server, phone):
    base, _ = demo_server
    exchanges = chat_bodies(phone)
    phone.goto(base + "/")
    send(phone, "안녕하세요")
    phone.wait_for_selector(".msg.answer")
    session_id = exchanges[-1]["reply"]["session_id"]

    with phone.expect_response(lambda r: "/v1/sessions/" in r.url) as forgotten:
        phone.click("#new-conversation")
    assert forgotten.value.status == 204
    assert phone.locator("#log li").count() == 0
    assert phone.evaluate("document.activeElement.id") == "message"
    response = httpx.post(base + "/v1/chat", json={"session_id": session_id, "message": "안녕하세요"})
    assert response.status_code == 404


# ------------------------------------------------------------------------------- page mechanics (fake)

class ScriptedAdvisor(FakeAdvisor):
    """Answers with text that would be markup if the page used innerHTML, and a fallback tier."""

    def _answer(self, session, message):
        reply = super()._answer(session, message)
        reply.answer = '<img src=x onerror="document.body.dataset.owned=1">주의: 확인이 필요합니다.'
        reply.tier, reply.answer_method = "fallback", "fallback"
        reply.disclaimer = "이 답변은 등록된 자료에서 찾지 못해 부정확할 수 있습니다."
        reply.citations = [dataclasses.replace(reply.citations[0], url="javascript:alert(1)")]
        return reply


@pytest.fixture
def fake_server():
    holder = AdvisorHolder(lambda: ScriptedAdvisor("fake-build"))
    assert holder.refresh()
    with running_server(create_app(holder, ServingSettings(rate_per_minute=0))) as base:
        yield base


def test_dont_know_sends_null_and_server_text_is_never_markup(fake_server, phone):
    exchanges = chat_bodies(phone)
    phone.goto(fake_server + "/")
    phone.fill("#message", "몇 학점 들어야 해요?")
    phone.click("#send")
    phone.wait_for_selector(PENDING_QUESTION)
    groups = phone.locator(PENDING_QUESTION)
    assert groups.count() == 2
    assert phone.evaluate("document.activeElement.classList.contains('option')")  # keyboard users land on the options
    for _ in range(groups.count()):
        phone.locator(PENDING_QUESTION).first.locator("button.option.unknown").click()
    answer = phone.wait_for_selector(".msg.answer")

    assert exchanges[-1]["request"]["profile"] == {"campus": None, "year_level": None}
    assert answer.query_selector(".disclaimer").inner_text().startswith("이 답변은")
    assert "<img" in answer.query_selector(".text").inner_text()  # shown as text ...
    assert answer.query_selector("img") is None  # ... never parsed as markup
    assert phone.evaluate("document.body.dataset.owned") is None
    assert answer.query_selector(".citations a") is None  # a javascript: URL is not made a link
    assert phone.get_attribute("#log", "aria-live") == "polite"
    assert no_horizontal_overflow(phone)


def test_an_expired_session_is_explained_and_a_new_one_starts(fake_server, phone):
    exchanges = chat_bodies(phone)
    phone.goto(fake_server + "/")
    send(phone, "안녕하세요")
    phone.wait_for_selector(".msg.answer")
    httpx.delete(f"{fake_server}/v1/sessions/{exchanges[-1]['reply']['session_id']}")  # e.g. expired meanwhile

    send(phone, "안녕하세요")
    phone.wait_for_selector(".msg.error")
    assert exchanges[-1]["status"] == 404
    send(phone, "안녕하세요")
    phone.locator(".msg.answer").nth(1).wait_for()
    assert exchanges[-1]["request"]["session_id"] is None and exchanges[-1]["status"] == 200


# ------------------------------------------------------------------------------- citations that open, unsent messages

def test_a_citations_saved_copy_opens_the_snapshot_text(demo_server, phone):
    base, _ = demo_server
    phone.goto(base + "/")
    answer = ask_and_answer_everything(phone, "졸업하려면 전공 몇 학점 들어야 해요?")
    saved = answer.locator(".citations a.saved-copy").first
    assert saved.inner_text() == "저장된 사본"
    original = answer.locator(".citations li").first.locator("a").first
    assert original.get_attribute("href").startswith("http")  # the original URL stays the first link
    source = httpx.get(base + saved.get_attribute("href")).json()

    saved.click()
    dialog = phone.locator("dialog#snapshot")
    dialog.wait_for(state="visible")
    body = dialog.locator(".snapshot-text")
    assert body.inner_text().strip() == source["text"].strip()  # the document as saved, as text
    assert dialog.locator("mark").inner_text().strip() == source["chunk"]["text"].strip()  # the cited passage
    assert dialog.locator(".snapshot-origin a").get_attribute("href") == source["url"]
    assert source["fetched_at"][:10] in dialog.locator(".snapshot-meta").inner_text()
    assert no_horizontal_overflow(phone)
    dialog.locator("#snapshot-close").click()
    dialog.wait_for(state="hidden")


class SnapshotAdvisor(FakeAdvisor):
    """Cites a source whose saved copy is markup: it must be shown as text."""

    def sources(self):
        return self

    def __contains__(self, chunk_id):
        return chunk_id == "c1"

    def get(self, chunk_id):
        from advisor.index.sources import SourceSnapshot

        if chunk_id != "c1":
            return None
        text = '# 안내\n\n<img src=x onerror="document.body.dataset.owned=1"> 인용된 문장입니다.\n끝.'
        start = text.index("<img")
        return SourceSnapshot(chunk_id, "http://fake.example/guide.html", "안내 문서", text, "fake", "page", None, None,
                              start, text.index("\n끝"))


def test_a_snapshot_is_rendered_as_text_never_markup(phone):
    holder = AdvisorHolder(lambda: SnapshotAdvisor("fake-build"))
    assert holder.refresh()
    with running_server(create_app(holder, ServingSettings(rate_per_minute=0))) as base:
        phone.goto(base + "/")
        send(phone, "안녕하세요")
        phone.locator(".msg.answer .saved-copy").click()
        dialog = phone.locator("dialog#snapshot")
        dialog.wait_for(state="visible")
        assert "<img" in dialog.locator("mark").inner_text()
        assert dialog.locator("img").count() == 0
        assert phone.evaluate("document.body.dataset.owned") is None


def test_a_failed_send_keeps_the_message_and_says_so_in_korean(fake_server, phone):
    phone.goto(fake_server + "/")
    phone.route("**/v1/chat", lambda route: route.abort())  # the server is down
    question = "졸업 요건이 궁금해요"
    send(phone, question)
    error = phone.wait_for_selector(".msg.error")
    assert "서버에 연결할 수 없어요" in error.inner_text()
    assert phone.input_value("#message") == question  # nothing to type again
    assert phone.locator(".msg.mine.unsent").count() == 1

    phone.unroute("**/v1/chat")  # back up: the kept message is sent as it is
    phone.press("#message", "Enter")
    phone.wait_for_selector(".msg.answer")
    assert phone.input_value("#message") == ""


def test_server_errors_are_shown_in_korean(fake_server, phone):
    phone.goto(fake_server + "/")
    phone.fill("#message", "BOOM")  # the fake engine fails: a 500 with an English developer message
    phone.press("#message", "Enter")
    text = phone.wait_for_selector(".msg.error").inner_text()
    assert "문제가 생겼어요" in text and "assistant" not in text


@pytest.mark.parametrize("viewport", [{"width": 390, "height": 844}, {"width": 1280, "height": 800}],
                         ids=["phone-390", "desktop"])
def test_the_newest_reply_and_its_options_stay_above_the_input(fake_server, browser, viewport):
    context = browser.new_context(viewport=viewport, locale="ko-KR")
    page = context.new_page()
    try:
        page.goto(fake_server + "/")
        for number in range(6):  # a conversation longer than the screen
            send(page, f"질문 {number}: 수강 신청 기간이 언제예요?")
            page.locator(".msg.answer").nth(number).wait_for()
        send(page, "졸업하려면 몇 학점 들어야 해요?")
        page.wait_for_selector(PENDING_QUESTION)
        page.wait_for_timeout(300)  # let the smooth/instant scroll settle
        composer_top = page.locator("#composer").bounding_box()["y"]
        last_option = page.locator(f"{PENDING_QUESTION} button.option").last.bounding_box()
        first_option = page.locator(f"{PENDING_QUESTION} button.option").first.bounding_box()
        assert last_option["y"] + last_option["height"] <= composer_top + 1
        header = page.locator("header.bar").bounding_box()
        assert first_option["y"] >= header["y"] + header["height"] - 1  # not under the sticky header either
    finally:
        context.close()


def test_profile_answers_that_fail_to_send_can_be_sent_again(fake_server, phone):
    phone.goto(fake_server + "/")
    send(phone, "몇 학점 들어야 해요?")
    phone.wait_for_selector(PENDING_QUESTION)
    phone.route("**/v1/chat", lambda route: route.abort())
    for _ in range(2):
        phone.locator(PENDING_QUESTION).first.locator("button.option").first.click()
    phone.wait_for_selector(".msg.error")
    assert phone.locator(PENDING_QUESTION).count() == 2  # the buttons are back
    phone.unroute("**/v1/chat")
    for _ in range(2):
        phone.locator(PENDING_QUESTION).first.locator("button.option").first.click()
    phone.wait_for_selector(".msg.answer")


# ------------------------------------------------------------------------------- an original that may be down
# The page checks the original's site from the browser (no-cors HEAD, 3 s timeout) and opens the
# saved copy, with a Korean note, when it does not answer; a site that answers opens as a link.

class OriginalSite:
    """A loopback 'university site' on its own port (another origin than the page): answers every
    GET / HEAD with 200 and records the methods; `hang` accepts connections but never answers."""

    def __init__(self, hang: bool = False):
        import http.server
        import threading

        self.methods: list[str] = []
        self.hang = threading.Event() if hang else None
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _answer(self, body: bool):
                site.methods.append(self.command)
                if site.hang is not None:
                    site.hang.wait(10)
                    return
                data = "<html><body>원문</body></html>".encode()
                self.send_response(200)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                if body:
                    self.wfile.write(data)

            def do_GET(self):
                self._answer(True)

            def do_HEAD(self):
                self._answer(False)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        if self.hang is not None:
            self.hang.set()
        self.server.shutdown()
        self.server.server_close()


class CitingAdvisor(SnapshotAdvisor):
    """Cites `url` (its saved copy: SnapshotAdvisor's c1)."""

    url = "http://127.0.0.1:9/guide.html"

    def _answer(self, session, message):
        reply = super()._answer(session, message)
        reply.citations = [dataclasses.replace(reply.citations[0], url=self.url, chunk_id="c1")]
        return reply

    def source_origins(self):  # as the real engine says: the sites its documents come from
        parts = urlsplit(self.url)
        return (f"{parts.scheme}://{parts.netloc}",)


@pytest.fixture
def citing_server():
    def serve(url: str):
        advisor_type = type("Citing", (CitingAdvisor,), {"url": url})
        holder = AdvisorHolder(lambda: advisor_type("fake-build"))
        assert holder.refresh()
        return running_server(create_app(holder, ServingSettings(rate_per_minute=0)))
    return serve


@pytest.fixture(scope="module")
def site_browser(pw):
    """Chromium without its Local Network Access checks: the test's 'university site' must live on
    loopback, which Chromium guards from pages (a permission prompt, denied headless); a real
    institution's site is public, where those checks do not apply."""
    browser = pw.chromium.launch(executable_path=str(CHROMIUM),
                                 args=[*LAUNCH_ARGS, "--disable-features=LocalNetworkAccessChecks"])
    yield browser
    browser.close()


@pytest.fixture
def site_phone(site_browser):
    context = site_browser.new_context(viewport=PHONE, locale="ko-KR")
    yield context.new_page()
    context.close()


def _answer_with_citation(page, base: str):
    page.goto(base + "/")
    send(page, "안녕하세요")
    return page.wait_for_selector(".msg.answer .citations a.original")


def test_an_unreachable_original_opens_the_saved_copy_with_a_note(citing_server, phone):
    from tests.conftest import free_port

    url = f"http://127.0.0.1:{free_port()}/guide.html"  # nothing listens there: the site is down
    with citing_server(url) as base:
        link = _answer_with_citation(phone, base)
        assert link.get_attribute("href") == url  # the original stays the link (copy, new tab)
        phone.wait_for_selector(".citations a.original[data-reachable='unreachable']")
        link.click()
        dialog = phone.locator("dialog#snapshot")
        dialog.wait_for(state="visible")
        phone.wait_for_timeout(300)  # a window opened by the click would exist by now
        assert len(phone.context.pages) == 1  # the dead original was not opened
        note = dialog.locator(".snapshot-note")
        assert note.is_visible() and "연결할 수 없어" in note.inner_text()
        assert dialog.locator(".snapshot-origin a").count() == 1  # the original is still offered
        assert "연결할 수 없어" in link.get_attribute("title")
        dialog.locator("#snapshot-close").click()
        phone.locator(".msg.answer .saved-copy").click()  # chosen by the student: no note
        dialog.wait_for(state="visible")
        assert not dialog.locator(".snapshot-note").is_visible()


def test_a_reachable_original_opens_normally(citing_server, site_phone):
    phone = site_phone
    site = OriginalSite()
    try:
        with citing_server(site.origin + "/guide.html") as base:
            link = _answer_with_citation(phone, base)
            phone.wait_for_selector(".citations a.original[data-reachable='reachable']")
            assert site.methods == ["HEAD"]  # one light check, no page download
            with phone.expect_popup() as popup:
                link.click()
            popup.value.wait_for_load_state()
            assert popup.value.url == site.origin + "/guide.html"
            assert not phone.locator("dialog#snapshot").is_visible()
    finally:
        site.close()


def test_a_click_while_the_site_hangs_opens_the_saved_copy_after_the_timeout(citing_server, site_phone):
    phone = site_phone
    site = OriginalSite(hang=True)
    try:
        with citing_server(site.origin + "/guide.html") as base:
            link = _answer_with_citation(phone, base)
            assert link.get_attribute("data-reachable") == "checking"
            link.click()  # decided when the check gives up (3 s), not by the browser's own timeout
            dialog = phone.locator("dialog#snapshot")
            dialog.wait_for(state="visible", timeout=6000)
            assert "연결할 수 없어" in dialog.locator(".snapshot-note").inner_text()
            assert len(phone.context.pages) == 1
    finally:
        site.close()
