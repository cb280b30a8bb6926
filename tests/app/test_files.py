"""Issue 14, items 1-3 and 19: the run owns its files. Aliasing paths are refused before
anything is written; paths are absolute in the checkpoint; one run per checkpoint (a lock);
temporaries a killed checkpoint write left are removed."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from onlineboost.app import checkpoint, files
from onlineboost.app.errors import RunError
from tests.app._util import cmd, csv_stream, env, run

MODEL = ["--target", "y", "--learner", "ridge", "-N", "2", "--report-every", "0"]


@pytest.mark.parametrize("roles", [("-o", "input"), ("--rejects", "input"),
                                   ("--checkpoint", "input"), ("-o", "--rejects"),
                                   ("-o", "--checkpoint"), ("--rejects", "--checkpoint")])
@pytest.mark.parametrize("spelling", ["same", "dot", "symlink", "hardlink"])
def test_two_roles_on_one_file_are_refused_before_any_write(tmp_path, capsys, roles, spelling):
    """Item 1: before, `-o in.csv` emptied the input and exited 0."""
    data = tmp_path / "in.csv"
    text = csv_stream(20)
    data.write_text(text)
    other = tmp_path / "victim"
    other.write_text("precious\n")
    target = data if "input" in roles else other
    alias = {"same": str(target), "dot": str(tmp_path / "." / target.name)}.get(spelling)
    if spelling == "symlink":
        alias = str(tmp_path / "link")
        os.symlink(target, alias)
    elif spelling == "hardlink":
        alias = str(tmp_path / "hard")
        os.link(target, alias)
    argv = [data, *MODEL]
    first, second = roles
    if first != "input":
        argv += [first, target]
    argv += [second, alias] if second != "input" else []
    if "input" in roles:
        argv[argv.index(first) + 1] = alias
    before = {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    code, err = run(argv, capsys)
    assert code == 2 and "name the same file" in err, err
    assert {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before
    assert not any(p.name.endswith(".lock") for p in tmp_path.iterdir())


def test_missing_output_directory_is_a_clear_error(tmp_path, capsys):
    """Item 17: before, it said 'the checkpoint says None bytes'."""
    (tmp_path / "in.csv").write_text(csv_stream(5))
    for flag in ("-o", "--rejects", "--checkpoint"):
        code, err = run([tmp_path / "in.csv", *MODEL, flag, tmp_path / "nowhere" / "f"], capsys)
        assert code == 2 and "does not exist" in err and "None" not in err, err


def test_paths_are_absolute_in_the_checkpoint(tmp_path, monkeypatch):
    """Item 2: before, `--resume /abs/model.ckpt` from another directory wrote `answers.csv`
    there (an unrelated job's file, truncated and overwritten)."""
    job, elsewhere = tmp_path / "job", tmp_path / "elsewhere"
    job.mkdir(), elsewhere.mkdir()
    text = csv_stream(40)
    (job / "in.csv").write_text(text[: text.index("\n", len(text) // 2) + 1])
    monkeypatch.chdir(job)
    assert run(["in.csv", *MODEL, "-o", "answers.csv", "--rejects", "rej.jsonl",
                "--checkpoint", "model.ckpt"])[0] == 0
    state = checkpoint.load(str(job / "model.ckpt"))
    assert state["paths"] == {"source": str(job / "in.csv"), "output": str(job / "answers.csv"),
                              "rejects": str(job / "rej.jsonl")}
    (elsewhere / "answers.csv").write_text("another job's answers\n")
    (job / "in.csv").write_text(text)  # the stream grew
    monkeypatch.chdir(elsewhere)
    assert run(["--resume", job / "model.ckpt"])[0] == 0
    assert (elsewhere / "answers.csv").read_text() == "another job's answers\n"
    assert len((job / "answers.csv").read_text().splitlines()) == 40


def test_one_run_per_checkpoint(tmp_path, capsys):
    """Item 3: before, a second run on the same checkpoint path silently continued the other
    (finished) run. Now a live run holds a lock; a fresh run refuses an existing checkpoint."""
    (tmp_path / "in.csv").write_text(csv_stream(30))
    ck = tmp_path / "ck"
    proc = subprocess.Popen(cmd("--format", "csv", *MODEL, "--checkpoint", str(ck), "-o",
                                str(tmp_path / "live.out")),
                            stdin=subprocess.PIPE, stderr=subprocess.PIPE, env=env())
    try:
        proc.stdin.write(b"a,b,c,y\n1,2,3,0.5\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (tmp_path / "live.out").exists():
            time.sleep(0.02)
        time.sleep(0.2)
        code, err = run([tmp_path / "in.csv", "--resume", ck], capsys)
        assert code == 2 and "in use by another running" in err, err
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()
        proc.wait()
    code, err = run([tmp_path / "in.csv", *MODEL, "--checkpoint", ck, "-o", tmp_path / "b"],
                    capsys)
    assert code == 2 and "exists" in err and "--resume" in err, err
    assert not (tmp_path / "b").exists()
    state = checkpoint.load(str(ck))
    assert state["records"] == 1 and state["finished"] and len(state["run_id"]) == 32


def test_lock_is_released_when_the_run_ends(tmp_path):
    (tmp_path / "in.csv").write_text(csv_stream(10))
    ck = tmp_path / "ck"
    assert run([tmp_path / "in.csv", *MODEL, "--checkpoint", ck, "-o", tmp_path / "o"])[0] == 0
    files.Lock(str(ck)).release()  # free again
    with pytest.raises(RunError):
        held = files.Lock(str(ck))
        files.Lock(str(ck))
    held.release()


def test_stale_temporaries_are_removed(tmp_path):
    """Item 19: before, each SIGKILL during a checkpoint write left a full-size *.tmp."""
    (tmp_path / "in.csv").write_text(csv_stream(10))
    ck = tmp_path / "model.ckpt"
    assert run([tmp_path / "in.csv", *MODEL, "--checkpoint", ck, "-o", tmp_path / "o"])[0] == 0
    stale = [tmp_path / "model.ckpt.abc123.tmp", tmp_path / "model.ckpt.x_9.tmp"]
    keep = [tmp_path / "other.ckpt.abc.tmp", tmp_path / "model.ckpt.tmp.keep"]
    for p in stale + keep:
        p.write_bytes(b"\0" * 1000)
    assert run(["--resume", ck])[0] == 0
    assert not any(p.exists() for p in stale) and all(p.exists() for p in keep)


def test_a_device_or_a_named_pipe_may_serve_several_roles(tmp_path):
    """/dev/null (a character device) or a named pipe as both answers and rejects is not two
    roles on one file; a regular file is."""
    check_roles = files.check_roles
    written = ("--output", "--rejects")
    check_roles({"--output": "/dev/null", "--rejects": "/dev/null"}, written=written)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    check_roles({"--output": str(fifo), "--rejects": str(fifo)}, written=written)
    (tmp_path / "f").write_text("")
    with pytest.raises(RunError):
        check_roles({"--output": str(tmp_path / "f"), "--rejects": str(tmp_path / "f")},
                    written=written)
