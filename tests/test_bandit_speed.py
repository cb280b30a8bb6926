"""benchmarks.bandit_speed: the rows build what they name, and the dispatch it times is a real
call of the defaults' pull kernel (a signature change would otherwise break the benchmark
only when it runs)."""

from __future__ import annotations

import pytest
from river import bandit as river_bandit

from benchmarks import bandit_speed as bs
from benchmarks.bandit_compare import LINUCB
from onlineboost import BoBLO, NeighbourBoBLO, _kernels
from onlineboost.boblo import DEFAULT_LEARNER


@pytest.mark.skipif(not _kernels.AVAILABLE, reason="numba is not installed")
def test_the_timed_dispatch_is_a_call_of_the_pull_kernel_that_returns_at_once():
    args = bs.dispatch_args()
    assert _kernels.pull_round_features(*args) == 0
    entry = _kernels._entry(_kernels.pull_round_features, args)  # (the steady round's call)
    assert entry is not _kernels.pull_round_features and entry(*args) == 0


@pytest.mark.parametrize("name", bs.POLICIES)
def test_rows_build_what_they_name(name):
    policy, transformer = bs.make(name, "digits", 1)
    if name.startswith("river"):
        assert isinstance(policy, river_bandit.LinUCBDisjoint) and transformer is not None
        assert (policy.alpha, policy.beta) == LINUCB["digits"]
        return
    assert transformer is None
    if name == "NeighbourBoBLO()":
        assert isinstance(policy, NeighbourBoBLO)
        return
    assert isinstance(policy, BoBLO) and policy.learner is None  # (the default learner)
    assert policy.n_learners == (5 if "n_learners=5" in name else 1)
    policy.pull([0, 1], {"x": 0.5})
    assert policy.booco.copies.learn_weight == DEFAULT_LEARNER["learn_weight"]
