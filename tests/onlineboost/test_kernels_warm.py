"""`boblo._warm`: building a `BoBLO` loads the compiled round, so a stream's rounds do not.

Checked in fresh processes (numba's dispatchers are per process): after the first `BoBLO()` is
built, playing real streams under the configurations the kernels cover adds no
specialisation to any kernel (the warm-up called each with the argument types of a real
round, so no round of theirs compiles or loads anything), and the warm-up runs once.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from onlineboost import _kernels

pytestmark = pytest.mark.skipif(not _kernels.AVAILABLE, reason="numba is not installed")

ROOT = Path(__file__).resolve().parents[2]

CODE = r"""
import json
import numpy as np
from onlineboost import BoBLO, _kernels, boblo
from learners import FeaturePolicy
from onlineboost.boblo import DEFAULT_LEARNER

names = ["pull_round", "pull_round_ridge", "update_round", "update_round_ridge", "warm_scale",
         "warm_store"]
def signatures():
    return {n: sorted(map(str, getattr(_kernels, n).signatures)) for n in names}

before = signatures()
first = BoBLO(seed=1)
after_build = signatures()
again = boblo._warm()  # (done: False)
configs = [dict(), dict(model_l2=5.0), dict(model_l2=(1.0, 5.0, 20.0)), dict(optimism=0.1),
           dict(learner=FeaturePolicy(**{**DEFAULT_LEARNER, "t0": None})),
           dict(transformer=None), dict(reward_range=(-1.0, 1.0))]
rng = np.random.default_rng(0)
jit = []
for i, params in enumerate(configs):
    policy = BoBLO(seed=i, **params)
    lo, hi = params.get("reward_range", (0.0, 1.0))
    for t in range(300):
        c = {f"x{j}": (int(v * 10) if j == 0 else float(v))
             for j, v in enumerate(rng.normal(size=6))}
        arm = policy.pull(["a", "b", "c", "d"], c)
        policy.update(arm, c, lo + (hi - lo) * float(rng.random()))
    jit.append(policy._jit)
print(json.dumps(dict(before=before, after_build=after_build, after_play=signatures(),
                      again=again, jit=jit)))
"""


@pytest.fixture(scope="module")
def report():
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True,
                         check=True, cwd=ROOT, env=None)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_building_a_boblo_loads_every_kernel_a_real_round_calls(report):
    assert all(not v for v in report["before"].values())  # nothing loaded at import
    assert all(report["after_build"].values())  # every entry kernel loaded by the build
    # real streams under every covered configuration: no new specialisation
    assert report["after_play"] == report["after_build"]
    assert all(report["jit"])


def test_the_warm_up_runs_once_per_process(report):
    assert report["again"] is False


def test_policies_the_tests_keep_on_numpy_do_not_warm(monkeypatch):
    """`BoBLO._JIT = False` (the numpy round) and configurations no kernel covers build
    without touching the kernels."""
    calls = []
    from onlineboost import BoBLO, boblo

    monkeypatch.setattr(boblo, "_warm", lambda: calls.append(1))

    monkeypatch.setattr(BoBLO, "_JIT", False)
    BoBLO()
    monkeypatch.setattr(BoBLO, "_JIT", True)
    BoBLO(n_learners=3)
    BoBLO(estimator="ips")
    assert calls == []
    BoBLO()
    assert calls == [1]
