"""Exactly once under SIGKILL: kill `onlineboost run` at random points, resume each time, and the
answers put together equal those of one uninterrupted run — none skipped, none answered twice."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np

from onlineboost.app import cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N_RECORDS = 1500
MODEL = ["--target", "y", "--learner", "linear-ogd", "-N", "3", "--gamma", "0.5", "--seed", "7",
         "--scale", "--report-every", "0"]


def _write_stream(path, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N_RECORDS, 3))
    y = np.tanh(X @ np.array([1.0, -0.5, 0.25]))
    with open(path, "w") as f:
        f.write("a,b,c,y\n")
        for i in range(N_RECORDS):
            if i % 97 == 13:
                f.write("1.0,not-a-number,0.0,0.5\n")  # rejects are reconciled too
            f.write(",".join(repr(float(v)) for v in (*X[i], y[i])) + "\n")


def _cmd(*args):
    return [sys.executable, "-m", "onlineboost.app.cli", "run", *args]


def _env():
    return {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _kill_after(proc, path, threshold, timeout=60.0):
    """SIGKILL `proc` once `path` holds more than `threshold` bytes (or it has finished)."""
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        if os.path.exists(path) and os.path.getsize(path) > threshold:
            proc.send_signal(signal.SIGKILL)
            break
        time.sleep(0.001)
    proc.wait()
    return proc.returncode


def test_sigkill_and_resume_to_an_answer_file(tmp_path):
    data, ref, out = tmp_path / "in.csv", tmp_path / "ref.out", tmp_path / "out"
    ck = str(tmp_path / "ck")
    _write_stream(data)
    assert cli.main(["run", str(data), "-o", str(ref), "--rejects", str(tmp_path / "ref.rej"),
                     *MODEL]) == 0
    expected = ref.read_bytes()
    rng = np.random.default_rng(0)
    thresholds = np.sort(rng.uniform(0.05, 0.9, size=3)) * len(expected)
    proc = subprocess.Popen(_cmd(str(data), "-o", str(out), "--rejects", str(tmp_path / "rej"),
                                 "--checkpoint", ck, "--checkpoint-every", "100", *MODEL),
                            env=_env(), stderr=subprocess.DEVNULL)
    kills = 0
    for threshold in thresholds:
        kills += _kill_after(proc, out, threshold) == -signal.SIGKILL
        proc = subprocess.Popen(_cmd("--resume", ck, "--checkpoint-every", "100"), env=_env(),
                                stderr=subprocess.DEVNULL)
    assert proc.wait(timeout=120) == 0
    assert kills >= 2  # most kills landed mid-stream (a resumed run may finish first)
    assert out.read_bytes() == expected
    assert (tmp_path / "rej").read_bytes() == (tmp_path / "ref.rej").read_bytes()


def test_sigkill_on_a_pipe_consumer_keeps_the_last_answer_per_line(tmp_path):
    """Standard input replayed from its start, answers on standard output: the resumed run
    answers the lines after its checkpoint again; keeping the last answer per line number
    gives the uninterrupted answers exactly."""
    data, ref = tmp_path / "in.csv", tmp_path / "ref.out"
    ck = str(tmp_path / "ck")
    _write_stream(data, seed=1)
    assert cli.main(["run", str(data), "-o", str(ref), "--rejects", os.devnull, *MODEL]) == 0
    expected = ref.read_text().splitlines()
    received = []
    for attempt in range(2):
        sink = tmp_path / f"stdout{attempt}"
        args = (["--resume", ck, "--rejects", os.devnull] if attempt else
                ["--checkpoint", ck, "--checkpoint-every", "100", "--rejects", os.devnull, *MODEL])
        with open(data, "rb") as stdin, open(sink, "wb") as stdout:
            proc = subprocess.Popen(_cmd(*args), stdin=stdin, stdout=stdout,
                                    stderr=subprocess.DEVNULL, env=_env())
            if attempt == 0:
                assert _kill_after(proc, sink, 0.6 * len(ref.read_bytes())) == -signal.SIGKILL
            else:
                assert proc.wait(timeout=120) == 0
        received += sink.read_text().splitlines()
    last = {}
    for line in received:
        if line.endswith("\n") or "," not in line:
            continue
        last[int(line.split(",")[0])] = line  # a torn last line of a killed run is replaced
    assert len(received) > len(expected)  # some lines were answered twice on the pipe...
    assert [last[k] for k in sorted(last)] == expected  # ...but each keeps one, correct, answer
