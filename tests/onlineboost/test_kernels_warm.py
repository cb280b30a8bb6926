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

from learners import FeaturePolicy
from onlineboost import _kernels

pytestmark = pytest.mark.skipif(not _kernels.AVAILABLE, reason="numba is not installed")

ROOT = Path(__file__).resolve().parents[2]

CODE = r"""
import json
import numpy as np
from onlineboost import BoBLO, _kernels, boblo
from learners import FeaturePolicy
from onlineboost.boblo import DEFAULT_LEARNER, FIXED_WEIGHT_LEARNER

from onlineboost import _boost_kernels, _deep_kernels
from learners import _stack_kernels
# the defaults' kernels (a copy with its own random features, on the penalty mixture or one
# penalty), and the stack's own two that its first round (numpy: it grows the copy) calls
ONE = ["pull_round_features", "pull_round_ridge_features", "update_round_features",
       "update_round_ridge_features", "warm_scale", "warm_store"]
FIRST = ["predict", "learn", "evidence_step"]  # (and the default learner's evidence)
def dispatchers(module):
    return {f"{module.__name__}.{n}": f for n, f in vars(module).items()
            if hasattr(f, "signatures") and not n.startswith("_")}
entry = {f"onlineboost._kernels.{n}": getattr(_kernels, n) for n in ONE}
entry.update({f"learners._stack_kernels.{n}": getattr(_stack_kernels, n) for n in FIRST})
boost = {**dispatchers(_stack_kernels), **dispatchers(_boost_kernels),
         **dispatchers(_deep_kernels)}
for name in entry:
    boost.pop(name, None)
boost.pop("onlineboost._boost_kernels.fit_bounds")  # (called inside `fit_round` only)
# (the one-copy step without features of its own: no default copy takes it since the eighth
# session, every default copy has random features)
boost.pop("learners._stack_kernels.rank_one")
def signatures(kernels):
    return {n: sorted(map(str, f.signatures)) for n, f in kernels.items()}

before = signatures({**entry, **boost})
first = BoBLO(seed=1)
after_build = signatures(entry)
boost_untouched = not any(signatures(boost).values())
again = boblo._warm()  # (done: False)
# the default N > 1 (neighbour later copies, the general path) leaves the compiled round alone
neighbours = BoBLO(seed=1, n_learners=5)
deep_only = {n: f for n, f in dispatchers(_deep_kernels).items() if n not in entry}
neighbours_deep_untouched = not any(signatures(deep_only).values())
# from here on the Fourier later copies (the N > 1 default until the fifteenth session), which
# the compiled N > 1 round covers
boblo.DEFAULT_LATER = boblo.FOURIER_LATER
boblo.DEFAULT_LEARNER = boblo.FIXED_WEIGHT_LEARNER  # (copy 1 as it was then: its weight fixed)
five = BoBLO(seed=1, n_learners=5)
after_five = signatures(boost)
again_five = boblo._warm(5)
configs = [dict(), dict(model_l2=5.0), dict(model_l2=(1.0, 5.0, 20.0)), dict(optimism=0.1),
           dict(learner=FeaturePolicy(**{**DEFAULT_LEARNER, "t0": None})),
           dict(learner=FeaturePolicy(**{**DEFAULT_LEARNER, "n_features": 16})),
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
deep = []
for i, n in enumerate((2, 5, 5)):  # N > 1 rounds: the stack's and the booster's kernels
    policy = BoBLO(seed=10 + i, n_learners=n, **({"transformer": None} if i == 2 else {}))
    for t in range(400):
        c = {f"x{j}": float(v) for j, v in enumerate(rng.normal(size=3 + i))}
        arm = policy.pull(["a", "b", "c"], c)
        policy.update(arm, c, float(rng.random() < 0.5 + 0.3 * (arm == "a") * (c["x0"] > 0)))
    deep.append(policy._deep)
from benchmarks.bandit_compare import NONLINEAR  # (FitLead switches: Exp4's rounds too)
# (over the linear first copy: over the default one, with the later copies' class, no switch)
linear = FeaturePolicy(**{**FIXED_WEIGHT_LEARNER, "n_features": 0}, later_features=128)
policy, stream = BoBLO(linear, seed=100, n_learners=5), NONLINEAR(100)
for t, (c, ids) in enumerate(stream):
    if t == 700:
        break
    arm = policy.pull(ids, c)
    policy.update(arm, c, stream.reward(arm))
deep.append(policy._deep and policy.exp4.mixing)
print(json.dumps(dict(before=before, after_build=after_build, after_play=signatures(entry),
                      boost_untouched=boost_untouched, after_five=after_five,
                      after_five_play=signatures(boost), again=again, again_five=again_five,
                      jit=jit, deep=deep,
                      neighbours_deep_untouched=neighbours_deep_untouched)))
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


def test_building_an_n_learners_boblo_loads_the_boosters_kernels_too(report):
    """`BoBLO()` leaves the N > 1 kernels alone (but the stack's `predict` and `learn`, which
    its first round calls); `BoBLO(n_learners=5)` loads every one of them (the general path's
    pieces, `_stack_kernels` and `_boost_kernels`, which the first rounds play, and the
    compiled round, `_deep_kernels`), and N = 2 and N = 5 streams then add no
    specialisation."""
    assert {"onlineboost._deep_kernels.pull_deep",
            "onlineboost._deep_kernels.update_deep"} <= set(report["after_five"])
    assert all(report["deep"])  # (the compiled round played them, after a switch too)
    assert report["boost_untouched"]
    # the default N > 1 (neighbour later copies) does not load the compiled N > 1 round
    assert report["neighbours_deep_untouched"]
    assert all(report["after_five"].values()), report["after_five"]
    assert report["after_five_play"] == report["after_five"]


def test_the_warm_up_runs_once_per_process(report):
    assert report["again"] is False and report["again_five"] is False


def test_policies_the_tests_keep_on_numpy_do_not_warm(monkeypatch):
    """`BoBLO._JIT = False` (the numpy round) and estimators no kernel serves build without
    touching the kernels; the others ask for their number of copies' kernels."""
    calls = []
    from onlineboost import BoBLO, boblo

    monkeypatch.setattr(boblo, "_warm", lambda n=1, deep=True: calls.append((n, deep)))

    monkeypatch.setattr(BoBLO, "_JIT", False)
    BoBLO()
    BoBLO(n_learners=3)
    monkeypatch.setattr(BoBLO, "_JIT", True)
    BoBLO(estimator="ips")
    assert calls == []
    BoBLO()
    BoBLO(n_learners=3)  # (neighbour later copies: not the compiled N > 1 round's)
    BoBLO(FeaturePolicy(**boblo.FIXED_WEIGHT_LEARNER, **boblo.FOURIER_LATER), n_learners=3)
    assert calls == [(1, True), (3, False), (3, True)]
