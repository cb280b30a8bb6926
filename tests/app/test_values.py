"""Issue 14, items 6, 8-10, 18, 20: magnitudes that cannot poison a run, `--booster none`
trained on what the learner expects, metrics for every task and decision set, numbers that
are numbers, bounded feature names; and a model that raises is rolled back, not half-updated."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from onlineboost.app import loop, runconfig
from onlineboost.app.loop import Run
from tests.app._util import answers, run
from tests.helpers import same_state

QUIET = ["--report-every", "0"]


def _jsonl(path, rows):
    with open(path, "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)


def _rows(n=300, seed=0, huge=(), value=1e155):
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(n):
        u, v = rng.normal(size=2)
        rows.append({"u": float(u), "v": float(v), "y": float(np.tanh(u - v))})
        if t in huge:
            rows[-1]["u"] = value
    return rows


def _summary(err):
    line = [s for s in err.splitlines() if "done:" in s][-1]
    return dict(p.split("=") for p in line.split("done: ")[1].split())


@pytest.mark.parametrize("value", [1e155, -1e300, 1.7976931348623157e308, 1e99])
def test_one_huge_feature_cannot_poison_the_scaler(tmp_path, capsys, value):
    """Item 6: before, one feature >= 1e155 under --scale made the scaler's variance inf and
    every later record was rejected (102 of 300 answered)."""
    _jsonl(tmp_path / "in.jsonl", _rows(huge={20}, value=value))
    code, err = run([tmp_path / "in.jsonl", "--target", "y", "--scale", "--learner", "ridge",
                     "-o", tmp_path / "out", "--rejects", tmp_path / "rej", *QUIET], capsys)
    assert code == 0
    s = _summary(err)
    rejected = 0 if abs(value) <= 1e100 else 1
    assert int(s["answered"]) == 300 - rejected and int(s["rejected"]) == rejected
    assert all(math.isfinite(float(a[1])) for a in answers(tmp_path / "out"))
    assert math.isfinite(float(s["MAE"])) and math.isfinite(float(s["RMSE"]))
    if rejected:
        reason = json.loads((tmp_path / "rej").read_text())["reason"]
        assert "max_abs" in reason and "'u'" in reason


@pytest.mark.parametrize("policy", ["boblo", "linucb", "epsilon-greedy"])
@pytest.mark.parametrize("value", [1e308, 1e99])
def test_huge_contexts_cannot_poison_a_policy(tmp_path, capsys, policy, value):
    """Items 6 and 8: before, `--policy boblo --scale` rejected every record after one huge
    context, and `--policy linucb` on two contexts at +-1e308 ended in an IndexError traceback
    (and checkpointed the poisoned state)."""
    rng = np.random.default_rng(1)
    rows = []
    for t in range(600):
        c = float(rng.normal())
        rows.append({"c": value if t == 30 else -value if t == 31 else c,
                     "a": float(c > 0), "b": float(c <= 0)})
    _jsonl(tmp_path / "in.jsonl", rows)
    extra = ["--learner", "softmax", "--scale"] if policy == "boblo" else []
    code, err = run([tmp_path / "in.jsonl", "--rewards", "a,b", "--policy", policy, *extra,
                     "-o", tmp_path / "out", "--rejects", tmp_path / "rej",
                     "--checkpoint", tmp_path / "ck", *QUIET], capsys)
    assert code == 0, err
    s = _summary(err)
    assert int(s["records"]) == 600 and int(s["answered"]) == (598 if value > 1e100 else 600)
    if policy != "epsilon-greedy" and value > 1e100:  # rejected: the policy still learns
        arms = [a[1] for a in answers(tmp_path / "out")[-150:]]
        good = [("a" if r["c"] > 0 else "b") for r in rows[-150:]]
        assert np.mean([x == g for x, g in zip(arms, good)]) > 0.65
    # within max_abs an outlier is taken as data: answers stay finite arms, the run goes on
    # (its statistical weight on a scaler or LinUCB is the policy's business, not a crash)
    assert run(["--resume", tmp_path / "ck"])[0] == 0


def test_booster_none_trains_a_regressor_on_y_and_is_seeded(tmp_path):
    """Item 9: before, `--booster none` fed y to LinearOGD as a gradient (answers r = -0.93 with
    the target, summary MAE=0), and `--learner mlp --seed 7` answered differently each run."""
    rows = _rows(400)
    _jsonl(tmp_path / "in.jsonl", rows)
    y = np.array([r["y"] for r in rows])
    for learner in ("linear-ogd", "ridge", "mlp", "stump"):
        outs = []
        for k in range(2):
            out = tmp_path / f"{learner}{k}"
            assert run([tmp_path / "in.jsonl", "--target", "y", "--booster", "none",
                        "--learner", learner, "--seed", "7", "-o", out, *QUIET])[0] == 0
            outs.append(out.read_text())
        assert outs[0] == outs[1], learner  # seeded: same answers
        pred = np.array([float(a[1]) for a in answers(tmp_path / f"{learner}0")])
        r = np.corrcoef(pred[200:], y[200:])[0, 1]
        assert r > 0.5, (learner, r)


def test_booster_none_classification_needs_a_classifier(tmp_path, capsys):
    """Item 17: before, `--task classification --booster none --learner ridge` ended in an
    AttributeError traceback."""
    _jsonl(tmp_path / "in.jsonl", [{"u": 1, "y": 1}])
    code, err = run([tmp_path / "in.jsonl", "--target", "y", "--task", "classification",
                     "--booster", "none", "--learner", "ridge", *QUIET], capsys)
    assert code == 2 and "error: booster 'none'" in err and "classifier" in err, err


@pytest.mark.parametrize("decision_set,dim", [("box:-1,-1,-1,1,1,1", 3), ("ball:2", 1),
                                              ("simplex:3", 3), ("interval:-1,1", 1)])
def test_metrics_are_measured_for_every_decision_set(tmp_path, capsys, decision_set, dim):
    """Item 10: before, box / ball / simplex answers were not measured (MAE=0 RMSE=0)."""
    rows = _rows(100)
    _jsonl(tmp_path / "in.jsonl", rows)
    code, err = run([tmp_path / "in.jsonl", "--target", "y", "--decision-set", decision_set,
                     "-o", tmp_path / "out", *QUIET], capsys)
    assert code == 0, err
    got = answers(tmp_path / "out")
    A = np.array([[float(v) for v in a[1:]] for a in got])
    assert A.shape[0] == 100 and A.shape[1] in (dim, 1)
    y = np.array([r["y"] for r in rows])[:, None]
    errors = np.linalg.norm(A - y, axis=1)
    s = _summary(err)
    assert float(s["MAE"]) == pytest.approx(errors.mean(), rel=1e-5)
    assert float(s["RMSE"]) == pytest.approx(np.sqrt((errors ** 2).mean()), rel=1e-5)
    assert float(s["MAE"]) > 0


def test_classifier_booster_measures_classification(tmp_path, capsys):
    """Item 10: before, `--booster booco-classifier` on the default (regression) task answered
    1.0/0.0 and reported MAE=0 RMSE=0; now it is a classification run with accuracy."""
    rows = [{"u": r["u"], "y": int(r["y"] > 0)} for r in _rows(200)]
    _jsonl(tmp_path / "in.jsonl", rows)
    code, err = run([tmp_path / "in.jsonl", "--target", "y", "--booster", "booco-classifier",
                     "-o", tmp_path / "out", *QUIET], capsys)
    assert code == 0, err
    s = _summary(err)
    assert "accuracy" in s and "MAE" not in s and float(s["accuracy"]) > 0.6
    code, err = run([tmp_path / "in.jsonl", "--target", "y", "--booster", "booco-classifier",
                     "--task", "regression", *QUIET], capsys)
    assert code == 2 and "needs task 'classification'" in err


def test_huge_targets_keep_metrics_finite(tmp_path, capsys):
    """Item 10: before, one target of 1e308 made RMSE inf for the rest of the run. Now a
    target beyond max_abs is rejected, and one within it keeps the running means finite."""
    rows = _rows(200)
    rows[50]["y"], rows[60]["y"] = 1e308, 1e100
    _jsonl(tmp_path / "in.jsonl", rows)
    for booster in ("booco", "none"):
        code, err = run([tmp_path / "in.jsonl", "--target", "y", "--booster", booster,
                         "--learner", "ridge", "--rejects", tmp_path / "rej", "-o",
                         tmp_path / "out", *QUIET], capsys)
        assert code == 0
        s = _summary(err)
        assert math.isfinite(float(s["RMSE"])) and int(s["rejected"]) >= 1
        assert all(math.isfinite(float(v)) for a in answers(tmp_path / "out") for v in a[1:])


@pytest.mark.parametrize("text", ["1_0", "\u0661\u0662", "0x10", "1e101", "\uff11"])
def test_only_ascii_decimals_are_numbers(tmp_path, text):
    """Item 18: before, "1_0" and Arabic-Indic digits parsed as numbers."""
    (tmp_path / "in.csv").write_text(f"a,y\n{text},1\n1,{text}\n", encoding="utf-8")
    assert run([tmp_path / "in.csv", "--target", "y", "-o", tmp_path / "out", "--rejects",
                tmp_path / "rej", *QUIET])[0] == 0
    assert (tmp_path / "out").read_text() == ""
    assert [json.loads(s)["line"] for s in open(tmp_path / "rej")] == [2, 3]


def test_new_feature_names_are_capped(tmp_path, capsys):
    """Item 20: before, every record bringing a new feature name grew the model without bound
    (ridge: checkpoints 2 -> 8 -> 32 MB). Records bringing names beyond --max-features are
    rejected; the model's state stays bounded."""
    rows = [{f"f{t}": 1.0, "g": t / 100, "y": t / 100} for t in range(300)]
    _jsonl(tmp_path / "in.jsonl", rows)
    code, err = run([tmp_path / "in.jsonl", "--target", "y", "--learner", "ridge",
                     "--max-features", "20", "-o", tmp_path / "out", "--rejects",
                     tmp_path / "rej", "--checkpoint", tmp_path / "ck", *QUIET], capsys)
    assert code == 0
    s = _summary(err)
    assert int(s["answered"]) == 19 and int(s["rejected"]) == 281  # g, f0, ..., f18
    reason = json.loads(open(tmp_path / "rej").readline())["reason"]
    assert "max_features = 20" in reason
    small = (tmp_path / "ck").stat().st_size
    assert small < 200_000


class _Flaky:
    """A model that half-updates then raises on a target of 13 (a contract breach)."""

    def __init__(self):
        self.n, self.total = 0, 0.0

    def predict_one(self, x):
        if x.get("boom"):
            self.n += 1000  # half-update, then fail
            raise IndexError("predict broke")
        return self.total / max(self.n, 1)

    def learn_one(self, x, y):
        self.n += 1
        if y == -13:
            raise OverflowError("learn broke")
        self.total += y


def test_a_failing_model_is_rolled_back_not_half_updated(tmp_path, monkeypatch):
    """Any exception from predict/learn rejects the record, the stream goes on, and the model
    is restored to its state before the failing call (snapshot + replay)."""
    monkeypatch.setattr(runconfig, "build_model", lambda settings: _Flaky())
    rows = [{"u": 1.0, "y": float(t)} for t in range(30)]
    rows[5]["y"] = -13.0
    rows[8]["boom"] = 1.0
    rows[9]["y"] = -13.0
    _jsonl(tmp_path / "in.jsonl", rows)
    settings = runconfig.resolve(target="y", format="jsonl")
    r = Run.start(settings, str(tmp_path / "in.jsonl"), str(tmp_path / "out"),
                  str(tmp_path / "rej"), report_every=0)
    r.loop()
    reasons = {json.loads(s)["line"]: json.loads(s)["reason"] for s in open(tmp_path / "rej")}
    assert set(reasons) == {6, 9, 10}
    assert "OverflowError" in reasons[6] and "answered" in reasons[6]
    assert "IndexError" in reasons[9] and "refused the record" in reasons[9]
    expected = _Flaky()
    for t, row in enumerate(rows):
        if t in (5, 8, 9):
            continue
        expected.learn_one({}, row["y"])
    assert same_state(r.state.model, expected)


def test_a_csv_wider_than_max_features_is_refused_at_its_header(tmp_path, capsys):
    (tmp_path / "in.csv").write_text("a,b,c,y\n1,2,3,4\n")
    code, err = run([tmp_path / "in.csv", "--target", "y", "--max-features", "2", "-o",
                     tmp_path / "out", *QUIET], capsys)
    assert code == 2 and "3 feature columns" in err and "--max-features" in err, err
    code, err = run([tmp_path / "in.csv", "--target", "y", "--max-features", "3", "-o",
                     tmp_path / "out", *QUIET], capsys)
    assert code == 0


@pytest.mark.parametrize("configured", [True, False])
def test_boblo_rewards_on_another_scale_need_reward_range(tmp_path, capsys, configured):
    """Rewards 1 / 5: with `reward_range = [1, 5]` in `[model.policy_params]` BoBLO learns
    them (mean reward near 5 late); without it every record whose pulled arm paid 5 is
    rejected with the way out in its reason, and the run goes on."""
    rng = np.random.default_rng(0)
    rows = []
    for _ in range(400):
        c = float(rng.normal())
        rows.append({"c": c, "a": 5.0 if c > 0 else 1.0, "b": 1.0 if c > 0 else 5.0})
    _jsonl(tmp_path / "in.jsonl", rows)
    (tmp_path / "c.toml").write_text("[model.policy_params]\nreward_range = [1.0, 5.0]\n")
    config = ["--config", tmp_path / "c.toml"] if configured else []
    code, err = run([tmp_path / "in.jsonl", "--rewards", "a,b", "--policy", "boblo", *config,
                     "-o", tmp_path / "out", "--rejects", tmp_path / "rej", *QUIET], capsys)
    assert code == 0, err
    s = _summary(err)
    if configured:
        assert int(s["rejected"]) == 0
        arms = [a[1] for a in answers(tmp_path / "out")[-150:]]
        good = [("a" if r["c"] > 0 else "b") for r in rows[-150:]]
        assert np.mean([x == g for x, g in zip(arms, good)]) > 0.9
    else:  # (exactly the records whose pulled arm paid 5: each answered, none learnt)
        out = answers(tmp_path / "out")
        assert len(out) == len(rows)
        paid5 = sum(row[arm] == 5.0 for (_, arm), row in zip(out, rows))
        assert int(s["rejected"]) == paid5 > 50
        reason = json.loads((tmp_path / "rej").read_text().splitlines()[0])["reason"]
        assert "reward_range=(low, high)" in reason


class _CountedPickles(_Flaky):
    """`_Flaky` that notes how many records it had learnt each time it is pickled."""

    pickled_at: list = []

    def __getstate__(self):
        type(self).pickled_at.append(self.n)
        return self.__dict__.copy()


def test_the_snapshot_is_refreshed_every_1000_records_and_rolls_back_past_it(tmp_path,
                                                                             monkeypatch):
    """The module docstring's cost: one pickle of the model at the start and then every
    `SNAPSHOT_EVERY` = 1000 learnt records (no checkpoint here, so no other pickle); a record
    that fails after two refreshes still leaves the model as if it had never been given."""
    import onlineboost.app.loop as loop

    assert loop.SNAPSHOT_EVERY == 1000
    monkeypatch.setattr(_CountedPickles, "pickled_at", [])
    monkeypatch.setattr(runconfig, "build_model", lambda settings: _CountedPickles())
    rows = [{"u": 1.0, "y": float(t % 7)} for t in range(2_600)]
    rows[2_345]["y"] = -13.0  # learn raises: rolled back to the snapshot at 2,000, replayed
    _jsonl(tmp_path / "in.jsonl", rows)
    r = Run.start(runconfig.resolve(target="y", format="jsonl"), str(tmp_path / "in.jsonl"),
                  str(tmp_path / "out"), str(tmp_path / "rej"), report_every=0)
    r.loop()
    # at the start, after 1,000 and 2,000 learnt records, and after the rollback (the model
    # restored from the snapshot at 2,000 replays the 345 records since and is snapshot
    # afresh); the 254 records after it make no fourth refresh
    assert _CountedPickles.pickled_at == [0, 1_000, 2_000, 2_345]
    expected = _CountedPickles()
    for t, row in enumerate(rows):
        if t != 2_345:
            expected.learn_one({}, row["y"])
    assert same_state(r.state.model, expected)


def test_the_api_run_defaults_are_the_command_line_defaults():
    """`Run(...)` without `checkpoint_every` / `report_every` / `resume_input` behaves as
    `onlineboost run` without `--checkpoint-every` / `--report-every` / `--resume-input`."""
    import argparse
    import inspect

    p = argparse.ArgumentParser()
    runconfig.add_arguments(p)
    cli = p.parse_args([])
    params = inspect.signature(Run.__init__).parameters
    for name in ("checkpoint_every", "report_every", "resume_input"):
        assert params[name].default == getattr(cli, name), name
    assert cli.checkpoint_every == cli.report_every == 10_000


def test_checkpoints_fall_every_k_records_once_each(tmp_path, monkeypatch):
    """A checkpoint at the start, after every `checkpoint_every` records (counted as records,
    not lines: blank lines do not count and do not write a second checkpoint at the same
    count) and at the end."""
    at = []
    original = loop.Run._checkpoint

    def noted(self):
        at.append((self.state.records, self.state.finished))
        original(self)

    monkeypatch.setattr(loop.Run, "_checkpoint", noted)
    lines = [json.dumps({"u": float(t), "y": 0.5 * t}) for t in range(16)]
    lines[7:7] = ["", "   "]  # two blank lines right after the 7th record
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n")
    r = Run.start(runconfig.resolve(target="y", format="jsonl"), str(tmp_path / "in.jsonl"),
                  str(tmp_path / "out"), str(tmp_path / "rej"),
                  checkpoint_path=str(tmp_path / "ck"), checkpoint_every=7, report_every=0)
    r.loop()
    assert at == [(0, False), (7, False), (14, False), (16, True)]


class _Clock:
    """`time` for `onlineboost.app.loop`, its `perf_counter` set by hand."""

    now = 100.0

    def perf_counter(self):
        return self.now


@pytest.mark.parametrize("elapsed, rate", [(4.0, 5.0), (0.25, 80.0), (0.0, 0.0)])
def test_records_per_second_count_this_process_only(tmp_path, monkeypatch, elapsed, rate):
    """`records_per_s` is the records this process read over the time since it started
    (`0.0` before any time has passed); a resumed run does not count the records its
    checkpoint brought."""
    clock = _Clock()
    monkeypatch.setattr(loop, "time", clock)
    _jsonl(tmp_path / "in.jsonl", [{"u": float(t), "y": 0.5 * t} for t in range(20)])
    args = (str(tmp_path / "in.jsonl"), str(tmp_path / "out"), str(tmp_path / "rej"))
    r = Run.start(runconfig.resolve(target="y", format="jsonl"), *args,
                  checkpoint_path=str(tmp_path / "ck"), report_every=0)
    r.loop()
    clock.now += elapsed
    assert r.summary()["records"] == 20 and r.summary()["records_per_s"] == rate
    with open(tmp_path / "in.jsonl", "a") as f:  # ten more records, then resume
        f.writelines(json.dumps({"u": float(t), "y": 0.5 * t}) + "\n" for t in range(10))
    r = Run.resume(str(tmp_path / "ck"), report_every=0)
    r.loop()
    clock.now += elapsed
    assert r.summary()["records"] == 30 and r.summary()["records_per_s"] == rate / 2


def test_the_run_puts_back_each_signal_handler_it_found(tmp_path):
    """A run handles SIGINT / SIGTERM only while it loops; after it, each signal has its own
    earlier handler again (distinct ones here, so a swap would show)."""
    import signal

    def on_int(signum, frame):
        pass

    def on_term(signum, frame):
        pass

    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGINT, on_int)
    signal.signal(signal.SIGTERM, on_term)
    try:
        _jsonl(tmp_path / "in.jsonl", [{"u": float(t), "y": 0.5 * t} for t in range(5)])
        r = Run.start(runconfig.resolve(target="y", format="jsonl"), str(tmp_path / "in.jsonl"),
                      str(tmp_path / "out"), str(tmp_path / "rej"), report_every=0)
        r.loop()
        assert signal.getsignal(signal.SIGINT) is on_int
        assert signal.getsignal(signal.SIGTERM) is on_term
    finally:
        signal.signal(signal.SIGINT, before[0])
        signal.signal(signal.SIGTERM, before[1])


class _Says:
    """A model whose every answer is `value`."""

    def __init__(self, value):
        self.value = value

    def predict_one(self, x):
        return self.value

    def predict_proba_one(self, x):
        return self.value


@pytest.mark.parametrize("value", [np.array([[1.0]]), np.array([]), [1.0, math.nan],
                                   np.array([math.inf]), [[0.5, 0.5]]])
def test_a_regression_answer_must_be_a_finite_number_or_vector(value):
    from onlineboost.app.task import Regression

    with pytest.raises(ValueError, match="not finite numbers"):
        Regression().answer(_Says(value), {})


@pytest.mark.parametrize("proba, text", [({False: 1.0}, "0,0.0"), ({}, "0,0.0"),
                                         ({True: 0.5, False: 0.5}, "0,0.5"),
                                         ({True: 0.75}, "1,0.75")])
def test_a_classification_answer_is_the_label_and_p_true(proba, text):
    """P(True) missing from the probabilities counts as 0; the label is True above 1/2."""
    from onlineboost.app.task import Classification

    assert Classification().answer(_Says(proba), {})[0] == text


@pytest.mark.parametrize("proba", [{True: 1.5}, {True: -0.1}, {True: math.nan}, [0.5], None])
def test_a_classification_answer_must_be_a_probability(proba):
    from onlineboost.app.task import Classification

    with pytest.raises(ValueError, match="not (a probability|class probabilities)"):
        Classification().answer(_Says(proba), {})


def test_an_unexpected_failure_is_an_error_line_and_status_2(tmp_path, monkeypatch, capsys):
    """Whatever the model's construction raises, the command prints one error line naming
    it and exits with status 2, never a traceback."""
    def broken(settings):
        raise RuntimeError("no model today")

    monkeypatch.setattr(runconfig, "build_model", broken)
    (tmp_path / "in.csv").write_text("a,y\n1,0.5\n")
    code, err = run([tmp_path / "in.csv", "--target", "y", "-o", tmp_path / "out"], capsys)
    assert code == 2 and err == "onlineboost run: error: RuntimeError: no model today\n", err
