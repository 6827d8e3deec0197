"""The benchmark's reference answers are cut by the evaluation's own reading of the documents, not
by the answerer's: were they cut by the rules that cut the answers (serving/answer/units.py), an
answer's ROUGE-L, token F1 and keyword scores would be partly self-graded.

Checked on the source, with `ast`: the modules that write the benchmark (eval/benchmark/synthesis.py,
eval/benchmark/llm_questions.py and every eval module they import) import nothing of serving/ and none of the
modules units.py reads a line with, and share no string constant of 8 characters or more (a regex
pattern, a word list entry) with units.py or those modules. Then the evaluation's reader itself
(eval/benchmark/line_reader.py) reads the text as a careful person would.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from eval.benchmark import line_reader
from eval.benchmark.line_reader import ITEM, ROW, SENTENCE, lines_of

ROOT = Path(__file__).resolve().parents[1]
ANSWERER = "serving/answer/units.py"  # where the answerer cuts a chunk into the lines it quotes
WRITERS = ("eval/benchmark/synthesis.py", "eval/benchmark/llm_questions.py")  # what writes references and keywords
PROJECT = ("advisor", "serving", "eval")
MIN_SHARED = 8  # a shorter constant (" | ", "- ") is a format both must agree on, not a rule


def _tree(path: str) -> ast.Module:
    return ast.parse((ROOT / path).read_text(encoding="utf-8"))


def _module_file(module: str) -> str | None:
    """The project file of a dotted module name (a package: its __init__.py), or None."""
    base = ROOT / Path(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return str(candidate.relative_to(ROOT))
    return None


def imported_modules(path: str) -> set[str]:
    """The modules a file imports: `from a.b import c` is a.b.c when c is a module, else a.b."""
    found = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                inner = f"{node.module}.{alias.name}"
                found.add(inner if _module_file(inner) else node.module)
    return found


def _project_files(modules: set[str]) -> set[str]:
    return {f for m in modules if m.split(".")[0] in PROJECT and (f := _module_file(m))}


def answerer_reading() -> set[str]:
    """units.py and the project modules it imports: how the answerer decides rows, items, captions
    and sentence ends (advisor/annotation/structure.py, advisor/ingest/rows.py, advisor/language,
    serving/answer/rows.py)."""
    return {ANSWERER} | _project_files(imported_modules(ANSWERER))


def benchmark_modules() -> set[str]:
    """The writers and every eval module they import, directly or not."""
    found, todo = set(), list(WRITERS)
    while todo:
        path = todo.pop()
        if path in found:
            continue
        found.add(path)
        todo.extend(f for f in _project_files(imported_modules(path)) if f.startswith("eval/"))
    return found


def string_constants(path: str) -> set[str]:
    """The file's string literals of MIN_SHARED characters or more, but names (one lowercase ASCII
    word: "sentence", a dict key): both sides may call a sentence a sentence."""
    return {node.value for node in ast.walk(_tree(path))
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) >= MIN_SHARED
            and not re.fullmatch(r"[a-z_]+", node.value)}


def test_the_benchmark_modules_are_the_expected_ones():
    """A sanity check of the walk: the reader, the facts and the question writer are among them."""
    assert {"eval/benchmark/facts.py", "eval/benchmark/line_reader.py", "eval/benchmark/questions.py",
            "eval/benchmark/line_scope.py"} <= benchmark_modules()
    assert {"advisor/annotation/structure.py", "advisor/ingest/rows.py"} <= answerer_reading()


@pytest.mark.parametrize("path", sorted(benchmark_modules()))
def test_no_benchmark_module_imports_the_answerers_reading(path):
    forbidden = {m.removesuffix("/__init__.py").removesuffix(".py").replace("/", ".") for m in answerer_reading()}
    imported = imported_modules(path)
    assert not [m for m in imported if m == "serving" or m.startswith("serving.")], (path, imported)
    assert not imported & forbidden, (path, imported & forbidden)


@pytest.mark.parametrize("path", sorted(benchmark_modules()))
def test_no_benchmark_module_shares_a_pattern_or_string_with_the_answerer(path):
    theirs = set().union(*(string_constants(f) for f in answerer_reading()))
    shared = string_constants(path) & theirs
    assert not shared, f"{path} shares with the answerer's line reading: {sorted(shared)}"


# ----------------------------------------------------------------------------- the reader itself

def sentences(text):
    return [s for s in re.split(r"(?<=[.?다])\s+", text) if s]


def read(text):
    return [(line.kind, line.readable, line.heading, line.caption) for line in lines_of(text, sentences)]


def test_rows_items_captions_and_headings():
    text = ("# 졸업요건\n"
            "심화전공 이수 학점 (2023학년도 입학생)\n"
            "- 구분: 전공필수 | 기준: 26학점\n"
            "- 구분: 전공선택 | 기준: 39학점\n"
            "\n"
            "## 제출 서류\n"
            "1. 신청서\n"
            "2) 성적증명서\n"
            "(3) 어학 성적\n"
            "④ 추천서\n"
            "• 사본은 받지 않습니다.")
    assert read(text) == [
        (ROW, "구분: 전공필수, 기준: 26학점", "졸업요건", "심화전공 이수 학점 (2023학년도 입학생)"),
        (ROW, "구분: 전공선택, 기준: 39학점", "졸업요건", "심화전공 이수 학점 (2023학년도 입학생)"),
        (ITEM, "신청서", "제출 서류", ""),
        (ITEM, "성적증명서", "제출 서류", ""),
        (ITEM, "어학 성적", "제출 서류", ""),
        (ITEM, "추천서", "제출 서류", ""),
        (ITEM, "사본은 받지 않습니다.", "제출 서류", ""),
    ]


@pytest.mark.parametrize("line, marker", [
    ("- 항목", "-"), ("– 항목", "–"), ("■ 교과목 편성표", "■"), ("▶ 신청 방법", "▶"), ("○ 대상", "○"),
    ("· 항목", "·"), ("* item", "*"), ("+ item", "+"), ("✓ 확인", "✓"), ("10. 열째", "10."), ("⑵ 둘째", "⑵"),
    ("※ 학기당 최대 18학점까지 신청할 수 있습니다.", ""),  # a reference mark opens a note: prose
    ("2026. 3. 1. 개정", ""),  # a year counts nothing
    ("2 English-taught courses: 국제경영.", ""),  # a bare digit is the sentence's own number
    ("㈜한빛 협약", ""), ("(주) 한빛 협약", ""),  # a company, not a list
    ("'18학번 이후", ""), ("-항목", ""),  # a marker is set off by a space
    ("•", ""),  # a bullet with nothing after it marks no item
])
def test_list_markers_by_what_their_characters_are(line, marker):
    assert line_reader.list_marker(line) == marker


def test_a_caption_is_a_title_right_above_its_list():
    # a sentence above a list is prose, not its caption (with or without a full stop)
    assert [k for k, *_ in read("다음 서류를 제출해야 합니다\n- 신청서")] == [SENTENCE, ITEM]
    assert read("다음 서류를 제출해야 합니다\n- 신청서")[1][3] == ""
    # a title separated from the list by a blank line is a paragraph of its own
    assert read("입학년도 선택\n\n- 2018학년도")[1][3] == ""
    # prose between ends the list the caption named
    assert [c for *_, c in read("전공 학점\n- 구분: 전공 | 기준: 60학점\n이후 변경될 수 있다.\n- 비고: 없음")] == \
        ["전공 학점", "", ""]
    long_line = " ".join(["단어"] * (line_reader.MAX_CAPTION_WORDS + 1))
    assert read(f"{long_line}\n- 항목")[0][0] == SENTENCE


def test_questions_are_not_statements_and_headings_are_atx():
    assert read("휴학은 몇 학기까지 가능한가요?\n휴학은 통산 6학기까지 가능하다.") == [
        (SENTENCE, "휴학은 통산 6학기까지 가능하다.", "", "")]
    assert line_reader.heading_of("### 서울캠퍼스") == "서울캠퍼스"
    assert line_reader.heading_of("#해시태그") is None and line_reader.heading_of("####### 일곱") is None
