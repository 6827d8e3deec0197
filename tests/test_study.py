"""The blind preference study (/study, serving/api/study.py; eval/study.py; the preference_study asset):
the exact binomial test against scipy, the vote tables, counterbalanced positions, the config's
study section, the API's 404 and 422, and a browser session whose votes the asset turns into rows."""

from __future__ import annotations

import json

import httpx
import pytest
import yaml

from advisor.config import ConfigError, load_config, parse_config
from advisor.usage.logfiles import read_records
from eval import study
from serving.api import AdvisorHolder, ServingSettings, create_app
from serving.api.study import BASELINE, PROFILL, position_a, winner
from tests.fake_advisor import FakeAdvisor, running_server
from tests.test_web import CHROMIUM, LAUNCH_ARGS

QUESTIONS = [
    {"id": "grad-credits", "question": "졸업하려면 전공 몇 학점 들어야 해요?",
     "profile": {"department": "CS", "admission_year": 2021, "major_type": "double"}},
    {"id": "leave", "question": "휴학 신청은 어떻게 하나요?", "profile": {"department": "DS", "student_status": "enrolled"}},
]
SYSTEM_NAMES = ("profill", "baseline", "dense")


def with_study(config, **study_section):
    data = config.model_dump(mode="json")
    data["study"] = {"enabled": True, "questions": QUESTIONS, **study_section}
    return parse_config(data, "study.yaml")


# ------------------------------------------------------------------------------- the statistics

def test_the_binomial_test_is_scipys():
    from scipy.stats import binomtest

    cases = [(k, n) for n in range(1, 21) for k in range(n + 1)]
    cases += [(41, 48), (7, 48), (24, 48), (0, 100), (100, 100), (37, 100), (470, 1000), (530, 1000), (1, 2000)]
    for k, n in cases:
        assert study.binomial_test(k, n) == pytest.approx(binomtest(k, n, 0.5).pvalue, rel=1e-12, abs=1e-300), (k, n)
    assert study.binomial_test(0, 0) == 1.0  # no non-tie vote: nothing against chance
    with pytest.raises(ValueError):
        study.binomial_test(3, 2)


def test_the_tables_count_each_participants_last_vote():
    def vote(participant, study_id, won, hour="2026-12-07T11:00Z"):
        return {"participant": participant, "study_id": study_id, "winner": won, "day": hour[:10], "hour": hour}

    records = [vote("p1", "b", PROFILL), vote("p2", "b", "tie"), vote("p1", "a", BASELINE),
               vote("p1", "a", PROFILL, "2026-12-07T12:00Z"),  # p1 changed their mind on "a"
               vote("p3", "a", BASELINE), {"participant": "p4", "study_id": "a", "winner": "nobody"}]
    questions, overall = study.study_tables(records, order=["a", "b", "unvoted"])
    assert [q["study_id"] for q in questions] == ["a", "b"]
    assert (questions[0]["profill_wins"], questions[0]["ties"], questions[0]["baseline_wins"]) == (1, 0, 1)
    assert questions[0]["win_rate"] == 0.5 and questions[0]["p_value"] == 1.0
    assert (overall["votes"], overall["participants"], overall["profill_wins"], overall["ties"]) == (4, 3, 2, 1)
    assert overall["win_rate"] == pytest.approx(2 / 3)

    questions, overall = study.study_tables([])
    assert questions == [] and overall["votes"] == 0 and overall["win_rate"] is None and overall["p_value"] == 1.0
    assert study.summary(overall) == study.NO_VOTES
    assert "no votes yet" in study.chart_svg([])
    section = study.report_section(questions, overall)
    assert section.startswith('<section id="preference-study">') and "<svg" in section


# ------------------------------------------------------------------------------- counterbalancing

def test_positions_are_a_latin_square_over_participants():
    for index in range(5):
        firsts = [position_a(row, index) for row in range(40)]
        assert firsts.count(PROFILL) == firsts.count(BASELINE) == 20  # each system in A equally often
        for row in range(39):  # any two consecutive participants see the question both ways
            assert {position_a(row, index), position_a(row + 1, index)} == {PROFILL, BASELINE}
    assert [winner(v, PROFILL) for v in ("a", "b", "tie")] == [PROFILL, BASELINE, "tie"]
    assert [winner(v, BASELINE) for v in ("a", "b", "tie")] == [BASELINE, PROFILL, "tie"]


# ------------------------------------------------------------------------------- the config

def test_the_study_section_is_checked_by_field_and_kept_out_of_the_fingerprint():
    demo = load_config()
    assert demo.study.enabled is False  # the bundled demo runs no study unless asked
    enabled = with_study(demo)
    assert enabled.fingerprint() == demo.fingerprint()  # a serving setting: no rebuild for it
    data = demo.model_dump(mode="json")
    data["study"] = {"enabled": True, "department_attribute": "grade", "questions": [
        {"id": "q1", "question": "?", "profile": {"department": "XX", "grade": 9, "colour": "blue"}},
        {"id": "bad id", "question": "?", "profile": {"department": "CS"}}]}
    with pytest.raises(ConfigError) as error:
        parse_config(data, "x.yaml")
    assert "study.questions[1].id" in str(error.value)
    data["study"]["questions"].pop()
    with pytest.raises(ConfigError) as error:
        parse_config(data, "x.yaml")
    message = str(error.value)
    for field in ("study.department_attribute", "study.questions[0].profile.department",
                  "study.questions[0].profile.grade", "study.questions[0].profile.colour"):
        assert f"  {field}: " in message, message
    data["study"] = {"enabled": True, "questions": [QUESTIONS[0], QUESTIONS[0]]}
    with pytest.raises(ConfigError, match="repeated: grad-credits"):
        parse_config(data, "x.yaml")


# ------------------------------------------------------------------------------- the API

class ConfiguredFake(FakeAdvisor):
    def __init__(self, config):
        super().__init__("fake-build")
        self.config = config


@pytest.mark.parametrize("config", [None, load_config()], ids=["no config", "study disabled"])
def test_the_study_is_404_unless_enabled(config):
    advisor = FakeAdvisor("fake-build") if config is None else ConfiguredFake(config)
    with running_server(create_app(lambda: advisor, ServingSettings(rate_per_minute=0))) as base:
        for method, path, body in [("GET", "/study", None), ("GET", "/v1/study?participant=abcdef0123", None),
                                   ("POST", "/v1/study/votes", {"participant": "abcdef0123", "row": 0,
                                                                "study_id": "leave", "vote": "a"})]:
            response = httpx.request(method, base + path, json=body)
            assert response.status_code == 404, (path, response.text)
            assert response.json()["error"]["code"] == "study_not_enabled"
        spec = httpx.get(base + "/openapi.json").json()  # documented whether or not this config enables it
    votes = spec["paths"]["/v1/study/votes"]["post"]
    assert votes["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith("/VoteRequest")
    assert {"204", "404", "422"} <= set(votes["responses"]) and {"404", "422"} <= set(spec["paths"]["/v1/study"]["get"]["responses"])
    assert {"StudyOut", "VoteRequest"} <= set(spec["components"]["schemas"])


@pytest.fixture(scope="module")
def study_server(demo_warehouse, tmp_path_factory):
    from serving.dialogue.engine import open_advisor

    config = with_study(demo_warehouse.config())
    holder = AdvisorHolder.for_builds(demo_warehouse.builds, lambda root: open_advisor(root, config, None))
    assert holder.refresh(), holder.last_error
    usage = tmp_path_factory.mktemp("study-warehouse") / "usage"
    # the votes go where `advisor serve` keeps its usage records
    app = create_app(holder, ServingSettings(rate_per_minute=0, usage_dir=str(usage)))
    with running_server(app) as base:
        yield base, config, usage, holder.current()


@pytest.mark.parametrize("change, field", [
    ({"study_id": "nope"}, "study_id"),
    ({"vote": "c"}, "vote"),
    ({"department": "XX"}, "department"),
    ({"participant": "short"}, "participant"),
    ({"row": -1}, "row"),
    ({"row": "1"}, "row"),
    ({"session_id": "x"}, "session_id"),
])
def test_bad_votes_get_422_naming_the_field(study_server, change, field):
    base, _, usage, _ = study_server
    body = {"participant": "abcdef0123456789", "row": 0, "study_id": "leave", "vote": "a", "department": None, **change}
    response = httpx.post(base + "/v1/study/votes", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["field"] == field
    assert not (usage / "votes").exists() or all(r["participant"] != "abcdef0123456789"
                                                 for r in read_records(usage, "votes"))


def test_two_consecutive_participants_see_each_pair_both_ways(study_server):
    base, _, _, _ = study_server
    first, second = (httpx.get(base + "/v1/study", params={"participant": p}, timeout=60).json()
                     for p in ("participant-one", "participant-two"))
    assert second["row"] == first["row"] + 1
    for mine, theirs in zip(first["questions"], second["questions"]):
        assert (mine["a"], mine["b"]) == (theirs["b"], theirs["a"])
        assert mine["a"] != mine["b"]  # the systems answer differently: a blind vote has something to decide
    shown = json.dumps(first, ensure_ascii=False).lower()
    assert not any(name in shown for name in SYSTEM_NAMES)  # the API never names the systems either
    again = httpx.get(base + "/v1/study", params={"participant": "participant-one", "row": first["row"]}).json()
    assert again["questions"] == first["questions"]  # the row given back keeps the order


def test_the_baseline_is_the_evaluations_dense_system_with_the_profile_in_the_query(study_server):
    from eval.systems.offline import run_baseline
    from serving.dialogue.baseline import dense_rag_answer

    advisor, today = study_server[3], study_server[1].today()
    for question in QUESTIONS:
        served = dense_rag_answer(advisor, question["question"], question["profile"], today)
        evaluated = run_baseline(advisor, "dense", question["question"], question["profile"], True, today)
        assert served.answer == evaluated.answer and [c.url for c in served.citations] == evaluated.citations
        assert evaluated.query_text.startswith(question["question"] + " ")  # the profile written into the query


# ------------------------------------------------------------------------------- the page and the asset

PLAN = [("데이터과학과", ["a", "tie"]), ("밝히지 않음", ["b", "a"])]  # (department option, votes in order)


@pytest.fixture
def participants(study_server):
    """Two participants, one after the other, through the page in Chromium; [(row, participant id)].
    Playwright is closed before the test goes on (its event loop would outlive Dagster's run)."""
    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium at /usr/bin/chromium")
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        try:
            return [take_part(browser, study_server[0], label, votes) for label, votes in PLAN]
        finally:
            browser.close()


def take_part(browser, base: str, department_label: str, votes: list[str]) -> tuple[int, str]:
    """One participant on /study at phone width: picks a department, votes on every question
    (the buttons' values: a | b | tie). Returns (row, participant id) from the page's storage."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="ko-KR")
    page = context.new_page()
    try:
        page.goto(base + "/study")
        page.wait_for_selector("#start:not([hidden])", timeout=60_000)
        page.select_option("#department", label=department_label)
        page.click("#start button[type=submit]")
        questions = page.locator("li.question")
        assert questions.count() == len(votes)
        for i, vote in enumerate(votes):
            questions.nth(i).locator(f"button.vote[value={vote}]").click()
            questions.nth(i).locator(".voted:not([hidden])").wait_for(timeout=10_000)
        page.wait_for_selector("#done:not([hidden])", timeout=10_000)
        text = page.content().lower()
        assert not any(name in text for name in SYSTEM_NAMES)  # nothing in the DOM names a system
        page.reload()  # the votes stay shown after a reload (sessionStorage), no second department question
        page.locator(f"li.question >> nth=0 >> button.vote[value={votes[0]}][aria-pressed=true]").wait_for(
            timeout=60_000)
        assert page.locator("#start").is_hidden()
        row = int(page.evaluate("sessionStorage.getItem('study.row')"))
        return row, page.evaluate("sessionStorage.getItem('study.participant')")
    finally:
        context.close()


def test_a_browser_votes_and_the_asset_counts_them(study_server, participants, tmp_path):
    from dagster import materialize

    from assets.resources import InstitutionResource, WarehouseResource
    from assets.study import preference_study

    _, config, usage, _ = study_server

    records = list(read_records(usage, "votes"))
    assert len(records) == 4 and {r["department"] for r in records} == {"DS", None}
    assert all(set(r) == {"study_id", "participant", "position_a", "vote", "winner", "department", "hour", "day"}
               for r in records)
    expected = {}
    for (row, participant), (_, votes) in zip(participants, PLAN):
        for index, (question, vote) in enumerate(zip(QUESTIONS, votes)):
            first = position_a(row, index)
            mine = [r for r in records if r["participant"] == participant and r["study_id"] == question["id"]]
            assert [(r["position_a"], r["vote"]) for r in mine] == [(first, vote)]
            expected.setdefault(question["id"], []).append(winner(vote, first))

    config_path = tmp_path / "study.yaml"
    config_path.write_text(yaml.safe_dump(config.model_dump(mode="json"), allow_unicode=True), encoding="utf-8")
    warehouse = usage.parent
    result = materialize([preference_study], resources={
        "institution": InstitutionResource(config_path=str(config_path)),
        "warehouse": WarehouseResource(path=str(warehouse))})
    assert result.success

    import duckdb

    with duckdb.connect(str(warehouse / "lakehouse.duckdb"), read_only=True) as con:
        rows = con.execute("SELECT study_id, profill_wins, ties, baseline_wins FROM preference_study_questions "
                           "ORDER BY rowid").fetchall()
        overall = con.execute("SELECT votes, participants, p_value FROM preference_study").fetchone()
        section = study.study_section(con)
    assert rows == [(q["id"], expected[q["id"]].count(PROFILL), expected[q["id"]].count("tie"),
                     expected[q["id"]].count(BASELINE)) for q in QUESTIONS]
    wins = sum(w.count(PROFILL) for w in expected.values())
    losses = sum(w.count(BASELINE) for w in expected.values())
    assert overall == (4, 2, pytest.approx(study.binomial_test(wins, wins + losses)))
    chart = (warehouse / "reports" / study.CHART_FILE).read_text(encoding="utf-8")
    assert chart.lstrip().startswith("<?xml") and "<svg" in chart
    assert 'href="http' not in chart and "<image" not in chart  # self-contained: nothing loaded from elsewhere
    assert section is not None and "grad-credits" in section and "<svg" in section
