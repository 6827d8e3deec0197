"""A REAL university FAQ as an institution: the hoBIT FAQ (Korea University College of Informatics;
kept outside the project, so its path is an argument) rendered as FAQ pages (one Korean page per
category, one English page, every item anchored `faq-<id>`), served on loopback by the same
local-site machinery that serves the demo college during its crawl, and built by the real pipeline
(`advisor materialize --config … --warehouse … --select "*index_build"`, run as a subprocess: the
evaluation may not import the Dagster layers).

The message sets keyed to it are `eval/testsets/realfaq.jsonl` (locked) and
`eval/devsets/realfaq.jsonl` (development: the question sets written for it before, the former
held-out one included, since its figures chose between variants); both are run by
`advisor eval --testsets realfaq` / `--devsets realfaq` (eval/sets/).
"""

from __future__ import annotations

import html
import json
import re
import socket
import subprocess
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from examples.site_kit.writer import sync_tree

SITE_DIR = "site"  # under the workdir: the rendered FAQ pages
WAREHOUSE_DIR = "warehouse"
CONFIG_FILE = "institution.yaml"
SELECTION = "*index_build"  # the index build and everything upstream ("+" would be one layer only): what serving needs
LANGS = ("ko", "en")


class RealFAQError(ValueError):
    """The FAQ file is not what the institution is rendered from (said plainly)."""


# ---------------------------------------------------------------------------- reading the inputs

def load_entries(path: Path) -> list[dict]:
    """The FAQ entries of the jsonl, checked for the fields the site is rendered from."""
    path = Path(path)
    if not path.is_file():
        raise RealFAQError(f"{path}: FAQ file not found")
    entries = []
    for number, line in enumerate(path.read_text(encoding="utf-8-sig").splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RealFAQError(f"{path}:{number}: not JSON ({exc.msg})") from None
        for key in ("id", "category_ko", "category_en", *(f"question_{lang}" for lang in LANGS), *(f"answers_{lang}" for lang in LANGS)):
            if key not in entry:
                raise RealFAQError(f"{path}:{number}: missing field {key!r}")
        entries.append(entry)
    ids = [e["id"] for e in entries]
    if len(set(ids)) != len(ids):
        raise RealFAQError(f"{path}: duplicate entry ids {sorted(i for i, n in Counter(ids).items() if n > 1)}")
    if not entries:
        raise RealFAQError(f"{path}: no entries")
    return entries


# ---------------------------------------------------------------------------- the site

def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "misc"


def page_paths(entries: Sequence[Mapping]) -> dict[tuple[int | str, str], str]:
    """(entry id, lang) -> the site path of the page listing it: Korean pages by category (as a
    college groups its FAQ), one English page with every entry."""
    paths = {}
    for e in entries:
        paths[(e["id"], "ko")] = f"faq/ko-{_slug(e['category_en'])}.html"
        paths[(e["id"], "en")] = "faq/en.html"
    return paths


def entry_url(base_url: str, entries: Sequence[Mapping], entry_id, lang: str) -> str:
    """The canonical URL of an entry's document: its page's URL plus `#faq-<id>` (docs/contracts.md §3)."""
    return f"{base_url.rstrip('/')}/{page_paths(entries)[(entry_id, lang)]}#faq-{entry_id}"


def _answer_html(answers: Sequence[Mapping]) -> str:
    parts = []
    for a in answers:
        paragraphs = "".join(f"<p>{html.escape(line)}</p>" for line in a["answer"].splitlines() if line.strip())
        url = a.get("url") or ""
        link = f"<p><a href='{html.escape(url)}'>관련 링크</a></p>" if url.startswith("http") else ""
        parts.append(paragraphs + link)
    return "".join(parts)


def _page(title: str, items: Sequence[Mapping], lang: str) -> str:
    body = "".join(
        f"<div class='faq-item' id='faq-{e['id']}'><dt>{html.escape(e[f'question_{lang}'])}</dt>"
        f"<dd>{_answer_html(e[f'answers_{lang}'])}</dd></div>"
        for e in items
    )
    # site chrome around the content, as a real college page has it: the crawl must drop it
    return (f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"</head><body><header><nav>정보대학 홈 | 학사 | 장학 | 공지</nav></header><main><h1>{html.escape(title)}</h1>"
            f"<dl class='faq'>{body}</dl></main><footer>고려대학교 정보대학 행정팀</footer></body></html>")


def render_site(entries: Sequence[Mapping]) -> dict[str, bytes]:
    """Relative path -> bytes of every page: the FAQ index, the Korean category pages, the English page."""
    paths = page_paths(entries)
    by_page: dict[str, list[Mapping]] = {}
    titles: dict[str, str] = {}
    for e in entries:
        for lang in LANGS:
            path = paths[(e["id"], lang)]
            by_page.setdefault(path, []).append(e)
            titles[path] = f"자주 묻는 질문: {e['category_ko']}" if lang == "ko" else "Frequently asked questions"
    files = {path: _page(titles[path], items, "en" if path == "faq/en.html" else "ko").encode()
             for path, items in by_page.items()}
    links = "".join(f"<li><a href='/{p}'>{html.escape(titles[p])}</a></li>" for p in sorted(by_page))
    files["faq/index.html"] = (f"<!doctype html><html><head><meta charset='utf-8'><title>FAQ</title></head><body>"
                               f"<main><h1>자주 묻는 질문</h1><ul>{links}</ul></main></body></html>").encode()
    return files


# ---------------------------------------------------------------------------- the institution

def free_port(preferred: int | None = None) -> int:
    """`preferred` when it can be bound (a kept workdir keeps its URLs), else any free port."""
    for port in ([preferred] if preferred else []) + [0]:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return s.getsockname()[1]
    raise OSError("no free loopback port")


def institution_config(site_dir: Path, port: int) -> dict:
    """The throwaway institution's config (docs/contracts.md §2): the FAQ pages as its one source,
    and the profile schema such a college office would configure (department, major type, cohort,
    year of study, status) so that the engine has something to ask about."""
    base = f"http://127.0.0.1:{port}"
    escaped = re.escape(base)
    return {
        "institution": "고려대학교 정보대학 (hoBIT FAQ replay)",
        "language": "ko",
        "timezone": "Asia/Seoul",
        "local_site": {"directory": str(site_dir), "port": port},
        "crawl": {"delay_seconds": 0.0, "concurrency": 4, "retries": 0},
        "sources": [{
            "name": "faq", "kind": "faq", "collection": "static",
            "seeds": [f"{base}/faq/"],
            "allow": [f"^{escaped}/faq/"],
            "documents": [r"/faq/(?!index\.html)[^/]+\.html$"],
            "selectors": {"content": "main", "title": "h1",
                          "faq_item": "dl.faq > div.faq-item", "faq_question": "dt", "faq_answer": "dd"},
        }],
        "profile": {
            "department": {"type": "categorical", "question": "소속 학과가 어디인가요?",
                           "values": {"CS": ["컴퓨터학과", "Computer Science"], "DS": ["데이터과학과", "Data Science"]}},
            "major_type": {"type": "categorical", "question": "어떤 전공 유형으로 이수하고 있나요?",
                           "values": {"single": ["심화전공", "단일전공"], "double": ["이중전공", "복수전공"],
                                      "convergence": ["융합전공"]}},
            "admission_year": {"type": "year", "question": "몇 학번이신가요? (입학년도)", "min": 2015, "max": 2026},
            "grade": {"type": "integer", "question": "현재 몇 학년인가요?", "min": 1, "max": 4},
            "student_status": {"type": "categorical", "question": "현재 학적 상태는 무엇인가요?",
                               "values": {"enrolled": ["재학생"], "on_leave": ["휴학생"], "transfer": ["편입생"],
                                          "international": ["외국인 유학생", "유학생"]}},
        },
    }


def prepare(entries: Sequence[Mapping], workdir: Path) -> tuple[Path, str]:
    """Write the site and the config into `workdir`; returns (config path, the site's base URL)."""
    workdir = Path(workdir)
    config_path = workdir / CONFIG_FILE
    previous = None
    if config_path.exists():
        previous = (yaml.safe_load(config_path.read_text(encoding="utf-8")) or {}).get("local_site", {}).get("port")
    port = free_port(previous)
    sync_tree(workdir / SITE_DIR, render_site(entries))  # unchanged pages keep their mtimes: 304s on re-crawl
    config = institution_config((workdir / SITE_DIR).resolve(), port)
    config_path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return config_path, f"http://127.0.0.1:{port}/"


def materialize(config_path: Path, warehouse: Path) -> None:
    """`advisor materialize` for the index build and its upstream assets, in a subprocess (the
    evaluation layer imports no Dagster); its output is shown only when it fails."""
    from advisor.settings import DagsterEnvironment, InstitutionEnvironment, child_environment

    env = child_environment(DagsterEnvironment, InstitutionEnvironment)  # the child's own instance, config, warehouse
    command = [sys.executable, "-m", "cli", "materialize", "--config", str(config_path),
               "--warehouse", str(warehouse), "--select", SELECTION]
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2])
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-40:])
        raise RuntimeError(f"materialize failed (exit {done.returncode}):\n{tail}")
