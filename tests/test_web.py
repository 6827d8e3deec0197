"""The student web page in Chromium (playwright, Debian's /usr/bin/chromium; no browser download):
the whole flow at phone width on the real engine over the demo build, and the page's own
mechanics on the fake Advisor (don't-know answers, text-only rendering, forgetting a session;
issue 27: Korean validation, the answering state, the conversation kept over a reload, copy,
feedback, citation dates, badges) at 390 and 1280 px."""

from __future__ import annotations

import dataclasses
import json
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import polars as pl
import pytest

from serving.answer.language import reply_language
from serving.api import AdvisorHolder, ServingSettings, create_app
from serving.dialogue.types import Reply
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


@pytest.fixture(scope="module")
def fake_server():
    """One server for the module's tests (its sessions are independent; a server per test cost ~1 s)."""
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


# ------------------------------------------------------------------------------- issue 27: a page that holds up
# Validation in Korean, the "answering" state, the conversation kept over a reload (sessionStorage),
# copy and feedback per answer, dated citations, badges that agree with their answers; at phone
# (390 px) and desktop (1280 px) widths. One server (fake engine) for all of them; the feedback
# endpoint is mocked with page.route except in test_feedback_reaches_the_real_endpoint.

DESKTOP = {"width": 1280, "height": 800}
PHONE_390 = {"width": 390, "height": 844}
VIEWPORTS = pytest.mark.parametrize("viewport", [PHONE_390, DESKTOP], ids=["phone-390", "desktop"])
PAGE_LIMIT = 200  # not the default: the page must take the server's limit, not one of its own
STORE_KEY = "advisor.conversation.v1"
PENDING = ".msg.pending"
DATES = [("2025-03-02", None, "2026-12-01T03:04:05+00:00"), (None, "2025-11-20", "2026-12-01T03:04:05Z"),
         (None, None, None)]
LONG_URL = "https://www.example.ac.kr/bbs/notice/view.do?articleNo=" + "1234567890" * 12


@dataclasses.dataclass
class DatedReply(Reply):
    """An answer as issue 27's API sends it: an answer_id, citations with their own dates."""

    dates: list = dataclasses.field(default_factory=list)

    def as_api(self, session_id: str) -> dict:
        body = super().as_api(session_id)
        if body["type"] == "answer":
            body["answer_id"] = body.get("answer_id") or uuid.uuid4().hex
            for citation, (published, updated, fetched) in zip(body["citations"], self.dates):
                citation.update(published_on=published, updated_on=updated, fetched_at=fetched)
        return body


class PageAdvisor(FakeAdvisor):
    """Answers by key word: NOTFOUND (the honest no-answer), GENERAL (a model's general answer),
    LONG (a long answer with long sources); else a document answer citing three dated sources."""

    def _answer(self, session, message):
        reply = super()._answer(session, message)
        fields = {f.name: getattr(reply, f.name) for f in dataclasses.fields(Reply)}
        korean = reply_language(message, "ko") == "ko"  # the language the reply says it is in
        if "NOTFOUND" in message:
            fields.update(tier="fallback", answer_method="fallback", citations=[],
                          answer="등록된 자료에서 답을 찾지 못했어요. 학과 사무실에 문의해 주세요." if korean
                          else "The material does not answer this. Please ask your department office.",
                          disclaimer="자료에서 찾은 답이 아니에요." if korean else "Not found in the material.")
        elif "GENERAL" in message:
            fields.update(tier="fallback", answer_method="llm", citations=[],
                          answer="일반적으로 휴학은 학기 시작 전에 신청해요. 학과 사무실에 꼭 확인하세요.",
                          disclaimer="등록된 자료에 없어 일반적인 안내를 드려요. 부정확할 수 있어요.")
        else:
            first = reply.citations[0]
            long = "LONG" in message
            fields["citations"] = [
                dataclasses.replace(first, url=LONG_URL if long else first.url + f"?n={n}",
                                    title=("아주 긴 제목의 학사 공지사항 " * 6 if long else f"안내 문서 {n}"),
                                    snippet=("공지 본문의 한 구절 " * 20 if long else first.snippet))
                for n in range(1, 4)]
            if long:
                fields["answer"] = ("졸업 요건은 학번과 학과에 따라 달라요. " * 25) + "\n원문: " + LONG_URL
        return DatedReply(**fields, dates=DATES)


@pytest.fixture(scope="module")
def page_server():
    holder = AdvisorHolder(lambda: PageAdvisor("fake-build", slow_seconds=0.8))
    assert holder.refresh()
    app = create_app(holder, ServingSettings(rate_per_minute=0, max_message_chars=PAGE_LIMIT))
    with running_server(app) as base:
        yield base, app


@pytest.fixture
def viewport():
    return PHONE_390


@pytest.fixture(scope="module")
def shared_tab(browser):
    """One tab for these tests (a new one costs about a second on a busy machine)."""
    context = browser.new_context(viewport=PHONE_390, locale="ko-KR")
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    yield context.new_page()
    context.close()


@pytest.fixture
def page(shared_tab, page_server, viewport):
    """The shared tab at `viewport`, on the page, as new: nothing kept from the test before (its
    conversation is cleared from sessionStorage and the page loaded afresh), no routes."""
    shared_tab.set_viewport_size(viewport)
    shared_tab.goto(page_server[0] + "/")
    yield shared_tab
    shared_tab.unroute_all(behavior="ignoreErrors")
    shared_tab.evaluate("sessionStorage.clear()")


def kept(page) -> dict | None:
    return page.evaluate(f"JSON.parse(sessionStorage.getItem('{STORE_KEY}'))")


def answer_to(page, message: str):
    """Sends `message` and returns the answer it gets (the n-th answer on the page)."""
    count = page.locator(".msg.answer").count()
    send(page, message)
    answer = page.locator(".msg.answer").nth(count)
    answer.wait_for()
    return answer


def test_an_empty_or_blank_message_is_refused_in_korean_and_nothing_is_sent(page):
    exchanges = chat_bodies(page)
    box = page.locator("#message")
    assert box.get_attribute("required") is None and box.get_attribute("maxlength") is None
    for text in ("", "   \n\t  ", "\u3000"):
        send(page, text)
        error = page.locator("#message-error")
        assert "질문을 입력해 주세요" in error.inner_text()
        assert box.get_attribute("aria-invalid") == "true"
        assert "message-error" in box.get_attribute("aria-describedby")
        assert page.evaluate("document.getElementById('message').validationMessage") == ""  # no browser tooltip
        assert page.evaluate("document.activeElement.id") == "message"
    assert page.get_attribute("html", "lang") == "ko"
    page.locator("#message").type("안")  # typing clears it
    assert page.locator("#message-error").inner_text() == "" and box.get_attribute("aria-invalid") is None
    assert len(exchanges) == 0 and page.locator("#log li").count() == 0


def test_a_message_over_the_limit_says_how_long_it_is_and_keeps_it(page, page_server):
    served = httpx.get(page_server[0] + "/").text
    assert f'data-max-message-chars="{PAGE_LIMIT}"' in served and "{{" not in served  # the server's own number
    exchanges = chat_bodies(page)
    text = "가" * (PAGE_LIMIT + 34)
    send(page, text)
    error = page.locator("#message-error").inner_text()
    assert f"{PAGE_LIMIT + 34:,}자" in error and f"{PAGE_LIMIT:,}자" in error  # how long, and the limit
    assert page.locator("#message-count").inner_text() == f"{PAGE_LIMIT + 34:,} / {PAGE_LIMIT:,}자"
    assert page.input_value("#message") == text  # kept whole, not cut at the limit
    assert len(exchanges) == 0

    # the server's own 422 (here: a message made too long on its way) is said in Korean beside the box
    def lengthen(route):
        body = json.loads(route.request.post_data)
        route.continue_(post_data=json.dumps({**body, "message": "나" * (PAGE_LIMIT + 1)}))

    page.route("**/v1/chat", lengthen)
    send(page, "졸업 요건이 궁금해요")
    page.wait_for_selector(".msg.mine.unsent")
    assert exchanges[-1]["status"] == 422
    assert page.locator("#message-error").inner_text() == f"질문이 너무 길어요. {PAGE_LIMIT:,}자 이내로 줄여 주세요."
    assert page.input_value("#message") == "졸업 요건이 궁금해요"
    assert page.locator(".msg.error").count() == 0 and page.locator(PENDING).count() == 0


def test_the_page_says_an_answer_is_coming_until_it_comes(page):
    send(page, "SLOW 수강 신청은 언제예요?")
    placeholder = page.locator(PENDING)
    placeholder.wait_for()
    assert placeholder.inner_text() == "답변을 준비하고 있어요…"
    assert page.locator(".msg.answer").count() == 0  # a placeholder, not an answer
    assert page.locator("#send").is_disabled()
    assert page.get_attribute("#log", "aria-busy") == "true"
    assert page.locator("#status").inner_text() == "답변을 준비하고 있어요…"
    page.locator(".msg.answer").wait_for()
    assert placeholder.count() == 0 and not page.locator("#send").is_disabled()
    assert page.get_attribute("#log", "aria-busy") == "false"
    assert page.evaluate("document.activeElement.id") == "message"  # ready for the next question

    page.route("**/v1/chat", lambda route: route.abort())  # an error removes it too
    send(page, "다음 질문")
    page.wait_for_selector(".msg.error")
    assert placeholder.count() == 0 and not page.locator("#send").is_disabled()


def test_the_conversation_survives_a_reload_with_only_what_the_page_shows(page):
    exchanges = chat_bodies(page)
    send(page, "졸업하려면 몇 학점 들어야 해요?")
    page.wait_for_selector(PENDING_QUESTION)
    page.locator(PENDING_QUESTION).first.locator("button.option").nth(1).click()  # 남캠퍼스
    page.locator(PENDING_QUESTION).first.locator("button.option.unknown").click()
    page.locator(".msg.answer").wait_for()
    session_id = exchanges[-1]["reply"]["session_id"]
    before = page.locator("#log").inner_text()

    stored = kept(page)
    assert stored["sessionId"] == session_id
    assert "profile_used" not in json.dumps(stored)  # the page never shows it, so it is not kept
    assert [t["kind"] for t in stored["turns"]] == ["mine", "ask", "answer"]
    assert stored["turns"][1]["chosen"] == {"campus": 1, "year_level": 4}  # the buttons pressed, nothing else

    page.reload()
    page.locator(".msg.answer").wait_for()
    assert page.locator("#log").inner_text() == before
    pressed = page.locator("button.option[aria-pressed='true']")
    assert [pressed.nth(i).inner_text() for i in range(pressed.count())] == ["남캠퍼스", "잘 모르겠어요"]
    assert page.locator("button.option:not(:disabled)").count() == 0
    answer_to(page, "수강 신청은 언제예요?")  # the same conversation goes on
    assert exchanges[-1]["request"]["session_id"] == session_id and exchanges[-1]["status"] == 200


def test_an_expired_session_keeps_the_history_as_earlier_and_starts_anew(page, page_server):
    answer_to(page, "안녕하세요")
    old = kept(page)["sessionId"]
    httpx.delete(f"{page_server[0]}/v1/sessions/{old}")  # e.g. expired meanwhile
    page.reload()
    page.locator(".msg.answer").wait_for()
    exchanges = chat_bodies(page)

    answer_to(page, "수강 신청은 언제예요?")
    assert [e["status"] for e in exchanges.all()[-2:]] == [404, 200]
    assert exchanges[-1]["request"]["session_id"] is None  # sent again, in a new conversation
    notice = page.locator(".msg.notice")
    assert "만료" in notice.inner_text() and "새 대화" in notice.inner_text()
    items = page.locator("#log > li")
    classes = [items.nth(i).get_attribute("class") or "" for i in range(items.count())]
    assert ["earlier" in c for c in classes] == [True, True, False, False, False]  # old turns, notice, new turns
    assert kept(page)["sessionId"] == exchanges[-1]["reply"]["session_id"] != old


def test_profile_answers_to_an_expired_session_are_not_lost_silently(page, page_server):
    send(page, "졸업하려면 몇 학점 들어야 해요?")
    page.wait_for_selector(PENDING_QUESTION)
    httpx.delete(f"{page_server[0]}/v1/sessions/{kept(page)['sessionId']}")
    for _ in range(2):
        page.locator(PENDING_QUESTION).first.locator("button.option").first.click()
    notice = page.locator(".msg.notice")
    notice.wait_for()
    assert "만료" in notice.inner_text() and "다시 입력해 주세요" in notice.inner_text()
    assert page.locator("#log > li.earlier fieldset.question").count() == 2  # kept, marked, closed
    assert page.locator("button.option:not(:disabled)").count() == 0
    assert kept(page)["sessionId"] is None
    answer_to(page, "졸업 요건이 궁금해요")  # the next message starts the new conversation


def test_new_conversation_forgets_what_was_kept(page):
    answer_to(page, "안녕하세요")
    assert kept(page) is not None
    with page.expect_response(lambda r: "/v1/sessions/" in r.url) as forgotten:
        page.click("#new-conversation")
    assert forgotten.value.status == 204
    assert kept(page) is None
    page.reload()
    assert page.locator("#log li").count() == 0


def test_copy_puts_the_answer_and_its_sources_on_the_clipboard(page):
    answer = answer_to(page, "졸업 요건이 궁금해요")
    answer.locator("button.copy").click()
    answer.locator("button.copy", has_text="복사했어요").wait_for()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith(answer.locator(".text").inner_text()) and "안내 문서 1 http://fake.example/" in copied
    assert "답변을 복사했어요" in page.locator("#status").inner_text()

    # a browser that refuses the Clipboard API: the page copies through a selection instead
    page.evaluate("""() => { navigator.clipboard.writeText('something else');
                             navigator.clipboard.writeText = () => Promise.reject(new Error('denied')); }""")
    other = answer_to(page, "휴학은 어떻게 해요?")
    other.locator("button.copy").click()
    other.locator("button.copy", has_text="복사했어요").wait_for()
    assert page.evaluate("navigator.clipboard.readText()").startswith(other.locator(".text").inner_text())


def _record_feedback(page) -> list[dict]:
    sent: list[dict] = []

    def accept(route):
        sent.append(route.request.post_data_json)
        route.fulfill(status=204)

    page.route("**/v1/feedback", accept)
    return sent


def test_feedback_once_per_answer_with_an_optional_reason(page):
    sent = _record_feedback(page)  # mocked: the endpoint's own tests are the log helper's
    first = answer_to(page, "졸업 요건이 궁금해요")
    first.locator("button.helpful").click()
    first.locator(".thanks").wait_for()
    second = answer_to(page, "휴학은 어떻게 해요?")
    no = second.locator("button.not-helpful")
    assert not second.locator("fieldset.reasons").is_visible()
    no.click()
    assert no.get_attribute("aria-expanded") == "true"
    reasons = second.locator("fieldset.reasons label")
    assert [reasons.nth(i).inner_text().strip() for i in range(reasons.count())] == [
        "틀린 정보", "오래된 정보", "내 경우와 다름", "이해하기 어려움", "기타"]
    second.get_by_label("오래된 정보").check()
    second.locator("button.send-feedback").click()
    second.locator(".thanks").wait_for()
    third = answer_to(page, "장학금은요?")
    third.locator("button.not-helpful").click()
    third.locator("button.send-feedback").click()  # the reason is optional
    third.locator(".thanks").wait_for()

    ids = [kept(page)["turns"][i]["reply"]["answer_id"] for i in (1, 3, 5)]
    assert sent == [{"answer_id": ids[0], "helpful": True, "reason": None},
                    {"answer_id": ids[1], "helpful": False, "reason": "outdated"},
                    {"answer_id": ids[2], "helpful": False, "reason": None}]
    page.reload()  # one feedback per answer, after a reload too
    page.locator(".msg.answer").nth(2).wait_for()
    assert page.locator(".msg.answer button.helpful").count() == 0 and page.locator(".thanks").count() == 3


def test_feedback_that_fails_can_be_sent_again(page):
    page.route("**/v1/feedback", lambda route: route.fulfill(status=503, json={"error": {"code": "x", "message": "x"}}))
    answer = answer_to(page, "졸업 요건이 궁금해요")
    answer.locator("button.helpful").click()
    assert "보내지 못했어요" in answer.locator(".feedback-error").inner_text()
    assert not answer.locator("button.helpful").is_disabled()


def test_feedback_reaches_the_real_endpoint(page):
    answer = answer_to(page, "졸업 요건이 궁금해요")
    with page.expect_response(lambda r: r.url.endswith("/v1/feedback")) as response:
        answer.locator("button.not-helpful").click()
        answer.get_by_label("내 경우와 다름").check()
        answer.locator("button.send-feedback").click()
    assert response.value.status == 204
    answer.locator(".thanks").wait_for()


def test_citations_show_their_own_dates_and_when_they_were_fetched(page):
    answer = answer_to(page, "졸업 요건이 궁금해요")
    items = answer.locator(".citations li")
    assert items.nth(0).locator(".dates").inner_text() == "게시 2025-03-02 · 수집 2026-12-01"
    assert items.nth(1).locator(".dates").inner_text() == "수정 2025-11-20 · 수집 2026-12-01"
    assert items.nth(2).locator(".dates").count() == 0  # no dates given: nothing shown


def test_the_badge_never_contradicts_the_answer(page):
    cases = [("NOTFOUND 기숙사 와이파이 비번", "답을 찾지 못했어요", "ko"),
             ("GENERAL 휴학하면 군대는요?", "참고용 일반 답변", "ko"),
             ("졸업 요건이 궁금해요", "문서에서 찾은 답변", "ko"),
             ("NOTFOUND what is the wifi password?", "No answer found", "en"),
             # English with a Korean word: the server's rule (a third of the letters Hangul), not the page's own
             ("NOTFOUND the dormitory wifi password 알려줘", "No answer found", "en")]
    for message, badge, lang in cases:
        answer = answer_to(page, message)
        assert answer.locator(".tier").inner_text() == badge
        assert answer.locator(".text").get_attribute("lang") == lang
    assert page.locator(".msg.answer[data-method='fallback'] .tier").first.inner_text() != "참고용 일반 답변"


@VIEWPORTS
def test_a_long_answer_fits_the_screen_and_its_buttons_are_reachable(page, viewport):
    answer = answer_to(page, "LONG 졸업 요건 전부 알려 주세요")
    answer.locator("button.not-helpful").click()  # the reasons open too, above the input bar
    send_feedback = answer.locator("button.send-feedback").bounding_box()
    assert send_feedback["y"] + send_feedback["height"] <= page.locator("#composer").bounding_box()["y"] + 1
    assert no_horizontal_overflow(page)
    width = viewport["width"]
    for selector in ("button.copy", "button.helpful", "button.not-helpful", "button.send-feedback",
                     ".citations li:first-child .dates"):
        target = answer.locator(selector)
        target.scroll_into_view_if_needed()
        box = target.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, selector
    composer = page.locator("#composer").bounding_box()
    send_button = page.locator("#send").bounding_box()
    assert send_button["x"] + send_button["width"] <= width and composer["y"] + composer["height"] <= viewport["height"] + 1
