"""Issue 14, items 4-5, and issue 17 item 3: where a resumed run starts reading, an
unterminated last line, and what a resumed run says."""

from __future__ import annotations

import io
import json
import sys

import pytest

from onlineboost.app import checkpoint
from tests.app._util import answers, csv_stream, run

MODEL = ["--target", "y", "--learner", "ridge", "-N", "2", "--report-every", "0"]


def test_continue_on_a_regular_file_seeks_past_the_checkpoint(tmp_path, capsys):
    """Item 4: before, `--resume-input continue` re-read a regular file from byte 0: the header
    became a rejected record and every record was learned twice under new line numbers."""
    text = csv_stream(60)
    lines = text.splitlines(keepends=True)
    data, ck = tmp_path / "in.csv", tmp_path / "ck"
    (tmp_path / "full.csv").write_text(text)
    assert run([tmp_path / "full.csv", *MODEL, "-o", tmp_path / "ref"])[0] == 0
    data.write_text("".join(lines[:31]))
    assert run([data, *MODEL, "-o", tmp_path / "out", "--rejects", tmp_path / "rej",
                "--checkpoint", ck])[0] == 0
    data.write_text(text)  # the file grew
    code, err = run(["--resume", ck, "--resume-input", "continue"], capsys)
    assert code == 0, err
    assert (tmp_path / "out").read_text() == (tmp_path / "ref").read_text()
    assert (tmp_path / "rej").read_text() == ""
    # a file of exactly the bytes the checkpoint consumed has nothing new: taken, no answer
    code, err = run(["--resume", ck, "--resume-input", "continue"], capsys)
    assert code == 0 and "records=60 " in err, err
    assert (tmp_path / "out").read_text() == (tmp_path / "ref").read_text()
    # a file shorter than the checkpoint's offset is refused
    data.write_text("".join(lines[:5]))
    code, err = run(["--resume", ck, "--resume-input", "continue"], capsys)
    assert code == 2 and "fewer than" in err, err


def test_unterminated_last_line_is_never_consumed(tmp_path, capsys):
    """Item 5: before, a last line without its newline (the producer mid-write) was parsed: its
    truncated target was learned, and once the file was complete every later line number
    shifted by one."""
    text = csv_stream(40)
    cut = text.index("\n", len(text) // 2) + 9  # in the middle of a line
    data, ck = tmp_path / "in.csv", tmp_path / "ck"
    (tmp_path / "full.csv").write_text(text)
    assert run([tmp_path / "full.csv", *MODEL, "-o", tmp_path / "ref"])[0] == 0
    data.write_text(text[:cut])
    code, err = run([data, *MODEL, "-o", tmp_path / "out", "--rejects", tmp_path / "rej",
                     "--checkpoint", ck], capsys)
    assert code == 0
    n_complete = text[:cut].count("\n")
    assert f"line {n_complete + 1} has no newline yet" in err
    state = checkpoint.load(str(ck))
    assert state["position"]["offset"] == text.rindex("\n", 0, cut) + 1
    assert state["records"] == n_complete - 1  # the header is not a record
    got = answers(tmp_path / "out")
    assert [int(a[0]) for a in got] == list(range(2, n_complete + 1))
    data.write_text(text)  # the producer finished the line and the stream
    assert run(["--resume", ck])[0] == 0
    assert (tmp_path / "out").read_text() == (tmp_path / "ref").read_text()
    assert (tmp_path / "rej").read_text() == ""


def test_unterminated_last_line_on_a_pipe(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"a,y\n1,0.5\n2,0.2")))
    code, err = run(["--format", "csv", *MODEL, "-o", tmp_path / "out"], capsys)
    assert code == 0 and "records=1 " in err and "line 3 has no newline yet" in err
    assert [a[0] for a in answers(tmp_path / "out")] == ["2"]


@pytest.mark.parametrize("to_file", [True, False])
def test_a_resumed_run_says_from_which_line(tmp_path, capsys, to_file):
    """Issue 17 item 3: before, only a run answering on standard output said it."""
    text = csv_stream(30)
    data, ck = tmp_path / "in.csv", tmp_path / "ck"
    data.write_text(text[: text.index("\n", len(text) // 2) + 1])
    n = data.read_text().count("\n")
    out = ["-o", tmp_path / "out"] if to_file else []
    assert run([data, *MODEL, *out, "--checkpoint", ck, "--rejects", tmp_path / "rej"],
               capsys)[0] == 0
    data.write_text(text)
    code, err = run(["--resume", ck], capsys)
    assert code == 0
    assert "resumed run " in err and f"after line {n} ({n - 1} records)" in err, err
    assert f"answers from line {n + 1} on" in err


def test_bom_in_jsonl_keeps_the_first_record(tmp_path):
    """Item 18: before, a JSON-lines file starting with a UTF-8 BOM lost its first record."""
    rows = [{"u": 0.5, "y": 0.1}, {"u": -0.5, "y": 0.2}]
    (tmp_path / "in.jsonl").write_bytes(b"\xef\xbb\xbf" + "".join(
        json.dumps(r) + "\n" for r in rows).encode())
    assert run([tmp_path / "in.jsonl", *MODEL, "-o", tmp_path / "out", "--rejects",
                tmp_path / "rej"])[0] == 0
    assert [a[0] for a in answers(tmp_path / "out")] == ["1", "2"]
    assert (tmp_path / "rej").read_text() == ""


def test_a_run_resumed_after_its_header_alone_says_so(tmp_path, capsys):
    """A checkpoint that has read the CSV header and no record (0 records, a few bytes in) is
    a resumed run: it says so, from line 2 on, and answers every record once."""
    text = csv_stream(10)
    data, ck = tmp_path / "in.csv", tmp_path / "ck"
    data.write_text(text[: text.index("\n") + 1])  # the header alone
    assert run([data, *MODEL, "-o", tmp_path / "out", "--checkpoint", ck], capsys)[0] == 0
    data.write_text(text)
    code, err = run(["--resume", ck], capsys)
    assert code == 0 and "after line 1 (0 records)" in err and "from line 2 on" in err, err
    assert [a[0] for a in answers(tmp_path / "out")] == [str(i) for i in range(2, 12)]
