"""The benchmarks' prose reaches BENCHMARKS.md intact: no string escape eats a LaTeX command.

A note written as a plain (not raw) string turns `\\alpha` into a bell character and `\\top`
into a tab (the fifteenth session's count-bonus paragraph lost both that way); these checks fail
on any control character other than the newline, in the modules' strings and in the files
they write.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
BENCHMARKS = sorted((ROOT / "benchmarks").glob("*.py"))
CONTROL = {chr(i) for i in range(32)} - {"\n"}


def _strings(path: pathlib.Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value


@pytest.mark.parametrize("path", BENCHMARKS, ids=lambda p: p.name)
def test_benchmark_strings_hold_no_control_characters(path):
    bad = [(line, repr(sorted(set(text) & CONTROL))) for line, text in _strings(path)
           if set(text) & CONTROL]
    assert not bad, f"{path.name}: strings with control characters (escape the backslash): {bad}"


def test_benchmark_markdown_holds_no_control_characters():
    files = [ROOT / "BENCHMARKS.md", *sorted((ROOT / "benchmarks" / "results").glob("*.md"))]
    for path in files:
        if path.exists():
            text = path.read_text()
            bad = [n for n, line in enumerate(text.splitlines(), 1) if set(line) & CONTROL]
            assert not bad, f"{path.name}: control characters on lines {bad[:5]}"


def test_the_check_sees_an_eaten_escape(tmp_path):
    path = tmp_path / "note.py"
    path.write_text('NOTE = """$\\alpha$ and $c^\\top P c$"""\n')  # a plain string: BEL, tab
    assert [set(text) & CONTROL for _, text in _strings(path)] == [{"\a", "\t"}]
