"""Issue 14, "scaling that one record cannot poison": one in-range extreme value (|v| below
--max-abs) under `--scale` (LinUCB, BoBLO, BoOCO) and in BoBLO's own context scaling.

Before `onlineboost.scaling` (river's StandardScaler behind --scale, river's arithmetic in
BoBLO's ContextVectors), one context of 1e20 ... 1e99 in a 600-round stream took `--policy
boblo --scale` from a mean reward of 0.85 to 0.52 (0.94 -> 0.52 with `--learner softmax`),
and LinUCB from 0.98 to 0.53 (1e20); every case here failed then but the LinUCB ones at
1e99 / -1e99 / 1e50 (LinUCB was not scaled at all under --scale then, and these contexts
happen not to derail it on this stream)."""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest

from onlineboost import BoBLO
from tests.app._util import run

TOLERANCE = 0.05  # mean reward of the poisoned run >= clean run's - TOLERANCE
CASES = [(1e99, 30), (-1e99, 30), (1e50, 30), (1e20, 30), (1e99, 0)]


def _rows(value=None, at=30, n=600, seed=4):
    """Contexts c1, c2 ~ N(0, 1); arm "a" pays 1 when c1 > 0, arm "b" otherwise; `value`
    replaces c1 in record `at`."""
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(n):
        c1, c2 = rng.normal(size=2)
        rows.append({"c1": value if (value is not None and t == at) else float(c1),
                     "c2": float(c2), "a": float(c1 > 0), "b": float(c1 <= 0)})
    return rows


def _mean_reward(tmp_path, policy, extra, value, at):
    path = tmp_path / f"in{value}{at}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _rows(value, at)))
    out = tmp_path / "out"
    if out.exists():
        out.unlink()
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code, _ = run([path, "--rewards", "a,b", "--policy", policy, "--scale", *extra,
                       "-o", out, "--report-every", "0"])
    assert code == 0
    line = [s for s in err.getvalue().splitlines() if "done:" in s][-1]
    assert "answered=600" in line and "rejected=0" in line
    return float(line.split("mean_reward=")[1].split()[0])


@functools.cache
def _clean(policy, extra, tmp):
    import pathlib

    return _mean_reward(pathlib.Path(tmp), policy, extra, None, 30)


@pytest.mark.parametrize("policy, extra", [("linucb", ()), ("boblo", ()),
                                           ("boblo", ("--learner", "softmax"))])
@pytest.mark.parametrize("value, at", CASES)
def test_one_extreme_context_keeps_the_reward_under_scale(tmp_path_factory, policy, extra,
                                                          value, at):
    tmp = tmp_path_factory.getbasetemp() / f"clean-{policy}-{'-'.join(extra)}"
    tmp.mkdir(exist_ok=True)
    clean = _clean(policy, extra, str(tmp))
    assert clean > 0.8
    d = tmp_path_factory.mktemp("poisoned")
    poisoned = _mean_reward(d, policy, extra, value, at)
    assert poisoned >= clean - TOLERANCE, (clean, poisoned)


def _boblo_reward(value, at):
    policy = BoBLO(seed=0)  # its own (numpy) context scaling
    total = 0.0
    for r in _rows(value, at):
        context = {"c1": r["c1"], "c2": r["c2"]}
        arm = policy.pull(["a", "b"], context)
        policy.update(arm, context, r[arm])
        total += r[arm]
    return total / 600


@pytest.mark.parametrize("value, at", CASES)
def test_boblo_own_scaling_keeps_the_reward(value, at):
    """BoBLO directly (default transformer: the numpy ContextVectors scaling): before, one
    context of 1e99 took the mean reward from the clean run's to about 0.5."""
    clean = _boblo_reward(None, 30)
    assert clean > 0.8
    assert _boblo_reward(value, at) >= clean - TOLERANCE


@pytest.mark.parametrize("value", [1e99, -1e50, 1e20])
def test_one_extreme_feature_keeps_the_regression_error_under_scale(tmp_path, capsys, value):
    """BoOCO (ridge, BoOCO's own steps) behind `--scale`: one record of 1e20 ... 1e99 in a
    feature leaves the mean absolute error within 15% of the clean run's (measured 0.146 clean,
    0.153-0.158 poisoned: the record is still learnt, shown to the model at the band's edge, 5
    sd, with a target that does not match it; the plausible value u = 10 in its place costs the
    same, 0.153). With river's StandardScaler: 0.151 clean, 0.44-0.45 poisoned (the feature
    standardised to ~0 for the rest of the stream); with the output clipped at 10 rather than
    at the band: 0.18-0.19."""
    rows = [tuple(uv) for uv in np.random.default_rng(0).normal(size=(600, 2))]
    maes = []
    for poisoned in (False, True):
        path = tmp_path / f"in{poisoned}.jsonl"
        path.write_text("".join(json.dumps({"u": value if (poisoned and t == 30) else u,
                                            "v": v, "y": float(np.tanh(u - v))}) + "\n"
                                for t, (u, v) in enumerate(rows)))
        code, err = run([path, "--target", "y", "--scale", "--learner", "ridge", "-o",
                         tmp_path / f"out{poisoned}", "--report-every", "0"], capsys)
        assert code == 0
        line = [s for s in err.splitlines() if "done:" in s][-1]
        maes.append(float(line.split("MAE=")[1].split()[0]))
    assert maes[1] <= 1.15 * maes[0], maes
