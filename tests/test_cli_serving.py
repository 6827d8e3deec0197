"""`advisor ask` end to end (the real engine on the demo build) and its terminal dialogue, and
`advisor serve`'s argument handling."""

from __future__ import annotations

import io
import re

import pytest

from cli.main import main
from cli.terminal import BadInput, Terminal, converse, parse_profile_args
from tests.fake_advisor import FakeAdvisor

URL = re.compile(r"https?://\S+")


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def run_cli(argv, capsys, monkeypatch, stdin_text: str = ""):
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin_text))  # not a terminal
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_ask_answers_with_a_citation_url_when_stdin_is_not_a_terminal(demo_warehouse, capsys, monkeypatch):
    code, out, err = run_cli(["ask", "졸업하려면 전공 몇 학점 들어야 해요?", "--config", str(demo_warehouse.config_path),
                              "--warehouse", str(demo_warehouse.root)], capsys, monkeypatch)
    assert code == 0, err
    assert "tier:" in out
    cited = list(URL.findall(out.split("Sources:", 1)[1])) if "Sources:" in out else []
    assert cited, out
    port = re.search(r":(\d+)/", demo_warehouse.config().sources[0].seeds[0]).group(1)
    assert all(f":{port}/" in u for u in cited)  # the demo site's own pages
    assert "stdin is not a terminal" in err  # each unanswered profile question is said on stderr


def test_ask_with_a_profile_fact_does_not_ask_for_it(demo_warehouse, capsys, monkeypatch):
    config = demo_warehouse.config()
    attribute = next(iter(config.profile))
    schema = config.profile[attribute]
    value = next(iter(schema.values)) if hasattr(schema, "values") else str(schema.min)
    code, out, err = run_cli(["ask", "졸업하려면 전공 몇 학점 들어야 해요?", "--profile", f"{attribute}={value}",
                              "--config", str(demo_warehouse.config_path), "--warehouse", str(demo_warehouse.root)],
                             capsys, monkeypatch)
    assert code == 0, err
    assert schema.question not in err


def test_ask_with_an_unknown_profile_attribute_exits_2_naming_it(demo_warehouse, capsys, monkeypatch):
    code, out, err = run_cli(["ask", "졸업 학점?", "--profile", "shoe_size=270", "--config", str(demo_warehouse.config_path),
                              "--warehouse", str(demo_warehouse.root)], capsys, monkeypatch)
    assert code == 2
    assert "shoe_size" in err and out == ""


def test_ask_on_an_empty_warehouse_exits_1_and_says_to_materialize(tmp_path, capsys, monkeypatch):
    code, out, err = run_cli(["ask", "졸업 학점?", "--warehouse", str(tmp_path / "empty")], capsys, monkeypatch)
    assert code == 1
    assert "advisor materialize" in err


@pytest.mark.parametrize("pairs, problem", [(["grade"], "attr=value"), (["=3"], "attr=value"),
                                            (["grade=3", "grade=4"], "twice")])
def test_malformed_profile_flags_are_refused(pairs, problem):
    with pytest.raises(BadInput, match=problem):
        parse_profile_args(pairs)
    assert parse_profile_args(["department = CS", "year=2021"]) == {"department": "CS", "year": "2021"}


def test_ask_with_a_bad_config_exits_2(tmp_path, capsys, monkeypatch):
    bad = tmp_path / "bad.yaml"
    bad.write_text("institution: x\nsources: []\nprofile: {}\n", encoding="utf-8")
    code, _, err = run_cli(["ask", "hi", "--config", str(bad), "--warehouse", str(tmp_path)], capsys, monkeypatch)
    assert code == 2 and "sources" in err


class TypedAnswers(io.StringIO):
    """A terminal with the given lines already typed."""

    def isatty(self) -> bool:
        return True


def test_at_a_terminal_options_are_numbered_and_enter_means_dont_know():
    out = io.StringIO()
    # campus: "9" is out of range (asked again), then option 2; year_level: Enter = don't know
    terminal = Terminal(stdin=TypedAnswers("9\n2\n\n"), stdout=out, stderr=io.StringIO())
    reply = converse(FakeAdvisor("b"), "몇 학점 들어야 해요?", {}, terminal)
    assert reply.type == "answer"
    assert reply.profile_used == {"campus": "south"}
    shown = out.getvalue()
    assert "1) 북캠퍼스" in shown and "2) 남캠퍼스" in shown and "Enter) 잘 모르겠어요" in shown
    assert terminal.stderr.getvalue() == ""


def test_serve_with_a_bad_config_exits_2_before_serving(tmp_path, capsys):
    code = main(["serve", "--config", str(tmp_path / "missing.yaml"), "--warehouse", str(tmp_path)])
    assert code == 2
    assert "not found" in capsys.readouterr().err


# --- `advisor ask --server`: a running server answers ------------------------------------------------

def test_ask_with_server_holds_the_dialogue_over_http_and_forgets_it(capsys, monkeypatch):
    from serving.api import AdvisorHolder, ServingSettings, create_app
    from tests.fake_advisor import DEFAULT_SCHEMA, running_server

    holder = AdvisorHolder(lambda: FakeAdvisor("remote"))
    assert holder.refresh()
    app = create_app(holder, ServingSettings(rate_per_minute=0))
    with running_server(app) as base:
        # "학점" makes the fake engine ask every attribute: --profile answers one (its option's own
        # value, 2 not "2"), the other is asked at the "terminal", which is not one: don't know
        code, out, err = run_cli(["ask", "졸업 학점 알려줘", "--server", base, "--profile", "year_level=2"],
                                 capsys, monkeypatch)
        assert code == 0, err
        assert "[remote]" in out and "Sources:" in out
        assert DEFAULT_SCHEMA["campus"][0] in err and DEFAULT_SCHEMA["year_level"][0] not in err
        assert len(app.state.sessions) == 0  # forgotten on the server once answered
        code, out, err = run_cli(["ask", "", "--server", base], capsys, monkeypatch)
        assert code == 2 and "422" in err and "empty_message" in err
    code, out, err = run_cli(["ask", "안녕", "--server", base], capsys, monkeypatch)  # the server has stopped
    assert code == 1 and "cannot reach" in err and out == ""
    code, out, err = run_cli(["ask", "안녕", "--server", "127.0.0.1:8000"], capsys, monkeypatch)
    assert code == 2 and "expected http://" in err


def test_ask_with_server_starts_no_engine():
    """What makes it fast: the client imports neither the engine, Kiwi nor FastAPI."""
    import subprocess
    import sys

    code = ("import sys; from cli.remote import ask_remote; "
            "heavy = [m for m in ('kiwipiepy', 'fastapi', 'serving.dialogue.engine', 'sklearn', 'duckdb') if m in sys.modules]; "
            "print(heavy)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "[]"
