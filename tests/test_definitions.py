"""The code location loads, and the config's errors are reported by field."""

from __future__ import annotations

import pytest

from advisor.config import ConfigError, load_config, parse_config
from cli.main import main


def test_every_asset_is_grouped_described_and_versioned():
    """(Which assets, checks, jobs, schedules and sensors there are: tests/test_definitions_snapshot.py.)"""
    from pipelines.definitions import defs

    assert defs.resolve_schedule_def("nightly_refresh").execution_timezone == load_config().timezone
    for spec in defs.resolve_all_asset_specs():
        assert spec.group_name and spec.description and spec.code_version, spec.key


def test_notices_have_their_own_hourly_job_without_benchmark_or_evaluation():
    from pipelines.definitions import defs

    job = defs.resolve_job_def("notices_refresh")
    selected = {key.to_user_string() for key in job.asset_layer.selected_asset_keys}
    assert {"raw_documents", "chunks", "index_build"} <= selected
    assert not selected & {"qa_benchmark", "evaluation", "evaluation_report", "intent_dataset", "dialogue_benchmark"}
    hourly = defs.resolve_schedule_def("notices_hourly")
    assert hourly.job_name == "notices_refresh" and hourly.cron_schedule == "30 * * * *"
    assert hourly.execution_timezone == load_config().timezone
    # the hourly run crawls the dynamic collection; the nightly one builds the index in full
    assert job.run_config["ops"]["raw_documents"]["config"]["collections"] == ["dynamic"]
    assert defs.resolve_job_def("refresh_all").run_config["ops"]["index_build"]["config"]["full"] is True
    assert defs.resolve_schedule_def("nightly_refresh").job_name == "refresh_all"


def test_demo_config_is_the_default():
    config = load_config()
    assert config.local_site is not None and config.local_site.generate == "demo_college"
    assert {"department", "admission_year", "major_type", "grade", "student_status"} <= set(config.profile)


@pytest.mark.parametrize("mutate, field", [
    (lambda c: c["sources"][1].update(kind="rss"), "sources[1].kind"),
    (lambda c: c["sources"][0].update(seeds=["ftp://x"]), "sources[0].seeds"),
    (lambda c: c["sources"][0].update(allow=["(unclosed"]), "sources[0].allow"),
    (lambda c: c["profile"]["admission_year"].update(min=2030), "profile.admission_year"),
    (lambda c: c.update(timezone="Mars/Olympus"), "timezone"),
    (lambda c: c["sources"][0].update(selectors={"content": "main[["}), "sources[0].selectors"),
    (lambda c: c.update(colour="blue"), "colour"),
    (lambda c: c["sources"][1].update(name="a"), "sources: Value error, source names must be unique; repeated: a"),
])
def test_bad_config_names_the_field(mutate, field):
    config = {
        "institution": "X",
        "sources": [{"name": "a", "kind": "html", "seeds": ["http://127.0.0.1:1/"]},
                    {"name": "b", "kind": "faq", "seeds": ["http://127.0.0.1:1/faq"]}],
        "profile": {"admission_year": {"type": "year", "question": "?", "min": 2015, "max": 2026}},
    }
    mutate(config)
    with pytest.raises(ConfigError) as error:
        parse_config(config, "x.yaml")
    assert f"  {field}" in str(error.value) and "x.yaml" in str(error.value)


def test_cli_rejects_bad_config_before_running(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("institution: X\nsources: []\nprofile: {}\n")
    assert main(["materialize", "--config", str(bad), "--warehouse", str(tmp_path / "w")]) == 2
    assert "sources" in capsys.readouterr().err
    assert not (tmp_path / "w").exists()  # nothing written for a config that does not load
    assert main(["materialize", "--config", str(tmp_path / "missing.yaml")]) == 2


def test_llm_choice_follows_config_and_environment(monkeypatch):
    from dagster import Failure

    from assets.resources import LLMResource

    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    llm = LLMResource()
    assert not llm.wanted("auto", "annotator") and not llm.wanted("rules", "annotator")
    with pytest.raises(Failure, match="pipeline.annotator is 'llm' but no LLM is configured"):
        llm.wanted("llm", "annotator")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert llm.wanted("auto", "annotator") and llm.wanted("llm", "annotator")
    assert not llm.wanted("rules", "annotator")  # an explicit offline choice wins over a configured LLM


def test_the_readme_config_example_loads():
    """The config a new institution copies from the README must be valid as written."""
    from pathlib import Path

    import yaml

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Pointing it at your institution"):]
    example = section[section.index("```yaml") + len("```yaml"):]
    config = parse_config(yaml.safe_load(example[: example.index("```")]), "README.md")
    assert config.sources[0].kind == "board" and config.local_site.port == 8765
    assert config.retrieval.static_k == 7 and config.pipeline.embedder == "auto"


def test_lineage_inputs_are_the_asset_graphs_deps(tmp_path):
    """record_lineage takes an asset's inputs from its declared deps (not a hand-written list), so
    every asset's `materializations.inputs` names exactly its parents in the asset graph."""
    import json
    from datetime import datetime, timezone
    from types import SimpleNamespace

    from advisor.lakehouse import connect
    from assets.lineage import record_lineage
    from pipelines.definitions import defs

    graph = defs.resolve_asset_graph()
    config = load_config()
    keys = sorted(graph.get_all_asset_keys())
    with connect(tmp_path) as con:
        for key in keys:
            context = SimpleNamespace(run_id="run-1", asset_key=key, assets_def=defs.resolve_assets_def(key))
            record_lineage(context, con, config, asset=key.to_user_string(), started_at=datetime.now(timezone.utc),
                           code_version="c", row_count=0, counts={}, metadata={})
        recorded = {asset: sorted(i["asset"] for i in json.loads(inputs))
                    for asset, inputs in con.execute("SELECT asset, inputs FROM materializations").fetchall()}
    assert recorded == {k.to_user_string(): sorted(p.to_user_string() for p in graph.get(k).parent_keys) for k in keys}
    assert recorded["index_build"] == ["chunk_annotations", "chunk_augmentations", "chunks", "intent_dataset"]
    assert recorded["intent_dataset"] == ["chunks", "documents"]


def test_the_pipelines_recorded_lineage_matches_the_asset_graph(demo_warehouse):
    """What a real run recorded (the demo warehouse: every asset but the evaluation's)."""
    import json

    from advisor.lakehouse import connect
    from pipelines.definitions import defs

    graph = defs.resolve_asset_graph()
    parents = {k.to_user_string(): sorted(p.to_user_string() for p in graph.get(k).parent_keys)
               for k in graph.get_all_asset_keys()}
    with connect(demo_warehouse.root, read_only=True) as con:
        rows = con.execute("SELECT asset, inputs FROM materializations").fetchall()
    assert {asset for asset, _ in rows} == set(parents) - {"evaluation", "evaluation_report"}
    for asset, inputs in rows:
        assert sorted(i["asset"] for i in json.loads(inputs)) == parents[asset], asset


def test_the_environment_variables_have_one_reader(monkeypatch, tmp_path):
    """$ADVISOR_WAREHOUSE and $ADVISOR_CONFIG reach the command line, the code location and
    load_config through advisor.settings, with the defaults docs/contracts.md §1 states."""
    from pathlib import Path

    from advisor import settings
    from advisor.config import DEMO_CONFIG_PATH
    from pipelines.definitions import build_definitions

    monkeypatch.delenv("ADVISOR_WAREHOUSE", raising=False)
    monkeypatch.delenv("ADVISOR_CONFIG", raising=False)
    assert settings.warehouse_path() == Path("warehouse") and settings.config_path() is None
    assert settings.warehouse_path("elsewhere") == Path("elsewhere")
    config_copy = tmp_path / "institution.yaml"
    config_copy.write_text(DEMO_CONFIG_PATH.read_text(encoding="utf-8").replace(
        "timezone: Asia/Seoul", "timezone: Europe/Paris"), encoding="utf-8")
    monkeypatch.setenv("ADVISOR_WAREHOUSE", str(tmp_path / "wh"))
    monkeypatch.setenv("ADVISOR_CONFIG", str(config_copy))
    assert settings.warehouse_path() == tmp_path / "wh"
    assert load_config().timezone == "Europe/Paris"
    defs = build_definitions()
    assert defs.resolve_schedule_def("nightly_refresh").execution_timezone == "Europe/Paris"


def test_every_stage_runs_in_the_lakehouse_pool_described_by_its_docstring():
    """assets.stage.stage_asset declares every asset: one DuckDB writer at a time (the `lakehouse`
    pool), the function's docstring as the description, and a function without one is refused."""
    from assets.stage import POOL, stage_asset
    from pipelines.definitions import defs

    for assets_def in defs.resolve_asset_graph().assets_defs:
        fn = assets_def.op.compute_fn.decorated_fn
        assert assets_def.op.pool == POOL == "lakehouse", fn.__name__
        assert assets_def.get_asset_spec(assets_def.key).description == " ".join(fn.__doc__.split())

    def undocumented(context):
        pass

    with pytest.raises(TypeError, match="undocumented: a stage's docstring"):
        stage_asset("g", kinds={"python"}, code_version="v")(undocumented)
