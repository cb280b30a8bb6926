"""Properties of `onlineboost run` over random records and settings (issue 14, "What to
build"): never a traceback — a record the parser, the model or the policy cannot digest is
rejected and the stream goes on; every refusal is an `error: ...` with exit status 2; every
answer written is finite (numbers), a probability in [0, 1], or an arm on offer; and every
record is accounted for: answered, rejected, or answered and then refused by the learner."""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from onlineboost.app import cli

PROPS = settings(max_examples=30, deadline=None, derandomize=True,
                 suppress_health_check=list(HealthCheck))

values = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1e308, -1e308, 1e100, 1e101, 5e-324, 0.0, -0.0, 1.0, 1e16]),
    st.integers(-(10 ** 400), 10 ** 400),
    st.booleans(), st.none(),
    st.sampled_from(["1.5", "1_0", "\u0661", "0x10", "", " ", "nan", "abc", "1e999"]),
    st.lists(st.floats(-1, 1), max_size=2),
)
names = st.sampled_from(["a", "b", "c", "y", "r1", "r2", "", "é"]) | st.text(max_size=3)
numbers = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from([1e100, -1e99])
plausible = st.fixed_dictionaries(  # mostly valid records, of every finite magnitude
    {"a": numbers, "b": st.floats(-10, 10), "y": st.floats(-2, 2) | numbers | st.booleans(),
     "r1": st.sampled_from([0.0, 1.0, 0.5]), "r2": st.sampled_from([0.0, 1.0]) | numbers},
    optional={"c": values})
records = st.lists(plausible | st.dictionaries(names, values, max_size=5), min_size=1,
                   max_size=12)
regression = st.fixed_dictionaries({
    "--learner": st.sampled_from(["linear-ogd", "ridge", "stump", "mlp"]),
    "--booster": st.sampled_from(["booco", "none"]),
    "--decision-set": st.sampled_from([None, "interval:-1,1", "interval:0,100", "box:-1,-1,1,1",
                                       "simplex:3", "ball:2"]),
    "-N": st.sampled_from(["1", "3"]),
    "--loss": st.sampled_from([None, "absolute", "huber"]),
    "--max-features": st.sampled_from([None, "2", "100"]),
})
bandit = st.fixed_dictionaries({
    "--policy": st.sampled_from(["epsilon-greedy", "linucb", "boblo"]),
    "--learner": st.sampled_from([None, "softmax"]),
    "-N": st.sampled_from(["1", "3"]),
})


def _run(rows, flags, head):
    with tempfile.TemporaryDirectory() as d:
        data = os.path.join(d, "in.jsonl")
        with open(data, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
            f.write('{"a": 1')  # an unterminated last line: never consumed
        argv = ["run", data, *head, "-o", os.path.join(d, "out"), "--rejects",
                os.path.join(d, "rej"), "--checkpoint", os.path.join(d, "ck"),
                "--checkpoint-every", "3", "--report-every", "0"]
        for k, v in flags.items():
            if v is not None:
                argv += [k, v]
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = cli.main(argv)  # any exception here fails the property: a traceback
        text = err.getvalue()
        if code == 2:
            assert text.startswith("onlineboost run: error: ") and "Traceback" not in text
            return None
        assert code == 0, text
        out = open(os.path.join(d, "out")).read().splitlines()
        rej = [json.loads(s) for s in open(os.path.join(d, "rej"))]
        done = [s for s in text.splitlines() if "done:" in s][-1]
        counts = dict(p.split("=") for p in done.split("done: ")[1].split())
        assert int(counts["records"]) == len(rows)
        assert int(counts["answered"]) == len(out) and int(counts["rejected"]) == len(rej)
        assert all(r["reason"] for r in rej)
        answered = [int(a.split(",")[0]) for a in out]
        both = set(answered) & {r["line"] for r in rej}  # answered, then refused to learn
        assert all("(answered)" in r["reason"] for r in rej if r["line"] in both)
        assert sorted(answered + [r["line"] for r in rej if r["line"] not in both]) == list(
            range(1, len(rows) + 1))
        for key in ("MAE", "RMSE", "accuracy", "log_loss", "mean_reward"):
            if key in counts:
                assert math.isfinite(float(counts[key]))
        return [a.split(",")[1:] for a in out]


@PROPS
@given(rows=records, flags=regression)
def test_regression_runs_never_crash_and_answer_finite(rows, flags):
    answers = _run(rows, flags, ["--target", "y"])
    for a in answers or ():
        assert a and all(math.isfinite(float(v)) for v in a)


@PROPS
@given(rows=records, loss=st.sampled_from(["squared", "logistic", "hinge"]))
def test_classification_runs_never_crash(rows, loss):
    answers = _run(rows, {"--loss": loss}, ["--target", "y", "--booster", "booco-classifier"])
    for label, p in answers or ():
        assert label in ("0", "1") and 0.0 <= float(p) <= 1.0


@PROPS
@given(rows=records, flags=bandit, scale=st.booleans())
def test_bandit_runs_never_crash(rows, flags, scale):
    answers = _run(rows, flags, ["--rewards", "r1,r2", *(["--scale"] if scale else [])])
    for (arm,) in answers or ():
        assert arm in ("r1", "r2")
