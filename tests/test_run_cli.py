"""`onlineboost run`: prequential answers equal a hand-written river loop, rejects never touch
the model, answers leave before the model learns (on a live pipe), configs, bandits, refusals."""

from __future__ import annotations

import io
import json
import os
import select
import subprocess
import sys

import numpy as np
import pytest

from onlineboost.app import checkpoint, cli, records, runconfig

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _env():
    return {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _stream(n=120, seed=0, bad=()):
    """CSV text of a seeded regression stream; the lines in `bad` (1-based record indices) are
    replaced by malformed records. Returns (text, clean rows)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.tanh(X[:, 0] - 0.5 * X[:, 1] * X[:, 2])
    lines, rows = ["a,b,c,y"], []
    broken = ["1.0,oops,2.0,0.5", "1.0,2.0,0.5", "nan,1,1,0.1", "1,1,1,inf", "1,1,1,",
              '1,"2,3', "\x00,1,1,1"]
    for i in range(n):
        if i + 1 in bad:
            lines.append(broken[i % len(broken)])
        else:
            lines.append(",".join(repr(float(v)) for v in (*X[i], y[i])))
            rows.append((dict(zip("abc", map(float, X[i]))), float(y[i])))
    return "\n".join(lines) + "\n", rows


def _answers(path):
    with open(path) as f:
        return [line.rstrip("\n").split(",") for line in f]


def test_answers_equal_a_prequential_river_loop(tmp_path):
    text, rows = _stream()
    (tmp_path / "in.csv").write_text(text)
    argv = ["run", str(tmp_path / "in.csv"), "--target", "y", "--learner", "ridge", "-N", "4",
            "--gamma", "0.5", "--step-size", "0.5", "--seed", "3", "--scale",
            "-o", str(tmp_path / "out.csv"), "--report-every", "0"]
    assert cli.main(argv) == 0
    got = _answers(tmp_path / "out.csv")
    model = runconfig.build_model(runconfig.resolve(
        target="y", learner="ridge", n_learners=4, gamma=0.5, step_size=0.5, seed=3, scale=True))
    expected = []
    for x, y in rows:  # the oracle: predict, then learn, in river
        expected.append(model.predict_one(x))
        model.learn_one(x, y)
    assert [int(r[0]) for r in got] == list(range(2, len(rows) + 2))
    assert [float(r[1]) for r in got] == expected  # exact: repr round-trips floats
    assert np.std(expected) > 0.1  # it did learn something


def test_default_booster_is_booco_with_its_own_defaults(tmp_path):
    """Issue 11: with no model flag, `onlineboost run` answers what `BoOCO()` answers (its
    defaults: TinyMLP copies seeded from 0, N = 10, gamma = eta = delta = 0.01, raw targets).
    The booster's parameters are left to BoOCO, so a learner given alone gets BoOCO's rule."""
    from onlineboost import BoOCO

    text, rows = _stream()
    rows = [(x, 50.0 + 20.0 * y) for x, y in rows]  # raw targets, far from [-1, 1]
    (tmp_path / "in.csv").write_text("a,b,c,y\n" + "".join(
        ",".join(repr(v) for v in (*x.values(), y)) + "\n" for x, y in rows))
    argv = ["run", str(tmp_path / "in.csv"), "--target", "y", "-o", str(tmp_path / "out.csv"),
            "--report-every", "0"]
    assert cli.main(argv) == 0
    got = [float(r[1]) for r in _answers(tmp_path / "out.csv")]
    built = runconfig.build_model(runconfig.resolve(target="y"))
    assert isinstance(built, BoOCO)
    default = BoOCO()
    # every parameter left to BoOCO's own default ("auto" steps, learner None: TinyMLP); the
    # CLI gives the seed only
    assert {k: v for k, v in built._get_params().items() if k != "seed"} == \
        {k: v for k, v in default._get_params().items() if k != "seed"}
    assert built.gamma == "auto" and built.learner is None and built.seed == 0
    np.testing.assert_array_equal(built.parameters_in_use["eta"],
                                  default.parameters_in_use["eta"])  # "auto": 0.01 each
    assert type(built._copies) is type(default._copies)
    model, expected = BoOCO(), []
    for x, y in rows:
        expected.append(model.predict_one(x))
        model.learn_one(x, y)
    assert got == expected  # exact: the same model, seeded the same way
    y = np.array([y for _, y in rows])
    # it learns: half the second half's MAE of the whole stream's mean (measured: 4.0 / 12.5)
    assert np.mean(np.abs(np.array(expected[60:]) - y[60:])) < 0.5 * np.mean(
        np.abs(y[60:] - y.mean()))


def test_rejects_are_reported_and_never_touch_the_model(tmp_path):
    bad = {5, 17, 18, 40, 77, 90, 101}
    text, _ = _stream(bad=bad)
    clean = "\n".join(line for i, line in enumerate(text.splitlines()) if i not in bad) + "\n"
    (tmp_path / "dirty.csv").write_text(text)
    (tmp_path / "clean.csv").write_text(clean)
    common = ["--target", "y", "--learner", "linear-ogd", "-N", "3", "--report-every", "0"]
    assert cli.main(["run", str(tmp_path / "dirty.csv"), "-o", str(tmp_path / "d.out"),
                     "--rejects", str(tmp_path / "rej.jsonl"), *common]) == 0
    assert cli.main(["run", str(tmp_path / "clean.csv"), "-o", str(tmp_path / "c.out"),
                     *common]) == 0
    rejects = [json.loads(line) for line in open(tmp_path / "rej.jsonl")]
    assert [r["line"] for r in rejects] == sorted(b + 1 for b in bad)  # + 1: the header
    assert all(r["reason"] for r in rejects)
    dirty, cleaned = _answers(tmp_path / "d.out"), _answers(tmp_path / "c.out")
    assert [a[1] for a in dirty] == [a[1] for a in cleaned]  # same answers, same model
    assert {int(a[0]) for a in dirty}.isdisjoint(r["line"] for r in rejects)


def test_strict_stops_with_a_clear_error(tmp_path, capsys):
    text, _ = _stream(n=20, bad={7})
    (tmp_path / "in.csv").write_text(text)
    code = cli.main(["run", str(tmp_path / "in.csv"), "--target", "y", "--strict",
                     "-o", str(tmp_path / "out.csv")])
    assert code == 2
    assert "line 8:" in capsys.readouterr().err
    assert len(_answers(tmp_path / "out.csv")) == 6  # records 1..6 were answered


def test_answer_leaves_before_the_next_record_arrives():
    """On a live pipe, the answer to record t is readable while record t+1 is not yet sent."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "onlineboost.app.cli", "run", "--format", "jsonl", "--target", "y",
         "--learner", "ridge", "--report-every", "0"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    try:
        for t in range(3):
            proc.stdin.write(json.dumps({"x": t / 3, "y": t / 6}).encode() + b"\n")
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], 30)
            assert ready, f"no answer to record {t + 1} while the stream stays open"
            assert proc.stdout.readline().decode().startswith(f"{t + 1},")
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
        assert b"done: records=3" in proc.stderr.read()
    finally:
        proc.kill()
        proc.wait()


def test_toml_config_jsonl_classification(tmp_path):
    rng = np.random.default_rng(1)
    with open(tmp_path / "in.jsonl", "w") as f:
        for _ in range(300):
            u, v = rng.normal(size=2)
            f.write(json.dumps({"id": "r", "u": u, "v": v, "label": bool(u + v > 0)}) + "\n")
    (tmp_path / "run.toml").write_text(
        '[data]\ntarget = "label"\ntask = "classification"\nignore = ["id"]\n'
        '[model]\nlearner = "linear-ogd"\nn_learners = 3\nseed = 0\n'
        '[model.learner_params]\nlr = 0.5\n')
    assert cli.main(["run", str(tmp_path / "in.jsonl"), "--config", str(tmp_path / "run.toml"),
                     "-o", str(tmp_path / "out.csv"), "--report-every", "0"]) == 0
    answers = _answers(tmp_path / "out.csv")
    assert len(answers) == 300 and all(len(a) == 3 for a in answers)
    labels = [r["label"] for r in map(json.loads, open(tmp_path / "in.jsonl"))]
    accuracy = np.mean([int(a[1]) == int(lbl) for a, lbl in zip(answers[100:], labels[100:])])
    assert accuracy > 0.9


@pytest.mark.parametrize("name", ["epsilon-greedy", "linucb"])
def test_bandit_policy_plugs_in(tmp_path, name):
    """Any `pull`/`update` policy runs the bandit loop, contextual (LinUCB) or not; it sees only
    the pulled arm's reward, and the answers are those of a hand-written river loop."""
    from river import bandit

    rng = np.random.default_rng(2)
    rows = []
    for _ in range(400):
        c = float(rng.normal())
        rows.append({"c": c, "a": float(rng.random() < (0.8 if c > 0 else 0.2)),
                     "b": float(rng.random() < 0.5)})
    with open(tmp_path / "in.jsonl", "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    assert cli.main(["run", str(tmp_path / "in.jsonl"), "--rewards", "a,b",
                     "--policy", name, "--seed", "5", "-o", str(tmp_path / "arms"),
                     "--report-every", "0"]) == 0
    arms = [a[1] for a in _answers(tmp_path / "arms")]
    contextual = name == "linucb"
    policy = (bandit.LinUCBDisjoint(seed=5) if contextual
              else bandit.EpsilonGreedy(epsilon=0.1, seed=5))
    expected = []
    for r in rows:
        context = {"c": r["c"]}
        arm = policy.pull(["a", "b"], context) if contextual else policy.pull(["a", "b"])
        expected.append(arm)
        if contextual:
            policy.update(arm, context, r[arm])
        else:
            policy.update(arm, r[arm])
    assert arms == expected
    reward = np.mean([r[a] for r, a in zip(rows[200:], arms[200:])])
    assert reward > (0.6 if contextual else 0.45)  # LinUCB uses the context: a when c > 0


def test_corrupt_truncated_or_foreign_checkpoints_are_refused(tmp_path, capsys):
    text, _ = _stream(n=30)
    (tmp_path / "in.csv").write_text(text)
    ck = str(tmp_path / "ck")
    assert cli.main(["run", str(tmp_path / "in.csv"), "--target", "y", "-o",
                     str(tmp_path / "out"), "--checkpoint", ck, "--report-every", "0"]) == 0
    blob = open(ck, "rb").read()
    for name, data in [("truncated", blob[:-7]), ("flipped", blob[:60] + bytes([blob[60] ^ 4])
                                                  + blob[61:]), ("empty", b"")]:
        with open(tmp_path / name, "wb") as f:
            f.write(data)
        assert cli.main(["run", "--resume", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        assert "checkpoint" in err and ("truncated" in err or "corrupt" in err
                                        or "not an onlineboost" in err), err
        with pytest.raises(checkpoint.CheckpointError):
            checkpoint.load(str(tmp_path / name))
    # the right checkpoint on another stream: refused by the input's CRC
    (tmp_path / "other.csv").write_text(_stream(n=30, seed=9)[0])
    assert cli.main(["run", str(tmp_path / "other.csv"), "--resume", ck]) == 2
    assert "not the same stream" in capsys.readouterr().err


def test_huge_and_binary_lines_are_rejected_in_bounded_memory(tmp_path):
    text, _ = _stream(n=10)
    lines = text.splitlines()
    lines[3] = "9" * 5_000_000  # 5 MB, five times the default bound
    lines[5] = "\udcff"  # an invalid UTF-8 byte, via surrogateescape
    (tmp_path / "in.csv").write_bytes(("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"))
    assert cli.main(["run", str(tmp_path / "in.csv"), "--target", "y", "-o",
                     str(tmp_path / "out"), "--rejects", str(tmp_path / "rej"),
                     "--max-line-bytes", "1000000", "--report-every", "0"]) == 0
    reasons = {r["line"]: r["reason"] for r in map(json.loads, open(tmp_path / "rej"))}
    assert set(reasons) == {4, 6}
    assert "longer than" in reasons[4] and "utf-8" in reasons[6]
    assert len(_answers(tmp_path / "out")) == 8


def test_progress_reports(tmp_path, capsys):
    text, _ = _stream(n=50)
    (tmp_path / "in.csv").write_text(text)
    assert cli.main(["run", str(tmp_path / "in.csv"), "--target", "y", "-o",
                     str(tmp_path / "out"), "--report-every", "20"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert [line.split()[-6] for line in err] == ["records=20", "records=40", "records=50"]
    assert err[-1].startswith("onlineboost run: done: ")
    assert "MAE=" in err[-1] and "records_per_s=" in err[-1]


def test_unknown_config_keys_are_named(tmp_path):
    (tmp_path / "c.json").write_text(json.dumps({"model": {"n_lerners": 3}}))
    with pytest.raises(ValueError, match="n_lerners"):
        runconfig.load_config(str(tmp_path / "c.json"))
    with pytest.raises(records.RecordError, match="lacks"):
        records.RecordParser("csv", target="y").read_header(b"a,b\n")


def test_sigterm_checkpoints_and_continue_mode_resumes(tmp_path, monkeypatch):
    """SIGTERM while waiting on a live pipe: the run checkpoints what it answered and exits 143;
    resuming with `--resume-input continue` on the rest of the stream answers exactly the
    records an uninterrupted run would."""
    import signal
    import time

    records_ = [json.dumps({"u": i / 10, "y": np.sin(i / 10)}).encode() + b"\n"
                for i in range(40)]
    (tmp_path / "all.jsonl").write_bytes(b"".join(records_))
    assert cli.main(["run", str(tmp_path / "all.jsonl"), "--target", "y", "--learner", "ridge",
                     "-o", str(tmp_path / "ref"), "--report-every", "0"]) == 0
    ck = str(tmp_path / "ck")
    proc = subprocess.Popen(
        [sys.executable, "-m", "onlineboost.app.cli", "run", "--format", "jsonl", "--target", "y",
         "--learner", "ridge", "-o", str(tmp_path / "out"), "--checkpoint", ck,
         "--checkpoint-every", "1000", "--report-every", "0"],
        stdin=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    try:
        proc.stdin.write(b"".join(records_[:25]))
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # all 25 answered: now it waits for input
            if (tmp_path / "out").exists() and (tmp_path / "out").read_bytes().count(b"\n") == 25:
                break
            time.sleep(0.01)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 128 + signal.SIGTERM
        assert b"done: records=25" in proc.stderr.read()
    finally:
        proc.kill()
        proc.wait()
    rest = io.TextIOWrapper(io.BytesIO(b"".join(records_[25:])))
    monkeypatch.setattr(sys, "stdin", rest)
    assert cli.main(["run", "--resume", ck, "--resume-input", "continue"]) == 0
    assert (tmp_path / "out").read_bytes() == (tmp_path / "ref").read_bytes()


def test_boblo_runs_the_bandit_stream(tmp_path):
    """`--policy boblo` (Hazan & Singh's Algorithm 2) takes N, gamma, the weak learner and the
    policy parameters from the config; its answers are those of BoBLO driven by hand, and a
    reward outside [0, 1] is answered, refused by the policy and set aside."""
    from river import preprocessing

    from learners import SoftmaxPolicy
    from onlineboost import BoBLO

    rng = np.random.default_rng(4)
    rows = []
    for t in range(600):
        c = rng.normal(size=2)
        best = int(np.argmax([c[0], c[1], 0.3]))
        rewards = {arm: float(rng.random() < (0.9 if k == best else 0.1))
                   for k, arm in enumerate("abc")}
        if t == 50:  # out of [0, 1], whichever arm is pulled
            rewards = {"a": 2.0, "b": -1.0, "c": 1.5}
        rows.append({"u": float(c[0]), "v": float(c[1]), **rewards})
    with open(tmp_path / "in.jsonl", "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    (tmp_path / "run.toml").write_text(
        '[data]\nrewards = ["a", "b", "c"]\n'
        '[model]\npolicy = "boblo"\nlearner = "softmax"\nn_learners = 3\ngamma = 1.0\n'
        'step_size = 0.5\ndelta = 0.1\nseed = 3\nscale = true\n'
        '[model.learner_params]\nlr = 0.05\n'
        '[model.policy_params]\nestimator = "ips"\nexploration = 0.05\nbaseline = 0.5\n')
    assert cli.main(["run", str(tmp_path / "in.jsonl"), "--config", str(tmp_path / "run.toml"),
                     "-o", str(tmp_path / "arms"), "--rejects", str(tmp_path / "rej"),
                     "--report-every", "0"]) == 0
    arms = [a[1] for a in _answers(tmp_path / "arms")]
    policy = BoBLO(SoftmaxPolicy(lr=0.05), n_learners=3, gamma=1.0, step_size=0.5, delta=0.1,
                   seed=3, estimator="ips", exploration=0.05, baseline=0.5,
                   transformer=preprocessing.StandardScaler())
    expected, refused = [], []
    for line, r in enumerate(rows, start=1):
        context = {"u": r["u"], "v": r["v"]}
        arm = policy.pull(["a", "b", "c"], context)
        expected.append(arm)
        try:
            policy.update(arm, context, r[arm])
        except ValueError:
            refused.append(line)
    assert arms == expected
    rejects = [json.loads(line) for line in open(tmp_path / "rej")]
    assert [r["line"] for r in rejects] == refused == [51]
    assert all("refused to learn (answered)" in r["reason"] for r in rejects)
    reward = np.mean([r[a] for r, a in zip(rows[300:], arms[300:])])
    assert reward > 0.55  # uniform play earns (0.9 + 0.1 + 0.1) / 3 = 0.37


def test_a_learner_given_alone_gets_the_booster_rule_and_boblo_its_own_defaults():
    """Left unset, gamma / steps / N / delta are the booster's own: `--learner linear-ogd`
    (an OCO learner) gets BoOCO's rule for it (gamma = 1, Frank-Wolfe steps), not the
    regressor's 0.01; `--policy boblo` builds `BoBLO(seed=0)`; learner_params without a
    learner are refused by name."""
    import learners
    from onlineboost import BoBLO, BoOCO

    built = runconfig.build_model(runconfig.resolve(target="y", learner="linear-ogd"))
    eta = built.parameters_in_use["eta"]
    np.testing.assert_allclose(eta, BoOCO(learners.LinearOGD()).parameters_in_use["eta"])
    np.testing.assert_allclose(eta[:3], [1.0, 2 / 3, 1 / 2])  # Frank-Wolfe, not 0.01
    policy = runconfig.build_model(runconfig.resolve(rewards="r1,r2", policy="boblo"))
    assert isinstance(policy, BoBLO)
    assert {k: v for k, v in policy._get_params().items() if k != "seed"} == \
        {k: v for k, v in BoBLO()._get_params().items() if k != "seed"}
    with pytest.raises(ValueError, match="learner_params need a learner"):
        runconfig.resolve(target="y", learner_params={"lr": 0.1})
