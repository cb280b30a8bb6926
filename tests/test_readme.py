"""The README's "Write your own weak learner" example runs as written."""

from __future__ import annotations

import doctest
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_write_your_own_weak_learner_section():
    text = README.read_text()
    start = text.index("## Write your own weak learner")
    section = text[start:text.index("\n## ", start + 1)]
    parser = doctest.DocTestParser()
    test = parser.get_doctest(section, {}, "README: write your own weak learner", str(README), 0)
    assert test.examples, "the section has no doctest"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0
