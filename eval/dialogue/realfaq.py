"""A held-out dialogue benchmark on a REAL university FAQ asked in students' own words.

`python -m eval.dialogue.realfaq <hobit-faq.jsonl> [workdir] [--dev]`

The FAQ (hoBIT, Korea University College of Informatics; kept outside the project, so the path is
an argument) becomes a throwaway institution: its entries are rendered as FAQ pages (one Korean
page per category, one English page, every item anchored `faq-<id>`), served on loopback by the
same local-site machinery that serves the demo college during its crawl, and built by the real
pipeline (`advisor materialize --config … --warehouse … --select "*index_build"`, run as a
subprocess: the evaluation may not import the Dagster layers). The engine then answers every
question of `realfaq_questions.jsonl` once, through `eval.dialogue.runner.run` (a fresh session
each, "don't know" to every profile question), and the metric table of
`eval.dialogue.metrics.compute` is printed with the headline counts below it.

The questions were written by hand from the entries, in a student's words, before any system
output was seen, and are never changed to suit the system: 50 FAQ questions keyed by the entry's
`id` (gold: that entry, on the page in the question's language), 10 out-of-scope questions about
campus life the FAQ does not cover (gold: not answered as found), 10 greetings / questions about the
assistant (gold: their intent). Item-level rows go to `<workdir>/realfaq_results.jsonl` only,
never to stdout: this is a held-out set, and showing its items invites tuning on them.

Without a workdir everything is built in a temporary folder and removed afterwards; with one, the
folder is kept and a re-run reuses its warehouse (the pipeline is incremental).

`--dev` runs the DEVELOPMENT set `realfaq_dev.jsonl` instead, and prints every item: questions
written by the developers from the entries (Korean and English), plus out-of-scope, greeting and
ability messages of their own, for tuning and for reading failures. It is kept apart from the
held-out set in code (`check_disjoint`: no question of one is a question of the other, compared
without spaces, punctuation or case), and a figure measured on it is never reported as held-out.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from advisor.config import load_config
from advisor.index.layout import builds_dir
from advisor.site_kit.writer import sync_tree
from eval.dialogue.messages import Message
from eval.dialogue.metrics import ANSWERED_AS_FOUND, compute, effective_intent, markdown
from eval.dialogue.runner import Result, run

QUESTIONS = Path(__file__).with_name("realfaq_questions.jsonl")
DEV_QUESTIONS = Path(__file__).with_name("realfaq_dev.jsonl")  # development: may be read item by item
SITE_DIR = "site"  # under the workdir: the rendered FAQ pages
WAREHOUSE_DIR = "warehouse"
CONFIG_FILE = "institution.yaml"
RESULTS_FILE = "realfaq_results.jsonl"
DEV_RESULTS_FILE = "realfaq_dev_results.jsonl"
SELECTION = "*index_build"  # the index build and everything upstream ("+" would be one layer only): what serving needs
GOLD_ENTRY = "realfaq_entry"  # the expected entry is the FAQ jsonl entry named by the question's entry_id
GOLD_HAND = "hand_labelled"  # intent / behaviour written by hand with the question
LANGS = ("ko", "en")
EXPECTED_COUNTS = {"faq": 50, "out_of_scope": 10, "greeting": 5, "ability": 5}


class RealFAQError(ValueError):
    """The FAQ file or the question set is not what the benchmark expects (said plainly)."""


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


def load_questions(entries: Sequence[Mapping], path: Path = QUESTIONS) -> list[dict]:
    """A hand-written question set, checked against the FAQ it is keyed to: every FAQ question
    names an entry that exists, at most one question per entry (per entry and language in the
    development set), and for the held-out set the expected mix of categories."""
    rows = _read_rows(path)
    held_out = not is_development(path)
    known = {e["id"] for e in entries}
    seen: set = set()
    for row in rows:
        if row["category"] == "faq":
            if row["entry_id"] not in known:
                raise RealFAQError(f"question {row['id']!r}: entry {row['entry_id']!r} is not in the FAQ file")
            key = row["entry_id"] if held_out else (row["entry_id"], row["lang"])
            if key in seen:
                raise RealFAQError(f"question {row['id']!r}: a second question for entry {row['entry_id']!r}")
            seen.add(key)
        elif row.get("entry_id") is not None:
            raise RealFAQError(f"question {row['id']!r}: only FAQ questions name an entry")
    counts = Counter(r["category"] for r in rows)
    if held_out and dict(counts) != EXPECTED_COUNTS:
        raise RealFAQError(f"{path}: expected {EXPECTED_COUNTS}, got {dict(counts)}")
    if len({r["id"] for r in rows}) != len(rows):
        raise RealFAQError(f"{path}: duplicate question ids")
    return rows


def is_development(path: Path) -> bool:
    """Is `path` the development set (read item by item), not the held-out one?"""
    return Path(path) == DEV_QUESTIONS


def _read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def _squashed(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


def check_disjoint(dev_path: Path = DEV_QUESTIONS, held_out_path: Path = QUESTIONS) -> None:
    """No development question is a held-out question (compared without spaces, punctuation or
    case): tuning on the one must not mean tuning on the other."""
    held_out = {_squashed(row["text"]) for row in _read_rows(held_out_path)}
    shared = [row["id"] for row in _read_rows(dev_path) if _squashed(row["text"]) in held_out]
    if shared:
        raise RealFAQError(f"{dev_path}: questions also in the held-out set: {shared}")


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

def _free_port(preferred: int | None = None) -> int:
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
    port = _free_port(previous)
    sync_tree(workdir / SITE_DIR, render_site(entries))  # unchanged pages keep their mtimes: 304s on re-crawl
    config = institution_config((workdir / SITE_DIR).resolve(), port)
    config_path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return config_path, f"http://127.0.0.1:{port}/"


def materialize(config_path: Path, warehouse: Path) -> None:
    """`advisor materialize` for the index build and its upstream assets, in a subprocess (the
    evaluation layer imports no Dagster); its output is shown only when it fails."""
    env = {k: v for k, v in os.environ.items() if k not in ("DAGSTER_HOME", "ADVISOR_CONFIG", "ADVISOR_WAREHOUSE")}
    command = [sys.executable, "-m", "cli", "materialize", "--config", str(config_path),
               "--warehouse", str(warehouse), "--select", SELECTION]
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2])
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-40:])
        raise RuntimeError(f"materialize failed (exit {done.returncode}):\n{tail}")


# ---------------------------------------------------------------------------- messages and scores

def messages(questions: Sequence[Mapping], entries: Sequence[Mapping], base_url: str) -> list[Message]:
    """The question set as the dialogue benchmark's messages; an FAQ question's expected entry is
    the entry's document on the page in the question's language."""
    out = []
    for q in questions:
        gold = None
        if q["category"] == "faq":
            gold = entry_url(base_url, entries, q["entry_id"], q["lang"])
        out.append(Message(
            message_id=q["id"], text=q["text"], category=q["category"], register=q["register"],
            intent=q["intent"], behaviour=q["behaviour"], gold_from=GOLD_ENTRY if gold else GOLD_HAND,
            faq_source=gold, source_url=gold, template=f"hobit entry {q['entry_id']}" if gold else "hand-written",
        ))
    return out


def headline_counts(results: Sequence[Result]) -> list[tuple[str, int, int]]:
    """(what, hits, n) for the brief's headline numbers."""
    by = {c: [r for r in results if r.category == c] for c in ("faq", "out_of_scope", "greeting", "ability")}
    faq, outside = by["faq"], by["out_of_scope"]
    routed = by["greeting"] + by["ability"]
    rows = [
        ("FAQ: right entry cited first", sum(r.first_citation == r.expected_faq for r in faq), len(faq)),
        ("FAQ: answered verbatim by the FAQ tier", sum(r.verbatim for r in faq), len(faq)),
        ("FAQ: answered by the FAQ tier (any entry)", sum(r.tier == "faq" for r in faq), len(faq)),
        ("out-of-scope answered as if found (faq/documents)", sum(r.tier in ANSWERED_AS_FOUND for r in outside),
         len(outside)),
        ("greeting/meta routed to their template", sum(effective_intent(r.as_dict()) == r.category for r in routed),
         len(routed)),
    ]
    for intent in ("greeting", "ability"):
        rows.append((f"  {intent}", sum(effective_intent(r.as_dict()) == intent for r in by[intent]), len(by[intent])))
    for category, group in [("all", list(results)), *by.items()]:
        rows.append((f"messages with a profile question: {category}", sum(r.questions_asked >= 1 for r in group),
                     len(group)))
    rows.append(("profile questions asked in all", sum(r.questions_asked for r in results), len(results)))
    return rows


def tier_table(results: Sequence[Result]) -> str:
    """Final tiers per category, as Markdown (where the answers came from)."""
    tiers = ("template", "faq", "documents", "fallback")
    lines = ["| category | " + " | ".join(tiers) + " |", "|---|" + "---:|" * len(tiers)]
    for category in ("faq", "out_of_scope", "greeting", "ability"):
        counts = Counter(r.tier for r in results if r.category == category)
        lines.append(f"| {category} | " + " | ".join(str(counts.get(t, 0)) for t in tiers) + " |")
    return "\n".join(lines)


@dataclass
class Outcome:
    results: list[Result]
    metrics: list[dict]
    seconds: dict[str, float] = field(default_factory=dict)
    build_id: str | None = None


def results_file(questions_path: Path) -> str:
    return DEV_RESULTS_FILE if is_development(questions_path) else RESULTS_FILE


def run_benchmark(faq_path: Path, workdir: Path, questions_path: Path = QUESTIONS) -> Outcome:
    """Build the institution in `workdir`, send every question once, score."""
    from serving.dialogue.engine import open_advisor  # heavy: only when a run is asked for

    entries = load_entries(faq_path)
    questions = load_questions(entries, questions_path)
    workdir = Path(workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    seconds = {}
    started = time.perf_counter()
    config_path, base_url = prepare(entries, workdir)
    materialize(config_path, workdir / WAREHOUSE_DIR)
    seconds["build"] = time.perf_counter() - started
    started = time.perf_counter()
    config = load_config(config_path)
    advisor = open_advisor(builds_dir(workdir / WAREHOUSE_DIR), config)
    seconds["open"] = time.perf_counter() - started
    started = time.perf_counter()
    results = run(advisor, messages(questions, entries, base_url))
    seconds["dialogue"] = time.perf_counter() - started
    with (workdir / results_file(questions_path)).open("w", encoding="utf-8") as f:
        for r in results:
            f.write(json.dumps(r.as_dict(), ensure_ascii=False) + "\n")
    return Outcome(results=results, metrics=compute(results), seconds=seconds, build_id=advisor.build_id)


def report(outcome: Outcome) -> str:
    lines = [markdown(outcome.metrics), "", "| headline | count | n |", "|---|---:|---:|"]
    lines += [f"| {what} | {hits} | {n} |" for what, hits, n in headline_counts(outcome.results)]
    lines += ["", tier_table(outcome.results), ""]
    n = max(len(outcome.results), 1)
    lines.append("time: " + ", ".join(f"{k} {v:.1f} s" for k, v in outcome.seconds.items())
                 + f" ({outcome.seconds.get('dialogue', 0) / n:.2f} s per message)")
    return "\n".join(lines)


def item_table(results: Sequence[Result]) -> str:
    """One line per message, as Markdown: for the DEVELOPMENT set only (held-out items stay in the file)."""
    anchor = lambda url: (url or "").rsplit("/", 1)[-1] or "–"  # noqa: E731
    lines = ["| id | message | expected | tier | cited first | questions |", "|---|---|---|---|---|---:|"]
    lines += [f"| {r.message_id} | {r.text} | {anchor(r.expected_faq) if r.expected_faq else r.expected_intent or 'fallback'} "
              f"| {r.tier} | {anchor(r.first_citation)} | {r.questions_asked} |" for r in results]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    dev = "--dev" in argv
    argv = [a for a in argv if a != "--dev"]
    if not argv or len(argv) > 2:
        print(__doc__.split("\n")[2], file=sys.stderr)
        return 2
    faq_path = Path(argv[0])
    try:
        load_entries(faq_path)
        if dev:
            check_disjoint()
    except RealFAQError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    keep = len(argv) > 1
    workdir = Path(argv[1]) if keep else Path(tempfile.mkdtemp(prefix="realfaq-"))
    try:
        outcome = run_benchmark(faq_path, workdir, DEV_QUESTIONS if dev else QUESTIONS)
    except (RealFAQError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)
    kind = "DEVELOPMENT set (not held-out evidence)" if dev else "held-out set"
    print(f"real FAQ benchmark · {kind} · {faq_path} · build {outcome.build_id} · {len(outcome.results)} messages\n")
    print(report(outcome))
    if dev:
        print("\n" + item_table(outcome.results))
    if keep:
        print(f"\nper-message rows: {workdir / results_file(DEV_QUESTIONS if dev else QUESTIONS)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
