"""Facts the serving side shares with the library and the web page, each with one owner, and a test
that a copy has not crept back: the message limit (advisor/message_limit.py), the "don't know"
option's label (advisor/language/<code>/templates.yaml), the one-third-Hangul rule
(advisor/language/script.py), the student page read once per app, and the pages' DOM helper
(serving/web/dom.js)."""

from __future__ import annotations

import ast
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from advisor import language as language_data
from advisor.message_limit import MAX_MESSAGE_CHARS
from serving.api import AdvisorHolder, ServingSettings, create_app
from tests.fake_advisor import FakeAdvisor

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "serving" / "web"
CODE = ("advisor", "serving", "eval", "bench", "cli", "assets", "pipelines")


def client(**settings) -> TestClient:
    holder = AdvisorHolder(lambda: FakeAdvisor("facts"))
    assert holder.refresh()
    return TestClient(create_app(holder, ServingSettings(rate_per_minute=0, **settings)))


class _DataAttributes(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: dict[str, str] = {}

    def handle_starttag(self, tag, attrs) -> None:
        self.found.update({name: value for name, value in attrs if name.startswith("data-")})


def data_attributes(html: str) -> dict[str, str]:
    parser = _DataAttributes()
    parser.feed(html)
    return parser.found


# ------------------------------------------------------------------------------- the message limit

def test_everything_that_reads_a_message_takes_the_one_limit():
    from advisor.config import load_config, parse_config
    from advisor.index import embed_e5
    from serving.dialogue.engine import MessageTooLong, checked_message

    assert ServingSettings().max_message_chars == MAX_MESSAGE_CHARS
    with pytest.raises(ValueError, match="max_message_chars must be at most"):
        ServingSettings(max_message_chars=MAX_MESSAGE_CHARS + 1)  # the engine would refuse the rest
    assert checked_message(" " + "가" * MAX_MESSAGE_CHARS + "\n") == "가" * MAX_MESSAGE_CHARS
    with pytest.raises(MessageTooLong):
        checked_message("가" * (MAX_MESSAGE_CHARS + 1))
    assert embed_e5.QUERY_CHARS == MAX_MESSAGE_CHARS

    data = load_config().model_dump(mode="json")
    question = {"id": "long", "profile": {"department": "CS"}}
    data["study"] = {"enabled": True, "questions": [{**question, "question": "가" * MAX_MESSAGE_CHARS}]}
    parse_config(data, "study.yaml")
    data["study"]["questions"][0]["question"] += "가"
    with pytest.raises(Exception, match=r"study\.questions\[0\]\.question"):
        parse_config(data, "study.yaml")


def test_the_page_is_given_the_servers_limit_and_keeps_no_number_of_its_own():
    with client(max_message_chars=123) as api:
        page = api.get("/").text
        assert data_attributes(page)["data-max-message-chars"] == "123"
        too_long = api.post("/v1/chat", json={"message": "가" * 124})
        assert too_long.status_code == 422 and too_long.json()["error"]["code"] == "message_too_long"
    for path in WEB.glob("*.*"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"maxlength\s*=", text, re.IGNORECASE), path.name  # an attribute, or .maxLength =
        # the limit in any spelling; "* 1000" is milliseconds (PROBE_TTL_MS)
        assert not re.findall(rf"(?<!\* )\b{MAX_MESSAGE_CHARS // 1000}[,_]?{MAX_MESSAGE_CHARS % 1000:03d}\b", text), \
            path.name


# ------------------------------------------------------------------------------- "don't know"

def test_the_pages_dont_know_label_is_the_servers_per_language():
    labels = {code: language_data.load(code, "templates")["unknown_option"] for code in ("ko", "en")}
    with client() as api:
        given = json.loads(data_attributes(api.get("/").text)["data-unknown-option"])
    assert given == labels
    for path in WEB.glob("*.*"):
        text = path.read_text(encoding="utf-8")
        assert not [label for label in labels.values() if label in text], path.name


# ------------------------------------------------------------------------------- the Hangul share

def _names(node: ast.AST) -> set[str]:
    names = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            names.add(child.id)
        elif isinstance(child, ast.Attribute):
            names.add(child.attr)
    return names


def _is_share(node: ast.AST) -> bool:
    """A comparison or division over something named Hangul and a length or a fraction."""
    if not isinstance(node, ast.Compare) and not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)):
        return False
    names = _names(node)
    fraction = any(isinstance(c, ast.Constant) and isinstance(c.value, float) and 0 < c.value < 1
                   for c in ast.walk(node))
    return any("hangul" in n.lower() for n in names) and ("len" in names or fraction
                                                           or isinstance(node, ast.BinOp))


def test_only_the_script_module_computes_a_hangul_share():
    owner = ROOT / "advisor" / "language" / "script.py"
    found = []
    for top in CODE:
        for path in sorted((ROOT / top).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            found += [f"{path.relative_to(ROOT)}:{node.lineno}" for node in ast.walk(tree) if _is_share(node)]
    assert found and all(place.startswith(str(owner.relative_to(ROOT))) for place in found), found


def test_the_crawlers_language_is_the_script_rule():
    from advisor.ingest.html_text import detect_lang
    from advisor.language.script import language_of

    for text in ["졸업 요건", "DS 학과 graduation requirements for double majors", "휴학 leave of absence",
                 "DS 학과 졸업 요건 credits",
                 "How many credits 학점", "", "1234", "学分要求"]:
        assert detect_lang(text) == ("ko" if language_of(text, "en") == "ko" else "en"), text


# ------------------------------------------------------------------------------- the page

def test_the_page_is_read_once_per_app(monkeypatch, tmp_path):
    from serving.api.routes import pages

    with client() as api:
        first = api.get("/").text
        monkeypatch.setattr(pages, "WEB_DIR", tmp_path)  # no index.html there: a read per request would fail
        again = api.get("/")
    assert again.status_code == 200 and again.text == first


# ------------------------------------------------------------------------------- the pages' DOM helper

class _Scripts(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.sources: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        if tag == "script" and (src := dict(attrs).get("src")):
            self.sources.append(src)


def test_the_dom_helper_is_defined_once_and_loaded_before_the_pages_that_use_it():
    owner = WEB / "dom.js"
    definition = re.compile(r"\bfunction\s+el\s*\(|\bel\s*[:=]\s*(function\b|\()|^\s*el\s*\([\w\s,]*\)\s*\{", re.MULTILINE)
    assert definition.search(owner.read_text(encoding="utf-8"))
    users = set()
    for path in sorted(WEB.glob("*.js")):
        if path == owner:
            continue
        text = path.read_text(encoding="utf-8")
        assert not definition.search(text), path.name
        if re.search(r"\bel\(", text):
            assert "window.dom" in text, path.name
            users.add(path.name)
    assert users == {"app.js", "study.js"}
    for page in sorted(WEB.glob("*.html")):
        parser = _Scripts()
        parser.feed(page.read_text(encoding="utf-8"))
        names = [src.rsplit("/", 1)[-1] for src in parser.sources]
        for user in users & set(names):
            assert "dom.js" in names and names.index("dom.js") < names.index(user), (page.name, names)
    with client() as api:
        assert api.get("/static/dom.js").status_code == 200
