"""Each set's institution, built from nothing by the real pipeline into `<workdir>/<set>/`: the
bundled colleges from their own configs (their loopback sites moved to a free port), the real FAQ
rendered as pages by eval/dialogue/realfaq.py. A kept workdir is reused: the pipeline is
incremental, so a second run rebuilds only what changed."""

from __future__ import annotations

from pathlib import Path

import yaml

from advisor.config import DEMO_CONFIG_PATH, example_config
from eval.dialogue import realfaq

BUSINESS_CONFIG_PATH = example_config("business_college")
BUNDLED = {"demo": DEMO_CONFIG_PATH, "business": BUSINESS_CONFIG_PATH}
REAL_FAQ = "realfaq"
# where a clone beside the shared folder finds the real FAQ (the project ships none of it)
REAL_FAQ_FILE = Path(__file__).resolve().parents[3] / "shared" / "realdata" / "hobit-faq.jsonl"
WAREHOUSE_DIR = "warehouse"


class UnknownSet(ValueError):
    """A set named after no institution this module can build."""


def config_copy_path(config_path: Path, directory: Path) -> Path:
    """Where `config_on_port` writes a bundled college's config in `directory`."""
    return Path(directory) / f"{Path(config_path).parent.name}.yaml"


def config_on_port(config_path: Path, directory: Path, port: int, max_pages: int | None = None) -> Path:
    """A bundled college's own config written into `directory`, its loopback site moved to `port`
    (and each source capped at `max_pages`)."""
    config = yaml.safe_load(Path(config_path).read_text(encoding="utf-8"))
    bundled = f":{config['local_site']['port']}"  # in every seed and allow pattern

    def moved(node):
        if isinstance(node, dict):
            return {k: moved(v) for k, v in node.items()}
        if isinstance(node, list):
            return [moved(v) for v in node]
        return node.replace(bundled, f":{port}") if isinstance(node, str) else node

    config = moved(config)
    config["local_site"]["port"] = port
    if max_pages is not None:
        for source in config["sources"]:
            source["max_pages"] = max_pages
    path = config_copy_path(config_path, directory)
    path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def _previous_port(path: Path) -> int | None:
    if not path.is_file():
        return None
    return (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("local_site", {}).get("port")


def prepare(name: str, workdir: Path, real_faq: Path | None = None) -> tuple[Path, Path]:
    """(config path, warehouse) of set `name`'s institution, built up to its index build."""
    directory = Path(workdir) / name
    directory.mkdir(parents=True, exist_ok=True)
    if name in BUNDLED:
        written = directory / f"{BUNDLED[name].parent.name}.yaml"
        config_path = config_on_port(BUNDLED[name], directory, realfaq.free_port(_previous_port(written)))
    elif name == REAL_FAQ:
        source = Path(real_faq or REAL_FAQ_FILE)
        config_path, _ = realfaq.prepare(realfaq.load_entries(source), directory)
    else:
        raise UnknownSet(f"set {name!r}: no institution of that name (known: {', '.join([*BUNDLED, REAL_FAQ])})")
    warehouse = directory / WAREHOUSE_DIR
    realfaq.materialize(config_path, warehouse)
    return config_path, warehouse
